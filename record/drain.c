// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Between the rings and the writer. The rings deliver I/Os in completion order, but a trace is
 * ordered by queue time, so events wait in a min-heap keyed by queue time and are released only
 * once no I/O queued earlier can still arrive: record.c passes the queue time of the oldest I/O
 * still in the in-flight table (scanned before the rings are drained, minus a small margin),
 * and everything older than that has either been emitted already or was counted as dropped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/heap.h"
#include "record/record_int.h"

_Static_assert((int)REC_OP_READ == IO_OP_READ && (int)REC_OP_WRITE == IO_OP_WRITE &&
		       (int)REC_OP_FLUSH == IO_OP_FLUSH && (int)REC_OP_DISCARD == IO_OP_DISCARD &&
		       (int)REC_OP_WRITE_ZEROES == IO_OP_WRITE_ZEROES,
	       "bpf/record.h ops must match formats/event.h");
_Static_assert((int)REC_F_SYNC == IO_F_SYNC && (int)REC_F_FUA == IO_F_FUA &&
		       (int)REC_F_PREFLUSH == IO_F_PREFLUSH && (int)REC_F_META == IO_F_META &&
		       (int)REC_F_READAHEAD == IO_F_READAHEAD && (int)REC_F_KTHREAD == IO_F_KTHREAD,
	       "bpf/record.h flags must match formats/event.h");

#define OUT_BATCH 4096

/*
 * The heap orders 16-byte keys, each naming the event's place in a pool, rather than the 72-byte
 * events themselves: a release pops every event once, and each pop sifts through log2(n) levels
 * of the heap, so moving whole events was the main thread's largest cost per I/O (record/README.md,
 * "Where the time goes"). An event is copied once into the pool and read once when written.
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
	struct rec_key *heap;	/* n keys, in heap order */
	struct rec_event *pool; /* cap events, n of them waiting */
	uint32_t *free_slots;	/* cap - n slots of pool free, the last freed on top */
	size_t n, cap;
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
	struct rec_key *h = realloc(d->heap, cap * sizeof(*h));
	struct rec_event *p;
	uint32_t *f;
	size_t nfree = d->cap - d->n;

	if (!h)
		return -ENOMEM;
	d->heap = h;
	p = realloc(d->pool, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	d->pool = p;
	f = realloc(d->free_slots, cap * sizeof(*f));
	if (!f)
		return -ENOMEM;
	d->free_slots = f;
	/* the new slots below the free ones, the highest deepest: the pool fills from slot 0 */
	memmove(f + (cap - d->cap), f, nfree * sizeof(*f));
	for (size_t i = 0; i < cap - d->cap; i++)
		f[i] = (uint32_t)(cap - 1 - i);
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
	free(d->heap);
	free(d->pool);
	free(d->free_slots);
	free(d);
}

#define REC_QUEUED(k) ((k).queue_ns)
HEAP_DEFINE(recheap, struct rec_key, REC_QUEUED)

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
	d->st.events++;
	d->st.bytes_io += e->bytes;
	if (d->nout == OUT_BATCH)
		return flush_out(d);
	return 0;
}

/* Writes the oldest event waiting and frees its slot; write_one's result. */
static int pop_write(struct rec_drain *d)
{
	struct rec_key k;

	recheap_pop(d->heap, &d->n, &k);
	d->free_slots[d->cap - d->n - 1] = k.slot;
	return write_one(d, &d->pool[k.slot]);
}

int rec_drain__push(void *ctx, const void *ev)
{
	const struct rec_event *e = ev;
	struct rec_drain *d = ctx;

	struct rec_key k;

	if (d->n == d->cap) {
		/* Bounded memory: rather than grow without end (a stuck I/O holding back the
		 * release), write the oldest now; out_of_order says if that ever broke the order. */
		if (d->cap < (1u << 22))
			grow(d, 2 * d->cap);
		if (d->n == d->cap && pop_write(d))
			return 0;
	}
	k.queue_ns = e->queue_ns;
	k.slot = d->free_slots[d->cap - d->n - 1];
	k._pad = 0;
	d->pool[k.slot] = *e;
	recheap_push(d->heap, &d->n, &k);
	return 0;
}

int rec_drain__release(struct rec_drain *d, uint64_t before)
{
	while (d->n && d->heap[0].queue_ns < before)
		if (pop_write(d))
			return d->err;
	if (flush_out(d))
		return d->err;
	return d->err;
}

int rec_drain__error(const struct rec_drain *d)
{
	return d->err;
}

void rec_drain__stats(const struct rec_drain *d, struct rec_drain_stats *s)
{
	*s = d->st;
	s->pending = d->n;
}
