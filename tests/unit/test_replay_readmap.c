// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The map of the regions a trace reads: exact runs, bounded memory, projection onto a target. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "replay/block/prefill.h"

#include "tests/unit/check.h"

#define KiB (1ULL << 10)
#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

/* The runs of m as "a-b,c-d" in KiB, for readable failures. */
static const char *runs(struct granmap *m, uint64_t limit)
{
	static char buf[512];
	uint64_t pos = 0, a, b;
	size_t n = 0;

	buf[0] = '\0';
	while (granmap_next_run(m, &pos, limit, &a, &b) && n < sizeof(buf) - 48)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%llu-%llu", n ? "," : "",
				      (unsigned long long)(a / KiB), (unsigned long long)(b / KiB));
	return buf;
}

static uint64_t total(struct granmap *m)
{
	uint64_t pos = 0, a, b, sum = 0;

	while (granmap_next_run(m, &pos, UINT64_MAX, &a, &b))
		sum += b - a;
	return sum;
}

/* Issue 21 W15: the map holds exactly what the reads cover (1 MiB granules counted 54 reads of
 * 4 KiB as 54 MiB). */
static void test_exact(void)
{
	struct granmap m = { 0 };

	granmap_set(&m, 4096, 8192);
	CHECK(!strcmp(runs(&m, UINT64_MAX), "4-8"), "a 4 KiB read marks 4 KiB: %s",
	      runs(&m, UINT64_MAX));
	granmap_set(&m, 10 * GiB + MiB - 512, 10 * GiB + MiB + 512);
	granmap_set(&m, 0, 4096);    /* touches the first: one run */
	granmap_set(&m, 6144, 12288); /* overlaps it */
	CHECK(!strcmp(runs(&m, UINT64_MAX), "0-12,10486783-10486784"), "runs: %s",
	      runs(&m, UINT64_MAX));
	CHECK(total(&m) == 12288 + 1024, "bytes: %llu", (unsigned long long)total(&m));
	CHECK(!strcmp(runs(&m, 8192), "0-8"), "clipped to the limit: %s", runs(&m, 8192));
	CHECK(m.shift == 0 && !m.err, "exact");
	granmap_free(&m);

	/* 54 random 4 KiB reads: 216 KiB */
	for (uint64_t i = 0; i < 54; i++)
		granmap_set(&m, (i * 7919 % 54) * 3 * MiB, (i * 7919 % 54) * 3 * MiB + 4096);
	CHECK(total(&m) == 54 * 4096, "54 reads of 4 KiB: %llu bytes",
	      (unsigned long long)total(&m));
	granmap_free(&m);

	/* hot blocks read again and again add nothing once merged */
	for (uint64_t i = 0; i < 100000; i++)
		granmap_set(&m, (i % 100) * MiB, (i % 100) * MiB + 4096);
	CHECK(total(&m) == 100 * 4096 && m.nruns == 100, "hot blocks: %llu runs",
	      (unsigned long long)m.nruns);
	granmap_free(&m);

	/* a sequential stream stays one run */
	for (uint64_t i = 0; i < 100000; i++)
		granmap_set(&m, i * 4096, (i + 1) * 4096);
	CHECK(m.nruns == 1 && total(&m) == 100000 * 4096, "sequential: %llu runs",
	      (unsigned long long)m.nruns);
	granmap_free(&m);
}

static void test_bounded(void)
{
	struct granmap m = { 0 };
	uint64_t n = 2 * GRANMAP_MAX_RUNS, sum;

	/* more disjoint 512-byte reads than the map holds exactly: rounded out, never lost */
	for (uint64_t i = 0; i < n; i++) {
		uint64_t off = (i * 2654435761ULL % n) * 8192;

		granmap_set(&m, off, off + 512);
	}
	sum = total(&m);
	CHECK(!m.err && m.cap <= GRANMAP_MAX_RUNS && m.nruns <= GRANMAP_MAX_RUNS,
	      "bounded: %llu runs of %llu", (unsigned long long)m.nruns, (unsigned long long)m.cap);
	CHECK(m.shift >= 12 && sum >= n * 512 && sum <= n * 8192, "coarsened to %u: %llu bytes",
	      m.shift, (unsigned long long)sum);
	granmap_set(&m, UINT64_MAX - 4096, UINT64_MAX); /* a damaged offset still fits */
	CHECK(!m.err, "at the top of the range");
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
	CHECK(readmap_dev(rm, 1) && !strcmp(runs(readmap_dev(rm, 1), UINT64_MAX), "5120-5124"),
	      "reads only: %s", runs(readmap_dev(rm, 1), UINT64_MAX));
	CHECK(readmap_dev(wr, 0) && !strcmp(runs(readmap_dev(wr, 0), UINT64_MAX), "9216-9220"),
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
	CHECK(!strcmp(runs(&out, 64 * MiB), "0-4,6144-6148"), "wrapped: %s", runs(&out, 64 * MiB));
	granmap_free(&out);

	/* a run across the end of the target: both ends */
	granmap_free(&in);
	granmap_set(&in, 64 * MiB - 4096, 64 * MiB + 8192);
	granmap_init_fixed(&out, 64 * MiB);
	readmap_project(&in, 64 * MiB, 128 * MiB, false, &out);
	CHECK(!strcmp(runs(&out, 64 * MiB), "0-8,65532-65536"), "straddling: %s",
	      runs(&out, 64 * MiB));
	granmap_free(&out);

	/* scale: offsets times size / src_size */
	granmap_free(&in);
	granmap_set(&in, 64 * MiB, 65 * MiB);
	granmap_init_fixed(&out, 64 * MiB);
	readmap_project(&in, 64 * MiB, 128 * MiB, true, &out);
	CHECK(!strcmp(runs(&out, 64 * MiB), "32768-33280"), "scaled: %s", runs(&out, 64 * MiB));
	granmap_free(&out);

	/* a read larger than a small target: clipped to it */
	granmap_free(&in);
	granmap_set(&in, 0, 1 * MiB);
	granmap_init_fixed(&out, 256 * 1024);
	readmap_project(&in, 256 * 1024, 256 * 1024, false, &out);
	CHECK(!strcmp(runs(&out, 256 * 1024), "0-256"), "small target: %s",
	      runs(&out, 256 * 1024));
	granmap_free(&out);
	granmap_free(&in);
}

int main(void)
{
	test_exact();
	test_bounded();
	test_readmap();
	test_project();
	if (failures)
		return 1;
	printf("ok\n");
	return 0;
}
