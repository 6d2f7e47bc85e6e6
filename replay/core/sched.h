/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Scheduling arithmetic (pure, unit-tested in tests/unit/test_replay_sched.c): the clock of
 * every clocked mode. The rings between replay's threads are util/spsc.h.
 */
#ifndef IOREEL_REPLAY_SCHED_H
#define IOREEL_REPLAY_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The latest deadline (2^62 ns, 146 years): later ones are held there, not wrapped. */
#define SCHED_DEADLINE_MAX (1ULL << 62)

/* Deadline relative to the replay's start: (t - genesis) / speed; never accumulates error.
 * At most SCHED_DEADLINE_MAX. */
uint64_t sched_deadline(uint64_t t_ns, uint64_t genesis_ns, double speed);

/* Rounds len up to a multiple of lbs (a power of two); 0 stays 0. */
uint32_t sched_align_len(uint32_t len, uint32_t lbs);

/*
 * Maps a trace offset onto a target of size bytes: aligned down to lbs, then, when it would
 * reach beyond the target, wrapped (modulo) or scaled (by size / src_size, src_size being the
 * recorded device's size). The result always satisfies off + len <= size (len <= size).
 * *moved tells whether the offset changed beyond alignment.
 */
uint64_t sched_map_offset(uint64_t off, uint32_t len, uint64_t size, uint64_t src_size,
			  uint32_t lbs, bool scale, bool *moved);

/* Sleeps (TIMER_ABSTIME) until spin_ns before abs_ns, then spins to abs_ns. */
void sched_wait_until(uint64_t abs_ns, uint64_t spin_ns);

#endif
