// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The frame every mode's loop runs in: the clock's start (after a warm-up and a head start for
 * the decoder), the loop, the drain; and the helper thread beside it, which decodes ahead (the
 * source's feed) and writes and analyses behind (the source's out).
 *
 * Why one scheduling thread doing both submit and reap: with a ring engine the completion side
 * costs a user-space peek, not a syscall, and on two cores a separate reaper would compete
 * with the spinning submitter (btreplay's footnote found one thread worse with AIO's syscalls).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/major.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sysmacros.h>
#include "analyze/analyze.h"
#include "replay/core/run.h"
#include "util/cli.h"
#include "util/thread.h"


/* ---- helper thread: decode ahead, write and analyze behind ---- */

static void out_event(struct run *r, const struct done_ev *d)
{
	const struct io_event *ev = &d->ev;

	r->src->out(r, d); /* the result trace and the analysis */
	if (r->mops->clocked) {
		uint64_t late = d->submit_ns > ev->queue_ns ? d->submit_ns - ev->queue_ns : 0;

		hist_add(&r->res->lateness, late);
		if (late > 100000)
			r->res->late_100us++;
	}
	if (ev->error) {
		if (!r->res->errors++) {
			r->res->first_error = ev->error;
			r->res->first_error_offset = ev->offset;
		}
	}
	r->res->ios++;
	r->res->bytes += ev->length;
}

static void progress_line(struct run *r, uint64_t now)
{
	uint64_t el = now - r->start_mono;
	uint64_t ios = r->res->ios;
	double iops = (double)(ios - r->prog_ios) * 1e9 / (double)(now - r->prog_at);
	char a[32], b[32], c[32];

	fprintf(stderr, "\r\033[K%s/%s  %.0f IOPS  %llu done  late p99 %s  in flight %u",
		fmt_ns(el, a, sizeof(a)), fmt_ns(r->res->trace_span_ns, b, sizeof(b)), iops,
		(unsigned long long)ios,
		r->mops->clocked ? fmt_ns(hist_percentile(&r->res->lateness, 99), c, sizeof(c))
				 : "-",
		__atomic_load_n(&r->inflight, __ATOMIC_RELAXED));
	r->prog_ios = ios;
	r->prog_at = now;
}

void *run_feed_slot(struct run *r)
{
	return spsc_slot(&r->in);
}

unsigned int run_feed_push(struct run *r, const struct io_event *ev, const uint32_t *after_back,
			   unsigned int nafter)
{
	unsigned int edges = 0;

	if (r->mops->annotate)
		edges = r->mops->annotate(r, ev, spsc_slot(&r->in), after_back, nafter);
	spsc_push(&r->in);
	return edges;
}

uint64_t run_deadline(const struct run *r, uint64_t t)
{
	return r->mops->clocked ? sched_deadline(t, r->genesis, r->o->speed) : 0;
}

/*
 * The helper's nap when a pass found nothing to do: 4 ms where the mode is not fed (closed:
 * its I/Os in memory, the helper only writes results), else 200 us. Each wake takes a CPU
 * from a thread making calls: at 200 us, a quarter of a closed replay's context switches on
 * this 2-core machine (falloc.fio's two punch_hole streams, 2-4 us calls), preempting a thread
 * that held the file's lock; at 1 ms, with the scheduling thread's own timed waits gone
 * (loops.c, CHAIN_REAP_NS), still about a third. With 4 ms, 0.005 switches per call against
 * 0.016 before both (fio's jobs: 0.001), and the pair's calls/s x1.03 of fio's (median of ten
 * rounds, ahead of the build before in 8 of 10; it had x0.90). 4 ms of results at the fastest
 * replays here (~700k/s) fill 4 % of the result ring. Not in the fed modes: a dep replay of a
 * block trace beside the host's load (pgbench recorded on xfs, onto its loop device) ran
 * further behind with a 1 ms nap, its stretch +0.28 to +0.39 against +0.20 to +0.46 (medians
 * +0.31, +0.25; six pairs in turn): the load threads got the CPU the helper left.
 */
static unsigned int helper_nap_us(const struct run *r)
{
	return r->mops->fed ? 200 : 4000;
}

static void *helper_main(void *arg)
{
	struct run *r = arg;
	uint64_t next_prog = 0;

	for (;;) {
		bool done = __atomic_load_n(&r->sched_done, __ATOMIC_ACQUIRE);
		long n = 0;
		struct done_ev *d;

		if (r->mops->fed && !r->input_done)
			n += r->src->feed(r);
		while ((d = spsc_peek(&r->out))) {
			out_event(r, d);
			spsc_pop(&r->out);
			n++;
		}
		if (r->o->progress && r->start_mono) {
			uint64_t now = now_mono_ns();

			if (!next_prog) {
				next_prog = now + 1000000000ULL;
				r->prog_at = now;
			} else if (now >= next_prog) {
				progress_line(r, now);
				next_prog = now + 1000000000ULL;
			}
		}
		if (done && !spsc_peek(&r->out))
			break;
		if (!n)
			usleep(helper_nap_us(r));
	}
	if (r->o->progress && next_prog)
		fprintf(stderr, "\r\033[K");
	return NULL;
}

struct trace_writer *run_open_result(const struct run *r, const struct trace_meta *m)
{
	return trace_writer__open(r->o->output, m, &(struct trace_writer_opts){ .replace = true });
}

void run_warn(struct run *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->o->warn) {
		r->o->warn(msg);
	} else {
		size_t n = strlen(r->res->warnings);

		snprintf(r->res->warnings + n, sizeof(r->res->warnings) - n, "%s\n", msg);
	}
}

/*
 * --realtime's SCHED_FIFO scheduling thread spins before each deadline; a loop device's workers
 * are kernel threads at normal priority and wait behind it: in dep mode onto one
 * (bench/predict.sh's A) the means came to x1.4-2.9 of the default's. Said for a block target
 * and for a file-level replay's --root alike, whose filesystem is then on one.
 */
void run_warn_realtime_loop(struct run *r, dev_t dev, const char *what)
{
	if (!r->o->realtime || !r->mops->clocked || major(dev) != LOOP_MAJOR)
		return;
	run_warn(r,
		 "--realtime with %s: its workers are kernel threads that wait while the "
		 "SCHED_FIFO scheduling thread holds a CPU, so its latencies will be partly the "
		 "replayer's (bench/PREDICTION.md, \"Each thread's CPU at block level\"); leave "
		 "--realtime out to measure the device",
		 what);
}

/* how long the final drain waits without a completion before it says so */
#define DRAIN_QUIET_NS (30 * 1000000000ULL)

int run_schedule(struct run *r)
{
	const char *what = "submit failed";
	uint64_t start;
	int ret;

	/*
	 * Only clocked modes have deadlines worth a real-time priority, and only on request: a
	 * SCHED_FIFO thread that spins before each deadline leaves the kernel threads serving the
	 * target (the loop worker, io-wq, completion work) the 5 % RT throttling spares. On this
	 * 2-core machine a pgbench trace replayed to a loop device then saw flushes take 28 ms
	 * instead of 0.2 ms and 600 I/Os pile up in flight: the target measured was the replayer.
	 */
	if (r->o->realtime && r->mops->clocked) {
		struct sched_param sp = { .sched_priority = 10 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			run_warn(r, "SCHED_FIFO refused (%s): other tasks may delay deadlines",
				 strerror(errno));
		else
			r->rt_set = true;
	}
	/* a 50 us default slack would make every sleep that much late */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (mlockall(MCL_CURRENT))
		run_warn(r, "mlockall failed (%s): page faults may delay deadlines",
			 strerror(errno));

	if (r->src->warm_up)
		r->src->warm_up(r);
	if (r->eng->start && (ret = r->eng->start(r->e))) {
		what = "cannot start its threads";
		goto end;
	}
	/* let the helper decode a head start before the clock begins */
	while (r->mops->fed && !__atomic_load_n(&r->input_done, __ATOMIC_ACQUIRE) &&
	       spsc_count(&r->in) < (r->in.mask + 1) / 2)
		usleep(1000);
	start = now_mono_ns() + 1000000;
	if (r->o->hook && r->o->hook(r->o->hook_arg, REPLAY_STAGE_START, &start)) {
		ret = -ECANCELED;
		goto end;
	}
	r->start_real = now_real_ns();
	__atomic_store_n(&r->start_mono, start, __ATOMIC_RELEASE);
	if (r->res->runtime_ns)
		r->runtime_end = start + r->res->runtime_ns;
	sched_wait_until(r->start_mono, 200000);

	ret = r->mops->loop(r);
	/* drain: every I/O submitted is waited for and recorded. The kernel cannot be made to
	 * give up an I/O it holds, so a target that stops answering holds the replay here, said
	 * once after DRAIN_QUIET_NS without a completion rather than silently. */
	uint64_t last_done = now_mono_ns();
	bool said = false;

	while (r->inflight) {
		int n = run_reap(r, 100000000);

		if (n < 0 && n != -EINTR && n != -ETIME) {
			ret = ret ? ret : n;
			break;
		}
		if (n > 0) {
			last_done = now_mono_ns();
		} else if (!said && now_mono_ns() - last_done > DRAIN_QUIET_NS) {
			run_warn(r, "still waiting for %u I/Os in flight, none completed for %llu s: "
				 "the target does not answer (a device gone or hung?); the replay "
				 "ends when they complete",
				 r->inflight, (unsigned long long)(DRAIN_QUIET_NS / 1000000000ULL));
			said = true;
		}
	}
end:
	r->end_mono = now_mono_ns();
	munlockall();
	if (r->rt_set) { /* replay_run may be called again (ioreel bench): leave as we came */
		struct sched_param sp = { .sched_priority = 0 };

		sched_setscheduler(0, SCHED_OTHER, &sp);
	}
	if (ret == -ECANCELED && !r->start_mono)
		snprintf(r->herr, sizeof(r->herr), "called off by the caller before any I/O");
	else if (ret)
		snprintf(r->herr, sizeof(r->herr), "engine %s: %s: %s", r->eng->name, what,
			 strerror(-ret));
	return ret;
}

/*
 * The helper's stack: 1 MiB, not glibc's 8 MiB default. It starts before run_schedule's
 * mlockall(MCL_CURRENT), which makes every page of it resident: 8 MiB of the 46 MiB a small
 * replay held (the trace writer's zstd and the analysis keep their state on the heap).
 */
#define HELPER_STACK (1u << 20)

int run_start_helper(struct run *r)
{
	int ret = thread_start(&r->helper, HELPER_STACK, helper_main, r);

	if (!ret)
		r->helper_started = true;
	return -ret;
}

void run_stop_helper(struct run *r)
{
	if (!r->helper_started)
		return;
	__atomic_store_n(&r->sched_done, true, __ATOMIC_RELEASE);
	pthread_join(r->helper, NULL);
	r->helper_started = false;
}
