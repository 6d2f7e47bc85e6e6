/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Threads with a stack of a chosen size. The replay's threads start before (or run beside) its
 * mlockall(MCL_CURRENT), which makes every page of a thread's stack resident: glibc's 8 MiB
 * default, times a pool of workers, held hundreds of MiB (engine_psync.c).
 */
#ifndef IOREEL_UTIL_THREAD_H
#define IOREEL_UTIL_THREAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* pthread_create with a stack of `stack` bytes: 0 or an errno value, as pthread_create. */
static inline int thread_start(pthread_t *th, size_t stack, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int ret = pthread_attr_init(&attr);

	if (ret)
		return ret;
	ret = pthread_attr_setstacksize(&attr, stack);
	if (!ret)
		ret = pthread_create(th, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return ret;
}

/*
 * A stop flag one thread sets (flag_raise) and others poll (flag_up): atomic accesses, not
 * plain ones on a volatile, which are a data race to the compiler and to ThreadSanitizer. A
 * NULL flag is never up.
 */
static inline bool flag_up(const volatile bool *flag)
{
	return flag && __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

static inline void flag_raise(volatile bool *flag)
{
	__atomic_store_n(flag, true, __ATOMIC_RELEASE);
}

#endif
