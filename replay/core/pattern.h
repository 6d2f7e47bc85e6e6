/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What replay writes: random data, or the verifiable offset pattern (core/pattern.c). */
#ifndef IOREEL_REPLAY_CORE_PATTERN_H
#define IOREEL_REPLAY_CORE_PATTERN_H

#include <stddef.h>
#include <stdint.h>

/*
 * The data written by replay: every 512-byte sector holds, repeated, its own byte offset on
 * the target and a magic (both little-endian u64), so a reader can tell which replayed
 * write (PATTERN_MAGIC) or --size fill (PATTERN_FILL_MAGIC) put it there.
 * offset and len must be multiples of 512.
 */
#define PATTERN_MAGIC 0x57524c4552454f49ULL	 /* "IOERELRW": written by a replayed write */
#define PATTERN_FILL_MAGIC 0x4c4c4946454f4949ULL /* "IIOEFILL": laid out by --size */
void pattern_fill(void *buf, uint64_t offset, uint32_t len, uint64_t magic);
/* Incompressible bytes (xorshift64*, seeded from the clock): what fio writes by default. */
void pattern_random(void *buf, size_t len);

#endif
