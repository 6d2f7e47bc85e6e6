// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The map of the regions a trace reads: granules, bounded memory, projection onto a target. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "replay/prefill.h"

#include "tests/unit/check.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

/* The runs of m as "a-b,c-d" in MiB, for readable failures. */
static const char *runs(const struct granmap *m, uint64_t limit)
{
	static char buf[512];
	uint64_t pos = 0, a, b;
	size_t n = 0;

	buf[0] = '\0';
	while (granmap_next_run(m, &pos, limit, &a, &b) && n < sizeof(buf) - 48)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%llu-%llu", n ? "," : "",
				      (unsigned long long)(a / MiB), (unsigned long long)(b / MiB));
	return buf;
}

static void test_granules(void)
{
	struct granmap m = { 0 };

	granmap_set(&m, 4096, 8192);
	CHECK(!strcmp(runs(&m, UINT64_MAX), "0-1"), "a 4 KiB read marks its 1 MiB: %s",
	      runs(&m, UINT64_MAX));
	granmap_set(&m, 10 * GiB + MiB - 512, 10 * GiB + MiB + 512); /* straddles two granules */
	granmap_set(&m, MiB, 2 * MiB);
	CHECK(!strcmp(runs(&m, UINT64_MAX), "0-2,10240-10242"), "runs: %s", runs(&m, UINT64_MAX));
	CHECK(!strcmp(runs(&m, 10 * GiB + 4096), "0-2,10240-10240"), "clipped to the limit: %s",
	      runs(&m, 10 * GiB + 4096));
	CHECK(m.shift == GRANMAP_SHIFT && !m.err, "1 MiB granules below 8 TiB");
	granmap_free(&m);
}

static void test_bounded(void)
{
	struct granmap m = { 0 };
	uint64_t pos = 0, a, b;

	granmap_set(&m, 0, 4096);
	granmap_set(&m, 100ULL << 40, (100ULL << 40) + 4096); /* 100 TiB: past 8 TiB at 1 MiB */
	CHECK(m.nbits <= GRANMAP_MAX_BITS && !m.err, "%llu bits", (unsigned long long)m.nbits);
	CHECK(m.shift == GRANMAP_SHIFT + 4, "granules of 16 MiB, got shift %u", m.shift);
	CHECK(granmap_next_run(&m, &pos, UINT64_MAX, &a, &b) && a == 0 && b == 16 * MiB,
	      "first run coarsened: %llu-%llu", (unsigned long long)a, (unsigned long long)b);
	CHECK(granmap_next_run(&m, &pos, UINT64_MAX, &a, &b) && a == 100ULL << 40 &&
		      b == (100ULL << 40) + 16 * MiB,
	      "second run kept: %llu", (unsigned long long)a);
	CHECK(!granmap_next_run(&m, &pos, UINT64_MAX, &a, &b), "two runs only");
	granmap_set(&m, UINT64_MAX - 4096, UINT64_MAX); /* a damaged offset still fits */
	CHECK(m.nbits <= GRANMAP_MAX_BITS && !m.err, "at the top of the range");
	granmap_free(&m);

	CHECK(!granmap_init_fixed(&m, 1ULL << 50) && m.nbits <= GRANMAP_MAX_BITS, "1 PiB target");
	granmap_free(&m);
}

static void test_readmap(void)
{
	struct readmap *rm = readmap_new(2, false), *wr = readmap_new(1, true);
	struct io_event ev = { .op = IO_OP_READ, .dev = 1, .offset = 5 * MiB, .length = 4096 };

	readmap_note(rm, &ev);
	ev.op = IO_OP_WRITE;
	ev.offset = 9 * MiB;
	readmap_note(rm, &ev);
	ev.dev = 0;
	readmap_note(wr, &ev);
	ev.op = IO_OP_FLUSH;
	ev.length = 0;
	readmap_note(rm, &ev);
	CHECK(!readmap_dev(rm, 0), "device 0 reads nothing");
	CHECK(readmap_dev(rm, 1) && !strcmp(runs(readmap_dev(rm, 1), UINT64_MAX), "5-6"),
	      "reads only: %s", runs(readmap_dev(rm, 1), UINT64_MAX));
	CHECK(readmap_dev(wr, 0) && !strcmp(runs(readmap_dev(wr, 0), UINT64_MAX), "9-10"),
	      "writes replayed as reads count");
	readmap_free(rm);
	readmap_free(wr);
}

static void test_project(void)
{
	struct granmap in = { 0 }, out;

	/* wrap: inside stays, beyond wraps modulo the target's size */
	granmap_set(&in, 0, 4096);
	granmap_set(&in, 70 * MiB, 70 * MiB + 4096);
	granmap_init_fixed(&out, 64 * MiB);
	readmap_project(&in, 64 * MiB, 128 * MiB, false, &out);
	CHECK(!strcmp(runs(&out, 64 * MiB), "0-1,6-7"), "wrapped: %s", runs(&out, 64 * MiB));
	granmap_free(&out);

	/* a granule across the end of the target: both ends */
	granmap_free(&in);
	granmap_set(&in, 63 * MiB, 65 * MiB);
	granmap_init_fixed(&out, 64 * MiB + 512 * 1024);
	readmap_project(&in, 64 * MiB + 512 * 1024, 128 * MiB, false, &out);
	CHECK(!strcmp(runs(&out, 64 * MiB + 512 * 1024), "0-1,63-64"), "straddling: %s",
	      runs(&out, 64 * MiB + 512 * 1024));
	granmap_free(&out);

	/* scale: offsets times size / src_size */
	granmap_free(&in);
	granmap_set(&in, 64 * MiB, 65 * MiB);
	granmap_init_fixed(&out, 64 * MiB);
	readmap_project(&in, 64 * MiB, 128 * MiB, true, &out);
	CHECK(!strcmp(runs(&out, 64 * MiB), "32-33"), "scaled: %s", runs(&out, 64 * MiB));
	granmap_free(&out);

	/* a target smaller than a granule: clipped to it */
	granmap_free(&in);
	granmap_set(&in, 0, 4096);
	granmap_init_fixed(&out, 256 * 1024);
	readmap_project(&in, 256 * 1024, 256 * 1024, false, &out);
	{
		uint64_t pos = 0, a, b;

		CHECK(granmap_next_run(&out, &pos, 256 * 1024, &a, &b) && a == 0 && b == 256 * 1024,
		      "small target: %llu-%llu", (unsigned long long)a, (unsigned long long)b);
	}
	granmap_free(&out);
	granmap_free(&in);
}

int main(void)
{
	test_granules();
	test_bounded();
	test_readmap();
	test_project();
	if (failures)
		return 1;
	printf("ok\n");
	return 0;
}
