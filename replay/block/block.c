// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The block source: a block-level trace (recorded, synthesized, imported) replayed onto
 * devices or files. One pass over the trace before anything is opened (ops, sizes, devices,
 * the regions it reads), every trace device mapped to a target opened and vetted, each event
 * mapped onto its target (alignment, wrap or scale, skipped writes), and the result trace
 * named after the targets.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include "analyze/analyze.h"
#include "formats/trace.h"
#include "replay/block/block.h"
#include "replay/block/prefill.h"
#include "util/cli.h"

/* include/linux/magic.h has no ZFS: OpenZFS, include/sys/fs/zfs.h */
#define ZFS_SUPER_MAGIC 0x2fc12fc1UL

static bool writes_allowed(const struct run *r)
{
	return r->o->allow_writes;
}

static bool stream_is_rel(const struct trace_meta *m, uint32_t stream)
{
	return stream < m->nstreams && (m->streams[stream].flags & TRACE_STREAM_REL);
}

/* Maps one trace event (op rules, device, offset) into s; false when it is not replayed. */
static bool map_event(struct run *r, const struct io_event *ev, struct sev *s)
{
	struct brun *b = brun_of(r);
	const struct target *t;
	uint64_t off, rlen;
	uint32_t len;
	uint8_t op = ev->op;
	bool moved;

	if (op >= IO_OP__COUNT || ev->dev >= b->ndev)
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
	t = &b->tg[ev->dev];
	s->dev = ev->dev;
	s->aux = 0;
	s->arg = 0;
	s->op = op;
	s->flags = ev->flags & IO_F__ALL;
	/* a write the kernel's writeback made (no sync flag): as writeback, if asked */
	if (op == IO_OP_WRITE && b->etg[ev->dev].wb_fd >= 0 &&
	    !(ev->flags & (IO_F_SYNC | IO_F_FUA | IO_F_PREFLUSH)))
		s->flags |= ENGINE_F_WRITEBACK;
	s->stream = ev->stream;
	s->tid = ev->tid;
	s->t = run_deadline(r, io_event_time(ev));
	run_cpu_sev(r, s, ev->oncpu_ns);
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
	s->offset = sched_map_offset(off, len, t->size, b->src_size[ev->dev], t->lbs,
				     r->o->offsets == REPLAY_OFFSETS_SCALE, &moved);
	if (moved)
		r->res->remapped++;
	else if (len != ev->length || s->offset != off)
		r->res->realigned++;
	return true;
}

static int prescan(struct run *r, struct prescan *p, char *err, size_t errlen)
{
	struct brun *b = brun_of(r);
	uint64_t prev = 0;
	long n;

	memset(p, 0, sizeof(*p));
	p->first = UINT64_MAX;
	p->sorted = true;
	b->rmap = readmap_new(b->ndev, r->o->writes_as_reads && !r->o->allow_writes);
	if (!b->rmap) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	while ((n = trace_reader__next(r->rd, b->buf, RUN_DECODE)) > 0) {
		for (long i = 0; i < n; i++) {
			const struct io_event *ev = &b->buf[i];
			uint64_t t = io_event_time(ev);

			if (ev->op >= IO_OP__COUNT) {
				p->bad_op++;
				continue;
			}
			if (ev->dev >= b->ndev) {
				snprintf(err, errlen,
					 "%s: an event names device %u but the trace's device table "
					 "has %u entries (damaged trace?)",
					 r->o->trace, ev->dev, b->ndev);
				return -EINVAL;
			}
			p->events++;
			p->count[ev->op]++;
			p->oncpu_events += ev->oncpu_ns != 0;
			p->oncpu_total_ns += ev->oncpu_ns;
			if (ev->complete_ns == IO_TS_NONE)
				p->no_completion++;
			if (!ev->tid)
				p->no_tid++;
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
			readmap_note(b->rmap, ev); /* the regions it reads: prefill.c */
			if (ev->offset + ev->length > p->max_end[ev->dev])
				p->max_end[ev->dev] = ev->offset + ev->length;
			if (ev->length > p->max_dev_len[ev->dev])
				p->max_dev_len[ev->dev] = ev->length;
			if ((ev->op == IO_OP_READ || ev->op == IO_OP_WRITE) && ev->length > p->max_len)
				p->max_len = ev->length;
			if ((ev->op == IO_OP_READ || (ev->op == IO_OP_WRITE && r->o->writes_as_reads &&
						      !r->o->allow_writes)) &&
			    ev->length > p->max_read)
				p->max_read = ev->length;
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

static int check_maps(struct run *r, char *err, size_t errlen)
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
	/* a --target nothing goes to must not look as if the replay went there */
	if (r->o->target && r->meta->ndevices) {
		unsigned int i = 0;

		while (i < r->meta->ndevices && target_path_for(r, i) != r->o->target)
			i++;
		if (i == r->meta->ndevices)
			run_warn(r, "--target %s: every device of the trace is given by --map, "
				    "so nothing goes there", r->o->target);
	}
	return 0;
}

/*
 * Two trace devices onto one block device, written: the second exclusive open of it fails
 * (EBUSY, the first holds it), so the second uses the first's. 1 when none is shared, else 0
 * or -errno.
 */
static int share_target(struct brun *b, unsigned int i, const char *path, bool writes,
			char *err, size_t errlen)
{
	struct stat st;

	if (!writes || stat(path, &st) || !S_ISBLK(st.st_mode))
		return 1;
	for (unsigned int k = 0; k < i; k++)
		if (b->tg[k].is_blk && b->tg[k].rdev == st.st_rdev) {
			b->tg[i] = b->tg[k];
			b->tg[i].made = false;
			snprintf(b->tg[i].path, sizeof(b->tg[i].path), "%s", path);
			b->tg[i].fd = fcntl(b->tg[k].fd, F_DUPFD_CLOEXEC, 0);
			if (b->tg[i].fd >= 0)
				return 0;
			snprintf(err, errlen, "target %s: %s", path, strerror(errno));
			return -errno;
		}
	return 1;
}

static int open_targets(struct run *r, const struct prescan *p, char *err, size_t errlen)
{
	bool writes = writes_allowed(r) &&
		      (p->count[IO_OP_WRITE] || p->count[IO_OP_DISCARD] ||
		       p->count[IO_OP_WRITE_ZEROES]);
	struct target_open_opts to = { .writes = writes, .direct = !r->o->buffered,
				       .force = r->o->force, .create_size = r->o->size,
				       .may_grow = writes_allowed(r), .keep = r->o->trace };
	struct brun *b = brun_of(r);
	int ret = check_maps(r, err, errlen);

	if (ret)
		return ret;
	for (unsigned int i = 0; i < b->ndev; i++) {
		const char *path = target_path_for(r, i);
		const char *name = r->meta->ndevices ? r->meta->devices[i].name : "?";
		struct target *t = &b->tg[i];
		uint64_t rec = r->meta->ndevices ? r->meta->devices[i].size_bytes : 0;

		if (!path) {
			snprintf(err, errlen,
				 "trace device %s has no target: give --target PATH or --map %s=PATH",
				 name, name);
			return -EINVAL;
		}
		ret = share_target(b, i, path, writes, err, errlen);
		if (ret > 0)
			ret = target_open(t, path, &to, err, errlen);
		/* it holds the trace: as the trace itself given as target; or --size does not
		 * fit its blocks */
		if (ret == -ELOOP || ret == -EDOM)
			r->res->usage_error = true;
		if (ret)
			return ret;
		/* the replay uses whole blocks: a file's last partial one is never read or
		 * written, and a user who sized the file by hand should know */
		if (!t->is_blk && t->bytes != t->size)
			run_warn(r,
				 "target %s is %llu bytes, not a whole number of %u-byte blocks: "
				 "the replay uses its first %llu bytes",
				 path, (unsigned long long)t->bytes, t->lbs,
				 (unsigned long long)t->size);
		if (t->is_blk) {
			char what[512];

			snprintf(what, sizeof(what), "target %s, a loop device", path);
			run_warn_realtime_loop(r, t->rdev, what);
		}
		b->etg[i].fd = t->fd;
		b->etg[i].is_blk = t->is_blk;
		b->etg[i].wb_fd = -1;
		if (writes && r->o->async_writeback) {
			/* the page cache's side of the same target (engine.h, ENGINE_F_WRITEBACK) */
			b->etg[i].wb_fd = open(path, O_RDWR | O_CLOEXEC);
			if (b->etg[i].wb_fd < 0) {
				snprintf(err, errlen, "--async-writes writeback: opening %s without "
					 "O_DIRECT: %s", path, strerror(errno));
				return -errno;
			}
		}
		if (sched_align_len(p->max_dev_len[i], t->lbs) > t->size &&
		    (p->count[IO_OP_READ] || p->count[IO_OP_WRITE])) {
			snprintf(err, errlen,
				 "trace device %s has an I/O of %u bytes, more than target %s holds "
				 "(%llu bytes)",
				 name, p->max_dev_len[i], path, (unsigned long long)t->size);
			return -ENOSPC;
		}
		b->src_size[i] = rec > p->max_end[i] ? rec : p->max_end[i];
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
/* helper thread: moves decoded events into the input ring; returns how many */
static long feed(struct run *r)
{
	struct brun *b = brun_of(r);
	long moved = 0;

	for (;;) {
		struct sev *s;

		if (b->pos == b->nbuf) {
			long n;

			if (b->reader_eof)
				break;
			n = trace_reader__next(r->rd, b->buf, RUN_DECODE);
			if (n <= 0) {
				if (n < 0) {
					snprintf(r->herr, sizeof(r->herr), "reading %s: %s",
						 r->o->trace, trace_reader__error(r->rd));
					r->rerr = (int)n;
				}
				b->reader_eof = true;
				break;
			}
			b->nbuf = (size_t)n;
			b->pos = 0;
		}
		s = run_feed_slot(r);
		if (!s)
			break;
		if (map_event(r, &b->buf[b->pos], s)) {
			run_feed_push(r, &b->buf[b->pos], NULL, 0);
			moved++;
		}
		b->pos++;
	}
	if (b->reader_eof && b->pos == b->nbuf)
		__atomic_store_n(&r->input_done, true, __ATOMIC_RELEASE);
	return moved;
}

/* Every event mapped, for a mode that loads them all before the clock (closed). */
static int each(struct run *r, int (*fn)(struct run *r, const struct sev *s, void *arg),
		void *arg, char *err, size_t errlen)
{
	struct brun *b = brun_of(r);
	long n;
	int ret;

	trace_reader__rewind(r->rd);
	while ((n = trace_reader__next(r->rd, b->buf, RUN_DECODE)) > 0) {
		for (long i = 0; i < n; i++) {
			struct sev s;

			if (map_event(r, &b->buf[i], &s) && (ret = fn(r, &s, arg)))
				return ret;
		}
	}
	if (n < 0) {
		snprintf(err, errlen, "reading %s: %s", r->o->trace, trace_reader__error(r->rd));
		return (int)n;
	}
	return 0;
}

/* helper thread: a completed I/O into the result trace and the analysis */
static void out(struct run *r, const struct done_ev *d)
{
	if (r->w && !r->werr && trace_writer__add(r->w, &d->ev, 1) < 0) {
		r->werr = -EIO;
		snprintf(r->herr, sizeof(r->herr), "writing the result trace %s: %s",
			 r->o->output, trace_writer__error(r->w));
	}
	if (r->an)
		analysis__add(r->an, &d->ev, 1);
}

/*
 * With no --engine: io_uring, unless a target cannot take I/O without blocking (RWF_NOWAIT
 * refused, as bio-based zram, md and dm refuse it). io_uring then hands every I/O to io-wq
 * worker threads, and their wake-ups made p99 lateness ~400 us at 10k IOPS on zram where
 * libaio, which submits inline as the original kernel path did, stayed under 5 us.
 */
static const char *engine_hint(struct run *r)
{
	struct brun *b = brun_of(r);

	for (unsigned int i = 0; i < b->ndev; i++) {
		const struct target *t = &b->tg[i];
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
			run_warn(r, "engine libaio: target %s does not take I/O without blocking "
				    "(RWF_NOWAIT), so io_uring would queue every I/O to worker threads; "
				    "give --engine io_uring to use it anyway", t->path);
			return "libaio";
		}
	}
	return NULL;
}

/* After the engine is picked: what the trace reads that was never written (prefill.c). */
static int ready(struct run *r, const struct prescan *p, char *err, size_t errlen)
{
	warn_skips(r, p);
	return prefill_targets(r, err, errlen);
}

/*
 * One read per target through the engine before the clock starts: the first I/O of a task
 * pays for allocations (io context, engine state) that made it ~120 us late on zram, and a
 * replay is judged against its first I/O. The last logical block is read, as traces rarely
 * touch it; the read is not part of the result.
 */
static void warm_up(struct run *r)
{
	struct brun *b = brun_of(r);
	struct replay_io *io = &r->slots[0];
	struct replay_io *done[1];

	for (unsigned int i = 0; i < b->ndev; i++) {
		memset(io, 0, offsetof(struct replay_io, slot));
		io->op = IO_OP_READ;
		io->dev = i;
		io->len = b->tg[i].lbs;
		io->offset = b->tg[i].size - io->len;
		if (r->eng->queue(r->e, io) || r->eng->submit(r->e) < 0)
			continue;
		for (int tries = 0; tries < 100; tries++)
			if (r->eng->reap(r->e, done, 1, 10000000) == 1)
				break;
	}
}

/*
 * Whether a read's buffer must be its own while the read is in flight: btrfs (and ZFS) verify
 * a direct read's checksum in the buffer the data landed in, and a second read landing there
 * meanwhile makes it fail with EIO (and counts a checksum error against the filesystem).
 */
static void buffers(struct run *r, uint32_t *align, bool *own_reads)
{
	struct brun *b = brun_of(r);
	struct statfs sf;

	for (unsigned int i = 0; i < b->ndev; i++) {
		const struct target *t = &b->tg[i];

		if (t->lbs > *align)
			*align = t->lbs;
		if (!t->is_blk && t->fd >= 0 && !fstatfs(t->fd, &sf) &&
		    (sf.f_type == BTRFS_SUPER_MAGIC || (unsigned long)sf.f_type == ZFS_SUPER_MAGIC))
			*own_reads = true;
	}
}

static void engine_targets(struct run *r, struct engine_params *ep)
{
	struct brun *b = brun_of(r);

	ep->targets = b->etg;
	ep->ntargets = b->ndev;
}

/* The result trace: one device per target, named after it. */
static int open_output(struct run *r)
{
	struct brun *b = brun_of(r);
	struct trace_meta *m = calloc(1, sizeof(*m));
	const char *base;

	if (!m)
		return -ENOMEM;
	/* "replay:dep": analyze says which question the result answers (timed or dep) */
	trace_meta_init(m, "replay");
	snprintf(m->source, sizeof(m->source), "replay:%s", r->mops->name);
	snprintf(m->options, sizeof(m->options), "%s",
		 r->o->command_line ? r->o->command_line : "");
	m->mode = TRACE_MODE_TIMED;
	for (unsigned int i = 0; i < b->ndev; i++) {
		struct trace_device d = { 0 };
		const struct target *t = &b->tg[i];

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
		r->w = run_open_result(r, m);
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

static int scan(struct run *r, struct prescan *p, char *err, size_t errlen)
{
	struct brun *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	r->src_state = b;
	for (unsigned int i = 0; i < TRACE_MAX_DEVICES; i++)
		b->tg[i].fd = b->etg[i].wb_fd = -1;
	b->ndev = r->meta->ndevices ? r->meta->ndevices : 1;
	if (r->o->root) {
		snprintf(err, errlen, "--root is for file-level traces (record --level file); %s is "
				      "block-level: give --target PATH", r->o->trace);
		r->res->usage_error = true;
		return -EINVAL;
	}
	return prescan(r, p, err, errlen);
}

static int target_wbt(struct run *r, uint32_t dev, struct wbt_target *out)
{
	struct brun *b = brun_of(r);

	return dev < b->ndev ? target_wbt_read(&b->tg[dev], out) : -ENODEV;
}

static void block_free(struct run *r)
{
	struct brun *b = brun_of(r);

	if (!b)
		return;
	for (unsigned int i = 0; i < b->ndev; i++) {
		/* a file this replay made, and a replay that never started (called off before its
		 * clock: a fleet rank whose peer failed): of no use, as one that could not open */
		if (b->tg[i].made && !r->start_mono && b->tg[i].fd >= 0)
			unlink(b->tg[i].path);
		target_close(&b->tg[i]);
		if (b->etg[i].wb_fd >= 0)
			close(b->etg[i].wb_fd);
	}
	readmap_free(b->rmap);
	free(b);
	r->src_state = NULL;
}

const struct replay_source_ops replay_source_block = {
	.name = "block-level",
	.out_item = sizeof(struct done_ev),
	.scan = scan,
	.prepare = open_targets,
	.engine_hint = engine_hint,
	.ready = ready,
	.buffers = buffers,
	.engine_targets = engine_targets,
	.target_wbt = target_wbt,
	.open_output = open_output,
	.each = each,
	.feed = feed,
	.out = out,
	.warm_up = warm_up,
	.free = block_free,
};
