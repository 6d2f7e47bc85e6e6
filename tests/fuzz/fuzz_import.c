// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for every importer: the first byte picks the format, the rest is the file.
 * Then the events go through the exporters too, so the text writers see hostile names/comms.
 */
#include "tests/fuzz/import_sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum conv_fmt fmts[] = { CONV_FIO, CONV_BLKTRACE, CONV_MSR, CONV_ALIBABA,
					      CONV_CSV };
	static const enum conv_fmt outs[] = { CONV_FIO3, CONV_CSV, CONV_JSON };
	struct import_ctx c;

	if (size < 1)
		return 0;
	memset(&c, 0, sizeof(c));
	c.salvage = data[0] & 0x80;
	/* bits 5-6: the unit of CSV times whose names say none (none: refused), as --time-unit */
	static const enum csv_unit units[] = { CSVU_NONE, CSVU_US, CSVU_MS, CSVU_S };
	struct csv_opts csv = { .time_unit = units[(data[0] >> 5) & 3], .sector_size = 512 };
	c.csv = &csv;
	(void)import_to_null(fmts[data[0] % 5], outs[(data[0] >> 3) % 3], data + 1, size - 1, &c);
	return 0;
}
