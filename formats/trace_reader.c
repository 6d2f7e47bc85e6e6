// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * .ioreel reader (formats/FORMAT.md): header, then the chunk list from the trailing index or,
 * for a file whose writer was killed, from a scan of the chunk headers. Every size read from
 * the file is bounded before it is used to allocate, and every chunk is checked (crc, zstd,
 * columns) before its events are handed out.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "formats/ftable.h"

struct trace_reader {
	int fd;
	unsigned int flags;
	const char *name;
	uint64_t file_bytes, data_start, events, damaged;
	struct trace_meta meta;
	struct trace_stats stats;
	bool has_index, has_stats, sorted, loaded;
	struct trace_chunk_info *chunks;
	size_t nchunks, chunks_cap, cur;
	struct trace_chunk_info *sides; /* file table and counters frames (count: IDX_ kind) */
	size_t nsides, sides_cap;
	struct ftab ftab;
	struct counters counters;
	struct cpu_loads cpu_load;
	struct codec_dec dec;
	ZSTD_DCtx *dctx;
	uint8_t *comp, *raw;
	size_t comp_cap, raw_cap;
	char err[512];
	char notice[512];
	char path[];
};

static void set_err(struct trace_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_err(struct trace_reader *r, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->err, sizeof(r->err), "%s: ", r->name);

	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - n, fmt, ap);
	va_end(ap);
}

static int read_at(struct trace_reader *r, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(r->fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;

			set_err(r, "read error at offset %llu: %s", (unsigned long long)off,
				strerror(err));
			return -err;
		}
		if (n == 0) {
			set_err(r, "unexpected end of file at offset %llu", (unsigned long long)off);
			return -EIO;
		}
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

static int grow(uint8_t **buf, size_t *cap, size_t want)
{
	uint8_t *p;

	if (want <= *cap)
		return 0;
	p = realloc(*buf, want + 8);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = want;
	return 0;
}

static int add_chunk(struct trace_reader *r, const struct trace_chunk_info *c)
{
	if (r->nchunks == r->chunks_cap) {
		size_t cap = r->chunks_cap ? 2 * r->chunks_cap : 64;
		void *p = realloc(r->chunks, cap * sizeof(*r->chunks));

		if (!p)
			return -ENOMEM;
		r->chunks = p;
		r->chunks_cap = cap;
	}
	r->chunks[r->nchunks++] = *c;
	r->events += c->count;
	return 0;
}

/* A side frame (file table, counters) found by the index or the scan; count holds its kind. */
static int add_side(struct trace_reader *r, uint64_t off, uint64_t bytes, uint32_t kind)
{
	if (r->nsides == r->sides_cap) {
		size_t cap = r->sides_cap ? 2 * r->sides_cap : 16;
		void *p = realloc(r->sides, cap * sizeof(*r->sides));

		if (!p)
			return -ENOMEM;
		r->sides = p;
		r->sides_cap = cap;
	}
	r->sides[r->nsides++] = (struct trace_chunk_info){ .file_offset = off, .file_bytes = bytes,
							   .count = kind };
	return 0;
}

/* The smallest frame the index may list (a side frame's magic, size, tag, count, reserved and
 * crc): bounds the number of index entries a file of that size can hold. */
#define MIN_FRAME 24u

/* Checks a 60-byte chunk header frame; fills c (offset excluded). */
static const char *check_chunk_header(const uint8_t *b, struct trace_chunk_info *c,
				      uint32_t *flags, uint32_t *raw, uint32_t *crc)
{
	const uint8_t *h = b + 8;
	uint32_t comp;

	if (get_u32(b) != TRACE_SKIP_MAGIC_CHUNK || get_u32(b + 4) != TRACE_CHUNK_HDR_SIZE ||
	    memcmp(h, "IOCH", 4))
		return "bad chunk header magic";
	if (crc32(0, h, 48) != get_u32(h + 48))
		return "chunk header checksum mismatch";
	*flags = get_u32(h + 4);
	c->first_ns = get_u64(h + 16);
	c->last_ns = get_u64(h + 24);
	c->count = get_u32(h + 32);
	comp = get_u32(h + 36);
	*raw = get_u32(h + 40);
	*crc = get_u32(h + 44);
	if (!c->count || c->count > TRACE_MAX_CHUNK_EVENTS || comp > TRACE_MAX_COMP ||
	    *raw > TRACE_MAX_RAW || (*flags & ~(TRACE_CHUNK_SORTED | TRACE_CHUNK_FILE)))
		return "chunk header out of bounds";
	c->file_bytes = 8 + TRACE_CHUNK_HDR_SIZE + (uint64_t)comp;
	return NULL;
}

static bool read_index(struct trace_reader *r)
{
	uint64_t size = r->file_bytes, at, plen;
	uint8_t foot[TRACE_FOOTER_SIZE], *buf, *p;
	uint32_t n, flags;
	bool ok = false;

	if (size < r->data_start + 8 + TRACE_INDEX_FIXED + 4 + TRACE_FOOTER_SIZE ||
	    read_at(r, foot, sizeof(foot), size - sizeof(foot)) ||
	    memcmp(foot + 16, "IOREELIX", 8))
		return false;
	at = get_u64(foot);
	n = get_u32(foot + 8);
	plen = TRACE_INDEX_FIXED + (uint64_t)n * TRACE_INDEX_ENTRY_SIZE + 4 + TRACE_FOOTER_SIZE;
	/* Every chunk takes at least 60 bytes before the index: that bounds the allocation. */
	if (get_u32(foot + 12) || at < r->data_start || at > size || size - at != 8 + plen ||
	    n > (at - r->data_start) / MIN_FRAME)
		goto bad;
	buf = malloc(8 + plen);
	if (!buf)
		goto bad;
	if (read_at(r, buf, 8 + plen, at) || get_u32(buf) != TRACE_SKIP_MAGIC_INDEX ||
	    get_u32(buf + 4) != plen || memcmp(buf + 8, "IOIX", 4) || get_u32(buf + 12) != n ||
	    crc32(0, buf + 8, plen - 4 - TRACE_FOOTER_SIZE) !=
		    get_u32(buf + 8 + plen - 4 - TRACE_FOOTER_SIZE))
		goto out;
	p = buf + 8;
	flags = get_u32(p + 8);
	r->sorted = flags & 1;
	r->has_stats = flags & 2;
	r->stats.events = get_u64(p + 16);
	r->stats.dropped = get_u64(p + 24);
	r->stats.dropped_reserve = get_u64(p + 32);
	r->stats.dropped_inflight = get_u64(p + 40);
	r->stats.end_ns = get_u64(p + 48);
	p += TRACE_INDEX_FIXED;
	for (uint64_t i = 0, prev_end = r->data_start; i < n; i++, p += TRACE_INDEX_ENTRY_SIZE) {
		struct trace_chunk_info c = { get_u64(p), get_u64(p + 8), get_u32(p + 16),
					      get_u64(p + 24), get_u64(p + 32) };
		uint32_t kind = get_u32(p + 20);

		if (kind == IDX_FILES || kind == IDX_COUNTERS || kind == IDX_CPU_LOAD) {
			if (c.file_offset < prev_end || c.file_bytes < MIN_FRAME ||
			    c.file_bytes > 8 + TRACE_MAX_SIDE_FRAME || c.file_offset + c.file_bytes > at ||
			    add_side(r, c.file_offset, c.file_bytes, kind))
				goto out;
			prev_end = c.file_offset + c.file_bytes;
			continue;
		}
		if (kind != IDX_CHUNK || c.file_offset < prev_end ||
		    c.file_bytes < 8 + TRACE_CHUNK_HDR_SIZE ||
		    c.file_bytes > 8 + TRACE_CHUNK_HDR_SIZE + TRACE_MAX_COMP || c.count == 0 ||
		    c.count > TRACE_MAX_CHUNK_EVENTS || c.file_offset + c.file_bytes > at ||
		    add_chunk(r, &c))
			goto out;
		prev_end = c.file_offset + c.file_bytes;
	}
	ok = true;
out:
	free(buf);
bad:
	if (!ok) {
		r->nchunks = 0;
		r->nsides = 0;
		r->events = 0;
		r->has_stats = false;
		snprintf(r->notice, sizeof(r->notice),
			 "%s: the index is damaged; found the chunks by scanning", r->name);
	}
	return ok;
}

/* Next offset > pos holding a chunk header whose own checksum is right, or 0. */
static uint64_t resync(struct trace_reader *r, uint64_t pos)
{
	uint8_t buf[65536 + 60];

	for (pos++; pos + 60 <= r->file_bytes;) {
		size_t len = r->file_bytes - pos < sizeof(buf) ? r->file_bytes - pos : sizeof(buf);

		if (read_at(r, buf, len, pos))
			return 0;
		for (size_t i = 0; i + 60 <= len; i++) {
			struct trace_chunk_info c;
			uint32_t f, raw, crc;

			if (buf[i] == 0x51 && buf[i + 1] == 0x2A && buf[i + 8] == 'I' &&
			    !check_chunk_header(buf + i, &c, &f, &raw, &crc))
				return pos + i;
		}
		pos += len - 59;
	}
	return 0;
}

static int scan(struct trace_reader *r)
{
	uint64_t pos = r->data_start, prev_last = 0;
	bool first = true;

	r->sorted = true;
	while (pos < r->file_bytes) {
		uint64_t left = r->file_bytes - pos;
		uint8_t b[60] = { 0 };
		struct trace_chunk_info c;
		uint32_t flags, raw, crc;
		const char *bad;
		int err;

		err = read_at(r, b, left < 60 ? left : 60, pos);
		if (err)
			return err;
		if (get_u32(b) == TRACE_SKIP_MAGIC_INDEX)
			break; /* index present but unusable: read_index() left a notice */
		if (left >= 8 && (get_u32(b) == TRACE_SKIP_MAGIC_FILES ||
				  get_u32(b) == TRACE_SKIP_MAGIC_COUNTERS ||
				  get_u32(b) == TRACE_SKIP_MAGIC_CPU_LOAD)) {
			uint64_t sz = 8 + (uint64_t)get_u32(b + 4);

			if (sz > left) {
				snprintf(r->notice, sizeof(r->notice),
					 "%s: no index (writer stopped early?); dropped an incomplete "
					 "side frame at offset %llu",
					 r->name, (unsigned long long)pos);
				break;
			}
			if (sz >= MIN_FRAME && sz <= 8 + TRACE_MAX_SIDE_FRAME) {
				uint32_t m = get_u32(b);

				if (add_side(r, pos, sz, m == TRACE_SKIP_MAGIC_FILES ? IDX_FILES
							 : m == TRACE_SKIP_MAGIC_COUNTERS ? IDX_COUNTERS
							 : IDX_CPU_LOAD))
					return -ENOMEM;
				pos += sz;
				continue;
			}
		}
		if (left < 60 && (left < 4 || get_u32(b) == TRACE_SKIP_MAGIC_CHUNK)) {
			snprintf(r->notice, sizeof(r->notice),
				 "%s: no index (writer stopped early?); dropped %llu bytes of an incomplete chunk at offset %llu",
				 r->name, (unsigned long long)left, (unsigned long long)pos);
			break;
		}
		bad = check_chunk_header(b, &c, &flags, &raw, &crc);
		if (!bad && c.file_bytes > left) {
			snprintf(r->notice, sizeof(r->notice),
				 "%s: no index (writer stopped early?); dropped the incomplete last chunk at offset %llu",
				 r->name, (unsigned long long)pos);
			break;
		}
		if (bad) {
			if (!(r->flags & TRACE_SALVAGE)) {
				set_err(r, "chunk at offset %llu is damaged (%s); use --salvage to skip it",
					(unsigned long long)pos, bad);
				return -EIO;
			}
			r->damaged++;
			pos = resync(r, pos);
			if (!pos)
				break;
			continue;
		}
		c.file_offset = pos;
		if (!(flags & 1) || (!first && c.first_ns < prev_last))
			r->sorted = false;
		first = false;
		prev_last = c.last_ns;
		if (add_chunk(r, &c))
			return -ENOMEM;
		pos += c.file_bytes;
	}
	if (!r->notice[0])
		snprintf(r->notice, sizeof(r->notice), "%s: no index (writer stopped early?); read by scanning",
			 r->name);
	return 0;
}

static int open_header(struct trace_reader *r)
{
	uint8_t h[8], *p;
	uint32_t len;
	const char *what;
	int err;

	if (r->file_bytes == 0) {
		set_err(r, "empty file");
		return -EINVAL;
	}
	if (r->file_bytes < 16 || read_at(r, h, 8, 0) || get_u32(h) != TRACE_SKIP_MAGIC_HEADER) {
		set_err(r, "not an ioreel trace (bad magic at offset 0)");
		return -EINVAL;
	}
	len = get_u32(h + 4);
	if (len > TRACE_MAX_HEADER || len > r->file_bytes - 8) {
		set_err(r, "header size %u at offset 4 is larger than %s", len,
			len > TRACE_MAX_HEADER ? "1 MiB" : "the file (truncated?)");
		return -EINVAL;
	}
	p = malloc(len ? len : 1);
	if (!p)
		return -ENOMEM;
	err = read_at(r, p, len, 8);
	if (!err) {
		err = meta_decode(p, len, &r->meta, r->flags & TRACE_SALVAGE, &what);
		if (err == -EBADMSG)
			set_err(r, "%s; the events may be intact: `ioreel info --salvage` and "
				   "`ioreel convert --salvage` read it with the header unchecked, or "
				   "take the file again from where it came from", what);
		else if (err > 0)
			snprintf(r->notice, sizeof(r->notice), "%s: %s (read anyway: --salvage)",
				 r->name, what);
		else if (err)
			set_err(r, "%s", what);
		if (err > 0)
			err = 0;
	}
	free(p);
	r->data_start = 8 + (uint64_t)len;
	return err;
}

/* Reads the file table and counters frames (all of them: they are small). A damaged one is an
 * error naming its offset; with TRACE_SALVAGE it is skipped and counted, and the events that
 * name its files are then refused as damaged chunks. */
static int load_sides(struct trace_reader *r)
{
	for (size_t i = 0; i < r->nsides; i++) {
		const struct trace_chunk_info *c = &r->sides[i];
		const char *what = "unreadable";
		uint8_t *buf = malloc(c->file_bytes);
		int err;

		if (!buf)
			return -ENOMEM;
		err = read_at(r, buf, c->file_bytes, c->file_offset);
		if (!err && get_u32(buf + 4) != c->file_bytes - 8)
			err = -EBADMSG, what = "frame size disagrees with the index";
		if (!err && c->count == IDX_FILES)
			err = ftab_parse(buf + 8, c->file_bytes - 8, &r->ftab, &what);
		else if (!err && c->count == IDX_CPU_LOAD)
			err = cpu_load_parse(buf + 8, c->file_bytes - 8, &r->cpu_load, &what);
		else if (!err)
			err = counters_parse(buf + 8, c->file_bytes - 8, &r->counters, &what);
		free(buf);
		if (err == -ENOMEM)
			return err;
		if (err && (r->flags & TRACE_SALVAGE)) {
			r->damaged++;
			continue;
		}
		if (err) {
			set_err(r, "%s frame at offset %llu is damaged (%s); use --salvage to skip it",
				c->count == IDX_FILES ? "file table"
				: c->count == IDX_CPU_LOAD ? "CPU load" : "counters",
				(unsigned long long)c->file_offset, what);
			return -EIO;
		}
	}
	return 0;
}

struct trace_reader *trace_reader__open(const char *path, unsigned int flags, char *why,
					size_t why_len)
{
	return trace_reader__open_as(path, NULL, flags, why, why_len);
}

struct trace_reader *trace_reader__open_as(const char *path, const char *name, unsigned int flags,
					   char *why, size_t why_len)
{
	struct trace_reader *r;
	struct stat st;
	int err;

	if (!name)
		name = path;
	r = calloc(1, sizeof(*r) + strlen(path) + strlen(name) + 2);
	if (!r) {
		if (why && why_len)
			snprintf(why, why_len, "%s: out of memory", name);
		errno = ENOMEM;
		return NULL;
	}
	strcpy(r->path, path);
	r->name = strcpy(r->path + strlen(path) + 1, name);
	r->flags = flags;
	/* O_NONBLOCK: opening a named pipe must not wait for a writer (it is refused below); it
	 * changes nothing for a regular file's reads */
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->fd < 0 || fstat(r->fd, &st)) {
		err = -errno;
		set_err(r, "%s", strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		err = -EISDIR;
		set_err(r, "is a directory, not a trace");
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		/* a trace is read by seeking (its index is at the end): a pipe or a device reads
		 * as size 0, and "empty file" would send the user looking in the wrong place */
		err = -EINVAL;
		set_err(r, "is %s, not a trace file: a trace is read by seeking (its index is at "
			   "its end); give the path of a .ioreel file",
			S_ISFIFO(st.st_mode)  ? "a pipe"
			: S_ISCHR(st.st_mode) ? "a character device"
			: S_ISBLK(st.st_mode) ? "a block device"
					      : "not a regular file");
		goto fail;
	}
	r->file_bytes = st.st_size;
	r->dctx = ZSTD_createDCtx();
	if (!r->dctx) {
		err = -ENOMEM;
		set_err(r, "out of memory");
		goto fail;
	}
	err = open_header(r);
	if (err)
		goto fail;
	r->has_index = read_index(r);
	if (!r->has_index) {
		err = scan(r);
		if (err)
			goto fail;
	}
	err = load_sides(r);
	if (err)
		goto fail;
	return r;
fail:
	if (why && why_len && r->err[0])
		snprintf(why, why_len, "%s", r->err);
	else if (why && why_len)
		snprintf(why, why_len, "%s: %s", r->name, strerror(-err));
	trace_reader__close(r);
	errno = -err;
	return NULL;
}

const struct trace_meta *trace_reader__meta(const struct trace_reader *r)
{
	return &r->meta;
}
const struct trace_stats *trace_reader__stats(const struct trace_reader *r)
{
	return r->has_stats ? &r->stats : NULL;
}
bool trace_reader__has_index(const struct trace_reader *r)
{
	return r->has_index;
}
size_t trace_reader__chunk_count(const struct trace_reader *r)
{
	return r->nchunks;
}
const struct trace_chunk_info *trace_reader__chunk(const struct trace_reader *r, size_t i)
{
	return i < r->nchunks ? &r->chunks[i] : NULL;
}
uint64_t trace_reader__file_bytes(const struct trace_reader *r)
{
	return r->file_bytes;
}
uint64_t trace_reader__event_count(const struct trace_reader *r)
{
	return r->events;
}
bool trace_reader__is_sorted(const struct trace_reader *r)
{
	return r->sorted;
}
uint64_t trace_reader__damaged_chunks(const struct trace_reader *r)
{
	return r->damaged;
}
const char *trace_reader__error(const struct trace_reader *r)
{
	return r->err[0] ? r->err : "no error";
}
const char *trace_reader__notice(const struct trace_reader *r)
{
	return r->notice[0] ? r->notice : NULL;
}

static int load_chunk(struct trace_reader *r, const struct trace_chunk_info *ci)
{
	struct trace_chunk_info c;
	uint32_t flags, raw, crc;
	const char *what = NULL;
	unsigned long long ret;
	size_t comp;
	int err;

	if (grow(&r->comp, &r->comp_cap, ci->file_bytes))
		return -ENOMEM;
	err = read_at(r, r->comp, ci->file_bytes, ci->file_offset);
	if (err) {
		set_err(r, "chunk at offset %llu is damaged (cut short); use --salvage to skip it",
			(unsigned long long)ci->file_offset);
		return -EIO;
	}
	what = check_chunk_header(r->comp, &c, &flags, &raw, &crc);
	if (what)
		goto bad;
	if (c.file_bytes != ci->file_bytes || c.count != ci->count) {
		what = "chunk header disagrees with the index";
		goto bad;
	}
	comp = ci->file_bytes - 8 - TRACE_CHUNK_HDR_SIZE;
	if (crc32(0, r->comp + 60, comp) != crc) {
		what = "checksum mismatch";
		goto bad;
	}
	ret = ZSTD_getFrameContentSize(r->comp + 60, comp);
	if (ret != raw || ZSTD_findFrameCompressedSize(r->comp + 60, comp) != comp) {
		what = "bad zstd frame";
		goto bad;
	}
	if (grow(&r->raw, &r->raw_cap, raw))
		return -ENOMEM;
	ret = ZSTD_decompressDCtx(r->dctx, r->raw, raw, r->comp + 60, comp);
	if (ZSTD_isError(ret) || ret != raw) {
		what = "zstd cannot decompress it";
		goto bad;
	}
	if (!(flags & TRACE_CHUNK_FILE) != (r->meta.level != TRACE_LEVEL_FILE)) {
		what = "its kind (block or file events) differs from the trace's level";
		goto bad;
	}
	if (codec_dec_init(&r->dec, r->raw, raw, r->meta.ndevices, flags & TRACE_CHUNK_FILE,
			   r->ftab.n, &what))
		goto bad;
	if (r->dec.count != c.count) {
		what = "event count differs from the chunk header";
		goto bad;
	}
	return 0;
bad:
	set_err(r, "chunk at offset %llu is damaged (%s); use --salvage to skip it",
		(unsigned long long)ci->file_offset, what);
	return -EBADMSG;
}

static long next_events(struct trace_reader *r, struct io_event *buf, struct io_fext *x,
			size_t cap)
{
	size_t got = 0;

	while (got < cap) {
		const char *what;
		long n;
		int err;

		if (!r->loaded) {
			if (r->cur >= r->nchunks)
				break;
			err = load_chunk(r, &r->chunks[r->cur]);
			if (err == -ENOMEM)
				return err;
			if (err && (r->flags & TRACE_SALVAGE)) {
				r->damaged++;
				r->cur++;
				continue;
			}
			if (err) /* hand out what we have; the next call reports the error */
				return got ? (long)got : err;
			r->loaded = true;
		}
		n = codec_dec_next(&r->dec, buf + got, x ? x + got : NULL, cap - got, &what);
		if (n < 0) {
			set_err(r, "chunk at offset %llu is damaged (%s); use --salvage to skip it",
				(unsigned long long)r->chunks[r->cur].file_offset, what);
			r->loaded = false;
			if (!(r->flags & TRACE_SALVAGE))
				return n;
			r->damaged++;
			r->cur++;
			continue;
		}
		if (n == 0) {
			r->loaded = false;
			r->cur++;
		}
		got += n;
	}
	return got;
}

long trace_reader__next(struct trace_reader *r, struct io_event *buf, size_t cap)
{
	if (r->meta.level == TRACE_LEVEL_FILE) {
		set_err(r, "a file-level trace (ioreel record --level file): this command reads "
			   "block-level traces; ioreel info and ioreel convert read file-level ones");
		return -EMEDIUMTYPE;
	}
	return next_events(r, buf, NULL, cap);
}

long trace_reader__next_file(struct trace_reader *r, struct io_event *ev, struct io_fext *x,
			     size_t cap)
{
	if (r->meta.level != TRACE_LEVEL_FILE) {
		set_err(r, "a block-level trace, where a file-level one (ioreel record --level file) "
			   "was expected");
		return -EMEDIUMTYPE;
	}
	return next_events(r, ev, x, cap);
}

size_t trace_reader__file_count(const struct trace_reader *r)
{
	return r->ftab.n;
}

const struct trace_file *trace_reader__file(const struct trace_reader *r, uint32_t id)
{
	return id && id <= r->ftab.n ? &r->ftab.f[id - 1] : NULL;
}

size_t trace_reader__cpu_load(const struct trace_reader *r, const struct trace_cpu_load **l,
			      uint32_t *ncpus, uint32_t *interval_ns)
{
	*l = r->cpu_load.l;
	if (r->cpu_load.n) {
		*ncpus = r->cpu_load.ncpus;
		*interval_ns = r->cpu_load.interval_ns;
	}
	return r->cpu_load.n;
}

size_t trace_reader__counter_count(const struct trace_reader *r)
{
	return r->counters.n;
}

const struct trace_counter *trace_reader__counter(const struct trace_reader *r, size_t i)
{
	return i < r->counters.n ? &r->counters.c[i] : NULL;
}

int trace_reader__seek(struct trace_reader *r, uint64_t t_ns)
{
	size_t i = 0;

	if (r->sorted) {
		size_t lo = 0, hi = r->nchunks;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (r->chunks[mid].last_ns < t_ns)
				lo = mid + 1;
			else
				hi = mid;
		}
		i = lo;
	} else {
		while (i < r->nchunks && r->chunks[i].last_ns < t_ns)
			i++;
	}
	r->cur = i;
	r->loaded = false;
	return 0;
}

int trace_reader__rewind(struct trace_reader *r)
{
	r->cur = 0;
	r->loaded = false;
	return 0;
}

void trace_reader__close(struct trace_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	ZSTD_freeDCtx(r->dctx);
	free(r->chunks);
	free(r->sides);
	ftab_free(&r->ftab);
	counters_free(&r->counters);
	cpu_loads_free(&r->cpu_load);
	free(r->comp);
	free(r->raw);
	free(r);
}
