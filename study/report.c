// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The study's report: per workload, a table of candidates with each figure's median and range
 * over the repeats and the fastest marked; the same as JSON (DIR/report.json, or stdout with
 * --json); and one HTML page holding, per workload, `ioreel analyze --compare --html`'s
 * charts of each candidate's median repeat side by side, the plan, and the environment with
 * the commands each candidate was built with. Everything from the plan is escaped there.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "analyze/hist.h"
#include "formats/event.h"
#include "formats/trace.h"
#include "study/study.h"
#include "util/cli.h"
#include "util/html.h"
#include "util/json.h"
#include "util/outfile.h"

enum { OP_R, OP_W, OP_F, NOPS };
static const char *const op_names[NOPS] = {"read", "write", "flush"};

/* What one cell measured, per op, from its result trace. */
struct cell_fig {
	bool ok;
	uint64_t ios[NOPS], bytes[NOPS], errors;
	double iops[NOPS], bw[NOPS], lat_mean[NOPS], lat_p99[NOPS];
	double cpu, total_iops;
};

struct range {
	double med, min, max;
	int n;
};

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static struct range range_of(double *v, int n)
{
	struct range r = {0};

	if (!n)
		return r;
	qsort(v, n, sizeof(*v), cmp_d);
	r.n = n;
	r.min = v[0];
	r.max = v[n - 1];
	r.med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return r;
}

void cell_path(const struct plan *p, int c, int w, int r, const char *ext, char *buf, size_t len)
{
	snprintf(buf, len, "%s/cells/%s/%s/r%d.%s", p->results, p->cand[c].name, p->work[w].name,
		 r + 1, ext);
}

/* Per op: IOPS and bandwidth over the run, fio's lat (start to completion) mean and p99. */
static int measure(const char *path, struct cell_fig *fg)
{
	char why[256] = "";
	struct trace_reader *r = trace_reader__open(path, 0, why, sizeof(why));
	struct io_event *buf = malloc(4096 * sizeof(*buf));
	struct hist *h = calloc(NOPS, sizeof(*h));
	uint64_t first = UINT64_MAX, last = 0;
	long n = 0;

	if (!r || !buf || !h) {
		if (r)
			trace_reader__close(r);
		else
			cli_warn("cannot read the cell result %s: %s", path,
				 *why ? why : strerror(errno));
		free(buf);
		free(h);
		return -EIO;
	}
	for (int o = 0; o < NOPS; o++)
		hist_init(&h[o]);
	while ((n = trace_reader__next(r, buf, 4096)) > 0) {
		for (long i = 0; i < n; i++) {
			const struct io_event *e = &buf[i];
			int o = e->op == IO_OP_READ    ? OP_R
				: e->op == IO_OP_WRITE ? OP_W
				: e->op == IO_OP_FLUSH ? OP_F
						       : -1;

			if (e->queue_ns == IO_TS_NONE || e->complete_ns == IO_TS_NONE ||
			    e->complete_ns < e->queue_ns)
				continue;
			first = e->queue_ns < first ? e->queue_ns : first;
			last = e->complete_ns > last ? e->complete_ns : last;
			if (o < 0)
				continue;
			if (e->error) {
				fg->errors++;
				continue;
			}
			hist_add(&h[o], e->complete_ns - e->queue_ns);
			fg->ios[o]++;
			fg->bytes[o] += e->length;
		}
	}
	if (n < 0)
		cli_warn("%s: %s", path, trace_reader__error(r));
	for (int o = 0; o < NOPS && last > first; o++) {
		double span = (double)(last - first);

		fg->iops[o] = fg->ios[o] * 1e9 / span;
		fg->bw[o] = fg->bytes[o] * 1e9 / span;
		fg->lat_mean[o] = h[o].count ? hist_mean(&h[o]) : 0;
		fg->lat_p99[o] = h[o].count ? (double)hist_percentile(&h[o], 99.0) : 0;
		fg->total_iops += fg->iops[o];
	}
	fg->ok = n >= 0;
	trace_reader__close(r);
	free(buf);
	free(h);
	return n < 0 ? -EIO : 0;
}

/* The figures of every (candidate, workload) over its repeats. */
struct agg {
	int n;
	bool has[NOPS];
	struct range iops[NOPS], bw[NOPS], mean[NOPS], p99[NOPS], cpu, total;
	int median_rep; /* the repeat whose total IOPS is the median: its charts are shown */
};

static void aggregate(const struct plan *p, const struct cell_result *cells, int ncells,
		      struct cell_fig *figs, int c, int w, struct agg *a)
{
	double v[6][NOPS][STUDY_MAX_REPEATS], cpu[STUDY_MAX_REPEATS], tot[STUDY_MAX_REPEATS];
	double tot_sorted[STUDY_MAX_REPEATS];
	int reps[STUDY_MAX_REPEATS];

	memset(a, 0, sizeof(*a));
	a->median_rep = -1;
	for (int i = 0; i < ncells; i++) {
		const struct cell_fig *f = &figs[i];

		if (cells[i].cand != c || cells[i].work != w || !f->ok)
			continue;
		for (int o = 0; o < NOPS; o++) {
			v[0][o][a->n] = f->iops[o];
			v[1][o][a->n] = f->bw[o];
			v[2][o][a->n] = f->lat_mean[o];
			v[3][o][a->n] = f->lat_p99[o];
			a->has[o] |= f->ios[o] > 0;
		}
		cpu[a->n] = cells[i].cpu_pct;
		tot[a->n] = tot_sorted[a->n] = f->total_iops;
		reps[a->n] = cells[i].rep;
		a->n++;
	}
	(void)p;
	if (!a->n)
		return;
	for (int o = 0; o < NOPS; o++) {
		a->iops[o] = range_of(v[0][o], a->n);
		a->bw[o] = range_of(v[1][o], a->n);
		a->mean[o] = range_of(v[2][o], a->n);
		a->p99[o] = range_of(v[3][o], a->n);
	}
	a->cpu = range_of(cpu, a->n);
	a->total = range_of(tot_sorted, a->n);
	/* the repeat nearest the median: its charts stand for the candidate */
	for (int i = 0, bi = 0; i < a->n; i++) {
		double d = tot[i] - a->total.med, e = tot[bi] - a->total.med;

		if (!i || (d < 0 ? -d : d) < (e < 0 ? -e : e)) {
			bi = i;
			a->median_rep = reps[i];
		}
	}
}

/*
 * "MED [MIN-MAX] UNIT", the unit chosen by the median: 0 a count, 1 bytes/s, 2 ns, 3 percent.
 * One unit for the three numbers keeps a column readable at a glance.
 */
static char *fmt_range(const struct range *r, int unit, char *buf, size_t len)
{
	static const char *const bw_units[] = {"B/s", "KiB/s", "MiB/s", "GiB/s"};
	static const char *const ns_units[] = {"ns", "us", "ms", "s"};
	const char *u = "";
	double div = 1;
	int dec = 0;

	if (unit == 0) {
		if (r->med >= 1e6) {
			div = 1e6;
			u = "M";
			dec = 2;
		} else if (r->med >= 1e4) {
			div = 1e3;
			u = "k";
			dec = 1;
		}
	} else if (unit == 1) {
		int i = 0;

		while (i < 3 && r->med / div >= 1024) {
			div *= 1024;
			i++;
		}
		u = bw_units[i];
		dec = 1;
	} else if (unit == 2) {
		int i = 0;

		while (i < 3 && r->med / div >= 1000) {
			div *= 1000;
			i++;
		}
		u = ns_units[i];
		dec = i ? 1 : 0;
	} else {
		dec = 1;
	}
	if (r->n > 1)
		snprintf(buf, len, "%.*f [%.*f-%.*f]%s%s", dec, r->med / div, dec, r->min / div,
			 dec, r->max / div, *u && unit ? " " : "", u);
	else
		snprintf(buf, len, "%.*f%s%s", dec, r->med / div, *u && unit ? " " : "", u);
	return buf;
}

static int fastest(struct agg *ag, int ncand)
{
	int best = -1;

	for (int c = 0; c < ncand; c++)
		if (ag[c].n && (best < 0 || ag[c].total.med > ag[best].total.med))
			best = c;
	return best;
}

static void work_desc(const struct workload *w, char *buf, size_t len)
{
	if (w->kind == WORK_PRESET)
		snprintf(buf, len, "preset %s", w->preset);
	else if (w->kind == WORK_FIO)
		snprintf(buf, len, "fio job %s%s%s", w->fio, w->section ? ", section " : "",
			 w->section ? w->section : "");
	else
		snprintf(buf, len, "trace %s, mode %s", w->trace,
			 *w->mode ? w->mode : "replay's default");
}

static void print_table(FILE *f, const struct plan *p, struct agg ag[][STUDY_MAX_WORK], int w)
{
	char d[4400], s1[128], s2[128], s3[128], s4[128], s5[128];
	struct agg col[STUDY_MAX_CAND];
	int best;

	for (int c = 0; c < p->ncand; c++)
		col[c] = ag[c][w];
	best = fastest(col, p->ncand);
	work_desc(&p->work[w], d, sizeof(d));
	fprintf(f, "\n[%s] %s: median [min-max] over %d repeat%s, * the fastest (IOPS)\n",
		p->work[w].name, d, p->repeats, p->repeats > 1 ? "s" : "");
	fprintf(f, "  %-16s %-5s %-22s %-26s %-24s %-24s %s\n", "candidate", "op", "IOPS", "BW",
		"mean lat", "p99 lat", "CPU%");
	for (int c = 0; c < p->ncand; c++) {
		const struct agg *a = &ag[c][w];
		bool any = false;

		if (!a->n) {
			fprintf(f, "  %-16s (no finished run)\n", p->cand[c].name);
			continue;
		}
		for (int o = 0; o < NOPS; o++) {
			if (!a->has[o])
				continue;
			fprintf(f, "%c %-16s %-5s %-22s %-26s %-24s %-24s %s\n",
				c == best && !any ? '*' : ' ', any ? "" : p->cand[c].name,
				op_names[o], fmt_range(&a->iops[o], 0, s1, sizeof(s1)),
				o == OP_F ? "-" : fmt_range(&a->bw[o], 1, s2, sizeof(s2)),
				fmt_range(&a->mean[o], 2, s3, sizeof(s3)),
				fmt_range(&a->p99[o], 2, s4, sizeof(s4)),
				any ? "" : fmt_range(&a->cpu, 3, s5, sizeof(s5)));
			any = true;
		}
		if (!any)
			fprintf(f, "  %-16s (no I/O completed)\n", p->cand[c].name);
	}
}

static void json_range(FILE *f, const char *k, const struct range *r)
{
	fprintf(f, "\"%s\": {\"median\": %.3f, \"min\": %.3f, \"max\": %.3f}", k, r->med, r->min,
		r->max);
}

static void write_json(FILE *f, const struct plan *p, struct agg ag[][STUDY_MAX_WORK])
{
	struct utsname u;

	uname(&u);
	fprintf(f, "{\"ioreel_study\": 1, \"plan\": ");
	json_str(f, p->path);
	fprintf(f, ", \"repeats\": %d, \"kernel\": ", p->repeats);
	json_str(f, u.release);
	fprintf(f, ", \"workloads\": [");
	for (int w = 0; w < p->nwork; w++) {
		struct agg col[STUDY_MAX_CAND];
		char d[4400];
		int best;

		for (int c = 0; c < p->ncand; c++)
			col[c] = ag[c][w];
		best = fastest(col, p->ncand);
		work_desc(&p->work[w], d, sizeof(d));
		fprintf(f, "%s\n {\"name\": ", w ? "," : "");
		json_str(f, p->work[w].name);
		fprintf(f, ", \"what\": ");
		json_str(f, d);
		fprintf(f, ", \"fastest\": ");
		if (best >= 0)
			json_str(f, p->cand[best].name);
		else
			fputs("null", f);
		fprintf(f, ", \"candidates\": [");
		for (int c = 0; c < p->ncand; c++) {
			const struct agg *a = &ag[c][w];
			bool first = true;

			fprintf(f, "%s\n  {\"name\": ", c ? "," : "");
			json_str(f, p->cand[c].name);
			fprintf(f, ", \"repeats_done\": %d, ", a->n);
			json_range(f, "cpu_pct", &a->cpu);
			fprintf(f, ", \"ops\": {");
			for (int o = 0; o < NOPS; o++) {
				if (!a->has[o])
					continue;
				fprintf(f, "%s\"%s\": {", first ? "" : ", ", op_names[o]);
				json_range(f, "iops", &a->iops[o]);
				fputs(", ", f);
				json_range(f, "bw_bytes", &a->bw[o]);
				fputs(", ", f);
				json_range(f, "lat_mean_ns", &a->mean[o]);
				fputs(", ", f);
				json_range(f, "lat_p99_ns", &a->p99[o]);
				fputs("}", f);
				first = false;
			}
			fputs("}}", f);
		}
		fputs("]}", f);
	}
	fputs("\n]}\n", f);
}

/* Copies a file's text into f, escaped (a candidate's commands, an analyze page). */
static void esc_file(FILE *f, const char *path)
{
	FILE *in = fopen(path, "r");
	char buf[4096];
	size_t n;

	if (!in) {
		fputs("(not available)", f);
		return;
	}
	while ((n = fread(buf, 1, sizeof(buf) - 1, in)) > 0) {
		buf[n] = '\0';
		html_esc(f, buf);
	}
	fclose(in);
}

static void env_devices(FILE *f, const struct plan *p)
{
	fputs("<table><tr><th>device</th><th>size</th><th>model</th><th>candidates</th></tr>\n", f);
	for (int c = 0; c < p->ncand; c++)
		for (int d = 0; d < p->cand[c].ndev; d++) {
			const char *dev = p->cand[c].devices[d], *base = strrchr(dev, '/');
			char path[512], model[256] = "", size[32] = "?";
			unsigned long long sectors = 0;
			bool seen = false;
			FILE *m;

			for (int c2 = 0; c2 <= c && !seen; c2++)
				for (int d2 = 0; d2 < (c2 < c ? p->cand[c2].ndev : d); d2++)
					seen |= !strcmp(p->cand[c2].devices[d2], dev);
			if (seen)
				continue;
			base = base ? base + 1 : dev;
			snprintf(path, sizeof(path), "/sys/class/block/%s/device/model", base);
			if ((m = fopen(path, "r"))) {
				if (!fgets(model, sizeof(model), m))
					model[0] = '\0';
				model[strcspn(model, "\n")] = '\0';
				fclose(m);
			}
			snprintf(path, sizeof(path), "/sys/class/block/%s/size", base);
			if ((m = fopen(path, "r"))) {
				if (fscanf(m, "%llu", &sectors) == 1)
					fmt_bytes(sectors * 512, size, sizeof(size));
				fclose(m);
			}
			fputs("<tr><td>", f);
			html_esc(f, dev);
			fprintf(f, "</td><td>%s</td><td>", size);
			html_esc(f, model);
			fputs("</td><td>", f);
			for (int c2 = 0; c2 < p->ncand; c2++)
				for (int d2 = 0; d2 < p->cand[c2].ndev; d2++)
					if (!strcmp(p->cand[c2].devices[d2], dev)) {
						html_esc(f, p->cand[c2].name);
						fputc(' ', f);
					}
			fputs("</td></tr>\n", f);
		}
	fputs("</table>\n", f);
}

static void write_html(FILE *f, const struct plan *p, struct agg ag[][STUDY_MAX_WORK],
		       char html_paths[][PATH_MAX])
{
	struct utsname u;

	uname(&u);
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ioreel study: ", f);
	html_esc(f, p->path);
	fputs("</title><style>body{font-family:sans-serif;margin:1em 2em}"
	      "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;"
	      "text-align:right}th{background:#eee}td:first-child{text-align:left}"
	      "pre{background:#f6f6f6;padding:.5em}iframe{width:100%;height:900px;"
	      "border:1px solid #ccc}.best{font-weight:bold}</style></head><body>\n",
	      f);
	fputs("<h1>ioreel study: ", f);
	html_esc(f, p->path);
	fprintf(f,
		"</h1>\n<p>%d repeats per cell; each figure is the median [min-max] over the "
		"repeats; <b>bold</b>: the fastest candidate (IOPS). Latency: from an I/O's "
		"start to its completion (fio's lat). CPU%%: the replayer's, over its run (the first "
		"run of a workload on a candidate includes writing once what it reads, which "
		"is not timed).</p>\n",
		p->repeats);
	for (int w = 0; w < p->nwork; w++) {
		struct agg col[STUDY_MAX_CAND];
		char d[4400], s[128];
		int best;

		for (int c = 0; c < p->ncand; c++)
			col[c] = ag[c][w];
		best = fastest(col, p->ncand);
		work_desc(&p->work[w], d, sizeof(d));
		fputs("<h2>", f);
		html_esc(f, p->work[w].name);
		fputs(": ", f);
		html_esc(f, d);
		fputs("</h2>\n<table><tr><th>candidate</th><th>op</th><th>IOPS</th><th>BW</th>"
		      "<th>mean lat</th><th>p99 lat</th><th>CPU%</th></tr>\n",
		      f);
		for (int c = 0; c < p->ncand; c++) {
			const struct agg *a = &ag[c][w];

			for (int o = 0; o < NOPS; o++) {
				if (!a->has[o])
					continue;
				fprintf(f, "<tr%s><td>", c == best ? " class=\"best\"" : "");
				html_esc(f, p->cand[c].name);
				fprintf(f, "</td><td>%s</td>", op_names[o]);
				fprintf(f, "<td>%s</td>", fmt_range(&a->iops[o], 0, s, sizeof(s)));
				fprintf(f, "<td>%s</td>",
					o == OP_F ? "-" : fmt_range(&a->bw[o], 1, s, sizeof(s)));
				fprintf(f, "<td>%s</td>", fmt_range(&a->mean[o], 2, s, sizeof(s)));
				fprintf(f, "<td>%s</td>", fmt_range(&a->p99[o], 2, s, sizeof(s)));
				fprintf(f, "<td>%s</td></tr>\n",
					fmt_range(&a->cpu, 3, s, sizeof(s)));
			}
		}
		fputs("</table>\n", f);
		if (*html_paths[w]) {
			/* analyze's own page, whole, inside this one: srcdoc keeps it one file */
			fputs(
			    "<p>Each candidate's median repeat, as <code>ioreel analyze --compare "
			    "--html</code> shows it:</p>\n<iframe srcdoc=\"",
			    f);
			esc_file(f, html_paths[w]);
			fputs("\"></iframe>\n", f);
		}
	}
	fputs("<h2>Environment</h2>\n<p>Kernel: ", f);
	html_esc(f, u.sysname);
	fputc(' ', f);
	html_esc(f, u.release);
	fputc(' ', f);
	html_esc(f, u.version);
	fputs(", host ", f);
	html_esc(f, u.nodename);
	fputs("</p>\n", f);
	env_devices(f, p);
	for (int c = 0; c < p->ncand; c++) {
		char path[PATH_MAX];

		fputs("<h3>Candidate ", f);
		html_esc(f, p->cand[c].name);
		fputs(": commands as run</h3>\n<pre>", f);
		snprintf(path, sizeof(path), "%s/built/%s.sh", p->results, p->cand[c].name);
		esc_file(f, path);
		fputs("</pre>\n", f);
	}
	fputs("<h2>The plan</h2>\n<pre>", f);
	html_esc(f, p->text);
	fputs("</pre>\n</body></html>\n", f);
}

/* Writes path through a temporary file renamed into place (util/outfile.h). */
static int write_out(const char *path, void (*fn)(FILE *, void *), void *arg)
{
	struct outfile o;
	FILE *f;
	int ret = outfile_open(&o, path), bad;

	if (ret) {
		cli_error("cannot write %s: %s", path, outfile_strerror(-ret));
		return ret;
	}
	f = outfile_fdopen(&o);
	if (!f) {
		ret = -errno;
		outfile_abort(&o);
		cli_error("cannot write %s: %s", path, strerror(-ret));
		return ret;
	}
	fn(f, arg);
	bad = ferror(f);
	bad |= fclose(f);
	ret = bad ? -EIO : outfile_commit(&o);
	if (bad)
		outfile_abort(&o);
	if (ret)
		cli_error("cannot write %s: %s", path, strerror(-ret));
	return ret;
}

struct out_args {
	const struct plan *p;
	struct agg (*ag)[STUDY_MAX_WORK];
	char (*html)[PATH_MAX];
};

static void json_fn(FILE *f, void *arg)
{
	struct out_args *a = arg;

	write_json(f, a->p, a->ag);
}

static void html_fn(FILE *f, void *arg)
{
	struct out_args *a = arg;

	write_html(f, a->p, a->ag, a->html);
}

/* ioreel analyze --compare --html over each candidate's median repeat of workload w. */
static int analyze_html(const struct plan *p, struct agg ag[][STUDY_MAX_WORK], int w,
			const struct report_opts *o,
			int (*run_cmd)(char *const argv[], const char *out, void *), void *arg,
			char *out, size_t outlen)
{
	char *v[STUDY_MAX_CAND + 8], dir[2300], txt[2400], links[STUDY_MAX_CAND][PATH_MAX];
	int n = 0, ret;

	*out = '\0';
	snprintf(dir, sizeof(dir), "%s/html/%s", p->results, p->work[w].name);
	if (!o->dry_run && mkdir(dir, 0755) && errno != EEXIST) {
		char up[PATH_MAX];

		snprintf(up, sizeof(up), "%s/html", p->results);
		mkdir(up, 0755);
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -errno;
	}
	v[n++] = (char *)o->self;
	v[n++] = "analyze";
	for (int c = 0; c < p->ncand; c++) {
		char src[PATH_MAX];
		int rep = o->dry_run ? 0 : ag[c][w].median_rep;

		if (rep < 0)
			continue;
		/* linked under the candidate's name: analyze labels each trace by its file name */
		cell_path(p, c, w, rep, "ioreel", src, sizeof(src));
		snprintf(links[c], sizeof(links[c]), "%s/%s.ioreel", dir, p->cand[c].name);
		if (!o->dry_run) {
			unlink(links[c]);
			if (link(src, links[c]) && symlink(src, links[c]))
				continue;
		}
		v[n++] = links[c];
	}
	if (n == 2)
		return 0;
	snprintf(out, outlen, "%s/analyze.html", dir);
	snprintf(txt, sizeof(txt), "%s/analyze.txt", dir);
	v[n++] = "--compare";
	v[n++] = "--html";
	v[n++] = out;
	v[n] = NULL;
	ret = run_cmd(v, txt, arg);
	if (ret) {
		cli_warn("ioreel analyze --html for [%s] failed (exit status %d): the page has no "
			 "charts for it",
			 p->work[w].name, ret);
		*out = '\0';
	}
	return 0;
}

int report_write(const struct plan *p, const struct cell_result *cells, int ncells,
		 const struct report_opts *o,
		 int (*run_cmd)(char *const argv[], const char *out, void *arg), void *arg)
{
	struct cell_fig *figs = calloc(ncells + 1, sizeof(*figs));
	struct agg(*ag)[STUDY_MAX_WORK] = calloc(STUDY_MAX_CAND, sizeof(*ag));
	char(*html)[PATH_MAX] = calloc(STUDY_MAX_WORK, PATH_MAX);
	struct out_args oa = {p, NULL, NULL};
	char path[PATH_MAX];
	int ret = 0;

	if (!figs || !ag || !html) {
		free(figs);
		free(ag);
		free(html);
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	oa.ag = ag;
	oa.html = html;
	for (int i = 0; i < ncells; i++) {
		cell_path(p, cells[i].cand, cells[i].work, cells[i].rep, "ioreel", path,
			  sizeof(path));
		measure(path, &figs[i]);
	}
	for (int c = 0; c < p->ncand; c++)
		for (int w = 0; w < p->nwork; w++)
			aggregate(p, cells, ncells, figs, c, w, &ag[c][w]);
	if (o->dry_run)
		printf("\n# the report\n");
	for (int w = 0; w < p->nwork; w++)
		analyze_html(p, ag, w, o, run_cmd, arg, html[w], PATH_MAX);
	if (o->dry_run)
		goto out;
	snprintf(path, sizeof(path), "%s/report.json", p->results);
	if (write_out(path, json_fn, &oa))
		ret = EXIT_RUNTIME;
	snprintf(path, sizeof(path), "%s/report.html", p->results);
	if (write_out(path, html_fn, &oa))
		ret = EXIT_RUNTIME;
	if (o->json) {
		write_json(stdout, p, ag);
	} else {
		for (int w = 0; w < p->nwork; w++)
			print_table(stdout, p, ag, w);
		printf("\nreport: %s/report.html, %s/report.json\n", p->results, p->results);
	}
	if (fflush(stdout) || ferror(stdout)) {
		cli_error("cannot write the report to stdout: %s", strerror(errno));
		ret = EXIT_RUNTIME;
	}
out:
	free(figs);
	free(ag);
	free(html);
	return ret;
}
