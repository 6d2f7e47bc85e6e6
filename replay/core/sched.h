/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Scheduling arithmetic (pure, unit-tested in tests/unit/test_replay_sched.c) and the
 * single-producer single-consumer ring that carries decoded I/Os to the scheduling thread and
 * finished ones away from it, so that decoding and writing never delay a deadline.
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

/* ---- SPSC ring of fixed-size items; capacity a power of two ---- */
struct spsc {
	char *items;
	size_t esize;
	uint64_t mask;
	/* each index on its own cache line: producer and consumer run on different cores */
	_Alignas(64) uint64_t head; /* consumer */
	_Alignas(64) uint64_t tail; /* producer */
};

int spsc_init(struct spsc *q, size_t esize, uint64_t cap);
void spsc_free(struct spsc *q);
/* Producer: a slot to fill, or NULL when full; then spsc_push() publishes it. */
void *spsc_slot(struct spsc *q);
void spsc_push(struct spsc *q);
/* Consumer: the oldest item, or NULL when empty; then spsc_pop() releases it. */
void *spsc_peek(struct spsc *q);
void spsc_pop(struct spsc *q);
uint64_t spsc_count(struct spsc *q);

#endif
