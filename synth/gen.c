// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The generator: one source per stream (a fio job clone, or an InnoDB thread), merged into one
 * file order. Closed-loop traces interleave streams by progress so every chunk of the file holds
 * a bit of every stream; timed traces merge by arrival time.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "synth/synth.h"

enum gen_kind { GEN_JOB, GEN_INNO_READER, GEN_INNO_LOG, GEN_INNO_CLEANER };

struct gen {
	enum gen_kind kind;
	uint32_t stream;
	double key; /* closed: fraction of the pass done; timed: next arrival (ns) */
	struct synth_rng rng;
	struct block_dist bd;
	/* GEN_JOB */
	const struct synth_job *job;
	uint64_t unit;		/* random offsets are multiples of the smallest block size */
	uint64_t seq_pos[SYNTH_DDIR_N];
	uint64_t ios, bytes, writes, pass_ios, pass_bytes;
	double t;		/* timed: arrival of the next I/O */
	bool timed, flush_pending;
	/* InnoDB */
	const struct synth_innodb *m;
	uint64_t emitted, total, log_pos;
	uint32_t phase, idx;
	uint64_t *pages; /* the current doublewrite batch */
};

static uint64_t mix_seed(uint64_t seed, uint64_t stream)
{
	/* Distinct, reproducible seeds per stream: clones of a job must not repeat each other. */
	uint64_t z = seed ^ (stream + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdULL;
	return z ^ (z >> 33);
}

static uint32_t min_bs_of(const struct synth_job *j)
{
	uint32_t mn = UINT32_MAX;

	for (int d = 0; d < SYNTH_DDIR_N; d++) {
		if (!(j->ddirs & (1u << d)))
			continue;
		for (uint32_t i = 0; i < j->bs[d].n; i++)
			if (j->bs[d].e[i].pct && j->bs[d].e[i].bs < mn)
				mn = j->bs[d].e[i].bs;
	}
	return mn;
}

static uint32_t pick_bs(struct gen *g, const struct synth_bsplit *b)
{
	uint32_t r, acc = 0;

	if (b->n == 1)
		return b->e[0].bs;
	r = (uint32_t)rng_below(&g->rng, 100);
	for (uint32_t i = 0; i < b->n; i++) {
		acc += b->e[i].pct;
		if (r < acc)
			return b->e[i].bs;
	}
	return b->e[b->n - 1].bs;
}

static void ev_init(struct io_event *ev, const char *comm)
{
	memset(ev, 0, sizeof(*ev));
	ev->queue_ns = ev->issue_ns = ev->complete_ns = IO_TS_NONE;
	size_t n = strlen(comm);

	/* comm is a kernel task name: 15 characters at most, truncated like the kernel does */
	memcpy(ev->comm, comm, n < IO_COMM_LEN - 1 ? n : IO_COMM_LEN - 1);
}

static bool job_pass_done(const struct gen *g)
{
	const struct synth_job *j = g->job;

	if (j->number_ios)
		return g->pass_ios >= j->number_ios;
	return g->pass_bytes >= (j->io_size ? j->io_size : j->size);
}

static double job_progress(const struct gen *g)
{
	const struct synth_job *j = g->job;

	if (j->number_ios)
		return (double)g->pass_ios / (double)j->number_ios;
	return (double)g->pass_bytes / (double)(j->io_size ? j->io_size : j->size);
}

/* 1: *ev filled; 0: the stream is finished. */
static int job_next(struct gen *g, struct io_event *ev)
{
	const struct synth_job *j = g->job;
	uint64_t now = g->timed ? (uint64_t)g->t : 0;

	ev_init(ev, j->name);
	ev->tid = g->stream + 1;
	if (g->flush_pending) {
		/* The flush follows the write that completed the count, at the same time. */
		g->flush_pending = false;
		ev->op = IO_OP_FLUSH;
		ev->queue_ns = g->timed ? now : 0;
		return 1;
	}
	if (g->timed && j->runtime_ns && now >= j->runtime_ns)
		return 0;
	if (job_pass_done(g)) {
		/* A rate with time_based keeps arriving for the runtime: start another pass. */
		if (!(g->timed && j->time_based))
			return 0;
		g->pass_ios = g->pass_bytes = 0;
	}

	int d;

	if ((j->ddirs & 3) == 3)
		d = rng_below(&g->rng, 100) < j->rwmixread ? SYNTH_DDIR_READ : SYNTH_DDIR_WRITE;
	else
		d = (j->ddirs & 1) ? SYNTH_DDIR_READ : (j->ddirs & 2) ? SYNTH_DDIR_WRITE :
									  SYNTH_DDIR_TRIM;
	uint32_t len = pick_bs(g, &j->bs[d]);
	uint64_t off;

	if (j->random) {
		off = block_dist_next(&g->bd) * g->unit;
		if (off + len > j->size)
			off = (j->size - len) / g->unit * g->unit;
	} else {
		off = g->seq_pos[d];
		if (off + len > j->size)
			off = 0;
		g->seq_pos[d] = off + len;
	}
	ev->offset = j->offset + off;
	ev->length = len;
	ev->op = d == SYNTH_DDIR_READ ? IO_OP_READ : d == SYNTH_DDIR_WRITE ? IO_OP_WRITE :
									       IO_OP_DISCARD;
	if (d == SYNTH_DDIR_WRITE && j->sync_writes)
		ev->flags = IO_F_FUA | IO_F_SYNC;
	ev->queue_ns = now;
	g->ios++;
	g->pass_ios++;
	g->bytes += len;
	g->pass_bytes += len;
	if (d == SYNTH_DDIR_WRITE && j->fsync && ++g->writes % j->fsync == 0)
		g->flush_pending = true;
	if (g->timed) {
		g->t += j->arrivals == SYNTH_ARRIVALS_POISSON ? rng_exp(&g->rng, 1e9 / j->rate_iops) :
								 1e9 / j->rate_iops;
		g->key = g->t;
	} else {
		g->key = job_progress(g);
	}
	return 1;
}

static int job_gen_init(struct gen *g, const struct synth_job *j, uint32_t stream, bool timed)
{
	g->kind = GEN_JOB;
	g->job = j;
	g->stream = stream;
	g->timed = timed;
	rng_seed(&g->rng, mix_seed(j->seed, stream));
	g->unit = min_bs_of(j);
	if (g->unit == UINT32_MAX || !j->size)
		return -EINVAL;
	if (timed) {
		g->t = j->arrivals == SYNTH_ARRIVALS_POISSON ? rng_exp(&g->rng, 1e9 / j->rate_iops) :
								0;
		g->key = g->t;
	}
	if (j->random)
		return block_dist_init(&g->bd, &j->dist, j->size / g->unit, j->norandommap,
				       mix_seed(j->seed ^ 0x5bd1e995, stream));
	return 0;
}

/* ---- the InnoDB model ---- */

static int inno_next(struct gen *g, struct io_event *ev)
{
	const struct synth_innodb *m = g->m;
	uint64_t log_base = m->data_size, dblwr_base = m->data_size + m->log_size;

	if (g->emitted >= g->total)
		return 0;
	ev_init(ev, g->kind == GEN_INNO_READER ? "mysqld-query" :
		    g->kind == GEN_INNO_LOG	   ? "mysqld-log" :
						     "mysqld-cleaner");
	ev->tid = g->stream + 1;
	ev->queue_ns = 0;
	switch (g->kind) {
	case GEN_INNO_READER:
		ev->op = IO_OP_READ;
		ev->offset = block_dist_next(&g->bd) * m->page_size;
		ev->length = m->page_size;
		break;
	case GEN_INNO_LOG:
		if (g->phase == 1) {
			ev->op = IO_OP_FLUSH;
			g->phase = 0;
			break;
		}
		/* Commit sizes spread over orders of magnitude: log-uniform, in 512 B blocks. */
		double lmin = log(m->log_min), lmax = log(m->log_max);
		uint64_t len = (uint64_t)exp(lmin + rng_unit(&g->rng) * (lmax - lmin)) / 512 * 512;

		if (len < m->log_min)
			len = m->log_min;
		if (g->log_pos + len > m->log_size)
			g->log_pos = 0; /* the redo log is circular */
		ev->op = IO_OP_WRITE;
		ev->offset = log_base + g->log_pos;
		ev->length = (uint32_t)len;
		ev->flags = IO_F_SYNC | (m->log_fua ? IO_F_FUA : 0);
		g->log_pos += len;
		if (!m->log_fua)
			g->phase = 1;
		break;
	default: /* GEN_INNO_CLEANER: dblwr copies, flush, in-place page writes, flush */
		if (g->phase == 0 && g->idx == 0)
			for (uint32_t i = 0; i < m->dblwr_pages; i++)
				g->pages[i] = block_dist_next(&g->bd) * m->page_size;
		if (g->phase == 0 || g->phase == 2) {
			ev->op = IO_OP_WRITE;
			ev->length = m->page_size;
			ev->offset = g->phase == 0 ? dblwr_base + (uint64_t)g->idx * m->page_size :
						     g->pages[g->idx];
			if (++g->idx == m->dblwr_pages) {
				g->idx = 0;
				g->phase++;
			}
		} else {
			ev->op = IO_OP_FLUSH;
			g->phase = (g->phase + 1) % 4;
		}
		break;
	}
	g->emitted++;
	g->key = (double)g->emitted / (double)g->total;
	return 1;
}

uint64_t synth_spec_extent(const struct synth_spec *s)
{
	uint64_t end = 0;

	if (s->innodb)
		return s->inno.data_size + s->inno.log_size +
		       (uint64_t)s->inno.dblwr_pages * s->inno.page_size;
	for (unsigned int i = 0; i < s->njobs; i++)
		if (s->jobs[i].offset + s->jobs[i].size > end)
			end = s->jobs[i].offset + s->jobs[i].size;
	return end;
}

static bool spec_is_timed(const struct synth_spec *s)
{
	return !s->innodb && s->njobs && s->jobs[0].rate_iops > 0;
}

int synth_spec_meta(const struct synth_spec *s, struct trace_meta *meta, const char *devname,
		    uint64_t device_size, char *why, size_t why_len)
{
	struct trace_device dev = { .logical_block_size = 512, .physical_block_size = 4096 };
	uint64_t extent = synth_spec_extent(s);
	uint32_t n = 0;

	if (device_size && device_size < extent) {
		snprintf(why, why_len,
			 "--device-size %llu is smaller than the %llu bytes the pattern touches",
			 (unsigned long long)device_size, (unsigned long long)extent);
		return -EINVAL;
	}
	if (s->innodb) {
		const struct synth_innodb *m = &s->inno;

		if (m->readers + 2 > TRACE_MAX_STREAMS) {
			snprintf(why, why_len, "innodb-16k: at most %d readers",
				 TRACE_MAX_STREAMS - 2);
			return -EINVAL;
		}
		meta->mode = TRACE_MODE_CLOSED;
		for (uint32_t i = 0; i < m->readers + 1; i++)
			meta->streams[n++].depth = 1;
		meta->streams[n++].depth = m->cleaner_depth;
		meta->time_based = m->time_based;
		meta->runtime_ns = m->runtime_ns;
	} else {
		bool timed = spec_is_timed(s);

		if (!s->njobs) {
			snprintf(why, why_len, "no job to generate");
			return -EINVAL;
		}
		for (unsigned int i = 0; i < s->njobs; i++) {
			const struct synth_job *j = &s->jobs[i];
			int err = synth_job_check(j, why, why_len);

			if (err)
				return err;
			if ((j->rate_iops > 0) != timed) {
				snprintf(why, why_len,
					 "job '%s' %s a rate and job '%s' %s: a trace is either timed "
					 "or closed-loop; pick one with --section",
					 s->jobs[0].name, timed ? "has" : "has no", j->name,
					 timed ? "has none" : "has one");
				return -EINVAL;
			}
			if (j->runtime_ns != s->jobs[0].runtime_ns ||
			    j->time_based != s->jobs[0].time_based) {
				snprintf(why, why_len,
					 "jobs '%s' and '%s' differ in runtime/time_based, which one "
					 "trace cannot say; pick one with --section",
					 s->jobs[0].name, j->name);
				return -EINVAL;
			}
			if (n + j->numjobs > TRACE_MAX_STREAMS) {
				snprintf(why, why_len, "more than %d jobs in total (numjobs)",
					 TRACE_MAX_STREAMS);
				return -EINVAL;
			}
			for (uint32_t c = 0; c < j->numjobs; c++)
				meta->streams[n++].depth = j->sync_engine ? 1 : j->iodepth;
		}
		meta->mode = timed ? TRACE_MODE_TIMED : TRACE_MODE_CLOSED;
		/* Timed traces already span the runtime; cycling is a closed-loop notion. */
		meta->time_based = timed ? 0 : s->jobs[0].time_based;
		meta->runtime_ns = timed ? 0 : s->jobs[0].runtime_ns;
	}
	meta->nstreams = n;
	snprintf(dev.name, sizeof(dev.name), "%s", devname && *devname ? devname : "synth");
	snprintf(dev.model, sizeof(dev.model), "synthesized");
	dev.size_bytes = device_size ? device_size : extent;
	meta->ndevices = 0;
	return trace_meta_add_device(meta, &dev) < 0 ? -ENOSPC : 0;
}

/* ---- merging the streams ---- */

static bool gen_before(const struct gen *a, const struct gen *b)
{
	return a->key < b->key || (a->key == b->key && a->stream < b->stream);
}

static void heap_down(struct gen **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && gen_before(h[l], h[m]))
			m = l;
		if (r < n && gen_before(h[r], h[m]))
			m = r;
		if (m == i)
			return;
		struct gen *t = h[i];

		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static int spec_gens(const struct synth_spec *s, struct gen *gens, uint32_t *n)
{
	uint32_t k = 0;
	int err = 0;

	if (s->innodb) {
		const struct synth_innodb *m = &s->inno;
		uint64_t pages = m->data_size / m->page_size;

		for (uint32_t i = 0; i < m->readers + 2; i++) {
			struct gen *g = &gens[k];

			g->m = m;
			g->stream = k++;
			g->kind = i < m->readers ? GEN_INNO_READER :
				  i == m->readers ? GEN_INNO_LOG : GEN_INNO_CLEANER;
			rng_seed(&g->rng, mix_seed(m->seed, g->stream));
			err = block_dist_init(&g->bd, &m->dist, pages, 0,
					      mix_seed(m->seed ^ 0x5bd1e995, g->stream));
			if (err)
				return err;
			if (g->kind == GEN_INNO_READER) {
				g->total = m->reads_per_reader;
			} else if (g->kind == GEN_INNO_LOG) {
				g->total = m->commits * (m->log_fua ? 1 : 2);
			} else {
				g->total = m->batches * (2ULL * m->dblwr_pages + 2);
				g->pages = calloc(m->dblwr_pages, sizeof(*g->pages));
				if (!g->pages)
					return -ENOMEM;
			}
		}
	} else {
		bool timed = spec_is_timed(s);

		for (unsigned int i = 0; i < s->njobs; i++) {
			for (uint32_t c = 0; c < s->jobs[i].numjobs; c++) {
				err = job_gen_init(&gens[k], &s->jobs[i], k, timed);
				k++;
				if (err)
					return err;
			}
		}
	}
	*n = k;
	return 0;
}

int synth_generate(const struct synth_spec *s, synth_emit_fn emit, void *ctx)
{
	struct gen *gens = calloc(TRACE_MAX_STREAMS, sizeof(*gens));
	struct gen **heap = calloc(TRACE_MAX_STREAMS, sizeof(*heap));
	bool timed = spec_is_timed(s);
	uint64_t ordinal = 0;
	uint32_t n = 0;
	int err = -ENOMEM;

	if (!gens || !heap)
		goto out;
	err = spec_gens(s, gens, &n);
	if (err)
		goto out;
	for (uint32_t i = 0; i < n; i++)
		heap[i] = &gens[i];
	for (size_t i = n / 2; i-- > 0;)
		heap_down(heap, n, i);
	while (n) {
		struct gen *g = heap[0];
		struct io_event ev;
		int more = g->kind == GEN_JOB ? job_next(g, &ev) : inno_next(g, &ev);

		if (!more) {
			heap[0] = heap[--n];
			heap_down(heap, n, 0);
			continue;
		}
		ev.stream = g->stream;
		/* Closed-loop events carry no time; queue_ns holds their place in the file so
		 * readers that seek and sort by time keep the order (PRESETS.md, contract). */
		if (!timed)
			ev.queue_ns = ordinal;
		ordinal++;
		err = emit(ctx, &ev);
		if (err)
			goto out;
		heap_down(heap, n, 0);
	}
	err = 0;
out:
	if (gens)
		for (uint32_t i = 0; i < TRACE_MAX_STREAMS; i++)
			free(gens[i].pages);
	free(gens);
	free(heap);
	return err;
}
