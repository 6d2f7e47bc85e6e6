// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Dep mode's elastic models: their bookkeeping (what each model is: dep_el.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "replay/dep/dep.h"
#include "replay/dep/dep_el.h"

#define ABS_BITS 16

struct dep_wacct {
	uint64_t k; /* stream << 32 | key, + 1 (0: empty) */
	uint64_t read, out, done;
	uint64_t last_done; /* ns since the start */
	uint32_t last_dev;  /* the target of its latest write read (file level: the slot) */
};

int dep_el_init(struct dep_el *e, bool gc, bool absorb, bool split)
{
	memset(e, 0, sizeof(*e));
	e->gc = gc;
	e->absorb = absorb;
	e->split = split;
	e->acct = gc || split;
	if (absorb) {
		e->abs = calloc(1u << ABS_BITS, sizeof(*e->abs));
		if (!e->abs)
			return -ENOMEM;
	}
	return 0;
}

void dep_el_free(struct dep_el *e)
{
	free(e->wa);
	free(e->cov);
	free(e->cov_meta);
	free(e->abs);
	memset(e, 0, sizeof(*e));
}

static uint32_t hash64(uint64_t k, uint32_t cap)
{
	return (uint32_t)((k * 0x9E3779B97F4A7C15ULL) >> 32) & (cap - 1);
}

static struct dep_wacct *wacct(const struct dep_el *e, uint32_t stream, uint32_t key)
{
	uint64_t k = ((uint64_t)stream << 32 | key) + 1;
	uint32_t i;

	if (!e->capwa)
		return NULL;
	for (i = hash64(k, e->capwa); e->wa[i].k; i = (i + 1) & (e->capwa - 1))
		if (e->wa[i].k == k)
			return &e->wa[i];
	return NULL;
}

static struct dep_wacct *wacct_add(struct dep_el *e, uint32_t stream, uint32_t key)
{
	uint64_t k = ((uint64_t)stream << 32 | key) + 1;
	struct dep_wacct *a = wacct(e, stream, key);
	uint32_t i;

	if (a)
		return a;
	if ((e->nwa + 1) * 2 > e->capwa) {
		uint32_t cap = e->capwa ? e->capwa * 2 : 256;
		struct dep_wacct *t = calloc(cap, sizeof(*t));

		if (!t)
			return NULL;
		for (uint32_t j = 0; j < e->capwa; j++) {
			if (!e->wa[j].k)
				continue;
			for (i = hash64(e->wa[j].k, cap); t[i].k; i = (i + 1) & (cap - 1))
				;
			t[i] = e->wa[j];
		}
		free(e->wa);
		e->wa = t;
		e->capwa = cap;
	}
	for (i = hash64(k, e->capwa); e->wa[i].k; i = (i + 1) & (e->capwa - 1))
		;
	e->wa[i] = (struct dep_wacct){ .k = k };
	e->nwa++;
	return &e->wa[i];
}

uint64_t dep_el_admit(struct dep_el *e, uint32_t stream, uint32_t key, uint8_t flags,
		      uint32_t dev)
{
	struct dep_wacct *a;

	if (!e->acct || !(flags & (DEP_F_WRITE | DEP_F_FLUSH)))
		return 0;
	a = (flags & DEP_F_WRITE) ? wacct_add(e, stream, key) : wacct(e, stream, key);
	if (flags & DEP_F_WRITE) {
		if (a) {
			a->read++;
			a->last_dev = dev;
		}
		return 0;
	}
	return a ? a->read : 0; /* none: the thread never wrote there (yet) */
}

void dep_el_write_out(struct dep_el *e, uint32_t stream, uint32_t key)
{
	struct dep_wacct *a = e->acct ? wacct(e, stream, key) : NULL;

	if (a)
		a->out++;
}

void dep_el_write_done(struct dep_el *e, uint32_t stream, uint32_t key, uint64_t complete_ns)
{
	struct dep_wacct *a = e->acct ? wacct(e, stream, key) : NULL;

	if (!a)
		return;
	if (a->out)
		a->out--;
	a->done++;
	if (complete_ns > a->last_done)
		a->last_done = complete_ns;
}

static int cov_grow(struct dep_el *e, uint32_t key)
{
	uint32_t n = e->ncovk ? e->ncovk : 64;
	uint64_t *c, *m;

	while (n <= key)
		n *= 2;
	c = realloc(e->cov, n * sizeof(*c));
	if (!c)
		return -ENOMEM;
	e->cov = c;
	m = realloc(e->cov_meta, n * sizeof(*m));
	if (!m)
		return -ENOMEM;
	e->cov_meta = m;
	memset(c + e->ncovk, 0, (n - e->ncovk) * sizeof(*c));
	memset(m + e->ncovk, 0, (n - e->ncovk) * sizeof(*m));
	e->ncovk = n;
	return 0;
}

uint64_t dep_el_reads(const struct dep_el *e, uint32_t stream, uint32_t key, uint32_t *dev)
{
	const struct dep_wacct *a = e->acct ? wacct(e, stream, key) : NULL;

	if (a && dev)
		*dev = a->last_dev;
	return a ? a->read : 0;
}

void dep_el_flush_out(struct dep_el *e, uint32_t key, bool meta, uint64_t seq)
{
	if (!e->gc || (key >= e->ncovk && cov_grow(e, key)))
		return; /* no memory: a flush not used as a cover, nothing worse */
	e->cov[key] = seq + 1;
	if (meta)
		e->cov_meta[key] = seq + 1;
}

void dep_el_flush_done(struct dep_el *e, uint32_t key, uint64_t seq)
{
	if (key >= e->ncovk)
		return;
	/* an earlier flush still in flight is forgotten with it: a missed coalescing only */
	if (e->cov[key] == seq + 1)
		e->cov[key] = 0;
	if (e->cov_meta[key] == seq + 1)
		e->cov_meta[key] = 0;
}

uint64_t dep_el_cov(const struct dep_el *e, uint32_t key, bool meta)
{
	if (key >= e->ncovk)
		return 0;
	return meta ? e->cov_meta[key] : e->cov[key];
}

bool dep_el_covered(const struct dep_el *e, uint32_t stream, uint32_t key, uint64_t wr_snap,
		    uint64_t g_submit_ns)
{
	const struct dep_wacct *a = wacct(e, stream, key);

	if (wr_snap == UINT64_MAX)
		return false;
	if (!a)
		return !wr_snap; /* the thread never wrote there */
	/* every write read before the flush done, none out, the last done before g went */
	return !a->out && a->done >= wr_snap && a->last_done <= g_submit_ns;
}

static uint32_t abs_hash(uint32_t stream, uint32_t dev, uint64_t offset)
{
	uint64_t k = (offset >> 9) ^ ((uint64_t)dev << 48) ^ ((uint64_t)stream << 56) ^
		     ((uint64_t)stream * 0x85EBCA6BULL);

	return hash64(k, 1u << ABS_BITS);
}

void dep_el_abs_note(struct dep_el *e, uint32_t stream, uint32_t dev, uint64_t offset,
		     uint64_t seq)
{
	if (e->abs)
		e->abs[abs_hash(stream, dev, offset)] = seq + 1;
}

uint64_t dep_el_abs_find(const struct dep_el *e, uint32_t stream, uint32_t dev, uint64_t offset)
{
	return e->abs ? e->abs[abs_hash(stream, dev, offset)] : 0;
}
