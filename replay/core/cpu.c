// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --cpu replay: the conditions a recording ran under, not only its I/O (issue 23). A database's
 * call takes the storage's time plus the time its thread waits to get a CPU back; a replay that
 * makes only the I/O, on an otherwise idle host, comes back too fast even onto the stack it
 * was recorded on. Two parts, from what the recorder measured (bpf/oncpu.bpf.h):
 *
 *   per call  each recorded thread is replayed by a thread of its own (engine threads) that
 *             spends, before each call, the CPU time the recorded thread spent since its
 *             previous call (io->burn_ns). Its deadline (clocked modes) is moved earlier by
 *             that much, and in dep mode a sync edge's think time loses it, so burn and call
 *             together end where the recorded gap did: only contention makes them late.
 *   load      threads that burn, interval by interval, the CPU time the recording's other
 *             tasks used (and the recorded threads' too where the engine does not burn per
 *             call: block level, or another engine than threads).
 *
 * --think-scale scales the burned part (a faster or slower CPU on the candidate); kernel
 * threads' CPU is not reproduced (the replay's own I/O makes the kernel's work again).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include "replay/core/run.h"
#include "util/burn.h"
#include "util/cli.h"
#include "util/prio.h"
#include "util/thread.h"

#define LOAD_MAX_THREADS 256
#define LOAD_CHUNK 50000ULL /* a load thread's burst by default (burn_paced) */

const char *const replay_cpu_names[REPLAY_CPU__COUNT] = {
	[REPLAY_CPU_REPLAY] = "replay", [REPLAY_CPU_IDLE] = "idle",  [REPLAY_CPU_CALLS] = "calls",
	[REPLAY_CPU_LOAD] = "load",	[REPLAY_CPU_HOST] = "host",
};

struct run_load {
	struct run *r;
	const struct trace_cpu_load *l;
	size_t n;
	unsigned int k;
	uint64_t chunk_ns; /* a burst before the pace sleep (--cpu-load-chunk) */
	bool traced;
	/* of the recorded threads' CPU in each interval, the part the load burns: their CPU
	 * between calls over all of it. The rest was spent inside their calls, on the I/O path
	 * the replay's own calls take again. */
	double traced_share;
	volatile bool stop;
	pthread_t th[LOAD_MAX_THREADS];
	unsigned int started;
	uint64_t asked[LOAD_MAX_THREADS], got[LOAD_MAX_THREADS];
	/* --cpu-fill (by default at file level): the replayer's own CPU beyond what the recorded
	 * calls used inside them (its scheduling and spins, hand-offs, decoding, the result trace)
	 * takes the place of load, so the host is as busy as the recording's was, not busier. Load thread
	 * 0 measures it each interval: the process's CPU less the load threads' own (their CPU
	 * clocks), against the recorded threads' CPU inside their calls (incall_share of it),
	 * smoothed (excess: CPU ns per wall ns); every thread burns that much less. Measured on
	 * bench/predict_fs.sh's xfs self-check (pgbench, the same real runs, in turn): the
	 * replayer's own CPU was 21.4-22.0 s in a 20 s replay against the calls' recorded 3.65 s,
	 * and the host 92-93 % busy against the recording's 71 %; with the fill 84-85 %, file
	 * replays' stretch +0.1 to +12.0 % (median +7.3, seven) against +7.6 to +15.9 % (median
	 * +13.6, five). At block level the pace came back too (IOPS x0.80-0.96 against
	 * x0.76-0.86) but the prediction tables lost a figure or two (predict_fs 12 of 18 against
	 * 13, predict.sh 17 of 27 against 18): not by default there (bench/PREDICTION.md, "The
	 * replayer's own CPU"). */
	bool fill;
	/* --cpu-fill host: the whole host's CPU (/proc/stat, stat_fd) in place of the
	 * replayer's, against the recorded calls' and kernel threads' CPU: what else runs on
	 * this host now (other programs, softirqs, kernel threads beyond the recorded) takes
	 * the place of load too, so the host as a whole is as busy as the recording's was. */
	int stat_fd;
	double incall_share;
	clockid_t clk[LOAD_MAX_THREADS];
	bool clk_set[LOAD_MAX_THREADS];
	double excess;
	uint64_t fill_wall, fill_nonload;
	uint64_t cut[LOAD_MAX_THREADS], own_ns, incall_ns;
	/* --cpu-load-clock progress: the most each thread's intervals were held by */
	uint64_t lag_max[LOAD_MAX_THREADS];
};

static double think_scale(const struct run *r)
{
	return r->o->think_scale > 0 ? r->o->think_scale : 1.0;
}

void run_cpu_sev(struct run *r, struct sev *s, uint64_t oncpu_ns)
{
	uint64_t b, t;

	s->oncpu_ns = r->cpu_calls ? oncpu_ns : 0;
	if (!r->mops->clocked)
		return;
	if (s->oncpu_ns) {
		/* earlier by the burn, but not before the I/O fed before it: the clocked
		 * loops take deadlines in feed order, and one out of order would only be
		 * issued late (and counted so) */
		b = run_cpu_burn(r, s);
		t = s->t > b ? s->t - b : 0;
		s->t = t > r->cpu_last_t ? t : (s->t < r->cpu_last_t ? s->t : r->cpu_last_t);
	}
	r->cpu_last_t = s->t;
}

/*
 * --cpu-wait, resolved. Given (recorded), the trace must hold the waits. By default it is on
 * in dep mode where a file-level trace holds them (recorded with --cpu, format 1.8), the
 * engine is threads or not named (then threads, not io_uring), --cpu burns nothing (not
 * measured together), and the trace's calls are plain system calls (a thread's libaio or
 * io_uring requests overlap, where a thread of engine threads makes one call at a time).
 * Measured by bench/predict_fs.sh (pgbench recorded on xfs, replayed onto xfs, ext4 and
 * btrfs) against psync without the waits, the default before: 17 of 18 per-op figures within
 * the goals against 13 and 14, and on its own stack IOPS x0.97-1.00 against x0.67-0.87. psync
 * with the waits did no better than without (14 against 15, the pace short by its hand-off):
 * not by default there (bench/PREDICTION.md, "Comparing filesystems").
 */
static int cpu_wait_setup(struct run *r, const struct prescan *p, char *err, size_t errlen)
{
	const struct replay_opts *o = r->o;
	struct replay_result *res = r->res;
	bool file = r->meta->level == TRACE_LEVEL_FILE;
	bool waits = file && p->oncpu_events && (r->meta->version & 0xffff) >= 8;

	if (o->cpu_wait == REPLAY_CPU_WAIT_AUTO) {
		/* the first reason not to, or NULL: on */
		const char *why_not =
			!waits ? "the trace holds no waits for a CPU: ioreel record --level file "
				 "--cpu records them"
			: r->mode != REPLAY_DEP ? "the default outside dep mode; --cpu-wait recorded "
						  "adds them"
			: p->async_calls ? "the default for a trace with libaio or io_uring calls, "
					   "which engine threads would make one at a time per thread"
			: o->cpu == REPLAY_CPU_REPLAY || o->cpu == REPLAY_CPU_CALLS
			? "the default with --cpu replay or calls: the burns compete for the CPU "
			  "themselves; --cpu-wait recorded adds the waits too"
			: o->engine && r->eng != &engine_threads_ops
			? "the default with an engine named other than threads; --cpu-wait recorded "
			  "adds them with psync"
			: NULL;

		r->cpu_wait = !why_not;
		if (file && why_not)
			snprintf(res->cpu_wait_how, sizeof(res->cpu_wait_how), "none (%s)", why_not);
		else if (file)
			snprintf(res->cpu_wait_how, sizeof(res->cpu_wait_how), "%s",
				 "recorded (the default in dep mode for a trace with the recorded "
				 "waits; --cpu-wait none: without them)");
	} else {
		r->cpu_wait = o->cpu_wait == REPLAY_CPU_WAIT_RECORDED;
		if (file)
			snprintf(res->cpu_wait_how, sizeof(res->cpu_wait_how), "%s",
				 r->cpu_wait ? "recorded (--cpu-wait recorded)"
					     : "none (--cpu-wait none)");
	}
	/* the wait is added by the thread that made the call: each recorded thread's own */
	if (r->cpu_wait && !o->engine && file)
		r->eng = &engine_threads_ops;
	if (r->cpu_wait && (!waits || (r->eng != &engine_psync_ops &&
				       r->eng != &engine_threads_ops))) {
		snprintf(err, errlen,
			 "--cpu-wait recorded: %s", !file
			 ? "a block-level trace records no wait for a CPU (file level only: ioreel "
			   "record --level file --cpu)"
			 : !waits
			 ? "the trace holds no wait for a CPU (record it with ioreel record --level "
			   "file --cpu, format 1.8 or later)"
			 : "needs an engine whose own threads make the calls: psync or threads");
		res->usage_error = true;
		return -EINVAL;
	}
	return 0;
}

/* The recorded threads' CPU between their calls over their CPU all told (1 when unknown). */
static double load_traced_share(const struct trace_cpu_load *l, size_t n, uint64_t oncpu_ns)
{
	uint64_t traced = 0;

	for (size_t i = 0; i < n; i++)
		traced += (uint64_t)l[i].traced_us * 1000;
	if (!traced || !oncpu_ns || oncpu_ns >= traced)
		return 1.0;
	return (double)oncpu_ns / (double)traced;
}

/*
 * The load's shape: a thread per CPU (of the recording's and this host's, the fewer) burning
 * in 50 us chunks, unless --cpu-load-threads and --cpu-load-chunk say otherwise. Tried as the
 * file-level default and not kept (bench/PREDICTION.md, "The load's shape"): a load thread per
 * recorded thread and one more, in the recorded threads' median burst (pgbench: 3 us, taken as 5),
 * with a 100 us slice for the scheduling thread (--cpu-slice). On bench/predict_fs.sh's xfs
 * self-check it brought the calls' means nearer the real runs' in an hour when the host was
 * slow (read, write, fdatasync medians x0.91 / x1.00 / x0.82 of five replays against x0.76 /
 * x0.82 / x0.68 of nine) and not in a faster one (x1.03 / x1.16 / x0.84 against x0.91 /
 * x1.01 / x0.83, three and three), at the cost of the pace (IOPS x0.88-1.00 against
 * x0.93-1.00), and the whole table met 16 of 18 figures against 17.
 */
static void load_shape(struct run_load *ld)
{
	const struct replay_opts *o = ld->r->o;

	if (o->cpu_load_threads)
		ld->k = o->cpu_load_threads;
	ld->chunk_ns = o->cpu_load_chunk_ns ? o->cpu_load_chunk_ns : LOAD_CHUNK;
}

/* An interval's load to burn, ns: the other tasks', and the recorded threads' where asked. */
static uint64_t load_busy_ns(const struct run_load *ld, const struct trace_cpu_load *e)
{
	return (uint64_t)e->other_us * 1000 +
	       (ld->traced ? (uint64_t)((double)e->traced_us * 1000 * ld->traced_share) : 0);
}

/* What the trace's dep replay takes by default beside its CPU data, for the report's cpu_how. */
enum cpu_default {
	CPU_DEFAULT_NONE,
	CPU_DEFAULT_WAITS,	 /* file level, beside the recorded waits for a CPU */
	CPU_DEFAULT_BLOCK_DEP,	 /* a block trace's dep replay with the host's load */
	CPU_DEFAULT_FILE_ASYNC, /* a file trace with libaio or io_uring calls */
};

/*
 * --cpu resolved: REPLAY_CPU_IDLE where nothing is reproduced (the report's cpu_how said),
 * else what is; *why says which default took it.
 *
 * The burns are off unless asked: on bench/predict_fs.sh's self-check (pgbench replayed onto
 * the stack it was recorded on) they slowed the replay's pace by 15-20 % and left the calls'
 * latencies where they were (bench/PREDICTION.md, "The CPU a workload ran with"). The whole host's
 * load (--cpu host: the other tasks' and the recorded threads' CPU between their calls) is the
 * default where the calls wait for a CPU as the recorded ones did (file level, --cpu-wait,
 * resolved before): the waits the load causes count towards the recorded ones, and the
 * kernel's threads on the I/O path compete for the CPU as they did. On the same bench, 3 real
 * runs per filesystem, its file-level table met 17, 17 and 18 of 18 per-op figures where the
 * other tasks' load alone (--cpu load, the default before) met 11 to 15 in six; self-check
 * means x0.70-0.93 against x0.63-0.75 beside it, IOPS x0.95-1.00 both (bench/PREDICTION.md, "The
 * whole host's load by default"). A block trace's dep replay with the host's load takes it too: the
 * device's kernel threads (the loop device's workers) then wait for a CPU as they did beside
 * the database. bench/predict.sh's self-check (A onto A, 3 real runs): means x0.81-0.91
 * against x0.52-0.70 idle, IOPS x0.82-0.86 against x0.93-0.95 (the replay runs 11-13 % long);
 * per-op figures within its goals, A, B and C: 8, 4 and 6 of 9 against 5, 5 and 6 (README,
 * "Does a replay predict"). A file trace with asynchronous calls takes it on its own engine
 * (io_uring): MariaDB's (bench/predict_innodb.sh, sysbench oltp_read_write, the xfs self-check
 * and ext4, three bench runs of 3 real runs per filesystem) met 4-6 of 6 per-op figures where
 * idle met 3 every time, its means x0.54-1.18 against x0.41-0.66 (bench/PREDICTION.md, "A second
 * database").
 */
static int cpu_resolve(struct run *r, const struct prescan *p, bool load, enum cpu_default *why)
{
	const struct replay_opts *o = r->o;
	struct replay_result *res = r->res;
	bool dep = r->mode == REPLAY_DEP, file = r->meta->level == TRACE_LEVEL_FILE;

	*why = CPU_DEFAULT_NONE;
	if (o->cpu == REPLAY_CPU_IDLE) {
		snprintf(res->cpu_how, sizeof(res->cpu_how), "idle (--cpu idle)");
		return REPLAY_CPU_IDLE;
	}
	if (o->cpu != REPLAY_CPU_AUTO)
		return o->cpu;
	if (load && r->cpu_wait)
		*why = CPU_DEFAULT_WAITS;
	else if (load && dep && !file)
		*why = CPU_DEFAULT_BLOCK_DEP;
	else if (load && dep && file && p->async_calls)
		*why = CPU_DEFAULT_FILE_ASYNC;
	if (*why != CPU_DEFAULT_NONE)
		return REPLAY_CPU_HOST;
	snprintf(res->cpu_how, sizeof(res->cpu_how), "idle (the default%s)",
		 p->oncpu_events > 0 || load
		 ? "; the trace holds CPU data: --cpu replay reproduces it"
		 : ": the trace holds no CPU data");
	return REPLAY_CPU_IDLE;
}

/* Every CPU's busy time on this host, ns: /proc/stat's first line (ticks of USER_HZ) less idle
 * and iowait; 0 when it cannot be read. Coarse (a tick is 10 ms) but unbiased, and the fill
 * smooths it over several intervals. */
static uint64_t host_busy_ns(int fd)
{
	unsigned long long v[8] = { 0 };
	long hz = sysconf(_SC_CLK_TCK);
	char buf[512];
	ssize_t n;
	uint64_t busy = 0;

	if (fd < 0 || (n = pread(fd, buf, sizeof(buf) - 1, 0)) <= 0)
		return 0;
	buf[n] = 0;
	/* user nice system idle iowait irq softirq steal guest guest_nice: guest time is in
	 * user's already */
	if (sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) < 4)
		return 0;
	if (hz <= 0)
		hz = 100;
	for (int i = 0; i < 8; i++)
		if (i != 3 && i != 4)
			busy += v[i];
	return busy * (1000000000ULL / (uint64_t)hz) + 1; /* 0 stays "unreadable" */
}

/* The threads that burn the recorded load interval by interval (--cpu load, host, replay). */
static int load_new(struct run *r, const struct prescan *p, int how,
		    const struct trace_cpu_load *l, size_t nl, uint32_t ncpus)
{
	long here = sysconf(_SC_NPROCESSORS_ONLN);
	struct run_load *ld = calloc(1, sizeof(*ld));
	double share;

	if (!ld)
		return -ENOMEM;
	ld->r = r;
	ld->l = l;
	ld->n = nl;
	/* --cpu host, or replay on an engine that burns nothing per call: the load threads burn
	 * the recorded threads' CPU between calls too */
	ld->traced = !r->cpu_calls && how != REPLAY_CPU_LOAD;
	share = load_traced_share(l, nl, p->oncpu_total_ns);
	ld->traced_share = ld->traced ? share : 1.0;
	/* what the replayer's own threads spend of the recorded threads' CPU: inside the calls,
	 * and between them too where its threads burn that before each call */
	ld->incall_share = r->cpu_calls ? 1.0 : 1.0 - share;
	ld->fill = r->o->cpu_fill == REPLAY_FILL_ON || r->o->cpu_fill == REPLAY_FILL_HOST ||
		   (r->o->cpu_fill == REPLAY_FILL_AUTO && r->meta->level == TRACE_LEVEL_FILE);
	ld->stat_fd = -1;
	if (r->o->cpu_fill == REPLAY_FILL_HOST) {
		ld->stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
		if (ld->stat_fd < 0 || !host_busy_ns(ld->stat_fd)) {
			run_warn(r, "--cpu-fill host: cannot read the host's CPU times in "
				    "/proc/stat (%s): the replayer's own CPU counts instead (--cpu-fill "
				    "on)", ld->stat_fd < 0 ? strerror(errno) : "no cpu line");
			if (ld->stat_fd >= 0)
				close(ld->stat_fd);
			ld->stat_fd = -1;
		}
	}
	ld->k = ncpus < (here > 0 ? (unsigned long)here : 1) ? ncpus : (unsigned int)here;
	load_shape(ld);
	if (ld->k > LOAD_MAX_THREADS)
		ld->k = LOAD_MAX_THREADS;
	if (!ld->k)
		ld->k = 1;
	r->load = ld;
	r->load_progress = r->o->cpu_load_clock == REPLAY_LOAD_CLOCK_PROGRESS ||
			   (!r->o->cpu_load_clock && r->mode == REPLAY_DEP); /* auto */
	if (r->load_progress && r->mode != REPLAY_DEP) {
		run_warn(r, "--cpu-load-clock progress: only dep mode knows how far the "
			    "application has come; the load keeps the trace's clock");
		r->load_progress = false;
	}
	r->res->load_progress = r->load_progress;
	r->res->load_threads = ld->k;
	r->res->load_chunk_ns = ld->chunk_ns;
	r->res->load_traced = ld->traced;
	return 0;
}

int run_cpu_setup(struct run *r, const struct prescan *p, char *err, size_t errlen)
{
	static const char *const default_why[] = {
		[CPU_DEFAULT_NONE] = "",
		[CPU_DEFAULT_WAITS] = "; the default beside the recorded waits for a CPU: --cpu "
				      "idle without it",
		[CPU_DEFAULT_BLOCK_DEP] = "; the default in dep mode for a block trace with the "
					  "host's load: --cpu idle without it",
		[CPU_DEFAULT_FILE_ASYNC] = "; the default in dep mode for a file trace with libaio "
					   "or io_uring calls and the host's load: --cpu idle "
					   "without it",
	};
	const struct replay_opts *o = r->o;
	struct replay_result *res = r->res;
	const struct trace_cpu_load *l;
	uint32_t ncpus = 0, interval = 0;
	size_t nl = trace_reader__cpu_load(r->rd, &l, &ncpus, &interval);
	bool calls = p->oncpu_events > 0, load = nl > 1;
	enum cpu_default why;
	int ret, how;

	/* whatever --cpu says, a trace with the recorded threads' CPU figures gets the
	 * replay's own beside them (psync and threads: engine_cpu_clock) */
	r->cpu_stats = calls;
	ret = cpu_wait_setup(r, p, err, errlen);
	if (ret)
		return ret;
	how = cpu_resolve(r, p, load, &why);
	if (how == REPLAY_CPU_IDLE)
		return 0;
	if (how == REPLAY_CPU_CALLS)
		load = false;
	/* the recorded threads replayed by threads of their own (file level), as the
	 * application's made their calls: with their burns, or in the host's load. Not for the
	 * load alone on a trace with asynchronous calls: engine threads makes a thread's batch
	 * one call at a time, and InnoDB's page cleaner's writes then came back at x0.18 of the
	 * real runs' latency where io_uring kept them in flight together (x0.65-0.80). */
	if ((how == REPLAY_CPU_HOST ? !p->async_calls : calls) && !o->engine &&
	    r->meta->level == TRACE_LEVEL_FILE)
		r->eng = &engine_threads_ops;
	/* the load alone: the recorded threads make their calls without burns, and the CPU they
	 * contend for is the load's (their waits for it: --cpu-wait; --cpu host: the load's) */
	if (how == REPLAY_CPU_LOAD || how == REPLAY_CPU_HOST)
		calls = false;
	/* --cpu idle and the default returned above: what was asked must be in the trace */
	if (!calls && !load) {
		snprintf(err, errlen,
			 "--cpu %s: %s holds no %s (recorded without --cpu, by an ioreel before "
			 "format 1.6, or not a recording); give --cpu idle",
			 replay_cpu_names[how], o->trace, how == REPLAY_CPU_LOAD || how == REPLAY_CPU_HOST
			 ? "record of the host's load" : "CPU data");
		res->usage_error = true;
		return -EINVAL;
	}
	/* dep mode burns for an engine that does not, on a thread per recorded thread
	 * (dep/dep_burn.c) */
	r->cpu_calls = calls && (r->eng->burns_cpu || r->mode == REPLAY_DEP);
	res->cpu_replayed = true;
	if (load && (ret = load_new(r, p, how, l, nl, ncpus)))
		return ret;
	snprintf(res->cpu_how, sizeof(res->cpu_how), "replay (%s%s%s%s)",
		 !r->cpu_calls	     ? ""
		 : r->eng->burns_cpu ? "each thread's CPU before its calls, engine threads"
				     : "each thread's CPU before its I/O, a burner per thread",
		 r->cpu_calls && load ? "; " : "",
		 !load ? ""
		 : !r->load->traced ? "the other tasks' load"
				    : "the recorded threads' and the other tasks' load",
		 default_why[why]);
	if (calls && !r->cpu_calls)
		run_warn(r, "engine %s does not burn CPU per call outside dep mode: the recorded "
			    "threads' CPU is reproduced as load instead (--engine threads makes "
			    "each thread's own calls; dep mode burns on a thread per recorded "
			    "thread)", r->eng->name);
	return 0;
}

static void sleep_until(uint64_t t, const volatile bool *stop)
{
	while (!flag_up(stop) && !replay_stop) {
		uint64_t now = now_mono_ns(), d;
		struct timespec ts;

		if (now >= t)
			return;
		d = t - now < 100000000ULL ? t - now : 100000000ULL; /* Ctrl-C stays seen */
		ts.tv_sec = (time_t)(d / 1000000000ULL);
		ts.tv_nsec = (long)(d % 1000000000ULL);
		nanosleep(&ts, NULL);
	}
}

/*
 * Burns share ns of CPU between a0 and a1 at an even pace: a chunk (LOAD_CHUNK, or
 * --cpu-load-chunk) at a time, each followed by a sleep until the time this much should have
 * been burned. The load being reproduced is many tasks' short bursts (a database's clients
 * and backends), which a woken thread gets past at once; one long burn would hold a CPU for
 * its whole time slice instead and delay every wake-up behind it. So a chunk that ends
 * behind the pace (the CPUs were busy) yields rather than going straight on: under EEVDF
 * (this kernel's scheduler, 6.6 on) a running task keeps its CPU until its slice's deadline,
 * and the chunks back to back held it for milliseconds.
 * Measured on bench/predict_fs.sh's xfs self-check, --cpu host, same real run, in turn: stretch
 * +25.7, +26.5, +29.7 % without the yield, +3.2 to +16.3 % (median +5.7, six) with it; a call's
 * start after its release, mean 100-104 us against 35-40 (replay/README.md, "The whole host's
 * load").
 * What is not burned by a1 is left. Returns the CPU used.
 */
static uint64_t burn_paced(uint64_t share, uint64_t a0, uint64_t a1, uint64_t chunk,
			   const volatile bool *stop)
{
	uint64_t done = 0, span = a1 - a0;

	sleep_until(a0, stop);
	while (done < share && !flag_up(stop) && !replay_stop && now_mono_ns() < a1) {
		uint64_t step = share - done < chunk ? share - done : chunk, due;

		done += burn_cpu(step, stop, &replay_stop);
		due = a0 + (uint64_t)((double)done / (double)share * (double)span);
		if (now_mono_ns() >= due)
			sched_yield();
		else
			sleep_until(due, stop);
	}
	return done;
}

/*
 * --cpu-load-clock progress: a load interval that starts at a0 on the trace's clock goes once
 * the application has come as far (dep mode's progress, run.h), and as late as the application
 * then is behind the trace: returns that lag. A database's CPU goes with its work: replayed onto
 * a stack 7.7 times slower (bench/predict.sh's C, --runtime trace) the trace's clock had the
 * load threads burn 27.4 s of CPU in 21 s, the database's at A's 1,694 transactions a second,
 * where the real server there made 205 a second beside the same throttled device. The
 * progress is looked at each millisecond while the application is behind.
 */
static uint64_t load_lag_wait(struct run_load *ld, uint64_t a0)
{
	struct run *r = ld->r;
	uint64_t start = r->start_mono, t0 = a0 - start;

	for (;;) {
		uint64_t p = __atomic_load_n(&r->app_t, __ATOMIC_RELAXED), now = now_mono_ns();

		if (flag_up(&ld->stop) || replay_stop)
			return 0;
		if (now >= a0 && p >= t0)
			return now - start > p ? now - start - p : 0;
		sleep_until(now < a0 ? a0 : now + 1000000, &ld->stop);
	}
}

struct load_arg {
	struct run_load *ld;
	unsigned int j;
};

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	return clock_gettime(c, &ts) ? 0 : (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * --cpu-fill, load thread 0 at an interval's start (now): the replayer's CPU outside the load
 * threads (with host: the whole host's) since the last look, less what the recorded threads
 * spent inside their calls over the interval just replayed (prev, its recorded CPU), per wall
 * ns, into the smoothed excess.
 */
#define FILL_WEIGHT 0.2

static void fill_update(struct run_load *ld, const struct trace_cpu_load *prev, uint64_t now)
{
	uint64_t proc = clock_ns(CLOCK_PROCESS_CPUTIME_ID), load = 0, nonload, own, incall;
	double x;

	for (unsigned int j = 0; j < ld->started; j++)
		if (__atomic_load_n(&ld->clk_set[j], __ATOMIC_ACQUIRE))
			load += clock_ns(ld->clk[j]);
	if (ld->stat_fd >= 0 && !(proc = host_busy_ns(ld->stat_fd)))
		return; /* not read this time: the next look covers the interval */
	nonload = proc > load ? proc - load : 0;
	if (ld->fill_wall && prev && now > ld->fill_wall && nonload >= ld->fill_nonload) {
		own = nonload - ld->fill_nonload;
		/* the calls' own CPU, whatever --speed: the same calls, sooner; with host, the
		 * kernel threads' recorded CPU too (never in the load: the replay's I/O makes
		 * them work again) */
		incall = (uint64_t)((double)prev->traced_us * 1000 * ld->incall_share);
		if (ld->stat_fd >= 0)
			incall += (uint64_t)prev->kthread_us * 1000;
		ld->own_ns += own;
		ld->incall_ns += incall;
		__atomic_load(&ld->excess, &x, __ATOMIC_RELAXED);
		x = (1 - FILL_WEIGHT) * x +
		    FILL_WEIGHT * ((double)own - (double)incall) / (double)(now - ld->fill_wall);
		x = x > 0 ? x : 0;
		__atomic_store(&ld->excess, &x, __ATOMIC_RELAXED);
	}
	ld->fill_wall = now;
	ld->fill_nonload = nonload;
}

/* One load thread: its share of each interval's load, burned from the interval's start. */
static void *load_main(void *arg)
{
	struct load_arg *a = arg;
	struct run_load *ld = a->ld;
	unsigned int j = a->j;
	struct run *r = ld->r;
	double speed = r->o->speed > 0 ? r->o->speed : 1.0, ts = think_scale(r);
	uint64_t start, g = r->genesis;

	free(a);
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* its short sleeps pace the load */
	if (ld->fill && !pthread_getcpuclockid(pthread_self(), &ld->clk[j]))
		__atomic_store_n(&ld->clk_set[j], true, __ATOMIC_RELEASE);
	while (!(start = __atomic_load_n(&r->start_mono, __ATOMIC_ACQUIRE)) && !flag_up(&ld->stop))
		usleep(1000);
	for (size_t i = 0; i + 1 < ld->n && !flag_up(&ld->stop) && !replay_stop; i++) {
		const struct trace_cpu_load *e = &ld->l[i];
		uint64_t t0 = e->start_ns, t1 = ld->l[i + 1].start_ns, a0, a1, busy, share;

		if (t1 <= g)
			continue;
		a0 = start + (uint64_t)((t0 > g ? t0 - g : 0) / speed);
		a1 = start + (uint64_t)((t1 - g) / speed);
		busy = load_busy_ns(ld, e);
		if (t0 < g) /* the part of the interval the replay covers */
			busy = busy * (t1 - g) / (t1 - t0);
		if (r->load_progress) {
			uint64_t lag = load_lag_wait(ld, a0);

			if (flag_up(&ld->stop) || replay_stop)
				break;
			a0 += lag;
			a1 += lag;
			if (lag > ld->lag_max[j])
				ld->lag_max[j] = lag;
		}
		share = (uint64_t)(busy * ts / speed / ld->k);
		if (share > a1 - a0)
			share = a1 - a0; /* more CPUs were busy there than this host has */
		if (ld->fill) {
			uint64_t cut;
			double x;

			if (j == 0) {
				sleep_until(a0, &ld->stop);
				fill_update(ld, i ? &ld->l[i - 1] : NULL, now_mono_ns());
			}
			__atomic_load(&ld->excess, &x, __ATOMIC_RELAXED);
			cut = (uint64_t)(x * (double)(a1 - a0) / ld->k);
			cut = cut < share ? cut : share;
			ld->cut[j] += cut;
			share -= cut;
		}
		if (!share)
			continue;
		ld->asked[j] += share;
		ld->got[j] += burn_paced(share, a0, a1, ld->chunk_ns, &ld->stop);
	}
	return NULL;
}

/*
 * --cpu-slice: the scheduling thread (the one that calls this, and then run_schedule) beside
 * the load threads. It spins before each deadline yielding the CPU, and under EEVDF a yield
 * moves a task's virtual deadline a whole slice on (2.8 ms by default here): each one puts
 * it behind every load thread that is runnable, which stretches the replay. A short slice
 * makes the yield cheap and lets its wake-ups preempt sooner. Measured on bench/predict.sh's
 * self-check (A onto A, the same 3 real runs, replays interleaved): the default's stretch
 * +20 to +27 % (five replays), with a 100 us slice +11 to +19 % (five); with --engine libaio
 * --spin 0 as well, +0 to +6 % (six). Not the default: the latencies fell with the stretch
 * and the prediction tables did not gain (bench/PREDICTION.md, "The replayer beside the host's
 * load").
 */
static void slice_start(struct run *r)
{
	struct replay_result *res = r->res;
	int e;

	if (!r->o->cpu_slice_ns)
		return;
	res->slice_asked_ns = r->o->cpu_slice_ns;
	e = prio_slice_set(r->o->cpu_slice_ns);
	if (e) {
		run_warn(r, "--cpu-slice: the scheduler refused the slice (%s): the scheduling "
			    "thread keeps the kernel's default", strerror(e));
		return;
	}
	r->slice_set = true;
	res->slice_got_ns = prio_slice_ns();
	if (!res->slice_got_ns)
		run_warn(r, "--cpu-slice: this kernel keeps no slice per thread (EEVDF's custom "
			    "slices came with Linux 6.12): the scheduling thread runs as before");
}

int run_cpu_start(struct run *r)
{
	struct run_load *ld = r->load;

	if (!ld) {
		const struct replay_opts *o = r->o;

		if (o->cpu_slice_ns || o->cpu_load_threads || o->cpu_load_chunk_ns)
			run_warn(r, "%s: this replay runs no load threads (--cpu host, load or "
				    "replay with a trace that holds the host's load): ignored",
				 o->cpu_slice_ns ? "--cpu-slice" : o->cpu_load_threads ?
				 "--cpu-load-threads" : "--cpu-load-chunk");
		return 0;
	}
	slice_start(r);
	for (unsigned int j = 0; j < ld->k; j++) {
		struct load_arg *a = malloc(sizeof(*a));
		int ret;

		if (!a)
			return -ENOMEM;
		*a = (struct load_arg){ ld, j };
		/* a busy loop's stack: small (util/thread.h) */
		ret = thread_start(&ld->th[j], 256u << 10, load_main, a);
		if (ret) {
			free(a);
			return -ret;
		}
		ld->started++;
	}
	return 0;
}

static int by_asked(const void *a, const void *b)
{
	const struct engine_thread_stat *x = a, *y = b;

	return x->cpu_asked_ns < y->cpu_asked_ns ? 1 : x->cpu_asked_ns > y->cpu_asked_ns ? -1 : 0;
}

void run_cpu_stop(struct run *r)
{
	struct replay_result *res = r->res;
	struct run_load *ld = r->load;

	if (r->cpu_stopped)
		return;
	r->cpu_stopped = true;
	/* replay_run may be called again (ioreel bench): the kernel's default slice again (a
	 * custom slice the thread had before cannot be told from the default, so is not kept) */
	if (r->slice_set)
		prio_slice_set(0);
	if (ld) {
		flag_raise(&ld->stop);
		for (unsigned int j = 0; j < ld->started; j++) {
			pthread_join(ld->th[j], NULL);
			res->load_asked_ns += ld->asked[j];
			res->load_got_ns += ld->got[j];
			res->fill_cut_ns += ld->cut[j];
			if (ld->lag_max[j] > res->load_lag_max_ns)
				res->load_lag_max_ns = ld->lag_max[j];
		}
		for (size_t i = 0; i + 1 < ld->n; i++) {
			const struct trace_cpu_load *e = &ld->l[i];

			if (ld->l[i + 1].start_ns > r->genesis)
				res->load_recorded_ns += load_busy_ns(ld, e);
		}
		res->fill = ld->fill;
		res->fill_host = ld->stat_fd >= 0;
		if (ld->stat_fd >= 0)
			close(ld->stat_fd);
		res->fill_own_ns = ld->own_ns;
		res->fill_incall_ns = ld->incall_ns;
		free(ld);
		r->load = NULL;
	}
	if (r->cpu_calls && r->e && r->eng->thread_stats) {
		size_t cap = 4096, n;
		struct engine_thread_stat *st = malloc(cap * sizeof(*st));

		if (!st)
			return;
		n = r->eng->thread_stats(r->e, st, cap);
		qsort(st, n, sizeof(*st), by_asked);
		res->cpu_nthreads = (uint32_t)n;
		for (size_t i = 0; i < n; i++) {
			res->cpu_asked_ns += st[i].cpu_asked_ns;
			res->cpu_got_ns += st[i].cpu_got_ns;
			res->cpu_calls += st[i].calls;
			if (i < REPLAY_CPU_THREADS_SHOWN)
				res->cpu_thread[res->cpu_nshown++] = (struct replay_cpu_thread){
				    st[i].tid, st[i].calls, st[i].cpu_asked_ns, st[i].cpu_got_ns };
		}
		free(st);
	}
}
