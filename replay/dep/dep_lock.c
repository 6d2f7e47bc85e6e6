// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Dep mode's commit lock (--dep-commit-lock, file level): group commit as a database does it,
 * by leaders and followers.
 *
 * A commit group is a thread's write(s) to a file followed by its flush of that file
 * (fdatasync or fsync), nothing else of the thread between: PostgreSQL's XLogWrite, InnoDB's
 * log write and flush. The database makes them under a lock (WALWriteLock): the recordings
 * of pgbench on xfs and btrfs hold 36,610 and 12,252 such groups on pg_wal and not one
 * overlaps another. A backend whose commit comes while another's group is in flight waits for
 * the lock; when it gets it, the first waiter writes and flushes everything inserted so far,
 * the other waiters find their records durable and go on without any I/O. So on a slower
 * target more commits share a flush: PostgreSQL on btrfs flushed its WAL 0.52 times per
 * transaction where on xfs it flushed 0.70 times, with about the same WAL bytes per
 * transaction (11.7 and 11.1 KiB) in fewer, larger writes.
 *
 * Here: a group's first write that comes due while another thread's group holds the file's
 * lock (issued, its flush not complete) waits. When the holder's flush completes, the first
 * group waiting goes (the leader), and every other group waiting follows it: its calls are
 * not issued, the first completes with the leader's flush, the rest as they come due (they
 * were the follower's own write and flush). The leader's first write takes in the followers'
 * writes' bytes (one extent over them all, where it fits the replay's buffers), as the leader
 * writes the followers' records. Each follower's calls are counted (`followed`).
 *
 * Only files that groups of two threads or more write (a lock to share), and only groups
 * whose first write had not been released when its flush was read. Onto the recording's own
 * stack the groups come due as they did, one at a time, and nothing changes; a faster target
 * cannot bring back the commits the recording shows none of (a follower leaves no call).
 */
#include <errno.h>
#include <stdlib.h>
#include "replay/dep/dep_sched.h"

static struct dlock *lock_of(struct dep_sched *d, uint32_t key)
{
	if (key >= d->nlocks) {
		uint32_t n = d->nlocks ? d->nlocks : 64;
		struct dlock *l;

		while (n <= key)
			n *= 2;
		l = realloc(d->locks, n * sizeof(*l));
		if (!l)
			return NULL;
		for (uint32_t i = d->nlocks; i < n; i++)
			l[i] = (struct dlock){ .whead = NONE, .wtail = NONE };
		d->locks = l;
		d->nlocks = n;
	}
	return &d->locks[key];
}

static bool is_write(const struct dslot *s)
{
	return (s->flags & DEP_F_WRITE) && !(s->flags & DEP_F_COVERS) && s->s.len;
}

static bool is_flush(const struct dslot *s)
{
	return (s->flags & DEP_F_FLUSH) && (s->flags & DEP_F_COVERS);
}

/* A call read from the trace: does it open, extend, close or break its thread's group? */
int dep_lock_admit(struct run *r, struct dslot *s)
{
	struct dep_sched *d = sched_of(r);
	struct dstream *st = &d->st[s->stream];
	struct dslot *h;
	struct dlock *l;
	uint64_t hseq;

	if (is_write(s)) {
		if (!st->grp_head || st->grp_key != s->key) {
			st->grp_head = s->kind == DEP_ASYNC ? 0 : s->seq + 1;
			st->grp_key = s->key;
		}
		return 0;
	}
	if (!is_flush(s) || !st->grp_head || st->grp_key != s->key) {
		st->grp_head = 0;
		return 0;
	}
	hseq = st->grp_head - 1;
	h = &d->slot[wslot(hseq)];
	st->grp_head = 0;
	l = lock_of(d, s->key);
	if (!l)
		return -ENOMEM;
	if (l->last_stream && l->last_stream != s->stream + 1)
		l->shared = true;
	l->last_stream = s->stream + 1;
	/* a head already released (or chained) went without the lock: not a group here */
	if (h->seq == hseq && (h->state == DS_WAITING || h->state == DS_READY ||
				  h->state == DS_PARKED)) {
		h->flags |= SF_GHEAD;
		h->grp_end = s->seq + 1;
	}
	s->grp_end = hseq + 1; /* for dep_lock_wait_est */
	return 0;
}

/*
 * A write to a file waking on another thread's flush of it (a barrier edge) is how the
 * recording shows a group that waited for the lock: the lock orders them on the target, where
 * the flush may complete later than the write comes due (and the write joins the waiters).
 */
bool dep_lock_edge(const struct dslot *p, const struct dslot *c)
{
	return is_write(c) && is_flush(p) && p->key == c->key && p->stream != c->stream;
}

/*
 * How long the recorded thread waited for the lock before write s, in its think time after
 * its previous call (its sync edge's gap): the think time holds it, and on the target the lock
 * makes the wait itself. The recording says only that s came while the group it woke on held
 * the lock (had it come before, that group's flush would have covered it and it would have
 * made no call), so between the two ends of that group: half of it is taken, at most the gap.
 */
uint64_t dep_lock_wait_est(const struct dep_sched *d, const struct dslot *s,
			   const struct dep_info *di)
{
	uint64_t held = 0, think = 0;

	for (uint8_t k = 0; k < di->npar; k++) {
		const struct dep_edge *e = &di->par[k];
		const struct dslot *p = &d->slot[wslot(s->seq - e->back)], *h;
		uint64_t done;

		if (e->kind == DEP_SYNC) {
			think = e->gap_ns;
			continue;
		}
		if (e->kind != DEP_BARRIER || p->seq != s->seq - e->back || !dep_lock_edge(p, s) ||
		    !p->grp_end)
			continue;
		h = &d->slot[wslot(p->grp_end - 1)];
		done = s->s.t > e->gap_ns ? s->s.t - e->gap_ns : 0; /* its flush completed */
		if (h->seq == p->grp_end - 1 && done > h->s.t)
			held = done - h->s.t;
	}
	return held / 2 < think ? held / 2 : think;
}

/* A group's head comes due: true when it must wait for its file's lock (it is queued). */
bool dep_lock_wait(struct run *r, uint32_t w)
{
	struct dep_sched *d = sched_of(r);
	struct dslot *s = &d->slot[w];
	struct dlock *l = s->key < d->nlocks ? &d->locks[s->key] : NULL;

	if (!l || !l->shared || l->holder == s->grp_end)
		return false;
	if (!l->holder) {
		l->holder = s->grp_end;
		return false;
	}
	s->state = DS_LOCKW;
	s->next_lockw = NONE;
	if (l->wtail == NONE)
		l->whead = w;
	else
		d->slot[l->wtail].next_lockw = w;
	l->wtail = w;
	r->res->elastic.lock_waits++;
	return true;
}

/* Follower f's calls after its head (its writes and its flush) are not issued; the extent of
 * its writes joins [*lo, *hi). */
static void follow(struct dep_sched *d, const struct dslot *f, uint64_t *lo, uint64_t *hi)
{
	for (uint64_t q = f->seq; q < f->grp_end; q++) {
		struct dslot *x = &d->slot[wslot(q)];

		if (x->seq != q || x->stream != f->stream)
			continue;
		x->flags |= SF_FOLLOW;
		if (is_write(x) && x->key == f->key) {
			if (x->s.offset < *lo)
				*lo = x->s.offset;
			if (x->s.offset + x->s.len > *hi)
				*hi = x->s.offset + x->s.len;
		}
	}
}

/* A flush completed: the lock it held passes to the first group waiting, whose flush covers
 * the others waiting. */
void dep_lock_done(struct run *r, const struct dslot *s, uint64_t complete_ns)
{
	struct dep_sched *d = sched_of(r);
	struct dlock *l = s->key < d->nlocks ? &d->locks[s->key] : NULL;
	struct dslot *lead;
	uint64_t lo, hi;
	uint32_t w, host;

	if (!l || l->holder != s->seq + 1)
		return;
	l->holder = 0;
	if (l->whead == NONE)
		return;
	w = l->whead;
	lead = &d->slot[w];
	l->whead = lead->next_lockw;
	l->holder = lead->grp_end;
	host = wslot(lead->grp_end - 1);
	lo = lead->s.offset;
	hi = lead->s.offset + lead->s.len;
	while (l->whead != NONE) {
		uint32_t f = l->whead;
		struct dslot *fs = &d->slot[f];

		l->whead = fs->next_lockw;
		follow(d, fs, &lo, &hi);
		r->res->elastic.followed[fs->s.op < DEP_EL_OPS ? fs->s.op : 0]++;
		if (r->src->skip)
			r->src->skip(r, &fs->s);
		dep_ride(d, f, host, complete_ns);
	}
	l->wtail = NONE;
	if (hi - lo > lead->s.len && hi - lo <= r->slot_bytes) {
		r->res->elastic.merged_bytes += hi - lo - lead->s.len;
		lead->s.offset = lo;
		lead->s.len = (uint32_t)(hi - lo);
	}
	if (lead->release < complete_ns)
		lead->release = complete_ns;
	dep_heap_push(d, w);
}

void dep_lock_free(struct dep_sched *d)
{
	free(d->locks);
	d->locks = NULL;
	d->nlocks = 0;
}
