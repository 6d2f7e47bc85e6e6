/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The block source's own state (block.c), reached from struct run's src_state. */
#ifndef IOREEL_REPLAY_BLOCK_H
#define IOREEL_REPLAY_BLOCK_H

#include "replay/block/target.h"
#include "replay/core/run.h"

struct brun {
	unsigned int ndev; /* trace devices (at least 1) */
	struct target tg[TRACE_MAX_DEVICES];
	struct engine_target etg[TRACE_MAX_DEVICES];
	uint64_t src_size[TRACE_MAX_DEVICES]; /* recorded size, or the highest offset reached */
	struct readmap *rmap;		      /* the regions the trace reads (prefill.h) */
	/* decoder state (helper thread) */
	struct io_event buf[RUN_DECODE];
	size_t nbuf, pos;
	bool reader_eof;
};

static inline struct brun *brun_of(const struct run *r)
{
	return r->src_state;
}

extern const struct replay_source_ops replay_source_block;

#endif
