// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Aggregation: one pass over the events, fixed memory. Everything a report prints is derived
 * from the histograms and counters kept here (analysis_int.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/analysis_int.h"
#include "util/heap.h"

const double an_default_pct[17] = { 1,	5,  10, 20, 30,	  40,	50,    60,   70,
				    80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99 };

void an_group_init(struct an_group *g, const char *name, uint64_t key)
{
	memset(g, 0, sizeof(*g));
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->key = key;
	g->first_ns = UINT64_MAX;
	for (unsigned int i = 0; i < IO_OP__COUNT; i++) {
		hist_init(&g->op[i].slat);
		hist_init(&g->op[i].clat);
		hist_init(&g->op[i].lat);
	}
}

/* hist_bucket_of() inlined for the hot path (the unit test checks that the two agree). */
static inline unsigned int bucket_of(uint64_t v)
{
	const unsigned int sub = 1u << HIST_SUB_BITS;

	if (v < 2 * sub)
		return (unsigned int)v;
	unsigned int shift = (63 - (unsigned int)__builtin_clzll(v)) - HIST_SUB_BITS;
	return (shift + 1) * sub + (unsigned int)((v >> shift) - sub);
}

unsigned int an_bucket_of(uint64_t v)
{
	return bucket_of(v);
}

static inline void fast_add(struct hist *h, struct an_sums *s, uint64_t v)
{
	h->bucket[bucket_of(v)]++;
	h->count++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	s->sum += v;
	s->sumsq += (unsigned __int128)v * v;
}

static void sums_to_hist(struct hist *h, const struct an_sums *s)
{
	if (!h->count) {
		h->mean = h->m2 = 0;
		return;
	}
	long double n = (long double)h->count, sum = (long double)s->sum;
	long double m2 = (long double)s->sumsq - sum * sum / n;
	h->mean = (double)(sum / n);
	h->m2 = m2 > 0 ? (double)m2 : 0;
}

struct analysis *analysis__new(const struct analyze_opts *opts, const struct trace_meta *meta,
			       const char *name)
{
	struct analysis *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->groups = calloc(AN_MAX_GROUPS + 1, sizeof(*a->groups));
	a->heap = malloc(AN_DEPTH_CAP * sizeof(*a->heap));
	a->pend = malloc(AN_REORDER * sizeof(*a->pend));
	if (!a->groups || !a->heap || !a->pend)
		goto nomem;
	if (opts)
		a->opts = *opts;
	else
		a->opts.device = -1;
	if (a->opts.percentiles && a->opts.npercentiles) {
		a->npct = a->opts.npercentiles > AN_MAX_PCT ? AN_MAX_PCT : a->opts.npercentiles;
		memcpy(a->pct, a->opts.percentiles, a->npct * sizeof(double));
	} else {
		a->npct = 17;
		memcpy(a->pct, an_default_pct, sizeof(an_default_pct));
	}
	a->opts.percentiles = NULL; /* the caller's array need not outlive us: a->pct is used */
	snprintf(a->name, sizeof(a->name), "%s", name ? name : "trace");
	if (meta) {
		a->meta = *meta;
		a->has_meta = true;
		a->replay = !strncmp(meta->source, "replay", 6);
		a->unscheduled = meta->mode == TRACE_MODE_CLOSED;
	}
	a->first_ns = UINT64_MAX;
	if (a->opts.interval_ns) {
		a->iv = calloc(AN_MAX_INTERVALS, sizeof(*a->iv));
		if (!a->iv)
			goto nomem;
		a->iv_width = a->opts.interval_ns;
		a->iv_base = a->opts.from_ns;
		a->iv_cur_lo = UINT64_MAX - a->iv_width; /* no cached interval yet */
	}
	/* Start fine and coarsen as the trace grows: ~1 ms columns, rows from the device size. */
	a->grid_tshift = 20;
	uint64_t size = 0;
	for (unsigned int i = 0; a->has_meta && i < meta->ndevices && i < TRACE_MAX_DEVICES; i++)
		if (meta->devices[i].size_bytes > size)
			size = meta->devices[i].size_bytes;
	a->grid_oshift = 12;
	while (size && (size - 1) >> a->grid_oshift >= AN_GRID_ROWS)
		a->grid_oshift++;
	return a;
nomem:
	analysis__free(a);
	errno = ENOMEM;
	return NULL;
}

void analysis__set_name(struct analysis *a, const char *name)
{
	snprintf(a->name, sizeof(a->name), "%s", name);
	if (a->group_by == AN_GROUP_NONE && a->ngroups == 1) /* its one job is the trace */
		snprintf(a->groups[0].name, sizeof(a->groups[0].name), "%.63s", name);
}

void analysis__free(struct analysis *a)
{
	if (!a)
		return;
	free(a->groups);
	free(a->heap);
	free(a->pend);
	free(a->iv);
	an_flevel_free(a->fl);
	free(a);
}

/* Tells the grid how long the trace is, so its columns start at the right width. */
void an_span_hint(struct analysis *a, uint64_t last_ns)
{
	uint64_t span = last_ns > a->opts.from_ns ? last_ns - a->opts.from_ns : 0;

	if (a->opts.to_ns && a->opts.to_ns > a->opts.from_ns && a->opts.to_ns - a->opts.from_ns < span)
		span = a->opts.to_ns - a->opts.from_ns;
	if (a->included)
		return; /* too late: the grid already holds data at its current width */
	a->grid_tshift = 0;
	while (span >> a->grid_tshift >= AN_GRID_COLS)
		a->grid_tshift++;
}

static struct an_group *group_of(struct analysis *a, const struct io_event *e)
{
	uint64_t key;
	char name[64];

	switch (a->group_by) {
	case AN_GROUP_OP:
		key = e->op;
		break;
	case AN_GROUP_DEVICE:
		key = e->dev;
		break;
	case AN_GROUP_PID:
		key = e->pid;
		break;
	case AN_GROUP_COMM:
		key = 0;
		memcpy(&key, e->comm, sizeof(key)); /* a quick filter; names are compared below */
		break;
	default:
		if (!a->ngroups) {
			an_group_init(&a->groups[0], a->name, 0);
			a->ngroups = 1;
		}
		return &a->groups[0];
	}
	for (unsigned int i = 0; i < a->ngroups; i++) {
		struct an_group *g = &a->groups[i];
		if (g->key != key)
			continue;
		if (a->group_by != AN_GROUP_COMM || !strncmp(g->name, e->comm, IO_COMM_LEN))
			return g;
	}
	if (a->ngroups == AN_MAX_GROUPS) {
		struct an_group *o = &a->groups[AN_MAX_GROUPS];
		if (!a->groups_overflow) {
			an_group_init(o, "other", UINT64_MAX);
			a->groups_overflow = true;
		}
		return o;
	}
	switch (a->group_by) {
	case AN_GROUP_OP:
		snprintf(name, sizeof(name), "%s", an_op_label(e->op));
		break;
	case AN_GROUP_DEVICE:
		if (a->has_meta && e->dev < a->meta.ndevices && a->meta.devices[e->dev].name[0])
			snprintf(name, sizeof(name), "%s", a->meta.devices[e->dev].name);
		else
			snprintf(name, sizeof(name), "dev%u", e->dev);
		break;
	case AN_GROUP_PID:
		snprintf(name, sizeof(name), "pid %u (%.*s)", e->pid, IO_COMM_LEN, e->comm);
		break;
	default:
		snprintf(name, sizeof(name), "%.*s", IO_COMM_LEN, e->comm);
		break;
	}
	an_group_init(&a->groups[a->ngroups], name, key);
	return &a->groups[a->ngroups++];
}

/* fio's latency buckets: each label is the exclusive upper bound of its bin (stat.c). */
static const uint32_t lat_edges[10] = { 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000 };

static uint8_t edge_tab[1000]; /* edge_index for 0..999, built once: a lookup, not a loop */

static unsigned int edge_index(uint64_t v)
{
	if (!edge_tab[999]) {
		for (unsigned int x = 0, i = 0; x < 1000; x++) {
			while (i < 9 && x >= lat_edges[i])
				i++;
			edge_tab[x] = (uint8_t)i;
		}
	}
	return edge_tab[v];
}

unsigned int an_lat_bin(uint64_t ns)
{
	if (ns < 1000)
		return edge_index(ns);
	if (ns < 1000000)
		return 10 + edge_index(ns / 1000);
	uint64_t ms = ns / 1000000;
	if (ms < 1000)
		return 20 + edge_index(ms);
	return ms < 2000 ? 30 : 31;
}

static unsigned int depth_bin(unsigned int d)
{
	unsigned int i = 0;

	while (i < AN_DEPTH_BINS - 1 && d >= (2u << i))
		i++;
	return i;
}

/* Completion times in flight; equal times are interchangeable, so any heap order is exact. */
#define DONE_KEY(t) (t)
HEAP_DEFINE(doneheap, uint64_t, DONE_KEY)

static void heap_pop(struct analysis *a)
{
	uint64_t gone;

	doneheap_pop(a->heap, &a->heap_len, &gone);
}

/*
 * Depth at issue, as fio counts it (this I/O included): I/Os issued before and completing after.
 * Exact when events come in issue order, which recorded and replayed traces nearly are.
 */
static void depth_at(struct analysis *a, const struct an_pending *p)
{
	if (p->issue < a->last_issue_ns)
		a->depth_approx = true; /* older than the window: earlier pops were too eager */
	else
		a->last_issue_ns = p->issue;
	unsigned int d;
	if (a->heap_len && a->heap[0] <= p->issue && p->complete > p->issue) {
		/* The common case at a steady depth: one completed, this one takes its place. */
		doneheap_replace_top(a->heap, a->heap_len, &p->complete);
		while (a->heap[0] <= p->issue)
			heap_pop(a); /* cannot empty it: this I/O's completion is > issue */
		d = a->heap_len;
	} else {
		while (a->heap_len && a->heap[0] <= p->issue)
			heap_pop(a);
		d = a->heap_len + 1;
		if (a->heap_len < AN_DEPTH_CAP)
			doneheap_push(a->heap, &a->heap_len, &p->complete);
		else
			a->depth_approx = true;
	}
	a->groups[p->group].depth[depth_bin(d)]++;
}

static void depth_feed(struct analysis *a, uint64_t issue, uint64_t complete, uint32_t group)
{
	const unsigned int mask = AN_REORDER - 1;
	struct an_pending *b = a->pend;

	if (a->pend_len == AN_REORDER) {
		depth_at(a, &b[a->pend_head]);
		a->pend_head = (a->pend_head + 1) & mask;
		a->pend_len--;
	}
	unsigned int j = a->pend_len, steps = 0;
	while (j && b[(a->pend_head + j - 1) & mask].issue > issue) {
		if (++steps > AN_REORDER_STEPS) {
			/* Far out of order (an unsorted import): count it now, flagged approximate. */
			struct an_pending p = { issue, complete, group };
			depth_at(a, &p);
			a->depth_approx = true;
			return;
		}
		j--;
	}
	for (unsigned int k = a->pend_len; k > j; k--)
		b[(a->pend_head + k) & mask] = b[(a->pend_head + k - 1) & mask];
	b[(a->pend_head + j) & mask] = (struct an_pending){ issue, complete, group };
	a->pend_len++;
}

void an_finish(const struct analysis *ca)
{
	struct analysis *a = (struct analysis *)ca;

	for (unsigned int k = 0; k <= AN_MAX_GROUPS; k++) {
		if (k >= a->ngroups && !(k == AN_MAX_GROUPS && a->groups_overflow))
			continue;
		for (unsigned int op = 0; op < IO_OP__COUNT; op++) {
			struct an_op *o = &a->groups[k].op[op];
			sums_to_hist(&o->slat, &o->slat_s);
			sums_to_hist(&o->clat, &o->clat_s);
			sums_to_hist(&o->lat, &o->lat_s);
		}
	}

	while (a->pend_len) {
		depth_at(a, &a->pend[a->pend_head]);
		a->pend_head = (a->pend_head + 1) & (AN_REORDER - 1);
		a->pend_len--;
	}
}

static unsigned int ih_bucket(uint64_t v)
{
	if (v < (2u << AN_IH_SUB))
		return (unsigned int)v;
	unsigned int msb = 63 - __builtin_clzll(v);
	if (msb > AN_IH_MAXMSB)
		return AN_IH_BUCKETS - 1;
	unsigned int shift = msb - AN_IH_SUB;
	return (shift + 1) * (1u << AN_IH_SUB) + (unsigned int)((v >> shift) - (1u << AN_IH_SUB));
}

static uint64_t ih_mid(unsigned int idx)
{
	const unsigned int sub = 1u << AN_IH_SUB;

	if (idx < 2 * sub)
		return idx;
	unsigned int shift = idx / sub - 1;
	uint64_t lo = (uint64_t)(idx % sub + sub) << shift;
	return lo + ((1ULL << shift) - 1) / 2;
}

uint64_t an_iv_total(const struct an_interval *iv)
{
	return iv->ios[0] + iv->ios[1] + iv->ios[2];
}

uint64_t an_iv_percentile(const struct an_interval *iv, double p)
{
	uint64_t n = 0, seen = 0;

	for (unsigned int i = 0; i < AN_IH_BUCKETS; i++)
		n += iv->lat[i];
	if (!n)
		return 0;
	uint64_t rank = (uint64_t)(p / 100.0 * (double)n + 0.999999);
	if (rank < 1)
		rank = 1;
	for (unsigned int i = 0; i < AN_IH_BUCKETS; i++) {
		seen += iv->lat[i];
		if (seen >= rank)
			return ih_mid(i);
	}
	return 0;
}

static void iv_add(struct analysis *a, uint64_t t, const struct io_event *e, uint64_t lat,
		   bool has_lat)
{
	if (t < a->iv_base)
		return;
	uint64_t idx;
	/* Events come nearly in time order: reuse the last interval's index, skip the division. */
	if (t >= a->iv_cur_lo && t < a->iv_cur_lo + a->iv_width) {
		idx = a->iv_cur;
		goto found;
	}
	idx = (t - a->iv_base) / a->iv_width;
	while (idx >= AN_MAX_INTERVALS) {
		/* Bounded memory: halve the resolution by merging neighbours. */
		for (unsigned int k = 0; k < AN_MAX_INTERVALS / 2; k++) {
			struct an_interval *d = &a->iv[k], *x = &a->iv[2 * k], *y = &a->iv[2 * k + 1];
			struct an_interval m = *x;
			for (unsigned int j = 0; j < 3; j++) {
				m.ios[j] += y->ios[j];
				m.bytes[j] += y->bytes[j];
			}
			for (unsigned int j = 0; j < AN_IH_BUCKETS; j++)
				m.lat[j] += y->lat[j];
			*d = m;
		}
		memset(&a->iv[AN_MAX_INTERVALS / 2], 0, AN_MAX_INTERVALS / 2 * sizeof(*a->iv));
		a->iv_width *= 2;
		a->iv_len = (a->iv_len + 1) / 2;
		idx = (t - a->iv_base) / a->iv_width;
	}
	a->iv_cur = idx;
	a->iv_cur_lo = a->iv_base + idx * a->iv_width;
found:;
	struct an_interval *iv = &a->iv[idx];
	unsigned int k = e->op == IO_OP_READ ? 0 : e->op == IO_OP_WRITE ? 1 : 2;
	iv->ios[k]++;
	iv->bytes[k] += e->length;
	if (has_lat)
		iv->lat[ih_bucket(lat)]++;
	if (idx + 1 > a->iv_len)
		a->iv_len = (unsigned int)idx + 1;
}

void an_grid_coarsen_time(struct analysis *a)
{
	for (unsigned int r = 0; r < AN_GRID_ROWS; r++) {
		for (unsigned int c = 0; c < AN_GRID_COLS / 2; c++)
			a->grid[r][c] = a->grid[r][2 * c] + a->grid[r][2 * c + 1];
		memset(&a->grid[r][AN_GRID_COLS / 2], 0, sizeof(a->grid[r]) / 2);
	}
	for (unsigned int c = 0; c < AN_GRID_COLS / 2; c++) {
		a->col_ios[c] = a->col_ios[2 * c] + a->col_ios[2 * c + 1];
		a->col_bytes[c] = a->col_bytes[2 * c] + a->col_bytes[2 * c + 1];
	}
	memset(&a->col_ios[AN_GRID_COLS / 2], 0, sizeof(a->col_ios) / 2);
	memset(&a->col_bytes[AN_GRID_COLS / 2], 0, sizeof(a->col_bytes) / 2);
	a->grid_tshift++;
}

void an_grid_coarsen_offset(struct analysis *a)
{
	for (unsigned int r = 0; r < AN_GRID_ROWS / 2; r++)
		for (unsigned int c = 0; c < AN_GRID_COLS; c++)
			a->grid[r][c] = a->grid[2 * r][c] + a->grid[2 * r + 1][c];
	memset(&a->grid[AN_GRID_ROWS / 2], 0, sizeof(a->grid) / 2);
	a->grid_oshift++;
}

static void grid_add(struct analysis *a, uint64_t t, uint64_t off, uint32_t len, bool cell)
{
	uint64_t rel = t >= a->opts.from_ns ? t - a->opts.from_ns : 0;
	uint64_t col = rel >> a->grid_tshift, row = off >> a->grid_oshift;

	while (col >= AN_GRID_COLS) {
		an_grid_coarsen_time(a);
		col = rel >> a->grid_tshift;
	}
	a->col_ios[col]++;
	a->col_bytes[col] += len;
	if (!cell)
		return;
	while (row >= AN_GRID_ROWS) {
		an_grid_coarsen_offset(a);
		row = off >> a->grid_oshift;
	}
	a->grid[row][col]++;
}

static bool is_seq(struct analysis *a, const struct io_event *e)
{
	unsigned int d = e->dev % TRACE_MAX_DEVICES;
	uint64_t *ends = a->seq_end[d][e->op];
	/* Several sequential streams interleave on a busy device: remember a few recent ends. */
	for (unsigned int i = 0; i < AN_SEQ_WAYS; i++) {
		if (ends[i] == e->offset && e->offset) {
			ends[i] = e->offset + e->length;
			return true;
		}
	}
	ends[a->seq_next[d][e->op]++ % AN_SEQ_WAYS] = e->offset + e->length;
	return false;
}

static void add_one(struct analysis *a, const struct io_event *e)
{
	uint64_t q = e->queue_ns, i = e->issue_ns, c = e->complete_ns;
	uint64_t t = io_event_time(e);

	if (t < a->opts.from_ns || (a->opts.to_ns && t >= a->opts.to_ns))
		return; /* an event without any time (t = IO_TS_NONE) passes only without --to */
	if (a->opts.device >= 0 && e->dev != (uint32_t)a->opts.device)
		return;
	if (e->op >= IO_OP__COUNT)
		return;
	a->included++;

	struct an_group *g = group_of(a, e);
	struct an_op *o = &g->op[e->op];
	o->ios++;
	o->bytes += e->length;
	if (e->error && !o->errors++)
		o->first_error = e->error < 0 ? -e->error : e->error;
	g->events++;

	uint64_t end = t;
	if (i != IO_TS_NONE && i > end)
		end = i;
	if (c != IO_TS_NONE && c > end)
		end = c;
	if (t != IO_TS_NONE) {
		if (t < a->first_ns)
			a->first_ns = t;
		if (end > a->last_ns)
			a->last_ns = end;
		if (t < g->first_ns)
			g->first_ns = t;
		if (end > g->last_ns)
			g->last_ns = end;
	}

	bool has_lat = false;
	uint64_t lat = 0;
	if (q != IO_TS_NONE && i != IO_TS_NONE && i >= q)
		fast_add(&o->slat, &o->slat_s, i - q);
	if (c != IO_TS_NONE) {
		/*
		 * clat starts at issue. Without an issue time (bio level, flush requests, MSR) the
		 * I/O went to the kernel at queue time and nothing separate was seen after: fio's
		 * clat, from its submit call to completion, is then queue to completion, so clat
		 * holds it too and a fio reader finds it under clat_ns (analyze/README.md).
		 */
		if (i != IO_TS_NONE && c >= i) {
			fast_add(&o->clat, &o->clat_s, c - i);
			a->clat_from_issue++;
		} else if (i == IO_TS_NONE && q != IO_TS_NONE && c >= q) {
			fast_add(&o->clat, &o->clat_s, c - q);
			a->clat_from_queue++;
		}
		if (q != IO_TS_NONE && c >= q) {
			lat = c - q;
			has_lat = true;
			fast_add(&o->lat, &o->lat_s, lat);
		} else if (i != IO_TS_NONE && c >= i) {
			lat = c - i;
			has_lat = true;
		}
		if (has_lat)
			o->lat_bins[an_lat_bin(lat)]++;
		/* The device sees the I/O from issue (or queue when issue was not observed). */
		uint64_t from = i != IO_TS_NONE ? i : q;
		if (from != IO_TS_NONE && c >= from)
			depth_feed(a, from, c, (uint32_t)(g - a->groups));
	} else {
		a->no_completion++;
	}

	/* Bin i > 0 holds lengths in (2^(i-2), 2^(i-1)]: powers of two get a bin of their own. */
	unsigned int bs = e->length < 2 ? e->length
					  : 65u - (unsigned int)__builtin_clzll((uint64_t)e->length - 1);
	if (bs >= AN_BS_BINS)
		bs = AN_BS_BINS - 1;
	o->bs[bs]++;
	o->bs_bytes[bs] += e->length;
	if (e->length && e->op != IO_OP_FLUSH && is_seq(a, e))
		o->seq++;

	if (e->dev < TRACE_MAX_DEVICES) {
		a->dev_ios[e->dev]++;
		a->dev_bytes[e->dev] += e->length;
	}
	if (a->iv && t != IO_TS_NONE)
		iv_add(a, t, e, lat, has_lat);
	if (t != IO_TS_NONE) {
		grid_add(a, t, e->offset, e->length, e->op != IO_OP_FLUSH);
		if (e->op != IO_OP_FLUSH && e->offset + e->length > a->max_end)
			a->max_end = e->offset + e->length;
	}
}

void analysis__add(struct analysis *a, const struct io_event *ev, size_t n)
{
	a->events += n;
	for (size_t k = 0; k < n; k++)
		add_one(a, &ev[k]);
}

uint64_t an_runtime_ns(const struct analysis *a)
{
	if (a->unscheduled)
		return 0; /* the span of positions in a file is no runtime (synth/PRESETS.md) */
	return a->first_ns != UINT64_MAX && a->last_ns > a->first_ns ? a->last_ns - a->first_ns
								      : 0;
}

const char *an_clat_meaning(const struct analysis *a)
{
	if (!a->clat_from_queue)
		return "issue to completion";
	if (!a->clat_from_issue)
		return "queue to completion (no issue time recorded)";
	return "issue to completion, or queue to completion without an issue time";
}

const char *an_lat_meaning(const struct analysis *a)
{
	return a->replay ? "deadline to completion" : "queue to completion";
}

double an_iops(const struct analysis *a, const struct an_op *o)
{
	uint64_t rt = an_runtime_ns(a);

	return rt ? (double)o->ios * 1e9 / (double)rt : 0.0;
}

double an_bw_bytes(const struct analysis *a, const struct an_op *o)
{
	uint64_t rt = an_runtime_ns(a);

	return rt ? (double)o->bytes * 1e9 / (double)rt : 0.0;
}

void an_total_op(const struct analysis *a, unsigned int op, struct an_op *out)
{
	memset(out, 0, sizeof(*out));
	hist_init(&out->slat);
	hist_init(&out->clat);
	hist_init(&out->lat);
	for (unsigned int k = 0; k <= AN_MAX_GROUPS; k++) {
		if (k >= a->ngroups && !(k == AN_MAX_GROUPS && a->groups_overflow))
			continue;
		an_op_add(out, &a->groups[k].op[op]);
	}
}

/* What the application waited: lat (queue or deadline to completion), else clat (compare.c). */
static const struct hist *waited(const struct an_op *o)
{
	return o->lat.count ? &o->lat : &o->clat;
}

void an_op_lat(const struct analysis *a, unsigned int op, struct hist *out)
{
	hist_init(out);
	for (unsigned int k = 0; k <= AN_MAX_GROUPS; k++) {
		if (k >= a->ngroups && !(k == AN_MAX_GROUPS && a->groups_overflow))
			continue;
		hist_merge(out, waited(&a->groups[k].op[op]));
	}
}

void an_total_lat(const struct analysis *a, struct hist *out)
{
	hist_init(out);
	for (unsigned int k = 0; k <= AN_MAX_GROUPS; k++) {
		if (k >= a->ngroups && !(k == AN_MAX_GROUPS && a->groups_overflow))
			continue;
		for (unsigned int op = 0; op < IO_OP__COUNT; op++)
			hist_merge(out, waited(&a->groups[k].op[op]));
	}
}

const char *an_fio_op_key(unsigned int op)
{
	static const char *const k[IO_OP__COUNT] = { "read", "write", "sync", "trim", NULL };

	return op < IO_OP__COUNT ? k[op] : NULL;
}

const char *an_op_label(unsigned int op)
{
	static const char *const k[IO_OP__COUNT] = { "read", "write", "flush", "trim",
						     "write-zeroes" };

	return op < IO_OP__COUNT ? k[op] : "?";
}

const char *an_lat_bin_label(unsigned int i, const char **unit)
{
	static const char *const l[12] = { "2",	  "4",	 "10",	"20",	"50",	"100",
					   "250", "500", "750", "1000", "2000", ">=2000" };

	*unit = i < 10 ? "ns" : i < 20 ? "us" : "ms";
	return l[i < 20 ? i % 10 : i - 20];
}

const char *an_depth_label(unsigned int i)
{
	static const char *const l[AN_DEPTH_BINS] = { "1", "2", "4", "8", "16", "32", ">=64" };

	return l[i];
}

char *an_bs_label(unsigned int i, char *buf, size_t len)
{
	if (!i) {
		snprintf(buf, len, "0");
		return buf;
	}
	uint64_t hi = 1ULL << (i - 1);
	static const char *const u[] = { "", "k", "m", "g" };
	unsigned int k = 0;
	while (k < 3 && hi >= 1024 && hi % 1024 == 0) {
		hi /= 1024;
		k++;
	}
	snprintf(buf, len, "%llu%s", (unsigned long long)hi, u[k]);
	return buf;
}

