// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What `info` prints of a trace's counters at either level (info.c, info_file.c call it): its
 * drops, and a dep replay's elastic models. */
#include <stdio.h>
#include <string.h>
#include "formats/elastic.h"
#include "formats/info.h"
#include "formats/trace.h"
#include "util/json.h"

void info_drop_causes(struct trace_reader *r, bool json, const char *shown)
{
	for (size_t i = 0; i < trace_reader__counter_count(r); i++) {
		const struct trace_counter *c = trace_reader__counter(r, i);

		if (strncmp(c->name, "dropped_", 8) || !strcmp(c->name, "dropped_ring") ||
		    !strcmp(c->name, shown))
			continue;
		if (json) { /* the name comes from the file: escaped like any string */
			json_str(stdout, c->name);
			printf(": %llu, ", (unsigned long long)c->value);
		}
		else
			printf(", %s %llu", c->name + 8, (unsigned long long)c->value);
	}
}

/* The counter called name, or NULL. */
static const struct trace_counter *counter(struct trace_reader *r, const char *name)
{
	for (size_t i = 0; i < trace_reader__counter_count(r); i++)
		if (!strcmp(trace_reader__counter(r, i)->name, name))
			return trace_reader__counter(r, i);
	return NULL;
}

void info_no_end(struct trace_reader *r, bool json)
{
	const struct trace_counter *u = counter(r, "ended_unseen"), *f = counter(r, "unfinished");

	if (!u && !f)
		return;
	if (json) {
		printf("\"ended_unseen\": %llu, \"unfinished\": %llu, ",
		       (unsigned long long)(u ? u->value : 0),
		       (unsigned long long)(f ? f->value : 0));
		return;
	}
	printf("  no end     %llu written without a completion time (ended unseen %llu, "
	       "unfinished %llu)\n",
	       (unsigned long long)((u ? u->value : 0) + (f ? f->value : 0)),
	       (unsigned long long)(u ? u->value : 0), (unsigned long long)(f ? f->value : 0));
}

/* A file-level recording's paths, text form (--json gives the counters as they are): the ones
 * read only at the call's return (the string's page was not in memory at entry), the ones
 * still unnamed, and those the names ring had no room for. Only where the recorder counted. */
void info_paths(struct trace_reader *r)
{
	const struct trace_counter *late = counter(r, "paths_read_at_return"),
				   *miss = counter(r, "paths_missing"), *lost = counter(r, "paths_lost");

	if (!late && !miss && !lost)
		return;
	printf("  paths      %llu read at the call's return, %llu missing, %llu lost "
	       "(record/FILE.md: not drops, the calls are kept)\n",
	       (unsigned long long)(late ? late->value : 0),
	       (unsigned long long)(miss ? miss->value : 0),
	       (unsigned long long)(lost ? lost->value : 0));
}

void info_elastic(struct trace_reader *r, bool json)
{
	struct trace_elastic e;
	bool has = trace_reader__elastic(r, &e);

	if (json) {
		printf("\"elastic\": ");
		if (has)
			trace_elastic_json(&e, stdout);
		else
			printf("null");
		printf(", ");
	} else if (has) {
		printf("  elastic    ");
		trace_elastic_print(&e, stdout);
	}
}
