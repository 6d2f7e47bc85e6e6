// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The elastic models' part of a dep replay's report: per op, what the trace held, what was
 * issued, and how many the models took out (coalesced flushes, absorbed writes) or added
 * (split flushes) or a follower of the commit lock did not issue, so a reader sees how much of
 * the prediction is the model's.
 */
#include <stdio.h>
#include <string.h>
#include "formats/elastic.h"
#include "formats/file.h"
#include "replay/dep/dep.h"
#include "replay/dep/dep_wbt.h"

static const char *op_name(const struct dep_elastic *e, unsigned int op)
{
	return e->file_level ? io_fop_name(op) : io_op_name(op);
}

static uint64_t issued(const struct dep_elastic *e, int op)
{
	return e->issued[op];
}

static bool shown(const struct dep_elastic *e, int op)
{
	return e->coalesced[op] || e->absorbed[op] || e->split[op] || e->followed[op] ||
	       (e->trace[op] && (op <= 2 || (e->file_level && op <= 4)));
}

void dep_elastic_print(const struct dep_elastic *e, unsigned long long flushes,
		       unsigned long long redundant, FILE *out)
{
	fprintf(out, "  elastic models: group commit %s, absorbed writes %s, split flushes %s, "
		     "commit lock %s\n",
		e->group_commit ? "on" : "off", e->absorb ? "on" : "off",
		e->splits ? "on" : "off", e->commit_lock ? "on" : "off");
	fprintf(out, "    %-12s %10s %10s %10s %10s %8s %9s %13s\n", "op", "in trace", "issued",
		"coalesced", "absorbed", "split", "followed", "issued/trace");
	for (int op = 0; op < DEP_EL_OPS; op++) {
		if (!shown(e, op))
			continue;
		fprintf(out, "    %-12s %10llu %10llu %10llu %10llu %8llu %9llu %13.3f\n",
			op_name(e, (unsigned int)op), (unsigned long long)e->trace[op],
			(unsigned long long)issued(e, op), (unsigned long long)e->coalesced[op],
			(unsigned long long)e->absorbed[op], (unsigned long long)e->split[op],
			(unsigned long long)e->followed[op],
			e->trace[op] ? (double)issued(e, op) / (double)e->trace[op] : 0.0);
	}
	if (e->group_commit)
		fprintf(out,
			"    %llu of %llu flushes were issued in the recording under another "
			"thread's covering one: never coalesced\n",
			redundant, flushes);
	if (e->commit_lock)
		fprintf(out,
			"    commit lock: %llu groups (writes, then a flush) waited for another "
			"thread's; %llu of them came before the holder would have let go at the "
			"recorded pace and led their own; the leaders wrote %llu bytes of their "
			"followers'; %llu waits ended with nothing else to run\n",
			(unsigned long long)e->lock_waits, (unsigned long long)e->lock_kept,
			(unsigned long long)e->merged_bytes, (unsigned long long)e->lock_broken);
	if (e->splits)
		fprintf(out,
			"    %llu I/Os waited in the recording on another thread's flush for their "
			"writes: split where it no longer covered them\n",
			(unsigned long long)e->grounded);
}

/* The JSON object is the result trace's (formats/elastic.c), written into buf: one writer, so
 * the replay's fidelity.elastic and analyze --compare's cannot drift apart. */
size_t dep_elastic_json(const struct dep_elastic *e, unsigned long long flushes,
			unsigned long long redundant, const struct wbt_report *wbt, char *buf,
			size_t len)
{
	struct trace_elastic t;
	FILE *f;
	long n;

	if (!len)
		return 0;
	buf[0] = '\0';
	f = fmemopen(buf, len, "w");
	if (!f)
		return 0;
	dep_elastic_record(e, flushes, redundant, wbt, &t);
	fputs(", \"elastic\": ", f);
	trace_elastic_json(&t, f);
	n = ftell(f);
	fclose(f); /* writes the NUL; what did not fit is cut, as snprintf cuts */
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

bool dep_elastic_record(const struct dep_elastic *e, unsigned long long flushes,
			unsigned long long redundant, const struct wbt_report *wbt,
			struct trace_elastic *out)
{
	_Static_assert(DEP_EL_OPS == TRACE_EL_OPS, "one op table for the report and the trace");
	*out = (struct trace_elastic){ .group_commit = e->group_commit, .absorb = e->absorb,
				       .splits = e->splits, .commit_lock = e->commit_lock,
				       .file_level = e->file_level, .flushes = flushes,
				       .redundant = redundant, .grounded = e->grounded,
				       .lock_waits = e->lock_waits, .lock_kept = e->lock_kept,
				       .lock_broken = e->lock_broken,
				       .merged_bytes = e->merged_bytes };
	memcpy(out->trace, e->trace, sizeof(out->trace));
	memcpy(out->issued, e->issued, sizeof(out->issued));
	memcpy(out->coalesced, e->coalesced, sizeof(out->coalesced));
	memcpy(out->absorbed, e->absorbed, sizeof(out->absorbed));
	memcpy(out->split, e->split, sizeof(out->split));
	memcpy(out->followed, e->followed, sizeof(out->followed));
	if (wbt && wbt->on) {
		out->wbt = true;
		out->wbt_throttled = wbt->throttled;
		out->wbt_held = wbt->held;
		out->wbt_held_ns = wbt->held_ns;
		out->wbt_windows = wbt->windows;
		out->wbt_exceeded = wbt->exceeded;
	}
	return trace_elastic_any(out);
}
