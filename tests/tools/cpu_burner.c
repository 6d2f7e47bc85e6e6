// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A workload whose CPU is known (tests/record_cpu.sh): N times, burns BURN_US microseconds of
 * its own thread's CPU time, then reads 4 KiB from FILE (with O_DIRECT when asked, so the read
 * reaches the block layer). The recorder must find BURN_US of on-CPU time before each read.
 * With "waits", it also prints how long it waited for a CPU inside its reads, all told, from
 * the scheduler's count (/proc/thread-self/schedstat, read around each read): what the
 * recorder's per-call wait must add up to.
 * With "cycles", it prints the median of its thread's CPU time per cycle (one burn and one
 * read, from a read's return to the next's): what the thread really used between two I/Os,
 * the burn plus the read's own path, which costs more when reads are spaced out (the loop
 * device's worker has gone to sleep and must be woken) than back to back.
 * Usage: cpu_burner FILE BURN_US N [direct] [waits] [cycles]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The thread's run-queue wait so far (schedstat's second field), ns; -1 when unreadable. */
static long long run_delay(int fd)
{
	char b[128];
	long long on, wait;
	ssize_t n = pread(fd, b, sizeof(b) - 1, 0);

	if (n <= 0)
		return -1;
	b[n] = '\0';
	return sscanf(b, "%lld %lld", &on, &wait) == 2 ? wait : -1;
}

static long long thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	void *buf;
	long long burn, n, waited = 0;
	long long *cycle = NULL, last = 0;
	int fd, sfd = -1, direct = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: cpu_burner FILE BURN_US N [direct] [waits]\n");
		return 2;
	}
	burn = atoll(argv[2]) * 1000;
	n = atoll(argv[3]);
	for (int a = 4; a < argc; a++) {
		direct |= !strcmp(argv[a], "direct");
		if (!strcmp(argv[a], "cycles") && n > 1 && !(cycle = calloc(n, sizeof(*cycle)))) {
			perror("calloc");
			return 1;
		}
		if (!strcmp(argv[a], "waits") && (sfd = open("/proc/thread-self/schedstat",
							      O_RDONLY)) < 0) {
			perror("/proc/thread-self/schedstat");
			return 1;
		}
	}
	fd = open(argv[1], O_RDONLY | (direct ? O_DIRECT : 0));
	if (fd < 0 || posix_memalign(&buf, 4096, 4096)) {
		perror(argv[1]);
		return 1;
	}
	for (long long i = 0; i < n; i++) {
		long long until = thread_ns() + burn;
		volatile unsigned long x = 0;

		long long w0;

		while (thread_ns() < until)
			x++;
		w0 = sfd >= 0 ? run_delay(sfd) : 0;
		if (pread(fd, buf, 4096, (i % 256) * 4096) < 0) {
			perror("pread");
			return 1;
		}
		if (sfd >= 0)
			waited += run_delay(sfd) - w0;
		if (cycle) {
			long long t = thread_ns();

			if (i)
				cycle[i - 1] = t - last;
			last = t;
		}
	}
	close(fd);
	if (sfd >= 0)
		printf("waited %lld\n", waited);
	if (cycle) {
		qsort(cycle, n - 1, sizeof(*cycle), cmp_ll);
		printf("cycle_p50 %lld\n", cycle[(n - 1) / 2]);
	}
	return 0;
}
