// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Writes a synthetic trace for the analyze benchmark and tests: QD slots issuing 4k-128k
 * reads and writes (70/30) with a skewed latency, in time order, through the real trace writer.
 *   gen_trace OUT EVENTS [QD] [nocomp]
 * "nocomp" leaves issue and completion times out (as a synthesized trace has them).
 * Built by bench/analyze.sh and tests/integration/analyze_*.sh against build/libioreel.a.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/trace.h"

static uint64_t s = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return s;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: gen_trace OUT EVENTS [QD] [nocomp]\n");
		return 2;
	}
	uint64_t n = strtoull(argv[2], NULL, 0);
	unsigned int qd = argc > 3 ? (unsigned int)atoi(argv[3]) : 8;
	int nocomp = argc > 4 && !strcmp(argv[4], "nocomp");
	struct trace_meta *m = calloc(1, sizeof(*m));
	struct trace_device d = { .name = "gen0", .size_bytes = 64ULL << 30,
				  .logical_block_size = 512, .physical_block_size = 4096 };
	enum { B = 65536 };
	struct io_event *ev = calloc(B, sizeof(*ev));
	uint64_t slot[256] = { 0 }, seq = 0;

	if (!m || !ev || !qd || qd > 256)
		return 1;
	trace_meta_init(m, nocomp ? "synth" : "record");
	snprintf(m->options, sizeof(m->options), "gen_trace %s %s", argv[2], argc > 3 ? argv[3] : "8");
	trace_meta_add_device(m, &d);
	struct trace_writer *w = trace_writer__open(argv[1], m, NULL);
	if (!w) {
		perror(argv[1]);
		return 1;
	}
	for (unsigned int k = 0; k < qd; k++)
		slot[k] = k * 1000;
	for (uint64_t done = 0; done < n;) {
		size_t b = n - done < B ? (size_t)(n - done) : B;
		for (size_t j = 0; j < b; j++) {
			struct io_event *e = &ev[j];
			/* The slot free first issues next: the file comes out in queue-time order. */
			unsigned int k = 0;
			for (unsigned int x = 1; x < qd; x++)
				if (slot[x] < slot[k])
					k = x;
			uint64_t r = rnd();
			memset(e, 0, sizeof(*e));
			e->queue_ns = slot[k];
			/* Latency: mostly 20-80 us, a 1 % tail up to ~10 ms. */
			uint64_t lat = 20000 + (r & 0xffff);
			if ((r >> 16) % 100 == 0)
				lat += (r >> 24) % 10000000;
			e->issue_ns = e->queue_ns + 500 + ((r >> 40) & 1023);
			e->complete_ns = e->issue_ns + lat;
			slot[k] = e->complete_ns + 200;
			e->length = 4096u << ((r >> 50) % 6 == 0 ? (r >> 53) % 6 : 0);
			e->op = (r >> 56) % 10 < 7 ? IO_OP_READ : IO_OP_WRITE;
			if ((r >> 60) < 4) { /* a quarter sequential */
				e->offset = seq;
				seq += e->length;
			} else {
				e->offset = ((r >> 8) % (16ULL << 20)) * 4096;
			}
			e->pid = 1000 + k;
			e->tid = e->pid;
			snprintf(e->comm, sizeof(e->comm), "gen%u", k % 4);
			if (nocomp)
				e->issue_ns = e->complete_ns = IO_TS_NONE;
		}
		if (trace_writer__add(w, ev, b)) {
			fprintf(stderr, "gen_trace: %s\n", trace_writer__error(w));
			return 1;
		}
		done += b;
	}
	struct trace_stats st = { .events = n };
	if (trace_writer__close(w, &st)) {
		fprintf(stderr, "gen_trace: close failed\n");
		return 1;
	}
	free(ev);
	free(m);
	return 0;
}
