// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The CPU load entries of a recording (record/cpuload.h). The BPF side keeps, per CPU, the
 * finished stretches of each kind of task and the one running now; a reading adds the running
 * stretch up to `now`, so the sums only grow and each entry is the difference of two readings.
 * The recorder's own threads count as idle: a replay does not reproduce them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "formats/trace.h"
#include "record/cpuload.h"

int rec_cpuload_init(struct rec_cpuload *l, int map_fd, uint64_t genesis_ktime)
{
	long on = sysconf(_SC_NPROCESSORS_ONLN);

	*l = (struct rec_cpuload){ .map_fd = -1 };
	if (map_fd < 0)
		return 0;
	l->npossible = libbpf_num_possible_cpus();
	if (l->npossible <= 0)
		return l->npossible ? l->npossible : -EINVAL;
	l->vals = calloc(l->npossible, sizeof(*l->vals));
	if (!l->vals)
		return -ENOMEM;
	l->map_fd = map_fd;
	l->ncpus = on > 0 ? (uint32_t)on : (uint32_t)l->npossible;
	l->genesis = genesis_ktime;
	l->prev_t = genesis_ktime;
	return 0;
}

/* The sums by kind up to now. */
static int read_sums(struct rec_cpuload *l, uint64_t now, uint64_t *sum)
{
	uint32_t zero = 0;

	if (bpf_map_lookup_elem(l->map_fd, &zero, l->vals))
		return -errno;
	for (int k = 0; k < ONCPU__KINDS; k++)
		sum[k] = 0;
	for (int c = 0; c < l->npossible; c++) {
		const struct oncpu_cpu *v = &l->vals[c];

		for (int k = 0; k < ONCPU__KINDS; k++)
			sum[k] += v->ns[k];
		if (v->since && v->since < now && v->kind < ONCPU__KINDS)
			sum[v->kind] += now - v->since;
	}
	return 0;
}

static uint32_t us_of(uint64_t now, uint64_t before)
{
	uint64_t d = now > before ? (now - before) / 1000 : 0;

	return d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

int rec_cpuload_tick(struct rec_cpuload *l, struct trace_writer *w, uint64_t now, bool force)
{
	uint64_t sum[ONCPU__KINDS];
	struct trace_cpu_load e;
	int err;

	if (l->map_fd < 0 || now <= l->prev_t ||
	    (!force && now - l->prev_t < REC_CPU_INTERVAL_NS))
		return 0;
	err = read_sums(l, now, sum);
	if (err)
		return 0; /* a reading missed: the next entry covers its time */
	if (!l->entries && l->prev_t == l->genesis) {
		/* the first reading: what ran before the genesis is not the recording's */
		for (int k = 0; k < ONCPU__KINDS; k++)
			l->prev[k] = sum[k];
		if (now - l->genesis > 2 * REC_CPU_INTERVAL_NS) {
			l->prev_t = now;
			return 0;
		}
	}
	e = (struct trace_cpu_load){
		.start_ns = l->prev_t - l->genesis,
		.traced_us = us_of(sum[ONCPU_TRACED], l->prev[ONCPU_TRACED]),
		.other_us = us_of(sum[ONCPU_OTHER], l->prev[ONCPU_OTHER]),
		.kthread_us = us_of(sum[ONCPU_KTHREAD], l->prev[ONCPU_KTHREAD]),
	};
	/* an interval of n ns holds at most n ns per CPU (clocks read on different CPUs) */
	{
		uint64_t cap = (uint64_t)l->ncpus * ((now - l->prev_t) / 1000), tot;

		tot = (uint64_t)e.traced_us + e.other_us + e.kthread_us;
		if (tot > cap && tot) {
			e.traced_us = (uint32_t)((uint64_t)e.traced_us * cap / tot);
			e.other_us = (uint32_t)((uint64_t)e.other_us * cap / tot);
			e.kthread_us = (uint32_t)((uint64_t)e.kthread_us * cap / tot);
		}
	}
	err = trace_writer__add_cpu_load(w, l->ncpus, REC_CPU_INTERVAL_NS, &e, 1);
	if (err)
		return err;
	l->entries++;
	l->sums[ONCPU_TRACED] += e.traced_us;
	l->sums[ONCPU_OTHER] += e.other_us;
	l->sums[ONCPU_KTHREAD] += e.kthread_us;
	for (int k = 0; k < ONCPU__KINDS; k++)
		l->prev[k] = sum[k];
	l->prev_t = now;
	if (force) {
		/* an empty entry at the end: each entry then ends where the next starts */
		e = (struct trace_cpu_load){ .start_ns = now - l->genesis };
		return trace_writer__add_cpu_load(w, l->ncpus, REC_CPU_INTERVAL_NS, &e, 1);
	}
	return 0;
}

void rec_cpuload_free(struct rec_cpuload *l)
{
	free(l->vals);
	l->vals = NULL;
	l->map_fd = -1;
}
