/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ioreel-mpi: the fleet. A thin launcher over the same replay, record and analyze code as
 * ioreel: it adds one clock (clock.c), the sharding of a trace set over ranks (plan.c,
 * share.c), the agreement of every rank before any I/O (agree.c) and the exact merge of the
 * results (report.c). mpi/README.md says why each piece is the way it is.
 *
 * MPI runs on the main thread only, and never between the common start and the end of a run.
 */
#ifndef IOREEL_MPI_FLEET_H
#define IOREEL_MPI_FLEET_H

#include <stdbool.h>
#include <stdint.h>
#include <mpi.h>
#include "formats/trace.h"
#include "replay/replay.h"

#define FLEET_HOST_LEN 64
#define FLEET_MSG_LEN 1024

struct fleet {
	int rank, size;
	char host[FLEET_HOST_LEN];
	char (*hosts)[FLEET_HOST_LEN]; /* every rank's host, by rank */
	bool one_host;		       /* all ranks share one host (and one CLOCK_MONOTONIC) */
	int64_t test_skew_ns;	       /* IOREEL_TEST_CLOCK_SKEW_NS x rank: a test-only offset */
	uint64_t test_late_ns; /* IOREEL_TEST_LATE_ANNOUNCE_NS on the last rank: test-only */
	const char *verb;
};

/* ---- main.c ---- */
/* "%r" -> rank, "%h" -> host, "%%" -> "%"; 0 or -ENAMETOOLONG. */
int fleet_expand(const struct fleet *f, const char *pattern, char *out, size_t len);
bool fleet_has_pattern(const char *s);

/* ---- agree.c: every rank says whether it can go on; rank 0 names every failing host ---- */
/*
 * Collective. ok false with msg says why this rank cannot go on. Returns true when every rank
 * can; otherwise rank 0 has printed each failing rank's host and message (as "what" failed),
 * and every rank gets false.
 */
bool fleet_agree(const struct fleet *f, const char *what, bool ok, const char *msg);
/* Collective: versions (and the test-only IOREEL_TEST_VERSION) compared; false on mismatch. */
bool fleet_check_versions(const struct fleet *f);
/* Collective: every rank's host into f->hosts; 0 or -ENOMEM. */
int fleet_gather_hosts(struct fleet *f);

/* ---- clock.c ---- */
/* A rank's clock against rank 0's: offset = this clock - rank 0's clock, in [lo, hi]. */
struct clock_est {
	int64_t offset_ns;
	uint64_t uncert_ns;  /* half the width of [lo, hi]: the offset is exact within it */
	uint64_t rtt_min_ns; /* the fastest round trip seen */
	uint64_t at_ns;	     /* rank 0's clock when it was measured */
	uint32_t rounds;
};

/* What the fleet's clock did for this rank during one run. */
struct clock_run {
	struct clock_est before; /* at the preflight */
	struct clock_est start;	 /* just before the start: the one used */
	struct clock_est end;	 /* after the run (what the clocks did meanwhile) */
	double drift_ppm;	 /* from before to start */
	double drift_uncert_ppm;
	double run_drift_ppm; /* from start to end */
	double run_drift_uncert_ppm;
	uint64_t start_target; /* the start in this rank's CLOCK_MONOTONIC */
	uint64_t start_woke;   /* when the wait returned (CLOCK_MONOTONIC) */
	int64_t start_late_ns; /* woke - target */
	bool start_met;	       /* the start was announced before it was due here */
	bool have_end;
};

/*
 * How long before the start a rank stops sleeping and spins. Its wake-up can wait for kernel
 * work that has no preemption point: on a kernel built or booted preempt=none (this VM's),
 * ksoftirqd runs softirqs for up to 2 ms (MAX_SOFTIRQ_TIME) before it yields, and a rank woken
 * 2 ms ahead here waited behind it (after a timer 1 ms late) and started 1 ms late. 5 ms leaves
 * that budget and as much again.
 */
#define CLOCK_SPIN_NS 5000000ULL
/* The fleet's clock: CLOCK_MONOTONIC plus the test-only injected offset. */
uint64_t fleet_now(const struct fleet *f);
/* Collective: rank 0 ping-pongs with every rank in turn (SKaMPI); each gets its estimate,
 * and rank 0 everyone's in all (by rank; may be NULL, ignored on other ranks). */
int clock_sync(const struct fleet *f, unsigned int rounds, struct clock_est *est,
	       struct clock_est *all);
/*
 * Collective: rank 0 announces a start slack_ns ahead in its clock; each rank converts it
 * with est, sleeps, then spins to it. Fills run's start fields; returns the start in this
 * rank's CLOCK_MONOTONIC.
 */
uint64_t clock_start(const struct fleet *f, const struct clock_est *est, uint64_t slack_ns,
		     uint64_t spin_ns, struct clock_run *run);
/* clock_start's two halves, for a caller with work between them (the recorder arms its
 * programs for the start before waiting for it): the collective announcement, returning the
 * start in this rank's CLOCK_MONOTONIC (announced again with twice the slack, up to 3 times,
 * while a rank gets it with less than half the slack left); then the sleep and spin to it. */
uint64_t clock_announce(const struct fleet *f, const struct clock_est *est, uint64_t slack_ns,
			struct clock_run *run);
void clock_wait(uint64_t target, uint64_t spin_ns, struct clock_run *run);
/* How fast b's offset moved since a's, in ppm, and how uncertain that is (the two estimates'
 * uncertainties over the time between them: a short gap says little). */
double clock_drift_ppm(const struct clock_est *a, const struct clock_est *b);
double clock_drift_uncert_ppm(const struct clock_est *a, const struct clock_est *b);

/* ---- plan.c: which rank replays what ---- */
#define PLAN_MAX_TRACES 64
#define PLAN_MAX_STREAMS 1024
#define PLAN_PATH_LEN 512

/* A part of the trace set: a device of a trace, or one address stripe of it. */
struct plan_stream {
	uint32_t trace, dev;	   /* in the set; in that trace's device table */
	uint32_t stripe, nstripes; /* offset / stripe_bytes % nstripes == stripe; 1: whole */
	int32_t rank;
	uint64_t events;	    /* its load as planned (a stripe: its share, estimated) */
	char target[PLAN_PATH_LEN]; /* from --plan, before %r/%h; "" for the command line's */
};

struct plan_trace {
	char path[PLAN_PATH_LEN];
	uint64_t events, genesis_realtime_ns, shift_ns, first_ns;
	uint32_t ndev;
	bool closed;
	char dev_names[TRACE_MAX_DEVICES][64];
	uint64_t dev_events[TRACE_MAX_DEVICES];
	uint64_t dev_extent[TRACE_MAX_DEVICES]; /* device size, or the highest byte reached */
};

struct plan_opts {
	const char *plan_file; /* --plan: streams to ranks (and targets) by rule */
	uint64_t stripe_bytes; /* --stripe */
	bool no_split;	       /* --no-split: never split a device by load */
	bool each;	       /* --each: every rank replays the whole set (IOR-like) */
	bool segments;	       /* --segments: with --each, rank r at offset r x the set's extent */
};

struct plan {
	uint32_t ntraces, nstreams;
	uint64_t stripe_bytes, origin_ns, segment_bytes, total_events;
	bool each, segments, closed;
	bool local_traces; /* each rank replays its own copy (bench): not compared with rank 0's */
	char warn[FLEET_MSG_LEN];
	struct plan_trace traces[PLAN_MAX_TRACES];
	struct plan_stream s[PLAN_MAX_STREAMS];
};

/* Rank 0: reads the set and assigns it. 0 or -errno with why. */
int plan_make(const struct fleet *f, const char *const *paths, unsigned int n,
	      const struct plan_opts *po, struct plan *p, char *why, size_t len);
/* Collective: rank 0's plan to every rank. */
int plan_bcast(const struct fleet *f, struct plan *p);
/* "a.ioreel:nvme0n1 [1/4]" into buf. */
char *plan_stream_name(const struct plan *p, const struct plan_stream *s, char *buf, size_t len);

/* ---- share.c: one rank's part of the set as one trace ---- */
struct share_dev {
	uint32_t trace, dev; /* where it comes from */
	char name[64];	     /* "a.ioreel:nvme0n1", its name in the share's device table */
	const struct plan_stream *stream; /* the first stream of this rank on it */
};

struct share {
	char path[PLAN_PATH_LEN];
	uint32_t ndev;
	struct share_dev dev[TRACE_MAX_DEVICES];
	uint64_t events;
	char desc[FLEET_MSG_LEN]; /* what this rank replays, for the report */
};

/* Writes this rank's share of p into dir; 0 or -errno with why. */
int share_build(const struct fleet *f, const struct plan *p, const char *dir, struct share *sh,
		char *why, size_t len);
void share_remove(struct share *sh);

/* ---- report.c: every rank's result to rank 0, summed exactly ---- */
struct rank_result {
	int status; /* 0, or -errno: replay_run's */
	char err[FLEET_MSG_LEN];
	char share[FLEET_MSG_LEN];
	char fidelity[16384]; /* replay_fidelity_json of the rank */
	struct clock_run clock;
	uint64_t ios, errors, bytes, late_100us, cap_hits, starved, skipped, elapsed_ns;
	uint64_t trace_span_ns, replay_span_ns;
	double stretch;
	char engine[16], mode[16];
	struct hist lateness;
};

struct report_opts {
	bool json;
	const char *title; /* "replay", "bench" */
	const struct plan *plan;
	uint64_t wait_ns;    /* rank 0 waits this long for the others' results (0: forever) */
	unsigned int rounds; /* ping-pongs of the clock's end estimate, taken after the gather */
};

/* Collective: gathers res (and this rank's analysis) at rank 0, which prints the fleet's
 * report. Returns the fleet's exit code, the same on every rank. */
int report_fleet(const struct fleet *f, const struct report_opts *ro, struct rank_result *res,
		 const struct analysis *an);

/* ---- the verbs ---- */
int fleet_replay(struct fleet *f, int argc, char **argv);
int fleet_bench(struct fleet *f, int argc, char **argv);
int fleet_record(struct fleet *f, int argc, char **argv);
int fleet_clock(struct fleet *f, int argc, char **argv);

#endif
