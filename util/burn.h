/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Spending a given amount of CPU time, as a recorded thread did between its calls (replay
 * --cpu replay). Measured on the thread's own CPU clock, not counted in loop iterations: on a
 * busy host a burn takes longer in wall time, which is the contention being reproduced.
 */
#ifndef IOREEL_UTIL_BURN_H
#define IOREEL_UTIL_BURN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* This thread's CPU time (CLOCK_THREAD_CPUTIME_ID), ns. */
uint64_t thread_cpu_ns(void);
/* Runs on the CPU until this thread has used ns more of it, or *stop or *cancel (a signal
 * handler's flag: Ctrl-C) becomes set, checked every few microseconds; either may be NULL.
 * Returns the CPU time it used. */
uint64_t burn_cpu(uint64_t ns, const volatile bool *stop, const volatile sig_atomic_t *cancel);

#endif
