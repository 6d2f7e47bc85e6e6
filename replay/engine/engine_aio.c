// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Linux native AIO (libaio), as btreplay and hfplayer use it: one io_submit per batch, reaped
 * with io_getevents, whose zero-timeout form libaio answers from the user-mapped ring without a
 * syscall when nothing completed. AIO has no discard or write-zeroes (nor sync_file_range or
 * fallocate): those run synchronously (BLKDISCARD/BLKZEROOUT/fallocate) and hold the scheduler
 * while they do. Descriptors are read at each I/O, so a file-level replay's may change.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/uio.h>
#include <libaio.h>
/* libaio.h has its own struct io_event: ours is renamed here, where only IO_OP_* is needed */
#define io_event ioreel_io_event
#include "formats/file.h"
#include "formats/event.h"
#undef io_event
#include "replay/engine/engine.h"

struct engine {
	io_context_t ctx;
	const struct engine_target *targets;
	unsigned int depth;
	struct iocb *iocbs;	/* one per slot */
	struct iocb **pending;	/* queued, not yet submitted */
	unsigned int npending;
	struct io_event *events;
	struct replay_io **sync_done;
	unsigned int nsync;
};

static struct engine *aio_init(const struct engine_params *p, char *why, size_t why_len)
{
	struct engine *e = calloc(1, sizeof(*e));
	int ret;

	if (!e)
		return NULL;
	e->targets = p->targets;
	e->depth = p->depth;
	e->iocbs = calloc(p->depth, sizeof(*e->iocbs));
	e->pending = calloc(p->depth, sizeof(*e->pending));
	e->events = calloc(p->depth, sizeof(*e->events));
	e->sync_done = calloc(p->depth, sizeof(*e->sync_done));
	if (!e->iocbs || !e->pending || !e->events || !e->sync_done) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = io_setup((int)p->depth, &e->ctx);
	if (ret < 0) {
		snprintf(why, why_len,
			 "io_setup(%u): %s (raise /proc/sys/fs/aio-max-nr or lower the depth)",
			 p->depth, strerror(-ret));
		goto fail;
	}
	return e;
fail:
	free(e->iocbs);
	free(e->pending);
	free(e->events);
	free(e->sync_done);
	free(e);
	errno = -ret;
	return NULL;
}

static int aio_queue(struct engine *e, struct replay_io *io)
{
	const struct engine_target *t = &e->targets[io->dev];
	struct iocb *cb = &e->iocbs[io->slot];

	switch (io->op) {
	case IO_OP_READ:
		io_prep_pread(cb, t->fd, io->buf, io->len, (long long)io->offset);
		break;
	case IO_OP_WRITE:
		io_prep_pwrite(cb, t->fd, io->buf, io->len, (long long)io->offset);
		cb->aio_rw_flags = engine_rw_flags(io);
		break;
	case IO_OP_FLUSH:
		io_prep_fdsync(cb, t->fd);
		break;
	case ENGINE_OP_FSYNC:
		io_prep_fsync(cb, t->fd);
		break;
	default:
		io->res = engine_exec_sync(t, io);
		e->sync_done[e->nsync++] = io;
		return 0;
	}
	cb->data = io;
	e->pending[e->npending++] = cb;
	return 0;
}

static int aio_submit(struct engine *e)
{
	unsigned int done = 0;

	while (done < e->npending) {
		int ret = io_submit(e->ctx, (long)(e->npending - done), e->pending + done);

		if (ret == -EINTR)
			continue;
		if (ret == -EAGAIN) {
			/* the context has no room until completions are reaped: the rest wait
			 * for the next reap (aio_reap submits them first), as io_uring's SQEs
			 * do; retried here at once, it would spin for as long as none is reaped */
			memmove(e->pending, e->pending + done,
				(e->npending - done) * sizeof(*e->pending));
			e->npending -= done;
			return (int)done;
		}
		if (ret < 0) {
			/* io_submit refuses the first iocb it cannot take (EINVAL, EBADF...) and
			 * returns how many went before it: that one completes now with its error,
			 * as io_uring would give it in its CQE, and the rest are submitted. Dropped
			 * instead, it would stay in flight for the scheduler, which waits for it. */
			struct replay_io *io = e->pending[done]->data;

			io->res = ret;
			e->sync_done[e->nsync++] = io;
			ret = 1;
		}
		done += (unsigned int)ret;
	}
	e->npending = 0;
	return (int)done;
}

static int aio_reap(struct engine *e, struct replay_io **done, unsigned int max,
		    uint64_t timeout_ns)
{
	struct timespec ts = { (time_t)(timeout_ns / 1000000000ULL),
			       (long)(timeout_ns % 1000000000ULL) };
	unsigned int n = 0;
	int ret;

	if (e->npending)
		aio_submit(e); /* what io_submit had no room for (EAGAIN) */
	while (e->nsync && n < max)
		done[n++] = e->sync_done[--e->nsync];
	if (n >= max)
		return (int)n;
	if (max - n > e->depth)
		max = e->depth + n;
	ret = io_getevents(e->ctx, (n || !timeout_ns) ? 0 : 1, (long)(max - n), e->events, &ts);
	if (ret < 0 && ret != -EINTR)
		return n ? (int)n : ret;
	for (int i = 0; i < ret; i++) {
		struct replay_io *io = e->events[i].data;
		long res = (long)e->events[i].res;

		if (res >= 0 && io->op != IO_OP_READ && io->op != IO_OP_WRITE)
			res = io->len;
		io->res = (int32_t)res;
		done[n++] = io;
	}
	return (int)n;
}

static void aio_exit(struct engine *e)
{
	io_destroy(e->ctx);
	free(e->iocbs);
	free(e->pending);
	free(e->events);
	free(e->sync_done);
	free(e);
}

const struct engine_ops engine_aio_ops = {
	.name = "libaio",
	.file_iface = IO_FIF_AIO,
	.init = aio_init,
	.queue = aio_queue,
	.submit = aio_submit,
	.reap = aio_reap,
	.exit = aio_exit,
};
