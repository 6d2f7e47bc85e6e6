/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A thread's real-time stretch: the recorder's drain thread for its whole life, the fleet's
 * ranks for the last stretch of their common start. SCHED_FIFO priority 1 is the lowest
 * real-time priority: above every normal task, below the kernel's own real-time threads.
 * Where real-time is refused (no CAP_SYS_NICE, a cgroup with no real-time runtime) nice -20
 * is the next best, and the caller says so.
 */
#ifndef IOREEL_UTIL_PRIO_H
#define IOREEL_UTIL_PRIO_H

#include <sched.h>
#include <stdint.h>

enum prio_got { PRIO_KEPT, PRIO_FIFO, PRIO_NICE };

/* What the calling thread ran at before prio_raise(). */
struct prio_saved {
	int policy;
	struct sched_param sp;
	int nice;
};

/* The calling thread to SCHED_FIFO 1, else nice -20 (PRIO_NICE), else unchanged (PRIO_KEPT);
 * *err gets the errno that refused the last one tried (0 when none was), *saved (if not NULL) what to
 * restore. A thread already real-time is left as it is (PRIO_FIFO). */
enum prio_got prio_raise(struct prio_saved *saved, int *err);
/* Puts the calling thread back as prio_raise found it. */
void prio_restore(const struct prio_saved *saved);
/*
 * The calling thread's EEVDF slice (Linux 6.12 on; a normal, SCHED_OTHER thread only): ns, which
 * the kernel clamps to 0.1-100 ms, or 0 for the kernel's default (sysctl base_slice, 0.7-3 ms
 * by the number of CPUs). Returns 0 or an errno; a kernel before 6.12 takes the call and
 * ignores the slice, so success does not prove it is in effect: prio_slice_ns() tells.
 */
int prio_slice_set(uint64_t ns);
/* The calling thread's slice as the kernel reports it (6.12 on; 0 before). */
uint64_t prio_slice_ns(void);
/* "real-time SCHED_FIFO", "nice -20", "its own priority": for messages. */
const char *prio_name(enum prio_got g);

#endif
