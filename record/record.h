/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What other programs linking the recorder may set: the fleet's (mpi/) shared genesis. */
#ifndef IOREEL_RECORD_RECORD_H
#define IOREEL_RECORD_RECORD_H

#include <stdint.h>

/*
 * When set, cmd_record calls it once the programs are loaded and before it tracks any I/O,
 * with t = 0 of the trace as it would take it (CLOCK_MONOTONIC and CLOCK_REALTIME ns). The
 * hook may move both (hosts recording together share one genesis, so their traces replay
 * together) and must return by the new monotonic one. Before it waits for that instant it
 * calls arm(arm_ctx, t = 0): the programs then track every I/O queued from t = 0 on, however
 * late this process wakes. Non-zero: the recording is called off.
 */
extern int (*record_genesis_hook)(uint64_t *mono_ns, uint64_t *realtime_ns,
				  void (*arm)(void *arm_ctx, uint64_t mono_ns), void *arm_ctx);

#endif
