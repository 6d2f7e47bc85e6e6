/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Random numbers for synthesized patterns: a seeded generator and the block distributions fio
 * offers (random_distribution=random|zipf:θ|pareto:h|normal:dev%), all deterministic from a seed.
 */
#ifndef IOREEL_SYNTH_DIST_H
#define IOREEL_SYNTH_DIST_H

#include <stdint.h>

/* xoshiro256** (Blackman & Vigna, 2018): fast, 256-bit state, seeded through splitmix64. */
struct synth_rng {
	uint64_t s[4];
};

void rng_seed(struct synth_rng *r, uint64_t seed);
uint64_t rng_next(struct synth_rng *r);
/* Uniform in [0, 1). */
double rng_unit(struct synth_rng *r);
/* Uniform in [0, n), without modulo bias. n > 0. */
uint64_t rng_below(struct synth_rng *r, uint64_t n);
/* Exponential with the given mean (Poisson inter-arrival times). */
double rng_exp(struct synth_rng *r, double mean);

enum dist_kind {
	DIST_UNIFORM = 0, /* fio "random" */
	DIST_ZIPF,
	DIST_PARETO,
	DIST_NORMAL,	  /* fio "normal" (fio calls it gauss) */
	DIST_ZONED,	  /* fio "zoned:60/10:30/20:...": access % / range % of the region */
	DIST_ZONED_ABS,	  /* fio "zoned_abs:60/20g:...": access % / bytes from the start */
	DIST_SEQUENCE,	  /* fio "sequence:2,0,1": these block indexes, in this order, again */
};

#define DIST_MAX_ZONES 256 /* fio's limit for zoned and zoned_abs */
#define DIST_MAX_SEQ 64	   /* fio's limit for sequence */

struct dist_zone {
	uint32_t access; /* percent of the I/Os */
	uint64_t size;	 /* ZONED: percent of the region; ZONED_ABS: bytes */
};

/* A parsed --random-distribution value. */
struct dist_spec {
	enum dist_kind kind;
	double param; /* zipf θ, pareto h, normal deviation in % of the range */
	uint32_t nzones;
	struct dist_zone zones[DIST_MAX_ZONES];
	uint32_t nseq;
	uint32_t seq[DIST_MAX_SEQ];
	int seq_stride; /* random_sequence_stride: each cycle moves on by nseq blocks */
	uint64_t unit;	/* ZONED_ABS: bytes per block (set by the caller before block_dist_init) */
};

/* "random" | "uniform" | "zipf[:θ]" | "pareto[:h]" | "normal[:dev]" | "gauss[:dev]" |
 * "zoned:A/R:..." | "zoned_abs:A/SIZE:..." | "sequence:i,j,...", with fio's defaults (θ 1.1,
 * h 0.2, dev 0) and fio's bounds. A zoned list may give one set per direction separated by
 * ',' (fio's rule); only one set is modeled, so different sets are -EOPNOTSUPP. 0 or -EINVAL. */
int dist_parse(const char *s, struct dist_spec *d);
/* "zipf:1.1" etc. into buf; returns buf. */
char *dist_format(const struct dist_spec *d, char *buf, unsigned long len);

/*
 * A block chooser over n blocks. Zipf/pareto pick a popularity rank and, like fio, scatter
 * ranks over the range; unlike fio (which hashes ranks, so a few ranks collide) we scatter with
 * a bijection, so block shares equal the theoretical rank shares exactly.
 * Uniform without norandommap walks a random permutation: every block once per pass, as fio's
 * random map does; with norandommap it draws independently.
 */
struct block_dist {
	struct dist_spec spec;
	uint64_t n;
	int norandommap;
	struct synth_rng rng;
	/* zipf */
	double zetan, zeta2;
	/* normal */
	uint64_t stddev;
	/* permutation over [0, n): Feistel network on the next power of 4, cycle-walking */
	unsigned int half_bits;
	uint64_t keys[4];
	uint64_t perm_pos;
	uint64_t scatter_mul, scatter_add;
	/* zoned: zone of each access percentile 1..100, and zones' block ranges */
	uint8_t zone_of[100];
	uint64_t zone_lo[DIST_MAX_ZONES], zone_hi[DIST_MAX_ZONES];
	uint64_t seq_pos;
};

int block_dist_init(struct block_dist *b, const struct dist_spec *spec, uint64_t n,
		    int norandommap, uint64_t seed);
uint64_t block_dist_next(struct block_dist *b);
/* The bijection used to scatter ranks (exposed for tests). */
uint64_t block_dist_scatter(const struct block_dist *b, uint64_t rank);
/* Theoretical share of the hottest k of n blocks (zipf and pareto; -1 for others). */
double dist_top_share(const struct dist_spec *spec, uint64_t n, uint64_t k);

#endif
