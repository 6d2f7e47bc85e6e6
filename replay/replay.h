/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Replay as a library: `ioreel replay` and `ioreel bench` both call replay_run().
 * Modes, engines and safety rules: see `ioreel replay --help` and replay/README.md.
 */
#ifndef IOREEL_REPLAY_REPLAY_H
#define IOREEL_REPLAY_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "analyze/hist.h"
#include "formats/file.h"
#include "replay/dep/dep.h"
#include "replay/dep/dep_wbt.h"

/* --cpu-fill: by default on at file level, off at block level (measured: bench/PREDICTION.md, "The
 * replayer's own CPU") */
enum replay_fill { REPLAY_FILL_AUTO = 0, REPLAY_FILL_ON, REPLAY_FILL_OFF, REPLAY_FILL_HOST };

enum replay_mode {
	REPLAY_MODE_AUTO = -1, /* dep for recordings, timed for imported traces, closed for
				* synthesized jobs (replay/run.c, default_mode) */
	REPLAY_TIMED = 0,      /* each I/O at start + (t - genesis) / speed */
	REPLAY_AFAP = 1,       /* trace order, iodepth in flight, no waiting */
	REPLAY_CLOSED = 2,     /* each stream keeps its recorded depth in flight */
	REPLAY_DEP = 3,	       /* each I/O once those it waited for completed, plus think time */
};

/* --cpu: whether the CPU the recorded threads and the host used is reproduced (core/cpu.c). */
enum replay_cpu {
	REPLAY_CPU_AUTO = 0, /* idle, said with whether the trace could do more (core/cpu.c) */
	REPLAY_CPU_REPLAY,   /* the trace must have it */
	REPLAY_CPU_IDLE,     /* the I/O alone, on an otherwise idle replayer */
	REPLAY_CPU_CALLS,    /* the recorded threads' own CPU before their calls, no load */
	REPLAY_CPU_LOAD,     /* the load of the recording host's other tasks only, no burns */
	REPLAY_CPU_HOST,     /* the whole host's load, the recorded threads' CPU included, burned
			      * by load threads; the calls themselves without burns */
	REPLAY_CPU__COUNT
};

/* --cpu's words, by enum replay_cpu (NULL for the default, which has none; core/cpu.c) */
extern const char *const replay_cpu_names[REPLAY_CPU__COUNT];

/* --cpu-load-clock: a load interval goes at its trace time, or once the application's threads
 * have come that far (dep mode; core/cpu.c) */
enum replay_load_clock {
	REPLAY_LOAD_CLOCK_AUTO = 0, /* progress in dep mode, else the trace's */
	REPLAY_LOAD_CLOCK_TRACE,
	REPLAY_LOAD_CLOCK_PROGRESS,
};

/* --cpu-wait: whether a call waits for a CPU as long as the recorded one did (core/cpu.c). */
enum replay_cpu_wait {
	REPLAY_CPU_WAIT_AUTO = 0, /* recorded where the trace has the waits (file level, 1.8) in
				   * dep mode, the engine threads or not named (then threads) */
	REPLAY_CPU_WAIT_NONE,
	REPLAY_CPU_WAIT_RECORDED, /* the trace must have them */
};

#define REPLAY_CPU_THREADS_SHOWN 64 /* threads listed in the report, by CPU asked */

enum replay_offsets {
	REPLAY_OFFSETS_WRAP = 0,  /* offsets beyond the target wrap around (default) */
	REPLAY_OFFSETS_SCALE = 1, /* offsets scaled by target size / trace device size */
	REPLAY_OFFSETS_STRICT = 2, /* refuse a trace that reaches beyond the target */
};

/* Reads of never-written space (replay/prefill.h): what replay does about it before the clock. */
enum replay_prefill {
	REPLAY_PREFILL_WARN = 0, /* detect and warn (replay's default) */
	REPLAY_PREFILL_OFF = 1,	 /* --no-prefill: detect and report, no warning */
	REPLAY_PREFILL_ON = 2,	 /* --prefill: write the read regions once (needs allow_writes) */
	REPLAY_PREFILL_AUTO = 3, /* bench: prefill targets found partly unwritten, if writes are
				  * allowed; else warn */
};

struct replay_map {
	const char *name; /* device name in the trace's device table */
	const char *path; /* target */
};

struct replay_opts {
	const char *trace;
	const char *target;	    /* for every trace device not in maps (may be NULL) */
	const struct replay_map *maps;
	unsigned int nmaps;
	const char *output;	    /* result trace, or NULL */
	const char *engine;	    /* NULL: io_uring, or libaio where RWF_NOWAIT is refused */
	int mode;		    /* enum replay_mode */
	bool mode_set;		    /* --mode was given (parsing: a second, other one is refused) */
	double speed;		    /* timed, dep: 2.0 = twice as fast; 0 = 1.0 */
	/* --runtime: no I/O is issued this long after the start (those in flight complete);
	 * runtime_trace: as long as the trace's own span (after --speed); 0 and false: none */
	uint64_t runtime_ns;
	bool runtime_trace;
	unsigned int iodepth;	    /* afap: in flight; 0 = 32 */
	unsigned int max_inflight;  /* cap on I/Os in flight; 0: timed and dep 1024 (a synthesized
				     * timed job numjobs x iodepth), closed the streams' depths up to
				     * 4096 */
	bool buffered;		    /* no O_DIRECT */
	bool async_writeback;	    /* --async-writes writeback: block writes recorded without
				     * REQ_SYNC go through the page cache and are written back at
				     * once (engine.h ENGINE_F_WRITEBACK) */
	bool allow_writes;
	bool writes_as_reads;
	bool force;
	uint64_t size;		    /* create/grow file targets to this size */
	int offsets;		    /* enum replay_offsets */
	bool progress;		    /* a progress line on stderr */
	bool realtime;		    /* timed, dep: try SCHED_FIFO for the scheduling thread */
	bool pattern_data;	    /* writes carry the verifiable offset pattern, not random data */
	uint64_t spin_ns;	    /* timed, dep: spin this long before a deadline */
	bool spin_set;		    /* spin_ns was given (0 is no spin); else 200 us */
	uint64_t cpu_slice_ns;	    /* with load threads: the scheduling thread's EEVDF slice
				     * (0: the kernel's) */
	int cpu_fill;		    /* with load threads: the replayer's own CPU beyond its calls'
				     * burned less (core/cpu.c); enum replay_fill */
	unsigned int cpu_load_threads; /* load threads (0: one per CPU, core/cpu.c) */
	uint64_t cpu_load_chunk_ns; /* a load thread's burst before its pace sleep (0: 50 us) */
	int cpu_load_clock;	    /* enum replay_load_clock: the load's intervals at their
				     * trace time or the application's progress (core/cpu.c) */
	uint64_t null_lat_ns;	    /* engine null: each I/O completes this long after queued */
	uint64_t null_flush_lat_ns; /* engine null: flushes and syncs (0: null_lat_ns) */
	int prefill;		    /* enum replay_prefill */
	const char *command_line;   /* stored in the result trace's options */
	/* dep mode */
	struct dep_opts dep;	    /* inference thresholds (dep_opts_default when dep_set is 0) */
	bool dep_set;
	double think_scale;	    /* recorded think times x this; 0 = 1.0; with --cpu replay, the
				     * CPU part of them (a slower or faster CPU on the candidate) */
	int cpu;		    /* enum replay_cpu */
	int cpu_wait;		    /* enum replay_cpu_wait: each call waits for a CPU at least as
				     * long as the recorded one did (file level, format 1.8) */
	bool dep_fallback_set;	    /* a trace inference cannot use is replayed in dep_fallback */
	int dep_fallback;	    /* (with a warning) instead of being refused */
	/* called with each warning before any I/O (NULL: collected in result.warnings) */
	void (*warn)(const char *msg);
	/*
	 * For a caller that starts several replays together (the fleet, mpi/): called on the
	 * calling thread at each enum replay_stage. Returning non-zero (-errno) ends the replay
	 * there, before any I/O; the caller knows why. At REPLAY_STAGE_START *start_mono holds
	 * the default start (1 ms from now, CLOCK_MONOTONIC ns) and the hook may set another,
	 * e.g. after waiting for it itself. NULL: no hook.
	 */
	int (*hook)(void *arg, int stage, uint64_t *start_mono);
	void *hook_arg;
	/* timed and dep: deadlines count from this trace time instead of the first I/O's, so
	 * replays of parts of one schedule keep their places in it */
	bool origin_set;
	uint64_t origin_ns;
	/* file-level traces: the directory the recorded files are recreated under, and the
	 * recorded directory it stands for (NULL: the deepest one holding every recorded file) */
	const char *root;
	const char *strip;
};

enum replay_stage {
	REPLAY_STAGE_CHECKED = 0, /* trace scanned, targets opened and vetted, nothing issued */
	REPLAY_STAGE_START = 1,	  /* everything set up: the clock starts when the hook returns */
};

/* Never-written space in what the trace reads on one target, found before the clock started. */
#define REPLAY_MAX_TARGETS 64 /* = TRACE_MAX_DEVICES */
struct replay_unwritten {
	const char *path;	 /* the target (points into the options); NULL: reads nothing */
	const char *method;	 /* how it was told ("SEEK_HOLE", "zram mm_stat"); NULL: no way */
	bool lower_bound;	 /* only "at least found_bytes" is known (zram, partly written) */
	uint64_t region_bytes;	 /* what the trace reads there, in 1 MiB granules (or coarser) */
	uint64_t found_bytes;	 /* never written in it, as found */
	uint64_t start_bytes;	 /* never written when the clock started (after a prefill) */
	uint64_t prefilled_bytes;
	uint64_t prefill_ns;
};

/* Why a recorded call of a file-level trace was not reissued (replay/file_decode.c). */
enum replay_fskip {
	FSKIP_FAILED,	   /* it failed in the recording: the target would not see it either */
	FSKIP_NO_RESULT,   /* an open or dup still running when the recording stopped */
	FSKIP_NO_FILE,	   /* no file known (a descriptor never opened, file id 0) */
	FSKIP_MMAP,	   /* a shared mapping: its loads and stores were not recorded */
	FSKIP_TMPFILE,	   /* an O_TMPFILE file, which has no name to recreate */
	FSKIP_RENAME_DST,  /* a rename whose destination name the recording did not know */
	FSKIP_SHARED,	   /* a close or exit while another process still held the file */
	FSKIP__COUNT
};

/* What a file-level replay did and could not do, beside the analysis of its calls. */
struct replay_file_result {
	char root[4096];  /* the directory replayed under, resolved */
	char strip[4096]; /* the recorded directory it stands for */
	/* before the clock: files recreated */
	uint64_t files, files_sparse, files_empty, files_guess, layout_bytes, layout_ns;
	uint64_t dirs; /* directories made before the clock (stat'ed or removed by the trace) */
	uint64_t layout_conflicts; /* files sharing a path with one laid out before them */
	uint64_t opened_at_start;  /* descriptors opened before the clock (open at start) */
	uint64_t opened_unseen;	   /* descriptors used without their open in the trace */
	/* per recorded call (enum io_fop) */
	uint64_t trace[IO_FOP__COUNT];	  /* calls in the trace (opens at start apart) */
	uint64_t replayed[IO_FOP__COUNT]; /* reissued (completed on the target) */
	uint64_t failed[IO_FOP__COUNT];	  /* of which failed on the target */
	uint64_t skipped[FSKIP__COUNT];	  /* not reissued, by reason */
	uint64_t closes_implied; /* closes replayed for a descriptor the recording saw dropped
				  * without a close (process exit, descriptor reused) */
	struct hist lat[IO_FOP__COUNT];	  /* release or deadline to completion */
	uint64_t not_open;	 /* calls on a descriptor whose open had failed or not run */
	uint64_t direct_refused; /* opens whose O_DIRECT the target refused: opened without */
	uint64_t short_reads;	 /* reads that returned fewer bytes than in the recording */
	uint64_t fd_mismatch;	 /* a descriptor the trace shows on another file than opened */
	uint64_t res_edges;	 /* dep: cross-thread edges for a descriptor's open, a name's
				  * earlier call */
	/* what the recording says it missed: its named counters (uncovered_*, dropped_*) */
	struct trace_counter counters[64];
	char counter_names[64][TRACE_COUNTER_NAME_MAX];
	unsigned int ncounters;
	uint64_t dropped; /* the recorder's dropped calls (index), UINT64_MAX unknown */
	/* the first call that failed on the target: its op (enum io_fop) and file, relative to
	 * root ("" when it named none) */
	unsigned int first_fail_op;
	char first_fail_rel[4096];
};

/* Closed mode: what a stream's latency search (fio's latency_target) found. */
#define REPLAY_MAX_LAT_STREAMS 64
struct replay_lat_result {
	uint32_t stream;
	uint32_t depth;	    /* where the search stood at the end, as fio's latency_depth */
	uint32_t found;	    /* the deepest depth whose window met the target (0: none) */
	uint32_t max_depth; /* the stream's iodepth: the search's ceiling */
	uint32_t windows;   /* windows judged */
	bool settled;	    /* the search converged (else the runtime ended it first) */
	bool missed;	    /* even depth 1 missed the target */
};

/* A wait's lateness is clipped to this (a stalled vCPU is not a wake-up): no average and no
 * completion's dating passes it (core/slots.c) */
#define WAKE_LATE_CLIP_NS 1000000ULL

struct replay_result {
	int mode;		    /* the mode actually used */
	const char *engine;
	uint64_t writeback_writes;  /* made as the kernel's writeback (--async-writes writeback) */
	uint64_t ios;		    /* completed */
	uint64_t errors;	    /* completed with an error */
	uint64_t first_error_offset;
	int first_error;
	bool interrupted;	    /* SIGINT, SIGTERM or SIGHUP ended it before the trace did */
	uint64_t skipped[5];	    /* per enum io_op: not replayed (writes without --allow-writes) */
	uint64_t converted;	    /* writes replayed as reads */
	uint64_t remapped;	    /* offsets wrapped or scaled into the target */
	uint64_t realigned;	    /* offsets/lengths moved to the logical block size */
	uint64_t trace_span_ns;	    /* first to last scheduled I/O, after --speed */
	uint64_t runtime_ns;	    /* --runtime (0: none) */
	bool runtime_hit;	    /* the replay stopped there, with I/Os not yet issued */
	uint64_t trace_reached_ns;  /* the latest trace time of an I/O issued (as trace_span_ns,
				     * from the first I/O's) */
	uint64_t replay_span_ns;    /* first to last submit */
	double stretch;		    /* replay_span / stretch_base_ns() - 1 */
	uint64_t spin_ns;	    /* timed, dep: the spin before each deadline (--spin, or the
				     * default: 200 us, none beside the host's load at block level) */
	uint64_t cap_hits;	    /* times the in-flight cap held an I/O back */
	uint64_t buffer_waits;	    /* --write-data pattern: writes that waited for a buffer */
	uint64_t starved;	    /* times the schedule reader had not decoded the next I/O yet */
	uint64_t late_100us;	    /* timed: I/Os submitted > 100 us after their deadline */
	uint64_t max_inflight_seen;
	uint64_t inflight_cap;	    /* I/Os allowed in flight (--max-inflight, --iodepth, jobs) */
	uint64_t bytes;
	uint64_t elapsed_ns;	    /* whole run */
	struct hist lateness;	    /* timed: submit - deadline; dep: submit - release */
	/* dep mode */
	struct dep_stats dep;	    /* what inference found */
	uint64_t dep_released[DEP__KINDS]; /* I/Os released per kind */
	struct hist stall;	    /* release - trace time, for I/Os released after it */
	uint64_t ahead;		    /* I/Os released before their trace time (faster target) */
	uint64_t held_depth;	    /* times an I/O waited for its thread's recorded depth */
	bool kthread_progress;	    /* --dep-kthread-clock progress (dep_pace.c) */
	uint64_t kthread_paced;	    /* kernel threads' I/Os held for the application's progress */
	uint64_t kthread_pace_ns;   /* the time they were held, in all */
	bool writer_clock;	    /* --dep-writer-clock trace (dep_infer.c) */
	uint64_t window_full;	    /* times the dependency window stopped reading ahead */
	uint64_t chained;	    /* I/Os made by their thread's worker after the one before
				     * (--dep-chain), not released by the scheduling thread */
	struct dep_elastic elastic; /* what group commit and absorbed writes changed */
	struct wbt_report wbt;	    /* --dep-wbt: the writes the kernel's throttle held */
	struct {		    /* --dep-date-wakes (core/slots.c, run_reap) */
		bool on;
		uint64_t samples;   /* timed waits whose lateness was measured */
		uint64_t dated;	    /* completions dated back */
		uint64_t dated_ns;  /* by this much in all */
		uint64_t late_ns;   /* the wake-up latency (EWMA of the timed waits'): in use
				     * while it runs, the last one at the end */
	} wake;
	/* closed mode: fio's think time and latency targets (replay/core/loops.c) */
	uint64_t thinks;	    /* pauses taken */
	uint64_t think_ns;	    /* their length, summed over streams (pauses that ended) */
	uint32_t nlat;		    /* streams with a latency target (lat: the first 64) */
	struct replay_lat_result lat[REPLAY_MAX_LAT_STREAMS];
	struct analysis *analysis;  /* of the result (NULL when analysis is not built in) */
	struct replay_unwritten unwritten[REPLAY_MAX_TARGETS]; /* per trace device */
	struct replay_file_result *file; /* a file-level replay's (NULL otherwise) */
	/* --cpu (core/cpu.c) */
	bool cpu_replayed;	    /* some CPU was reproduced */
	char cpu_wait_how[160];	    /* --cpu-wait as resolved, and why (file level; "" at block) */
	char cpu_how[256];	    /* how, or why not ("idle: the trace has no CPU data") */
	uint64_t cpu_asked_ns;	    /* burned before calls by the replaying threads: asked */
	uint64_t cpu_got_ns;	    /*   and got (their own CPU clocks) */
	uint64_t cpu_calls;	    /* calls that had a burn */
	uint32_t cpu_nthreads;	    /* replaying threads (one per recorded thread) */
	uint32_t cpu_nshown;
	struct replay_cpu_thread {
		uint32_t tid;
		uint64_t calls, asked_ns, got_ns;
	} cpu_thread[REPLAY_CPU_THREADS_SHOWN]; /* the threads that asked the most */
	/* --cpu-wait recorded: calls with a recorded wait for a CPU, what they waited in the
	 * recording, what the replay's threads waited of their own, what was added to reach it */
	uint64_t wait_calls, wait_recorded_ns, wait_own_ns, wait_added_ns;
	uint32_t load_threads;	    /* threads reproducing the host's load */
	uint64_t load_chunk_ns;	    /*   each one's burst before its pace sleep */
	uint64_t slice_asked_ns;    /* the scheduling thread's slice asked (--cpu-slice) */
	uint64_t slice_got_ns;	    /*   and as the kernel reported it (0: none before 6.12) */
	bool fill;		    /* --cpu-fill: the load counted the replayer's own CPU */
	bool fill_host;		    /*   host: every task's on this host, not only the replayer's */
	uint64_t fill_own_ns;	    /*   the replayer's (host: the host's) CPU outside the load */
	uint64_t fill_incall_ns;    /*   the recorded threads' CPU inside their calls, then */
	uint64_t fill_cut_ns;	    /*   the load not burned for the difference */
	bool load_progress;	    /* the load kept the application's progress
				     * (--cpu-load-clock) */
	uint64_t load_lag_max_ns;   /*   the furthest it was held behind the trace's clock */
	bool load_traced;	    /* the load includes the recorded threads' CPU (not burned
				     * per call) */
	uint64_t load_recorded_ns;  /* the recorded load over the replayed span */
	uint64_t load_asked_ns;	    /* what the load threads set out to burn */
	uint64_t load_got_ns;	    /* and burned */
	char warnings[2048];	    /* what the caller should print before the summary */
	bool usage_error;	    /* the options do not fit the trace (exit 2, not 1) */
};

/* What a replay's duration is held against: the trace's span, or, for a replay that --runtime
 * cut with I/O left, the part of the trace it reached. */
static inline bool stretch_cut(const struct replay_result *r)
{
	return r->runtime_hit && r->trace_reached_ns;
}

static inline uint64_t stretch_base_ns(const struct replay_result *r)
{
	return stretch_cut(r) ? r->trace_reached_ns : r->trace_span_ns;
}

/*
 * Runs the replay. 0 on success (I/O errors are counted, not fatal); -errno with a message in
 * err when nothing (or not everything) could be replayed. res is filled in either case as far
 * as the run went; free it with replay_result_free().
 */
int replay_run(const struct replay_opts *o, struct replay_result *res, char *err, size_t errlen);
void replay_result_free(struct replay_result *res);

/* The fidelity block of the text summary. */
void replay_fidelity_print(const struct replay_result *res, FILE *out);
/* --cpu: how the CPU was reproduced (replay/cpu_report.c); json appends ", \"cpu\": {...}" and
 * returns its length (0 when it does not fit). */
void replay_cpu_print(const struct replay_result *res, FILE *out);
int replay_cpu_json(const struct replay_result *res, char *buf, size_t len);
/* A file-level replay's calls and files (text), or its `, "file": {...}` JSON member. */
void replay_file_print(const struct replay_result *res, FILE *out);
int replay_file_json(const struct replay_result *res, char *buf, size_t len);
/* `"fidelity": {...}` (no leading comma) for analysis__print_json's extra; bytes written. */
int replay_fidelity_json(const struct replay_result *res, char *buf, size_t len);

const char *replay_mode_name(int mode);

/* The options of `ioreel replay` as parsed from its command line (the fleet takes the same). */
#define REPLAY_CLI_MAX_MAPS 64
struct replay_cli {
	struct replay_opts o; /* o.maps points into maps; o.trace, o.command_line left NULL */
	struct replay_map maps[REPLAY_CLI_MAX_MAPS];
	bool json, quiet;
	bool help;	  /* --help: the caller prints its usage */
	bool bad_option;  /* an unknown option (getopt printed it): the caller prints its usage */
};
/*
 * Parses argv[1..] with getopt_long; the positional arguments are left from argv[optind].
 * 0, or EXIT_USAGE after printing what was wrong.
 */
int replay_cli_parse(int argc, char **argv, struct replay_cli *cli);

/* Set (e.g. from a SIGINT handler) to stop scheduling; what is in flight is still recorded. */
#include <signal.h>
extern volatile sig_atomic_t replay_stop;

#endif
