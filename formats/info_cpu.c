// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `ioreel info`'s CPU line (format 1.6): whether the trace carries its threads' on-CPU time
 * between calls and the host's CPU load, which replay --cpu replay reproduces, and how much.
 */
#include <stdio.h>
#include <stdlib.h>
#include "formats/file.h"
#include "formats/info.h"

_Static_assert(IO_FOP__COUNT <= INFO_WAIT_OPS, "info_cpu: more file ops than INFO_WAIT_OPS");

#define KEEP_MAX (4u << 20) /* values kept for the median: the first 4 Mi */

void info_cpu_see(struct info_cpu *c, const struct io_event *e)
{
	if (!e->oncpu_ns)
		return;
	c->n++;
	c->sum += e->oncpu_ns;
	if (c->nv == c->cap && c->cap < KEEP_MAX) {
		size_t cap = c->cap ? 2 * c->cap : 4096;
		uint64_t *p = realloc(c->v, cap * sizeof(*p));

		if (p) {
			c->v = p;
			c->cap = cap;
		}
	}
	if (c->nv < c->cap)
		c->v[c->nv++] = e->oncpu_ns;
}

void info_cpu_wait(struct info_cpu *c, const struct io_event *e)
{
	/* known where the on-CPU time is (format 1.8; 0 is then no wait), for calls whose
	 * return was seen */
	if (!e->oncpu_ns || e->op >= INFO_WAIT_OPS || e->queue_ns == IO_TS_NONE ||
	    e->complete_ns == IO_TS_NONE || e->complete_ns < e->queue_ns)
		return;
	c->wn[e->op]++;
	c->wsum[e->op] += e->cpuwait_ns;
	c->lsum[e->op] += e->complete_ns - e->queue_ns;
}

/* The per-op wait for a CPU, text or JSON, for the ops with any (file level, 1.8). */
static void print_wait(const struct info_cpu *c, bool json)
{
	bool any = false;

	for (unsigned int op = 0; op < INFO_WAIT_OPS; op++)
		any |= c->wsum[op] != 0;
	if (json) {
		printf(", \"cpuwait\": {");
		for (unsigned int op = 0, k = 0; op < INFO_WAIT_OPS; op++) {
			if (!c->wn[op])
				continue;
			printf("%s\"%s\": {\"calls\": %llu, \"wait_ns\": %llu, \"latency_ns\": %llu}",
			       k++ ? ", " : "", io_fop_name(op), (unsigned long long)c->wn[op],
			       (unsigned long long)c->wsum[op], (unsigned long long)c->lsum[op]);
		}
		printf("}");
		return;
	}
	if (!any)
		return;
	printf("  cpu wait   inside calls, runnable but not running (mean per call, share of its "
	       "latency):");
	for (unsigned int op = 0; op < INFO_WAIT_OPS; op++) {
		if (!c->wn[op] || !c->wsum[op])
			continue;
		printf(" %s %.1f us (%.0f%%)", io_fop_name(op), c->wsum[op] / 1e3 / c->wn[op],
		       c->lsum[op] ? 100.0 * c->wsum[op] / c->lsum[op] : 0.0);
	}
	printf("\n");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void info_cpu_print(struct trace_reader *r, struct info_cpu *c, uint64_t events, bool json)
{
	const struct trace_cpu_load *l;
	uint32_t ncpus = 0, interval = 0;
	size_t nl = trace_reader__cpu_load(r, &l, &ncpus, &interval);
	uint64_t p50 = 0, span_us = 0;
	double tr = 0, ot = 0, kt = 0;

	if (c->nv) {
		qsort(c->v, c->nv, sizeof(*c->v), cmp_u64);
		p50 = c->v[c->nv / 2];
	}
	for (size_t i = 0; i < nl; i++) {
		tr += l[i].traced_us;
		ot += l[i].other_us;
		kt += l[i].kthread_us;
	}
	/* an entry lasts until the next starts; the recorder ends with an empty one */
	if (nl > 1)
		span_us = (l[nl - 1].start_ns - l[0].start_ns) / 1000;
	if (json) {
		printf("\"cpu\": {\"oncpu_events\": %llu, \"oncpu_total_ns\": %llu, "
		       "\"oncpu_p50_ns\": %llu, \"load_intervals\": %zu, \"ncpus\": %u, "
		       "\"interval_ns\": %u, \"load_span_s\": %.6f, \"traced_cpu_s\": %.6f, "
		       "\"other_cpu_s\": %.6f, \"kthread_cpu_s\": %.6f",
		       (unsigned long long)c->n, (unsigned long long)c->sum,
		       (unsigned long long)p50, nl, ncpus, interval, span_us / 1e6, tr / 1e6,
		       ot / 1e6, kt / 1e6);
		print_wait(c, true);
		printf("}, ");
	} else if (!c->n && !nl) {
		printf("  cpu        not recorded (replay --cpu replay needs a recording by ioreel "
		       "record --cpu)\n");
	} else {
		printf("  cpu        on-CPU time before %llu of %llu events, median %.1f us, "
		       "total %.3f s\n",
		       (unsigned long long)c->n, (unsigned long long)events, p50 / 1e3,
		       c->sum / 1e9);
		if (nl && span_us)
			printf("  cpu load   %zu intervals of %u ms over %.2f s on %u CPUs: recorded "
			       "threads %.1f%%, other tasks %.1f%%, kernel threads %.1f%% of the "
			       "CPUs\n",
			       nl, interval / 1000000, span_us / 1e6, ncpus, 100.0 * tr / span_us / ncpus,
			       100.0 * ot / span_us / ncpus, 100.0 * kt / span_us / ncpus);
		print_wait(c, false);
	}
	free(c->v);
	*c = (struct info_cpu){0};
}
