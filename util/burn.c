// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * util/burn.h. The thread CPU clock has no vDSO path (a system call of a few hundred ns), so
 * the loop reads it only every ~2 us of work: SPIN iterations are calibrated once to that.
 */
#include <time.h>
#include "util/burn.h"
#include "util/thread.h"

#define STEP_NS 2000

/* each thread's own: burners on every CPU wrote one shared word (a data race, and a cache
 * line bounced between them) */
static __thread volatile unsigned long sink;
static unsigned long spin = 0; /* iterations per STEP_NS, calibrated at first use */

uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void spin_for(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757ULL + 3037000493ULL;
	sink = x;
}

static unsigned long calibrate(void)
{
	unsigned long n = 1000, best = 0;

	/* the fastest of a few tries: a preempted try only makes a step shorter */
	for (int t = 0; t < 5; t++) {
		uint64_t a = thread_cpu_ns(), d;

		spin_for(n);
		d = thread_cpu_ns() - a;
		if (d) {
			unsigned long k = (unsigned long)((double)n * STEP_NS / (double)d);

			if (k > best)
				best = k;
		}
	}
	return best ? best : 1000;
}

uint64_t burn_cpu(uint64_t ns, const volatile bool *stop, const volatile sig_atomic_t *cancel)
{
	uint64_t start, now;
	unsigned long n = __atomic_load_n(&spin, __ATOMIC_RELAXED);

	if (!ns)
		return 0;
	if (!n) {
		n = calibrate();
		__atomic_store_n(&spin, n, __ATOMIC_RELAXED);
	}
	start = now = thread_cpu_ns();
	while (now - start < ns && !flag_up(stop) && !(cancel && *cancel)) {
		uint64_t left = ns - (now - start);

		spin_for(left < STEP_NS ? n * left / STEP_NS + 1 : n);
		now = thread_cpu_ns();
	}
	return now - start;
}
