// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for every importer: the first byte picks the format, the rest is the file.
 * Then the events go through the exporters too, so the text writers see hostile names/comms.
 */
#include <stdio.h>
#include <string.h>
#include "formats/convert.h"

static struct trace_meta meta;
static struct export_ctx x;

static int to_export(void *arg, const struct io_event *ev, size_t n)
{
	(void)arg;
	return export_events(&x, ev, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum conv_fmt fmts[] = { CONV_FIO, CONV_BLKTRACE, CONV_MSR, CONV_ALIBABA,
					      CONV_CSV };
	static const enum conv_fmt outs[] = { CONV_FIO3, CONV_CSV, CONV_JSON };
	struct import_window w;
	struct import_ctx c;
	FILE *f, *out;

	if (size < 1)
		return 0;
	enum conv_fmt fmt = fmts[data[0] % 5];
	memset(&meta, 0, sizeof(meta));
	memset(&c, 0, sizeof(c));
	c.meta = &meta;
	c.win = &w;
	c.salvage = data[0] & 0x80;
	/* bits 5-6: the unit of CSV times whose names say none (none: refused), as --time-unit */
	static const enum csv_unit units[] = { CSVU_NONE, CSVU_US, CSVU_MS, CSVU_S };
	struct csv_opts csv = { .time_unit = units[(data[0] >> 5) & 3], .sector_size = 512 };
	c.csv = &csv;
	f = fmemopen((void *)(data + 1), size - 1, "r");
	out = fopen("/dev/null", "w");
	if (!f || !out || import_window_init(&w, 16, import_is_absolute(fmt), to_export, NULL))
		goto out;
	/* devices are added while importing; the exporter reads meta by pointer */
	if (export_begin(&x, out, outs[(data[0] >> 3) % 3], &meta) == 0) {
		if (!import_run(fmt, f, &c))
			import_window_drain(&w);
		export_end(&x);
	}
	import_window_free(&w);
out:
	if (f)
		fclose(f);
	if (out)
		fclose(out);
	return 0;
}
