/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Whole writes of a buffer to a file, for the writers that lay out data (replay's targets). */
#ifndef IOREEL_UTIL_FILEIO_H
#define IOREEL_UTIL_FILEIO_H

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

/*
 * Writes all of buf at off: 0 or -errno. A short write (a filesystem filling up) sets no
 * errno, so `pwrite() != len` followed by errno reported a stale value (ENOENT, ENXIO left by
 * an earlier lookup or SEEK_HOLE) instead of the cause: the rest is written again, and the
 * call that fails says why (ENOSPC). O_DIRECT writes come back short only at block bounds.
 */
static inline int pwrite_whole(int fd, const void *buf, size_t len, uint64_t off)
{
	for (size_t done = 0; done < len;) {
		ssize_t w = pwrite(fd, (const char *)buf + done, len - done, (off_t)(off + done));

		if (w < 0)
			return -errno;
		if (!w)
			return -ENOSPC;
		done += (size_t)w;
	}
	return 0;
}

#endif
