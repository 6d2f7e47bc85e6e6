// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Writes a small file-level trace naming the paths it is given, as a recorder would for a
 * process that held them open when the recording started: for each path a file-table entry
 * (64 KiB, dense), then an open at start, a 4 KiB pwrite at offset 0, an fsync and a close.
 * tests/integration/replay_file_escape.sh uses it for paths no recorder would write ("..",
 * relative) or that point outside --root, to check that replay refuses them.
 *
 * usage: ftrace_craft OUT.ioreel PATH...
 */
#include <stdio.h>
#include "formats/trace.h"
#include "ftrace_util.h"

static int add(struct trace_writer *w, uint64_t t, uint8_t op, uint32_t id, int64_t result,
	       uint8_t iface)
{
	struct io_event e = {.queue_ns = t,
			     .issue_ns = IO_TS_NONE,
			     .complete_ns = t + 1000,
			     .pid = 4242,
			     .tid = 4242,
			     .op = op,
			     .comm = "crafted"};
	struct io_fext x = {.file = id,
			    .fd = (int32_t)(10 + id),
			    .oflags = X86_O_RDWR,
			    .result = result,
			    .iface = iface};

	if (op == IO_FOP_OPEN) {
		x.fd = -100;
		x.result = 10 + id;
		if (iface == IO_FIF_START)
			e.queue_ns = 0;
	}
	if (op == IO_FOP_WRITE)
		e.length = 4096;
	return trace_writer__add_fevents(w, &e, &x, 1);
}

int main(int argc, char **argv)
{
	struct trace_writer *w;
	uint64_t t = 1000000;
	int err = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: ftrace_craft OUT.ioreel PATH...\n");
		return 2;
	}
	w = ftrace_open("ftrace_craft", argv[1], NULL, 0);
	if (!w)
		return 1;
	/* added here one at a time: an array for ftrace_open would be an allocation sized by argv,
	 * and a failure to handle, for nothing */
	for (int i = 2; i < argc && !err; i++) {
		struct trace_file f =
		    ftrace_file((uint32_t)(i - 1), (uint64_t)(100 + i), X86_O_RDWR, argv[i]);

		err = trace_writer__add_files(w, &f, 1);
	}
	for (int i = 2; i < argc && !err; i++) {
		uint32_t id = (uint32_t)(i - 1);

		err = add(w, 0, IO_FOP_OPEN, id, 0, IO_FIF_START);
		err = err ?: add(w, t += 1000, IO_FOP_WRITE, id, 4096, IO_FIF_SYSCALL);
		err = err ?: add(w, t += 1000, IO_FOP_FSYNC, id, 0, IO_FIF_SYSCALL);
		err = err ?: add(w, t += 1000, IO_FOP_CLOSE, id, 0, IO_FIF_SYSCALL);
	}
	return ftrace_finish("ftrace_craft", argv[1], w, 4 * (uint64_t)(argc - 2), err);
}
