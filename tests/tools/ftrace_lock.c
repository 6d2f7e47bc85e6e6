// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Writes a file-level trace of three threads committing through one log under a lock, with
 * exact times, for the commit lock's choice between following and leading (replay/dep/
 * dep_lock.c; tests/integration/replay_commit_lock.sh). Times in microseconds:
 *
 *   A  write log 1000-1010, fdatasync log 1020-11000       (its group spans 10 ms)
 *   B  read data 1000-60000, write log 60050-60060, fdatasync 60070-70000
 *   C  "drift":  read data 1000-75000, write log 75050-75060, fdatasync 75070-85000
 *      "late":   read data 1000-1100, write log 75050-75060, fdatasync 75070-85000
 *
 * Replayed onto the null engine with fast reads and slow syncs (100 ms), A holds the log's
 * lock for as long as its sync takes. B's read, slow in the recording, is fast there, so B
 * comes to the lock (about 1 ms in) long before A would have let it go at the recorded pace
 * (11 ms): it waits and leads the next group. In "drift", C's read was slow too and C comes
 * as early: it also came before A's recorded end, so it leads its own group after B's
 * (lock_kept 1, nothing followed). In "late", C thought 74 ms after a fast read (replay it
 * with --dep-think-max above that) and comes after A's recorded end, while A still holds:
 * it follows B (its write and fdatasync not issued). Each margin is 10 ms or more.
 *
 * usage: ftrace_lock OUT.ioreel drift|late
 */
#include <stdio.h>
#include <string.h>
#include "formats/trace.h"
#include "ftrace_util.h"

#define PID 4343
#define US 1000ULL
#define LOG 1
#define DATA 2

static int add(struct trace_writer *w, uint64_t q, uint64_t c, uint32_t tid, uint8_t op,
	       uint32_t file, uint64_t off, uint32_t len)
{
	struct io_event e = { .queue_ns = q * US,
			      .issue_ns = IO_TS_NONE,
			      .complete_ns = c * US,
			      .pid = PID,
			      .tid = tid,
			      .op = op,
			      .offset = off,
			      .length = len,
			      .comm = "committer" };
	struct io_fext x = { .file = file,
			     .fd = (int32_t)(10 + file),
			     .oflags = X86_O_RDWR,
			     .iface = IO_FIF_SYSCALL,
			     .result = len };

	if (op == IO_FOP_OPEN) {
		x.fd = -100;
		x.result = 10 + file;
		x.iface = IO_FIF_START;
	}
	return trace_writer__add_fevents(w, &e, &x, 1);
}

int main(int argc, char **argv)
{
	struct trace_file files[2] = { ftrace_file(LOG, 201, X86_O_RDWR, "/db/log"),
				       ftrace_file(DATA, 202, X86_O_RDWR, "/db/data") };
	struct trace_writer *w;
	bool late;
	int err;

	if (argc != 3 || (strcmp(argv[2], "drift") && strcmp(argv[2], "late"))) {
		fprintf(stderr, "usage: ftrace_lock OUT.ioreel drift|late\n");
		return 2;
	}
	late = !strcmp(argv[2], "late");
	w = ftrace_open("ftrace_lock", argv[1], files, 2);
	if (!w)
		return 1;
	/* in time order, as a recorder writes them (by queue time) */
	err = add(w, 0, 0, PID, IO_FOP_OPEN, LOG, 0, 0);
	err = err ?: add(w, 0, 0, PID, IO_FOP_OPEN, DATA, 0, 0);
	err = err ?: add(w, 1000, 1010, 501, IO_FOP_WRITE, LOG, 0, 4096);
	err = err ?: add(w, 1000, 60000, 502, IO_FOP_READ, DATA, 0, 4096);
	err = err ?: add(w, 1000, late ? 1100 : 75000, 503, IO_FOP_READ, DATA, 8192, 4096);
	err = err ?: add(w, 1020, 11000, 501, IO_FOP_FDATASYNC, LOG, 0, 0);
	err = err ?: add(w, 60050, 60060, 502, IO_FOP_WRITE, LOG, 4096, 4096);
	err = err ?: add(w, 60070, 70000, 502, IO_FOP_FDATASYNC, LOG, 0, 0);
	err = err ?: add(w, 75050, 75060, 503, IO_FOP_WRITE, LOG, 8192, 4096);
	err = err ?: add(w, 75070, 85000, 503, IO_FOP_FDATASYNC, LOG, 0, 0);
	return ftrace_finish("ftrace_lock", argv[1], w, 10, err);
}
