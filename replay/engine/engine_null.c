// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * No I/O at all: every I/O completes at once. What is left is the scheduler's own cost, so
 * `--engine null --mode afap` measures how many I/Os per second one core can schedule.
 *
 * With a latency (--null-latency, engine_params.lat_ns) every I/O completes that long after
 * it was queued, in queue order: a target slowed by an exactly known amount, which tests of
 * dep mode's elastic models need (a loop device under blk-throttle is slowed only roughly).
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include "replay/engine/engine.h"
#include "util/cli.h"

struct engine {
	struct replay_io **ring; /* queued, then "completed" by the next reap */
	uint64_t *due;		 /* per ring entry: CLOCK_MONOTONIC ns it completes at */
	uint64_t lat;
	unsigned int cap, head, tail;
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
	e->ring = calloc(e->cap, sizeof(*e->ring));
	e->due = calloc(e->cap, sizeof(*e->due));
	if (!e->ring || !e->due) {
		free(e->ring);
		free(e->due);
		free(e);
		errno = ENOMEM;
		return NULL;
	}
	return e;
}

static int null_queue(struct engine *e, struct replay_io *io)
{
	unsigned int next = (e->tail + 1) % e->cap;

	if (next == e->head)
		return -EBUSY;
	e->ring[e->tail] = io;
	e->due[e->tail] = e->lat ? now_mono_ns() + e->lat : 0;
	e->tail = next;
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
	unsigned int n = 0;

	if (e->lat && e->head != e->tail) {
		uint64_t now = now_mono_ns();

		/* wait for the oldest, as for a kernel's completion; a signal ends the wait (the
		 * caller looks at Ctrl-C between its waits) */
		if (e->due[e->head] > now && timeout_ns) {
			uint64_t until = e->due[e->head] < now + timeout_ns ? e->due[e->head]
									  : now + timeout_ns;
			struct timespec ts = { (time_t)(until / 1000000000ULL),
					       (long)(until % 1000000000ULL) };

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
		now = now_mono_ns();
		while (n < max && e->head != e->tail && e->due[e->head] <= now) {
			struct replay_io *io = e->ring[e->head];

			io->res = (int32_t)io->len;
			done[n++] = io;
			e->head = (e->head + 1) % e->cap;
		}
		return (int)n;
	}
	while (n < max && e->head != e->tail) {
		struct replay_io *io = e->ring[e->head];

		io->res = (int32_t)io->len;
		done[n++] = io;
		e->head = (e->head + 1) % e->cap;
	}
	return (int)n;
}

static void null_exit(struct engine *e)
{
	free(e->ring);
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
