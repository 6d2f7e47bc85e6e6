// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What `info` prints of a trace's drops at either level (info.c, info_file.c call it). */
#include <stdio.h>
#include <string.h>
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
