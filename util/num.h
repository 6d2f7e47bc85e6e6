/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Integer helpers shared by the container codec, the pattern generator and the path tables. */
#ifndef IOREEL_UTIL_NUM_H
#define IOREEL_UTIL_NUM_H

#include <stdint.h>

/* Greatest common divisor (Euclid); gcd_u64(x, 0) == x. */
static inline uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* FNV-1a of a NUL-terminated string: the hash of the recorder's and the replay's path tables. */
static inline uint64_t fnv1a_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

#endif
