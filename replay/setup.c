// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Everything replay checks and prepares before the first I/O: the trace is scanned once
 * (ops, sizes, devices), every device is mapped to an opened and vetted target, buffers and
 * the engine are set up. Whatever is wrong is reported here, before any I/O is issued.
 */
#include <errno.h>
#include <sys/uio.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <sys/sysmacros.h>
#include "analyze/analyze.h"
#include "formats/trace.h"
#include "replay/block/prefill.h"
#include "replay/core/run.h"
#include "util/cli.h"

const char *replay_mode_name(int mode)
{
	switch (mode) {
	case REPLAY_TIMED:
		return "timed";
	case REPLAY_AFAP:
		return "afap";
	case REPLAY_CLOSED:
		return "closed";
	case REPLAY_DEP:
		return "dep";
	}
	return "auto";
}

void run_warn(struct run *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->o->warn) {
		r->o->warn(msg);
	} else {
		size_t n = strlen(r->res->warnings);

		snprintf(r->res->warnings + n, sizeof(r->res->warnings) - n, "%s\n", msg);
	}
}

static bool writes_allowed(const struct run *r)
{
	return r->o->allow_writes;
}

static bool stream_is_rel(const struct trace_meta *m, uint32_t stream)
{
	return stream < m->nstreams && (m->streams[stream].flags & TRACE_STREAM_REL);
}

bool run_map_event(struct run *r, const struct io_event *ev, struct sev *s)
{
	const struct target *t;
	uint64_t off, rlen;
	uint32_t len;
	uint8_t op = ev->op;
	bool moved;

	if (op >= IO_OP__COUNT || ev->dev >= r->ndev)
		return false;
	if (op == IO_OP_WRITE && !writes_allowed(r)) {
		if (!r->o->writes_as_reads) {
			r->res->skipped[op]++;
			return false;
		}
		op = IO_OP_READ;
		r->res->converted++;
	} else if ((op == IO_OP_DISCARD || op == IO_OP_WRITE_ZEROES) && !writes_allowed(r)) {
		r->res->skipped[op]++;
		return false;
	}
	t = &r->tg[ev->dev];
	s->dev = ev->dev;
	s->aux = 0;
	s->arg = 0;
	s->op = op;
	s->flags = ev->flags & IO_F__ALL;
	s->stream = ev->stream;
	s->tid = ev->tid;
	if (r->mode == REPLAY_CLOSED && s->stream >= r->ncs)
		s->stream = r->ncs - 1;
	s->t = r->mode == REPLAY_TIMED || r->mode == REPLAY_DEP
		       ? sched_deadline(io_event_time(ev), r->genesis, r->o->speed)
		       : 0;
	if (op == IO_OP_FLUSH) {
		s->offset = 0;
		s->len = 0;
		return true;
	}
	if (!ev->length) {
		r->res->skipped[op]++;
		return false;
	}
	len = sched_align_len(ev->length, t->lbs);
	if (len > t->size)
		len = (uint32_t)t->size; /* prescan refused this for reads/writes */
	s->len = len;
	off = ev->offset;
	if (stream_is_rel(r->meta, ev->stream)) /* a region resolved against this target */
		off = trace_stream_offset(&r->meta->streams[ev->stream], off, t->size, &rlen);
	s->offset = sched_map_offset(off, len, t->size, r->src_size[ev->dev], t->lbs,
				     r->o->offsets == REPLAY_OFFSETS_SCALE, &moved);
	if (moved)
		r->res->remapped++;
	else if (len != ev->length || s->offset != off)
		r->res->realigned++;
	return true;
}

static int prescan(struct run *r, struct prescan *p, char *err, size_t errlen)
{
	uint64_t prev = 0;
	long n;

	memset(p, 0, sizeof(*p));
	p->first = UINT64_MAX;
	p->sorted = true;
	r->rmap = readmap_new(r->ndev, r->o->writes_as_reads && !r->o->allow_writes);
	if (!r->rmap) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	while ((n = trace_reader__next(r->rd, r->buf, RUN_DECODE)) > 0) {
		for (long i = 0; i < n; i++) {
			const struct io_event *ev = &r->buf[i];
			uint64_t t = io_event_time(ev);

			if (ev->op >= IO_OP__COUNT) {
				p->bad_op++;
				continue;
			}
			if (ev->dev >= r->ndev) {
				snprintf(err, errlen,
					 "%s: an event names device %u but the trace's device table "
					 "has %u entries (damaged trace?)",
					 r->o->trace, ev->dev, r->ndev);
				return -EINVAL;
			}
			p->events++;
			p->count[ev->op]++;
			p->fit.events++;
			if (ev->complete_ns == IO_TS_NONE)
				p->fit.no_completion++;
			if (!ev->tid)
				p->fit.no_tid++;
			if (t < prev)
				p->sorted = false;
			prev = t;
			if (t < p->first)
				p->first = t;
			if (t > p->last)
				p->last = t;
			if (ev->stream > p->max_stream)
				p->max_stream = ev->stream;
			if (ev->op == IO_OP_FLUSH || stream_is_rel(r->meta, ev->stream))
				continue; /* relative offsets land in the target by construction */
			if (ev->offset + ev->length < ev->offset) {
				snprintf(err, errlen,
					 "%s: an I/O at offset %llu of %u bytes ends past 2^64 bytes "
					 "(damaged trace?)",
					 r->o->trace, (unsigned long long)ev->offset, ev->length);
				return -EINVAL;
			}
			/* Linux moves at most MAX_RW_COUNT bytes in one read or write, and ioreel
			 * replays each I/O as one call: a larger one would come back short */
			if ((ev->op == IO_OP_READ || ev->op == IO_OP_WRITE) &&
			    ev->length > REPLAY_MAX_IO_BYTES) {
				snprintf(err, errlen,
					 "%s: an I/O of %u bytes at offset %llu: Linux reads or "
					 "writes at most %u bytes in one call, and a replay issues "
					 "each I/O as one (split it in the source, or check the "
					 "trace is not damaged)",
					 r->o->trace, ev->length, (unsigned long long)ev->offset,
					 REPLAY_MAX_IO_BYTES);
				return -EFBIG;
			}
			readmap_note(r->rmap, ev); /* the regions it reads: prefill.c */
			if (ev->offset + ev->length > p->max_end[ev->dev])
				p->max_end[ev->dev] = ev->offset + ev->length;
			if (ev->length > p->max_dev_len[ev->dev])
				p->max_dev_len[ev->dev] = ev->length;
			if ((ev->op == IO_OP_READ || ev->op == IO_OP_WRITE) && ev->length > p->max_len)
				p->max_len = ev->length;
		}
	}
	if (n < 0) {
		snprintf(err, errlen, "reading %s: %s", r->o->trace, trace_reader__error(r->rd));
		return (int)n;
	}
	if (!p->events) {
		snprintf(err, errlen, "%s holds no I/O to replay", r->o->trace);
		return -ENODATA;
	}
	return 0;
}

static const char *target_path_for(const struct run *r, unsigned int i)
{
	const char *name = r->meta->ndevices ? r->meta->devices[i].name : "";

	for (unsigned int k = 0; k < r->o->nmaps; k++)
		if (!strcmp(r->o->maps[k].name, name))
			return r->o->maps[k].path;
	return r->o->target;
}

static int check_maps(const struct run *r, char *err, size_t errlen)
{
	for (unsigned int k = 0; k < r->o->nmaps; k++) {
		bool found = false;
		char names[512] = "";

		for (unsigned int i = 0; i < r->meta->ndevices; i++) {
			size_t n = strlen(names);

			found |= !strcmp(r->o->maps[k].name, r->meta->devices[i].name);
			snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "",
				 r->meta->devices[i].name);
		}
		if (!found) {
			snprintf(err, errlen, "--map %s=%s: the trace has no device %s (it has: %s)",
				 r->o->maps[k].name, r->o->maps[k].path, r->o->maps[k].name,
				 *names ? names : "none named");
			return -ENODEV;
		}
	}
	return 0;
}

static int open_targets(struct run *r, const struct prescan *p, char *err, size_t errlen)
{
	bool writes = writes_allowed(r) &&
		      (p->count[IO_OP_WRITE] || p->count[IO_OP_DISCARD] ||
		       p->count[IO_OP_WRITE_ZEROES]);
	struct target_open_opts to = { .writes = writes, .direct = !r->o->buffered,
				       .force = r->o->force, .create_size = r->o->size };
	int ret = check_maps(r, err, errlen);

	if (ret)
		return ret;
	for (unsigned int i = 0; i < r->ndev; i++) {
		const char *path = target_path_for(r, i);
		const char *name = r->meta->ndevices ? r->meta->devices[i].name : "?";
		struct target *t = &r->tg[i];
		uint64_t rec = r->meta->ndevices ? r->meta->devices[i].size_bytes : 0;

		if (!path) {
			snprintf(err, errlen,
				 "trace device %s has no target: give --target PATH or --map %s=PATH",
				 name, name);
			return -EINVAL;
		}
		ret = target_open(t, path, &to, err, errlen);
		if (ret)
			return ret;
		r->etg[i].fd = t->fd;
		r->etg[i].is_blk = t->is_blk;
		if (sched_align_len(p->max_dev_len[i], t->lbs) > t->size &&
		    (p->count[IO_OP_READ] || p->count[IO_OP_WRITE])) {
			snprintf(err, errlen,
				 "trace device %s has an I/O of %u bytes, more than target %s holds "
				 "(%llu bytes)",
				 name, p->max_dev_len[i], path, (unsigned long long)t->size);
			return -ENOSPC;
		}
		r->src_size[i] = rec > p->max_end[i] ? rec : p->max_end[i];
		if (p->max_end[i] > t->size || rec > t->size) {
			if (r->o->offsets == REPLAY_OFFSETS_STRICT) {
				snprintf(err, errlen,
					 "trace device %s (%llu bytes, I/O up to byte %llu) is larger "
					 "than target %s (%llu bytes); use --offsets wrap or scale",
					 name, (unsigned long long)rec,
					 (unsigned long long)p->max_end[i], path,
					 (unsigned long long)t->size);
				return -ENOSPC;
			}
			run_warn(r,
				 "trace device %s (%llu bytes, I/O up to byte %llu) is larger than "
				 "target %s (%llu bytes): offsets beyond it are %s",
				 name, (unsigned long long)rec, (unsigned long long)p->max_end[i],
				 path, (unsigned long long)t->size,
				 r->o->offsets == REPLAY_OFFSETS_SCALE ? "scaled into it" : "wrapped");
		}
	}
	return 0;
}

static void warn_skips(struct run *r, const struct prescan *p)
{
	if (writes_allowed(r))
		return;
	if (p->count[IO_OP_WRITE] && !r->o->writes_as_reads)
		run_warn(r,
			 "skipping %llu writes: give --allow-writes to replay them (destroys data "
			 "on the target) or --writes-as-reads",
			 (unsigned long long)p->count[IO_OP_WRITE]);
	else if (p->count[IO_OP_WRITE])
		run_warn(r, "replaying %llu writes as reads (--writes-as-reads)",
			 (unsigned long long)p->count[IO_OP_WRITE]);
	if (p->count[IO_OP_DISCARD] || p->count[IO_OP_WRITE_ZEROES])
		run_warn(r,
			 "skipping %llu discards and %llu write-zeroes: give --allow-writes to "
			 "replay them",
			 (unsigned long long)p->count[IO_OP_DISCARD],
			 (unsigned long long)p->count[IO_OP_WRITE_ZEROES]);
}

/* Closed mode keeps each stream's events in memory: they are cycled for time_based jobs and
 * I/O counts beyond them. */
static int load_streams(struct run *r, const struct prescan *p, char *err, size_t errlen)
{
	long n;

	r->ncs = p->max_stream + 1;
	if (r->ncs > TRACE_MAX_STREAMS)
		r->ncs = TRACE_MAX_STREAMS;
	r->cs = calloc(r->ncs, sizeof(*r->cs));
	if (!r->cs)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->ncs; i++) {
		struct cstream *c = &r->cs[i];

		if (i < r->meta->nstreams) {
			c->rec = r->meta->streams[i];
		} else if (r->meta->time_based && r->meta->runtime_ns) {
			c->rec.flags = TRACE_STREAM_TIME_BASED;
			c->rec.runtime_ns = r->meta->runtime_ns;
		}
		c->depth = c->rec.depth ? c->rec.depth : 1;
	}
	trace_reader__rewind(r->rd);
	while ((n = trace_reader__next(r->rd, r->buf, RUN_DECODE)) > 0) {
		for (long i = 0; i < n; i++) {
			struct sev s;
			struct cstream *c;

			if (!run_map_event(r, &r->buf[i], &s))
				continue;
			c = &r->cs[s.stream];
			if (c->n == c->cap) {
				uint64_t cap = c->cap ? c->cap * 2 : 1024;
				struct sev *ev = realloc(c->ev, cap * sizeof(*ev));

				if (!ev)
					return -ENOMEM;
				c->ev = ev;
				c->cap = cap;
			}
			c->ev[c->n++] = s;
		}
	}
	if (n < 0) {
		snprintf(err, errlen, "reading %s: %s", r->o->trace, trace_reader__error(r->rd));
		return (int)n;
	}
	return 0;
}

/* 1 MiB of rotation: enough distinct blocks that no target sees the same 4 KiB twice in a row. */
#define WDATA_SPAN (1u << 20)
/* At most this many bytes of buffers per pool (struct run_pool): reads each get one of their
 * own up to it (then share, or wait where sharing is unsafe); --write-data pattern's writes,
 * whose stamps are their own offsets', wait beyond it. */
#define POOL_BYTES (64u << 20)
/* include/linux/magic.h has no ZFS: OpenZFS, include/sys/fs/zfs.h */
#define ZFS_SUPER_MAGIC 0x2fc12fc1UL
/*
 * A closed-loop trace's streams each keep their depth in flight; past this many together they
 * share the cap (and --max-inflight raises it): 64 jobs at iodepth 64, the largest RAID-study
 * shape, fit.
 */
#define CLOSED_DEPTH_DEFAULT 4096

static unsigned int choose_depth(struct run *r)
{
	uint64_t want = 0;

	if (r->mode == REPLAY_DEP) {
		/* a safety valve: the threads' own recorded depths hold dep mode back first */
		return r->o->max_inflight ? r->o->max_inflight : 1024;
	} else if (r->mode == REPLAY_TIMED) {
		/* A synthesized timed job (--rate-iops) keeps at most numjobs x iodepth in flight,
		 * as fio does: when the target falls behind, fio's rate lags rather than queueing
		 * without bound. A recorded trace has no such limit: 1024. */
		for (uint32_t i = 0; i < r->meta->nstreams && i < TRACE_MAX_STREAMS; i++)
			want += r->meta->streams[i].depth;
		if (r->o->max_inflight)
			return r->o->max_inflight;
		return want ? (unsigned int)(want < 65536 ? want : 65536) : 1024;
	} else if (r->mode == REPLAY_AFAP) {
		return r->o->iodepth ? r->o->iodepth : 32;
	}
	for (uint32_t i = 0; i < r->ncs; i++)
		want += r->cs[i].n ? r->cs[i].depth : 0;
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

/*
 * Whether a read's buffer must be its own while the read is in flight: btrfs (and ZFS) verify
 * a direct read's checksum in the buffer the data landed in, and a second read landing there
 * meanwhile makes it fail with EIO (and counts a checksum error against the filesystem).
 */
static bool reads_need_own_buffer(const struct run *r)
{
	struct statfs sf;

	for (unsigned int i = 0; i < r->ndev; i++)
		if (!r->tg[i].is_blk && r->tg[i].fd >= 0 && !fstatfs(r->tg[i].fd, &sf) &&
		    (sf.f_type == BTRFS_SUPER_MAGIC || (unsigned long)sf.f_type == ZFS_SUPER_MAGIC))
			return true;
	return r->o->root && !statfs(r->o->root, &sf) &&
	       (sf.f_type == BTRFS_SUPER_MAGIC || (unsigned long)sf.f_type == ZFS_SUPER_MAGIC);
}

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
static int setup_slots(struct run *r, const struct prescan *p, char *err, size_t errlen)
{
	uint32_t lbs = 512;
	char why[256] = "";
	struct engine_params ep;
	size_t read_len, wdata_len = 0;

	for (unsigned int i = 0; i < r->ndev; i++)
		if (r->tg[i].lbs > lbs)
			lbs = r->tg[i].lbs;
	r->slot_bytes = ((size_t)sched_align_len(p->max_len ? p->max_len : 4096, lbs) + 4095) &
			~(size_t)4095;
	r->depth = choose_depth(r);
	read_len = pool_init(&r->pool[RUN_POOL_READ], r->slot_bytes, r->depth,
			     reads_need_own_buffer(r));
	if (r->fr || p->count[IO_OP_WRITE]) { /* a block trace with no write needs no data */
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
	ep = (struct engine_params){ .targets = r->etg, .ntargets = r->ndev, .depth = r->depth,
				     .arena = r->arena, .arena_len = r->arena_len };
	if (r->fr) /* a file-level replay's targets are its open files (file_int.h) */
		file_engine_targets(r, &ep);
	r->e = r->eng->init(&ep, why, sizeof(why));
	if (!r->e) {
		int e = errno ? errno : EINVAL;

		snprintf(err, errlen, "engine %s: %s", r->eng->name, *why ? why : strerror(e));
		return -e;
	}
	return 0;
}

static int open_output(struct run *r)
{
	struct trace_meta *m = calloc(1, sizeof(*m));
	const char *base;

	if (!m)
		return -ENOMEM;
	if (r->fr) {
		free(m);
		return file_open_output(r);
	}
	/* "replay:dep": analyze says which question the result answers (timed or dep) */
	trace_meta_init(m, "replay");
	snprintf(m->source, sizeof(m->source), "replay:%s", replay_mode_name(r->mode));
	snprintf(m->options, sizeof(m->options), "%s",
		 r->o->command_line ? r->o->command_line : "");
	m->mode = TRACE_MODE_TIMED;
	for (unsigned int i = 0; i < r->ndev; i++) {
		struct trace_device d = { 0 };
		const struct target *t = &r->tg[i];

		base = strrchr(t->path, '/');
		snprintf(d.name, sizeof(d.name), "%s", base ? base + 1 : t->path);
		d.major = t->is_blk ? major(t->rdev) : 0;
		d.minor = t->is_blk ? minor(t->rdev) : 0;
		d.size_bytes = t->size;
		d.logical_block_size = t->lbs;
		d.physical_block_size = t->lbs;
		snprintf(d.model, sizeof(d.model), "%s", t->is_blk ? "block device" : "file");
		trace_meta_add_device(m, &d);
	}
	if (r->o->output) {
		r->w = trace_writer__open(r->o->output, m, NULL);
		if (!r->w) {
			int e = errno;

			free(m);
			return -e;
		}
	}
	r->an = analysis__new(NULL, m, r->o->output ? r->o->output : "replay");
	free(m);
	return 0;
}

static void run_free(struct run *r)
{
	if (r->e)
		r->eng->exit(r->e);
	for (unsigned int i = 0; i < r->ndev; i++)
		target_close(&r->tg[i]);
	if (r->arena)
		munmap(r->arena, r->arena_len);
	free(r->slots);
	free(r->free_slots);
	free(r->done);
	free(r->batch);
	for (int k = 0; k < RUN_POOL__COUNT; k++)
		free(r->pool[k].free);
	for (uint32_t i = 0; i < r->ncs; i++)
		free(r->cs[i].ev);
	free(r->cs);
	spsc_free(&r->in);
	spsc_free(&r->out);
	dep_infer__free(r->infer);
	dep_sched_free(r);
	file_replay_free(r);
	if (r->rd)
		trace_reader__close(r->rd);
	readmap_free(r->rmap);
	free(r);
}

static void finish(struct run *r, const struct prescan *p)
{
	struct replay_result *res = r->res;

	res->trace_span_ns = r->mode == REPLAY_TIMED || r->mode == REPLAY_DEP
				     ? sched_deadline(p->last, p->first, r->o->speed)
				     : p->last - p->first;
	if (r->infer)
		res->dep = *dep_infer__stats(r->infer);
	res->replay_span_ns = r->first_submit_set ? r->last_submit - r->first_submit : 0;
	res->stretch = res->trace_span_ns ? (double)res->replay_span_ns /
						    (double)res->trace_span_ns - 1.0
					  : 0;
	res->elapsed_ns = r->end_mono > r->start_mono ? r->end_mono - r->start_mono : 0;
	res->analysis = r->an;
	r->an = NULL;
}

/*
 * The mode a trace replays in when none is given. A synthesized job keeps its streams' depths
 * (closed). A recording answers "how would this workload run there" best in dep mode: in
 * bench/predict.sh (pgbench, recorded on one stack, replayed onto a slower one), dep's
 * latencies were 0.7-1.35x the real runs' where timed's were 3.6-7x, for like IOPS. An
 * imported trace (fio, blktrace, MSR: other tools' threads and clocks) keeps its schedule.
 */
static int default_mode(const struct trace_meta *m)
{
	if (m->mode == TRACE_MODE_CLOSED)
		return REPLAY_CLOSED;
	return strcmp(m->source, "record") ? REPLAY_TIMED : REPLAY_DEP;
}

/*
 * Dep mode needs completion times and thread ids. A trace without them is refused with what
 * it lacks, or replayed in the mode the user chose for that case (--dep-fallback), never
 * silently in another mode.
 */
static int dep_setup(struct run *r, const struct prescan *p, char *err, size_t errlen)
{
	char why[512];
	struct dep_opts o;

	if (!dep_fitness_ok(&p->fit, why, sizeof(why))) {
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
			 replay_mode_name(r->o->dep_fallback));
		r->mode = r->o->dep_fallback;
		return 0;
	}
	if (r->o->dep_set)
		o = r->o->dep;
	else
		dep_opts_default(&o);
	r->infer = dep_infer__new(&o);
	if (!r->infer || dep_sched_new(r, &o)) {
		snprintf(err, errlen, "out of memory for dep mode's window of %u I/Os", DEP_WINDOW);
		return -ENOMEM;
	}
	return 0;
}

/*
 * With no --engine: io_uring, unless a target cannot take I/O without blocking (RWF_NOWAIT
 * refused, as bio-based zram, md and dm refuse it). io_uring then hands every I/O to io-wq
 * worker threads, and their wake-ups made p99 lateness ~400 us at 10k IOPS on zram where
 * libaio, which submits inline as the original kernel path did, stayed under 5 us.
 */
static void pick_engine(struct run *r)
{
	for (unsigned int i = 0; i < r->ndev; i++) {
		const struct target *t = &r->tg[i];
		uint32_t len = t->lbs ? t->lbs : 4096;
		void *buf = NULL;
		struct iovec iov;
		ssize_t n;

		if (!t->is_blk || r->o->buffered || posix_memalign(&buf, 4096, len))
			continue;
		iov.iov_base = buf;
		iov.iov_len = len;
		n = preadv2(t->fd, &iov, 1, 0, RWF_NOWAIT);
		free(buf);
		if (n < 0 && (errno == EOPNOTSUPP || errno == EAGAIN)) {
			r->eng = engine_find("libaio");
			run_warn(r, "engine libaio: target %s does not take I/O without blocking "
				    "(RWF_NOWAIT), so io_uring would queue every I/O to worker threads; "
				    "give --engine io_uring to use it anyway", t->path);
			return;
		}
	}
}

int replay_run(const struct replay_opts *o, struct replay_result *res, char *err, size_t errlen)
{
	struct run *r = calloc(1, sizeof(*r));
	struct prescan p;
	char why[256] = "";
	int ret;

	memset(res, 0, sizeof(*res));
	hist_init(&res->lateness);
	if (!r)
		return -ENOMEM;
	r->o = o;
	r->res = res;
	r->pid = (uint32_t)getpid();
	r->eng = engine_find(o->engine ? o->engine : "io_uring");
	if (!r->eng) {
		snprintf(err, errlen, "unknown engine '%s' (io_uring, libaio, psync, null)",
			 o->engine);
		ret = -EINVAL;
		goto out;
	}
	res->engine = r->eng->name;
	r->rd = trace_reader__open(o->trace, 0, why, sizeof(why));
	if (!r->rd) {
		ret = -errno;
		snprintf(err, errlen, "cannot read trace %s: %s", o->trace,
			 *why ? why : strerror(errno));
		goto out;
	}
	r->meta = trace_reader__meta(r->rd);
	r->ndev = r->meta->ndevices ? r->meta->ndevices : 1;
	r->mode = o->mode != REPLAY_MODE_AUTO ? o->mode : default_mode(r->meta);
	res->mode = r->mode;
	if (r->meta->level == TRACE_LEVEL_FILE) {
		r->ndev = 0; /* its targets are the files it opens (file_setup.c) */
		ret = file_replay_setup(r, &p, err, errlen);
	} else if (o->root) {
		snprintf(err, errlen, "--root is for file-level traces (record --level file); %s is "
				      "block-level: give --target PATH", o->trace);
		res->usage_error = true;
		ret = -EINVAL;
	} else {
		ret = prescan(r, &p, err, errlen);
	}
	if (ret)
		goto out;
	r->genesis = o->origin_set ? o->origin_ns : p.first;
	if (r->mode == REPLAY_DEP) {
		ret = dep_setup(r, &p, err, errlen);
		if (ret)
			goto out;
		res->mode = r->mode;
	}
	if (!p.sorted && (r->mode == REPLAY_TIMED || r->mode == REPLAY_DEP))
		run_warn(r, "%s is not in time order: I/Os that come after later ones in the file "
			    "will be issued late", o->trace);
	if (p.bad_op)
		run_warn(r, "%llu events with an unknown op are not replayed",
			 (unsigned long long)p.bad_op);
	ret = r->fr ? file_replay_prepare(r, err, errlen) : open_targets(r, &p, err, errlen);
	if (!ret && o->hook && o->hook(o->hook_arg, REPLAY_STAGE_CHECKED, NULL)) {
		snprintf(err, errlen, "called off by the caller before any I/O");
		ret = -ECANCELED;
	}
	if (ret)
		goto out;
	if (!o->engine)
		pick_engine(r);
	res->engine = r->eng->name;
	warn_skips(r, &p);
	/* reads of never-written space: found, warned about, --prefill'ed (prefill.c) */
	ret = r->fr ? 0 : prefill_targets(r, err, errlen);
	if (ret)
		goto out;
	if (r->mode == REPLAY_CLOSED) {
		ret = load_streams(r, &p, err, errlen);
		if (ret)
			goto out;
	} else {
		trace_reader__rewind(r->rd);
	}
	ret = setup_slots(r, &p, err, errlen);
	if (!ret)
		ret = spsc_init(&r->in, r->infer ? sizeof(struct dsev) : sizeof(struct sev),
				RUN_RING);
	if (!ret)
		ret = spsc_init(&r->out, r->fr ? sizeof(struct done_fev) : sizeof(struct done_ev),
				RUN_RING);
	if (ret) {
		if (!*err)
			snprintf(err, errlen, "setting up: %s", strerror(-ret));
		goto out;
	}
	ret = open_output(r);
	if (ret) {
		snprintf(err, errlen, "cannot create result trace %s: %s", o->output,
			 strerror(-ret));
		goto out;
	}
	/* the counters so far came from load_streams; the run counts them again */
	if (r->mode != REPLAY_CLOSED) {
		memset(res->skipped, 0, sizeof(res->skipped));
		res->converted = res->remapped = res->realigned = 0;
	}
	ret = run_start_helper(r);
	if (ret) {
		snprintf(err, errlen, "cannot start the helper thread: %s", strerror(-ret));
		goto out;
	}
	ret = run_schedule(r);
	run_stop_helper(r);
	if (!ret && (r->rerr || r->werr))
		ret = r->rerr ? r->rerr : r->werr;
	if (ret)
		snprintf(err, errlen, "%s", r->herr);
	finish(r, &p);
	if (r->w) {
		struct trace_stats st = { .events = res->ios, .end_ns = res->elapsed_ns };
		int wret = trace_writer__close(r->w, &st);

		r->w = NULL;
		if (wret && !ret) {
			snprintf(err, errlen, "closing the result trace %s failed: %s", o->output,
				 strerror(-wret));
			ret = wret;
		}
	}
out:
	if (r->w)
		trace_writer__abort(r->w);
	if (r->an)
		analysis__free(r->an);
	run_free(r);
	return ret;
}

void replay_result_free(struct replay_result *res)
{
	if (res->analysis)
		analysis__free(res->analysis);
	res->analysis = NULL;
	free(res->file);
	res->file = NULL;
}
