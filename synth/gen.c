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
#include "synth/jobgen.h"
#include "synth/synth.h"
#include "util/heap.h"

enum gen_kind { GEN_JOB, GEN_FLOW, GEN_INNO_READER, GEN_INNO_LOG, GEN_INNO_CLEANER };

struct gen {
	enum gen_kind kind;
	uint32_t stream;
	double key; /* closed: fraction of the pass done; timed: next arrival (ns) */
	uint64_t order; /* key as the merge's heap compares it (set as it enters the heap) */
	struct synth_rng rng;
	struct block_dist bd;
	/* GEN_JOB */
	struct jobgen *jg;
	uint32_t group;
	/* GEN_FLOW: the job clones of one flow set, issued in the ratio of their weights */
	struct flow_member *fm;
	uint32_t fn;
	/* InnoDB */
	const struct synth_innodb *m;
	uint64_t emitted, total, log_pos;
	uint32_t phase, idx;
	uint64_t *pages; /* the current doublewrite batch */
};

struct flow_member {
	struct jobgen *jg;
	double weight, key;
	uint64_t issued;
	bool done;
};

static uint64_t mix_seed(uint64_t seed, uint64_t stream)
{
	/* Distinct, reproducible seeds per stream: clones of a job must not repeat each other. */
	uint64_t z = seed ^ (stream + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdULL;
	return z ^ (z >> 33);
}

static void ev_init(struct io_event *ev, const char *comm)
{
	size_t n = strlen(comm);

	memset(ev, 0, sizeof(*ev));
	ev->queue_ns = ev->issue_ns = ev->complete_ns = IO_TS_NONE;
	/* comm is a kernel task name: 15 characters at most, truncated like the kernel does */
	memcpy(ev->comm, comm, n < IO_COMM_LEN - 1 ? n : IO_COMM_LEN - 1);
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
	for (unsigned int i = 0; i < s->njobs; i++) {
		const struct synth_job *j = &s->jobs[i];

		for (uint32_t c = 0; c < j->numjobs && !j->rel; c++) {
			struct trace_stream rec;
			uint64_t base;

			synth_stream_rec(j, c, &rec, &base);
			if (base + j->size > end)
				end = base + j->size;
		}
	}
	return end;
}

/* Timed when every job has a rate; beside an unrated job a rate caps a closed loop
 * (synth_spec_resolve marks those jobs rate_cap). */
static bool spec_is_timed(const struct synth_spec *s)
{
	if (s->innodb || !s->njobs)
		return false;
	for (unsigned int i = 0; i < s->njobs; i++)
		if (!(s->jobs[i].rate_iops > 0))
			return false;
	return true;
}

/* fio's rate in bytes per direction: rate=, else rate_iops= times the direction's smallest
 * block size (fio's __setup_rate) */
static void rate_cap_rec(const struct synth_job *j, struct trace_stream *rec)
{
	rec->flags |= TRACE_STREAM_RATE;
	for (int d = 0; d < SYNTH_DDIR_N && d < 3; d++) {
		const struct synth_bsplit *b = &j->bs[d];
		uint32_t mn = b->range_hi ? b->range_lo : 0;

		for (uint32_t i = 0; !b->range_hi && i < b->n; i++)
			if (!mn || b->e[i].bs < mn)
				mn = b->e[i].bs;
		rec->rate_bps[d] = j->rate_bytes[d] > 0 ? (uint64_t)j->rate_bytes[d]
			       : (uint64_t)(j->rate_ios[d] * mn);
	}
}

static int jobs_meta(const struct synth_spec *s, struct trace_meta *meta, uint32_t *n, char *why,
		     size_t why_len)
{
	bool timed = spec_is_timed(s), same = true;
	uint32_t lead[SYNTH_MAX_JOBS];

	for (unsigned int i = 0; i < s->njobs; i++) {
		const struct synth_job *j = &s->jobs[i];
		int err = synth_job_check(j, why, why_len);

		if (err)
			return err;
		if (j->rate_cap && j->arrivals == SYNTH_ARRIVALS_POISSON) {
			snprintf(why, why_len,
				 "job '%s' refused: %s%s rate_process=poisson beside unrated jobs: "
				 "there a rate caps a closed loop, which ioreel paces linearly "
				 "only; take the rated jobs apart with --section",
				 j->name, j->at_rate[0] ? j->at_rate : "rate",
				 j->at_rate[0] ? ":" : "");
			return -EOPNOTSUPP;
		}
		if (*n + j->numjobs > TRACE_MAX_STREAMS) {
			snprintf(why, why_len, "more than %d jobs in total (numjobs)",
				 TRACE_MAX_STREAMS);
			return -EINVAL;
		}
		for (uint32_t c = 0; c < j->numjobs; c++) {
			uint64_t base;

			if (j->flow_lead >= 0 && !(j->flow_lead == (int32_t)i && c == 0)) {
				/* a flow set shares its first job's stream: depths add up, and a
				 * member walking back over a region of unknown length says how */
				struct trace_stream *ls = &meta->streams[lead[j->flow_lead]], mr;

				ls->depth += j->sync_engine ? 1 : j->iodepth;
				synth_stream_rec(j, c, &mr, &base);
				if (mr.flags & TRACE_STREAM_BACK) {
					ls->flags |= TRACE_STREAM_BACK;
					ls->rel_back_add = mr.rel_back_add;
					ls->rel_back_step = mr.rel_back_step;
				}
				if (!ls->rel_span)
					ls->rel_span = mr.rel_span;
				continue;
			}
			lead[i] = *n;
			synth_stream_rec(j, c, &meta->streams[*n], &base);
			if (j->rate_cap)
				rate_cap_rec(j, &meta->streams[*n]);
			/* fio's exitall: a job that ends ends those of its reporting group, or
			 * (exit_what stonewall, all) every running one; the replay does it */
			if (j->exit_on && !timed) {
				meta->streams[*n].flags |= TRACE_STREAM_EXIT;
				if (j->exit_what != SYNTH_EXIT_GROUP)
					meta->streams[*n].flags |= TRACE_STREAM_EXIT_RUNNING;
				meta->streams[*n].exit_group = j->rgroup;
			}
			if (timed) /* arrival times already say when and how long */
				meta->streams[*n].flags &= ~(uint32_t)TRACE_STREAM_TIME_BASED,
					meta->streams[*n].runtime_ns = 0, meta->streams[*n].delay_ns = 0,
					meta->streams[*n].group = 0;
			(*n)++;
		}
		same &= j->time_based == s->jobs[0].time_based &&
			j->runtime_ns + j->ramp_ns == s->jobs[0].runtime_ns + s->jobs[0].ramp_ns &&
			!j->group && !j->delay_ns && !j->rel;
	}
	meta->mode = timed ? TRACE_MODE_TIMED : TRACE_MODE_CLOSED;
	/* Tags 8 and 9 for readers of format 1.0, when one runtime says it for every stream;
	 * the stream records (1.1) say it per stream. */
	if (!timed && same && (meta->streams[0].flags & TRACE_STREAM_TIME_BASED)) {
		meta->time_based = 1;
		meta->runtime_ns = meta->streams[0].runtime_ns;
	} else {
		meta->time_based = 0;
		meta->runtime_ns = timed || !same ? 0 : meta->streams[0].runtime_ns;
	}
	return 0;
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
		for (uint32_t i = 0; i < m->readers + 2; i++) {
			memset(&meta->streams[n], 0, sizeof(meta->streams[n]));
			meta->streams[n].depth = i == m->readers + 1 ? m->cleaner_depth : 1;
			if (m->time_based && m->runtime_ns) {
				meta->streams[n].flags = TRACE_STREAM_TIME_BASED;
				meta->streams[n].runtime_ns = m->runtime_ns;
			}
			n++;
		}
		meta->time_based = m->time_based;
		meta->runtime_ns = m->runtime_ns;
	} else {
		int err;

		if (!s->njobs) {
			snprintf(why, why_len, "no job to generate");
			return -EINVAL;
		}
		err = jobs_meta(s, meta, &n, why, why_len);
		if (err)
			return err;
	}
	meta->nstreams = n;
	snprintf(dev.name, sizeof(dev.name), "%s", devname && *devname ? devname : "synth");
	snprintf(dev.model, sizeof(dev.model), "synthesized");
	dev.size_bytes = device_size ? device_size : extent;
	meta->ndevices = 0;
	return trace_meta_add_device(meta, &dev) < 0 ? -ENOSPC : 0;
}

/* ---- merging the streams ---- */

/*
 * Streams merge by key, ties to the lower stream (streams are unique, so the order is total and
 * the file the same whatever the heap's layout). The key is one unsigned number: the double's
 * bits made to sort as the double does (negatives flipped; -0 as +0, which == calls equal; a
 * NaN, which the comparison before had no place for, above +inf), above the stream.
 */
static inline uint64_t key_order(double d)
{
	uint64_t u;

	if (d == 0)
		d = 0; /* -0.0 */
	memcpy(&u, &d, sizeof(u));
	return u >> 63 ? ~u : u | 1ULL << 63;
}

typedef struct gen *gen_ptr;
#define GEN_KEY(g) ((unsigned __int128)(g)->order << 64 | (g)->stream)
HEAP_DEFINE(genheap, gen_ptr, GEN_KEY)

static int inno_gens(const struct synth_innodb *m, struct gen *gens, uint32_t *n)
{
	uint64_t pages = m->data_size / m->page_size;
	uint32_t k = 0;
	int err;

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
	*n = k;
	return 0;
}

static int flow_add(struct gen *g, struct jobgen *jg, uint32_t weight)
{
	struct flow_member *m = realloc(g->fm, (g->fn + 1) * sizeof(*m));

	if (!m)
		return -ENOMEM;
	g->fm = m;
	g->fm[g->fn++] = (struct flow_member){ .jg = jg, .weight = weight };
	return 0;
}

static int job_gens(const struct synth_spec *s, struct gen *gens, uint32_t *n)
{
	bool timed = spec_is_timed(s);
	uint32_t k = 0, u = 0, lead[SYNTH_MAX_JOBS];
	int err = 0;

	for (unsigned int i = 0; i < s->njobs; i++) {
		const struct synth_job *j = &s->jobs[i];

		for (uint32_t c = 0; c < j->numjobs; c++, u++) {
			bool member = j->flow_lead >= 0 && !(j->flow_lead == (int32_t)i && c == 0);
			struct gen *g = member ? &gens[lead[j->flow_lead]] : &gens[k];
			/* every clone draws its own numbers, a flow member too */
			struct jobgen *jg = jobgen_new(j, member ? u : k, c, timed, 0, &err);

			if (!jg)
				return err;
			if (!member) {
				lead[i] = k;
				g->kind = j->flow_lead >= 0 ? GEN_FLOW : GEN_JOB;
				g->stream = k++;
				g->group = timed ? j->group : 0;
			}
			if (g->kind == GEN_JOB)
				g->jg = jg;
			else if ((err = flow_add(g, jg, j->flow)))
				return jobgen_free(jg), err;
		}
	}
	*n = k;
	return 0;
}

/* The flow member furthest behind its share goes next (fio's flow counter near zero). */
static int flow_next(struct gen *g, struct io_event *ev)
{
	for (;;) {
		struct flow_member *best = NULL;
		double sum = 0;
		int more;

		for (uint32_t i = 0; i < g->fn; i++) {
			struct flow_member *m = &g->fm[i];

			if (!m->done && (!best || m->issued / m->weight < best->issued / best->weight))
				best = m;
		}
		if (!best)
			return 0;
		more = jobgen_next(best->jg, ev, &best->key);
		if (more <= 0) {
			/* the set keeps its ratio only while every member runs: the first to end
			 * ends the stream (a time-based one is then cycled, ratio and all) */
			for (uint32_t i = 0; i < g->fn; i++)
				g->fm[i].done = true;
			return more;
		}
		best->issued++;
		for (uint32_t i = 0; i < g->fn; i++)
			sum += g->fm[i].done ? 1.0 : g->fm[i].key;
		g->key = sum / g->fn;
		return 1;
	}
}

/* Emits the streams of one group (all of them for closed traces) merged by key. */
static int merge(struct gen **heap, uint32_t ngen, bool timed, uint64_t *ordinal, double *t_max,
		 synth_emit_fn emit, void *ctx)
{
	size_t n = 0;
	int err;

	for (uint32_t i = 0; i < ngen; i++) {
		struct gen *g = heap[i]; /* push writes over heap[n..i] */

		g->order = key_order(g->key);
		genheap_push(heap, &n, &g);
	}
	while (n) {
		struct gen *g = heap[0];
		struct io_event ev;
		int more = g->kind == GEN_JOB  ? jobgen_next(g->jg, &ev, &g->key) :
			   g->kind == GEN_FLOW ? flow_next(g, &ev) :
						 inno_next(g, &ev);

		if (more < 0)
			return more;
		if (!more) {
			if (g->kind == GEN_JOB && timed && jobgen_time(g->jg) > *t_max)
				*t_max = jobgen_time(g->jg);
			genheap_pop(heap, &n, &g);
			continue;
		}
		ev.stream = g->stream;
		/* Closed-loop events carry no time; queue_ns holds their place in the file so
		 * readers that seek and sort by time keep the order (PRESETS.md, contract). */
		if (!timed)
			ev.queue_ns = *ordinal;
		(*ordinal)++;
		err = emit(ctx, &ev);
		if (err)
			return err;
		g->order = key_order(g->key); /* its key moved on */
		genheap_replace_top(heap, n, &g);
	}
	return 0;
}

int synth_generate(const struct synth_spec *s, synth_emit_fn emit, void *ctx)
{
	struct gen *gens = calloc(TRACE_MAX_STREAMS, sizeof(*gens));
	struct gen **heap = calloc(TRACE_MAX_STREAMS, sizeof(*heap));
	bool timed = spec_is_timed(s);
	uint64_t ordinal = 0;
	uint32_t n = 0, group = 0;
	double t0 = 0;
	int err = -ENOMEM;

	if (!gens || !heap)
		goto out;
	err = s->innodb ? inno_gens(&s->inno, gens, &n) : job_gens(s, gens, &n);
	if (err)
		goto out;
	/* Timed traces play one stonewall group after the other: each group's arrivals start
	 * when the group before it has its last one. Closed traces hold every group at once;
	 * their stream records say the order. */
	for (;;) {
		uint32_t m = 0, next = UINT32_MAX;
		double t_max = t0;

		for (uint32_t i = 0; i < n; i++) {
			if (gens[i].group == group) {
				heap[m++] = &gens[i];
				if (timed && gens[i].kind == GEN_JOB) {
					jobgen_shift(gens[i].jg, t0);
					gens[i].key = jobgen_time(gens[i].jg);
				}
			} else if (gens[i].group > group && gens[i].group < next) {
				next = gens[i].group;
			}
		}
		err = merge(heap, m, timed, &ordinal, &t_max, emit, ctx);
		if (err || next == UINT32_MAX)
			break;
		group = next;
		t0 = t_max;
	}
out:
	if (gens)
		for (uint32_t i = 0; i < TRACE_MAX_STREAMS; i++) {
			free(gens[i].pages);
			jobgen_free(gens[i].jg);
			for (uint32_t m = 0; m < gens[i].fn; m++)
				jobgen_free(gens[i].fm[m].jg);
			free(gens[i].fm);
		}
	free(gens);
	free(heap);
	return err;
}
