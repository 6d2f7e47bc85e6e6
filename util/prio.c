// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include "util/prio.h"

enum prio_got prio_raise(struct prio_saved *saved, int *err)
{
	struct sched_param sp = { .sched_priority = 1 }, cur;
	int policy, e;

	*err = 0;
	if (pthread_getschedparam(pthread_self(), &policy, &cur))
		policy = SCHED_OTHER, cur.sched_priority = 0;
	if (saved) {
		saved->policy = policy;
		saved->sp = cur;
		errno = 0;
		saved->nice = getpriority(PRIO_PROCESS, (id_t)gettid());
		if (errno)
			saved->nice = 0;
	}
	if (policy == SCHED_FIFO || policy == SCHED_RR)
		return PRIO_FIFO;
	e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (!e)
		return PRIO_FIFO;
	*err = e;
	/* Linux gives each thread its own nice value; PRIO_PROCESS with a thread id sets it. */
	if (!setpriority(PRIO_PROCESS, (id_t)gettid(), -20))
		return PRIO_NICE;
	*err = errno;
	return PRIO_KEPT;
}

void prio_restore(const struct prio_saved *saved)
{
	pthread_setschedparam(pthread_self(), saved->policy, &saved->sp);
	setpriority(PRIO_PROCESS, (id_t)gettid(), saved->nice);
}

const char *prio_name(enum prio_got g)
{
	return g == PRIO_FIFO ? "real-time SCHED_FIFO" : g == PRIO_NICE ? "nice -20"
									 : "its own priority";
}

/*
 * sched_setattr(2) has no glibc wrapper, and <linux/sched/types.h>, which defines its struct,
 * clashes with <sched.h>: the first fields of the kernel's struct sched_attr (SCHED_ATTR_SIZE_VER0,
 * 48 bytes), which is all a normal thread's slice needs.
 */
struct prio_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime; /* SCHED_OTHER, 6.12 on: the slice */
	uint64_t sched_deadline;
	uint64_t sched_period;
};

int prio_slice_set(uint64_t ns)
{
	struct prio_sched_attr a = { .size = sizeof(a), .sched_policy = SCHED_OTHER,
				     .sched_runtime = ns };
	int policy, e;
	struct sched_param cur;

	e = pthread_getschedparam(pthread_self(), &policy, &cur); /* an error number, not errno */
	if (e)
		return e;
	if (policy != SCHED_OTHER)
		return EINVAL; /* a real-time or batch thread's slice is not EEVDF's to give */
	errno = 0;
	a.sched_nice = getpriority(PRIO_PROCESS, (id_t)gettid()); /* kept as it is */
	if (errno)
		return errno;
	return syscall(SYS_sched_setattr, 0, &a, 0) ? errno : 0;
}

uint64_t prio_slice_ns(void)
{
	struct prio_sched_attr a = { 0 };

	if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0) || a.sched_policy != SCHED_OTHER)
		return 0;
	return a.sched_runtime;
}
