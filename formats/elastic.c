// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A dep replay's elastic models as named counters of its result trace (formats/elastic.h,
 * FORMAT.md "Counters frame"). Counters, not a frame of their own: every reader since 1.2 reads
 * the counters frame whatever the names in it, so an older ioreel reads such a trace as before,
 * where a new frame kind would make it take the index as damaged (as 1.6's CPU load frame did).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "formats/elastic.h"

#define PREFIX "elastic_"
#define PREFIX_LEN (sizeof(PREFIX) - 1)

enum { M_GROUP_COMMIT = 1, M_ABSORB = 2, M_SPLIT = 4, M_COMMIT_LOCK = 8, M_WBT = 16 };

/* Per op, the counts by the names the replay's JSON gives them. */
static const char *const col_names[] = {"trace",    "issued", "coalesced",
					"absorbed", "split",  "followed"};
#define NCOLS (sizeof(col_names) / sizeof(col_names[0]))
static const char *const scalar_names[] = {"flushes",	     "flushes_kept_redundant",
					   "split_grounded", "lock_waits",
					   "lock_kept",	     "lock_broken",
					   "merged_bytes",   "wbt_throttled",
					   "wbt_held",	     "wbt_held_ns",
					   "wbt_windows",    "wbt_exceeded"};
#define NSCALARS (sizeof(scalar_names) / sizeof(scalar_names[0]))

static uint64_t *col(struct trace_elastic *e, size_t c, unsigned int op)
{
	uint64_t *cols[NCOLS] = {e->trace,    e->issued, e->coalesced,
				 e->absorbed, e->split,	 e->followed};

	return &cols[c][op];
}

static uint64_t *scalar(struct trace_elastic *e, size_t i)
{
	uint64_t *v[NSCALARS] = {&e->flushes,	   &e->redundant,     &e->grounded,
				 &e->lock_waits,   &e->lock_kept,     &e->lock_broken,
				 &e->merged_bytes, &e->wbt_throttled, &e->wbt_held,
				 &e->wbt_held_ns,  &e->wbt_windows,   &e->wbt_exceeded};

	return v[i];
}

/* The same two, to read: one list of fields each, so a field added to one is in both (the
 * writer only reads through them, so the const is not written through). */
static uint64_t colv(const struct trace_elastic *e, size_t c, unsigned int op)
{
	return *col((struct trace_elastic *)e, c, op);
}

static uint64_t scalarv(const struct trace_elastic *e, size_t i)
{
	return *scalar((struct trace_elastic *)e, i);
}

static const char *op_name(const struct trace_elastic *e, unsigned int op)
{
	return e->file_level ? io_fop_name(op) : io_op_name(op);
}

bool trace_elastic_any(const struct trace_elastic *e)
{
	return e->group_commit || e->absorb || e->splits || e->commit_lock || e->wbt;
}

int trace_writer__set_elastic(struct trace_writer *w, const struct trace_elastic *e)
{
	/* every op's six counts and the scalars fit: 32 x 6 + 7 < TRACE_MAX_COUNTERS */
	char names[TRACE_MAX_COUNTERS][TRACE_COUNTER_NAME_MAX];
	struct trace_counter c[TRACE_MAX_COUNTERS];
	size_t n = 0;

	_Static_assert(TRACE_EL_OPS * NCOLS + NSCALARS + 1 <= TRACE_MAX_COUNTERS,
		       "the elastic counters must fit one counters frame");
	snprintf(names[n], sizeof(names[n]), PREFIX "models");
	c[n++] = (struct trace_counter){
	    names[0], (e->group_commit ? M_GROUP_COMMIT : 0) | (e->absorb ? M_ABSORB : 0) |
			  (e->splits ? M_SPLIT : 0) | (e->commit_lock ? M_COMMIT_LOCK : 0) |
			  (e->wbt ? M_WBT : 0)};
	for (size_t i = 0; i < NSCALARS; i++) {
		snprintf(names[n], sizeof(names[n]), PREFIX "%s", scalar_names[i]);
		c[n] = (struct trace_counter){names[n], scalarv(e, i)};
		n++;
	}
	/* per op only the counts that are not 0: a reader takes an absent one as 0 */
	for (unsigned int op = 0; op < TRACE_EL_OPS; op++) {
		for (size_t k = 0; k < NCOLS && strcmp(op_name(e, op), "?"); k++) {
			if (!colv(e, k, op))
				continue;
			snprintf(names[n], sizeof(names[n]), PREFIX "%s_%s", op_name(e, op),
				 col_names[k]);
			c[n] = (struct trace_counter){names[n], colv(e, k, op)};
			n++;
		}
	}
	return trace_writer__set_counters(w, c, n);
}

/* name (after the prefix) as "OP_COUNT": the op's count, or NULL (a newer writer's name). */
static uint64_t *op_count(struct trace_elastic *e, const char *name)
{
	const char *us = strrchr(name, '_');

	if (!us)
		return NULL;
	for (size_t k = 0; k < NCOLS; k++) {
		if (strcmp(us + 1, col_names[k]))
			continue;
		for (unsigned int op = 0; op < TRACE_EL_OPS; op++) {
			const char *on = op_name(e, op);

			if (strcmp(on, "?") && strlen(on) == (size_t)(us - name) &&
			    !strncmp(name, on, us - name))
				return col(e, k, op);
		}
	}
	return NULL;
}

bool trace_reader__elastic(const struct trace_reader *r, struct trace_elastic *e)
{
	bool found = false;

	*e = (struct trace_elastic){.file_level = trace_reader__meta(r)->level == TRACE_LEVEL_FILE};
	for (size_t i = 0; i < trace_reader__counter_count(r); i++) {
		const struct trace_counter *c = trace_reader__counter(r, i);
		const char *name = c->name + PREFIX_LEN;
		uint64_t *v = NULL;

		if (strncmp(c->name, PREFIX, PREFIX_LEN))
			continue;
		if (!strcmp(name, "models")) {
			found = true;
			e->group_commit = c->value & M_GROUP_COMMIT;
			e->absorb = c->value & M_ABSORB;
			e->splits = c->value & M_SPLIT;
			e->commit_lock = c->value & M_COMMIT_LOCK;
			e->wbt = c->value & M_WBT;
			continue;
		}
		for (size_t k = 0; k < NSCALARS && !v; k++)
			if (!strcmp(name, scalar_names[k]))
				v = scalar(e, k);
		if (!v)
			v = op_count(e, name);
		if (v)
			*v = c->value;
	}
	if (!found)
		*e = (struct trace_elastic){0};
	return found;
}

/* The ops dep_report.c shows: any the models changed, and the reads, writes and flushes. */
static bool shown(const struct trace_elastic *e, unsigned int op)
{
	return e->coalesced[op] || e->absorbed[op] || e->split[op] || e->followed[op] ||
	       (e->trace[op] && (op <= 2 || (e->file_level && op <= 4)));
}

static double share(const struct trace_elastic *e, unsigned int op)
{
	return e->trace[op] ? (double)e->issued[op] / (double)e->trace[op] : 0.0;
}

void trace_elastic_print(const struct trace_elastic *e, FILE *f)
{
	fprintf(f,
		"group commit %s, absorbed writes %s, split flushes %s, commit lock %s, writeback "
		"throttle %s\n",
		e->group_commit ? "on" : "off", e->absorb ? "on" : "off", e->splits ? "on" : "off",
		e->commit_lock ? "on" : "off", e->wbt ? "on" : "off");
	fprintf(f, "    %-15s %10s %10s %10s %10s %8s %9s %13s\n", "op", "in trace", "issued",
		"coalesced", "absorbed", "split", "followed", "issued/trace");
	for (unsigned int op = 0; op < TRACE_EL_OPS; op++) {
		if (!shown(e, op))
			continue;
		fprintf(f, "    %-15s %10llu %10llu %10llu %10llu %8llu %9llu %13.3f\n",
			op_name(e, op), (unsigned long long)e->trace[op],
			(unsigned long long)e->issued[op], (unsigned long long)e->coalesced[op],
			(unsigned long long)e->absorbed[op], (unsigned long long)e->split[op],
			(unsigned long long)e->followed[op], share(e, op));
	}
	if (e->group_commit)
		fprintf(f,
			"    group commit: %llu of %llu flushes kept (the recording issued them "
			"under another thread's covering one)\n",
			(unsigned long long)e->redundant, (unsigned long long)e->flushes);
	if (e->splits)
		fprintf(f,
			"    split flushes: %llu I/Os waited in the recording on another thread's "
			"flush for their writes\n",
			(unsigned long long)e->grounded);
	if (e->commit_lock)
		fprintf(f,
			"    commit lock: %llu lock waits (%llu led their own: lock kept), %llu "
			"merged bytes, %llu lock broken\n",
			(unsigned long long)e->lock_waits, (unsigned long long)e->lock_kept,
			(unsigned long long)e->merged_bytes, (unsigned long long)e->lock_broken);
	if (e->wbt)
		fprintf(f,
			"    writeback throttle: %llu of %llu writeback writes waited for it, "
			"%.3f s in all; %llu of %llu windows over the latency aimed at\n",
			(unsigned long long)e->wbt_held, (unsigned long long)e->wbt_throttled,
			(double)e->wbt_held_ns / 1e9, (unsigned long long)e->wbt_exceeded,
			(unsigned long long)e->wbt_windows);
}

void trace_elastic_json(const struct trace_elastic *e, FILE *f)
{
	bool first = true;

	fprintf(f,
		"{\"group_commit\": %s, \"absorb\": %s, \"split\": %s, \"commit_lock\": %s, "
		"\"wbt\": %s",
		e->group_commit ? "true" : "false", e->absorb ? "true" : "false",
		e->splits ? "true" : "false", e->commit_lock ? "true" : "false",
		e->wbt ? "true" : "false");
	for (size_t i = 0; i < NSCALARS; i++)
		fprintf(f, ", \"%s\": %llu", scalar_names[i], (unsigned long long)scalarv(e, i));
	fprintf(f, ", \"ops\": {");
	for (unsigned int op = 0; op < TRACE_EL_OPS; op++) {
		if (!shown(e, op))
			continue;
		fprintf(f, "%s\"%s\": {", first ? "" : ", ", op_name(e, op));
		for (size_t k = 0; k < NCOLS; k++)
			fprintf(f, "%s\"%s\": %llu", k ? ", " : "", col_names[k],
				(unsigned long long)colv(e, k, op));
		fprintf(f, ", \"issued_share\": %.6f}", share(e, op));
		first = false;
	}
	fprintf(f, "}}");
}
