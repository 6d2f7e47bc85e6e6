// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Streaming .ioreel writer: one chunk of events in memory at a time, each chunk written as a
 * header frame plus one independent zstd frame, then the index and footer at close
 * (formats/FORMAT.md). A file cut anywhere (kill -9) stays readable up to its last whole chunk.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "formats/ftable.h"
#include "util/outfile.h"

/* One index entry: a chunk, or (file-level traces) a file table or counters frame. */
struct idx_entry {
	struct trace_chunk_info c;
	uint32_t kind; /* IDX_CHUNK, IDX_FILES, IDX_COUNTERS */
};

struct trace_writer {
	int fd;
	struct outfile of; /* opts.replace: the temporary name and the final one */
	bool replace;
	bool sync, failed, file;
	bool rewound; /* the failed frame was cut off: the file ends on a whole frame */
	bool reserve; /* the file takes fallocate: room for the trailer is held beyond EOF */
	bool closing; /* close_failed: the frames left hold room for the index only */
	uint64_t reserved_to; /* the end of the room held (while reserve) */
	int level;
	uint32_t chunk_events, ndevices, nfiles;
	struct codec_enc *enc;
	ZSTD_CCtx *cctx;
	uint8_t *raw, *comp;
	size_t raw_cap, comp_cap, *cuts;
	uint64_t bytes, seq, events, prev_last;
	bool sorted;
	struct idx_entry *chunks;
	size_t nchunks, chunks_cap;
	struct side_buf files;	  /* file-table entries not written yet (files.count of them) */
	struct side_buf counters; /* the counters frame, written at close */
	struct side_buf cpu_load; /* CPU load entries not written yet */
	uint32_t cpu_ncpus, cpu_interval;
	char err[256];
};

/* The bytes of an index frame (with its footer) over n entries. */
static uint64_t index_bytes(size_t n)
{
	return 8 + TRACE_INDEX_FIXED + (uint64_t)n * TRACE_INDEX_ENTRY_SIZE + 4 + TRACE_FOOTER_SIZE;
}

/* Room for the counters frame before set_counters has said how big it is (ours: ~20 names). */
#define TRAILER_COUNTERS_ROOM 4096u
/* Room for the CPU load entries that come between two frames (16 s of 10 ms entries). */
#define TRAILER_CPU_LOAD_SLACK (1600u * 20u)

/*
 * What a close after a failed frame writes after the last whole one: the counters, the CPU
 * load not written yet, and an index naming every frame so far, the next one (a chunk, with
 * the file table before it) and those two.
 */
static uint64_t trailer_bytes(const struct trace_writer *w)
{
	uint64_t counters = w->counters.len > TRAILER_COUNTERS_ROOM ? w->counters.len + 8
								 : TRAILER_COUNTERS_ROOM;
	uint64_t cpu = w->cpu_ncpus ? w->cpu_load.len + 8 + TRAILER_CPU_LOAD_SLACK : 0;

	return counters + cpu + index_bytes(w->nchunks + 4);
}

/*
 * Holds the room for a frame of len bytes and, after it, `after` bytes beyond the end of the
 * file (fallocate, keeping the size). A frame that does not fit with the trailer after it is
 * not written: the recording stops as on a full disk, and the close writes the trailer into
 * the room held before. Without it a small frame that fails frees too little for the index
 * (a file table, a CPU load frame), and the trace would end without one. 0, or the errno.
 */
static int reserve_room(struct trace_writer *w, uint64_t len, uint64_t after)
{
	uint64_t end = w->bytes + len + after;

	if (!w->reserve || end <= w->reserved_to)
		return 0;
	if (!fallocate(w->fd, FALLOC_FL_KEEP_SIZE, (off_t)w->bytes, (off_t)(end - w->bytes))) {
		w->reserved_to = end;
		return 0;
	}
	if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG)
		return errno;
	w->reserve = false; /* a pipe, a device, a filesystem without it: the cut below only */
	return 0;
}

/*
 * Gives back the room held beyond the end of the file (a closed trace keeps none): a cut to
 * the size it has frees it on ext4, xfs, btrfs and tmpfs; a punched hole would keep the page
 * partly held at either end (tmpfs), or nothing at all beyond the end (ext4).
 */
static void release_room(struct trace_writer *w)
{
	if (w->reserve && w->reserved_to > w->bytes && ftruncate(w->fd, (off_t)w->bytes))
		return; /* the room stays held: the trace is whole all the same */
	w->reserved_to = w->bytes;
}

/*
 * Writes one whole frame, with `after` bytes held beyond it (reserve_room). One that fails (a
 * full disk) is taken back: the file is cut to where the frame began, so it ends on a whole
 * frame and the close can still try the counters and the index in the room held or freed (a
 * pipe or a character device cannot be cut: nothing is tried).
 */
static int write_room(struct trace_writer *w, const void *buf, size_t len, uint64_t after,
		      const char *what)
{
	const uint8_t *p = buf;
	uint64_t start = w->bytes;
	int err = reserve_room(w, len, after);

	if (err && w->closing && w->reserved_to <= w->bytes)
		err = 0; /* a cut gave the room back: try what it freed, as without fallocate */
	if (err) {
		snprintf(w->err, sizeof(w->err), "cannot write the %s at offset %llu: %s", what,
			 (unsigned long long)w->bytes, strerror(err));
		w->failed = true;
		w->rewound = true; /* nothing written: the file ends on the last whole frame */
		errno = err;
		return -err;
	}
	while (len) {
		ssize_t n = write(w->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? errno : EIO;

			snprintf(w->err, sizeof(w->err), "cannot write the %s at offset %llu: %s", what,
				 (unsigned long long)w->bytes, strerror(err));
			w->failed = true;
			w->rewound = !ftruncate(w->fd, (off_t)start) &&
				     lseek(w->fd, (off_t)start, SEEK_SET) == (off_t)start;
			if (w->rewound)
				w->bytes = start;
			w->reserved_to = 0; /* the cut gave back the room held beyond the end */
			errno = err; /* the write's, not the cut's (a device cannot be cut) */
			return -err;
		}
		p += n;
		len -= n;
		w->bytes += n;
	}
	return 0;
}

/* A frame with room for the trailer held after it. */
static int write_all(struct trace_writer *w, const void *buf, size_t len, const char *what)
{
	return write_room(w, buf, len, w->closing ? index_bytes(w->nchunks + 2) : trailer_bytes(w),
			  what);
}

struct trace_writer *trace_writer__open(const char *path, const struct trace_meta *meta,
					const struct trace_writer_opts *opts)
{
	struct trace_writer *w = calloc(1, sizeof(*w));
	uint8_t *hdr = NULL;
	struct stat st;
	size_t hlen;
	int err = ENOMEM;

	if (!w)
		goto fail_errno;
	w->fd = -1;
	w->chunk_events = opts && opts->chunk_events ? opts->chunk_events
						     : TRACE_DEFAULT_CHUNK_EVENTS;
	if (w->chunk_events > TRACE_WRITER_MAX_CHUNK_EVENTS)
		w->chunk_events = TRACE_WRITER_MAX_CHUNK_EVENTS;
	w->level = opts && opts->zstd_level ? opts->zstd_level : 3;
	w->sync = opts && opts->sync;
	w->ndevices = meta->ndevices;
	w->file = meta->level == TRACE_LEVEL_FILE;
	w->sorted = true;
	w->enc = codec_enc_new(w->chunk_events, w->file);
	w->cctx = ZSTD_createCCtx();
	w->raw_cap = 16 + (size_t)w->chunk_events * IO_COMM_LEN +
		     codec_ncols(w->file) * (24 + 8 * (size_t)w->chunk_events);
	w->raw = malloc(w->raw_cap);
	w->comp_cap = 8 + TRACE_CHUNK_HDR_SIZE + ZSTD_compressBound(w->raw_cap) +
		      codec_enc_max_cuts() * 8 + 1024;
	w->comp = malloc(w->comp_cap);
	w->cuts = malloc(codec_enc_max_cuts() * sizeof(*w->cuts));
	if (!w->enc || !w->cctx || !w->raw || !w->comp || !w->cuts)
		goto fail;
	hdr = meta_encode(meta, &hlen);
	if (!hdr)
		goto fail;
	if (hlen - 8 > TRACE_MAX_HEADER) {
		err = EINVAL;
		goto fail;
	}
	if (opts && opts->replace) {
		err = -outfile_open(&w->of, path);
		if (err)
			goto fail;
		w->replace = true;
		w->of.mode = 0600;
		w->fd = w->of.fd;
		w->of.fd = -1;
	} else if ((err = -outfile_refuse_blkdev(path))) {
		/* record's -o: not even opened (a write open of a disk makes udev rescan it) */
		goto fail;
	} else {
		w->fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	}
	if (w->fd < 0) {
		err = errno;
		goto fail;
	}
	/*
	 * Written in place (record): held under a lock, and cut only once it is ours. Two
	 * recordings to one -o each cut the other's trace and interleaved their frames, both
	 * exiting 0 with a trace whose chunks failed their checksums.
	 */
	if (!w->replace && !fstat(w->fd, &st) && S_ISREG(st.st_mode)) {
		if (flock(w->fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK) {
			err = EBUSY;
			goto fail;
		}
		if (ftruncate(w->fd, 0)) {
			err = errno;
			goto fail;
		}
	}
	/*
	 * A trace may hold command lines and paths: keep it private even if it existed. Only a
	 * regular file: -o /dev/stdout must not chmod the terminal or /dev/null.
	 */
	w->reserve = !fstat(w->fd, &st) && S_ISREG(st.st_mode);
	if ((w->reserve && fchmod(w->fd, 0600)) ||
	    write_all(w, hdr, hlen, "header")) {
		err = errno ? errno : EIO;
		goto fail;
	}
	free(hdr);
	return w;
fail:
	free(hdr);
	trace_writer__abort(w);
	errno = err;
	return NULL;
fail_errno:
	errno = err;
	return NULL;
}

static int add_entry(struct trace_writer *w, const struct trace_chunk_info *c, uint32_t kind)
{
	if (w->nchunks == w->chunks_cap) {
		size_t cap = w->chunks_cap ? 2 * w->chunks_cap : 64;
		void *p = realloc(w->chunks, cap * sizeof(*w->chunks));

		if (!p) {
			snprintf(w->err, sizeof(w->err), "out of memory for the chunk index");
			w->failed = true;
			return -ENOMEM;
		}
		w->chunks = p;
		w->chunks_cap = cap;
	}
	w->chunks[w->nchunks++] = (struct idx_entry){ *c, kind };
	return 0;
}

/*
 * Writes one side frame (file table, CPU load, counters) and names it in the index; `what`
 * names it in the error. One that ran out of memory while it was built fails the writer as a
 * failed write does (w->failed, w->err): its entries are lost, and the writer must say so, not
 * go on as if the trace were whole. One already written is not written again (a close after a
 * failure tries the frames left).
 */
static int write_side(struct trace_writer *w, struct side_buf *b, uint32_t kind,
		      const char *what)
{
	struct trace_chunk_info c = { .file_offset = w->bytes, .count = b->count };
	int err;

	if (!b->count || b->state == SIDE_WRITTEN)
		return 0;
	if (side_end(b)) {
		snprintf(w->err, sizeof(w->err), "out of memory for the %s", what);
		w->failed = true;
		/* nothing written: the file ends on its last whole frame, so the close can still
		 * write what describes the chunks (close_failed), and a reader sees them whole */
		w->rewound = true;
		return -ENOMEM;
	}
	err = write_all(w, b->p, b->len, what);
	if (err)
		return err;
	c.file_bytes = w->bytes - c.file_offset;
	b->state = SIDE_WRITTEN;
	return add_entry(w, &c, kind);
}

/* Writes the file-table entries added since the last time, as one frame. */
static int write_files(struct trace_writer *w)
{
	int err = write_side(w, &w->files, IDX_FILES, "file table");

	if (w->files.state == SIDE_WRITTEN) /* the entries added next go in a frame of their own */
		side_begin(&w->files, TRACE_SKIP_MAGIC_FILES, "IOFT");
	return err;
}

static int write_chunk(struct trace_writer *w)
{
	uint32_t count = codec_enc_count(w->enc);
	uint64_t first = codec_enc_first(w->enc), last = codec_enc_last(w->enc);
	bool sorted = codec_enc_sorted(w->enc);
	size_t ncuts, raw_len, in_pos = 0;
	ZSTD_outBuffer out = { w->comp + 8 + TRACE_CHUNK_HDR_SIZE,
			       w->comp_cap - 8 - TRACE_CHUNK_HDR_SIZE, 0 };
	uint8_t *h = w->comp;
	uint64_t offset;
	int err;

	if (!count)
		return 0;
	err = write_files(w); /* the files its events name come first */
	if (err)
		return err;
	offset = w->bytes;
	raw_len = codec_enc_finish(w->enc, w->raw, w->cuts, &ncuts);
	ZSTD_CCtx_reset(w->cctx, ZSTD_reset_session_only);
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, w->level);
	ZSTD_CCtx_setPledgedSrcSize(w->cctx, raw_len);
	/* End a zstd block at every plane boundary: each plane gets its own Huffman table. */
	for (size_t c = 0; c < ncuts; c++) {
		ZSTD_inBuffer in = { w->raw, w->cuts[c], in_pos };
		ZSTD_EndDirective mode = c + 1 == ncuts ? ZSTD_e_end : ZSTD_e_flush;
		size_t r;

		do {
			r = ZSTD_compressStream2(w->cctx, &out, &in, mode);
			if (ZSTD_isError(r) || (r && out.pos == out.size)) {
				snprintf(w->err, sizeof(w->err), "zstd compression failed: %s",
					 ZSTD_isError(r) ? ZSTD_getErrorName(r) : "output full");
				w->failed = true;
				return -EIO;
			}
		} while (r);
		in_pos = in.pos;
	}
	put_u32(h, TRACE_SKIP_MAGIC_CHUNK);
	put_u32(h + 4, TRACE_CHUNK_HDR_SIZE);
	h += 8;
	memcpy(h, "IOCH", 4);
	put_u32(h + 4, (sorted ? TRACE_CHUNK_SORTED : 0) | (w->file ? TRACE_CHUNK_FILE : 0));
	put_u64(h + 8, w->seq);
	put_u64(h + 16, first);
	put_u64(h + 24, last);
	put_u32(h + 32, count);
	put_u32(h + 36, out.pos);
	put_u32(h + 40, raw_len);
	put_u32(h + 44, crc32(0, w->comp + 8 + TRACE_CHUNK_HDR_SIZE, out.pos));
	put_u32(h + 48, crc32(0, h, 48));
	err = write_all(w, w->comp, 8 + TRACE_CHUNK_HDR_SIZE + out.pos, "chunk");
	if (err)
		return err;
	if (w->sync && fdatasync(w->fd)) {
		err = errno;
		snprintf(w->err, sizeof(w->err), "fdatasync failed: %s", strerror(err));
		w->failed = true;
		return -err;
	}
	err = add_entry(w, &(struct trace_chunk_info){ offset, w->bytes - offset, count, first,
						       last },
			IDX_CHUNK);
	if (err)
		return err;
	if (!sorted || (w->seq && first < w->prev_last))
		w->sorted = false;
	w->prev_last = last;
	w->seq++;
	w->events += count;
	return 0;
}

int trace_writer__add(struct trace_writer *w, const struct io_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct io_event *e = &ev[i];

		if (w->failed)
			return -EIO;
		if (w->file) {
			snprintf(w->err, sizeof(w->err), "block events given to a file-level trace");
			return -EMEDIUMTYPE;
		}
		if (e->op >= IO_OP__COUNT || (e->flags & ~IO_F__ALL) ||
		    (w->ndevices && e->dev >= w->ndevices)) {
			snprintf(w->err, sizeof(w->err),
				 "event %llu: op %u, flags 0x%x or device %u out of range",
				 (unsigned long long)(w->events + codec_enc_count(w->enc)), e->op,
				 e->flags, e->dev);
			return -EINVAL;
		}
		codec_enc_add(w->enc, e);
		if (codec_enc_count(w->enc) >= w->chunk_events) {
			int err = write_chunk(w);

			if (err)
				return err;
		}
	}
	return 0;
}

int trace_writer__add_files(struct trace_writer *w, const struct trace_file *f, size_t n)
{
	if (w->failed)
		return -EIO;
	if (!w->file) {
		snprintf(w->err, sizeof(w->err), "a file table given to a block-level trace");
		return -EMEDIUMTYPE;
	}
	for (size_t i = 0; i < n; i++) {
		int err;

		if (f[i].id != w->nfiles + 1) {
			snprintf(w->err, sizeof(w->err), "file id %u out of sequence (%u expected)",
				 f[i].id, w->nfiles + 1);
			return -EINVAL;
		}
		if (!w->files.count)
			side_begin(&w->files, TRACE_SKIP_MAGIC_FILES, "IOFT");
		err = ftab_put(&w->files, &f[i]);
		if (err) {
			snprintf(w->err, sizeof(w->err), "file %u: %s", f[i].id,
				 err == -ENOMEM ? "out of memory" : "bad entry (origin, segments)");
			return err;
		}
		w->nfiles++;
		/* A frame stays well under the readers' limit on side frames. */
		if (w->files.len > (1u << 20) && (err = write_files(w)))
			return err;
	}
	return 0;
}

int trace_writer__add_fevents(struct trace_writer *w, const struct io_event *ev,
			      const struct io_fext *x, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct io_event *e = &ev[i];

		if (w->failed)
			return -EIO;
		if (!w->file) {
			snprintf(w->err, sizeof(w->err), "file-level events given to a block trace");
			return -EMEDIUMTYPE;
		}
		if (e->op >= IO_FOP__COUNT || (e->flags & ~IO_FF__ALL) || x[i].file > w->nfiles ||
		    x[i].iface >= IO_FIF__COUNT) {
			snprintf(w->err, sizeof(w->err),
				 "event %llu: op %u, flags 0x%x, file %u (of %u) or interface %u out "
				 "of range",
				 (unsigned long long)(w->events + codec_enc_count(w->enc)), e->op,
				 e->flags, x[i].file, w->nfiles, x[i].iface);
			return -EINVAL;
		}
		codec_enc_add_file(w->enc, e, &x[i]);
		if (codec_enc_count(w->enc) >= w->chunk_events) {
			int err = write_chunk(w);

			if (err)
				return err;
		}
	}
	return 0;
}

int trace_writer__set_counters(struct trace_writer *w, const struct trace_counter *c, size_t n)
{
	side_begin(&w->counters, TRACE_SKIP_MAGIC_COUNTERS, "IOFC");
	for (size_t i = 0; i < n; i++) {
		int err = counters_put(&w->counters, c[i].name, c[i].value);

		if (err) {
			snprintf(w->err, sizeof(w->err), "counter '%.64s': %s", c[i].name,
				 err == -ENOMEM ? "out of memory" : "bad name or too many counters");
			side_buf_free(&w->counters);
			return err;
		}
	}
	return 0;
}

/* The CPU load entries added since the last time, as one frame. */
static int write_cpu_load(struct trace_writer *w)
{
	int err = write_side(w, &w->cpu_load, IDX_CPU_LOAD, "CPU load");

	if (w->cpu_load.state == SIDE_WRITTEN)
		cpu_load_begin(&w->cpu_load, w->cpu_ncpus, w->cpu_interval);
	return err;
}

int trace_writer__add_cpu_load(struct trace_writer *w, uint32_t ncpus, uint32_t interval_ns,
			       const struct trace_cpu_load *l, size_t n)
{
	if (w->failed)
		return -EIO;
	if (!ncpus || interval_ns < 100000 || interval_ns > 1000000000 ||
	    (w->cpu_ncpus && (ncpus != w->cpu_ncpus || interval_ns != w->cpu_interval))) {
		snprintf(w->err, sizeof(w->err), "CPU load: bad CPU count %u or interval %u ns",
			 ncpus, interval_ns);
		return -EINVAL;
	}
	if (!w->cpu_ncpus) {
		w->cpu_ncpus = ncpus;
		w->cpu_interval = interval_ns;
		cpu_load_begin(&w->cpu_load, ncpus, interval_ns);
	}
	for (size_t i = 0; i < n; i++) {
		int err = cpu_load_put(&w->cpu_load, &l[i]);

		if (!err && w->cpu_load.count >= TRACE_CPU_LOAD_FRAME)
			err = write_cpu_load(w);
		if (err) {
			if (err == -ENOMEM && !w->failed) /* not over the frame's own message */
				snprintf(w->err, sizeof(w->err), "out of memory for the CPU load");
			return err;
		}
	}
	return 0;
}

/* The counters frame (if any) before the index: written once, it stays SIDE_WRITTEN. */
static int write_counters(struct trace_writer *w)
{
	return write_side(w, &w->counters, IDX_COUNTERS, "counters");
}

int trace_writer__flush(struct trace_writer *w)
{
	if (w->failed)
		return -EIO;
	return write_chunk(w);
}

uint64_t trace_writer__bytes(const struct trace_writer *w)
{
	return w->bytes;
}

uint64_t trace_writer__events(const struct trace_writer *w)
{
	return w->events;
}

const char *trace_writer__error(const struct trace_writer *w)
{
	return w->err[0] ? w->err : "no error";
}

static int write_index(struct trace_writer *w, const struct trace_stats *st)
{
	size_t plen = index_bytes(w->nchunks) - 8;
	uint8_t *buf = calloc(1, 8 + plen), *p;
	uint64_t at = w->bytes;
	int err;

	if (!buf)
		return -ENOMEM;
	put_u32(buf, TRACE_SKIP_MAGIC_INDEX);
	put_u32(buf + 4, plen);
	p = buf + 8;
	memcpy(p, "IOIX", 4);
	put_u32(p + 4, w->nchunks);
	put_u32(p + 8, (w->sorted ? 1 : 0) | (st ? 2 : 0));
	if (st) {
		put_u64(p + 16, st->events);
		put_u64(p + 24, st->dropped);
		put_u64(p + 32, st->dropped_reserve);
		put_u64(p + 40, st->dropped_inflight);
		put_u64(p + 48, st->end_ns);
	}
	p += TRACE_INDEX_FIXED;
	for (size_t i = 0; i < w->nchunks; i++, p += TRACE_INDEX_ENTRY_SIZE) {
		const struct trace_chunk_info *c = &w->chunks[i].c;

		put_u64(p, c->file_offset);
		put_u64(p + 8, c->file_bytes);
		put_u32(p + 16, c->count);
		put_u32(p + 20, w->chunks[i].kind);
		put_u64(p + 24, c->first_ns);
		put_u64(p + 32, c->last_ns);
	}
	put_u32(p, crc32(0, buf + 8, p - (buf + 8)));
	p += 4;
	put_u64(p, at);
	put_u32(p + 8, w->nchunks);
	memcpy(p + 16, "IOREELIX", 8);
	err = write_room(w, buf, 8 + plen, 0, "index");
	free(buf);
	return err;
}

/*
 * After a failed write: what describes the chunks already written (the counters, with the
 * recorder's drops, the CPU load, then the index) if it fits now, each frame taken back if not.
 * The events not written are lost either way; the index lets a reader see the rest as whole.
 */
static void close_failed(struct trace_writer *w, const struct trace_stats *stats)
{
	char err[sizeof(w->err)];

	if (!w->rewound || w->fd < 0 || w->replace) /* replace: the temporary file goes */
		return;
	memcpy(err, w->err, sizeof(err)); /* the first failure is the one to tell */
	w->closing = true; /* from here each frame holds room for the index only */
	if ((!write_counters(w) || w->rewound) && (!write_cpu_load(w) || w->rewound))
		write_index(w, stats);
	memcpy(w->err, err, sizeof(err));
}

int trace_writer__close(struct trace_writer *w, const struct trace_stats *stats)
{
	int err = w->failed ? -EIO : 0;

	if (!err)
		err = write_chunk(w);
	if (!err)
		err = write_files(w); /* entries no event named */
	if (!err)
		err = write_cpu_load(w);
	if (!err)
		err = write_counters(w);
	if (!err)
		err = write_index(w, stats);
	/* before the close or in it (its last chunk, file table or CPU load on a disk that
	 * filled since): the trailer goes in the room held */
	if (err && w->failed)
		close_failed(w, stats);
	if (w->fd >= 0)
		release_room(w);
	if (!err && w->sync && fdatasync(w->fd))
		err = -errno;
	if (w->fd >= 0 && close(w->fd) && !err)
		err = -errno;
	w->fd = -1;
	if (w->replace && !err)
		err = outfile_commit(&w->of); /* the trace appears under its name only now */
	trace_writer__abort(w);
	return err;
}

void trace_writer__abort(struct trace_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (w->replace)
		outfile_abort(&w->of); /* the temporary file only; nothing after a commit */
	codec_enc_free(w->enc);
	ZSTD_freeCCtx(w->cctx);
	free(w->raw);
	free(w->comp);
	free(w->cuts);
	free(w->chunks);
	side_buf_free(&w->files);
	side_buf_free(&w->counters);
	side_buf_free(&w->cpu_load);
	free(w);
}
