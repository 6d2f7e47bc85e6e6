/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * fio's random map (its axmap): a bit per block of the region, so a pass of uniform random
 * I/O touches each block once. fio draws a block, moves to the next free one when it is taken
 * (wrapping), and shortens an I/O to the free blocks it starts on; with mixed block sizes that
 * truncation shapes the sizes fio really issues, so it is kept here too.
 */
#ifndef IOREEL_SYNTH_RANDMAP_H
#define IOREEL_SYNTH_RANDMAP_H

#include <stdbool.h>
#include <stdint.h>

#define RANDMAP_MAX_BLOCKS                                                                         \
	(1ULL << 28) /* 32 MiB of bits per stream; bigger regions use a                            \
		      * permutation (synth/dist.c) */

struct randmap {
	uint64_t n;	/* blocks */
	uint64_t *bits; /* bit set: block used */
	uint64_t *full; /* bit set: that word of bits is all used */
	uint64_t used;
};

int randmap_init(struct randmap *m, uint64_t n);
void randmap_reset(struct randmap *m);
void randmap_free(struct randmap *m);
/* The first free block at or after b, wrapping; UINT64_MAX when every block is used. */
uint64_t randmap_next_free(const struct randmap *m, uint64_t b);
/* Marks up to nr blocks from b as used, stopping at the first used one; returns how many. */
uint64_t randmap_take(struct randmap *m, uint64_t b, uint64_t nr);

#endif
