// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The regions a trace reads, gathered during the prescan in bounded memory: one coarse bitmap
 * per trace device (1 MiB granules, coarser past 8 TiB), then projected onto each target the
 * way replay maps offsets. A 4 KiB read marks its whole granule: for random reads that is
 * what they cover anyway after a few thousand I/Os, and a prefill of a granule costs one
 * large write, where exact ranges could cost a map as large as the trace.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "replay/prefill.h"

static bool bit_get(const struct granmap *m, uint64_t i)
{
	return i < m->nbits && (m->bits[i / 64] >> (i % 64) & 1);
}

static void bit_put(struct granmap *m, uint64_t i, bool v)
{
	if (v)
		m->bits[i / 64] |= 1ULL << (i % 64);
	else
		m->bits[i / 64] &= ~(1ULL << (i % 64));
}

/* Doubles the granule: bit i becomes bits 2i and 2i+1 of the finer map. In place, upwards. */
static void coarsen(struct granmap *m)
{
	for (uint64_t i = 0; i < m->nbits / 2; i++)
		bit_put(m, i, bit_get(m, 2 * i) || bit_get(m, 2 * i + 1));
	memset(m->bits + m->nbits / 128, 0, m->nbits / 16); /* the upper half */
	m->shift++;
}

static int grow(struct granmap *m, uint64_t last)
{
	uint64_t n = m->nbits ? m->nbits : 1024;
	uint64_t *b;

	while (n <= last)
		n *= 2;
	if (n > GRANMAP_MAX_BITS)
		n = GRANMAP_MAX_BITS;
	b = realloc(m->bits, n / 8);
	if (!b)
		return -ENOMEM;
	memset(b + m->nbits / 64, 0, (n - m->nbits) / 8);
	m->bits = b;
	m->nbits = n;
	return 0;
}

void granmap_set(struct granmap *m, uint64_t from, uint64_t to)
{
	uint64_t first, last;

	if (to <= from || m->err)
		return;
	if (!m->shift)
		m->shift = GRANMAP_SHIFT;
	while (((to - 1) >> m->shift) >= GRANMAP_MAX_BITS)
		coarsen(m);
	first = from >> m->shift;
	last = (to - 1) >> m->shift;
	if (last >= m->nbits && (m->err = grow(m, last)))
		return;
	for (uint64_t i = first; i <= last; i++)
		bit_put(m, i, true);
}

bool granmap_next_run(const struct granmap *m, uint64_t *pos, uint64_t limit, uint64_t *from,
		      uint64_t *to)
{
	uint64_t i = *pos, j;

	while (i < m->nbits && !bit_get(m, i)) {
		if (!(i % 64) && !m->bits[i / 64])
			i += 64; /* a word with nothing marked */
		else
			i++;
	}
	if (i >= m->nbits || (i << m->shift) >= limit)
		return false;
	for (j = i + 1; j < m->nbits && bit_get(m, j); j++)
		;
	*from = i << m->shift;
	*to = (j << m->shift) < limit && j < (1ULL << (64 - m->shift)) ? j << m->shift : limit;
	*pos = j;
	return true;
}

int granmap_init_fixed(struct granmap *m, uint64_t size)
{
	memset(m, 0, sizeof(*m));
	m->shift = GRANMAP_SHIFT;
	while (size && ((size - 1) >> m->shift) >= GRANMAP_MAX_BITS)
		m->shift++;
	m->err = size ? grow(m, (size - 1) >> m->shift) : 0;
	return m->err;
}

void granmap_free(struct granmap *m)
{
	free(m->bits);
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

const struct granmap *readmap_dev(const struct readmap *m, unsigned int dev)
{
	return dev < m->ndev && (m->dev[dev].nbits || m->dev[dev].err) ? &m->dev[dev] : NULL;
}

void readmap_project(const struct granmap *in, uint64_t size, uint64_t src_size, bool scale,
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
