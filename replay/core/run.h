/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Inside replay: the state shared by setup (setup.c) and the scheduling loops (run.c). */
#ifndef IOREEL_REPLAY_INT_H
#define IOREEL_REPLAY_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include "formats/trace.h"
#include "replay/dep/dep.h"
#include "replay/engine/engine.h"
#include "replay/replay.h"
#include "replay/core/sched.h"
#include "replay/block/target.h"

/* A scheduled I/O, already mapped onto its target by the decoder. */
/* A completed I/O on its way to the helper thread: the result event, and when its submit call
 * began (the event's issue time is when the call returned; lateness is counted from the start). */
struct done_ev {
	struct io_event ev;
	uint64_t submit_ns;
};

struct sev {
	uint64_t t;	 /* timed: deadline in ns since the replay's start */
	uint64_t offset; /* on the target */
	uint64_t arg;	 /* file level: op-specific (replay/file_int.h, "calls") */
	uint32_t len;
	uint32_t stream; /* closed: index into run.cs; dep: how it was released (enum dep_kind) */
	uint32_t tid;	 /* the recorded thread's, kept in the result trace */
	uint32_t dev;	 /* target index (= trace device index); file level: the open file */
	uint32_t aux;	 /* file level: op-specific */
	uint8_t op;	 /* enum io_op; file level: enum io_fop */
	uint8_t flags;
};

/* A file-level replay's completed call: the result event's file-level half too. */
struct done_fev {
	struct done_ev d;
	struct io_fext x;
};

/* Dep mode's items in the input ring: the I/O and what inference says it waited for. */
struct dsev {
	struct sev s;
	struct dep_info dep;
};

/* A closed-loop stream: its events in order, how many are in flight, and what the trace says
 * it runs (its group, start delay, runtime or I/O count: formats/FORMAT.md, "Streams"). */
struct cstream {
	struct sev *ev;
	uint64_t n, cap, pos, issued;
	uint32_t depth, inflight;
	struct trace_stream rec;
};

#define RUN_DECODE 4096	     /* events decoded per trace_reader__next */
/* Linux's MAX_RW_COUNT (include/linux/fs.h: INT_MAX & PAGE_MASK): the most one read or write
 * moves; io->res (an int) holds it too. */
#define REPLAY_MAX_IO_BYTES 0x7ffff000u

/* What one pass over the trace before any I/O found (setup.c, file_setup.c). */
struct prescan {
	uint64_t count[IO_OP__COUNT];
	uint64_t bad_op, events;
	uint64_t first, last;
	uint32_t max_len;
	uint64_t max_end[TRACE_MAX_DEVICES];
	uint32_t max_dev_len[TRACE_MAX_DEVICES];
	uint32_t max_stream;
	bool sorted;
	struct dep_fitness fit; /* what dependency inference would lack */
};

/*
 * A bounded set of I/O buffers of one size (setup.c, setup_slots). Each I/O in flight takes
 * its own while one is free. When none is: with `wait`, the I/O waits for one to come back
 * (counted in buffer_waits); without, it shares one, round robin (harmless where nothing reads
 * the buffer and nothing checks it while the I/O is in flight).
 */
enum run_pool_kind { RUN_POOL_READ, RUN_POOL_PATTERN, RUN_POOL__COUNT };
struct run_pool {
	char *base;
	size_t each;
	uint32_t *free;
	unsigned int n, nfree, next_shared;
	bool wait;
};

struct frun; /* a file-level replay's own state (replay/file_int.h) */
#define RUN_RING (1u << 16)  /* decoded I/Os kept ahead of the scheduler */

struct run {
	const struct replay_opts *o;
	struct replay_result *res;
	int mode;
	struct trace_reader *rd;
	const struct trace_meta *meta;
	unsigned int ndev; /* trace devices (at least 1) */
	struct target tg[TRACE_MAX_DEVICES];
	struct engine_target etg[TRACE_MAX_DEVICES];
	uint64_t src_size[TRACE_MAX_DEVICES]; /* recorded size, or the highest offset reached */
	uint64_t genesis;		      /* time of the first event */
	struct readmap *rmap;		      /* the regions the trace reads (prefill.h) */

	/* decoder state (helper thread) */
	struct io_event buf[RUN_DECODE];
	size_t nbuf, pos;
	bool reader_eof;
	bool input_done;
	int rerr;

	/* slots (scheduling thread) */
	unsigned int depth;
	size_t slot_bytes;
	void *arena;
	size_t arena_len;
	/* the arena (setup.c, setup_slots): the read buffers, then the write data. Random write
	 * data (default): a region every write points into, at a rotating offset, so writes cost
	 * no per-I/O fill and do not compress or dedup. --write-data pattern: a pool of buffers,
	 * one per write in flight. */
	struct run_pool pool[RUN_POOL__COUNT];
	char *wdata;
	size_t wdata_span; /* offsets used: [0, wdata_span), multiples of 4096 */
	size_t wdata_next;
	struct replay_io *slots;
	uint32_t *free_slots;
	unsigned int nfree;
	unsigned int inflight;
	struct replay_io **done, **batch;
	unsigned int nbatch;
	const struct engine_ops *eng;
	struct engine *e;

	/* closed mode */
	struct cstream *cs;
	uint32_t ncs;

	/* dep mode: inference (helper thread) and the dependency scheduler (scheduling thread) */
	struct dep_infer *infer;
	struct dep_sched *dep;

	/* file level (--root): the files, descriptors and calls; NULL for block replays */
	struct frun *fr;

	struct spsc in, out;
	uint64_t out_full;
	pthread_t helper;
	bool helper_started;
	bool sched_done;
	uint64_t start_mono, start_real, end_mono;
	uint64_t first_submit, last_submit;
	bool first_submit_set;
	uint32_t pid;
	bool rt_set;

	/* output (helper thread) */
	struct trace_writer *w;
	struct analysis *an;
	int werr;
	char herr[512];
	uint64_t prog_ios, prog_at;
};

extern volatile sig_atomic_t replay_stop;

/* Maps one trace event (op rules, device, offset) into s; false when it is not replayed. */
bool run_map_event(struct run *r, const struct io_event *ev, struct sev *s);
void run_warn(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int run_schedule(struct run *r);
/* The scheduling thread's primitives, shared by the loops in run.c and dep_run.c. */
int run_issue(struct run *r, const struct sev *s, uint64_t deadline, uint32_t tag);
int run_submit(struct run *r);
int run_reap(struct run *r, uint64_t timeout_ns);
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

/* s as a JSON string into out (len >= 16), escaped; a path too long to fit is cut short. */
void replay_json_str(char *out, size_t len, const char *s);

/* file_*.c: a file-level trace replayed under --root (replay/file_int.h) */
int file_replay_setup(struct run *r, struct prescan *p, char *err, size_t errlen);
int file_replay_prepare(struct run *r, char *err, size_t errlen);
void file_replay_free(struct run *r);
long file_feed(struct run *r);
int file_issue(struct run *r, struct replay_io *io);
int file_reap(struct run *r, struct replay_io **done, unsigned int max);
void file_complete(struct run *r, struct replay_io *io, struct done_fev *d);
void file_out(struct run *r, const struct done_fev *d);
int file_open_output(struct run *r);
void file_engine_targets(struct run *r, struct engine_params *ep);

/* dep_run.c */
int dep_sched_new(struct run *r, const struct dep_opts *o);
void dep_sched_free(struct run *r);
int dep_sched_loop(struct run *r);
void dep_sched_done(struct run *r, struct replay_io *io, uint64_t complete_ns);
int run_start_helper(struct run *r);
void run_stop_helper(struct run *r);

#endif
