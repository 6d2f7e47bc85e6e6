// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `--html FILE`: one self-contained page (inline CSS and SVG, no script, nothing fetched) so a
 * report can be mailed, attached to a ticket or opened on an air-gapped test host.
 * Charts: IOPS and bandwidth over time, latency histogram, percentile curves per op, offset/time
 * heatmap, block sizes; with several traces a comparison table and bars come first.
 *
 * Latency axes go logarithmic (whole decades) once the values span a decade: a candidate 50x
 * slower than the others on a linear axis flattens them to a line on the floor, which hides
 * exactly the comparison the page is for. Each op has its own percentile curves, because a
 * flush (milliseconds) merged with reads (microseconds) describes neither.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/analysis_int.h"
#include "analyze/report.h"
#include "util/cli.h"
#include "util/html.h"

#define W 560
#define H 240
#define ML 64
#define MR 12
#define MT 28
#define MB 34
#define PW (W - ML - MR)
#define PH (H - MT - MB)

static const char *const colours[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
				       "#9467bd", "#8c564b", "#e377c2", "#17becf" };

/*
 * A chart frame: title, axes, and for ymax >= 0 a linear y axis from 0 to ymax with its grid.
 * Coordinates inside are plot-relative.
 */
static void svg_open(FILE *f, const char *kind, const char *title, const char *xlabel,
		     const char *ylabel, double ymax)
{
	fprintf(f, "<figure><svg class=\"chart\" data-chart=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" "
		   "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		kind, W, H, W, H);
	fprintf(f, "<text x=\"%d\" y=\"16\" class=\"t\">", ML);
	html_esc(f, title);
	fprintf(f, "</text>\n<g transform=\"translate(%d,%d)\">\n", ML, MT);
	fprintf(f, "<rect class=\"bg\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\"/>\n", PW, PH);
	if (ymax >= 0) { /* < 0: the chart draws its own y axis (yaxis_draw) and grid */
		for (int k = 1; k < 4; k++)
			fprintf(f, "<line class=\"grid\" x1=\"0\" x2=\"%d\" y1=\"%d\" "
				   "y2=\"%d\"/>\n", PW, PH * k / 4, PH * k / 4);
		fprintf(f, "<text x=\"-6\" y=\"4\" class=\"yl\">%.4g</text>"
			   "<text x=\"-6\" y=\"%d\" class=\"yl\">0</text>\n",
			ymax, PH + 4);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"xl\">", PW / 2, PH + 28);
	html_esc(f, xlabel);
	fprintf(f, "</text><text transform=\"translate(-50,%d) rotate(-90)\" class=\"xl\">", PH / 2);
	html_esc(f, ylabel);
	fprintf(f, "</text>\n");
}

static void svg_close(FILE *f)
{
	fprintf(f, "</g></svg></figure>\n");
}

static void svg_xrange(FILE *f, const char *lo, const char *hi)
{
	fprintf(f, "<text x=\"0\" y=\"%d\" class=\"xt\">%s</text>"
		   "<text x=\"%d\" y=\"%d\" class=\"xt\" text-anchor=\"end\">%s</text>\n",
		PH + 14, lo, PW, PH + 14, hi);
}

/* A y axis: linear from 0, or log10 over whole decades (latency charts, see the top). */
struct yaxis {
	bool log;
	double lo, hi; /* the values at the bottom and the top of the plot */
};

static struct yaxis yaxis_linear(double hi)
{
	return (struct yaxis){ .log = false, .lo = 0, .hi = hi };
}

/* Fits an axis to values in [vmin, vmax] (vmin: the smallest one above 0). */
static struct yaxis yaxis_fit(double vmin, double vmax)
{
	struct yaxis ax = yaxis_linear(vmax);

	if (vmin > 0 && vmax >= 10 * vmin) {
		ax.log = true;
		ax.lo = pow(10, floor(log10(vmin)));
		ax.hi = pow(10, ceil(log10(vmax)));
		if (ax.lo > vmin / 3) /* the bar of the smallest value must still show */
			ax.lo /= 10;
	}
	return ax;
}

/* The plot's y coordinate of v (0 at the top, PH at the bottom). */
static double yaxis_y(const struct yaxis *ax, double v)
{
	double r;

	if (ax->log)
		r = v > ax->lo ? (log10(v) - log10(ax->lo)) / (log10(ax->hi) - log10(ax->lo)) : 0;
	else
		r = ax->hi > 0 ? v / ax->hi : 0;
	return PH - (r > 1 ? 1 : r) * PH;
}

/* "850ns", "12us", "1.5ms", "2s": latency tick labels, 3 significant digits at most. */
static const char *lat_label(double ns, char *buf, size_t len)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	unsigned int u = 0;

	while (u < 3 && ns >= 999.5) {
		ns /= 1000;
		u++;
	}
	snprintf(buf, len, "%.3g%s", ns, unit[u]);
	return buf;
}

/* Grid and labels of a latency axis (values in ns): every decade when log, quarters else. */
static void yaxis_draw(FILE *f, const struct yaxis *ax)
{
	char b[32];
	unsigned int n = 0;
	double v[16];

	if (ax->log)
		for (double d = ax->lo; d <= ax->hi * 1.001 && n < 16; d *= 10)
			v[n++] = d;
	else
		for (n = 0; n <= 4; n++)
			v[n] = ax->hi * n / 4;
	fprintf(f, "<g class=\"yaxis\" data-scale=\"%s\">", ax->log ? "log" : "linear");
	for (unsigned int i = 0; i < n; i++) {
		double y = yaxis_y(ax, v[i]);

		if (y > 0.5 && y < PH - 0.5)
			fprintf(f, "<line class=\"grid\" x1=\"0\" x2=\"%d\" y1=\"%.1f\" "
				   "y2=\"%.1f\"/>", PW, y, y);
		fprintf(f, "<text x=\"-6\" y=\"%.1f\" class=\"yl\">%s</text>", y + 4,
			v[i] > 0 ? lat_label(v[i], b, sizeof(b)) : "0");
	}
	fprintf(f, "</g>\n");
}

static void svg_path(FILE *f, const double *x, const double *y, unsigned int n, double xmax,
		     const struct yaxis *ax, const char *colour)
{
	if (!n)
		return;
	fprintf(f, "<path class=\"line\" stroke=\"%s\" d=\"", colour);
	for (unsigned int i = 0; i < n; i++)
		fprintf(f, "%c%.1f,%.1f", i ? 'L' : 'M', xmax > 0 ? x[i] / xmax * PW : 0,
			yaxis_y(ax, y[i]));
	fprintf(f, "\"/>\n");
}

static void svg_bars(FILE *f, const double *v, const char *const *labels, unsigned int n,
		     double vmax, const char *colour)
{
	double bw = n ? (double)PW / n : 0;
	size_t longest = 1;

	for (unsigned int i = 0; i < n; i++)
		longest = strlen(labels[i]) > longest ? strlen(labels[i]) : longest;
	/* Labels that would overlap (about 6 px a character at 10 px) are thinned out. */
	unsigned int step = bw > 0 ? (unsigned int)ceil((6.0 * (double)longest + 6) / bw) : 1;
	for (unsigned int i = 0; i < n; i++) {
		double h = vmax > 0 ? v[i] / vmax * PH : 0;
		fprintf(f, "<rect class=\"bar\" fill=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			   "height=\"%.1f\"><title>", colour, i * bw + bw * 0.1, PH - h, bw * 0.8, h);
		html_esc(f, labels[i]); /* trace names among them (issue 21 W6) */
		fprintf(f, ": %.6g</title></rect>\n", v[i]);
		if (i % (step ? step : 1) == 0) {
			fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"xt\" text-anchor=\"middle\">",
				i * bw + bw / 2, PH + 14);
			html_esc(f, labels[i]);
			fprintf(f, "</text>\n");
		}
	}
}

/* The rate series: the --interval series when asked for, else the heatmap's time columns. */
static unsigned int series(const struct analysis *a, double *x, double *iops, double *mibs,
			   unsigned int cap)
{
	unsigned int n = 0;

	if (a->iv) {
		double w = (double)a->iv_width / 1e9;
		for (unsigned int k = 0; k < a->iv_len && n < cap; k++, n++) {
			const struct an_interval *iv = &a->iv[k];
			x[n] = (double)(k * a->iv_width) / 1e9;
			iops[n] = (double)an_iv_total(iv) / w;
			mibs[n] = (double)(iv->bytes[0] + iv->bytes[1] + iv->bytes[2]) / w / 1048576.0;
		}
		return n;
	}
	uint64_t width = 1ULL << a->grid_tshift, rt = an_runtime_ns(a) + a->first_ns;
	double w = (double)width / 1e9;
	for (unsigned int c = 0; c < AN_GRID_COLS && n < cap; c++) {
		if ((uint64_t)c * width > rt)
			break;
		x[n] = (double)c * w;
		iops[n] = (double)a->col_ios[c] / w;
		mibs[n] = (double)a->col_bytes[c] / w / 1048576.0;
		n++;
	}
	return n;
}

static double vmax(const double *v, unsigned int n)
{
	double m = 0;

	for (unsigned int i = 0; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

static void chart_rates(FILE *f, const struct analysis *const *as, unsigned int n)
{
	enum { CAP = AN_MAX_INTERVALS };
	double *x = malloc(CAP * sizeof(double) * 3 * n);
	unsigned int *len = calloc(n, sizeof(*len));
	double xm = 0, im = 0, bm = 0;
	char hi[32];

	if (!x || !len)
		goto out;
	for (unsigned int t = 0; t < n; t++) {
		double *b = x + (size_t)t * 3 * CAP;
		len[t] = series(as[t], b, b + CAP, b + 2 * CAP, CAP);
		if (len[t]) {
			xm = fmax(xm, b[len[t] - 1]);
			im = fmax(im, vmax(b + CAP, len[t]));
			bm = fmax(bm, vmax(b + 2 * CAP, len[t]));
		}
	}
	snprintf(hi, sizeof(hi), "%.3gs", xm);
	for (int which = 0; which < 2; which++) {
		svg_open(f, which ? "bw" : "iops", which ? "Bandwidth over time" : "IOPS over time",
			 "time since start (s)", which ? "MiB/s" : "IOPS", which ? bm : im);
		svg_xrange(f, "0", hi);
		for (unsigned int t = 0; t < n; t++) {
			double *b = x + (size_t)t * 3 * CAP;
			struct yaxis ax = yaxis_linear(which ? bm : im);

			svg_path(f, b, b + (which ? 2 : 1) * CAP, len[t], xm, &ax, colours[t % 8]);
		}
		svg_close(f);
	}
out:
	free(x);
	free(len);
}

/* The ops any of the traces has latencies for, in op order; returns how many. */
static unsigned int lat_ops(const struct analysis *const *as, unsigned int n, struct hist *h,
			    unsigned int *ops)
{
	unsigned int k = 0;

	for (unsigned int op = 0; op < IO_OP__COUNT; op++) {
		for (unsigned int t = 0; t < n; t++) {
			an_op_lat(as[t], op, h);
			if (h->count) {
				ops[k++] = op;
				break;
			}
		}
	}
	return k;
}

/* Histogram of the first trace, by power-of-two group (the log-linear groups merged). */
static void chart_lathist(FILE *f, const struct analysis *a, struct hist *h)
{
	double hv[64];
	char lab[64][16], title[320];
	const char *labels[64];
	unsigned int lo = 64, hi = 0;

	an_total_lat(a, h);
	memset(hv, 0, sizeof(hv));
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		if (!h->bucket[i])
			continue;
		unsigned int g = 63 - __builtin_clzll(hist_bucket_low(i) | 1);
		hv[g] += (double)h->bucket[i];
		lo = g < lo ? g : lo;
		hi = g > hi ? g : hi;
	}
	if (lo > hi)
		lo = hi = 0;
	for (unsigned int g = lo; g <= hi; g++)
		labels[g] = lat_label((double)(1ULL << g), lab[g], sizeof(lab[g]));
	snprintf(title, sizeof(title), "Latency histogram of %s (I/Os per power of two)", a->name);
	svg_open(f, "lathist", title, "latency, all ops", "I/Os", vmax(hv + lo, hi - lo + 1));
	svg_bars(f, hv + lo, labels + lo, hi - lo + 1, vmax(hv + lo, hi - lo + 1), colours[0]);
	svg_close(f);
}

/*
 * One chart per op, one curve per trace. x is -log10(1 - p), so the tail (99, 99.9, 99.99)
 * gets as much room as the body; y is logarithmic when the curves span a decade.
 */
static void chart_percentiles(FILE *f, const struct analysis *const *as, unsigned int n,
			      struct hist *h)
{
	enum { NP = 101 };
	double px[NP], *py = malloc(sizeof(double) * NP * n);
	bool *has = calloc(n, sizeof(*has));
	unsigned int ops[IO_OP__COUNT], nops = lat_ops(as, n, h, ops);
	char kind[32], title[64];

	if (!py || !has)
		goto out;
	for (unsigned int k = 0; k < NP; k++)
		px[k] = 4.0 * k / (NP - 1);
	for (unsigned int i = 0; i < nops; i++) {
		double lo = INFINITY, hi = 0;

		for (unsigned int t = 0; t < n; t++) {
			an_op_lat(as[t], ops[i], h);
			has[t] = h->count > 0;
			for (unsigned int k = 0; has[t] && k < NP; k++) {
				double p = 100.0 * (1 - pow(10, -px[k]));
				double v = (double)hist_percentile(h, p);

				py[t * NP + k] = v;
				lo = v > 0 && v < lo ? v : lo;
				hi = v > hi ? v : hi;
			}
		}
		struct yaxis ax = yaxis_fit(lo, hi);

		snprintf(kind, sizeof(kind), "pct-%s", an_op_label(ops[i]));
		snprintf(title, sizeof(title), "Latency percentiles: %s", an_op_label(ops[i]));
		svg_open(f, kind, title, "percentile",
			 ax.log ? "latency (log scale)" : "latency", -1);
		yaxis_draw(f, &ax);
		fprintf(f, "<text x=\"0\" y=\"%d\" class=\"xt\">0</text>", PH + 14);
		const char *tick[] = { "90", "99", "99.9", "99.99" };
		for (int k = 1; k <= 4; k++)
			fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"xt\" text-anchor=\"middle\">%s"
				   "</text>", PW * k / 4, PH + 14, tick[k - 1]);
		fprintf(f, "\n");
		for (unsigned int t = 0; t < n; t++)
			if (has[t])
				svg_path(f, px, py + t * NP, NP, 4, &ax, colours[t % 8]);
		svg_close(f);
	}
out:
	free(py);
	free(has);
}

static void chart_latency(FILE *f, const struct analysis *const *as, unsigned int n)
{
	struct hist *h = malloc(sizeof(*h));

	if (!h)
		return;
	fprintf(f, "<p class=\"note\">Latency is what the application waited: from queue time (a "
		   "replay: the I/O's deadline) to completion, or from issue where a trace has no "
		   "queue time.</p>\n");
	chart_lathist(f, as[0], h);
	chart_percentiles(f, as, n, h);
	free(h);
}

static void chart_heatmap(FILE *f, const struct analysis *a)
{
	uint32_t m = 0;
	char hi[32], b[32];

	for (unsigned int r = 0; r < AN_GRID_ROWS; r++)
		for (unsigned int c = 0; c < AN_GRID_COLS; c++)
			if (a->grid[r][c] > m)
				m = a->grid[r][c];
	uint64_t top = (uint64_t)AN_GRID_ROWS << a->grid_oshift;
	svg_open(f, "heatmap", "Offset over time (darker = more I/Os)", "time since start",
		 "offset", -1);
	fprintf(f, "<text x=\"-6\" y=\"10\" class=\"yl\">%s</text>"
		   "<text x=\"-6\" y=\"%d\" class=\"yl\">0</text>\n",
		fmt_bytes(top, b, sizeof(b)), PH + 4);
	snprintf(hi, sizeof(hi), "%.3gs", (double)((uint64_t)AN_GRID_COLS << a->grid_tshift) / 1e9);
	svg_xrange(f, "0", hi);
	double cw = (double)PW / AN_GRID_COLS, rh = (double)PH / AN_GRID_ROWS;
	for (unsigned int r = 0; r < AN_GRID_ROWS; r++) {
		for (unsigned int c = 0; c < AN_GRID_COLS; c++) {
			uint32_t v = a->grid[r][c];
			if (!v)
				continue;
			double op = 0.15 + 0.85 * log1p(v) / log1p(m);
			fprintf(f, "<rect class=\"cell\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				   "height=\"%.1f\" fill-opacity=\"%.2f\"><title>%u I/Os</title></rect>\n",
				c * cw, PH - (r + 1) * rh, cw, rh, op, v);
		}
	}
	svg_close(f);
}

static void chart_bs(FILE *f, const struct analysis *a)
{
	double v[AN_BS_BINS];
	char lab[AN_BS_BINS][16];
	const char *labels[AN_BS_BINS];
	unsigned int n = 0;
	static struct an_op t;

	memset(v, 0, sizeof(v));
	for (unsigned int op = 0; op < IO_OP__COUNT; op++) {
		an_total_op(a, op, &t);
		for (unsigned int i = 0; i < AN_BS_BINS; i++)
			v[i] += (double)t.bs[i];
	}
	unsigned int lo = AN_BS_BINS, hi = 0;
	for (unsigned int i = 0; i < AN_BS_BINS; i++)
		if (v[i] > 0) {
			lo = i < lo ? i : lo;
			hi = i;
		}
	if (lo > hi)
		lo = hi = 0;
	for (unsigned int i = lo; i <= hi; i++, n++) {
		an_bs_label(i, lab[n], sizeof(lab[n]));
		labels[n] = lab[n];
	}
	svg_open(f, "bs", "Block sizes (I/Os per size, bins up to the size shown)", "block size",
		 "I/Os", vmax(v + lo, n));
	svg_bars(f, v + lo, labels, n, vmax(v + lo, n), colours[2]);
	svg_close(f);
}

static void table(FILE *f, const struct analysis *const *as, unsigned int n)
{
	static struct an_op t;

	fprintf(f, "<table><tr><th>trace</th><th>op</th><th>I/Os</th><th>IOPS</th>"
		   "<th>BW (MiB/s)</th><th>avg lat (us)</th><th>p99 lat (us)</th>"
		   "<th>IOPS vs first</th></tr>\n");
	for (unsigned int op = 0; op < IO_OP__COUNT; op++) {
		double base = -1;
		for (unsigned int k = 0; k < n; k++) {
			an_total_op(as[k], op, &t);
			const struct hist *h = t.lat.count ? &t.lat : &t.clat;
			double iops = an_iops(as[k], &t);
			if (base < 0)
				base = iops;
			if (!t.ios)
				continue;
			fprintf(f, "<tr><td style=\"color:%s\">", colours[k % 8]);
			html_esc(f, as[k]->name);
			fprintf(f, "</td><td>%s</td><td>%llu</td><td>%.0f</td><td>%.1f</td><td>%.1f"
				   "</td><td>%.1f</td><td>%s%.2f</td></tr>\n",
				an_op_label(op), (unsigned long long)t.ios, iops,
				an_bw_bytes(as[k], &t) / 1048576.0, hist_mean(h) / 1e3,
				(double)hist_percentile(h, 99) / 1e3, base > 0 ? "x" : "",
				base > 0 ? iops / base : 0.0);
		}
	}
	fprintf(f, "</table>\n");
}

/* p99 latency of each op, a bar per trace in its colour; log scale when they span a decade. */
static void chart_p99(FILE *f, const struct analysis *const *as, unsigned int n, struct hist *h)
{
	unsigned int ops[IO_OP__COUNT], nops = lat_ops(as, n, h, ops);
	double *v = calloc((size_t)IO_OP__COUNT * n, sizeof(double)), lo = INFINITY, hi = 0;
	char b[32];

	if (!v)
		return;
	for (unsigned int i = 0; i < nops; i++) {
		for (unsigned int t = 0; t < n; t++) {
			an_op_lat(as[t], ops[i], h);
			double p = (double)hist_percentile(h, 99);

			v[i * n + t] = h->count ? p : 0;
			lo = h->count && p > 0 && p < lo ? p : lo;
			hi = p > hi ? p : hi;
		}
	}
	struct yaxis ax = yaxis_fit(lo, hi);

	svg_open(f, "cmp-p99", "p99 latency per op and trace", "op",
		 ax.log ? "p99 latency (log scale)" : "p99 latency", -1);
	yaxis_draw(f, &ax);
	double gw = nops ? (double)PW / nops : 0, bw = n ? gw * 0.8 / n : 0;
	for (unsigned int i = 0; i < nops; i++) {
		for (unsigned int t = 0; t < n; t++) {
			double x = i * gw + gw * 0.1 + t * bw, y = yaxis_y(&ax, v[i * n + t]);

			if (v[i * n + t] <= 0)
				continue;
			fprintf(f, "<rect class=\"bar\" fill=\"%s\" x=\"%.1f\" y=\"%.1f\" "
				   "width=\"%.1f\" height=\"%.1f\"><title>", colours[t % 8], x, y,
				bw * 0.9, PH - y);
			html_esc(f, as[t]->name);
			fprintf(f, " %s p99: %s</title></rect>\n", an_op_label(ops[i]),
				lat_label(v[i * n + t], b, sizeof(b)));
		}
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"xt\" text-anchor=\"middle\">%s"
			   "</text>\n", i * gw + gw / 2, PH + 14, an_op_label(ops[i]));
	}
	svg_close(f);
	free(v);
}

static void compare_bars(FILE *f, const struct analysis *const *as, unsigned int n)
{
	double *v = calloc(n, sizeof(double));
	const char **labels = calloc(n, sizeof(char *));
	struct hist *h = malloc(sizeof(*h));

	if (!v || !labels || !h)
		goto out;
	for (unsigned int k = 0; k < n; k++) {
		uint64_t ios = 0;
		for (unsigned int op = 0; op < IO_OP__COUNT; op++)
			for (unsigned int g = 0; g < as[k]->ngroups; g++)
				ios += as[k]->groups[g].op[op].ios;
		uint64_t rt = an_runtime_ns(as[k]);
		v[k] = rt ? (double)ios * 1e9 / (double)rt : 0;
		labels[k] = as[k]->name;
	}
	svg_open(f, "cmp-iops", "IOPS per trace (all ops)", "trace", "IOPS", vmax(v, n));
	svg_bars(f, v, labels, n, vmax(v, n), colours[0]);
	svg_close(f);
	chart_p99(f, as, n, h);
out:
	free(v);
	free(labels);
	free(h);
}

int an_html(const struct analysis *const *as, unsigned int n, FILE *f)
{
	for (unsigned int k = 0; k < n; k++)
		an_finish(as[k]);
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<title>ioreel analyze</title>\n<style>\n"
		   "body{font:14px sans-serif;margin:24px;color:#222;background:#fff}"
		   "h1{font-size:20px}h2{font-size:16px;margin-top:28px}"
		   "figure{display:inline-block;margin:6px}"
		   ".bg{fill:#fafafa;stroke:#999}.grid{stroke:#e4e4e4}"
		   ".line{fill:none;stroke-width:1.5}.cell{fill:#08519c}"
		   ".t{font-weight:bold;font-size:13px}.yl{text-anchor:end;font-size:11px}"
		   ".xl{text-anchor:middle;font-size:11px}.xt{font-size:10px}"
		   "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;"
		   "text-align:right}pre{background:#f4f4f4;padding:8px}.note{color:#555}\n"
		   "</style></head><body>\n<h1>ioreel analyze</h1>\n");
	fprintf(f, "<p>");
	for (unsigned int k = 0; k < n; k++) {
		fprintf(f, "%s<b style=\"color:%s\">", k ? ", " : "", colours[k % 8]);
		html_esc(f, as[k]->name);
		fprintf(f, "</b> (%llu I/Os, %.3f s)", (unsigned long long)as[k]->included,
			(double)an_runtime_ns(as[k]) / 1e9);
	}
	fprintf(f, "</p>\n");
	table(f, as, n);
	if (n > 1) {
		fprintf(f, "<h2>Comparison</h2>\n");
		compare_bars(f, as, n);
	}
	fprintf(f, "<h2>Over time</h2>\n");
	chart_rates(f, as, n);
	fprintf(f, "<h2>Latency</h2>\n");
	chart_latency(f, as, n);
	for (unsigned int k = 0; k < n; k++) {
		fprintf(f, "<h2>Where and how big: ");
		html_esc(f, as[k]->name);
		fprintf(f, "</h2>\n");
		chart_heatmap(f, as[k]);
		chart_bs(f, as[k]);
	}
	fprintf(f, "</body></html>\n");
	return ferror(f) ? -EIO : 0;
}

int analysis__print_html(const struct analysis *const *as, unsigned int n, FILE *out)
{
	return an_html(as, n, out);
}
