/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Replay targets: block devices or regular files, opened, sized and checked before any I/O,
 * and the data pattern replayed writes carry so that tests can find every write afterwards.
 */
#ifndef IOREEL_REPLAY_TARGET_H
#define IOREEL_REPLAY_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct target {
	char path[4096];
	int fd;
	bool is_blk;
	dev_t rdev;	/* block devices */
	uint64_t size;	/* bytes usable by the replay */
	uint32_t lbs;	/* alignment of offsets and lengths (logical block size) */
	bool created;	/* a file made (or grown) by --size */
};

struct target_open_opts {
	bool writes;	      /* the replay will write, discard or zero */
	bool direct;	      /* O_DIRECT (default) */
	bool force;	      /* write even to a mounted or formatted device */
	uint64_t create_size; /* make a regular file at least this big, filled with the pattern */
};

/*
 * Opens path and, when o->writes, refuses it unless it is safe (see target_check_writable).
 * 0 or -errno with a message in err that names the path and says what to do.
 */
int target_open(struct target *t, const char *path, const struct target_open_opts *o, char *err,
		size_t errlen);
void target_close(struct target *t);

/*
 * 0 when nothing else uses the device: not mounted (also a partition of it), no holders
 * (dm, md), not swap, no filesystem, RAID or partition-table signature (libblkid). -EBUSY or
 * -EEXIST with the reason in err otherwise; -EIO when probing itself failed.
 */
int target_check_writable(const struct target *t, char *err, size_t errlen);

/*
 * The data written by replay: every 512-byte sector holds, repeated, its own byte offset on
 * the target and a magic (both little-endian u64), so a reader can tell which replayed
 * write (PATTERN_MAGIC) or --size fill (PATTERN_FILL_MAGIC) put it there. offset and len must be multiples of 512.
 */
#define PATTERN_MAGIC 0x57524c4552454f49ULL	 /* "IOERELRW": written by a replayed write */
#define PATTERN_FILL_MAGIC 0x4c4c4946454f4949ULL /* "IIOEFILL": laid out by --size */
void pattern_fill(void *buf, uint64_t offset, uint32_t len, uint64_t magic);
/* Incompressible bytes (xorshift64*, seeded from the clock): what fio writes by default. */
void pattern_random(void *buf, size_t len);

#endif
