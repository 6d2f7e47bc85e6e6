/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Instants away from the kernel's tick. Linux fires each CPU's periodic tick on multiples of
 * TICK_NSEC in CLOCK_MONOTONIC (tick_setup_device() aligns the first one to that grid,
 * kernel/time/tick-common.c), every CPU at once unless skew_tick=1: here (HZ 250) 3,679 ticks
 * were handled 0.7-60 us after a multiple of 4 ms. With HZ 100, 250 or 1000 every tick falls
 * on a whole millisecond, so an instant half-way between two is at least 0.5 ms from any tick
 * and the softirqs that follow it. The fleet starts there (mpi/clock.c): a rank interrupted at
 * the start is late by the interrupt (20-100 us for a tick and its softirqs in a KVM guest),
 * whatever its priority.
 */
#ifndef IOREEL_UTIL_TICK_H
#define IOREEL_UTIL_TICK_H

#include <stdint.h>

#define TICK_GRID_NS 1000000ULL /* ticks fall on this grid with HZ 100, 250 and 1000 */
#define TICK_BINS 64		/* the grid in bins of 15.6 us, one bit each in a mask */

/*
 * The bin (as a one-bit mask) at which an instant of a reference clock is on the grid of a
 * clock that reads shift_ns more than the reference. Masks of many clocks OR together.
 */
uint64_t tick_mask(int64_t shift_ns);
/* The phase in [0, TICK_GRID_NS) of the reference clock farthest from every bin set in mask:
 * the middle of the longest run of clear bins (TICK_GRID_NS / 2 when mask is 0). */
uint64_t tick_quiet_phase(uint64_t mask);
/* The first instant at or after t that is at phase on the grid. */
uint64_t tick_at_phase(uint64_t t, uint64_t phase);

#endif
