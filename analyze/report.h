/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Reports over several traces: the verb's side of analyze.h (comparison, HTML, JSON document). */
#ifndef IOREEL_ANALYZE_REPORT_H
#define IOREEL_ANALYZE_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "analyze/analyze.h"

/* One JSON document for n traces (jobs of all of them); compare adds the "compare" member. */
void an_json_doc(const struct analysis *const *as, unsigned int n, FILE *f, const char *extra,
		 bool compare);
/* The "compare": {...} member (no braces around it). */
void an_json_compare(const struct analysis *const *as, unsigned int n, FILE *f);
/* The side-by-side table, ratios against as[0]. */
void an_text_compare(const struct analysis *const *as, unsigned int n, FILE *f);
/* The self-contained HTML page with inline SVG charts. 0 or -errno (write error). */
int an_html(const struct analysis *const *as, unsigned int n, FILE *f);

#endif
