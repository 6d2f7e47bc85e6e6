// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include "synth/dist.h"
#include "util/cli.h"
#include "util/num.h"

/* zoned_abs sizes: "20g", "100m" (fio reads them with its size rules; kb_base 1024). */
static int parse_size_1024(const char *s, uint64_t *v)
{
	return parse_size(s, v);
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void rng_seed(struct synth_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

uint64_t rng_next(struct synth_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double rng_unit(struct synth_rng *r)
{
	return (rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t rng_below(struct synth_rng *r, uint64_t n)
{
	/* Lemire's multiply-shift with rejection: unbiased for any n. */
	unsigned __int128 m = (unsigned __int128)rng_next(r) * n;
	uint64_t lo = (uint64_t)m;

	if (lo < n) {
		uint64_t t = -n % n;

		while (lo < t) {
			m = (unsigned __int128)rng_next(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

double rng_exp(struct synth_rng *r, double mean)
{
	/* 1 - u is in (0, 1], so the log is finite. */
	return -mean * log(1.0 - rng_unit(r));
}

/* One direction's zones "50/5:30/15:20/" (fio's zone_split_ddir: a missing or 0 range shares
 * what the others leave). abs: ranges are sizes in bytes (k, m, g as 1024s). */
static int parse_zone_set(char *set, bool abs, struct dist_spec *d)
{
	char *save = NULL, *tok;
	uint32_t acc = 0, rng = 0, miss = 0;

	d->nzones = 0;
	for (tok = strtok_r(set, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		char *slash = strchr(tok, '/'), *end;
		struct dist_zone *z;
		unsigned long a;

		if (d->nzones == DIST_MAX_ZONES || !slash)
			return -EINVAL;
		*slash = '\0';
		z = &d->zones[d->nzones++];
		errno = 0;
		a = strtoul(tok, &end, 10);
		if (errno || end == tok || *end || a > 100)
			return -EINVAL;
		z->access = (uint32_t)a;
		acc += z->access;
		if (abs) {
			if (parse_size_1024(slash + 1, &z->size) || !z->size)
				return -EINVAL;
			continue;
		}
		a = slash[1] ? strtoul(slash + 1, &end, 10) : 0;
		if (slash[1] && (*end || a > 100))
			return -EINVAL;
		z->size = a ? a : UINT64_MAX;
		if (a)
			rng += (uint32_t)a;
		else
			miss++;
	}
	if (!d->nzones || acc != 100 || rng > 100)
		return -EINVAL;
	for (uint32_t i = 0; i < d->nzones; i++)
		if (d->zones[i].size == UINT64_MAX)
			d->zones[i].size = (100 - rng) / miss;
	return 0;
}

/* "zoned:..." / "zoned_abs:..." with per-direction sets split by ','. */
static int parse_zoned(const char *list, bool abs, struct dist_spec *d)
{
	char buf[4096], *sets[3] = { 0 }, *p;
	int n = 0;

	if (strlen(list) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, list);
	sets[n++] = buf;
	for (p = buf; *p; p++)
		if (*p == ',') {
			if (n == 3)
				return -EINVAL;
			*p = '\0';
			sets[n++] = p + 1;
		}
	for (int i = 1; i < n; i++)
		if (*sets[i] && strcmp(sets[i], sets[0]))
			return -EOPNOTSUPP; /* one zone set per direction is not modeled */
	d->kind = abs ? DIST_ZONED_ABS : DIST_ZONED;
	return parse_zone_set(sets[0], abs, d);
}

static int parse_sequence(const char *list, struct dist_spec *d)
{
	const char *p = list;

	d->kind = DIST_SEQUENCE;
	while (*p) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || end == p || v > UINT32_MAX || d->nseq == DIST_MAX_SEQ)
			return -EINVAL;
		d->seq[d->nseq++] = (uint32_t)v;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -EINVAL;
	}
	return d->nseq ? 0 : -EINVAL;
}

int dist_parse(const char *s, struct dist_spec *d)
{
	const char *colon = strchr(s, ':');
	size_t nlen = colon ? (size_t)(colon - s) : strlen(s);
	char *end;

	memset(d, 0, sizeof(*d));
	if (nlen == 5 && !strncmp(s, "zoned", 5))
		return colon ? parse_zoned(colon + 1, false, d) : -EINVAL;
	if (nlen == 9 && !strncmp(s, "zoned_abs", 9))
		return colon ? parse_zoned(colon + 1, true, d) : -EINVAL;
	if (nlen == 8 && !strncmp(s, "sequence", 8))
		return colon ? parse_sequence(colon + 1, d) : -EINVAL;
	if ((nlen == 6 && !strncmp(s, "random", 6)) || (nlen == 7 && !strncmp(s, "uniform", 7))) {
		d->kind = DIST_UNIFORM;
		return colon ? -EINVAL : 0;
	}
	if (nlen == 4 && !strncmp(s, "zipf", 4)) {
		d->kind = DIST_ZIPF;
		d->param = 1.1; /* FIO_DEF_ZIPF */
	} else if (nlen == 6 && !strncmp(s, "pareto", 6)) {
		d->kind = DIST_PARETO;
		d->param = 0.2; /* FIO_DEF_PARETO */
	} else if ((nlen == 6 && !strncmp(s, "normal", 6)) || (nlen == 5 && !strncmp(s, "gauss", 5))) {
		d->kind = DIST_NORMAL;
		d->param = 0.0;
	} else {
		return -EINVAL;
	}
	if (colon) {
		errno = 0;
		d->param = strtod(colon + 1, &end);
		if (errno || end == colon + 1 || !isfinite(d->param))
			return -EINVAL;
		if (*end == ':')
			return -EOPNOTSUPP; /* fio's center ("zipf:1.2:0.25") is not modeled */
		if (*end)
			return -EINVAL;
	}
	/* fio's bounds (options.c, str_random_distribution_cb) */
	switch (d->kind) {
	case DIST_ZIPF:
		if (d->param <= 0.0 || d->param == 1.0)
			return -EINVAL;
		break;
	case DIST_PARETO:
		if (d->param <= 0.0 || d->param >= 1.0)
			return -EINVAL;
		break;
	case DIST_NORMAL:
		if (d->param < 0.0 || d->param >= 100.0)
			return -EINVAL;
		break;
	default:
		break;
	}
	return 0;
}

char *dist_format(const struct dist_spec *d, char *buf, unsigned long len)
{
	static const char *names[] = { "random", "zipf", "pareto", "normal", "zoned", "zoned_abs",
				       "sequence" };

	if (d->kind == DIST_UNIFORM || d->kind >= DIST_ZONED)
		snprintf(buf, len, "%s", names[d->kind]);
	else
		snprintf(buf, len, "%s:%g", names[d->kind], d->param);
	return buf;
}

/* zone_of[v - 1] for fio's draw v in 1..100, and each zone's block range (fio's
 * __get_next_rand_offset_zoned: [lastb * start% / 100, + lastb * size% / 100)). */
static void zones_init(struct block_dist *b)
{
	const struct dist_spec *d = &b->spec;
	uint64_t start = 0, unit = d->unit ? d->unit : 1;
	uint32_t acc = 0, v = 0;

	for (uint32_t i = 0; i < d->nzones; i++) {
		uint64_t lo, hi;

		if (d->kind == DIST_ZONED) {
			lo = start * b->n / 100;
			hi = lo + b->n * d->zones[i].size / 100;
			start += d->zones[i].size;
		} else {
			lo = start / unit;
			hi = (start + d->zones[i].size) / unit;
			start += d->zones[i].size;
		}
		b->zone_lo[i] = lo;
		b->zone_hi[i] = hi > b->n ? b->n : hi;
		acc += d->zones[i].access;
		while (v < acc && v < 100)
			b->zone_of[v++] = (uint8_t)i;
	}
}

/* ---- zipf: rejection-inversion (Hörmann & Derflinger 1996), exact for any θ > 0, O(1) ---- */

static double helper1(double x)
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}

static double helper2(double x)
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x));
}

static double zh(double theta, double x)
{
	return exp(-theta * log(x));
}

static double zH(double theta, double x)
{
	double lx = log(x);

	return helper2((1 - theta) * lx) * lx;
}

static double zHinv(double theta, double x)
{
	double t = x * (1 - theta);

	if (t < -1)
		t = -1;
	return exp(helper1(t) * x);
}

/* Returns a rank in [0, n): rank 0 is the hottest. */
static uint64_t zipf_rank(struct block_dist *b)
{
	double th = b->spec.param, n = (double)b->n;
	double hx1 = zH(th, 1.5) - 1, hn = zH(th, n + 0.5);
	double s = 2 - zHinv(th, zH(th, 2.5) - zh(th, 2));

	for (;;) {
		double u = hn + rng_unit(&b->rng) * (hx1 - hn);
		double x = zHinv(th, u);
		double k = floor(x + 0.5);

		if (k < 1)
			k = 1;
		else if (k > n)
			k = n;
		if (k - x <= s || u >= zH(th, k + 0.5) - zh(th, k))
			return (uint64_t)k - 1;
	}
}

/* ---- the bijection that scatters ranks, and the permutation behind the random map ---- */

uint64_t block_dist_scatter(const struct block_dist *b, uint64_t rank)
{
	/* x -> (a*x + c) mod n with gcd(a, n) = 1 is a bijection of [0, n). */
	unsigned __int128 v = (unsigned __int128)rank * b->scatter_mul + b->scatter_add;

	return (uint64_t)(v % b->n);
}

static uint64_t feistel(const struct block_dist *b, uint64_t x)
{
	unsigned int h = b->half_bits;
	uint64_t mask = (h >= 64) ? ~0ULL : ((1ULL << h) - 1);
	uint64_t l = (x >> h) & mask, r = x & mask;

	for (int i = 0; i < 4; i++) {
		uint64_t f = r * 0x9e3779b97f4a7c15ULL ^ b->keys[i];

		f ^= f >> 29;
		f *= 0xbf58476d1ce4e5b9ULL;
		f ^= f >> 32;
		uint64_t nl = r;

		r = (l ^ f) & mask;
		l = nl;
	}
	return (l << h) | r;
}

/* The i-th element of a random permutation of [0, n): a Feistel bijection on [0, 4^h) >= n,
 * cycle-walking back into range (at most 4x work on average since 4^h < 4n). */
static uint64_t perm_at(const struct block_dist *b, uint64_t i)
{
	uint64_t x = i;

	do
		x = feistel(b, x);
	while (x >= b->n);
	return x;
}

int block_dist_init(struct block_dist *b, const struct dist_spec *spec, uint64_t n,
		    int norandommap, uint64_t seed)
{
	if (!n)
		return -EINVAL;
	memset(b, 0, sizeof(*b));
	b->spec = *spec;
	b->n = n;
	b->norandommap = norandommap || spec->kind != DIST_UNIFORM; /* fio: skewed => no map */
	rng_seed(&b->rng, seed);
	while (b->half_bits < 32 && (1ULL << (2 * b->half_bits)) < n)
		b->half_bits++;
	for (int i = 0; i < 4; i++)
		b->keys[i] = rng_next(&b->rng);
	do
		b->scatter_mul = rng_next(&b->rng) % n;
	while (n > 1 && gcd_u64(b->scatter_mul, n) != 1);
	if (n == 1)
		b->scatter_mul = 1;
	b->scatter_add = rng_below(&b->rng, n);
	if (spec->kind == DIST_ZONED || spec->kind == DIST_ZONED_ABS)
		zones_init(b);
	if (spec->kind == DIST_NORMAL && spec->param > 0) {
		/* gauss_init(): the spread is dev % of the range, at most half of it */
		b->stddev = (uint64_t)ceil(spec->param * (double)n / 100.0);
		if (b->stddev > n / 2)
			b->stddev = n / 2;
	}
	return 0;
}

uint64_t block_dist_next(struct block_dist *b)
{
	switch (b->spec.kind) {
	case DIST_ZIPF:
		return block_dist_scatter(b, zipf_rank(b));
	case DIST_PARETO: {
		/* fio's pareto_next(): (n - 1) * u^(log h / log(1 - h)) */
		double p = log(b->spec.param) / log(1.0 - b->spec.param);
		uint64_t rank = (uint64_t)((double)(b->n - 1) * pow(rng_unit(&b->rng), p));

		return block_dist_scatter(b, rank < b->n ? rank : b->n - 1);
	}
	case DIST_NORMAL: {
		/* fio's gauss_next(): mean of 12 uniform draws in [-stddev/2, stddev/2), around
		 * the middle of the range; the offset from the middle is the popularity rank
		 * (both sides), then scattered like zipf/pareto ranks. */
		int64_t sum = 0;

		for (int i = 0; i < 12; i++) {
			if (b->stddev)
				sum += (int64_t)rng_below(&b->rng, b->stddev) - (int64_t)(b->stddev / 2);
		}
		sum /= 12;
		int64_t v = (int64_t)(b->n / 2) + sum;

		if (v < 0)
			v = 0;
		if ((uint64_t)v >= b->n)
			v = (int64_t)b->n - 1;
		return block_dist_scatter(b, (uint64_t)v);
	}
	case DIST_ZONED:
	case DIST_ZONED_ABS: {
		/* fio: a percentile picks the zone, then a uniform block inside it */
		uint32_t z = b->zone_of[rng_below(&b->rng, 100)];
		uint64_t lo = b->zone_lo[z], hi = b->zone_hi[z];

		return hi > lo ? lo + rng_below(&b->rng, hi - lo) : lo;
	}
	case DIST_SEQUENCE: {
		/* fio: block seq[i % n], moved on by n blocks per cycle with the stride */
		uint64_t i = b->seq_pos++, nseq = b->spec.nseq;
		uint64_t blk = b->spec.seq[i % nseq] + (b->spec.seq_stride ? i / nseq * nseq : 0);

		return blk < b->n ? blk : blk % b->n;
	}
	default:
		break;
	}
	if (b->norandommap)
		return rng_below(&b->rng, b->n);
	/* A new permutation each pass so repeated passes differ, as fio's map resets. */
	if (b->perm_pos == b->n) {
		b->perm_pos = 0;
		for (int i = 0; i < 4; i++)
			b->keys[i] = rng_next(&b->rng);
	}
	return perm_at(b, b->perm_pos++);
}

static double zeta_partial(double theta, uint64_t k)
{
	/* Exact sum up to 10^6 terms, then the Euler–Maclaurin tail of the integral. */
	uint64_t m = k < 1000000 ? k : 1000000;
	double s = 0;

	for (uint64_t i = 1; i <= m; i++)
		s += pow((double)i, -theta);
	if (k > m) {
		double a = (double)m, bb = (double)k;

		s += (pow(bb, 1 - theta) - pow(a, 1 - theta)) / (1 - theta) +
		     0.5 * (pow(bb, -theta) - pow(a, -theta));
	}
	return s;
}

double dist_top_share(const struct dist_spec *spec, uint64_t n, uint64_t k)
{
	if (k >= n)
		return 1.0;
	switch (spec->kind) {
	case DIST_ZIPF:
		return zeta_partial(spec->param, k) / zeta_partial(spec->param, n);
	case DIST_PARETO: {
		double p = log(spec->param) / log(1.0 - spec->param);
		double f = (double)k / (double)(n - 1);

		return f >= 1 ? 1.0 : pow(f, 1.0 / p);
	}
	default:
		return -1;
	}
}
