/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared by the fuzz targets that import text (fuzz_import.c, fuzz_csvcols.c): included by
 * each target, never built alone (the Makefile builds tests/fuzz/fuzz_*.c).
 */
#ifndef IOREEL_TESTS_FUZZ_IMPORT_SINK_H
#define IOREEL_TESTS_FUZZ_IMPORT_SINK_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "formats/convert.h"

static struct trace_meta sink_meta;
static struct export_ctx sink_x;

static int sink_export(void *arg, const struct io_event *ev, size_t n)
{
	(void)arg;
	return export_events(&sink_x, ev, n);
}

/*
 * Imports p[0..n) as fmt through an import window into the out exporter writing /dev/null, so
 * the text writers see hostile names and comms too. c is set up by the caller but for meta and
 * win. The importer's result, or -ENOMEM when the fuzzer's own plumbing failed (c->err says so).
 */
static int import_to_null(enum conv_fmt fmt, enum conv_fmt out_fmt, const uint8_t *p, size_t n,
			  struct import_ctx *c)
{
	struct import_window w;
	FILE *f = fmemopen((void *)p, n, "r");
	FILE *out = fopen("/dev/null", "w");
	int err = -ENOMEM;

	memset(&sink_meta, 0, sizeof(sink_meta));
	c->meta = &sink_meta;
	c->win = &w;
	snprintf(c->err, sizeof(c->err), "fuzzer: no memory for its streams");
	if (!f || !out || import_window_init(&w, 16, import_is_absolute(fmt), sink_export, NULL))
		goto out;
	/* devices are added while importing; the exporter reads meta by pointer */
	if (export_begin(&sink_x, out, out_fmt, &sink_meta) == 0) {
		c->err[0] = '\0';
		err = import_run(fmt, f, c);
		if (!err)
			import_window_drain(&w);
		export_end(&sink_x);
	}
	import_window_free(&w);
out:
	if (f)
		fclose(f);
	if (out)
		fclose(out);
	return err;
}

#endif
