// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Format 1.3's stream records (1.5's think and latency-target fields, 1.7's rate cap and
 * exit group too): they survive a
 * round trip, a 1.0 trace (checked in, written by
 * ioreel before 1.1) reads with the records its tags 8 and 9 imply, and the two rules every
 * reader applies (formats/stream.c) put relative offsets where FORMAT.md says and end closed
 * streams when their runtime or count says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "formats/codec.h"
#include "formats/trace.h"

#include "tests/unit/check.h"

static void test_roundtrip(void)
{
	char path[] = "/tmp/test_trace_streams.XXXXXX", why[256];
	int fd = mkstemp(path);
	struct trace_meta *m = calloc(1, sizeof(*m));
	struct trace_device d = { .name = "x", .logical_block_size = 512 };
	struct io_event ev = { .queue_ns = 0, .issue_ns = IO_TS_NONE, .complete_ns = IO_TS_NONE,
			       .length = 4096, .op = IO_OP_READ };
	struct trace_writer *w;
	struct trace_reader *r;

	close(fd);
	trace_meta_init(m, "test");
	m->mode = TRACE_MODE_CLOSED;
	m->nstreams = 2;
	m->streams[0] = (struct trace_stream){ .depth = 8, .flags = TRACE_STREAM_TIME_BASED,
					       .runtime_ns = 5000000000ULL };
	m->streams[1] = (struct trace_stream){ .depth = 1, .group = 3, .ios = 77, .delay_ns = 9,
					       .flags = TRACE_STREAM_REL | TRACE_STREAM_SCALE,
					       .rel_base = 4096, .rel_start_ppm = 250000,
					       .rel_len_ppm = 500000, .rel_span = 1ULL << 40,
					       .rel_align = 4096 };
	/* format 1.7: a walk back over a relative region */
	m->streams[1].flags = TRACE_STREAM_REL | TRACE_STREAM_BACK;
	m->streams[1].rel_back_add = 8192;
	m->streams[1].rel_back_step = 4096;
	/* format 1.5: think time and a latency target */
	m->streams[2] = (struct trace_stream){ .depth = 16,
					       .flags = TRACE_STREAM_THINK |
							TRACE_STREAM_THINK_ISSUE |
							TRACE_STREAM_LAT_TARGET |
							TRACE_STREAM_LAT_RUN,
					       .think_ns = 2000000, .think_spin_ns = 500000,
					       .think_iotime_ns = 7, .think_blocks = 4,
					       .lat_target_ns = 1000000, .lat_window_ns = 3,
					       .lat_pct_ppm = 995000 };
	/* format 1.7: a rate cap and an exit group (fio's rate beside unrated jobs, exitall) */
	m->streams[3] = (struct trace_stream){ .depth = 32,
					       .flags = TRACE_STREAM_RATE | TRACE_STREAM_EXIT |
							TRACE_STREAM_EXIT_RUNNING,
					       .rate_bps = { 300, 0, 1 << 20 }, .exit_group = 5 };
	m->nstreams = 4;
	trace_meta_add_device(m, &d);
	w = trace_writer__open(path, m, NULL);
	CHECK(w && !trace_writer__add(w, &ev, 1) && !trace_writer__close(w, NULL), "write");
	r = trace_reader__open(path, 0, why, sizeof(why));
	CHECK(r, "open: %s", why);
	if (r) {
		const struct trace_meta *b = trace_reader__meta(r);

		CHECK(b->version == (1u << 16 | TRACE_VERSION_MINOR), "format 1.%d, got %x", TRACE_VERSION_MINOR, b->version);
		CHECK(b->nstreams == 4 && !memcmp(&b->streams[0], &m->streams[0],
						   sizeof(m->streams[0])) &&
			      !memcmp(&b->streams[1], &m->streams[1], sizeof(m->streams[1])) &&
			      !memcmp(&b->streams[2], &m->streams[2], sizeof(m->streams[2])) &&
			      !memcmp(&b->streams[3], &m->streams[3], sizeof(m->streams[3])),
		      "stream records round trip");
		trace_reader__close(r);
	}
	unlink(path);
	free(m);
}

/* A trace ioreel wrote before format 1.1: closed, 2 streams of depth 4, time_based 2 s. */
static void test_v10(void)
{
	char path[512], why[256];
	const char *f = __FILE__, *slash = strrchr(f, '/');
	struct trace_reader *r;

	/* tests/unit/this.c -> tests/data/... */
	snprintf(path, sizeof(path), "%.*s/../data/v1.0-synth-closed.ioreel",
		 slash ? (int)(slash - f) : 1, slash ? f : ".");
	r = trace_reader__open(path, 0, why, sizeof(why));
	CHECK(r, "a 1.0 trace opens: %s", why);
	if (!r)
		return;
	const struct trace_meta *m = trace_reader__meta(r);

	CHECK(m->version == 1u << 16, "format 1.0: %x", m->version);
	CHECK(m->nstreams == 2 && m->streams[0].depth == 4 && m->streams[1].depth == 4, "depths");
	for (int i = 0; i < 2; i++)
		CHECK(m->streams[i].flags == TRACE_STREAM_TIME_BASED &&
			      m->streams[i].runtime_ns == 2000000000ULL && !m->streams[i].ios &&
			      !m->streams[i].group,
		      "stream %d: time based 2 s from tags 8 and 9", i);
	CHECK(trace_reader__event_count(r) == 32, "events %llu",
	      (unsigned long long)trace_reader__event_count(r));
	trace_reader__close(r);
}

static void test_offsets(void)
{
	struct trace_stream s = { .flags = TRACE_STREAM_REL | TRACE_STREAM_SCALE,
				  .rel_start_ppm = 250000, .rel_len_ppm = 500000,
				  .rel_span = 1ULL << 30, .rel_align = 4096 };
	uint64_t T = 1ULL << 30, len, o;

	/* scaled: a quarter in, half long; the middle of the span is the middle of the region */
	o = trace_stream_offset(&s, 1ULL << 29, T, &len);
	CHECK(len == 1ULL << 29 && o == (1ULL << 28) + (1ULL << 28), "scaled middle: %llu",
	      (unsigned long long)o);
	o = trace_stream_offset(&s, 0, 10ULL << 30, &len);
	CHECK(o == (10ULL << 30) / 4 && len == 5ULL << 30, "another target, same shares");
	o = trace_stream_offset(&s, 4095 + (1ULL << 20), T, &len);
	CHECK(o % 4096 == 0, "scaled offsets aligned: %llu", (unsigned long long)o);

	/* wrapped: a sequential walk with a 16k stride restarts at the region's start */
	s = (struct trace_stream){ .flags = TRACE_STREAM_REL, .rel_base = 1 << 20,
				   .rel_span = 16384, .rel_align = 4096 };
	o = trace_stream_offset(&s, 0, 1ULL << 22, &len);
	CHECK(o == 1 << 20 && len == 3ULL << 20, "wrap: region from 1 MiB to the end");
	o = trace_stream_offset(&s, 3ULL << 20, 1ULL << 22, &len);
	CHECK(o == 1 << 20, "wrap: the walk starts over at %llu", (unsigned long long)o);
	o = trace_stream_offset(&s, 5, 1ULL << 19, &len);
	CHECK(len == 0 && o == 1 << 20, "a region past the target's end is empty");
	/* a stride near 2^64 (a damaged or hostile header): one pass is one stride long */
	s.rel_span = UINT64_MAX - 4096;
	o = trace_stream_offset(&s, 12345, 1ULL << 22, &len);
	CHECK(o == (1 << 20) + 12345 && len == 3ULL << 20, "huge stride: %llu",
	      (unsigned long long)o);

	/* format 1.7, walking back (fio's rw=read:-8k, bs 4k, on a region of 1 MiB from 1 MiB):
	 * fio reads 0, then 1M - 8k, 1M - 12k, ... 0, then 1M - 8k again; the distances of the
	 * trace are 0 (the start), 8k, 12k, ... */
	const uint64_t B = 1ULL << 63, M = 1ULL << 20;

	s = (struct trace_stream){ .flags = TRACE_STREAM_REL | TRACE_STREAM_BACK,
				   .rel_base = M, .rel_span = 4096, .rel_align = 4096,
				   .rel_back_add = 8192, .rel_back_step = 4096 };
	CHECK(trace_stream_offset(&s, B | 0, 2 * M, &len) == M && len == M, "back: the start");
	CHECK(trace_stream_offset(&s, B | 8192, 2 * M, &len) == 2 * M - 8192, "back: 1M - 8k");
	CHECK(trace_stream_offset(&s, B | 12288, 2 * M, &len) == 2 * M - 12288, "back: 1M - 12k");
	CHECK(trace_stream_offset(&s, B | M, 2 * M, &len) == M, "back: down to the start");
	CHECK(trace_stream_offset(&s, B | (M + 4096), 2 * M, &len) == 2 * M - 8192,
	      "back: past the start, 8k before the end again, as fio (1M - 4k is never read)");
	CHECK(trace_stream_offset(&s, 8192, 2 * M, &len) == M + 8192,
	      "back: an offset without bit 63 walks forward (a flow set's other member)");
	/* a length less the hole that is not a multiple of the step (rw=read:-20k, bs 4k: 20k
	 * back, 16k a step): positions 1M - 20k down to 12k (1M - 20k = 62 * 16k + 12k), then
	 * 1M - 20k */
	s.rel_back_add = 20480, s.rel_back_step = 16384;
	CHECK(trace_stream_offset(&s, B | (20480 + 62 * 16384), 2 * M, &len) == M + 12288,
	      "back 20k/16k: the lowest position");
	CHECK(trace_stream_offset(&s, B | (20480 + 63 * 16384), 2 * M, &len) == 2 * M - 20480,
	      "back 20k/16k: then 20k before the end");
	CHECK(trace_stream_offset(&s, B | 0, 2 * M, &len) == M,
	      "back 20k/16k: the start is the start (fio's first I/O), not the lowest step");
	trace_stream_offset(&s, B | 4096, M, &len);
	CHECK(len == 0, "back: an empty region");

	/* absolute streams are untouched */
	s = (struct trace_stream){ .depth = 1 };
	CHECK(trace_stream_offset(&s, 12345, 100, &len) == 12345, "absolute offsets kept");
}

static void test_ended(void)
{
	struct trace_stream once = { 0 }, tb = { .flags = TRACE_STREAM_TIME_BASED,
						 .runtime_ns = 1000 },
			    cnt = { .ios = 10 }, rt = { .runtime_ns = 50 };

	CHECK(!trace_stream_ended(&once, 5, 4, 0) && trace_stream_ended(&once, 5, 5, 0),
	      "events once");
	CHECK(!trace_stream_ended(&tb, 5, 500, 999) && trace_stream_ended(&tb, 5, 500, 1000),
	      "time based: cycles until the runtime");
	CHECK(!trace_stream_ended(&cnt, 3, 9, 1ULL << 40) && trace_stream_ended(&cnt, 3, 10, 0),
	      "an I/O count cycles the events");
	CHECK(trace_stream_ended(&rt, 100, 1, 50) && !trace_stream_ended(&rt, 100, 1, 49),
	      "a runtime cuts a pass short");
	CHECK(trace_stream_ended(&tb, 0, 0, 0), "a stream without events has ended");
}

int main(void)
{
	test_roundtrip();
	test_v10();
	test_offsets();
	test_ended();
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
