// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The .ioreel container end to end: random events with every field (and absent timestamps)
 * survive a round trip across many chunks, flush, seek, files without index (index cut off,
 * file cut mid-chunk), a damaged chunk in the middle (error naming its offset; salvage skips
 * exactly it), empty traces and hostile headers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "formats/trace.h"

#include "tests/unit/check.h"

static char dir[] = "/tmp/test_trace.XXXXXX";
static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void make_meta(struct trace_meta *m)
{
	struct trace_device d = { .name = "loop7", .major = 7, .minor = 7,
				  .size_bytes = 1ull << 30, .logical_block_size = 512,
				  .physical_block_size = 4096, .model = "virtual disk" };

	trace_meta_init(m, "test");
	snprintf(m->options, sizeof(m->options), "--some options here");
	trace_meta_add_device(m, &d);
	snprintf(d.name, sizeof(d.name), "zram9");
	trace_meta_add_device(m, &d);
	m->mode = TRACE_MODE_CLOSED;
	m->nstreams = 3;
	m->streams[0].depth = 1;
	m->streams[1].depth = 32;
	m->streams[2].depth = 7;
}

/* Sorted by queue time; some fields random, some absent, like mixed traces. */
static void make_events(struct io_event *ev, size_t n, bool sorted)
{
	static const char comms[4][IO_COMM_LEN] = { "fio", "kworker/u8:2", "postgres",
						     "exactly16bytes!!" };
	uint64_t t = 1000;

	for (size_t i = 0; i < n; i++) {
		struct io_event *e = &ev[i];
		unsigned int pres = rnd() % 8;

		memset(e, 0, sizeof(*e));
		t += rnd() % 20000;
		e->queue_ns = (pres & 1) || sorted ? t : IO_TS_NONE;
		e->issue_ns = (pres & 2) ? t + rnd() % 50000 : IO_TS_NONE;
		e->complete_ns = (pres & 4) ? t + 50000 + rnd() % 200000 : IO_TS_NONE;
		if (!sorted && !(pres & 1) && rnd() % 2)
			e->complete_ns = rnd();
		e->offset = (rnd() % 4 == 0) ? rnd() : (rnd() % (1 << 18)) * 4096;
		e->length = (rnd() % 3) ? 4096 : rnd() % (1u << 31);
		e->dev = rnd() % 2;
		e->pid = 1000 + rnd() % 5;
		e->tid = rnd() % 3 ? e->pid : (uint32_t)rnd();
		e->error = rnd() % 50 ? 0 : -(int)(rnd() % 200);
		if (rnd() % 1000 == 0)
			e->error = INT32_MIN;
		e->stream = rnd() % 3;
		e->cpu = rnd() % 65536;
		e->op = rnd() % IO_OP__COUNT;
		e->flags = rnd() & IO_F__ALL;
		memcpy(e->comm, comms[rnd() % 4], IO_COMM_LEN);
	}
}

/* Small alphabets in every column, so the top planes are packed as digits (radix 2..16). */
static void make_packed_events(struct io_event *ev, size_t n)
{
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++) {
		struct io_event *e = &ev[i];

		memset(e, 0, sizeof(*e));
		t += rnd() % 30000;
		e->queue_ns = t;
		e->issue_ns = t + 5000 + rnd() % 45001;
		e->complete_ns = e->issue_ns + 20000 + rnd() % 180001;
		e->offset = (rnd() % (1 << 18)) * 4096;
		e->length = 4096 << (rnd() % 3);
		e->op = rnd() % 2;
		e->cpu = rnd() % 3;
		e->stream = rnd() % 6;
		e->pid = e->tid = 1000 + rnd() % 4;
		e->flags = rnd() % 13;
		e->error = -(int)(rnd() % 15);
		e->dev = rnd() % 2;
		memcpy(e->comm, "fio", 4);
	}
}

static int write_trace(const char *path, const struct io_event *ev, size_t n, uint32_t chunk,
		       size_t flush_at, const struct trace_stats *st)
{
	struct trace_writer_opts o = { .chunk_events = chunk };
	struct trace_meta m;
	struct trace_writer *w;
	int err;

	make_meta(&m);
	w = trace_writer__open(path, &m, &o);
	if (!w)
		return -errno;
	if (flush_at && flush_at < n) {
		err = trace_writer__add(w, ev, flush_at);
		err = err ?: trace_writer__flush(w);
		err = err ?: trace_writer__add(w, ev + flush_at, n - flush_at);
	} else {
		err = trace_writer__add(w, ev, n);
	}
	if (err) {
		trace_writer__abort(w);
		return err;
	}
	return trace_writer__close(w, st);
}

/* Reads everything in odd batch sizes; returns the count or -errno. */
static long read_all(struct trace_reader *r, struct io_event *out, size_t cap)
{
	size_t got = 0;

	for (;;) {
		size_t want = 1 + rnd() % 777;
		long n;

		if (want > cap - got)
			want = cap - got;
		if (!want)
			return got;
		n = trace_reader__next(r, out + got, want);
		if (n < 0)
			return n;
		if (n == 0)
			return got;
		got += n;
	}
}

static void test_roundtrip(bool sorted, bool packed)
{
	size_t n = 50000;
	struct io_event *ev = calloc(n, sizeof(*ev)), *back = calloc(n + 10, sizeof(*back));
	struct trace_stats st = { .events = n, .dropped = 3, .dropped_reserve = 2,
				  .dropped_inflight = 1, .end_ns = 123456789 };
	char path[256], why[512];
	struct trace_reader *r;
	const struct trace_meta *m;
	long got;

	snprintf(path, sizeof(path), "%s/rt.ioreel", dir);
	if (packed)
		make_packed_events(ev, n);
	else
		make_events(ev, n, sorted);
	CHECK(write_trace(path, ev, n, 4096, 777, &st) == 0, "write");
	r = trace_reader__open(path, 0, why, sizeof(why));
	CHECK(r, "open: %s", why);
	if (!r)
		goto out;
	m = trace_reader__meta(r);
	CHECK(m->ndevices == 2 && !strcmp(m->devices[1].name, "zram9") &&
		      m->devices[0].size_bytes == 1ull << 30 && !strcmp(m->devices[0].model, "virtual disk") &&
		      m->devices[0].physical_block_size == 4096,
	      "devices");
	CHECK(m->nstreams == 3 && m->streams[1].depth == 32 && m->mode == TRACE_MODE_CLOSED,
	      "streams");
	CHECK(!strcmp(m->source, "test") && !strcmp(m->options, "--some options here"), "strings");
	CHECK(trace_reader__has_index(r), "index");
	CHECK(trace_reader__event_count(r) == n, "count %llu",
	      (unsigned long long)trace_reader__event_count(r));
	CHECK(trace_reader__chunk_count(r) == 1 + (n - 777 + 4095) / 4096, "chunks %zu",
	      trace_reader__chunk_count(r));
	CHECK(trace_reader__stats(r) && trace_reader__stats(r)->dropped == 3 &&
		      trace_reader__stats(r)->end_ns == 123456789,
	      "stats");
	CHECK(trace_reader__is_sorted(r) == sorted, "sorted flag");
	got = read_all(r, back, n + 10);
	CHECK(got == (long)n, "read %ld: %s", got, trace_reader__error(r));
	for (size_t i = 0; i < n && got == (long)n; i++) {
		if (memcmp(&ev[i], &back[i], sizeof(*ev))) {
			CHECK(0, "event %zu differs (q %llu/%llu off %llu/%llu)", i,
			      (unsigned long long)ev[i].queue_ns, (unsigned long long)back[i].queue_ns,
			      (unsigned long long)ev[i].offset, (unsigned long long)back[i].offset);
			break;
		}
	}
	/* Rewind and read again: same events. */
	trace_reader__rewind(r);
	CHECK(read_all(r, back, n + 10) == (long)n && !memcmp(back, ev, n * sizeof(*ev)),
	      "reread");
	trace_reader__close(r);
out:
	free(ev);
	free(back);
}

static void test_seek(void)
{
	size_t n = 20000;
	struct io_event *ev = calloc(n, sizeof(*ev)), buf[64];
	char path[256], why[512];
	struct trace_reader *r;

	snprintf(path, sizeof(path), "%s/seek.ioreel", dir);
	make_events(ev, n, true);
	CHECK(write_trace(path, ev, n, 1000, 0, NULL) == 0, "write");
	r = trace_reader__open(path, 0, why, sizeof(why));
	CHECK(r, "open: %s", why);
	if (r) {
		for (int k = 0; k < 50; k++) {
			size_t at = rnd() % n;
			uint64_t t = ev[at].queue_ns;
			long got;

			trace_reader__seek(r, t);
			got = trace_reader__next(r, buf, 64);
			/* The chunk holding t starts at or before t and in the right chunk. */
			CHECK(got > 0 && buf[0].queue_ns <= t && (at / 1000) * 1000 < n &&
				      !memcmp(&buf[0], &ev[(at / 1000) * 1000], sizeof(buf[0])),
			      "seek %llu", (unsigned long long)t);
		}
		trace_reader__seek(r, UINT64_MAX - 1);
		CHECK(trace_reader__next(r, buf, 64) == 0, "seek past the end");
		CHECK(trace_reader__stats(r) == NULL, "no stats given");
		trace_reader__close(r);
	}
	free(ev);
}

static long count_events(const char *path, unsigned int flags, char *why, size_t wl,
			 uint64_t *damaged, bool *has_index)
{
	static struct io_event buf[1000];
	struct trace_reader *r = trace_reader__open(path, flags, why, wl);
	long total = 0, n;

	if (!r)
		return -errno;
	*has_index = trace_reader__has_index(r);
	while ((n = trace_reader__next(r, buf, 1000)) > 0)
		total += n;
	if (n < 0)
		snprintf(why, wl, "%s", trace_reader__error(r));
	*damaged = trace_reader__damaged_chunks(r);
	trace_reader__close(r);
	return n < 0 ? n : total;
}

static void copy_file(const char *from, const char *to, uint64_t len, uint64_t flip)
{
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	uint64_t i = 0;
	int c;

	while (a && b && i < len && (c = fgetc(a)) != EOF) {
		fputc(i == flip ? c ^ 0x5a : c, b);
		i++;
	}
	if (a)
		fclose(a);
	if (b)
		fclose(b);
}

static void test_damage(void)
{
	size_t n = 10000;
	struct io_event *ev = calloc(n, sizeof(*ev));
	char path[256], cut[256], why[512] = "";
	struct trace_chunk_info c2, c5;
	struct trace_reader *r;
	uint64_t size, idx_off, damaged;
	bool idx;
	long got;

	snprintf(path, sizeof(path), "%s/dmg.ioreel", dir);
	snprintf(cut, sizeof(cut), "%s/cut.ioreel", dir);
	make_events(ev, n, true);
	CHECK(write_trace(path, ev, n, 1000, 0, NULL) == 0, "write");
	r = trace_reader__open(path, 0, why, sizeof(why));
	if (!r) {
		CHECK(0, "open %s", why);
		return;
	}
	c2 = *trace_reader__chunk(r, 2);
	c5 = *trace_reader__chunk(r, 5);
	idx_off = trace_reader__chunk(r, 9)->file_offset + trace_reader__chunk(r, 9)->file_bytes;
	size = trace_reader__file_bytes(r);
	trace_reader__close(r);
	CHECK(idx_off < size, "index after chunks");

	/* Index cut off: scanned, every event there. */
	copy_file(path, cut, idx_off, UINT64_MAX);
	got = count_events(cut, 0, why, sizeof(why), &damaged, &idx);
	CHECK(got == (long)n && !idx, "no index: %ld %s", got, why);
	/* Cut mid-chunk (kill -9): the incomplete chunk is dropped, no error. */
	copy_file(path, cut, c5.file_offset + 100, UINT64_MAX);
	got = count_events(cut, 0, why, sizeof(why), &damaged, &idx);
	CHECK(got == 5000, "cut mid-chunk: %ld %s", got, why);
	copy_file(path, cut, c5.file_offset + 30, UINT64_MAX);
	got = count_events(cut, 0, why, sizeof(why), &damaged, &idx);
	CHECK(got == 5000, "cut mid-chunk-header: %ld %s", got, why);

	/* A flipped byte in chunk 2's data: error naming its offset; salvage skips exactly it. */
	for (int with_index = 1; with_index >= 0; with_index--) {
		char off[64];

		copy_file(path, cut, with_index ? size : idx_off, c2.file_offset + 200);
		got = count_events(cut, 0, why, sizeof(why), &damaged, &idx);
		snprintf(off, sizeof(off), "offset %llu ", (unsigned long long)c2.file_offset);
		CHECK(got < 0 && strstr(why, off) && strstr(why, "--salvage"), "damaged: %ld %s",
		      got, why);
		got = count_events(cut, TRACE_SALVAGE, why, sizeof(why), &damaged, &idx);
		CHECK(got == (long)n - 1000 && damaged == 1, "salvage: %ld %llu", got,
		      (unsigned long long)damaged);
		/* Chunk header damaged: without index, the scan resyncs on the next chunk. */
		copy_file(path, cut, with_index ? size : idx_off, c2.file_offset + 20);
		got = count_events(cut, 0, why, sizeof(why), &damaged, &idx);
		CHECK(got < 0 && strstr(why, off), "damaged header: %ld %s", got, why);
		got = count_events(cut, TRACE_SALVAGE, why, sizeof(why), &damaged, &idx);
		CHECK(got == (long)n - 1000 && damaged == 1, "salvage header: %ld %llu %s", got,
		      (unsigned long long)damaged, why);
	}
	free(ev);
}

static void write_bytes(const char *path, const void *p, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (f) {
		fwrite(p, 1, len, f);
		fclose(f);
	}
}

static void test_empty_and_hostile(void)
{
	char path[256], bad[256], why[512];
	struct trace_reader *r;
	struct io_event e;
	uint8_t *buf;
	long sz;
	FILE *f;

	snprintf(path, sizeof(path), "%s/empty.ioreel", dir);
	snprintf(bad, sizeof(bad), "%s/bad.ioreel", dir);
	CHECK(write_trace(path, NULL, 0, 0, 0, NULL) == 0, "empty trace");
	r = trace_reader__open(path, 0, why, sizeof(why));
	CHECK(r && trace_reader__event_count(r) == 0 && trace_reader__has_index(r) &&
		      trace_reader__next(r, &e, 1) == 0,
	      "empty trace reads: %s", why);
	trace_reader__close(r);

	write_bytes(bad, "", 0);
	CHECK(!trace_reader__open(bad, 0, why, sizeof(why)) && strstr(why, "empty file"), "%s",
	      why);
	write_bytes(bad, "hello world, not a trace at all\n", 32);
	CHECK(!trace_reader__open(bad, 0, why, sizeof(why)) && strstr(why, "bad magic at offset 0"),
	      "%s", why);
	{
		uint8_t h[32] = { 0x50, 0x2a, 0x4d, 0x18, 0xff, 0xff, 0xff, 0x7f, 'I', 'O', 'R', 'L' };

		write_bytes(bad, h, sizeof(h));
		CHECK(!trace_reader__open(bad, 0, why, sizeof(why)) && strstr(why, "offset 4"),
		      "huge header: %s", why);
		h[4] = 8;
		h[5] = h[6] = h[7] = 0;
		h[12] = 2; /* major 2 */
		write_bytes(bad, h, 16);
		CHECK(!trace_reader__open(bad, 0, why, sizeof(why)) && strstr(why, "newer"),
		      "newer major: %s", why);
		h[12] = 1;
		h[4] = 14; /* a tag header that claims more than is there */
		h[16] = 1;
		h[18] = 0xff;
		write_bytes(bad, h, 24);
		CHECK(!trace_reader__open(bad, 0, why, sizeof(why)), "bad tag accepted");
	}
	/* Random mutations of a real file: errors or events, never a crash or a hang. */
	f = fopen(path, "rb");
	snprintf(path, sizeof(path), "%s/seek.ioreel", dir);
	if (f)
		fclose(f);
	f = fopen(path, "rb");
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	buf = malloc(sz);
	if (fread(buf, 1, sz, f) != (size_t)sz)
		CHECK(0, "read");
	fclose(f);
	for (int it = 0; it < 300; it++) {
		uint8_t *m = malloc(sz);
		long len = it % 3 ? sz : (long)(rnd() % sz);
		static struct io_event out[512];

		memcpy(m, buf, sz);
		for (int k = 0; k < 1 + it % 8; k++)
			m[rnd() % sz] ^= 1 << (rnd() % 8);
		write_bytes(bad, m, len);
		r = trace_reader__open(bad, it % 2 ? TRACE_SALVAGE : 0, why, sizeof(why));
		if (r) {
			while (trace_reader__next(r, out, 512) > 0)
				;
			trace_reader__close(r);
		}
		free(m);
	}
	free(buf);
}

/* A write error (file size limit: EFBIG) is returned with the offset; the file stays readable. */
static void test_write_error(void)
{
	size_t n = 100000;
	struct io_event *ev = calloc(n, sizeof(*ev));
	struct trace_writer_opts o = { .chunk_events = 1000 };
	struct rlimit old, lim;
	struct trace_meta m;
	struct trace_writer *w;
	struct stat before, after;
	char path[256], why[512];
	bool idx;
	uint64_t damaged;
	long got;
	int err = 0;

	snprintf(path, sizeof(path), "%s/efbig.ioreel", dir);
	make_events(ev, n, true);
	make_meta(&m);
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 100000;
	setrlimit(RLIMIT_FSIZE, &lim);
	w = trace_writer__open(path, &m, &o);
	CHECK(w, "open: %s", strerror(errno));
	for (size_t i = 0; w && i < n && !err; i += 500)
		err = trace_writer__add(w, ev + i, 500);
	CHECK(err == -EFBIG, "want -EFBIG, got %d", err);
	if (w) {
		CHECK(strstr(trace_writer__error(w), "at offset"), "%s", trace_writer__error(w));
		trace_writer__abort(w);
	}
	setrlimit(RLIMIT_FSIZE, &old);
	got = count_events(path, 0, why, sizeof(why), &damaged, &idx);
	CHECK(got > 0 && got % 1000 == 0 && !idx, "after EFBIG: %ld %s", got, why);

	/* A device as output: the error comes back, and the node's mode is left alone. */
	if (!stat("/dev/full", &before)) {
		w = trace_writer__open("/dev/full", &m, NULL);
		CHECK(!w && errno == ENOSPC, "/dev/full: %s", strerror(errno));
		CHECK(!stat("/dev/full", &after) && after.st_mode == before.st_mode,
		      "/dev/full mode changed");
	}
	free(ev);
}

/*
 * A close whose index does not fit after the counters (file size limit: EFBIG) tries the index
 * again, and writes the counters frame once: written, it is not written again before it.
 */
static void test_counters_once(void)
{
	static const struct trace_counter c = { "dropped_ring", 7 };
	const uint64_t frame = 20 + 2 + 12 + 8 + 4; /* a counters frame of that one counter */
	struct io_event ev[500];
	struct trace_meta m;
	struct trace_writer *w;
	struct rlimit old, lim;
	char path[256], buf[65536];
	uint64_t at;
	int fd, tags = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/counters.ioreel", dir);
	make_events(ev, 500, true);
	make_meta(&m);
	w = trace_writer__open(path, &m, NULL);
	CHECK(w, "open: %s", strerror(errno));
	if (!w)
		return;
	CHECK(!trace_writer__add(w, ev, 500) && !trace_writer__flush(w) &&
	      !trace_writer__set_counters(w, &c, 1), "%s", trace_writer__error(w));
	at = trace_writer__bytes(w);
	/* room for the counters twice, not for the counters and the index */
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = at + 2 * frame;
	setrlimit(RLIMIT_FSIZE, &lim);
	CHECK(trace_writer__close(w, NULL) == -EFBIG, "close: not EFBIG");
	setrlimit(RLIMIT_FSIZE, &old);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && lseek(fd, (off_t)at, SEEK_SET) == (off_t)at, "%s: %s", path,
	      strerror(errno));
	n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	for (ssize_t i = 0; i + 4 <= n; i++)
		tags += !memcmp(buf + i, "IOFC", 4);
	CHECK(n == (ssize_t)frame && tags == 1, "after the last chunk: %zd bytes, %d counters "
	      "frames (want %llu, 1)", n, tags, (unsigned long long)frame);
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	char cmd[300];
	struct stat st;
	char path[256];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_roundtrip(true, false);
	test_roundtrip(false, false);
	test_roundtrip(true, true);
	test_seek();
	test_damage();
	test_empty_and_hostile();
	test_write_error();
	test_counters_once();
	snprintf(path, sizeof(path), "%s/rt.ioreel", dir);
	CHECK(!stat(path, &st) && (st.st_mode & 0777) == 0600, "mode %o", st.st_mode & 0777);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", dir);
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
