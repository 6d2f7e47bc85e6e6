// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `ioreel synth`: fio-style patterns, fio job files and presets written as .ioreel traces. */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ioreel.h"
#include "synth/synth.h"
#include "util/cli.h"
#include "util/json.h"
#include "util/outfile.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ioreel synth [--preset NAME | --fio-job FILE [--section NAME]] [fio options]\n"
		"                    (-o FILE.ioreel [--json] | --check)\n"
		"       ioreel synth --list-presets [--json]\n"
		"\n"
		"Writes a synthetic trace that `ioreel replay` runs like fio would run the job\n"
		"(--fio-job - reads the job file from standard input, as `fio -` does).\n"
		"Without --rate-iops the trace is closed-loop (each job keeps iodepth I/Os in\n"
		"flight); with it, every I/O has an arrival time. fio's file and directory engines\n"
		"(falloc, ftruncate, filecreate, filestat, filedelete, dircreate, dirstat, dirdelete)\n"
		"and --nrfiles N make a file-level trace: replay it with --root DIR --allow-writes.\n"
		"\n"
		"fio options (--key=value or --key value; fio's names, '-' or '_'; the job-file\n"
		"reader and every option it knows: synth/FIO.md):\n"
		"  --rw read|write|randread|randwrite|rw|randrw|trim|randtrim|trimwrite[:modifier]\n"
		"  --rwmixread PCT   --bs SIZE[,WSIZE]   --bssplit 4k/50:16k/30:64k/20   --bsrange\n"
		"  --size SIZE|N%%   --offset SIZE|N%%   --io_size SIZE   --number-ios N   --loops N\n"
		"  --iodepth N   --numjobs N   --ioengine psync|libaio|io_uring|...\n"
		"  --runtime DUR   --time_based   --rate-iops N (per job)   --arrivals uniform|poisson\n"
		"  --random-distribution random|zipf[:θ]|pareto[:h]|normal[:dev%%]|zoned:A/R:...\n"
		"  --norandommap   --fsync N (a flush after every N writes)   --sync 1 (FUA writes)\n"
		"  --nrfiles N   --filesize SIZE   --file_service_type roundrobin|sequential|random[:N]\n"
		"  --verify crc32c (reads back what was written)   --seed N (default %u; same seed,\n"
		"  same file)\n"
		"trace options:\n"
		"  -o, --output FILE  the trace (cdm writes FILE-<test>.ioreel, one per test, named\n"
		"                     for what it holds: --bs 16m gives FILE-seq16m-q8t1.ioreel)\n"
		"  --device-size SIZE the target's size: settles sizes fio takes from the device (no\n"
		"                     --size, N%%); without it they are resolved at replay\n"
		"  --name NAME        the device table entry's name (default synth)\n"
		"  --json             print what was generated as JSON\n"
		"  --check            check the options (and the job file) as a run would, write\n"
		"                     nothing: exit 0 when a run would write the trace\n"
		"innodb-16k takes: --size (data area) --log-size --numjobs (query threads) --iodepth\n"
		"  (page-cleaner depth) --number-ios (reads per thread) --commits --batches\n"
		"  --dblwr-pages --log-min --log-max --log-fua 1 (see synth/PRESETS.md)\n"
		"\n"
		"examples:\n"
		"  ioreel synth --rw randwrite --bs 4k --numjobs 8 --iodepth 32 --size 20G \\\n"
		"               --time_based --runtime 120 -o 4k-randwrite.ioreel\n"
		"  ioreel synth --preset 4k-randrw70 --size 8G -o rw70.ioreel\n"
		"  ioreel synth --fio-job innodb.fio --section innodb-data --number-ios 10000 -o i.ioreel\n"
		"  FIO_BS=4k ioreel synth --fio-job jesd219.fio --number-ios 100000 -o jesd.ioreel\n"
		"  ioreel synth --fio-job filecreate-ioengine.fio -o create.ioreel   # file level\n"
		"  ioreel synth --rw randread --size 1G --rate-iops 2000 --arrivals poisson \\\n"
		"               --runtime 30 --random-distribution zipf:1.2 -o zipf.ioreel\n"
		"  ioreel synth --preset cdm -o cdm.ioreel     # cdm-seq1m-q8t1.ioreel ...\n",
		SYNTH_DEFAULT_SEED);
}

/* Options that take no value on the command line. */
static bool is_flag(const char *k)
{
	static const char *const flags[] = { "time_based", "time-based", "norandommap", "json",
					     "help", "list-presets", "h", "check" };

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (!strcmp(k, flags[i]))
			return true;
	return false;
}

struct kv {
	const char *key, *value;
};

/* fio's spellings: '-' and '_' alike (rate-iops, rate_iops). */
static bool same_key(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
			return false;
	return *a == *b;
}

static bool same_value(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The same for a fio option: 1 when it was given already with this value (skip it). */
static int add_override(struct kv *ov, size_t *nov, const char *key, const char *val)
{
	for (size_t i = 0; i < *nov; i++) {
		if (!same_key(ov[i].key, key))
			continue;
		if (same_value(ov[i].value, val))
			return 1;
		char a[CLI_SHOWN_LEN], b[CLI_SHOWN_LEN];

		cli_error("--%s given twice (%s and %s): give it once", key,
			  ov[i].value ? cli_shown(a, ov[i].value) : "(no value)",
			  val ? cli_shown(b, val) : "(no value)");
		return -EINVAL;
	}
	ov[*nov].key = key;
	ov[(*nov)++].value = val;
	return 0;
}

struct counts {
	struct trace_writer *w;
	struct io_event buf[4096];
	size_t n;
	struct synth_counts c;
	int err;
};

static int emit(void *ctx, const struct io_event *ev)
{
	struct counts *c = ctx;

	if (cli_stop && !(c->c.events % 4096))
		return -EINTR; /* SIGINT/SIGTERM: the temporary file is removed, nothing written */
	c->c.events++;
	c->c.ops[ev->op]++;
	c->c.bytes[ev->op] += ev->length;
	c->c.last_ns = ev->queue_ns;
	c->buf[c->n++] = *ev;
	if (c->n == sizeof(c->buf) / sizeof(c->buf[0])) {
		c->err = trace_writer__add(c->w, c->buf, c->n);
		c->n = 0;
	}
	return c->err;
}

int synth_write_trace(const struct synth_spec *s, const char *path, const char *devname,
		      uint64_t devsize, const char *cmdline, struct trace_meta *meta,
		      struct synth_counts *counts, char *why, size_t why_len)
{
	struct counts *c = calloc(1, sizeof(*c));
	struct trace_stats st = { 0 };
	int err;

	if (!c) {
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	if (synth_spec_file_level(s)) { /* synth/fileops.c */
		free(c);
		return synth_write_file_trace(s, path, cmdline, meta, counts, why, why_len);
	}
	trace_meta_init(meta, "synth");
	/* A synthesized trace never happened: no wall-clock genesis, and --seed gives
	 * byte-identical files. */
	meta->genesis_realtime_ns = 0;
	snprintf(meta->options, sizeof(meta->options), "%s", cmdline);
	err = synth_spec_meta(s, meta, devname, devsize, why, why_len);
	if (err)
		goto out;
	/* under a temporary name, renamed when complete: a failed or refused run leaves an
	 * earlier file under path as it was */
	c->w = trace_writer__open(path, meta, &(struct trace_writer_opts){ .replace = true });
	if (!c->w) {
		err = -errno;
		snprintf(why, why_len, "cannot create %s: %s", path, outfile_strerror(errno));
		goto out;
	}
	err = synth_generate(s, emit, c);
	if (!err && c->n)
		err = trace_writer__add(c->w, c->buf, c->n);
	if (err == -EINTR && cli_stop) {
		snprintf(why, why_len, "interrupted by %s: %s not written",
			 cli_stop == SIGINT ? "SIGINT" : "SIGTERM", path);
		trace_writer__abort(c->w);
		goto out;
	}
	if (err == -EOVERFLOW && !c->err) {
		/* synth/fio_sprandom.c: a region kept more blocks than fio's buffer holds */
		snprintf(why, why_len,
			 "%s not written: a sprandom job kept more of a region's writes for "
			 "rewriting than fio's buffer holds (fio stops on an assertion there "
			 "too): give fewer regions (spr_num_regions) or a larger size",
			 path);
		trace_writer__abort(c->w);
		goto out;
	}
	if (err) {
		snprintf(why, why_len, "writing %s failed: %s", path,
			 c->err ? trace_writer__error(c->w) : strerror(-err));
		trace_writer__abort(c->w); /* removes the temporary file only */
		goto out;
	}
	st.events = c->c.events;
	st.end_ns = meta->mode == TRACE_MODE_TIMED ? c->c.last_ns : 0;
	err = trace_writer__close(c->w, &st);
	if (err)
		snprintf(why, why_len, "closing %s failed: %s", path, strerror(-err));
	*counts = c->c;
out:
	free(c);
	return err;
}

static int list_presets(bool json)
{
	const struct synth_preset *p;

	if (json)
		printf("{\"presets\": [");
	for (size_t i = 0; (p = synth_preset_at(i)); i++) {
		if (json)
			printf("%s{\"name\": \"%s\", \"summary\": \"%s\", \"traces\": %d}",
			       i ? ", " : "", p->name, p->summary, p->variants);
		else
			printf("  %-14s %s\n", p->name, p->summary);
	}
	if (json)
		printf("]}\n");
	return EXIT_OK;
}

/* cdm's random tests turn --rw read/write into randread/randwrite: one switch for all four. */
static const char *cdm_rw(const struct synth_job *j, const struct kv *o, char *buf, size_t len)
{
	if (j->random && (!strcmp(o->value, "read") || !strcmp(o->value, "write"))) {
		snprintf(buf, len, "rand%s", o->value);
		return buf;
	}
	return o->value;
}

static int apply_overrides(struct synth_spec *s, const struct kv *o, size_t n, bool cdm)
{
	char why[512], tmp[32];

	for (size_t i = 0; i < n; i++) {
		int err;

		why[0] = '\0';
		if (s->innodb) {
			err = synth_innodb_set(&s->inno, o[i].key, o[i].value, why, sizeof(why));
		} else {
			err = 0;
			for (unsigned int j = 0; j < s->njobs && !err; j++) {
				const char *v = o[i].value;

				if (cdm && v && !strcmp(o[i].key, "rw"))
					v = cdm_rw(&s->jobs[j], &o[i], tmp, sizeof(tmp));
				err = synth_job_set(&s->jobs[j], o[i].key, v, why, sizeof(why));
			}
		}
		if (err == -ENOENT) {
			cli_error("unknown option --%s (ioreel synth --help lists what is modeled)",
				  o[i].key);
			return EXIT_USAGE;
		}
		if (err == -EALREADY) {
			if (why[0])
				cli_warn("--%s=%s: %s", o[i].key, o[i].value ? o[i].value : "", why);
			else
				cli_warn("--%s has no effect on the pattern: the target is chosen at "
					 "replay", o[i].key);
			continue;
		}
		if (err) {
			cli_error("%s", why);
			return EXIT_USAGE;
		}
	}
	return 0;
}

static void print_result(const char *path, const struct trace_meta *m,
			 const struct synth_counts *c,
			 bool json, bool first)
{
	static const char *modes[] = { "timed", "closed" };

	if (json) {
		printf("%s{\"path\": ", first ? "" : ", ");
		json_str(stdout, path);
		printf(", \"mode\": \"%s\", \"streams\": %u, \"depth\": [", modes[m->mode & 1],
		       m->nstreams);
		for (uint32_t i = 0; i < m->nstreams; i++)
			printf("%s%u", i ? ", " : "", m->streams[i].depth);
		printf("], \"time_based\": %s, \"runtime_ns\": %llu, \"device_size\": %llu, "
		       "\"events\": %llu, \"reads\": %llu, \"writes\": %llu, \"flushes\": %llu, "
		       "\"trims\": %llu, \"bytes_read\": %llu, \"bytes_written\": %llu, "
		       "\"bytes_trimmed\": %llu, \"span_ns\": %llu",
		       m->time_based ? "true" : "false", (unsigned long long)m->runtime_ns,
		       (unsigned long long)m->devices[0].size_bytes, (unsigned long long)c->events,
		       (unsigned long long)c->ops[IO_OP_READ], (unsigned long long)c->ops[IO_OP_WRITE],
		       (unsigned long long)c->ops[IO_OP_FLUSH],
		       (unsigned long long)c->ops[IO_OP_DISCARD],
		       (unsigned long long)c->bytes[IO_OP_READ],
		       (unsigned long long)c->bytes[IO_OP_WRITE],
		       (unsigned long long)c->bytes[IO_OP_DISCARD],
		       (unsigned long long)(m->mode == TRACE_MODE_TIMED ? c->last_ns : 0));
		if (m->level == TRACE_LEVEL_FILE) {
			printf(", \"level\": \"file\", \"files\": %u, \"calls\": {", c->files);
			for (unsigned int op = 0, n = 0; op < IO_FOP__COUNT; op++)
				if (c->fops[op])
					printf("%s\"%s\": %llu", n++ ? ", " : "", io_fop_name(op),
					       (unsigned long long)c->fops[op]);
			printf("}");
		}
		printf("}");
		return;
	}
	char b1[32], b2[32], t[32];

	if (m->level == TRACE_LEVEL_FILE) {
		bool any = false;

		printf("%s: file-level trace, %u files, %llu calls (", path, c->files,
		       (unsigned long long)c->events);
		for (unsigned int op = 0; op < IO_FOP__COUNT; op++)
			if (c->fops[op])
				printf("%s%llu %s", any ? ", " : "", (unsigned long long)c->fops[op],
				       io_fop_name(op)), any = true;
		printf("), closed, %u stream%s (depth %u%s); replay it with --root DIR "
		       "--allow-writes\n",
		       m->nstreams, m->nstreams == 1 ? "" : "s", m->streams[0].depth,
		       m->nstreams > 1 && m->streams[m->nstreams - 1].depth != m->streams[0].depth
			       ? ", varies"
			       : " each");
		return;
	}
	printf("%s: %llu I/Os (%llu reads %s, %llu writes %s, %llu flushes, %llu trims), "
	       "%s, %u stream%s",
	       path, (unsigned long long)c->events, (unsigned long long)c->ops[IO_OP_READ],
	       fmt_bytes(c->bytes[IO_OP_READ], b1, sizeof(b1)),
	       (unsigned long long)c->ops[IO_OP_WRITE],
	       fmt_bytes(c->bytes[IO_OP_WRITE], b2, sizeof(b2)),
	       (unsigned long long)c->ops[IO_OP_FLUSH], (unsigned long long)c->ops[IO_OP_DISCARD],
	       modes[m->mode & 1], m->nstreams, m->nstreams == 1 ? "" : "s");
	if (m->mode == TRACE_MODE_CLOSED)
		printf(" (depth %u%s)", m->streams[0].depth,
		       m->nstreams > 1 && m->streams[m->nstreams - 1].depth != m->streams[0].depth ?
			       ", varies" : " each");
	if (m->time_based)
		printf(", time_based %s (the replayer cycles)",
		       fmt_ns(m->runtime_ns, t, sizeof(t)));
	else if (m->mode == TRACE_MODE_TIMED)
		printf(", spans %s", fmt_ns(c->last_ns, t, sizeof(t)));
	printf("\n");
}

static int write_one(const struct synth_spec *s, const char *path, const char *devname,
		     uint64_t devsize, const char *cmdline, bool json, bool first)
{
	struct trace_meta *meta = calloc(1, sizeof(*meta));
	struct synth_counts c;
	char why[512] = "";
	int err;

	if (!meta) {
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	err = synth_write_trace(s, path, devname, devsize, cmdline, meta, &c, why, sizeof(why));
	if (err) {
		cli_error("%s", why);
		free(meta);
		return err == -EINVAL || err == -EOPNOTSUPP ? EXIT_USAGE : EXIT_RUNTIME;
	}
	print_result(path, meta, &c, json, first);
	free(meta);
	return EXIT_OK;
}

/* "out.ioreel" + "seq1m-q8t1" -> "out-seq1m-q8t1.ioreel"; "out" -> "out-seq1m-q8t1.ioreel" */
static void variant_path(const char *out, const char *variant, char *buf, size_t len)
{
	const char *dot = strrchr(out, '.');
	const char *slash = strrchr(out, '/');

	if (!dot || (slash && dot < slash) || dot == out || (slash && dot == slash + 1))
		dot = out + strlen(out);
	snprintf(buf, len, "%.*s-%s%s", (int)(dot - out), out, variant, *dot ? dot : ".ioreel");
}

/* "4k", "1m", "16m", "1536": the block size as cdm's test names spell it. */
static void bs_label(uint32_t bs, char *buf, size_t len)
{
	if (!(bs % (1u << 30)))
		snprintf(buf, len, "%ug", bs >> 30);
	else if (!(bs % (1u << 20)))
		snprintf(buf, len, "%um", bs >> 20);
	else if (!(bs % 1024))
		snprintf(buf, len, "%uk", bs >> 10);
	else
		snprintf(buf, len, "%u", bs);
}

/*
 * cdm's test name for what the job holds after the options given ("seq1m-q8t1" unchanged;
 * "seq16m-q8t1" with --bs 16m): files are named for what they hold (issue 21 W16). 0, or
 * -EINVAL when it has no single block size to name.
 */
static int cdm_name(const struct synth_job *j, char *buf, size_t len)
{
	uint32_t bs = 0;
	char b[32];

	for (int d = 0; d < SYNTH_DDIR_N; d++) {
		const struct synth_bsplit *p = &j->bs[d];

		if (!(j->ddirs & (1u << d)))
			continue;
		if (p->n != 1 || p->range_hi || (bs && p->e[0].bs != bs))
			return -EINVAL;
		bs = p->e[0].bs;
	}
	if (!bs)
		return -EINVAL;
	bs_label(bs, b, sizeof(b));
	snprintf(buf, len, "%s%s-q%ut%u", j->random ? "rnd" : "seq", b, j->iodepth, j->numjobs);
	return 0;
}

int cmd_synth(int argc, char **argv)
{
	const char *out = NULL, *preset = NULL, *fio = NULL, *section = NULL, *devname = NULL;
	uint64_t devsize = 0;
	bool json = false, listp = false, check = false;
	struct kv *ov = calloc(argc + 1, sizeof(*ov));
	struct synth_spec *spec = calloc(1, sizeof(*spec)), *specs = NULL;
	char cmdline[1024] = "ioreel synth", why[512];
	size_t nov = 0;
	int rc = EXIT_USAGE;

	struct sigaction old_int, old_term;

	sigaction(SIGINT, NULL, &old_int);
	sigaction(SIGTERM, NULL, &old_term);
	cli_catch_stop(); /* a long generation stops between events, its temporary file removed */
	if (!ov || !spec) {
		cli_error("out of memory");
		rc = EXIT_RUNTIME;
		goto out;
	}
	/* The options, without the output name: the same command gives the same file. */
	for (int i = 1; i < argc; i++) {
		size_t used = strlen(cmdline);

		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			i++;
			continue;
		}
		if (!strncmp(argv[i], "--output=", 9))
			continue;
		snprintf(cmdline + used, sizeof(cmdline) - used, " %s", argv[i]);
	}
	for (int i = 1; i < argc; i++) {
		char *a = argv[i], *key, *val = NULL, *eq;

		if (!strcmp(a, "-o")) {
			if (++i == argc) {
				cli_error("-o needs a file name");
				goto out;
			}
			if (cli_set_once(&out, "-o/--output", argv[i]))
				goto out;
			continue;
		}
		if (strncmp(a, "--", 2) || !a[2]) {
			if (!strcmp(a, "-h")) {
				usage(stdout);
				rc = EXIT_OK;
				goto out;
			}
			cli_error("unexpected argument '%s' (options start with --; see --help)", a);
			goto out;
		}
		key = a + 2;
		eq = strchr(key, '=');
		if (eq) {
			*eq = '\0';
			val = eq + 1;
		} else if (!is_flag(key)) {
			if (++i == argc) {
				cli_error("--%s needs a value, or is not an option (ioreel synth "
					  "--help lists them)", key);
				goto out;
			}
			val = argv[i];
			/* an option where the value should be: --KEY is unknown (a flag taken
			 * for an option with a value) or its value was left out; taking the
			 * option as the value blamed the argument after it instead */
			if (!strcmp(val, "-o") || !strcmp(val, "-h") || !strncmp(val, "--", 2)) {
				cli_error("--%s is followed by the option %s where its value "
					  "should be: give --%s=VALUE if it takes one (ioreel "
					  "synth --help lists the options)",
					  key, val, key);
				goto out;
			}
		}
		if (!strcmp(key, "help")) {
			usage(stdout);
			rc = EXIT_OK;
			goto out;
		} else if (!strcmp(key, "output")) {
			if (cli_set_once(&out, "-o/--output", val))
				goto out;
		} else if (!strcmp(key, "preset")) {
			if (cli_set_once(&preset, "--preset", val))
				goto out;
		} else if (!strcmp(key, "fio-job") || !strcmp(key, "fio_job")) {
			if (cli_set_once(&fio, "--fio-job", val))
				goto out;
		} else if (!strcmp(key, "section")) {
			if (cli_set_once(&section, "--section", val))
				goto out;
		} else if (!strcmp(key, "name")) {
			if (cli_set_once(&devname, "--name", val))
				goto out;
		} else if (!strcmp(key, "device-size") || !strcmp(key, "device_size")) {
			uint64_t v;

			if (!val || parse_size(val, &v) || !v) {
				cli_error("--device-size %s: expected a size like 20G", val ? val : "");
				goto out;
			}
			if (devsize && v != devsize) {
				cli_error("--device-size given twice (%llu and %llu bytes): give it once",
					  (unsigned long long)devsize, (unsigned long long)v);
				goto out;
			}
			devsize = v;
		} else if (!strcmp(key, "json")) {
			json = true;
		} else if (!strcmp(key, "list-presets")) {
			listp = true;
		} else if (!strcmp(key, "check")) {
			/* ioreel study calls cmd_synth so on each workload's command before it
			 * builds anything (its dry run too): the same checks as the run's */
			check = true;
		} else if (add_override(ov, &nov, key, val) < 0) {
			goto out;
		}
	}
	/* the device table's name field holds 63 bytes: a longer name is refused, not cut */
	if (devname && strlen(devname) >= sizeof(((struct trace_device *)0)->name)) {
		cli_error("--name '%s' is %zu bytes long: a device name holds at most %zu",
			  devname, strlen(devname), sizeof(((struct trace_device *)0)->name) - 1);
		goto out;
	}
	/* empty, or a control byte that info and analyze would print to the terminal as it is */
	if (devname) {
		bool printable = *devname;

		for (const char *p = devname; *p; p++)
			printable = printable && !iscntrl((unsigned char)*p);
		if (!printable) {
			cli_error("--name: a device name is 1 to %zu printable characters; this one "
				  "%s", sizeof(((struct trace_device *)0)->name) - 1,
				  *devname ? "holds a control character" : "is empty");
			goto out;
		}
	}
	if (listp) {
		rc = list_presets(json);
		goto out;
	}
	if (preset && fio) {
		cli_error("--preset and --fio-job both given: pick one base, then override options");
		goto out;
	}
	if (section && !fio) {
		cli_error("--section applies to --fio-job");
		goto out;
	}
	if (!out && !check) {
		cli_error("no output: give -o FILE.ioreel");
		goto out;
	}
	/* never write what it reads (issue 21 D3): the job file it was given */
	if (out && fio && outfile_same_file(out, fio)) {
		cli_error("-o %s is the job file %s itself: give the trace another name", out, fio);
		goto out;
	}

	const struct synth_preset *p = NULL;
	char names[8][48];
	int variants = 1;

	if (preset) {
		p = synth_preset_find(preset);
		if (!p) {
			cli_error("unknown preset '%s' (ioreel synth --list-presets)", preset);
			goto out;
		}
		variants = p->variants;
		if (variants > (int)(sizeof(names) / sizeof(names[0]))) {
			cli_error("preset %s: too many variants", p->name);
			rc = EXIT_RUNTIME;
			goto out;
		}
	} else if (fio) {
		struct fiojob_result res;
		int err = fiojob_load(fio, section, out, spec, &res, why, sizeof(why));

		if (err) {
			cli_error("%s", why);
			rc = err == -EINVAL || err == -ENOENT || err == -EOPNOTSUPP ||
					     err == -EEXIST
				     ? EXIT_USAGE
				     : EXIT_RUNTIME;
			goto out;
		}
		if (res.ignored[0])
			fprintf(stderr, "ioreel synth: note: %s: ignored: %s\n", fio, res.ignored);
	} else {
		spec->njobs = 1;
		synth_job_defaults(&spec->jobs[0]);
		snprintf(spec->jobs[0].name, sizeof(spec->jobs[0].name), "%s",
			 devname ? devname : "synth");
	}
	/* every variant is built and named before any is written: a refusal leaves no file */
	specs = calloc((size_t)variants, sizeof(*specs));
	if (!specs) {
		cli_error("out of memory");
		rc = EXIT_RUNTIME;
		goto out;
	}
	for (int v = 0; v < variants; v++) {
		struct synth_spec *sv = &specs[v];
		int err;

		*sv = *spec;
		if (p && p->fill(sv, p->variants > 1 ? v : -1)) {
			cli_error("preset %s: cannot build variant %d", p->name, v);
			rc = EXIT_RUNTIME;
			goto out;
		}
		err = apply_overrides(sv, ov, nov, p && p->variants > 1);
		if (err) {
			rc = err;
			goto out;
		}
		/* fio: without size, a job works on the whole file; here that is --device-size,
		 * or the target met at replay */
		err = synth_spec_file_level(sv) ? synth_fileops_prepare(sv, why, sizeof(why))
						: synth_spec_resolve(sv, devsize, why, sizeof(why));
		if (err) {
			cli_error("%s", why);
			rc = EXIT_USAGE;
			goto out;
		}
		if (!p || p->variants == 1)
			continue;
		if (cdm_name(&sv->jobs[0], names[v], sizeof(names[v]))) {
			cli_error("preset %s names each test's file for its block size: give one --bs "
				  "for all directions (not a split or a range)", p->name);
			goto out;
		}
		for (int k = 0; k < v; k++)
			if (!strcmp(names[k], names[v])) {
				cli_error("with these options two of %s's tests are the same, %s: drop "
					  "the option that makes them so (one file would overwrite the "
					  "other)", p->name, names[v]);
				goto out;
			}
		snprintf(sv->jobs[0].name, sizeof(sv->jobs[0].name), "%.15s-%.47s", p->name,
			 names[v]);
	}
	if (check) {
		rc = EXIT_OK;
		goto out;
	}
	if (json)
		printf("{\"traces\": [");
	for (int v = 0; v < variants; v++) {
		char path[4096];

		if (p && p->variants > 1)
			variant_path(out, names[v], path, sizeof(path));
		else
			snprintf(path, sizeof(path), "%s", out);
		rc = write_one(&specs[v], path, devname, devsize, cmdline, json, v == 0);
		if (rc)
			goto out;
	}
	if (json)
		printf("]}\n");
	rc = EXIT_OK;
out:
	free(ov);
	free(spec);
	free(specs);
	sigaction(SIGINT, &old_int, NULL); /* ioreel-mpi bench runs synth in its own process */
	sigaction(SIGTERM, &old_term, NULL);
	/* W4: '> /dev/full' exited 0; not closed: ioreel-mpi bench prints after it */
	return cli_flush_stdout(rc);
}
