// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Dependency inference for `--mode dep`: one pass over the replayed I/Os in queue order, with
 * memory bounded by the threads, flushes and writes in flight, never by the trace's length.
 *
 * Per I/O e of thread T, queued at q, with recorded completions c:
 *  1. Stream edge. If T had nothing in flight at q - eps (file level, where each call is a
 *     system call that returned before the next began: at q), T was blocked or thinking: e depends
 *     on the completion of L, T's latest-completing earlier I/O, with think time q - c(L)
 *     (DEP_SYNC). A think time above think_max means T waited for something outside the
 *     storage (a client, a timer): e keeps its trace time but never goes before L completed
 *     (DEP_WAIT); for a kernel thread, whose next work item has nothing to do with its last,
 *     such an I/O is open. If T had I/O in flight it is asynchronous (AIO, readahead,
 *     writeback): e follows T's previous submission by the recorded gap (DEP_ASYNC), and T
 *     keeps at most as many I/Os in flight as it had then (depth).
 *  2. Barrier edge. A synchronous e also depends on the latest flush-class I/O (flush, FUA,
 *     preflush) of another thread that completed in (c(L), q - eps] and within xwin before q:
 *     an fsync waiting on a journal commit, a lock released by another backend's commit.
 *  3. Overlap edge. A write over an earlier write still in flight is issued after it, so the
 *     device sees them in the recorded order.
 * Edges whose parent lies more than DEP_MAX_BACK I/Os back are dropped (counted).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "replay/dep/dep.h"

#define TID_EMPTY UINT32_MAX
#define GRANULE_SHIFT 16 /* overlap buckets: 64 KiB */
#define OVL_BUCKETS 16384
#define OVL_WAYS 4
#define OVL_MAX_GRANULES 64 /* a write over more granules is checked at both ends only */

struct tid_state {
	uint32_t tid;
	uint32_t stream;      /* dense id */
	uint64_t last_seq;    /* previous I/O of the thread */
	uint64_t last_q;
	uint64_t max_c;	      /* latest recorded completion of its I/Os so far */
	uint64_t max_c_seq;
	uint32_t nwrites; /* writes so far, and whether it read: a background writer? */
	bool reader;
	bool flusher; /* it issued a flush-class I/O: it commits (not a timed writer) */
	/* completions of its I/Os still in flight (a small min-heap), for its depth */
	uint64_t *inflight;
	uint32_t ninflight, capinflight;
};

struct flush_ent {
	uint64_t seq, c;
	uint32_t tid;
	bool kthread;
	/* split's grounding: a flush without data, its key, when it and the key's covering I/O
	 * before it were queued */
	bool flush;
	uint32_t key;
	uint64_t q, prev_cov_q;
};

struct ovl_ent {
	uint64_t seq, q, c, off;
	uint32_t len, dev; /* len 0: empty way */
};

/* A covering I/O (flush, FUA or preflush write, fsync, fdatasync) still in flight. */
struct cov_ent {
	uint64_t q, c;
	uint32_t tid, key;
	bool meta;
};

/* Per (thread, key): when its latest write there completed, when its own latest covering I/O
 * there was queued. Per key (tid TID_EMPTY): when its latest covering I/O was queued. */
struct wkey_ent {
	uint64_t k; /* tid << 32 | key, + 1 (0: empty) */
	uint64_t last_wc;
	uint64_t own_cov_q;
};

struct dep_infer {
	struct dep_opts o;
	struct cov_ent *cov; /* group commit: covering I/Os that may still be in flight */
	uint32_t ncov, capcov;
	struct wkey_ent *wk; /* open addressing, capacity a power of two */
	uint32_t nwk, capwk;
	uint64_t seq;
	struct tid_state *tids; /* open addressing, capacity a power of two */
	uint32_t ntids, captids;
	uint32_t next_stream;
	struct flush_ent *fl; /* flush-class I/Os that may still be barrier parents */
	uint32_t nfl, capfl;
	struct ovl_ent *ovl; /* OVL_BUCKETS x OVL_WAYS writes, recent ones first out */
	struct dep_stats st;
};

const char *dep_kind_name(unsigned int kind)
{
	static const char *const n[DEP__KINDS] = { "open",    "sync",	 "async",
						   "barrier", "overlap", "wait" };

	return kind < DEP__KINDS ? n[kind] : "?";
}

void dep_opts_default(struct dep_opts *o)
{
	/* every field, so that one added later is off, not whatever the caller's stack held */
	*o = (struct dep_opts){
		.eps_ns = 2000,
		.think_max_ns = 10000000,
		.xwin_ns = 1000000,
		.barrier = DEP_BARRIER_ALL,
		.overlap = true,
		.chain = true,
		/* file level only (dep_run.c); measured in replay/README.md */
		.commit_lock = true,
		/* block level: only when --dep-commit-lock on is given */
		.commit_lock_block = false,
		/* dep_pace.c: not measured to help yet */
		.kthread_progress = false,
		/* replay/README.md "--dep-writer-clock": measured there */
		.writer_clock = false,
		/* replay/README.md "Dated wake-ups": measured there */
		.date_wakes = true,
		/* block level: replay/README.md "--dep-wbt" */
		.wbt = DEP_WBT_TARGET,
	};
}

bool dep_fitness_ok(const struct dep_fitness *f, char *why, unsigned long len)
{
	/* A healthy recording misses a few completions (requests the kernel ended without a
	 * completion event, record/LEVELS.md): a few a million, but up to 3.5 % of a short trace
	 * in a burst (a loop device beside another's load). Such I/Os are taken as done when
	 * queued (dep_infer__next_as). More than 10 % means the source had none. */
	if (f->events && f->no_completion * 10 > f->events) {
		snprintf(why, len,
			 "%llu of %llu I/Os have no completion time (an imported fio/MSR log or a "
			 "synthesized trace?): dependencies are inferred from when each I/O "
			 "completed in the recording",
			 (unsigned long long)f->no_completion, (unsigned long long)f->events);
		return false;
	}
	if (f->events && f->no_tid == f->events) {
		snprintf(why, len,
			 "no I/O has a thread id: dependencies are inferred per recorded thread");
		return false;
	}
	return true;
}

struct dep_infer *dep_infer__new(const struct dep_opts *o)
{
	struct dep_infer *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	if (o)
		d->o = *o;
	else
		dep_opts_default(&d->o);
	d->captids = 256;
	d->tids = malloc(d->captids * sizeof(*d->tids));
	d->ovl = calloc((size_t)OVL_BUCKETS * OVL_WAYS, sizeof(*d->ovl));
	if (!d->tids || !d->ovl) {
		dep_infer__free(d);
		errno = ENOMEM;
		return NULL;
	}
	for (uint32_t i = 0; i < d->captids; i++)
		d->tids[i].tid = TID_EMPTY;
	return d;
}

void dep_infer__free(struct dep_infer *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; d->tids && i < d->captids; i++)
		if (d->tids[i].tid != TID_EMPTY)
			free(d->tids[i].inflight);
	free(d->tids);
	free(d->fl);
	free(d->ovl);
	free(d->cov);
	free(d->wk);
	free(d);
}

const struct dep_stats *dep_infer__stats(const struct dep_infer *d)
{
	return &d->st;
}

static uint32_t tid_hash(uint32_t tid, uint32_t cap)
{
	return (tid * 2654435761u) & (cap - 1);
}

static struct tid_state *tid_slot(struct tid_state *t, uint32_t cap, uint32_t tid)
{
	uint32_t i = tid_hash(tid, cap);

	while (t[i].tid != TID_EMPTY && t[i].tid != tid)
		i = (i + 1) & (cap - 1);
	return &t[i];
}

/*
 * Threads come and go (a busy server forks short-lived workers for days): a thread silent
 * for a minute is forgotten when the table fills; if it comes back it starts a new stream,
 * as its next I/O would be open or trace-clocked anyway after so long a gap.
 */
static int tids_make_room(struct dep_infer *d, uint64_t now)
{
	uint32_t cap = d->captids, keep = 0;
	struct tid_state *old = d->tids, *t;

	for (uint32_t i = 0; i < cap; i++)
		if (old[i].tid != TID_EMPTY &&
		    (now < 60000000000ULL || old[i].last_q >= now - 60000000000ULL))
			keep++;
	while (keep * 2 >= cap)
		cap *= 2;
	t = malloc(cap * sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (uint32_t i = 0; i < cap; i++)
		t[i].tid = TID_EMPTY;
	d->ntids = 0;
	for (uint32_t i = 0; i < d->captids; i++) {
		if (old[i].tid == TID_EMPTY)
			continue;
		if (now >= 60000000000ULL && old[i].last_q < now - 60000000000ULL) {
			free(old[i].inflight);
			continue;
		}
		*tid_slot(t, cap, old[i].tid) = old[i];
		d->ntids++;
	}
	free(old);
	d->tids = t;
	d->captids = cap;
	return 0;
}

/* ---- a thread's in-flight completions: a min-heap ---- */

static void heap_drop_done(struct tid_state *s, uint64_t q)
{
	uint64_t *h = s->inflight;

	while (s->ninflight && h[0] <= q) {
		uint64_t last = h[--s->ninflight];
		uint32_t i = 0;

		for (;;) {
			uint32_t c = 2 * i + 1;

			if (c >= s->ninflight)
				break;
			if (c + 1 < s->ninflight && h[c + 1] < h[c])
				c++;
			if (h[c] >= last)
				break;
			h[i] = h[c];
			i = c;
		}
		if (s->ninflight)
			h[i] = last;
	}
}

static int heap_add(struct tid_state *s, uint64_t c)
{
	uint32_t i;

	if (s->ninflight == s->capinflight) {
		uint32_t cap = s->capinflight ? s->capinflight * 2 : 8;
		uint64_t *h;

		/* a thread with more in flight than this is not tracked deeper: its depth is
		 * reported as the cap, which only loosens its limit */
		if (cap > 65536)
			return -E2BIG;
		h = realloc(s->inflight, cap * sizeof(*h));
		if (!h)
			return -ENOMEM;
		s->inflight = h;
		s->capinflight = cap;
	}
	i = s->ninflight++;
	while (i) {
		uint32_t p = (i - 1) / 2;

		if (s->inflight[p] <= c)
			break;
		s->inflight[i] = s->inflight[p];
		i = p;
	}
	s->inflight[i] = c;
	return 0;
}

/* ---- barrier and overlap candidates ---- */

static bool is_flush_class(const struct io_event *ev)
{
	return ev->op == IO_OP_FLUSH || (ev->flags & (IO_F_FUA | IO_F_PREFLUSH));
}

/* Forgets flush-class I/Os completed before lo: too old for this and every later I/O. */
static void barrier_prune(struct dep_infer *d, uint64_t lo)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < d->nfl; i++)
		if (d->fl[i].c >= lo)
			d->fl[n++] = d->fl[i];
	d->nfl = n;
}

/* The latest flush-class completion of another thread in (after, upto], not before lo. */
static const struct flush_ent *barrier_find(struct dep_infer *d, uint32_t tid, uint64_t after,
					    uint64_t upto, uint64_t lo)
{
	const struct flush_ent *best = NULL;

	barrier_prune(d, lo);
	for (uint32_t i = 0; i < d->nfl; i++) {
		const struct flush_ent *f = &d->fl[i];

		if (f->tid != tid && f->c > after && f->c <= upto && (!best || f->c > best->c) &&
		    (d->o.barrier == DEP_BARRIER_ALL || f->kthread))
			best = f;
	}
	return best;
}

static void barrier_add(struct dep_infer *d, uint64_t seq, uint32_t tid, bool kthread, uint64_t c,
			uint64_t q, const struct flush_ent *more)
{
	if (d->nfl == d->capfl)
		barrier_prune(d, q > d->o.xwin_ns ? q - d->o.xwin_ns : 0);
	if (d->nfl == d->capfl) {
		uint32_t cap = d->capfl ? d->capfl * 2 : 64;
		struct flush_ent *f;

		/* an unbounded burst of flushes in flight: keep the newest candidates */
		if (cap > (1u << 20)) {
			memmove(d->fl, d->fl + d->nfl / 2, (d->nfl - d->nfl / 2) * sizeof(*f));
			d->nfl -= d->nfl / 2;
		} else {
			f = realloc(d->fl, cap * sizeof(*f));
			if (!f)
				return; /* a missed barrier edge, not an error */
			d->fl = f;
			d->capfl = cap;
		}
	}
	d->fl[d->nfl++] = (struct flush_ent){ .seq = seq, .c = c, .tid = tid, .kthread = kthread,
					      .flush = more->flush, .key = more->key, .q = q,
					      .prev_cov_q = more->prev_cov_q };
}

static struct ovl_ent *ovl_bucket(struct dep_infer *d, uint32_t dev, uint64_t granule)
{
	uint64_t h = (granule ^ ((uint64_t)dev << 40)) * 0x9E3779B97F4A7C15ULL;

	return &d->ovl[(h >> 50) % OVL_BUCKETS * OVL_WAYS];
}

/* The latest earlier write overlapping [off, off+len) still in flight at q, or NULL. */
static const struct ovl_ent *overlap_find(struct dep_infer *d, const struct io_event *ev,
					  uint64_t q)
{
	uint64_t g0 = ev->offset >> GRANULE_SHIFT;
	uint64_t g1 = (ev->offset + ev->length - 1) >> GRANULE_SHIFT;
	const struct ovl_ent *best = NULL;

	for (uint64_t g = g0; g <= g1; g++) {
		struct ovl_ent *b;

		if (g1 - g0 >= OVL_MAX_GRANULES && g != g0 && g != g1)
			continue;
		b = ovl_bucket(d, ev->dev, g);
		for (int w = 0; w < OVL_WAYS; w++) {
			struct ovl_ent *x = &b[w];

			if (!x->len || x->dev != ev->dev || x->c <= q)
				continue;
			if (x->off < ev->offset + ev->length && ev->offset < x->off + x->len &&
			    (!best || x->seq > best->seq))
				best = x;
		}
	}
	return best;
}

static void overlap_add(struct dep_infer *d, const struct io_event *ev, uint64_t seq, uint64_t q,
			uint64_t c)
{
	uint64_t g0 = ev->offset >> GRANULE_SHIFT;
	uint64_t g1 = (ev->offset + ev->length - 1) >> GRANULE_SHIFT;

	for (uint64_t g = g0; g <= g1; g++) {
		struct ovl_ent *b, *victim;

		if (g1 - g0 >= OVL_MAX_GRANULES && g != g0 && g != g1)
			continue;
		b = ovl_bucket(d, ev->dev, g);
		victim = &b[0];
		/* replace an empty or finished way, else the one that finishes first */
		for (int w = 0; w < OVL_WAYS; w++) {
			if (!b[w].len || b[w].c <= q) {
				victim = &b[w];
				break;
			}
			if (b[w].c < victim->c)
				victim = &b[w];
		}
		*victim = (struct ovl_ent){ .seq = seq, .q = q, .c = c, .off = ev->offset,
					    .len = ev->length, .dev = ev->dev };
	}
}

/* ---- group commit: was a flush already covered when the recording issued it? ---- */

static struct wkey_ent *wkey_slot(struct dep_infer *d, uint32_t tid, uint32_t key, bool add)
{
	uint64_t k = ((uint64_t)tid << 32 | key) + 1;
	uint32_t i;

	if (add && (d->nwk + 1) * 2 > d->capwk) {
		uint32_t cap = d->capwk ? d->capwk * 2 : 256;
		struct wkey_ent *t = calloc(cap, sizeof(*t)), *old = d->wk;

		if (!t)
			return NULL; /* a flush not marked redundant: only a missed grounding */
		for (uint32_t j = 0; j < d->capwk; j++) {
			if (!old[j].k)
				continue;
			i = (uint32_t)((old[j].k * 0x9E3779B97F4A7C15ULL) >> 32) & (cap - 1);
			while (t[i].k)
				i = (i + 1) & (cap - 1);
			t[i] = old[j];
		}
		free(old);
		d->wk = t;
		d->capwk = cap;
	}
	if (!d->capwk)
		return NULL;
	i = (uint32_t)((k * 0x9E3779B97F4A7C15ULL) >> 32) & (d->capwk - 1);
	while (d->wk[i].k && d->wk[i].k != k)
		i = (i + 1) & (d->capwk - 1);
	if (!d->wk[i].k) {
		if (!add)
			return NULL;
		d->wk[i].k = k;
		d->nwk++;
	}
	return &d->wk[i];
}

/*
 * A flush of thread tid on key queued at q was redundant in the recording when another
 * thread's covering I/O was in flight then (queued before q, completing after it) and had
 * been queued after every write of tid to key completed: the database issued it anyway, so
 * it does not share flushes there (independent processes, a journal), and replay keeps it.
 */
static bool cov_redundant(struct dep_infer *d, uint32_t tid, uint32_t key, bool meta, uint64_t q)
{
	const struct wkey_ent *w = wkey_slot(d, tid, key, false);
	uint64_t last_wc = w ? w->last_wc : 0;
	uint32_t n = 0;
	bool red = false;

	for (uint32_t i = 0; i < d->ncov; i++) {
		const struct cov_ent *g = &d->cov[i];

		if (g->c <= q)
			continue; /* done: forgotten (queue times only grow) */
		d->cov[n++] = *g;
		if (g->key == key && g->tid != tid && g->q <= q && (g->meta || !meta) &&
		    last_wc <= g->q)
			red = true;
	}
	d->ncov = n;
	return red;
}

static void cov_add(struct dep_infer *d, uint32_t tid, uint32_t key, bool meta, uint64_t q,
		    uint64_t c)
{
	if (d->ncov == d->capcov) {
		uint32_t n = 0;

		for (uint32_t i = 0; i < d->ncov; i++)
			if (d->cov[i].c > q)
				d->cov[n++] = d->cov[i];
		d->ncov = n;
	}
	if (d->ncov == d->capcov) {
		uint32_t cap = d->capcov ? d->capcov * 2 : 64;
		struct cov_ent *t;

		if (cap > (1u << 20))
			return; /* a burst of flushes beyond any database's: missed grounding only */
		t = realloc(d->cov, cap * sizeof(*t));
		if (!t)
			return;
		d->cov = t;
		d->capcov = cap;
	}
	d->cov[d->ncov++] = (struct cov_ent){ .q = q, .c = c, .tid = tid, .key = key, .meta = meta };
}

/* What the I/O is to the elastic models, from its op and flags (block level). */
static uint8_t class_of(const struct io_event *ev)
{
	uint8_t f = 0;

	if (ev->op == IO_OP_WRITE)
		f |= DEP_F_WRITE;
	if (ev->op == IO_OP_FLUSH)
		f |= DEP_F_FLUSH | DEP_F_COVERS | DEP_F_META;
	/* a preflush makes what completed before it durable; FUA only the write itself */
	if (ev->flags & IO_F_PREFLUSH)
		f |= DEP_F_COVERS | DEP_F_META;
	return f;
}

/*
 * The thread woke after another thread's flush f (a barrier edge): did it wait on f to make
 * its own writes durable? Yes when f was a flush without data, the thread's latest write to
 * f's key completed before f was queued but after the key's covering I/O before f was, and
 * the thread did not cover it itself. Replay may then issue a flush of its own for it where f
 * no longer covers it (split).
 */
static bool split_grounded(struct dep_infer *d, uint32_t tid, const struct flush_ent *f)
{
	const struct wkey_ent *w;

	if (!f->flush)
		return false;
	w = wkey_slot(d, tid, f->key, false);
	return w && w->last_wc && w->last_wc <= f->q && w->last_wc > f->prev_cov_q &&
	       w->own_cov_q < w->last_wc;
}

/* ---- the pass ---- */

/* Group commit's grounding: which flushes the recording issued though already covered. */
static void elastic_note(struct dep_infer *d, const struct io_event *ev, uint8_t cls, uint64_t q,
			 uint64_t c, bool has_c, struct dep_info *out)
{
	bool meta = cls & DEP_F_META;

	if (cls & DEP_F_FLUSH) {
		d->st.flushes++;
		if (cov_redundant(d, ev->tid, ev->dev, meta, q)) {
			out->flags |= DEP_F_REDUNDANT;
			d->st.redundant++;
		}
	}
	if (has_c && (cls & DEP_F_WRITE)) {
		struct wkey_ent *w = wkey_slot(d, ev->tid, ev->dev, true);

		if (w && c > w->last_wc)
			w->last_wc = c;
	}
	if (has_c && (cls & DEP_F_COVERS) && c > q)
		cov_add(d, ev->tid, ev->dev, meta, q, c);
}

static void add_edge(struct dep_infer *d, struct dep_info *out, uint64_t seq, uint64_t parent,
		     uint8_t kind, uint64_t gap)
{
	if (seq - parent > DEP_MAX_BACK) {
		d->st.dropped_far++;
		return;
	}
	for (uint8_t i = 0; i < out->npar; i++)
		if (out->par[i].back == seq - parent && out->par[i].kind == kind)
			return;
	out->par[out->npar++] = (struct dep_edge){ .gap_ns = gap,
						   .back = (uint32_t)(seq - parent),
						   .kind = kind };
	d->st.edges[kind]++;
}

void dep_infer__next(struct dep_infer *d, const struct io_event *ev, struct dep_info *out)
{
	dep_infer__next_as(d, ev, class_of(ev), out);
}

void dep_infer__next_as(struct dep_infer *d, const struct io_event *ev, uint8_t cls,
			struct dep_info *out)
{
	uint64_t seq = d->seq++;
	uint64_t q = io_event_time(ev);
	bool has_c = ev->complete_ns != IO_TS_NONE && ev->complete_ns >= q;
	/* without a completion, the I/O is taken as done when queued: never waited for */
	uint64_t c = has_c ? ev->complete_ns : q;
	bool kthread = ev->flags & IO_F_KTHREAD;
	struct tid_state *t;
	uint64_t prev_cov_q = 0;
	bool fresh, bg, timer;

	memset(out, 0, sizeof(*out));
	out->kind = DEP_OPEN;
	out->key = ev->dev;
	out->flags = (uint8_t)(cls | (kthread ? DEP_F_KTHREAD : 0));
	if (!has_c)
		d->st.no_completion++;
	if (kthread)
		d->st.kthread++;
	if (d->ntids * 2 >= d->captids && tids_make_room(d, q))
		goto done; /* out of memory: this I/O stays open */
	t = tid_slot(d->tids, d->captids, ev->tid);
	fresh = t->tid == TID_EMPTY;
	if (fresh) {
		memset(t, 0, sizeof(*t));
		t->tid = ev->tid;
		t->stream = d->next_stream++;
		d->ntids++;
		d->st.streams++;
	}
	if (ev->op == IO_OP_READ && ev->length)
		t->reader = true;
	if (ev->op == IO_OP_WRITE)
		t->nwrites++;
	if ((cls & DEP_F_COVERS) || is_flush_class(ev))
		t->flusher = true;
	bg = kthread || (d->o.bg_by_mix && !t->reader && t->nwrites >= DEP_BG_WRITES);
	/* --dep-writer-clock trace: a user thread that has only written, never read nor flushed,
	 * is a writer on a timer of its own (PostgreSQL's checkpointer and background writer,
	 * whose *_flush_after hands their pages to the block layer): no other thread's flush
	 * woke it, and after a pause its next batch is due at its trace time */
	timer = !kthread && d->o.writer_clock && !t->reader && !t->flusher &&
		t->nwrites >= DEP_BG_WRITES;
	if (timer)
		d->st.writer++;
	if (!fresh) {
		uint64_t since = q > d->o.eps_ns ? q - d->o.eps_ns : 0;

		/* its depth counts what was still in flight at q itself: a completion at q freed
		 * the slot this I/O took (eps only decides whether the thread had waited) */
		heap_drop_done(t, q);
		out->depth = t->ninflight > UINT16_MAX ? UINT16_MAX : (uint16_t)t->ninflight;
		if (t->max_c > since && !(d->o.sync_calls && !t->ninflight)) {
			out->kind = DEP_ASYNC;
			add_edge(d, out, seq, t->last_seq, DEP_ASYNC, q - t->last_q);
		} else if (q - t->max_c > d->o.think_max_ns) {
			/* with --dep-absorb a file-level background writer's next batch is new
			 * work too, as a kernel thread's: its writes can then be absorbed */
			if (!kthread && !(bg && d->o.absorb) && !timer) {
				out->kind = DEP_WAIT;
				add_edge(d, out, seq, t->max_c_seq, DEP_WAIT, q - t->max_c);
			} else if (!kthread) {
				/* still on the trace's clock, but never issued before the
				 * thread's own previous call was: that may be the open of the
				 * descriptor it writes to (without this edge, a write of a
				 * lagging writer went out before its open: EBADF) */
				add_edge(d, out, seq, t->last_seq, DEP_ASYNC, 0);
			}
		} else {
			const struct flush_ent *f = NULL;

			out->kind = DEP_SYNC;
			add_edge(d, out, seq, t->max_c_seq, DEP_SYNC, q - t->max_c);
			if (d->o.barrier != DEP_BARRIER_NONE && !timer)
				f = barrier_find(d, ev->tid, t->max_c, since,
						 q > d->o.xwin_ns ? q - d->o.xwin_ns : 0);
			if (f) {
				add_edge(d, out, seq, f->seq, DEP_BARRIER, q - f->c);
				/*
				 * The thread woke after that flush, so its gap since its own last
				 * completion holds its wait for the flush: only the time after the
				 * flush is think time. Keeping both gaps made each I/O wait for
				 * the later of two noisy delays, and such maxima only grow: a
				 * pgbench trace replayed onto its own device took 1.05x as long,
				 * 1.00x this way.
				 */
				if (!(d->o.commit_lock && (cls & DEP_F_WRITE) && !kthread &&
				      !(cls & DEP_F_COVERS) && f->flush && f->key == ev->dev))
					out->par[0].gap_ns = 0;
				/* else: a write waking on another thread's flush of its file
				 * keeps its gap, which the commit lock (dep_lock.c) takes the
				 * wait for the lock out of */
				if (split_grounded(d, ev->tid, f)) {
					out->flags |= DEP_F_SPLIT;
					d->st.split_grounded++;
				}
			}
		}
	}
	out->stream = t->stream;
	if (bg)
		out->flags |= DEP_F_BG;
	if (d->o.overlap && ev->op == IO_OP_WRITE && ev->length) {
		const struct ovl_ent *w = overlap_find(d, ev, q);

		if (w && out->npar < DEP_MAX_PARENTS)
			add_edge(d, out, seq, w->seq, DEP_OVERLAP, q - w->q);
		overlap_add(d, ev, seq, q, c);
	}
	t->last_seq = seq;
	t->last_q = q;
	if (c >= t->max_c) {
		t->max_c = c;
		t->max_c_seq = seq;
	}
	if (has_c && c > q)
		heap_add(t, c);
	if (cls & DEP_F_COVERS) {
		/* the key's covering I/Os in queue order: split's grounding */
		struct wkey_ent *k = wkey_slot(d, TID_EMPTY, ev->dev, true);
		struct wkey_ent *own = wkey_slot(d, ev->tid, ev->dev, true);

		if (k) {
			prev_cov_q = k->last_wc;
			k->last_wc = q;
		}
		if (own)
			own->own_cov_q = q;
	}
	if (has_c && is_flush_class(ev)) {
		struct flush_ent more = { .flush = cls & DEP_F_FLUSH, .key = ev->dev,
					  .prev_cov_q = prev_cov_q };

		barrier_add(d, seq, ev->tid, kthread, c, q, &more);
	}
	elastic_note(d, ev, cls, q, c, has_c, out);
done:
	d->st.kind[out->kind]++;
}
