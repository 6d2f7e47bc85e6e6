/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Dep mode's elastic models: the bookkeeping the scheduler (dep_run.c) asks before it issues
 * an I/O, so the replay adapts to the candidate as the database did not on the recording's.
 *
 * Group commit (--dep-group-commit): a flush makes durable every write to its device (block
 * level) or file (file level) that completed before it was issued. A thread's flush that comes
 * due while another thread's flush of the same device or file is in flight, issued after every
 * write of this thread there completed, is not issued: it completes with that one (counted
 * coalesced). A flush the recording itself issued in that situation is kept (inference marks
 * it DEP_F_REDUNDANT): the workload does not share flushes there, and the replay onto the
 * recording's own stack must not change its op counts.
 *
 * Absorbed writes (--dep-absorb): a background writer's write (a kernel thread's, writeback;
 * file level: a thread that has only written, DEP_F_BG) that comes due while the same thread
 * has a later write of the same range not issued yet and already past its trace time (the
 * thread lags behind the recording) is not issued: the later one carries the data, and the
 * skipped one completes with it (counted absorbed). Only where nothing of the thread from the
 * one to the other waits for a completion, so nothing waits for itself.
 *
 * Split flushes (--dep-split): a thread the recording shows waking after another thread's
 * flush that covered its writes (a barrier edge inference grounds: DEP_F_SPLIT) finds, when its
 * next I/O comes due, that on the candidate that flush was issued before its writes completed.
 * It issues a flush of its own then, as a database whose commit record missed the leader's
 * flush does, and its I/O waits for that one instead (counted split).
 */
#ifndef IOREEL_REPLAY_DEP_EL_H
#define IOREEL_REPLAY_DEP_EL_H

#include <stdbool.h>
#include <stdint.h>

struct dep_wacct;

struct dep_el {
	bool gc, absorb, split;
	bool acct; /* the writes per thread and key are counted (group commit, split) */
	/* per (thread, key): its writes read, out (issued or absorbed), done, the last done */
	struct dep_wacct *wa;
	uint32_t nwa, capwa;
	/* per key: sequence number + 1 of the latest-issued flush in flight (0: none); of those
	 * that cover metadata too (fsync; every block flush) */
	uint64_t *cov, *cov_meta;
	uint32_t ncovk;
	/* absorb: per (thread, device, offset) hash, sequence number + 1 of the latest write
	 * read (a direct-mapped table: a collision only misses an absorption) */
	uint64_t *abs;
};

int dep_el_init(struct dep_el *e, bool gc, bool absorb, bool split);
void dep_el_free(struct dep_el *e);

/* A write or flush (enum dep_flag) read from the trace. A flush gets the number of its
 * thread's writes to key read before it (UINT64_MAX, given to dep_el_covered: never). */
uint64_t dep_el_admit(struct dep_el *e, uint32_t stream, uint32_t key, uint8_t flags,
		      uint32_t dev);
/* The writes of stream to key read so far, and (dev) the target of the latest. */
uint64_t dep_el_reads(const struct dep_el *e, uint32_t stream, uint32_t key, uint32_t *dev);
/* A write leaves (issued, or absorbed); a write is done (completed, or its carrier did). */
void dep_el_write_out(struct dep_el *e, uint32_t stream, uint32_t key);
void dep_el_write_done(struct dep_el *e, uint32_t stream, uint32_t key, uint64_t complete_ns);
/* A flush was issued / completed. */
void dep_el_flush_out(struct dep_el *e, uint32_t key, bool meta, uint64_t seq);
void dep_el_flush_done(struct dep_el *e, uint32_t key, uint64_t seq);
/* The latest-issued flush of key in flight that could cover a flush (meta: an fsync), as a
 * sequence number + 1, or 0. */
uint64_t dep_el_cov(const struct dep_el *e, uint32_t key, bool meta);
/* Does a flush issued at g_submit_ns cover every write of stream to key read before a flush
 * that saw wr_snap of them? */
bool dep_el_covered(const struct dep_el *e, uint32_t stream, uint32_t key, uint64_t wr_snap,
		    uint64_t g_submit_ns);

/* Absorb: a kernel thread's write read from the trace; the latest read with these. */
void dep_el_abs_note(struct dep_el *e, uint32_t stream, uint32_t dev, uint64_t offset,
		     uint64_t seq);
uint64_t dep_el_abs_find(const struct dep_el *e, uint32_t stream, uint32_t dev, uint64_t offset);

#endif
