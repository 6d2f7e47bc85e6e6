// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One clock for the fleet: rank 0's CLOCK_MONOTONIC. Each rank's offset from it is measured by
 * ping-pong (SKaMPI's algorithm, as in hunsa/mpi-time-sync): a reply stamped t2 by rank i to a
 * message rank 0 sent at t1 and got back at t3 says offset in [t2 - t3, t2 - t1]; the windows
 * of many round trips are intersected and the midpoint taken, exact within half the narrowest
 * window (about RTT_min / 2). Rank 0 then announces a start in its own clock, and each rank
 * converts it, sleeps, then spins to it (MPIX_Harmonize's shape, Schuchart et al., EuroMPI'23):
 * an MPI_Barrier's exits are ragged (3.5-48 us here), clock_nanosleep alone wakes 22-69 us late,
 * sleep-then-spin starts 2 ranks within 0.14 us (../shared/research/scale-out.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mpi/fleet.h"
#include "replay/core/sched.h"
#include "util/cli.h"
#include "util/prio.h"
#include "util/tick.h"

#define TAG_PING 11
#define TAG_PONG 12
#define TAG_EST 13
#define ANNOUNCE_TRIES 4 /* the slack doubled each time: 20 ms grows to 160 ms at most */
#define WARMUP 8 /* round trips not counted: the first ones pay for connection set-up */

uint64_t fleet_now(const struct fleet *f)
{
	return (uint64_t)((int64_t)now_mono_ns() + f->test_skew_ns);
}

/* Rank 0's side with rank peer. */
static void measure(const struct fleet *f, int peer, unsigned int rounds, struct clock_est *e)
{
	int64_t lo = INT64_MIN, hi = INT64_MAX;
	uint64_t rtt_min = UINT64_MAX, t1, t2, t3, mid = 0;

	for (unsigned int k = 0; k < rounds + WARMUP; k++) {
		t1 = fleet_now(f);
		MPI_Send(&t1, 1, MPI_UINT64_T, peer, TAG_PING, MPI_COMM_WORLD);
		MPI_Recv(&t2, 1, MPI_UINT64_T, peer, TAG_PONG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		t3 = fleet_now(f);
		if (k < WARMUP)
			continue;
		if ((int64_t)(t2 - t3) > lo)
			lo = (int64_t)(t2 - t3);
		if ((int64_t)(t2 - t1) < hi)
			hi = (int64_t)(t2 - t1);
		if (t3 - t1 < rtt_min) {
			rtt_min = t3 - t1;
			mid = t1 + (t3 - t1) / 2;
		}
	}
	e->rounds = rounds;
	e->rtt_min_ns = rtt_min;
	e->at_ns = mid;
	if (lo <= hi) {
		e->offset_ns = lo + (hi - lo) / 2;
		e->uncert_ns = (uint64_t)(hi - lo) / 2;
	} else {
		/*
		 * Empty: a clock moved between round trips (NTP slewing, drift over a long
		 * series). The fastest round trip alone still bounds the offset.
		 */
		e->offset_ns = 0;
		e->uncert_ns = rtt_min / 2;
	}
}

int clock_sync(const struct fleet *f, unsigned int rounds, struct clock_est *est,
	       struct clock_est *all)
{
	memset(est, 0, sizeof(*est));
	if (!rounds)
		rounds = 1;
	if (!f->rank) {
		for (int r = 1; r < f->size; r++) {
			struct clock_est e;
			uint64_t w[5];

			measure(f, r, rounds, &e);
			if (all)
				all[r] = e;
			w[0] = (uint64_t)e.offset_ns;
			w[1] = e.uncert_ns;
			w[2] = e.rtt_min_ns;
			w[3] = e.at_ns;
			w[4] = e.rounds;
			MPI_Send(w, 5, MPI_UINT64_T, r, TAG_EST, MPI_COMM_WORLD);
		}
		est->at_ns = fleet_now(f);
		est->rounds = rounds;
		if (all)
			all[0] = *est;
		return 0;
	}
	for (unsigned int k = 0; k < rounds + WARMUP; k++) {
		uint64_t t;

		MPI_Recv(&t, 1, MPI_UINT64_T, 0, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		t = fleet_now(f);
		MPI_Send(&t, 1, MPI_UINT64_T, 0, TAG_PONG, MPI_COMM_WORLD);
	}
	{
		uint64_t w[5];

		MPI_Recv(w, 5, MPI_UINT64_T, 0, TAG_EST, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		est->offset_ns = (int64_t)w[0];
		est->uncert_ns = w[1];
		est->rtt_min_ns = w[2];
		est->at_ns = w[3];
		est->rounds = (uint32_t)w[4];
	}
	return 0;
}

double clock_drift_ppm(const struct clock_est *a, const struct clock_est *b)
{
	if (b->at_ns <= a->at_ns)
		return 0;
	return (double)(b->offset_ns - a->offset_ns) * 1e6 / (double)(b->at_ns - a->at_ns);
}

double clock_drift_uncert_ppm(const struct clock_est *a, const struct clock_est *b)
{
	if (b->at_ns <= a->at_ns)
		return 0;
	return (double)(a->uncert_ns + b->uncert_ns) * 1e6 / (double)(b->at_ns - a->at_ns);
}

uint64_t clock_announce(const struct fleet *f, const struct clock_est *est, uint64_t slack_ns,
			struct clock_run *run)
{
	uint64_t t0 = 0, target, mine, ticks = 0;

	/*
	 * The start half-way between every host's ticks (util/tick.h): a tick and its softirqs
	 * take 20-100 us in a KVM guest, and a rank they catch at the start is late by that, at
	 * any priority; starts within 150 us after a tick were late (> 5 us) 4 % of the time here,
	 * 1 % elsewhere (issue 27). Each rank's clock reads its offset more than rank 0's; rank 0
	 * gets every host's tick phases as bits and starts at most a millisecond after the slack.
	 */
	mine = tick_mask(est->offset_ns - f->test_skew_ns);
	MPI_Reduce(&mine, &ticks, 1, MPI_UINT64_T, MPI_BOR, 0, MPI_COMM_WORLD);
	for (int k = 0;; k++) {
		int ok, all_ok;

		if (!f->rank)
			t0 = tick_at_phase(fleet_now(f) + slack_ns, tick_quiet_phase(ticks));
		MPI_Bcast(&t0, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
		/* rank 0's instant in this rank's clock, then in its real CLOCK_MONOTONIC */
		target = (uint64_t)((int64_t)t0 + est->offset_ns - f->test_skew_ns);
		/*
		 * Every rank got the start with half the slack left, or it is announced again
		 * with twice the slack: a rank kept off its CPU (a normal task on a loaded host, a
		 * vCPU the hypervisor did not run) got it 16-74 ms after it was sent here, past
		 * the 20 ms slack of `ioreel-mpi clock`, and started that late (issue 27).
		 */
		if (f->test_late_ns && !k) {
			/* test-only: this rank kept off its CPU as the start is announced */
			struct timespec ts = { (time_t)(f->test_late_ns / 1000000000ULL),
					       (long)(f->test_late_ns % 1000000000ULL) };

			nanosleep(&ts, NULL);
		}
		ok = now_mono_ns() + slack_ns / 2 < target;
		MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
		if (all_ok || k == ANNOUNCE_TRIES - 1)
			break;
		slack_ns *= 2;
	}
	run->start_target = target;
	run->start_met = now_mono_ns() < target;
	return target;
}

void clock_wait(uint64_t target, uint64_t spin_ns, struct clock_run *run)
{
	static bool warned; /* ioreel-mpi clock starts many times: once is enough */
	struct prio_saved saved;
	enum prio_got got;
	int err;

	/*
	 * The last stretch at real-time priority, as the recorder's drain thread runs (util/prio.h):
	 * on a busy host a normal task's final sleep and spin are preempted, and the ranks started
	 * 4-12 ms apart at p99 (issue 27). Only the stretch: the spin holds its CPU for spin_ns,
	 * and a replay's schedule stays as the user chose (--realtime raises it in replay/).
	 */
	got = prio_raise(&saved, &err);
	if (got != PRIO_FIFO && !warned) {
		warned = true;
		cli_warn("the start runs at %s: real-time priority was refused (%s), so a busy host "
			 "may delay this rank's start (give ioreel-mpi CAP_SYS_NICE)",
			 prio_name(got), strerror(err));
	}
	sched_wait_until(target - (target > spin_ns ? spin_ns : 0), 0);
	/*
	 * The last stretch on the clock alone, without sched_wait_until's pause instruction: in a
	 * KVM guest a spin of PAUSEs ends in a pause-loop exit to the host, and the ranks woke
	 * ~1.3 us apart at the median here instead of within a clock read.
	 */
	while (now_mono_ns() < target)
		;
	run->start_woke = now_mono_ns();
	run->start_late_ns = (int64_t)(run->start_woke - target);
	prio_restore(&saved);
}

uint64_t clock_start(const struct fleet *f, const struct clock_est *est, uint64_t slack_ns,
		     uint64_t spin_ns, struct clock_run *run)
{
	uint64_t target = clock_announce(f, est, slack_ns, run);

	clock_wait(target, spin_ns, run);
	return target;
}
