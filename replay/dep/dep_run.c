// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The scheduling loop of `--mode dep`. The helper thread decodes the trace and infers, per I/O,
 * the earlier I/Os it waited for (dep_infer.c); here an I/O is released once those have really
 * been submitted (issue edges) or completed (completion edges) on the target, plus the gap the
 * trace recorded after them, and no earlier than its trace time when it has no parent or waited
 * for something outside the storage. Then, as in timed mode, it goes out at its release time
 * (sleep, then spin), and its thread keeps no more I/O in flight than it had in the recording.
 *
 * The I/Os read ahead wait in a window of DEP_WINDOW slots indexed by sequence number: a parent
 * lies at most DEP_MAX_BACK behind its child, so its slot still holds it when the child is
 * read, and the window never holds more than DEP_WINDOW I/Os past the oldest unfinished one.
 * A child waiting for a parent hangs on one of the parent's two waiter lists (released at its
 * submission, at its completion); ready I/Os wait in a min-heap by release time. Nothing here
 * ever blocks on an unrelated thread: an I/O waits only for its own parents (no head-of-line
 * blocking, unlike hfplayer's per-worker lists).
 *
 * Here: admission, the loop, completions and the elastic models. Releasing an I/O as its
 * parents resolve is dep_release.c's, chains (a thread's next call waiting in its worker) are
 * dep_chain.c's; the state they share is in dep_sched.h.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "formats/file.h"
#include "replay/dep/dep_sched.h"
#include "util/cli.h"

static int dep_sched_new(struct run *r, const struct dep_opts *o)
{
	struct dep_sched *d = calloc(1, sizeof(*d));
	uint32_t npool = DEP_MAX_PARENTS * DEP_WINDOW;

	if (!d)
		return -ENOMEM;
	((struct dep_mode *)r->mode_state)->sched = d;
	d->slot = calloc(DEP_WINDOW, sizeof(*d->slot));
	d->pool = malloc(npool * sizeof(*d->pool));
	d->heap = malloc(DEP_WINDOW * sizeof(*d->heap));
	d->nst = 1024;
	d->st = malloc(d->nst * sizeof(*d->st));
	d->chainq = malloc(d->nst * sizeof(*d->chainq));
	if (!d->slot || !d->pool || !d->heap || !d->st || !d->chainq)
		return -ENOMEM;
	for (uint32_t i = 0; i < npool; i++)
		d->pool[i].next = i + 1 < npool ? i + 1 : NONE;
	for (uint32_t i = 0; i < d->nst; i++)
		d->st[i] = (struct dstream){ .park_head = NONE, .park_tail = NONE };
	d->think_scale = r->o->think_scale > 0 ? r->o->think_scale : 1.0;
	d->speed = r->o->speed > 0 ? r->o->speed : 1.0;
	d->eps = o->eps_ns;
	d->file_level = r->o->root != NULL;
	d->work = malloc(DEP_WINDOW * sizeof(*d->work));
	d->splitq = malloc(DEP_WINDOW * sizeof(*d->splitq));
	if (!d->work || !d->splitq || dep_el_init(&d->el, o->group_commit, o->absorb, o->split) ||
	    dep_pace_init(d, o->kthread_progress && !d->file_level))
		return -ENOMEM;
	d->wbt_ask = o->wbt; /* the targets are not open yet: dep_loop looks at them */
	d->wbt_ask_lat_ns = o->wbt_lat_ns;
	d->wbt_asked = o->wbt_asked;
	r->res->kthread_progress = d->pace;
	r->res->writer_clock = o->writer_clock;
	r->res->elastic.group_commit = o->group_commit;
	r->res->elastic.splits = o->split;
	r->res->elastic.absorb = d->el.absorb;
	r->res->elastic.file_level = d->file_level;
	/* whether the engine chains is dep_loop's: it is not final yet (replay/core/run.h) */
	d->chain_asked = o->chain && !d->el.acct && !o->group_commit && !o->absorb && !o->split;
	d->lock = o->commit_lock; /* file level only: dep_setup masks it */
	r->res->wake.on = o->date_wakes; /* run_reap dates completions back */
	r->res->elastic.commit_lock = d->lock;
	return 0;
}

static void dep_sched_free(struct dep_sched *d)
{
	if (!d)
		return;
	free(d->slot);
	free(d->pool);
	free(d->heap);
	free(d->st);
	free(d->work);
	free(d->splitq);
	free(d->chainq);
	free(d->paceq);
	dep_lock_free(d);
	dep_wbt_free(d);
	dep_el_free(&d->el);
	free(d);
}


static void heap_pop(struct dep_sched *d)
{
	struct ready out;

	readyheap_pop(d->heap, &d->nheap, &out);
}


static int grow_streams(struct dep_sched *d, uint32_t stream)
{
	uint32_t n = d->nst, *q;
	struct dstream *st;

	while (n <= stream)
		n *= 2;
	q = realloc(d->chainq, n * sizeof(*q));
	if (!q)
		return -ENOMEM;
	d->chainq = q;
	st = realloc(d->st, n * sizeof(*st));
	if (!st)
		return -ENOMEM;
	for (uint32_t i = d->nst; i < n; i++)
		st[i] = (struct dstream){ .park_head = NONE, .park_tail = NONE };
	d->st = st;
	d->nst = n;
	return 0;
}

/* Split: which parent is the flush the thread waited on, and its thread's writes there so far. */
static void split_note(struct dep_sched *d, struct dslot *s, const struct dep_info *di,
		       uint64_t seq)
{
	for (uint8_t k = 0; k < di->npar; k++) {
		const struct dep_edge *e = &di->par[k];
		const struct dslot *p = &d->slot[wslot(seq - e->back)];

		if (e->kind != DEP_BARRIER || p->seq != seq - e->back)
			continue;
		s->bar_seq = p->seq + 1;
		s->bar_gap = (uint64_t)((double)e->gap_ns / d->speed * d->think_scale);
		s->wr_snap = dep_el_reads(&d->el, di->stream, p->key, NULL);
		return;
	}
}


/* Takes one I/O from the input ring into the window. 0, or -errno. */
static int admit(struct run *r, const struct dsev *in)
{
	struct dep_sched *d = sched_of(r);
	uint64_t seq = d->next_seq++;
	uint32_t w = wslot(seq);
	struct dslot *s = &d->slot[w];
	const struct dep_info *di = &in->dep;
	uint64_t lockwait;

	if (di->stream >= d->nst && grow_streams(d, di->stream))
		return -ENOMEM;
	*s = (struct dslot){ .s = in->s, .seq = seq, .wait_issue = NONE, .wait_done = NONE,
			     .stream = di->stream, .next_parked = NONE, .depth = di->depth,
			     .kind = di->kind, .pending = 1, .state = DS_WAITING,
			     .key = di->key, .riders = NONE, .next_rider = NONE,
			     .flags = di->flags,
			     .rec_done = d->lock ? in->s.t + (uint64_t)((double)in->rec_lat / d->speed)
						 : 0 };
	if (in->s.op < DEP_EL_OPS)
		r->res->elastic.trace[in->s.op]++;
	if (d->el.split && (di->flags & DEP_F_SPLIT) && !(di->flags & DEP_F_FLUSH))
		split_note(d, s, di, seq);
	if (d->el.acct) {
		uint64_t snap = dep_el_admit(&d->el, di->stream, di->key, di->flags, in->s.dev);

		if (di->flags & DEP_F_FLUSH)
			s->wr_snap = snap;
	}
	if (d->el.absorb && (di->flags & DEP_F_BG) && (di->flags & DEP_F_WRITE))
		dep_el_abs_note(&d->el, di->stream, di->key, in->s.offset, seq);
	for (uint8_t k = 0; k < di->npar; k++)
		if (di->par[k].kind != DEP_ASYNC && di->par[k].kind != DEP_OVERLAP)
			d->st[di->stream].sync_upto = seq + 1;
	s->sync_upto = d->st[di->stream].sync_upto;
	/* open and wait I/Os keep the trace's clock; the others follow their parents only */
	if (di->kind == DEP_OPEN || di->kind == DEP_WAIT)
		s->release = in->s.t;
	dep_pace_admit(d, s);
	r->res->dep_released[di->kind]++;
	lockwait = d->lock ? dep_lock_wait_est(d, s, di) : 0;
	for (uint8_t k = 0; k < di->npar; k++) {
		const struct dep_edge *e = &di->par[k];
		struct dslot *p = &d->slot[wslot(seq - e->back)];
		bool issue_edge = e->kind == DEP_ASYNC || e->kind == DEP_OVERLAP;
		double g = (double)e->gap_ns / d->speed;
		uint64_t gap;
		uint32_t x;

		if ((e->kind == DEP_SYNC || e->kind == DEP_BARRIER) && in->s.oncpu_ns) {
			/* --cpu replay: the thread burns its recorded CPU before the call
			 * (core/cpu.c); what waits here is the rest of the gap. A burner
			 * (dep_burn.c) burns it within the gap instead, from the wake-up on. */
			if (!d->burn)
				g = g > (double)in->s.oncpu_ns ? g - (double)in->s.oncpu_ns : 0;
		} else if (e->kind == DEP_SYNC || e->kind == DEP_BARRIER) {
			g *= d->think_scale;
		}
		if (e->kind == DEP_SYNC && lockwait)
			g = g > (double)lockwait / d->speed ? g - (double)lockwait / d->speed : 0;
		gap = (uint64_t)g;
		if (p->seq != seq - e->back)
			continue; /* cannot happen (DEP_MAX_BACK < DEP_WINDOW); be safe */
		if (d->lock && (e->kind == DEP_BARRIER || e->kind == DEP_OVERLAP) &&
		    dep_lock_edge(d, p, s))
			continue; /* the commit lock orders the two groups, on the target */
		if (p->state == DS_DONE || (issue_edge && p->state == DS_INFLIGHT)) {
			uint64_t at = dep_edge_time(d, p, s, e->kind, gap);

			if (e->kind == DEP_SYNC && d->burn)
				dep_burn_wake(d, w); /* its own previous I/O is done */

			if (at > s->release)
				s->release = at;
			continue;
		}
		if (p->stream != s->stream)
			s->flags |= SF_XDEP; /* waits for another thread */
		x = d->pool_free;
		d->pool_free = d->pool[x].next;
		d->pool[x] = (struct waiter){ .gap = gap, .child = w, .kind = e->kind };
		if (issue_edge) {
			d->pool[x].next = p->wait_issue;
			p->wait_issue = x;
		} else {
			d->pool[x].next = p->wait_done;
			p->wait_done = x;
		}
		s->pending++;
	}
	if (d->lock && dep_lock_admit(r, s))
		return -ENOMEM;
	dep_resolve(d, w, 0); /* then, with one parent left, it may chain (chain_look) */
	return 0;
}

/* Reads what the helper decoded while the window has room. */
static int admit_ready(struct run *r)
{
	struct dep_sched *d = sched_of(r);
	const struct dsev *in;
	int n = 0;

	while ((in = spsc_peek(&r->in))) {
		int ret;

		if (d->next_seq - d->floor >= DEP_WINDOW) {
			if (!d->window_was_full)
				r->res->window_full++; /* each time it fills, not each look */
			d->window_was_full = true;
			break;
		}
		d->window_was_full = false;
		ret = admit(r, in);
		if (ret)
			return ret;
		spsc_pop(&r->in);
		if (++n == 4096)
			break; /* come back to the deadlines */
	}
	return 0;
}

/* A thread keeps no more I/O in flight than it had when the I/O was queued in the trace. */
static bool depth_allows(const struct dep_sched *d, const struct dslot *s)
{
	return d->st[s->stream].inflight <= s->depth;
}

static void park(struct dep_sched *d, uint32_t w)
{
	struct dstream *st = &d->st[d->slot[w].stream];

	parkq_push(d, &st->park_head, &st->park_tail, w);
}

/*
 * An I/O is done at complete_ns, and with it every I/O riding on it (a coalesced flush, an
 * absorbed write), and theirs in turn.
 */
static void finish(struct run *r, uint32_t w0, uint64_t complete_ns)
{
	struct dep_sched *d = sched_of(r);
	uint32_t n = 0;

	d->work[n++] = w0;
	while (n) {
		uint32_t w = d->work[--n];
		struct dslot *s = &d->slot[w];
		struct dstream *st = &d->st[s->stream];

		if (d->wbt_on && s->state == DS_INFLIGHT)
			dep_wbt_done(r, w, complete_ns);
		if (s->state == DS_INFLIGHT || (s->flags & SF_DEPTH))
			st->inflight--;
		s->complete_ns = complete_ns;
		s->state = DS_DONE;
		if (s->flags & DEP_F_WRITE)
			dep_el_write_done(&d->el, s->stream, s->key, complete_ns);
		if (s->flags & DEP_F_FLUSH)
			dep_el_flush_done(&d->el, s->key, s->seq);
		if (d->lock && (s->flags & DEP_F_FLUSH))
			dep_lock_done(r, s, complete_ns); /* its file's commit lock passes on */
		dep_wake(d, &s->wait_done, s);
		/* the thread's oldest held I/O may go now, as the recorded thread did when a
		 * slot freed */
		while (st->park_head != NONE && depth_allows(d, &d->slot[st->park_head]))
			parkq_release(d, &st->park_head, &st->park_tail, complete_ns);
		for (uint32_t x = s->riders; x != NONE; x = d->slot[x].next_rider)
			d->work[n++] = x;
		s->riders = NONE;
	}
	while (d->floor < d->next_seq && d->slot[wslot(d->floor)].state == DS_DONE)
		d->floor++;
}



/* Called by run.c's complete() for each I/O reaped. */
static void dep_done(struct run *r, struct replay_io *io, uint64_t complete_ns)
{
	struct dep_sched *d = sched_of(r);
	struct dslot *s;

	if (io->tag >= DEP_WINDOW) {
		/* a split flush: the I/O that needed it goes its barrier gap later */
		s = &d->slot[io->tag - DEP_WINDOW];
		if (complete_ns + s->bar_gap > s->release)
			s->release = complete_ns + s->bar_gap;
		dep_heap_push(d, io->tag - DEP_WINDOW);
		return;
	}
	s = &d->slot[io->tag];
	if (s->state == DS_CHAINED)
		dep_chain_done(r, s, io);
	if (s->flags & SF_ENGINE)
		chain_look(d, s->stream);
	/* A worker that made the call itself (psync) says when it began: the hand-off to it is
	 * lateness too, which its children's think time absorbs (edge_time), as the recorded
	 * thread's own work between calls would have. */
	if (io->began_ns && io->began_ns - r->start_mono > s->submit_ns)
		s->submit_ns = io->began_ns - r->start_mono;
	finish(r, io->tag, complete_ns);
}

/*
 * Group commit: a flush due now, of a thread that waited for it (not an asynchronous burst),
 * that the recording did not issue while covered, rides on the latest flush of its device
 * (file) in flight when that one was issued after all of its thread's writes there completed.
 * It holds its thread's depth as its own flush would.
 */
static bool try_coalesce(struct run *r, uint32_t w, uint64_t now_rel)
{
	struct dep_sched *d = sched_of(r);
	struct dslot *s = &d->slot[w];
	const struct dslot *g;
	uint64_t gs;

	if (!(s->flags & DEP_F_FLUSH) || (s->flags & DEP_F_REDUNDANT) || s->kind == DEP_ASYNC)
		return false;
	gs = dep_el_cov(&d->el, s->key, s->flags & DEP_F_META);
	if (!gs)
		return false;
	g = &d->slot[wslot(gs - 1)];
	if (g->seq != gs - 1 || g->state != DS_INFLIGHT || g == s ||
	    !dep_el_covered(&d->el, s->stream, s->key, s->wr_snap, g->submit_ns))
		return false;
	s->flags |= SF_DEPTH;
	d->st[s->stream].inflight++;
	if (s->s.op < DEP_EL_OPS)
		r->res->elastic.coalesced[s->s.op]++;
	dep_ride(d, w, wslot(gs - 1), now_rel);
	dep_took_out(r, s);
	return true;
}

/*
 * Absorbed writes: a kernel thread's write due now whose range the same thread writes again
 * in a later write, not issued and already past its trace time, rides on that one: the thread
 * lags, and the later write carries the data. Only where nothing of the thread from this write
 * to that one waits for a completion: waiting for this write's would wait for itself, and the
 * thread's later I/Os follow only submissions, which riding releases now (at block level no
 * other thread waits for a plain write's completion; flush-class writes are never absorbed).
 */
static bool try_absorb(struct run *r, uint32_t w, uint64_t now_rel)
{
	struct dep_sched *d = sched_of(r);
	struct dslot *s = &d->slot[w];
	const struct dslot *l;
	uint64_t ls;

	if (!(s->flags & DEP_F_BG) || !(s->flags & DEP_F_WRITE) ||
	    (s->flags & DEP_F_COVERS) || (s->s.flags & IO_F_FUA) || s->s.op != IO_OP_WRITE ||
	    !s->s.len || (d->file_level && (s->s.aux & (RWF_DSYNC | RWF_SYNC))))
		return false;
	ls = dep_el_abs_find(&d->el, s->stream, s->key, s->s.offset);
	if (ls <= s->seq + 1)
		return false; /* none, or this write itself or an earlier one */
	l = &d->slot[wslot(ls - 1)];
	if (l->seq != ls - 1 ||
	    (l->state != DS_WAITING && l->state != DS_READY && l->state != DS_PARKED) ||
	    l->stream != s->stream || l->s.op != IO_OP_WRITE || l->key != s->key ||
	    l->s.offset != s->s.offset || l->s.len < s->s.len || l->s.t > now_rel ||
	    l->sync_upto > s->seq + 1)
		return false;
	r->res->elastic.absorbed[s->s.op]++;
	dep_ride(d, w, wslot(ls - 1), now_rel);
	dep_took_out(r, s);
	return true;
}

/*
 * Split: the flushes threads need of their own, now, on their barrier parent's device (file
 * level: its descriptor and call, fsync or fdatasync; a call a source knows is not the
 * recording's by its arg). Not counted in the thread's depth: it is the thread's commit.
 */
static int issue_splits(struct run *r)
{
	struct dep_sched *d = sched_of(r);
	uint64_t now_rel = now_mono_ns() - r->start_mono;
	unsigned int n = 0;

	while (d->nsplitq && r->inflight < r->depth) {
		uint32_t w = d->splitq[--d->nsplitq];
		const struct dslot *s = &d->slot[w];
		const struct dslot *p = &d->slot[wslot(s->bar_seq - 1)];
		struct sev f = { .t = now_rel, .dev = p->s.dev, .tid = s->s.tid,
				 .stream = DEP_BARRIER, .op = p->s.op };
		int ret;

		if (d->file_level)
			f.arg = DEP_ADDED_CALL;
		else
			f.op = IO_OP_FLUSH;
		ret = run_issue(r, &f, now_rel, DEP_WINDOW + w);
		if (ret)
			return ret;
		if (f.op < DEP_EL_OPS) {
			r->res->elastic.split[f.op]++;
			r->res->elastic.issued[f.op]++;
		}
		n++;
	}
	return n ? run_submit(r) : 0;
}

/* Issues every ready I/O due by now; false when the in-flight cap stopped it. */
static int issue_due(struct run *r, uint64_t now_rel, uint32_t *issued, unsigned int *nissued)
{
	struct dep_sched *d = sched_of(r);

	while (d->nheap) {
		uint32_t w = d->heap[0].w;
		struct dslot *s = &d->slot[w];
		unsigned int nbatch;
		int ret;

		if (s->release > now_rel)
			break;
		if (r->inflight >= r->depth) {
			r->res->cap_hits++;
			break;
		}
		heap_pop(d);
		if (d->pace && dep_pace_hold(r, w))
			continue; /* the application has not come this far yet */
		if (d->burn && s->s.oncpu_ns && dep_burn_hold(d, w))
			continue; /* its thread's CPU first; back due once burned */
		if (!depth_allows(d, s)) {
			r->res->held_depth++;
			park(d, w);
			continue;
		}
		if (s->flags & SF_FOLLOW) {
			/* a follower's own write or flush: the leader's flush covered it */
			dep_lock_followed(r, s);
			finish(r, w, now_rel);
			continue;
		}
		if ((s->flags & SF_GHEAD) && dep_lock_wait(r, w, now_rel))
			continue; /* its file's commit lock is another group's */
		if (!(s->flags & SF_WBT)) { /* not back from the writeback throttle */
			dep_note_release(r, s);
			if ((d->el.absorb && try_absorb(r, w, now_rel)) ||
			    (d->el.gc && try_coalesce(r, w, now_rel)))
				continue;
			if (d->wbt_on && dep_wbt_hold(r, w, now_rel))
				continue; /* the kernel would have held it (dep_wbt.c) */
		}
		s->s.stream = s->kind; /* the result trace's stream says how it was released */
		nbatch = r->nbatch;
		ret = run_issue(r, &s->s, s->release, w);
		if (ret)
			return ret;
		s->state = DS_INFLIGHT;
		d->st[s->stream].inflight++;
		if (r->nbatch > nbatch) { /* to the engine, not made by the source */
			s->flags |= SF_ENGINE;
			d->st[s->stream].tail_seq = s->seq + 1;
		}
		issued[(*nissued)++] = w;
		if (s->s.op < DEP_EL_OPS)
			r->res->elastic.issued[s->s.op]++;
	}
	return 0;
}

/*
 * Waits for a completion: peeking (and yielding the CPU) for up to `poll` ns, then sleeping up
 * to `sleep` ns.
 * A completion's children are released at the time it was seen plus the recorded think time,
 * and that think time already holds the recorded thread's own wake-up: a scheduler that slept
 * in the kernel until the completion woke it added its wake-up to every step of every chain.
 * On this 2-core VM that made a pgbench trace's backends 8 % slower replayed onto the very
 * device they were recorded on (~80 us a step); peeking while the I/O it waits for is in
 * flight takes that out. Yielding keeps the core available to the threads serving the target.
 */
static void wait_completion(struct run *r, uint64_t poll, uint64_t sleep)
{
	uint64_t until = now_mono_ns() + poll;

	do {
		if (run_reap(r, 0) > 0)
			return;
		sched_yield();
	} while (now_mono_ns() < until);
	if (sleep)
		run_reap(r, sleep);
}

/* The I/Os that came due while their thread's CPU burned, burned now: back to the ready heap. */
static int burn_collect(struct run *r)
{
	const uint32_t *held;
	uint32_t n;
	int ret = dep_burn_collect(r, &held, &n);

	for (uint32_t i = 0; i < n; i++)
		dep_heap_push(sched_of(r), held[i]);
	return ret;
}

static int dep_loop(struct run *r)
{
	struct dep_sched *d = sched_of(r);
	uint64_t spin = run_spin_ns(r);
	uint32_t *issued = malloc(r->depth * sizeof(*issued));
	bool starved = false;
	int ret = 0;

	if (!issued || dep_wbt_init(r, d) ||
	    (r->cpu_calls && !r->eng->burns_cpu &&
	     dep_burn_new(d, r->o->think_scale > 0 ? r->o->think_scale : 1.0))) {
		free(issued);
		return -ENOMEM;
	}
	/* Not at the mode's setup: the engine is final only after it (threads, when none is
	 * named, for --cpu-wait's default and --cpu host); decided there, a file-level replay
	 * ran with its chains off, every call two wake-ups away from the one before. */
	d->chain = d->chain_asked && r->eng->chains && !d->wbt_on && !d->burn;
	while (!run_stopping(r)) {
		uint64_t now, due, nap;
		unsigned int n = 0;

		if (r->inflight)
			run_reap(r, 0);
		if (d->wbt_on)
			dep_wbt_tick(r, now_mono_ns() - r->start_mono);
		ret = admit_ready(r);
		if (!ret)
			ret = burn_collect(r);
		/* a burner that is done cannot wake this thread: it looks that often */
		nap = dep_burn_out(d) ? BURN_LOOK_NS : 1000000;
		if (d->pace)
			dep_pace_release(r, now_mono_ns() - r->start_mono);
		dep_pace_publish(r);
		if (!ret && d->nsplitq)
			ret = issue_splits(r);
		if (!ret && d->nchainq)
			ret = dep_chain_refill(r);
		if (ret)
			break;
		if (!d->nheap) {
			bool input_done = __atomic_load_n(&r->input_done, __ATOMIC_ACQUIRE) &&
					  !spsc_peek(&r->in);

			if (input_done && d->floor == d->next_seq)
				break; /* everything issued and completed */
			if (d->lock && !r->inflight && !d->nsplitq && !d->nchainq &&
			    !dep_burn_out(d) && (input_done || d->window_was_full) &&
			    dep_lock_unstick(r))
				continue;
			if (!input_done && !spsc_peek(&r->in) && !starved)
				r->res->starved++;
			starved = !input_done && !spsc_peek(&r->in);
			/* waiting for completions to release the next I/Os, or for the decoder */
			if (r->inflight)
				wait_completion(r, spin, nap);
			else
				sched_wait_until(now_mono_ns() + 20000, 0);
			continue;
		}
		starved = false;
		now = now_mono_ns();
		due = r->start_mono + d->heap[0].release;
		if (due > now) {
			/* as timed mode: sleep (here: wait for completions) until the spin window,
			 * but never so long that newly decoded I/Os are not looked at */
			uint64_t left = due - now;

			if (left <= spin) {
				if (left > SPIN_YIELD_NS)
					sched_yield();
				continue;
			}
			left -= spin;
			if (left > nap)
				left = nap;
			if (r->inflight)
				wait_completion(r, left < spin ? left : spin,
						left < spin ? 0 : left - spin);
			else
				sched_wait_until(now + left, 0);
			continue;
		}
		ret = issue_due(r, now - r->start_mono, issued, &n);
		if (!ret && n)
			ret = run_submit(r);
		if (ret)
			break;
		/* submitted: their children on issue edges can be released now */
		for (unsigned int i = 0; i < n; i++) {
			struct dslot *s = &d->slot[issued[i]];

			s->submit_ns = r->last_submit;
			if (d->wbt_on)
				dep_wbt_issued(d, issued[i]);
			if (s->flags & DEP_F_WRITE)
				dep_el_write_out(&d->el, s->stream, s->key);
			if (s->flags & DEP_F_FLUSH)
				dep_el_flush_out(&d->el, s->key, s->flags & DEP_F_META, s->seq);
			dep_wake(d, &s->wait_issue, s);
			if (s->flags & SF_ENGINE)
				chain_look(d, s->stream);
		}
		if (!ret && d->nchainq)
			ret = dep_chain_refill(r);
		if (ret)
			break;
		if (r->inflight >= r->depth)
			run_reap(r, nap);
	}
	dep_burn_stop(r);
	free(issued);
	return ret;
}

/*
 * Dep mode needs completion times and thread ids. A trace without them is refused with what
 * it lacks, or replayed in the mode the user chose for that case (--dep-fallback), never
 * silently in another mode.
 */
static int dep_setup(struct run *r, const struct prescan *p, char *err, size_t errlen)
{
	struct dep_fitness fit = { p->events, p->no_completion, p->no_tid };
	struct dep_mode *m;
	char why[512];
	struct dep_opts o;

	if (!dep_fitness_ok(&fit, why, sizeof(why))) {
		if (r->o->mode == REPLAY_MODE_AUTO) { /* dep was the default, not asked for */
			run_warn(r, "dep mode (the default for recordings): %s; replaying in "
				    "timed mode", why);
			r->mode = REPLAY_TIMED;
			return 0;
		}
		if (!r->o->dep_fallback_set) {
			snprintf(err, errlen,
				 "%s cannot be replayed in dep mode: %s. Replay it with --mode "
				 "timed or afap, or give --dep-fallback timed|afap to do that "
				 "whenever dep mode cannot be used",
				 r->o->trace, why);
			return -EINVAL;
		}
		run_warn(r, "dep mode: %s; replaying in %s mode (--dep-fallback)", why,
			 r->o->dep_fallback == REPLAY_AFAP ? "afap" : "timed");
		r->mode = r->o->dep_fallback;
		return 0;
	}
	if (fit.no_completion)
		run_warn(r, "dep mode: %llu of %llu I/Os have no completion time (ended without a "
			    "completion event the recorder saw, or still in flight at the stop: "
			    "`ioreel info` shows them on its \"no end\" line); each is taken as "
			    "done when it was queued",
			 (unsigned long long)fit.no_completion, (unsigned long long)fit.events);
	if (r->o->dep_set)
		o = r->o->dep;
	else
		dep_opts_default(&o);
	o.bg_by_mix = r->o->root != NULL; /* file level: no kernel threads to tell writers by */
	o.sync_calls = r->o->root != NULL;
	/* the commit lock is on by default at file level; at block level only when asked for
	 * (dep_lock.c, "At block level"): without it, inference keeps no think time there for
	 * the lock to take its wait out of */
	o.commit_lock = o.commit_lock && (r->o->root != NULL || o.commit_lock_block);
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	r->mode_state = m;
	m->infer = dep_infer__new(&o);
	if (!m->infer || dep_sched_new(r, &o)) {
		snprintf(err, errlen, "out of memory for dep mode's window of %u I/Os", DEP_WINDOW);
		return -ENOMEM;
	}
	return 0;
}

/* The calls a source says an I/O must follow (file level: an open, a name's last change,
 * after_back calls back) become completion edges; returns how many. */
static unsigned int add_after(struct dep_info *di, const uint32_t *after_back, unsigned int n)
{
	unsigned int added = 0;

	for (unsigned int k = 0; k < n; k++) {
		uint64_t back = after_back[k];
		struct dep_edge e = { .gap_ns = 0, .back = (uint32_t)back, .kind = DEP_SYNC };
		int slot = -1;

		if (!back || back > DEP_MAX_BACK)
			continue; /* further back than the window: done before this is read */
		for (uint8_t i = 0; i < di->npar && slot < 0; i++)
			if (di->par[i].back == back)
				slot = DEP_MAX_PARENTS; /* already a parent */
		/* no room: a name's or descriptor's order matters more than an overlap or a
		 * barrier edge, which only shape timing */
		for (int kind = DEP_OVERLAP; slot < 0 && di->npar == DEP_MAX_PARENTS;
		     kind = kind == DEP_OVERLAP ? DEP_BARRIER : -1) {
			for (uint8_t i = 0; i < di->npar && slot < 0; i++)
				if (di->par[i].kind == kind)
					slot = i;
			if (kind < 0)
				break;
		}
		if (slot == DEP_MAX_PARENTS)
			continue;
		if (slot < 0) {
			if (di->npar == DEP_MAX_PARENTS)
				continue;
			slot = di->npar++;
		}
		di->par[slot] = e;
		added++;
	}
	return added;
}


/* helper thread: what inference says the I/O just decoded waited for */
static unsigned int dep_annotate(struct run *r, const struct io_event *ev, void *item,
				 const uint32_t *after_back, unsigned int nafter)
{
	struct dep_mode *m = r->mode_state;
	struct dsev *in = item;
	struct dep_info *di = &in->dep;
	uint64_t q = io_event_time(ev);

	in->rec_lat = ev->complete_ns != IO_TS_NONE && ev->complete_ns >= q ? ev->complete_ns - q : 0;
	if (r->o->root) {
		/* file level: inference sees every sync as a flush; group commit counts only
		 * fsync and fdatasync (sync_file_range makes nothing durable), and a write
		 * with RWF_DSYNC only itself */
		uint8_t cls = in->s.op == IO_FOP_WRITE	   ? DEP_F_WRITE
			      : in->s.op == IO_FOP_FSYNC     ? DEP_F_FLUSH | DEP_F_COVERS | DEP_F_META
			      : in->s.op == IO_FOP_FDATASYNC ? DEP_F_FLUSH | DEP_F_COVERS
							     : 0;

		dep_infer__next_as(m->infer, ev, cls, di);
	} else {
		dep_infer__next(m->infer, ev, di);
	}
	return nafter ? add_after(di, after_back, nafter) : 0;
}

/* a safety valve: the threads' own recorded depths hold dep mode back first */
static unsigned int dep_depth(struct run *r)
{
	return r->o->max_inflight ? r->o->max_inflight : 1024;
}

static void dep_finish(struct run *r)
{
	struct dep_mode *m = r->mode_state;
	struct dep_sched *d = m ? m->sched : NULL;

	/* Stopped by --runtime: how far the replay got is the trace time of the first I/O it
	 * had not issued (every one before it was), not the latest one issued: kernel threads'
	 * I/O with no dependency keeps the trace's clock however far behind the database is. */
	if (d && r->res->runtime_hit) {
		for (uint64_t q = d->floor; q < d->next_seq; q++) {
			const struct dslot *s = &d->slot[wslot(q)];

			if (s->state != DS_DONE && s->state != DS_RIDING && s->state != DS_FREE) {
				r->res->trace_reached_ns = s->s.t;
				break;
			}
		}
	}
	if (m && m->infer) {
		r->res->dep = *dep_infer__stats(m->infer);
		r->res->elastic.grounded = r->res->dep.split_grounded;
	}
}

static void dep_free(struct run *r)
{
	struct dep_mode *m = r->mode_state;

	if (!m)
		return;
	dep_infer__free(m->infer);
	dep_sched_free(m->sched);
	free(m);
	r->mode_state = NULL;
}

const struct replay_mode_ops replay_mode_dep = {
	.name = "dep",
	.id = REPLAY_DEP,
	.clocked = true,
	.fed = true,
	.in_item = sizeof(struct dsev),
	.depth = dep_depth,
	.setup = dep_setup,
	.annotate = dep_annotate,
	.loop = dep_loop,
	.done = dep_done,
	.finish = dep_finish,
	.free = dep_free,
};
