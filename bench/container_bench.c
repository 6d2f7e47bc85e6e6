// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Container benchmark helper (driven by bench/container.sh; prints figures, never judges).
 *   container_bench encode PATTERN N FILE [FIO_TXT]   write N generated events, time the writer
 *   container_bench decode FILE                       time the reader (median of 5 passes)
 * PATTERN: a   4 KiB uniform random reads over 1 GiB, Poisson 100k IOPS, ns queue/issue/
 *              completion (issue 5-50 us after queue, completion 20-200 us after issue)
 *          b   4 MiB sequential reads, Poisson 250 IOPS (1 GB/s), same kind of ns times
 *          bq  4 MiB sequential, Poisson 250 IOPS, queue time only, in whole us (what a fio v3
 *              import holds)
 * Only the trace_writer__add/close and trace_reader__next calls are timed, in thread CPU time
 * (open, and close's I/O wait, are not: the figures are for the codec on one core).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "formats/trace.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/*
 * Thread CPU time: the machine is shared, and the goals are per core, so time stolen by other
 * processes must not count. (Cache and memory-bandwidth contention still do.)
 */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long maxrss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static double expo(double mean)
{
	double u = ((rnd() >> 11) + 1) * (1.0 / 9007199254740993.0);

	return -log(u) * mean;
}

static void gen(char pat, struct io_event *e, size_t n, uint64_t *t, uint64_t *off)
{
	for (size_t i = 0; i < n; i++) {
		memset(&e[i], 0, sizeof(e[i]));
		e[i].op = IO_OP_READ;
		e[i].pid = e[i].tid = 4242;
		memcpy(e[i].comm, "fio", 4);
		if (pat == 'a') {
			*t += (uint64_t)llround(expo(10000.0));
			e[i].queue_ns = *t;
			e[i].issue_ns = *t + 5000 + rnd() % 45001;
			e[i].complete_ns = e[i].issue_ns + 20000 + rnd() % 180001;
			e[i].offset = (rnd() % (1u << 18)) * 4096;
			e[i].length = 4096;
		} else {
			if (pat == 'b') {
				*t += (uint64_t)llround(expo(4000000.0));
				e[i].queue_ns = *t;
				e[i].issue_ns = *t + 5000 + rnd() % 45001;
				e[i].complete_ns = e[i].issue_ns + 2000000 + rnd() % 2000001;
			} else {
				*t += (uint64_t)llround(expo(4000.0)) * 1000;
				e[i].queue_ns = *t;
				e[i].issue_ns = e[i].complete_ns = IO_TS_NONE;
			}
			e[i].offset = *off;
			e[i].length = 4 << 20;
			*off = (*off + (4 << 20)) % (1ull << 40);
		}
	}
}

static int encode(char pat, uint64_t n, const char *path, const char *fio)
{
	static struct io_event buf[4096];
	struct trace_meta m;
	struct trace_device d = { .name = "nullb0", .size_bytes = 1ull << 30,
				  .logical_block_size = 512, .physical_block_size = 4096 };
	struct trace_writer *w;
	uint64_t t = 0, off = 0, done = 0, bytes;
	double spent = 0, t0;
	FILE *f = NULL;
	int err = 0;

	trace_meta_init(&m, "bench");
	trace_meta_add_device(&m, &d);
	w = trace_writer__open(path, &m, NULL);
	if (!w) {
		perror(path);
		return 1;
	}
	if (fio) {
		f = fopen(fio, "w");
		if (!f) {
			perror(fio);
			return 1;
		}
		fprintf(f, "fio version 3 iolog\n/dev/nullb0 add\n/dev/nullb0 open\n");
	}
	while (done < n && !err) {
		size_t k = n - done < 4096 ? n - done : 4096;

		gen(pat, buf, k, &t, &off);
		t0 = now();
		err = trace_writer__add(w, buf, k);
		spent += now() - t0;
		for (size_t i = 0; f && i < k; i++)
			fprintf(f, "%llu /dev/nullb0 read %llu %u\n",
				(unsigned long long)(buf[i].queue_ns / 1000),
				(unsigned long long)buf[i].offset, buf[i].length);
		done += k;
	}
	bytes = trace_writer__bytes(w);
	t0 = now();
	err = err ?: trace_writer__close(w, NULL);
	spent += now() - t0;
	if (f) {
		fprintf(f, "/dev/nullb0 close\n");
		fclose(f);
	}
	if (err) {
		fprintf(stderr, "encode failed: %s\n", strerror(-err));
		return 1;
	}
	(void)bytes;
	{
		FILE *g = fopen(path, "rb");
		long size;

		fseek(g, 0, SEEK_END);
		size = ftell(g);
		fclose(g);
		printf("encode pattern=%c events=%llu file_bytes=%ld bytes_per_event=%.3f "
		       "encode_Mev_s=%.2f maxrss_kib=%ld\n",
		       pat, (unsigned long long)n, size, (double)size / n, n / spent / 1e6,
		       maxrss_kib());
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int decode(const char *path)
{
	static struct io_event buf[4096];
	double rates[5];
	uint64_t total = 0, sum = 0;
	char why[512];

	for (int pass = 0; pass < 5; pass++) {
		struct trace_reader *r = trace_reader__open(path, 0, why, sizeof(why));
		double t0;
		long n;

		if (!r) {
			fprintf(stderr, "%s\n", why);
			return 1;
		}
		total = 0;
		t0 = now();
		while ((n = trace_reader__next(r, buf, 4096)) > 0) {
			total += n;
			sum += buf[n - 1].offset; /* keep the work observable */
		}
		rates[pass] = total / (now() - t0) / 1e6;
		if (n < 0) {
			fprintf(stderr, "%s\n", trace_reader__error(r));
			return 1;
		}
		trace_reader__close(r);
	}
	qsort(rates, 5, sizeof(rates[0]), cmp_double);
	printf("decode events=%llu decode_Mev_s_median=%.2f (min %.2f max %.2f) maxrss_kib=%ld "
	       "check=%llu\n",
	       (unsigned long long)total, rates[2], rates[0], rates[4], maxrss_kib(),
	       (unsigned long long)(sum & 0xff));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "encode"))
		return encode(argv[2][0] == 'a' ? 'a' : argv[2][1] == 'q' ? 'q' : 'b',
			      strtoull(argv[3], NULL, 0), argv[4], argc > 5 ? argv[5] : NULL);
	if (argc == 3 && !strcmp(argv[1], "decode"))
		return decode(argv[2]);
	fprintf(stderr, "usage: container_bench encode a|b|bq N FILE [FIO_TXT]\n"
			"       container_bench decode FILE\n");
	return 2;
}
