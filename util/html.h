/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* HTML output: one escaper for every report (analyze --html, study's report). */
#ifndef IOREEL_UTIL_HTML_H
#define IOREEL_UTIL_HTML_H

#include <stdio.h>

/*
 * s as HTML text or a quoted attribute value: & < > " and ' escaped. Everything that came from
 * a file or a name (trace and device names, paths, plans) goes through it: text, attributes,
 * SVG <title> and <text>.
 */
void html_esc(FILE *f, const char *s);

#endif
