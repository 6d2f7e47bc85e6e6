// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Several traces read as one, in time order (trace.h, "several traces as one"): the hosts of a
 * fleet recorded or replayed together, merged for `ioreel analyze --merge` and for the share of
 * a trace set one rank of `ioreel-mpi replay` replays. A few sources at most: the next event is
 * found by a scan of the heads, which costs less than a heap's bookkeeping below ~16 sources.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/trace.h"

#define MERGE_BATCH 1024
/* Linux pids and tids stay below PID_MAX_LIMIT (4 Mi): the bits above name the source. */
#define MERGE_TID_BITS 22

struct merge_src {
	struct trace_reader *rd;
	struct io_event buf[MERGE_BATCH];
	size_t n, pos;
	uint64_t shift;
	uint32_t dev_base, stream_base;
	bool eof;
};

struct trace_merge {
	unsigned int n, flags;
	struct trace_meta meta;
	char err[600];
	struct merge_src src[];
};

static void merge_err(struct trace_merge *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void merge_err(struct trace_merge *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->err, sizeof(m->err), fmt, ap);
	va_end(ap);
}

static int combine_meta(struct trace_merge *m, const char *const *paths)
{
	struct trace_meta *out = &m->meta;
	uint64_t genesis = 0;

	*out = *trace_reader__meta(m->src[0].rd);
	out->ndevices = 0;
	out->nstreams = 0;
	for (unsigned int i = 0; i < m->n; i++) {
		const struct trace_meta *mi = trace_reader__meta(m->src[i].rd);
		unsigned int nd = mi->ndevices ? mi->ndevices : 1;

		if (out->ndevices + nd > TRACE_MAX_DEVICES) {
			merge_err(m,
				  "the traces hold more than %d devices together (%s brings the "
				  "total to %u)",
				  TRACE_MAX_DEVICES, paths[i], out->ndevices + nd);
			return -ENOSPC;
		}
		if (out->nstreams + mi->nstreams > TRACE_MAX_STREAMS) {
			merge_err(m, "the traces hold more than %d streams together (%s)",
				  TRACE_MAX_STREAMS, paths[i]);
			return -ENOSPC;
		}
		m->src[i].dev_base = out->ndevices;
		m->src[i].stream_base = out->nstreams;
		for (unsigned int d = 0; d < nd; d++) {
			struct trace_device td = {.name = "?"};

			if (mi->ndevices)
				td = mi->devices[d];
			out->devices[out->ndevices++] = td;
		}
		memcpy(&out->streams[out->nstreams], mi->streams,
		       mi->nstreams * sizeof(mi->streams[0]));
		out->nstreams += mi->nstreams;
		if (mi->genesis_realtime_ns &&
		    (!genesis || mi->genesis_realtime_ns - m->src[i].shift < genesis))
			genesis = mi->genesis_realtime_ns - m->src[i].shift;
		if (mi->runtime_ns > out->runtime_ns)
			out->runtime_ns = mi->runtime_ns;
	}
	out->genesis_realtime_ns = genesis;
	return 0;
}

struct trace_merge *trace_merge__open(const char *const *paths, unsigned int n,
				      const uint64_t *shift_ns, unsigned int reader_flags,
				      unsigned int flags, char *err, size_t errlen)
{
	struct trace_merge *m;
	int ret = 0;

	if (!n || n > (1u << (32 - MERGE_TID_BITS))) {
		snprintf(err, errlen, "between 1 and %u traces can be merged, not %u",
			 1u << (32 - MERGE_TID_BITS), n);
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m) + n * sizeof(m->src[0]));
	if (!m) {
		snprintf(err, errlen, "out of memory for merging %u traces", n);
		errno = ENOMEM;
		return NULL;
	}
	m->n = n;
	m->flags = flags;
	for (unsigned int i = 0; i < n; i++) {
		char why[256] = "";

		m->src[i].shift = shift_ns ? shift_ns[i] : 0;
		m->src[i].rd = trace_reader__open(paths[i], reader_flags, why, sizeof(why));
		if (!m->src[i].rd) {
			ret = -errno;
			if (strstr(why, paths[i])) /* the reader's message names the file */
				merge_err(m, "cannot read trace %s", why);
			else
				merge_err(m, "cannot read trace %s: %s", paths[i],
					  *why ? why : strerror(errno));
			break;
		}
	}
	if (!ret)
		ret = combine_meta(m, paths);
	if (ret) {
		snprintf(err, errlen, "%s", m->err);
		trace_merge__close(m);
		errno = -ret;
		return NULL;
	}
	return m;
}

const struct trace_meta *trace_merge__meta(const struct trace_merge *m)
{
	return &m->meta;
}

unsigned int trace_merge__dev_base(const struct trace_merge *m, unsigned int src)
{
	return src < m->n ? m->src[src].dev_base : 0;
}

struct trace_reader *trace_merge__reader(const struct trace_merge *m, unsigned int src)
{
	return src < m->n ? m->src[src].rd : NULL;
}

static int refill(struct trace_merge *m, struct merge_src *s)
{
	long got = trace_reader__next(s->rd, s->buf, MERGE_BATCH);

	if (got < 0) {
		merge_err(m, "%s", trace_reader__error(s->rd));
		return (int)got;
	}
	s->n = (size_t)got;
	s->pos = 0;
	s->eof = !got;
	return 0;
}

static uint64_t shifted(uint64_t t, uint64_t shift)
{
	return t == IO_TS_NONE ? t : t + shift;
}

static uint32_t tag_id(uint32_t v, unsigned int src)
{
	return v && v < (1u << MERGE_TID_BITS) ? v | (uint32_t)src << MERGE_TID_BITS : v;
}

int trace_merge__next(struct trace_merge *m, struct io_event *ev, unsigned int *src)
{
	struct merge_src *best = NULL;
	uint64_t best_t = 0;
	unsigned int bi = 0;

	for (unsigned int i = 0; i < m->n; i++) {
		struct merge_src *s = &m->src[i];
		uint64_t t;

		if (s->pos == s->n && !s->eof) {
			int ret = refill(m, s);

			if (ret)
				return ret;
		}
		if (s->eof)
			continue;
		t = io_event_time(&s->buf[s->pos]);
		t = t == IO_TS_NONE ? 0 : t + s->shift; /* timeless events first, as in a file */
		if (!best || t < best_t) {
			best = s;
			best_t = t;
			bi = i;
		}
	}
	if (!best)
		return 0;
	*ev = best->buf[best->pos++];
	ev->queue_ns = shifted(ev->queue_ns, best->shift);
	ev->issue_ns = shifted(ev->issue_ns, best->shift);
	ev->complete_ns = shifted(ev->complete_ns, best->shift);
	ev->dev += best->dev_base;
	ev->stream += best->stream_base;
	if (m->flags & TRACE_MERGE_TIDS) {
		ev->pid = tag_id(ev->pid, bi);
		ev->tid = tag_id(ev->tid, bi);
	}
	if (src)
		*src = bi;
	return 1;
}

int trace_merge__rewind(struct trace_merge *m)
{
	for (unsigned int i = 0; i < m->n; i++) {
		int ret = trace_reader__rewind(m->src[i].rd);

		if (ret) {
			merge_err(m, "%s", trace_reader__error(m->src[i].rd));
			return ret;
		}
		m->src[i].n = m->src[i].pos = 0;
		m->src[i].eof = false;
	}
	return 0;
}

const char *trace_merge__error(const struct trace_merge *m)
{
	return m->err;
}

void trace_merge__close(struct trace_merge *m)
{
	if (!m)
		return;
	for (unsigned int i = 0; i < m->n; i++)
		if (m->src[i].rd)
			trace_reader__close(m->src[i].rd);
	free(m);
}
