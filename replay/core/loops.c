// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Three rows of the mode table: timed (each I/O at its recorded moment), afap (as fast as the
 * cap allows) and closed (each synthesized stream keeps its depth in flight). Dep mode, which
 * releases each I/O once what it waited for completed, is in replay/dep/.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "replay/core/run.h"
#include "util/cli.h"

/* A closed-loop stream: its events in order, how many are in flight, and what the trace says
 * it runs (its group, start delay, runtime or I/O count, think time, latency target:
 * formats/FORMAT.md, "Streams"). Times are on the replay's clock (ns since its start). */
struct cstream {
	struct sev *ev;
	uint64_t n, cap, pos, issued, completed;
	uint32_t depth, inflight; /* depth: the record's, or where the latency search is */
	bool ended;		  /* the latency search ended it (fio's td->done) */
	struct trace_stream rec;
	/* think time (fio's handle_thinktime) */
	uint64_t think_mark;   /* the I/O count at the last pause */
	uint64_t think_issued; /* issued when it last paused: fio looks after an issue only */
	uint64_t reaped;       /* completions fio would have reaped (its io_blocks) */
	uint64_t io_since;     /* when its I/O since the last pause began (thinktime_iotime) */
	uint64_t pause_at, spin_until, pause_until; /* pausing while now < pause_until */
	bool draining; /* a pause is due once the in-flight I/Os complete */
	bool started;
	/* the latency search (fio's target.c) */
	uint32_t qd_low, qd_high, windows;
	uint64_t win_start, win_ios, win_failed;
	bool quiesce;	      /* a step down: no I/O until those in flight complete */
	bool final;	      /* settled: the last window, at the depth found */
	bool settled, missed; /* for the report: it settled; it failed at depth 1 */
	uint32_t found;	      /* the depth of the last window that met the target */
	/* a rate cap (fio's rate beside unrated jobs): bytes issued per direction since start */
	uint64_t rate_start, rate_bytes[3], rate_until;
	bool exited; /* EXIT: its end has ended the streams it ends */
	/* Chains (engines that chain: threads): a stream at depth 1 whose next I/O waits for
	 * nothing but the completion of the one before (no think time, rate or latency
	 * target) has that next one queued behind it in the stream's worker, which makes it
	 * the moment the one before completes, as fio's job thread issues its next I/O. A
	 * round trip through the scheduling thread costs two wake-ups (28-55 us here), more
	 * than a fallocate of 2 us. ahead: the I/Os waiting in the worker behind the one in
	 * flight, up to chain_ahead(), so that the scheduling thread, woken by a completion,
	 * finds several to reap and the worker is not left waiting for it. call_ns: the
	 * stream's calls' recent mean time (submit to completion), which sets how many. */
	bool chain;
	uint32_t ahead;
	uint64_t call_ns;
};

/*
 * How many of a chaining stream's calls wait in its worker: about CHAIN_AHEAD_NS of them
 * (so a time-based stream's end waits for about that much queued work, whatever its calls
 * cost), CHAIN_AHEAD_FIRST before one was timed, at least CHAIN_AHEAD_MIN, at most
 * chain_ahead_max() or the stream's share of the slots left (closed_chain_room). The scheduling
 * thread is woken once a quarter of them is left, and while calls wait in the workers it
 * sleeps up to CHAIN_REAP_NS for a completion (1 ms otherwise). With 32 ahead, woken every 28
 * calls, the two workers of fio's falloc.fio punch_hole-fuzzer (2-4 us calls on xfs) ran at
 * 0.60-0.68 of fio's calls/s: each wake took a CPU from a worker holding the inode's lock
 * (0.11 context switches per call, fio 0.001); with 1 ms ahead and helper_nap_us
 * (schedule.c), 0.92-0.94 (0.02 switches per call). Half of those were then the scheduling
 * thread's 1 ms timed waits for completions that the lazy ones never signal; with 4 ms ahead,
 * as long a wait and the result thread's nap at 4 ms, 0.005 switches per call and x1.03 of
 * fio's calls/s (ten rounds in turn, medians; the build before x0.90, 0.016 switches).
 */
#define CHAIN_AHEAD_NS 4000000
#define CHAIN_AHEAD_FIRST 32
#define CHAIN_AHEAD_MIN 4
#define CHAIN_AHEAD_MAX 1024
#define CHAIN_AHEAD_BYTES (256u << 20) /* the slots' buffers one stream may hold ahead */
#define CHAIN_REAP_NS CHAIN_AHEAD_NS
#define CHAIN_SUBMIT 16 /* chained calls handed to the engine at a time (loop_closed) */

struct closed {
	struct cstream *cs;
	uint32_t ncs;
	/* over the streams with events (closed_prepare): their depths and how many chain */
	uint64_t depth;
	uint32_t nchain;
	/* each stream's thread (its first I/O's), for the engine to start before the clock */
	uint32_t *tids;
	uint32_t ntids;
};

/* A synthesized timed job (--rate-iops) keeps at most numjobs x iodepth in flight, as fio
 * does: when the target falls behind, fio's rate lags rather than queueing without bound. A
 * recorded trace has no such limit: 1024. */
static unsigned int timed_depth(struct run *r)
{
	uint64_t want = 0;

	for (uint32_t i = 0; i < r->meta->nstreams && i < TRACE_MAX_STREAMS; i++)
		want += r->meta->streams[i].depth;
	if (r->o->max_inflight)
		return r->o->max_inflight;
	return want ? (unsigned int)(want < 65536 ? want : 65536) : 1024;
}

static unsigned int afap_depth(struct run *r)
{
	return r->o->iodepth ? r->o->iodepth : 32;
}

/*
 * A closed-loop trace's streams each keep their depth in flight; past this many together they
 * share the cap (and --max-inflight raises it): 64 jobs at iodepth 64, the largest RAID-study
 * shape, fit.
 */
#define CLOSED_DEPTH_DEFAULT 4096

/* The most calls a chaining stream keeps ahead: CHAIN_AHEAD_MAX, fewer where their buffers
 * (each a slot's, sized for the trace's largest I/O) would pass CHAIN_AHEAD_BYTES. */
static uint32_t chain_ahead_max(const struct run *r)
{
	size_t n = r->slot_bytes ? CHAIN_AHEAD_BYTES / r->slot_bytes : CHAIN_AHEAD_MAX;

	return (uint32_t)(n > CHAIN_AHEAD_MAX ? CHAIN_AHEAD_MAX
			  : n < CHAIN_AHEAD_FIRST ? CHAIN_AHEAD_FIRST : n);
}

static unsigned int closed_depth(struct run *r)
{
	const struct closed *c = r->mode_state;
	/* a chaining stream's next I/O takes a slot while it waits in the worker: the first
	 * CHAIN_AHEAD_FIRST count as its own, up to chain_ahead_max() where the cap leaves room */
	uint64_t want = c->depth + (uint64_t)c->nchain * CHAIN_AHEAD_FIRST;
	uint64_t ahead = (uint64_t)c->nchain * (chain_ahead_max(r) - CHAIN_AHEAD_FIRST);

	if (!want)
		want = 1;
	if (r->o->max_inflight) {
		if (want > r->o->max_inflight)
			run_warn(r, "the streams keep %llu I/Os in flight together; --max-inflight "
				    "%u caps them and they share it",
				 (unsigned long long)want, r->o->max_inflight);
		return r->o->max_inflight;
	}
	if (want > CLOSED_DEPTH_DEFAULT) {
		run_warn(r, "the streams keep %llu I/Os in flight together; capped at %u, which "
			    "they share (--max-inflight N raises it, up to 65536)",
			 (unsigned long long)want, CLOSED_DEPTH_DEFAULT);
		return CLOSED_DEPTH_DEFAULT;
	}
	want += ahead;
	return (unsigned int)(want < CLOSED_DEPTH_DEFAULT ? want : CLOSED_DEPTH_DEFAULT);
}

/* Each chaining stream's share of the slots its depth leaves (closed_depth): what may wait in
 * its worker at most. */
static uint32_t closed_chain_room(const struct run *r, const struct closed *c)
{
	uint64_t room, most;

	if (!c->nchain || c->depth >= r->depth)
		return 0;
	room = (r->depth - c->depth) / c->nchain;
	most = chain_ahead_max(r);
	return (uint32_t)(room < most ? room : most);
}

static uint32_t chain_ahead(const struct cstream *c, uint32_t room)
{
	uint64_t n = c->call_ns ? CHAIN_AHEAD_NS / c->call_ns : CHAIN_AHEAD_FIRST;

	if (n < CHAIN_AHEAD_MIN)
		n = CHAIN_AHEAD_MIN;
	return (uint32_t)(n < room ? n : room);
}

/* Closed mode keeps each stream's events in memory: they are cycled for time_based jobs and
 * I/O counts beyond them. */
static int closed_add(struct run *r, const struct sev *s, void *arg)
{
	struct closed *c = arg;
	struct cstream *st = &c->cs[s->stream < c->ncs ? s->stream : c->ncs - 1];

	(void)r;
	if (st->n == st->cap) {
		uint64_t cap = st->cap ? st->cap * 2 : 1024;
		struct sev *ev = realloc(st->ev, cap * sizeof(*ev));

		if (!ev)
			return -ENOMEM;
		st->ev = ev;
		st->cap = cap;
	}
	st->ev[st->n] = *s;
	st->ev[st->n++].stream = (uint32_t)(st - c->cs);
	return 0;
}

/* Whether stream st may chain (struct cstream): the engine chains (threads) and --dep-chain
 * is not off, and only its previous I/O's completion decides when its next one goes. A trace
 * of this one stream does not chain: the replay's depth is then 1, and the engine makes each
 * call on the scheduling thread, with no hand-off at all (engine_threads.c). */
static bool closed_may_chain(const struct run *r, const struct closed *c,
			     const struct cstream *st)
{
	const uint32_t waits = TRACE_STREAM_THINK | TRACE_STREAM_RATE | TRACE_STREAM_LAT_TARGET;

	return r->eng->chains && (!r->o->dep_set || r->o->dep.chain) && st->depth == 1 &&
	       !(st->rec.flags & waits) && c->ncs > 1;
}

static int closed_prepare(struct run *r, const struct prescan *p, char *err, size_t errlen)
{
	struct closed *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return -ENOMEM;
	r->mode_state = c;
	c->ncs = p->max_stream + 1;
	if (c->ncs > TRACE_MAX_STREAMS)
		c->ncs = TRACE_MAX_STREAMS;
	c->cs = calloc(c->ncs, sizeof(*c->cs));
	if (!c->cs)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->ncs; i++) {
		struct cstream *st = &c->cs[i];

		if (i < r->meta->nstreams) {
			st->rec = r->meta->streams[i];
		} else if (r->meta->time_based && r->meta->runtime_ns) {
			st->rec.flags = TRACE_STREAM_TIME_BASED;
			st->rec.runtime_ns = r->meta->runtime_ns;
		}
		st->depth = st->rec.depth ? st->rec.depth : 1;
		st->chain = closed_may_chain(r, c, st);
	}
	ret = r->src->each(r, closed_add, c, err, errlen);
	if (!ret && !(c->tids = calloc(c->ncs, sizeof(*c->tids))))
		ret = -ENOMEM;
	for (uint32_t i = 0; !ret && i < c->ncs; i++) {
		c->depth += c->cs[i].n ? c->cs[i].depth : 0;
		c->nchain += c->cs[i].n && c->cs[i].chain;
		if (c->cs[i].n)
			c->tids[c->ntids++] = c->cs[i].ev[0].tid;
	}
	r->pre_tids = c->tids;
	r->npre_tids = c->ntids;
	return ret;
}

/*
 * fio's latency_target (its target.c): the stream starts at depth 1 and, at the end of each
 * window, doubles the depth while its I/Os meet the target (bisects toward the lowest depth
 * that failed, once one has), and steps halfway down toward the last good depth when they do
 * not. A depth the step leaves unchanged has settled: one more window at it, then the stream
 * ends (latency_run: it goes on judging windows until its runtime).
 */
static void lat_new_window(struct cstream *c, uint64_t now)
{
	c->win_start = now;
	c->win_ios = c->completed;
	c->win_failed = 0;
}

/* fio's __lat_target_failed. At depth 1 there is nowhere to go: with a 100 % target a late I/O
 * ends the stream (fio ends the job with ETIMEDOUT); a window that missed a lower share is
 * judged again. The step down waits for the I/O in flight (fio's io_u_quiesce), so a storm of
 * late completions from the deeper queue counts once. */
static void lat_failed(struct cstream *c, uint64_t now, bool fatal)
{
	if (c->depth == 1) {
		c->missed = true;
		c->ended |= fatal;
		lat_new_window(c, now);
		return;
	}
	c->qd_high = c->depth;
	if (c->depth == c->qd_low)
		c->qd_low--;
	c->depth = (c->depth + c->qd_low) / 2;
	c->quiesce = true;
}

/* fio's lat_target_success */
static void lat_success(struct cstream *c, uint64_t now)
{
	uint32_t qd = c->depth;

	c->found = qd;
	c->qd_low = qd;
	if (c->qd_high != c->rec.depth)
		c->depth = (qd + c->qd_high) / 2;
	else
		c->depth = qd * 2;
	if (c->depth > c->rec.depth)
		c->depth = c->rec.depth;
	if (c->depth == qd) {
		c->settled = true;
		if (c->final && !(c->rec.flags & TRACE_STREAM_LAT_RUN)) {
			c->ended = true;
		} else if (!c->final) {
			/* the last window runs at the depth found alone */
			c->final = true;
			c->quiesce = true;
		}
	}
	lat_new_window(c, now);
}

/* fio's __lat_target_check: judge the window once it is over and saw a completion */
static void lat_check(struct cstream *c, uint64_t now)
{
	uint64_t ios;

	if (!(c->rec.flags & TRACE_STREAM_LAT_TARGET) || c->quiesce || c->ended ||
	    now - c->win_start < c->rec.lat_window_ns)
		return;
	ios = c->completed - c->win_ios;
	if (!ios)
		return;
	c->windows++;
	if ((unsigned __int128)(ios - c->win_failed) * 1000000u >=
	    (unsigned __int128)ios * c->rec.lat_pct_ppm)
		lat_success(c, now);
	else
		lat_failed(c, now, false);
}

static bool think_by_completion(const struct cstream *c)
{
	return (c->rec.flags & TRACE_STREAM_THINK) && !(c->rec.flags & TRACE_STREAM_THINK_ISSUE);
}

static uint64_t think_count(const struct cstream *c)
{
	return think_by_completion(c) ? c->reaped : c->issued;
}

/*
 * fio counts thinktime_blocks by completion in td->io_blocks, which grows only as it reaps,
 * and its do_io loop reaps only when its queue is full, iodepth_batch_complete_min (1) at a
 * time when it keeps up with the device: completed I/Os it has not reaped still hold their
 * slots. So a stream counting by completion frees one slot per reap here, however many
 * completions the engine returned together, and the pauses fall where fio's do whatever the
 * device's timing (fio 3.33 on a loop device at iodepth 8, thinktime_blocks 8: 15, then 8
 * each; counting every completion as the engine returned them gave 80 pauses for fio's 99).
 * Returns whether the stream has a free slot, as fio's would be.
 */
static bool think_reap(struct cstream *c)
{
	if (!think_by_completion(c))
		return true;
	while (c->issued - c->reaped >= c->depth && c->completed > c->reaped)
		c->reaped++;
	return c->issued - c->reaped < c->depth;
}

/* fio's handle_thinktime: a pause is due after thinktime_blocks I/Os, or thinktime_iotime of
 * I/O, whichever comes first; with thinktime_iotime alone, by time only */
static bool think_due(const struct cstream *c, uint64_t now)
{
	const struct trace_stream *t = &c->rec;

	/* fio's handle_thinktime runs after each issue: never twice without one between */
	if (!(t->flags & TRACE_STREAM_THINK) || c->issued == c->think_issued)
		return false;
	if (t->think_iotime_ns) {
		if (now - c->io_since >= t->think_iotime_ns)
			return true;
		if (!t->think_blocks)
			return false;
	}
	return think_count(c) >= c->think_mark + (t->think_blocks ? t->think_blocks : 1);
}

/* The rate cap's direction of an event (fio rates reads, writes and trims; a flush never
 * waits): 0 read, 1 write, 2 trim, -1 none. */
static int rate_dir(const struct sev *e)
{
	switch (e->op) {
	case IO_OP_READ:
		return 0;
	case IO_OP_WRITE:
	case IO_OP_WRITE_ZEROES:
		return 1;
	case IO_OP_DISCARD:
		return 2;
	default:
		return -1;
	}
}

/* How far ahead a rated stream looks for an I/O of the other direction (fio's rate_ddir) */
#define RATE_LOOKAHEAD 64

static uint64_t rate_due(const struct cstream *c, int d)
{
	uint64_t bps = d < 0 ? 0 : c->rec.rate_bps[d];

	if (!bps)
		return 0;
	return c->rate_start + (uint64_t)((unsigned __int128)c->rate_bytes[d] * 1000000000u / bps);
}

/*
 * fio's rate (rate_ddir, usec_for_io): an I/O of direction d goes out once the job has run
 * (bytes of d issued so far) / rate_bps[d]. When the next I/O's direction is ahead of its
 * rate and the other one (read or write) is due sooner, fio issues the other direction: here
 * the next I/O of that direction, within RATE_LOOKAHEAD events, moves up to be issued first.
 * Before it sleeps, the job lets its I/O in flight complete (io_u_quiesce).
 */
static bool rate_allows(struct cstream *c, uint64_t now)
{
	uint64_t p, due, end;
	int d;

	c->rate_until = 0;
	if (!(c->rec.flags & TRACE_STREAM_RATE) || !c->n)
		return true;
	p = c->pos == c->n ? 0 : c->pos;
	d = rate_dir(&c->ev[p]);
	due = rate_due(c, d);
	if (now >= due)
		return true;
	end = c->n - p > RATE_LOOKAHEAD ? p + RATE_LOOKAHEAD : c->n;
	for (uint64_t k = p + 1; d < 2 && k < end; k++) {
		int o = rate_dir(&c->ev[k]);
		uint64_t odue;

		if (o != (d ^ 1))
			continue;
		odue = rate_due(c, o);
		if (odue < due) {
			struct sev up = c->ev[k];

			memmove(&c->ev[p + 1], &c->ev[p], (size_t)(k - p) * sizeof(*c->ev));
			c->ev[p] = up;
			due = odue;
		}
		break;
	}
	if (now >= due)
		return true;
	if (!c->inflight)
		c->rate_until = due;
	return false;
}

/*
 * Whether stream c may issue now, as fio's job would: not while a step down of the latency
 * search waits for its I/O in flight, nor while it thinks, nor (counting think time by
 * completion) while its queue is full as fio reaps it. A pause, once due, waits for the I/O in
 * flight too (fio's io_u_quiesce), then spins think_spin_ns and sleeps the rest; the loop
 * keeps serving the other streams meanwhile.
 */
static bool closed_may_issue(struct run *r, struct cstream *c, uint64_t now)
{
	if (c->quiesce) {
		if (c->inflight)
			return false;
		c->quiesce = false;
		c->reaped = c->completed;
		lat_new_window(c, now);
	}
	if (c->pause_until) {
		if (now < c->pause_until)
			return false;
		r->res->think_ns += now - c->pause_at;
		c->pause_until = 0;
		c->io_since = now;
	}
	if (!c->draining && !think_reap(c))
		return false;
	if (!c->draining && think_due(c, now)) {
		/* fio's last_thinktime_blocks is the count before io_u_quiesce: what the
		 * pause reaps counts toward the next one */
		c->think_mark = think_count(c);
		c->think_issued = c->issued;
		c->draining = true;
	}
	if (c->draining) {
		if (c->inflight)
			return false;
		c->reaped = c->completed;
		c->draining = false;
		c->pause_at = now;
		c->spin_until = now + c->rec.think_spin_ns;
		c->pause_until = now + c->rec.think_ns;
		r->res->thinks++;
		return false;
	}
	return rate_allows(c, now);
}

/* A stream's first moment: its think clock starts, and its latency search at depth 1. */
static void closed_start(struct cstream *c, uint64_t now)
{
	c->started = true;
	c->io_since = now;
	c->rate_start = now;
	if (c->rec.flags & TRACE_STREAM_LAT_TARGET) {
		c->depth = 1;
		c->qd_low = 1;
		c->qd_high = c->rec.depth;
		lat_new_window(c, now);
	}
}

static void closed_done(struct run *r, struct replay_io *io, uint64_t complete_ns)
{
	struct closed *cl = r->mode_state;
	struct cstream *c = &cl->cs[io->stream];

	c->inflight--;
	c->completed++;
	if (c->chain && complete_ns > io->submit_ns) {
		uint64_t t = complete_ns - io->submit_ns;

		c->call_ns = c->call_ns ? (7 * c->call_ns + t) / 8 : t;
	}
	/* the one behind is now the one in flight (or this was it, the one before having been
	 * made on the scheduling thread) */
	if (c->ahead) {
		c->ahead--;
		r->ahead--;
	}
	/* fio times the target from the I/O's start to its completion (its lat, not clat) */
	if ((c->rec.flags & TRACE_STREAM_LAT_TARGET) && !c->quiesce && !c->ended &&
	    complete_ns > io->submit_ns && complete_ns - io->submit_ns > c->rec.lat_target_ns) {
		if (c->rec.lat_pct_ppm >= 1000000)
			lat_failed(c, complete_ns, true);
		else
			c->win_failed++;
	}
}

/* What the latency searches found, for the fidelity report. */
static void closed_finish(struct run *r)
{
	struct closed *cl = r->mode_state;

	if (!cl)
		return;
	for (uint32_t i = 0; i < cl->ncs; i++) {
		struct cstream *c = &cl->cs[i];
		struct replay_lat_result *l;

		if (!(c->rec.flags & TRACE_STREAM_LAT_TARGET) || !c->n)
			continue;
		if (r->res->nlat++ >= REPLAY_MAX_LAT_STREAMS)
			continue;
		l = &r->res->lat[r->res->nlat - 1];
		l->stream = i;
		l->depth = c->started ? c->depth : 0;
		l->found = c->found;
		l->max_depth = c->rec.depth;
		l->windows = c->windows;
		l->settled = c->settled;
		l->missed = c->missed;
	}
}

static void closed_free(struct run *r)
{
	struct closed *c = r->mode_state;

	if (!c)
		return;
	for (uint32_t i = 0; i < c->ncs; i++)
		free(c->cs[i].ev);
	free(c->cs);
	free(c->tids);
	free(c);
	r->mode_state = NULL;
	r->pre_tids = NULL;
	r->npre_tids = 0;
}

static int loop_timed(struct run *r)
{
	uint64_t spin = run_spin_ns(r);
	bool starved = false;
	int ret;

	while (!run_stopping(r)) {
		const struct sev *s;
		uint64_t now, due;

		if (r->inflight)
			run_reap(r, 0);
		s = spsc_peek(&r->in);
		if (!s) {
			if (__atomic_load_n(&r->input_done, __ATOMIC_ACQUIRE) && !spsc_peek(&r->in))
				break;
			if (!starved)
				r->res->starved++; /* count each time the decoder fell behind */
			starved = true;
			if (r->inflight)
				run_reap(r, 20000);
			continue;
		}
		starved = false;
		now = now_mono_ns();
		due = r->start_mono + s->t;
		if (due > now) {
			if (due - now <= spin) {
				if (due - now > SPIN_YIELD_NS)
					sched_yield();
				continue; /* spin, peeking at completions meanwhile */
			}
			/* never one long wait: a trace with an idle hour in it must still stop
			 * within a second of Ctrl-C (replay_stop is looked at every pass) */
			uint64_t wait = due - now - spin;

			if (wait > RUN_WAIT_MAX_NS)
				wait = RUN_WAIT_MAX_NS;
			if (r->inflight)
				run_reap(r, wait);
			else
				sched_wait_until(now + wait, 0);
			continue;
		}
		/* everything due by now goes out in one submit */
		while (s && r->start_mono + s->t <= now) {
			if (r->inflight >= r->depth) {
				r->res->cap_hits++;
				break;
			}
			ret = run_issue(r, s, s->t, 0);
			if (ret)
				return ret;
			spsc_pop(&r->in);
			s = spsc_peek(&r->in);
		}
		ret = run_submit(r);
		if (ret)
			return ret;
		if (r->inflight >= r->depth)
			run_reap(r, 1000000);
	}
	return 0;
}

static int loop_afap(struct run *r)
{
	int ret;

	while (!run_stopping(r)) {
		const struct sev *s;

		while (r->inflight < r->depth && (s = spsc_peek(&r->in))) {
			ret = run_issue(r, s, now_mono_ns() - r->start_mono, 0);
			if (ret)
				return ret;
			spsc_pop(&r->in);
		}
		ret = run_submit(r);
		if (ret)
			return ret;
		if (!spsc_peek(&r->in)) {
			if (__atomic_load_n(&r->input_done, __ATOMIC_ACQUIRE) && !spsc_peek(&r->in))
				break;
			if (r->inflight < r->depth)
				r->res->starved++;
		}
		if (r->inflight)
			run_reap(r, r->inflight >= r->depth ? 1000000 : 0);
	}
	return 0;
}

/*
 * fio's exitall: once a stream with EXIT has ended and its I/O completed (fio's job ends), the
 * streams it ends stop issuing: those of its group with its exit group (fio's reporting
 * group), or all of its group (EXIT_RUNNING: exit_what stonewall or all). Those in turn end
 * others when their I/O has completed, as fio's terminated jobs do.
 */
static void closed_exit(struct closed *cl, struct cstream *c, uint64_t t)
{
	if (!(c->rec.flags & TRACE_STREAM_EXIT) || c->exited || !c->started || c->inflight ||
	    !(c->ended || trace_stream_ended(&c->rec, c->n, c->issued, t)))
		return;
	c->exited = true;
	for (uint32_t i = 0; i < cl->ncs; i++) {
		struct cstream *o = &cl->cs[i];

		if (o != c && o->n && o->rec.group == c->rec.group &&
		    ((c->rec.flags & TRACE_STREAM_EXIT_RUNNING) ||
		     o->rec.exit_group == c->rec.exit_group))
			o->ended = true;
	}
}

/*
 * Each stream keeps its depth in flight until the trace says it ends (its runtime, I/O count,
 * or its events once; formats/FORMAT.md, "Streams"). Streams of a higher group start once
 * every stream of the group before has ended and drained, as fio's stonewall.
 */
static int loop_closed(struct run *r)
{
	struct closed *cl = r->mode_state;
	uint32_t group = UINT32_MAX, first = 0, room = closed_chain_room(r, cl);
	uint64_t gstart = 0;
	int ret;

	for (uint32_t i = 0; i < cl->ncs; i++)
		if (cl->cs[i].n && cl->cs[i].rec.group < group)
			group = cl->cs[i].rec.group;
	while (!run_stopping(r) && group != UINT32_MAX) {
		uint64_t now = now_mono_ns() - r->start_mono, wake = UINT64_MAX;
		uint32_t next = UINT32_MAX;
		bool live = false, spin = false;

		/* the streams may want more in flight together than the cap (setup.c,
		 * choose_depth): then they share it, each pass starting at the next stream so
		 * that none is always served last */
		first = cl->ncs ? (first + 1) % cl->ncs : 0;
		for (uint32_t k = 0; k < cl->ncs; k++) {
			uint32_t i = (first + k) % cl->ncs;
			struct cstream *c = &cl->cs[i];
			uint64_t t = now - gstart;
			bool ahead;

			if (c->rec.group != group) {
				if (c->n && c->rec.group > group && c->rec.group < next)
					next = c->rec.group;
				continue;
			}
			live |= c->inflight > 0;
			if (t < c->rec.delay_ns && !c->ended) {
				live = true; /* startdelay (none once exitall ended it, as fio) */
				if (gstart + c->rec.delay_ns < wake)
					wake = gstart + c->rec.delay_ns;
				continue;
			}
			t = t > c->rec.delay_ns ? t - c->rec.delay_ns : 0;
			if (!c->started)
				closed_start(c, now);
			lat_check(c, now);
			while (!c->ended && !trace_stream_ended(&c->rec, c->n, c->issued, t)) {
				live = true;
				if (!closed_may_issue(r, c, now)) {
					/* wake at the pause's end, or the runtime's if sooner */
					uint64_t end = UINT64_MAX;

					if (c->rec.runtime_ns)
						end = gstart + c->rec.delay_ns + c->rec.runtime_ns;
					if (c->pause_until && c->pause_until < end)
						end = c->pause_until;
					if (c->rate_until && c->rate_until < end)
						end = c->rate_until;
					if ((c->pause_until || c->rate_until) && end < wake)
						wake = end;
					spin |= c->pause_until && now < c->spin_until;
					break;
				}
				if (c->pos == c->n)
					c->pos = 0; /* cycle the job, as fio's loops */
				if (c->inflight >= c->depth &&
				    !(c->chain && c->ahead < chain_ahead(c, room) &&
				      c->inflight == 1 + c->ahead && run_to_engine(r, &c->ev[c->pos])))
					break;
				if (r->inflight >= r->depth) {
					r->res->cap_hits++;
					break;
				}
				if (c->rec.flags & TRACE_STREAM_RATE) {
					int d = rate_dir(&c->ev[c->pos]);

					if (d >= 0)
						c->rate_bytes[d] += c->ev[c->pos].len;
				}
				ahead = c->inflight >= c->depth; /* chained: ahead, not in flight */
				if (ahead) {
					c->ahead++;
					r->ahead++;
					r->res->chained++;
					ret = run_issue_chained(r, &c->ev[c->pos++], now, 0, 0);
					if (!ret && r->nbatch) { /* queued, not yet submitted */
						uint32_t low = chain_ahead(c, room) / 4;

						r->batch[r->nbatch - 1]->lazy_low =
							(uint16_t)(low > CHAIN_AHEAD_MIN ? low : CHAIN_AHEAD_MIN);
					}
				} else {
					ret = run_issue(r, &c->ev[c->pos++], now, 0);
				}
				if (ret)
					return ret;
				c->inflight++;
				c->issued++;
				/* Each I/O goes out as soon as it is ready, as fio submits by default
				 * (iodepth_batch_submit=1). One submit for the whole refill held the
				 * first I/Os back while the kernel prepared the rest under one plug:
				 * random writes to a file on ext4 over a loop device ran at 0.88-0.94
				 * of fio's IOPS that way, and at 1.01-1.02 one by one. Chained
				 * calls queue behind their worker's current one anyway: they go
				 * CHAIN_SUBMIT at a time, one lock of the engine's each time, not
				 * one a call (two streams punching one file spent ~40 % of the
				 * scheduling thread's CPU on that lock, taken from the streams'
				 * threads). */
				if (!ahead || r->nbatch >= CHAIN_SUBMIT) {
					ret = run_submit(r);
					if (ret)
						return ret;
				}
			}
			ret = run_submit(r); /* the chained calls left */
			if (ret)
				return ret;
			closed_exit(cl, c, t);
		}
		if (!live) {
			group = next;
			gstart = now;
			continue;
		}
		if (spin) {
			/* a stream spins its think time (thinktime_spin): the CPU stays busy,
			 * as fio's job burns it, and completions are looked at meanwhile */
			if (r->inflight)
				run_reap(r, 0);
		} else if (r->inflight) {
			/* calls wait in the workers: the lazy completion at a quarter left
			 * wakes this thread, a timed wake would only take a CPU from them */
			uint64_t most = r->ahead ? CHAIN_REAP_NS : 1000000;

			run_reap(r, wake <= now ? 0 : wake - now < most ? wake - now : most);
		} else if (wake != UINT64_MAX) {
			/* every stream with work left thinks or waits for its start delay: sleep
			 * to the first one's end, a bounded wait at a time so that Ctrl-C is
			 * seen */
			uint64_t w = wake <= now ? now
				     : wake - now < RUN_WAIT_MAX_NS ? wake
								: now + RUN_WAIT_MAX_NS;

			sched_wait_until(r->start_mono + w, 0);
		} else {
			usleep(100);
		}
	}
	return 0;
}


const struct replay_mode_ops replay_mode_timed = {
	.name = "timed",
	.id = REPLAY_TIMED,
	.clocked = true,
	.fed = true,
	.in_item = sizeof(struct sev),
	.depth = timed_depth,
	.loop = loop_timed,
};

const struct replay_mode_ops replay_mode_afap = {
	.name = "afap",
	.id = REPLAY_AFAP,
	.fed = true,
	.in_item = sizeof(struct sev),
	.depth = afap_depth,
	.loop = loop_afap,
};

const struct replay_mode_ops replay_mode_closed = {
	.name = "closed",
	.id = REPLAY_CLOSED,
	.loads_all = true,
	.in_item = sizeof(struct sev),
	.depth = closed_depth,
	.prepare = closed_prepare,
	.loop = loop_closed,
	.done = closed_done,
	.finish = closed_finish,
	.free = closed_free,
};
