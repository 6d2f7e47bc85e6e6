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
 * group waiting goes (the leader), and every other group waiting that came after the holder
 * would have let go at the recorded pace follows it: its calls are not issued, the first
 * completes with the leader's flush, the rest as they come due (they were the follower's own
 * write and flush). A group that came earlier (by drift: the recording shows it made its own
 * group) waits on and leads the next one. The leader's first write takes in the followers'
 * writes' bytes (one extent over them all, where it fits the replay's buffers), as the leader
 * writes the followers' records. Each follower's calls are counted (`followed`).
 *
 * Only files that groups of two threads or more write (a lock to share) and where no two
 * groups overlapped in the recording (no lock there: InnoDB's data files, where its redo
 * log's 25,783 groups by 11 threads never did), and only groups whose first write had not
 * been released when its flush was read. Onto the recording's own
 * stack no holder is slower than recorded and nothing follows (pgbench onto xfs itself: 0.8 %
 * of the fdatasyncs followed, from holders a little slower than recorded); a faster target
 * cannot bring back the commits the recording shows none of (a follower leaves no call).
 *
 * At block level (only with --dep-commit-lock on given): the key is the device, and a group
 * is a user thread's write(s) then its flush of the device, as a PostgreSQL backend's
 * fdatasync of its WAL reaches the device (a sync write, then a flush; pgbench on xfs over a
 * loop device: 17,063 such flushes by 5 backends, none issued while another was in flight).
 * The device holds every other thread's writes too, so the lock orders only the groups'
 * threads: an edge to or from a kernel thread's write (DEP_F_BG: writeback, the journal) is
 * kept as inferred.
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
	/* a group waits only for its own thread past its first write: a call of it waiting for
	 * another thread could wait for one that waits for the lock, and neither would go */
	for (uint64_t q = hseq + 1; q <= s->seq && h->seq == hseq; q++) {
		const struct dslot *x = &d->slot[wslot(q)];

		if (x->seq == q && x->stream == s->stream && (x->flags & SF_XDEP))
			hseq = UINT64_MAX; /* not a group */
	}
	l = lock_of(d, s->key);
	if (!l)
		return -ENOMEM;
	if (l->last_stream && l->last_stream != s->stream + 1)
		l->shared = true;
	l->last_stream = s->stream + 1;
	/* a group that began before an earlier one ended: the file has no such lock (InnoDB's
	 * data files, fsynced by several threads at once, where its redo log never is) */
	if (hseq == UINT64_MAX)
		return 0;
	if (h->seq == hseq && h->s.t < l->last_end)
		l->overlapped = true;
	if (s->rec_done > l->last_end)
		l->last_end = s->rec_done;
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
 * An edge between two threads' calls on a file the lock is modelled on: the lock orders their
 * groups on the target, not the recording's order. A write waking on another thread's flush
 * of the file (a barrier edge) is how the recording shows a group that waited for the lock;
 * a write over another thread's earlier write (an overlap edge: a redo log's last block,
 * written again by the next group) would make a group wait for one that waits for the lock
 * behind it, and neither would ever go.
 */
bool dep_lock_edge(const struct dep_sched *d, const struct dslot *p, const struct dslot *c)
{
	const struct dlock *l = c->key < d->nlocks ? &d->locks[c->key] : NULL;

	if (!d->file_level && ((p->flags | c->flags) & DEP_F_BG))
		return false; /* a device's other writers: not the lock's (above) */
	return (is_write(c) || is_flush(c)) && (is_write(p) || is_flush(p)) &&
	       p->key == c->key && p->stream != c->stream && l && l->shared && !l->overlapped;
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
		if (e->kind != DEP_BARRIER || p->seq != s->seq - e->back || !is_write(s) ||
		    !is_flush(p) || !dep_lock_edge(d, p, s) || !p->grp_end)
			continue;
		h = &d->slot[wslot(p->grp_end - 1)];
		done = s->s.t > e->gap_ns ? s->s.t - e->gap_ns : 0; /* its flush completed */
		if (h->seq == p->grp_end - 1 && done > h->s.t)
			held = done - h->s.t;
	}
	return held / 2 < think ? held / 2 : think;
}

/* A group's span in the recording: its first write's start to its flush's end (ns). */
static uint64_t recorded_span(const struct dep_sched *d, const struct dslot *head)
{
	const struct dslot *f = &d->slot[wslot(head->grp_end - 1)];

	return f->seq == head->grp_end - 1 && f->rec_done > head->s.t ? f->rec_done - head->s.t
								    : 0;
}

/* Group `head` takes its file's lock at `now_ns`. */
static void take(struct dep_sched *d, struct dlock *l, const struct dslot *head, uint64_t now_ns)
{
	l->holder = head->grp_end;
	l->free_by = now_ns + recorded_span(d, head);
}

/* A group's head comes due: true when it must wait for its file's lock (it is queued). */
bool dep_lock_wait(struct run *r, uint32_t w, uint64_t now_ns)
{
	struct dep_sched *d = sched_of(r);
	struct dslot *s = &d->slot[w];
	struct dlock *l = s->key < d->nlocks ? &d->locks[s->key] : NULL;

	if (!l || !l->shared || l->overlapped || l->holder == s->grp_end)
		return false;
	if (!l->holder) {
		take(d, l, s, now_ns);
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

/* A follower's call not issued: counted, and a use of its descriptor all the same. */
void dep_lock_followed(struct run *r, const struct dslot *s)
{
	if (s->s.op < DEP_EL_OPS)
		r->res->elastic.followed[s->s.op]++;
	dep_took_out(r, s);
}

/*
 * A flush completed: the lock it held passes to the first group waiting, whose flush covers
 * the groups that came to the lock after the holder would have let it go at the recorded
 * pace. Those are the commits the candidate's slowness gathers: at the recorded pace each
 * would have found the lock free, or the leader's write already made, and made its own
 * group, as the recording shows. A group that came before that moment and still made its own
 * group in the recording came that early only by the replay's drift between threads; it
 * keeps waiting and leads the next group. So onto the recording's own stack (the holder no
 * slower than recorded) nothing follows, and the recording's flushes are all issued.
 */
void dep_lock_done(struct run *r, const struct dslot *s, uint64_t complete_ns)
{
	struct dep_sched *d = sched_of(r);
	struct dlock *l = s->key < d->nlocks ? &d->locks[s->key] : NULL;
	struct dslot *lead;
	uint64_t lo, hi, free_by;
	uint32_t w, host, keep = NONE, ktail = NONE;

	if (!l || l->holder != s->seq + 1)
		return;
	l->holder = 0;
	if (l->whead == NONE)
		return;
	free_by = l->free_by;
	w = l->whead;
	lead = &d->slot[w];
	l->whead = lead->next_lockw;
	take(d, l, lead, complete_ns);
	host = wslot(lead->grp_end - 1);
	lo = lead->s.offset;
	hi = lead->s.offset + lead->s.len;
	while (l->whead != NONE) {
		uint32_t f = l->whead;
		struct dslot *fs = &d->slot[f];

		l->whead = fs->next_lockw;
		if (fs->release <= free_by) { /* drift: it waits on, for its own group */
			fs->next_lockw = NONE;
			if (ktail == NONE)
				keep = f;
			else
				d->slot[ktail].next_lockw = f;
			ktail = f;
			r->res->elastic.lock_kept++;
			continue;
		}
		follow(d, fs, &lo, &hi);
		dep_lock_followed(r, fs);
		dep_ride(d, f, host, complete_ns);
	}
	l->whead = keep;
	l->wtail = ktail;
	if (hi - lo > lead->s.len && hi - lo <= r->slot_bytes) {
		r->res->elastic.merged_bytes += hi - lo - lead->s.len;
		lead->s.offset = lo;
		lead->s.len = (uint32_t)(hi - lo);
	}
	if (lead->release < complete_ns)
		lead->release = complete_ns;
	dep_heap_push(d, w);
}

/*
 * Nothing in flight, nothing ready, and nothing more to read: whatever waits now waits for a
 * lock that nothing will release (a cycle the groups' own rule did not foresee). The first
 * group waiting goes, counted (lock_broken). Never a hang.
 */
bool dep_lock_unstick(struct run *r)
{
	struct dep_sched *d = sched_of(r);

	for (uint32_t k = 0; k < d->nlocks; k++) {
		struct dlock *l = &d->locks[k];
		uint32_t w = l->whead;

		if (w == NONE)
			continue;
		l->whead = d->slot[w].next_lockw;
		if (l->whead == NONE)
			l->wtail = NONE;
		l->holder = d->slot[w].grp_end;
		l->free_by = 0; /* no pace to hold it to: whoever waits behind it follows */
		r->res->elastic.lock_broken++;
		dep_heap_push(d, w);
		return true;
	}
	return false;
}

void dep_lock_free(struct dep_sched *d)
{
	free(d->locks);
	d->locks = NULL;
	d->nlocks = 0;
}
