/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A binary min-heap over a caller's array, typed by a macro so that each user keeps its items
 * by value (the recorder's reorder buffers hold 72-136 byte events, pushed and popped once per
 * I/O: a copy through void pointers and a size would cost that path a memcpy call each).
 *
 *   #define EV_KEY(e) ((e).queue_ns)
 *   HEAP_DEFINE(evheap, struct rec_event, EV_KEY)
 *
 * defines, on an array h holding n items (the caller grows it: push needs room for one more):
 *   evheap_push(h, &n, &item)         adds item;
 *   evheap_pop(h, &n, &out)           takes the smallest into out;
 *   evheap_replace_top(h, n, &item)   puts item in the smallest's place (n > 0): a pop and a
 *                                     push in one sift, for users that take the smallest and put
 *                                     back a successor (a stream's next event, a new completion).
 * KEY is compared with < <= >= only, so it may be any scalar: a user needing a tie-breaker
 * packs it in, e.g. ((unsigned __int128)time << 64 | seq). Equal keys leave in no set order.
 * A heap of pointers names its type through a typedef (`const type *` must read as a pointer
 * to a const pointer, which `const struct gen * *` is not).
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
	/* Sifts e down from the root of h[0..n), whose root is free. */               \
	static inline __attribute__((unused)) void name##_sift_root_(type *h, size_t n, \
								     type e)           \
	{                                                                              \
		size_t i = 0;                                                          \
                                                                                       \
		for (;;) {                                                             \
			size_t c = 2 * i + 1;                                          \
                                                                                       \
			if (c >= n)                                                    \
				break;                                                 \
			if (c + 1 < n && KEY(h[c + 1]) < KEY(h[c]))                    \
				c++;                                                   \
			if (KEY(h[c]) >= KEY(e))                                       \
				break;                                                 \
			h[i] = h[c];                                                   \
			i = c;                                                         \
		}                                                                      \
		h[i] = e;                                                              \
	}                                                                              \
                                                                                       \
	/*                                                                             \
	 * Takes the smallest into *out. The last item fills the hole: as it came from   \
	 * the bottom it nearly always goes back there, so the hole first goes down the   \
	 * smaller children to a leaf, one comparison a level and no branch to guess       \
	 * (Floyd's bottom-up heapsort), and the item then climbs the few levels it must.  \
	 * It ends where a sift-down from the root would put it, ties included.            \
	 */                                                                            \
	static inline __attribute__((unused)) void name##_pop(type *h, size_t *n,      \
							      type *out)               \
	{                                                                              \
		size_t i = 0, m = *n - 1;                                              \
                                                                                       \
		*out = h[0];                                                           \
		*n = m;                                                                \
		if (!m)                                                                \
			return;                                                        \
		for (;;) {                                                             \
			size_t c = 2 * i + 1;                                          \
                                                                                       \
			if (c >= m)                                                    \
				break;                                                 \
			c += c + 1 < m && KEY(h[c + 1]) < KEY(h[c]);                   \
			h[i] = h[c];                                                   \
			i = c;                                                         \
		}                                                                      \
		while (i) {                                                            \
			size_t p = (i - 1) / 2;                                        \
                                                                                       \
			if (KEY(h[p]) < KEY(h[m]))                                     \
				break;                                                 \
			h[i] = h[p];                                                   \
			i = p;                                                         \
		}                                                                      \
		h[i] = h[m];                                                           \
	}                                                                              \
                                                                                       \
	/* The smallest leaves (the caller read it) and e takes its place; e may be it. */ \
	static inline __attribute__((unused)) void name##_replace_top(type *h, size_t n, \
								      const type *e)   \
	{                                                                              \
		name##_sift_root_(h, n, *e);                                           \
	}

#endif
