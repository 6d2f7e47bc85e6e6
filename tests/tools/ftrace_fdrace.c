// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Writes a file-level trace of one process whose two threads reuse a descriptor number, as a
 * recorder sees them: calls ordered by their entry, so a close that entered after another
 * thread's open had entered, and freed the number that open then got, comes after it.
 *
 *   t (us)  thread 11                     thread 12
 *   1000    open(/data/a.dat) = 3
 *   1100    pread(3) on a
 *   2000                                  open(/data/b.dat) = 3, returns at 2050
 *   2010    pread(3) on a (still a's)
 *   2020    close(3)  (a's: it freed 3)
 *   2100                                  pread(3) on b
 *   2200                                  close(3)
 *   3000    open(/data/a.dat) = 5
 *   4000                                  open(/data/b.dat) = 5  (a's close was never seen)
 *   4100                                  pread(5) on b
 *   4200                                  close(5)
 *
 * Replayed, each call names its own file: 4 opens, 4 reads, 3 closes and 1 implied (the
 * missed one), no descriptor opened unseen. tests/integration/replay_file_fdrace.sh.
 *
 * usage: ftrace_fdrace OUT.ioreel
 */
#include <stdio.h>
#include "formats/trace.h"
#include "ftrace_util.h"

#define PID 4242
#define A 1 /* file ids */
#define B 2

static int add(struct trace_writer *w, uint64_t us, uint64_t took_us, uint32_t tid, uint8_t op,
	       uint32_t file, int32_t fd)
{
	struct io_event e = {.queue_ns = us * 1000,
			     .issue_ns = IO_TS_NONE,
			     .complete_ns = (us + took_us) * 1000,
			     .pid = PID,
			     .tid = tid,
			     .op = op,
			     .comm = "fdrace"};
	struct io_fext x = {.file = file, .fd = fd, .iface = IO_FIF_SYSCALL};

	if (op == IO_FOP_OPEN) {
		x.fd = -100; /* AT_FDCWD */
		x.result = fd;
	} else if (op == IO_FOP_READ) {
		e.length = 4096;
		x.result = 4096;
	}
	return trace_writer__add_fevents(w, &e, &x, 1);
}

int main(int argc, char **argv)
{
	struct trace_file files[] = {ftrace_file(A, 100 + A, 0, "/data/a.dat"),
				     ftrace_file(B, 100 + B, 0, "/data/b.dat")};
	struct trace_writer *w;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: ftrace_fdrace OUT.ioreel\n");
		return 2;
	}
	w = ftrace_open("ftrace_fdrace", argv[1], files, 2);
	if (!w)
		return 1;
	err = add(w, 1000, 10, 11, IO_FOP_OPEN, A, 3);
	err = err ?: add(w, 1100, 5, 11, IO_FOP_READ, A, 3);
	err = err ?: add(w, 2000, 50, 12, IO_FOP_OPEN, B, 3);
	err = err ?: add(w, 2010, 5, 11, IO_FOP_READ, A, 3);
	err = err ?: add(w, 2020, 5, 11, IO_FOP_CLOSE, A, 3);
	err = err ?: add(w, 2100, 5, 12, IO_FOP_READ, B, 3);
	err = err ?: add(w, 2200, 5, 12, IO_FOP_CLOSE, B, 3);
	err = err ?: add(w, 3000, 10, 11, IO_FOP_OPEN, A, 5);
	err = err ?: add(w, 4000, 10, 12, IO_FOP_OPEN, B, 5);
	err = err ?: add(w, 4100, 5, 12, IO_FOP_READ, B, 5);
	err = err ?: add(w, 4200, 5, 12, IO_FOP_CLOSE, B, 5);
	return ftrace_finish("ftrace_fdrace", argv[1], w, 11, err);
}
