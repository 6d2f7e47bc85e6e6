// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for replay: the input, its checksums fixed up (so that mutations reach the
 * header fields and events replay acts on), is written as a .ioreel file and replayed with the
 * null engine onto a 64 MiB sparse file, writes allowed, in the trace's default mode and in one
 * other mode picked from a hash of the input (timed, afap, closed or dep). Must never crash,
 * leak or hang: a hostile header can ask for an hour of runtime or a deadline a year away, so
 * a watchdog thread sets replay_stop (what SIGINT does in the verb) 150 ms after the clock
 * started (2 s after the call if it has not), and aborts if replay_run has not returned 5 s
 * after that.
 * Built and run by `make fuzz`. Seeds (tests/fuzz/corpus/fuzz_replay/): closed-loop traces from
 * `ioreel synth --number-ios 20` over bs 512 B-64 MiB, numjobs 1-64, iodepth 1-4096, one
 * --time_based --runtime 3600, one --rate-iops; and a timed one converted from a 7-row CSV
 * (tests/integration/replay_common.inc's columns) with an hour between its last two rows.
 * mlockall is no problem here: the sanitizers intercept it (and munlockall) as a no-op.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "replay/replay.h"
#include "tests/fuzz/checksums.h"

#define STOP_AFTER_NS 150000000ull    /* replay_stop set this long after the clock started */
#define SETUP_STOP_NS 2000000000ull    /* or this long after replay_run began, if it has not */
#define HANG_AFTER_NS 5000000000ull    /* and replay_run must have returned this long after */
#define TARGET_BYTES (64ull << 20)

/* The watchdog's state, under lock: armed from replay_run's call to its return. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static bool armed;
static uint64_t stop_at, stopped_at; /* CLOCK_MONOTONIC ns; stopped_at 0: not stopped yet */
static int armed_mode;
static bool verbose;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * The watchdog: SIGINT's part (replay_stop) on time, and a hang reported as a crash. It does
 * not count the set-up (a 64 MiB-block trace's buffers take longer than the stop delay to
 * allocate under ASan, and then no I/O would ever be fuzzed): the replay's hook moves stop_at
 * to 150 ms after the clock's start.
 */
static void *watchdog(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;) {
		uint64_t t, next;
		struct timespec ts;

		while (!armed)
			pthread_cond_wait(&cond, &lock);
		t = now_ns();
		if (stopped_at && t >= stopped_at + HANG_AFTER_NS) {
			fprintf(stderr, "fuzz_replay: replay_run (mode %s) still running %llu ms "
				"after replay_stop was set: a wait that ignores it\n",
				replay_mode_name(armed_mode),
				(unsigned long long)(HANG_AFTER_NS / 1000000));
			abort();
		}
		if (!stopped_at && t >= stop_at) {
			replay_stop = 1;
			stopped_at = t;
		}
		next = stopped_at ? stopped_at + HANG_AFTER_NS : stop_at;
		ts = (struct timespec){ .tv_sec = next / 1000000000ull,
					.tv_nsec = next % 1000000000ull };
		pthread_cond_timedwait(&cond, &lock, &ts);
	}
	return NULL;
}

static int at_stage(void *arg, int stage, uint64_t *start_mono)
{
	(void)arg;
	if (stage == REPLAY_STAGE_START) {
		pthread_mutex_lock(&lock);
		if (!stopped_at)
			stop_at = *start_mono + STOP_AFTER_NS;
		pthread_cond_signal(&cond);
		pthread_mutex_unlock(&lock);
	}
	return 0;
}

static void discard_warning(const char *msg)
{
	(void)msg;
}

static void replay_once(const char *trace, const char *target, int mode)
{
	struct replay_opts o = {
		.trace = trace,
		.target = target,
		.engine = "null",
		.mode = mode,
		.mode_set = mode != REPLAY_MODE_AUTO,
		.allow_writes = true,
		.prefill = REPLAY_PREFILL_WARN,
		.warn = discard_warning,
		.hook = at_stage,
		/* dep refuses a trace without completion times (every synthesized one): its
		 * fallback then is fuzzed too */
		.dep_fallback_set = true,
		.dep_fallback = REPLAY_TIMED,
	};
	struct replay_result res;
	char err[1024];
	uint64_t t0;
	int ret;

	dep_opts_default(&o.dep);
	pthread_mutex_lock(&lock);
	replay_stop = 0;
	t0 = now_ns();
	stop_at = now_ns() + SETUP_STOP_NS;
	stopped_at = 0;
	armed_mode = mode;
	armed = true;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);

	ret = replay_run(&o, &res, err, sizeof(err));
	if (verbose) /* FUZZ_REPLAY_VERBOSE=1: what each run did, to follow a reproducer */
		fprintf(stderr, "fuzz_replay: mode %s: %d %s, %llu I/Os in %.1f ms%s\n",
			replay_mode_name(mode), ret, ret ? err : "", (unsigned long long)res.ios,
			(now_ns() - t0) / 1e6, replay_stop ? ", stopped" : "");

	pthread_mutex_lock(&lock);
	armed = false;
	pthread_mutex_unlock(&lock);
	replay_result_free(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int modes[] = { REPLAY_TIMED, REPLAY_AFAP, REPLAY_CLOSED, REPLAY_DEP };
	static int fd = -1, tfd = -1;
	static char path[64], target[64];
	uint32_t h = 2166136261u;
	uint8_t *copy;

	if (fd < 0) {
		char tmpl[] = "/tmp/fuzz_replay_target.XXXXXX";
		pthread_t th;

		/* the target: a regular file (O_DIRECT works on it, unlike a memfd), unlinked at
		 * once so that nothing is left behind; replay reopens it through /proc */
		tfd = mkstemp(tmpl);
		if (tfd < 0 || unlink(tmpl) || ftruncate(tfd, TARGET_BYTES))
			abort();
		snprintf(target, sizeof(target), "/proc/self/fd/%d", tfd);
		fd = memfd_create("fuzz_replay", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (pthread_create(&th, NULL, watchdog, NULL))
			abort();
		pthread_detach(th);
		verbose = getenv("FUZZ_REPLAY_VERBOSE");
	}
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fix_checksums(copy, size);
	if (ftruncate(fd, 0) || pwrite(fd, copy, size, 0) != (ssize_t)size) {
		free(copy);
		return 0;
	}
	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 16777619u;
	free(copy);
	replay_once(path, target, REPLAY_MODE_AUTO);
	replay_once(path, target, modes[h % 4]);
	return 0;
}
