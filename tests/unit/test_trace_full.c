// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A trace writer on a disk that fills: wherever the failing frame falls (a chunk, a file
 * table, a CPU load frame, the counters), the trace closes with its counters and an index
 * that names every event written before, and reads whole. The recorder's file-level trace on a
 * full disk once lost its index when the frame that failed was a small one (it freed too
 * little room); the writer now holds the trailer's room beyond the end of the file. A trace
 * closed normally keeps no such room. A disk that fills just before the close (its last chunk,
 * file table or CPU load frame fail there) ended the trace without counters or index, and a
 * side frame whose write failed was sealed twice when tried again (a second crc: "damaged").
 *
 * Needs root: each case runs on a tmpfs of 256 KiB mounted in a mount namespace of the test's
 * own (gone with the process, even when it fails), with a ballast file taking a different share
 * of it, so that the disk fills at a different frame each time.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "formats/trace.h"

#include "tests/unit/check.h"

static char dir[] = "/tmp/test_trace_full.XXXXXX";
static uint64_t rng = 0x2545F4914F6CDD1Dull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const struct trace_counter counters[] = {
    {"dropped_ring", 0}, {"files_outside", 7}, {"uncovered_mmap_shared", 1}};

struct outcome {
	uint64_t events, cpu_loads;
	uint32_t files;
	int close_err;
	bool full;
};

static void fill(const char *path, size_t pages);

/* Writes calls, files and CPU load entries until the disk is full (or enough); then closes.
 * fill_at_close: after 500 calls, a ballast file takes every page left before the close, so
 * the close's own frames (the last calls, their file table) are the ones that fail. */
static struct outcome write_until_full(const char *path, bool stop_early,
				       const char *fill_at_close)
{
	struct trace_writer_opts o = {.chunk_events = 48};
	struct trace_stats st = {0};
	struct outcome out = {0};
	struct trace_writer *w;
	struct trace_meta m;
	int err = 0;

	trace_meta_init(&m, "record");
	m.level = TRACE_LEVEL_FILE;
	w = trace_writer__open(path, &m, &o);
	CHECK(w, "open %s: %s", path, strerror(errno));
	if (!w)
		return out;
	for (uint64_t i = 0; !err && i < 200000 && !(stop_early && i == 500); i++) {
		struct io_event e = {.queue_ns = 1000 + i * 20000, .issue_ns = IO_TS_NONE,
				     .op = IO_FOP_READ, .length = 8192, .pid = 4000, .tid = 4001};
		struct io_fext x = {.fd = 9, .iface = 0};

		e.complete_ns = e.queue_ns + rnd() % 50000;
		e.offset = (rnd() % 100000) * 8192;
		memcpy(e.comm, "postgres", 9);
		if (i % 4 == 0) { /* a file table frame before most chunks */
			char p[64];
			struct trace_file f = {.id = out.files + 1, .mode = 0100600, .ino = rnd(),
					       .dev_major = 7, .size = rnd() % (1u << 30)};

			snprintf(p, sizeof(p), "/srv/pg/base/16384/%llu",
				 (unsigned long long)rnd() % 100000);
			f.path = p;
			snprintf(f.fs, sizeof(f.fs), "xfs");
			err = trace_writer__add_files(w, &f, 1);
			if (!err)
				out.files++;
		}
		x.file = out.files ? 1 + rnd() % out.files : 0;
		err = err ?: trace_writer__add_fevents(w, &e, &x, 1);
		if (!err && i % 3 == 0) { /* CPU load frames of a few entries now and then */
			struct trace_cpu_load l = {.start_ns = i * 10000000ull, .traced_us = 900,
						   .other_us = (uint32_t)(rnd() % 20000)};

			err = trace_writer__add_cpu_load(w, 2, 10000000, &l, 1);
			out.cpu_loads += !err;
		}
		if (!err && i % 97 == 0)
			err = trace_writer__flush(w); /* a frame of a few calls, as at a stop */
	}
	out.full = err != 0;
	CHECK(!err || err == -ENOSPC || err == -EIO, "writer: %s", trace_writer__error(w));
	out.events = trace_writer__events(w);
	if (fill_at_close) {
		fill(fill_at_close, SIZE_MAX); /* every page left: it stops at ENOSPC */
		out.full = true;
	}
	st.events = out.events;
	trace_writer__set_counters(w, counters, 3);
	out.close_err = trace_writer__close(w, &st);
	return out;
}

/* A ballast file of pages pages; SIZE_MAX: until the disk is full. */
static void fill(const char *path, size_t pages)
{
	static char page[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0, "ballast: %s", strerror(errno));
	for (size_t i = 0; fd >= 0 && pages != SIZE_MAX && i < pages; i++)
		CHECK(write(fd, page, sizeof(page)) == sizeof(page), "ballast: %s", strerror(errno));
	while (fd >= 0 && pages == SIZE_MAX && write(fd, page, sizeof(page)) > 0)
		;
	if (fd >= 0)
		close(fd);
}

/* The trace a full disk left: whole, indexed, every event written before, the counters.
 * at_close: the close wrote what it could of the calls not written yet (one chunk's). */
static void check_full_trace(const char *path, const struct outcome *o, size_t ballast,
			     bool at_close)
{
	char why[512];
	struct trace_reader *r = trace_reader__open(path, 0, why, sizeof(why));
	struct io_event ev[64];
	struct io_fext x[64];
	uint64_t n = 0;
	long got;

	CHECK(o->full, "ballast %zu pages: the disk never filled", ballast);
	CHECK(o->close_err == -EIO || (at_close && o->close_err == -ENOSPC),
	      "ballast %zu: close said %d", ballast, o->close_err);
	CHECK(r, "ballast %zu: %s", ballast, why);
	if (!r)
		return;
	CHECK(trace_reader__has_index(r), "ballast %zu pages: no index after the disk filled "
	      "(%llu events written)", ballast, (unsigned long long)o->events);
	CHECK(at_close ? trace_reader__event_count(r) >= o->events &&
			 trace_reader__event_count(r) <= o->events + 48
		       : trace_reader__event_count(r) == o->events,
	      "ballast %zu: %llu events, %llu written", ballast,
	      (unsigned long long)trace_reader__event_count(r), (unsigned long long)o->events);
	CHECK(trace_reader__counter_count(r) == 3, "ballast %zu: %zu counters", ballast,
	      trace_reader__counter_count(r));
	while ((got = trace_reader__next_file(r, ev, x, 64)) > 0)
		n += (uint64_t)got;
	CHECK(got == 0 && n == trace_reader__event_count(r) && !trace_reader__damaged_chunks(r),
	      "ballast %zu: read %llu of %llu: %s", ballast, (unsigned long long)n,
	      (unsigned long long)trace_reader__event_count(r), trace_reader__error(r));
	trace_reader__close(r);
}

int main(void)
{
	char path[300], ballast[300];
	struct outcome o;
	struct stat st;
	int cases = 0;

	if (geteuid()) {
		printf("SKIP: needs root (a tmpfs of its own in a mount namespace)\n");
		return 77;
	}
	if (!mkdtemp(dir) || unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		perror("mkdtemp, unshare or a private /");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/t.ioreel", dir);
	snprintf(ballast, sizeof(ballast), "%s/ballast", dir);
	/* a trace closed normally keeps no room beyond its end */
	if (mount("tmpfs", dir, "tmpfs", 0, "size=256k")) {
		perror("mount tmpfs");
		return 1;
	}
	o = write_until_full(path, true, NULL);
	CHECK(!o.full && !o.close_err && !stat(path, &st) &&
	      (uint64_t)st.st_blocks * 512 <= ((uint64_t)st.st_size + 4095) / 4096 * 4096,
	      "a closed trace of %lld bytes keeps %lld allocated", (long long)st.st_size,
	      (long long)st.st_blocks * 512);
	umount(dir);
	/* the disk fills just before the close: its last chunk and file table fail */
	if (mount("tmpfs", dir, "tmpfs", 0, "size=256k")) {
		perror("mount tmpfs");
		return 1;
	}
	o = write_until_full(path, true, ballast);
	check_full_trace(path, &o, 0, true);
	umount(dir);
	/* the disk fills at a different frame with each share the ballast takes */
	for (size_t pages = 0; pages < 48; pages += 1, cases++) {
		if (mount("tmpfs", dir, "tmpfs", 0, "size=256k")) {
			perror("mount tmpfs");
			return 1;
		}
		fill(ballast, pages);
		o = write_until_full(path, false, NULL);
		check_full_trace(path, &o, pages, false);
		if (umount(dir))
			perror("umount");
	}
	rmdir(dir);
	printf("%d disk-full cases, last: %llu events, %u files, %llu CPU load entries\n", cases,
	       (unsigned long long)o.events, o.files, (unsigned long long)o.cpu_loads);
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	return 0;
}
