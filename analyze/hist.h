/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Latency histogram: log-linear like fio's (64 buckets per power of two, values below 128
 * exact), so any percentile is within 0.8 % of the true value; histograms merge by addition.
 * Mean and standard deviation are kept exactly alongside (Welford, mergeable).
 */
#ifndef IOREEL_ANALYZE_HIST_H
#define IOREEL_ANALYZE_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 6
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) << HIST_SUB_BITS) /* 3776 */

struct hist {
	uint64_t count;
	uint64_t min, max;
	double mean, m2; /* Welford running mean and sum of squared deviations */
	uint64_t bucket[HIST_BUCKETS];
};

void hist_init(struct hist *h);
void hist_add(struct hist *h, uint64_t v);
/* Adds src into dst. */
void hist_merge(struct hist *dst, const struct hist *src);
/* p in [0, 100]; the value at rank ceil(p/100 * count), 0 when empty. */
uint64_t hist_percentile(const struct hist *h, double p);
double hist_mean(const struct hist *h);
double hist_stdev(const struct hist *h); /* sample stdev (n-1), as fio prints */
/* Bucket math, exposed for tests and for the distribution tables. */
unsigned int hist_bucket_of(uint64_t v);
uint64_t hist_bucket_low(unsigned int idx);
uint64_t hist_bucket_high(unsigned int idx); /* inclusive */

#endif
