// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for the .ioreel reader: any bytes, opened plain and with TRACE_SALVAGE,
 * every event read, a seek and a rewind. Must never crash, hang or allocate without bound.
 * Built and run by `make fuzz` (seeds: tests/fuzz/corpus/fuzz_reader/).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include "formats/codec.h"
#include "formats/trace.h"

static volatile size_t sink;

static void read_everything(const char *path, unsigned int flags)
{
	static struct io_event buf[300];
	static struct io_fext x[300];
	char why[256];
	struct trace_reader *r = trace_reader__open(path, flags, why, sizeof(why));
	long n;

	if (!r)
		return;
	for (size_t i = 0; i < trace_reader__chunk_count(r); i++)
		(void)trace_reader__chunk(r, i);
	/* a file-level trace: its table, counters and both halves of its events */
	for (uint32_t id = 1; id <= trace_reader__file_count(r); id++)
		sink += strlen(trace_reader__file(r, id)->path) + trace_reader__file(r, id)->nsegs;
	for (size_t i = 0; i < trace_reader__counter_count(r); i++)
		sink += strlen(trace_reader__counter(r, i)->name);
	while ((n = trace_reader__next_file(r, buf, x, 300)) > 0)
		;
	trace_reader__rewind(r);
	while ((n = trace_reader__next(r, buf, 300)) > 0)
		;
	if (trace_reader__chunk_count(r)) {
		trace_reader__seek(r, trace_reader__chunk(r, 0)->last_ns);
		(void)trace_reader__next(r, buf, 7);
	}
	trace_reader__rewind(r);
	(void)trace_reader__next(r, buf, 300);
	trace_reader__close(r);
}

/*
 * Mutations almost always break a crc32, which would keep the fuzzer out of the zstd and
 * column decoders: a second pass recomputes every checksum the bytes claim to have.
 */
static void fix_checksums(uint8_t *p, size_t size)
{
	size_t pos = 0;

	while (size - pos >= 8) {
		uint32_t magic = get_u32(p + pos), len = get_u32(p + pos + 4);

		if (len > size - pos - 8)
			return;
		if (magic == TRACE_SKIP_MAGIC_CHUNK && len == TRACE_CHUNK_HDR_SIZE) {
			uint8_t *h = p + pos + 8;
			uint32_t comp = get_u32(h + 36);

			if (comp > size - pos - 60)
				comp = size - pos - 60;
			put_u32(h + 44, crc32(0, h + 52, comp));
			put_u32(h + 48, crc32(0, h, 48));
			if (comp != get_u32(h + 36))
				return;
			pos += 60 + (size_t)comp;
			continue;
		}
		if (magic == TRACE_SKIP_MAGIC_INDEX && len >= 4 + TRACE_FOOTER_SIZE) {
			size_t body = len - 4 - TRACE_FOOTER_SIZE;

			put_u32(p + pos + 8 + body, crc32(0, p + pos + 8, body));
			return;
		}
		if ((magic == TRACE_SKIP_MAGIC_FILES || magic == TRACE_SKIP_MAGIC_COUNTERS) &&
		    len >= 16) {
			put_u32(p + pos + 8 + len - 4, crc32(0, p + pos + 8, len - 4));
			pos += 8 + (size_t)len;
			continue;
		}
		if (magic != TRACE_SKIP_MAGIC_HEADER)
			return;
		/* format 1.4: the header's last field is tag 13, a crc32 of the payload before it */
		if (len >= 18 && get_u16(p + pos + 8 + len - 10) == 13 &&
		    get_u32(p + pos + 8 + len - 8) == 4)
			put_u32(p + pos + 8 + len - 4, crc32(0, p + pos + 8, len - 10));
		pos += 8 + (size_t)len;
	}
}

static void run(int fd, const char *path, const uint8_t *data, size_t size)
{
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		return;
	read_everything(path, 0);
	read_everything(path, TRACE_SALVAGE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	uint8_t *copy;

	if (fd < 0) {
		fd = memfd_create("fuzz_reader", 0);
		if (fd < 0)
			return 0;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	run(fd, path, data, size);
	copy = malloc(size ? size : 1);
	if (copy) {
		memcpy(copy, data, size);
		fix_checksums(copy, size);
		run(fd, path, copy, size);
		free(copy);
	}
	return 0;
}
