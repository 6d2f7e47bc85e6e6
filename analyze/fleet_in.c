// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `ioreel analyze FLEET.json`: the report of ioreel-mpi (fio's client-mode JSON) read back as
 * analyses, so a fleet's run compares with recordings and single-host replays (--compare,
 * --html) like any trace. The sum ("jobs") comes first, then each rank ("client_stats").
 *
 * What comes back exactly: counts, bytes, errors, block sizes, the span, and every histogram
 * bucket for bucket from its "bins" (so percentiles are the fleet's own); means and standard
 * deviations to the digits printed. What comes back approximately: the sequential share and
 * the depth distribution (printed as percentages), and fio's latency_ns/us/ms bins (rebuilt
 * from the lat buckets, each counted at its midpoint). There are no events, so no time series,
 * heatmap or --from/--to.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "analyze/analysis_int.h"
#include "analyze/json_in.h"

#define MAX_REPORT (1ULL << 30)

bool an_is_json_file(const char *path)
{
	struct stat st;
	FILE *f;
	int c = EOF;

	/* only a regular file is looked into: a named pipe would block the open until a writer
	 * came and lose the bytes read; the trace reader then says what it is */
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	f = fopen(path, "r");
	if (!f)
		return false;
	do
		c = fgetc(f);
	while (c == ' ' || c == '\n' || c == '\r' || c == '\t');
	fclose(f);
	return c == '{';
}

static int read_all(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	long size;

	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", path, strerror(e));
		if (f)
			fclose(f);
		return -e;
	}
	if ((uint64_t)size > MAX_REPORT) {
		snprintf(err, errlen, "%s: %ld bytes: more than a fleet report holds", path, size);
		fclose(f);
		return -EFBIG;
	}
	*text = malloc((size_t)size + 1);
	if (!*text || fread(*text, 1, (size_t)size, f) != (size_t)size) {
		snprintf(err, errlen, "%s: %s", path, *text ? "read error" : "out of memory");
		free(*text);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	*len = (size_t)size;
	return 0;
}

/* One of slat_ns, clat_ns, lat_ns: buckets from "bins", sums from mean and stddev. */
static int load_hist(const struct jv *st, struct hist *h, struct an_sums *s, char *err,
		     size_t errlen)
{
	const struct jv *bins = jv_get(st, "bins");
	uint64_t n = jv_u64(jv_get(st, "N")), seen = 0;
	double mean = jv_num(jv_get(st, "mean")), sd = jv_num(jv_get(st, "stddev"));
	long double sum, m2;

	hist_init(h);
	memset(s, 0, sizeof(*s));
	if (!n)
		return 0;
	if (!bins || bins->type != JV_OBJECT) {
		snprintf(err, errlen,
			 "a histogram has no \"bins\": only reports written with them "
			 "(ioreel-mpi, analyze --json --bins) can be read back");
		return -EINVAL;
	}
	for (size_t i = 0; i < bins->n; i++) {
		uint64_t v = strtoull(bins->keys[i], NULL, 10), c = jv_u64(bins->items[i]);

		h->bucket[hist_bucket_of(v)] += c;
		seen += c;
	}
	if (seen != n) {
		snprintf(err, errlen, "a histogram's bins hold %llu values, its N says %llu",
			 (unsigned long long)seen, (unsigned long long)n);
		return -EINVAL;
	}
	h->count = n;
	h->min = jv_u64(jv_get(st, "min"));
	h->max = jv_u64(jv_get(st, "max"));
	sum = roundl((long double)mean * (long double)n);
	m2 = (long double)sd * sd * (long double)(n > 1 ? n - 1 : 0);
	s->sum = (unsigned __int128)sum;
	s->sumsq = (unsigned __int128)(m2 + sum * sum / (long double)n);
	return 0;
}

/* fio's latency_ns/us/ms bins again, each bucket of lat (else clat) at its midpoint. */
static void lat_bins(struct an_op *o)
{
	const struct hist *h = o->lat.count ? &o->lat : &o->clat;

	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		if (h->bucket[i])
			o->lat_bins[an_lat_bin(hist_bucket_low(i) / 2 + hist_bucket_high(i) / 2)] +=
			    h->bucket[i];
}

static int load_op(const struct jv *job, unsigned int op, struct an_op *o, char *err, size_t errlen)
{
	const struct jv *io = jv_get(job, "ioreel");
	const struct jv *dir =
	    an_fio_op_key(op) ? jv_get(job, an_fio_op_key(op)) : jv_get(io, "write_zeroes");
	const struct jv *ops = jv_get(jv_get(io, "ops"), an_op_label(op));
	const struct jv *bs = jv_get(ops, "bs");
	int ret;

	if (!dir)
		return 0;
	o->ios = jv_u64(jv_get(dir, "total_ios"));
	o->bytes = jv_u64(jv_get(dir, "io_bytes"));
	ret = load_hist(jv_get(dir, "slat_ns"), &o->slat, &o->slat_s, err, errlen);
	if (!ret)
		ret = load_hist(jv_get(dir, "clat_ns"), &o->clat, &o->clat_s, err, errlen);
	if (!ret)
		ret = load_hist(jv_get(dir, "lat_ns"), &o->lat, &o->lat_s, err, errlen);
	if (ret)
		return ret;
	o->errors = jv_u64(jv_get(ops, "errors"));
	o->seq = (uint64_t)llround(jv_num(jv_get(ops, "seq_pct")) * (double)o->ios / 100.0);
	for (size_t i = 0; bs && bs->type == JV_OBJECT && i < bs->n; i++) {
		uint64_t hi = strtoull(bs->keys[i], NULL, 10);
		unsigned int b = hi ? 64u - (unsigned int)__builtin_clzll(hi) : 0;

		if (b >= AN_BS_BINS) /* keyed by the bin's upper bound: 2^(b-1) */
			continue;
		o->bs[b] += jv_u64(bs->items[i]);
		o->bs_bytes[b] += jv_u64(bs->items[i]) * hi; /* lengths unknown: at the bound */
	}
	lat_bins(o);
	return 0;
}

static struct analysis *load_job(const struct jv *job, const char *name, const char *host,
				 char *err, size_t errlen)
{
	const struct jv *io = jv_get(job, "ioreel"), *depth = jv_get(job, "iodepth_level");
	struct trace_meta *meta = calloc(1, sizeof(*meta));
	struct analysis *a = NULL;
	struct an_group *g;
	uint64_t done = 0;

	if (!meta) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	trace_meta_init(meta, "ioreel-mpi");
	snprintf(meta->host, sizeof(meta->host), "%s", host);
	a = analysis__new(NULL, meta, name);
	free(meta);
	if (!a) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	a->replay = !strncmp(jv_str(jv_get(io, "slat_meaning")), "lateness", 8);
	g = &a->groups[0];
	an_group_init(g, name, 0);
	a->ngroups = 1;
	for (unsigned int op = 0; op < IO_OP__COUNT; op++) {
		if (load_op(job, op, &g->op[op], err, errlen)) {
			analysis__free(a);
			return NULL;
		}
		g->events += g->op[op].ios;
		done += g->op[op].lat.count ? g->op[op].lat.count : g->op[op].clat.count;
	}
	a->events = a->included = g->events;
	a->no_completion = g->events - done;
	if (!strncmp(jv_str(jv_get(io, "clat_meaning")), "queue", 5))
		a->clat_from_queue = done;
	else
		a->clat_from_issue = done;
	a->first_ns = g->first_ns = jv_u64(jv_get(io, "first_ns"));
	a->last_ns = g->last_ns = a->first_ns + jv_u64(jv_get(io, "duration_ns"));
	a->depth_approx = true; /* from percentages */
	for (unsigned int i = 0; i < AN_DEPTH_BINS && depth; i++)
		g->depth[i] = (uint64_t)llround(jv_num(jv_get(depth, an_depth_label(i))) *
						(double)done / 100.0);
	return a;
}

int an_from_fleet_json(const char *path, struct analysis **out, unsigned int max, char *err,
		       size_t errlen)
{
	const struct jv *jobs, *clients;
	char *text = NULL, perr[200];
	struct jv *doc;
	size_t len = 0;
	unsigned int n = 0;
	int ret = read_all(path, &text, &len, err, errlen);

	if (ret)
		return ret;
	doc = jv_parse(text, len, perr, sizeof(perr));
	free(text);
	if (!doc) {
		snprintf(err, errlen, "%s: not a JSON document: %s", path, perr);
		return -EINVAL;
	}
	jobs = jv_get(doc, "jobs");
	clients = jv_get(doc, "client_stats");
	if (!jobs || jobs->type != JV_ARRAY || !jobs->n) {
		snprintf(err, errlen,
			 "%s: JSON without \"jobs\": not a report of ioreel-mpi or "
			 "ioreel analyze --json",
			 path);
		ret = -EINVAL;
		goto out;
	}
	for (size_t i = 0; i < jobs->n + (clients ? clients->n : 0); i++) {
		const struct jv *job = i < jobs->n ? jobs->items[i] : clients->items[i - jobs->n];
		char name[256], why[300] = "";
		const char *host = jv_str(jv_get(job, "hostname"));

		if (n == max) {
			snprintf(err, errlen, "%s: more jobs and ranks than %u at once", path, max);
			ret = -E2BIG;
			goto out;
		}
		snprintf(name, sizeof(name), "%s", jv_str(jv_get(job, "jobname")));
		out[n] = load_job(job, name, *host ? host : "fleet", why, sizeof(why));
		if (!out[n]) {
			snprintf(err, errlen, "%s: %s \"%s\": %s", path,
				 i < jobs->n ? "job" : "rank", name, why);
			ret = -EINVAL;
			goto out;
		}
		n++;
	}
	ret = (int)n;
out:
	if (ret < 0)
		while (n)
			analysis__free(out[--n]);
	jv_free(doc);
	return ret;
}
