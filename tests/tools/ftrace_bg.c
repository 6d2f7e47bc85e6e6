// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Writes a file-level trace of a background writer, as a recorder would see a database's page
 * cleaner writing through libaio: one file (64 KiB, open at start), and per round a thread of
 * its own that writes pages 0-5 (4 KiB, 1 ms apart, 1.5 ms each: two in flight), then after
 * 500 ms pages 4 and 5 again. Rounds lie 4 s apart. For tests/integration/replay_elastic.sh
 * (absorbed writes at file level).
 *
 * usage: ftrace_bg OUT.ioreel ROUNDS
 */
#include <stdio.h>
#include <stdlib.h>
#include "formats/trace.h"
#include "ftrace_util.h"

#define PID 4242
#define MS 1000000ULL

static int add(struct trace_writer *w, uint64_t q, uint64_t c, uint32_t tid, uint8_t op,
	       uint64_t off, uint8_t iface)
{
	struct io_event e = { .queue_ns = q,
			      .issue_ns = IO_TS_NONE,
			      .complete_ns = c,
			      .pid = PID,
			      .tid = tid,
			      .op = op,
			      .offset = off,
			      .comm = "cleaner" };
	struct io_fext x = { .file = 1, .fd = 11, .oflags = X86_O_RDWR, .iface = iface };

	if (op == IO_FOP_OPEN) {
		x.fd = -100;
		x.result = 11;
	} else {
		e.length = 4096;
		x.result = 4096;
	}
	return trace_writer__add_fevents(w, &e, &x, 1);
}

int main(int argc, char **argv)
{
	struct trace_file f = ftrace_file(1, 101, X86_O_RDWR, "/data/bg.dat");
	struct trace_writer *w;
	uint64_t n = 1;
	int rounds, err;

	if (argc != 3 || (rounds = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: ftrace_bg OUT.ioreel ROUNDS\n");
		return 2;
	}
	w = ftrace_open("ftrace_bg", argv[1], &f, 1);
	if (!w)
		return 1;
	err = add(w, 0, 0, PID, IO_FOP_OPEN, 0, IO_FIF_START);
	for (int k = 0; k < rounds && !err; k++) {
		uint64_t t = MS + (uint64_t)k * 4000 * MS;

		for (int i = 0; i < 6 && !err; i++, n++)
			err = add(w, t + i * MS, t + i * MS + 3 * MS / 2, 500 + k, IO_FOP_WRITE,
				  (uint64_t)i * 4096, IO_FIF_AIO);
		for (int i = 4; i < 6 && !err; i++, n++)
			err = add(w, t + 500 * MS + i * MS, t + 500 * MS + i * MS + 3 * MS / 2,
				  500 + k, IO_FOP_WRITE, (uint64_t)i * 4096, IO_FIF_AIO);
	}
	return ftrace_finish("ftrace_bg", argv[1], w, n, err);
}
