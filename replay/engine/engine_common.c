// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The synchronous fallback every engine shares (the table is engines.c). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include "formats/event.h"
#include "replay/engine/engine.h"

int engine_exec_sync(const struct engine_target *t, const struct replay_io *io)
{
	struct iovec iov = { .iov_base = io->buf, .iov_len = io->len };
	uint64_t range[2] = { io->offset, io->len };
	ssize_t n;

	switch (io->op) {
	case IO_OP_READ:
		n = pread(t->fd, io->buf, io->len, (off_t)io->offset);
		break;
	case IO_OP_WRITE:
		n = pwritev2(t->fd, &iov, 1, (off_t)io->offset, engine_rw_flags(io));
		break;
	case IO_OP_FLUSH:
		n = fdatasync(t->fd);
		break;
	case ENGINE_OP_FSYNC:
		n = fsync(t->fd);
		break;
	case ENGINE_OP_SYNC_RANGE:
		n = sync_file_range(t->fd, (off_t)io->offset, (off_t)io->arg, io->aux);
		break;
	case ENGINE_OP_FALLOCATE:
		n = fallocate(t->fd, (int)io->aux, (off_t)io->offset, (off_t)io->arg);
		break;
	case IO_OP_DISCARD:
		if (t->is_blk)
			n = ioctl(t->fd, BLKDISCARD, range);
		else
			n = fallocate(t->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				      (off_t)io->offset, io->len);
		break;
	case IO_OP_WRITE_ZEROES:
		if (t->is_blk)
			n = ioctl(t->fd, BLKZEROOUT, range);
		else
			n = fallocate(t->fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
				      (off_t)io->offset, io->len);
		break;
	default:
		return -EINVAL;
	}
	if (n < 0)
		return -errno;
	/* flush/discard/zeroes report success as 0: count the whole range done */
	return io->op == IO_OP_READ || io->op == IO_OP_WRITE ? (int)n : (int)io->len;
}
