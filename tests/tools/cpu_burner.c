// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A workload whose CPU is known (tests/record_cpu.sh): N times, burns BURN_US microseconds of
 * its own thread's CPU time, then reads 4 KiB from FILE (with O_DIRECT when asked, so the read
 * reaches the block layer). The recorder must find BURN_US of on-CPU time before each read.
 * Usage: cpu_burner FILE BURN_US N [direct]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	void *buf;
	long long burn, n;
	int fd;

	if (argc < 4) {
		fprintf(stderr, "usage: cpu_burner FILE BURN_US N [direct]\n");
		return 2;
	}
	burn = atoll(argv[2]) * 1000;
	n = atoll(argv[3]);
	fd = open(argv[1], O_RDONLY | (argc > 4 && !strcmp(argv[4], "direct") ? O_DIRECT : 0));
	if (fd < 0 || posix_memalign(&buf, 4096, 4096)) {
		perror(argv[1]);
		return 1;
	}
	for (long long i = 0; i < n; i++) {
		long long until = thread_ns() + burn;
		volatile unsigned long x = 0;

		while (thread_ns() < until)
			x++;
		if (pread(fd, buf, 4096, (i % 256) * 4096) < 0) {
			perror("pread");
			return 1;
		}
	}
	close(fd);
	return 0;
}
