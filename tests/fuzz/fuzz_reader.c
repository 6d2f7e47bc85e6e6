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
#include "formats/trace.h"
#include "tests/fuzz/checksums.h"

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
		fd = fuzz_memfd("fuzz_reader", path);
		if (fd < 0)
			return 0;
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
