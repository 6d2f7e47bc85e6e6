// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `ioreel analyze`: the verb. Parses options, reads each trace, prints the reports. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "ioreel.h"
#include "analyze/analysis_int.h"
#include "analyze/report.h"
#include "util/cli.h"
#include "util/outfile.h"

#define MAX_TRACES 64
/*
 * The finest --interval. The series keeps at most AN_MAX_INTERVALS rows and widens past that,
 * so a finer one holds for 4 s of trace at most; the text report's rows start at whole
 * milliseconds (--interval 1ns printed 3,815 rows, many with the same start); fio's
 * log_avg_msec counts in milliseconds too.
 */
#define MIN_INTERVAL_NS 1000000ULL

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ioreel analyze TRACE... [options]\n"
		"\n"
		"fio-like summary of one or more traces (recorded, replayed, synthesized, imported):\n"
		"IOPS, bandwidth, slat/clat/lat with percentiles, latency buckets, in-flight depth,\n"
		"block sizes, sequential share, read/write mix.\n"
		"slat = queue to issue, clat = issue to completion (from queue when the trace has\n"
		"no issue time, as at bio level), lat = queue to completion; per source:\n"
		"analyze/README.md. A closed-loop synthesized trace has no runtime: replay it.\n"
		"A file-level trace (record --level file, replay --root's result) reads as one\n"
		"device \"files\" (fsync, fdatasync, sync_file_range as flushes), then every call\n"
		"per op and per file (JSON: ioreel.file_level).\n"
		"A fleet report (ioreel-mpi replay --json) reads as its sum, then each rank:\n"
		"histograms exact from their bins, to compare with traces (figures, no events).\n"
		"\n"
		"options:\n"
		"  --json               fio's JSON layout (jobs[].read.iops, clat_ns.percentile, ...)\n"
		"                       plus ioreel's own keys under \"ioreel\"\n"
		"  --compare            several traces side by side: IOPS, BW, avg and p99 latency\n"
		"                       per op, ratios against the first trace; then what each dep\n"
		"                       replay's elastic models took out or added, per op\n"
		"  --html FILE          a self-contained HTML report with SVG charts\n"
		"  --interval DUR       a time series (IOPS, BW, p50/p99 latency) per DUR (1s,\n"
		"                       100ms; 1ms at least); not for a closed-loop trace\n"
		"  --from T, --to T     only events in [T, T2) since the trace start (10s, 1.5m)\n"
		"  --device D           only device D (index in the trace's table, or its name)\n"
		"  --group-by KEY       one fio-like job per op, device, comm or pid\n"
		"  --percentiles LIST   clat percentiles, up to 64 in (0, 100], ':' between\n"
		"                       them as in fio's percentile_list: 50:90:99.9 (default:\n"
		"                       fio's list)\n"
		"  --salvage            skip damaged chunks (reported) instead of failing\n"
		"  --merge              the traces as one: the hosts of a fleet recorded together\n"
		"                       (ioreel-mpi record) or its ranks' result traces (ioreel-mpi\n"
		"                       replay -o); their times are taken as one clock\n"
		"  --bins               with --json, each latency histogram's non-empty buckets\n"
		"                       (fio's json+ \"bins\": lowest value in ns -> count)\n"
		"  -h, --help           this help\n"
		"\n"
		"examples:\n"
		"  ioreel analyze prod.ioreel\n"
		"  ioreel analyze prod.ioreel --interval 1s --from 60s --to 120s\n"
		"  ioreel analyze prod.ioreel run-md1.ioreel run-xfs.ioreel --compare --html cmp.html\n"
		"  ioreel analyze run.ioreel --json | jq '.jobs[0].write.clat_ns.percentile'\n"
		"  ioreel analyze --merge run-r0.ioreel run-r1.ioreel run-r2.ioreel\n"
		"  ioreel analyze prod.ioreel fleet.json --compare\n");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * --percentiles: fio's percentile_list, values in (0, 100] separated by ':' (fio documents that
 * range; a 0th percentile would be the minimum, which the clat line gives already). Sorted as
 * fio sorts them; a value given twice is refused, its JSON key would be written twice. Strict:
 * strtod and strtok had taken "0x32", "1e2", " 50", "50::99", "50:" and commas. 0, or -EINVAL
 * with what is wrong in why.
 */
static int parse_percentiles(const char *s, double *out, unsigned int *n, char *why, size_t len)
{
	unsigned int k = 0;

	for (const char *p = s;; p++) {
		size_t l = strcspn(p, ":");
		char item[32];
		double v;

		if (!l) {
			snprintf(why, len,
				 "value %u is empty (a ':' at either end, or two together)", k + 1);
			return -EINVAL;
		}
		snprintf(item, sizeof(item), "%.*s", (int)(l < sizeof(item) ? l : sizeof(item) - 1),
			 p);
		if (l >= sizeof(item) || parse_decimal(item, &v)) {
			snprintf(why, len, "'%.*s' is not a plain decimal number", (int)l, p);
			return -EINVAL;
		}
		if (!(v > 0 && v <= 100)) {
			snprintf(why, len, "%s is outside (0, 100]%s", item,
				 v == 0 ? ", as in fio (the 0th would be the minimum: clat's min=)"
					: "");
			return -EINVAL;
		}
		if (k == AN_MAX_PCT) {
			snprintf(why, len, "more than %d values", AN_MAX_PCT);
			return -EINVAL;
		}
		out[k++] = v;
		p += l;
		if (!*p)
			break;
	}
	qsort(out, k, sizeof(*out), cmp_double);
	for (unsigned int i = 1; i < k; i++) {
		if (out[i] == out[i - 1]) {
			snprintf(why, len, "%g is given twice", out[i]);
			return -EINVAL;
		}
	}
	*n = k;
	return 0;
}

/* The time options as given, for the checks of each trace before it is read. */
struct vet {
	const char *device, *interval, *from, *to;
};

/*
 * What a trace's header and index say before it is read: the --device it names, by index or
 * name (-> *idx), and whether the time options mean anything there; its last event's time
 * (-> *last_ns, 0 when not known) for --from. 0; or the message in why and EXIT_USAGE (an
 * option that cannot apply to it) or EXIT_RUNTIME (no such device: the list of those it has;
 * issue 21 W10: --device 99 analysed nothing and exited 0). A trace that cannot be opened
 * passes: reading it says why, --salvage advised where it helps.
 */
static int vet_trace(const char *path, const struct vet *v, int *idx, uint64_t *last_ns, char *why,
		     size_t len)
{
	struct trace_reader *r = trace_reader__open(path, TRACE_SALVAGE, NULL, 0);
	const struct trace_meta *m;
	char list[1024] = "";
	int rc = 0;

	*last_ns = 0;
	if (!r)
		return 0;
	m = trace_reader__meta(r);
	for (size_t i = 0; i < trace_reader__chunk_count(r); i++) {
		const struct trace_chunk_info *c = trace_reader__chunk(r, i);

		if (c && c->last_ns != IO_TS_NONE && c->last_ns > *last_ns)
			*last_ns = c->last_ns;
	}
	/*
	 * A closed-loop trace's times are the order of its I/Os, not a schedule: a series of
	 * it showed every I/O in the first second, and --from 1s found nothing, both exit 0.
	 */
	if (m->mode == TRACE_MODE_CLOSED && (v->interval || v->from || v->to)) {
		const char *name[] = { "--interval", "--from", "--to" };
		const char *val[] = { v->interval, v->from, v->to };
		size_t used = 0;

		for (int i = 0; i < 3; i++)
			if (val[i] && used < sizeof(list))
				used += (size_t)snprintf(list + used, sizeof(list) - used,
							 "%s%s %.40s", used ? ", " : "", name[i],
							 val[i]);
		snprintf(why, len,
			 "%s is closed-loop (synthesized without --rate-iops: an order of I/Os, "
			 "no times): %s cannot apply; replay it (ioreel replay -o) and analyze the "
			 "result",
			 path, list);
		rc = EXIT_USAGE;
		goto out;
	}
	if (v->device) {
		uint64_t d;
		bool by_index = !parse_u64(v->device, &d);
		const char *want = strncmp(v->device, "/dev/", 5) ? v->device : v->device + 5;
		unsigned int nd = m->ndevices < TRACE_MAX_DEVICES ? m->ndevices : TRACE_MAX_DEVICES;
		size_t used = 0;

		*idx = -1;
		for (unsigned int i = 0; i < nd; i++) {
			if (by_index ? d == i : !strcmp(m->devices[i].name, want))
				*idx = (int)i;
			if (used < sizeof(list))
				used += (size_t)snprintf(list + used, sizeof(list) - used,
							 "%s%u %.63s", i ? ", " : "", i,
							 m->devices[i].name);
		}
		if (*idx < 0) {
			snprintf(why, len, "%s: no device '%s' in its device table; it has: %s",
				 path, v->device, nd ? list : "none");
			rc = EXIT_RUNTIME;
		}
	}
out:
	trace_reader__close(r);
	return rc;
}

/*
 * Never write a path we read (issue 21 D3): --html naming one of the inputs by any path (./T, a
 * symlink, a hard link), or stdout redirected to one ('> T' has emptied it already, '>> T'
 * would append to it). 0, or -EEXIST with the message printed.
 */
static int check_outputs(const char *html, char *const *in, unsigned int n)
{
	struct stat out, st;

	for (unsigned int k = 0; k < n; k++) {
		if (html && outfile_same_file(html, in[k])) {
			cli_error("--html %s is the input %s itself: analyze never writes what it "
				  "reads; give another output path", html, in[k]);
			return -EEXIST;
		}
		if (!fstat(STDOUT_FILENO, &out) && S_ISREG(out.st_mode) && !stat(in[k], &st) &&
		    st.st_dev == out.st_dev && st.st_ino == out.st_ino) {
			cli_error("the standard output is the input %s itself: analyze never writes "
				  "what it reads; redirect it elsewhere", in[k]);
			return -EEXIST;
		}
	}
	return 0;
}

/* The HTML report under a temporary name, renamed into place when complete. 0 or -errno. */
static int write_html(const char *path, const struct analysis *const *as, unsigned int n)
{
	struct outfile o;
	FILE *f;
	int e = outfile_open(&o, path);

	if (e)
		return e;
	f = outfile_fdopen(&o);
	if (!f) {
		e = -errno;
		outfile_abort(&o);
		return e;
	}
	e = an_html(as, n, f);
	errno = 0;
	/* fflush's errno (ENOSPC on /dev/full) says more than the stream's EIO */
	if (fflush(f) && (!e || e == -EIO))
		e = errno ? -errno : -EIO;
	if (fclose(f) && !e)
		e = errno ? -errno : -EIO;
	if (!e && cli_stop)
		e = -EINTR;
	if (e) {
		outfile_abort(&o);
		return e;
	}
	return outfile_commit(&o);
}

struct progress {
	const char *name;
	uint64_t last_ns;
	bool shown;
};

static void progress_cb(void *arg, uint64_t done, uint64_t total)
{
	struct progress *p = arg;
	uint64_t now = now_mono_ns();

	if (total < 2000000 || now - p->last_ns < 250000000)
		return;
	p->last_ns = now;
	p->shown = true;
	fprintf(stderr, "\r  analyzing %s: %3.0f%% (%llu of %llu events)", p->name,
		100.0 * (double)done / (double)total, (unsigned long long)done,
		(unsigned long long)total);
}

int cmd_analyze(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "json", no_argument, NULL, 'j' },	     { "compare", no_argument, NULL, 'c' },
		{ "html", required_argument, NULL, 'H' },    { "interval", required_argument, NULL, 'i' },
		{ "from", required_argument, NULL, 'f' },    { "to", required_argument, NULL, 't' },
		{ "device", required_argument, NULL, 'd' },  { "group-by", required_argument, NULL, 'g' },
		{ "percentiles", required_argument, NULL, 'p' }, { "salvage", no_argument, NULL, 's' },
		{ "merge", no_argument, NULL, 'M' },	     { "bins", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },	     { NULL, 0, NULL, 0 },
	};
	struct analyze_opts opts = { .device = -1 };
	double pct[AN_MAX_PCT];
	const char *html = NULL, *group_by = NULL, *device = NULL, *interval_s = NULL, *from_s = NULL,
		   *to_s = NULL, *pct_s = NULL;
	bool json = false, compare = false, merge = false, bins = false;
	unsigned int flags = 0;
	int c, rc = EXIT_OK, devidx[MAX_TRACES];
	uint64_t last_ns = 0;
	char why[700];

	cli_catch_stop(); /* stops between batches; the report is renamed into place only whole */
	optind = 1;
	/* ':' first: getopt_long says nothing, cli_getopt_error says it in one line */
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'c':
			compare = true;
			break;
		case 'H':
			if (cli_set_once(&html, "--html", optarg))
				return EXIT_USAGE;
			break;
		case 'i':
			if (cli_set_once(&interval_s, "--interval", optarg))
				return EXIT_USAGE;
			if (parse_duration_ns(optarg, &opts.interval_ns) || !opts.interval_ns) {
				cli_error("--interval '%s': give a duration such as 1s or 100ms", optarg);
				return EXIT_USAGE;
			}
			if (opts.interval_ns < MIN_INTERVAL_NS) {
				cli_error("--interval %s: 1ms at least (the series' rows start "
					  "at whole milliseconds)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'f':
		case 't':
			if (cli_set_once(c == 'f' ? &from_s : &to_s, c == 'f' ? "--from" : "--to",
					 optarg))
				return EXIT_USAGE;
			if (parse_duration_ns(optarg, c == 'f' ? &opts.from_ns : &opts.to_ns)) {
				cli_error("--%s '%s': give a time since the trace start such as 30s",
					  c == 'f' ? "from" : "to", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'd':
			if (cli_set_once(&device, "--device", optarg))
				return EXIT_USAGE;
			break;
		case 'g':
			if (cli_set_once(&group_by, "--group-by", optarg))
				return EXIT_USAGE;
			if (strcmp(optarg, "op") && strcmp(optarg, "device") && strcmp(optarg, "comm") &&
			    strcmp(optarg, "pid")) {
				cli_error("--group-by '%s': use op, device, comm or pid", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'p':
			if (cli_set_once(&pct_s, "--percentiles", optarg))
				return EXIT_USAGE;
			if (parse_percentiles(optarg, pct, &opts.npercentiles, why, sizeof(why))) {
				cli_error("--percentiles '%s': %s; give up to %d values in "
					  "(0, 100] separated by ':' (e.g. 50:99:99.9)",
					  optarg, why, AN_MAX_PCT);
				return EXIT_USAGE;
			}
			opts.percentiles = pct;
			break;
		case 's':
			flags |= TRACE_SALVAGE;
			break;
		case 'M':
			merge = true;
			break;
		case 'b':
			bins = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cli_getopt_error(c, argv, lo, "analyze");
		}
	}
	unsigned int n = (unsigned int)(argc - optind);
	if (!n) {
		cli_error("no trace given: name one or more .ioreel files");
		cli_try_help("analyze");
		return EXIT_USAGE;
	}
	if (n > MAX_TRACES) {
		cli_error("%u traces given; at most %d at once", n, MAX_TRACES);
		return EXIT_USAGE;
	}
	/* --to 0 is a window, not "no --to": [from, to) empty is refused (issue 21 W10) */
	if (to_s && opts.to_ns <= opts.from_ns) {
		cli_error("--to %s must be after --from %s: the window [from, to) holds nothing",
			  to_s, from_s ? from_s : "0");
		return EXIT_USAGE;
	}
	if (merge && compare) {
		cli_error("--merge makes one analysis of the traces: there is nothing to --compare");
		return EXIT_USAGE;
	}
	if (merge && device) {
		cli_error("--merge puts every trace's devices in one table: --device is per trace");
		return EXIT_USAGE;
	}
	if (check_outputs(html, argv + optind, n))
		return EXIT_USAGE;
	/* the same trace twice in one merged analysis: every I/O of it counted twice */
	for (unsigned int k = 1; merge && k < n; k++) {
		for (unsigned int j = 0; j < k; j++) {
			if (!outfile_same_file(argv[optind + j], argv[optind + k]))
				continue;
			cli_error("--merge: %s and %s are the same file: its I/Os would count "
				  "twice", argv[optind + j], argv[optind + k]);
			return EXIT_USAGE;
		}
	}
	/* every trace vetted before any is read: a refusal costs nothing */
	for (unsigned int k = 0; k < n; k++) {
		const struct vet v = { device, interval_s, from_s, to_s };
		uint64_t last;

		devidx[k] = -1;
		if (an_is_json_file(argv[optind + k]) ||
		    (!device && !interval_s && !from_s && !to_s))
			continue;
		rc = vet_trace(argv[optind + k], &v, &devidx[k], &last, why, sizeof(why));
		if (rc) {
			cli_error("%s", why);
			return rc;
		}
		/* a window past the end found nothing and said "0 events", exit 0 */
		if (from_s && last && opts.from_ns > last && !merge) {
			cli_error("--from %s is past the end of %s (its last I/O at %.3f s): the "
				  "window holds nothing; give an earlier --from", from_s,
				  argv[optind + k], last / 1e9);
			return EXIT_USAGE;
		}
		last_ns = last > last_ns ? last : last_ns;
	}
	if (from_s && merge && last_ns && opts.from_ns > last_ns) {
		cli_error("--from %s is past the end of the traces (their last I/O at %.3f s): the "
			  "window holds nothing; give an earlier --from", from_s, last_ns / 1e9);
		return EXIT_USAGE;
	}
	struct analysis *as[MAX_TRACES] = { NULL };
	bool tty = isatty(STDERR_FILENO);
	if (merge && n > 1) {
		char err[700];

		as[0] = an_from_merge((const char *const *)argv + optind, n, &opts, flags, group_by,
				      err, sizeof(err));
		if (!as[0]) {
			int e = errno;

			if (cli_stop)
				goto stopped;
			cli_error("%s", err);
			return e == EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
		}
		if (as[0]->damaged_chunks)
			cli_warn("%llu damaged chunks skipped (--salvage)",
				 (unsigned long long)as[0]->damaged_chunks);
		n = 1;
	}
	unsigned int na = as[0] ? 1 : 0; /* analyses: a fleet report brings several */
	for (unsigned int k = na ? n : 0; k < n; k++) { /* na: merged */
		const char *path = argv[optind + k];
		char err[512];
		if (an_is_json_file(path)) {
			int got;
			if (merge || device || opts.from_ns || opts.to_ns || opts.interval_ns ||
			    group_by) {
				cli_error("%s is a fleet report (figures, not events): --merge, "
					  "--device, --from, --to, --interval and --group-by apply "
					  "to traces", path);
				rc = EXIT_USAGE;
				goto out;
			}
			got = an_from_fleet_json(path, as + na, MAX_TRACES - na, err, sizeof(err));
			if (got < 0) {
				cli_error("%s", err);
				rc = EXIT_RUNTIME;
				goto out;
			}
			na += (unsigned int)got;
			continue;
		}
		if (na == MAX_TRACES) {
			cli_error("more than %d traces and fleet jobs at once", MAX_TRACES);
			rc = EXIT_USAGE;
			goto out;
		}
		opts.device = devidx[k];
		struct progress p = { .name = path };
		as[na] = an_from_file(path, &opts, flags, group_by, tty ? progress_cb : NULL, &p, err,
				      sizeof(err));
		if (p.shown)
			fprintf(stderr, "\r\033[K");
		if (!as[na] && cli_stop)
			goto stopped;
		if (!as[na]) {
			cli_error("%s", err);
			rc = EXIT_RUNTIME;
			goto out;
		}
		if (as[na]->damaged_chunks)
			cli_warn("%s: %llu damaged chunks skipped (--salvage)", path,
				 (unsigned long long)as[na]->damaged_chunks);
		na++;
	}
	n = na;
	for (unsigned int k = 0; k < n; k++) {
		char b1[32];

		analysis__set_bins(as[k], bins);
		/* a row's rates are its I/Os over the whole interval: --interval 1000000h gave
		 * IOPS 0; a warning, not a refusal, as a script may ask one width of every trace */
		if (interval_s && as[k]->included && opts.interval_ns > an_runtime_ns(as[k]))
			cli_warn("--interval %s is longer than the I/O of %s (%s): a row's rates "
				 "spread its I/Os over the whole interval, understating IOPS and "
				 "bandwidth",
				 interval_s, as[k]->name,
				 fmt_ns(an_runtime_ns(as[k]), b1, sizeof(b1)));
	}
	const struct analysis *const *cas = (const struct analysis *const *)as;
	if (json) {
		an_json_doc(cas, n, stdout, NULL, compare);
	} else if (compare) {
		an_text_compare(cas, n, stdout);
	} else {
		for (unsigned int k = 0; k < n; k++) {
			if (k)
				printf("\n");
			analysis__print_text(as[k], stdout);
		}
	}
	if (html && !cli_stop) {
		int e = write_html(html, cas, n);

		if (e == -EINTR)
			goto stopped;
		if (e) {
			cli_error("cannot write the HTML report %s: %s", html, outfile_strerror(-e));
			rc = EXIT_RUNTIME;
		} else {
			goto out; /* the report is whole and in place: a signal after that is late */
		}
	}
	if (cli_stop)
		goto stopped;
out:
	for (unsigned int k = 0; k < MAX_TRACES; k++)
		analysis__free(as[k]);
	return cli_close_stdout(rc);
stopped:
	cli_error("interrupted by %s%s%s", cli_stop == SIGINT ? "SIGINT" : "SIGTERM",
		  html ? ": no report written to " : "", html ? html : "");
	rc = EXIT_RUNTIME;
	goto out;
}
