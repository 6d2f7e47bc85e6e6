// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The block recorder's main thread alone (record/drain.c's reorder stage and the trace writer),
 * fed from a recorded trace as the drain thread would feed it: bench/record_cost.sh drives it.
 *
 *   record_drain_bench IN.ioreel OUT.ioreel [PASS_MS [SPEED]]
 *
 * Each I/O of IN is handed over when it completed, in passes of PASS_MS (default 5) of
 * completion time, CPU by CPU within a pass as the per-CPU rings are emptied; after each pass
 * the events are released up to the oldest I/O still in flight at its end, or its end less
 * record's margin, whichever is earlier (collect.c). A chunk is flushed per second of trace
 * time, as record does. SPEED (default 1) divides the trace's times, for the rates of a quiet
 * machine from a trace recorded on a busy one: about (PASS_MS + 5 ms) of I/Os wait to be
 * ordered, so the reorder stage's work follows the rate. OUT depends only on IN, so two builds
 * of drain.c can be compared byte for byte, and their cost counted without the machine's load:
 * `valgrind --tool=callgrind --toggle-collect=feed` gives the instructions of the main thread's
 * work (printed per event here too in thread CPU time, which the load does change).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "formats/trace.h"
#include "record/record_int.h"

#define GENESIS (1ULL << 40) /* a ktime far from 0, as a booted machine's */
#define MARGIN RELEASE_MARGIN_NS

struct arrival {
	uint64_t complete, queue; /* ktime */
	struct rec_event e;
};

static int by_complete(const void *a, const void *b)
{
	const struct arrival *x = a, *y = b;

	if (x->complete != y->complete)
		return x->complete < y->complete ? -1 : 1;
	return x->e.sector < y->e.sector ? -1 : x->e.sector > y->e.sector;
}

static int by_cpu_complete(const void *a, const void *b)
{
	const struct arrival *x = a, *y = b;

	if (x->e.cpu != y->e.cpu)
		return x->e.cpu < y->e.cpu ? -1 : 1;
	return by_complete(a, b);
}

static int errno_status(int err)
{
	for (uint32_t s = 0; s < 17; s++)
		if (rec_status_errno(s) == err)
			return (int)s;
	return 10;
}

/* The passes: pass[k] is where the k-th pass's arrivals begin (pass[np] = n), each pass's
 * arrivals sorted CPU by CPU, as the per-CPU rings are emptied. */
static size_t *passes(struct arrival *a, size_t n, uint64_t pass_ns, size_t *np)
{
	size_t *pass = malloc((n + 1) * sizeof(*pass)), k = 0, i = 0;

	if (!pass)
		return NULL;
	while (i < n) {
		uint64_t end = a[i].complete - (a[i].complete % pass_ns) + pass_ns;
		size_t j = i;

		while (j < n && a[j].complete < end)
			j++;
		qsort(a + i, j - i, sizeof(*a), by_cpu_complete);
		pass[k++] = i;
		i = j;
	}
	pass[k] = n;
	*np = k;
	return pass;
}

/* The main thread's work, apart for callgrind's --toggle-collect. */
static int __attribute__((noinline)) feed(struct rec_drain *d, struct trace_writer *w,
					   const struct arrival *a, const size_t *pass, size_t np,
					   uint64_t pass_ns, const uint64_t *oldest_from)
{
	uint64_t next_flush = GENESIS + 1000000000ULL;
	int err = 0;

	for (size_t k = 0; k < np && !err; k++) {
		uint64_t c = a[pass[k]].complete, end = c - (c % pass_ns) + pass_ns;
		/* the earliest queued of those still in flight at the pass: not arrived yet */
		uint64_t oldest = oldest_from[pass[k + 1]];

		for (size_t i = pass[k]; i < pass[k + 1]; i++)
			rec_drain__push(d, &a[i].e);
		err = rec_drain__release(d, oldest < end - MARGIN ? oldest : end - MARGIN);
		if (!err && end >= next_flush) {
			next_flush += 1000000000ULL;
			err = trace_writer__flush(w);
		}
	}
	if (!err)
		err = rec_drain__release(d, UINT64_MAX);
	return err;
}

int main(int argc, char **argv)
{
	static struct rec_target t[TRACE_MAX_DEVICES];
	static struct trace_meta meta;
	static struct io_event buf[4096];
	struct trace_reader *r;
	struct trace_writer *w;
	struct rec_drain *d;
	struct arrival *a = NULL;
	uint64_t *qs, pass_ns = 5000000ULL, speed = 1;
	size_t n = 0, cap = 0, np, *pass;
	struct timespec t0, t1;
	struct rec_drain_stats st;
	long got;
	int err;

	if (argc < 3) {
		fprintf(stderr, "usage: record_drain_bench IN.ioreel OUT.ioreel [PASS_MS]\n");
		return 2;
	}
	if (argc > 3)
		pass_ns = strtoull(argv[3], NULL, 10) * 1000000ULL;
	if (argc > 4)
		speed = strtoull(argv[4], NULL, 10);
	if (!pass_ns || !speed) {
		fprintf(stderr,
			"record_drain_bench: PASS_MS and SPEED are whole numbers above 0\n");
		return 2;
	}
	r = trace_reader__open(argv[1], 0, NULL, 0);
	if (!r) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	meta = *trace_reader__meta(r);
	for (uint32_t i = 0; i < meta.ndevices; i++) {
		t[i].td = meta.devices[i];
		t[i].disk_dev = rec_mkdev(meta.devices[i].major, meta.devices[i].minor);
		t[i].nr_sectors = meta.devices[i].size_bytes / 512;
	}
	while ((got = trace_reader__next(r, buf, 4096)) > 0) {
		for (long k = 0; k < got; k++) {
			const struct io_event *e = &buf[k];
			struct arrival *x;

			if (e->queue_ns == IO_TS_NONE)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 1 << 16;
				a = realloc(a, cap * sizeof(*a));
				if (!a)
					return 1;
			}
			x = &a[n++];
			memset(x, 0, sizeof(*x));
			x->queue = x->e.queue_ns = GENESIS + e->queue_ns / speed;
			x->e.issue_ns =
			    e->issue_ns == IO_TS_NONE ? 0 : GENESIS + e->issue_ns / speed;
			/* ended unseen: handed over when the next I/O on its request started */
			x->e.complete_ns =
			    e->complete_ns == IO_TS_NONE ? 0 : GENESIS + e->complete_ns / speed;
			x->complete = x->e.complete_ns ? x->e.complete_ns : x->queue + 1000000;
			x->e.sector = e->offset / 512;
			x->e.bytes = e->length;
			x->e.dev = t[e->dev].disk_dev;
			x->e.pid = e->pid;
			x->e.tid = e->tid;
			x->e.status = errno_status(e->error);
			x->e.cpu = e->cpu;
			x->e.op = e->op;
			x->e.flags = e->flags;
			memcpy(x->e.comm, e->comm, sizeof(x->e.comm));
		}
	}
	if (got < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], trace_reader__error(r));
		return 1;
	}
	trace_reader__close(r);
	qsort(a, n, sizeof(*a), by_complete);
	pass = passes(a, n, pass_ns, &np);
	/* qs[j]: the earliest queue time of the I/Os arriving from the j-th on */
	qs = malloc((n + 1) * sizeof(*qs));
	if (!qs || !pass)
		return 1;
	qs[n] = UINT64_MAX;
	for (size_t i = n; i-- > 0;)
		qs[i] = a[i].queue < qs[i + 1] ? a[i].queue : qs[i + 1];

	w = trace_writer__open(argv[2], &meta, NULL);
	if (!w) {
		fprintf(stderr, "%s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	d = rec_drain__new(w, t, (int)meta.ndevices, GENESIS);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	err = feed(d, w, a, pass, np, pass_ns, qs);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	rec_drain__stats(d, &st);
	if (!err)
		err = trace_writer__close(w, &(struct trace_stats){ .events = st.events });
	if (err) {
		fprintf(stderr, "writing %s: %s\n", argv[2], strerror(-err));
		return 1;
	}
	printf("events %llu out_of_order %llu cpu_ns_per_event %.1f\n",
	       (unsigned long long)st.events, (unsigned long long)st.out_of_order,
	       ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / (n ? n : 1));
	rec_drain__free(d);
	free(qs);
	free(pass);
	free(a);
	return 0;
}
