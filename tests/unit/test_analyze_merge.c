// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * analysis__merge, __pack, __unpack: events spread over four analyses, each packed, unpacked
 * and merged, give the histograms of one analysis fed every event, bucket for bucket, with the
 * same counts, bytes, span, exact means and variances; a merge keeps groups and devices apart
 * by name; damaged packed bytes are refused, never trusted.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/analysis_int.h"

#include "tests/unit/check.h"

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static struct trace_meta meta_with(const char *dev)
{
	struct trace_meta m;
	struct trace_device d = { .size_bytes = 1ULL << 30, .logical_block_size = 512 };

	trace_meta_init(&m, "replay:timed");
	snprintf(d.name, sizeof(d.name), "%s", dev);
	trace_meta_add_device(&m, &d);
	return m;
}

static void same_hist(const struct hist *a, const struct hist *b, const char *what)
{
	CHECK(a->count == b->count, "%s: count %llu vs %llu", what,
	      (unsigned long long)a->count, (unsigned long long)b->count);
	CHECK(!a->count || (a->min == b->min && a->max == b->max), "%s: min/max differ", what);
	CHECK(!memcmp(a->bucket, b->bucket, sizeof(a->bucket)), "%s: buckets differ", what);
	CHECK(fabs(a->mean - b->mean) <= 1e-9 * (fabs(a->mean) + 1), "%s: mean %f vs %f", what,
	      a->mean, b->mean);
	CHECK(fabs(a->m2 - b->m2) <= 1e-9 * (fabs(a->m2) + 1), "%s: m2 %f vs %f", what, a->m2,
	      b->m2);
}

static void test_merge_equals_one(void)
{
	enum { N = 100000, PARTS = 4 };
	struct trace_meta m = meta_with("loop3");
	struct analysis *whole = analysis__new(NULL, &m, "whole");
	struct analysis *part[PARTS], *sum = analysis__new(NULL, NULL, "All ranks");
	uint64_t t = 1000;

	for (int p = 0; p < PARTS; p++)
		part[p] = analysis__new(NULL, &m, "rank");
	for (unsigned int k = 0; k < N; k++) {
		struct io_event e = { 0 };
		double u = (double)(next_rand() % 1000000) / 1e6;

		e.queue_ns = t;
		e.issue_ns = t + 200 + next_rand() % 5000;
		e.complete_ns = e.issue_ns + (uint64_t)(100.0 * pow(2, u * 20));
		e.offset = (next_rand() % 100000) * 4096;
		e.length = 4096 << (next_rand() % 3);
		e.op = (uint8_t)(next_rand() % 3);
		if (e.op == IO_OP_FLUSH)
			e.length = 0;
		t += 1 + next_rand() % 20000;
		analysis__add(whole, &e, 1);
		analysis__add(part[next_rand() % PARTS], &e, 1);
	}
	for (int p = 0; p < PARTS; p++) {
		void *buf;
		size_t len;
		struct analysis *u;

		CHECK(!analysis__pack(part[p], &buf, &len), "pack");
		u = analysis__unpack(buf, len);
		CHECK(u, "unpack of %zu bytes failed", len);
		/* a packed analysis is small: the buckets go sparse */
		CHECK(len < 200000, "packed %zu bytes", len);
		/* damaged bytes are refused */
		CHECK(!analysis__unpack(buf, len - 1) && errno == EINVAL, "truncated accepted");
		((uint8_t *)buf)[0] ^= 1;
		CHECK(!analysis__unpack(buf, len), "bad magic accepted");
		free(buf);
		if (u) {
			CHECK(!analysis__merge(sum, u), "merge");
			analysis__free(u);
		}
	}
	an_finish(whole);
	an_finish(sum);
	CHECK(sum->ngroups == 1, "one job, got %u", sum->ngroups);
	CHECK(sum->events == whole->events && sum->included == whole->included, "counts");
	CHECK(sum->first_ns == whole->first_ns && sum->last_ns == whole->last_ns, "span");
	CHECK(sum->dev_ios[0] == N && sum->meta.ndevices == 1 &&
		      !strcmp(sum->meta.devices[0].name, "loop3"),
	      "device merged by name");
	for (unsigned int op = 0; op < IO_OP__COUNT; op++) {
		const struct an_op *a = &sum->groups[0].op[op], *b = &whole->groups[0].op[op];

		CHECK(a->ios == b->ios && a->bytes == b->bytes, "op %u counts", op);
		CHECK(!memcmp(a->bs, b->bs, sizeof(a->bs)), "op %u bs", op);
		CHECK(!memcmp(a->lat_bins, b->lat_bins, sizeof(a->lat_bins)), "op %u lat_bins", op);
		same_hist(&a->slat, &b->slat, "slat");
		same_hist(&a->clat, &b->clat, "clat");
		same_hist(&a->lat, &b->lat, "lat");
	}
	{
		uint64_t cols = 0;

		for (unsigned int c = 0; c < AN_GRID_COLS; c++)
			cols += sum->col_ios[c];
		CHECK(cols == N, "heatmap columns hold %llu of %u I/Os", (unsigned long long)cols,
		      N);
	}
	for (int p = 0; p < PARTS; p++)
		analysis__free(part[p]);
	analysis__free(whole);
	analysis__free(sum);
}

static void test_groups_and_devices(void)
{
	struct trace_meta ma = meta_with("nvme0n1"), mb = meta_with("sdb");
	struct analysis *a = analysis__new(NULL, &ma, "a"), *b = analysis__new(NULL, &mb, "b");
	struct io_event e = { .queue_ns = 10, .issue_ns = 20, .complete_ns = 90, .length = 512 };

	an_set_group_by(a, "comm");
	an_set_group_by(b, "comm");
	strcpy(e.comm, "postgres");
	analysis__add(a, &e, 1);
	strcpy(e.comm, "mysqld");
	analysis__add(b, &e, 1);
	analysis__add(b, &e, 1);
	CHECK(!analysis__merge(a, b), "merge");
	CHECK(a->ngroups == 2, "groups by name: %u", a->ngroups);
	CHECK(a->meta.ndevices == 2 && a->dev_ios[0] == 1 && a->dev_ios[1] == 2,
	      "devices by name: %u", a->meta.ndevices);
	analysis__free(a);
	analysis__free(b);
}

int main(void)
{
	test_merge_equals_one();
	test_groups_and_devices();
	return failures ? 1 : 0;
}
