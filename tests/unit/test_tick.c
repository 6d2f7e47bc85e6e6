// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The fleet's start away from the tick (util/tick.c): the phase chosen is the farthest from
 * every clock's whole milliseconds, within a bin's width, and the instant is the next one there. */
#include <stdint.h>
#include "tests/unit/check.h"
#include "util/tick.h"

#define BIN (TICK_GRID_NS / TICK_BINS)

/* distance on the circular grid from phase to the nearest whole millisecond of a clock
 * reading shift more */
static uint64_t dist(uint64_t phase, int64_t shift)
{
	int64_t g = (int64_t)TICK_GRID_NS, p = (((int64_t)phase + shift) % g + g) % g;

	return (uint64_t)(p < g - p ? p : g - p);
}

int main(void)
{
	/* one host: offsets of a few ns either way, the start half-way between milliseconds */
	uint64_t m = tick_mask(-80) | tick_mask(0) | tick_mask(120), ph = tick_quiet_phase(m);

	CHECK(ph >= TICK_GRID_NS / 2 - BIN && ph <= TICK_GRID_NS / 2 + BIN, "one host: %llu",
	      (unsigned long long)ph);
	CHECK(tick_quiet_phase(0) == TICK_GRID_NS / 2, "no clocks");
	/* two hosts 0.2 ms apart: at least 0.4 ms from both within a bin */
	m = tick_mask(0) | tick_mask(200000);
	ph = tick_quiet_phase(m);
	CHECK(dist(ph, 0) + BIN >= 400000 && dist(ph, 200000) + BIN >= 400000, "two hosts: %llu",
	      (unsigned long long)ph);
	/* many hosts: the middle of the largest gap; shifts larger than the grid and negative */
	{
		const int64_t s[] = {3100000, -2250000, 5600000, 123456789};
		uint64_t lo = TICK_GRID_NS;

		m = 0;
		for (int i = 0; i < 4; i++)
			m |= tick_mask(s[i]);
		ph = tick_quiet_phase(m);
		for (int i = 0; i < 4; i++)
			lo = dist(ph, s[i]) < lo ? dist(ph, s[i]) : lo;
		/* on ticks at 0.25, 0.4, 0.543 and 0.9 ms of the reference: the largest gap is
		 * from 0.543 to 0.9 ms, its middle 0.178 ms from both */
		CHECK(lo + BIN >= 178000, "four hosts: %llu is %llu ns from a tick",
		      (unsigned long long)ph, (unsigned long long)lo);
	}
	CHECK(tick_mask(0) == 1 && tick_mask(-1) == 1 && tick_mask(1) == 1ULL << 63, "bins");
	/* the next instant at a phase: never earlier, less than a grid later */
	CHECK(tick_at_phase(5000000, 500000) == 5500000, "ahead");
	CHECK(tick_at_phase(5600000, 500000) == 6500000, "wraps");
	CHECK(tick_at_phase(5500000, 500000) == 5500000, "already there");
	return failures ? 1 : 0;
}
