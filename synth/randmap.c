// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "synth/randmap.h"

static uint64_t words(uint64_t bits)
{
	return (bits + 63) / 64;
}

/* Bytes held by the maps alive (synth is one thread): bounded by RANDMAP_MAX_TOTAL_BYTES. */
static uint64_t live_bytes;

static uint64_t map_bytes(uint64_t n)
{
	return (words(n) + words(words(n))) * sizeof(uint64_t);
}

int randmap_init(struct randmap *m, uint64_t n)
{
	memset(m, 0, sizeof(*m));
	if (!n || n > RANDMAP_MAX_BLOCKS)
		return -EINVAL;
	if (live_bytes + map_bytes(n) > RANDMAP_MAX_TOTAL_BYTES)
		return -ENOSPC;
	m->n = n;
	m->bits = calloc(words(n), sizeof(*m->bits));
	m->full = calloc(words(words(n)), sizeof(*m->full));
	if (!m->bits || !m->full) {
		randmap_free(m);
		return -ENOMEM;
	}
	live_bytes += map_bytes(n);
	return 0;
}

void randmap_reset(struct randmap *m)
{
	/* a map nothing was taken from is clear: its pages stay untouched until used */
	if (!m->used)
		return;
	memset(m->bits, 0, words(m->n) * sizeof(*m->bits));
	memset(m->full, 0, words(words(m->n)) * sizeof(*m->full));
	m->used = 0;
}

void randmap_free(struct randmap *m)
{
	if (m->bits && m->full)
		live_bytes -= map_bytes(m->n);
	free(m->bits);
	free(m->full);
	memset(m, 0, sizeof(*m));
}

/* The first free block in [b, n), or UINT64_MAX. */
static uint64_t first_free(const struct randmap *m, uint64_t b)
{
	uint64_t nw = words(m->n), w = b / 64;
	uint64_t free_bits = ~m->bits[w] & (~0ULL << (b % 64));

	for (;;) {
		if (free_bits) {
			uint64_t r = w * 64 + (uint64_t)__builtin_ctzll(free_bits);

			return r < m->n ? r : UINT64_MAX;
		}
		/* skip whole used words through the summary, 64 words at a time */
		for (w++; w < nw && (m->full[w / 64] >> (w % 64) & 1); w++)
			if (w % 64 == 0 && m->full[w / 64] == ~0ULL)
				w += 63;
		if (w >= nw)
			return UINT64_MAX;
		free_bits = ~m->bits[w];
	}
}

uint64_t randmap_next_free(const struct randmap *m, uint64_t b)
{
	uint64_t r;

	if (m->used == m->n)
		return UINT64_MAX;
	r = first_free(m, b);
	return r != UINT64_MAX ? r : first_free(m, 0);
}

uint64_t randmap_take(struct randmap *m, uint64_t b, uint64_t nr)
{
	uint64_t k = 0;

	for (; k < nr && b + k < m->n; k++) {
		uint64_t i = b + k, w = i / 64;

		if (m->bits[w] >> (i % 64) & 1)
			break;
		m->bits[w] |= 1ULL << (i % 64);
		if (m->bits[w] == ~0ULL ||
		    (w == words(m->n) - 1 &&
		     m->bits[w] == (~0ULL >> (64 - (m->n % 64 ? m->n % 64 : 64)))))
			m->full[w / 64] |= 1ULL << (w % 64);
	}
	m->used += k;
	return k;
}
