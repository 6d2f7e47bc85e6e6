// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "util/tick.h"

uint64_t tick_mask(int64_t shift_ns)
{
	/* reference instants t with t + shift on the grid: t = -shift (mod grid) */
	int64_t g = (int64_t)TICK_GRID_NS, p = (-(shift_ns % g) + g) % g;

	return 1ULL << ((uint64_t)p * TICK_BINS / TICK_GRID_NS);
}

uint64_t tick_quiet_phase(uint64_t mask)
{
	unsigned int best = 0, best_at = 0;

	if (!mask)
		return TICK_GRID_NS / 2;
	/* a run of clear bins starts after each set bin; runs wrap around the grid */
	for (unsigned int i = 0; i < TICK_BINS; i++) {
		unsigned int n = 0;

		if (!(mask >> i & 1))
			continue;
		while (n < TICK_BINS - 1 && !(mask >> ((i + 1 + n) % TICK_BINS) & 1))
			n++;
		if (n > best)
			best = n, best_at = (i + 1) % TICK_BINS;
	}
	/*
	 * The middle of the run, counting the set bins at both ends as half clear: a tick is
	 * somewhere in its bin, so the point half-way between the two set bins' centres.
	 */
	return ((uint64_t)best_at * 2 + best) * TICK_GRID_NS / (2 * TICK_BINS) % TICK_GRID_NS;
}

uint64_t tick_at_phase(uint64_t t, uint64_t phase)
{
	return t + (phase + TICK_GRID_NS - t % TICK_GRID_NS) % TICK_GRID_NS;
}
