// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `ioreel-mpi record`: ioreel record on every host at once, with one genesis. Rank 0
 * announces t = 0 in its clock; each rank converts it (clock.c), waits for it, and starts its
 * trace there, every trace stamped with rank 0's wall clock at that instant. The traces then
 * replay together (ioreel-mpi replay) and merge (ioreel analyze --merge) with no host's NTP
 * error between them: what remains is the offset's uncertainty, reported per host.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ioreel.h"
#include "mpi/verb.h"
#include "record/record.h"
#include "util/cli.h"
#include "util/json.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: mpirun ... ioreel-mpi record [ioreel record options] -o PATTERN [--json]\n"
"\n"
"Records on every host at once (ioreel record's options: -d DEVICE, --duration, --pid,\n"
"--comm, --cgroup, --level, ...), all traces sharing one genesis (t = 0 and its wall\n"
"clock: rank 0's), so they replay and merge together. PATTERN names each host's trace:\n"
"%%h (host), %%r (rank); with more than one rank it must hold one of them.\n"
"  --slack TIME      how far ahead rank 0 announces the genesis (default 200ms)\n"
"  --clock-rounds N  ping-pongs per rank for the clock estimate (default 100)\n"
"  --json            one JSON document: every host's trace, events, drops and clock\n"
"Ranks other than 0 record quietly; rank 0 prints the fleet's summary at the end.\n"
"Different devices per host: an MPMD launch (mpirun -np 1 ioreel-mpi record -d X ... :\n"
"-np 1 ioreel-mpi record -d Y ...).\n"
"\n"
"examples:\n"
"  mpirun --host db1,db2,db3 ioreel-mpi record -d /dev/md0 --duration 1h -o prod-%%h.ioreel\n"
"  mpirun --host a,b ioreel-mpi record -d /dev/nvme0n1 -d /dev/nvme1n1 -o %%h.ioreel --json\n");
}

static struct {
	const struct fleet *f;
	struct clock_run clock;
	struct capture cap;
	uint64_t slack_ns;
	unsigned int rounds;
	bool reached, started;
	char path[PLAN_PATH_LEN];
} rec;

static const struct fleet_opt record_opts[] = {
	{ "slack", true }, { "clock-rounds", true }, { "json", false }, { NULL, false },
};

static bool json;

static int apply_opt(void *ctx, const char *name, const char *val)
{
	uint64_t v;

	(void)ctx;
	if (!strcmp(name, "json")) {
		json = true;
	} else if (!strcmp(name, "slack")) {
		if (parse_duration_ns(val, &rec.slack_ns) || rec.slack_ns < 1000000) {
			cli_error("--slack wants a duration of at least 1ms, got '%s'", val);
			return -EINVAL;
		}
	} else if (!strcmp(name, "clock-rounds")) {
		if (parse_u64(val, &v) || !v || v > 100000) {
			cli_error("--clock-rounds wants 1..100000, got '%s'", val);
			return -EINVAL;
		}
		rec.rounds = (unsigned int)v;
	}
	return 0;
}

/* Called by cmd_record once its programs are loaded: agree, then meet at the genesis, with
 * the programs armed for it first, so a rank that wakes late for it misses no I/O. */
static int genesis_hook(uint64_t *mono, uint64_t *realtime, void (*arm)(void *, uint64_t),
			void *arm_ctx)
{
	const struct fleet *f = rec.f;
	uint64_t delta = 0;
	char out[FLEET_MSG_LEN];

	rec.reached = true;
	capture_end(&rec.cap, out, sizeof(out)); /* what record said so far goes out now */
	if (*out && !f->rank)
		fprintf(stderr, "ioreel-mpi record: %s\n", out);
	if (!fleet_agree(f, "loading the recorder", true, NULL))
		return -ECANCELED;
	clock_sync(f, rec.rounds, &rec.clock.start, NULL);
	rec.clock.drift_ppm = clock_drift_ppm(&rec.clock.before, &rec.clock.start);
	rec.clock.drift_uncert_ppm = clock_drift_uncert_ppm(&rec.clock.before, &rec.clock.start);
	if (!f->rank) /* rank 0's wall clock less its CLOCK_MONOTONIC: the genesis's wall time */
		delta = now_real_ns() - now_mono_ns();
	MPI_Bcast(&delta, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	*mono = clock_announce(f, &rec.clock.start, rec.slack_ns, &rec.clock);
	arm(arm_ctx, *mono);
	clock_wait(*mono, CLOCK_SPIN_NS, &rec.clock);
	*realtime = (uint64_t)((int64_t)*mono + f->test_skew_ns - rec.clock.start.offset_ns) + delta;
	rec.started = true;
	return 0;
}

struct host_trace {
	int status;
	uint64_t events, dropped, bytes, genesis;
	char path[PLAN_PATH_LEN];
	struct clock_run clock;
};

static void host_summary(struct host_trace *h, int rc)
{
	char why[256];
	struct trace_reader *r;

	memset(h, 0, sizeof(*h));
	h->status = rc;
	h->clock = rec.clock;
	snprintf(h->path, sizeof(h->path), "%s", rec.path);
	r = rc ? NULL : trace_reader__open(rec.path, TRACE_SALVAGE, why, sizeof(why));
	if (!r)
		return;
	h->events = trace_reader__event_count(r);
	h->bytes = trace_reader__file_bytes(r);
	h->genesis = trace_reader__meta(r)->genesis_realtime_ns;
	if (trace_reader__stats(r))
		h->dropped = trace_reader__stats(r)->dropped;
	trace_reader__close(r);
}

static int report(const struct fleet *f, struct host_trace *mine)
{
	struct host_trace *all = f->rank ? NULL : calloc((size_t)f->size, sizeof(*all));
	int verdict = EXIT_OK;
	char a[32], b[32], c[32];

	MPI_Gather(mine, sizeof(*mine), MPI_BYTE, all, sizeof(*mine), MPI_BYTE, 0, MPI_COMM_WORLD);
	if (!f->rank) {
		if (json)
			printf("{\"verb\": \"record\", \"ranks\": %d, \"hosts\": [", f->size);
		else
			printf("  %-4s %-16s %12s %9s %11s %17s %9s  %s\n", "rank", "host", "events",
			       "dropped", "trace", "offset +- unc", "start", "file");
		for (int r = 0; r < f->size; r++) {
			const struct host_trace *h = &all[r];
			const struct clock_run *cl = &h->clock;

			if (h->status)
				verdict = EXIT_RUNTIME;
			if (json) {
				printf("%s\n{\"rank\": %d, \"hostname\": ", r ? "," : "", r);
				json_str(stdout, f->hosts[r]);
				printf(", \"file\": ");
				json_str(stdout, h->path);
				printf(", \"ok\": %s, \"events\": %llu, \"dropped\": %llu, "
				       "\"trace_bytes\": %llu, \"genesis_realtime_ns\": %llu, "
				       "\"clock\": {\"offset_ns\": %lld, \"uncertainty_ns\": %llu, "
				       "\"drift_ppm\": %.4f, \"drift_uncertainty_ppm\": %.4f, "
				       "\"run_drift_ppm\": %.4f, \"run_drift_uncertainty_ppm\": %.4f}, "
				       "\"start\": {\"late_ns\": %lld, \"met\": %s}}",
				       h->status ? "false" : "true",
				       (unsigned long long)h->events, (unsigned long long)h->dropped,
				       (unsigned long long)h->bytes, (unsigned long long)h->genesis,
				       (long long)cl->start.offset_ns,
				       (unsigned long long)cl->start.uncert_ns, cl->drift_ppm,
				       cl->drift_uncert_ppm, cl->run_drift_ppm,
				       cl->run_drift_uncert_ppm, (long long)cl->start_late_ns,
				       cl->start_met ? "true" : "false");
				continue;
			}
			snprintf(c, sizeof(c), "%s +- %s",
				 fmt_ns((uint64_t)llabs(cl->start.offset_ns), a, sizeof(a)),
				 fmt_ns(cl->start.uncert_ns, b, sizeof(b)));
			printf("  %-4d %-16.16s %12llu %9llu %11s %17s %9s  %s%s\n", r, f->hosts[r],
			       (unsigned long long)h->events, (unsigned long long)h->dropped,
			       fmt_bytes(h->bytes, a, sizeof(a)), c,
			       fmt_ns((uint64_t)(cl->start_late_ns > 0 ? cl->start_late_ns : 0), b,
				      sizeof(b)),
			       h->path, h->status ? "  FAILED (its message is above)" : "");
		}
		if (json)
			printf("]}\n");
		else
			printf("  one genesis for every trace: %llu ns (rank 0's wall clock)\n",
			       (unsigned long long)all[0].genesis);
		fflush(stdout);
		free(all);
	}
	MPI_Bcast(&verdict, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return verdict;
}

/* -o PATTERN: each rank's file; the argument is replaced in place with the expansion. */
static int expand_output(const struct fleet *f, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char **slot = NULL;
		const char *pat = NULL;

		if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc) {
			slot = &argv[i + 1];
			pat = argv[i + 1];
		} else if (!strncmp(argv[i], "--output=", 9)) {
			slot = &argv[i];
			pat = argv[i] + 9;
		}
		if (!slot)
			continue;
		if (f->size > 1 && !fleet_has_pattern(pat)) {
			cli_error("-o %s: with %d ranks each host writes its own trace: put %%h "
				  "(host) or %%r (rank) in the name", pat, f->size);
			return -EINVAL;
		}
		if (fleet_expand(f, pat, rec.path, sizeof(rec.path))) {
			cli_error("-o %s: name too long", pat);
			return -ENAMETOOLONG;
		}
		*slot = rec.path;
		return 0;
	}
	cli_error("no output: give -o PATTERN (%%h is the host, %%r the rank)");
	return -EINVAL;
}

int fleet_record(struct fleet *f, int argc, char **argv)
{
	char **rest = calloc((size_t)argc + 3, sizeof(*rest));
	char msg[FLEET_MSG_LEN] = "";
	struct host_trace mine;
	struct capture cap;
	int nrest = 0, ret, rc;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			if (!f->rank)
				usage(stdout);
			free(rest);
			return EXIT_OK;
		}
	rec.f = f;
	rec.slack_ns = 200000000ULL;
	rec.rounds = 100;
	capture_begin(&cap);
	ret = rest ? fleet_take_opts(argc, argv, record_opts, rest, &nrest, NULL, apply_opt)
		   : -ENOMEM;
	if (!ret)
		ret = expand_output(f, nrest, rest);
	capture_end(&cap, msg, sizeof(msg));
	if (!fleet_agree(f, "reading the options", !ret, msg)) {
		free(rest);
		return EXIT_USAGE;
	}
	if (f->rank) /* one status line for the fleet: rank 0's */
		rest[nrest++] = "-q";
	rest[nrest] = NULL;
	clock_sync(f, rec.rounds, &rec.clock.before, NULL);
	record_genesis_hook = genesis_hook;
	capture_begin(&rec.cap);
	optind = 1;
	rc = cmd_record(nrest, rest);
	if (!rec.reached) { /* it failed before the genesis: say why, with everyone */
		capture_end(&rec.cap, msg, sizeof(msg));
		fleet_agree(f, "loading the recorder", false, *msg ? msg : "ioreel record failed");
	}
	free(rest);
	if (!rec.started)
		return EXIT_RUNTIME;
	clock_sync(f, rec.rounds, &rec.clock.end, NULL);
	rec.clock.have_end = true;
	rec.clock.run_drift_ppm = clock_drift_ppm(&rec.clock.start, &rec.clock.end);
	rec.clock.run_drift_uncert_ppm = clock_drift_uncert_ppm(&rec.clock.start, &rec.clock.end);
	host_summary(&mine, rc);
	return report(f, &mine);
}
