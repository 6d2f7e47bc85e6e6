/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What bpf/record.bpf.c hands to record/ through the per-CPU rings: one completed block I/O in
 * kernel units (ktime, whole-disk sectors, kernel dev_t, blk_status_t). record/ translates it
 * into struct io_event (ns since genesis, device index, partition-relative bytes, -errno).
 * Shared by the BPF and the user side, so only fixed-width fields and explicit padding.
 */
#ifndef IOREEL_BPF_RECORD_H
#define IOREEL_BPF_RECORD_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Which tracepoints a device is recorded with (struct rec_dev.level). */
enum rec_level {
	REC_LEVEL_NONE = 0,
	REC_LEVEL_BIO = 1, /* block_bio_queue -> block_bio_complete */
	REC_LEVEL_RQ = 2,  /* block_io_start/block_rq_insert -> block_rq_issue -> block_rq_complete */
};

/* Same values as enum io_op / enum io_flag in formats/event.h (checked in record/). */
enum rec_op { REC_OP_READ, REC_OP_WRITE, REC_OP_FLUSH, REC_OP_DISCARD, REC_OP_WRITE_ZEROES };
enum rec_flag {
	REC_F_SYNC = 1 << 0,
	REC_F_FUA = 1 << 1,
	REC_F_PREFLUSH = 1 << 2,
	REC_F_META = 1 << 3,
	REC_F_READAHEAD = 1 << 4,
	REC_F_KTHREAD = 1 << 5, /* queued by a kernel thread (PF_KTHREAD): kworker, jbd2, ... */
};

/* One recorded whole disk (the BPF side's dev_tab, read-only once loaded). */
struct rec_dev {
	__u32 dev;	  /* kernel dev_t of the whole disk (major << 20 | minor) */
	__u32 level;	  /* enum rec_level */
	__u64 lo_sector; /* record only I/O starting in [lo_sector, hi_sector): partitions */
	__u64 hi_sector;
};

/* Maximum number of whole disks recorded at once (dev_tab). */
#define TRACE_MAX_DEVS 64

/* Slots of the per-CPU "stats" map: I/Os we meant to record but lost, and what went through. */
enum rec_stat {
	REC_DROP_RESERVE = 0,  /* ring full at completion */
	REC_DROP_INFLIGHT = 1, /* in-flight map full at queue time */
	REC_STAT_MERGED = 2,   /* requests merged into another before issue (rq level) */
	REC_STAT_UNSEEN_END = 3, /* ended without a completion we saw (emitted, no complete time) */
	REC_STAT__COUNT
};

struct rec_event {
	__u64 queue_ns;	   /* bpf_ktime_get_ns() when the submitter queued it */
	__u64 issue_ns;	   /* when the driver got it (rq level), 0 at bio level */
	__u64 complete_ns; /* when it completed */
	__u64 sector;	   /* first 512-byte sector, relative to the whole disk */
	__u32 bytes;
	__u32 dev;    /* whole disk, kernel encoding: major << 20 | minor */
	__u32 pid;    /* submitter's tgid */
	__u32 tid;    /* submitter's pid (thread) */
	__u32 status; /* blk_status_t as the kernel completed it, 0 = ok */
	__u16 cpu;    /* cpu of the submitter */
	__u8 op;      /* enum rec_op */
	__u8 flags;   /* enum rec_flag bits */
	char comm[16];
	__u32 oncpu; /* the submitter's on-CPU ns since its previous I/O (bpf/oncpu.bpf.h),
		      * saturated at ONCPU_SAT; 0: not known (kernel threads, a first I/O) */
	__u32 _pad;
};

_Static_assert(sizeof(struct rec_event) == 80, "rec_event layout changed: update record/");

/*
 * One entry of the "slots" array: the in-flight table's fast path, a direct-mapped table
 * indexed by a hash of the bio/request pointer. key is the pointer, 0 when free; it is claimed
 * and released with compare-and-swap, so BPF programs on several CPUs and record/ (which
 * reads the mmap()ed array to find the oldest I/O in flight) agree on who owns an entry.
 * A pointer whose slot is taken goes to the "inflight" hash map instead.
 */
struct rec_slot {
	__u64 key;
	struct rec_event e;
};

_Static_assert(sizeof(struct rec_slot) == 88, "rec_slot layout changed: update record/");

#define REC_SLOTS 8192 /* a power of two */

/*
 * The per-CPU rings of completed I/Os: two mmap()ed arrays shared with record/ (no BPF ring
 * buffer: its reserve lock, busy-bit commit and helper calls cost ~65 ns per I/O here, the
 * largest share of the recorder's cost). Each CPU owns one rec_ring_ctl and ring_n records:
 *   producer (BPF): claims position pos = head++ with an atomic add (programs on one CPU can
 *     nest through interrupts), fills record pos % ring_n, then publishes it by storing
 *     seq = pos + 1 with an atomic exchange (ordered after the fill on every architecture);
 *   consumer (record/): reads records while seq == tail + 1, then stores tail.
 * The producer refuses (and counts a drop) when head - tail would leave fewer than
 * REC_RING_SLACK free records, which covers claims made by nested programs after the check.
 */
struct rec_ring_ctl {
	__u64 head;	  /* next position to claim (BPF) */
	__u64 _pad0[7];	  /* head and tail on their own cache lines */
	__u64 tail;	  /* next position to read (record/) */
	__u64 _pad1[7];
};

struct rec_rec {
	__u64 seq; /* position + 1 once published */
	struct rec_event e;
};

_Static_assert(sizeof(struct rec_ring_ctl) == 128, "rec_ring_ctl layout changed");
_Static_assert(sizeof(struct rec_rec) == 88, "rec_rec layout changed: update record/");

#define REC_RING_SLACK 16

static inline __u32 rec_slot_index(__u64 key)
{
	/* Slab objects are at least 64-byte aligned; mix in higher bits for page-strided ones. */
	return (__u32)((key >> 6) ^ (key >> 19)) & (REC_SLOTS - 1);
}

#endif
