/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* `ioreel info` of a file-level trace (info_file.c), called by info.c. Internal to formats/. */
#ifndef IOREEL_FORMATS_INFO_H
#define IOREEL_FORMATS_INFO_H

#include <stdbool.h>
#include "formats/trace.h"

/* Describes r (opened from path) on stdout; files: list the file table too. 0 or the reader's
 * -errno (message in trace_reader__error()). */
int info_file(const char *path, struct trace_reader *r, bool json, bool files);

/* ", stale 0, unfinished 8" (json: "\"dropped_stale\": 0, ..."): the trace's counters
 * "dropped_CAUSE" other than dropped_ring and shown (the one the caller printed beside it), so
 * every drop is shown with its cause (info_drops.c). */
void info_drop_causes(struct trace_reader *r, bool json, const char *shown);
/* A file-level recording's paths counters, one text line (info_drops.c). */
void info_paths(struct trace_reader *r);
/* A recording's I/Os written with no completion time, which are not drops (record/LEVELS.md):
 * those the kernel ended without a completion event the recorder saw (ended_unseen) and those
 * still in flight at the stop (unfinished). A line (json: two fields); nothing when the trace
 * has neither counter (not recorded at block level). */
void info_no_end(struct trace_reader *r, bool json);
/* A dep replay's result: its elastic models (formats/elastic.h), the lines its own report gave
 * (json: an "elastic" member, null when the trace has none; text: nothing then). */
void info_elastic(struct trace_reader *r, bool json);

/* The on-CPU time events carry (info_cpu.c): see each event, then print (and free). */
#define INFO_WAIT_OPS 32 /* file-level ops (enum io_fop) with a wait figure */
struct info_cpu {
	uint64_t n, sum, *v;
	size_t nv, cap;
	/* file level (1.8), per op: calls with CPU data, their wait for a CPU, their latency */
	uint64_t wn[INFO_WAIT_OPS], wsum[INFO_WAIT_OPS], lsum[INFO_WAIT_OPS];
};
void info_cpu_see(struct info_cpu *c, const struct io_event *e);
/* A file-level call: its wait for a CPU inside the call, against its latency. */
void info_cpu_wait(struct info_cpu *c, const struct io_event *e);
void info_cpu_print(struct trace_reader *r, struct info_cpu *c, uint64_t events, bool json);

#endif
