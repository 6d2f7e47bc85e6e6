// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Dep mode: releasing an I/O as its parents resolve (dep_sched.h). Each parent's edge puts a
 * constraint on its child once the parent's time is known; the child goes to the ready heap
 * when the last one is, or to its split flush first (the elastic split model).
 */
#include "replay/dep/dep_sched.h"

/* ---- the ready heap ---- */

void dep_heap_push(struct dep_sched *d, uint32_t w)
{
	struct ready e = { d->slot[w].release, d->slot[w].seq, w };

	/* its thread wakes now if it has not (dep_burn.c) */
	if (d->burn && d->slot[w].kind != DEP_OPEN && d->slot[w].kind != DEP_WAIT)
		dep_burn_wake(d, w);
	readyheap_push(d->heap, &d->nheap, &e);
	d->slot[w].state = DS_READY;
}

/* ---- releasing ---- */

/*
 * Split: the I/O's thread waited in the recording on its barrier parent, another thread's
 * flush, to make its writes durable. Did that flush cover them here too (issued after they
 * all completed)? If not, the thread needs a flush of its own.
 */
static bool split_needed(const struct dep_sched *d, const struct dslot *s)
{
	const struct dslot *p = &d->slot[wslot(s->bar_seq - 1)];

	if (p->seq != s->bar_seq - 1)
		return false;
	return !dep_el_covered(&d->el, s->stream, p->key, s->wr_snap, p->submit_ns);
}

void dep_resolve(struct dep_sched *d, uint32_t w, uint64_t at)
{
	struct dslot *s = &d->slot[w];

	if (at > s->release)
		s->release = at;
	if (--s->pending) {
		/* its other parent (a barrier) is done: it may chain on its thread's call */
		if (s->pending == 1 && s->state == DS_WAITING)
			chain_look(d, s->stream);
		return;
	}
	if (s->bar_seq && !(s->flags & SF_SPLIT)) {
		s->flags |= SF_SPLIT;
		if (split_needed(d, s)) {
			s->state = DS_SPLIT;
			d->splitq[d->nsplitq++] = w; /* issued by the loop (issue_splits) */
			return;
		}
	}
	dep_heap_push(d, w);
}

/*
 * When a parent's time is known: the constraint its edge puts on child c.
 *
 * The replayer's own lateness in submitting the parent (submit - release) is not the
 * workload's: it is taken out of the think time that follows, where the gap allows, instead
 * of being passed down the chain. Without that, every late wake-up of the scheduling thread
 * added up along a thread's chain: a pgbench trace replayed with the null engine on this
 * (busy) 2-core machine had its backends drift up to 90 ms behind the trace's clock, as fio's
 * iolog replay drifts. A child still never goes before the parent's submission (issue edges)
 * or completion (completion edges).
 *
 * An asynchronous thread's burst keeps the recorded spacing from the I/O that started it (its
 * thread's last I/O that was not async), shifted by how late that one was released, and never
 * goes before the previous submission. Chaining each gap onto the previous submission instead
 * added every wait for the thread's recorded depth to all its later I/Os: a writeback kworker's
 * gaps already hold the waits it had in the recording, and a pgbench trace replayed onto its
 * own device fell 2.5 s behind (p50) and took 1.3x as long.
 */
uint64_t dep_edge_time(const struct dep_sched *d, const struct dslot *p,
			  const struct dslot *c, uint8_t kind, uint64_t gap)
{
	uint64_t late = p->submit_ns > p->release ? p->submit_ns - p->release : 0;
	uint64_t think = gap > late ? gap - late : 0;
	int64_t at;

	switch (kind) {
	case DEP_ASYNC:
		at = (int64_t)c->s.t + d->st[c->stream].lag;
		return at > (int64_t)p->submit_ns ? (uint64_t)at : p->submit_ns;
	case DEP_OVERLAP:
		return p->submit_ns + think;
	case DEP_WAIT:
		return p->complete_ns + d->eps;
	default: /* DEP_SYNC, DEP_BARRIER: think time after the completion */
		return p->complete_ns + think;
	}
}

void dep_wake(struct dep_sched *d, uint32_t *list, const struct dslot *p)
{
	uint32_t i = *list;

	*list = NONE;
	while (i != NONE) {
		struct waiter *x = &d->pool[i];
		uint32_t next = x->next;

		if (x->kind == DEP_SYNC && d->burn)
			dep_burn_wake(d, x->child);
		dep_resolve(d, x->child, dep_edge_time(d, p, &d->slot[x->child], x->kind, x->gap));
		x->next = d->pool_free;
		d->pool_free = i;
		i = next;
	}
}

/* An I/O's release, once it is decided (here, or by its worker for a chained one): the stall
 * or lead against the trace, and its thread's lag for the async bursts after it. */
void dep_note_release(struct run *r, const struct dslot *s)
{
	struct dep_sched *d = sched_of(r);

	if (s->release > s->s.t)
		hist_add(&r->res->stall, s->release - s->s.t);
	else if (s->release < s->s.t)
		r->res->ahead++;
	if (s->kind != DEP_ASYNC)
		d->st[s->stream].lag = (int64_t)s->release - (int64_t)s->s.t;
}

/* Slot w rides on slot host: not issued, done when host is (a coalesced flush, an absorbed
 * write, a commit lock's follower). Its issue edges go now. */
void dep_ride(struct dep_sched *d, uint32_t w, uint32_t host, uint64_t now_rel)
{
	struct dslot *s = &d->slot[w];

	s->state = DS_RIDING;
	s->submit_ns = now_rel;
	s->next_rider = d->slot[host].riders;
	d->slot[host].riders = w;
	if (s->flags & DEP_F_WRITE)
		dep_el_write_out(&d->el, s->stream, s->key);
	dep_wake(d, &s->wait_issue, s);
}

/* The source counts a call taken out as done (file level: its descriptor's uses). */
void dep_took_out(struct run *r, const struct dslot *s)
{
	if (r->src->skip)
		r->src->skip(r, &s->s);
}
