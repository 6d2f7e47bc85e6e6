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

/*
 * The maps alive at once hold at most this much (16 of the largest): one per stream, a job file's
 * 1024 clones of 2^28 blocks asked 32 GiB and the OOM killer ended synth. A stream whose map
 * would go beyond it takes the permutation, as a larger region does.
 */
#define RANDMAP_MAX_TOTAL_BYTES (512ULL << 20)

struct randmap {
	uint64_t n;	/* blocks */
	uint64_t *bits; /* bit set: block used */
	uint64_t *full; /* bit set: that word of bits is all used */
	uint64_t used;
};

/* 0; -EINVAL (n is 0 or above RANDMAP_MAX_BLOCKS), -ENOSPC (the maps alive would hold more
 * than RANDMAP_MAX_TOTAL_BYTES) or -ENOMEM. */
int randmap_init(struct randmap *m, uint64_t n);
void randmap_reset(struct randmap *m);
void randmap_free(struct randmap *m);
/* The first free block at or after b, wrapping; UINT64_MAX when every block is used. */
uint64_t randmap_next_free(const struct randmap *m, uint64_t b);
/* Marks up to nr blocks from b as used, stopping at the first used one; returns how many. */
uint64_t randmap_take(struct randmap *m, uint64_t b, uint64_t nr);

#endif
