// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* An I/O the kernel refuses at submission still completes, with its error: libaio's io_submit
 * stops at the first iocb it refuses (EBADF here), and one dropped there would stay in flight for
 * the scheduler, whose drain waits for every I/O in flight (a replay that never ends). Each
 * engine is given reads on a good file, a closed descriptor and the good file again: all three
 * come back, the middle one with -EBADF. The threads engine, given a recorded thread 4294967295
 * (any u32 of a trace), starts a worker of its own for it: its table of threads took tid + 1 as
 * the key, 0 for an empty place, and starting it failed with no errno. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/check.h"
#include "replay/engine/engine.h"
#include "util/cli.h"

static void one_engine(const char *name, int good_fd, int bad_fd)
{
	const struct engine_ops *ops = engine_find(name);
	struct engine_target targets[2] = { { .fd = good_fd, .wb_fd = -1 },
					    { .fd = bad_fd, .wb_fd = -1 } };
	static char bufs[3][4096];
	struct replay_io ios[3], *done[8];
	struct engine_params p = { .targets = targets, .ntargets = 2, .depth = 8,
				   .arena = bufs, .arena_len = sizeof(bufs), .fds_change = true };
	char why[256] = "";
	struct engine *e;
	int got = 0, seen = 0;

	CHECK(ops, "engine %s not found", name);
	if (!ops)
		return;
	e = ops->init(&p, why, sizeof(why));
	CHECK(e, "%s: init: %s", name, why);
	if (!e)
		return;
	memset(ios, 0, sizeof(ios));
	for (unsigned int i = 0; i < 3; i++) {
		ios[i] = (struct replay_io){ .op = IO_OP_READ, .len = 4096, .dev = i == 1,
					     .slot = i, .pool = UINT32_MAX, .buf = bufs[i] };
		CHECK(ops->queue(e, &ios[i]) == 0, "%s: queue %u", name, i);
	}
	CHECK(ops->submit(e) >= 0, "%s: submit failed", name);
	/* each reap waits up to 1 s: a lost I/O ends the loop instead of hanging the test */
	for (int tries = 0; tries < 5 && got < 3; tries++) {
		int n = ops->reap(e, done, 8, 1000000000ULL);

		CHECK(n >= 0, "%s: reap: %s", name, strerror(n < 0 ? -n : 0));
		if (n < 0)
			break;
		for (int i = 0; i < n; i++)
			seen |= 1 << (done[i] - ios);
		got += n;
	}
	CHECK(got == 3 && seen == 7, "%s: %d of 3 I/Os came back (mask %x)", name, got, seen);
	CHECK(ios[0].res == 4096 && ios[2].res == 4096, "%s: good reads %d %d", name, ios[0].res,
	      ios[2].res);
	CHECK(ios[1].res == -EBADF, "%s: closed descriptor's read %d", name, ios[1].res);
	ops->exit(e);
}

static void threads_tid_max(int good_fd)
{
	const struct engine_ops *ops = engine_find("threads");
	struct engine_target target = { .fd = good_fd, .wb_fd = -1 };
	static char bufs[2][4096];
	const uint32_t tids[] = { UINT32_MAX, 7 };
	uint64_t start = now_mono_ns();
	struct engine_params p = { .targets = &target, .ntargets = 1, .depth = 8,
				   .arena = bufs, .arena_len = sizeof(bufs), .fds_change = true,
				   .start_mono = &start, .tids = tids, .ntids = 2 };
	struct engine_thread_stat st[4];
	struct replay_io ios[2], *done[4];
	char why[256] = "";
	struct engine *e;
	int got = 0;
	size_t n;

	errno = 0;
	e = ops->init(&p, why, sizeof(why));
	CHECK(e, "threads: init with tid %u: %s (errno %d)", UINT32_MAX, why, errno);
	if (!e)
		return;
	CHECK(!ops->start || ops->start(e) == 0, "threads: start with tid %u", UINT32_MAX);
	for (unsigned int i = 0; i < 2; i++) {
		ios[i] = (struct replay_io){ .op = IO_OP_READ, .len = 4096, .slot = i,
					     .pool = UINT32_MAX, .buf = bufs[i], .tid = tids[i] };
		CHECK(ops->queue(e, &ios[i]) == 0, "threads: queue %u", i);
	}
	CHECK(ops->submit(e) == 2, "threads: submit failed");
	for (int tries = 0; tries < 5 && got < 2; tries++) {
		int k = ops->reap(e, done, 4, 1000000000ULL);

		if (k < 0)
			break;
		got += k;
	}
	CHECK(got == 2, "threads: %d of 2 I/Os came back", got);
	n = ops->thread_stats(e, st, 4);
	CHECK(n == 2 && st[0].tid == UINT32_MAX && st[0].calls == 1 && st[1].tid == 7 &&
		      st[1].calls == 1,
	      "threads: %zu workers (want one for tid %u, one for 7, a call each)", n, UINT32_MAX);
	ops->exit(e);
}

int main(void)
{
	char path[] = "/tmp/ioreel-engine-errors-XXXXXX";
	static char block[16384];
	int good = mkstemp(path), bad = 900; /* not open: the engines open descriptors of their own */

	CHECK(good >= 0, "mkstemp");
	if (good < 0)
		return 1;
	unlink(path);
	CHECK(write(good, block, sizeof(block)) == (ssize_t)sizeof(block), "write");
	CHECK(fcntl(bad, F_GETFD) < 0, "descriptor %d is open", bad);
	one_engine("libaio", good, bad);
	one_engine("io_uring", good, bad);
	threads_tid_max(good);
	close(good);
	return failures ? 1 : 0;
}
