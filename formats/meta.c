// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Trace metadata: filling a fresh header, and its on-disk form as tagged fields
 * (formats/FORMAT.md, "Header") so a newer writer can add fields an older reader skips.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <zlib.h>
#include "formats/codec.h"
#include "util/cli.h"

enum {
	TAG_TOOL = 1,
	TAG_HOST,
	TAG_KERNEL,
	TAG_SOURCE,
	TAG_OPTIONS,
	TAG_GENESIS,
	TAG_MODE,
	TAG_TIME_BASED,
	TAG_RUNTIME,
	TAG_DEVICE,
	TAG_STREAMS,
	TAG_STREAM_EXT, /* format 1.3: what each stream runs (FORMAT.md, "Streams") */
	TAG_CHECKSUM,	/* format 1.4: crc32 of the payload before it; always the last field */
	/* File-level traces (1.2). Numbered apart, so block-level additions (12, 13, ...) never
	 * collide with them. */
	TAG_LEVEL = 32,
};

/* Bytes of one TAG_STREAM_EXT record written by this version; readers accept longer ones
 * (a later minor appends fields) and shorter ones (absent fields are 0). */
#define STREAM_EXT_SIZE 144u

void trace_meta_init(struct trace_meta *m, const char *source)
{
	struct utsname u;

	memset(m, 0, sizeof(*m));
	m->version = TRACE_VERSION_MAJOR << 16 | TRACE_VERSION_MINOR;
	snprintf(m->tool_version, sizeof(m->tool_version), "ioreel %s", IOREEL_VERSION);
	if (!uname(&u)) {
		snprintf(m->host, sizeof(m->host), "%.63s", u.nodename);
		snprintf(m->kernel, sizeof(m->kernel), "%.20s %.80s %.20s", u.sysname, u.release,
			 u.machine);
	}
	snprintf(m->source, sizeof(m->source), "%s", source ? source : "");
	m->genesis_realtime_ns = now_real_ns();
	m->mode = TRACE_MODE_TIMED;
}

int trace_meta_add_device(struct trace_meta *m, const struct trace_device *d)
{
	if (m->ndevices >= TRACE_MAX_DEVICES)
		return -ENOSPC;
	m->devices[m->ndevices] = *d;
	return m->ndevices++;
}

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static uint8_t *buf_grow(struct buf *b, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap * 2 + n + 256;
		uint8_t *p = realloc(b->p, cap);

		if (!p)
			return NULL;
		b->p = p;
		b->cap = cap;
	}
	b->len += n;
	return b->p + b->len - n;
}

static int put_field(struct buf *b, uint16_t tag, const void *v, size_t n)
{
	uint8_t *p = buf_grow(b, 6 + n);

	if (!p)
		return -ENOMEM;
	put_u16(p, tag);
	put_u32(p + 2, n);
	memcpy(p + 6, v, n);
	return 0;
}

static int put_str(struct buf *b, uint16_t tag, const char *s, size_t max)
{
	return put_field(b, tag, s, strnlen(s, max));
}

static int put_num(struct buf *b, uint16_t tag, uint64_t v, size_t n)
{
	uint8_t tmp[8];

	put_u64(tmp, v);
	return put_field(b, tag, tmp, n);
}

/* Tag 12 only when a record says more than a depth: otherwise a 1.0 reader and a 1.1 reader
 * read the same streams from tags 8, 9 and 11. */
static bool streams_say_more(const struct trace_stream *st, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (st[i].flags || st[i].group || st[i].runtime_ns || st[i].ios || st[i].delay_ns ||
		    st[i].think_ns || st[i].lat_target_ns || st[i].exit_group)
			return true;
	return false;
}

static int put_stream_ext(struct buf *b, const struct trace_stream *st, uint32_t n)
{
	uint8_t *p = malloc(8 + (size_t)n * STREAM_EXT_SIZE);
	int err;

	if (!p)
		return -ENOMEM;
	put_u32(p, n);
	put_u32(p + 4, STREAM_EXT_SIZE);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *q = p + 8 + (size_t)i * STREAM_EXT_SIZE;

		put_u32(q, st[i].flags);
		put_u32(q + 4, st[i].group);
		put_u64(q + 8, st[i].runtime_ns);
		put_u64(q + 16, st[i].ios);
		put_u64(q + 24, st[i].delay_ns);
		put_u64(q + 32, st[i].rel_base);
		put_u32(q + 40, st[i].rel_start_ppm);
		put_u32(q + 44, st[i].rel_len_ppm);
		put_u64(q + 48, st[i].rel_span);
		put_u32(q + 56, st[i].rel_align);
		put_u32(q + 60, st[i].rel_back_add);
		put_u64(q + 64, st[i].think_ns);
		put_u64(q + 72, st[i].think_spin_ns);
		put_u64(q + 80, st[i].think_iotime_ns);
		put_u32(q + 88, st[i].think_blocks);
		put_u32(q + 92, st[i].lat_pct_ppm);
		put_u64(q + 96, st[i].lat_target_ns);
		put_u64(q + 104, st[i].lat_window_ns);
		for (int d = 0; d < 3; d++)
			put_u64(q + 112 + 8 * d, st[i].rate_bps[d]);
		put_u32(q + 136, st[i].exit_group);
		put_u32(q + 140, st[i].rel_back_step);
	}
	err = put_field(b, TAG_STREAM_EXT, p, 8 + (size_t)n * STREAM_EXT_SIZE);
	free(p);
	return err;
}

uint8_t *meta_encode(const struct trace_meta *m, size_t *len)
{
	struct buf b = { 0 };
	uint8_t *p;
	int err = 0;

	p = buf_grow(&b, 16);
	if (!p)
		return NULL;
	put_u32(p, TRACE_SKIP_MAGIC_HEADER);
	memcpy(p + 8, "IORL", 4);
	put_u16(p + 12, TRACE_VERSION_MAJOR);
	put_u16(p + 14, TRACE_VERSION_MINOR);
	err |= put_str(&b, TAG_TOOL, m->tool_version, sizeof(m->tool_version));
	err |= put_str(&b, TAG_HOST, m->host, sizeof(m->host));
	err |= put_str(&b, TAG_KERNEL, m->kernel, sizeof(m->kernel));
	err |= put_str(&b, TAG_SOURCE, m->source, sizeof(m->source));
	err |= put_str(&b, TAG_OPTIONS, m->options, sizeof(m->options));
	err |= put_num(&b, TAG_GENESIS, m->genesis_realtime_ns, 8);
	err |= put_num(&b, TAG_MODE, m->mode, 4);
	err |= put_num(&b, TAG_TIME_BASED, m->time_based, 4);
	err |= put_num(&b, TAG_RUNTIME, m->runtime_ns, 8);
	for (uint32_t i = 0; i < m->ndevices && i < TRACE_MAX_DEVICES && !err; i++) {
		const struct trace_device *d = &m->devices[i];
		size_t nl = strnlen(d->name, sizeof(d->name));
		size_t ml = strnlen(d->model, sizeof(d->model));
		uint8_t tmp[24 + 4 + sizeof(d->name) + sizeof(d->model)];

		put_u32(tmp, d->major);
		put_u32(tmp + 4, d->minor);
		put_u64(tmp + 8, d->size_bytes);
		put_u32(tmp + 16, d->logical_block_size);
		put_u32(tmp + 20, d->physical_block_size);
		put_u16(tmp + 24, nl);
		memcpy(tmp + 26, d->name, nl);
		put_u16(tmp + 26 + nl, ml);
		memcpy(tmp + 28 + nl, d->model, ml);
		err |= put_field(&b, TAG_DEVICE, tmp, 28 + nl + ml);
	}
	if (m->level != TRACE_LEVEL_BLOCK && !err)
		err |= put_num(&b, TAG_LEVEL, m->level, 4);
	if (m->nstreams && !err) {
		uint32_t n = m->nstreams < TRACE_MAX_STREAMS ? m->nstreams : TRACE_MAX_STREAMS;
		uint8_t tmp[4 + 4 * TRACE_MAX_STREAMS];

		put_u32(tmp, n);
		for (uint32_t i = 0; i < n; i++)
			put_u32(tmp + 4 + 4 * i, m->streams[i].depth);
		err |= put_field(&b, TAG_STREAMS, tmp, 4 + 4 * n);
		if (!err && streams_say_more(m->streams, n))
			err |= put_stream_ext(&b, m->streams, n);
	}
	if (!err) {
		/* last: the crc covers every byte of the payload before it, version included */
		uint32_t crc = (uint32_t)crc32(0, b.p + 8, (uInt)(b.len - 8));

		err |= put_num(&b, TAG_CHECKSUM, crc, 4);
	}
	if (err) {
		free(b.p);
		errno = ENOMEM;
		return NULL;
	}
	put_u32(b.p + 4, b.len - 8);
	*len = b.len;
	return b.p;
}

static void get_str(char *dst, size_t cap, const uint8_t *p, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, p, n);
	dst[n] = 0;
}

static uint64_t get_num(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n && i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* TAG_STREAM_EXT: u32 n, u32 record size, n records. 0 or -EINVAL. */
static int get_stream_ext(struct trace_meta *m, const uint8_t *v, uint32_t n)
{
	uint32_t ns, rs;
	uint8_t rec[STREAM_EXT_SIZE];

	if (n < 8)
		return -EINVAL;
	ns = get_u32(v);
	rs = get_u32(v + 4);
	if (ns > TRACE_MAX_STREAMS || !rs || rs > 4096 || n < 8 + (uint64_t)ns * rs)
		return -EINVAL;
	if (ns > m->nstreams)
		m->nstreams = ns;
	for (uint32_t i = 0; i < ns; i++) {
		struct trace_stream *s = &m->streams[i];

		memset(rec, 0, sizeof(rec));
		memcpy(rec, v + 8 + (size_t)i * rs, rs < sizeof(rec) ? rs : sizeof(rec));
		s->flags = get_u32(rec);
		s->group = get_u32(rec + 4);
		s->runtime_ns = get_u64(rec + 8);
		s->ios = get_u64(rec + 16);
		s->delay_ns = get_u64(rec + 24);
		s->rel_base = get_u64(rec + 32);
		s->rel_start_ppm = get_u32(rec + 40);
		s->rel_len_ppm = get_u32(rec + 44);
		s->rel_span = get_u64(rec + 48);
		s->rel_align = get_u32(rec + 56);
		s->think_ns = get_u64(rec + 64);
		s->think_spin_ns = get_u64(rec + 72);
		s->think_iotime_ns = get_u64(rec + 80);
		s->think_blocks = get_u32(rec + 88);
		s->lat_pct_ppm = get_u32(rec + 92);
		s->lat_target_ns = get_u64(rec + 96);
		s->lat_window_ns = get_u64(rec + 104);
		for (int d = 0; d < 3; d++)
			s->rate_bps[d] = get_u64(rec + 112 + 8 * d);
		s->exit_group = get_u32(rec + 136);
		s->rel_back_add = get_u32(rec + 60);
		s->rel_back_step = get_u32(rec + 140);
		if (!(s->flags & TRACE_STREAM_BACK))
			s->rel_back_add = s->rel_back_step = 0;
		if (!(s->flags & TRACE_STREAM_RATE))
			memset(s->rate_bps, 0, sizeof(s->rate_bps));
		if (!(s->flags & TRACE_STREAM_EXIT))
			s->exit_group = 0;
		if (!(s->flags & TRACE_STREAM_THINK))
			s->think_ns = s->think_spin_ns = s->think_iotime_ns = s->think_blocks = 0;
		if (!(s->flags & TRACE_STREAM_LAT_TARGET))
			s->lat_target_ns = s->lat_window_ns = s->lat_pct_ppm = 0;
		if ((s->flags & ~(uint32_t)TRACE_STREAM__ALL) || s->rel_start_ppm > 1000000 ||
		    s->think_spin_ns > s->think_ns || s->lat_pct_ppm > 1000000 ||
		    ((s->flags & TRACE_STREAM_LAT_TARGET) && !s->lat_target_ns) ||
		    s->group >= TRACE_MAX_STREAMS ||
		    s->rel_len_ppm > 1000000 ||
		    ((s->flags & TRACE_STREAM_SCALE) && !(s->flags & TRACE_STREAM_REL)) ||
		    ((s->flags & TRACE_STREAM_SCALE) && !s->rel_span) ||
		    ((s->flags & TRACE_STREAM_RATE) &&
		     !(s->rate_bps[0] | s->rate_bps[1] | s->rate_bps[2])) ||
		    ((s->flags & TRACE_STREAM_EXIT_RUNNING) && !(s->flags & TRACE_STREAM_EXIT)) ||
		    ((s->flags & TRACE_STREAM_BACK) &&
		     (!(s->flags & TRACE_STREAM_REL) || (s->flags & TRACE_STREAM_SCALE) ||
		      !s->rel_back_step || s->rel_back_add <= s->rel_back_step)))
			return -EINVAL;
	}
	return 0;
}

/*
 * Format 1.4: the header's last field is tag 13, a crc32 of the payload bytes before it. 1 if
 * it is there and matches, 0 if the header has none, -1 if it is there and does not match.
 */
static int header_crc(const uint8_t *p, size_t len)
{
	if (len < 8 + 10 || get_u16(p + len - 10) != TAG_CHECKSUM || get_u32(p + len - 8) != 4)
		return 0;
	return (uint32_t)crc32(0, p, (uInt)(len - 10)) == get_u32(p + len - 4) ? 1 : -1;
}

static int decode_fields(const uint8_t *p, size_t len, struct trace_meta *m, const char **what);

int meta_decode(const uint8_t *p, size_t len, struct trace_meta *m, bool salvage,
		const char **what)
{
	int crc, err;

	memset(m, 0, sizeof(*m));
	if (len < 8 || memcmp(p, "IORL", 4)) {
		*what = "not an ioreel trace (bad magic at offset 0)";
		return -EINVAL;
	}
	crc = header_crc(p, len);
	if (crc < 0 || (!crc && get_u16(p + 4) == 1 && get_u16(p + 6) >= 4)) {
		/* any flipped bit lands here first: its effect on the fields is not the news */
		*what = crc < 0 ? "header checksum mismatch: the header (device table, times, "
				  "streams) is damaged"
				: "header has no checksum though its format (1.4 or later) has one: "
				  "the header is damaged";
		if (!salvage)
			return -EBADMSG;
		err = decode_fields(p, len, m, what);
		return err ? err : 1;
	}
	err = decode_fields(p, len, m, what);
	if (!err)
		m->header_checked = crc > 0;
	return err;
}

static int decode_fields(const uint8_t *p, size_t len, struct trace_meta *m, const char **what)
{
	size_t pos = 8;
	uint16_t major;
	bool have_ext = false;

	major = get_u16(p + 4);
	m->version = (uint32_t)major << 16 | get_u16(p + 6);
	if (major > TRACE_VERSION_MAJOR) {
		*what = "written by a newer ioreel (format major version too new); upgrade ioreel";
		return -EPROTONOSUPPORT;
	}
	if (major == 0) {
		*what = "bad format version 0 in the header at offset 8";
		return -EINVAL;
	}
	while (pos < len) {
		uint16_t tag;
		uint32_t n;
		const uint8_t *v;

		if (len - pos < 6) {
			*what = "truncated header field";
			return -EINVAL;
		}
		tag = get_u16(p + pos);
		n = get_u32(p + pos + 2);
		pos += 6;
		if (n > len - pos) {
			*what = "header field runs past the header";
			return -EINVAL;
		}
		v = p + pos;
		pos += n;
		switch (tag) {
		case TAG_TOOL:
			get_str(m->tool_version, sizeof(m->tool_version), v, n);
			break;
		case TAG_HOST:
			get_str(m->host, sizeof(m->host), v, n);
			break;
		case TAG_KERNEL:
			get_str(m->kernel, sizeof(m->kernel), v, n);
			break;
		case TAG_SOURCE:
			get_str(m->source, sizeof(m->source), v, n);
			break;
		case TAG_OPTIONS:
			get_str(m->options, sizeof(m->options), v, n);
			break;
		case TAG_GENESIS:
			m->genesis_realtime_ns = get_num(v, n);
			break;
		case TAG_MODE:
			m->mode = get_num(v, n);
			break;
		case TAG_TIME_BASED:
			m->time_based = get_num(v, n);
			break;
		case TAG_RUNTIME:
			m->runtime_ns = get_num(v, n);
			break;
		case TAG_DEVICE: {
			struct trace_device *d;
			uint16_t nl, ml;

			if (m->ndevices >= TRACE_MAX_DEVICES || n < 28) {
				*what = "bad or too many devices in the header";
				return -EINVAL;
			}
			nl = get_u16(v + 24);
			if (nl > n - 28 || (ml = get_u16(v + 26 + nl)) > n - 28 - nl) {
				*what = "bad device entry in the header";
				return -EINVAL;
			}
			d = &m->devices[m->ndevices++];
			d->major = get_u32(v);
			d->minor = get_u32(v + 4);
			d->size_bytes = get_u64(v + 8);
			d->logical_block_size = get_u32(v + 16);
			d->physical_block_size = get_u32(v + 20);
			/* block sizes size buffers and alignments: 0 (unknown) or a power of two */
			if ((d->logical_block_size & (d->logical_block_size - 1)) ||
			    (d->physical_block_size & (d->physical_block_size - 1)) ||
			    d->logical_block_size > (1u << 20) || d->physical_block_size > (1u << 20)) {
				*what = "bad block size in a device of the header";
				return -EINVAL;
			}
			get_str(d->name, sizeof(d->name), v + 26, nl);
			get_str(d->model, sizeof(d->model), v + 28 + nl, ml);
			break;
		}
		case TAG_STREAMS: {
			uint32_t ns;

			if (n < 4 || (ns = get_u32(v)) > TRACE_MAX_STREAMS || n < 4 + 4ull * ns) {
				*what = "bad stream table in the header";
				return -EINVAL;
			}
			if (ns > m->nstreams)
				m->nstreams = ns;
			for (uint32_t i = 0; i < ns; i++) {
				m->streams[i].depth = get_u32(v + 4 + 4 * i);
				/* it sizes a replay's slots: 0xffffffff is damage, not a job */
				if (m->streams[i].depth > TRACE_MAX_STREAM_DEPTH) {
					*what = "stream depth in the header is above 65536";
					return -EINVAL;
				}
			}
			break;
		}
		case TAG_LEVEL:
			m->level = get_num(v, n);
			break;
		case TAG_CHECKSUM:
			/* checked by meta_decode(); anywhere but last it is damage */
			if (n != 4 || pos != len) {
				*what = "header checksum field is not the last one";
				return -EINVAL;
			}
			break;
		case TAG_STREAM_EXT:
			if (get_stream_ext(m, v, n)) {
				*what = "bad stream records in the header";
				return -EINVAL;
			}
			have_ext = true;
			break;
		default:
			break; /* a newer minor version's field: skip it */
		}
	}
	if (!have_ext && m->time_based && m->runtime_ns) {
		/* Format 1.0: one runtime for the whole trace, honoured only with time_based. */
		for (uint32_t i = 0; i < m->nstreams; i++) {
			m->streams[i].flags = TRACE_STREAM_TIME_BASED;
			m->streams[i].runtime_ns = m->runtime_ns;
		}
	}
	if (m->mode > TRACE_MODE_CLOSED) {
		*what = "unknown replay mode in the header";
		return -EINVAL;
	}
	if (m->level > TRACE_LEVEL_FILE) {
		*what = "unknown trace level in the header (written by a newer ioreel?)";
		return -EINVAL;
	}
	return 0;
}
