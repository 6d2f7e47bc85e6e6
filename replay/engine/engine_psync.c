// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * psync: a pool of threads doing plain pread/pwrite, as blkreplay and most simple replayers
 * do. Useful where io_uring and AIO are unavailable (or for files on filesystems where they
 * fall back to blocking). Each worker stamps the start and the end of its call itself, so
 * neither the wake-up of a worker (50-100 us on a loaded two-core machine) nor queueing behind
 * a busy scheduler inflates the latency it reports: clat is the system call, as a recorded
 * thread's call is timed.
 *
 * At depth 1 there is nothing a worker could overlap, so there is no worker: submit makes the
 * call itself, on the scheduling thread, as fio's sync engines do at iodepth 1. A hand-off
 * costs two wake-ups (28-55 us here), which dwarfs a 2 us fallocate or ftruncate and cut fio's
 * falloc examples to a twentieth of fio's rate (bench/fio_fileops.sh).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "replay/engine/engine.h"
#include "util/cli.h"
#include "util/thread.h"

#define PSYNC_MAX_THREADS 64
#define PSYNC_STACK (256u << 10)

struct engine {
	const struct engine_target *targets;
	unsigned int cap; /* ring capacity: depth + 1 */
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct replay_io **sq; /* ring of cap entries */
	unsigned int sq_head, sq_tail;
	struct engine_cq cq;
	struct replay_io **pending; /* queued since the last submit */
	unsigned int npending;
	bool stop;
	bool cpu_stats; /* engine_params.cpu_stats */
	bool inline_calls; /* depth 1: submit makes the call itself (no workers) */
	struct engine_cpu_clock clk; /* inline_calls: the scheduling thread's */
	const volatile sig_atomic_t *cancel; /* engine_params.cancel: ends a --cpu-wait wait */
	unsigned int nthreads;
	pthread_t threads[PSYNC_MAX_THREADS];
};

/* One call, timed and with the calling thread's CPU figures; then done. */
static void psync_call(struct engine *e, struct engine_cpu_clock *clk, struct replay_io *io)
{
	engine_call_sync(&e->targets[io->dev], NULL, clk, io, e->cancel);
}

static void *psync_worker(void *arg)
{
	struct engine *e = arg;
	struct engine_cpu_clock clk;

	engine_cpu_clock_open(&clk, e->cpu_stats);
	pthread_mutex_lock(&e->lock);
	for (;;) {
		struct replay_io *io;

		while (!e->stop && e->sq_head == e->sq_tail)
			pthread_cond_wait(&e->work, &e->lock);
		if (e->stop)
			break;
		io = e->sq[e->sq_head];
		e->sq_head = (e->sq_head + 1) % e->cap;
		pthread_mutex_unlock(&e->lock);
		psync_call(e, &clk, io);
		pthread_mutex_lock(&e->lock);
		engine_cq_push(&e->cq, io);
	}
	pthread_mutex_unlock(&e->lock);
	engine_cpu_clock_close(&clk);
	return NULL;
}

static void psync_free(struct engine *e)
{
	free(e->sq);
	engine_cq_free(&e->cq);
	free(e->pending);
	free(e);
}

static void psync_exit(struct engine *e)
{
	pthread_mutex_lock(&e->lock);
	e->stop = true;
	pthread_cond_broadcast(&e->work);
	pthread_mutex_unlock(&e->lock);
	for (unsigned int i = 0; i < e->nthreads; i++)
		pthread_join(e->threads[i], NULL);
	if (e->inline_calls)
		engine_cpu_clock_close(&e->clk);
	psync_free(e);
}

static struct engine *psync_init(const struct engine_params *p, char *why, size_t why_len)
{
	struct engine *e = calloc(1, sizeof(*e));
	unsigned int want;
	int ret;

	if (!e)
		return NULL;
	e->targets = p->targets;
	e->cpu_stats = p->cpu_stats;
	e->cancel = p->cancel;
	e->cap = p->depth + 1;
	e->sq = calloc(e->cap, sizeof(*e->sq));
	e->pending = calloc(e->cap, sizeof(*e->pending));
	if (!e->sq || !e->pending || engine_cq_init(&e->cq, &e->lock, e->cap)) {
		psync_free(e);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->work, NULL);
	if (p->depth <= 1) {
		/* init runs on the thread that submits: the clock is that thread's */
		e->inline_calls = true;
		engine_cpu_clock_open(&e->clk, e->cpu_stats);
		return e;
	}
	want = p->depth < PSYNC_MAX_THREADS ? p->depth : PSYNC_MAX_THREADS;
	/* Workers only make system calls: a small stack. The default 8 MiB each would be made
	 * resident by the scheduler's mlockall(MCL_CURRENT): 64 workers held 650 MiB, and a
	 * replay in a memory cgroup (bench/predict_fs.sh) was killed for it. */
	for (unsigned int i = 0; i < want; i++) {
		ret = thread_start(&e->threads[i], PSYNC_STACK, psync_worker, e);
		if (ret) {
			snprintf(why, why_len, "cannot start psync worker %u: %s", i, strerror(ret));
			psync_exit(e);
			errno = ret;
			return NULL;
		}
		e->nthreads++;
	}
	return e;
}

static int psync_queue(struct engine *e, struct replay_io *io)
{
	if (e->npending >= e->cap - 1)
		return -EBUSY;
	e->pending[e->npending++] = io;
	return 0;
}

static int psync_submit(struct engine *e)
{
	unsigned int n = e->npending;

	if (!n)
		return 0;
	if (e->inline_calls) {
		for (unsigned int i = 0; i < n; i++) {
			psync_call(e, &e->clk, e->pending[i]);
			pthread_mutex_lock(&e->lock);
			engine_cq_push(&e->cq, e->pending[i]);
			pthread_mutex_unlock(&e->lock);
		}
		e->npending = 0;
		return (int)n;
	}
	pthread_mutex_lock(&e->lock);
	for (unsigned int i = 0; i < n; i++) {
		e->sq[e->sq_tail] = e->pending[i];
		e->sq_tail = (e->sq_tail + 1) % e->cap;
	}
	if (n == 1)
		pthread_cond_signal(&e->work);
	else
		pthread_cond_broadcast(&e->work);
	pthread_mutex_unlock(&e->lock);
	e->npending = 0;
	return (int)n;
}

static int psync_reap(struct engine *e, struct replay_io **done, unsigned int max,
		      uint64_t timeout_ns)
{
	return engine_cq_reap(&e->cq, done, max, timeout_ns);
}

const struct engine_ops engine_psync_ops = {
	.name = "psync",
	.sync_io = true,
	.init = psync_init,
	.queue = psync_queue,
	.submit = psync_submit,
	.reap = psync_reap,
	.exit = psync_exit,
};
