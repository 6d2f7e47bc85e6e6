// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * No I/O at all: every I/O completes at once. What is left is the scheduler's own cost, so
 * `--engine null --mode afap` measures how many I/Os per second one core can schedule.
 *
 * With a latency (--null-latency, engine_params.lat_ns and flush_lat_ns) every I/O completes
 * that long after it was queued, flushes and syncs after their own: a target slowed by an
 * exactly known amount, which tests of dep mode's elastic models need (a loop device under
 * blk-throttle is slowed only roughly, and its flushes not apart from its writes).
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include "replay/engine/engine.h"
#include "util/cli.h"

struct engine {
	struct replay_io **q; /* queued, then "completed" by a reap once due */
	uint64_t *due;	      /* per entry: CLOCK_MONOTONIC ns it completes at (0: at once) */
	uint64_t lat, flush_lat;
	unsigned int cap, n;
};

static struct engine *null_init(const struct engine_params *p, char *why, size_t why_len)
{
	struct engine *e = calloc(1, sizeof(*e));

	(void)why;
	(void)why_len;
	if (!e)
		return NULL;
	e->cap = p->depth + 1;
	e->lat = p->lat_ns;
	e->flush_lat = p->flush_lat_ns ? p->flush_lat_ns : p->lat_ns;
	e->q = calloc(e->cap, sizeof(*e->q));
	e->due = calloc(e->cap, sizeof(*e->due));
	if (!e->q || !e->due) {
		free(e->q);
		free(e->due);
		free(e);
		errno = ENOMEM;
		return NULL;
	}
	return e;
}

static bool is_sync(const struct replay_io *io)
{
	return io->op == IO_OP_FLUSH || io->op == ENGINE_OP_FSYNC ||
	       io->op == ENGINE_OP_SYNC_RANGE;
}

static int null_queue(struct engine *e, struct replay_io *io)
{
	uint64_t lat = is_sync(io) ? e->flush_lat : e->lat;

	if (e->n == e->cap)
		return -EBUSY;
	e->q[e->n] = io;
	e->due[e->n++] = lat ? now_mono_ns() + lat : 0;
	return 0;
}

static int null_submit(struct engine *e)
{
	(void)e;
	return 0;
}

static int null_reap(struct engine *e, struct replay_io **done, unsigned int max,
		     uint64_t timeout_ns)
{
	unsigned int n = 0, i = 0;
	uint64_t now = e->lat || e->flush_lat ? now_mono_ns() : 0;

	if (now && e->n && timeout_ns) {
		uint64_t first = UINT64_MAX;

		for (unsigned int k = 0; k < e->n; k++)
			if (e->due[k] < first)
				first = e->due[k];
		/* wait for the first due, as for a kernel's completion; a signal ends the wait
		 * (the caller looks at Ctrl-C between its waits) */
		if (first > now) {
			uint64_t until = first < now + timeout_ns ? first : now + timeout_ns;
			struct timespec ts = { (time_t)(until / 1000000000ULL),
					       (long)(until % 1000000000ULL) };

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			now = now_mono_ns();
		}
	}
	/* those due, in queue order; the rest keep theirs (one pass: afap measures this) */
	for (unsigned int k = 0; k < e->n; k++) {
		if (n < max && e->due[k] <= now) {
			e->q[k]->res = (int32_t)e->q[k]->len;
			done[n++] = e->q[k];
			continue;
		}
		e->q[i] = e->q[k];
		e->due[i++] = e->due[k];
	}
	e->n = i;
	return (int)n;
}

static void null_exit(struct engine *e)
{
	free(e->q);
	free(e->due);
	free(e);
}

const struct engine_ops engine_null_ops = {
	.name = "null",
	.moves_no_data = true,
	.init = null_init,
	.queue = null_queue,
	.submit = null_submit,
	.reap = null_reap,
	.exit = null_exit,
};
