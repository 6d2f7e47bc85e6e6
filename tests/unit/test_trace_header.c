// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Format 1.4's header checksum: every single-bit flip anywhere in the header frame of a real
 * trace (devices, streams, options, times) is refused on open with a message naming the file,
 * and --salvage still reads a trace whose header fields survived; header values that size
 * arrays (a stream depth of 0xffffffff, block sizes) are range-checked on read.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "formats/codec.h"
#include "formats/trace.h"

#include "tests/unit/check.h"

static char path[] = "/tmp/test_trace_header.XXXXXX";

static void write_trace(uint32_t depth, uint32_t lbs)
{
	struct trace_meta *m = calloc(1, sizeof(*m));
	struct trace_device d = { .name = "nvme0n1", .size_bytes = 1ULL << 40, .major = 259,
				  .logical_block_size = lbs, .physical_block_size = 4096,
				  .model = "disk" };
	struct io_event ev[64];
	struct trace_writer *w;

	trace_meta_init(m, "test");
	snprintf(m->options, sizeof(m->options), "synth --rw randread --iodepth 32");
	m->mode = TRACE_MODE_CLOSED;
	m->time_based = 1;
	m->runtime_ns = 3000000000ULL;
	m->nstreams = 2;
	m->streams[0] = (struct trace_stream){ .depth = depth, .flags = TRACE_STREAM_TIME_BASED,
					       .runtime_ns = 3000000000ULL };
	m->streams[1] = (struct trace_stream){ .depth = 4, .group = 1, .ios = 100 };
	trace_meta_add_device(m, &d);
	trace_meta_add_device(m, &d);
	for (int i = 0; i < 64; i++)
		ev[i] = (struct io_event){ .queue_ns = i * 1000ULL, .issue_ns = IO_TS_NONE,
					   .complete_ns = IO_TS_NONE, .offset = 4096ULL * i,
					   .length = 4096, .op = IO_OP_READ, .dev = i & 1,
					   .stream = i & 1 };
	w = trace_writer__open(path, m, NULL);
	CHECK(w && !trace_writer__add(w, ev, 64) && !trace_writer__close(w, NULL), "write");
	free(m);
}

static void test_flips(void)
{
	char why[512];
	uint8_t h[8], *orig;
	uint32_t len;
	int fd, caught = 0, total = 0, salvaged = 0;
	struct trace_reader *r;

	write_trace(32, 512);
	r = trace_reader__open(path, 0, why, sizeof(why));
	CHECK(r && trace_reader__meta(r)->header_checked, "a fresh 1.4 trace: %s", why);
	trace_reader__close(r);
	fd = open(path, O_RDWR);
	CHECK(pread(fd, h, 8, 0) == 8, "read");
	len = get_u32(h + 4);
	CHECK(len > 200 && len < 4096, "header of %u bytes", len);
	orig = malloc(8 + len);
	CHECK(pread(fd, orig, 8 + len, 0) == (ssize_t)(8 + len), "read header");
	for (uint32_t b = 0; b < 8 + len; b++) {
		for (int bit = 0; bit < 8; bit++) {
			uint8_t x = orig[b] ^ (uint8_t)(1u << bit);

			CHECK(pwrite(fd, &x, 1, b) == 1, "flip");
			total++;
			r = trace_reader__open(path, 0, why, sizeof(why));
			if (!r) {
				caught++;
				CHECK(strstr(why, path), "byte %u bit %d: message lacks the file: %s",
				      b, bit, why);
			} else {
				CHECK(0, "byte %u bit %d: a flipped header bit was not noticed", b,
				      bit);
				trace_reader__close(r);
			}
			/* fields the flip left parseable: --salvage reads the events anyway */
			r = trace_reader__open(path, TRACE_SALVAGE, why, sizeof(why));
			if (r) {
				struct io_event ev[64];

				salvaged += trace_reader__next(r, ev, 64) == 64;
				trace_reader__close(r);
			}
		}
		CHECK(pwrite(fd, &orig[b], 1, b) == 1, "restore");
	}
	printf("%d of %d single-bit flips in the %u-byte header caught; %d read with --salvage\n",
	       caught, total, 8 + len, salvaged);
	CHECK(caught == total, "%d flips not caught", total - caught);
	CHECK(salvaged > total / 2, "--salvage read only %d", salvaged);
	/* the message says what it is and what to do */
	{
		/* in the options string: the fields still parse, so --salvage reads them */
		uint8_t *o = memmem(orig, 8 + len, "--rw", 4);
		uint8_t x = o ? (uint8_t)(*o ^ 1) : 0;

		CHECK(o && pwrite(fd, &x, 1, o - orig) == 1, "flip");
		r = trace_reader__open(path, 0, why, sizeof(why));
		CHECK(!r && strstr(why, "header checksum mismatch") && strstr(why, "--salvage"),
		      "message: %s", why);
		r = trace_reader__open(path, TRACE_SALVAGE, why, sizeof(why));
		CHECK(r && trace_reader__notice(r) && strstr(trace_reader__notice(r), "checksum") &&
			      !trace_reader__meta(r)->header_checked,
		      "--salvage: a notice and header_checked false");
		trace_reader__close(r);
	}
	free(orig);
	close(fd);
}

/* Values that size arrays or alignments: refused on read, even with a good checksum. */
static void test_ranges(void)
{
	char why[512];
	struct trace_reader *r;

	write_trace(0xffffffffu, 512);
	r = trace_reader__open(path, TRACE_SALVAGE, why, sizeof(why));
	CHECK(!r && strstr(why, "stream depth"), "depth 0xffffffff: %s", r ? "accepted" : why);
	trace_reader__close(r);
	write_trace(65536, 512);
	r = trace_reader__open(path, 0, why, sizeof(why));
	CHECK(r, "depth 65536 is fine: %s", why);
	trace_reader__close(r);
	write_trace(8, 520);
	r = trace_reader__open(path, 0, why, sizeof(why));
	CHECK(!r && strstr(why, "block size"), "logical block size 520: %s", r ? "accepted" : why);
	trace_reader__close(r);
}

int main(void)
{
	int fd = mkstemp(path);

	close(fd);
	test_flips();
	test_ranges();
	unlink(path);
	return failures ? 1 : 0;
}
