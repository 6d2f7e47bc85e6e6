// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <math.h>
#include <string.h>
#include "analyze/hist.h"

#define SUB (1u << HIST_SUB_BITS)

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned int hist_bucket_of(uint64_t v)
{
	if (v < 2 * SUB)
		return (unsigned int)v;
	unsigned int msb = 63 - __builtin_clzll(v);
	unsigned int shift = msb - HIST_SUB_BITS;
	return (shift + 1) * SUB + (unsigned int)((v >> shift) - SUB);
}

uint64_t hist_bucket_low(unsigned int idx)
{
	if (idx < 2 * SUB)
		return idx;
	unsigned int shift = idx / SUB - 1;
	return (uint64_t)(idx % SUB + SUB) << shift;
}

uint64_t hist_bucket_high(unsigned int idx)
{
	if (idx < 2 * SUB)
		return idx;
	unsigned int shift = idx / SUB - 1;
	return hist_bucket_low(idx) + ((1ULL << shift) - 1);
}

void hist_add(struct hist *h, uint64_t v)
{
	h->bucket[hist_bucket_of(v)]++;
	h->count++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	double d = (double)v - h->mean;
	h->mean += d / (double)h->count;
	h->m2 += d * ((double)v - h->mean);
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (!src->count)
		return;
	if (!dst->count) {
		memcpy(dst, src, sizeof(*dst));
		return;
	}
	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	double n1 = (double)dst->count, n2 = (double)src->count, n = n1 + n2;
	double d = src->mean - dst->mean;
	/* Chan et al.'s parallel update keeps mean and variance exact under merging. */
	dst->m2 += src->m2 + d * d * n1 * n2 / n;
	dst->mean += d * n2 / n;
	dst->count += src->count;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	if (!h->count)
		return 0;
	uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	uint64_t seen = 0;
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			/* The bucket's midpoint halves the worst-case error (1/128 of the value). */
			uint64_t lo = hist_bucket_low(i), hi = hist_bucket_high(i);
			uint64_t v = lo + (hi - lo) / 2;
			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
	}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? h->mean : 0.0;
}

double hist_stdev(const struct hist *h)
{
	return h->count > 1 ? sqrt(h->m2 / (double)(h->count - 1)) : 0.0;
}
