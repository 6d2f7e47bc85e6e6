/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared by the replay fuzz targets (fuzz_replay.c, fuzz_replay_file.c): included by each,
 * never built alone. The options both replay with, the cursor their recipes are read with, and
 * the watchdog. A hostile header can ask for an hour of runtime or a deadline a year away,
 * so a watchdog thread sets replay_stop (what SIGINT does in the verb) STOP_AFTER_NS after the
 * clock started (SETUP_STOP_NS after the call if it has not), and aborts if replay_run has not
 * returned HANG_AFTER_NS after that: a wait that ignores Ctrl-C is reported as a crash. It does
 * not count the set-up (a 64 MiB-block trace's buffers take longer than the stop delay to
 * allocate under ASan, and then no I/O would ever be fuzzed): the replay's hook
 * (watchdog_at_stage) moves the stop to STOP_AFTER_NS after the clock's start.
 */
#ifndef IOREEL_TESTS_FUZZ_REPLAY_FUZZ_H
#define IOREEL_TESTS_FUZZ_REPLAY_FUZZ_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "replay/core/run.h"
#include "replay/replay.h"

#define STOP_AFTER_NS 150000000ull  /* replay_stop set this long after the clock started */
#define SETUP_STOP_NS 2000000000ull /* or this long after replay_run began, if it has not */
#define HANG_AFTER_NS 5000000000ull /* and replay_run must have returned this long after */

/* The watchdog's state, under wd_lock: armed from replay_run's call to its return. */
static pthread_mutex_t wd_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wd_cond = PTHREAD_COND_INITIALIZER;
static bool wd_armed;
static uint64_t wd_stop_at, wd_stopped_at; /* CLOCK_MONOTONIC ns; 0: not stopped yet */
static int wd_mode;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void *watchdog(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&wd_lock);
	for (;;) {
		uint64_t t, next;
		struct timespec ts;

		while (!wd_armed)
			pthread_cond_wait(&wd_cond, &wd_lock);
		t = now_ns();
		if (wd_stopped_at && t >= wd_stopped_at + HANG_AFTER_NS) {
			fprintf(stderr, "fuzz: replay_run (mode %s) still running %llu ms after "
				"replay_stop was set: a wait that ignores it\n",
				replay_mode_name(wd_mode),
				(unsigned long long)(HANG_AFTER_NS / 1000000));
			abort();
		}
		if (!wd_stopped_at && t >= wd_stop_at) {
			replay_stop = 1;
			wd_stopped_at = t;
		}
		next = wd_stopped_at ? wd_stopped_at + HANG_AFTER_NS : wd_stop_at;
		ts = (struct timespec){ .tv_sec = next / 1000000000ull,
					.tv_nsec = next % 1000000000ull };
		pthread_cond_timedwait(&wd_cond, &wd_lock, &ts);
	}
	return NULL;
}

/* Once per process: the watchdog thread. */
static void watchdog_start(void)
{
	pthread_t th;

	if (pthread_create(&th, NULL, watchdog, NULL))
		abort();
	pthread_detach(th);
}

/* The replay's hook (replay_opts.hook). */
static int watchdog_at_stage(void *arg, int stage, uint64_t *start_mono)
{
	(void)arg;
	if (stage == REPLAY_STAGE_START) {
		pthread_mutex_lock(&wd_lock);
		if (!wd_stopped_at)
			wd_stop_at = *start_mono + STOP_AFTER_NS;
		pthread_cond_signal(&wd_cond);
		pthread_mutex_unlock(&wd_lock);
	}
	return 0;
}

/* Around each replay_run: armed before (replay_stop cleared), disarmed after. */
static void watchdog_arm(int mode)
{
	pthread_mutex_lock(&wd_lock);
	replay_stop = 0;
	wd_stop_at = now_ns() + SETUP_STOP_NS;
	wd_stopped_at = 0;
	wd_mode = mode;
	wd_armed = true;
	pthread_cond_signal(&wd_cond);
	pthread_mutex_unlock(&wd_lock);
}

static void watchdog_disarm(void)
{
	pthread_mutex_lock(&wd_lock);
	wd_armed = false;
	pthread_mutex_unlock(&wd_lock);
}

static void discard_warning(const char *msg)
{
	(void)msg;
}

/* What both targets replay with: the null engine, writes allowed, warnings dropped, the
 * watchdog's hook; dep refuses a trace without completion times (every synthesized one): its
 * fallback then is fuzzed too. */
static void fuzz_replay_opts(struct replay_opts *o, const char *trace, int mode)
{
	*o = (struct replay_opts){
		.trace = trace,
		.engine = "null",
		.mode = mode,
		.mode_set = mode != REPLAY_MODE_AUTO,
		.allow_writes = true,
		.warn = discard_warning,
		.hook = watchdog_at_stage,
		.dep_fallback_set = true,
		.dep_fallback = REPLAY_TIMED,
	};
	dep_opts_default(&o->dep);
}

/* Recipes: an input read field by field. */
struct cursor {
	const uint8_t *p;
	size_t left;
};

/* The next n bytes (at most 8) little-endian; zeros once the input is used up. */
static uint64_t take(struct cursor *c, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n && c->left; i++, c->left--)
		v |= (uint64_t)*c->p++ << (8 * i);
	return v;
}

#endif
