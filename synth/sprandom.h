/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* fio's sprandom preconditioning layout for one job clone (synth/fio_sprandom.c). */
#ifndef IOREEL_SYNTH_SPRANDOM_H
#define IOREEL_SYNTH_SPRANDOM_H

#include <stdint.h>
#include "synth/synth.h"

struct sprandom;

/* The layout over `logical` bytes of j's region (in blocks of j's write size); draws from
 * seed. NULL + *err (-EINVAL with why: a region smaller than a block or than spr_cs). */
struct sprandom *sprandom_new(const struct synth_job *j, uint64_t logical, uint64_t seed, int *err,
			      char *why, size_t why_len);
/* 1: *block is the next block written; 0: the layout is done (fio's job ends); -EOVERFLOW:
 * a region's invalidations overflow fio's buffer (fio stops on an assertion there). */
int sprandom_next(struct sprandom *s, uint64_t *block);
/* Bytes fio's job writes at most: the logical size plus spr_op, in whole blocks (fio sets
 * its io_size to this). */
uint64_t sprandom_physical(const struct sprandom *s);
void sprandom_free(struct sprandom *s);

#endif
