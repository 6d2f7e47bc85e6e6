// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Dep mode's burners (replay --cpu replay with an engine that does not burn per call: io_uring,
 * libaio). Each recorded thread gets a thread of its own that spends, before each of the
 * thread's I/Os, the CPU the recorded thread spent since its previous one (sev.oncpu_ns), the
 * I/O going to the engine once the burn is done: the replay's CPU comes where the
 * application's did, a backend woken by its read's completion running its burst, then
 * issuing its next read. The load threads (core/cpu.c) burn the same CPU on a timer, and the
 * host is then as busy as the recording's but not as crowded: beside pgbench at block level
 * (bench/predict.sh, A onto A) the kernel threads that serve the loop device waited 19-22 us
 * for a CPU each time they woke in the real runs (/proc/PID/schedstat every 2 s), 10-13 us in
 * replays with the load, 19-23 us with the burners.
 *
 * A burn starts when its thread wakes: when its own previous I/O completes (a sync edge
 * resolved: dep_wake, or found done at admission), else when the I/O becomes ready (its
 * parents done: dep_heap_push), and the I/O goes at its release (the recorded gap) or once
 * burned, whichever is later, the burn dated from that wake-up (the hand-offs to and from
 * the burner are the replayer's). So the burn overlaps the gap, which held the recorded
 * thread's CPU and its waits for one. An I/O on the trace's clock (open, or after a long wait)
 * starts its burn when it comes due, its deadline moved earlier by the burn (core/cpu.c,
 * run_cpu_sev). A burner burns its thread's I/Os one at a time, in order, as the thread ran.
 *
 * Not the default: the pace is lost. A pgbench trace (21.0 s) took +78 % onto its loop device
 * with each burn before the gap (the gap less the burn) and with it started when the I/O became
 * ready; onto engine null (200 us a read), +72 % started when ready (a group commit's barrier
 * parent comes after most of the burst), +45 % from the thread's own completion, +39 % dated
 * from the wake-up, +25 % burned in 50 us pieces (BURN_CHUNK), where the load alone took +12 %;
 * as now (with --cpu-slice 100us) onto the loop device of bench/predict.sh's A, +39 to +46 %
 * against +1 to +7 %, IOPS x0.69-0.74 of the real runs', and the means no nearer them (README,
 * "Each thread's CPU at block level").
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "replay/dep/dep_sched.h"
#include "util/burn.h"
#include "util/cli.h"
#include "util/thread.h"

#define BURNERS_MAX 256 /* recorded threads past it share a burner (stream modulo) */
#define BURNER_STACK (64u << 10)
#define BURN_CHUNK 50000 /* ns */

struct burn_item {
	uint32_t w;
	uint64_t ns;
	uint64_t enq; /* CLOCK_MONOTONIC ns: when its thread woke (handed to the burner) */
};

/* A burn done: its slot, and when it would have ended had it started as its thread woke. */
struct burn_done {
	uint32_t w;
	uint64_t at;
};

struct burner {
	struct dep_burn *b;
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	struct burn_item *q; /* a ring of cap entries, a power of two, grown under lock */
	uint32_t head, tail, cap;
	uint32_t tid;
	uint64_t calls, asked_ns, got_ns;
};

struct dep_burn {
	struct burner *t[BURNERS_MAX];
	volatile bool stop;
	pthread_mutex_t lock; /* the done list */
	struct burn_done *done;
	uint32_t ndone;
	struct burn_done *taken; /* the scheduling thread's copy of the done list */
	uint32_t *held;		 /* dep_burn_collect's answer */
	uint32_t out; /* handed out and not collected (scheduling thread only) */
	int err;      /* a burner that could not start */
	double scale; /* --think-scale */
};

/*
 * A burn in BURN_CHUNK pieces, yielding between them: the scheduling thread, woken by a
 * completion, gets a CPU at once instead of after a burner's slice (a recorded thread's burst
 * between two I/Os reached 10 ms), as the load threads do (core/cpu.c, burn_paced). Onto engine
 * null (200 us a read) a pgbench trace's replay took 39 % longer than the trace burned in one
 * piece, 25 % in 50 us pieces, 32 % in 20 us ones (the default load instead of the burners:
 * 12 %). Returns the CPU used.
 */
static uint64_t burn_chunked(uint64_t ns, const volatile bool *stop)
{
	uint64_t got = 0;

	while (got < ns && !flag_up(stop) && !replay_stop) {
		got += burn_cpu(ns - got < BURN_CHUNK ? ns - got : BURN_CHUNK, stop, &replay_stop);
		if (got < ns)
			sched_yield();
	}
	return got;
}

static void *burner_main(void *arg)
{
	struct burner *t = arg;
	struct dep_burn *b = t->b;

	for (;;) {
		struct burn_item it;
		uint64_t got, t0;

		pthread_mutex_lock(&t->lock);
		while (t->head == t->tail && !flag_up(&b->stop))
			pthread_cond_wait(&t->cv, &t->lock);
		if (t->head == t->tail) {
			pthread_mutex_unlock(&t->lock);
			return NULL;
		}
		it = t->q[t->head++ & (t->cap - 1)];
		pthread_mutex_unlock(&t->lock);
		t0 = now_mono_ns();
		got = burn_chunked(it.ns, &b->stop);
		t->calls++;
		t->asked_ns += it.ns;
		t->got_ns += got;
		pthread_mutex_lock(&b->lock);
		/* as if it began when its thread woke: the hand-off to the burner (a wake-up,
		 * 50-100 us here) and its return (the scheduling thread looks every
		 * BURN_LOOK_NS) are the replayer's, not the application's. Never full: at most
		 * DEP_WINDOW out. */
		b->done[b->ndone] = (struct burn_done){ it.w, it.enq + (now_mono_ns() - t0) };
		__atomic_store_n(&b->ndone, b->ndone + 1, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&b->lock);
	}
}

int dep_burn_new(struct dep_sched *d, double scale)
{
	struct dep_burn *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	b->scale = scale;
	b->done = malloc(DEP_WINDOW * sizeof(*b->done));
	b->taken = malloc(DEP_WINDOW * sizeof(*b->taken));
	b->held = malloc(DEP_WINDOW * sizeof(*b->held));
	if (!b->done || !b->taken || !b->held) {
		free(b->done);
		free(b->taken);
		free(b->held);
		free(b);
		return -ENOMEM;
	}
	pthread_mutex_init(&b->lock, NULL);
	d->burn = b;
	return 0;
}

static struct burner *burner_of(struct dep_burn *b, uint32_t stream, uint32_t tid)
{
	uint32_t i = stream % BURNERS_MAX;
	struct burner *t = b->t[i];
	int ret;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (t)
		t->q = malloc(64 * sizeof(*t->q));
	if (!t || !t->q) {
		if (t)
			free(t);
		b->err = ENOMEM;
		return NULL;
	}
	t->b = b;
	t->cap = 64;
	t->tid = tid;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cv, NULL);
	ret = thread_start(&t->th, BURNER_STACK, burner_main, t);
	if (ret) {
		free(t->q);
		free(t);
		b->err = ret;
		return NULL;
	}
	b->t[i] = t;
	return t;
}

/* Hands slot w to its thread's burner, burning from now on. A burner that cannot start is
 * an error for the loop (dep_burn_collect); the I/O then goes unburned. */
void dep_burn_start(struct dep_sched *d, uint32_t w)
{
	struct dep_burn *b = d->burn;
	struct dslot *s = &d->slot[w];
	struct burner *t = b->err ? NULL : burner_of(b, s->stream, s->s.tid);

	s->burn = SB_BURNED;
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	if (t->tail - t->head == t->cap) {
		struct burn_item *q = malloc(2 * t->cap * sizeof(*q));

		if (!q) {
			pthread_mutex_unlock(&t->lock);
			b->err = ENOMEM;
			return;
		}
		for (uint32_t i = 0; i < t->cap; i++)
			q[i] = t->q[(t->head + i) & (t->cap - 1)];
		free(t->q);
		t->q = q;
		t->tail = t->cap;
		t->head = 0;
		t->cap *= 2;
	}
	t->q[t->tail++ & (t->cap - 1)] =
	    (struct burn_item){ w, (uint64_t)((double)s->s.oncpu_ns * b->scale), now_mono_ns() };
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->lock);
	s->burn = SB_BURNING;
	b->out++;
}

/* Slot w is due: true if it waits for its burn first (held out of the ready heap until then;
 * an I/O on the trace's clock starts its burn now). */
bool dep_burn_hold(struct dep_sched *d, uint32_t w)
{
	struct dslot *s = &d->slot[w];

	if (s->burn == SB_NONE)
		dep_burn_start(d, w);
	if (s->burn != SB_BURNING)
		return false;
	s->burn = SB_HELD;
	return true;
}

/*
 * The burns done: *held gets the I/Os that came due while burning (*nheld of them, their
 * release set to the burn's end), for the loop to put back in the ready heap (dep_run.c: not
 * here, so that dep_release.c, which starts burns, and this file do not call each other);
 * -errno if a burner could not start.
 */
int dep_burn_collect(struct run *r, const uint32_t **held, uint32_t *nheld)
{
	struct dep_sched *d = sched_of(r);
	struct dep_burn *b = d->burn;
	uint32_t n;

	*nheld = 0;
	if (!b)
		return 0;
	*held = b->held;
	if (b->err)
		return -b->err;
	if (!b->out || !__atomic_load_n(&b->ndone, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&b->lock);
	n = b->ndone;
	memcpy(b->taken, b->done, n * sizeof(*b->taken));
	__atomic_store_n(&b->ndone, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&b->lock);
	for (uint32_t i = 0; i < n; i++) {
		struct dslot *s = &d->slot[b->taken[i].w];
		uint64_t at = b->taken[i].at - r->start_mono;
		bool was_held = s->burn == SB_HELD;

		s->burn = SB_BURNED;
		if (!was_held)
			continue; /* still in the ready heap, not due yet */
		if (s->release < at)
			s->release = at;
		b->held[(*nheld)++] = b->taken[i].w;
	}
	b->out -= n;
	return 0;
}

uint32_t dep_burn_out(const struct dep_sched *d)
{
	return d->burn ? d->burn->out : 0;
}

/* Stops and joins the burners; their figures into the report (replay_cpu_print's per call). */
void dep_burn_stop(struct run *r)
{
	struct dep_sched *d = sched_of(r);
	struct dep_burn *b = d->burn;
	struct replay_result *res = r->res;

	if (!b)
		return;
	flag_raise(&b->stop);
	for (uint32_t i = 0; i < BURNERS_MAX; i++) {
		struct burner *t = b->t[i];

		if (!t)
			continue;
		pthread_mutex_lock(&t->lock);
		pthread_cond_signal(&t->cv);
		pthread_mutex_unlock(&t->lock);
		pthread_join(t->th, NULL);
		res->cpu_nthreads++;
		res->cpu_calls += t->calls;
		res->cpu_asked_ns += t->asked_ns;
		res->cpu_got_ns += t->got_ns;
		if (res->cpu_nshown < REPLAY_CPU_THREADS_SHOWN)
			res->cpu_thread[res->cpu_nshown++] = (struct replay_cpu_thread){
			    t->tid, t->calls, t->asked_ns, t->got_ns };
		pthread_mutex_destroy(&t->lock);
		pthread_cond_destroy(&t->cv);
		free(t->q);
		free(t);
		b->t[i] = NULL;
	}
	pthread_mutex_destroy(&b->lock);
	free(b->done);
	free(b->taken);
	free(b->held);
	free(b);
	d->burn = NULL;
}
