/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What other programs linking the recorder may set: the fleet's (mpi/) shared genesis. */
#ifndef IOREEL_RECORD_RECORD_H
#define IOREEL_RECORD_RECORD_H

#include <stdint.h>

/*
 * When set, cmd_record calls it once the programs are loaded and before it tracks any I/O,
 * with t = 0 of the trace as it would take it (CLOCK_MONOTONIC and CLOCK_REALTIME ns). The
 * hook may move both (hosts recording together share one genesis, so their traces replay
 * together) and must return by the new monotonic one. Non-zero: the recording is called off.
 */
extern int (*record_genesis_hook)(uint64_t *mono_ns, uint64_t *realtime_ns);

#endif
