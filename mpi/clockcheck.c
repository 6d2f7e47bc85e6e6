// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `ioreel-mpi clock`: the fleet's clock alone, no I/O. Offsets and their uncertainty per rank,
 * drift between two estimates, and K starts: how late each rank woke and how far apart the
 * ranks started. On one host every rank reads the same CLOCK_MONOTONIC, so the skew is
 * measured, not estimated; with the test-only IOREEL_TEST_CLOCK_SKEW_NS each rank's clock is
 * shifted by rank x that, and the error of the estimate against it is reported.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "analyze/hist.h"
#include "mpi/verb.h"
#include "util/cli.h"
#include "util/json.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: mpirun ... ioreel-mpi clock [--rounds N] [--starts K] [--slack TIME] [--gap TIME]\n"
"                                   [--barrier] [--json]\n"
"\n"
"Measures the fleet's one clock: each rank's offset from rank 0 by N ping-pongs (default\n"
"100) and its uncertainty (half the narrowest window), again after --gap (default 1s) for\n"
"the drift; then K common starts (default 100), each announced --slack ahead (default\n"
"20ms), with each rank's lateness and the spread of the starts (measured on one host,\n"
"where the ranks share CLOCK_MONOTONIC; bounded by the offsets' uncertainty across hosts).\n"
"--barrier starts on an MPI_Barrier instead (IOR's way), for comparison.\n"
"Nothing is written or read: run it to judge a fleet before a replay (bench/mpi_clock.sh).\n");
}

struct clk_rank {
	struct clock_est a, b;
	int64_t injected;
	struct hist late;
};

int fleet_clock(struct fleet *f, int argc, char **argv)
{
	static const char *const names[] = { "rounds", "starts", "slack", "gap",
					     "json", "help", "barrier" };
	uint64_t rounds = 100, starts = 100, slack = 20000000, gap = 1000000000ULL;
	bool json = false, barrier = false;
	struct clk_rank me = { 0 }, *all = NULL;
	struct hist skew;
	char a[32], b[32], c[32], d[32], e[32], ppm[48];

	hist_init(&skew);
	hist_init(&me.late);
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : "";
		int k = -1, bad = 0;

		for (int n = 0; n < 7; n++)
			if (!strncmp(argv[i], "--", 2) && !strcmp(argv[i] + 2, names[n]))
				k = n;
		switch (k) {
		case 0:
			bad = parse_u64(v, &rounds) || !rounds || rounds > 100000;
			i++;
			break;
		case 1:
			bad = parse_u64(v, &starts) || !starts || starts > 100000;
			i++;
			break;
		case 2:
			bad = parse_duration_ns(v, &slack) || slack < 1000000;
			i++;
			break;
		case 3:
			bad = parse_duration_ns(v, &gap);
			i++;
			break;
		case 4:
			json = true;
			break;
		case 5:
			if (!f->rank)
				usage(stdout);
			return EXIT_OK;
		case 6:
			barrier = true;
			break;
		default:
			bad = 1;
		}
		if (bad) {
			if (!f->rank) {
				fprintf(stderr, "ioreel-mpi clock: bad option or value: %s %s\n",
					argv[i - (k >= 0 && k < 4)], k >= 0 && k < 4 ? v : "");
				usage(stderr);
			}
			return EXIT_USAGE;
		}
	}
	clock_sync(f, (unsigned int)rounds, &me.a, NULL);
	if (gap) {
		struct timespec ts = { (time_t)(gap / 1000000000ULL), (long)(gap % 1000000000ULL) };

		nanosleep(&ts, NULL);
	}
	clock_sync(f, (unsigned int)rounds, &me.b, NULL);
	me.injected = f->test_skew_ns;
	for (uint64_t k = 0; k < starts; k++) {
		struct clock_run run;
		uint64_t *woke = f->rank ? NULL : calloc((size_t)f->size, sizeof(*woke)), w;

		if (barrier) {
			/* IOR's start, for comparison: everyone leaves a barrier and reads the clock */
			MPI_Barrier(MPI_COMM_WORLD);
			run.start_woke = now_mono_ns();
			run.start_late_ns = 0;
		} else {
			clock_start(f, &me.b, slack, CLOCK_SPIN_NS, &run);
		}
		hist_add(&me.late, (uint64_t)(run.start_late_ns > 0 ? run.start_late_ns : 0));
		/* one host: the wake-ups on its one clock; else each in rank 0's, by its offset */
		w = f->one_host ? run.start_woke
				: (uint64_t)((int64_t)run.start_woke + f->test_skew_ns - me.b.offset_ns);
		MPI_Gather(&w, 1, MPI_UINT64_T, woke, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
		if (woke) {
			uint64_t lo = UINT64_MAX, hi = 0;

			for (int r = 0; r < f->size; r++) {
				lo = woke[r] < lo ? woke[r] : lo;
				hi = woke[r] > hi ? woke[r] : hi;
			}
			hist_add(&skew, hi - lo);
			free(woke);
		}
	}
	if (!f->rank)
		all = calloc((size_t)f->size, sizeof(*all));
	MPI_Gather(&me, sizeof(me), MPI_BYTE, all, sizeof(me), MPI_BYTE, 0, MPI_COMM_WORLD);
	if (f->rank || !all)
		return f->rank ? EXIT_OK : EXIT_RUNTIME;
	if (json)
		printf("{\"ranks\": %d, \"one_host\": %s, \"rounds\": %llu, \"starts\": %llu, "
		       "\"slack_ns\": %llu, \"per_rank\": [",
		       f->size, f->one_host ? "true" : "false", (unsigned long long)rounds,
		       (unsigned long long)starts, (unsigned long long)slack);
	else
		printf("  %-4s %-16s %14s %12s %10s %11s %9s %9s %9s %9s\n", "rank", "host",
		       "offset", "uncertainty", "rtt min", "drift ppm", "error", "late p50",
		       "late p99", "late max");
	for (int r = 0; r < f->size; r++) {
		const struct clk_rank *x = &all[r];
		double drift = clock_drift_ppm(&x->a, &x->b);
		double du = clock_drift_uncert_ppm(&x->a, &x->b);
		/* the injected offset is the truth on one host: the estimate's error against it */
		int64_t err = x->b.offset_ns - x->injected;

		if (json) {
			printf("%s\n{\"rank\": %d, \"hostname\": ", r ? "," : "", r);
			json_str(stdout, f->hosts[r]);
			printf(", \"offset_ns\": %lld, "
			       "\"uncertainty_ns\": %llu, \"rtt_min_ns\": %llu, \"drift_ppm\": %.4f, "
			       "\"drift_uncertainty_ppm\": %.4f, \"injected_ns\": %lld, "
			       "\"error_ns\": %lld, \"start_late_ns\": {\"p50\": %llu, \"p99\": %llu, "
			       "\"max\": %llu}}",
			       (long long)x->b.offset_ns,
			       (unsigned long long)x->b.uncert_ns, (unsigned long long)x->b.rtt_min_ns,
			       drift, du, (long long)x->injected, f->one_host ? (long long)err : 0LL,
			       (unsigned long long)hist_percentile(&x->late, 50),
			       (unsigned long long)hist_percentile(&x->late, 99),
			       (unsigned long long)x->late.max);
			continue;
		}
		printf("  %-4d %-16.16s %14lld %12s %10s %11s %9lld %9s %9s %9s\n", r, f->hosts[r],
		       (long long)x->b.offset_ns, fmt_ns(x->b.uncert_ns, a, 32),
		       fmt_ns(x->b.rtt_min_ns, b, 32),
		       du < 1000 ? (snprintf(ppm, sizeof(ppm), "%.2f+-%.2f", drift, du), ppm) : "-",
		       f->one_host ? (long long)err : 0LL,
		       fmt_ns(hist_percentile(&x->late, 50), c, 32),
		       fmt_ns(hist_percentile(&x->late, 99), d, 32), fmt_ns(x->late.max, e, 32));
	}
	if (json) {
		printf("],\n\"start\": \"%s\", \"skew_ns\": {\"measured\": %s, \"p50\": %llu, "
		       "\"p99\": %llu, \"max\": %llu}}\n",
		       barrier ? "barrier" : "clock", f->one_host ? "true" : "false",
		       (unsigned long long)hist_percentile(&skew, 50),
		       (unsigned long long)hist_percentile(&skew, 99), (unsigned long long)skew.max);
	} else {
		printf("  start skew over %llu %s (%s): p50 %s, p99 %s, max %s\n",
		       (unsigned long long)starts, barrier ? "barrier exits" : "starts",
		       f->one_host ? "measured on the host's one clock"
				   : "across hosts: wake-ups in rank 0's clock by the offsets, "
				     "within their uncertainty",
		       fmt_ns(hist_percentile(&skew, 50), a, 32),
		       fmt_ns(hist_percentile(&skew, 99), b, 32), fmt_ns(skew.max, c, 32));
	}
	free(all);
	return EXIT_OK;
}
