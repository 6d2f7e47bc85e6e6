// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * File-level traces in the .ioreel container: the file table (paths, identities, data
 * segments), events with their io_fext halves and the named counters survive a round trip
 * across many chunks; a file killed before its index is read by scanning (file table frames
 * included); a damaged file table frame is an error naming its offset; each reader call refuses
 * the other level with a message; the writer refuses ids out of sequence and unknown files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "formats/codec.h"
#include "formats/trace.h"

#include "tests/unit/check.h"

static char dir[] = "/tmp/test_file_trace.XXXXXX";
static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

#define NFILES 300
static char paths[NFILES][64];
static struct trace_file_seg segs[3] = {{0, 4096}, {1 << 20, 65536}, {5 << 20, 1}};

static struct trace_file make_file(uint32_t id)
{
	struct trace_file f = {
	    .id = id,
	    .origin = rnd() & TRACE_FILE__ALL,
	    .dev_major = 7,
	    .dev_minor = id % 3,
	    .ino = rnd(),
	    .gen = (uint32_t)rnd(),
	    .mode = 0100644,
	    .size = rnd() % (1ull << 40),
	    .alloc = rnd() % (1ull << 40),
	    .oflags = (uint32_t)rnd(),
	    .first_ns = rnd(),
	};

	snprintf(paths[id - 1], sizeof(paths[0]), "/srv/db/base/%u/file %u", id * 7, id);
	f.path = id % 17 ? paths[id - 1] : "";
	snprintf(f.fs, sizeof(f.fs), "%s", id % 2 ? "xfs" : "ext4");
	if (id % 5 == 0) {
		f.segs = segs;
		f.nsegs = 1 + id % 3;
	}
	return f;
}

static void make_event(struct io_event *e, struct io_fext *x, uint64_t t, uint32_t nfiles)
{
	memset(e, 0, sizeof(*e));
	memset(x, 0, sizeof(*x));
	e->queue_ns = t;
	e->issue_ns = IO_TS_NONE;
	e->complete_ns = rnd() % 10 ? t + rnd() % 100000 : IO_TS_NONE;
	e->op = rnd() % IO_FOP__COUNT;
	e->offset = rnd() % 3 ? (rnd() % 4096) * 8192 : rnd();
	e->length = e->op <= IO_FOP_WRITE ? 8192 : 0;
	e->pid = 2000 + rnd() % 7;
	e->tid = e->pid + rnd() % 4;
	e->flags = rnd() & IO_FF__ALL;
	e->cpu = rnd() % 2;
	memcpy(e->comm, rnd() % 2 ? "postgres" : "mariadbd", 9);
	x->file = nfiles ? 1 + rnd() % nfiles : 0;
	x->fd = rnd() % 20 ? (int32_t)(rnd() % 1000) : -1;
	x->oflags = (uint32_t)rnd();
	x->aux = rnd() % 2 ? (uint32_t)rnd() : 0;
	x->result = rnd() % 10 ? (int64_t)e->length : -(int64_t)(rnd() % 133);
	e->error = x->result < 0 ? (int32_t)x->result : 0;
	x->arg = rnd() % 2 ? rnd() : 0;
	x->iface = rnd() % IO_FIF__COUNT;
	/* the CPU columns (1.6, 1.8): in two chunks of three (1000 events each), some calls
	 * with a wait for a CPU, some without */
	{
		static unsigned int k;

		if ((k++ / 1000) % 3) {
			e->oncpu_ns = rnd() % 4 ? 1 + rnd() % 10000000 : 0;
			e->cpuwait_ns = e->oncpu_ns && rnd() % 2 ? (uint32_t)rnd() : 0;
		}
	}
}

static const struct trace_counter counters[] = {
    {"uncovered_mmap_shared", 3},
    {"dropped_ring", 0},
    {"files_outside", 12345678901ull},
};

/* Writes n events naming files added as they go; returns the size of the file or -errno. */
static long write_file_trace(const char *path, struct io_event *ev, struct io_fext *x, size_t n)
{
	struct trace_writer_opts o = {.chunk_events = 1000};
	struct trace_meta m;
	struct trace_writer *w;
	uint32_t nfiles = 0;
	uint64_t t = 1000;
	int err = 0;

	trace_meta_init(&m, "record");
	m.level = TRACE_LEVEL_FILE;
	w = trace_writer__open(path, &m, &o);
	if (!w)
		return -errno;
	for (size_t i = 0; i < n && !err; i++) {
		if (nfiles < NFILES && (i % 33 == 0)) {
			struct trace_file f = make_file(nfiles + 1);

			err = trace_writer__add_files(w, &f, 1);
			nfiles++;
		}
		t += rnd() % 50000;
		make_event(&ev[i], &x[i], t, nfiles);
		err = err ?: trace_writer__add_fevents(w, &ev[i], &x[i], 1);
		if (i == 2500)
			err = err ?: trace_writer__flush(w);
	}
	/* Files no event names are kept too. */
	while (!err && nfiles < NFILES) {
		struct trace_file f = make_file(++nfiles);

		err = trace_writer__add_files(w, &f, 1);
	}
	err = err ?: trace_writer__set_counters(w, counters, 3);
	if (err) {
		fprintf(stderr, "writer: %s\n", trace_writer__error(w));
		trace_writer__abort(w);
		return err;
	}
	return trace_writer__close(w, &(struct trace_stats){.events = n, .dropped = 1});
}

static void check_files(struct trace_reader *r)
{
	CHECK(trace_reader__file_count(r) == NFILES, "files %zu", trace_reader__file_count(r));
	for (uint32_t id = 1; id <= NFILES; id++) {
		const struct trace_file *f = trace_reader__file(r, id);
		uint64_t save = rng;
		struct trace_file want;

		if (!f) {
			CHECK(0, "file %u missing", id);
			return;
		}
		/* make_file() draws random fields: compare the fixed ones and the shape */
		want = make_file(id);
		rng = save;
		CHECK(f->id == id && !strcmp(f->path, want.path) && !strcmp(f->fs, want.fs) &&
			  f->dev_minor == id % 3 && f->nsegs == want.nsegs && f->mode == 0100644,
		      "file %u: %s", id, f->path);
		for (uint32_t k = 0; k < f->nsegs; k++)
			CHECK(f->segs[k].offset == segs[k].offset &&
				  f->segs[k].length == segs[k].length,
			      "file %u seg %u", id, k);
	}
	CHECK(!trace_reader__file(r, 0) && !trace_reader__file(r, NFILES + 1), "ids out of range");
}

static long read_back(struct trace_reader *r, struct io_event *ev, struct io_fext *x, size_t cap)
{
	size_t got = 0;

	for (;;) {
		size_t want = 1 + rnd() % 500;
		long n;

		if (want > cap - got)
			want = cap - got;
		if (!want)
			return got;
		n = trace_reader__next_file(r, ev + got, x + got, want);
		if (n <= 0)
			return n < 0 ? n : (long)got;
		got += n;
	}
}

static void test_roundtrip(void)
{
	size_t n = 10000;
	struct io_event *ev = calloc(n, sizeof(*ev)), *back = calloc(n, sizeof(*back)), one;
	struct io_fext *x = calloc(n, sizeof(*x)), *xb = calloc(n, sizeof(*xb));
	char path[256], why[512];
	struct trace_reader *r;
	long got;

	snprintf(path, sizeof(path), "%s/rt.ioreel", dir);
	CHECK(write_file_trace(path, ev, x, n) == 0, "write");
	r = trace_reader__open(path, 0, why, sizeof(why));
	CHECK(r, "open: %s", why);
	if (!r)
		goto out;
	CHECK(trace_reader__meta(r)->level == TRACE_LEVEL_FILE &&
		  trace_reader__meta(r)->version == (1u << 16 | TRACE_VERSION_MINOR),
	      "level %u version %x", trace_reader__meta(r)->level, trace_reader__meta(r)->version);
	CHECK(trace_reader__has_index(r) && trace_reader__event_count(r) == n &&
		  trace_reader__chunk_count(r) == 11,
	      "index, %zu chunks", trace_reader__chunk_count(r));
	check_files(r);
	CHECK(trace_reader__counter_count(r) == 3 &&
		  !strcmp(trace_reader__counter(r, 2)->name, "files_outside") &&
		  trace_reader__counter(r, 2)->value == 12345678901ull,
	      "counters");
	CHECK(trace_reader__next(r, &one, 1) == -EMEDIUMTYPE &&
		  strstr(trace_reader__error(r), "file-level trace"),
	      "block read of a file trace: %s", trace_reader__error(r));
	got = read_back(r, back, xb, n);
	CHECK(got == (long)n, "read %ld: %s", got, trace_reader__error(r));
	for (size_t i = 0; i < n && got == (long)n; i++) {
		if (memcmp(&ev[i], &back[i], sizeof(*ev)) || memcmp(&x[i], &xb[i], sizeof(*x))) {
			CHECK(0, "event %zu differs (off %llu/%llu file %u/%u result %lld/%lld)", i,
			      (unsigned long long)ev[i].offset, (unsigned long long)back[i].offset,
			      x[i].file, xb[i].file, (long long)x[i].result,
			      (long long)xb[i].result);
			break;
		}
	}
	trace_reader__close(r);

	/* Killed before the index: the scan finds the file table frames and the chunks. */
	{
		char cut[300];
		FILE *a = fopen(path, "rb"), *b;
		long size, keep;
		uint8_t *buf;

		snprintf(cut, sizeof(cut), "%s/cut.ioreel", dir);
		fseek(a, 0, SEEK_END);
		size = ftell(a);
		rewind(a);
		buf = malloc(size);
		CHECK(fread(buf, 1, size, a) == (size_t)size, "read");
		fclose(a);
		keep = size - 1;
		/* the index is the last frame: cut at its magic */
		while (keep > 4 && memcmp(buf + keep, "\x52\x2a\x4d\x18", 4))
			keep--;
		b = fopen(cut, "wb");
		fwrite(buf, 1, keep, b);
		fclose(b);
		r = trace_reader__open(cut, 0, why, sizeof(why));
		CHECK(r && !trace_reader__has_index(r), "cut open: %s", why);
		if (r) {
			check_files(r);
			CHECK(read_back(r, back, xb, n) == (long)n, "cut read: %s",
			      trace_reader__error(r));
			trace_reader__close(r);
		}
		/* A flipped byte in the first file table frame (right after the header). */
		for (long i = 0; i + 4 < size; i++) {
			if (!memcmp(buf + i, "\x53\x2a\x4d\x18", 4)) {
				char off[64];

				buf[i + 40] ^= 0x55;
				b = fopen(cut, "wb");
				fwrite(buf, 1, size, b);
				fclose(b);
				snprintf(off, sizeof(off), "offset %ld ", i);
				r = trace_reader__open(cut, 0, why, sizeof(why));
				CHECK(!r && strstr(why, "file table frame") && strstr(why, off),
				      "damaged table: %s", why);
				trace_reader__close(r);
				break;
			}
		}
		free(buf);
	}
out:
	free(ev);
	free(back);
	free(x);
	free(xb);
}

static void test_refusals(void)
{
	struct trace_meta m;
	struct trace_writer *w;
	struct trace_reader *r;
	struct io_event e = {.queue_ns = 1, .issue_ns = IO_TS_NONE, .complete_ns = 2};
	struct io_fext x = {.file = 1};
	struct trace_file f = {.id = 2, .path = "/a"};
	char path[256], why[512];

	snprintf(path, sizeof(path), "%s/ref.ioreel", dir);
	trace_meta_init(&m, "record");
	m.level = TRACE_LEVEL_FILE;
	w = trace_writer__open(path, &m, NULL);
	CHECK(w, "open");
	if (!w)
		return;
	CHECK(trace_writer__add_files(w, &f, 1) == -EINVAL, "id 2 first");
	CHECK(trace_writer__add_fevents(w, &e, &x, 1) == -EINVAL, "unknown file 1");
	CHECK(trace_writer__add(w, &e, 1) == -EMEDIUMTYPE, "block event in a file trace");
	f.id = 1;
	CHECK(trace_writer__add_files(w, &f, 1) == 0, "id 1");
	CHECK(trace_writer__add_fevents(w, &e, &x, 1) == 0, "file 1 known");
	CHECK(trace_writer__close(w, NULL) == 0, "close");

	/* A block trace read as file-level. */
	trace_meta_init(&m, "record");
	w = trace_writer__open(path, &m, NULL);
	CHECK(w && trace_writer__add(w, &e, 1) == 0 &&
		  trace_writer__add_files(w, &f, 1) == -EMEDIUMTYPE,
	      "block writer");
	trace_writer__close(w, NULL);
	r = trace_reader__open(path, 0, why, sizeof(why));
	CHECK(r && trace_reader__next_file(r, &e, &x, 1) == -EMEDIUMTYPE &&
		  strstr(trace_reader__error(r), "block-level"),
	      "file read of a block trace");
	CHECK(r && trace_reader__next(r, &e, 1) == 1 && trace_reader__file_count(r) == 0,
	      "block read");
	trace_reader__close(r);
}

int main(void)
{
	char cmd[128];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_roundtrip();
	test_refusals();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	return failures ? 1 : 0;
}
