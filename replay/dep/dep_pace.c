// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --dep-kthread-clock progress: a kernel thread's new work (writeback, the journal's) keeps
 * the application's clock, not the trace's. Dep mode releases a kernel thread's I/O that
 * follows nothing of its own thread (DEP_OPEN) at its trace time; onto a slower stack the
 * application's threads fall behind that clock while the kernel threads keep it, so the
 * writeback of pages the database has not dirtied yet goes out beside it, as deep as its
 * thread's recorded depth allows. bench/predict.sh's B (btrfs RAID6, 3.8x slower): the
 * replay's writes ran more at once than the real runs' and their p99 came out x1.8-2.5 of the
 * real runs' (bench/PREDICTION.md, "On a Linux 6.18 host"); the real kernel's flusher wrote 283
 * writes/s there against 2,044 on A, where the database's own writes fell by only 3.2x.
 *
 * The application's progress is the trace time of its oldest I/O not yet issued (every one
 * before it was): a held I/O goes once that has reached its own trace time. It never deadlocks:
 * an application I/O that waits for a held one comes after it in the trace, so the oldest one
 * not issued is at or past the held one's time, or waits for something earlier still.
 */
#include <stdlib.h>
#include "replay/dep/dep_sched.h"

int dep_pace_init(struct dep_sched *d, bool on)
{
	d->pace = on;
	if (on && !(d->paceq = malloc(DEP_WINDOW * sizeof(*d->paceq))))
		return -1;
	return 0;
}

void dep_pace_admit(struct dep_sched *d, struct dslot *s)
{
	d->last_t = s->s.t; /* progress(), for the load's clock too */
	if (d->pace && (s->flags & DEP_F_KTHREAD))
		s->flags |= SF_PACED;
}

static bool issued(const struct dslot *s)
{
	return s->state == DS_INFLIGHT || s->state == DS_DONE || s->state == DS_RIDING ||
	       s->state == DS_CHAINED;
}

/* The trace time of the application's oldest I/O not issued; with none in the window, the
 * latest read (those still to come are later), or no bound once the input has ended. */
static uint64_t progress(struct run *r, struct dep_sched *d)
{
	if (d->ufloor < d->floor)
		d->ufloor = d->floor;
	for (; d->ufloor < d->next_seq; d->ufloor++) {
		const struct dslot *s = &d->slot[wslot(d->ufloor)];

		if (!(s->flags & DEP_F_KTHREAD) && !issued(s))
			return s->s.t;
	}
	if (__atomic_load_n(&r->input_done, __ATOMIC_ACQUIRE) && !spsc_peek(&r->in))
		return UINT64_MAX;
	return d->last_t;
}

bool dep_pace_hold(struct run *r, uint32_t w)
{
	struct dep_sched *d = sched_of(r);
	struct dslot *s = &d->slot[w];
	struct ready e = { s->s.t, s->seq, w };

	if (!(s->flags & SF_PACED))
		return false;
	s->flags &= (uint16_t)~SF_PACED; /* held at most once */
	if (s->s.t <= progress(r, d))
		return false;
	s->held_at = s->release;
	readyheap_push(d->paceq, &d->npace, &e);
	s->state = DS_WAITING;
	r->res->kthread_paced++;
	return true;
}

void dep_pace_release(struct run *r, uint64_t now_rel)
{
	struct dep_sched *d = sched_of(r);
	uint64_t p;

	if (!d->npace)
		return;
	p = progress(r, d);
	while (d->npace && d->paceq[0].release <= p) {
		struct ready e;
		struct dslot *s;

		readyheap_pop(d->paceq, &d->npace, &e);
		s = &d->slot[e.w];
		if (now_rel > s->release)
			s->release = now_rel;
		r->res->kthread_pace_ns += s->release - s->held_at;
		dep_heap_push(d, e.w);
	}
}

/*
 * --cpu-load-clock progress: the application's progress for the load threads (run.h, app_t),
 * each pass of the scheduling loop. The oldest I/O not issued moves on only: the lag of each
 * release came and went with its thread's (a backend's wait, a timer's thread on the trace's
 * clock such as PostgreSQL's WAL writer), and load intervals measured against it were over
 * before they began (onto bench/predict.sh's B, 2.1 s of load burned of the 28.3 asked).
 */
void dep_pace_publish(struct run *r)
{
	if (r->load_progress)
		__atomic_store_n(&r->app_t, progress(r, sched_of(r)), __ATOMIC_RELAXED);
}
