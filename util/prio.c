// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <pthread.h>
#include <unistd.h>
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
