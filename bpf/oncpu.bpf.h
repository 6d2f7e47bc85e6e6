/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * CPU accounting shared by both recorders (issue 23: a replay that reproduces the CPU the
 * workload competed for). One sched_switch program, measured rather than sampled:
 *   - per recorded thread, its time on a CPU (oncpu_tasks), so each recorded call or I/O
 *     carries the thread's on-CPU time since its previous one (oncpu_since());
 *   - per CPU, the time spent running recorded threads, other user tasks and kernel threads
 *     (oncpu_cpus), which record/ turns into the trace's CPU load entries every 10 ms.
 * A thread becomes "recorded" at its first recorded call (oncpu_since() creates its entry);
 * the map is a plain hash (task storage is not offered to every program type the recorders
 * use), its entries removed when the thread exits. The including file defines self_tgid (the
 * recorder's own process, counted as idle) and oncpu_enabled (read-only: the verifier drops
 * everything when recording without CPU data).
 */
#ifndef IOREEL_BPF_ONCPU_BPF_H
#define IOREEL_BPF_ONCPU_BPF_H

#include "oncpu.h"

#ifndef PF_KTHREAD
#define PF_KTHREAD 0x00200000
#endif

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, ONCPU_TASKS_MAX);
	__type(key, __u32);
	__type(value, struct oncpu_task);
} oncpu_tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct oncpu_cpu);
} oncpu_cpus SEC(".maps");

/*
 * One bit per thread id below ONCPU_BITS (pid_max's default on 64-bit is 4 Mi): set while the
 * thread has an entry in oncpu_tasks. The switch program runs at every context switch of the
 * host, and most switch threads nobody records: an array word (a lookup the verifier inlines)
 * tells them apart before the hash is searched. Ids above it go to the hash.
 */
#define ONCPU_BITS (1u << 22)
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, ONCPU_BITS / 64);
	__type(key, __u32);
	__type(value, __u64);
} oncpu_bits SEC(".maps");

/* Whether thread tid may have an entry in oncpu_tasks (false: it certainly has none). */
static __always_inline bool oncpu_maybe(__u32 tid)
{
	__u32 w = tid / 64;
	__u64 *b;

	if (tid >= ONCPU_BITS)
		return true;
	b = bpf_map_lookup_elem(&oncpu_bits, &w);
	return !b || (*b >> (tid % 64)) & 1;
}

static __always_inline void oncpu_bit(__u32 tid, bool on)
{
	__u32 w = tid / 64;
	__u64 *b, m = 1ull << (tid % 64);

	if (tid >= ONCPU_BITS)
		return;
	b = bpf_map_lookup_elem(&oncpu_bits, &w);
	if (!b)
		return;
	if (on)
		__sync_fetch_and_or(b, m);
	else
		__sync_fetch_and_and(b, ~m);
}

/*
 * The recorded threads' entries, direct-mapped by tid (one cache line each, a lookup the
 * verifier inlines): the switch program looks up prev and next at every switch of a recorded
 * thread, and a hash lookup there (the key's hash, a bucket, then the element: two cache
 * misses) was most of its time. A thread whose slot another holds goes to oncpu_tasks.
 * `tid` is the owner, 0 when free, ONCPU_SLOT_BUSY while being filled (matches no thread).
 */
#define ONCPU_SLOTS 4096
#define ONCPU_SLOT_BUSY (1ull << 63)
struct oncpu_slot {
	__u64 tid; /* 64 bits: the BPF targets the build uses have no 32-bit atomics */
	struct oncpu_task t;
} __attribute__((aligned(64)));

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, ONCPU_SLOTS);
	__type(key, __u32);
	__type(value, struct oncpu_slot);
} oncpu_slots SEC(".maps");

static __always_inline struct oncpu_slot *oncpu_slot_of(__u32 tid)
{
	__u32 i = tid % ONCPU_SLOTS;

	return bpf_map_lookup_elem(&oncpu_slots, &i);
}

/* Thread tid's entry, or NULL. */
static __always_inline struct oncpu_task *oncpu_task_of(__u32 tid)
{
	struct oncpu_slot *s = oncpu_slot_of(tid);

	if (s && s->tid == tid)
		return &s->t;
	return bpf_map_lookup_elem(&oncpu_tasks, &tid);
}

/* Makes an entry for thread tid (the current thread), in its slot if free; false when there is
 * no room at all. */
static __always_inline bool oncpu_task_new(__u32 tid, const struct oncpu_task *fresh)
{
	struct oncpu_slot *s = oncpu_slot_of(tid);

	if (s && __sync_val_compare_and_swap(&s->tid, 0, ONCPU_SLOT_BUSY) == 0) {
		s->t = *fresh;
		/* filled before it is named: a switch that finds it sees whole fields */
		__sync_val_compare_and_swap(&s->tid, ONCPU_SLOT_BUSY, tid);
		return true;
	}
	return bpf_map_update_elem(&oncpu_tasks, &tid, fresh, BPF_NOEXIST) == 0;
}

static __always_inline void oncpu_task_del(__u32 tid)
{
	struct oncpu_slot *s = oncpu_slot_of(tid);

	if (s && s->tid == tid)
		__sync_val_compare_and_swap(&s->tid, (__u64)tid, 0);
	else
		bpf_map_delete_elem(&oncpu_tasks, &tid);
}

/* Threads not tracked because the map was full (counted, shown by record/). */
volatile __u64 oncpu_full = 0;

static __always_inline __u32 oncpu_kind_of(struct task_struct *t, bool traced)
{
	if (traced)
		return ONCPU_TRACED;
	if (!t->pid || t->tgid == self_tgid)
		return ONCPU_NONE;
	return (t->flags & PF_KTHREAD) ? ONCPU_KTHREAD : ONCPU_OTHER;
}

/* Closes the CPU's running stretch at now and starts one of kind. */
static __always_inline void oncpu_cpu_switch(__u64 now, __u32 kind)
{
	__u32 zero = 0;
	struct oncpu_cpu *c = bpf_map_lookup_elem(&oncpu_cpus, &zero);

	if (!c)
		return;
	if (c->since && now > c->since && c->kind < ONCPU__KINDS)
		c->ns[c->kind] += now - c->since;
	c->since = now;
	c->kind = kind;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(oncpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now;
	__u32 ptid, ntid;
	struct oncpu_task *s;

	if (!oncpu_enabled)
		return 0;
	now = bpf_ktime_get_ns();
	ptid = prev->pid;
	ntid = next->pid;
	if (ptid && oncpu_maybe(ptid)) {
		s = oncpu_task_of(ptid);
		if (s && s->running) {
			s->acc_ns += now - s->in_ns;
			s->running = 0;
		}
	}
	s = ntid && oncpu_maybe(ntid) ? oncpu_task_of(ntid) : NULL;
	if (s) {
		s->in_ns = now;
		s->running = 1;
	}
	oncpu_cpu_switch(now, oncpu_kind_of(next, s != NULL));
	return 0;
}

/* A thread exits: its entry goes (a later thread may get its id). */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(oncpu_exit, struct task_struct *p)
{
	__u32 tid;

	if (!oncpu_enabled)
		return 0;
	tid = p->pid;
	if (!oncpu_maybe(tid))
		return 0;
	oncpu_task_del(tid);
	oncpu_bit(tid, false);
	return 0;
}

/* The current thread's time runnable but waiting for a CPU, all told: the scheduler's own
 * accounting (sched_info.run_delay, CONFIG_SCHED_INFO), added at each switch in; so read while
 * the thread runs it is whole. No program of ours needed for it. */
static __always_inline __u64 oncpu_run_delay(void)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();

	return BPF_CORE_READ(t, sched_info.run_delay);
}

/*
 * The current thread's on-CPU time since the end of its previous recorded call, in ns (at
 * least 1), or 0 when unknown (its first call, or the map full). Makes the thread a recorded
 * one. mark: the end of this call counts as the start of the next gap (block level: every I/O;
 * file level: oncpu_mark() at the call's return instead, and the call's entry is noted for the
 * wait for a CPU it will have had by then).
 */
static __always_inline __u32 oncpu_since(__u64 now, __u32 tid, bool mark)
{
	struct oncpu_task *s, fresh = { .in_ns = now, .running = 1 };
	__u64 total, d, had;

	if (!oncpu_enabled || !tid)
		return 0;
	s = oncpu_task_of(tid);
	if (!s) {
		if (oncpu_task_new(tid, &fresh)) {
			oncpu_bit(tid, true);
			/* it runs here now: the CPU's stretch is a recorded thread's from now */
			oncpu_cpu_switch(now, ONCPU_TRACED);
			if (mark) {
				s = oncpu_task_of(tid);
				if (s)
					s->mark_ns = 1; /* total 0, as a mark that is set */
			}
		} else {
			__sync_fetch_and_add(&oncpu_full, 1);
		}
		return 0;
	}
	total = s->acc_ns + (s->running && now > s->in_ns ? now - s->in_ns : 0);
	had = s->mark_ns;
	if (mark)
		s->mark_ns = total + 1;
	else
		s->rd_entry = oncpu_run_delay() + 1;
	if (!had)
		return 0;
	d = total + 1 - had;
	if (d > ONCPU_SAT)
		return ONCPU_SAT;
	return d ? d : 1;
}

/* File level: the current thread's recorded call returns now. Returns how long the thread
 * waited for a CPU during the call (runnable, not running: after its I/O completed, or
 * preempted), in ns; 0 when not known. */
static __always_inline __u64 oncpu_mark(__u64 now, __u32 tid)
{
	struct oncpu_task *s;
	__u64 w;

	if (!oncpu_enabled)
		return 0;
	s = oncpu_task_of(tid);
	if (!s)
		return 0;
	s->mark_ns = s->acc_ns + (s->running && now > s->in_ns ? now - s->in_ns : 0) + 1;
	if (!s->rd_entry)
		return 0;
	w = oncpu_run_delay() + 1 - s->rd_entry;
	s->rd_entry = 0;
	return w > CPUWAIT_SAT ? CPUWAIT_SAT : w;
}

#endif
