// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* synth distributions: fio's parameter rules, and the skew they produce against theory. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "synth/dist.h"

#include "tests/unit/check.h"

static int cmp_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Share of all hits that the hottest 10 % of blocks received. */
static double top10_share(const char *spec_s, uint64_t n, uint64_t samples, double *theory)
{
	struct dist_spec spec;
	struct block_dist b;
	uint32_t *hits = calloc(n, sizeof(*hits));
	uint64_t top = 0;

	if (!hits || dist_parse(spec_s, &spec) || block_dist_init(&b, &spec, n, 0, 42)) {
		free(hits);
		return -1;
	}
	for (uint64_t i = 0; i < samples; i++) {
		uint64_t x = block_dist_next(&b);

		if (x >= n) {
			free(hits);
			return -1;
		}
		hits[x]++;
	}
	qsort(hits, n, sizeof(*hits), cmp_desc);
	for (uint64_t i = 0; i < n / 10; i++)
		top += hits[i];
	*theory = dist_top_share(&spec, n, n / 10);
	free(hits);
	return (double)top / (double)samples;
}

int main(void)
{
	struct dist_spec d;
	char buf[64];

	/* fio's names, defaults and bounds */
	CHECK(!dist_parse("zipf", &d) && d.kind == DIST_ZIPF && d.param == 1.1, "zipf default");
	CHECK(!dist_parse("pareto", &d) && d.param == 0.2, "pareto default");
	CHECK(!dist_parse("zipf:0.8", &d) && d.param == 0.8, "zipf:0.8");
	CHECK(!dist_parse("normal:5", &d) && d.kind == DIST_NORMAL && d.param == 5, "normal:5");
	CHECK(!dist_parse("random", &d) && d.kind == DIST_UNIFORM, "random");
	CHECK(dist_parse("zipf:1", &d) == -EINVAL, "zipf θ=1 is rejected as in fio");
	CHECK(dist_parse("pareto:1.5", &d) == -EINVAL, "pareto h must be in (0,1)");
	CHECK(dist_parse("normal:100", &d) == -EINVAL, "normal dev < 100");
	CHECK(dist_parse("zipf:x", &d) == -EINVAL, "zipf:x");
	CHECK(dist_parse("lognormal", &d) == -EINVAL, "unknown name");
	CHECK(!strcmp(dist_format(&(struct dist_spec){ .kind = DIST_ZIPF, .param = 1.2 }, buf, sizeof(buf)),
		      "zipf:1.2"),
	      "format %s", buf);

	/* Skew: top 10 % of 10000 blocks, 1M samples; sampling noise is well under 1 %. */
	static const char *const skewed[] = { "zipf:1.2", "zipf:0.8", "zipf:1.1", "pareto:0.2",
					      "pareto:0.1" };
	for (size_t i = 0; i < sizeof(skewed) / sizeof(skewed[0]); i++) {
		double theory, got = top10_share(skewed[i], 10000, 1000000, &theory);

		printf("%-10s top 10%% of blocks: %.4f of hits (theory %.4f)\n", skewed[i], got,
		       theory);
		CHECK(got > 0 && fabs(got - theory) < 0.015, "%s: top-10%% share %.4f vs theory %.4f",
		      skewed[i], got, theory);
	}
	/* pareto:0.2 is the 80/20 rule: the top 20 % get 80 % */
	dist_parse("pareto:0.2", &d);
	CHECK(fabs(dist_top_share(&d, 1000000, 200000) - 0.8) < 0.001, "pareto 80/20");

	/* Normal: hits concentrate on few blocks for a small deviation, spread for a large one. */
	double t, narrow = top10_share("normal:5", 10000, 200000, &t);
	double wide = top10_share("normal:90", 10000, 200000, &t);

	printf("normal:5 top 10%%: %.3f, normal:90 top 10%%: %.3f\n", narrow, wide);
	CHECK(narrow > 0.99, "normal:5 should keep nearly all hits within 10%% of blocks");
	CHECK(wide < narrow && wide > 0.1, "normal:90 spreads more than normal:5");

	/* Uniform with the random map: each block exactly once per pass, like fio's axmap. */
	struct block_dist b;
	uint64_t n = 100003; /* prime, not a power of 2: cycle-walking must land in range */
	uint8_t *seen = calloc(n, 1);

	dist_parse("random", &d);
	block_dist_init(&b, &d, n, 0, 7);
	for (int pass = 0; pass < 2; pass++) {
		uint64_t dup = 0;

		memset(seen, 0, n);
		for (uint64_t i = 0; i < n; i++) {
			uint64_t x = block_dist_next(&b);

			CHECK(x < n, "permutation out of range: %llu", (unsigned long long)x);
			if (x < n && seen[x]++)
				dup++;
		}
		CHECK(dup == 0, "pass %d: %llu blocks drawn twice", pass, (unsigned long long)dup);
	}
	/* norandommap: independent draws, so about 1/e of the blocks are missed in n draws */
	uint64_t missed = 0;

	block_dist_init(&b, &d, n, 1, 7);
	memset(seen, 0, n);
	for (uint64_t i = 0; i < n; i++)
		seen[block_dist_next(&b)] = 1;
	for (uint64_t i = 0; i < n; i++)
		missed += !seen[i];
	CHECK(fabs((double)missed / n - exp(-1)) < 0.01, "norandommap missed %.3f, expected 0.368",
	      (double)missed / n);
	free(seen);

	/* Scatter is a bijection (shares of ranks become shares of blocks unchanged). */
	dist_parse("zipf:1.2", &d);
	block_dist_init(&b, &d, 1000, 0, 3);
	uint8_t hit[1000] = { 0 };

	for (uint64_t r = 0; r < 1000; r++)
		hit[block_dist_scatter(&b, r)]++;
	for (int i = 0; i < 1000; i++)
		CHECK(hit[i] == 1, "scatter maps %d ranks to block %d", hit[i], i);

	/* Same seed, same sequence; another seed, another one. */
	struct synth_rng r1, r2, r3;
	int same = 1, diff = 0;

	rng_seed(&r1, 5);
	rng_seed(&r2, 5);
	rng_seed(&r3, 6);
	for (int i = 0; i < 1000; i++) {
		uint64_t a = rng_next(&r1);

		same &= a == rng_next(&r2);
		diff += a != rng_next(&r3);
	}
	CHECK(same && diff > 990, "seeding is not deterministic/independent");
	/* Poisson gaps: mean and coefficient of variation 1 */
	double s = 0, s2 = 0;
	int k = 200000;

	for (int i = 0; i < k; i++) {
		double x = rng_exp(&r1, 1000.0);

		s += x;
		s2 += x * x;
	}
	double mean = s / k, sd = sqrt(s2 / k - mean * mean);

	CHECK(fabs(mean - 1000) < 10 && fabs(sd / mean - 1) < 0.02, "exp mean %.1f cv %.3f", mean,
	      sd / mean);
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
