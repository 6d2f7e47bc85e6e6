// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for replay: the input, its checksums fixed up (so that mutations reach the
 * header fields and events replay acts on), is written as a .ioreel file and replayed with the
 * null engine onto a 64 MiB sparse file, writes allowed, in the trace's default mode and in one
 * other mode picked from a hash of the input (timed, afap, closed or dep; one time in two with
 * dep mode's elastic models on and the null engine slowed a few us). Must never crash,
 * leak or hang (replay_fuzz.h: Ctrl-C's stop 150 ms after the clock started, and a
 * replay still running 5 s after it is a crash).
 * Built and run by `make fuzz`. Seeds (tests/fuzz/corpus/fuzz_replay/): closed-loop traces from
 * `ioreel synth --number-ios 20` over bs 512 B-64 MiB, numjobs 1-64, iodepth 1-4096, one
 * --time_based --runtime 3600, one --rate-iops; and a timed one converted from a 7-row CSV
 * (tests/integration/replay_common.inc's columns) with an hour between its last two rows; and
 * recipes (inputs beginning "RECP", see write_recipe): the writer makes a valid trace of them,
 * so that mutations change events and stream records instead of breaking a zstd frame.
 * FUZZ_REPLAY_VERBOSE=1 prints what each run did, FUZZ_REPLAY_SAVE=FILE keeps the trace.
 * mlockall is no problem here: the sanitizers intercept it (and munlockall) as a no-op.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "replay/core/run.h"
#include "replay/replay.h"
#include "tests/fuzz/checksums.h"
#include "tests/fuzz/replay_fuzz.h"

#define TARGET_BYTES (64ull << 20)
#define FUZZ_MAX_IO (256u << 20) /* recipes: larger reads and writes are folded below it */
#define RECIPE_MAGIC 0x50434552u /* "RECP": the input is a recipe (write_recipe) */

static bool verbose;

/* elastic: dep mode's models on (group commit, absorbed writes, split flushes), the null engine
 * slowed by a few us per I/O and per flush so that I/Os and flushes are in flight together */
static void replay_once(const char *trace, const char *target, int mode, uint32_t elastic)
{
	struct replay_opts o;
	struct replay_result res;
	char err[1024];
	uint64_t t0;
	int ret;

	fuzz_replay_opts(&o, trace, mode);
	o.target = target;
	o.prefill = REPLAY_PREFILL_WARN;
	if (elastic) {
		o.dep.group_commit = o.dep.absorb = o.dep.split = true;
		o.dep_set = true;
		o.null_lat_ns = 1000 * (elastic % 16);
		o.null_flush_lat_ns = 1000 * (elastic / 16 % 128);
	}
	t0 = now_ns();
	watchdog_arm(mode);

	ret = replay_run(&o, &res, err, sizeof(err));
	if (verbose)
		fprintf(stderr, "fuzz_replay: mode %s: %d %s, %llu I/Os in %.1f ms%s\n",
			replay_mode_name(mode), ret, ret ? err : "", (unsigned long long)res.ios,
			(now_ns() - t0) / 1e6, replay_stop ? ", stopped" : "");

	watchdog_disarm();
	replay_result_free(&res);
}

/* ---- recipes: inputs that are not a trace file describe one, written by the trace writer ---- */

static struct trace_meta meta;

/*
 * A recipe: a header byte (bit 0 closed, bit 1 time_based, bits 2-3 devices - 1, bit 4 leave
 * completion times out), a runtime, per device a size and a logical block size, a stream count
 * and per stream every field of its record, raw but folded into what the reader takes;
 * then 20-byte events until the input ends. Closed-loop traces are "synth" ones; timed ones
 * "import:csv", their times the running sum of 32-bit gaps. The writer and the header's own
 * checks stay in charge of what a trace may say: a recipe it refuses is no run.
 */
static int write_recipe(const char *path, const uint8_t *data, size_t size)
{
	struct trace_writer_opts wo = { .chunk_events = 64 };
	struct cursor c = { data + 4, size - 4 };
	unsigned int hdr = take(&c, 1);
	bool closed = hdr & 1;
	struct trace_writer *w;
	uint64_t t = 0;
	int ret = 0;

	memset(&meta, 0, sizeof(meta));
	snprintf(meta.source, sizeof(meta.source), "%s", closed ? "synth" : "import:csv");
	meta.mode = closed ? TRACE_MODE_CLOSED : TRACE_MODE_TIMED;
	meta.time_based = !!(hdr & 2);
	meta.runtime_ns = take(&c, 8);
	meta.ndevices = 1 + ((hdr >> 2) & 3);
	for (uint32_t i = 0; i < meta.ndevices; i++) {
		struct trace_device *d = &meta.devices[i];

		snprintf(d->name, sizeof(d->name), "dev%u", i);
		d->size_bytes = take(&c, 8);
		d->logical_block_size = 512u << (take(&c, 1) % 5);
		d->physical_block_size = d->logical_block_size;
	}
	meta.nstreams = closed ? 1 + take(&c, 1) % 64 : 0;
	for (uint32_t i = 0; i < meta.nstreams; i++) {
		struct trace_stream *st = &meta.streams[i];

		st->depth = 1 + take(&c, 4) % TRACE_MAX_STREAM_DEPTH;
		st->flags = take(&c, 1) & TRACE_STREAM__ALL;
		st->group = take(&c, 1) % 4;
		st->rel_align = take(&c, 4);
		st->runtime_ns = take(&c, 8);
		st->ios = take(&c, 8);
		st->delay_ns = take(&c, 8);
		st->rel_base = take(&c, 8);
		st->rel_start_ppm = take(&c, 4) % 1000001;
		st->rel_len_ppm = take(&c, 4) % 1000001;
		st->rel_span = take(&c, 8);
		/* what the reader refuses (formats/meta.c), fuzz_header's part, is made valid */
		if (st->flags & TRACE_STREAM_SCALE) {
			st->flags |= TRACE_STREAM_REL;
			st->rel_span += !st->rel_span;
		}
	}
	w = trace_writer__open(path, &meta, &wo);
	if (!w)
		return -1;
	while (c.left) {
		struct io_event ev = { .pid = 1, .tid = 1 };

		ev.offset = take(&c, 8);
		ev.length = take(&c, 4);
		/* replay holds a buffer as large as the largest read and another as large as the
		 * largest write (replay/core/slots.c): up to 4 GiB, over libFuzzer's 2 GiB RSS
		 * limit. Beyond what Linux moves in one call replay refuses the trace, cheaply. */
		if (ev.length > FUZZ_MAX_IO && ev.length <= REPLAY_MAX_IO_BYTES)
			ev.length = FUZZ_MAX_IO - ev.length % 4096;
		ev.op = take(&c, 1) % IO_OP__COUNT;
		ev.flags = take(&c, 1) & IO_F__ALL;
		ev.dev = take(&c, 1) % meta.ndevices;
		ev.stream = take(&c, 1) % (closed ? meta.nstreams : 1);
		ev.tid = 1 + ev.stream;
		if (closed) {
			ev.queue_ns = ev.issue_ns = ev.complete_ns = IO_TS_NONE;
			take(&c, 4);
		} else {
			t += take(&c, 4);
			ev.queue_ns = t;
			ev.issue_ns = t + 1000;
			ev.complete_ns = hdr & 16 ? IO_TS_NONE : t + 1000 + (ev.length >> 4);
		}
		if (trace_writer__add(w, &ev, 1)) {
			ret = -1;
			break;
		}
	}
	if (ret) {
		trace_writer__abort(w);
		return ret;
	}
	return trace_writer__close(w, NULL) ? -1 : 0;
}

static void save_trace(int fd, const char *to)
{
	char buf[65536];
	ssize_t n;
	off_t pos = 0;
	int out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0600);

	if (out < 0) {
		perror(to);
		return;
	}
	while ((n = pread(fd, buf, sizeof(buf), pos)) > 0 && write(out, buf, n) == n)
		pos += n;
	close(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int modes[] = { REPLAY_TIMED, REPLAY_AFAP, REPLAY_CLOSED, REPLAY_DEP };
	static int fd = -1, tfd = -1;
	static char path[64], target[64];
	uint32_t h = 2166136261u;
	uint8_t *copy;
	int ret;

	if (fd < 0) {
		char tmpl[] = "/tmp/fuzz_replay_target.XXXXXX";

		/* the target: a regular file (O_DIRECT works on it, unlike a memfd), unlinked at
		 * once so that nothing is left behind; replay reopens it through /proc */
		tfd = mkstemp(tmpl);
		if (tfd < 0 || unlink(tmpl) || ftruncate(tfd, TARGET_BYTES))
			abort();
		snprintf(target, sizeof(target), "/proc/self/fd/%d", tfd);
		fd = fuzz_memfd("fuzz_replay", path);
		if (fd < 0)
			abort();
		watchdog_start();
		verbose = getenv("FUZZ_REPLAY_VERBOSE");
	}
	if (size >= 4 && get_u32(data) == RECIPE_MAGIC) {
		if (write_recipe(path, data, size))
			return 0;
	} else {
		copy = malloc(size ? size : 1);
		if (!copy)
			return 0;
		memcpy(copy, data, size);
		fix_checksums(copy, size);
		ret = ftruncate(fd, 0) || pwrite(fd, copy, size, 0) != (ssize_t)size;
		free(copy);
		if (ret)
			return 0;
	}
	if (getenv("FUZZ_REPLAY_SAVE")) /* the trace replayed, for `ioreel replay` by hand */
		save_trace(fd, getenv("FUZZ_REPLAY_SAVE"));
	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 16777619u;
	replay_once(path, target, REPLAY_MODE_AUTO, 0);
	/* dep mode (a recording's default, or picked) with its models on, one time in two */
	replay_once(path, target, modes[h % 4], (h >> 2) & 1 ? 1 + (h >> 3) % 2048 : 0);
	return 0;
}
