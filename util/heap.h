/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A binary min-heap over a caller's array, typed by a macro so that each user keeps its items
 * by value (the recorder's reorder buffers hold 72-136 byte events, pushed and popped once per
 * I/O: a copy through void pointers and a size would cost that path a memcpy call each).
 *
 *   #define EV_KEY(e) ((e).queue_ns)
 *   HEAP_DEFINE(evheap, struct rec_event, EV_KEY)
 *
 * defines static evheap_push(h, &n, &item) and evheap_pop(h, &n, &out) on an array h holding n
 * items (the caller grows it: push needs room for one more). Equal keys leave in no set order.
 */
#ifndef IOREEL_UTIL_HEAP_H
#define IOREEL_UTIL_HEAP_H

#include <stddef.h>

#define HEAP_DEFINE(name, type, KEY)                                                   \
	static inline __attribute__((unused)) void name##_push(type *h, size_t *n,     \
							       const type *e)          \
	{                                                                              \
		size_t i = (*n)++;                                                     \
                                                                                       \
		while (i) {                                                            \
			size_t p = (i - 1) / 2;                                        \
                                                                                       \
			if (KEY(h[p]) <= KEY(*e))                                      \
				break;                                                 \
			h[i] = h[p];                                                   \
			i = p;                                                         \
		}                                                                      \
		h[i] = *e;                                                             \
	}                                                                              \
                                                                                       \
	/* Takes the smallest into *out; the last item sifts down from the root. */    \
	static inline __attribute__((unused)) void name##_pop(type *h, size_t *n,      \
							      type *out)               \
	{                                                                              \
		size_t i = 0;                                                          \
		type last;                                                             \
                                                                                       \
		*out = h[0];                                                           \
		last = h[--(*n)];                                                      \
		for (;;) {                                                             \
			size_t c = 2 * i + 1;                                          \
                                                                                       \
			if (c >= *n)                                                   \
				break;                                                 \
			if (c + 1 < *n && KEY(h[c + 1]) < KEY(h[c]))                   \
				c++;                                                   \
			if (KEY(h[c]) >= KEY(last))                                    \
				break;                                                 \
			h[i] = h[c];                                                   \
			i = c;                                                         \
		}                                                                      \
		if (*n)                                                                \
			h[i] = last;                                                   \
	}

#endif
