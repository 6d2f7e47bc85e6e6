// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * analyze/hist.c against exact answers: percentiles within 0.8 % of the sorted data's value at
 * rank ceil(p/100 n) on random data spanning ns to minutes, merge equal to adding everything
 * to one histogram, mean and sample stdev equal to a two-pass long double computation.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/hist.h"

#include "tests/unit/check.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Log-uniform over [1, 2^(bits)), plus exact small values, like latencies in ns. */
static uint64_t sample(unsigned int kind)
{
	switch (kind) {
	case 0:
		return rnd() % 128;
	case 1:
		return (uint64_t)exp2((rnd() >> 11) * (1.0 / 9007199254740992.0) * 38);
	default:
		return 20000 + rnd() % 180001;
	}
}

static void check_percentiles(const struct hist *h, uint64_t *v, size_t n, const char *what)
{
	static const double ps[] = { 0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100 };

	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		uint64_t rank = (uint64_t)ceil(ps[i] / 100.0 * n);
		uint64_t exact = v[(rank ? rank : 1) - 1], got = hist_percentile(h, ps[i]);
		double err = exact ? fabs((double)got - (double)exact) / (double)exact : (double)got;

		CHECK(err <= 0.008, "%s: p%g = %llu, exact %llu (%.3f %%)", what, ps[i],
		      (unsigned long long)got, (unsigned long long)exact, err * 100);
		if (exact < 128)
			CHECK(got == exact, "%s: p%g small values must be exact", what, ps[i]);
	}
}

static void exact_moments(const uint64_t *v, size_t n, long double *mean, long double *sd)
{
	long double s = 0, m2 = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = s / n;
	for (size_t i = 0; i < n; i++)
		m2 += ((long double)v[i] - *mean) * ((long double)v[i] - *mean);
	*sd = n > 1 ? sqrtl(m2 / (n - 1)) : 0;
}

static void test_kind(unsigned int kind, size_t n)
{
	uint64_t *v = malloc(n * sizeof(*v));
	struct hist *all = malloc(sizeof(*all)), *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	long double mean, sd;
	char what[32];

	snprintf(what, sizeof(what), "kind %u", kind);
	hist_init(all);
	hist_init(a);
	hist_init(b);
	for (size_t i = 0; i < n; i++) {
		v[i] = kind == 3 ? sample(rnd() % 3) : sample(kind);
		hist_add(all, v[i]);
		hist_add(i % 3 ? a : b, v[i]);
	}
	/* Bucket math: every value lies inside its bucket. */
	for (size_t i = 0; i < n; i += 97) {
		unsigned int idx = hist_bucket_of(v[i]);

		CHECK(idx < HIST_BUCKETS && hist_bucket_low(idx) <= v[i] &&
			      v[i] <= hist_bucket_high(idx),
		      "value %llu outside its bucket %u", (unsigned long long)v[i], idx);
	}
	exact_moments(v, n, &mean, &sd);
	CHECK(fabsl(hist_mean(all) - mean) <= 1e-9L * (mean ? mean : 1), "%s: mean %.6f vs %.6Lf",
	      what, hist_mean(all), mean);
	CHECK(fabsl(hist_stdev(all) - sd) <= 1e-9L * (sd ? sd : 1), "%s: stdev %.6f vs %.6Lf", what,
	      hist_stdev(all), sd);

	hist_merge(a, b);
	CHECK(a->count == all->count && a->min == all->min && a->max == all->max, "%s: merge totals",
	      what);
	CHECK(!memcmp(a->bucket, all->bucket, sizeof(a->bucket)), "%s: merged buckets differ", what);
	CHECK(fabsl(hist_mean(a) - mean) <= 1e-9L * (mean ? mean : 1), "%s: merged mean", what);
	CHECK(fabsl(hist_stdev(a) - sd) <= 1e-9L * (sd ? sd : 1), "%s: merged stdev %.6f vs %.6Lf",
	      what, hist_stdev(a), sd);
	check_percentiles(all, v, n, what);
	free(v);
	free(all);
	free(a);
	free(b);
}

int main(void)
{
	struct hist *h = malloc(sizeof(*h));

	hist_init(h);
	CHECK(hist_percentile(h, 50) == 0 && h->count == 0, "empty histogram");
	hist_add(h, 42);
	CHECK(hist_percentile(h, 0) == 42 && hist_percentile(h, 100) == 42 && hist_mean(h) == 42 &&
		      hist_stdev(h) == 0,
	      "single value");
	hist_add(h, UINT64_MAX);
	CHECK(hist_percentile(h, 100) >= UINT64_MAX - UINT64_MAX / 125, "largest value");
	free(h);
	for (unsigned int kind = 0; kind < 4; kind++)
		test_kind(kind, 200000);
	test_kind(3, 7);
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
