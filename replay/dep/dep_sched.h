/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Dep mode's scheduler, shared by its files (not an interface): the window of I/Os, their
 * waiter lists, the ready heap and the per-thread state. dep_run.c is the mode (admission, the
 * loop, the elastic models), dep_release.c releases an I/O as its parents resolve, dep_chain.c
 * hands a thread's next call to its worker (chains).
 */
#ifndef IOREEL_REPLAY_DEP_SCHED_H
#define IOREEL_REPLAY_DEP_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include "replay/core/run.h"
#include "replay/dep/dep.h"
#include "replay/dep/dep_el.h"
#include "replay/dep/dep_wbt.h"
#include "util/heap.h"

#define NONE UINT32_MAX

/* Dep mode's items in the input ring: the I/O and what inference says it waited for. */
struct dsev {
	struct sev s;
	struct dep_info dep;
	uint64_t rec_lat; /* its recorded latency, ns (0: none recorded) */
};

struct dep_sched;

/* The mode's state (struct run's mode_state): inference on the helper thread, the
 * dependency scheduler on the scheduling thread. */
struct dep_mode {
	struct dep_infer *infer;
	struct dep_sched *sched;
};

static inline struct dep_sched *sched_of(const struct run *r)
{
	return ((struct dep_mode *)r->mode_state)->sched;
}

/* DS_RIDING: not issued, done when the I/O it rides on is (group commit, absorbed writes);
 * DS_SPLIT: its parents done, waiting for the flush of its own it needed (split) */
enum dslot_state {
	DS_FREE, DS_WAITING, DS_READY, DS_PARKED, DS_INFLIGHT, DS_RIDING, DS_SPLIT, DS_CHAINED,
	DS_LOCKW, /* a commit group's first write, waiting for its file's commit lock */
	DS_DONE
};

/* dslot.flags beside enum dep_flag's: a riding flush holds its thread's depth as its own
 * flush would have; a split was looked at for it */
#define SF_DEPTH 0x100
#define SF_SPLIT 0x200
#define SF_ENGINE 0x400 /* handed to the engine (not a call the source made itself) */
#define SF_GHEAD 0x800	/* the first write of a commit group (dep_lock.c) */
#define SF_FOLLOW 0x1000 /* a call of a group another group's flush covered: not issued */
#define SF_XDEP 0x2000	/* has a parent in another thread (the commit lock's groups have none
			 * past their first write) */
#define SF_PACED 0x4000 /* a kernel thread's new work, on the application's clock (dep_pace.c) */
#define SF_WBT 0x8000	/* a throttled write counted in its target's throttle (dep_wbt.c) */

/*
 * Chains (engines that chain, --dep-chain): a thread's call whose only parent left is its own
 * thread's previous call, a completion edge (sync), is handed to the engine as soon as that
 * one is, and waits in the thread's worker (replay_io.chained), which makes it the recorded
 * think time after the previous one completed. Without it each call's completion travelled
 * to the scheduling thread and the next call back to a worker: two wake-ups per call, and a
 * pgbench trace replayed onto its own xfs spent 199 us from release to completion on reads
 * the kernel served in 84 us. At most CHAIN_AHEAD calls of a thread wait in its worker, so
 * an I/O of another thread that comes due is never queued behind a long chain; the elastic
 * models decide when an I/O comes due, so chains are off with them.
 */
#define CHAIN_AHEAD 2

struct dslot {
	struct sev s;
	uint64_t seq;
	uint64_t release;     /* ns since the start: the latest constraint resolved so far */
	uint64_t submit_ns;   /* on the target, ns since the start */
	uint64_t complete_ns;
	uint32_t wait_issue;  /* children released by this one's submission (waiter list) */
	uint32_t wait_done;   /* children released by its completion */
	uint32_t stream;
	uint32_t next_parked; /* its thread's queue of I/Os held to the recorded depth */
	uint32_t key;	      /* enum dep_flag's key: device, or file */
	uint32_t riders;      /* slots riding on this one (a list through next_rider) */
	uint32_t next_rider;
	uint64_t wr_snap;     /* a flush: its thread's writes to key read before it */
	uint64_t sync_upto;   /* 1 + its thread's latest I/O up to it with a completion edge */
	uint64_t bar_seq;     /* split: 1 + its barrier parent's sequence number (0: none) */
	uint64_t bar_gap;     /* split: the barrier edge's gap, scaled */
	uint64_t rec_done;    /* trace time + its recorded latency (the commit lock's flushes) */
	uint64_t held_at;     /* --dep-kthread-clock progress: its release when it was held */
	uint64_t grp_end;     /* a commit group's head: 1 + its flush's sequence number; its
			       * flush: 1 + the head's */
	uint32_t next_lockw;  /* the next group waiting for the same commit lock */
	uint16_t depth;
	uint8_t kind;
	uint8_t pending;      /* parents not yet resolved */
	uint8_t state;
	uint16_t flags;	      /* enum dep_flag, SF_* */
	uint8_t burn;	      /* enum slot_burn (dep_burn.c) */
};

/* dslot.burn: where its thread's CPU before it stands (dep_burn.c): burning while in the
 * ready heap, or held out of it (due, and not burned yet) */
enum slot_burn { SB_NONE, SB_BURNING, SB_HELD, SB_BURNED };

struct waiter {
	uint64_t gap;	/* ns, already scaled */
	uint32_t child; /* window slot */
	uint32_t next;
	uint8_t kind;
};

struct dstream {
	uint32_t inflight; /* in flight, chained ones too */
	uint32_t park_head, park_tail;
	int64_t lag; /* release - trace time of its last I/O that was not async (ns) */
	uint64_t sync_upto; /* 1 + its latest I/O read with a completion edge (0: none) */
	uint64_t tail_seq;  /* chains: 1 + its latest I/O handed to the engine (0: none) */
	uint32_t chained;   /* chains: its I/Os waiting in its worker or in flight there */
	bool chain_look;    /* in the scheduler's chainq */
	uint64_t grp_head;  /* commit lock: 1 + its open group's first write (0: none) */
	uint32_t grp_key;   /* the file that group writes */
};

/* The commit lock of one file (dep_lock.c). */
struct dlock {
	uint64_t holder;	/* 1 + the sequence number of the holding group's flush (0: free) */
	uint32_t whead, wtail;	/* the groups waiting, by their heads (next_lockw) */
	uint32_t last_stream;	/* 1 + the latest thread seen to make a group here */
	uint64_t last_end;	/* the latest recorded end of a group read here (trace time) */
	uint64_t free_by;	/* when the holder would have let go at the recorded pace: its
				 * start on the target plus its group's recorded span (ns) */
	bool shared;		/* groups of two threads or more: a lock to model */
	bool overlapped;	/* two groups overlapped in the recording: no lock here */
};

/* A ready I/O: its window slot, by its release time (fixed once it is ready), then trace
 * order: I/Os released together (a thread's held I/Os when a slot frees) go in the order
 * the recording issued them. */
struct ready {
	uint64_t release;
	uint64_t seq;
	uint32_t w;
};
#define READY_KEY(e) ((unsigned __int128)(e).release << 64 | (e).seq)
HEAP_DEFINE(readyheap, struct ready, READY_KEY)

struct dep_sched {
	struct dslot *slot; /* DEP_WINDOW */
	struct waiter *pool;
	uint32_t pool_free;
	uint64_t next_seq; /* next I/O to read from the input ring */
	uint64_t floor;	   /* every I/O before it is done */
	struct ready *heap; /* ready slots by release time */
	size_t nheap;
	struct dstream *st;
	uint32_t nst;
	double think_scale, speed;
	uint64_t eps;
	bool window_was_full;
	bool file_level; /* ops are enum io_fop */
	/* the elastic models (dep_el.h) */
	struct dep_el el;
	uint32_t *work; /* finish()'s list: a slot and its riders, DEP_WINDOW */
	uint32_t *splitq; /* slots whose split flush is to be issued, DEP_WINDOW */
	uint32_t nsplitq;
	bool chain_asked; /* --dep-chain, no elastic model: chains if the engine chains */
	bool chain;	  /* chains are on: asked, and the engine chains (dep_loop) */
	uint32_t *chainq; /* streams whose next call may chain now (nst entries) */
	uint32_t nchainq;
	bool lock;	  /* the commit lock model is on (file level) */
	struct dlock *locks; /* per key */
	uint32_t nlocks;
	/* --dep-kthread-clock progress (dep_pace.c) */
	bool pace;
	struct ready *paceq; /* held kernel threads' I/Os by trace time, DEP_WINDOW */
	size_t npace;
	uint64_t ufloor; /* the application's oldest I/O not issued is at or after it */
	uint64_t last_t; /* the trace time of the latest I/O read */
	/* --dep-wbt: each target's writeback throttle (dep_wbt.c) */
	int wbt_ask;		 /* --dep-wbt as asked (enum dep_wbt): dep_loop opens it */
	uint64_t wbt_ask_lat_ns;
	bool wbt_asked;		 /* given, not the default: warn where it cannot apply */
	struct wbt_dev *wbt;
	uint32_t nwbt;
	bool wbt_on;
	/* --cpu replay with an engine that does not burn: each thread's burner (dep_burn.c) */
	struct dep_burn *burn;
};

static inline uint32_t wslot(uint64_t seq)
{
	return (uint32_t)(seq & (DEP_WINDOW - 1));
}

/* A queue of parked slots, oldest first, linked through next_parked (a slot waits in one at a
 * time: its thread's for the recorded depth, or the writeback throttle's). */
static inline void parkq_push(struct dep_sched *d, uint32_t *head, uint32_t *tail, uint32_t w)
{
	d->slot[w].state = DS_PARKED;
	d->slot[w].next_parked = NONE;
	if (*tail == NONE)
		*head = w;
	else
		d->slot[*tail].next_parked = w;
	*tail = w;
}

/* The stream's next call may chain now: the loop looks (chain_refill), not a reap's callback,
 * which must not issue (an issue may wait for a buffer, and that reaps). */
static inline void chain_look(struct dep_sched *d, uint32_t stream)
{
	if (!d->chain || d->st[stream].chain_look)
		return;
	d->st[stream].chain_look = true;
	d->chainq[d->nchainq++] = stream;
}

/* dep_release.c */
void dep_heap_push(struct dep_sched *d, uint32_t w);

/* A parked queue's oldest slot out, to the ready heap, released no earlier than at. */
static inline void parkq_release(struct dep_sched *d, uint32_t *head, uint32_t *tail,
				 uint64_t at)
{
	uint32_t w = *head;

	*head = d->slot[w].next_parked;
	if (*head == NONE)
		*tail = NONE;
	if (d->slot[w].release < at)
		d->slot[w].release = at;
	dep_heap_push(d, w);
}
void dep_resolve(struct dep_sched *d, uint32_t w, uint64_t at);
uint64_t dep_edge_time(const struct dep_sched *d, const struct dslot *p, const struct dslot *c,
		       uint8_t kind, uint64_t gap);
void dep_wake(struct dep_sched *d, uint32_t *list, const struct dslot *p);
void dep_note_release(struct run *r, const struct dslot *s);

void dep_ride(struct dep_sched *d, uint32_t w, uint32_t host, uint64_t now_rel);
void dep_took_out(struct run *r, const struct dslot *s);

/* dep_lock.c */
int dep_lock_admit(struct run *r, struct dslot *s);
bool dep_lock_wait(struct run *r, uint32_t w, uint64_t now_ns);
bool dep_lock_edge(const struct dep_sched *d, const struct dslot *p, const struct dslot *c);
uint64_t dep_lock_wait_est(const struct dep_sched *d, const struct dslot *s,
			   const struct dep_info *di);
void dep_lock_done(struct run *r, const struct dslot *s, uint64_t complete_ns);
void dep_lock_free(struct dep_sched *d);
bool dep_lock_unstick(struct run *r);
void dep_lock_followed(struct run *r, const struct dslot *s);

/* dep_pace.c */
int dep_pace_init(struct dep_sched *d, bool on);
void dep_pace_admit(struct dep_sched *d, struct dslot *s);
bool dep_pace_hold(struct run *r, uint32_t w);
void dep_pace_release(struct run *r, uint64_t now_rel);
void dep_pace_publish(struct run *r);

/* dep_burn.c; the scheduling thread looks for burned I/Os this often while any is out */
#define BURN_LOOK_NS 20000
int dep_burn_new(struct dep_sched *d, double scale);
void dep_burn_start(struct dep_sched *d, uint32_t w);
/* Slot w's thread wakes: its CPU before w starts burning, if it has some and has not. */
static inline void dep_burn_wake(struct dep_sched *d, uint32_t w)
{
	if (d->slot[w].burn == SB_NONE && d->slot[w].s.oncpu_ns)
		dep_burn_start(d, w);
}
bool dep_burn_hold(struct dep_sched *d, uint32_t w);
int dep_burn_collect(struct run *r, const uint32_t **held, uint32_t *nheld);
uint32_t dep_burn_out(const struct dep_sched *d);
void dep_burn_stop(struct run *r);

/* dep_wbt.c */
int dep_wbt_init(struct run *r, struct dep_sched *d);
bool dep_wbt_hold(struct run *r, uint32_t w, uint64_t now);
void dep_wbt_issued(struct dep_sched *d, uint32_t w);
void dep_wbt_done(struct run *r, uint32_t w, uint64_t complete_ns);
void dep_wbt_tick(struct run *r, uint64_t now);
void dep_wbt_free(struct dep_sched *d);
/* dep_chain.c */
int dep_chain_refill(struct run *r);
void dep_chain_done(struct run *r, struct dslot *s, const struct replay_io *io);

#endif
