// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One job clone's I/O, in the order fio issues it (fio's io_u.c and backend.c): the direction
 * (rwmix, trimwrite pairs), the size (bs, bssplit, bsrange), the offset (random with its
 * distribution and random map, runs of rw=randread:N, sequential walks with holes or
 * backwards, strided zones), passes over the region (io_size, loops, number_ios), flushes
 * (fsync, fdatasync, end_fsync), and verify's read-back of what was written.
 * Offsets here are within the job's region; the caller adds where the region starts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "synth/jobgen.h"
#include "synth/randmap.h"
#include "synth/sprandom.h"

struct piece {
	uint64_t off;
	uint32_t len;
	uint32_t seq; /* write order, so the last write of a block wins when sorted */
};

struct jobgen {
	const struct synth_job *j;
	uint32_t stream;
	bool timed;
	double t, t_end;
	struct synth_rng rng;
	struct block_dist bd;
	struct randmap map; /* fio's random map, when the region is small enough for one */
	bool use_map;
	uint64_t base, size, unit, pass_limit, ios_limit;
	uint64_t last_pos[SYNTH_DDIR_N], last_start[SYNTH_DDIR_N];
	bool started[SYNTH_DDIR_N];
	uint64_t file_offset; /* where the region starts in its file (fio's f->file_offset) */
	uint32_t run_left;
	uint64_t zone_start, zone_bytes;
	uint64_t ios, pass_bytes, loop, loops, writes;
	uint32_t flushes;
	uint32_t ranges_left;
	struct piece *v;
	size_t vn, vcap, vpos;
	bool verifying, end_flushed, walked_off;
	bool back; /* TRACE_STREAM_BACK: offsets as distances back from the region's end */
	struct sprandom *spr; /* fio's sprandom lays the writes out (synth/fio_sprandom.c) */
	int err;	      /* the layout's error, returned by jobgen_next */
};

static uint64_t mix_seed(uint64_t seed, uint64_t stream)
{
	/* Distinct, reproducible seeds per stream: clones of a job must not repeat each other. */
	uint64_t z = seed ^ (stream + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdULL;
	return z ^ (z >> 33);
}

/* fio's get_next_buflen() for bsrange: min + max * u, rounded down to a multiple of min,
 * capped at max, drawn again until it fits in room. */
static uint32_t pick_range(struct jobgen *g, const struct synth_bsplit *b, uint64_t room)
{
	uint64_t lo = b->range_lo, hi = b->range_hi, v;

	if (room < lo)
		return (uint32_t)lo;
	do {
		v = lo + (uint64_t)((double)hi * rng_unit(&g->rng));
		if (!g->j->bs_unaligned)
			v -= v % lo;
		if (v > hi)
			v = hi;
	} while (v > room);
	return (uint32_t)v;
}

static uint32_t pick_bs(struct jobgen *g, const struct synth_bsplit *b)
{
	uint32_t r, acc = 0;

	if (b->range_hi)
		return pick_range(g, b, UINT64_MAX);
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
	size_t n = strlen(comm);

	memset(ev, 0, sizeof(*ev));
	ev->queue_ns = ev->issue_ns = ev->complete_ns = IO_TS_NONE;
	/* comm is a kernel task name: 15 characters at most, truncated like the kernel does */
	memcpy(ev->comm, comm, n < IO_COMM_LEN - 1 ? n : IO_COMM_LEN - 1);
}

static int reset_map(struct jobgen *g)
{
	const struct synth_job *j = g->j;
	struct dist_spec spec = j->dist;
	uint64_t n = g->size / g->unit,
		 range = j->zone_size ? (j->zone_range ? j->zone_range : j->zone_size) : 0;

	if (range && range < g->size)
		n = range / g->unit;
	spec.unit = g->unit;
	if (g->use_map) {
		randmap_reset(&g->map);
		return 0;
	}
	/* a pass draws a new permutation, as fio resets its map each loop */
	return block_dist_init(&g->bd, &spec, n ? n : 1, j->norandommap,
			       mix_seed(j->seed ^ 0x5bd1e995 ^ g->loop, g->stream));
}

/* A block size that fits in room bytes: fio draws again until one fits (io_u_fits()). */
static uint32_t pick_bs_fit(struct jobgen *g, const struct synth_bsplit *b, uint64_t room)
{
	uint32_t tot = 0, r, acc = 0, mn = UINT32_MAX;

	if (b->range_hi)
		return pick_range(g, b, room);
	for (uint32_t i = 0; i < b->n; i++) {
		if (b->e[i].bs <= room)
			tot += b->e[i].pct;
		if (b->e[i].pct && b->e[i].bs < mn)
			mn = b->e[i].bs;
	}
	if (!tot)
		return mn;
	if (tot == 100)
		return pick_bs(g, b);
	r = (uint32_t)rng_below(&g->rng, tot);
	for (uint32_t i = 0; i < b->n; i++) {
		if (b->e[i].bs > room)
			continue;
		acc += b->e[i].pct;
		if (r < acc)
			return b->e[i].bs;
	}
	return mn;
}

static uint32_t ddir_min_bs(const struct synth_bsplit *b)
{
	uint32_t mn = b->range_hi ? b->range_lo : UINT32_MAX;

	for (uint32_t i = 0; !b->range_hi && i < b->n; i++)
		if (b->e[i].pct && b->e[i].bs < mn)
			mn = b->e[i].bs;
	return mn;
}

/*
 * fio's uniform random I/O with its map: a block, the next free one when it is taken, and a
 * length cut to the free blocks it starts on. As in fio (io_u.c), block numbers count in the
 * direction's smallest size while the map has a bit per smallest size of the job, so with
 * different read and write sizes the directions see the map at different scales.
 */
static uint64_t map_offset(struct jobgen *g, int d, uint32_t *len)
{
	const struct synth_job *j = g->j;
	uint64_t u = j->blockalign ? j->blockalign : ddir_min_bs(&j->bs[d]);
	uint64_t lastb = g->size / u, b, k;

	if (!lastb)
		lastb = 1;
	b = randmap_next_free(&g->map, rng_below(&g->rng, lastb));
	if (b >= lastb) {
		/* No free block below this direction's last one: fio's offset falls outside the
		 * region, its pass ends there and the next one starts on a fresh map. */
		randmap_reset(&g->map);
		b = rng_below(&g->rng, lastb);
	}
	*len = pick_bs_fit(g, &j->bs[d], g->size - b * u);
	k = randmap_take(&g->map, b, (*len + u - 1) / u);
	if (k && k * u < *len)
		*len = (uint32_t)(k * u);
	return b * u;
}

/* fio's get_next_seq_offset(): holes after each I/O; past the end a forward walk restarts at
 * the region's start and a backwards one at its end, less the step. */
static uint64_t seq_offset(struct jobgen *g, int d, uint32_t len)
{
	int64_t add = g->j->seq_add, pos = (int64_t)g->last_pos[d] - (int64_t)g->zone_start;

	/* fio rewinds a backwards walk to the region's end before its first I/O, but only
	 * when the region does not start at the file's start (get_next_seq_offset) */
	if (add < 0 && !g->started[d] && g->file_offset)
		pos = (int64_t)g->size;
	g->started[d] = true;

	if (pos && add) {
		pos += add;
		if (pos < 0 || (uint64_t)pos + g->zone_start >= g->size)
			pos = add > 0 ? 0 : (int64_t)g->size + add - (int64_t)g->zone_start;
		if (pos < 0)
			pos = 0;
	}
	if ((uint64_t)pos + g->zone_start + len > g->size)
		pos = -(int64_t)g->zone_start; /* the walk starts over at the region's start */
	return (uint64_t)pos + g->zone_start;
}

static uint64_t rand_offset(struct jobgen *g, uint32_t len)
{
	uint64_t off = block_dist_next(&g->bd) * g->unit + g->zone_start;

	if (off + len > g->size)
		off = g->size >= len ? (g->size - len) / g->unit * g->unit : 0;
	return off;
}

static uint64_t next_offset(struct jobgen *g, int d, uint32_t *lenp)
{
	uint32_t len = *lenp;
	const struct synth_job *j = g->j;
	bool rnd = j->random;

	if (g->spr && d == SYNTH_DDIR_WRITE) {
		uint64_t b;
		int r = sprandom_next(g->spr, &b);

		if (r == 1)
			return b * len; /* one write size, the block's (synth_sprandom_check) */
		g->err = r; /* 0: its regions are written, and fio's job is done */
		g->walked_off = true;
		return UINT64_MAX;
	}
	if (j->zone_size) {
		/* zonemode=strided: zone_size bytes in a zone, then on by zonerange + zoneskip */
		uint64_t range = j->zone_range ? j->zone_range : j->zone_size;

		if (g->zone_bytes >= j->zone_size) {
			g->zone_bytes = 0;
			g->zone_start += range + j->zone_skip;
			if (g->zone_start >= g->size)
				g->zone_start = 0;
			g->pass_bytes += j->zone_skip; /* fio counts skipped bytes as done */
			for (int k = 0; k < SYNTH_DDIR_N; k++)
				g->last_pos[k] = g->zone_start;
		}
		if (g->last_pos[d] >= g->zone_start + range)
			g->last_pos[d] = g->zone_start;
	}
	if (rnd) {
		/* rw=randread:N: a new random offset every N I/Os, sequential between them */
		if (j->rand_run > 1) {
			rnd = g->run_left == 0;
			g->run_left = rnd ? j->rand_run - 1 : g->run_left - 1;
		}
		if (rnd && j->perc_rand < 100)
			rnd = rng_below(&g->rng, 100) < j->perc_rand;
	}
	if (j->random && j->run_identical && !rnd) /* fio: the run's first offset again */
		return g->last_start[d] == UINT64_MAX ? 0 : g->last_start[d];
	if (j->random && !rnd) {
		/* A run goes on sequentially. Off the region's end fio's offset check fails and
		 * its loop ends; without io_size the job is done (fio's keep_running()). */
		if (g->last_pos[d] == UINT64_MAX)
			g->last_pos[d] = 0;
		if (g->last_pos[d] + len <= g->size)
			return g->last_pos[d];
		if (!j->io_size) {
			g->walked_off = true;
			return UINT64_MAX;
		}
		/* with io_size fio starts another loop: a fresh map, the walk at the start */
		if (g->use_map)
			randmap_reset(&g->map);
		for (int k = 0; k < SYNTH_DDIR_N; k++)
			g->last_pos[k] = 0;
		return 0;
	}
	if (j->random)
		return g->use_map ? map_offset(g, d, lenp) : rand_offset(g, len);
	return seq_offset(g, d, len);
}

static int pick_ddir(struct jobgen *g)
{
	const struct synth_job *j = g->j;

	/* fio's set_rw_ddir(): trim when the writes have caught up with the last trim */
	if (j->trimwrite)
		return g->last_start[SYNTH_DDIR_WRITE] == g->last_start[SYNTH_DDIR_TRIM]
			   ? SYNTH_DDIR_TRIM
			   : SYNTH_DDIR_WRITE;
	if ((j->ddirs & 3) == 3)
		return rng_below(&g->rng, 100) < j->rwmixread ? SYNTH_DDIR_READ : SYNTH_DDIR_WRITE;
	if (j->ddirs & 1)
		return SYNTH_DDIR_READ;
	return (j->ddirs & 4) ? SYNTH_DDIR_TRIM : SYNTH_DDIR_WRITE;
}

static int remember(struct jobgen *g, uint64_t off, uint32_t len)
{
	if (g->vn == g->vcap) {
		size_t cap = g->vcap ? g->vcap * 2 : 1024;
		struct piece *p = realloc(g->v, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		g->v = p;
		g->vcap = cap;
	}
	g->v[g->vn] = (struct piece){off, len, (uint32_t)g->vn};
	g->vn++;
	return 0;
}

static int piece_cmp(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* fio verifies in write order, unless offsets may repeat (no random map, holes, runs): then
 * sorted by offset with only the last write of a block kept (fio's rb-tree of io_pieces). */
static void start_verify(struct jobgen *g)
{
	const struct synth_job *j = g->j;
	bool overlap = (j->random && (j->norandommap || j->sprandom ||
				      j->dist.kind != DIST_UNIFORM)) ||
		       j->seq_add || j->rand_run > 1;

	if (overlap && g->vn > 1) {
		size_t o = 0;

		qsort(g->v, g->vn, sizeof(*g->v), piece_cmp);
		for (size_t i = 0; i < g->vn; i++)
			if (!o || g->v[o - 1].off != g->v[i].off)
				g->v[o++] = g->v[i];
			else
				g->v[o - 1] = g->v[i];
		g->vn = o;
	}
	g->verifying = true;
	g->vpos = 0;
}

/* number_ios: fio's count, except that a time-based job with a rate arrives for its whole
 * runtime (fio ignores number_ios once time_based) */
static bool count_done(const struct jobgen *g)
{
	return g->j->number_ios && g->ios >= g->ios_limit && !(g->timed && g->j->time_based);
}

static bool io_phase_done(const struct jobgen *g)
{
	if (count_done(g))
		return true;
	return g->walked_off || g->pass_bytes >= g->pass_limit;
}

static void advance_time(struct jobgen *g)
{
	const struct synth_job *j = g->j;

	if (!g->timed)
		return;
	g->t += j->arrivals == SYNTH_ARRIVALS_POISSON ? rng_exp(&g->rng, 1e9 / j->rate_iops)
						      : 1e9 / j->rate_iops;
}

/* One data I/O (or the first discard of a multi-range trim). */
static int data_io(struct jobgen *g, struct io_event *ev)
{
	const struct synth_job *j = g->j;
	int d = pick_ddir(g);
	uint32_t len;
	uint64_t off;

	if (j->trimwrite && j->random && d == SYNTH_DDIR_WRITE) {
		/* randtrimwrite: the write covers the block just trimmed */
		off = g->last_start[SYNTH_DDIR_TRIM];
		len = (uint32_t)(g->last_pos[SYNTH_DDIR_TRIM] - off);
	} else {
		len = pick_bs(g, &j->bs[d]);
		off = next_offset(g, d, &len);
		if (off == UINT64_MAX)
			return 0;
		if (j->trimwrite && d == SYNTH_DDIR_TRIM && off == g->last_start[d])
			g->last_start[SYNTH_DDIR_WRITE] = UINT64_MAX - 1; /* still owe a write */
	}
	g->last_start[d] = off;
	g->last_pos[d] = off + len;
	ev->offset = g->base + off;
	ev->length = len;
	g->zone_bytes += len;
	if (d == SYNTH_DDIR_READ) {
		ev->op = IO_OP_READ;
		ev->flags = j->read_fua ? IO_F_FUA : 0;
	} else if (d == SYNTH_DDIR_TRIM) {
		ev->op = IO_OP_DISCARD;
		if (j->num_range > 1 && !j->trimwrite)
			g->ranges_left = j->num_range - 1;
	} else {
		ev->op = IO_OP_WRITE;
	}
	g->pass_bytes += len;
	g->ios++;
	return 1;
}

/* Write flags, zeroes, flush cadence and verify bookkeeping for a write just made. */
static int after_write(struct jobgen *g, struct io_event *ev)
{
	const struct synth_job *j = g->j;

	g->writes++;
	if (j->zeroes_pct && rng_below(&g->rng, 100) < j->zeroes_pct) {
		ev->op = IO_OP_WRITE_ZEROES;
	} else {
		if (j->sync_writes)
			ev->flags |= IO_F_FUA | IO_F_SYNC;
		if (j->write_fua)
			ev->flags |= IO_F_FUA;
		if (j->write_barrier && g->writes % j->write_barrier == 0)
			ev->flags |= IO_F_PREFLUSH | IO_F_FUA;
		if (j->verify && remember(g, ev->offset - g->base, ev->length))
			return -ENOMEM;
	}
	if ((j->fsync && g->writes % j->fsync == 0) ||
	    (j->fdatasync && g->writes % j->fdatasync == 0))
		g->flushes++;
	if (j->verify && j->verify_backlog && g->vn >= j->verify_backlog)
		start_verify(g);
	return 0;
}

int jobgen_next(struct jobgen *g, struct io_event *ev, double *key)
{
	const struct synth_job *j = g->j;
	int ret = 1;

	ev_init(ev, j->name);
	ev->tid = g->stream + 1;
	ev->queue_ns = g->timed ? (uint64_t)g->t : 0;
	for (;;) {
		if (g->flushes) {
			g->flushes--;
			ev->op =
			    IO_OP_FLUSH; /* after the write that completed the count, same time */
			break;
		}
		if (g->verifying) {
			if (g->vpos < g->vn) {
				ev->op = IO_OP_READ;
				ev->offset = g->base + g->v[g->vpos].off;
				ev->length = g->v[g->vpos++].len;
				advance_time(g);
				break;
			}
			g->verifying = false;
			g->vn = g->vpos = 0;
			continue;
		}
		if (g->timed && g->t >= g->t_end)
			return 0;
		if (g->ranges_left) {
			uint32_t len = pick_bs(g, &j->bs[SYNTH_DDIR_TRIM]);

			g->ranges_left--;
			ev->op = IO_OP_DISCARD;
			ev->offset = g->base + next_offset(g, SYNTH_DDIR_TRIM, &len);
			ev->length = len;
			g->pass_bytes += len;
			break;
		}
		if (io_phase_done(g)) {
			if (j->verify && g->vn) {
				start_verify(g);
				continue;
			}
			/* another pass: loops=, or arrivals that go on for the runtime */
			bool more = g->loop + 1 < g->loops || (g->timed && j->time_based);

			if (more && !count_done(g)) {
				g->loop++;
				g->pass_bytes = 0;
				g->walked_off = false;
				for (int d = 0; d < SYNTH_DDIR_N; d++)
					g->last_pos[d] = 0;
				if (j->random && reset_map(g))
					return -ENOMEM;
				continue;
			}
			if (j->end_fsync && !g->end_flushed) {
				g->end_flushed = true;
				ev->op = IO_OP_FLUSH;
				break;
			}
			return 0;
		}
		if (!data_io(g, ev)) {
			if (g->err)
				return g->err;
			continue; /* the pass ended before this I/O */
		}
		if (ev->op == IO_OP_WRITE)
			ret = after_write(g, ev);
		if (!g->ranges_left)
			advance_time(g);
		break;
	}
	if (ret < 0)
		return ret;
	if (g->back && ev->op != IO_OP_FLUSH)
		/* a walk back over a region of unknown length, generated over one with no end
		 * (g->size): each position as its distance back from the end, bit 63 set; 0 is
		 * the region's start (formats/FORMAT.md) */
		ev->offset = 1ULL << 63 |
			     (ev->offset == g->base ? 0 : g->size - (ev->offset - g->base));
	if (g->timed) {
		*key = g->t;
	} else {
		double done = j->number_ios && !j->time_based
				  ? (double)g->ios / (double)g->ios_limit
				  : (g->loop + (double)g->pass_bytes / (double)g->pass_limit) /
					(double)g->loops;

		*key = done;
	}
	return 1;
}

struct jobgen *jobgen_new(const struct synth_job *j, uint32_t stream, uint32_t clone, bool timed,
			  double t0, int *err)
{
	struct jobgen *g = calloc(1, sizeof(*g));
	struct trace_stream rec;

	if (!g) {
		*err = -ENOMEM;
		return NULL;
	}
	g->j = j;
	g->stream = stream;
	g->timed = timed;
	g->unit = synth_job_unit(j);
	g->size = synth_job_gen_size(j);
	synth_stream_rec(j, clone, &rec, &g->base);
	g->file_offset = j->offset + clone * j->offset_inc + rec.rel_start_ppm; /* 0 or not */
	g->back = rec.flags & TRACE_STREAM_BACK;
	g->pass_limit = j->io_size ? j->io_size : g->size;
	g->ios_limit = j->number_ios;
	if (j->trimwrite) {
		/* fio counts the trims and the writes: twice the bytes, twice number_ios */
		g->pass_limit *= 2;
		g->ios_limit *= 2;
	}
	for (int d = 0; d < SYNTH_DDIR_N; d++)
		g->last_start[d] = UINT64_MAX;
	g->loops = j->time_based ? 1 : (j->loops ? j->loops : 1);
	rng_seed(&g->rng, mix_seed(j->seed, stream));
	*err = 0;
	if (!g->unit || g->unit == UINT32_MAX || !g->size) {
		*err = -EINVAL;
		free(g);
		return NULL;
	}
	if (timed) {
		g->t = t0 + (double)j->delay_ns;
		if (j->arrivals == SYNTH_ARRIVALS_POISSON)
			g->t += rng_exp(&g->rng, 1e9 / j->rate_iops);
		g->t_end =
		    j->runtime_ns ? t0 + (double)(j->delay_ns + j->runtime_ns + j->ramp_ns) : 1e300;
	}
	if (j->sprandom) {
		char why[256];

		g->spr = sprandom_new(j, g->size, mix_seed(j->seed ^ 0x3c6ef372, stream), err, why,
				      sizeof(why));
		if (!g->spr) {
			free(g);
			return NULL;
		}
		g->pass_limit = sprandom_physical(g->spr); /* fio sets io_size to it */
	}
	if (j->random && !j->norandommap && !j->sprandom && j->dist.kind == DIST_UNIFORM &&
	    !j->zone_size &&
	    g->size / g->unit <= RANDMAP_MAX_BLOCKS && !synth_job_len_rel(j)) {
		*err = randmap_init(&g->map, g->size / g->unit);
		if (*err && *err != -ENOSPC) {
			free(g);
			return NULL;
		}
		/* -ENOSPC: the other streams' maps hold the budget, a permutation instead */
		g->use_map = !*err;
		*err = 0;
	}
	if (j->random || j->perc_rand < 100) {
		*err = reset_map(g);
		if (*err) {
			sprandom_free(g->spr);
			free(g);
			return NULL;
		}
	}
	return g;
}

void jobgen_shift(struct jobgen *g, double t0)
{
	g->t += t0;
	g->t_end += t0;
}

double jobgen_time(const struct jobgen *g)
{
	return g->t;
}

void jobgen_free(struct jobgen *g)
{
	if (g) {
		free(g->v);
		randmap_free(&g->map);
		sprandom_free(g->spr);
	}
	free(g);
}
