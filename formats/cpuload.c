// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * CPU load frames (format 1.6, FORMAT.md section 6): how busy the host's CPUs were, interval by
 * interval, while a recording ran: time used by the recorded threads, by other user tasks and
 * by kernel threads, summed over the CPUs. A replay that reproduces the conditions a workload
 * ran under (replay --cpu replay) burns the "other" part beside its own I/O. Frames are written
 * as the entries come (a frame per CPU_LOAD_FRAME_MAX entries) and at close.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "formats/ftable.h"

#define CPU_LOAD_FIXED 8u  /* u32 ncpus, u32 interval_ns after the side frame header */
#define CPU_LOAD_ENTRY 20u
#define CPU_LOAD_LONGEST_US 60000000ull /* an entry a recorder wrote a minute late */ /* u64 start_ns, u32 traced_us, u32 other_us, u32 kthread_us */

static void put_le(struct side_buf *b, uint64_t v, unsigned int n)
{
	uint8_t tmp[8];

	put_u64(tmp, v);
	side_put_bytes(b, tmp, n);
}

void cpu_load_begin(struct side_buf *b, uint32_t ncpus, uint32_t interval_ns)
{
	side_begin(b, TRACE_SKIP_MAGIC_CPU_LOAD, "IOCL");
	put_le(b, ncpus, 4);
	put_le(b, interval_ns, 4);
}

int cpu_load_put(struct side_buf *b, const struct trace_cpu_load *l)
{
	put_le(b, l->start_ns, 8);
	put_le(b, l->traced_us, 4);
	put_le(b, l->other_us, 4);
	put_le(b, l->kthread_us, 4);
	b->count++;
	return b->failed ? -ENOMEM : 0;
}

void cpu_loads_free(struct cpu_loads *c)
{
	free(c->l);
	*c = (struct cpu_loads){0};
}

int cpu_load_parse(const uint8_t *p, size_t len, struct cpu_loads *c, const char **what)
{
	size_t pos = 12, end;
	uint32_t count, ncpus, interval;
	int err = side_open(p, len, "IOCL", &count, &end, what);

	if (err)
		return err;
	if (end - pos < CPU_LOAD_FIXED || count != (end - pos - CPU_LOAD_FIXED) / CPU_LOAD_ENTRY ||
	    (end - pos - CPU_LOAD_FIXED) % CPU_LOAD_ENTRY) {
		*what = "bad CPU load entry count";
		return -EBADMSG;
	}
	ncpus = get_u32(p + pos);
	interval = get_u32(p + pos + 4);
	pos += CPU_LOAD_FIXED;
	if (!ncpus || ncpus > 65536 || interval < 100000 || interval > 1000000000 ||
	    (c->n && (ncpus != c->ncpus || interval != c->interval_ns))) {
		*what = "bad CPU count or interval (or one that differs from an earlier frame's)";
		return -EBADMSG;
	}
	if (c->n + count > c->cap) {
		size_t cap = c->cap ? c->cap : 1024;
		void *q;

		while (cap < c->n + count)
			cap *= 2;
		q = realloc(c->l, cap * sizeof(*c->l));
		if (!q)
			return -ENOMEM;
		c->l = q;
		c->cap = cap;
	}
	c->ncpus = ncpus;
	c->interval_ns = interval;
	for (uint32_t i = 0; i < count; i++, pos += CPU_LOAD_ENTRY) {
		struct trace_cpu_load *l = &c->l[c->n];

		l->start_ns = get_u64(p + pos);
		l->traced_us = get_u32(p + pos + 8);
		l->other_us = get_u32(p + pos + 12);
		l->kthread_us = get_u32(p + pos + 16);
		/* an entry lasts until the next one starts (a late reading makes it longer than
		 * the interval): each holds what the CPUs can give in that time; they go forward */
		if ((uint64_t)l->traced_us + l->other_us + l->kthread_us >
			    (uint64_t)ncpus * CPU_LOAD_LONGEST_US ||
		    (c->n && l->start_ns <= c->l[c->n - 1].start_ns)) {
			*what = "a CPU load entry out of range or out of order";
			return -EBADMSG;
		}
		c->n++;
	}
	return 0;
}
