// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for the trace header (formats/meta.c): any payload decoded strictly and
 * with salvage (the checksum then unchecked, so every field's parser is reached), and every
 * header that decodes must survive a round trip: encoded again and decoded, it gives the same
 * meta, within the ranges the reader enforces. The payload's crc is fixed up half of the time
 * so that mutations get past the checksum in strict mode too.
 * Built and run by `make fuzz` (seeds: tests/fuzz/corpus/fuzz_header/, headers of real traces).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "formats/codec.h"
#include "formats/trace.h"

static struct trace_meta a, b;

static void roundtrip(const struct trace_meta *m)
{
	const char *what;
	size_t len;
	uint8_t *p = meta_encode(m, &len);

	if (!p)
		abort();
	if (meta_decode(p + 8, len - 8, &b, false, &what) || !b.header_checked)
		abort(); /* what we write, we read */
	if (b.ndevices != m->ndevices || b.nstreams != m->nstreams || b.mode != m->mode ||
	    b.level != m->level || b.runtime_ns != m->runtime_ns)
		abort();
	for (uint32_t i = 0; i < b.ndevices; i++) {
		const struct trace_device *x = &b.devices[i], *y = &m->devices[i];

		/* strings compare as strings: a NUL inside a field ends it (bytes after differ) */
		if (x->size_bytes != y->size_bytes || x->major != y->major ||
		    x->logical_block_size != y->logical_block_size ||
		    x->physical_block_size != y->physical_block_size ||
		    strcmp(x->name, y->name) || strcmp(x->model, y->model))
			abort();
	}
	for (uint32_t i = 0; i < b.nstreams; i++)
		if (b.streams[i].depth > TRACE_MAX_STREAM_DEPTH ||
		    b.streams[i].depth != m->streams[i].depth)
			abort();
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *what;
	uint8_t *copy;

	if (size > TRACE_MAX_HEADER)
		return 0;
	/* a seed is a whole trace file: take its header frame's payload */
	if (size >= 8 && get_u32(data) == TRACE_SKIP_MAGIC_HEADER && get_u32(data + 4) <= size - 8) {
		size = get_u32(data + 4);
		data += 8;
	}
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (meta_decode(copy, size, &a, false, &what) == 0)
		roundtrip(&a);
	if (meta_decode(copy, size, &a, true, &what) >= 0)
		roundtrip(&a);
	if (size >= 18 && get_u16(copy + size - 10) == 13 && get_u32(copy + size - 8) == 4) {
		put_u32(copy + size - 4, crc32(0, copy, size - 10));
		if (meta_decode(copy, size, &a, false, &what) == 0)
			roundtrip(&a);
	}
	free(copy);
	return 0;
}
