// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * threads: each recorded thread replayed by a thread of its own, making its own calls in the
 * order it made them, with plain system calls (pread, pwrite, fsync...), as the application
 * did. Before each call the thread spends the CPU time the recorded thread spent since its
 * previous call (io->burn_ns, replay --cpu replay), so the replay's threads compete for the
 * CPUs as the application's did and a call comes late where the recorded one would have.
 *
 * Why not psync's pool: a pool worker hands each call to whichever worker is free (60-150 us
 * of wake-up on this 2-core machine), mixes the threads' CPU together and lets one thread's
 * calls overtake each other. Here a recorded thread's calls queue in order on its own thread.
 * Threads start at a recorded thread's first call; past THREADS_MAX recorded threads, later
 * ones share a thread (tid modulo), said in the report as fewer threads than recorded ones.
 *
 * At depth 1 (one call in flight in the whole replay: a closed-loop trace of one stream at
 * iodepth 1, or --max-inflight 1) no two calls can overlap, so the scheduling thread makes
 * each itself, as psync does there and as fio's job thread does: a hand-off to a worker and
 * the completion back cost more than a fallocate or ftruncate of 2-4 us (fio's falloc.fio
 * falloc-fuzzer replayed at x0.78-0.83 of fio's calls/s through a worker). Each recorded
 * thread keeps its own state and figures (struct tworker, without a thread).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "replay/engine/engine.h"
#include "util/burn.h"
#include "util/cli.h"
#include "util/thread.h"

#define THREADS_MAX 1024
#define THREADS_HASH 4096 /* a power of two, > THREADS_MAX */
#define THREAD_STACK (256u << 10)

struct tworker {
	struct engine *e;
	pthread_t th; /* none where the engine calls inline */
	pthread_cond_t cv;
	struct replay_io **q; /* its ring, grown as needed (under the engine's lock) */
	unsigned int head, tail, cap;
	struct engine_thread_stat st;
	/* its previous call (absolute CLOCK_MONOTONIC ns), for a chained one after it: when it
	 * completed, and how late it began after its deadline */
	uint64_t last_complete, last_late;
};

/*
 * A chained call's wait in its worker: sleeping while the wait is long enough for the timer
 * to be on time (a 1 ns-slack sleep wakes 40-60 us late at the median on this VM), then
 * yielding the CPU until the moment; the sleep checks the stop and Ctrl-C every 2 ms.
 */
#define CHAIN_SLEEP_EARLY_NS 60000

struct engine {
	const struct engine_target *targets;
	unsigned int cap; /* completion ring: depth + 1 */
	pthread_mutex_t lock;
	struct engine_cq cq;
	struct replay_io **pending;
	unsigned int npending;
	volatile bool stop;
	const volatile sig_atomic_t *cancel; /* Ctrl-C ends a burn (engine_params) */
	bool cpu_stats;			     /* engine_params.cpu_stats */
	bool inline_calls;		     /* depth 1: submit makes the call itself */
	struct engine_cpu_clock clk;	     /* inline_calls: the scheduling thread's */
	const uint64_t *start_mono;	     /* engine_params.start_mono */
	struct engine_names names;	     /* engine_params.names: calls on names */
	const uint32_t *pre_tids;	     /* engine_params.tids, started by threads_start */
	unsigned int npre_tids;
	unsigned int nworkers;
	struct tworker *w[THREADS_MAX];
	/* tid -> worker: hash_w is the worker's index + 1, 0 = empty (every tid is a key: a
	 * trace's tid 4294967295 is one too) */
	uint32_t hash_tid[THREADS_HASH];
	uint16_t hash_w[THREADS_HASH];
};

/*
 * A chained call (replay_io.chained) goes chain_gap_ns after the worker's previous call
 * completed, less how late that one began (the replayer's lateness is not the workload's
 * think time: dep mode's edge_time), and never before its deadline (its other parents). Its
 * deadline and submit time become the worker's, so lateness is judged where it is decided.
 */
static void chain_wait(struct tworker *w, struct replay_io *io)
{
	struct engine *e = w->e;
	uint64_t start = *e->start_mono;
	uint64_t think = io->chain_gap_ns > w->last_late ? io->chain_gap_ns - w->last_late : 0;
	uint64_t due = w->last_complete + think, now;

	if (due < start + io->deadline_ns)
		due = start + io->deadline_ns;
	io->deadline_ns = due - start;
	while (!flag_up(&e->stop) && !(e->cancel && *e->cancel) && (now = now_mono_ns()) < due) {
		if (due - now > CHAIN_SLEEP_EARLY_NS)
			engine_sleep_until(due - CHAIN_SLEEP_EARLY_NS, &e->stop, e->cancel);
		else
			sched_yield();
	}
	io->submit_ns = now_mono_ns() - start;
}

/* One call by w (on its worker, or inline on the scheduling thread): its chained wait, its
 * recorded CPU burnt, the call timed with the thread's CPU figures. The caller pushes it to the
 * completion queue. */
static void worker_call(struct tworker *w, struct engine_cpu_clock *clk, struct replay_io *io)
{
	struct engine *e = w->e;

	if (io->chained)
		chain_wait(w, io);
	if (io->burn_ns) {
		w->st.cpu_asked_ns += io->burn_ns;
		w->st.cpu_got_ns += burn_cpu(io->burn_ns, &e->stop, e->cancel);
	}
	/* a call on a name has no descriptor: io->dev is no target's index */
	engine_call_sync(io->op == ENGINE_OP_NAME ? NULL : &e->targets[io->dev], &e->names, clk,
			 io, e->cancel);
	w->last_complete = io->complete_ns;
	w->last_late = io->began_ns > *e->start_mono + io->deadline_ns ?
			       io->began_ns - (*e->start_mono + io->deadline_ns) : 0;
}

static void *worker_main(void *arg)
{
	struct tworker *w = arg;
	struct engine *e = w->e;
	struct engine_cpu_clock clk;

	engine_cpu_clock_open(&clk, e->cpu_stats);
	pthread_mutex_lock(&e->lock);
	for (;;) {
		struct replay_io *io;

		while (!flag_up(&e->stop) && w->head == w->tail)
			pthread_cond_wait(&w->cv, &e->lock);
		if (flag_up(&e->stop))
			break;
		io = w->q[w->head];
		w->head = (w->head + 1) % w->cap;
		pthread_mutex_unlock(&e->lock);
		worker_call(w, &clk, io);
		pthread_mutex_lock(&e->lock);
		w->st.calls++;
		/* a lazy completion wakes the scheduling thread once io->lazy_low calls or
		 * fewer are left queued behind it: time for it to queue more */
		if (io->lazy_low && (w->tail + w->cap - w->head) % w->cap > io->lazy_low)
			engine_cq_push_quiet(&e->cq, io);
		else
			engine_cq_push(&e->cq, io);
	}
	pthread_mutex_unlock(&e->lock);
	engine_cpu_clock_close(&clk);
	return NULL;
}

static void threads_free(struct engine *e)
{
	for (unsigned int i = 0; i < e->nworkers; i++) {
		pthread_cond_destroy(&e->w[i]->cv);
		free(e->w[i]->q);
		free(e->w[i]);
	}
	engine_cq_free(&e->cq);
	free(e->pending);
	free(e);
}

static void threads_exit(struct engine *e)
{
	pthread_mutex_lock(&e->lock);
	flag_raise(&e->stop);
	for (unsigned int i = 0; i < e->nworkers; i++)
		pthread_cond_signal(&e->w[i]->cv);
	pthread_mutex_unlock(&e->lock);
	for (unsigned int i = 0; i < e->nworkers && !e->inline_calls; i++)
		pthread_join(e->w[i]->th, NULL);
	if (e->inline_calls)
		engine_cpu_clock_close(&e->clk);
	threads_free(e);
}

static struct tworker *worker_of(struct engine *e, uint32_t tid, int *err);

static struct engine *threads_init(const struct engine_params *p, char *why, size_t why_len)
{
	struct engine *e = calloc(1, sizeof(*e));

	(void)why;
	(void)why_len;
	if (!e)
		return NULL;
	e->targets = p->targets;
	e->cancel = p->cancel;
	e->cpu_stats = p->cpu_stats;
	e->start_mono = p->start_mono;
	e->names = p->names;
	e->cap = p->depth + 1;
	e->pending = calloc(e->cap, sizeof(*e->pending));
	if (!e->pending || engine_cq_init(&e->cq, &e->lock, e->cap)) {
		threads_free(e);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&e->lock, NULL);
	if (p->depth <= 1) {
		/* init runs on the thread that submits: the clock is that thread's */
		e->inline_calls = true;
		engine_cpu_clock_open(&e->clk, e->cpu_stats);
	}
	e->pre_tids = p->tids;
	e->npre_tids = p->ntids;
	return e;
}

/* The workers of the threads known before the clock, started now that the replay's memory is
 * locked: a stack made after mlockall(MCL_CURRENT) takes only the pages its thread uses. */
static int threads_start(struct engine *e)
{
	int err = 0;

	pthread_mutex_lock(&e->lock);
	for (unsigned int i = 0; i < e->npre_tids && !err; i++)
		worker_of(e, e->pre_tids[i], &err);
	pthread_mutex_unlock(&e->lock);
	return err;
}

/* small stacks: the replay's mlockall would make 8 MiB each resident */
static int start_worker(struct tworker *w)
{
	return thread_start(&w->th, THREAD_STACK, worker_main, w);
}

/* The worker of recorded thread tid, started at its first call (its state only, where the
 * engine calls inline). NULL + -errno in *err. */
static struct tworker *worker_of(struct engine *e, uint32_t tid, int *err)
{
	uint32_t h = (tid * 2654435761u) & (THREADS_HASH - 1);
	struct tworker *w;
	int ret;

	for (; e->hash_w[h]; h = (h + 1) & (THREADS_HASH - 1))
		if (e->hash_tid[h] == tid)
			return e->w[e->hash_w[h] - 1];
	if (e->nworkers == THREADS_MAX)
		return e->w[tid % THREADS_MAX]; /* shared past the cap */
	w = calloc(1, sizeof(*w));
	if (!w || !(w->q = calloc(16, sizeof(*w->q)))) {
		free(w);
		*err = -ENOMEM;
		return NULL;
	}
	w->e = e;
	w->cap = 16;
	w->st.tid = tid;
	pthread_cond_init(&w->cv, NULL);
	ret = e->inline_calls ? 0 : start_worker(w);
	if (ret) {
		pthread_cond_destroy(&w->cv);
		free(w->q);
		free(w);
		*err = -ret;
		return NULL;
	}
	e->hash_tid[h] = tid;
	e->hash_w[h] = (uint16_t)(e->nworkers + 1);
	e->w[e->nworkers++] = w;
	return w;
}

static int push(struct tworker *w, struct replay_io *io)
{
	if ((w->tail + 1) % w->cap == w->head) {
		unsigned int cap = 2 * w->cap, n = 0;
		struct replay_io **q = malloc(cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		for (unsigned int i = w->head; i != w->tail; i = (i + 1) % w->cap)
			q[n++] = w->q[i];
		free(w->q);
		w->q = q;
		w->cap = cap;
		w->head = 0;
		w->tail = n;
	}
	w->q[w->tail] = io;
	w->tail = (w->tail + 1) % w->cap;
	return 0;
}

static int threads_queue(struct engine *e, struct replay_io *io)
{
	if (e->npending >= e->cap - 1)
		return -EBUSY;
	e->pending[e->npending++] = io;
	return 0;
}

/*
 * Hands each pending call to its recorded thread's worker. One that cannot be (its thread not
 * started: EAGAIN past the process's thread limit, ulimit -u; no memory) completes now with
 * that error, as libaio's refused iocb does, and the submit fails with the first: dropped, it
 * stayed in flight for the scheduler, whose drain waited for it forever, Ctrl-C and all.
 */
static int threads_submit(struct engine *e)
{
	unsigned int n = e->npending;
	int first = 0;

	if (!n)
		return 0;
	pthread_mutex_lock(&e->lock);
	for (unsigned int i = 0; i < n; i++) {
		struct replay_io *io = e->pending[i];
		int err = 0;
		struct tworker *w = worker_of(e, io->tid, &err);

		if (w && e->inline_calls) {
			pthread_mutex_unlock(&e->lock);
			worker_call(w, &e->clk, io);
			pthread_mutex_lock(&e->lock);
			w->st.calls++;
			engine_cq_push(&e->cq, io);
		} else if (w && !(err = push(w, io))) {
			pthread_cond_signal(&w->cv);
		} else {
			io->res = err;
			io->began_ns = io->complete_ns = now_mono_ns();
			engine_cq_push(&e->cq, io);
			first = first ? first : err;
		}
	}
	pthread_mutex_unlock(&e->lock);
	e->npending = 0;
	return first ? first : (int)n;
}

static int threads_reap(struct engine *e, struct replay_io **done, unsigned int max,
			uint64_t timeout_ns)
{
	return engine_cq_reap(&e->cq, done, max, timeout_ns);
}

static size_t threads_stats(struct engine *e, struct engine_thread_stat *out, size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&e->lock);
	for (unsigned int i = 0; i < e->nworkers && n < max; i++)
		out[n++] = e->w[i]->st;
	pthread_mutex_unlock(&e->lock);
	return n;
}

const struct engine_ops engine_threads_ops = {
	.name = "threads",
	.sync_io = true,
	.burns_cpu = true,
	.chains = true,
	.takes_names = true,
	.init = threads_init,
	.start = threads_start,
	.queue = threads_queue,
	.submit = threads_submit,
	.reap = threads_reap,
	.exit = threads_exit,
	.thread_stats = threads_stats,
};
