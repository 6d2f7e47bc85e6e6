// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fio's sprandom: SSD preconditioning that writes the device's physical capacity once, so
 * that the flash ends up holding blocks of the validities a steady random-write load leaves.
 * The model, as fio master lays it out (HOWTO "sprandom", sprandom.c, io_u.c; Desnoyers,
 * "Analytic Models of SSD Write Performance", ACM ToS 8(2), 2012):
 *
 * - The physical size is the logical one (the job's region) plus spr_op of it, rounded down to
 *   a block. It is cut into spr_num_regions regions of equal size in *write order*: a region
 *   is the next region_writes = physical / regions / bs writes, wherever they land.
 * - Validities: greedy GC reclaims blocks of validity 1 - 1/WA, with WA ~ 0.5 / op + 0.7.
 *   Validities spaced evenly from 1 down to that one, each taking space in proportion to
 *   1 / validity (validity x space is constant at steady state), resampled at points evenly
 *   spaced in space, give one validity per region; the first region gets the lowest. Each
 *   region's invalid share is kept in units of 1/10000.
 * - Writes: blocks in a random order that visits each block once (fio's LFSR). Each write of
 *   region k is kept for rewriting with probability (share_k + 1) / 10001 (fio draws 0..10000
 *   and keeps it when the draw is at most the share); region k + 1 rewrites the kept blocks,
 *   in the order kept, which invalidates them in region k. Without spr_cs they come right
 *   after region k + 1's first write; with spr_cs (the device's cache) at its end, after its
 *   new writes, so that a block's two writes never sit in the cache together. A rewrite may
 *   itself be kept for region k + 2. A region's new writes are region_writes less its
 *   rewrites, so every region is region_writes long.
 * - The end: when the random order has visited every block, when the job has written the
 *   physical size (fio sets io_size to it), or when a region past the last would end. Past
 *   the last region fio reads its share table out of bounds; what it keeps there is never
 *   rewritten, so no draw is made there.
 *
 * fio's LFSR and seeds are its own: the blocks each region writes first differ, the layout
 * (region sizes, rewrite shares and places, each block once before rewrites) is fio's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "synth/dist.h"
#include "synth/fio.h"
#include "synth/sprandom.h"

#define SPR_SCALE 10000 /* fio keeps the invalid shares in units of 1/10000 */
#define SPR_MAX_REGIONS 1000000

struct spr_layout {
	uint64_t blocks;   /* logical blocks: each written once before the end */
	uint64_t physical; /* bytes fio's job writes at most */
	uint64_t region_bytes;
	uint64_t region_writes; /* writes per region */
	uint32_t bs;
};

struct sprandom {
	struct spr_layout l;
	uint32_t nregions, region;
	uint32_t *share; /* invalid share per region, of SPR_SCALE */
	uint64_t cache, cap;
	uint64_t left;	/* new writes the region still makes */
	uint64_t drawn; /* blocks of the random order used */
	struct block_dist order;
	struct synth_rng rng;
	uint64_t *due; /* the previous region's kept blocks, rewritten in this one */
	size_t ndue, due_pos, due_cap;
	uint64_t *kept; /* this region's kept blocks, for the next one */
	size_t nkept, kept_cap;
};

static uint64_t spr_bs(const struct synth_job *j)
{
	return j->bs[SYNTH_DDIR_WRITE].e[0].bs;
}

static void spr_layout_of(const struct synth_job *j, uint64_t logical, struct spr_layout *l)
{
	uint64_t bs = spr_bs(j), phys;

	l->bs = (uint32_t)bs;
	l->blocks = logical / bs;
	phys = logical + (uint64_t)ceil((double)logical * j->spr_op);
	l->physical = phys - phys % bs;
	l->region_bytes = l->physical / j->spr_regions;
	l->region_writes = l->region_bytes / bs;
}

/* Interpolates y at x on the polyline (xs, ys), xs increasing; flat beyond its ends. */
static double interp(double x, const double *xs, const double *ys, uint32_t n)
{
	if (n == 1 || x <= xs[0])
		return ys[0];
	if (x >= xs[n - 1])
		return ys[n - 1];
	for (uint32_t i = 0; i + 1 < n; i++) {
		if (x < xs[i] || x > xs[i + 1])
			continue;
		if (fabs(xs[i + 1] - xs[i]) < 1e-9)
			return ys[i];
		return ys[i] + (ys[i + 1] - ys[i]) * ((x - xs[i]) / (xs[i + 1] - xs[i]));
	}
	return 0.0;
}

/* Each region's invalid share (of SPR_SCALE), and the lowest validity (the first region's). */
static int spr_shares(uint32_t n, double op, uint32_t *share, double *lowest)
{
	double gc = 1.0 - 1.0 / (0.5 / op + 0.7), *val = calloc(n, sizeof(*val)),
	       *space = calloc(n, sizeof(*space));
	double acc = 0.0;

	if (!val || !space) {
		free(val);
		free(space);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		/* validities evenly spaced from 1 down to the GC block's; space in 1 / validity */
		val[i] = n == 1 ? 1.0 : 1.0 + (double)i * ((gc - 1.0) / ((double)n - 1.0));
		acc += 1.0 / val[i];
		space[i] = acc;
	}
	for (uint32_t i = 0; i < n; i++) {
		double x =
		    n == 1 ? space[0]
			   : space[0] + (double)i * ((space[n - 1] - space[0]) / ((double)n - 1.0));
		double v = interp(x, space, val, n);

		/* the least valid region is written first */
		share[n - 1 - i] = (uint32_t)lround((1.0 - v) * SPR_SCALE);
		if (i == n - 1)
			*lowest = v;
	}
	free(val);
	free(space);
	return 0;
}

struct sprandom *sprandom_new(const struct synth_job *j, uint64_t logical, uint64_t seed, int *err,
			      char *why, size_t why_len)
{
	struct sprandom *s = calloc(1, sizeof(*s));
	struct dist_spec uni = {.kind = DIST_UNIFORM};
	double lowest = 1.0, sd, cap;

	*err = -ENOMEM;
	if (!s)
		return NULL;
	spr_layout_of(j, logical, &s->l);
	s->nregions = j->spr_regions;
	s->cache = j->spr_cs;
	if (!s->l.region_writes || (s->cache && s->cache > s->l.region_bytes)) {
		snprintf(why, why_len,
			 "job '%s': sprandom over %llu bytes in %u regions makes regions of %llu "
			 "bytes, %s: give fewer regions (spr_num_regions) or a larger size",
			 j->name, (unsigned long long)logical, s->nregions,
			 (unsigned long long)s->l.region_bytes,
			 s->l.region_writes ? "smaller than spr_cs (fio refuses it)"
					    : "less than a block");
		*err = -EINVAL;
		goto fail;
	}
	s->share = calloc(s->nregions, sizeof(*s->share));
	if (!s->share || spr_shares(s->nregions, j->spr_op, s->share, &lowest))
		goto fail;
	/* fio's buffer of kept blocks: the first region's mean share and 6 standard deviations
	 * (twice that with spr_cs, as two regions' are held at once) */
	sd = sqrt((double)s->l.region_writes * lowest * (1.0 - lowest));
	cap = ceil((double)s->l.region_writes * (1.0 - lowest) + 6.0 * sd);
	s->cap = (uint64_t)cap * (s->cache ? 2 : 1);
	if (block_dist_init(&s->order, &uni, s->l.blocks ? s->l.blocks : 1, 0, seed))
		goto fail;
	rng_seed(&s->rng, seed ^ 0x6a09e667f3bcc909ULL);
	s->left = s->l.region_writes;
	*err = 0;
	return s;
fail:
	sprandom_free(s);
	return NULL;
}

static int push(uint64_t **v, size_t *n, size_t *cap, uint64_t x)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		uint64_t *p = realloc(*v, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return 0;
}

/* A write of the current region: kept for rewriting by the region's share. */
static int keep_maybe(struct sprandom *s, uint64_t block)
{
	if (s->region >= s->nregions)
		return 0;
	if (rng_below(&s->rng, SPR_SCALE + 1) > s->share[s->region])
		return 0;
	if ((s->ndue - s->due_pos) + s->nkept + 1 >= s->cap)
		return -EOVERFLOW;
	return push(&s->kept, &s->nkept, &s->kept_cap, block);
}

/* 1 (the block is written), or keep_maybe's error */
static int kept_or_err(struct sprandom *s, uint64_t block)
{
	int err = keep_maybe(s, block);

	return err ? err : 1;
}

static bool pop_due(struct sprandom *s, uint64_t *block)
{
	if (s->due_pos == s->ndue)
		return false;
	*block = s->due[s->due_pos++];
	return true;
}

int sprandom_next(struct sprandom *s, uint64_t *block)
{
	if (!s->cache && pop_due(s, block))
		return kept_or_err(s, *block);
	if (!s->left) {
		uint64_t *t;
		size_t tc;

		if (s->cache && pop_due(s, block))
			return kept_or_err(s, *block);
		if (s->region >= s->nregions)
			return 0;
		/* the next region: what this one kept becomes due there */
		s->region++;
		t = s->due, tc = s->due_cap;
		s->due = s->kept, s->due_cap = s->kept_cap, s->ndue = s->nkept, s->due_pos = 0;
		s->kept = t, s->kept_cap = tc, s->nkept = 0;
		/* fio's count is unsigned: more kept than a region holds never ends the region */
		s->left = s->ndue > s->l.region_writes ? UINT64_MAX : s->l.region_writes - s->ndue;
	}
	if (s->drawn >= s->l.blocks) /* every block visited: fio's LFSR is exhausted */
		return s->cache && pop_due(s, block) ? 1 : 0;
	*block = block_dist_next(&s->order);
	s->drawn++;
	if (s->left)
		s->left--;
	return kept_or_err(s, *block);
}

uint64_t sprandom_physical(const struct sprandom *s)
{
	return s->l.physical;
}

void sprandom_free(struct sprandom *s)
{
	if (!s)
		return;
	free(s->share);
	free(s->due);
	free(s->kept);
	free(s);
}

/* sprandom, spr_op, spr_num_regions, spr_cs, random_generator (keys with '-'). */
int synth_sprandom_set(struct synth_job *j, const char *k, const char *v, unsigned int kb,
		       char *why, size_t why_len)
{
	char *end = NULL;
	int64_t n;

	if (!strcmp(k, "sprandom")) {
		if (!fio_parse_bool(v, &j->sprandom))
			return 0;
		snprintf(why, why_len, "sprandom=%s: expected 0 or 1", v ? v : "");
		return -EINVAL;
	}
	if (!strcmp(k, "spr-op")) {
		double op = v ? strtod(v, &end) : 0;

		if (v && end != v && !*end && op > 0 && op < 1) {
			j->spr_op = op;
			return 0;
		}
		snprintf(why, why_len,
			 "spr_op=%s: expected an over-provisioning ratio above 0 and below 1, like "
			 "0.15 (fio's HOWTO: in the range (0, 1))",
			 v ? v : "");
		return -EINVAL;
	}
	if (!strcmp(k, "spr-num-regions")) {
		if (v && !fio_parse_int(v, &n) && n >= 1 && n <= SPR_MAX_REGIONS) {
			j->spr_regions = (uint32_t)n;
			return 0;
		}
		snprintf(why, why_len,
			 "spr_num_regions=%s: expected a number of regions from 1 to %d (fio "
			 "refuses 0: it needs at least one region)",
			 v ? v : "", SPR_MAX_REGIONS);
		return -EINVAL;
	}
	if (!strcmp(k, "spr-cs")) {
		if (v && !fio_parse_bytes(v, kb, &j->spr_cs))
			return 0;
		snprintf(why, why_len,
			 "spr_cs=%s: expected the device's cache size in bytes (0: "
			 "none)",
			 v ? v : "");
		return -EINVAL;
	}
	/* random_generator: how fio draws offsets; sprandom alone needs lfsr */
	if (v && !strcmp(v, "lfsr"))
		j->rand_gen = 1;
	else if (v && (!strcmp(v, "tausworthe") || !strcmp(v, "tausworthe64")))
		j->rand_gen = 2;
	else {
		snprintf(why, why_len,
			 "random_generator=%s: expected tausworthe, lfsr or "
			 "tausworthe64",
			 v ? v : "");
		return -EINVAL;
	}
	snprintf(why, why_len, "how fio draws random offsets; ioreel draws its own");
	return -EALREADY;
}

/* "job 'x' refused: F:L: sprandom=1: what" */
static int spr_refuse(const struct synth_job *j, char *why, size_t why_len, const char *what)
{
	snprintf(why, why_len, "job '%s' refused: %s: %s", j->name,
		 j->at_spr[0] ? j->at_spr : "sprandom", what);
	return -EOPNOTSUPP;
}

int synth_sprandom_check(const struct synth_job *j, char *why, size_t why_len)
{
	const struct synth_bsplit *w = &j->bs[SYNTH_DDIR_WRITE];
	char what[400];

	if (!j->sprandom)
		return 0;
	if (j->ddirs != 1u << SYNTH_DDIR_WRITE || !j->random || j->trimwrite) {
		snprintf(what, sizeof(what),
			 "fio's sprandom lays out random writes: it needs rw=randwrite%s%s (fio "
			 "refuses other than random writes; randrw's reads beside it are not "
			 "modeled)",
			 j->at_rw[0] ? ", not " : "", j->at_rw);
		return spr_refuse(j, why, why_len, what);
	}
	if (j->rand_gen == 2)
		return spr_refuse(
		    j, why, why_len,
		    "random_generator other than lfsr: fio refuses it beside sprandom");
	if (j->randommap_asked)
		return spr_refuse(j, why, why_len,
				  "norandommap=0: fio refuses it beside sprandom, which picks "
				  "each block once itself");
	if (j->nrfiles > 1)
		return spr_refuse(j, why, why_len,
				  "nrfiles above 1: fio's sprandom works on "
				  "one file (fio refuses more)");
	if (w->n != 1 || w->range_hi || (j->blockalign && j->blockalign != w->e[0].bs))
		return spr_refuse(j, why, why_len,
				  "one write block size (bs, and blockalign equal to it) is "
				  "modeled; fio's LFSR writes some blocks twice with several");
	if (j->dist.kind != DIST_UNIFORM || j->perc_rand < 100 || j->rand_run > 1 || j->zone_size)
		return spr_refuse(j, why, why_len,
				  "random_distribution, percentage_random, rw=randwrite:N and "
				  "zonemode=strided are not modeled beside it: sprandom picks "
				  "every offset itself");
	if (j->time_based || j->loops > 1)
		return spr_refuse(j, why, why_len,
				  "time_based and loops are not modeled beside it: fio ends a "
				  "sprandom job once its regions are written");
	if (j->rel && !j->number_ios)
		return spr_refuse(
		    j, why, why_len,
		    "its regions are cut from the file or device's size, known only "
		    "at replay here: give the target's size (--device-size) or "
		    "size= for the whole layout, or number_ios= for its first writes");
	if (!j->rel) {
		struct spr_layout l;

		spr_layout_of(j, j->size, &l);
		if (!l.region_writes || (j->spr_cs && j->spr_cs > l.region_bytes)) {
			snprintf(what, sizeof(what),
				 "over %llu bytes, %u regions of %llu bytes are %s: give fewer "
				 "regions (spr_num_regions) or a larger size",
				 (unsigned long long)j->size, j->spr_regions,
				 (unsigned long long)l.region_bytes,
				 l.region_writes ? "smaller than the cache, spr_cs (fio refuses it)"
						 : "less than a block");
			return spr_refuse(j, why, why_len, what);
		}
	}
	return 0;
}
