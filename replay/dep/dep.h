/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The dependency-aware replay (`--mode dep`): which earlier I/Os each I/O of a recorded trace
 * waited for (inference, dep_infer.c), and a scheduler that releases it only once those have
 * really completed on the target, plus the think time the trace recorded (dep_run.c).
 *
 * Why: a database is closed loop. Its threads wait for their reads and their commits, then
 * think, then issue the next I/O. A timed replay keeps the recorded offered load instead, so on
 * a slower candidate it piles up I/O no real database would issue (a pgbench trace replayed to
 * btrfs RAID6 saw its writes 443 times slower than the real run there). Design and prior work:
 * replay/README.md ("dep mode"); research: hfplayer (TOS 2017), rbd-replay, //TRACE (FAST '07).
 */
#ifndef IOREEL_REPLAY_DEP_H
#define IOREEL_REPLAY_DEP_H

#include <stdbool.h>
#include <stdint.h>
#include "formats/event.h"

/* How an I/O is released, and the kind of each edge to a parent. */
enum dep_kind {
	DEP_OPEN = 0,	 /* no parent: at its trace time (stream head, or a kernel thread's new work) */
	DEP_SYNC = 1,	 /* its thread had nothing in flight: parent's completion + think time */
	DEP_ASYNC = 2,	 /* its thread had I/O in flight: previous submission + the recorded gap */
	DEP_BARRIER = 3, /* another thread's flush/FUA/preflush completed just before it woke */
	DEP_OVERLAP = 4, /* a write over an earlier write still in flight: issued after it */
	DEP_WAIT = 5,	 /* a gap longer than --dep-think-max: trace time, not before the parent */
	DEP__KINDS
};

#define DEP_MAX_PARENTS 3
#define DEP_BG_WRITES 4 /* file level: writes before a thread that never read is a writer */
/* Parents lie at most this many I/Os back (an edge further back is dropped: the I/O is open).
 * The scheduler's window holds twice as many, so a parent's slot is never reused before its
 * children have read it. */
#define DEP_MAX_BACK (1u << 16)
#define DEP_WINDOW (2u * DEP_MAX_BACK)
/* sev.arg of a call dep mode adds that the recording did not make (a split fsync at file
 * level): the source must not count it among the recorded calls on its descriptor */
#define DEP_ADDED_CALL UINT64_MAX

struct dep_edge {
	uint64_t gap_ns; /* recorded: child queue - parent completion (or - parent queue) */
	uint32_t back;	 /* child's sequence number - parent's (>= 1) */
	uint8_t kind;	 /* DEP_SYNC, DEP_ASYNC, DEP_BARRIER, DEP_OVERLAP or DEP_WAIT */
	uint8_t _pad[3];
};

/* What an I/O is to the elastic models (dep_elastic.c): struct dep_info's flags. */
enum dep_flag {
	DEP_F_WRITE = 1 << 0,	  /* writes data (a flush-class write too) */
	DEP_F_FLUSH = 1 << 1,	  /* a flush with no data: block flush, fsync, fdatasync */
	DEP_F_COVERS = 1 << 2,	  /* makes earlier completed writes durable (flush, preflush
				   * write, fsync, fdatasync) */
	DEP_F_META = 1 << 3,	  /* covers metadata too (block level: always; file: fsync) */
	DEP_F_KTHREAD = 1 << 4,	  /* issued by a kernel thread (writeback, journal) */
	DEP_F_REDUNDANT = 1 << 5, /* a flush the recording issued although another thread's flush
				   * covering its thread's writes was in flight: the workload does
				   * not share flushes there, so replay never coalesces it */
	DEP_F_SPLIT = 1 << 6,	  /* its thread waited on its barrier parent (another thread's
				   * flush) to make its own writes durable (split's grounding) */
	DEP_F_BG = 1 << 7,	  /* a background writer's: a kernel thread's (block level); file
				   * level: a thread that so far only wrote, DEP_BG_WRITES times or
				   * more, and never read (absorbed writes) */
};

/* What inference says about one I/O. */
struct dep_info {
	struct dep_edge par[DEP_MAX_PARENTS];
	uint32_t stream; /* dense id of its recorded thread */
	uint32_t key;	 /* what a flush covers: the device (block), the file id (file level) */
	uint16_t depth;	 /* its thread's earlier I/Os still in flight when it was queued */
	uint8_t kind;	 /* enum dep_kind: how it is released */
	uint8_t npar;
	uint8_t flags;	 /* enum dep_flag */
};

/* Which other threads' flush/FUA/preflush I/Os may have woken a thread (barrier edges). */
enum dep_barrier {
	DEP_BARRIER_NONE = 0,
	DEP_BARRIER_KTHREAD = 1, /* journal and log threads (jbd2, xfs log worker, btrfs) */
	DEP_BARRIER_ALL = 2,	 /* any thread's: also group commit between database threads */
};

struct dep_opts {
	uint64_t eps_ns;       /* a completion this close before a queue did not wake it (2 us) */
	uint64_t think_max_ns; /* longer gaps wait for outside events: trace time (10 ms) */
	uint64_t xwin_ns;      /* barrier edges look back this far (1 ms) */
	int barrier;	       /* cross-thread flush edges: enum dep_barrier */
	bool overlap;	       /* write-after-write edges (default on) */
	/* the elastic models (dep_elastic.c), off by default until measured to help */
	bool group_commit;     /* a due flush covered by another in flight waits for that one */
	bool absorb;	       /* a lagging kernel thread's overwritten write is skipped */
	bool split;	       /* a thread the recording shows waiting on another's flush for its
				* writes issues its own where that flush no longer covers them */
	bool bg_by_mix;	       /* file level: background writers told by their calls (DEP_F_BG) */
	/* file level: each thread's calls are system calls, each returned before the next began,
	 * so a call after its thread's previous one returned waited for it however soon it came
	 * (eps_ns, the block layer's "too soon to have been woken", does not apply) */
	bool sync_calls;
	bool commit_lock;      /* file level: a thread's writes and flush of a file wait while
				* another thread's do; the first group waiting covers the others
				* (dep_lock.c) */
	bool commit_lock_block; /* --dep-commit-lock on given: at block level too (off there
				 * by default: dep_lock.c, "At block level") */
	bool chain;	       /* engines that chain (threads): a thread's next call waits in its
				* worker, not on the scheduling thread (dep_run.c "Chains") */
	bool kthread_progress; /* block level: kernel threads' new work waits for the
				* application's progress to reach its trace time (dep_pace.c) */
	bool writer_clock;     /* a user thread that has only written keeps its own clock:
				* no barrier edges, its next batch after a pause at trace time */
	int wbt;	       /* block level: enum dep_wbt (dep_wbt.c) */
	bool wbt_asked;	       /* --dep-wbt given: say where it cannot apply */
	bool date_wakes;       /* a completion the scheduling thread slept until is dated back
				* by its measured wake-up latency (core/slots.c, run_reap) */
	uint64_t wbt_lat_ns;   /* DEP_WBT_SET: the read latency the throttle aims at */
};

/* --dep-wbt: the kernel's writeback throttling for the writes it throttled (dep_wbt.c) */
enum dep_wbt {
	DEP_WBT_OFF = 0,
	DEP_WBT_TARGET, /* as each target's queue has it (sysfs wbt_lat_usec; 0: none) */
	DEP_WBT_SET,	/* aiming at wbt_lat_ns, whatever the target says */
};

void dep_opts_default(struct dep_opts *o);

/* Inference, in one streaming pass over the replayed I/Os in queue order, bounded memory. */
struct dep_infer;

struct dep_stats {
	uint64_t kind[DEP__KINDS]; /* I/Os per release kind */
	uint64_t edges[DEP__KINDS]; /* edges per kind (an I/O may have a barrier and an overlap) */
	uint64_t dropped_far;	   /* edges dropped: parent more than DEP_MAX_BACK I/Os back */
	uint64_t no_completion;	   /* I/Os without a recorded completion time */
	uint64_t streams;	   /* recorded threads seen */
	uint64_t kthread;	   /* I/Os of kernel threads */
	uint64_t flushes;	   /* flushes without data (DEP_F_FLUSH) */
	uint64_t redundant;	   /* of which DEP_F_REDUNDANT */
	uint64_t split_grounded;   /* I/Os with DEP_F_SPLIT */
	uint64_t writer;	   /* I/Os of timed writers (--dep-writer-clock trace) */
};

struct dep_infer *dep_infer__new(const struct dep_opts *o);
/* The next I/O of the trace (queue-time order; sequence numbers count the calls from 0). */
void dep_infer__next(struct dep_infer *d, const struct io_event *ev, struct dep_info *out);
/* The same, with what the I/O is to the elastic models given (enum dep_flag's WRITE, FLUSH,
 * COVERS, META) where its op does not tell (file level: fsync, fdatasync, sync_file_range). */
void dep_infer__next_as(struct dep_infer *d, const struct io_event *ev, uint8_t cls,
			struct dep_info *out);
const struct dep_stats *dep_infer__stats(const struct dep_infer *d);
void dep_infer__free(struct dep_infer *d);

const char *dep_kind_name(unsigned int kind);

/* What the elastic models changed, per op of the trace (enum io_op; file level enum io_fop). */
#define DEP_EL_OPS 32
struct dep_elastic {
	bool group_commit, absorb, splits, commit_lock; /* on in this replay */
	bool file_level;	   /* ops are enum io_fop */
	uint64_t trace[DEP_EL_OPS];	/* read from the trace */
	uint64_t issued[DEP_EL_OPS];	/* issued (split flushes too; a stopped replay: fewer) */
	uint64_t coalesced[DEP_EL_OPS]; /* flushes not issued: an in-flight flush covered them */
	uint64_t absorbed[DEP_EL_OPS];	/* writes not issued: a later one of the range was due */
	uint64_t split[DEP_EL_OPS];	/* flushes added: another's no longer covered its writes */
	uint64_t grounded;		/* I/Os split's grounding found (DEP_F_SPLIT) */
	uint64_t followed[DEP_EL_OPS];	/* commit lock: a follower's calls, not issued */
	uint64_t lock_waits;		/* commit lock: groups that waited for it */
	uint64_t lock_broken;		/* commit lock: waits ended with nothing else to run */
	uint64_t lock_kept;		/* commit lock: waiters that came before the holder's
					 * recorded end and led their own group */
	uint64_t merged_bytes;		/* commit lock: followers' bytes the leaders wrote */
};

/* dep_report.c: the table per op (text), or `, "elastic": {...}` (JSON); bytes written. */
#include <stddef.h>
#include <stdio.h>
void dep_elastic_print(const struct dep_elastic *e, unsigned long long flushes,
		       unsigned long long redundant, FILE *out);
struct wbt_report;
size_t dep_elastic_json(const struct dep_elastic *e, unsigned long long flushes,
			unsigned long long redundant, const struct wbt_report *wbt, char *buf,
			size_t len);
/* The figures the result trace keeps (formats/elastic.h), the writeback throttle's (wbt) too;
 * false when every model was off. */
struct trace_elastic;
bool dep_elastic_record(const struct dep_elastic *e, unsigned long long flushes,
			unsigned long long redundant, const struct wbt_report *wbt,
			struct trace_elastic *out);

/*
 * Can inference work on this trace? It needs completion times and thread ids. Fills why with
 * what is missing; true when usable. Counted over the events given (a prescan).
 */
struct dep_fitness {
	uint64_t events, no_completion, no_tid;
};
bool dep_fitness_ok(const struct dep_fitness *f, char *why, unsigned long len);

#endif
