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

#define PSYNC_MAX_THREADS 64
#define PSYNC_STACK (256u << 10)

struct engine {
	const struct engine_target *targets;
	unsigned int cap; /* ring capacity: depth + 1 */
	pthread_mutex_t lock;
	pthread_cond_t work, done_cv;
	struct replay_io **sq, **cq; /* rings of cap entries */
	unsigned int sq_head, sq_tail, cq_head, cq_tail;
	unsigned int ncq; /* completions waiting, read without the lock as a hint */
	struct replay_io **pending; /* queued since the last submit */
	unsigned int npending;
	bool stop;
	unsigned int nthreads;
	pthread_t threads[PSYNC_MAX_THREADS];
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void *psync_worker(void *arg)
{
	struct engine *e = arg;

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
		io->began_ns = mono_ns();
		io->res = engine_exec_sync(&e->targets[io->dev], io);
		io->complete_ns = mono_ns();
		pthread_mutex_lock(&e->lock);
		e->cq[e->cq_tail] = io;
		e->cq_tail = (e->cq_tail + 1) % e->cap;
		__atomic_add_fetch(&e->ncq, 1, __ATOMIC_RELEASE);
		pthread_cond_signal(&e->done_cv);
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

static void psync_free(struct engine *e)
{
	free(e->sq);
	free(e->cq);
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
	pthread_condattr_t ca;
	pthread_attr_t attr;
	unsigned int want;
	int ret;

	if (!e)
		return NULL;
	e->targets = p->targets;
	e->cap = p->depth + 1;
	e->sq = calloc(e->cap, sizeof(*e->sq));
	e->cq = calloc(e->cap, sizeof(*e->cq));
	e->pending = calloc(e->cap, sizeof(*e->pending));
	if (!e->sq || !e->cq || !e->pending) {
		psync_free(e);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->work, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e->done_cv, &ca);
	pthread_condattr_destroy(&ca);
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
	unsigned int n = 0;

	if (!__atomic_load_n(&e->ncq, __ATOMIC_ACQUIRE) && !timeout_ns)
		return 0;
	pthread_mutex_lock(&e->lock);
	if (e->cq_head == e->cq_tail && timeout_ns) {
		uint64_t until = mono_ns() + timeout_ns;
		struct timespec ts = { (time_t)(until / 1000000000ULL),
				       (long)(until % 1000000000ULL) };

		while (e->cq_head == e->cq_tail &&
		       pthread_cond_timedwait(&e->done_cv, &e->lock, &ts) != ETIMEDOUT)
			;
	}
	while (n < max && e->cq_head != e->cq_tail) {
		done[n++] = e->cq[e->cq_head];
		e->cq_head = (e->cq_head + 1) % e->cap;
	}
	__atomic_sub_fetch(&e->ncq, n, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&e->lock);
	return (int)n;
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
