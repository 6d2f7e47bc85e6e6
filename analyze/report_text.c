// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The text summary, laid out like fio's normal output (stat.c: show_ddir_status, show_lat,
 * show_clat_percentiles, show_latencies, IO depths, Run status) so a fio user reads it as is.
 * ioreel's own lines (block sizes, sequential share, mix) use the same "name : k=v" shape.
 */
#include <math.h>
#include <string.h>
#include "analyze/analysis_int.h"
#include "util/cli.h"

/* fio's num2str with 3 significant digits: 34.5k, 135, 1.23M. */
static char *num3(double v, double base, const char *const *units, char *buf, size_t len)
{
	unsigned int u = 0;

	while (v >= 999.5 && units[u + 1]) {
		v /= base;
		u++;
	}
	if (v >= 99.95 || (u == 0 && v == floor(v)))
		snprintf(buf, len, "%.0f%s", v, units[u]);
	else if (v >= 9.995)
		snprintf(buf, len, "%.1f%s", v, units[u]);
	else
		snprintf(buf, len, "%.2f%s", v, units[u]);
	return buf;
}

static const char *const si[] = { "", "k", "M", "G", "T", NULL };
static const char *const bin_units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", NULL };
static const char *const dec_units[] = { "B", "kB", "MB", "GB", "TB", "PB", NULL };

/* Unit of a latency line, chosen like fio: from the smallest value. */
static double lat_scale(uint64_t min, const char **unit)
{
	if (min >= 2000000) {
		*unit = "msec";
		return 1e6;
	}
	if (min >= 2000) {
		*unit = "usec";
		return 1e3;
	}
	*unit = "nsec";
	return 1;
}

static void show_lat(FILE *f, const char *what, const struct hist *h)
{
	const char *unit;

	if (!h->count)
		return;
	double s = lat_scale(h->min, &unit);
	fprintf(f, "    %s (%s): min=%.0f, max=%.0f, avg=%.2f, stdev=%.2f\n", what, unit,
		(double)h->min / s, (double)h->max / s, hist_mean(h) / s, hist_stdev(h) / s);
}

static void show_percentiles(FILE *f, const struct analysis *a, const char *what,
			     const struct hist *h)
{
	double s = 1;
	const char *unit = "nsec";

	if (!h->count || !a->npct)
		return;
	uint64_t lo = hist_percentile(h, a->pct[0]), top = hist_percentile(h, a->pct[a->npct - 1]);
	/* fio's rule (show_clat_percentiles): scale down only when both ends allow it. */
	if (lo > 2000000 && top > 99999999) {
		s = 1e6;
		unit = "msec";
	} else if (lo > 2000 && top > 99999) {
		s = 1e3;
		unit = "usec";
	}
	fprintf(f, "    %s percentiles (%s):\n", what, unit);
	for (unsigned int i = 0; i < a->npct; i++) {
		double v = (double)hist_percentile(h, a->pct[i]) / s;
		fprintf(f, "%s%5.2fth=[%5.0f]%s", i % 4 == 0 ? "     | " : "", a->pct[i], v,
			i + 1 == a->npct ? "\n" : i % 4 == 3 ? ",\n" : ", ");
	}
}

static void show_op(FILE *f, const struct analysis *a, const struct an_op *o, unsigned int op)
{
	char iops[32], bw[32], bwd[32], io[32];
	uint64_t rt = an_runtime_ns(a);

	if (!o->ios)
		return;
	num3(an_iops(a, o), 1000, si, iops, sizeof(iops));
	num3(an_bw_bytes(a, o), 1024, bin_units, bw, sizeof(bw));
	num3(an_bw_bytes(a, o), 1000, dec_units, bwd, sizeof(bwd));
	num3((double)o->bytes, 1024, bin_units, io, sizeof(io));
	if (rt)
		fprintf(f, "  %5s: IOPS=%s, BW=%s/s (%s/s)(%s/%.0fmsec)\n", an_op_label(op), iops, bw,
			bwd, io, (double)rt / 1e6);
	else
		fprintf(f, "  %5s: IOPS=n/a, BW=n/a (%s)(%s, %llu I/Os)\n", an_op_label(op),
			a->unscheduled ? "closed-loop trace: its times are an order, not a schedule"
				       : "runtime unknown: no time span",
			io, (unsigned long long)o->ios);
	show_lat(f, a->replay ? "late" : "slat", &o->slat);
	show_lat(f, "clat", &o->clat);
	show_lat(f, " lat", &o->lat);
	if (o->clat.count)
		show_percentiles(f, a, "clat", &o->clat);
	else
		show_percentiles(f, a, " lat", &o->lat);
	if (o->errors)
		fprintf(f, "    errors       : %llu I/Os completed with an error\n",
			(unsigned long long)o->errors);

	char lbl[16];
	unsigned int shown = 0;
	fprintf(f, "    bs           : ");
	for (unsigned int i = 0; i < AN_BS_BINS; i++) {
		if (!o->bs[i])
			continue;
		double p = 100.0 * (double)o->bs[i] / (double)o->ios;
		fprintf(f, "%s%s%s=%.2f%%", shown++ ? ", " : "",
			i > 1 && o->bs_bytes[i] != o->bs[i] << (i - 1) ? "<=" : "",
			an_bs_label(i, lbl, sizeof(lbl)), p);
	}
	fprintf(f, "\n");
	if (op != IO_OP_FLUSH)
		fprintf(f, "    sequential   : %.2f%% (starts where a recent I/O on the device ended)\n",
			100.0 * (double)o->seq / (double)o->ios);
}

static void show_pct_row(FILE *f, const char *name, const uint64_t *v, unsigned int n,
			 uint64_t total, const char *(*label)(unsigned int, const char **))
{
	unsigned int shown = 0;

	for (unsigned int i = 0; i < n; i++) {
		const char *unit;
		if (!v[i])
			continue;
		double p = 100.0 * (double)v[i] / (double)total;
		fprintf(f, "%s%s=%s%.2f%%", shown++ ? ", " : name, label(i, &unit),
			p < 0.01 ? "<" : "", p < 0.01 ? 0.01 : p);
	}
	if (shown)
		fprintf(f, "\n");
}

static const char *lat_ns_label(unsigned int i, const char **u)
{
	return an_lat_bin_label(i, u);
}

static const char *lat_us_label(unsigned int i, const char **u)
{
	return an_lat_bin_label(i + 10, u);
}

static const char *lat_ms_label(unsigned int i, const char **u)
{
	return an_lat_bin_label(i + 20, u);
}

static void show_group(FILE *f, const struct analysis *a, const struct an_group *g)
{
	uint64_t lat[AN_LAT_BINS] = { 0 }, nlat = 0, ndepth = 0, ios = 0, bytes = 0;

	fprintf(f, "%s: (groupid=0, jobs=1): err=%2d: events=%llu\n", g->name, 0,
		(unsigned long long)g->events);
	for (unsigned int op = 0; op < IO_OP__COUNT; op++) {
		const struct an_op *o = &g->op[op];
		show_op(f, a, o, op);
		for (unsigned int i = 0; i < AN_LAT_BINS; i++) {
			lat[i] += o->lat_bins[i];
			nlat += o->lat_bins[i];
		}
		ios += o->ios;
		bytes += o->bytes;
	}
	if (a->replay)
		fprintf(f, "    (replay trace: \"late\" = lateness + submission, from the I/O's "
			   "deadline to its submission)\n");
	if (a->clat_from_queue && !a->clat_from_issue)
		fprintf(f, "    (clat = lat, queue to completion: the trace has no issue times, as "
			   "at bio level)\n");
	else if (a->clat_from_queue)
		fprintf(f, "    (clat: issue to completion; queue to completion for I/Os "
			   "without an issue time, such as flushes at request level)\n");
	if (nlat) {
		show_pct_row(f, "  lat (nsec)   : ", lat, 10, nlat, lat_ns_label);
		show_pct_row(f, "  lat (usec)   : ", lat + 10, 10, nlat, lat_us_label);
		show_pct_row(f, "  lat (msec)   : ", lat + 20, 12, nlat, lat_ms_label);
	}
	for (unsigned int i = 0; i < AN_DEPTH_BINS; i++)
		ndepth += g->depth[i];
	if (ndepth) {
		fprintf(f, "  IO depths    : ");
		for (unsigned int i = 0; i < AN_DEPTH_BINS; i++)
			fprintf(f, "%s%s=%.1f%%", i ? ", " : "", an_depth_label(i),
				100.0 * (double)g->depth[i] / (double)ndepth);
		fprintf(f, "%s\n", a->depth_approx ? " (approximate: events out of issue order)"
						   : " (in flight at issue)");
	}
	if (ios) {
		fprintf(f, "  mix          : ");
		unsigned int shown = 0;
		for (unsigned int op = 0; op < IO_OP__COUNT; op++) {
			if (!g->op[op].ios)
				continue;
			fprintf(f, "%s%s=%.2f%%", shown++ ? ", " : "", an_op_label(op),
				100.0 * (double)g->op[op].ios / (double)ios);
		}
		fprintf(f, " of I/Os");
		if (bytes) {
			for (unsigned int op = 0; op < IO_OP__COUNT; op++)
				if (g->op[op].bytes)
					fprintf(f, ", %s=%.2f%%", an_op_label(op),
						100.0 * (double)g->op[op].bytes / (double)bytes);
			fprintf(f, " of bytes");
		}
		fprintf(f, "\n");
	}
	fprintf(f, "     issued rwts: total=%llu,%llu,%llu,%llu\n",
		(unsigned long long)g->op[IO_OP_READ].ios, (unsigned long long)g->op[IO_OP_WRITE].ios,
		(unsigned long long)g->op[IO_OP_DISCARD].ios,
		(unsigned long long)g->op[IO_OP_FLUSH].ios);
}

static void show_intervals(FILE *f, const struct analysis *a)
{
	double w = (double)a->iv_width / 1e9;

	if (a->iv_width != a->opts.interval_ns)
		fprintf(f, "\nTime series (interval %gs: --interval %gs widened to keep at most %d "
			"rows):\n", w, (double)a->opts.interval_ns / 1e9, AN_MAX_INTERVALS);
	else
		fprintf(f, "\nTime series (interval %gs):\n", w);
	fprintf(f, "  %12s %10s %10s %10s %12s %12s %12s\n", "start(s)", "IOPS", "read", "write",
		"BW(MiB/s)", "p50 lat(us)", "p99 lat(us)");
	for (unsigned int k = 0; k < a->iv_len; k++) {
		const struct an_interval *iv = &a->iv[k];
		double bytes = (double)(iv->bytes[0] + iv->bytes[1] + iv->bytes[2]);
		fprintf(f, "  %12.3f %10.0f %10.0f %10.0f %12.2f %12.1f %12.1f\n",
			(double)(a->iv_base + k * a->iv_width) / 1e9, (double)an_iv_total(iv) / w,
			(double)iv->ios[0] / w, (double)iv->ios[1] / w, bytes / w / 1048576.0,
			(double)an_iv_percentile(iv, 50) / 1e3, (double)an_iv_percentile(iv, 99) / 1e3);
	}
}

void analysis__print_text(const struct analysis *a, FILE *f)
{
	char b1[32], b2[32], b3[32], b4[32];

	an_finish(a);

	fprintf(f, "trace %s", a->name);
	if (a->has_meta)
		fprintf(f, " (source=%s, host=%s)", a->meta.source[0] ? a->meta.source : "?",
			a->meta.host[0] ? a->meta.host : "?");
	fprintf(f, ": %llu events, %llu analysed", (unsigned long long)a->events,
		(unsigned long long)a->included);
	if (a->no_completion)
		fprintf(f, ", %llu without completion time (no latency for them)",
			(unsigned long long)a->no_completion);
	if (a->damaged_chunks)
		fprintf(f, ", %llu damaged chunks skipped", (unsigned long long)a->damaged_chunks);
	fprintf(f, "\n");
	for (unsigned int d = 0; a->has_meta && d < a->meta.ndevices && d < TRACE_MAX_DEVICES; d++)
		if (a->dev_ios[d])
			fprintf(f, "  device %s: %llu I/Os, %s\n", a->meta.devices[d].name,
				(unsigned long long)a->dev_ios[d],
				fmt_bytes(a->dev_bytes[d], b1, sizeof(b1)));
	if (!a->included) {
		fprintf(f, "  no I/O to report%s\n",
			a->events ? " (every event was outside --from/--to or --device)" : "");
		return;
	}
	for (unsigned int k = 0; k < a->ngroups; k++)
		show_group(f, a, &a->groups[k]);
	if (a->groups_overflow)
		show_group(f, a, &a->groups[AN_MAX_GROUPS]);

	uint64_t rt = an_runtime_ns(a);
	fprintf(f, "\nRun status (all groups):\n");
	for (unsigned int op = 0; op < IO_OP__COUNT; op++) {
		struct an_op t;
		an_total_op(a, op, &t);
		if (!t.ios)
			continue;
		char up[16];
		size_t n = 0;
		for (const char *p = an_op_label(op); *p && n + 1 < sizeof(up); p++)
			up[n++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
		up[n] = 0;
		num3((double)t.bytes, 1024, bin_units, b3, sizeof(b3));
		num3((double)t.bytes, 1000, dec_units, b4, sizeof(b4));
		if (!rt) {
			fprintf(f, "  %5s: bw=n/a, io=%s (%s), run=n/a\n", up, b3, b4);
			continue;
		}
		fprintf(f, "  %5s: bw=%s/s (%s/s), io=%s (%s), run=%.0fmsec\n", up,
			num3(an_bw_bytes(a, &t), 1024, bin_units, b1, sizeof(b1)),
			num3(an_bw_bytes(a, &t), 1000, dec_units, b2, sizeof(b2)), b3, b4,
			(double)rt / 1e6);
	}
	if (a->iv && a->iv_len)
		show_intervals(f, a);
	an_flevel_print(a, f);
}
