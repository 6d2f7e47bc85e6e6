// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include "replay/core/sched.h"

uint64_t sched_deadline(uint64_t t_ns, uint64_t genesis_ns, double speed)
{
	uint64_t d = t_ns > genesis_ns ? t_ns - genesis_ns : 0;
	long double x;

	if (speed <= 0 || speed == 1.0)
		return d < SCHED_DEADLINE_MAX ? d : SCHED_DEADLINE_MAX;
	x = (long double)d / speed + 0.5L;
	/* saturated, never wrapped: the start's clock plus it must not overflow either */
	return x < (long double)SCHED_DEADLINE_MAX ? (uint64_t)x : SCHED_DEADLINE_MAX;
}

uint32_t sched_align_len(uint32_t len, uint32_t lbs)
{
	return (uint32_t)(((uint64_t)len + lbs - 1) & ~(uint64_t)(lbs - 1));
}

uint64_t sched_map_offset(uint64_t off, uint32_t len, uint64_t size, uint64_t src_size,
			  uint32_t lbs, bool scale, bool *moved)
{
	uint64_t aligned = off & ~(uint64_t)(lbs - 1);
	uint64_t room;

	*moved = false;
	if (len > size)
		return 0;
	room = size - len; /* last offset at which len still fits */
	if (aligned <= room && !(scale && src_size > size))
		return aligned;
	*moved = true;
	if (scale && src_size > size)
		aligned = (uint64_t)((long double)off * size / src_size);
	else
		aligned = off % size;
	aligned &= ~(uint64_t)(lbs - 1);
	if (aligned > room)
		aligned = room & ~(uint64_t)(lbs - 1);
	return aligned;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void sched_wait_until(uint64_t abs_ns, uint64_t spin_ns)
{
	uint64_t now = mono_ns();

	if (abs_ns > now + spin_ns) {
		uint64_t wake = abs_ns - spin_ns;
		struct timespec ts = { (time_t)(wake / 1000000000ULL),
				       (long)(wake % 1000000000ULL) };

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	while (mono_ns() < abs_ns)
		__builtin_ia32_pause();
}
