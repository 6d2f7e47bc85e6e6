// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Dep mode's chains (--dep-chain, dep_sched.h's CHAIN_AHEAD): a thread's next call handed to
 * its worker with the call before it, and what its worker decided coming back.
 */
#include "replay/dep/dep_sched.h"

/*
 * Hands p's thread's next call to the engine behind p (slot pw: its thread's latest handed to
 * the engine, in flight or chained) when p's completion is all it still waits for; then that
 * one's next, up to CHAIN_AHEAD. Returns how many, or -errno.
 */
static int chain_next(struct run *r, uint32_t pw)
{
	struct dep_sched *d = sched_of(r);
	int n = 0;

	for (;;) {
		struct dslot *p = &d->slot[pw];
		struct dstream *st = &d->st[p->stream];
		uint32_t *link = &p->wait_done, i, wc;
		struct dslot *c = NULL;
		struct waiter *x = NULL;
		int ret;

		if (st->chained >= CHAIN_AHEAD || r->inflight >= r->depth ||
		    st->tail_seq != p->seq + 1 || !(p->flags & SF_ENGINE) ||
		    (p->state != DS_INFLIGHT && p->state != DS_CHAINED))
			return n;
		for (i = *link; i != NONE; link = &x->next, i = *link) {
			x = &d->pool[i];
			c = &d->slot[x->child];
			if (x->kind == DEP_SYNC && c->stream == p->stream && c->pending == 1 &&
			    c->state == DS_WAITING && !(c->flags & (SF_GHEAD | SF_FOLLOW)))
				break;
		}
		if (i == NONE || !run_to_engine(r, &c->s))
			return n;
		wc = x->child;
		*link = x->next;
		x->next = d->pool_free;
		d->pool_free = i;
		c->pending = 0;
		c->s.stream = c->kind; /* the result trace's stream says how it was released */
		ret = run_issue_chained(r, &c->s, c->release, wc, x->gap);
		if (ret)
			return ret;
		c->state = DS_CHAINED;
		c->flags |= SF_ENGINE;
		st->inflight++;
		st->chained++;
		st->tail_seq = c->seq + 1;
		r->res->chained++;
		if (c->s.op < DEP_EL_OPS)
			r->res->elastic.issued[c->s.op]++;
		n++;
		pw = wc;
	}
}

/* The streams chain_look() queued: their next calls chained, and submitted. */
int dep_chain_refill(struct run *r)
{
	struct dep_sched *d = sched_of(r);
	int n = 0;

	while (d->nchainq) {
		uint32_t stream = d->chainq[--d->nchainq];
		struct dstream *st = &d->st[stream];
		uint64_t ts = st->tail_seq;
		int ret;

		st->chain_look = false;
		if (!ts || d->slot[wslot(ts - 1)].seq != ts - 1)
			continue;
		ret = chain_next(r, wslot(ts - 1));
		if (ret < 0)
			return ret;
		n += ret;
	}
	return n ? run_submit(r) : 0;
}

/*
 * A chained I/O's release was decided by its worker (replay_io.deadline_ns): what issue_due
 * does at a release, and its issue edges now (an I/O of its thread after it without a wait:
 * the recorded thread had it in flight, which a chained one, synchronous, never is).
 */
void dep_chain_done(struct run *r, struct dslot *s, const struct replay_io *io)
{
	struct dep_sched *d = sched_of(r);
	struct dstream *st = &d->st[s->stream];

	s->release = io->deadline_ns;
	s->submit_ns = io->submit_ns;
	dep_note_release(r, s);
	st->chained--;
	s->state = DS_INFLIGHT;
	dep_wake(d, &s->wait_issue, s);
}
