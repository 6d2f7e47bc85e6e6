// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * InnoDB's I/O pattern, for tests/integration/record_file_innodb.sh: a data file opened without
 * O_DIRECT and switched to it with fcntl(F_SETFL) (MariaDB's os_file_set_nocache()), 16 KiB page
 * writes and reads submitted in batches through libaio (reaped by another thread with
 * io_getevents, as MariaDB's tpool does) or io_uring, fdatasync of the data file, and a redo log
 * written sequentially with buffered writes and fdatasync. Prints what it asked, one line per
 * call: "PATH OP OFFSET LENGTH" (OP read, write, fsync, fdatasync), to compare with a trace.
 *
 * usage: innodb_like DIR aio|uring
 */
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE 16384
#define PAGES 256 /* a 4 MiB data file */
#define BATCH 8
#define ROUNDS 16

static io_context_t ctx;
static int reaped, want_reaped;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;

static void die(const char *what, int err)
{
	fprintf(stderr, "innodb_like: %s: %s\n", what, strerror(err));
	exit(1);
}

/* MariaDB reaps in its own thread (tpool::aio_linux::getevent_thread_routine). */
static void *reaper(void *arg)
{
	struct io_event ev[BATCH];

	(void)arg;
	for (;;) {
		int n = io_getevents(ctx, 1, BATCH, ev, NULL);

		if (n < 0 && n != -EINTR)
			die("io_getevents", -n);
		for (int i = 0; i < n; i++)
			if ((long)ev[i].res != PAGE)
				die("an aio request",
				    (long)ev[i].res < 0 ? -(int)(long)ev[i].res : EIO);
		pthread_mutex_lock(&lock);
		reaped += n > 0 ? n : 0;
		pthread_cond_broadcast(&done);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void batch_aio(int fd, const char *path, char *buf, int write, unsigned int *seed)
{
	struct iocb cb[BATCH], *cbp[BATCH];

	for (int i = 0; i < BATCH; i++) {
		long long off = (long long)(rand_r(seed) % PAGES) * PAGE;

		if (write)
			io_prep_pwrite(&cb[i], fd, buf + i * PAGE, PAGE, off);
		else
			io_prep_pread(&cb[i], fd, buf + i * PAGE, PAGE, off);
		cbp[i] = &cb[i];
		printf("%s %s %lld %d\n", path, write ? "write" : "read", off, PAGE);
	}
	pthread_mutex_lock(&lock);
	want_reaped += BATCH;
	pthread_mutex_unlock(&lock);
	if (io_submit(ctx, BATCH, cbp) != BATCH)
		die("io_submit", EIO);
	pthread_mutex_lock(&lock);
	while (reaped < want_reaped)
		pthread_cond_wait(&done, &lock);
	pthread_mutex_unlock(&lock);
}

static void batch_uring(struct io_uring *ring, int fd, const char *path, char *buf, int write,
			unsigned int *seed)
{
	struct io_uring_cqe *cqe;

	for (int i = 0; i < BATCH; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
		long long off = (long long)(rand_r(seed) % PAGES) * PAGE;

		if (write)
			io_uring_prep_write(sqe, fd, buf + i * PAGE, PAGE, off);
		else
			io_uring_prep_read(sqe, fd, buf + i * PAGE, PAGE, off);
		printf("%s %s %lld %d\n", path, write ? "write" : "read", off, PAGE);
	}
	if (io_uring_submit(ring) != BATCH)
		die("io_uring_submit", EIO);
	for (int i = 0; i < BATCH; i++) {
		int err = io_uring_wait_cqe(ring, &cqe);

		if (err)
			die("io_uring_wait_cqe", -err);
		if (cqe->res != PAGE)
			die("an io_uring request", cqe->res < 0 ? -cqe->res : EIO);
		io_uring_cqe_seen(ring, cqe);
	}
}

int main(int argc, char **argv)
{
	char data[4096], logp[4096], *buf, logbuf[512];
	struct io_uring ring;
	unsigned int seed = 42;
	int uring, fd, log, err;
	pthread_t t;

	if (argc != 3 || (strcmp(argv[2], "aio") && strcmp(argv[2], "uring"))) {
		fprintf(stderr, "usage: innodb_like DIR aio|uring\n");
		return 2;
	}
	uring = !strcmp(argv[2], "uring");
	snprintf(data, sizeof(data), "%s/ibdata1", argv[1]);
	snprintf(logp, sizeof(logp), "%s/ib_logfile0", argv[1]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (posix_memalign((void **)&buf, 4096, BATCH * PAGE))
		die("posix_memalign", ENOMEM);
	memset(buf, 'i', BATCH * PAGE);
	memset(logbuf, 'r', sizeof(logbuf));

	/* os_file_create(): O_RDWR, then os_file_set_nocache() turns O_DIRECT on */
	fd = open(data, O_RDWR | O_CREAT | O_CLOEXEC, 0660);
	if (fd < 0)
		die(data, errno);
	if (ftruncate(fd, (off_t)PAGES * PAGE))
		die("ftruncate", errno);
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_DIRECT))
		die("fcntl(F_SETFL, O_DIRECT)", errno);
	log = open(logp, O_RDWR | O_CREAT | O_CLOEXEC, 0660);
	if (log < 0)
		die(logp, errno);

	if (uring) {
		err = io_uring_queue_init(64, &ring, 0);
		if (err)
			die("io_uring_queue_init", -err);
	} else {
		err = io_setup(64, &ctx);
		if (err)
			die("io_setup", -err);
		err = pthread_create(&t, NULL, reaper, NULL);
		if (err)
			die("pthread_create", err);
	}
	for (int r = 0; r < ROUNDS; r++) {
		if (uring)
			batch_uring(&ring, fd, data, buf, r % 2, &seed);
		else
			batch_aio(fd, data, buf, r % 2, &seed);
		/* the redo log: appended, then made durable */
		if (pwrite(log, logbuf, sizeof(logbuf), (off_t)r * sizeof(logbuf)) !=
		    sizeof(logbuf))
			die("log write", errno);
		printf("%s write %zu %zu\n", logp, r * sizeof(logbuf), sizeof(logbuf));
		if (fdatasync(log))
			die("log fdatasync", errno);
		printf("%s fdatasync 0 0\n", logp);
		if (r % 4 == 3) {
			if (fdatasync(fd))
				die("data fdatasync", errno);
			printf("%s fdatasync 0 0\n", data);
		}
	}
	if (fsync(fd))
		die("data fsync", errno);
	printf("%s fsync 0 0\n", data);
	return 0;
}
