// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The consumer side of the per-CPU rings of completed I/Os (the protocol is in bpf/record.h,
 * the producers are ring_out() in bpf/record.bpf.c and emit() in bpf/file.bpf.c, whose records
 * are larger): both BPF arrays mmap()ed, each CPU's
 * records read in position order while they are published, then the CPU's tail stored so
 * the producer may reuse them.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include "record/record_int.h"

/* A record claimed but never published for this long is a hole (a program that failed between
 * claim and publish, which should not happen): it is skipped and counted as a drop, so one
 * bad record cannot stop the recording. A program runs for microseconds, not seconds. */
#define HOLE_NS (1000ULL * 1000000ULL)

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static size_t page_round(size_t n)
{
	return (n + 4095) & ~(size_t)4095;
}

int rec_rings_open(int ctl_fd, int buf_fd, int ncpu, uint32_t shift, struct rec_rings *r)
{
	return rec_rings_open_sized(ctl_fd, buf_fd, ncpu, shift, sizeof(struct rec_rec), r);
}

int rec_rings_open_sized(int ctl_fd, int buf_fd, int ncpu, uint32_t shift, size_t rec_size,
			 struct rec_rings *r)
{
	*r = (struct rec_rings){ .ncpu = ncpu, .shift = shift, .rec_size = rec_size };
	r->ctl_len = page_round(sizeof(struct rec_ring_ctl) * (size_t)ncpu);
	r->buf_len = page_round(rec_size * ((size_t)ncpu << shift));
	r->ctl = mmap(NULL, r->ctl_len, PROT_READ | PROT_WRITE, MAP_SHARED, ctl_fd, 0);
	if (r->ctl == MAP_FAILED) {
		r->ctl = NULL;
		return -errno;
	}
	r->buf = mmap(NULL, r->buf_len, PROT_READ | PROT_WRITE, MAP_SHARED, buf_fd, 0);
	if (r->buf == MAP_FAILED) {
		int e = -errno;

		r->buf = NULL;
		rec_rings_close(r);
		return e;
	}
	r->stuck_since = calloc(ncpu, sizeof(*r->stuck_since));
	if (!r->stuck_since) {
		rec_rings_close(r);
		return -ENOMEM;
	}
	return 0;
}

void rec_rings_close(struct rec_rings *r)
{
	if (r->ctl)
		munmap(r->ctl, r->ctl_len);
	if (r->buf)
		munmap(r->buf, r->buf_len);
	free(r->stuck_since);
	*r = (struct rec_rings){ 0 };
}

/* Hands one CPU's published records (their payload, after seq) to sink, oldest first.
 * Returns 0, or the sink's -errno (the record it refused stays in the ring for the next pass);
 * *fill gets what was waiting. */
static int drain_cpu(struct rec_rings *r, int cpu, rec_sink_fn sink, void *ctx,
		     uint64_t *fill)
{
	struct rec_ring_ctl *c = &r->ctl[cpu];
	uint8_t *ring = (uint8_t *)r->buf + (((size_t)cpu << r->shift) * r->rec_size);
	uint64_t mask = (1ULL << r->shift) - 1, tail = c->tail;
	uint64_t head = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
	int err = 0;

	*fill = head - tail;
	while (tail != head) {
		uint8_t *rec = ring + (tail & mask) * r->rec_size;

		if (__atomic_load_n((uint64_t *)rec, __ATOMIC_ACQUIRE) != tail + 1) {
			/* Claimed, not yet published (a program on that CPU is filling it, or one
			 * it interrupted is): read it next time, unless it has been a hole for long. */
			uint64_t now = mono_ns();

			if (!r->stuck_since[cpu]) {
				r->stuck_since[cpu] = now;
				break;
			}
			if (now - r->stuck_since[cpu] < HOLE_NS)
				break;
			r->holes++;
		} else {
			err = sink(ctx, rec + sizeof(uint64_t));
			if (err)
				break;
		}
		r->stuck_since[cpu] = 0;
		tail++;
	}
	__atomic_store_n(&c->tail, tail, __ATOMIC_RELEASE);
	return err;
}

int rec_rings_drain(struct rec_rings *r, rec_sink_fn sink, void *ctx, double *fullest)
{
	uint64_t most = 0;
	int err = 0;

	for (int cpu = 0; cpu < r->ncpu && !err; cpu++) {
		uint64_t fill;

		err = drain_cpu(r, cpu, sink, ctx, &fill);
		if (fill > most)
			most = fill;
	}
	if (fullest)
		*fullest = (double)most / (double)(1ULL << r->shift);
	return err;
}
