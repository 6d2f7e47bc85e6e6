// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `--compare`: the table storage people already build by hand from fio runs (setup, IOPS, BW,
 * latency), one row per trace and op, with ratios against the first trace (the baseline).
 * Latency is queue-to-completion when the trace has it (what the application waited), else
 * issue-to-completion.
 */
#include <string.h>
#include "analyze/analysis_int.h"
#include "analyze/report.h"

struct row {
	double iops, bw, mean, p99;
	uint64_t ios;
	bool rates, lat; /* known: not a closed-loop trace (times are an order); latencies */
};

static void row_of(const struct analysis *a, unsigned int op, struct row *r)
{
	static struct an_op t; /* ~90 KiB: kept off the stack; reports run on one thread */

	an_total_op(a, op, &t);
	const struct hist *h = t.lat.count ? &t.lat : &t.clat;
	r->ios = t.ios;
	r->iops = an_iops(a, &t);
	r->bw = an_bw_bytes(a, &t);
	r->mean = hist_mean(h);
	r->p99 = (double)hist_percentile(h, 99);
	r->rates = !a->unscheduled;
	r->lat = h->count > 0;
}

static bool op_used(const struct analysis *const *as, unsigned int n, unsigned int op)
{
	for (unsigned int t = 0; t < n; t++) {
		for (unsigned int k = 0; k <= AN_MAX_GROUPS; k++)
			if (k < as[t]->ngroups || (k == AN_MAX_GROUPS && as[t]->groups_overflow))
				if (as[t]->groups[k].op[op].ios)
					return true;
	}
	return false;
}

static double ratio(double v, double base)
{
	return base > 0 ? v / base : 0;
}

/* v with fmt in buf, or "n/a" when it is not known (the text said 0 and a ratio of 0.00) */
static const char *known(bool ok, const char *fmt, double v, char *buf, size_t len)
{
	if (ok)
		snprintf(buf, len, fmt, v);
	else
		snprintf(buf, len, "n/a");
	return buf;
}

static const char *short_num(double v, char *buf, size_t len)
{
	if (v >= 1e6)
		snprintf(buf, len, "%.2fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else
		snprintf(buf, len, "%.0f", v);
	return buf;
}

/*
 * What a trace is, for the comparison's "kind" column: a recording, a synthesized job, an
 * import, or a replay's result and the mode it was replayed in (a timed replay answers "can
 * the candidate absorb this load", a dep replay "how would this workload run there": the
 * two are read side by side). Result traces say their mode in their source ("replay:dep").
 */
static const char *kind_of(const struct analysis *a)
{
	const char *s = a->has_meta ? a->meta.source : "";

	if (!strncmp(s, "replay:", 7))
		return s + 7;
	if (!strncmp(s, "import", 6))
		return "import";
	if (!strcmp(s, "record"))
		return "recorded";
	return *s ? s : "?";
}

void an_text_compare(const struct analysis *const *as, unsigned int n, FILE *f)
{
	char b[32], c[7][32];

	for (unsigned int k = 0; k < n; k++)
		an_finish(as[k]);

	fprintf(f, "Comparison (ratios against %s; latency = %s):\n", as[0]->name,
		"queue to completion, or issue to completion when not recorded");
	fprintf(f, "%-6s %-28s %-8s %10s %10s %12s %12s %7s %7s %7s %7s\n", "op", "trace", "kind",
		"IOPS", "BW(MiB/s)", "avg lat(us)", "p99 lat(us)", "IOPS x", "BW x", "avg x",
		"p99 x");
	for (unsigned int op = 0; op < IO_OP__COUNT; op++) {
		if (!op_used(as, n, op))
			continue;
		struct row base;
		row_of(as[0], op, &base);
		for (unsigned int t = 0; t < n; t++) {
			struct row r;
			row_of(as[t], op, &r);
			const char *name = as[t]->name;
			size_t len = strlen(name);
			bool rates = r.rates && base.rates, lat = r.lat && base.lat;

			fprintf(f, "%-6s %-28s %-8s %10s %10s %12s %12s %7s %7s %7s %7s\n",
				an_op_label(op), len > 28 ? name + len - 28 : name, kind_of(as[t]),
				r.rates ? short_num(r.iops, b, sizeof(b)) : "n/a",
				known(r.rates, "%.1f", r.bw / 1048576.0, c[0], sizeof(c[0])),
				known(r.lat, "%.1f", r.mean / 1e3, c[1], sizeof(c[1])),
				known(r.lat, "%.1f", r.p99 / 1e3, c[2], sizeof(c[2])),
				known(rates, "%.2f", ratio(r.iops, base.iops), c[3], sizeof(c[3])),
				known(rates, "%.2f", ratio(r.bw, base.bw), c[4], sizeof(c[4])),
				known(lat, "%.2f", ratio(r.mean, base.mean), c[5], sizeof(c[5])),
				known(lat, "%.2f", ratio(r.p99, base.p99), c[6], sizeof(c[6])));
		}
	}
	/* how much of each replay's figures is its models' (issue 24): what they took out or
	 * added per op, from the result trace (formats/elastic.h) */
	fprintf(f, "\nelastic models (dep replays):\n");
	for (unsigned int t = 0; t < n; t++) {
		fprintf(f, "  %s: ", as[t]->name);
		if (as[t]->has_elastic)
			trace_elastic_print(&as[t]->elastic, f);
		else
			fprintf(f, "none (models off, or not a dep replay)\n");
	}
}

static void json_ratio(FILE *f, const char *key, double v, double base)
{
	if (base > 0)
		fprintf(f, ", \"%s\": %.6f", key, v / base);
	else
		fprintf(f, ", \"%s\": null", key);
}

void an_json_compare(const struct analysis *const *as, unsigned int n, FILE *f)
{
	bool first = true;

	for (unsigned int k = 0; k < n; k++)
		an_finish(as[k]);

	fprintf(f, "\"compare\": {\"baseline\": ");
	json_str(f, as[0]->name);
	fprintf(f, ", \"latency\": \"lat_ns when recorded, else clat_ns\", \"rows\": [");
	for (unsigned int op = 0; op < IO_OP__COUNT; op++) {
		if (!op_used(as, n, op))
			continue;
		struct row base;
		row_of(as[0], op, &base);
		for (unsigned int t = 0; t < n; t++) {
			struct row r;
			row_of(as[t], op, &r);
			fprintf(f, "%s\n{\"trace\": ", first ? "" : ",");
			first = false;
			json_str(f, as[t]->name);
			fprintf(f, ", \"kind\": ");
			json_str(f, kind_of(as[t]));
			fprintf(f, ", \"op\": \"%s\", \"total_ios\": %llu, \"iops\": %.6f, "
				   "\"bw_bytes\": %.0f, \"lat_mean_ns\": %.3f, \"lat_p99_ns\": %.0f",
				an_op_label(op), (unsigned long long)r.ios, r.iops, r.bw, r.mean, r.p99);
			json_ratio(f, "iops_ratio", r.iops, base.iops);
			json_ratio(f, "bw_ratio", r.bw, base.bw);
			json_ratio(f, "lat_mean_ratio", r.mean, base.mean);
			json_ratio(f, "lat_p99_ratio", r.p99, base.p99);
			fprintf(f, "}");
		}
	}
	/* per trace, its dep replay's elastic models with the keys of replay's fidelity.elastic,
	 * or null */
	fprintf(f, "], \"elastic\": [");
	for (unsigned int t = 0; t < n; t++) {
		fprintf(f, "%s\n{\"trace\": ", t ? "," : "");
		json_str(f, as[t]->name);
		fprintf(f, ", \"elastic\": ");
		if (as[t]->has_elastic)
			trace_elastic_json(&as[t]->elastic, f);
		else
			fprintf(f, "null");
		fprintf(f, "}");
	}
	fprintf(f, "]}");
}
