/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --dep-wbt: the kernel's writeback throttling (block/blk-wbt.c) for the recorded writes it
 * throttled, which the replay's own writes escape (dep_wbt.c says why and how).
 */
#ifndef IOREEL_REPLAY_DEP_WBT_H
#define IOREEL_REPLAY_DEP_WBT_H
#include <stdbool.h>
#include <stdint.h>

/* What a target's queue says (sysfs), or what --dep-wbt TIME sets. */
struct wbt_target {
	uint64_t lat_ns;      /* wbt_lat_usec: the read latency it aims at (0: wbt off) */
	uint32_t queue_depth; /* nr_requests */
	bool write_cache;     /* write_cache "write back": woken only once its writes drain */
};

/* One target's throttle, as the kernel keeps it per queue. */
struct wbt_dev {
	struct wbt_target t;
	int step;		/* the kernel's scale_step: > 0 scaled down, < 0 up */
	bool scaled_max;	/* up as far as it goes (3/4 of the queue) */
	uint32_t max_depth, normal, background;
	uint32_t inflight;	/* throttled writes in flight */
	uint32_t unknown;	/* windows in a row without enough samples */
	bool armed;		/* its window timer runs */
	uint64_t win_ns, win_end;
	uint64_t rd_min;	/* this window: the fastest read completed, ns */
	uint32_t rd_n, wr_n;	/* reads and writes completed */
	uint64_t last_read;	/* the latest read issued or completed (ns since the start) */
	uint64_t sync_issue;	/* 1 + the oldest read in flight's submission, 0: none */
	uint32_t sync_w;	/* its slot */
	uint32_t head, tail;	/* writes waiting for the throttle, oldest first */
};

/* What the model did, for the report (replay_result.wbt). */
struct wbt_report {
	bool on;
	uint64_t lat_ns;	 /* the latency aimed at (the first target's) */
	uint32_t queue_depth;
	bool write_cache;
	uint64_t throttled;	 /* the trace's writes the kernel throttles (not sync) */
	uint64_t held;		 /* times one waited for the throttle (its thread's later ones
				  * wait behind it, as a kworker blocked there) */
	uint64_t held_ns;	 /* their waits, in all */
	uint64_t windows, exceeded; /* windows looked at; over the latency aimed at */
	uint32_t bg_min, bg_max; /* the background limit's range over the replay */
	uint32_t max_inflight;	 /* throttled writes in flight at most */
};

#endif
