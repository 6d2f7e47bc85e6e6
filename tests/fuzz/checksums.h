/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared by the fuzz targets that take whole .ioreel files (fuzz_reader.c, fuzz_replay.c,
 * fuzz_info.c):
 * included by each target, never built alone (the Makefile builds tests/fuzz/fuzz_*.c).
 */
#ifndef IOREEL_TESTS_FUZZ_CHECKSUMS_H
#define IOREEL_TESTS_FUZZ_CHECKSUMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <zlib.h>
#include "formats/codec.h"
#include "formats/trace.h"

/* The file each input is written to: a memfd named name, its path (/proc/self/fd/N) in path.
 * -1 where memfd_create fails. */
static int fuzz_memfd(const char *name, char path[64])
{
	int fd = memfd_create(name, 0);

	if (fd >= 0)
		snprintf(path, 64, "/proc/self/fd/%d", fd);
	return fd;
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

#endif
