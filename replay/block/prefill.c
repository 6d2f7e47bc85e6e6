// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Before the clock starts: how much of what the trace reads was never written on each target,
 * a one-line warning per target, and --prefill, which writes those regions once with
 * incompressible data (what fio's lay-out and its ssd-steadystate example do for the same
 * reason). The prefill's time is not part of the results: the replay's clock starts later.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "replay/block/block.h"
#include "replay/block/prefill.h"
#include "replay/core/run.h"
#include "util/cli.h"
#include "util/fileio.h"

_Static_assert(REPLAY_MAX_TARGETS == TRACE_MAX_DEVICES, "one replay_unwritten per trace device");

#define PREFILL_CHUNK (4u << 20) /* per write: a full stripe of most arrays */

/* The option string the target came from, which outlives the run (the result points to it). */
static const char *opts_path(const struct replay_opts *o, const char *path)
{
	for (unsigned int k = 0; k < o->nmaps; k++)
		if (!strcmp(o->maps[k].path, path))
			return o->maps[k].path;
	return o->target && !strcmp(o->target, path) ? o->target : "?";
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Never-written bytes in every run of map: 0 or -errno (the probe is then of no use). */
static int count_map(const struct uw_probe *p, struct granmap *m, uint64_t size,
		     uint64_t *unwritten)
{
	uint64_t pos = 0, a, b, region = 0;
	int ret = 0;

	*unwritten = 0;
	while (!ret && granmap_next_run(m, &pos, size, &a, &b)) {
		region += b - a;
		if (p->per_extent)
			ret = uw_sum(p, a, b, 1, unwritten);
	}
	if (!p->per_extent)
		*unwritten = uw_bound(p, region);
	return ret;
}

static void measure(struct replay_unwritten *u, const struct target *t, struct granmap *m,
		    bool before)
{
	struct uw_probe p;
	uint64_t n = 0;

	uw_probe_open(&p, t);
	if (p.method && count_map(&p, m, t->size, &n))
		p.method = NULL;
	uw_probe_close(&p);
	if (before) {
		u->method = p.method;
		u->lower_bound = p.lower_bound;
		u->found_bytes = u->start_bytes = n;
	} else if (p.method) {
		u->start_bytes = n;
	}
}

struct filler {
	struct run *r;
	const char *path;
	int fd;
	char *buf;
	uint64_t seed, done, total, t0, next_progress;
	uint64_t fail_at;
};

static void progress(struct filler *f, bool last)
{
	uint64_t now = now_mono_ns();
	char a[32], b[32];

	if (!f->r->o->progress || (!last && now < f->next_progress))
		return;
	f->next_progress = now + 1000000000ULL;
	if (last) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	fprintf(stderr, "\r\033[Kprefill %s: %s of %s (%.0f%%), %.0f MiB/s", f->path,
		fmt_bytes(f->done, a, sizeof(a)), fmt_bytes(f->total, b, sizeof(b)),
		share(f->done, f->total),
		now > f->t0 ? (double)f->done / 1048576.0 * 1e9 / (double)(now - f->t0) : 0.0);
}

static int fill_range(void *arg, uint64_t from, uint64_t to)
{
	struct filler *f = arg;

	for (uint64_t off = from; off < to;) {
		size_t n = to - off < PREFILL_CHUNK ? (size_t)(to - off) : PREFILL_CHUNK;
		int ret;

		if (replay_stop)
			return -EINTR;
		/* every 4 KiB block different, so deduplicating targets store them all */
		for (size_t k = 0; k < n; k += 4096)
			*(uint64_t *)(f->buf + k) = (off + k) ^ f->seed;
		ret = pwrite_whole(f->fd, f->buf, n, off);
		if (ret) {
			f->fail_at = off;
			return ret;
		}
		off += n;
		f->done += n;
		progress(f, false);
	}
	return 0;
}

/* Writes what the probe says was never written (or, when it cannot say which, all) of m. */
static int fill_map(struct filler *f, const struct uw_probe *p, struct granmap *m,
		    const struct target *t)
{
	const struct uw_probe all = { 0 }, *q = p->per_extent ? p : &all;
	uint64_t pos = 0, a, b;
	int ret = 0;

	while (!ret && granmap_next_run(m, &pos, t->size, &a, &b))
		ret = uw_sum(q, a, b, t->lbs, &f->total);
	pos = 0;
	while (!ret && granmap_next_run(m, &pos, t->size, &a, &b))
		ret = uw_walk(q, a, b, t->lbs, fill_range, f);
	progress(f, true);
	if (!ret && fdatasync(f->fd))
		ret = -errno;
	return ret;
}

static void say_found(struct run *r, const struct replay_unwritten *u, const char *what_next)
{
	char a[32];

	run_warn(r, "target %s: %s%.1f%% of the %s this trace reads there was never written (%s): "
		    "reads of it return zeroes without reaching the storage, far faster than it "
		    "is; %s",
		 u->path, u->lower_bound ? "at least " : "", share(u->found_bytes, u->region_bytes),
		 fmt_bytes(u->region_bytes, a, sizeof(a)), u->method, what_next);
}

/* A write descriptor for the prefill: the replay's own if it writes, else one opened and
 * vetted as a writing replay's would be (mounted, held, signature: refused without --force). */
static int open_for_prefill(struct run *r, const struct target *t, struct target *wt, char *err,
			    size_t errlen)
{
	struct target_open_opts to = { .writes = true, .direct = !r->o->buffered,
				       .force = r->o->force, .keep = r->o->trace };
	int fl = fcntl(t->fd, F_GETFL);

	if (fl >= 0 && (fl & O_ACCMODE) == O_RDWR) {
		memset(wt, 0, sizeof(*wt));
		wt->fd = -1;
		return t->fd;
	}
	if (target_open(wt, t->path, &to, err, errlen))
		return -1;
	return wt->fd;
}

static int prefill_one(struct run *r, unsigned int i, struct granmap *m, char *err,
		       size_t errlen)
{
	const struct target *t = &brun_of(r)->tg[i];
	struct replay_unwritten *u = &r->res->unwritten[i];
	bool forced = r->o->prefill == REPLAY_PREFILL_ON;
	struct filler f = { .r = r, .path = u->path, .seed = now_mono_ns() * 0x9E3779B97F4A7C15ULL };
	struct target wt;
	struct uw_probe p;
	char a[32], why[1024] = "";
	int ret;

	f.fd = open_for_prefill(r, t, &wt, why, sizeof(why));
	if (f.fd < 0) {
		if (forced) {
			snprintf(err, errlen, "--prefill: %s", why);
			return -EPERM;
		}
		run_warn(r, "cannot prefill %s, so it is measured as it is: %s", u->path, why);
		return 0;
	}
	if (posix_memalign((void **)&f.buf, 4096, PREFILL_CHUNK)) {
		target_close(&wt);
		snprintf(err, errlen, "out of memory for the prefill buffer");
		return -ENOMEM;
	}
	pattern_random(f.buf, PREFILL_CHUNK);
	uw_probe_open(&p, t);
	if (u->method)
		run_warn(r, "prefilling %s: %s%.1f%% of the %s this trace reads there was never "
			    "written (%s); writing it once before the clock starts",
			 u->path, u->lower_bound ? "at least " : "",
			 share(u->found_bytes, u->region_bytes),
			 fmt_bytes(u->region_bytes, a, sizeof(a)), u->method);
	else
		run_warn(r, "prefilling %s: writing the %s this trace reads there once before the "
			    "clock starts (whether it was written before cannot be told here)",
			 u->path, fmt_bytes(u->region_bytes, a, sizeof(a)));
	f.t0 = now_mono_ns();
	ret = fill_map(&f, &p, m, t);
	uw_probe_close(&p);
	u->prefilled_bytes = f.done;
	u->prefill_ns = now_mono_ns() - f.t0;
	free(f.buf);
	target_close(&wt);
	if (ret == -EINTR)
		snprintf(err, errlen, "interrupted while prefilling %s (%s of it written)", u->path,
			 fmt_bytes(f.done, a, sizeof(a)));
	else if (ret)
		snprintf(err, errlen, "prefilling %s failed at offset %llu: %s", u->path,
			 (unsigned long long)f.fail_at, strerror(-ret));
	return ret;
}

static int one_target(struct run *r, unsigned int i, struct granmap *m, char *err,
		      size_t errlen)
{
	const struct replay_opts *o = r->o;
	const struct target *t = &brun_of(r)->tg[i];
	struct replay_unwritten *u = &r->res->unwritten[i];
	uint64_t pos = 0, a, b;
	int ret;

	u->path = opts_path(o, t->path);
	while (granmap_next_run(m, &pos, t->size, &a, &b))
		u->region_bytes += b - a;
	measure(u, t, m, true);
	if (o->prefill == REPLAY_PREFILL_ON ||
	    (o->prefill == REPLAY_PREFILL_AUTO && o->allow_writes && u->found_bytes)) {
		ret = prefill_one(r, i, m, err, errlen);
		if (!ret && u->prefilled_bytes)
			measure(u, t, m, false);
		return ret;
	}
	if (!u->found_bytes || o->prefill == REPLAY_PREFILL_OFF)
		return 0;
	if (o->prefill == REPLAY_PREFILL_AUTO)
		say_found(r, u, "give --allow-writes to prefill it first, or --no-prefill to "
				"measure it as it is");
	else
		say_found(r, u, "--prefill (with --allow-writes) writes it once first");
	return 0;
}

int prefill_targets(struct run *r, char *err, size_t errlen)
{
	struct brun *b = brun_of(r);
	struct granmap *maps;
	int ret = 0;

	if (r->o->prefill == REPLAY_PREFILL_ON && !r->o->allow_writes) {
		snprintf(err, errlen, "--prefill writes the regions the trace reads: give "
				      "--allow-writes too (it destroys the data there)");
		return -EINVAL;
	}
	if (r->eng->moves_no_data)
		return 0; /* no I/O reaches the target: what it holds does not matter */
	maps = calloc(b->ndev, sizeof(*maps));
	if (!maps)
		return -ENOMEM;
	for (unsigned int i = 0; !ret && i < b->ndev; i++) {
		struct granmap *in = readmap_dev(b->rmap, i);
		unsigned int j = 0;

		if (!in)
			continue;
		/* two trace devices on one target: one map, one prefill */
		while (j < i && (!maps[j].used || strcmp(b->tg[j].path, b->tg[i].path)))
			j++;
		if (j == i)
			ret = granmap_init_fixed(&maps[i], b->tg[i].size);
		if (!ret) {
			readmap_project(in, b->tg[i].size, b->src_size[i],
					r->o->offsets == REPLAY_OFFSETS_SCALE, &maps[j]);
			ret = in->err ? in->err : maps[j].err;
		}
	}
	if (ret)
		snprintf(err, errlen, "out of memory for the map of the regions %s reads",
			 r->o->trace);
	for (unsigned int i = 0; !ret && i < b->ndev; i++)
		if (maps[i].used)
			ret = one_target(r, i, &maps[i], err, errlen);
	for (unsigned int i = 0; i < b->ndev; i++)
		granmap_free(&maps[i]);
	free(maps);
	return ret;
}
