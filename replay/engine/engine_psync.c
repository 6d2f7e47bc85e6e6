// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * psync: a pool of threads doing plain pread/pwrite, as blkreplay and most simple replayers
 * do. Useful where io_uring and AIO are unavailable (or for files on filesystems where they
 * fall back to blocking). Each worker stamps the start and the end of its call itself, so
 * neither the wake-up of a worker (50-100 us on a loaded two-core machine) nor queueing behind
 * a busy scheduler inflates the latency it reports: clat is the system call, as a recorded
 * thread's call is timed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "replay/engine/engine.h"
#include "util/cli.h"

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
	const volatile sig_atomic_t *cancel; /* engine_params.cancel: ends a --cpu-wait wait */
	unsigned int nthreads;
	pthread_t threads[PSYNC_MAX_THREADS];
};

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
		engine_cpu_clock_before(&clk, io);
		io->began_ns = now_mono_ns();
		io->res = engine_exec_sync(&e->targets[io->dev], io);
		io->complete_ns = now_mono_ns();
		engine_cpu_clock_after(&clk, io);
		engine_cpu_wait_more(&clk, io, e->cancel);
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
	psync_free(e);
}

static struct engine *psync_init(const struct engine_params *p, char *why, size_t why_len)
{
	struct engine *e = calloc(1, sizeof(*e));
	pthread_attr_t attr;
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
	want = p->depth < PSYNC_MAX_THREADS ? p->depth : PSYNC_MAX_THREADS;
	/* Workers only make system calls: a small stack. The default 8 MiB each would be made
	 * resident by the scheduler's mlockall(MCL_CURRENT): 64 workers held 650 MiB, and a
	 * replay in a memory cgroup (bench/predict_fs.sh) was killed for it. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PSYNC_STACK);
	for (unsigned int i = 0; i < want; i++) {
		ret = pthread_create(&e->threads[i], &attr, psync_worker, e);
		if (ret) {
			snprintf(why, why_len, "cannot start psync worker %u: %s", i, strerror(ret));
			pthread_attr_destroy(&attr);
			psync_exit(e);
			errno = ret;
			return NULL;
		}
		e->nthreads++;
	}
	pthread_attr_destroy(&attr);
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
