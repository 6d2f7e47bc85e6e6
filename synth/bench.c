// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `ioreel bench`: synthesize each preset, replay it on each target with replay_run() (same
 * engines and the same write guards as `ioreel replay`), and print the side-by-side table
 * users build by hand from fio runs: IOPS, bandwidth, mean and p99 latency, CPU%.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ioreel.h"
#include "analyze/analyze.h"
#include "analyze/hist.h"
#include "replay/dep/dep.h"
#include "replay/engine/engine.h"
#include "replay/replay.h"
#include "synth/synth.h"
#include "util/cli.h"
#include "util/json.h"
#include "util/outfile.h"

#define BENCH_MAX 16

struct bench_row {
	char pattern[64];
	const char *target;
	uint64_t ios, bytes, errors, span_ns, skipped;
	double iops, bw, lat_avg, cpu_pct;
	uint64_t lat_p99;
	struct replay_unwritten uw; /* never-written space it read, and the prefill */
	struct analysis *an; /* the replay's analysis, kept for --html */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ioreel bench --preset P [--preset P2 ...] --target A [--target B ...]\n"
		"       ioreel bench --trace T [--mode timed|dep|afap ...] --target A [...]\n"
		"                    [--runtime S] [--size SIZE] [--number-ios N] [--engine E]\n"
		"                    [--allow-writes]\n"
		"                    [--force] [--prefill | --no-prefill] [--json] [--html FILE]\n"
		"\n"
		"Replays each preset (ioreel synth --list-presets; cdm counts as its four tests) on\n"
		"each target and prints IOPS, bandwidth, average and p99 latency (fio's lat: from\n"
		"the I/O's start, submit call included, to its completion) and the replayer's CPU%%\n"
		"side by side. Writes are refused exactly as in `ioreel replay` unless\n"
		"--allow-writes (and --force for a device with data).\n"
		"--runtime makes every pattern time-based for that long (default: the preset's);\n"
		"--size sets the region the patterns use (default: the preset's); --number-ios N\n"
		"bounds each pattern's I/Os per job (a large --size needs it).\n"
		"--html writes one page comparing every run (charts as in ioreel analyze --html).\n"
		"--trace replays a recorded trace on each target in each --mode (default: timed,\n"
		"the recorded load: can the target absorb it; and dep, each I/O once those it\n"
		"waited for completed: how would the recorded workload run there), one row each.\n"
		"By default dep is skipped, with a note, for a trace without completion times or\n"
		"thread ids (synthesized, imported); a closed-loop trace (synth without a rate)\n"
		"has no times at all and gets one row, replayed closed loop (--mode afap also).\n"
		"\n"
		"Reads of never-written space (file holes, a fresh zram, a loop device over a sparse\n"
		"file) return zeroes from memory and make a target look many times faster than it\n"
		"is. Before a pattern that reads, bench asks each target (SEEK_HOLE, zram's mm_stat)\n"
		"how much of what it will read was never written; where some was, it writes it\n"
		"once with random data first (not timed) and says so, if --allow-writes is given,\n"
		"and otherwise warns and marks the row. --prefill writes the read region of every\n"
		"target once, even of those it cannot ask (an SSD after a trim, a thin volume);\n"
		"--no-prefill measures what is there as it is.\n"
		"\n"
		"examples:\n"
		"  ioreel bench --preset 4k-randread --preset 4m-seqread --target /dev/md1 \\\n"
		"               --target /dev/md2 --runtime 30\n"
		"  ioreel bench --preset cdm --target /mnt/xfs/f.img --target /mnt/ext4/f.img \\\n"
		"               --size 1G --allow-writes --json\n"
		"  ioreel bench --preset 4k-randread --target /dev/nvme0n1 --allow-writes --prefill\n"
		"  ioreel bench --trace prod.ioreel --target /dev/md1 --target /dev/md2 \\\n"
		"               --allow-writes --force\n");
}

/* Latency and span from the replay's result trace (issue -> complete of data I/Os). */
static int measure(const char *path, struct bench_row *row, char *why, size_t len)
{
	struct trace_reader *r = trace_reader__open(path, 0, why, len);
	struct io_event *buf = malloc(4096 * sizeof(*buf));
	struct hist *h = malloc(sizeof(*h));
	uint64_t first = UINT64_MAX, last = 0;
	long n;
	int err = 0;

	if (!r || !buf || !h) {
		err = r ? -ENOMEM : -errno;
		if (r)
			snprintf(why, len, "out of memory");
		goto out;
	}
	hist_init(h);
	while ((n = trace_reader__next(r, buf, 4096)) > 0) {
		for (long i = 0; i < n; i++) {
			const struct io_event *e = &buf[i];

			if (e->queue_ns == IO_TS_NONE || e->issue_ns == IO_TS_NONE ||
			    e->complete_ns == IO_TS_NONE || e->complete_ns < e->issue_ns ||
			    e->complete_ns < e->queue_ns)
				continue;
			first = e->issue_ns < first ? e->issue_ns : first;
			last = e->complete_ns > last ? e->complete_ns : last;
			if (e->op != IO_OP_READ && e->op != IO_OP_WRITE)
				continue;
			if (e->error) {
				row->errors++;
				continue;
			}
			/* fio's lat: from the I/O's start to its completion, the submit call
			 * included (on zram the work happens inside it). */
			hist_add(h, e->complete_ns - e->queue_ns);
			row->ios++;
			row->bytes += e->length;
		}
	}
	if (n < 0) {
		err = (int)n;
		snprintf(why, len, "%s", trace_reader__error(r));
		goto out;
	}
	row->span_ns = last > first ? last - first : 0;
	if (row->span_ns) {
		row->iops = row->ios * 1e9 / row->span_ns;
		row->bw = row->bytes * 1e9 / row->span_ns;
	}
	row->lat_avg = h->count ? hist_mean(h) : 0;
	row->lat_p99 = h->count ? hist_percentile(h, 99.0) : 0;
out:
	if (r)
		trace_reader__close(r);
	free(buf);
	free(h);
	return err;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* The share as JSON: a number, or null where the target could not tell. */
static const char *unwritten_share(const struct replay_unwritten *u, uint64_t part, char *buf,
				   size_t len)
{
	if (!u->method || !u->region_bytes)
		return "null";
	snprintf(buf, len, "%.6f", (double)part / (double)u->region_bytes);
	return buf;
}

static void print_rows(const struct bench_row *rows, size_t n, bool json)
{
	char b1[32], b2[32], b3[32];

	if (json) {
		printf("{\"results\": [");
		for (size_t i = 0; i < n; i++) {
			const struct bench_row *r = &rows[i];

			printf("%s{\"pattern\": ", i ? ", " : "");
			json_str(stdout, r->pattern); /* a --trace's file name is in it */
			printf(", \"target\": ");
			json_str(stdout, r->target);
			printf(", \"ios\": %llu, "
			       "\"errors\": %llu, \"iops\": %.1f, \"bw_bytes\": %.0f, "
			       "\"lat_avg_ns\": %.0f, \"lat_p99_ns\": %llu, \"cpu_pct\": %.1f, "
			       "\"span_ns\": %llu, \"skipped\": %llu, \"unwritten_share\": %s, "
			       "\"unwritten_share_found\": %s, \"prefilled_bytes\": %llu}",
			       (unsigned long long)r->ios,
			       (unsigned long long)r->errors, r->iops, r->bw, r->lat_avg,
			       (unsigned long long)r->lat_p99, r->cpu_pct,
			       (unsigned long long)r->span_ns, (unsigned long long)r->skipped,
			       unwritten_share(&r->uw, r->uw.start_bytes, b1, sizeof(b1)),
			       unwritten_share(&r->uw, r->uw.found_bytes, b2, sizeof(b2)),
			       (unsigned long long)r->uw.prefilled_bytes);
		}
		printf("]}\n");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct bench_row *r = &rows[i];

		if (!i || strcmp(r->pattern, rows[i - 1].pattern))
			printf("%s%-22s %-28s %10s %12s %10s %10s %6s\n", i ? "\n" : "", r->pattern,
			       "target", "IOPS", "BW", "avg lat", "p99 lat", "CPU%");
		fmt_bytes((uint64_t)r->bw, b1, sizeof(b1));
		strcat(b1, "/s");
		printf("%-22s %-28s %10.0f %12s %10s %10s %6.1f%s", "", r->target, r->iops, b1,
		       fmt_ns((uint64_t)r->lat_avg, b2, sizeof(b2)),
		       fmt_ns(r->lat_p99, b3, sizeof(b3)), r->cpu_pct,
		       r->errors ? "  (errors)" : "");
		if (r->skipped)
			printf("  (%llu I/Os not replayed: writes need --allow-writes)",
			       (unsigned long long)r->skipped);
		if (r->uw.prefilled_bytes)
			printf("  (prefilled %s first)", fmt_bytes(r->uw.prefilled_bytes, b1, sizeof(b1)));
		if (r->uw.method && r->uw.start_bytes)
			printf("  (%.0f%% never written: reads of it never reached the storage)",
			       100.0 * (double)r->uw.start_bytes / (double)r->uw.region_bytes);
		printf("\n");
	}
}

/* Replays one trace (mode: enum replay_mode) on every target, a row each. 0 or an exit code. */
static int run_targets(const char *trace, const char *pattern, int mode,
		       const char *const *targets, int ntargets, const struct replay_opts *base,
		       const char *dir, bool quiet, bool keep, bool *filled, struct bench_row *rows,
		       size_t *nrows)
{
	char out[4200], why[1024];
	int err;

	for (int t = 0; t < ntargets; t++) {
		struct replay_opts o = *base;
		struct replay_result res;
		struct bench_row *row = &rows[(*nrows)++];
		uint64_t wall0, wall;
		double cpu0;

		memset(row, 0, sizeof(*row));
		memset(&res, 0, sizeof(res));
		snprintf(row->pattern, sizeof(row->pattern), "%s", pattern);
		row->target = targets[t];
		snprintf(out, sizeof(out), "%s/%s-%d.ioreel", dir, pattern, t);
		o.trace = trace;
		o.target = targets[t];
		o.output = out;
		o.mode = mode;
		/* --prefill writes a target once; later patterns only what is still unwritten */
		if (o.prefill == REPLAY_PREFILL_ON && filled[t])
			o.prefill = REPLAY_PREFILL_AUTO;
		if (!quiet)
			fprintf(stderr, "ioreel bench: %s on %s ...\n", pattern, targets[t]);
		cpu0 = cpu_s();
		wall0 = now_mono_ns();
		why[0] = '\0';
		err = replay_run(&o, &res, why, sizeof(why));
		wall = now_mono_ns() - wall0;
		if (res.warnings[0])
			fprintf(stderr, "%s", res.warnings);
		if (replay_stop) { /* a partial run is no row: cmd_bench says what finished */
			replay_result_free(&res);
			unlink(out);
			(*nrows)--;
			return EXIT_RUNTIME;
		}
		if (err) {
			cli_error("%s on %s: %s", pattern, targets[t], why);
			replay_result_free(&res);
			unlink(out);
			return EXIT_RUNTIME;
		}
		/* CPU time and wall time over the same call: the clocked part alone (elapsed_ns)
		 * left out the prescan the CPU time holds, 72193.8 % on a short run (issue 21 W8) */
		row->cpu_pct = wall ? (cpu_s() - cpu0) * 1e11 / (double)wall : 0;
		for (int k = 0; k < 5; k++)
			row->skipped += res.skipped[k];
		row->uw = res.unwritten[0]; /* bench's synthesized traces have one device */
		filled[t] |= row->uw.prefilled_bytes > 0;
		if (keep && res.analysis) {
			char label[256];

			snprintf(label, sizeof(label), "%s on %s", pattern, targets[t]);
			row->an = res.analysis;
			res.analysis = NULL;
			analysis__set_name(row->an, label);
		}
		replay_result_free(&res);
		err = measure(out, row, why, sizeof(why));
		unlink(out);
		if (err) {
			cli_error("reading the result of %s on %s: %s", pattern, targets[t], why);
			return EXIT_RUNTIME;
		}
	}
	return 0;
}

/* Synthesizes one preset pattern into the scratch directory and replays it on every target. */
static int run_pattern(struct synth_spec *spec, const char *pattern, const char *const *targets,
		       int ntargets, const struct replay_opts *base, const char *dir, bool quiet,
		       bool keep, bool *filled, struct bench_row *rows, size_t *nrows)
{
	char trace[4200], why[1024];
	struct trace_meta *meta = calloc(1, sizeof(*meta));
	struct synth_counts c;
	int err;

	if (!meta)
		return EXIT_RUNTIME;
	snprintf(trace, sizeof(trace), "%s/%s.ioreel", dir, pattern);
	err = synth_write_trace(spec, trace, NULL, 0, "ioreel bench", meta, &c, why, sizeof(why));
	free(meta);
	if (err) {
		cli_error("%s: %s", pattern, why);
		return err == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	err = run_targets(trace, pattern, REPLAY_MODE_AUTO, targets, ntargets, base, dir, quiet,
			  keep, filled, rows, nrows);
	unlink(trace);
	return err;
}

/* "timed", "dep", "afap" -> enum replay_mode; -1 when not one bench replays traces in. */
static int trace_mode(const char *s)
{
	if (!strcmp(s, "timed"))
		return REPLAY_TIMED;
	if (!strcmp(s, "dep"))
		return REPLAY_DEP;
	if (!strcmp(s, "afap"))
		return REPLAY_AFAP;
	return -1;
}

static void bench_warn(const char *msg)
{
	cli_warn("%s", msg);
}

/* What a --trace allows: timed and dep need times; dep also completions and thread ids. */
struct trace_fit {
	bool closed; /* closed loop (synthesized without a rate): an order, no times */
	bool file_level; /* refused: calls on files, not I/O on a device */
	bool dep_ok;
	char why[512]; /* why dep cannot be used */
};

/* One pass, counted as replay's prescan counts (replay/dep.h). 0 or -errno (message in err). */
static int trace_fit(const char *path, struct trace_fit *f, char *err, size_t len)
{
	struct trace_reader *r = trace_reader__open(path, 0, err, len);
	struct io_event *buf = malloc(4096 * sizeof(*buf));
	struct dep_fitness fit = { 0 };
	long n = 0;

	memset(f, 0, sizeof(*f));
	if (!r || !buf) {
		int e = r ? -ENOMEM : -errno;

		if (r) {
			snprintf(err, len, "%s: out of memory", path);
			trace_reader__close(r);
		}
		free(buf);
		return e;
	}
	if (trace_reader__meta(r)->level == TRACE_LEVEL_FILE) {
		/* bench has no --root: replay's own refusal named an option bench does not take */
		snprintf(err, len, "%s: a file-level trace (record --level file): bench replays block "
			 "traces onto devices; replay it under a directory with ioreel replay %s "
			 "--root DIR", path, path);
		f->file_level = true;
		trace_reader__close(r);
		free(buf);
		return -EINVAL;
	}
	f->closed = trace_reader__meta(r)->mode == TRACE_MODE_CLOSED;
	while (!f->closed && (n = trace_reader__next(r, buf, 4096)) > 0) {
		for (long i = 0; i < n; i++) {
			fit.events++;
			fit.no_completion += buf[i].complete_ns == IO_TS_NONE;
			fit.no_tid += !buf[i].tid;
		}
	}
	if (n < 0)
		snprintf(err, len, "%s", trace_reader__error(r));
	else
		f->dep_ok = !f->closed && dep_fitness_ok(&fit, f->why, sizeof(f->why));
	trace_reader__close(r);
	free(buf);
	return n < 0 ? (int)n : 0;
}

/*
 * The modes a trace is replayed in: the ones asked for, refused (exit 2, in bench's own words:
 * replay's hint names --dep-fallback, which bench has not) where the trace cannot take them;
 * or by default timed and dep, dep skipped with a note on stderr where it cannot be used, and
 * one closed-loop row for a closed-loop trace (issue 21 W7, W8). Fills m, returns their count,
 * or -EINVAL (printed).
 */
static int trace_modes(const char *path, const struct trace_fit *f, const int *asked,
		       int nasked, int *m)
{
	int n = 0;

	if (!nasked) {
		if (f->closed) {
			fprintf(stderr, "ioreel bench: note: %s is closed-loop (synthesized without "
					"a rate: an order of I/Os and a depth per job, no times): one "
					"row, replayed closed loop; timed and dep need times\n", path);
			m[n++] = REPLAY_CLOSED;
			return n;
		}
		m[n++] = REPLAY_TIMED;
		if (f->dep_ok)
			m[n++] = REPLAY_DEP;
		else
			fprintf(stderr, "ioreel bench: note: no dep row for %s: %s\n", path, f->why);
		return n;
	}
	for (int k = 0; k < nasked; k++) {
		if (f->closed && (asked[k] == REPLAY_TIMED || asked[k] == REPLAY_DEP)) {
			cli_error("--mode %s: %s is closed-loop (synthesized without a rate: an order "
				  "of I/Os and a depth per job, no times to keep); give no --mode "
				  "(one closed-loop row) or --mode afap",
				  replay_mode_name(asked[k]), path);
			return -EINVAL;
		}
		if (asked[k] == REPLAY_DEP && !f->dep_ok) {
			cli_error("--mode dep: %s cannot be replayed in dep mode: %s; give --mode "
				  "timed or --mode afap", path, f->why);
			return -EINVAL;
		}
		m[n++] = asked[k];
	}
	return n;
}

/* Targets must exist and hold something: replay's hint (give --size to create one) means
 * another --size than bench's. 0 or -EINVAL (printed). */
static int check_target(const char *t)
{
	struct stat st;

	if (stat(t, &st)) {
		cli_error("target %s: %s; bench measures an existing device or file (truncate -s "
			  "10G FILE makes one)", t, strerror(errno));
		return -EINVAL;
	}
	if (S_ISREG(st.st_mode) && !st.st_size) {
		cli_error("target %s is empty; bench measures an existing device or file (truncate "
			  "-s 10G %s gives it a size)", t, t);
		return -EINVAL;
	}
	return 0;
}

/* The --html page of every run: written to o's temporary file, renamed when complete. */
static int write_html(struct outfile *o, const struct bench_row *rows, size_t nrows)
{
	const struct analysis **as = calloc(nrows ? nrows : 1, sizeof(*as));
	unsigned int n = 0;
	FILE *f = as ? outfile_fdopen(o) : NULL;
	int e = 0;

	if (!f) {
		e = as ? -errno : -ENOMEM;
		free(as);
		outfile_abort(o);
		return e;
	}
	for (size_t i = 0; i < nrows; i++)
		if (rows[i].an)
			as[n++] = rows[i].an;
	e = analysis__print_html(as, n, f);
	errno = 0;
	if (fflush(f) && (!e || e == -EIO))
		e = errno ? -errno : -EIO;
	if (fclose(f) && !e)
		e = errno ? -errno : -EIO;
	free(as);
	if (e) {
		outfile_abort(o);
		return e;
	}
	return outfile_commit(o);
}

/* The options that take a value (the others are flags). */
static bool takes_value(const char *key)
{
	static const char *const keys[] = { "preset", "target", "trace",      "mode", "runtime",
					    "size",   "engine", "number-ios", "html" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

/*
 * Ctrl-C, SIGTERM, SIGHUP: the replay running ends within 0.1 s (replay_stop), a pattern being
 * synthesized at its next check (cli_stop), and bench prints the rows finished, removes its
 * scratch files and the --html it had begun. By default the signal killed bench mid-replay,
 * leaving .HTML.XXXXXX beside the report and megabytes of traces in /tmp/ioreel-bench.*.
 */
static void on_stop(int sig)
{
	cli_stop = sig;
	replay_stop = 1;
}

int cmd_bench(int argc, char **argv)
{
	const char *presets[BENCH_MAX], *targets[BENCH_MAX], *runtime = NULL, *size = NULL;
	const char *traces[BENCH_MAX], *html = NULL, *engine = NULL, *number_ios = NULL;
	struct outfile html_o;
	bool html_f = false; /* html_o is open */
	int npresets = 0, ntargets = 0, ntraces = 0, nmodes = 0, rc = EXIT_USAGE, prefill = 0;
	int modes[4], tmodes[BENCH_MAX][4], ntmodes[BENCH_MAX];
	size_t nrows_max;
	struct replay_opts base = { .mode = REPLAY_MODE_AUTO, .warn = bench_warn,
				    .prefill = REPLAY_PREFILL_AUTO };
	struct synth_spec *spec = calloc(1, sizeof(*spec));
	struct bench_row *rows = NULL;
	size_t nrows = 0;
	bool json = false, filled[BENCH_MAX] = { false };
	char dir[] = "/tmp/ioreel-bench.XXXXXX", why[512];
	struct sigaction sa = { .sa_handler = on_stop };

	/* no SA_RESTART: a blocking write returns EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	cli_catch_hangup(&sa);

	if (!spec) {
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		char key[64];
		const char *eq = strchr(a, '=');

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			rc = EXIT_OK;
			goto out;
		}
		if (strncmp(a, "--", 2)) {
			cli_error("unexpected argument '%s' (see --help)", a);
			goto out;
		}
		snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - a - 2) : (int)strlen(a + 2),
			 a + 2);
		if (!strcmp(key, "json") || !strcmp(key, "allow-writes") || !strcmp(key, "force")) {
			if (key[0] == 'j')
				json = true;
			else if (key[0] == 'a')
				base.allow_writes = true;
			else
				base.force = true;
			continue;
		}
		if (!strcmp(key, "prefill") || !strcmp(key, "no-prefill")) {
			int want = key[0] == 'p' ? REPLAY_PREFILL_ON : REPLAY_PREFILL_OFF;

			if (prefill && base.prefill != want) {
				cli_error("--prefill and --no-prefill both given: pick one");
				goto out;
			}
			prefill = 1;
			base.prefill = want;
			continue;
		}
		if (eq)
			v = eq + 1;
		else if (i + 1 < argc)
			v = argv[++i];
		if (!v) {
			/* one line and where the help is, as analyze, convert and record say it */
			if (takes_value(key))
				cli_error("--%s needs a value", key);
			else
				cli_error("unknown option '--%s'", key);
			cli_try_help("bench");
			goto out;
		}
		if (!strcmp(key, "preset") || !strcmp(key, "target")) {
			if ((key[0] == 'p' ? npresets : ntargets) == BENCH_MAX) {
				cli_error("at most %d --%s", BENCH_MAX, key);
				goto out;
			}
			if (key[0] == 'p')
				presets[npresets++] = v;
			else
				targets[ntargets++] = v;
		} else if (!strcmp(key, "trace")) {
			if (ntraces == BENCH_MAX) {
				cli_error("at most %d --trace", BENCH_MAX);
				goto out;
			}
			traces[ntraces++] = v;
		} else if (!strcmp(key, "mode")) {
			if (trace_mode(v) < 0 || nmodes == 4) {
				cli_error("--mode %s: a trace replays timed, dep or afap here (at most 4 "
					  "--mode)", v);
				goto out;
			}
			for (int k = 0; k < nmodes; k++)
				if (modes[k] == trace_mode(v)) {
					cli_error("--mode %s given twice: one row per mode", v);
					goto out;
				}
			modes[nmodes++] = trace_mode(v);
		} else if (!strcmp(key, "runtime") || !strcmp(key, "size") ||
			   !strcmp(key, "engine") || !strcmp(key, "html") ||
			   !strcmp(key, "number-ios")) {
			char name[80];
			const char **slot = key[0] == 'r' ? &runtime : key[0] == 's' ? &size :
					    key[0] == 'e' ? &engine : key[0] == 'h' ? &html :
					    &number_ios;

			snprintf(name, sizeof(name), "--%s", key);
			if (cli_set_once(slot, name, v))
				goto out;
		} else {
			cli_error("unknown option --%s (see --help)", key);
			goto out;
		}
	}
	if ((!npresets && !ntraces) || !ntargets) {
		cli_error("give at least one --preset or --trace, and one --target (ioreel bench "
			  "--help)");
		goto out;
	}
	if (nmodes && !ntraces) {
		cli_error("--mode is how a --trace is replayed; presets keep their own (closed loop)");
		goto out;
	}
	/* replay_run refused it only once every target was vetted and a scratch folder made */
	if (engine && !engine_find(engine)) {
		cli_error("--engine %s: unknown engine; give io_uring, libaio, psync, threads or "
			  "null (those of ioreel replay)", engine);
		goto out;
	}
	base.engine = engine;
	for (int t = 0; t < ntargets; t++) {
		if (check_target(targets[t]))
			goto out;
		/* a replay onto the trace it reads would write over it (issue 21 D3) */
		for (int k = 0; k < ntraces; k++)
			if (outfile_same_file(targets[t], traces[k])) {
				cli_error("--target %s is the --trace %s itself: give another target",
					  targets[t], traces[k]);
				goto out;
			}
	}
	/* every trace vetted before anything runs: a refusal costs nothing */
	nrows_max = (size_t)npresets * 4;
	for (int t = 0; t < ntraces; t++) {
		struct trace_fit f;
		int n;

		if (trace_fit(traces[t], &f, why, sizeof(why))) {
			cli_error("%s", why); /* it names the trace */
			rc = f.file_level ? EXIT_USAGE : EXIT_RUNTIME;
			goto out;
		}
		/* no --mode: both questions, can it absorb the load, how would it run there */
		n = trace_modes(traces[t], &f, modes, nmodes, tmodes[t]);
		if (n < 0)
			goto out;
		ntmodes[t] = n;
		nrows_max += (size_t)n;
	}
	if (base.prefill == REPLAY_PREFILL_ON && !base.allow_writes) {
		cli_error("--prefill writes the regions the presets read: give --allow-writes too "
			  "(it destroys the data there)");
		goto out;
	}
	/* a prefill of a large target takes a while: show how far it is */
	base.progress = !json && isatty(STDERR_FILENO);
	for (int p = 0; p < npresets; p++) {
		if (!synth_preset_find(presets[p])) {
			cli_error("unknown preset '%s' (ioreel synth --list-presets)", presets[p]);
			goto out;
		}
	}
	/* never write what it reads or replays onto (issue 21 D3) */
	for (int k = 0; html && k < ntraces + ntargets; k++) {
		const char *in = k < ntraces ? traces[k] : targets[k - ntraces];

		if (outfile_same_file(html, in)) {
			cli_error("--html %s is the %s %s itself: give another path", html,
				  k < ntraces ? "trace" : "target", in);
			goto out;
		}
	}
	/* open the report first: a bad path should not cost a whole benchmark run; it is
	 * written under a temporary name and renamed into place when complete */
	if (html) {
		int e = outfile_open(&html_o, html);

		if (e) {
			cli_error("cannot write --html %s: %s", html, outfile_strerror(-e));
			rc = EXIT_RUNTIME;
			goto out;
		}
		html_f = true;
	}
	rows = calloc(nrows_max * ntargets, sizeof(*rows));
	if (!rows || !mkdtemp(dir)) {
		cli_error("cannot create a scratch directory in /tmp: %s", strerror(errno));
		rc = EXIT_RUNTIME;
		goto out;
	}
	for (int p = 0; p < npresets; p++) {
		const struct synth_preset *pr = synth_preset_find(presets[p]);

		for (int v = 0; v < pr->variants; v++) {
			char name[64];

			pr->fill(spec, pr->variants > 1 ? v : -1);
			/* the same options mean the same for a job and the InnoDB model */
			why[0] = '\0';
			for (unsigned int j = 0; j < (spec->innodb ? 1u : spec->njobs); j++) {
				int err = 0;

				if (runtime)
					err = spec->innodb ?
						synth_innodb_set(&spec->inno, "runtime", runtime, why, sizeof(why)) :
						synth_job_set(&spec->jobs[j], "runtime", runtime, why, sizeof(why));
				if (!err && runtime)
					err = spec->innodb ?
						synth_innodb_set(&spec->inno, "time_based", NULL, why, sizeof(why)) :
						synth_job_set(&spec->jobs[j], "time_based", NULL, why, sizeof(why));
				if (!err && size)
					err = spec->innodb ?
						synth_innodb_set(&spec->inno, "size", size, why, sizeof(why)) :
						synth_job_set(&spec->jobs[j], "size", size, why, sizeof(why));
				if (!err && number_ios)
					err = spec->innodb ?
						synth_innodb_set(&spec->inno, "number-ios", number_ios, why,
								 sizeof(why)) :
						synth_job_set(&spec->jobs[j], "number_ios", number_ios, why,
							      sizeof(why));
				if (err) {
					cli_error("%s", why);
					goto out_dir;
				}
			}
			if (synth_spec_resolve(spec, 0, why, sizeof(why))) {
				cli_error("%s", why);
				goto out_dir;
			}
			if (pr->variants > 1)
				snprintf(name, sizeof(name), "%s-%s", pr->name, pr->variant_names[v]);
			else
				snprintf(name, sizeof(name), "%s", pr->name);
			rc = run_pattern(spec, name, targets, ntargets, &base, dir, json, html_f,
					 filled, rows, &nrows);
			if (rc && replay_stop)
				goto stopped;
			if (rc)
				goto out_dir;
		}
	}
	for (int t = 0; t < ntraces; t++) {
		const char *base_name = strrchr(traces[t], '/') ? strrchr(traces[t], '/') + 1
							       : traces[t];

		for (int m = 0; m < ntmodes[t]; m++) {
			char name[64];

			snprintf(name, sizeof(name), "%.52s %s", base_name,
				 replay_mode_name(tmodes[t][m]));
			rc = run_targets(traces[t], name, tmodes[t][m], targets, ntargets, &base, dir,
					 json, html_f, filled, rows, &nrows);
			if (rc && replay_stop)
				goto stopped;
			if (rc)
				goto out_dir;
		}
	}
	print_rows(rows, nrows, json);
	rc = EXIT_OK;
	if (html_f) {
		int e = write_html(&html_o, rows, nrows);

		html_f = false; /* committed or aborted */
		if (e) {
			cli_error("writing --html %s: %s", html, strerror(-e));
			rc = EXIT_RUNTIME;
		} else if (!json) {
			printf("\nreport: %s\n", html);
		}
	}
	goto out_dir;
stopped:
	if (nrows || json) /* --json: valid, if empty */
		print_rows(rows, nrows, json);
	cli_error("interrupted by %s: %s%s%s",
		  cli_stop == SIGINT ? "SIGINT" : cli_stop == SIGTERM ? "SIGTERM" : "SIGHUP",
		  nrows ? "the rows above are the runs that finished" : "no run finished",
		  html_f ? "; --html not written, an earlier report stays: " : "",
		  html_f ? html : "");
	rc = EXIT_RUNTIME;
out_dir:
	rmdir(dir);
out:
	if (html_f)
		outfile_abort(&html_o); /* no half-written report; an earlier one stays */
	for (size_t i = 0; rows && i < nrows; i++)
		if (rows[i].an)
			analysis__free(rows[i].an);
	free(rows);
	free(spec);
	return cli_close_stdout(rc); /* W4: '> /dev/full' */
}
