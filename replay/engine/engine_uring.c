// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * io_uring: registered files and one registered buffer (the whole buffer arena), all I/Os due
 * in the same instant go out in one io_uring_submit, completions are peeked from the CQ ring
 * without a syscall. No SQPOLL: on a 2-core machine its poller thread would fight the
 * scheduler's spinning thread for a core. No DEFER_TASKRUN either: it posts completions only
 * when we enter the kernel, which would delay their timestamps while we spin.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <liburing.h>
#include "formats/file.h"
#include "formats/event.h"
#include "replay/engine/engine.h"

/* Linux 6.12, include/uapi/linux/fs.h: async discard as an io_uring command on a block device */
#ifndef BLOCK_URING_CMD_DISCARD
#define BLOCK_URING_CMD_DISCARD _IO(0x12, 0)
#endif

struct engine {
	struct io_uring ring;
	const struct engine_target *targets;
	unsigned int ntargets;
	bool plain_fds;	  /* descriptors change (file level): not registered, read per I/O */
	bool fixed_bufs;  /* the arena is registered (io_uring takes at most 1 GiB in one) */
	bool discard_cmd; /* BLOCK_URING_CMD_DISCARD works; cleared on first -EOPNOTSUPP/-EINVAL */
	/* I/Os done synchronously (discard without the command), handed out by the next reap */
	struct replay_io **sync_done;
	unsigned int nsync, sync_cap;
};

static struct engine *uring_init(const struct engine_params *p, char *why, size_t why_len)
{
	struct io_uring_params up = { 0 };
	struct engine *e = calloc(1, sizeof(*e));
	int fds[64], ret;
	unsigned int entries = 1;

	if (!e)
		return NULL;
	while (entries < p->depth && entries < 32768)
		entries <<= 1;
	up.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SINGLE_ISSUER;
	up.cq_entries = entries * 2;
	ret = io_uring_queue_init_params(entries, &e->ring, &up);
	if (ret == -EINVAL) { /* kernels before 6.0 lack SINGLE_ISSUER */
		memset(&up, 0, sizeof(up));
		up.flags = IORING_SETUP_CQSIZE;
		up.cq_entries = entries * 2;
		ret = io_uring_queue_init_params(entries, &e->ring, &up);
	}
	if (ret < 0) {
		snprintf(why, why_len, "io_uring_queue_init(%u entries): %s", entries, strerror(-ret));
		free(e);
		errno = -ret;
		return NULL;
	}
	e->targets = p->targets;
	e->ntargets = p->ntargets;
	e->plain_fds = p->fds_change;
	for (unsigned int i = 0; i < p->ntargets && i < 64; i++)
		fds[i] = p->targets[i].fd;
	ret = e->plain_fds ? 0 : io_uring_register_files(&e->ring, fds, p->ntargets);
	e->fixed_bufs = p->arena_len && p->arena_len <= (1UL << 30);
	if (!ret && e->fixed_bufs) {
		struct iovec iov = { .iov_base = p->arena, .iov_len = p->arena_len };

		ret = io_uring_register_buffers(&e->ring, &iov, 1);
	}
	if (ret < 0) {
		snprintf(why, why_len, "io_uring register files/buffers (%zu bytes): %s",
			 p->arena_len, strerror(-ret));
		io_uring_queue_exit(&e->ring);
		free(e);
		errno = -ret;
		return NULL;
	}
	/*
	 * What cannot complete inline (fsync always, writes to a device that refuses NOWAIT, all of
	 * zram) goes to io-wq, whose bounded pool defaults to 4 workers per CPU: 8 here. A trace
	 * with thousands of flushes a second then queues behind 8 fsyncs and falls seconds behind
	 * (seen on a pgbench trace replayed to a loop device). Let io-wq run as many as we allow in
	 * flight, as the original kernel did.
	 */
	{
		unsigned int workers[2] = { p->depth, p->depth };

		(void)io_uring_register_iowq_max_workers(&e->ring, workers);
	}
	/* the first submit of a task allocates its io_uring context: pay that now, not on the
	 * first deadline (it made the first I/O ~70 us late, and every I/O is timed from it) */
	{
		struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);
		struct io_uring_cqe *cqe;

		io_uring_prep_nop(sqe);
		io_uring_sqe_set_data(sqe, NULL);
		if (io_uring_submit_and_wait(&e->ring, 1) == 1 && !io_uring_peek_cqe(&e->ring, &cqe))
			io_uring_cqe_seen(&e->ring, cqe);
	}
	e->discard_cmd = true;
	e->sync_cap = p->depth;
	e->sync_done = calloc(e->sync_cap, sizeof(*e->sync_done));
	if (!e->sync_done) {
		io_uring_queue_exit(&e->ring);
		free(e);
		errno = ENOMEM;
		return NULL;
	}
	return e;
}

static bool is_writeback(const struct engine_target *t, const struct replay_io *io)
{
	return io->op == IO_OP_WRITE && (io->flags & ENGINE_F_WRITEBACK) && t->wb_fd >= 0;
}

/* A write's first half (the page cache write) whose CQE came: it failed (only a failure posts
 * one, IOSQE_CQE_SKIP_SUCCESS), and its linked sync_file_range will come -ECANCELED. */
#define WB_FIRST_HALF 1ul

/*
 * A write as the kernel's writeback makes it (engine.h, ENGINE_F_WRITEBACK): a buffered write to
 * the target's wb_fd linked to sync_file_range(WRITE | WAIT_AFTER) of its range, both in
 * io-wq as a writeback would be in a kworker; one CQE, the second's, unless the first fails.
 */
static int uring_queue_writeback(struct engine *e, const struct engine_target *t,
				 struct replay_io *io)
{
	struct io_uring_sqe *sqe;

	/* two entries where the ring has one per I/O in flight: a full batch of these is handed
	 * to the kernel early (its entries are then free) rather than refused */
	if (io_uring_sq_space_left(&e->ring) < 2 && io_uring_submit(&e->ring) < 0)
		return -EBUSY;
	if (io_uring_sq_space_left(&e->ring) < 2)
		return -EBUSY;
	io->res = 0;
	sqe = io_uring_get_sqe(&e->ring);
	if (e->fixed_bufs)
		io_uring_prep_write_fixed(sqe, t->wb_fd, io->buf, io->len, io->offset, 0);
	else
		io_uring_prep_write(sqe, t->wb_fd, io->buf, io->len, io->offset);
	sqe->flags |= IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS;
	io_uring_sqe_set_data(sqe, (void *)((uintptr_t)io | WB_FIRST_HALF));
	sqe = io_uring_get_sqe(&e->ring);
	io_uring_prep_sync_file_range(sqe, t->wb_fd, io->len, io->offset,
				      SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
	io_uring_sqe_set_data(sqe, io);
	return 0;
}

static int uring_queue(struct engine *e, struct replay_io *io)
{
	const struct engine_target *t = &e->targets[io->dev];
	int fd = e->plain_fds ? t->fd : (int)io->dev;
	struct io_uring_sqe *sqe;

	/* what io_uring cannot take as asked is done now, as AIO does it */
	if ((io->op == IO_OP_DISCARD && t->is_blk && !e->discard_cmd) ||
	    (io->op == ENGINE_OP_SYNC_RANGE && io->arg > UINT32_MAX)) {
		if (e->nsync >= e->sync_cap)
			return -EBUSY;
		io->res = engine_exec_sync(t, io);
		e->sync_done[e->nsync++] = io;
		return 0;
	}
	if (is_writeback(t, io))
		return uring_queue_writeback(e, t, io);
	sqe = io_uring_get_sqe(&e->ring);
	if (!sqe)
		return -EBUSY;
	switch (io->op) {
	case IO_OP_READ:
		if (e->fixed_bufs)
			io_uring_prep_read_fixed(sqe, fd, io->buf, io->len, io->offset, 0);
		else
			io_uring_prep_read(sqe, fd, io->buf, io->len, io->offset);
		sqe->rw_flags = engine_rw_flags(io);
		break;
	case IO_OP_WRITE:
		if (e->fixed_bufs)
			io_uring_prep_write_fixed(sqe, fd, io->buf, io->len, io->offset, 0);
		else
			io_uring_prep_write(sqe, fd, io->buf, io->len, io->offset);
		sqe->rw_flags = engine_rw_flags(io);
		break;
	case IO_OP_FLUSH:
		io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
		/* with writes made as writeback in the device's page cache, a flush of its first
		 * byte only: blkdev_fsync writes back and waits for the range it is given, then
		 * sends the empty preflush. The whole device's would wait for every async write in
		 * flight (a recorded preflush does not), and under blk-throttle it held the
		 * replay's commits 50 ms each (bench/predict.sh, stack C). */
		if (t->wb_fd >= 0 && t->is_blk)
			sqe->len = 1;
		break;
	case ENGINE_OP_FSYNC:
		io_uring_prep_fsync(sqe, fd, 0);
		break;
	case ENGINE_OP_SYNC_RANGE:
		io_uring_prep_sync_file_range(sqe, fd, (unsigned int)io->arg, io->offset,
					      (int)io->aux);
		break;
	case ENGINE_OP_FALLOCATE:
		io_uring_prep_fallocate(sqe, fd, (int)io->aux, (off_t)io->offset, (off_t)io->arg);
		break;
	case IO_OP_DISCARD:
		if (t->is_blk) {
			io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
			sqe->cmd_op = BLOCK_URING_CMD_DISCARD;
			sqe->addr = io->offset;
			sqe->addr3 = io->len;
		} else {
			io_uring_prep_fallocate(sqe, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
						io->offset, io->len);
		}
		break;
	case IO_OP_WRITE_ZEROES:
		/* blkdev_fallocate turns ZERO_RANGE into blkdev_issue_zeroout */
		io_uring_prep_fallocate(sqe, fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
					io->offset, io->len);
		break;
	default:
		return -EINVAL;
	}
	if (!e->plain_fds)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, io);
	return 0;
}

static int uring_submit(struct engine *e)
{
	int ret;

	do
		ret = io_uring_submit(&e->ring);
	while (ret == -EINTR);
	/* the kernel could not take them now (completions it holds in overflow, memory): they
	 * stay in the SQ ring and go with the next submit, or before uring_reap waits */
	return ret == -EAGAIN || ret == -EBUSY ? 0 : ret;
}

static void uring_complete(struct engine *e, struct replay_io *io, int res)
{
	const struct engine_target *t = &e->targets[io->dev];

	if (io->op == IO_OP_DISCARD && t->is_blk && (res == -EOPNOTSUPP || res == -EINVAL) &&
	    e->discard_cmd) {
		/* a kernel before 6.12 has no discard command: do this one and the next ones
		 * synchronously, as BLKDISCARD */
		e->discard_cmd = false;
		res = engine_exec_sync(t, io);
	} else if (is_writeback(t, io)) {
		/* the sync_file_range's: 0, or cancelled after its write failed (io->res) */
		res = res == -ECANCELED && io->res < 0 ? io->res : res < 0 ? res : (int)io->len;
	} else if (res >= 0 && io->op != IO_OP_READ && io->op != IO_OP_WRITE) {
		res = (int)io->len;
	}
	io->res = res;
}

static int uring_reap(struct engine *e, struct replay_io **done, unsigned int max,
		      uint64_t timeout_ns)
{
	struct io_uring_cqe *cqe;
	unsigned int n = 0, head, seen = 0;

	while (e->nsync && n < max)
		done[n++] = e->sync_done[--e->nsync];
	/* a wait does not submit (IORING_ENTER_EXT_ARG): what a refused submit left in the SQ
	 * ring would never complete, and the scheduler's drain would wait for it for ever */
	if (io_uring_sq_ready(&e->ring)) {
		int ret = uring_submit(e);

		if (ret < 0)
			return ret;
	}
	if (!n && timeout_ns) {
		struct __kernel_timespec ts = { .tv_sec = (long long)(timeout_ns / 1000000000ULL),
						.tv_nsec = (long long)(timeout_ns % 1000000000ULL) };
		int ret = io_uring_wait_cqe_timeout(&e->ring, &cqe, &ts);

		if (ret < 0 && ret != -ETIME && ret != -EINTR)
			return ret;
	}
	io_uring_for_each_cqe(&e->ring, head, cqe) {
		struct replay_io *io;

		if (n >= max)
			break;
		io = io_uring_cqe_get_data(cqe);
		seen++;
		if (!io)
			continue;
		if ((uintptr_t)io & WB_FIRST_HALF) {
			io = (struct replay_io *)((uintptr_t)io & ~WB_FIRST_HALF);
			io->res = cqe->res < 0 ? cqe->res : -EIO; /* short: the link is broken */
			continue;
		}
		uring_complete(e, io, cqe->res);
		done[n++] = io;
	}
	io_uring_cq_advance(&e->ring, seen);
	return (int)n;
}

static void uring_exit(struct engine *e)
{
	/*
	 * A registered file is let go when the ring is freed, by a kernel worker after the ring's
	 * close returns (or the process exits): the target's last reference, and with it its
	 * O_EXCL claim, outlived the replay, and the next replay onto the device failed with
	 * EBUSY one run in two. Unregistered here, the files go now, and the target's close
	 * releases the claim.
	 */
	if (!e->plain_fds)
		(void)io_uring_unregister_files(&e->ring);
	io_uring_queue_exit(&e->ring);
	free(e->sync_done);
	free(e);
}

const struct engine_ops engine_uring_ops = {
	.name = "io_uring",
	.file_iface = IO_FIF_URING,
	.init = uring_init,
	.queue = uring_queue,
	.submit = uring_submit,
	.reap = uring_reap,
	.exit = uring_exit,
};
