// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * analysis__*: percentiles, means and rates against exact values computed from the same
 * generated events; depth reconstruction on a known queue depth; empty, single-event and
 * no-completion inputs; the bounded interval series; grouping; clat without issue times (bio
 * level); closed-loop traces (no runtime).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/analysis_int.h"
#include "analyze/report.h"

#include "tests/unit/check.h"

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static struct io_event ev(uint64_t q, uint64_t i, uint64_t c, uint64_t off, uint32_t len,
			  unsigned int op)
{
	struct io_event e;

	memset(&e, 0, sizeof(e));
	e.queue_ns = q;
	e.issue_ns = i;
	e.complete_ns = c;
	e.offset = off;
	e.length = len;
	e.op = (uint8_t)op;
	e.pid = 42;
	strcpy(e.comm, "fio");
	return e;
}

/* Prints to a scratch stream: every report must cope with the analysis without crashing. */
static void print_all(const struct analysis *a)
{
	FILE *f = fopen("/dev/null", "w");

	analysis__print_text(a, f);
	analysis__print_json(a, f, "\"extra\": 1");
	an_text_compare(&a, 1, f);
	an_json_doc(&a, 1, f, NULL, true);
	an_html(&a, 1, f);
	fclose(f);
}

static void test_exact(void)
{
	enum { N = 200000 };
	uint64_t *clat = malloc(N * sizeof(*clat));
	struct analysis *a = analysis__new(NULL, NULL, "gen");
	double sum = 0, sum_slat = 0;
	uint64_t t = 1000, last = 0, bytes = 0;

	for (unsigned int k = 0; k < N; k++) {
		/* Log-uniform from 128 ns to ~8 ms: every histogram group gets exercised. */
		double u = (double)(next_rand() % 1000000) / 1e6;
		uint64_t c = (uint64_t)(128.0 * pow(2, u * 16));
		uint64_t s = 100 + next_rand() % 900;
		struct io_event e = ev(t, t + s, t + s + c, (next_rand() % 1000) * 4096, 4096,
				       k % 3 ? IO_OP_READ : IO_OP_WRITE);
		if (e.op == IO_OP_READ) {
			clat[bytes / 4096] = c;
			sum += (double)c;
			sum_slat += (double)s;
		}
		bytes += e.op == IO_OP_READ ? 4096 : 0;
		if (e.complete_ns > last)
			last = e.complete_ns;
		analysis__add(a, &e, 1);
		t += 500;
	}
	uint64_t n = bytes / 4096;
	an_finish(a);
	qsort(clat, n, sizeof(*clat), cmp_u64);
	struct an_op *o = &a->groups[0].op[IO_OP_READ];
	CHECK(o->ios == n, "read ios %llu != %llu", (unsigned long long)o->ios,
	      (unsigned long long)n);
	CHECK(o->bytes == bytes, "read bytes");
	for (unsigned int i = 0; i < 17; i++) {
		double p = an_default_pct[i];
		uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)n);
		uint64_t exact = clat[(rank ? rank : 1) - 1];
		uint64_t got = hist_percentile(&o->clat, p);
		double err = fabs((double)got - (double)exact) / (double)exact;
		CHECK(err <= 0.008, "p%g: %llu vs exact %llu (%.3f%%)", p, (unsigned long long)got,
		      (unsigned long long)exact, err * 100);
	}
	CHECK(fabs(hist_mean(&o->clat) - sum / (double)n) < 1e-6 * sum / (double)n, "clat mean");
	CHECK(fabs(hist_mean(&o->slat) - sum_slat / (double)n) < 1e-6 * sum_slat / (double)n,
	      "slat mean");
	CHECK(o->clat.min == clat[0] && o->clat.max == clat[n - 1], "min/max");
	double var = 0, mean = sum / (double)n;
	for (uint64_t k = 0; k < n; k++)
		var += ((double)clat[k] - mean) * ((double)clat[k] - mean);
	CHECK(fabs(hist_stdev(&o->clat) - sqrt(var / (double)(n - 1))) < 1e-6 * mean, "stdev");
	uint64_t span = last - 1000;
	CHECK(an_runtime_ns(a) == span, "runtime %llu != %llu",
	      (unsigned long long)an_runtime_ns(a), (unsigned long long)span);
	double iops = (double)n * 1e9 / (double)span;
	CHECK(fabs(an_iops(a, o) - iops) < 1e-9 * iops, "iops");
	print_all(a);
	analysis__free(a);
	free(clat);
}

/* Constant queue depth 4: each I/O issued when the previous of its slot completes. */
static void test_depth(void)
{
	struct analysis *a = analysis__new(NULL, NULL, "qd4");
	uint64_t slot[4] = { 0, 250, 500, 750 }; /* staggered: 3 others always in flight */
	struct io_event es[4000];

	for (unsigned int k = 0; k < 4000; k++) {
		unsigned int s = k % 4;
		uint64_t start = slot[s];
		es[k] = ev(start, start, start + 1000, k * 4096ULL, 4096, IO_OP_WRITE);
		slot[s] = start + 1000 + 1; /* reissue just after completing */
	}
	analysis__add(a, es, 4000);
	an_finish(a);
	/* The first three see 1, 2, 3 in flight; all later ones see 4 (bin "4"). */
	CHECK(a->groups[0].depth[2] == 3997, "depth 4 bin %llu",
	      (unsigned long long)a->groups[0].depth[2]);
	CHECK(a->groups[0].op[IO_OP_WRITE].seq == 3999, "sequential %llu",
	      (unsigned long long)a->groups[0].op[IO_OP_WRITE].seq);
	print_all(a);
	analysis__free(a);
}

static void test_degenerate(void)
{
	struct analysis *a = analysis__new(NULL, NULL, "empty");
	struct analyze_opts o = { .interval_ns = 1000000000, .device = -1 };

	CHECK(a && an_runtime_ns(a) == 0, "empty runtime");
	print_all(a);
	analysis__free(a);

	/* One event: runtime is its latency; with no completion, no rate at all. */
	a = analysis__new(&o, NULL, "single");
	struct io_event e = ev(100, 200, 5200, 0, 512, IO_OP_READ);
	analysis__add(a, &e, 1);
	CHECK(an_runtime_ns(a) == 5100, "single runtime");
	print_all(a);
	analysis__free(a);

	a = analysis__new(&o, NULL, "synth");
	for (unsigned int k = 0; k < 100; k++) {
		e = ev(IO_TS_NONE, IO_TS_NONE, IO_TS_NONE, k * 8192ULL, 8192, IO_OP_WRITE);
		analysis__add(a, &e, 1);
	}
	CHECK(a->no_completion == 100 && an_runtime_ns(a) == 0, "no-completion");
	CHECK(an_iops(a, &a->groups[0].op[IO_OP_WRITE]) == 0, "no division by zero");
	print_all(a);
	analysis__free(a);

	/* Queue times only (synthesized with a schedule): a rate, no latency. */
	a = analysis__new(&o, NULL, "queued");
	for (unsigned int k = 0; k < 100; k++) {
		e = ev(k * 1000000ULL, IO_TS_NONE, IO_TS_NONE, 0, 4096, IO_OP_READ);
		analysis__add(a, &e, 1);
	}
	CHECK(a->groups[0].op[IO_OP_READ].clat.count == 0, "no clat");
	print_all(a);
	analysis__free(a);
}

static void test_interval_and_groups(void)
{
	struct analyze_opts o = { .interval_ns = 1000000, .device = -1 };
	struct analysis *a = analysis__new(&o, NULL, "long");

	an_set_group_by(a, "op");
	/* 10 s at 1 ms intervals: 10000 > the bound, so the width must double (twice). */
	for (uint64_t t = 0; t < 10000000000ULL; t += 100000) {
		struct io_event e = ev(t, t, t + 50000, t / 1000, 4096,
				       t % 300000 ? IO_OP_READ : IO_OP_WRITE);
		analysis__add(a, &e, 1);
	}
	CHECK(a->iv_width == 4000000 && a->iv_len == 2500, "interval width %llu len %u",
	      (unsigned long long)a->iv_width, a->iv_len);
	uint64_t sum = 0;
	for (unsigned int k = 0; k < a->iv_len; k++)
		sum += an_iv_total(&a->iv[k]);
	CHECK(sum == 100000, "interval total %llu", (unsigned long long)sum);
	CHECK(an_iv_percentile(&a->iv[7], 50) > 46000 && an_iv_percentile(&a->iv[7], 50) < 54000,
	      "interval p50 %llu", (unsigned long long)an_iv_percentile(&a->iv[7], 50));
	CHECK(a->ngroups == 2, "groups by op: %u", a->ngroups);
	uint64_t g = 0;
	for (unsigned int r = 0; r < AN_GRID_ROWS; r++)
		for (unsigned int c = 0; c < AN_GRID_COLS; c++)
			g += a->grid[r][c];
	CHECK(g == 100000, "grid total %llu", (unsigned long long)g);
	print_all(a);
	analysis__free(a);
}

static void test_bucket_copy(void)
{
	for (uint64_t v = 0; v < 100000; v++)
		CHECK(an_bucket_of(v) == hist_bucket_of(v), "bucket of %llu", (unsigned long long)v);
	for (unsigned int b = 0; b < 64; b++) {
		uint64_t v = 1ULL << b;
		CHECK(an_bucket_of(v) == hist_bucket_of(v) && an_bucket_of(v - 1) == hist_bucket_of(v - 1) &&
			      an_bucket_of(v + 1) == hist_bucket_of(v + 1),
		      "bucket near 2^%u", b);
	}
}

/* A replay's result trace: slat is the replay's own lateness + submission, and says so. */
static void test_replay_label(void)
{
	static struct trace_meta m;
	char *buf = NULL;
	size_t len = 0;

	strcpy(m.source, "replay");
	struct analysis *a = analysis__new(NULL, &m, "run");
	struct io_event e = ev(1000, 3000, 50000, 0, 4096, IO_OP_READ);
	analysis__add(a, &e, 1);
	FILE *f = open_memstream(&buf, &len);
	analysis__print_text(a, f);
	analysis__print_json(a, f, "\"fidelity\": {}");
	fclose(f);
	CHECK(strstr(buf, "    late (usec): min=2,") != NULL, "replay slat label: %s", buf);
	CHECK(strstr(buf, "lateness+submission") != NULL, "replay slat meaning in JSON");
	CHECK(strstr(buf, ",\n\"fidelity\": {}}") != NULL, "extra members at the top level");
	free(buf);
	analysis__free(a);
}

/* fio's "error": the errno of a failed I/O (0 when none failed); the counts per op beside */
static void test_error_field(void)
{
	for (int fail = 0; fail < 2; fail++) {
		struct analysis *a = analysis__new(NULL, NULL, "err");
		char *buf = NULL;
		size_t len = 0;

		for (unsigned int k = 0; k < 10; k++) {
			struct io_event e = ev(k * 1000, k * 1000 + 10, k * 1000 + 500, k * 4096,
					       4096, k & 1 ? IO_OP_WRITE : IO_OP_READ);

			if (fail && k >= 3 && (k & 1)) /* writes 3, 5, 7, 9 */
				e.error = k == 3 ? -ENOSPC : -EIO;
			analysis__add(a, &e, 1);
		}
		FILE *f = open_memstream(&buf, &len);
		analysis__print_json(a, f, "\"fidelity\": {}");
		fclose(f);
		CHECK(strstr(buf, fail ? "\"error\": 28," : "\"error\": 0,") != NULL,
		      "fio's error field (%s): %.200s", fail ? "failed I/Os" : "none failed", buf);
		CHECK(!fail || strstr(buf, "\"write\": {\"total_ios\": 5, \"errors\": 4,") != NULL,
		      "the failed writes counted");
		free(buf);
		analysis__free(a);
	}
}

/*
 * Bio level: queue and completion, no issue. clat is queue to completion (fio's clat), equal to
 * lat; slat stays empty. Beside I/Os with an issue time, clat keeps issue to completion.
 */
static void test_clat_without_issue(void)
{
	struct analysis *a = analysis__new(NULL, NULL, "bio");
	char *buf = NULL;
	size_t len = 0;

	for (unsigned int k = 0; k < 1000; k++) {
		uint64_t q = k * 100000ULL;
		struct io_event e = ev(q, IO_TS_NONE, q + 20000 + k, 0, 4096, IO_OP_READ);
		analysis__add(a, &e, 1);
	}
	an_finish(a);
	const struct an_op *o = &a->groups[0].op[IO_OP_READ];
	CHECK(o->clat.count == 1000 && o->lat.count == 1000 && o->slat.count == 0,
	      "bio level: clat %llu lat %llu slat %llu", (unsigned long long)o->clat.count,
	      (unsigned long long)o->lat.count, (unsigned long long)o->slat.count);
	CHECK(o->clat.min == 20000 && o->clat.max == 20999 &&
		      hist_mean(&o->clat) == hist_mean(&o->lat),
	      "bio level: clat is queue to completion");
	CHECK(hist_percentile(&o->clat, 99) == hist_percentile(&o->lat, 99), "same percentiles");
	FILE *f = open_memstream(&buf, &len);
	analysis__print_text(a, f);
	analysis__print_json(a, f, NULL);
	fclose(f);
	CHECK(strstr(buf, "clat percentiles (") && strstr(buf, "(clat = lat, queue to "),
	      "text: clat percentiles and the note: %s", buf);
	CHECK(strstr(buf, "\"clat_meaning\": \"queue to completion (no issue time recorded)\""),
	      "JSON clat_meaning");
	free(buf);
	buf = NULL;

	/* A flush without an issue time among reads with one (request level). */
	struct io_event r = ev(0, 1000, 9000, 0, 4096, IO_OP_READ);
	struct io_event fl = ev(500, IO_TS_NONE, 700500, 0, 0, IO_OP_FLUSH);
	analysis__add(a, &r, 1);
	analysis__add(a, &fl, 1);
	an_finish(a);
	CHECK(a->groups[0].op[IO_OP_READ].clat.min == 8000, "clat from issue when there is one");
	CHECK(a->groups[0].op[IO_OP_FLUSH].clat.count == 1 &&
		      a->groups[0].op[IO_OP_FLUSH].clat.min == 700000,
	      "flush clat from queue");
	CHECK(!strcmp(an_clat_meaning(a),
		      "issue to completion, or queue to completion without an issue time"),
	      "mixed meaning");
	analysis__free(a);
}

/* A closed-loop trace's times are positions in the file: no runtime, no rates. */
static void test_closed_loop(void)
{
	static struct trace_meta m;
	char *buf = NULL;
	size_t len = 0;

	strcpy(m.source, "synth");
	m.mode = TRACE_MODE_CLOSED;
	struct analysis *a = analysis__new(NULL, &m, "closed");
	for (unsigned int k = 0; k < 1000; k++) {
		struct io_event e = ev(k, IO_TS_NONE, IO_TS_NONE, k * 4096ULL, 4096, IO_OP_WRITE);
		analysis__add(a, &e, 1);
	}
	CHECK(an_runtime_ns(a) == 0 && an_iops(a, &a->groups[0].op[IO_OP_WRITE]) == 0,
	      "closed loop: no runtime");
	FILE *f = open_memstream(&buf, &len);
	analysis__print_text(a, f);
	analysis__print_json(a, f, NULL);
	fclose(f);
	CHECK(strstr(buf, "IOPS=n/a") && strstr(buf, "an order, not a schedule") &&
		      strstr(buf, "\"times\": \"order\""),
	      "closed loop text/JSON: %s", buf);
	free(buf);
	analysis__free(a);
}

int main(void)
{
	test_clat_without_issue();
	test_closed_loop();
	test_replay_label();
	test_error_field();
	test_bucket_copy();
	test_exact();
	test_depth();
	test_degenerate();
	test_interval_and_groups();
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	else
		printf("ok\n");
	return failures ? 1 : 0;
}
