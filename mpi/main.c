// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ioreel-mpi: ioreel's replay, record and bench on many hosts at once, started by any MPI
 * launcher (mpirun, srun). This file starts MPI, checks that every rank runs the same
 * version, and dispatches the verb; ioreel itself never links MPI.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpi/fleet.h"
#include "util/cli.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: mpirun [-np N] [--host a,b,...] ioreel-mpi VERB [options]   (VERB --help for details)\n"
"\n"
"ioreel on many hosts at once, on one clock (rank 0's, each rank's offset measured by\n"
"ping-pong), all ranks checked before any I/O, results summed exactly.\n"
"\n"
"verbs:\n"
"  replay   replay a set of traces (one per recorded host or device) over the ranks\n"
"  record   record on every host at once, with one shared genesis\n"
"  bench    one synthesized job (ioreel synth) on every rank at once, like IOR\n"
"  clock    measure the fleet's clock: offsets, their uncertainty, start skew\n"
"\n"
"examples:\n"
"  mpirun --host a,b,c ioreel-mpi record -d /dev/md0 --duration 1h -o prod-%%h.ioreel\n"
"  mpirun --host x,y ioreel-mpi replay prod-a.ioreel prod-b.ioreel prod-c.ioreel \\\n"
"         --target /dev/md1 --allow-writes -o run-%%h.ioreel\n"
"  mpirun -np 8 ioreel-mpi bench --preset 4k-randread --size 1G --runtime 30 \\\n"
"         -- --target /mnt/lustre/f.%%r --allow-writes\n");
}

bool fleet_has_pattern(const char *s)
{
	return s && (strstr(s, "%r") || strstr(s, "%h"));
}

int fleet_expand(const struct fleet *f, const char *pattern, char *out, size_t len)
{
	size_t n = 0;

	for (const char *p = pattern; *p; p++) {
		int w;

		if (*p == '%' && p[1] == 'r')
			w = snprintf(out + n, len - n, "%d", f->rank);
		else if (*p == '%' && p[1] == 'h')
			w = snprintf(out + n, len - n, "%s", f->host);
		else if (*p == '%' && p[1] == '%')
			w = snprintf(out + n, len - n, "%%");
		else
			w = snprintf(out + n, len - n, "%c", *p);
		if (w < 0 || (size_t)w >= len - n)
			return -ENAMETOOLONG;
		n += (size_t)w;
		if (*p == '%' && (p[1] == 'r' || p[1] == 'h' || p[1] == '%'))
			p++;
	}
	return 0;
}

struct verb {
	const char *name;
	int (*run)(struct fleet *f, int argc, char **argv);
};

static const struct verb verbs[] = {
	{ "replay", fleet_replay },
	{ "record", fleet_record },
	{ "bench", fleet_bench },
	{ "synth", fleet_bench },
	{ "clock", fleet_clock },
};

int main(int argc, char **argv)
{
	static char verb_name[32];
	static char who[FLEET_HOST_LEN + 32];
	struct fleet f = { 0 };
	const struct verb *v = NULL;
	const char *skew;
	int provided, rc;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return EXIT_OK;
	}
	if (argc >= 2 && !strcmp(argv[1], "--version")) {
		printf("ioreel-mpi %s\n", IOREEL_VERSION);
		return EXIT_OK;
	}
	/* MPI from the main thread only: replay's helper thread never calls it */
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &f.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &f.size);
	if (gethostname(f.host, sizeof(f.host) - 1))
		snprintf(f.host, sizeof(f.host), "rank%d", f.rank);
	skew = getenv("IOREEL_TEST_CLOCK_SKEW_NS");
	if (skew && *skew)
		f.test_skew_ns = strtoll(skew, NULL, 10) * f.rank;
	skew = getenv("IOREEL_TEST_LATE_ANNOUNCE_NS");
	if (skew && *skew && f.rank == f.size - 1)
		f.test_late_ns = strtoull(skew, NULL, 10);
	for (size_t i = 0; argc >= 2 && i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(argv[1], verbs[i].name))
			v = &verbs[i];
	if (!v) {
		if (!f.rank) {
			if (argc < 2)
				fprintf(stderr, "ioreel-mpi: which verb?\n");
			else
				fprintf(stderr, "ioreel-mpi: unknown verb '%s'\n", argv[1]);
			usage(stderr);
		}
		MPI_Finalize();
		return EXIT_USAGE;
	}
	snprintf(verb_name, sizeof(verb_name), "mpi %s", v->name);
	cli_verb = verb_name; /* messages of the shared code read "ioreel mpi replay: ..." */
	f.verb = v->name;
	if (fleet_gather_hosts(&f)) {
		fprintf(stderr, "ioreel-mpi: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, EXIT_RUNTIME);
	}
	/* every rank's own messages name it: under mpirun the ranks share one stderr */
	snprintf(who, sizeof(who), "rank %d on %s: ", f.rank, f.host);
	cli_who = who;
	if (!fleet_check_versions(&f)) {
		MPI_Finalize();
		return EXIT_RUNTIME;
	}
	rc = v->run(&f, argc - 1, argv + 1);
	free(f.hosts);
	MPI_Finalize();
	return rc;
}
