// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* util/: the command-line joiner, the typed heap, the single-producer ring, durations and
 * decimals. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/check.h"
#include <errno.h>
#include "util/argv.h"
#include "util/cli.h"
#include "util/heap.h"
#include "util/spsc.h"

struct item {
	uint64_t key;
	uint32_t tag;
};

#define ITEM_KEY(e) ((e).key)
HEAP_DEFINE(iheap, struct item, ITEM_KEY)

static void test_argv(void)
{
	char *argv[] = { "record", "-o", "a b.ioreel" };
	char buf[12];
	char *s = argv_join("ioreel", 3, argv);

	CHECK(s && !strcmp(s, "ioreel record -o a b.ioreel"), "joined: '%s'", s ? s : "NULL");
	free(s);
	CHECK(argv_join_buf(buf, sizeof(buf), "ioreel", 3, argv) == 27, "length needed");
	CHECK(!strcmp(buf, "ioreel reco"), "truncated and terminated: '%s'", buf);
	s = argv_join("ioreel-mpi", 0, argv);
	CHECK(s && !strcmp(s, "ioreel-mpi"), "no arguments: '%s'", s ? s : "NULL");
	free(s);
}

static void test_heap(void)
{
	struct item h[1000], out;
	size_t n = 0;
	uint64_t last = 0;

	srand(7);
	for (uint32_t i = 0; i < 1000; i++) {
		struct item e = { (uint64_t)(rand() % 500), i };

		iheap_push(h, &n, &e);
	}
	CHECK(n == 1000, "count %zu", n);
	for (int i = 0; i < 1000; i++) {
		iheap_pop(h, &n, &out);
		CHECK(out.key >= last, "ascending at %d: %llu after %llu", i,
		      (unsigned long long)out.key, (unsigned long long)last);
		last = out.key;
	}
	CHECK(n == 0, "empty");
}

/*
 * pop (the hole down to a leaf, then the last item up) leaves the heap exactly as a sift-down of
 * the last item from the root does, ties included, so that what leaves first among equal keys
 * (the order of a trace's events queued in the same nanosecond) did not change with it: pushes
 * and pops interleaved, on keys with many ties, against that sift-down.
 */
static void test_heap_pop_arrangement(void)
{
	struct item a[600], b[600], out;
	size_t na = 0, nb = 0;

	srand(5);
	for (int i = 0; i < 20000; i++) {
		if ((rand() % 3 && na < 600) || !na) {
			struct item e = { (uint64_t)(rand() % 40), (uint32_t)i };

			iheap_push(a, &na, &e);
			iheap_push(b, &nb, &e);
		} else {
			iheap_pop(a, &na, &out);
			out = b[0];
			if (--nb)
				iheap_sift_root_(b, nb, b[nb]);
		}
		for (size_t k = 0; k < na; k++)
			if (na != nb || a[k].key != b[k].key || a[k].tag != b[k].tag) {
				CHECK(0, "step %d: pop left another arrangement than sift-down", i);
				return;
			}
	}
	CHECK(na == nb, "as many items");
}

/*
 * replace_top as the merges use it: take the smallest, put back its stream's next (never
 * smaller), sometimes by editing the root in place (e is h[0]); the tops come out ascending and
 * nothing is lost. Then a key below all others becomes the top.
 */
static void test_heap_replace_top(void)
{
	struct item h[200], out;
	size_t n = 0;
	uint64_t last = 0, sum = 0, got = 0;

	srand(11);
	for (uint32_t i = 0; i < 200; i++) {
		struct item e = { (uint64_t)(rand() % 1000) + 1, i };

		iheap_push(h, &n, &e);
		sum += e.key;
	}
	for (int i = 0; i < 5000; i++) {
		struct item e = h[0];

		CHECK(e.key >= last, "top ascending at %d: %llu after %llu", i,
		      (unsigned long long)e.key, (unsigned long long)last);
		last = e.key;
		sum -= e.key;
		if (i % 2) {
			e.key += (uint64_t)(rand() % 100);
			iheap_replace_top(h, n, &e);
			sum += e.key;
		} else {
			h[0].key += (uint64_t)(rand() % 100);
			sum += h[0].key;
			iheap_replace_top(h, n, &h[0]);
		}
	}
	CHECK(n == 200, "size kept: %zu", n);
	out = (struct item){ 0, 999 };
	sum -= h[0].key;
	iheap_replace_top(h, n, &out);
	CHECK(h[0].key == 0 && h[0].tag == 999, "a smaller key is the new top");
	for (last = 0; n;) {
		iheap_pop(h, &n, &out);
		CHECK(out.key >= last, "pop ascending after replacements");
		last = out.key;
		got += out.key;
	}
	CHECK(got == sum, "items kept: sum %llu, expected %llu", (unsigned long long)got,
	      (unsigned long long)sum);
}

static void test_spsc(void)
{
	struct spsc q;
	uint64_t *p;

	CHECK(spsc_init(&q, sizeof(uint64_t), 5) == 0, "init");
	for (uint64_t i = 0; i < 8; i++) {
		p = spsc_slot(&q);
		CHECK(p != NULL, "slot %llu of 8", (unsigned long long)i);
		if (p) {
			*p = i;
			spsc_push(&q);
		}
	}
	CHECK(spsc_slot(&q) == NULL, "full at capacity 8 (rounded up from 5)");
	CHECK(spsc_count(&q) == 8, "count");
	for (uint64_t i = 0; i < 8; i++) {
		p = spsc_peek(&q);
		CHECK(p && *p == i, "fifo order at %llu", (unsigned long long)i);
		spsc_pop(&q);
	}
	CHECK(spsc_peek(&q) == NULL, "empty");
	spsc_free(&q);
}

/* Durations up to 2^63 ns; beyond, -ERANGE (llround past long long gave any value). The number
 * is a plain decimal: strtod's hex and exponents took "0x10" as 16 s and "1e3ms" as 1 s. */
static void test_duration(void)
{
	static const char *const bad[] = { "", ".", "s", "0x10", "0x10s", "1e3ms", "1E3", "1e19ns",
					   "nan", "inf", "+1", "-1", " 5", "5 s", "1.2.3s", "1d",
					   "5sec", "5S" };
	uint64_t ns = 0;

	CHECK(!parse_duration_ns("1.5s", &ns) && ns == 1500000000ULL, "1.5s: %llu",
	      (unsigned long long)ns);
	CHECK(!parse_duration_ns("500us", &ns) && ns == 500000ULL, "500us");
	CHECK(!parse_duration_ns("9000000000", &ns) && ns == 9000000000000000000ULL,
	      "285 years: %llu", (unsigned long long)ns);
	CHECK(parse_duration_ns("10000000000", &ns) == -ERANGE, "317 years refused");
	CHECK(parse_duration_ns("10000000000000000000ns", &ns) == -ERANGE, "1e19 ns refused");
	CHECK(!parse_duration_ns("10", &ns) && ns == 10000000000ULL, "10 (seconds)");
	CHECK(!parse_duration_ns(".5ms", &ns) && ns == 500000ULL, ".5ms");
	CHECK(!parse_duration_ns("5.", &ns) && ns == 5000000000ULL, "5.");
	CHECK(!parse_duration_ns("100ns", &ns) && ns == 100ULL, "100ns");
	CHECK(!parse_duration_ns("1.5m", &ns) && ns == 90000000000ULL, "1.5m");
	CHECK(!parse_duration_ns("1h", &ns) && ns == 3600000000000ULL, "1h");
	CHECK(!parse_duration_ns("0", &ns) && ns == 0, "0");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(parse_duration_ns(bad[i], &ns) == -EINVAL, "'%s' taken", bad[i]);
	CHECK(parse_duration_ns(NULL, &ns) == -EINVAL, "NULL taken");
}

/* Plain decimals only: strtod's hex, exponents, signs, spaces, nan and inf are refused. */
static void test_decimal(void)
{
	static const char *const bad[] = { "", ".", "-0", "+1", " 50", "50 ", "0x32", "1e2",
					   "nan", "inf", "1.2.3", "50:99", "50,9" };
	double v = -1;

	CHECK(!parse_decimal("99.9", &v) && v == 99.9, "99.9: %g", v);
	CHECK(!parse_decimal("100", &v) && v == 100, "100: %g", v);
	CHECK(!parse_decimal(".5", &v) && v == 0.5, ".5: %g", v);
	CHECK(!parse_decimal("5.", &v) && v == 5, "5.: %g", v);
	CHECK(!parse_decimal("0", &v) && v == 0, "0: %g", v);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(parse_decimal(bad[i], &v) == -EINVAL, "'%s' taken", bad[i]);
	CHECK(parse_decimal(NULL, &v) == -EINVAL, "NULL taken");
}

int main(void)
{
	test_argv();
	test_heap();
	test_heap_pop_arrangement();
	test_heap_replace_top();
	test_spsc();
	test_duration();
	test_decimal();
	return failures ? 1 : 0;
}
