// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* synth generator: what it generates has the requested mix, sizes, alignment, depth, flush
 * cadence, arrivals and determinism; fio job files import with the unmodeled options listed. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "synth/synth.h"

#include "tests/unit/check.h"

struct evs {
	struct io_event *e;
	size_t n, cap;
};

static int collect(void *ctx, const struct io_event *ev)
{
	struct evs *v = ctx;

	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 4096;
		v->e = realloc(v->e, v->cap * sizeof(*v->e));
		if (!v->e)
			return -ENOMEM;
	}
	v->e[v->n++] = *ev;
	return 0;
}

static void set(struct synth_job *j, const char *k, const char *v)
{
	char why[256];
	int err = synth_job_set(j, k, v, why, sizeof(why));

	CHECK(!err, "%s=%s: %d %s", k, v ? v : "(flag)", err, why);
}

static struct synth_spec *one(void)
{
	struct synth_spec *s = calloc(1, sizeof(*s));

	s->njobs = 1;
	synth_job_defaults(&s->jobs[0]);
	return s;
}

static void gen(struct synth_spec *s, struct evs *v, struct trace_meta *m)
{
	char why[256];

	v->n = 0;
	memset(m, 0, sizeof(*m));
	CHECK(!synth_spec_resolve(s, 0, why, sizeof(why)), "resolve: %s", why);
	CHECK(!synth_spec_meta(s, m, "t", 0, why, sizeof(why)), "meta: %s", why);
	CHECK(!synth_generate(s, collect, v), "generate failed");
}

static void test_mix_sizes_alignment_fsync(void)
{
	struct synth_spec *s = one();
	struct synth_job *j = &s->jobs[0];
	struct trace_meta *m = calloc(1, sizeof(*m));
	struct evs v = { 0 };
	uint64_t reads = 0, data = 0, bs4 = 0, bs16 = 0, bs64 = 0;

	set(j, "rw", "randrw");
	set(j, "rwmixread", "70");
	set(j, "bssplit", "4k/50:16k/30:64k/20");
	set(j, "size", "64m");
	set(j, "offset", "1m");
	set(j, "io_size", "10g"); /* passes over the region until number_ios, as fio */
	set(j, "number_ios", "20000");
	set(j, "norandommap", NULL); /* the shares as given (the map cuts sizes, below) */
	set(j, "numjobs", "2");
	set(j, "iodepth", "16");
	set(j, "fsync", "8");
	gen(s, &v, m);
	CHECK(m->mode == TRACE_MODE_CLOSED && m->nstreams == 2 && m->streams[0].depth == 16 &&
		      m->streams[1].depth == 16,
	      "closed, 2 streams of depth 16 (mode %u n %u)", m->mode, m->nstreams);
	CHECK(m->devices[0].size_bytes == (65ULL << 20), "device size = offset + size");
	uint64_t since[2] = { 0 }, writes[2] = { 0 }, flushes[2] = { 0 }, per[2] = { 0 };

	for (size_t i = 0; i < v.n; i++) {
		const struct io_event *e = &v.e[i];

		CHECK(e->queue_ns == i, "closed events carry their order in queue_ns");
		CHECK(e->issue_ns == IO_TS_NONE && e->complete_ns == IO_TS_NONE, "no issue/complete");
		CHECK(e->stream < 2, "stream %u", e->stream);
		if (e->stream >= 2)
			break;
		if (e->op == IO_OP_FLUSH) {
			CHECK(since[e->stream] == 8, "flush after %llu writes, not 8",
			      (unsigned long long)since[e->stream]);
			since[e->stream] = 0;
			flushes[e->stream]++;
			continue;
		}
		data++;
		per[e->stream]++;
		reads += e->op == IO_OP_READ;
		if (e->op == IO_OP_WRITE) {
			since[e->stream]++;
			writes[e->stream]++;
		}
		bs4 += e->length == 4096;
		bs16 += e->length == 16384;
		bs64 += e->length == 65536;
		CHECK(e->offset % 4096 == 0, "offset %llu not 4k-aligned",
		      (unsigned long long)e->offset);
		CHECK(e->offset >= (1 << 20) && e->offset + e->length <= (65ULL << 20),
		      "I/O outside [offset, offset+size)");
	}
	CHECK(per[0] == 20000 && per[1] == 20000, "number_ios per job: %llu %llu",
	      (unsigned long long)per[0], (unsigned long long)per[1]);
	for (int k = 0; k < 2; k++)
		CHECK(flushes[k] == writes[k] / 8, "stream %d: %llu flushes for %llu writes", k,
		      (unsigned long long)flushes[k], (unsigned long long)writes[k]);
	printf("randrw70: reads %.4f, 4k %.4f 16k %.4f 64k %.4f\n", (double)reads / data,
	       (double)bs4 / data, (double)bs16 / data, (double)bs64 / data);
	CHECK(fabs((double)reads / data - 0.70) < 0.01, "read share %.4f", (double)reads / data);
	CHECK(fabs((double)bs4 / data - 0.5) < 0.01 && fabs((double)bs16 / data - 0.3) < 0.01 &&
		      fabs((double)bs64 / data - 0.2) < 0.01,
	      "bssplit shares");
	/* Streams interleave through the file (a replayer reading chunk by chunk feeds both). */
	CHECK(v.e[0].stream != v.e[1].stream, "streams interleave");
	free(v.e);
	free(m);
	free(s);
}

/* fio's random map: in one pass no block is touched twice, and with mixed sizes an I/O is cut
 * to the free blocks it starts on, so the pass covers the region exactly. */
static void test_random_map(void)
{
	struct synth_spec *s = one();
	struct synth_job *j = &s->jobs[0];
	struct trace_meta *m = calloc(1, sizeof(*m));
	struct evs v = { 0 };
	uint64_t n = (8 << 20) / 4096, bytes = 0, cut = 0;
	uint8_t *used = calloc(n, 1);

	set(j, "rw", "randwrite");
	set(j, "bssplit", "4k/50:16k/30:64k/20");
	set(j, "size", "8m");
	gen(s, &v, m);
	for (size_t i = 0; i < v.n; i++) {
		const struct io_event *e = &v.e[i];

		bytes += e->length;
		cut += e->length != 4096 && e->length != 16384 && e->length != 65536;
		for (uint64_t b = e->offset / 4096; b < (e->offset + e->length) / 4096; b++) {
			CHECK(!used[b], "block %llu written twice in one pass", (unsigned long long)b);
			used[b] = 1;
		}
	}
	CHECK(bytes == 8 << 20, "one pass covers the region exactly: %llu", (unsigned long long)bytes);
	CHECK(cut > 0, "some I/Os cut short by the map, as fio's");
	printf("random map: %zu I/Os, %llu cut short\n", v.n, (unsigned long long)cut);
	free(used);
	free(v.e);
	free(m);
	free(s);
}

static void test_seq_and_bytes(void)
{
	struct synth_spec *s = one();
	struct synth_job *j = &s->jobs[0];
	struct trace_meta *m = calloc(1, sizeof(*m));
	struct evs v = { 0 };

	set(j, "rw", "read");
	set(j, "bs", "128k");
	set(j, "size", "1M");
	set(j, "number-ios", "20");
	gen(s, &v, m);
	CHECK(v.n == 8, "number_ios stops a job but does not extend its pass (fio): %zu", v.n);
	set(j, "io_size", "2560k");
	gen(s, &v, m);
	CHECK(v.n == 20, "20 I/Os, got %zu", v.n);
	for (size_t i = 0; i < v.n; i++)
		CHECK(v.e[i].offset == (i % 8) * 131072 && v.e[i].op == IO_OP_READ,
		      "sequential wraps at size: #%zu at %llu", i, (unsigned long long)v.e[i].offset);

	/* randwrite without a count: size/bs I/Os, each block once (fio's random map) */
	j = &s->jobs[0];
	synth_job_defaults(j);
	set(j, "rw", "randwrite");
	set(j, "size", "1M");
	set(j, "ioengine", "psync");
	set(j, "iodepth", "32");
	gen(s, &v, m);
	CHECK(v.n == 256, "1M/4k = 256 I/Os, got %zu", v.n);
	CHECK(m->streams[0].depth == 1, "psync keeps one I/O in flight whatever iodepth says");
	uint8_t seen[256] = { 0 };

	for (size_t i = 0; i < v.n; i++)
		seen[v.e[i].offset / 4096]++;
	for (int i = 0; i < 256; i++)
		CHECK(seen[i] == 1, "block %d written %d times in one pass", i, seen[i]);

	/* separate read,write block sizes */
	synth_job_defaults(j);
	set(j, "rw", "rw");
	set(j, "bs", "4k,16k");
	set(j, "size", "1M");
	set(j, "number_ios", "1000");
	gen(s, &v, m);
	for (size_t i = 0; i < v.n; i++)
		CHECK(v.e[i].length == (v.e[i].op == IO_OP_READ ? 4096u : 16384u), "bs=4k,16k");
	free(v.e);
	free(m);
	free(s);
}

static void test_timed(void)
{
	struct synth_spec *s = one();
	struct synth_job *j = &s->jobs[0];
	struct trace_meta *m = calloc(1, sizeof(*m));
	struct evs v = { 0 };

	set(j, "rw", "randread");
	set(j, "size", "64m");
	set(j, "rate_iops", "1000");
	set(j, "arrivals", "poisson");
	set(j, "runtime", "10");
	set(j, "time_based", NULL);
	gen(s, &v, m);
	CHECK(m->mode == TRACE_MODE_TIMED && !m->time_based, "rate => timed trace");
	printf("poisson 1000/s for 10 s: %zu arrivals\n", v.n);
	CHECK(fabs((double)v.n - 10000) < 400, "poisson count %zu (expected 10000 +- 4 sigma)", v.n);
	double s1 = 0, s2 = 0;

	for (size_t i = 1; i < v.n; i++) {
		double g = (double)(v.e[i].queue_ns - v.e[i - 1].queue_ns);

		CHECK(v.e[i].queue_ns >= v.e[i - 1].queue_ns, "timed events sorted");
		s1 += g;
		s2 += g * g;
	}
	double mean = s1 / (v.n - 1), cv = sqrt(s2 / (v.n - 1) - mean * mean) / mean;

	CHECK(fabs(mean - 1e6) < 3e4 && fabs(cv - 1) < 0.05, "poisson gaps mean %.0f cv %.3f",
	      mean, cv);
	CHECK(v.e[v.n - 1].queue_ns < 10000000000ULL, "nothing after the runtime");

	/* uniform: exactly 1/rate apart, 2 jobs => 2 streams merged in time order */
	set(j, "arrivals", "uniform");
	set(j, "numjobs", "2");
	gen(s, &v, m);
	CHECK(v.n == 20000, "uniform 2 x 1000/s x 10 s = 20000, got %zu", v.n);
	for (size_t i = 2; i < v.n; i++)
		CHECK(v.e[i].queue_ns - v.e[i - 2].queue_ns == 1000000, "uniform gap");
	free(v.e);
	free(m);
	free(s);
}

static uint64_t digest(const struct evs *v)
{
	uint64_t h = 1469598103934665603ULL;
	const unsigned char *p = (const void *)v->e;

	for (size_t i = 0; i < v->n * sizeof(*v->e); i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

static void test_determinism(void)
{
	struct synth_spec *s = one();
	struct synth_job *j = &s->jobs[0];
	struct trace_meta *m = calloc(1, sizeof(*m));
	struct evs v = { 0 };

	set(j, "rw", "randrw");
	set(j, "size", "16m");
	set(j, "random_distribution", "zipf:1.2");
	set(j, "numjobs", "3");
	set(j, "seed", "99");
	gen(s, &v, m);
	uint64_t a = digest(&v);

	gen(s, &v, m);
	CHECK(a == digest(&v), "same seed, same events");
	set(j, "seed", "100");
	gen(s, &v, m);
	CHECK(a != digest(&v), "another seed, other events");
	free(v.e);
	free(m);
	free(s);
}

static void test_options(void)
{
	struct synth_job j;
	char why[256];

	synth_job_defaults(&j);
	set(&j, "bssplit", "4k:8k");
	CHECK(j.bs[0].n == 2 && j.bs[0].e[0].pct == 50 && j.bs[0].e[1].pct == 50,
	      "shares left out split the rest");
	set(&j, "bs", "16K");
	CHECK(j.bs[1].e[0].bs == 16384 && j.bs[1].n == 1, "16K = 16384");
	set(&j, "size", "10G");
	CHECK(j.size == 10ULL << 30, "10G, k/m/g powers of 1024 as fio reads them");
	CHECK(synth_job_set(&j, "rw", "randomread", why, sizeof(why)) == -EINVAL, "bad rw");
	CHECK(synth_job_set(&j, "bssplit", "4k/60:8k/60", why, sizeof(why)) == -EINVAL, ">100%%");
	CHECK(synth_job_set(&j, "bs", "4k-16k", why, sizeof(why)) == -EINVAL, "bsrange form");
	CHECK(!synth_job_set(&j, "verify", "md5", why, sizeof(why)) && j.verify, "verify reads back");
	CHECK(!synth_job_set(&j, "filename", "x", why, sizeof(why)) && !strcmp(j.file, "x"),
	      "filename names the file jobs share");
	CHECK(synth_job_set(&j, "directory", "/d", why, sizeof(why)) == -EALREADY, "no effect");
	CHECK(synth_job_set(&j, "direct", "0", why, sizeof(why)) == -EALREADY && strstr(why, "buffered"),
	      "buffered: accepted with a note");
	CHECK(synth_job_set(&j, "ioengine", "net", why, sizeof(why)) == -EOPNOTSUPP &&
		      strstr(why, "network"),
	      "net engine refused: %s", why);
	CHECK(synth_job_set(&j, "frobnicate", "1", why, sizeof(why)) == -ENOENT, "unknown");
	set(&j, "size", "4kib");
	CHECK(j.size == 4000, "fio reads 4kib as 4000 with kb_base=1024: %llu",
	      (unsigned long long)j.size);
	set(&j, "size", "25%");
	CHECK(j.size == 0 && j.size_ppm == 250000, "size=25%% is a share of the file");
	set(&j, "rw", "read:-8k");
	CHECK(!j.random && j.seq_add == -8192, "rw=read:-8k walks backwards");
	set(&j, "rw", "randread:8");
	CHECK(j.random && j.rand_run == 8, "rw=randread:8: a new offset every 8 I/Os");
	set(&j, "bsrange", "1k-16k,2k-4k");
	CHECK(j.bs[0].range_lo == 1024 && j.bs[0].range_hi == 16384 && j.bs[1].range_lo == 2048,
	      "bsrange per direction");
	set(&j, "random_distribution", "zoned:50/5:30/15:20/");
	CHECK(j.dist.kind == DIST_ZONED && j.dist.nzones == 3 && j.dist.zones[2].size == 80,
	      "zoned: the last range takes what is left");
	CHECK(synth_job_set(&j, "random_distribution", "zipf:1", why, sizeof(why)) == -EINVAL,
	      "zipf:1");
}

static void test_fio_job(void)
{
	char path[] = "/tmp/ioreel-test-fiojob.XXXXXX", why[512];
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct synth_spec *s = calloc(1, sizeof(*s));
	struct fiojob_result res;

	fprintf(f, "; the issue's job, plus options we do not model\n"
		   "[global]\nruntime=120\ntime_based\ngroup_reporting\n"
		   "directory=/var/fio-test\nverify=md5\n\n"
		   "[innodb-data]\nfilename=test-innodb.dat\nbs=16K\nioengine=psync\n"
		   "rw=randread\nsize=10G\ndirect=1\nnumjobs=128\n\n"
		   "[other]\nrw=write\nsize=1m\nrate=10m\n");
	fclose(f);
	CHECK(!fiojob_load(path, "innodb-data", NULL, s, &res, why, sizeof(why)), "load: %s", why);
	struct synth_job *j = &s->jobs[0];

	CHECK(s->njobs == 1 && !strcmp(j->name, "innodb-data"), "one section selected");
	CHECK(j->random && j->ddirs == 1 && j->bs[0].e[0].bs == 16384 && j->size == 10ULL << 30 &&
		      j->numjobs == 128 && j->sync_engine && j->time_based &&
		      j->runtime_ns == 120000000000ULL,
	      "innodb-data parsed");
	printf("ignored: '%s'\n", res.ignored);
	CHECK(strstr(res.ignored, "directory") && strstr(res.ignored, "group_reporting") &&
		      !strstr(res.ignored, "rate"),
	      "ignored options listed");
	CHECK(!strcmp(j->file, "test-innodb.dat") && j->verify, "filename and verify kept");
	struct trace_meta *m = calloc(1, sizeof(*m));

	CHECK(!synth_spec_resolve(s, 0, why, sizeof(why)), "resolve: %s", why);
	CHECK(!synth_spec_meta(s, m, NULL, 0, why, sizeof(why)) && m->nstreams == 128 &&
		      m->streams[127].depth == 1 && m->time_based &&
		      m->runtime_ns == 120000000000ULL,
	      "128 psync jobs = 128 streams of depth 1, time_based 120 s");
	/* both sections: the [other] job has a rate, which then caps a closed loop (format
	 * 1.7) instead of timing the trace */
	CHECK(!fiojob_load(path, NULL, NULL, s, &res, why, sizeof(why)) && s->njobs == 2, "all: %s",
	      why);
	CHECK(!synth_spec_resolve(s, 0, why, sizeof(why)), "resolve: %s", why);
	CHECK(!synth_spec_meta(s, m, NULL, 0, why, sizeof(why)) &&
		      m->mode == TRACE_MODE_CLOSED && m->nstreams == 129 &&
		      !(m->streams[0].flags & TRACE_STREAM_RATE) &&
		      (m->streams[128].flags & TRACE_STREAM_RATE),
	      "rated beside unrated: a closed trace, the rate on the rated stream: %s", why);
	CHECK(fiojob_load(path, "nope", NULL, s, &res, why, sizeof(why)) == -ENOENT,
	      "absent section");
	f = fopen(path, "w");
	fprintf(f, "[a]\nsize=1m\nbs=lots\n");
	fclose(f);
	CHECK(fiojob_load(path, NULL, NULL, s, &res, why, sizeof(why)) == -EINVAL &&
		      strstr(why, ":3:"),
	      "bad value reported with its line: %s", why);
	unlink(path);
	free(m);
	free(s);
}

static void test_innodb(void)
{
	struct synth_spec *s = calloc(1, sizeof(*s));
	struct trace_meta *m = calloc(1, sizeof(*m));
	struct evs v = { 0 };
	char why[256];

	s->innodb = true;
	synth_innodb_defaults(&s->inno);
	CHECK(!synth_innodb_set(&s->inno, "size", "256m", why, sizeof(why)), "%s", why);
	CHECK(!synth_innodb_set(&s->inno, "numjobs", "4", why, sizeof(why)), "%s", why);
	CHECK(!synth_innodb_set(&s->inno, "commits", "500", why, sizeof(why)), "%s", why);
	CHECK(!synth_innodb_set(&s->inno, "batches", "5", why, sizeof(why)), "%s", why);
	CHECK(!synth_innodb_set(&s->inno, "number_ios", "1000", why, sizeof(why)), "%s", why);
	CHECK(synth_innodb_set(&s->inno, "rwmixread", "5", why, sizeof(why)) == -EINVAL,
	      "options outside the model are refused");
	gen(s, &v, m);
	const struct synth_innodb *in = &s->inno;
	uint64_t log0 = in->data_size, dw0 = log0 + in->log_size;

	CHECK(m->nstreams == 6 && m->streams[5].depth == in->cleaner_depth, "4 readers+log+cleaner");
	CHECK(v.n == 4 * 1000 + 500 * 2 + 5 * (2 * 64 + 2), "event count %zu", v.n);
	int last_log_write = 0, in_batch = 0;

	for (size_t i = 0; i < v.n; i++) {
		const struct io_event *e = &v.e[i];

		if (e->stream < 4) {
			CHECK(e->op == IO_OP_READ && e->length == 16384 && e->offset % 16384 == 0 &&
				      e->offset + 16384 <= log0,
			      "page read in the data area");
		} else if (e->stream == 4) {
			if (e->op == IO_OP_WRITE) {
				CHECK(!last_log_write, "every redo write is followed by a flush");
				CHECK(e->length >= 512 && e->length <= 65536 && e->length % 512 == 0 &&
					      e->offset >= log0 && e->offset + e->length <= dw0,
				      "redo write %u at %llu", e->length,
				      (unsigned long long)e->offset);
				last_log_write = 1;
			} else {
				CHECK(e->op == IO_OP_FLUSH && last_log_write, "flush after commit");
				last_log_write = 0;
			}
		} else {
			int pos = in_batch++ % 130;

			if (pos < 64)
				CHECK(e->op == IO_OP_WRITE && e->offset == dw0 + pos * 16384ULL,
				      "doublewrite slot %d", pos);
			else if (pos == 64 || pos == 129)
				CHECK(e->op == IO_OP_FLUSH, "flush after the batch (%d)", pos);
			else
				CHECK(e->op == IO_OP_WRITE && e->offset + 16384 <= log0,
				      "page write in place");
		}
	}
	free(v.e);
	free(m);
	free(s);
}

int main(void)
{
	test_mix_sizes_alignment_fsync();
	test_random_map();
	test_seq_and_bytes();
	test_timed();
	test_determinism();
	test_options();
	test_fio_job();
	test_innodb();
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
