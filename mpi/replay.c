// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `ioreel-mpi replay`: a trace set over the ranks. Every `ioreel replay` option applies (its
 * own parser reads them); the fleet adds where each part goes (plan.c), one rank's part as one
 * trace (share.c), agreement before any I/O (agree.c), a common start (clock.c) and the sum of
 * the results (report.c). The replay itself is replay_run(), unchanged, through two hooks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analyze/analyze.h"
#include "mpi/fleet.h"
#include "mpi/verb.h"
#include "util/argv.h"
#include "util/cli.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: mpirun ... ioreel-mpi replay TRACE... [fleet options] [ioreel replay options]\n"
"\n"
"Replays a set of traces (one per recorded host or device) over the ranks, all starting on\n"
"one clock, and sums the results exactly. Each trace's genesis (wall clock) places it in\n"
"the set's time; traces recorded by ioreel-mpi record share one genesis.\n"
"\n"
"fleet options:\n"
"  --plan FILE       which rank replays which device, and on what target (below);\n"
"                    default: by load, a device busier than a rank's share split by stripes\n"
"  --stripe SIZE     address stripe of a split device (default 1m): offset / SIZE mod K\n"
"                    picks the rank, so each block stays on one rank, in order\n"
"  --no-split        never split a device by load\n"
"  --each            every rank replays the whole set on its own target (like IOR's\n"
"                    file per process; give --target with %%r or %%h)\n"
"  --segments        with --each: rank r's offsets moved r x the set's extent further, so\n"
"                    ranks sharing one target each use a region of their own\n"
"  --slack TIME      how far ahead rank 0 announces the start (default 200ms)\n"
"  --clock-rounds N  ping-pongs per rank for each clock estimate (default 100)\n"
"  --share-dir DIR   where each rank writes its part of the set (default $TMPDIR or /tmp)\n"
"  --wait TIME       how long after its own end rank 0 waits for the others' results\n"
"                    before it names the missing ranks and aborts (default 5m; 0: forever)\n"
"replay options: those of ioreel replay (--mode, --engine, --speed, --allow-writes, ...);\n"
"  --target, --map and -o may hold %%r (rank) and %%h (host); with more than one rank,\n"
"  -o must (each rank writes its own result trace). --map TRACE:DEV=PATH names a device\n"
"  of one trace of the set.\n"
"  --json            fio's client-mode JSON: the sum in \"jobs\", each rank in\n"
"                    \"client_stats\", the clock and fidelity in \"fleet\"\n"
"\n"
"plan file: one rule a line, '#' comments:\n"
"  TRACE   DEVICE|*   RANKS              [TARGET]\n"
"  db1.ioreel  *        0                  /dev/md1\n"
"  db2.ioreel  nvme0n1  host-b             /dev/md1\n"
"  ceph.ioreel sdb      1,2,3              /dev/nvme1n1     (split in 3 stripes)\n"
"  RANKS: rank numbers or host names (every rank on it), several: stripes in that order.\n"
"\n"
"examples:\n"
"  mpirun --host a,b ioreel-mpi replay db1.ioreel db2.ioreel --target /dev/md1 \\\n"
"         --allow-writes -o run-%%h.ioreel --json > fleet.json\n"
"  mpirun -np 4 ioreel-mpi replay hot.ioreel --target /dev/nvme0n1 -o run-%%r.ioreel\n"
"  mpirun --host a,b,c ioreel-mpi replay *.ioreel --plan plan.txt --mode dep -o r-%%h.ioreel\n"
"  ioreel analyze --merge run-*.ioreel          # the ranks' result traces as one\n");
}

/* The fleet's own options, taken out of argv before replay's parser sees the rest. */
static const struct fleet_opt replay_opts[] = {
	{ "plan", true },  { "stripe", true },	     { "no-split", false },   { "each", false },
	{ "segments", false }, { "slack", true },    { "clock-rounds", true }, { "share-dir", true },
	{ "wait", true },  { NULL, false },
};

static int apply_opt(void *ctx, const char *name, const char *val)
{
	struct fleet_set *s = ctx;
	uint64_t v;

	if (!strcmp(name, "plan")) {
		s->po.plan_file = val;
	} else if (!strcmp(name, "stripe")) {
		if (parse_size(val, &s->po.stripe_bytes) || s->po.stripe_bytes < 4096) {
			cli_error("--stripe wants a size of at least 4k, like 1m, got '%s'", val);
			return -EINVAL;
		}
	} else if (!strcmp(name, "no-split")) {
		s->po.no_split = true;
	} else if (!strcmp(name, "each")) {
		s->po.each = true;
	} else if (!strcmp(name, "segments")) {
		s->po.segments = true;
	} else if (!strcmp(name, "slack")) {
		if (parse_duration_ns(val, &s->slack_ns) || s->slack_ns < 1000000) {
			cli_error("--slack wants a duration of at least 1ms, like 200ms, got '%s'",
				  val);
			return -EINVAL;
		}
	} else if (!strcmp(name, "clock-rounds")) {
		if (parse_u64(val, &v) || !v || v > 100000) {
			cli_error("--clock-rounds wants 1..100000, got '%s'", val);
			return -EINVAL;
		}
		s->rounds = (unsigned int)v;
	} else if (!strcmp(name, "share-dir")) {
		s->share_dir = val;
	} else if (!strcmp(name, "wait")) {
		if (parse_duration_ns(val, &s->wait_ns)) {
			cli_error("--wait wants a duration like 5m (0: forever), got '%s'", val);
			return -EINVAL;
		}
	}
	return 0;
}

int fleet_parse_set(struct fleet *f, int argc, char **argv, struct fleet_set *s, bool need_traces)
{
	char **rest = calloc((size_t)argc + 1, sizeof(*rest));
	struct capture cap;
	char msg[FLEET_MSG_LEN] = "";
	int nrest = 0, ret = 0;

	if (!rest)
		return -ENOMEM;
	s->slack_ns = s->slack_ns ? s->slack_ns : 200000000ULL;
	s->wait_ns = 300000000000ULL;
	s->rounds = s->rounds ? s->rounds : 100;
	s->share_dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	capture_begin(&cap);
	ret = fleet_take_opts(argc, argv, replay_opts, rest, &nrest, s, apply_opt);
	if (!ret)
		ret = replay_cli_parse(nrest, rest, &s->cli);
	if (!ret && s->cli.help) {
		capture_end(&cap, NULL, 0);
		if (!f->rank)
			usage(stdout);
		free(rest);
		return 1;
	}
	if (!ret) {
		s->npaths = nrest - optind;
		s->paths = (const char *const *)rest + optind;
		s->rest = rest;
		ret = fleet_check_set(f, s, need_traces);
	}
	capture_end(&cap, msg, sizeof(msg));
	if (!fleet_agree(f, "reading the options", !ret, msg)) {
		if (!f->rank && s->cli.bad_option)
			usage(stderr);
		free(rest);
		s->rest = NULL;
		return -EINVAL;
	}
	return 0;
}

int fleet_check_set(const struct fleet *f, struct fleet_set *s, bool need_traces)
{
	struct replay_opts *o = &s->cli.o;

	if (need_traces && s->npaths < 1) {
		cli_error("which traces? give one or more TRACE files");
		return -EINVAL;
	}
	if (f->size > 1 && o->output && !fleet_has_pattern(o->output)) {
		cli_error("-o %s: with %d ranks each writes its own result trace: put %%r (rank) "
			  "or %%h (host) in the name", o->output, f->size);
		return -EINVAL;
	}
	if (s->po.segments && !s->po.each) {
		cli_error("--segments places each rank's copy of the set: give --each too");
		return -EINVAL;
	}
	if (s->po.each && s->po.plan_file) {
		cli_error("--each replays the whole set on every rank: a --plan has nothing to "
			  "place");
		return -EINVAL;
	}
	if (!o->target && !o->nmaps && !s->po.plan_file) {
		cli_error("no target: give --target PATH, --map [TRACE:]DEV=PATH or targets in a "
			  "--plan");
		return -EINVAL;
	}
	return 0;
}

/* ---- the hooks: agreement when the targets are vetted, the common start ---- */

static int hook(void *arg, int stage, uint64_t *start)
{
	struct fleet_set *s = arg;

	if (stage == REPLAY_STAGE_CHECKED) {
		s->stage = 1;
		if (!fleet_agree(s->f, "the target checks", true, NULL)) {
			s->cancelled = true;
			return -ECANCELED;
		}
		return 0;
	}
	s->stage = 2;
	if (!fleet_agree(s->f, "setting up", true, NULL)) {
		s->cancelled = true;
		return -ECANCELED;
	}
	clock_sync(s->f, s->rounds, &s->res.clock.start, NULL);
	s->res.clock.drift_ppm = clock_drift_ppm(&s->res.clock.before, &s->res.clock.start);
	s->res.clock.drift_uncert_ppm =
		clock_drift_uncert_ppm(&s->res.clock.before, &s->res.clock.start);
	*start = clock_start(s->f, &s->res.clock.start, s->slack_ns,
			     s->cli.o.spin_ns > CLOCK_SPIN_NS ? s->cli.o.spin_ns : CLOCK_SPIN_NS,
			     &s->res.clock);
	s->started = true;
	return 0;
}

/* A rank that failed before a stage joins that stage's agreement (and the later ones are not
 * reached by anyone): every rank makes the same collective calls. */
static void catch_up(struct fleet_set *s, const char *why)
{
	if (s->cancelled || s->started)
		return;
	if (s->stage < 1 && !fleet_agree(s->f, "the target checks", false, why))
		return;
	if (s->stage < 2)
		fleet_agree(s->f, "setting up", false, why);
}

/* The target for each device of this rank's part: --plan, then --map TRACE:DEV, DEV, --target. */
static int resolve_targets(const struct fleet *f, struct fleet_set *s, char *why, size_t len)
{
	const struct replay_opts *o = &s->cli.o;

	s->nmaps = 0;
	for (uint32_t d = 0; d < s->share.ndev; d++) {
		const struct share_dev *sd = &s->share.dev[d];
		const char *dev = s->plan->traces[sd->trace].dev_names[sd->dev];
		const char *path = sd->stream && sd->stream->target[0] ? sd->stream->target : NULL;
		size_t tl = strcspn(sd->name, ":");

		for (unsigned int k = 0; k < o->nmaps && !path; k++) {
			const char *n = o->maps[k].name, *colon = strrchr(n, ':');

			if (colon && (size_t)(colon - n) == tl && !strncmp(n, sd->name, tl) &&
			    !strcmp(colon + 1, dev))
				path = o->maps[k].path;
		}
		for (unsigned int k = 0; k < o->nmaps && !path; k++)
			if (!strcmp(o->maps[k].name, dev))
				path = o->maps[k].path;
		if (!path)
			path = o->target;
		if (!path) {
			snprintf(why, len, "no target for %s: give --target, --map %s=PATH or a "
				 "target in the --plan", sd->name, dev);
			return -EINVAL;
		}
		if (fleet_expand(f, path, s->target_paths[d], sizeof(s->target_paths[d]))) {
			snprintf(why, len, "target name too long: %s", path);
			return -ENAMETOOLONG;
		}
		s->maps[s->nmaps++] = (struct replay_map){ sd->name, s->target_paths[d] };
	}
	return 0;
}

static void warn_cb(const char *msg)
{
	cli_warn("%s", msg);
}

/* This rank's replay, between the agreements: 0 or the run's -errno (s->why says why). */
static int run_part(struct fleet_set *s, struct replay_result *rr, bool *have)
{
	struct replay_opts o = s->cli.o;
	int ret;

	*have = false;
	o.trace = s->share.path;
	o.target = NULL;
	o.maps = s->maps;
	o.nmaps = s->nmaps;
	o.output = s->output[0] ? s->output : NULL;
	o.progress = false;
	o.warn = warn_cb;
	o.hook = hook;
	o.hook_arg = s;
	o.origin_set = true;
	o.origin_ns = s->plan->origin_ns;
	o.command_line = s->cmdline;
	ret = replay_run(&o, rr, s->why, sizeof(s->why));
	*have = true;
	return ret;
}

/* A rank with nothing to replay still takes part in every agreement and in the start. */
static void idle_part(struct fleet_set *s)
{
	uint64_t start;

	if (!hook(s, REPLAY_STAGE_CHECKED, &start))
		hook(s, REPLAY_STAGE_START, &start);
}

static void fill_result(struct fleet_set *s, const struct replay_result *rr, int ret)
{
	struct rank_result *r = &s->res;

	r->status = ret;
	if (ret)
		snprintf(r->err, sizeof(r->err), "%s", s->why);
	snprintf(r->share, sizeof(r->share), "%s", s->share.desc);
	snprintf(r->mode, sizeof(r->mode), "%s", replay_mode_name(rr ? rr->mode : s->cli.o.mode));
	snprintf(r->engine, sizeof(r->engine), "%s", rr && rr->engine ? rr->engine : "-");
	hist_init(&r->lateness);
	if (!rr)
		return;
	r->ios = rr->ios;
	r->errors = rr->errors;
	r->bytes = rr->bytes;
	r->late_100us = rr->late_100us;
	r->cap_hits = rr->cap_hits;
	r->starved = rr->starved;
	r->elapsed_ns = rr->elapsed_ns;
	r->trace_span_ns = rr->trace_span_ns;
	r->replay_span_ns = rr->replay_span_ns;
	r->stretch = rr->stretch;
	hist_merge(&r->lateness, &rr->lateness);
	replay_fidelity_json(rr, r->fidelity, sizeof(r->fidelity));
}

int fleet_run_set(struct fleet *f, struct fleet_set *s, const char *title,
		  void (*local_paths)(struct fleet_set *s))
{
	struct replay_result rr;
	char why[FLEET_MSG_LEN] = "";
	bool have = false;
	int ret = 0, rc;

	s->f = f;
	s->plan = calloc(1, sizeof(*s->plan));
	if (!s->plan) {
		fprintf(stderr, "ioreel-mpi: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, EXIT_RUNTIME);
	}
	if (!f->rank)
		ret = plan_make(f, s->paths, (unsigned int)s->npaths, &s->po, s->plan, why,
				sizeof(why));
	if (!fleet_agree(f, "reading the trace set", !ret, why))
		return EXIT_RUNTIME;
	plan_bcast(f, s->plan);
	if (!f->rank && s->plan->warn[0])
		cli_warn("%s", s->plan->warn);
	if (local_paths)
		local_paths(s);
	clock_sync(f, s->rounds, &s->res.clock.before, NULL);
	ret = share_build(f, s->plan, s->share_dir, &s->share, why, sizeof(why));
	if (!ret && s->share.path[0])
		ret = resolve_targets(f, s, why, sizeof(why));
	if (!ret && s->cli.o.output &&
	    fleet_expand(f, s->cli.o.output, s->output, sizeof(s->output))) {
		snprintf(why, sizeof(why), "-o %s: name too long", s->cli.o.output);
		ret = -ENAMETOOLONG;
	}
	if (!fleet_agree(f, "reading its part of the set", !ret, why)) {
		share_remove(&s->share);
		return EXIT_RUNTIME;
	}
	/* Memory stays locked from here (replay's mlockall); nothing is swapped in at start. */
	if (s->share.path[0]) {
		ret = run_part(s, &rr, &have);
		if (ret)
			catch_up(s, s->why);
	} else {
		idle_part(s);
	}
	share_remove(&s->share);
	if (!s->started) { /* someone could not start: every rank knows, nothing ran */
		if (have)
			replay_result_free(&rr);
		return EXIT_RUNTIME;
	}
	fill_result(s, have ? &rr : NULL, ret);
	{
		struct report_opts ro = { .json = s->cli.json, .title = title, .plan = s->plan,
					  .wait_ns = s->wait_ns, .rounds = s->rounds };

		rc = report_fleet(f, &ro, &s->res, have ? rr.analysis : NULL);
	}
	if (have)
		replay_result_free(&rr);
	return rc;
}

void fleet_set_free(struct fleet_set *s)
{
	free(s->rest);
	free(s->plan);
	free(s->cmdline);
}

int fleet_replay(struct fleet *f, int argc, char **argv)
{
	static struct fleet_set s; /* large (the plan's pointer, result); one per process */
	int ret;

	memset(&s, 0, sizeof(s));
	ret = fleet_parse_set(f, argc, argv, &s, true);
	if (ret) {
		fleet_set_free(&s);
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	}
	s.cmdline = argv_join("ioreel-mpi", argc, argv);
	ret = fleet_run_set(f, &s, "replay", NULL);
	fleet_set_free(&s);
	return ret;
}
