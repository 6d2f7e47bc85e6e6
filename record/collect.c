// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The drain thread: empties the per-CPU rings into user memory and nothing else, at a raised
 * scheduling priority, so that busy applications cannot crowd it off the CPUs for longer than
 * the rings last. Ordering, encoding, compression and writing (drain.c, the trace writer) stay
 * on the main thread at the priority the user gave, fed through a bounded queue of batches.
 *
 * Why (issue 12, measurements in record/README.md): fio 4 KiB randread, io_uring, QD32, on a
 * fresh 1 GiB zram of this 2-core VM, not pinned (~430-480k IOPS), lost 2-28 % of its I/Os when
 * one thread drained, ordered, compressed and wrote every 20 ms. With the rings cut to 1 MiB
 * (8,192 records per CPU) so that stalls show as drops on a loaded machine, that one thread
 * dropped in most 4 s runs at nice 0, at nice -20, with a 100 us EEVDF slice, with an interval
 * adapting to the fill, and at SCHED_FIFO with that interval (11.9k-26.3k per run): at normal
 * priorities its 20 ms sleep overshot by up to 32-44 ms; real-time, it woke on time but its
 * passes held up to 9 ms of releasing and compressing (and a write() can block for longer).
 * Split, the real-time part only copies 72 bytes per I/O (a pass: 0.3-0.6 ms) and dropped
 * nothing in 9 such runs; the slow part may fall behind by up to BUFFER_MAX of events.
 *
 * Both levels use it: the block level's rings hold I/Os (72-byte struct rec_event), the file
 * level's calls (128-byte struct fl_event); each says where the oldest one still in flight
 * began (rec_collect_src.oldest), and hands the batches to its own reorder stage.
 *
 * Priority: SCHED_FIFO 1, the lowest real-time priority (above every normal task, below the
 * kernel's own real-time threads); where real-time is refused (no CAP_SYS_NICE, a cgroup
 * without real-time runtime) nice -20; neither with --keep-priority. The thread's CPU time
 * stays small and bounded: it sleeps at least as long as its last pass used the CPU.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "util/burn.h"
#include "util/cli.h"
#include "util/prio.h"
#include "util/spsc.h"
#include "record/record_int.h"

#define BATCH_BYTES (2048 * 72)	 /* 144 KiB of records per batch: 2048 I/Os, 1152 calls */
#define BUFFER_MAX (64ULL << 20)	 /* events waiting for the writer: ~2 s at 450k IOPS */
#define QUEUE_SLOTS 512			 /* a power of two >= the batches BUFFER_MAX allows */
#define PASS_MAX_NS (20ULL * 1000000ULL) /* longest sleep between passes */
#define PASS_MIN_NS (1ULL * 1000000ULL)	 /* shortest */
#define PASS_FILL 4			 /* wake when the fullest ring may be 1/4 full */

struct rec_batch {
	uint32_t n;	 /* records */
	bool release;	 /* the writer may release up to `before` after these records */
	uint64_t before; /* ktime */
	_Alignas(8) unsigned char rec[BATCH_BYTES]; /* n payloads of the rings' size */
};

#define MAX_BATCHES (BUFFER_MAX / sizeof(struct rec_batch))
_Static_assert(MAX_BATCHES <= QUEUE_SLOTS, "QUEUE_SLOTS too small for BUFFER_MAX");

struct rec_collect {
	struct rec_collect_src src;
	size_t esize;	       /* a record's payload (after its seq) */
	uint32_t per_batch;    /* records per batch */
	pthread_t th;
	sem_t ready;
	bool keep_priority, started;
	enum rec_prio prio;
	int prio_err;
	int stop;	       /* atomic: main -> thread */
	uint64_t stale;	       /* atomic: stale table entries removed by the thread */
	struct spsc full;      /* thread -> writer */
	struct spsc spare;     /* writer -> thread */
	struct rec_batch *cur; /* the batch the thread fills */
	uint32_t nalloc;       /* batches allocated (thread only) */
	double ring_peak;      /* fullest ring seen at a pass (thread only) */
	uint64_t gap_max;      /* longest time between two passes' starts, ns (thread only) */
	bool buffer_full;      /* a pass found every batch waiting for the writer (thread only) */
};

/* Batch pointers through the util/ ring: full ones to the writer, spare ones back. */
static bool q_put(struct spsc *q, struct rec_batch *b)
{
	struct rec_batch **slot = spsc_slot(q);

	if (!slot)
		return false;
	*slot = b;
	spsc_push(q);
	return true;
}

static struct rec_batch *q_get(struct spsc *q)
{
	struct rec_batch **slot = spsc_peek(q), *b;

	if (!slot)
		return NULL;
	b = *slot;
	spsc_pop(q);
	return b;
}

/* An empty batch: a spare one, a new one within BUFFER_MAX, or NULL (the writer is that far
 * behind: the records stay in the rings, which drop and count what they cannot hold). */
static struct rec_batch *batch_get(struct rec_collect *c)
{
	struct rec_batch *b = q_get(&c->spare);

	if (!b && c->nalloc < MAX_BATCHES) {
		b = malloc(sizeof(*b));
		if (b)
			c->nalloc++;
	}
	if (b) {
		b->n = 0;
		b->release = false;
	}
	return b;
}

/* rec_sink_fn: copies one record into the current batch, handing full ones to the writer. */
static int batch_add(void *ctx, const void *payload)
{
	struct rec_collect *c = ctx;

	if (c->cur && c->cur->n == c->per_batch) {
		q_put(&c->full, c->cur); /* cannot fail: QUEUE_SLOTS >= every batch */
		c->cur = NULL;
	}
	if (!c->cur) {
		c->cur = batch_get(c);
		if (!c->cur) {
			c->buffer_full = true;
			return -ENOBUFS;
		}
	}
	memcpy(c->cur->rec + (size_t)c->cur->n++ * c->esize, payload, c->esize);
	return 0;
}

/*
 * One pass: the oldest I/O (or call) in flight first, then every ring, so that every one that
 * began before it has been copied (the reorder stage releases only up to there, in order). Returns
 * how long to sleep: until the fullest ring may be a quarter full at the rate just seen,
 * within [PASS_MIN_NS, PASS_MAX_NS], and never less than the CPU time the pass took.
 *
 * The CPU time, not the time on the clock: a pass preempted or stalled (a hypervisor holding the
 * vCPU, a page fault in reclaim) took long on the clock without using the CPU, and sleeping that
 * long again doubled the time the rings went unread (one CI run dropped 3 % of 254k IOPS with
 * 4 MiB rings, the fullest one full).
 */
static uint64_t collect_pass(struct rec_collect *c, uint64_t *last)
{
	uint64_t now = now_mono_ns(), cpu0 = thread_cpu_ns(), stale = 0, oldest, took;
	uint64_t next = PASS_MAX_NS;
	double ring_n = (double)(1ULL << c->src.rg->shift), fullest = 0;

	oldest = c->src.oldest(c->src.ctx, now, &stale);
	if (stale)
		__atomic_add_fetch(&c->stale, stale, __ATOMIC_RELAXED);
	if (rec_rings_drain(c->src.rg, batch_add, c, &fullest) == 0 &&
	    (c->cur || (c->cur = batch_get(c)))) {
		c->cur->release = true;
		c->cur->before =
		    oldest < now - RELEASE_MARGIN_NS ? oldest : now - RELEASE_MARGIN_NS;
	}
	/* Hand the partial batch over only when the writer has taken the others: a writer that
	 * is behind gets full batches, so a stall costs memory only for the events themselves.
	 * (spsc_count, not spsc_peek: this thread is the queue's producer, and peek reads the
	 * consumer's head plainly; ThreadSanitizer saw that race against the writer's pop.) */
	if (c->cur && !spsc_count(&c->full)) {
		q_put(&c->full, c->cur);
		c->cur = NULL;
	}
	if (fullest > c->ring_peak)
		c->ring_peak = fullest;
	if (fullest > 0 && now > *last) {
		double per_ns = fullest * ring_n / (double)(now - *last);
		double t = ring_n / PASS_FILL / per_ns;

		if (t < (double)next)
			next = (uint64_t)t;
	}
	if (now - *last > c->gap_max)
		c->gap_max = now - *last;
	*last = now;
	took = thread_cpu_ns() - cpu0;
	if (next < PASS_MIN_NS)
		next = PASS_MIN_NS;
	return next > took ? next : took;
}

static void raise_priority(struct rec_collect *c)
{
	_Static_assert((int)REC_PRIO_FIFO == PRIO_FIFO && (int)REC_PRIO_NICE == PRIO_NICE &&
			       (int)REC_PRIO_KEPT == PRIO_KEPT,
		       "enum rec_prio follows util/prio.h");

	c->prio = REC_PRIO_KEPT;
	if (!c->keep_priority)
		c->prio = (enum rec_prio)prio_raise(NULL, &c->prio_err);
}

static void *collect_main(void *arg)
{
	struct rec_collect *c = arg;
	uint64_t last = now_mono_ns(), sleep_ns = PASS_MAX_NS;
	sigset_t all;

	/* SIGINT/SIGTERM/SIGHUP go to the main thread, whose sleep they cut short. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	raise_priority(c);
	sem_post(&c->ready);
	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		struct timespec ts = { (time_t)(sleep_ns / 1000000000ULL),
				       (long)(sleep_ns % 1000000000ULL) };

		nanosleep(&ts, NULL);
		sleep_ns = collect_pass(c, &last);
	}
	return NULL;
}

int rec_collect__start(struct rec_collect **out, const struct rec_collect_src *src,
		       bool keep_priority)
{
	/* its rings' indices are cache-line aligned: sizeof is a multiple of that */
	struct rec_collect *c = aligned_alloc(_Alignof(struct rec_collect), sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	memset(c, 0, sizeof(*c));
	c->src = *src;
	c->esize = src->rg->rec_size - sizeof(uint64_t);
	c->per_batch = BATCH_BYTES / c->esize;
	c->keep_priority = keep_priority;
	if (spsc_init(&c->full, sizeof(struct rec_batch *), QUEUE_SLOTS) ||
	    spsc_init(&c->spare, sizeof(struct rec_batch *), QUEUE_SLOTS)) {
		spsc_free(&c->full);
		free(c);
		return -ENOMEM;
	}
	sem_init(&c->ready, 0, 0);
	err = pthread_create(&c->th, NULL, collect_main, c);
	if (err) {
		sem_destroy(&c->ready);
		spsc_free(&c->full);
		spsc_free(&c->spare);
		free(c);
		return -err;
	}
	c->started = true;
	while (sem_wait(&c->ready) && errno == EINTR)
		;
	*out = c;
	return 0;
}

enum rec_prio rec_collect__priority(const struct rec_collect *c, int *err)
{
	if (err)
		*err = c->prio_err;
	return c->prio;
}

void rec_collect__warn(const struct rec_collect *c)
{
	if (c->keep_priority || c->prio == REC_PRIO_FIFO)
		return;
	if (c->prio == REC_PRIO_NICE)
		cli_warn("the drain thread runs at nice -20: real-time priority was refused (%s)",
			 strerror(c->prio_err));
	else
		cli_warn("the drain thread runs at normal priority: neither real-time nor "
			 "nice -20 was allowed (%s), so busy CPUs may overflow the rings (drops "
			 "are counted); give ioreel CAP_SYS_NICE, or --keep-priority to say this "
			 "is meant",
			 strerror(c->prio_err));
}

uint64_t rec_collect__stale(const struct rec_collect *c)
{
	return __atomic_load_n(&c->stale, __ATOMIC_RELAXED);
}

/* The writer's side: every batch the thread handed over, in order, into push and release. */
int rec_collect__deliver(struct rec_collect *c, rec_sink_fn push, rec_release_fn release,
			 void *ctx)
{
	struct rec_batch *b;
	int err = 0;

	while (!err && (b = q_get(&c->full))) {
		for (uint32_t i = 0; i < b->n; i++)
			push(ctx, b->rec + (size_t)i * c->esize);
		if (b->release)
			err = release(ctx, b->before);
		q_put(&c->spare, b);
	}
	return err;
}

int rec_collect__stop(struct rec_collect *c, rec_sink_fn push, rec_release_fn release,
		      void *ctx, struct rec_collect_stats *st)
{
	int err;

	if (c->started) {
		__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
		pthread_join(c->th, NULL);
		c->started = false;
	}
	err = rec_collect__deliver(c, push, release, ctx);
	if (c->cur) {
		/* Its release mark (if any) waits for the level's finish: only the records go in. */
		for (uint32_t i = 0; i < c->cur->n; i++)
			push(ctx, c->cur->rec + (size_t)i * c->esize);
		c->cur->n = 0;
	}
	st->stale = rec_collect__stale(c);
	st->ring_peak = c->ring_peak;
	st->gap_max_ns = c->gap_max;
	st->buffer_full = c->buffer_full;
	st->buffer_peak = (uint64_t)c->nalloc * sizeof(struct rec_batch);
	return err;
}

void rec_collect__free(struct rec_collect *c)
{
	struct rec_batch *b;

	if (!c)
		return;
	if (c->started) {
		__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
		pthread_join(c->th, NULL);
	}
	while ((b = q_get(&c->full)))
		free(b);
	while ((b = q_get(&c->spare)))
		free(b);
	free(c->cur);
	spsc_free(&c->full);
	spsc_free(&c->spare);
	sem_destroy(&c->ready);
	free(c);
}
