// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `--json`: fio's JSON layout (jobs[].read.iops, bw_bytes, clat_ns.percentile["99.000000"],
 * latency_us, iodepth_level, ...) wherever the meaning is the same, so tools written for fio's
 * output read ours. What fio has no name for lives under "ioreel" keys, and "ioreel_schema"
 * versions the document (bump it when a key changes meaning).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/analysis_int.h"
#include "analyze/report.h"
#include "util/cli.h"

/* 2: clat_ns counts from queue time when an I/O has no issue time (bio level), times added */
#define IOREEL_SCHEMA 2

static void json_stat(FILE *f, const char *key, const struct hist *h, const struct analysis *a,
		      bool pct)
{
	fprintf(f, "\"%s\": {\"min\": %llu, \"max\": %llu, \"mean\": %.6f, \"stddev\": %.6f, "
		   "\"N\": %llu",
		key, (unsigned long long)(h->count ? h->min : 0), (unsigned long long)h->max,
		hist_mean(h), hist_stdev(h), (unsigned long long)h->count);
	if (pct && h->count) {
		fprintf(f, ", \"percentile\": {");
		for (unsigned int i = 0; i < a->npct; i++)
			fprintf(f, "%s\"%f\": %llu", i ? ", " : "", a->pct[i],
				(unsigned long long)hist_percentile(h, a->pct[i]));
		fprintf(f, "}");
	}
	if (a->json_bins && h->count) {
		/* fio's json+: bucket -> count, keyed here by the bucket's lowest value, which
		 * names the bucket exactly (hist_bucket_of) */
		unsigned int shown = 0;

		fprintf(f, ", \"bins\": {");
		for (unsigned int i = 0; i < HIST_BUCKETS; i++)
			if (h->bucket[i])
				fprintf(f, "%s\"%llu\": %llu", shown++ ? ", " : "",
					(unsigned long long)hist_bucket_low(i),
					(unsigned long long)h->bucket[i]);
		fprintf(f, "}");
	}
	fprintf(f, "}");
}

static void json_dir(FILE *f, const struct analysis *a, const struct an_op *o)
{
	double bw = an_bw_bytes(a, o);

	fprintf(f, "{\"io_bytes\": %llu, \"io_kbytes\": %llu, \"bw_bytes\": %llu, \"bw\": %llu, "
		   "\"iops\": %.6f, \"runtime\": %llu, \"total_ios\": %llu, \"short_ios\": 0, "
		   "\"drop_ios\": 0, ",
		(unsigned long long)o->bytes, (unsigned long long)(o->bytes / 1024),
		(unsigned long long)(bw + 0.5), (unsigned long long)(bw / 1024 + 0.5),
		an_iops(a, o), (unsigned long long)(an_runtime_ns(a) / 1000000),
		(unsigned long long)o->ios);
	json_stat(f, "slat_ns", &o->slat, a, a->json_bins);
	fprintf(f, ", ");
	json_stat(f, "clat_ns", &o->clat, a, true);
	fprintf(f, ", ");
	json_stat(f, "lat_ns", &o->lat, a, a->json_bins);
	fprintf(f, "}");
}

static void json_bins(FILE *f, const char *key, const uint64_t *v, unsigned int n, uint64_t total,
		      unsigned int label_base)
{
	const char *unit;

	fprintf(f, "\"%s\": {", key);
	for (unsigned int i = 0; i < n; i++)
		fprintf(f, "%s\"%s\": %.6f", i ? ", " : "", an_lat_bin_label(label_base + i, &unit),
			total ? 100.0 * (double)v[i] / (double)total : 0.0);
	fprintf(f, "}");
}

static void json_job(FILE *f, const struct analysis *a, const struct an_group *g,
		     const char *extra)
{
	uint64_t lat[AN_LAT_BINS] = { 0 }, nlat = 0, ndepth = 0;
	int error = 0;

	/* fio's "error" is the errno that failed the job: here, of a failed I/O (the first of
	 * the first op with any; the counts are in "ioreel"/"ops" and the replay's fidelity) */
	for (unsigned int op = 0; op < IO_OP__COUNT && !error; op++)
		error = g->op[op].first_error;
	fprintf(f, "{\"jobname\": ");
	json_str(f, g->name);
	fprintf(f, ", \"groupid\": 0, \"error\": %d, \"job_runtime\": %llu, \"elapsed\": %llu",
		error, (unsigned long long)(an_runtime_ns(a) / 1000000),
		(unsigned long long)(an_runtime_ns(a) / 1000000000));
	for (unsigned int op = 0; op < IO_OP__COUNT; op++) {
		for (unsigned int i = 0; i < AN_LAT_BINS; i++) {
			lat[i] += g->op[op].lat_bins[i];
			nlat += g->op[op].lat_bins[i];
		}
		if (!an_fio_op_key(op))
			continue;
		fprintf(f, ", \"%s\": ", an_fio_op_key(op));
		json_dir(f, a, &g->op[op]);
	}
	fprintf(f, ", ");
	json_bins(f, "latency_ns", lat, 10, nlat, 0);
	fprintf(f, ", ");
	json_bins(f, "latency_us", lat + 10, 10, nlat, 10);
	fprintf(f, ", ");
	json_bins(f, "latency_ms", lat + 20, 12, nlat, 20);
	for (unsigned int i = 0; i < AN_DEPTH_BINS; i++)
		ndepth += g->depth[i];
	fprintf(f, ", \"iodepth_level\": {");
	for (unsigned int i = 0; i < AN_DEPTH_BINS; i++)
		fprintf(f, "%s\"%s\": %.6f", i ? ", " : "", an_depth_label(i),
			ndepth ? 100.0 * (double)g->depth[i] / (double)ndepth : 0.0);
	fprintf(f, "}");

	/* ioreel's own: what fio has no key for. */
	fprintf(f, ", \"ioreel\": {\"trace\": ");
	json_str(f, a->name);
	fprintf(f, ", \"events\": %llu, \"duration_ns\": %llu, \"first_ns\": %llu, "
		   "\"depth_approximate\": %s, \"slat_meaning\": \"%s\", \"clat_meaning\": \"%s\", "
		   "\"lat_meaning\": \"%s\", \"write_zeroes\": ",
		(unsigned long long)g->events, (unsigned long long)an_runtime_ns(a),
		(unsigned long long)(g->first_ns == UINT64_MAX ? 0 : g->first_ns),
		a->depth_approx ? "true" : "false",
		a->replay ? "lateness+submission (deadline to submit)" : "queue to issue",
		an_clat_meaning(a), an_lat_meaning(a));
	json_dir(f, a, &g->op[IO_OP_WRITE_ZEROES]);
	fprintf(f, ", \"ops\": {");
	for (unsigned int op = 0; op < IO_OP__COUNT; op++) {
		const struct an_op *o = &g->op[op];
		fprintf(f, "%s\"%s\": {\"total_ios\": %llu, \"errors\": %llu, \"seq_pct\": %.4f, "
			   "\"bs\": {",
			op ? ", " : "", an_op_label(op), (unsigned long long)o->ios,
			(unsigned long long)o->errors,
			o->ios ? 100.0 * (double)o->seq / (double)o->ios : 0.0);
		unsigned int shown = 0;
		/* Keyed by the bin's upper bound in bytes (lengths in (bound/2, bound]). */
		for (unsigned int i = 0; i < AN_BS_BINS; i++)
			if (o->bs[i])
				fprintf(f, "%s\"%llu\": %llu", shown++ ? ", " : "",
					(unsigned long long)(i ? 1ULL << (i - 1) : 0),
					(unsigned long long)o->bs[i]);
		fprintf(f, "}}");
	}
	fprintf(f, "}}");
	if (extra && *extra)
		fprintf(f, ", %s", extra);
	fprintf(f, "}");
}

static void json_trace(FILE *f, const struct analysis *a)
{
	fprintf(f, "{\"name\": ");
	json_str(f, a->name);
	fprintf(f, ", \"source\": ");
	json_str(f, a->has_meta ? a->meta.source : "");
	fprintf(f, ", \"host\": ");
	json_str(f, a->has_meta ? a->meta.host : "");
	fprintf(f, ", \"times\": \"%s\"", a->unscheduled ? "order" : "schedule");
	fprintf(f, ", \"genesis_realtime_ns\": %llu, \"events\": %llu, \"analysed\": %llu, "
		   "\"no_completion\": %llu, \"damaged_chunks\": %llu, \"duration_ns\": %llu, "
		   "\"first_ns\": %llu, \"devices\": [",
		(unsigned long long)(a->has_meta ? a->meta.genesis_realtime_ns : 0),
		(unsigned long long)a->events, (unsigned long long)a->included,
		(unsigned long long)a->no_completion, (unsigned long long)a->damaged_chunks,
		(unsigned long long)an_runtime_ns(a),
		(unsigned long long)(a->first_ns == UINT64_MAX ? 0 : a->first_ns));
	unsigned int shown = 0;
	for (unsigned int d = 0; d < TRACE_MAX_DEVICES; d++) {
		if (!a->dev_ios[d])
			continue;
		fprintf(f, "%s{\"index\": %u, \"name\": ", shown++ ? ", " : "", d);
		json_str(f, a->has_meta && d < a->meta.ndevices ? a->meta.devices[d].name : "");
		fprintf(f, ", \"total_ios\": %llu, \"io_bytes\": %llu}",
			(unsigned long long)a->dev_ios[d], (unsigned long long)a->dev_bytes[d]);
	}
	fprintf(f, "]");
	if (a->iv) {
		fprintf(f, ", \"interval\": {\"requested_ns\": %llu, \"width_ns\": %llu, \"series\": [",
			(unsigned long long)a->opts.interval_ns, (unsigned long long)a->iv_width);
		double w = (double)a->iv_width / 1e9;
		for (unsigned int k = 0; k < a->iv_len; k++) {
			const struct an_interval *iv = &a->iv[k];
			double bytes = (double)(iv->bytes[0] + iv->bytes[1] + iv->bytes[2]);
			fprintf(f, "%s\n{\"start_ns\": %llu, \"iops\": %.3f, \"read_iops\": %.3f, "
				   "\"write_iops\": %.3f, \"bw_bytes\": %.0f, \"read_bw_bytes\": %.0f, "
				   "\"write_bw_bytes\": %.0f, \"lat_p50_ns\": %llu, \"lat_p99_ns\": %llu}",
				k ? "," : "", (unsigned long long)(a->iv_base + k * a->iv_width),
				(double)an_iv_total(iv) / w, (double)iv->ios[0] / w,
				(double)iv->ios[1] / w, bytes / w, (double)iv->bytes[0] / w,
				(double)iv->bytes[1] / w,
				(unsigned long long)an_iv_percentile(iv, 50),
				(unsigned long long)an_iv_percentile(iv, 99));
		}
		fprintf(f, "]}");
	}
	fprintf(f, "}");
}

void an_json_doc(const struct analysis *const *as, unsigned int n, FILE *f, const char *extra,
		 bool compare)
{
	bool first = true;

	for (unsigned int k = 0; k < n; k++)
		an_finish(as[k]);
	fprintf(f, "{\"ioreel_schema\": %d, \"ioreel version\": \"%s\", \"jobs\": [", IOREEL_SCHEMA,
		IOREEL_VERSION);
	for (unsigned int t = 0; t < n; t++) {
		const struct analysis *a = as[t];
		for (unsigned int k = 0; k <= AN_MAX_GROUPS; k++) {
			if (k >= a->ngroups && !(k == AN_MAX_GROUPS && a->groups_overflow))
				continue;
			fprintf(f, "%s\n", first ? "" : ",");
			first = false;
			json_job(f, a, &a->groups[k], NULL);
		}
	}
	fprintf(f, "],\n\"ioreel\": {\"traces\": [");
	for (unsigned int t = 0; t < n; t++) {
		fprintf(f, "%s\n", t ? "," : "");
		json_trace(f, as[t]);
	}
	fprintf(f, "]");
	/* file-level traces: their calls per op and per file, beside the summary's jobs */
	for (unsigned int t = 0, any = 0; t < n; t++) {
		if (as[t]->fl) {
			fprintf(f, "%s", any++ ? ", " : ",\n\"file_level\": [");
			an_flevel_json(as[t], f);
		}
		if (t + 1 == n && any)
			fprintf(f, "]");
	}
	if (compare) {
		fprintf(f, ",\n");
		an_json_compare(as, n, f);
	}
	fprintf(f, "}");
	if (extra && *extra)
		fprintf(f, ",\n%s", extra);
	fprintf(f, "}\n");
}

void analysis__print_json(const struct analysis *a, FILE *out, const char *extra)
{
	an_json_doc(&a, 1, out, extra, false);
}

int analysis__print_job_json(const struct analysis *a, FILE *f, const char *extra)
{
	struct an_group *g;

	an_finish(a);
	if (a->ngroups == 1 && !a->groups_overflow) {
		json_job(f, a, &a->groups[0], extra);
		return 0;
	}
	/* several groups (or none): one job of them all */
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	snprintf(g->name, sizeof(g->name), "%.63s", a->name);
	g->first_ns = UINT64_MAX;
	for (unsigned int op = 0; op < IO_OP__COUNT; op++)
		an_total_op(a, op, &g->op[op]);
	for (unsigned int k = 0; k <= AN_MAX_GROUPS; k++) {
		const struct an_group *s = &a->groups[k];

		if (k >= a->ngroups && !(k == AN_MAX_GROUPS && a->groups_overflow))
			continue;
		g->events += s->events;
		g->first_ns = s->first_ns < g->first_ns ? s->first_ns : g->first_ns;
		g->last_ns = s->last_ns > g->last_ns ? s->last_ns : g->last_ns;
		for (unsigned int i = 0; i < AN_DEPTH_BINS; i++)
			g->depth[i] += s->depth[i];
	}
	json_job(f, a, g, extra);
	free(g);
	return 0;
}
