// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `ioreel-mpi bench`: one synthesized job on every rank at once, like IOR: each rank writes
 * the job with ioreel synth's own code (its seed moved by its rank, so ranks on one target do
 * not read the same random blocks), then the fleet replays each rank's copy on its target
 * (--each), all from one start, and sums the results exactly.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ioreel.h"
#include "mpi/verb.h"
#include "synth/synth.h"
#include "util/argv.h"
#include "util/cli.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: mpirun ... ioreel-mpi bench SYNTH-OPTIONS... -- REPLAY-OPTIONS...\n"
"\n"
"Every rank synthesizes the job (the options of ioreel synth: --preset, --fio-job, --rw,\n"
"--bs, --iodepth, --numjobs, --size, --runtime, ...) and replays it on its target, all\n"
"starting together; the results are summed exactly (fio's client-mode JSON with --json).\n"
"Rank r's random seed is the job's plus r (--same-seed: all alike).\n"
"After --: the options of ioreel-mpi replay (--target with %%r or %%h for a target per\n"
"rank, --segments for regions of one shared target, --allow-writes, --engine, --json...).\n"
"\n"
"examples:\n"
"  mpirun -np 4 ioreel-mpi bench --preset 4k-randread --size 1G --runtime 30 \\\n"
"         -- --target /mnt/lustre/bench.%%r --size 1G --allow-writes --json\n"
"  mpirun --host a,b ioreel-mpi bench --rw randwrite --bs 4k --iodepth 32 --size 4G \\\n"
"         --time_based --runtime 60 -- --target /dev/nvme0n1 --allow-writes --force\n");
}

struct bench {
	char path[PLAN_PATH_LEN];
};

static struct bench me;

static void use_own_copy(struct fleet_set *s)
{
	/* the plan names rank 0's file; every rank replays its own, written just now */
	snprintf(s->plan->traces[0].path, sizeof(s->plan->traces[0].path), "%s", me.path);
	s->plan->local_traces = true;
}

/* synth's argv: the job's options, this rank's seed, -o this rank's file. */
static int synth_args(const struct fleet *f, int argc, char **argv, bool same_seed, char **out,
		      char *seed_buf, size_t len)
{
	uint64_t seed = SYNTH_DEFAULT_SEED;
	int n = 0;

	out[n++] = "synth";
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool is_seed = !strcmp(a, "--seed") || !strcmp(a, "--randseed");
		const char *eq = NULL;

		if (!strncmp(a, "--seed=", 7) || !strncmp(a, "--randseed=", 11))
			eq = strchr(a, '=') + 1;
		if (!strcmp(a, "-o") || !strncmp(a, "--output", 8)) {
			cli_error("the job's file is the fleet's to name: leave -o out");
			return -EINVAL;
		}
		if (is_seed && i + 1 < argc)
			eq = argv[++i];
		if (eq) {
			if (parse_u64(eq, &seed)) {
				cli_error("--seed wants a number, got '%s'", eq);
				return -EINVAL;
			}
			continue;
		}
		out[n++] = argv[i];
	}
	snprintf(seed_buf, len, "--seed=%llu",
		 (unsigned long long)(seed + (same_seed ? 0 : (uint64_t)f->rank)));
	out[n++] = seed_buf;
	out[n++] = "-o";
	out[n++] = me.path;
	out[n] = NULL;
	return n;
}

/* Runs ioreel synth in this process, its summary on stdout silenced, its errors kept. */
static int synthesize(int argc, char **argv, char *why, size_t len)
{
	struct capture cap;
	int out = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY), rc;

	fflush(stdout);
	if (out >= 0 && null >= 0)
		dup2(null, STDOUT_FILENO);
	capture_begin(&cap);
	optind = 1;
	rc = cmd_synth(argc, argv);
	capture_end(&cap, why, len);
	fflush(stdout);
	if (out >= 0 && null >= 0)
		dup2(out, STDOUT_FILENO);
	if (out >= 0)
		close(out);
	if (null >= 0)
		close(null);
	if (rc && !*why)
		snprintf(why, len, "ioreel synth failed (exit %d)", rc);
	return rc ? -EINVAL : 0;
}

int fleet_bench(struct fleet *f, int argc, char **argv)
{
	static struct fleet_set s;
	char seed[64], why[FLEET_MSG_LEN] = "";
	char **sargv = calloc((size_t)argc + 6, sizeof(*sargv));
	const char *paths[1] = { me.path };
	bool same_seed = false;
	int sep = -1, nsyn = 0, ret = 0, k;

	if (!sargv)
		return EXIT_RUNTIME;
	for (int i = 1; i < argc && sep < 0; i++) {
		if (!strcmp(argv[i], "--"))
			sep = i;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			if (!f->rank)
				usage(stdout);
			free(sargv);
			return EXIT_OK;
		}
	}
	if (sep < 0) {
		if (!f->rank) {
			fprintf(stderr, "ioreel-mpi bench: give the replay options after '--' "
				"(at least --target)\n");
			usage(stderr);
		}
		free(sargv);
		return EXIT_USAGE;
	}
	/* the replay part, with the job as its one trace and --each */
	memset(&s, 0, sizeof(s));
	s.po.each = true;
	argv[sep] = argv[0];
	ret = fleet_parse_set(f, argc - sep, argv + sep, &s, false);
	if (ret) {
		free(sargv);
		fleet_set_free(&s);
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	}
	for (k = 1; k < sep; k++)
		same_seed |= !strcmp(argv[k], "--same-seed");
	snprintf(me.path, sizeof(me.path), "%s/ioreel-mpi-bench-r%d-%d.ioreel", s.share_dir,
		 f->rank, (int)getpid());
	{
		char **job = calloc((size_t)sep, sizeof(*job));
		int nj = 0;

		for (k = 1; job && k < sep; k++)
			if (strcmp(argv[k], "--same-seed"))
				job[nj++] = argv[k];
		nsyn = job ? synth_args(f, nj, job, same_seed, sargv, seed, sizeof(seed)) : -ENOMEM;
		if (nsyn > 0)
			ret = synthesize(nsyn, sargv, why, sizeof(why));
		else
			ret = nsyn;
		free(job);
	}
	if (!fleet_agree(f, "synthesizing the job", !ret, why)) {
		unlink(me.path);
		free(sargv);
		fleet_set_free(&s);
		return nsyn < 0 ? EXIT_USAGE : EXIT_RUNTIME;
	}
	s.paths = paths;
	s.npaths = 1;
	s.cmdline = argv_join("ioreel-mpi", argc, argv);
	ret = fleet_run_set(f, &s, "bench", use_own_copy);
	unlink(me.path);
	free(sargv);
	fleet_set_free(&s);
	return ret;
}
