/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A dep replay's elastic models in its result trace (formats/FORMAT.md, "Counters frame",
 * after 1.8): which models were on and, per op, what they changed, as counters named
 * `elastic_...`, so `analyze --compare` and `info` of the result show how much of a
 * prediction is the model's (issue 24) long after the replay's own report is gone.
 */
#ifndef IOREEL_FORMATS_ELASTIC_H
#define IOREEL_FORMATS_ELASTIC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "formats/trace.h"

#define TRACE_EL_OPS 32 /* ops of either level (enum io_op, enum io_fop) */

/* The figures of replay/dep/dep.h's struct dep_elastic a result trace keeps, by its names. */
struct trace_elastic {
	bool group_commit, absorb, splits, commit_lock; /* on in the replay */
	bool file_level;				/* ops are enum io_fop (from the trace) */
	uint64_t trace[TRACE_EL_OPS];			/* in the replayed trace */
	uint64_t issued[TRACE_EL_OPS];			/* issued (split flushes too) */
	uint64_t coalesced[TRACE_EL_OPS]; /* flushes not issued: an in-flight one covered them */
	uint64_t absorbed[TRACE_EL_OPS];  /* writes not issued: a later one of the range was due */
	uint64_t split[TRACE_EL_OPS];	  /* flushes added */
	uint64_t followed[TRACE_EL_OPS];  /* commit lock: a follower's calls, not issued */
	uint64_t flushes, redundant;	  /* recorded flushes; of which kept (never coalesced) */
	uint64_t grounded;		  /* I/Os split's grounding found */
	uint64_t lock_waits, lock_broken, merged_bytes; /* commit lock */
	uint64_t lock_kept; /* commit lock: waiters that came before the holder's recorded end */
	bool wbt;	    /* the kernel's writeback throttle (--dep-wbt, block level) */
	uint64_t wbt_throttled, wbt_held, wbt_held_ns; /* writeback writes; waits; their time */
	uint64_t wbt_windows, wbt_exceeded;	       /* windows; over the latency aimed at */
};

/* Any model on: a replay with every model off writes no record. */
bool trace_elastic_any(const struct trace_elastic *e);
/* Stores e as the writer's counters (they replace any set before). 0 or -errno. */
int trace_writer__set_elastic(struct trace_writer *w, const struct trace_elastic *e);
/* Fills e from r's counters; false (e zeroed) when the trace has no record. */
bool trace_reader__elastic(const struct trace_reader *r, struct trace_elastic *e);
/* Text: "group commit on, ..., writeback throttle off" and its line end, then the table per
 * op (indented 4), then each model's own figures when it was on: dep_report.c's layout. */
void trace_elastic_print(const struct trace_elastic *e, FILE *f);
/* JSON: the object a dep replay's `fidelity.elastic` is, with its keys. */
void trace_elastic_json(const struct trace_elastic *e, FILE *f);

#endif
