// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --dep-wbt: the kernel's writeback throttling, for the writes it throttled in the recording.
 *
 * Why: the kernel holds buffered writeback (a kworker's, or a task's own without REQ_SYNC) to
 * a depth that it scales by the device's read latency (block/blk-wbt.c, Linux 4.10 on, on by
 * default for devices without BFQ): each window (100 ms) whose fastest read took longer than
 * the queue's wbt_lat_usec halves the depth, each good one doubles it, up to 3/4 of the
 * queue. The replay's writes are O_DIRECT (REQ_SYNC | REQ_IDLE), which wbt never holds: onto
 * a slower candidate the replay sends the recording's writeback as deep as it went on the fast
 * stack, where the kernel there would have held it back to protect the reads. Measured on
 * bench/predict.sh's recordings (pgbench, xfs on a loop device; 2026-12-06): the kworkers'
 * writes on the fast stack A ran 21 deep on average when busy, at most 24, which is wbt's
 * background limit at its largest ((96 + 3) / 4 with 128 requests); on B (btrfs RAID6, 3x
 * slower) the real kworkers ran 6.7-7.7 deep, while the replay onto B sent them at A's depth.
 *
 * The model follows the kernel's rules, not a fit: the target's own sysfs gives the latency
 * aimed at, the queue's depth and its write cache; the replay's reads' latencies (submission
 * to completion) fill the windows; a write the kernel would throttle (a write without
 * REQ_SYNC: the recorder's flags) waits while the throttled writes in flight reach its limit
 * (a kernel thread's: the background limit; a task's: the background limit within 100 ms of a
 * read, the normal one otherwise; REQ_META: the whole depth), oldest first, and with a write
 * cache the waiting ones go only once those in flight have drained, as the kernel wakes them.
 * Not modelled: a task recently throttled for dirty pages (the whole depth then), discards.
 */
#include <math.h>
#include <stdlib.h>
#include "replay/dep/dep_sched.h"

#define WBT_WIN_NS 100000000ULL /* RWB_WINDOW_NSEC */
#define WBT_DEF_DEPTH 16	/* RWB_DEF_DEPTH: the depth at step 0 */
#define WBT_MIN_WRITES 3	/* a window needs this many writes and one read to judge */
#define WBT_UNKNOWN_BUMP 5	/* windows without a judgement before drifting back to 0 */
#define WBT_CLOSE_NS 100000000ULL /* HZ / 10: a read this recent makes writeback background */
#define WBT_MAX_WINDOWS 64	/* windows evaluated per look (a long sleep: the rest is idle) */

enum { LAT_OK, LAT_UNKNOWN, LAT_UNKNOWN_WRITES, LAT_EXCEEDED };

/* The kernel's rq_depth_calc_max_depth: true when up as far as it goes. */
static bool calc_max_depth(struct wbt_dev *v)
{
	uint32_t qd = v->t.queue_depth, depth;
	bool top = false;

	if (qd == 1) {
		v->max_depth = v->step > 0 ? 1 : 2;
		return v->step <= 0;
	}
	depth = qd < WBT_DEF_DEPTH ? qd : WBT_DEF_DEPTH;
	if (v->step > 0) {
		depth = 1 + ((depth - 1) >> (v->step < 31 ? v->step : 31));
	} else if (v->step < 0) {
		uint32_t maxd = 3 * qd / 4;
		int up = -v->step < 16 ? -v->step : 16;

		depth = 1 + ((depth - 1) << up);
		if (depth > maxd) {
			depth = maxd;
			top = true;
		}
	}
	v->max_depth = depth ? depth : 1;
	return top;
}

static void calc_limits(struct wbt_dev *v, struct wbt_report *rep)
{
	if (v->max_depth <= 2) {
		v->normal = v->max_depth;
		v->background = 1;
	} else {
		v->normal = (v->max_depth + 1) / 2;
		v->background = (v->max_depth + 3) / 4;
	}
	if (!rep->bg_min || v->background < rep->bg_min)
		rep->bg_min = v->background;
	if (v->background > rep->bg_max)
		rep->bg_max = v->background;
}

/* The limit a throttled write waits under. */
static uint32_t limit_for(const struct wbt_dev *v, const struct dslot *s, uint64_t now)
{
	if (s->s.flags & IO_F_META)
		return v->max_depth;
	if ((s->flags & DEP_F_KTHREAD) || now < v->last_read + WBT_CLOSE_NS)
		return v->background;
	return v->normal;
}

static bool throttled(const struct dslot *s)
{
	return s->s.op == IO_OP_WRITE && !(s->s.flags & (IO_F_SYNC | IO_F_FUA));
}

static struct wbt_dev *dev_of(const struct dep_sched *d, const struct dslot *s)
{
	return s->s.dev < d->nwbt && d->wbt[s->s.dev].t.lat_ns ? &d->wbt[s->s.dev] : NULL;
}

static void arm(struct wbt_dev *v, uint64_t at)
{
	/* scaled down, the windows shorten as 1 / sqrt(step + 1) */
	v->win_ns = v->step > 0 ? (uint64_t)((double)WBT_WIN_NS / sqrt((double)v->step + 1))
				: WBT_WIN_NS;
	v->win_end = at + v->win_ns;
	v->armed = true;
	v->rd_min = UINT64_MAX;
	v->rd_n = v->wr_n = 0;
}

static void grant(struct wbt_dev *v, struct dslot *s, struct wbt_report *rep)
{
	v->inflight++;
	s->flags |= SF_WBT;
	if (v->inflight > rep->max_inflight)
		rep->max_inflight = v->inflight;
}

/* The waiting writes that fit now go, oldest first (the kernel's wake-up, each waiter taking
 * a slot below its own limit; the first that does not fit stops it). */
static void wake(struct run *r, struct dep_sched *d, struct wbt_dev *v, uint64_t now)
{
	while (v->head != NONE) {
		uint32_t w = v->head;
		struct dslot *s = &d->slot[w];

		if (v->inflight >= limit_for(v, s, now))
			break;
		grant(v, s, &r->res->wbt);
		r->res->wbt.held_ns += now > s->held_at ? now - s->held_at : 0;
		parkq_release(d, &v->head, &v->tail, now);
	}
}

int dep_wbt_init(struct run *r, struct dep_sched *d)
{
	struct wbt_report *rep = &r->res->wbt;
	uint32_t n = r->meta->ndevices ? r->meta->ndevices : 1;

	if (d->wbt_ask == DEP_WBT_OFF)
		return 0;
	if (d->file_level || !r->src->target_wbt) {
		if (d->wbt_asked)
			run_warn(r, "--dep-wbt: a file-level replay's writes go through the "
				    "page cache, which the kernel throttles itself: ignored");
		return 0;
	}
	d->wbt = calloc(n, sizeof(*d->wbt));
	if (!d->wbt)
		return -1;
	d->nwbt = n;
	for (uint32_t i = 0; i < n; i++) {
		struct wbt_dev *v = &d->wbt[i];

		v->head = v->tail = NONE;
		if (r->src->target_wbt(r, i, &v->t))
			v->t = (struct wbt_target){ 0 };
		if (d->wbt_ask == DEP_WBT_SET) {
			/* a file, or another latency than the device's: its queue's depth where it
			 * has one, else a loop device's */
			v->t.lat_ns = d->wbt_ask_lat_ns;
			if (!v->t.queue_depth) {
				v->t.queue_depth = 128;
				v->t.write_cache = true;
			}
		}
		if (!v->t.lat_ns)
			continue;
		calc_max_depth(v);
		calc_limits(v, rep);
		if (!rep->on) {
			rep->on = true;
			rep->lat_ns = v->t.lat_ns;
			rep->queue_depth = v->t.queue_depth;
			rep->write_cache = v->t.write_cache;
		}
	}
	d->wbt_on = rep->on;
	if (!rep->on && d->wbt_asked)
		run_warn(r, "--dep-wbt on: no target throttles writeback (a file, or a queue with "
			    "wbt_lat_usec 0): replayed without the model; --dep-wbt TIME models "
			    "one aiming at TIME");
	return 0;
}

bool dep_wbt_hold(struct run *r, uint32_t w, uint64_t now)
{
	struct dep_sched *d = sched_of(r);
	struct dslot *s = &d->slot[w];
	struct wbt_dev *v;

	if (!throttled(s) || !(v = dev_of(d, s)))
		return false;
	r->res->wbt.throttled++;
	if (!v->armed)
		arm(v, now); /* the kernel starts its windows at a throttled write */
	if (v->head == NONE && v->inflight < limit_for(v, s, now)) {
		grant(v, s, &r->res->wbt);
		return false;
	}
	r->res->wbt.held++;
	s->held_at = now;
	parkq_push(d, &v->head, &v->tail, w);
	return true;
}

void dep_wbt_issued(struct dep_sched *d, uint32_t w)
{
	const struct dslot *s = &d->slot[w];
	struct wbt_dev *v;

	if (s->s.op != IO_OP_READ || !(v = dev_of(d, s)))
		return;
	v->last_read = s->submit_ns;
	if (!v->sync_issue) {
		v->sync_issue = 1 + s->submit_ns;
		v->sync_w = w;
	}
}

void dep_wbt_done(struct run *r, uint32_t w, uint64_t complete_ns)
{
	struct dep_sched *d = sched_of(r);
	struct dslot *s = &d->slot[w];
	struct wbt_dev *v = dev_of(d, s);
	uint32_t wl;

	if (!v)
		return;
	if (s->s.op == IO_OP_READ) {
		uint64_t lat = complete_ns > s->submit_ns ? complete_ns - s->submit_ns : 0;

		if (v->armed) {
			v->rd_n++;
			if (lat < v->rd_min)
				v->rd_min = lat;
		}
		v->last_read = complete_ns;
		if (v->sync_issue && v->sync_w == w)
			v->sync_issue = 0;
		return;
	}
	if (s->s.op != IO_OP_WRITE)
		return;
	if (v->armed)
		v->wr_n++;
	if (!(s->flags & SF_WBT))
		return;
	s->flags &= ~SF_WBT;
	v->inflight--;
	/* wbt_rqw_done: with a write cache the waiters go once every throttled write is done */
	wl = v->t.write_cache ? 0 : v->normal;
	if (v->head == NONE || (v->inflight && v->inflight >= wl))
		return;
	if (!v->inflight || wl - v->inflight >= v->background / 2)
		wake(r, d, v, complete_ns);
}

/* The kernel's latency_exceeded for the window ending at `at`. */
static int judge(const struct wbt_dev *v, uint64_t at)
{
	uint64_t oldest = v->sync_issue && at > v->sync_issue - 1 ? at - (v->sync_issue - 1) : 0;

	if (oldest > v->win_ns || (oldest > v->t.lat_ns && !v->rd_n))
		return LAT_EXCEEDED;
	if (!v->rd_n || v->wr_n < WBT_MIN_WRITES)
		return v->wr_n || v->inflight ? LAT_UNKNOWN_WRITES : LAT_UNKNOWN;
	return v->rd_min > v->t.lat_ns ? LAT_EXCEEDED : LAT_OK;
}

static void scale_up(struct run *r, struct dep_sched *d, struct wbt_dev *v, uint64_t at)
{
	if (v->scaled_max)
		return;
	v->step--;
	v->scaled_max = calc_max_depth(v);
	calc_limits(v, &r->res->wbt);
	v->unknown = 0;
	wake(r, d, v, at);
}

static void scale_down(struct run *r, struct wbt_dev *v, bool hard)
{
	if (v->max_depth == 1)
		return;
	if (v->step < 0 && hard)
		v->step = 0;
	else
		v->step++;
	v->scaled_max = false;
	calc_max_depth(v);
	calc_limits(v, &r->res->wbt);
	v->unknown = 0;
}

static void window_end(struct run *r, struct dep_sched *d, struct wbt_dev *v, uint64_t at)
{
	int status = judge(v, at);

	r->res->wbt.windows++;
	switch (status) {
	case LAT_EXCEEDED:
		r->res->wbt.exceeded++;
		scale_down(r, v, true);
		break;
	case LAT_OK:
	case LAT_UNKNOWN_WRITES: /* writes only: the depth may go above its default */
		scale_up(r, d, v, at);
		break;
	default:
		if (++v->unknown < WBT_UNKNOWN_BUMP)
			break;
		if (v->step > 0)
			scale_up(r, d, v, at);
		else if (v->step < 0)
			scale_down(r, v, false);
		break;
	}
	if (v->step || v->inflight)
		arm(v, at);
	else
		v->armed = false;
}

void dep_wbt_tick(struct run *r, uint64_t now)
{
	struct dep_sched *d = sched_of(r);

	for (uint32_t i = 0; i < d->nwbt; i++) {
		struct wbt_dev *v = &d->wbt[i];

		for (int k = 0; v->armed && now >= v->win_end && k < WBT_MAX_WINDOWS; k++)
			window_end(r, d, v, v->win_end);
		if (v->armed && now >= v->win_end)
			arm(v, now); /* a long sleep: the windows in it saw nothing */
	}
}

void dep_wbt_free(struct dep_sched *d)
{
	free(d->wbt);
	d->wbt = NULL;
	d->nwbt = 0;
}
