// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The scheduling thread's slots and buffers: an I/O takes a slot (one per I/O in flight, up to
 * the mode's cap) and a buffer, goes to the engine (or to the source, for calls it makes
 * itself), and on completion its result event goes to the helper thread through the output
 * ring. Shared by every mode's loop.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "replay/core/run.h"
#include "util/cli.h"

/* Set by the verb's SIGINT/SIGTERM handler; defined here, beside the engine set-up that hands it
 * to the engines (engine_params.cancel), read by every loop. */
volatile sig_atomic_t replay_stop;

/* 1 MiB of rotation: enough distinct blocks that no target sees the same 4 KiB twice in a row. */
#define WDATA_SPAN (1u << 20)
/* At most this many bytes of buffers per pool (struct run_pool): reads each get one of their
 * own up to it (then share, or wait where sharing is unsafe); --write-data pattern's writes,
 * whose stamps are their own offsets', wait beyond it. */
#define POOL_BYTES (32u << 20)
static size_t pool_init(struct run_pool *p, size_t each, unsigned int depth, bool wait)
{
	uint64_t n = POOL_BYTES / each;

	p->each = each;
	p->n = (unsigned int)(n < 1 ? 1 : n < depth ? n : depth);
	p->wait = wait;
	return (size_t)p->n * each;
}

/*
 * The buffers. What a read brings is discarded and the default write data is random, so the
 * replay needs no buffer per I/O slot: reads take one from a bounded pool (their own while one
 * is free, a shared one beyond: concurrent DMA into it is harmless where nothing checks it) and
 * every write points into one region of random data at a rotating offset. Memory is then
 * bounded whatever the depth: a PostgreSQL trace with 2 MiB writes at depth 1024 had needed
 * 2 GiB, and the in-flight cap was lowered to fit, which changed what was measured. Only
 * --write-data pattern stamps each write with its offset and needs a buffer per write in
 * flight, from a pool of its own.
 */
int run_setup_slots(struct run *r, const struct prescan *p, char *err, size_t errlen)
{
	uint32_t lbs = 512;
	bool own_reads = false;
	char why[256] = "";
	struct engine_params ep = { 0 };
	size_t read_len, wdata_len = 0;

	r->src->buffers(r, &lbs, &own_reads);
	r->slot_bytes = ((size_t)sched_align_len(p->max_len ? p->max_len : 4096, lbs) + 4095) &
			~(size_t)4095;
	r->depth = r->mops->depth(r);
	/* read buffers as large as the largest read (a trace with no read: one, for the
	 * source's warm-up read of a block) */
	read_len = ((size_t)sched_align_len(p->max_read ? p->max_read : 4096, lbs) + 4095) &
		   ~(size_t)4095;
	read_len = pool_init(&r->pool[RUN_POOL_READ], read_len, p->max_read ? r->depth : 1,
			     own_reads);
	/* a trace with no write needs no write data (a file-level scan does not count ops) */
	if (!p->count[IO_OP_READ] || p->count[IO_OP_WRITE]) {
		if (r->o->pattern_data) {
			wdata_len = pool_init(&r->pool[RUN_POOL_PATTERN], r->slot_bytes, r->depth,
					      true);
		} else {
			r->wdata_span = WDATA_SPAN;
			wdata_len = r->wdata_span + r->slot_bytes;
		}
	}
	r->arena_len = read_len + wdata_len;
	r->arena = mmap(NULL, r->arena_len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	r->slots = calloc(r->depth, sizeof(*r->slots));
	r->free_slots = calloc(r->depth, sizeof(*r->free_slots));
	r->done = calloc(r->depth, sizeof(*r->done));
	r->batch = calloc(r->depth, sizeof(*r->batch));
	for (int k = 0; k < RUN_POOL__COUNT; k++)
		r->pool[k].free = r->pool[k].n ? calloc(r->pool[k].n, sizeof(uint32_t)) : NULL;
	if (r->arena == MAP_FAILED || !r->slots || !r->free_slots || !r->done || !r->batch ||
	    !r->pool[RUN_POOL_READ].free ||
	    (r->pool[RUN_POOL_PATTERN].n && !r->pool[RUN_POOL_PATTERN].free)) {
		if (r->arena == MAP_FAILED)
			r->arena = NULL;
		snprintf(err, errlen, "out of memory for %zu bytes of I/O buffers and %u I/O slots",
			 r->arena_len, r->depth);
		return -ENOMEM;
	}
	r->pool[RUN_POOL_READ].base = r->arena;
	r->wdata = (char *)r->arena + read_len;
	r->pool[RUN_POOL_PATTERN].base = r->wdata;
	if (r->wdata_span)
		pattern_random(r->wdata, wdata_len);
	for (int k = 0; k < RUN_POOL__COUNT; k++) {
		struct run_pool *q = &r->pool[k];

		for (unsigned int i = 0; i < q->n; i++)
			q->free[i] = q->n - 1 - i;
		q->nfree = q->n;
	}
	for (unsigned int i = 0; i < r->depth; i++) {
		r->slots[i].slot = i;
		r->slots[i].pool = UINT32_MAX;
		r->slots[i].buf = r->arena;
		r->free_slots[i] = r->depth - 1 - i;
	}
	r->nfree = r->depth;
	r->res->inflight_cap = r->depth;
	ep.depth = r->depth;
	ep.arena = r->arena;
	ep.arena_len = r->arena_len;
	ep.cancel = &replay_stop;
	ep.lat_ns = r->o->null_lat_ns;
	ep.flush_lat_ns = r->o->null_flush_lat_ns;
	ep.cpu_stats = r->cpu_stats;
	ep.start_mono = &r->start_mono;
	ep.tids = r->pre_tids;
	ep.ntids = r->npre_tids;
	r->src->engine_targets(r, &ep);
	r->e = r->eng->init(&ep, why, sizeof(why));
	if (!r->e) {
		int e = errno ? errno : EINVAL;

		snprintf(err, errlen, "engine %s: %s", r->eng->name, *why ? why : strerror(e));
		return -e;
	}
	return 0;
}

void run_free_slots(struct run *r)
{
	if (r->e)
		r->eng->exit(r->e);
	r->e = NULL;
	if (r->arena)
		munmap(r->arena, r->arena_len);
	r->arena = NULL;
	free(r->slots);
	free(r->free_slots);
	free(r->done);
	free(r->batch);
	for (int k = 0; k < RUN_POOL__COUNT; k++)
		free(r->pool[k].free);
}

static void release_pool_buffer(struct run *r, struct replay_io *io)
{
	struct run_pool *p = &r->pool[io->pool_kind];

	if (io->pool != UINT32_MAX && io->pool < p->n && p->nfree < p->n)
		p->free[p->nfree++] = io->pool;
	io->pool = UINT32_MAX;
}

/*
 * Dep mode (--dep-date-wakes): the time a completion is taken to have come, for its children's
 * release. A completion the scheduling thread slept until (since asleep, CLOCK_MONOTONIC)
 * reaches it a wake-up late, and the recorded think time that follows already holds the
 * recorded thread's own wake-up: released from the moment it was seen, every step of a chain
 * carried both. Beside the host's load (no spin: the thread sleeps in the kernel) the wake-up
 * measured 32-42 us; taken out, a pgbench trace replayed onto its own device ran +9.4 % long
 * at the median against +10.9 % (replay/README.md, "Dated wake-ups"). Never back before the
 * wait began.
 */
static uint64_t complete_seen(struct run *r, uint64_t now, uint64_t asleep)
{
	uint64_t since, back, late = r->res->wake.late_ns;

	if (!asleep || !late)
		return now;
	since = asleep - r->start_mono;
	back = now - since < late ? now - since : late;
	if (back) {
		r->res->wake.dated++;
		r->res->wake.dated_ns += back;
	}
	return now - back;
}

static void complete(struct run *r, struct replay_io **done, int n, uint64_t asleep)
{
	uint64_t now = now_mono_ns() - r->start_mono;
	uint64_t seen = complete_seen(r, now, asleep);

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
		ev->flags = io->flags & IO_F__ALL; /* not the engine's own (ENGINE_F_*) */
		if (io->flags & ENGINE_F_WRITEBACK)
			r->res->writeback_writes++;
		ev->error = io->res < 0 ? io->res : 0;
		/* the replaying thread's CPU figures, as a recording's (engine_cpu_clock) */
		ev->oncpu_ns = io->oncpu_ns;
		ev->cpuwait_ns = io->cpuwait_ns;
		if (io->wait_rec) {
			r->res->wait_calls++;
			r->res->wait_recorded_ns += io->wait_ns;
			r->res->wait_own_ns += io->cpuwait_ns - io->wait_added_ns;
			r->res->wait_added_ns += io->wait_added_ns;
		}
		ev->pid = r->pid;
		/* the replayer is the process; the thread is the recorded one whose I/O this is,
		 * so a result can be read per recorded thread as the trace can */
		ev->tid = io->tid ? io->tid : r->pid;
		memcpy(ev->comm, "ioreel", 7);
		if (r->src->complete)
			r->src->complete(r, io, d);
		spsc_push(&r->out);
		if (r->mops->done)
			r->mops->done(r, io, io->complete_ns ? ev->complete_ns : seen);
		release_pool_buffer(r, io);
		r->free_slots[r->nfree++] = io->slot;
	}
	r->inflight -= (unsigned int)n;
}

/*
 * The scheduling thread's wake-up latency (--dep-date-wakes): how late a wait that timed out
 * returned, clipped (WAKE_LATE_CLIP_NS), averaged over the last ~16. A timer's wake-up and a
 * completion's take the same path back onto a CPU, behind the same load.
 */

static void wake_sample(struct run *r, uint64_t due)
{
	uint64_t now = now_mono_ns(), late, *avg = &r->res->wake.late_ns;

	if (now < due)
		return; /* a signal, or a spurious return: no measure */
	late = now - due < WAKE_LATE_CLIP_NS ? now - due : WAKE_LATE_CLIP_NS;
	*avg = r->res->wake.samples++ ? *avg - *avg / 16 + late / 16 : late;
}

int run_reap(struct run *r, uint64_t timeout_ns)
{
	/* the calls a source made itself on this thread come back first */
	int n = r->src->reap ? r->src->reap(r, r->done, r->depth) : 0;
	uint64_t began = 0;

	if (!n) {
		if (r->res->wake.on && timeout_ns)
			began = now_mono_ns();
		n = r->eng->reap(r->e, r->done, r->depth, timeout_ns);
		if (began && !n)
			wake_sample(r, began + timeout_ns);
	}
	if (n > 0)
		complete(r, r->done, n, began);
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
			/* none in flight: none will come back, and waiting would never end */
			if (!r->inflight)
				return -ENOBUFS;
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

/* Takes a free slot and queues one I/O on it; chain_gap: a chained one (replay_io.chained). */
static int issue(struct run *r, const struct sev *s, uint64_t deadline, uint32_t tag,
		 const uint64_t *chain_gap)
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
	if (s->t > r->res->trace_reached_ns)
		r->res->trace_reached_ns = s->t;

	io->deadline_ns = deadline;
	io->complete_ns = 0;
	io->began_ns = 0;
	io->oncpu_ns = 0;
	io->cpuwait_ns = 0;
	io->wait_rec = r->cpu_wait; /* file level only (core/cpu.c) */
	io->wait_ns = io->wait_rec ? s->cpuwait_ns : 0;
	io->wait_added_ns = 0;
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
	io->chained = chain_gap != NULL;
	io->lazy_low = 0;
	io->chain_gap_ns = chain_gap ? *chain_gap : 0;
	io->burn_ns = s->oncpu_ns ? run_cpu_burn(r, s) : 0;
	io->buf = r->arena;
	io->pool = UINT32_MAX;
	/* a call the source makes itself (file level: on a name) is made here and now */
	ret = r->src->issue ? r->src->issue(r, io) : 0;
	if (ret > 0 && io->chained) {
		/* run_to_engine() said otherwise: a bug, not the workload's */
		io->res = -EINVAL;
	}
	if (ret > 0) {
		r->inflight++;
		if (r->inflight - r->ahead > r->res->max_inflight_seen)
			r->res->max_inflight_seen = r->inflight - r->ahead;
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
	if (r->inflight - r->ahead > r->res->max_inflight_seen)
		r->res->max_inflight_seen = r->inflight - r->ahead;
	return 0;
}

bool run_stopping(struct run *r)
{
	if (replay_stop)
		return true;
	/* an I/O due at the very end (--runtime trace: the last one) still goes */
	if (!r->runtime_end || now_mono_ns() <= r->runtime_end)
		return false;
	r->res->runtime_hit = true;
	return true;
}

int run_issue(struct run *r, const struct sev *s, uint64_t deadline, uint32_t tag)
{
	return issue(r, s, deadline, tag, NULL);
}

int run_issue_chained(struct run *r, const struct sev *s, uint64_t floor, uint32_t tag,
		      uint64_t gap)
{
	return issue(r, s, floor, tag, &gap);
}

bool run_to_engine(const struct run *r, const struct sev *s)
{
	return !r->src->to_engine || r->src->to_engine(r, s);
}

int run_submit(struct run *r)
{
	uint64_t t, back;
	unsigned int n = r->nbatch;
	int ret;

	if (!n)
		return 0; /* called once per stream and pass of the closed loop: no clock read */
	t = now_mono_ns() - r->start_mono;
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

