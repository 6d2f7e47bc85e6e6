/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The engines replay issues I/O through: one small ops table, like fio's ioengine_ops but only
 * the hooks every engine really needs. The scheduler owns the I/O slots and their buffers; an
 * engine only moves them to the kernel and back.
 */
#ifndef IOREEL_REPLAY_ENGINE_H
#define IOREEL_REPLAY_ENGINE_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "formats/event.h"

/* One I/O in flight. Times are CLOCK_MONOTONIC ns since the replay's start. */
struct replay_io {
	uint64_t deadline_ns;
	uint64_t submit_ns;   /* when the submit call began: lateness is measured here */
	uint64_t issued_ns;   /* when it returned, the I/O in the kernel's hands: fio's issue
			       * time, where clat starts (submit_ns again for an I/O the engine
			       * did synchronously, as fio times its sync engines) */
	uint64_t complete_ns; /* 0, or absolute CLOCK_MONOTONIC if the engine knows it (psync) */
	uint64_t began_ns;    /* 0, or absolute CLOCK_MONOTONIC when a worker thread began the
			       * call itself (psync): the result's issue time, so clat is the
			       * system call alone, as the recorder times one, and the hand-off
			       * to the worker shows in slat */
	uint64_t offset;      /* on the target, as issued */
	uint32_t len;
	uint32_t dev;	      /* target index */
	uint32_t stream;
	int32_t res;	      /* bytes done or -errno */
	uint8_t op;	      /* enum io_op or enum engine_fop */
	uint8_t flags;	      /* enum io_flag (FUA -> RWF_DSYNC) */
	uint8_t fop;	      /* file level: the recorded call (enum io_fop) this I/O replays */
	uint8_t pool_kind;    /* which pool io->pool indexes (enum run_pool_kind, replay_int.h) */
	uint32_t aux;	      /* file level: RWF flags (read, write), sync_file_range flags,
			       * fallocate mode; 0 for block replays */
	uint64_t arg;	      /* file level: sync_file_range and fallocate length in bytes */
	uint32_t slot;	      /* index in the scheduler's slot array */
	uint32_t pool;	      /* its buffer's index in a pool of the scheduler's, or UINT32_MAX */
	uint32_t tag;	      /* the scheduler's own (dep mode: its window slot) */
	uint32_t tid;	      /* the recorded thread's (for the result trace) */
	uint32_t fgen;	      /* file level: its slot's generation when issued (file_run.c) */
	uint64_t burn_ns;     /* CPU time to spend before the call, as the recorded thread did
			       * (replay --cpu replay, engines that burns_cpu); 0: none */
	uint64_t oncpu_ns;    /* engine_params.cpu_stats: the calling thread's time on a CPU
			       * since its previous call returned (0: not measured) */
	uint32_t cpuwait_ns;  /* and its wait for a CPU inside this call */
	uint32_t wait_ns;     /* --cpu-wait recorded: the recorded call's wait for a CPU, which
			       * the engine tops up to (engine_cpu_wait_more) */
	uint32_t wait_added_ns; /* what it added */
	/* Chained (engines that chain; dep mode): the I/O waits in its thread's worker, behind
	 * the worker's previous call, and the worker makes it chain_gap_ns after that call
	 * completed (less how late that call began), never before deadline_ns, which the worker
	 * then sets to the moment it chose, and submit_ns to when it began. The scheduler hands
	 * it over early instead of releasing it when it sees that completion: the completion's
	 * trip to the scheduling thread and the call's back to a worker (two wake-ups, each
	 * 40-60 us of timer or IPI on this 2-core VM) are not in the thread's chain. */
	uint64_t chain_gap_ns;
	bool chained;
	/* Closed mode's chains: 0, or its completion need not wake the scheduling thread while
	 * more than this many of the worker's calls wait behind it (engine_threads); it is
	 * reaped with a later one. */
	uint16_t lazy_low;
	bool wait_rec;	      /* --cpu-wait recorded: wait_ns is the recorded wait, 0 included */
	void *buf;
};

/*
 * Ops a file-level replay adds to enum io_op (replay/file_run.c), on a regular file's
 * descriptor. IO_OP_FLUSH is fdatasync(2); these take offset, arg and aux of struct replay_io.
 */
enum engine_fop {
	ENGINE_OP_FSYNC = IO_OP__COUNT, /* fsync(2): data and metadata */
	ENGINE_OP_SYNC_RANGE,		/* sync_file_range(2): aux flags */
	ENGINE_OP_FALLOCATE,		/* fallocate(2): aux mode */
	ENGINE_OP_NAME,			/* a call on a name, no descriptor: engine_names */
	ENGINE_OP__END
};

/*
 * A file-level replay's calls on names (stat, mkdir, rmdir, unlink, rename, truncate by name:
 * replay/file/file_run.c), for the engines that take them (engine_ops.takes_names): made by
 * call() on the thread that makes the calls of the I/O's recorded thread, so a recorded
 * thread's stats run beside another's as the application's did, not one after another on the
 * scheduling thread (fio's dirstat example, ten jobs: the replay ran at half fio's calls/s).
 * call() must be safe on several threads at once. 0 or -errno.
 */
struct engine_names {
	int (*call)(void *ctx, const struct replay_io *io);
	void *ctx;
};

/* RWF flags of a read or write: FUA as RWF_DSYNC, and a file-level call's own (aux). */
static inline int engine_rw_flags(const struct replay_io *io)
{
	return (int)io->aux | ((io->flags & IO_F_FUA) ? RWF_DSYNC : 0);
}

struct engine_target {
	int fd;
	bool is_blk;
	/* The target opened without O_DIRECT, for writes flagged ENGINE_F_WRITEBACK; -1: none. */
	int wb_fd;
};

/*
 * On replay_io.flags, past enum io_flag: a write the kernel's writeback made (recorded without
 * REQ_SYNC), replayed as one: written into the page cache of wb_fd, then written back at once
 * with sync_file_range(WRITE | WAIT_AFTER), which submits it as WB_SYNC_NONE writeback (no
 * REQ_SYNC: the device's writeback throttling and its I/O scheduler treat it as async, as they
 * did the recorded one; an O_DIRECT write is REQ_SYNC | REQ_IDLE, which wbt never throttles),
 * and completes when it is on the device. io_uring only (run.c refuses the others): a flush
 * must not write back nor wait for those pages, as the recorded empty preflush did not, and
 * only io_uring's fsync takes a range (engine_uring.c); fdatasync(2) syncs the whole device.
 */
#define ENGINE_F_WRITEBACK (1u << 7)
_Static_assert(ENGINE_F_WRITEBACK > IO_F__ALL, "ENGINE_F_WRITEBACK collides with enum io_flag");

struct engine_params {
	const struct engine_target *targets;
	unsigned int ntargets;
	unsigned int depth; /* most I/Os ever in flight at once */
	void *arena;	    /* every I/O's buffer lies inside [arena, arena + arena_len) */
	size_t arena_len;
	/* The targets' descriptors change while the replay runs (a file-level replay opens and
	 * closes files): the engine reads targets[i].fd at each I/O instead of registering them. */
	bool fds_change;
	/* Set by a signal handler when the replay is to stop: a long wait inside the engine
	 * (threads: a recorded CPU burn of up to 4 s) ends on it. NULL: none. */
	const volatile sig_atomic_t *cancel;
	uint64_t lat_ns; /* null: every I/O completes this long after it was queued (0: at once) */
	/* Engines whose threads make the calls (psync, threads) give each call the thread's CPU
	 * figures as a recording has them (replay_io.oncpu_ns, cpuwait_ns; engine_cpu_clock):
	 * set when the trace has them, to set the replay's against the recorded. */
	bool cpu_stats;
	uint64_t flush_lat_ns; /* null: flushes and syncs this long (0: lat_ns) */
	/* the replay's clock origin (CLOCK_MONOTONIC ns), set before the first I/O: replay_io's
	 * times are relative to it (a chained I/O's deadline and submit are set by the engine) */
	const uint64_t *start_mono;
	struct engine_names names; /* file level: ENGINE_OP_NAME's call (takes_names) */
	/* The recorded threads known before the clock (closed mode: each stream's): an engine
	 * with a thread per recorded thread (threads) starts theirs before the clock (start), as
	 * fio starts its jobs before their clocks, not at their first call inside the replay's
	 * (fio's dirstat example, ten jobs of five calls: each job's first stat took 100-300 us).
	 * Valid until the engine's exit. */
	const uint32_t *tids;
	unsigned int ntids;
};

struct engine;

/* What one replaying thread did (engines that burns_cpu). */
struct engine_thread_stat {
	uint32_t tid; /* the recorded thread it stands for */
	uint64_t calls, cpu_asked_ns, cpu_got_ns;
};

struct engine_ops {
	const char *name;
	/* The I/O runs synchronously on the engine's own threads (psync): clat covers the whole
	 * call, as fio times its sync engines, so the issue time is when the submit began. */
	bool sync_io;
	/* Nothing reaches a target (null): what a target holds does not matter to it. */
	bool moves_no_data;
	/* How a file-level replay's calls are made, named by its result trace (enum io_fiface,
	 * formats/file.h): a system call unless set (io_uring, libaio). */
	uint8_t file_iface;
	/* Each recorded thread's I/O is made by a thread of its own, which first spends the
	 * I/O's burn_ns on the CPU (threads) */
	bool burns_cpu;
	/* queue() takes chained I/Os (replay_io.chained): each recorded thread's calls are made
	 * in order by one worker of its own (threads) */
	bool chains;
	/* takes ENGINE_OP_NAME (engine_names): each recorded thread's calls on names made by its
	 * own thread (threads) */
	bool takes_names;
	/* NULL + errno; *why gets a reason worth printing when the kernel lacks something. */
	struct engine *(*init)(const struct engine_params *p, char *why, size_t why_len);
	/* Optional: called once just before the clock, after the replay locked the memory it has
	 * (mlockall(MCL_CURRENT)). threads starts engine_params.tids' workers here, not at init:
	 * started before the lock, every worker's whole stack was locked (1024 streams: 256 MiB).
	 * 0 or -errno. */
	int (*start)(struct engine *e);
	/* Prepares one I/O for the next submit (psync: hands it to a worker). 0 or -errno. */
	int (*queue)(struct engine *e, struct replay_io *io);
	/* Pushes everything queued to the kernel in one call. Count submitted or -errno. */
	int (*submit)(struct engine *e);
	/*
	 * Collects up to max completed I/Os into done[] and returns their count. With
	 * timeout_ns == 0 it never blocks; otherwise it waits up to timeout_ns for at least one.
	 */
	int (*reap)(struct engine *e, struct replay_io **done, unsigned int max, uint64_t timeout_ns);
	void (*exit)(struct engine *e);
	/* Optional (burns_cpu): per recorded thread, the CPU asked and got; the count. */
	size_t (*thread_stats)(struct engine *e, struct engine_thread_stat *out, size_t max);
};

extern const struct engine_ops engine_uring_ops;
extern const struct engine_ops engine_aio_ops;
extern const struct engine_ops engine_psync_ops;
extern const struct engine_ops engine_null_ops;
extern const struct engine_ops engine_threads_ops;

/* "io_uring" (also "uring"), "libaio" ("aio"), "psync", "threads", "null"; NULL if unknown. */
const struct engine_ops *engine_find(const char *name);
/* What replay says of a name engine_find does not know (printf format, the name). */
#define REPLAY_UNKNOWN_ENGINE "unknown engine '%s' (io_uring, libaio, psync, threads, null)"

/*
 * Executes one I/O synchronously with plain syscalls: pread/pwritev2(RWF_DSYNC), fdatasync,
 * BLKDISCARD/BLKZEROOUT on block devices, fallocate on files, and the ops of enum engine_fop.
 * Returns bytes done (the length for ops without data) or -errno.
 * Shared by psync and by the async engines for the ops their kernel interface lacks.
 */
int engine_exec_sync(const struct engine_target *t, const struct replay_io *io);

/*
 * A worker thread's own scheduler counts (/proc/thread-self/schedstat: time on a CPU, time
 * runnable but waiting for one), read around each call it makes (two small reads, ~1-2 us),
 * so that a call of the replay carries what the recorder gives a recorded one (format 1.8):
 * the thread's time on a CPU since its previous call returned, and its wait for a CPU inside
 * the call. Opened by the worker thread itself (thread-self); fd -1: not measured.
 */
struct engine_cpu_clock {
	int fd;
	uint64_t wait0;	 /* run-queue wait at the call's start */
	uint64_t last_on; /* time on a CPU when the previous call returned; 0: none yet */
	/* engine_cpu_wait_more: the waits owed so far (negative: waited ahead), and how late
	 * its sleeps wake (a moving average) */
	int64_t owed;
	uint64_t late_est;
};
void engine_cpu_clock_open(struct engine_cpu_clock *c, bool on);
void engine_cpu_clock_close(struct engine_cpu_clock *c);
void engine_cpu_clock_before(struct engine_cpu_clock *c, struct replay_io *io);
void engine_cpu_clock_after(struct engine_cpu_clock *c, struct replay_io *io);
/* After engine_cpu_clock_after (io->wait_rec): a call whose thread waited for a CPU less than
 * the recorded one (io->wait_ns) owes the rest, one that waited more is owed (up to 1 ms);
 * the thread pays what it owes off the CPU, in a sleep once it owes more than a sleep's
 * lateness, and that call's completion time comes after it (io->complete_ns; io->cpuwait_ns
 * then includes it). The replay's waits, own and added, then add up to the recorded ones;
 * a single call's wait does not. */
void engine_cpu_wait_more(struct engine_cpu_clock *c, struct replay_io *io,
			  const volatile sig_atomic_t *cancel);
/* One call on the calling thread, as the engines whose threads make their own calls (psync,
 * threads) make it: timed (io->began_ns, complete_ns, res) with the thread's CPU figures
 * (clock c) and its owed CPU wait paid (engine_cpu_wait_more). A call on a name
 * (ENGINE_OP_NAME) is made by names (t is not used); names may be NULL for an engine that
 * takes none. */
void engine_call_sync(const struct engine_target *t, const struct engine_names *names,
		      struct engine_cpu_clock *c, struct replay_io *io,
		      const volatile sig_atomic_t *cancel);

/* Sleeps until `until` (absolute CLOCK_MONOTONIC ns), in steps of at most 2 ms so that a stop
 * or Ctrl-C (either flag may be NULL) ends it within a step, whichever thread the signal
 * reached. Worker threads' waits (a chained call's think time, --cpu-wait's top-up). */
void engine_sleep_until(uint64_t until, const volatile bool *stop,
			const volatile sig_atomic_t *cancel);

/*
 * The completions of an engine whose own threads make the calls (psync, threads): the workers
 * push under the engine's lock, the scheduling thread reaps (engine_common.c). cap: the most
 * I/Os in flight + 1.
 */
struct engine_cq {
	pthread_mutex_t *lock; /* the engine's */
	pthread_cond_t done_cv;
	struct replay_io **ring;
	unsigned int cap, head, tail;
	unsigned int n; /* completions waiting, read without the lock as a hint */
};
int engine_cq_init(struct engine_cq *q, pthread_mutex_t *lock, unsigned int cap);
void engine_cq_free(struct engine_cq *q);
/* With *q->lock held. */
void engine_cq_push(struct engine_cq *q, struct replay_io *io);
/* The same without waking the reaper: it finds io with the next completion that does. */
void engine_cq_push_quiet(struct engine_cq *q, struct replay_io *io);
/* The engine's reap (engine_ops.reap). */
int engine_cq_reap(struct engine_cq *q, struct replay_io **done, unsigned int max,
		   uint64_t timeout_ns);

#endif
