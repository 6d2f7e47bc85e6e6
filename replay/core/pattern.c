// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "replay/core/pattern.h"
#include "util/cli.h"

void pattern_fill(void *buf, uint64_t offset, uint32_t len, uint64_t magic)
{
	uint64_t *w = buf;

	for (uint32_t s = 0; s < len / 512; s++, offset += 512)
		for (unsigned int i = 0; i < 64; i += 2) {
			*w++ = offset;
			*w++ = magic;
		}
}

void pattern_random(void *buf, size_t len)
{
	uint64_t x = 0x9E3779B97F4A7C15ULL ^ now_mono_ns(), *w = buf;

	for (size_t i = 0; i < len / 8; i++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		w[i] = x * 0x2545F4914F6CDD1DULL;
	}
}
