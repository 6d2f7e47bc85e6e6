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
#include "replay/core/pattern.h"
#include <sys/types.h>

struct target {
	char path[4096];
	int fd;
	bool is_blk;
	dev_t rdev;	/* block devices */
	uint64_t size;	/* bytes usable by the replay */
	uint64_t bytes;	/* a regular file: its size, of which size is the whole blocks */
	uint32_t lbs;	/* alignment of offsets and lengths (logical block size) */
	bool created;	/* a file made (or grown) by --size */
	bool made;	/* a file this replay made: removed if the replay never starts */
};

struct target_open_opts {
	bool writes;	      /* the replay will write, discard or zero */
	bool direct;	      /* O_DIRECT (default) */
	bool force;	      /* write even to a mounted or formatted device */
	uint64_t create_size; /* make a regular file at least this big, filled with the pattern */
	bool may_grow;	      /* --allow-writes: an existing file smaller than create_size may
			       * be grown (refused otherwise: growing it writes to it) */
	const char *keep;     /* with writes: a file the target must not hold (the trace being
			       * replayed), --force or not */
};

/*
 * Opens path and, when o->writes, refuses it unless it is safe (see target_check_writable), and
 * whatever o->force says when it holds o->keep (on its filesystem or a partition's, or a loop
 * device over it: -ELOOP). A file grows to o->create_size only in whole blocks (-EDOM: less
 * than one, or not a whole number of them).
 * 0 or -errno with a message in err that names the path and says what to do.
 */
int target_open(struct target *t, const char *path, const struct target_open_opts *o, char *err,
		size_t errlen);
void target_close(struct target *t);

/* The target's writeback throttling as its queue (sysfs) has it: wbt_lat_usec, nr_requests,
 * write_cache (replay/dep/dep_wbt.h). 0, or -errno: not a block device, no such files. */
struct wbt_target;
int target_wbt_read(const struct target *t, struct wbt_target *out);

/* The first line of a sysfs file, without its newline; 0 or -errno. */
int target_sysfs_read(const char *path, char *buf, size_t len);

/*
 * How block device t holds file: the file on its filesystem or a partition's, or t a loop
 * device (or a partition of one) over the file; NULL when it does not, or t is no device.
 * Stacks (a loop device or an array between) and filesystems without a device of their own
 * (btrfs, NFS, FUSE) are not seen through.
 */
const char *target_holds(const struct target *t, const char *file);

/*
 * 0 when nothing else uses the device: not mounted (also a partition of it), no holders
 * (dm, md), not swap, no filesystem, RAID or partition-table signature (libblkid). -EBUSY or
 * -EEXIST with the reason in err otherwise; -EIO when probing itself failed.
 */
int target_check_writable(const struct target *t, char *err, size_t errlen);

#endif
