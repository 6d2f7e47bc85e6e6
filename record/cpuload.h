/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The host's CPU load while recording (both levels): every interval, what bpf/oncpu.bpf.h's
 * per-CPU accounts gained, by kind, written to the trace as CPU load entries (format 1.6).
 */
#ifndef IOREEL_RECORD_CPULOAD_H
#define IOREEL_RECORD_CPULOAD_H

#include <stdint.h>
#include "bpf/oncpu.h"

#define REC_CPU_INTERVAL_NS 10000000ULL /* 10 ms */

struct trace_writer;

struct rec_cpuload {
	int map_fd;	/* the oncpu_cpus per-CPU array; -1: not recording CPU */
	int npossible;	/* values a per-CPU lookup returns */
	uint32_t ncpus; /* online CPUs, stored with the entries */
	uint64_t genesis, prev_t, prev[ONCPU__KINDS];
	uint64_t entries, sums[ONCPU__KINDS]; /* written so far, for the status line */
	struct oncpu_cpu *vals;
};

/* map_fd < 0: off (every call then does nothing). 0 or -errno. */
int rec_cpuload_init(struct rec_cpuload *l, int map_fd, uint64_t genesis_ktime);
/* At now (CLOCK_MONOTONIC ns): once an interval has passed since the last entry, writes the
 * next; force: writes what is left (at the stop). 0 or the writer's -errno. */
int rec_cpuload_tick(struct rec_cpuload *l, struct trace_writer *w, uint64_t now, bool force);
void rec_cpuload_free(struct rec_cpuload *l);

#endif
