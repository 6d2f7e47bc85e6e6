// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The synchronous fallback every engine shares (the table is engines.c). */
#include <errno.h>
#include <sched.h>
#include <time.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include "formats/event.h"
#include "replay/engine/engine.h"
#include "util/cli.h"
#include "util/thread.h"

void engine_cpu_clock_open(struct engine_cpu_clock *c, bool on)
{
	*c = (struct engine_cpu_clock){ .fd = on ? open("/proc/thread-self/schedstat",
							 O_RDONLY | O_CLOEXEC) : -1 };
	/* engine_cpu_wait_more's sleeps end when asked, not up to 50 us later */
	if (on)
		prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
}

void engine_cpu_clock_close(struct engine_cpu_clock *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/* The thread's time on a CPU and its run-queue wait so far, ns; false when unreadable. */
static bool cpu_clock_read(struct engine_cpu_clock *c, uint64_t *on, uint64_t *wait)
{
	char b[96];
	unsigned long long x, y;
	ssize_t n = pread(c->fd, b, sizeof(b) - 1, 0);

	if (n <= 0)
		return false;
	b[n] = '\0';
	if (sscanf(b, "%llu %llu", &x, &y) != 2)
		return false;
	*on = x;
	*wait = y;
	return true;
}

void engine_cpu_clock_before(struct engine_cpu_clock *c, struct replay_io *io)
{
	uint64_t on, wait;

	io->oncpu_ns = 0;
	io->cpuwait_ns = 0;
	if (c->fd < 0 || !cpu_clock_read(c, &on, &wait)) {
		c->last_on = 0;
		return;
	}
	c->wait0 = wait + 1;
	/* as a recording: unknown for the thread's first call (0), at least 1 after */
	if (c->last_on)
		io->oncpu_ns = on > c->last_on ? on - c->last_on : 1;
}

void engine_cpu_clock_after(struct engine_cpu_clock *c, struct replay_io *io)
{
	uint64_t on, wait, w;

	if (c->fd < 0 || !c->wait0 || !cpu_clock_read(c, &on, &wait)) {
		io->oncpu_ns = 0;
		c->last_on = 0;
		return;
	}
	w = wait + 1 > c->wait0 ? wait + 1 - c->wait0 : 0;
	io->cpuwait_ns = w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
	c->wait0 = 0;
	c->last_on = on ? on : 1;
}

/* Steps of at most this: a signal reaches one thread, and the others look at the flags. */
#define SLEEP_STEP_NS 2000000ull

void engine_sleep_until(uint64_t until, const volatile bool *stop,
			const volatile sig_atomic_t *cancel)
{
	uint64_t now;

	while (!flag_up(stop) && !(cancel && *cancel) && (now = now_mono_ns()) < until) {
		uint64_t wake = until - now > SLEEP_STEP_NS ? now + SLEEP_STEP_NS : until;
		struct timespec ts = { (time_t)(wake / 1000000000ull),
				       (long)(wake % 1000000000ull) };

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

/*
 * Why sleep and owe rather than spin: a wait for a CPU is time the thread is runnable while
 * others run, so the replay's thread should leave the CPU to the others. But a 1 ns-slack
 * sleep wakes 40-60 us late at the median on this 2-core VM, while a pgbench read waits 17 us
 * for a CPU on average: sleeping each call's wait ran the replay's reads 22 % over the real
 * ones (bench/predict_fs.sh, xfs onto xfs), and yielding in a loop took the CPU the kernel's
 * threads needed. So each thread owes its waits, sleeps once it owes more than its sleeps'
 * lateness (aiming that much early), and carries what it waited over or under to the next.
 */
#define WAIT_LATE_INIT_NS 50000
#define WAIT_SLEEP_MIN_NS 10000
#define WAIT_CREDIT_MAX_NS 1000000
#define WAIT_LATE_MAX_NS 200000 /* one wake-up held up by the hypervisor is not the rule */

void engine_cpu_wait_more(struct engine_cpu_clock *c, struct replay_io *io,
			  const volatile sig_atomic_t *cancel)
{
	uint64_t t0, now, target;

	io->wait_added_ns = 0;
	if (!io->wait_rec)
		return;
	if (!c->late_est)
		c->late_est = WAIT_LATE_INIT_NS;
	/* what it waited over the recorded counts too, so that the replay's waits add up to the
	 * recorded ones; not beyond a millisecond, so that one busy phase of the replay does not
	 * take the waits out of the next */
	c->owed += (int64_t)io->wait_ns - (int64_t)io->cpuwait_ns;
	if (c->owed < -WAIT_CREDIT_MAX_NS)
		c->owed = -WAIT_CREDIT_MAX_NS;
	if (c->owed < (int64_t)(c->late_est + WAIT_SLEEP_MIN_NS) || (cancel && *cancel))
		return;
	t0 = now_mono_ns();
	target = t0 + (uint64_t)c->owed - c->late_est;
	engine_sleep_until(target, NULL, cancel);
	now = now_mono_ns();
	if (now > target) /* how late this sleep woke, into the average (1/8 weight) */
		c->late_est = (7 * c->late_est +
			       (now - target < WAIT_LATE_MAX_NS ? now - target : WAIT_LATE_MAX_NS)) / 8;
	io->complete_ns = now;
	io->wait_added_ns = (uint32_t)(now - t0);
	c->owed -= (int64_t)(now - t0);
	io->cpuwait_ns += io->wait_added_ns;
}

void engine_call_sync(const struct engine_target *t, const struct engine_names *names,
		      struct engine_cpu_clock *c, struct replay_io *io,
		      const volatile sig_atomic_t *cancel)
{
	engine_cpu_clock_before(c, io);
	io->began_ns = now_mono_ns();
	if (io->op == ENGINE_OP_NAME)
		io->res = names && names->call ? names->call(names->ctx, io) : -EINVAL;
	else
		io->res = engine_exec_sync(t, io);
	io->complete_ns = now_mono_ns();
	engine_cpu_clock_after(c, io);
	engine_cpu_wait_more(c, io, cancel);
}

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

int engine_cq_init(struct engine_cq *q, pthread_mutex_t *lock, unsigned int cap)
{
	pthread_condattr_t ca;

	q->lock = lock;
	q->cap = cap;
	q->head = q->tail = q->n = 0;
	q->ring = calloc(cap, sizeof(*q->ring));
	if (!q->ring)
		return -ENOMEM;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->done_cv, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
}

void engine_cq_free(struct engine_cq *q)
{
	if (q->ring)
		pthread_cond_destroy(&q->done_cv);
	free(q->ring);
	q->ring = NULL;
}

void engine_cq_push_quiet(struct engine_cq *q, struct replay_io *io)
{
	q->ring[q->tail] = io;
	q->tail = (q->tail + 1) % q->cap;
	__atomic_add_fetch(&q->n, 1, __ATOMIC_RELEASE);
}

void engine_cq_push(struct engine_cq *q, struct replay_io *io)
{
	engine_cq_push_quiet(q, io);
	pthread_cond_signal(&q->done_cv);
}

int engine_cq_reap(struct engine_cq *q, struct replay_io **done, unsigned int max,
		   uint64_t timeout_ns)
{
	unsigned int n = 0;

	if (!__atomic_load_n(&q->n, __ATOMIC_ACQUIRE) && !timeout_ns)
		return 0;
	pthread_mutex_lock(q->lock);
	if (q->head == q->tail && timeout_ns) {
		uint64_t until = now_mono_ns() + timeout_ns;
		struct timespec ts = { (time_t)(until / 1000000000ULL),
				       (long)(until % 1000000000ULL) };

		while (q->head == q->tail &&
		       pthread_cond_timedwait(&q->done_cv, q->lock, &ts) != ETIMEDOUT)
			;
	}
	while (n < max && q->head != q->tail) {
		done[n++] = q->ring[q->head];
		q->head = (q->head + 1) % q->cap;
	}
	__atomic_sub_fetch(&q->n, n, __ATOMIC_RELEASE);
	pthread_mutex_unlock(q->lock);
	return (int)n;
}
