// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Scheduler arithmetic of replay: deadlines, alignment, offset mapping, the SPSC ring. */
#include <stdio.h>
#include <stdlib.h>
#include "replay/core/sched.h"

#include "tests/unit/check.h"

static void test_deadline(void)
{
	CHECK(sched_deadline(5000, 1000, 1.0) == 4000, "speed 1");
	CHECK(sched_deadline(5000, 1000, 0) == 4000, "speed 0 means 1");
	CHECK(sched_deadline(5000, 1000, 2.0) == 2000, "twice as fast");
	CHECK(sched_deadline(5000, 1000, 0.5) == 8000, "half speed");
	CHECK(sched_deadline(500, 1000, 1.0) == 0, "before genesis clamps to 0");
	/* absolute: the deadline of event n never depends on earlier ones (no accumulation) */
	CHECK(sched_deadline(3600000000000ULL + 7, 0, 3.0) == 1200000000002ULL, "rounding %llu",
	      (unsigned long long)sched_deadline(3600000000000ULL + 7, 0, 3.0));
}

static void test_align(void)
{
	CHECK(sched_align_len(4096, 512) == 4096, "aligned stays");
	CHECK(sched_align_len(1, 512) == 512, "rounds up");
	CHECK(sched_align_len(4097, 4096) == 8192, "rounds up 4k");
	CHECK(sched_align_len(0, 512) == 0, "zero");
}

static void test_map(void)
{
	bool moved;
	uint64_t off;

	off = sched_map_offset(8192, 4096, 1 << 20, 0, 512, false, &moved);
	CHECK(off == 8192 && !moved, "inside stays");
	off = sched_map_offset(8192 + 100, 4096, 1 << 20, 0, 512, false, &moved);
	CHECK(off == 8192 && !moved, "aligned down, not moved");
	off = sched_map_offset((1 << 20) + 4096, 4096, 1 << 20, 0, 512, false, &moved);
	CHECK(off == 4096 && moved, "wraps modulo size: %llu", (unsigned long long)off);
	off = sched_map_offset((1 << 20) - 2048, 4096, 1 << 20, 0, 512, false, &moved);
	CHECK(off + 4096 <= (1 << 20) && moved, "tail that does not fit moves inside");
	/* scale: a 4 MiB device onto 1 MiB: offsets divided by 4 */
	off = sched_map_offset(2 << 20, 4096, 1 << 20, 4 << 20, 4096, true, &moved);
	CHECK(off == (512 << 10) && moved, "scaled: %llu", (unsigned long long)off);
	/* property: whatever the input, the result lies inside and is aligned */
	srand(7);
	for (int i = 0; i < 200000; i++) {
		uint64_t size = ((uint64_t)(rand() % 100000) + 16) * 512;
		uint32_t lbs = (rand() & 1) ? 512 : 4096;
		uint32_t len = sched_align_len((uint32_t)(rand() % 65536) + 1, lbs);
		uint64_t o = ((uint64_t)rand() << 20) ^ (uint64_t)rand();
		bool scale = rand() & 1;

		size &= ~(uint64_t)(lbs - 1);
		if (len > size)
			continue;
		off = sched_map_offset(o, len, size, size * 3, lbs, scale, &moved);
		if (off + len > size || off % lbs) {
			CHECK(0, "offset %llu len %u size %llu lbs %u scale %d -> %llu",
			      (unsigned long long)o, len, (unsigned long long)size, lbs, scale,
			      (unsigned long long)off);
			break;
		}
	}
}

int main(void)
{
	test_deadline();
	test_align();
	test_map();
	if (failures)
		return 1;
	printf("ok\n");
	return 0;
}
