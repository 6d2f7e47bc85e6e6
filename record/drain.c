// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Between the rings and the writer. The rings deliver I/Os in completion order, but a trace is
 * ordered by queue time, so events wait, sorted by queue time, and are released only
 * once no I/O queued earlier can still arrive: record.c passes the queue time of the oldest I/O
 * still in the in-flight table (scanned before the rings are drained, minus a small margin),
 * and everything older than that has either been emitted already or was counted as dropped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "record/record_int.h"

_Static_assert((int)REC_OP_READ == IO_OP_READ && (int)REC_OP_WRITE == IO_OP_WRITE &&
		       (int)REC_OP_FLUSH == IO_OP_FLUSH && (int)REC_OP_DISCARD == IO_OP_DISCARD &&
		       (int)REC_OP_WRITE_ZEROES == IO_OP_WRITE_ZEROES,
	       "bpf/record.h ops must match formats/event.h");
_Static_assert((int)REC_F_SYNC == IO_F_SYNC && (int)REC_F_FUA == IO_F_FUA &&
		       (int)REC_F_PREFLUSH == IO_F_PREFLUSH && (int)REC_F_META == IO_F_META &&
		       (int)REC_F_READAHEAD == IO_F_READAHEAD && (int)REC_F_KTHREAD == IO_F_KTHREAD,
	       "bpf/record.h flags must match formats/event.h");

#define OUT_BATCH 256
#ifndef REC_DRAIN_MAX
#define REC_DRAIN_MAX (1u << 22) /* events waiting at most (~9 s of 450k IOPS) */
#endif

/*
 * The events wait in a pool and are ordered by 16-byte keys naming their place in it, never
 * moved themselves: an event is copied once into the pool and read once when written.
 *
 * The order is a sorted run of keys, into which the keys that arrived since the last release are
 * merged at each release, the oldest written on the way. The arrivals are nearly sorted already:
 * each CPU's ring hands them over in completion order, which is queue order but for the I/Os
 * that overtook others (none on a synchronous disk like zram), so they are a few ascending runs,
 * merged in a pass or a few (a natural merge sort; stable, so equal times keep their arrival
 * order). Before, a min-heap of the events cost every I/O a pop through log2(n) levels (~13 at
 * 450k IOPS: about 25 ms of I/Os wait) and 72 bytes moved at each: the main thread's largest
 * cost (record/README.md, "Where the time goes per I/O").
 */
struct rec_key {
	uint64_t queue_ns;
	uint32_t slot; /* in pool */
	uint32_t _pad;
};

struct rec_drain {
	struct trace_writer *w;
	const struct rec_target *t;
	int nt;
	uint64_t genesis;
	struct rec_event *pool; /* cap events */
	uint32_t *free_slots;	/* nfree slots of pool free, the last freed on top */
	struct rec_key *run;	/* waiting since a release, sorted: run[rs..re) */
	struct rec_key *arr;	/* arrived since the last release, in arrival order: arr[0..na) */
	struct rec_key *tmp;	/* scratch for the merges */
	size_t rs, re, na, nfree, cap;
	struct io_event out[OUT_BATCH];
	size_t nout;
	uint64_t last_queue; /* queue time of the last event written */
	int err;
	struct rec_drain_stats st;
};

int rec_status_errno(uint32_t status)
{
	/* enum blk_status values, include/linux/blk_types.h; table as in blk_errors[]. */
	static const int map[] = {
		[0] = 0,	    [1] = -EOPNOTSUPP, [2] = -ETIMEDOUT, [3] = -ENOSPC,
		[4] = -ENOLINK,	    [5] = -EREMOTEIO,  [6] = -EBADE,	 [7] = -ENODATA,
		[8] = -EILSEQ,	    [9] = -ENOMEM,     [10] = -EIO,	 [11] = -EAGAIN,
		[12] = -EREMCHG,    [13] = -EBUSY,     [14] = -EOVERFLOW, [15] = -ETOOMANYREFS,
		[16] = -EAGAIN,
	};

	if (status < sizeof(map) / sizeof(map[0]))
		return map[status] ? map[status] : (status ? -EIO : 0);
	return -EIO;
}

/* Room for cap events (cap > d->cap); the new pool slots go under the free ones. 0 or -ENOMEM,
 * with d unchanged but for arrays that grew. */
static int grow(struct rec_drain *d, size_t cap)
{
	struct rec_key **keys[] = { &d->run, &d->arr, &d->tmp };
	struct rec_event *p;
	uint32_t *f;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		struct rec_key *k = realloc(*keys[i], cap * sizeof(*k));

		if (!k)
			return -ENOMEM;
		*keys[i] = k;
	}
	p = realloc(d->pool, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	d->pool = p;
	f = realloc(d->free_slots, cap * sizeof(*f));
	if (!f)
		return -ENOMEM;
	d->free_slots = f;
	/* the new slots below the free ones, the highest deepest: the pool fills from slot 0 */
	memmove(f + (cap - d->cap), f, d->nfree * sizeof(*f));
	for (size_t i = 0; i < cap - d->cap; i++)
		f[i] = (uint32_t)(cap - 1 - i);
	d->nfree += cap - d->cap;
	d->cap = cap;
	return 0;
}

struct rec_drain *rec_drain__new(struct trace_writer *w, const struct rec_target *t, int nt,
				 uint64_t genesis_ktime)
{
	struct rec_drain *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->w = w;
	d->t = t;
	d->nt = nt;
	d->genesis = genesis_ktime;
	if (grow(d, 1 << 16)) {
		rec_drain__free(d);
		return NULL;
	}
	return d;
}

void rec_drain__free(struct rec_drain *d)
{
	if (!d)
		return;
	free(d->run);
	free(d->arr);
	free(d->tmp);
	free(d->pool);
	free(d->free_slots);
	free(d);
}

static int flush_out(struct rec_drain *d)
{
	int err;

	if (!d->nout)
		return 0;
	err = trace_writer__add(d->w, d->out, d->nout);
	d->nout = 0;
	if (err < 0 && !d->err)
		d->err = err;
	return err < 0 ? err : 0;
}

/* Which recorded device an I/O belongs to: same disk, and (for data) inside its range. */
static int target_of(const struct rec_drain *d, const struct rec_event *e)
{
	for (int i = 0; i < d->nt; i++) {
		const struct rec_target *t = &d->t[i];

		if (t->disk_dev != e->dev)
			continue;
		if (!e->bytes || !t->is_partition)
			return i;
		if (e->sector >= t->start_sector && e->sector < t->start_sector + t->nr_sectors)
			return i;
	}
	return -1;
}

static uint64_t rel(const struct rec_drain *d, uint64_t ktime)
{
	return ktime > d->genesis ? ktime - d->genesis : 0;
}

static int write_one(struct rec_drain *d, const struct rec_event *e)
{
	struct io_event *o;
	int ti = target_of(d, e);

	if (ti < 0) {
		d->st.unmatched++;
		return 0;
	}
	if (e->queue_ns < d->last_queue)
		d->st.out_of_order++;
	else
		d->last_queue = e->queue_ns;
	o = &d->out[d->nout++];
	memset(o, 0, sizeof(*o));
	o->queue_ns = rel(d, e->queue_ns);
	o->issue_ns = e->issue_ns ? rel(d, e->issue_ns) : IO_TS_NONE;
	/* 0: the kernel ended the I/O without a completion event we saw (bpf: end_unseen) */
	o->complete_ns = e->complete_ns ? rel(d, e->complete_ns) : IO_TS_NONE;
	o->offset = e->bytes ? (e->sector - d->t[ti].start_sector) * 512 : 0;
	o->length = e->bytes;
	o->dev = (uint32_t)ti;
	o->pid = e->pid;
	o->tid = e->tid;
	o->error = rec_status_errno(e->status);
	o->cpu = e->cpu;
	o->op = e->op;
	o->flags = e->flags;
	memcpy(o->comm, e->comm, sizeof(o->comm));
	o->comm[IO_COMM_LEN - 1] = 0;
	o->oncpu_ns = e->oncpu;
	d->st.events++;
	d->st.bytes_io += e->bytes;
	if (d->nout == OUT_BATCH)
		return flush_out(d);
	return 0;
}

/* Writes the event k names and frees its slot; write_one's result. */
static int emit(struct rec_drain *d, const struct rec_key *k)
{
	d->free_slots[d->nfree++] = k->slot;
	return write_one(d, &d->pool[k->slot]);
}

/* Where the ascending run of keys starting at k[i] (i < n) ends. */
static size_t run_end(const struct rec_key *k, size_t i, size_t n)
{
	while (++i < n && k[i].queue_ns >= k[i - 1].queue_ns)
		;
	return i;
}

/* x[0..nx) and y[0..ny), both sorted, into out; x's first where equal (stable). */
static void merge2(const struct rec_key *x, size_t nx, const struct rec_key *y, size_t ny,
		   struct rec_key *out)
{
	size_t i = 0, j = 0;

	while (i < nx && j < ny)
		*out++ = y[j].queue_ns < x[i].queue_ns ? y[j++] : x[i++];
	memcpy(out, x + i, (nx - i) * sizeof(*x));
	memcpy(out + (nx - i), y + j, (ny - j) * sizeof(*y));
}

/* Sorts arr[0..na) by merging its ascending runs pairwise until one is left. */
static void sort_arrivals(struct rec_drain *d)
{
	while (run_end(d->arr, 0, d->na) < d->na) {
		struct rec_key *a = d->arr;

		for (size_t i = 0; i < d->na;) {
			size_t j = run_end(a, i, d->na), k = j < d->na ? run_end(a, j, d->na) : j;

			merge2(a + i, j - i, a + j, k - j, d->tmp + i);
			i = k;
		}
		d->arr = d->tmp;
		d->tmp = a;
	}
}

/*
 * Merges the arrivals into the run, writing on the way every event queued before `before`:
 * the run is then all that waits, sorted. Only the run's tail from the oldest arrival on is
 * merged (arrivals are recent, but an I/O that stays in flight holds back the release, and the
 * run grows behind it). Stops writing at the writer's first error (the events stay in the run).
 */
static void settle(struct rec_drain *d, uint64_t before)
{
	struct rec_key *r = d->run, *a;
	size_t i = d->rs, j = 0, lo, hi, o;

	sort_arrivals(d);
	a = d->arr;
	while (!d->err) {
		bool from_run = i < d->re && (j == d->na || a[j].queue_ns >= r[i].queue_ns);
		const struct rec_key *k = from_run ? &r[i] : &a[j];

		if ((!from_run && j == d->na) || k->queue_ns >= before)
			break;
		i += from_run;
		j += !from_run;
		if (emit(d, k))
			break;
	}
	d->rs = i;
	if (j < d->na) {
		/* after every waiting event queued no later than the oldest arrival (stable) */
		for (lo = i, hi = d->re; lo < hi;) {
			size_t m = lo + (hi - lo) / 2;

			if (r[m].queue_ns <= a[j].queue_ns)
				lo = m + 1;
			else
				hi = m;
		}
		o = d->re - lo + d->na - j;
		merge2(r + lo, d->re - lo, a + j, d->na - j, d->tmp);
		if (lo + o > d->cap) { /* no room after it: the run to the front */
			memmove(r, r + i, (lo - i) * sizeof(*r));
			lo -= i;
			d->rs = 0;
		}
		memcpy(r + lo, d->tmp, o * sizeof(*r));
		d->re = lo + o;
	}
	d->na = 0;
}

int rec_drain__push(void *ctx, const void *ev)
{
	const struct rec_event *e = ev;
	struct rec_drain *d = ctx;
	struct rec_key *k;

	if (!d->nfree) {
		/* Bounded memory: rather than grow without end (a stuck I/O holding back the
		 * release), write the oldest 64th now; out_of_order says if that ever broke the
		 * order. (A 64th, not one: the run moves to the front of its array at most once
		 * per as many arrivals.) */
		if (d->cap < REC_DRAIN_MAX)
			grow(d, 2 * d->cap);
		if (!d->nfree) {
			settle(d, 0);
			for (size_t n = d->cap / 64; n-- && !d->err;)
				emit(d, &d->run[d->rs++]);
			if (!d->nfree)
				return 0; /* the writer failed */
		}
	}
	k = &d->arr[d->na++];
	k->queue_ns = e->queue_ns;
	k->slot = d->free_slots[--d->nfree];
	k->_pad = 0;
	d->pool[k->slot] = *e;
	return 0;
}

int rec_drain__release(struct rec_drain *d, uint64_t before)
{
	if (d->na)
		settle(d, before);
	else
		while (!d->err && d->rs < d->re && d->run[d->rs].queue_ns < before &&
		       !emit(d, &d->run[d->rs++]))
			;
	flush_out(d);
	return d->err;
}

int rec_drain__error(const struct rec_drain *d)
{
	return d->err;
}

void rec_drain__stats(const struct rec_drain *d, struct rec_drain_stats *s)
{
	*s = d->st;
	s->pending = d->re - d->rs + d->na;
}
