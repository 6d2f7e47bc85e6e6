/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The frame the ftrace_* tools put around their crafted file-level traces: the file-table
 * entry they all describe, the writer's open with its table, and the end (abandoned or closed)
 * with the messages that say which file. Static functions in a header because the Makefile
 * makes a program of every tests/tools/X.c: a helper .c beside them would be taken for a tool.
 */
#ifndef IOREEL_TESTS_TOOLS_FTRACE_UTIL_H
#define IOREEL_TESTS_TOOLS_FTRACE_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "formats/trace.h"

/* O_RDWR as the recorder stores it: the x86 value, whatever the host building the tools. */
#define X86_O_RDWR 02

/* A file open when the recording started, as a recorder would list it: 64 KiB, dense, ext4. */
static inline struct trace_file ftrace_file(uint32_t id, uint64_t ino, uint32_t oflags,
					    const char *path)
{
	struct trace_file f = {.id = id,
			       .origin = TRACE_FILE_AT_START,
			       .dev_major = 7,
			       .ino = ino,
			       .mode = 0100644,
			       .size = 65536,
			       .alloc = 65536,
			       .oflags = oflags,
			       .fs = "ext4",
			       .path = path};

	return f;
}

/*
 * Ends the trace out: after a failed add (err) it is abandoned with the writer's message, else
 * closed with events as its count. Returns the tool's exit status.
 */
static inline int ftrace_finish(const char *tool, const char *out, struct trace_writer *w,
				uint64_t events, int err)
{
	if (err) {
		fprintf(stderr, "%s: %s\n", tool, trace_writer__error(w));
		trace_writer__abort(w);
		return 1;
	}
	err = trace_writer__close(w, &(struct trace_stats){.events = events});
	if (err)
		fprintf(stderr, "%s: closing %s: %s\n", tool, out, strerror(-err));
	return err ? 1 : 0;
}

/*
 * Creates out as a file-level trace from a recorder and adds the n files (none: the caller adds
 * them). NULL once the failure is printed; the tool then exits 1.
 */
static inline struct trace_writer *ftrace_open(const char *tool, const char *out,
					       const struct trace_file *files, size_t n)
{
	struct trace_writer *w;
	struct trace_meta m;
	int err;

	trace_meta_init(&m, "record");
	m.level = TRACE_LEVEL_FILE;
	w = trace_writer__open(out, &m, NULL);
	if (!w) {
		fprintf(stderr, "%s: cannot create %s: %s\n", tool, out, strerror(errno));
		return NULL;
	}
	err = trace_writer__add_files(w, files, n);
	if (err) {
		ftrace_finish(tool, out, w, 0, err);
		return NULL;
	}
	return w;
}

#endif
