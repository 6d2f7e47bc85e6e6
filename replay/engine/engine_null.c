// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * No I/O at all: every I/O completes at once. What is left is the scheduler's own cost, so
 * `--engine null --mode afap` measures how many I/Os per second one core can schedule.
 */
#include <errno.h>
#include <stdlib.h>
#include "replay/engine/engine.h"

struct engine {
	struct replay_io **ring; /* queued, then "completed" by the next reap */
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
	e->ring = calloc(e->cap, sizeof(*e->ring));
	if (!e->ring) {
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

	(void)timeout_ns;
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
