// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ioreel record, kernel side. Two levels, chosen per whole disk by record/ (dev_tab):
 *
 *   bio: block_bio_queue -> block_bio_complete, keyed by the struct bio pointer. What the
 *        filesystem or application asked, before merges; the only level of bio-based drivers
 *        (zram, md, dm). A bio split by the block layer completes once, as the original.
 *   rq:  block_io_start (or block_rq_insert for requests the block layer makes itself, such as
 *        the flush state machine's flush request) -> block_rq_issue -> block_rq_complete, keyed
 *        by the struct request pointer. What the device saw after merges, with issue time.
 *        Kernels before v6.5 have no block_io_start: block_rq_insert or block_rq_issue starts
 *        the request there (the *_nostart programs, see rq_renew).
 *
 * Every program exists twice, as tp_btf and as raw_tp (see the end of this file and
 * bpf/record_progs.h); record/ loads one set.
 *
 * The submitter (pid, tid, comm, cpu) is taken when the I/O is queued, in the submitting
 * task's context, and kept in the in-flight table (a slot array, a hash map on collision)
 * until completion, which usually runs in an interrupt or a kworker. Completed I/Os go to a
 * per-CPU ring of our own (record.h: no lock, no wakeup; record/ drains it on a short timer).
 * Every I/O we meant to record but could not (ring full, in-flight table full) is counted in
 * the per-CPU stats map, so recorded + dropped is exact.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "record.h"
#include "rings.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* REQ_OP_BITS is a #define (not in BTF); it has been 8 since v4.10 (commit ef295ecf090d). */
#define REQ_OP_MASK ((1u << 8) - 1)
/* PF_KTHREAD is a #define too (include/linux/sched.h), unchanged since v2.6.x. */
#define PF_KTHREAD 0x00200000

/* Filters and tuning, set by record/ before load. */
const volatile __u32 filter_tgid = 0;
/* The recorder's own process (idle for the CPU load) and whether to record CPU time
 * (bpf/oncpu.bpf.h). */
const volatile __u32 self_tgid = 0;
const volatile bool oncpu_enabled = false;
const volatile bool filter_by_comm = false;
const volatile char filter_comm[16] = {};
const volatile bool filter_by_cgroup = false;
/* Measurement only (IOREEL_RECORD_ATTACH_ONLY=1, for bench/record.sh): every program returns
 * at once, so a run shows what the attached hooks cost before any work. The verifier drops
 * the check when it is false (read-only data), so it costs a normal recording nothing. */
const volatile bool attach_only = false;
/* First statement of every program. */
#define HOOK_ONLY_RETURN()		\
	do {				\
		if (attach_only)	\
			return 0;	\
	} while (0)
/* Set by record/ until it arms tracking, and at the end: track no new I/O, let the ones in
 * flight complete. */
volatile __u32 stopping = 0;
/* The genesis (CLOCK_MONOTONIC ns): an I/O queued before it is not tracked, so a genesis set
 * ahead (the fleet's) starts the trace at that instant whenever the recorder's thread wakes. */
volatile __u64 track_from = 0;

#include "oncpu.bpf.h"

/* The recorded disks: a read-only table, not a map, because it is consulted for every I/O of
 * the machine and a scan of one or two constant entries costs less than a hash lookup. */
const volatile struct rec_dev dev_tab[TRACE_MAX_DEVS] = {};
const volatile __u32 ndev_tab = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384); /* resized by record/ (--inflight) */
	__type(key, __u64);
	__type(value, struct rec_event);
} inflight SEC(".maps"); /* the slow path, for pointers whose slot is taken */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, REC_SLOTS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct rec_slot);
} slots SEC(".maps");

/* The per-CPU rings of completed I/Os (bpf/rings.bpf.h). */
REC_RINGS(struct rec_rec, 15)

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, REC_STAT__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup SEC(".maps");

/*
 * Turns a kernel pointer into a plain number (the verifier forbids shifting pointers, and the
 * slot index is a hash of one): stored into a map value and read back, it is a scalar. The
 * value is per CPU *and per nesting level*: a completion in interrupt context can run another
 * of these programs on the same CPU between the store and the load, and with one shared word
 * the interrupted program took the other I/O's key (request-level traces got other requests'
 * extents). A nested run takes the next word and leaves the level as it found it. This costs
 * an inlined array lookup; bpf_probe_read_kernel() did the same job 60-80 ns slower per I/O.
 */
#define KEY_NEST_MAX 8

struct key_scratch {
	__u64 depth;
	__u64 word[KEY_NEST_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct key_scratch);
} scratch SEC(".maps");

static __always_inline __u64 ptr_key(const void *p)
{
	__u32 zero = 0;
	struct key_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	__u64 d, key;

	if (!s)
		return 0;
	d = s->depth;
	if (d >= KEY_NEST_MAX)
		return 0; /* deeper than any interrupt nesting: treated as "not tracked" */
	s->depth = d + 1;
	s->word[d] = (__u64)p;
	key = *(volatile __u64 *)&s->word[d];
	s->depth = d;
	return key;
}

/* Older kernels had the disk in the request itself (removed in v5.17, commit f3fa33acca9f). */
struct request___old {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

static __always_inline void count(__u32 slot)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &slot);

	if (v)
		*v += 1;
}

/* Turns bi_opf/cmd_flags into ioreel's op and flags; -1 for ops that are not data I/O
 * (zone management, driver passthrough). Enum values come from the running kernel's BTF. */
static __always_inline int decode_opf(__u32 opf, __u32 bytes, __u8 *op, __u8 *flags)
{
	__u32 o = opf & REQ_OP_MASK;
	__u8 f = 0;

	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_SYNC)))
		f |= REC_F_SYNC;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_FUA)))
		f |= REC_F_FUA;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH)))
		f |= REC_F_PREFLUSH;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_META)))
		f |= REC_F_META;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_RAHEAD)))
		f |= REC_F_READAHEAD;

	if (o == bpf_core_enum_value(enum req_op, REQ_OP_READ)) {
		*op = REC_OP_READ;
	} else if (o == bpf_core_enum_value(enum req_op, REQ_OP_WRITE) ||
		   o == bpf_core_enum_value(enum req_op, REQ_OP_ZONE_APPEND)) {
		/* An empty write with REQ_PREFLUSH is how filesystems ask for a cache flush. */
		if (bytes == 0 && (f & REC_F_PREFLUSH)) {
			*op = REC_OP_FLUSH;
			f &= ~REC_F_PREFLUSH;
		} else {
			*op = REC_OP_WRITE;
		}
	} else if (o == bpf_core_enum_value(enum req_op, REQ_OP_FLUSH)) {
		/* The flush machinery's own request carries REQ_PREFLUSH too: it is the flush. */
		*op = REC_OP_FLUSH;
		f &= ~REC_F_PREFLUSH;
	} else if (o == bpf_core_enum_value(enum req_op, REQ_OP_DISCARD) ||
		   o == bpf_core_enum_value(enum req_op, REQ_OP_SECURE_ERASE)) {
		*op = REC_OP_DISCARD;
	} else if (o == bpf_core_enum_value(enum req_op, REQ_OP_WRITE_ZEROES)) {
		*op = REC_OP_WRITE_ZEROES;
	} else {
		return -1;
	}
	*flags = f;
	return 0;
}

/* Is this I/O on a recorded device (and partition range) at this level, by a wanted task? */
static __always_inline bool wanted(__u32 dev, __u32 level, __u64 sector, __u32 bytes)
{
	int i;

	for (i = 0; i < TRACE_MAX_DEVS && i < ndev_tab; i++)
		if (dev_tab[i].dev == dev)
			break;
	if (i >= TRACE_MAX_DEVS || i >= ndev_tab || dev_tab[i].level != level)
		return false;
	/* A flush has no sector: it belongs to every partition of the disk. */
	if (bytes && (sector < dev_tab[i].lo_sector || sector >= dev_tab[i].hi_sector))
		return false;
	if (filter_tgid && (bpf_get_current_pid_tgid() >> 32) != filter_tgid)
		return false;
	if (filter_by_comm) {
		char comm[16];

		bpf_get_current_comm(comm, sizeof(comm));
		for (int i = 0; i < 16; i++) {
			if (comm[i] != filter_comm[i])
				return false;
			if (!comm[i])
				break;
		}
	}
	if (filter_by_cgroup && bpf_current_task_under_cgroup(&cgroup, 0) != 1)
		return false;
	return true;
}

/*
 * The in-flight table. A hash map update plus delete cost ~180 ns per I/O here (measured with
 * kernel.bpf_stats_enabled on zram); claiming a slot of a plain array with one compare-and-swap
 * and releasing it with another costs a fraction of that, and needs no lock.
 */
struct inflight_ref {
	struct rec_event *e;
	struct rec_slot *slot; /* NULL when e lives in the hash map */
};

static __always_inline bool find(__u64 key, struct inflight_ref *r)
{
	__u32 i = rec_slot_index(key);
	struct rec_slot *s = bpf_map_lookup_elem(&slots, &i);

	if (!key) /* no key (see ptr_key): an empty slot must not match */
		return false;
	if (s && s->key == key) {
		r->slot = s;
		r->e = &s->e;
		return true;
	}
	r->slot = NULL;
	r->e = bpf_map_lookup_elem(&inflight, &key);
	return r->e && !r->e->complete_ns; /* a set complete_ns marks an entry already emitted */
}

static __always_inline void forget(__u64 key, struct inflight_ref *r)
{
	if (r->slot)
		__sync_val_compare_and_swap(&r->slot->key, key, 0);
	else if (bpf_map_delete_elem(&inflight, &key))
		/* -EBUSY when another program on this CPU holds the bucket lock: leave a tombstone
		 * so the entry is neither completed twice nor taken for one that ended unseen. */
		r->e->complete_ns = 1;
}

/*
 * Copies an I/O into this CPU's ring (the protocol is in record.h). complete_ns 0 says the
 * completion was not seen (user space writes it as absent). Returns false, counted as a drop,
 * when the ring is full. No wakeup: record/ drains the rings on a short timer.
 */
static __always_inline bool ring_out(const struct rec_event *src, __u64 complete_ns, __u32 status)
{
	struct rec_rec *rec;
	bool full;
	__u64 pos;

	rec = ring_claim(&pos, &full);
	if (full)
		count(REC_DROP_RESERVE);
	if (!rec)
		return false;
	__builtin_memcpy(&rec->e, src, sizeof(rec->e));
	rec->e.complete_ns = complete_ns;
	rec->e.status = status;
	ring_publish(rec, pos);
	return true;
}

/* Hands a completed I/O to user space through this CPU's ring and forgets it. Forgotten after
 * the submit, so record/'s scan of the in-flight table never misses an I/O that is neither in
 * the table nor in a ring (see the reorder release in record/). */
static __always_inline void emit(__u64 key, struct inflight_ref *r, __u32 status)
{
	ring_out(r->e, bpf_ktime_get_ns(), status);
	forget(key, r);
}

/*
 * A new I/O under the key of one still tracked: the kernel reused the request (or bio) without
 * a completion event we saw (request-level loop traces showed ~1 read in 30,000 ending so).
 * Write the old one out with its completion time absent instead of losing it silently.
 */
static __always_inline void end_unseen(const struct rec_event *old)
{
	count(REC_STAT_UNSEEN_END);
	ring_out(old, 0, 0);
}

/*
 * The programs, twice (bpf/record_progs.h), with the same per-I/O logic; record/ loads one set.
 *
 *   tp_btf: BPF_PROG_TYPE_TRACING. The arguments are typed kernel pointers, read directly
 *           (the verifier checks each load against BTF): the cheapest, the default.
 *   raw_tp: BPF_PROG_TYPE_RAW_TRACEPOINT. The arguments are plain numbers, so kernel memory is
 *           read with bpf_probe_read_kernel() (BPF_CORE_READ) and the task with the classic
 *           helpers. Slower per I/O, but it needs neither the tracepoints' BTF prototypes
 *           (btf_trace_*) nor the verifier's BTF-typed loads: record/ falls back to it when
 *           tp_btf fails to load or attach.
 *
 * What the header expects:
 *   TP(tp)    the section of the program attached to tracepoint tp
 *   P(name)   the name of a program or helper of this set (raw_tp ones get a raw_ prefix,
 *             which survives the kernel's 15-character truncation of program names)
 *   RD(p, f)  the field f of the kernel object at p
 *   KEY(p)    the in-flight key of a bio/request pointer (a raw_tp argument is a number already)
 *   RAW       1 in the raw_tp set, where kernel memory cannot be dereferenced
 */
#define PROG(name, ...) BPF_PROG(name, __VA_ARGS__) /* expands P() before BPF_PROG pastes it */

#define MAX_RQ_BIOS 256 /* longest bio chain bio_rq_complete walks */

#define TP(tp) "tp_btf/" tp
#define P(name) name
#define RD(p, f) ((p)->f)
#define KEY(p) ptr_key(p)
#define RAW 0
#include "record_progs.h"
#undef TP
#undef P
#undef RD
#undef KEY
#undef RAW

#define TP(tp) "raw_tp/" tp
#define P(name) raw_##name
#define RD(p, f) BPF_CORE_READ(p, f)
#define KEY(p) ((__u64)(p))
#define RAW 1
#include "record_progs.h"
