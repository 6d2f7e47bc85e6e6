/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Integer helpers shared by the container codec and the pattern generator. */
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

#endif
