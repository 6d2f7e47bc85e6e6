// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What replay refuses in a trace that convert would no longer write (issue 21 W2, W3): an I/O
 * whose offset + length passes 2^64 (with --offsets strict it once wrapped through), and one
 * longer than Linux moves in one call. Each is refused before any I/O, with a message naming
 * the offset, whatever the offset policy; a trace without either replays.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "formats/trace.h"
#include "replay/replay.h"
#include "tests/unit/check.h"

static int write_trace(const char *path, uint64_t offset, uint32_t length)
{
	struct trace_meta m;
	struct trace_device d = { .name = "d", .size_bytes = 1ull << 30, .logical_block_size = 512,
				  .physical_block_size = 512, .model = "test" };
	struct io_event ev = { .queue_ns = 0, .issue_ns = IO_TS_NONE, .complete_ns = IO_TS_NONE,
			       .offset = offset, .length = length, .op = IO_OP_READ, .tid = 1,
			       .pid = 1 };
	struct trace_stats st = { .events = 1 };
	struct trace_writer *w;

	trace_meta_init(&m, "test");
	trace_meta_add_device(&m, &d);
	w = trace_writer__open(path, &m, NULL);
	if (!w || trace_writer__add(w, &ev, 1))
		return -1;
	return trace_writer__close(w, &st);
}

/* Replays path onto target with the null engine; returns replay_run's result, err its text. */
static int replay(const char *path, const char *target, int offsets, char *err, size_t len)
{
	struct replay_opts o = { .trace = path, .target = target, .engine = "null",
				 .mode = REPLAY_AFAP, .offsets = offsets };
	struct replay_result res;
	int ret;

	err[0] = '\0';
	ret = replay_run(&o, &res, err, len);
	replay_result_free(&res);
	return ret;
}

int main(void)
{
	char dir[] = "/tmp/ioreel-refuse.XXXXXX", trace[256], target[256], err[1024];
	const int policies[] = { REPLAY_OFFSETS_WRAP, REPLAY_OFFSETS_SCALE, REPLAY_OFFSETS_STRICT };
	FILE *f;

	if (!mkdtemp(dir))
		return 1;
	snprintf(trace, sizeof(trace), "%s/t.ioreel", dir);
	snprintf(target, sizeof(target), "%s/target.img", dir);
	f = fopen(target, "w");
	if (!f || ftruncate(fileno(f), 64 << 20))
		return 1;
	fclose(f);

	for (int i = 0; i < 3; i++) {
		CHECK(!write_trace(trace, UINT64_MAX - 1000, 4096), "writing the trace");
		CHECK(replay(trace, target, policies[i], err, sizeof(err)) < 0,
		      "offset + length past 2^64 replayed (offsets policy %d)", policies[i]);
		CHECK(strstr(err, "past 2^64"), "message: %s", err);

		CHECK(!write_trace(trace, 0, 0xfffffe00u), "writing the trace");
		CHECK(replay(trace, target, policies[i], err, sizeof(err)) < 0,
		      "an I/O of 4 GiB - 512 replayed (offsets policy %d)", policies[i]);
		CHECK(strstr(err, "at most 2147479552 bytes"), "message: %s", err);
	}
	CHECK(!write_trace(trace, 4096, 4096), "writing the trace");
	CHECK(replay(trace, target, REPLAY_OFFSETS_WRAP, err, sizeof(err)) == 0,
	      "a plain read refused: %s", err);

	unlink(trace);
	unlink(target);
	rmdir(dir);
	return failures ? 1 : 0;
}
