// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The in-flight table as record/ sees it: the BPF slot array, mmap()ed, and the overflow hash
 * map. record.c asks it for the queue time of the oldest I/O still in flight before each drain
 * of the rings, which is what lets drain.c release events in queue-time order.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include "record/record_int.h"

#define STALE_NS (10ULL * 1000000000ULL) /* an in-flight entry this old is a leak, not an I/O */

#define SCAN_BATCH 256

int rec_table_open(int slots_fd, int hash_fd, struct rec_table *t)
{
	size_t len = sizeof(struct rec_slot) * REC_SLOTS;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, slots_fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	t->suspect = calloc(REC_SLOTS, sizeof(*t->suspect));
	if (!t->suspect) {
		munmap(p, len);
		return -ENOMEM;
	}
	t->slots = p;
	t->hash_fd = hash_fd;
	return 0;
}

void rec_table_close(struct rec_table *t)
{
	if (t->slots)
		munmap(t->slots, sizeof(struct rec_slot) * REC_SLOTS);
	free(t->suspect);
}

/*
 * Every entry of the overflow hash map to fn. The map is walked by bucket (batch lookup), so
 * entries deleted while we walk cannot make it restart the way get_next_key does.
 */
static void hash_walk(struct rec_table *t, void (*fn)(void *ctx, int fd, uint64_t key,
						      struct rec_event *e),
		      void *ctx)
{
	static uint64_t keys[SCAN_BATCH];
	static struct rec_event vals[SCAN_BATCH];
	uint32_t in = 0, out = 0;
	bool first = true;

	for (;;) {
		uint32_t cnt = SCAN_BATCH;
		int err = bpf_map_lookup_batch(t->hash_fd, first ? NULL : &in, &out, keys, vals,
					       &cnt, NULL);

		if (err && errno != ENOENT)
			break;
		for (uint32_t i = 0; i < cnt; i++)
			fn(ctx, t->hash_fd, keys[i], &vals[i]);
		if (err)
			break;
		in = out;
		first = false;
	}
}

struct oldest_walk {
	uint64_t now, oldest, n, *stale;
};

static void oldest_of(void *ctx, int fd, uint64_t key, struct rec_event *e)
{
	struct oldest_walk *w = ctx;

	/* A tombstone (bpf/record.bpf.c, forget): an I/O already emitted whose entry could not be
	 * deleted then (its bucket was busy on that CPU). It is in the trace: neither in flight
	 * nor a drop. Removed once old, as the BPF side would replace it anyway. */
	if (e->complete_ns) {
		if (w->now > e->queue_ns + STALE_NS)
			bpf_map_delete_elem(fd, &key);
		return;
	}
	if (w->now > e->queue_ns + STALE_NS) {
		if (bpf_map_delete_elem(fd, &key) == 0)
			(*w->stale)++;
		return;
	}
	w->n++;
	if (e->queue_ns < w->oldest)
		w->oldest = e->queue_ns;
}

/*
 * Queue time of the oldest I/O still in flight (UINT64_MAX if none), and how many there are.
 * Entries older than STALE_NS are I/Os the kernel ended without a completion we could see:
 * they are removed and counted in *stale so they neither hold back the release nor fill the
 * table. A slot is removed only if it held the same I/O at two scans in a row, since a slot
 * being claimed shows its previous owner's queue time for a moment.
 */
uint64_t rec_table_oldest(struct rec_table *t, uint64_t now, uint64_t *stale, uint64_t *count)
{
	struct oldest_walk w = { .now = now, .oldest = UINT64_MAX, .stale = stale };

	for (uint32_t i = 0; i < REC_SLOTS; i++) {
		struct rec_slot *s = &t->slots[i];
		uint64_t key = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
		uint64_t q = __atomic_load_n(&s->e.queue_ns, __ATOMIC_RELAXED);

		if (!key) {
			t->suspect[i] = 0;
			continue;
		}
		if (now > q + STALE_NS) {
			if (t->suspect[i] == q &&
			    __atomic_compare_exchange_n(&s->key, &key, 0, false, __ATOMIC_SEQ_CST,
							__ATOMIC_SEQ_CST)) {
				(*stale)++;
				t->suspect[i] = 0;
				continue;
			}
			t->suspect[i] = q;
		}
		w.n++;
		if (q < w.oldest)
			w.oldest = q;
	}
	hash_walk(t, oldest_of, &w);
	if (count)
		*count = w.n;
	return w.oldest;
}


struct each_walk {
	rec_sink_fn fn;
	void *ctx;
	uint64_t n;
};

static void each_of(void *ctx, int fd, uint64_t key, struct rec_event *e)
{
	struct each_walk *w = ctx;

	(void)fd, (void)key;
	if (e->complete_ns)
		return; /* a tombstone: emitted already */
	e->status = 0;
	w->fn(w->ctx, e);
	w->n++;
}

uint64_t rec_table_each(struct rec_table *t, rec_sink_fn fn, void *ctx)
{
	struct each_walk w = { fn, ctx, 0 };

	for (uint32_t i = 0; i < REC_SLOTS; i++) {
		struct rec_event e = t->slots[i].e;

		if (!__atomic_load_n(&t->slots[i].key, __ATOMIC_ACQUIRE))
			continue;
		e.complete_ns = 0;
		e.status = 0;
		fn(ctx, &e);
		w.n++;
	}
	hash_walk(t, each_of, &w);
	return w.n;
}
