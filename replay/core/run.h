/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Replay's core: the state of one replay (struct run), the two tables its variants fill and
 * the primitives they call. A replay is this core plus one variant on each of three axes:
 *
 *   source  where the I/O comes from and goes to: a block trace onto devices or files
 *           (replay/block/), a file-level trace onto files under --root (replay/file/)
 *   mode    when each I/O is issued: timed, afap, closed (replay/core/loops.c), dep
 *           (replay/dep/)
 *   engine  how it is issued (replay/engine/, its table in engines.c)
 *
 * Each axis is a table declared here (the engine's in engine/engine.h); a variant fills one
 * and calls only down into the core; the core names no variant. The conductor, replay_run()
 * in replay/run.c, picks the three and runs the stages:
 *
 *   src->scan      one pass over the trace (struct prescan), before anything is opened
 *   mode->setup    what the mode needs from the scan (dep: inference, or a fallback mode)
 *   src->prepare   targets opened and vetted;  then the engine is picked (src->engine_hint,
 *                  then run_cpu_setup: threads for --cpu-wait's default and --cpu host)
 *   src->ready     what needs the engine and the targets (block: never-written check, prefill)
 *   mode->prepare  what the mode loads before the clock (closed: its streams, src->each)
 *   run_setup_slots, src->open_output, the helper thread, run_schedule (mode->loop)
 *
 * r->eng is final from src->ready on: the stages before it read no more than its name given
 * (o->engine), and what depends on the engine is decided in src->ready or later (the loop).
 *
 * Two threads: the scheduling thread runs the mode's loop and the engine (issue, submit,
 * reap); the helper thread decodes ahead of it (src->feed into the input ring) and writes and
 * analyses behind it (src->out from the output ring), so neither delays a deadline.
 */
#ifndef IOREEL_REPLAY_CORE_RUN_H
#define IOREEL_REPLAY_CORE_RUN_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "formats/trace.h"
#include "replay/engine/engine.h"
#include "replay/replay.h"
#include "replay/core/pattern.h"
#include "replay/core/sched.h"
#include "util/spsc.h"

/* A scheduled I/O, already mapped onto its target by the source. The input ring's items begin
 * with one; a mode may want more per item (mode->in_item). */
struct sev {
	uint64_t t;	 /* clocked modes: deadline in ns since the replay's start */
	uint64_t offset; /* on the target */
	uint64_t arg;	 /* a source's own, op-specific (the file source's calls) */
	uint32_t len;
	uint32_t stream; /* the recorded stream; the mode may use it for its own (dep: how it
			  * was released) */
	uint32_t tid;	 /* the recorded thread's, kept in the result trace */
	uint32_t dev;	 /* target index (= trace device index); file level: the open file */
	uint32_t aux;	 /* file level: op-specific */
	uint8_t op;	 /* enum io_op; file level: enum io_fop */
	uint8_t flags;
	uint64_t oncpu_ns; /* --cpu replay, per call: the recorded thread's CPU before it */
	uint32_t cpuwait_ns; /* --cpu-wait recorded: its recorded wait for a CPU inside it */
};

/* A completed I/O on its way to the helper thread: the result event, and when its submit call
 * began (the event's issue time is when the call returned; lateness is counted from the start).
 * The output ring's items begin with one; a source may want more per item (src->out_item). */
struct done_ev {
	struct io_event ev;
	uint64_t submit_ns;
};

#define RUN_DECODE 4096	     /* events decoded per trace_reader__next */
#define RUN_RING (1u << 16)  /* decoded I/Os kept ahead of the scheduler */
/* Linux's MAX_RW_COUNT (include/linux/fs.h: INT_MAX & PAGE_MASK): the most one read or write
 * moves; io->res (an int) holds it too. */
#define REPLAY_MAX_IO_BYTES 0x7ffff000u

/* What one pass over the trace before any I/O found (src->scan). */
struct prescan {
	uint64_t count[IO_OP__COUNT];
	uint64_t bad_op, events;
	uint64_t no_completion, no_tid; /* events without a completion time, a thread id */
	uint64_t first, last;
	uint32_t max_len;  /* the largest read or write */
	uint32_t max_read; /* the largest read (or write replayed as one) */
	uint64_t max_end[TRACE_MAX_DEVICES];
	uint32_t max_dev_len[TRACE_MAX_DEVICES];
	uint32_t max_stream;
	uint64_t oncpu_events; /* events that carry their thread's on-CPU time */
	uint64_t oncpu_total_ns; /* and its sum: the recorded threads' CPU between their calls */
	uint64_t async_calls;  /* file level: calls made through libaio or io_uring */
	bool sorted;
};

/*
 * A bounded set of I/O buffers of one size (core/slots.c, run_setup_slots). Each I/O in flight
 * takes its own while one is free. When none is: with `wait`, the I/O waits for one to come
 * back (counted in buffer_waits); without, it shares one, round robin (harmless where nothing
 * reads the buffer and nothing checks it while the I/O is in flight).
 */
enum run_pool_kind { RUN_POOL_READ, RUN_POOL_PATTERN, RUN_POOL__COUNT };
struct run_pool {
	char *base;
	size_t each;
	uint32_t *free;
	unsigned int n, nfree, next_shared;
	bool wait;
};

struct run;

/* The source axis: a block trace (replay/block/), a file-level trace (replay/file/). */
struct replay_source_ops {
	const char *name;
	size_t out_item; /* bytes of an output ring item, a struct done_ev first */
	/* before the clock (conductor) */
	int (*scan)(struct run *r, struct prescan *p, char *err, size_t errlen);
	int (*prepare)(struct run *r, const struct prescan *p, char *err, size_t errlen);
	const char *(*engine_hint)(struct run *r); /* an engine for these targets, or NULL */
	int (*ready)(struct run *r, const struct prescan *p, char *err, size_t errlen);
	/* the largest alignment the targets want; whether a read needs a buffer of its own while
	 * in flight (a filesystem that verifies checksums in it) */
	void (*buffers)(struct run *r, uint32_t *align, bool *own_reads);
	void (*engine_targets)(struct run *r, struct engine_params *ep);
	/* block targets: target dev's writeback throttling as its queue has it (dep_wbt.h);
	 * 0, or -errno where it has none to tell (a file); NULL: no such targets */
	int (*target_wbt)(struct run *r, uint32_t dev, struct wbt_target *out);
	int (*open_output)(struct run *r);
	/* every I/O of the trace, mapped, in file order (for modes that load them all: closed);
	 * NULL when the source cannot (its calls depend on each other) */
	int (*each)(struct run *r, int (*fn)(struct run *r, const struct sev *s, void *arg),
		    void *arg, char *err, size_t errlen);
	/* helper thread: decoded I/Os into the input ring (run_feed_item), results out */
	long (*feed)(struct run *r);
	void (*out)(struct run *r, const struct done_ev *d);
	/* scheduling thread */
	void (*warm_up)(struct run *r);
	/* calls the source makes itself, on this thread (file level: opens, renames...):
	 * issue > 0 when it made the call, 0 to hand io to the engine; reap hands back the
	 * calls it made; complete fills the rest of its output item. Any may be NULL. */
	int (*issue)(struct run *r, struct replay_io *io);
	int (*reap)(struct run *r, struct replay_io **done, unsigned int max);
	void (*complete)(struct run *r, struct replay_io *io, struct done_ev *d);
	/* a call the mode took out instead of issuing it (dep's elastic models: a coalesced
	 * sync, an absorbed write), as done for the source's own accounting; may be NULL */
	void (*skip)(struct run *r, const struct sev *s);
	/* would issue() hand s to the engine if it were issued now? NULL: always */
	bool (*to_engine)(const struct run *r, const struct sev *s);
	void (*free)(struct run *r);
};

/* The mode axis: timed, afap, closed (core/loops.c), dep (replay/dep/). */
struct replay_mode_ops {
	const char *name;
	int id;	       /* enum replay_mode */
	bool clocked;  /* each I/O has a deadline from the trace's time (lateness is measured) */
	bool fed;      /* the helper decodes the trace into the input ring as the run goes */
	bool loads_all; /* it loads every I/O before the clock instead (src->each) */
	size_t in_item; /* bytes of an input ring item, a struct sev first */
	unsigned int (*depth)(struct run *r); /* the in-flight cap */
	/* from the scan: may set r->mode to another mode's id to hand over (dep's fallback) */
	int (*setup)(struct run *r, const struct prescan *p, char *err, size_t errlen);
	int (*prepare)(struct run *r, const struct prescan *p, char *err, size_t errlen);
	/* helper thread: item (a struct sev first) was just decoded from ev; after_back lists
	 * how many calls back lie others it must follow, as the source knows (file level: an
	 * open, a name's last change). Returns how many of those became edges. */
	unsigned int (*annotate)(struct run *r, const struct io_event *ev, void *item,
				 const uint32_t *after_back, unsigned int nafter);
	int (*loop)(struct run *r);
	void (*done)(struct run *r, struct replay_io *io, uint64_t complete_ns);
	void (*finish)(struct run *r);
	void (*free)(struct run *r);
};

extern const struct replay_mode_ops replay_mode_timed, replay_mode_afap, replay_mode_closed;

struct run {
	const struct replay_opts *o;
	struct replay_result *res;
	int mode; /* enum replay_mode: mops->id */
	const struct replay_mode_ops *mops;
	const struct replay_source_ops *src;
	void *src_state;  /* the source's own */
	void *mode_state; /* the mode's own */
	/* the recorded threads the mode knows before the clock (engine_params.tids), its own */
	const uint32_t *pre_tids;
	uint32_t npre_tids;
	struct trace_reader *rd;
	const struct trace_meta *meta;
	uint64_t genesis; /* trace time of the replay's start */

	/* slots (scheduling thread) */
	unsigned int depth;
	size_t slot_bytes;
	void *arena;
	size_t arena_len;
	/* the arena: the read buffers, then the write data. Random write data (default): a
	 * region every write points into, at a rotating offset, so writes cost no per-I/O fill
	 * and do not compress or dedup. --write-data pattern: a pool of buffers, one per write
	 * in flight. */
	struct run_pool pool[RUN_POOL__COUNT];
	char *wdata;
	size_t wdata_span; /* offsets used: [0, wdata_span), multiples of 4096 */
	size_t wdata_next;
	struct replay_io *slots;
	uint32_t *free_slots;
	unsigned int nfree;
	unsigned int inflight;
	/* of those, chained I/Os still waiting in their worker behind the one in flight (closed
	 * mode's chains): not in flight for max_inflight_seen */
	unsigned int ahead;
	/* --runtime: the moment (CLOCK_MONOTONIC ns) no more I/O is issued; 0: none */
	uint64_t runtime_end;
	struct replay_io **done, **batch;
	unsigned int nbatch;
	const struct engine_ops *eng;
	struct engine *e;

	/* the rings between the threads, and the helper */
	struct spsc in, out;
	bool input_done;
	uint64_t out_full;
	pthread_t helper;
	bool helper_started;
	bool sched_done;
	uint64_t start_mono, start_real, end_mono;
	uint64_t first_submit, last_submit;
	bool first_submit_set;
	uint32_t pid;
	bool rt_set;
	bool slice_set; /* the scheduling thread's slice was shortened (--cpu-slice, core/cpu.c) */

	/* --cpu (core/cpu.c) */
	bool cpu_calls; /* the engine burns each call's recorded CPU (sev.oncpu_ns) */
	bool cpu_stats; /* the trace has CPU data: the engine gives each call its own (1.7) */
	bool cpu_wait;	/* --cpu-wait, resolved: calls wait for a CPU as the recorded did */
	bool cpu_stopped;
	uint64_t cpu_last_t; /* the deadline fed last (helper thread) */
	struct run_load *load;
	/* --cpu-load-clock progress: the load's clock is the application's. Dep mode publishes
	 * how far the application has come (dep_pace.c, dep_pace_publish: the trace time of its
	 * oldest I/O not issued, as a deadline), the load threads read it (core/cpu.c) */
	bool load_progress;
	uint64_t app_t;
	uint64_t spin_ns; /* the spin before each deadline, resolved (run.c, resolve_spin) */

	/* output (helper thread) */
	struct trace_writer *w;
	struct analysis *an;
	int rerr, werr;
	char herr[512];
	uint64_t prog_ios, prog_at;
};

extern volatile sig_atomic_t replay_stop;

/* Whether the loop is to issue nothing more: Ctrl-C, or --runtime is over (then said in the
 * report, runtime_hit). The I/Os in flight still complete (the drain after the loop). */
bool run_stopping(struct run *r);

void run_warn(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* With --realtime in a clocked mode onto device dev, a loop device: says that its workers
 * wait behind the scheduling thread. what names it ("target /dev/loop3, a loop device"). */
void run_warn_realtime_loop(struct run *r, dev_t dev, const char *what);

/* The result trace (-o), opened by the source: under a temporary name beside it, renamed into
 * place when the replay ends (a Ctrl-C'd one too: the trace of what ran), removed when it
 * could not be written whole, so an earlier result under that name stays as it was. */
struct trace_writer *run_open_result(const struct run *r, const struct trace_meta *m);

/* core/slots.c: buffers and slots, and the scheduling thread's primitives */
int run_setup_slots(struct run *r, const struct prescan *p, char *err, size_t errlen);
void run_free_slots(struct run *r);
int run_issue(struct run *r, const struct sev *s, uint64_t deadline, uint32_t tag);
/* A chained I/O (replay_io.chained, engines that chain): made by its thread's worker gap ns
 * after the worker's previous call completed, not before floor. Only for an I/O the source
 * hands to the engine (run_to_engine). */
int run_issue_chained(struct run *r, const struct sev *s, uint64_t floor, uint32_t tag,
		      uint64_t gap);
bool run_to_engine(const struct run *r, const struct sev *s);
int run_submit(struct run *r);
int run_reap(struct run *r, uint64_t timeout_ns);

/* core/schedule.c: the clock, the loops' frame, the helper thread */
int run_schedule(struct run *r);
int run_start_helper(struct run *r);
void run_stop_helper(struct run *r);
/* A source's feed: the next input ring item to fill, or NULL when the ring is full; then
 * run_feed_push() with the event it came from (the mode annotates it). */
void *run_feed_slot(struct run *r);
unsigned int run_feed_push(struct run *r, const struct io_event *ev, const uint32_t *after_back,
			   unsigned int nafter);
/* The deadline of an I/O at trace time t, in the mode's clock (0 for unclocked modes). */
uint64_t run_deadline(const struct run *r, uint64_t t);

/* core/cpu.c: --cpu. Before the clock: what is reproduced and how (the engine may change to
 * threads). A source's feed, for each I/O: its burn (s->t moved earlier by it, so that burn
 * and call end where the recorded call began). Around the clock: the load threads. */
int run_cpu_setup(struct run *r, const struct prescan *p, char *err, size_t errlen);
void run_cpu_sev(struct run *r, struct sev *s, uint64_t oncpu_ns);
/* The CPU an I/O burns (recorded x --think-scale). */
static inline uint64_t run_cpu_burn(const struct run *r, const struct sev *s)
{
	return (uint64_t)((double)s->oncpu_ns * (r->o->think_scale > 0 ? r->o->think_scale : 1.0));
}
int run_cpu_start(struct run *r);
void run_cpu_stop(struct run *r);

/*
 * In the spin window, the scheduling thread yields the CPU until this close to the deadline:
 * the kernel threads serving the target (loop workers, io-wq, kworkers) then run on this core
 * too. Spinning flat out took a core from them on this 2-core machine: a 20k IOPS random-write
 * job on ext4 over a loop device saw 117-133 us mean clat where fio saw 79 us; yielding gives
 * 70-81 us, with lateness at block_bio_queue unchanged at p99 (zram, 10k and 100k IOPS).
 */
#define SPIN_YIELD_NS 20000
/* The longest the scheduling thread waits in one go: Ctrl-C is looked at between waits. */
#define RUN_WAIT_MAX_NS 100000000ULL
#define SPIN_DEFAULT_NS 200000
/* the spin as resolved once the load is known (run.c, resolve_spin); 0 sleeps to each
 * deadline and waits for completions without peeking */
static inline uint64_t run_spin_ns(const struct run *r)
{
	return r->spin_ns;
}

#endif
