// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for the CSV importer's column mapping (`ioreel convert --from csv
 * --columns NAME=FIELD,... --time-unit U --sector-size N`): the spec and the CSV are fuzzed
 * together, so names the spec gives meet the header's names, synonyms and units.
 * Byte 0 is the options: bits 0-4 the sector size's power of two (above 20: not given, 512),
 * bits 5-6 --time-unit (none, ns, us, s), bit 7 --salvage. Then one line, the --columns spec
 * (empty: not given), checked by csv_columns_check_spec as convert does before reading any
 * file; the rest is the CSV, imported and exported as CSV (fuzz_import covers the others).
 * A refusal must say why: an error with an empty message aborts.
 * Built and run by `make fuzz`. Seeds: tests/fuzz/corpus/fuzz_csvcols/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/fuzz/import_sink.h"

static void must_say(const char *stage, int err, const char *why)
{
	if (err && !why[0]) {
		fprintf(stderr, "fuzz_csvcols: %s refused (%d) without saying why\n", stage, err);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum csv_unit units[] = { CSVU_NONE, CSVU_NS, CSVU_US, CSVU_S };
	struct csv_opts csv = { 0 };
	struct import_ctx c;
	const uint8_t *nl, *body;
	char spec[1024];
	size_t slen;

	if (size < 1)
		return 0;
	nl = memchr(data + 1, '\n', size - 1);
	slen = nl ? (size_t)(nl - data - 1) : size - 1;
	/* an option longer than this is not the case to study; the CSV is */
	if (slen >= sizeof(spec))
		return 0;
	memcpy(spec, data + 1, slen);
	spec[slen] = '\0';
	if (slen && strlen(spec) == slen) {
		char why[1280] = "";
		int err = csv_columns_check_spec(spec, why, sizeof(why));

		must_say("csv_columns_check_spec", err, why);
		if (err)
			return 0;
		csv.columns = spec;
	}
	csv.time_unit = units[(data[0] >> 5) & 3];
	csv.sector_size = (data[0] & 31) <= 20 ? 1u << (data[0] & 31) : 0;
	memset(&c, 0, sizeof(c));
	c.salvage = data[0] & 0x80;
	c.csv = &csv;
	body = nl ? nl + 1 : data + size;
	must_say("import_csv", import_to_null(CONV_CSV, CONV_CSV, body, size - (size_t)(body - data),
					      &c), c.err);
	return 0;
}
