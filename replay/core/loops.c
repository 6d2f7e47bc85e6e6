// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Three rows of the mode table: timed (each I/O at its recorded moment), afap (as fast as the
 * cap allows) and closed (each synthesized stream keeps its depth in flight). Dep mode, which
 * releases each I/O once what it waited for completed, is in replay/dep/.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
#include "replay/core/run.h"
#include "util/cli.h"

/* A closed-loop stream: its events in order, how many are in flight, and what the trace says
 * it runs (its group, start delay, runtime or I/O count: formats/FORMAT.md, "Streams"). */
struct cstream {
	struct sev *ev;
	uint64_t n, cap, pos, issued;
	uint32_t depth, inflight;
	struct trace_stream rec;
};

struct closed {
	struct cstream *cs;
	uint32_t ncs;
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

static unsigned int closed_depth(struct run *r)
{
	const struct closed *c = r->mode_state;
	uint64_t want = 0;

	for (uint32_t i = 0; i < c->ncs; i++)
		want += c->cs[i].n ? c->cs[i].depth : 0;
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
	return (unsigned int)want;
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

static int closed_prepare(struct run *r, const struct prescan *p, char *err, size_t errlen)
{
	struct closed *c = calloc(1, sizeof(*c));

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
	}
	return r->src->each(r, closed_add, c, err, errlen);
}

static void closed_done(struct run *r, struct replay_io *io, uint64_t complete_ns)
{
	struct closed *c = r->mode_state;

	(void)complete_ns;
	c->cs[io->stream].inflight--;
}

static void closed_free(struct run *r)
{
	struct closed *c = r->mode_state;

	if (!c)
		return;
	for (uint32_t i = 0; i < c->ncs; i++)
		free(c->cs[i].ev);
	free(c->cs);
	free(c);
	r->mode_state = NULL;
}

static int loop_timed(struct run *r)
{
	uint64_t spin = r->o->spin_ns ? r->o->spin_ns : SPIN_DEFAULT_NS;
	bool starved = false;
	int ret;

	while (!replay_stop) {
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

	while (!replay_stop) {
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
 * Each stream keeps its depth in flight until the trace says it ends (its runtime, I/O count,
 * or its events once; formats/FORMAT.md, "Streams"). Streams of a higher group start once
 * every stream of the group before has ended and drained, as fio's stonewall.
 */
static int loop_closed(struct run *r)
{
	struct closed *cl = r->mode_state;
	uint32_t group = UINT32_MAX, first = 0;
	uint64_t gstart = 0;
	int ret;

	for (uint32_t i = 0; i < cl->ncs; i++)
		if (cl->cs[i].n && cl->cs[i].rec.group < group)
			group = cl->cs[i].rec.group;
	while (!replay_stop && group != UINT32_MAX) {
		uint64_t now = now_mono_ns() - r->start_mono;
		uint32_t next = UINT32_MAX;
		bool live = false;

		/* the streams may want more in flight together than the cap (setup.c,
		 * choose_depth): then they share it, each pass starting at the next stream so
		 * that none is always served last */
		first = cl->ncs ? (first + 1) % cl->ncs : 0;
		for (uint32_t k = 0; k < cl->ncs; k++) {
			uint32_t i = (first + k) % cl->ncs;
			struct cstream *c = &cl->cs[i];
			uint64_t t = now - gstart;

			if (c->rec.group != group) {
				if (c->n && c->rec.group > group && c->rec.group < next)
					next = c->rec.group;
				continue;
			}
			live |= c->inflight > 0;
			if (t < c->rec.delay_ns) {
				live = true; /* startdelay */
				continue;
			}
			t -= c->rec.delay_ns;
			while (!trace_stream_ended(&c->rec, c->n, c->issued, t)) {
				live = true;
				if (c->inflight >= c->depth)
					break;
				if (r->inflight >= r->depth) {
					r->res->cap_hits++;
					break;
				}
				if (c->pos == c->n)
					c->pos = 0; /* cycle the job, as fio's loops */
				ret = run_issue(r, &c->ev[c->pos++], now, 0);
				if (ret)
					return ret;
				c->inflight++;
				c->issued++;
				/* Each I/O goes out as soon as it is ready, as fio submits by default
				 * (iodepth_batch_submit=1). One submit for the whole refill held the
				 * first I/Os back while the kernel prepared the rest under one plug:
				 * random writes to a file on ext4 over a loop device ran at 0.88-0.94
				 * of fio's IOPS that way, and at 1.01-1.02 one by one. */
				ret = run_submit(r);
				if (ret)
					return ret;
			}
		}
		if (!live) {
			group = next;
			gstart = now;
			continue;
		}
		if (r->inflight)
			run_reap(r, 1000000);
		else
			usleep(100); /* only delayed streams are left: wait for their start */
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
	.free = closed_free,
};
