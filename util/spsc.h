/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A ring of fixed-size items with one producer thread and one consumer thread: no lock, so
 * neither can hold up the other (the recorder's drain thread hands batches to its writer
 * through it; replay's decoder feeds its scheduler). Capacity is a power of two. Inline: the
 * calls sit on per-I/O paths.
 */
#ifndef IOREEL_UTIL_SPSC_H
#define IOREEL_UTIL_SPSC_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

struct spsc {
	char *items;
	size_t esize;
	uint64_t mask;
	/* each index on its own cache line: producer and consumer run on different cores */
	_Alignas(64) uint64_t head; /* consumer */
	_Alignas(64) uint64_t tail; /* producer */
};

/* cap is rounded up to a power of two. 0 or -ENOMEM. */
static inline int spsc_init(struct spsc *q, size_t esize, uint64_t cap)
{
	uint64_t c = 1;

	while (c < cap)
		c <<= 1;
	q->items = calloc(c, esize);
	if (!q->items)
		return -ENOMEM;
	q->esize = esize;
	q->mask = c - 1;
	q->head = q->tail = 0;
	return 0;
}

static inline void spsc_free(struct spsc *q)
{
	free(q->items);
	q->items = NULL;
}

/* Producer: a slot to fill, or NULL when full; then spsc_push() publishes it. */
static inline void *spsc_slot(struct spsc *q)
{
	uint64_t t = q->tail; /* only the producer writes tail */

	if (t - __atomic_load_n(&q->head, __ATOMIC_ACQUIRE) > q->mask)
		return NULL;
	return q->items + (t & q->mask) * q->esize;
}

static inline void spsc_push(struct spsc *q)
{
	__atomic_store_n(&q->tail, q->tail + 1, __ATOMIC_RELEASE);
}

/* Consumer: the oldest item, or NULL when empty; then spsc_pop() releases it. */
static inline void *spsc_peek(struct spsc *q)
{
	uint64_t h = q->head;

	if (h == __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE))
		return NULL;
	return q->items + (h & q->mask) * q->esize;
}

static inline void spsc_pop(struct spsc *q)
{
	__atomic_store_n(&q->head, q->head + 1, __ATOMIC_RELEASE);
}

static inline uint64_t spsc_count(struct spsc *q)
{
	return __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
}

#endif
