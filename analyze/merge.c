// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Analyses added together, and analyses as bytes: the fleet (mpi/) sums its ranks' analyses
 * into one, exactly, as fio sums its clients' io_u_plat histograms: every histogram has the
 * same buckets everywhere, so fleet percentiles come from the summed buckets, never from
 * averages. Means and variances come from exact integer sums, so the order of merging does
 * not change them either.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/analysis_int.h"

/* ---- merge ---- */

void an_op_add(struct an_op *d, const struct an_op *s)
{
	d->ios += s->ios;
	d->bytes += s->bytes;
	if (!d->errors)
		d->first_error = s->first_error;
	d->errors += s->errors;
	d->seq += s->seq;
	/* buckets, count, min and max; mean and m2 are derived from the sums by an_finish() */
	hist_merge(&d->slat, &s->slat);
	hist_merge(&d->clat, &s->clat);
	hist_merge(&d->lat, &s->lat);
	d->slat_s.sum += s->slat_s.sum;
	d->slat_s.sumsq += s->slat_s.sumsq;
	d->clat_s.sum += s->clat_s.sum;
	d->clat_s.sumsq += s->clat_s.sumsq;
	d->lat_s.sum += s->lat_s.sum;
	d->lat_s.sumsq += s->lat_s.sumsq;
	for (unsigned int i = 0; i < AN_LAT_BINS; i++)
		d->lat_bins[i] += s->lat_bins[i];
	for (unsigned int i = 0; i < AN_BS_BINS; i++) {
		d->bs[i] += s->bs[i];
		d->bs_bytes[i] += s->bs_bytes[i];
	}
}

static void group_merge(struct an_group *d, const struct an_group *s)
{
	d->events += s->events;
	if (s->first_ns < d->first_ns)
		d->first_ns = s->first_ns;
	if (s->last_ns > d->last_ns)
		d->last_ns = s->last_ns;
	for (unsigned int i = 0; i < AN_DEPTH_BINS; i++)
		d->depth[i] += s->depth[i];
	for (unsigned int op = 0; op < IO_OP__COUNT; op++)
		an_op_add(&d->op[op], &s->op[op]);
}

/* dst's group for src's group g: one ungrouped analysis each merge into one; else by name. */
static struct an_group *group_for(struct analysis *dst, const struct analysis *src,
				  const struct an_group *g, bool overflow)
{
	if (dst->group_by == AN_GROUP_NONE && src->group_by == AN_GROUP_NONE) {
		if (!dst->ngroups) {
			an_group_init(&dst->groups[0], dst->name, 0);
			dst->ngroups = 1;
		}
		return &dst->groups[0];
	}
	for (unsigned int i = 0; i < dst->ngroups && !overflow; i++)
		if (!strcmp(dst->groups[i].name, g->name))
			return &dst->groups[i];
	if (overflow || dst->ngroups == AN_MAX_GROUPS) {
		if (!dst->groups_overflow) {
			an_group_init(&dst->groups[AN_MAX_GROUPS], "other", UINT64_MAX);
			dst->groups_overflow = true;
		}
		return &dst->groups[AN_MAX_GROUPS];
	}
	an_group_init(&dst->groups[dst->ngroups], g->name, g->key);
	return &dst->groups[dst->ngroups++];
}

/*
 * dst's device index for src's device d, added to dst's table by name when new. A device of
 * another host is "host:name": /dev/md1 on two hosts is two devices.
 */
static int device_for(struct analysis *dst, const struct analysis *src, unsigned int d)
{
	const char *name =
	    src->has_meta && d < src->meta.ndevices ? src->meta.devices[d].name : NULL;
	char key[sizeof(dst->meta.devices[0].name)];

	if (name && dst->has_meta && strcmp(src->meta.host, dst->meta.host)) {
		snprintf(key, sizeof(key), "%.20s:%.42s", src->meta.host, name);
		name = key;
	}
	if (!name || !dst->has_meta)
		return d < TRACE_MAX_DEVICES ? (int)d : -ENOSPC;
	for (unsigned int i = 0; i < dst->meta.ndevices; i++)
		if (!strcmp(dst->meta.devices[i].name, name))
			return (int)i;
	if (dst->meta.ndevices >= TRACE_MAX_DEVICES)
		return -ENOSPC;
	dst->meta.devices[dst->meta.ndevices] = src->meta.devices[d];
	snprintf(dst->meta.devices[dst->meta.ndevices].name, sizeof(key), "%s", name);
	return (int)dst->meta.ndevices++;
}

static void grid_merge(struct analysis *d, const struct analysis *s)
{
	/* Both on the coarser of the two grids: columns are 2^tshift ns, rows 2^oshift bytes. */
	unsigned int ts = s->grid_tshift > d->grid_tshift ? s->grid_tshift : d->grid_tshift;
	unsigned int os = s->grid_oshift > d->grid_oshift ? s->grid_oshift : d->grid_oshift;

	while (d->grid_tshift < ts)
		an_grid_coarsen_time(d);
	while (d->grid_oshift < os)
		an_grid_coarsen_offset(d);
	for (unsigned int r = 0; r < AN_GRID_ROWS; r++)
		for (unsigned int c = 0; c < AN_GRID_COLS; c++)
			d->grid[(r << s->grid_oshift) >> os][(c << s->grid_tshift) >> ts] +=
			    s->grid[r][c];
	for (unsigned int c = 0; c < AN_GRID_COLS; c++) {
		d->col_ios[(c << s->grid_tshift) >> ts] += s->col_ios[c];
		d->col_bytes[(c << s->grid_tshift) >> ts] += s->col_bytes[c];
	}
}

int analysis__merge(struct analysis *dst, const struct analysis *src)
{
	an_finish(src);
	an_finish(dst);
	if (!dst->has_meta && !dst->included && src->has_meta) {
		/* an empty sum takes its header from the first analysis; devices come by name */
		dst->meta = src->meta;
		dst->meta.ndevices = 0;
		dst->has_meta = true;
		dst->unscheduled = src->unscheduled;
	}
	for (unsigned int k = 0; k <= AN_MAX_GROUPS; k++) {
		bool overflow = k == AN_MAX_GROUPS;

		if (k >= src->ngroups && !(overflow && src->groups_overflow))
			continue;
		group_merge(group_for(dst, src, &src->groups[k], overflow), &src->groups[k]);
	}
	for (unsigned int d = 0; d < TRACE_MAX_DEVICES; d++) {
		int i;

		if (!src->dev_ios[d])
			continue;
		i = device_for(dst, src, d);
		if (i < 0)
			return i;
		dst->dev_ios[i] += src->dev_ios[d];
		dst->dev_bytes[i] += src->dev_bytes[d];
	}
	dst->events += src->events;
	dst->included += src->included;
	dst->no_completion += src->no_completion;
	dst->clat_from_issue += src->clat_from_issue;
	dst->clat_from_queue += src->clat_from_queue;
	dst->damaged_chunks += src->damaged_chunks;
	if (src->first_ns < dst->first_ns)
		dst->first_ns = src->first_ns;
	if (src->last_ns > dst->last_ns)
		dst->last_ns = src->last_ns;
	if (src->max_end > dst->max_end)
		dst->max_end = src->max_end;
	dst->depth_approx |= src->depth_approx;
	dst->replay |= src->replay;
	grid_merge(dst, src);
	return 0;
}

/* ---- as bytes ---- */

#define PACK_MAGIC 0x4e414f49u /* "IOAN" read as a little-endian u32 */
#define PACK_VERSION 1

struct wbuf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

static void put(struct wbuf *w, const void *v, size_t n)
{
	if (w->oom)
		return;
	if (w->len + n > w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 65536;
		uint8_t *p;

		while (cap < w->len + n)
			cap *= 2;
		p = realloc(w->p, cap);
		if (!p) {
			w->oom = true;
			return;
		}
		w->p = p;
		w->cap = cap;
	}
	memcpy(w->p + w->len, v, n);
	w->len += n;
}

static void put_u64(struct wbuf *w, uint64_t v)
{
	put(w, &v, sizeof(v));
}

static void put_str(struct wbuf *w, const char *s)
{
	uint32_t n = (uint32_t)strlen(s);

	put(w, &n, sizeof(n));
	put(w, s, n);
}

static void put_u128(struct wbuf *w, unsigned __int128 v)
{
	put_u64(w, (uint64_t)v);
	put_u64(w, (uint64_t)(v >> 64));
}

/* count, min, max and the non-empty buckets: a few hundred bytes, not 30 KiB. */
static void put_hist(struct wbuf *w, const struct hist *h)
{
	uint64_t nz = 0;

	put_u64(w, h->count);
	put_u64(w, h->min);
	put_u64(w, h->max);
	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		nz += h->bucket[i] != 0;
	put_u64(w, nz);
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		if (!h->bucket[i])
			continue;
		put_u64(w, i);
		put_u64(w, h->bucket[i]);
	}
}

static void put_group(struct wbuf *w, const struct an_group *g)
{
	put_str(w, g->name);
	put_u64(w, g->key);
	put_u64(w, g->events);
	put_u64(w, g->first_ns);
	put_u64(w, g->last_ns);
	put(w, g->depth, sizeof(g->depth));
	for (unsigned int op = 0; op < IO_OP__COUNT; op++) {
		const struct an_op *o = &g->op[op];

		put_u64(w, o->ios);
		put_u64(w, o->bytes);
		put_u64(w, o->errors);
		put_u64(w, o->seq);
		put_hist(w, &o->slat);
		put_hist(w, &o->clat);
		put_hist(w, &o->lat);
		put_u128(w, o->slat_s.sum);
		put_u128(w, o->slat_s.sumsq);
		put_u128(w, o->clat_s.sum);
		put_u128(w, o->clat_s.sumsq);
		put_u128(w, o->lat_s.sum);
		put_u128(w, o->lat_s.sumsq);
		put(w, o->lat_bins, sizeof(o->lat_bins));
		put(w, o->bs, sizeof(o->bs));
		put(w, o->bs_bytes, sizeof(o->bs_bytes));
	}
}

int analysis__pack(const struct analysis *a, void **buf, size_t *len)
{
	struct wbuf w = {0};
	uint64_t flags = (uint64_t)a->has_meta | (uint64_t)a->replay << 1 |
			 (uint64_t)a->unscheduled << 2 | (uint64_t)a->depth_approx << 3 |
			 (uint64_t)a->json_bins << 4;

	an_finish(a);
	put_u64(&w, PACK_MAGIC);
	put_u64(&w, PACK_VERSION);
	put_str(&w, a->name);
	put_u64(&w, flags);
	put_u64(&w, (uint64_t)a->group_by);
	put_u64(&w, a->npct);
	put(&w, a->pct, a->npct * sizeof(a->pct[0]));
	put_str(&w, a->meta.source);
	put_str(&w, a->meta.host);
	put_u64(&w, a->meta.genesis_realtime_ns);
	put_u64(&w, a->meta.mode);
	put_u64(&w, a->meta.ndevices);
	for (unsigned int d = 0; d < a->meta.ndevices; d++) {
		put_str(&w, a->meta.devices[d].name);
		put_u64(&w, a->meta.devices[d].size_bytes);
		put_u64(&w, a->meta.devices[d].logical_block_size);
	}
	put_u64(&w, a->events);
	put_u64(&w, a->included);
	put_u64(&w, a->no_completion);
	put_u64(&w, a->clat_from_issue);
	put_u64(&w, a->clat_from_queue);
	put_u64(&w, a->first_ns);
	put_u64(&w, a->last_ns);
	put_u64(&w, a->damaged_chunks);
	put_u64(&w, a->max_end);
	put(&w, a->dev_ios, sizeof(a->dev_ios));
	put(&w, a->dev_bytes, sizeof(a->dev_bytes));
	put_u64(&w, a->grid_tshift);
	put_u64(&w, a->grid_oshift);
	put(&w, a->grid, sizeof(a->grid));
	put(&w, a->col_ios, sizeof(a->col_ios));
	put(&w, a->col_bytes, sizeof(a->col_bytes));
	put_u64(&w, a->ngroups);
	put_u64(&w, a->groups_overflow);
	for (unsigned int k = 0; k < a->ngroups; k++)
		put_group(&w, &a->groups[k]);
	if (a->groups_overflow)
		put_group(&w, &a->groups[AN_MAX_GROUPS]);
	if (w.oom) {
		free(w.p);
		return -ENOMEM;
	}
	*buf = w.p;
	*len = w.len;
	return 0;
}

struct rbuf {
	const uint8_t *p;
	size_t len, pos;
	bool bad;
};

static void get(struct rbuf *r, void *v, size_t n)
{
	if (r->bad || n > r->len - r->pos) {
		r->bad = true;
		memset(v, 0, n);
		return;
	}
	memcpy(v, r->p + r->pos, n);
	r->pos += n;
}

static uint64_t get_u64(struct rbuf *r)
{
	uint64_t v;

	get(r, &v, sizeof(v));
	return v;
}

/* Bounded: a value beyond max marks the buffer bad and reads as 0. */
static uint64_t get_max(struct rbuf *r, uint64_t max)
{
	uint64_t v = get_u64(r);

	if (v > max) {
		r->bad = true;
		return 0;
	}
	return v;
}

static void get_str(struct rbuf *r, char *s, size_t cap)
{
	uint32_t n;

	get(r, &n, sizeof(n));
	if (r->bad || n >= cap || n > r->len - r->pos) {
		r->bad = true;
		s[0] = '\0';
		return;
	}
	memcpy(s, r->p + r->pos, n);
	s[n] = '\0';
	r->pos += n;
}

static unsigned __int128 get_u128(struct rbuf *r)
{
	uint64_t lo = get_u64(r), hi = get_u64(r);

	return (unsigned __int128)hi << 64 | lo;
}

static void get_hist(struct rbuf *r, struct hist *h)
{
	uint64_t nz;

	hist_init(h);
	h->count = get_u64(r);
	h->min = get_u64(r);
	h->max = get_u64(r);
	nz = get_max(r, HIST_BUCKETS);
	for (uint64_t k = 0; k < nz && !r->bad; k++) {
		uint64_t i = get_max(r, HIST_BUCKETS - 1);

		h->bucket[i] = get_u64(r);
	}
}

static void get_group(struct rbuf *r, struct an_group *g)
{
	get_str(r, g->name, sizeof(g->name));
	g->key = get_u64(r);
	g->events = get_u64(r);
	g->first_ns = get_u64(r);
	g->last_ns = get_u64(r);
	get(r, g->depth, sizeof(g->depth));
	for (unsigned int op = 0; op < IO_OP__COUNT; op++) {
		struct an_op *o = &g->op[op];

		o->ios = get_u64(r);
		o->bytes = get_u64(r);
		o->errors = get_u64(r);
		o->seq = get_u64(r);
		get_hist(r, &o->slat);
		get_hist(r, &o->clat);
		get_hist(r, &o->lat);
		o->slat_s.sum = get_u128(r);
		o->slat_s.sumsq = get_u128(r);
		o->clat_s.sum = get_u128(r);
		o->clat_s.sumsq = get_u128(r);
		o->lat_s.sum = get_u128(r);
		o->lat_s.sumsq = get_u128(r);
		get(r, o->lat_bins, sizeof(o->lat_bins));
		get(r, o->bs, sizeof(o->bs));
		get(r, o->bs_bytes, sizeof(o->bs_bytes));
	}
}

struct analysis *analysis__unpack(const void *buf, size_t len)
{
	struct rbuf r = {.p = buf, .len = len};
	struct analysis *a;
	char name[256];
	uint64_t flags;

	if (get_u64(&r) != PACK_MAGIC || get_u64(&r) != PACK_VERSION) {
		errno = EINVAL;
		return NULL;
	}
	get_str(&r, name, sizeof(name));
	a = analysis__new(NULL, NULL, name);
	if (!a)
		return NULL;
	flags = get_u64(&r);
	a->has_meta = flags & 1;
	a->replay = flags >> 1 & 1;
	a->unscheduled = flags >> 2 & 1;
	a->depth_approx = flags >> 3 & 1;
	a->json_bins = flags >> 4 & 1;
	a->group_by = (int)get_max(&r, AN_GROUP_PID);
	a->npct = (unsigned int)get_max(&r, AN_MAX_PCT);
	get(&r, a->pct, a->npct * sizeof(a->pct[0]));
	get_str(&r, a->meta.source, sizeof(a->meta.source));
	get_str(&r, a->meta.host, sizeof(a->meta.host));
	a->meta.genesis_realtime_ns = get_u64(&r);
	a->meta.mode = (uint32_t)get_u64(&r);
	a->meta.ndevices = (uint32_t)get_max(&r, TRACE_MAX_DEVICES);
	for (unsigned int d = 0; d < a->meta.ndevices; d++) {
		get_str(&r, a->meta.devices[d].name, sizeof(a->meta.devices[d].name));
		a->meta.devices[d].size_bytes = get_u64(&r);
		a->meta.devices[d].logical_block_size = (uint32_t)get_u64(&r);
	}
	a->events = get_u64(&r);
	a->included = get_u64(&r);
	a->no_completion = get_u64(&r);
	a->clat_from_issue = get_u64(&r);
	a->clat_from_queue = get_u64(&r);
	a->first_ns = get_u64(&r);
	a->last_ns = get_u64(&r);
	a->damaged_chunks = get_u64(&r);
	a->max_end = get_u64(&r);
	get(&r, a->dev_ios, sizeof(a->dev_ios));
	get(&r, a->dev_bytes, sizeof(a->dev_bytes));
	a->grid_tshift = (unsigned int)get_max(&r, 63);
	a->grid_oshift = (unsigned int)get_max(&r, 63);
	get(&r, a->grid, sizeof(a->grid));
	get(&r, a->col_ios, sizeof(a->col_ios));
	get(&r, a->col_bytes, sizeof(a->col_bytes));
	a->ngroups = (unsigned int)get_max(&r, AN_MAX_GROUPS);
	a->groups_overflow = get_max(&r, 1);
	for (unsigned int k = 0; k < a->ngroups && !r.bad; k++)
		get_group(&r, &a->groups[k]);
	if (a->groups_overflow && !r.bad)
		get_group(&r, &a->groups[AN_MAX_GROUPS]);
	if (r.bad || r.pos != r.len) {
		analysis__free(a);
		errno = EINVAL;
		return NULL;
	}
	return a;
}

void analysis__set_bins(struct analysis *a, bool on)
{
	a->json_bins = on;
}
