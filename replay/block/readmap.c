// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The regions a trace reads, gathered during the prescan in bounded memory: per trace device,
 * the exact byte ranges it reads (merged runs), then projected onto each target the way
 * replay maps offsets. Exact, because the never-written share and the prefill are in bytes:
 * 1 MiB granules made 54 reads of 4 KiB count as 54 MiB (issue 21 W15). Past GRANMAP_MAX_RUNS
 * disjoint runs, runs are rounded out to ever larger granules, so memory stays bounded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "replay/block/prefill.h"

static int run_cmp(const void *a, const void *b)
{
	const struct granmap_run *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

static uint64_t round_down(uint64_t v, unsigned int shift)
{
	return shift ? v & ~((1ULL << shift) - 1) : v;
}

static uint64_t round_up(uint64_t v, unsigned int shift)
{
	uint64_t g = shift ? 1ULL << shift : 1;

	return v > UINT64_MAX - (g - 1) ? UINT64_MAX : round_down(v + g - 1, shift);
}

/* Sorts everything and merges overlapping or touching runs, in place. */
static void merge_all(struct granmap *m)
{
	uint64_t n = 0;

	if (m->nsorted == m->nruns)
		return;
	qsort(m->runs, m->nruns, sizeof(m->runs[0]), run_cmp);
	for (uint64_t i = 0; i < m->nruns; i++) {
		if (n && m->runs[i].from <= m->runs[n - 1].to) {
			if (m->runs[i].to > m->runs[n - 1].to)
				m->runs[n - 1].to = m->runs[i].to;
		} else {
			m->runs[n++] = m->runs[i];
		}
	}
	m->nruns = m->nsorted = n;
}

/* Rounds every run out to a granule twice as coarse, until half the room is free again. */
static void coarsen(struct granmap *m)
{
	while (m->nruns > GRANMAP_MAX_RUNS / 2 && m->shift < 63) {
		m->shift = m->shift ? m->shift + 1 : 12;
		for (uint64_t i = 0; i < m->nruns; i++) {
			m->runs[i].from = round_down(m->runs[i].from, m->shift);
			m->runs[i].to = round_up(m->runs[i].to, m->shift);
		}
		m->nsorted = 0; /* rounding can make neighbours touch: merge again */
		merge_all(m);
	}
}

/* Room for one more run: merge what was appended, grow, or coarsen. 0 or -ENOMEM. */
static int make_room(struct granmap *m)
{
	struct granmap_run *r;
	uint64_t cap;

	if (m->nruns < m->cap)
		return 0;
	merge_all(m);
	if (m->cap && m->nruns <= m->cap / 2)
		return 0;
	if (m->cap < GRANMAP_MAX_RUNS) {
		cap = m->cap ? m->cap * 2 : 64;
		r = realloc(m->runs, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		m->runs = r;
		m->cap = cap;
		return 0;
	}
	coarsen(m);
	return 0;
}

/* [from, to) lies inside one run of the merged part: nothing to add (hot blocks read again,
 * and most reads once the runs are coarse). Binary search, so the prescan stays cheap. */
static bool covered(const struct granmap *m, uint64_t from, uint64_t to)
{
	uint64_t lo = 0, hi = m->nsorted;

	while (lo < hi) { /* the first run starting after from */
		uint64_t mid = lo + (hi - lo) / 2;

		if (m->runs[mid].from <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && m->runs[lo - 1].to >= to;
}

void granmap_set(struct granmap *m, uint64_t from, uint64_t to)
{
	struct granmap_run *last = m->nruns ? &m->runs[m->nruns - 1] : NULL;

	if (to <= from || m->err)
		return;
	m->used = true;
	from = round_down(from, m->shift);
	to = round_up(to, m->shift);
	/* a sequential stream extends the last run: no new entry */
	if (last && from <= last->to && to >= last->from) {
		if (from < last->from) {
			last->from = from;
			if (m->nsorted == m->nruns)
				m->nsorted--; /* it may now overlap its predecessor */
		}
		if (to > last->to)
			last->to = to;
		return;
	}
	if (covered(m, from, to))
		return;
	if ((m->err = make_room(m)))
		return;
	m->runs[m->nruns].from = from;
	m->runs[m->nruns].to = to;
	if (m->nsorted == m->nruns && (!m->nruns || from > m->runs[m->nruns - 1].to))
		m->nsorted++; /* still in order: nothing to merge */
	m->nruns++;
}

bool granmap_next_run(struct granmap *m, uint64_t *pos, uint64_t limit, uint64_t *from,
		      uint64_t *to)
{
	merge_all(m);
	if (*pos >= m->nruns || m->runs[*pos].from >= limit)
		return false;
	*from = m->runs[*pos].from;
	*to = m->runs[*pos].to < limit ? m->runs[*pos].to : limit;
	(*pos)++;
	return true;
}

int granmap_init_fixed(struct granmap *m, uint64_t size)
{
	(void)size; /* runs take memory for what is marked, not for the target's size */
	memset(m, 0, sizeof(*m));
	m->used = true;
	return 0;
}

void granmap_free(struct granmap *m)
{
	free(m->runs);
	memset(m, 0, sizeof(*m));
}

struct readmap {
	bool writes_read;
	unsigned int ndev;
	struct granmap dev[];
};

struct readmap *readmap_new(unsigned int ndev, bool writes_read)
{
	struct readmap *m = calloc(1, sizeof(*m) + ndev * sizeof(m->dev[0]));

	if (!m)
		return NULL;
	m->ndev = ndev;
	m->writes_read = writes_read;
	return m;
}

void readmap_note(struct readmap *m, const struct io_event *ev)
{
	uint64_t end;

	if (ev->dev >= m->ndev || !ev->length)
		return;
	if (ev->op != IO_OP_READ && !(ev->op == IO_OP_WRITE && m->writes_read))
		return;
	end = ev->offset > UINT64_MAX - ev->length ? UINT64_MAX : ev->offset + ev->length;
	granmap_set(&m->dev[ev->dev], ev->offset, end);
}

void readmap_free(struct readmap *m)
{
	if (!m)
		return;
	for (unsigned int i = 0; i < m->ndev; i++)
		granmap_free(&m->dev[i]);
	free(m);
}

struct granmap *readmap_dev(struct readmap *m, unsigned int dev)
{
	return dev < m->ndev && (m->dev[dev].used || m->dev[dev].err) ? &m->dev[dev] : NULL;
}

void readmap_project(struct granmap *in, uint64_t size, uint64_t src_size, bool scale,
		     struct granmap *out)
{
	uint64_t pos = 0, a, b;

	while (granmap_next_run(in, &pos, UINT64_MAX, &a, &b)) {
		uint64_t s, len, lo;

		if (scale && src_size > size) { /* as sched_map_offset: off * size / src_size */
			lo = (uint64_t)((long double)a * size / src_size);
			s = (uint64_t)((long double)b * size / src_size + 0.999L);
			granmap_set(out, lo, s < size ? s : size);
			continue;
		}
		if (a < size) /* inside the target: stays */
			granmap_set(out, a, b < size ? b : size);
		if (b <= size)
			continue;
		/* beyond it: wraps modulo size */
		s = a > size ? a : size;
		len = b - s;
		lo = s % size;
		if (len >= size) {
			granmap_set(out, 0, size);
		} else if (lo + len <= size) {
			granmap_set(out, lo, lo + len);
		} else {
			granmap_set(out, lo, size);
			granmap_set(out, 0, lo + len - size);
		}
	}
}
