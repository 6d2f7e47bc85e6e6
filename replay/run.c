// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * replay_run(): prescan, open targets, then one thread schedules, submits and reaps while a
 * helper thread decodes the schedule ahead of it and writes/analyzes what completed.
 *
 * Why one scheduling thread doing both submit and reap: with io_uring the completion side
 * costs a user-space peek, not a syscall, and on two cores a separate reaper would compete
 * with the spinning submitter (btreplay's footnote found one thread worse with AIO's syscalls).
 */
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sysmacros.h>
#include "analyze/analyze.h"
#include "formats/trace.h"
#include "replay/engine/engine.h"
#include "replay/core/run.h"
#include "replay/core/sched.h"
#include "replay/block/target.h"
#include "util/cli.h"

volatile sig_atomic_t replay_stop;

/* ---- helper thread: decode ahead, write and analyze behind ---- */

static void out_event(struct run *r, const struct done_ev *d)
{
	const struct io_event *ev = &d->ev;

	if (r->fr) {
		file_out(r, (const struct done_fev *)d);
	} else {
		if (r->w && !r->werr && trace_writer__add(r->w, ev, 1) < 0) {
			r->werr = -EIO;
			snprintf(r->herr, sizeof(r->herr), "writing the result trace %s: %s",
				 r->o->output, trace_writer__error(r->w));
		}
		if (r->an)
			analysis__add(r->an, ev, 1);
	}
	if (r->mode == REPLAY_TIMED || r->mode == REPLAY_DEP) {
		uint64_t late = d->submit_ns > ev->queue_ns ? d->submit_ns - ev->queue_ns : 0;

		hist_add(&r->res->lateness, late);
		if (late > 100000)
			r->res->late_100us++;
	}
	if (ev->error) {
		if (!r->res->errors++) {
			r->res->first_error = ev->error;
			r->res->first_error_offset = ev->offset;
		}
	}
	r->res->ios++;
	r->res->bytes += ev->length;
}

static void progress_line(struct run *r, uint64_t now)
{
	uint64_t el = now - r->start_mono;
	uint64_t ios = r->res->ios;
	double iops = (double)(ios - r->prog_ios) * 1e9 / (double)(now - r->prog_at);
	char a[32], b[32], c[32];

	fprintf(stderr, "\r\033[K%s/%s  %.0f IOPS  %llu done  late p99 %s  in flight %u",
		fmt_ns(el, a, sizeof(a)), fmt_ns(r->res->trace_span_ns, b, sizeof(b)), iops,
		(unsigned long long)ios,
		r->mode == REPLAY_TIMED || r->mode == REPLAY_DEP
			? fmt_ns(hist_percentile(&r->res->lateness, 99), c, sizeof(c))
			: "-",
		__atomic_load_n(&r->inflight, __ATOMIC_RELAXED));
	r->prog_ios = ios;
	r->prog_at = now;
}

/* Moves decoded events into the input ring; returns how many. */
static long feed(struct run *r)
{
	long moved = 0;

	if (r->fr)
		return file_feed(r);
	for (;;) {
		struct sev *s;

		if (r->pos == r->nbuf) {
			long n;

			if (r->reader_eof)
				break;
			n = trace_reader__next(r->rd, r->buf, RUN_DECODE);
			if (n <= 0) {
				if (n < 0) {
					snprintf(r->herr, sizeof(r->herr), "reading %s: %s",
						 r->o->trace, trace_reader__error(r->rd));
					r->rerr = (int)n;
				}
				r->reader_eof = true;
				break;
			}
			r->nbuf = (size_t)n;
			r->pos = 0;
		}
		s = spsc_slot(&r->in);
		if (!s)
			break;
		if (run_map_event(r, &r->buf[r->pos], s)) {
			/* dep mode: the ring holds struct dsev, the I/O and what it waited for */
			if (r->infer)
				dep_infer__next(r->infer, &r->buf[r->pos],
						&((struct dsev *)s)->dep);
			spsc_push(&r->in);
			moved++;
		}
		r->pos++;
	}
	if (r->reader_eof && r->pos == r->nbuf)
		__atomic_store_n(&r->input_done, true, __ATOMIC_RELEASE);
	return moved;
}

static void *helper_main(void *arg)
{
	struct run *r = arg;
	uint64_t next_prog = 0;

	for (;;) {
		bool done = __atomic_load_n(&r->sched_done, __ATOMIC_ACQUIRE);
		long n = 0;
		struct done_ev *d;

		if (r->mode != REPLAY_CLOSED && !r->input_done)
			n += feed(r);
		while ((d = spsc_peek(&r->out))) {
			out_event(r, d);
			spsc_pop(&r->out);
			n++;
		}
		if (r->o->progress && r->start_mono) {
			uint64_t now = now_mono_ns();

			if (!next_prog) {
				next_prog = now + 1000000000ULL;
				r->prog_at = now;
			} else if (now >= next_prog) {
				progress_line(r, now);
				next_prog = now + 1000000000ULL;
			}
		}
		if (done && !spsc_peek(&r->out))
			break;
		if (!n)
			usleep(200);
	}
	if (r->o->progress && next_prog)
		fprintf(stderr, "\r\033[K");
	return NULL;
}

/* ---- the scheduling thread ---- */

static void release_pool_buffer(struct run *r, struct replay_io *io)
{
	struct run_pool *p = &r->pool[io->pool_kind];

	if (io->pool != UINT32_MAX && io->pool < p->n && p->nfree < p->n)
		p->free[p->nfree++] = io->pool;
	io->pool = UINT32_MAX;
}

static void complete(struct run *r, struct replay_io **done, int n)
{
	uint64_t now = now_mono_ns() - r->start_mono;

	for (int i = 0; i < n; i++) {
		struct replay_io *io = done[i];
		struct done_ev *d;
		struct io_event *ev;

		while (!(d = spsc_slot(&r->out)))
			r->out_full++; /* the writer fell behind: wait, never drop */
		ev = &d->ev;
		memset(ev, 0, sizeof(*ev));
		d->submit_ns = io->submit_ns;
		ev->queue_ns = io->deadline_ns;
		ev->issue_ns = io->began_ns ? io->began_ns - r->start_mono : io->issued_ns;
		ev->complete_ns = io->complete_ns ? io->complete_ns - r->start_mono : now;
		ev->offset = io->offset;
		ev->length = io->len;
		ev->dev = io->dev;
		ev->stream = io->stream;
		ev->op = io->op;
		ev->flags = io->flags;
		ev->error = io->res < 0 ? io->res : 0;
		ev->pid = r->pid;
		/* the replayer is the process; the thread is the recorded one whose I/O this is,
		 * so a result can be read per recorded thread as the trace can */
		ev->tid = io->tid ? io->tid : r->pid;
		memcpy(ev->comm, "ioreel", 7);
		if (r->fr)
			file_complete(r, io, (struct done_fev *)d);
		spsc_push(&r->out);
		if (r->mode == REPLAY_CLOSED)
			r->cs[io->stream].inflight--;
		else if (r->mode == REPLAY_DEP)
			dep_sched_done(r, io, ev->complete_ns);
		release_pool_buffer(r, io);
		r->free_slots[r->nfree++] = io->slot;
	}
	r->inflight -= (unsigned int)n;
}

int run_reap(struct run *r, uint64_t timeout_ns)
{
	/* a file-level replay's calls made on this thread come back first */
	int n = r->fr ? file_reap(r, r->done, r->depth) : 0;

	if (!n)
		n = r->eng->reap(r->e, r->done, r->depth, timeout_ns);

	if (n > 0)
		complete(r, r->done, n);
	return n;
}

/*
 * Gives io a buffer of pool kind (struct run_pool): its own while one is free; else a shared
 * one, or, in a pool that must not share, the first to come back from a completion (the
 * pattern's stamps, reads a checksumming filesystem verifies in the buffer: btrfs). Shared
 * buffers are marked UINT32_MAX and never go back to the free list.
 */
static int take_pool_buffer(struct run *r, struct replay_io *io, enum run_pool_kind kind)
{
	struct run_pool *p = &r->pool[kind];
	uint32_t i;
	int ret;

	io->pool_kind = (uint8_t)kind;
	if (!p->nfree && !p->wait) {
		i = p->next_shared++ % p->n;
		io->buf = p->base + (size_t)i * p->each;
		io->pool = UINT32_MAX;
		return 0;
	}
	if (!p->nfree) {
		r->res->buffer_waits++;
		ret = run_submit(r); /* what is queued must go before we wait on it */
		if (ret)
			return ret;
		while (!p->nfree) {
			ret = run_reap(r, 1000000);
			if (ret < 0 && ret != -EINTR && ret != -ETIME)
				return ret;
		}
	}
	i = p->free[--p->nfree];
	io->pool = i;
	io->buf = p->base + (size_t)i * p->each;
	return 0;
}

/* Takes a free slot and queues one I/O on it. */
int run_issue(struct run *r, const struct sev *s, uint64_t deadline, uint32_t tag)
{
	uint32_t slot;
	struct replay_io *io;
	int ret;

	/* Every loop checks the cap before it asks; a slot taken past it would be out of bounds,
	 * so say so rather than corrupt memory. */
	if (!r->nfree)
		return -EOVERFLOW;
	slot = r->free_slots[--r->nfree];
	io = &r->slots[slot];

	io->deadline_ns = deadline;
	io->complete_ns = 0;
	io->began_ns = 0;
	io->offset = s->offset;
	io->len = s->len;
	io->dev = s->dev;
	io->stream = s->stream;
	io->tid = s->tid;
	io->op = s->op;
	io->flags = s->flags;
	io->res = 0;
	io->tag = tag;
	io->aux = s->aux;
	io->arg = s->arg;
	io->fop = s->op;
	io->buf = r->arena;
	io->pool = UINT32_MAX;
	/* file level: a call on a name or descriptor is made here and now (file_run.c) */
	ret = r->fr ? file_issue(r, io) : 0;
	if (ret > 0) {
		r->inflight++;
		if (r->inflight > r->res->max_inflight_seen)
			r->res->max_inflight_seen = r->inflight;
		return 0;
	}
	if (io->op == IO_OP_READ && r->pool[RUN_POOL_READ].n) {
		ret = take_pool_buffer(r, io, RUN_POOL_READ);
		if (ret) {
			r->free_slots[r->nfree++] = slot;
			return ret;
		}
	} else if (io->op == IO_OP_WRITE) {
		if (r->pool[RUN_POOL_PATTERN].n) {
			ret = take_pool_buffer(r, io, RUN_POOL_PATTERN);
			if (ret) {
				r->free_slots[r->nfree++] = slot;
				return ret;
			}
			pattern_fill(io->buf, s->offset, s->len, PATTERN_MAGIC);
		} else if (r->wdata_span) {
			io->buf = r->wdata + r->wdata_next;
			r->wdata_next = (r->wdata_next + 4096) % r->wdata_span;
		}
	}
	ret = r->eng->queue(r->e, io);
	if (ret) {
		release_pool_buffer(r, io);
		r->free_slots[r->nfree++] = slot;
		return ret;
	}
	r->batch[r->nbatch++] = io;
	r->inflight++;
	if (r->inflight > r->res->max_inflight_seen)
		r->res->max_inflight_seen = r->inflight;
	return 0;
}

int run_submit(struct run *r)
{
	uint64_t t = now_mono_ns() - r->start_mono, back;
	unsigned int n = r->nbatch;
	int ret;

	if (!n)
		return 0;
	for (unsigned int i = 0; i < n; i++)
		r->batch[i]->submit_ns = t;
	if (!r->first_submit_set) {
		r->first_submit = t;
		r->first_submit_set = true;
	}
	r->last_submit = t;
	r->nbatch = 0;
	ret = r->eng->submit(r->e);
	/* fio's clat starts when the submit call returns (its slat covers the call): a device
	 * that does the I/O inside the call, like zram, shows it in slat, not clat. The engines
	 * do not touch a submitted I/O until reaped, so batch[] still holds these. */
	back = r->eng->sync_io ? t : now_mono_ns() - r->start_mono;
	for (unsigned int i = 0; i < n; i++)
		r->batch[i]->issued_ns = back;
	return ret < 0 ? ret : 0;
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
	uint32_t group = UINT32_MAX, first = 0;
	uint64_t gstart = 0;
	int ret;

	for (uint32_t i = 0; i < r->ncs; i++)
		if (r->cs[i].n && r->cs[i].rec.group < group)
			group = r->cs[i].rec.group;
	while (!replay_stop && group != UINT32_MAX) {
		uint64_t now = now_mono_ns() - r->start_mono;
		uint32_t next = UINT32_MAX;
		bool live = false;

		/* the streams may want more in flight together than the cap (setup.c,
		 * choose_depth): then they share it, each pass starting at the next stream so
		 * that none is always served last */
		first = r->ncs ? (first + 1) % r->ncs : 0;
		for (uint32_t k = 0; k < r->ncs; k++) {
			uint32_t i = (first + k) % r->ncs;
			struct cstream *c = &r->cs[i];
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

/*
 * One read per target through the engine before the clock starts: the first I/O of a task
 * pays for allocations (io context, engine state) that made it ~120 us late on zram, and a
 * replay is judged against its first I/O. The last logical block is read, as traces rarely
 * touch it; the read is not part of the result.
 */
static void warm_up(struct run *r)
{
	struct replay_io *io = &r->slots[0];
	struct replay_io *done[1];

	for (unsigned int i = 0; i < r->ndev; i++) {
		memset(io, 0, offsetof(struct replay_io, slot));
		io->op = IO_OP_READ;
		io->dev = i;
		io->len = r->tg[i].lbs;
		io->offset = r->tg[i].size - io->len;
		if (r->eng->queue(r->e, io) || r->eng->submit(r->e) < 0)
			continue;
		for (int tries = 0; tries < 100; tries++)
			if (r->eng->reap(r->e, done, 1, 10000000) == 1)
				break;
	}
}

int run_schedule(struct run *r)
{
	uint64_t start;
	int ret;

	/*
	 * Only the timed mode has deadlines worth a real-time priority, and only on request: a
	 * SCHED_FIFO thread that spins before each deadline leaves the kernel threads serving the
	 * target (the loop worker, io-wq, completion work) the 5 % RT throttling spares. On this
	 * 2-core machine a pgbench trace replayed to a loop device then saw flushes take 28 ms
	 * instead of 0.2 ms and 600 I/Os pile up in flight: the target measured was the replayer.
	 */
	if (r->o->realtime && (r->mode == REPLAY_TIMED || r->mode == REPLAY_DEP)) {
		struct sched_param sp = { .sched_priority = 10 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			run_warn(r, "SCHED_FIFO refused (%s): other tasks may delay deadlines",
				 strerror(errno));
		else
			r->rt_set = true;
	}
	/* a 50 us default slack would make every sleep that much late */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (mlockall(MCL_CURRENT))
		run_warn(r, "mlockall failed (%s): page faults may delay deadlines",
			 strerror(errno));

	warm_up(r);
	/* let the helper decode a head start before the clock begins */
	while (r->mode != REPLAY_CLOSED && !r->input_done &&
	       spsc_count(&r->in) < (r->in.mask + 1) / 2)
		usleep(1000);
	start = now_mono_ns() + 1000000;
	if (r->o->hook && r->o->hook(r->o->hook_arg, REPLAY_STAGE_START, &start)) {
		ret = -ECANCELED;
		goto end;
	}
	r->start_real = now_real_ns();
	__atomic_store_n(&r->start_mono, start, __ATOMIC_RELEASE);
	sched_wait_until(r->start_mono, 200000);

	if (r->mode == REPLAY_TIMED)
		ret = loop_timed(r);
	else if (r->mode == REPLAY_AFAP)
		ret = loop_afap(r);
	else if (r->mode == REPLAY_DEP)
		ret = dep_sched_loop(r);
	else
		ret = loop_closed(r);
	/* drain: every I/O submitted is waited for and recorded */
	while (r->inflight) {
		int n = run_reap(r, 100000000);

		if (n < 0 && n != -EINTR && n != -ETIME) {
			ret = ret ? ret : n;
			break;
		}
	}
end:
	r->end_mono = now_mono_ns();
	munlockall();
	if (r->rt_set) { /* replay_run may be called again (ioreel bench): leave as we came */
		struct sched_param sp = { .sched_priority = 0 };

		sched_setscheduler(0, SCHED_OTHER, &sp);
	}
	if (ret == -ECANCELED && !r->start_mono)
		snprintf(r->herr, sizeof(r->herr), "called off by the caller before any I/O");
	else if (ret)
		snprintf(r->herr, sizeof(r->herr), "engine %s: submit failed: %s", r->eng->name,
			 strerror(-ret));
	return ret;
}

int run_start_helper(struct run *r)
{
	int ret = pthread_create(&r->helper, NULL, helper_main, r);

	if (!ret)
		r->helper_started = true;
	return -ret;
}

void run_stop_helper(struct run *r)
{
	if (!r->helper_started)
		return;
	__atomic_store_n(&r->sched_done, true, __ATOMIC_RELEASE);
	pthread_join(r->helper, NULL);
	r->helper_started = false;
}
