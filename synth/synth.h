/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The synth generator: fio-like jobs (and the InnoDB model) turned into a stream of io_events.
 * Options use fio's names and meanings; what a generated trace promises to the replayer is
 * written down in synth/PRESETS.md ("The trace contract").
 */
#ifndef IOREEL_SYNTH_SYNTH_H
#define IOREEL_SYNTH_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "formats/event.h"
#include "formats/file.h"
#include "formats/trace.h"
#include "synth/dist.h"

#define SYNTH_MAX_BS 64	   /* bssplit entries per direction */
#define SYNTH_MAX_JOBS 64  /* job sections in one spec */
#define SYNTH_MAX_FILES (1u << 20) /* nrfiles of one job */
#define SYNTH_MAX_TRACE_FILES (1u << 24) /* files of a file-level trace, all jobs together */
#define SYNTH_DEFAULT_SEED 0x89 /* fio's default randseed: runs repeat unless told otherwise */

enum synth_ddir { SYNTH_DDIR_READ = 0, SYNTH_DDIR_WRITE = 1, SYNTH_DDIR_TRIM = 2, SYNTH_DDIR_N };

enum synth_arrivals { SYNTH_ARRIVALS_UNIFORM = 0, SYNTH_ARRIVALS_POISSON = 1 };

struct synth_bs {
	uint32_t bs;
	uint32_t pct; /* share in percent; the entries of one direction sum to 100 */
};

struct synth_bsplit {
	uint32_t n;
	struct synth_bs e[SYNTH_MAX_BS];
	uint32_t range_lo, range_hi; /* bsrange: uniform in [lo, hi], multiples of lo (hi 0: off) */
};

/* The ops a job's writes become (fio's write_mode / sg_write_mode). */
enum synth_write_op { SYNTH_WRITE_DATA = 0, SYNTH_WRITE_ZEROES = 1 };

/* fio's exit_what: the jobs that an ending job ends when exitall is set */
enum synth_exit_what {
	SYNTH_EXIT_GROUP,     /* its reporting group (cut by stonewall and new_group), the default */
	SYNTH_EXIT_STONEWALL, /* every job running beside it */
	SYNTH_EXIT_ALL,	      /* every job, those not started yet too */
};

struct synth_job {
	char name[64];
	bool random;	     /* rand* patterns */
	unsigned int ddirs;  /* bit per enum synth_ddir */
	uint32_t rwmixread;  /* percent of reads when reading and writing */
	struct synth_bsplit bs[SYNTH_DDIR_N];
	uint64_t size;	     /* bytes of the region each job works in (0: not set) */
	uint64_t offset;     /* where the region starts */
	uint64_t io_size;    /* bytes per job per pass (0: size) */
	uint64_t number_ios; /* data I/Os per job, all passes together (0: by bytes) */
	uint32_t iodepth;
	uint32_t numjobs;
	uint64_t runtime_ns;
	bool time_based;
	double rate_iops;    /* per job, like fio's rate_iops; 0: closed loop */
	enum synth_arrivals arrivals;
	struct dist_spec dist;
	bool norandommap;
	uint64_t fsync;	     /* a flush after every N writes (per job); 0: never */
	bool sync_writes;    /* fio sync=1: writes carry FUA */
	bool sync_engine;    /* psync/sync/pvsync...: one I/O in flight per job whatever iodepth */
	uint64_t seed;

	/* ---- fio job-file semantics (synth/FIO.md) ---- */
	int64_t seq_add;      /* rw=read:8k: bytes skipped after each sequential I/O (<0: back) */
	uint32_t rand_run;    /* rw=randread:8: a new random offset every N I/Os (0, 1: each) */
	bool run_identical;   /* rw_sequencer=identical: the run repeats one offset */
	bool trimwrite;	      /* rw=trimwrite: each block trimmed, then written */
	uint32_t perc_rand;   /* percentage_random: random share of a random job's I/Os */
	uint32_t blockalign;  /* random offsets are multiples of it (0: the smallest bs) */
	bool bs_unaligned;    /* bsrange sizes are not rounded to the smallest one */
	uint32_t offset_align; /* offset= is rounded down to it (0: none) */
	uint64_t loops;	      /* passes over the region (fio's loops, 0 or 1: one) */
	uint64_t ramp_ns;     /* ramp_time: I/O before the runtime starts counting */
	uint64_t delay_ns;    /* startdelay */
	/* thinktime, thinktime_spin, thinktime_iotime, thinktime_blocks (0: not given),
	 * thinktime_blocks_type=issue: carried in the stream record for the closed loop */
	uint64_t think_ns, think_spin_ns, think_iotime_ns;
	uint32_t think_blocks;
	bool think_issue;
	/* latency_target, latency_window, latency_percentile (millionths), latency_run */
	uint64_t lat_target_ns, lat_window_ns;
	uint32_t lat_pct_ppm;
	bool lat_run;
	uint32_t size_ppm, offset_ppm, inc_ppm; /* size=N%, offset=N%, offset_increment=N% */
	uint64_t size_nz, offset_nz, inc_nz;	/* the same in zones ("8z") */
	uint64_t offset_inc;  /* offset_increment: clone k starts k * this further */
	uint64_t filesize;    /* the file the region lies in (0: from the jobs) */
	char file[256];	      /* fio filename: jobs naming the same file share it */
	bool own_files;	      /* no filename in a job file: fio makes one file per job clone */
	bool device_engine;   /* the engine names the device (rbd, nbd, libblkio): jobs share it */
	uint64_t file_base;   /* where that file starts on the target (synth_spec_resolve) */
	uint64_t clone_span;  /* own_files: clone k's file starts k * this further */
	bool rel;	      /* the region is resolved against the target at replay */
	bool fill;	      /* fill_device: the whole target */
	uint64_t zone_size, zone_range, zone_skip; /* zonemode=strided */
	bool zbd;	      /* zonemode=zbd (refused by the reader) */
	bool verify;	      /* verify=...: a read of every block written (do_verify) */
	uint64_t verify_backlog; /* read back after every N writes (0: after the pass) */
	uint64_t fdatasync;   /* a flush after every N writes (fio fdatasync) */
	bool end_fsync;	      /* end_fsync / fsync_on_close: a flush when the job ends */
	uint64_t write_barrier; /* every Nth write is a barrier (preflush + FUA) */
	bool read_fua, write_fua; /* readfua / writefua (io_uring_cmd, sg) */
	uint32_t zeroes_pct;  /* write_mode=zeroes share: writes issued as write-zeroes */
	uint32_t num_range;   /* trims of num_range ranges each (fio's multi-range trim) */
	double rate_bytes[SYNTH_DDIR_N], rate_ios[SYNTH_DDIR_N]; /* rate=, rate_iops= per ddir */
	bool stonewall;	      /* starts after every job before it ends */
	char wait_for[64];    /* starts after this job ends */
	uint32_t group;	      /* closed-loop group (from stonewall and wait_for) */
	bool exitall;	      /* fio exitall (any job's, for all): a job that ends ends others */
	uint8_t exit_what;    /* enum synth_exit_what: which others (fio's exit_what) */
	bool new_group;	      /* fio new_group: a new reporting group, the scope of exit_what=group */
	uint32_t rgroup;      /* its reporting group (synth_spec_resolve) */
	bool exit_on;	      /* exitall is on (any job's): its end ends others (resolve) */
	bool rate_cap;	      /* rated beside unrated jobs: caps a closed loop (resolve) */
	/* "file:line: key=value" of the rw= and rate= (rate_iops=) that set them, for refusals
	 * made after the file is read ("" when set on the command line or not at all) */
	char at_rw[160], at_rate[160];
	uint32_t flow;	      /* fio flow: this job's weight among its flow_id's jobs (0: none) */
	uint32_t flow_id;
	int32_t flow_lead;    /* the first job of its flow set, whose stream it shares (-1: none) */
	/* ---- file-level traces (synth/fileops.c) ---- */
	uint8_t fileop;	      /* enum synth_fileop: the engine's call (0: reads and writes) */
	uint8_t file_service; /* enum synth_fsvc: fio's file_service_type */
	bool buffered;	      /* direct=0 (fio's default): files opened without O_DIRECT */
	uint32_t nrfiles;     /* files per job clone (fio's nrfiles; 0 or 1: one) */
	uint32_t fsvc_batch;  /* file_service_type=...:N, I/Os per file before the next (0: 1) */
	uint32_t openfiles;   /* fio's openfiles: files open at once (0: all) */
	uint64_t fsize;	      /* each file's size once resolved (file-level traces) */
	/* ---- fio's sprandom (synth/fio_sprandom.c) ---- */
	bool sprandom;	      /* writes laid out as fio's SSD preconditioning */
	bool randommap_asked; /* norandommap=0 given (fio refuses it beside sprandom) */
	uint8_t rand_gen;     /* random_generator: 0 not given, 1 lfsr, 2 another */
	uint32_t spr_regions; /* spr_num_regions (fio's default 100) */
	double spr_op;	      /* spr_op: over-provisioning, (0, 1) (fio's default 0.15) */
	uint64_t spr_cs;      /* spr_cs: the device's cache in bytes (0: none) */
	char at_spr[160];     /* "file:line: sprandom=1", for refusals made after reading */
};

/* fio's engines that call something else than read and write (a file-level trace). */
enum synth_fileop {
	SYNTH_FOP_NONE = 0,
	SYNTH_FOP_FALLOC,     /* fallocate(): read KEEP_SIZE, write 0, trim PUNCH_HOLE|KEEP_SIZE */
	SYNTH_FOP_FTRUNCATE,  /* ftruncate(offset) per write */
	SYNTH_FOP_FILECREATE, /* open(O_CREAT) and close per file */
	SYNTH_FOP_FILESTAT,   /* stat per file */
	SYNTH_FOP_FILEDELETE, /* unlink per file */
	SYNTH_FOP_DIRCREATE,  /* mkdir per directory */
	SYNTH_FOP_DIRSTAT,    /* stat per directory */
	SYNTH_FOP_DIRDELETE,  /* rmdir per directory */
};

/* fio's file_service_type: which of a job's files the next I/O goes to. */
enum synth_fsvc { SYNTH_FSVC_RR = 0, SYNTH_FSVC_SEQ, SYNTH_FSVC_RANDOM };

/* The InnoDB-like model (synth/PRESETS.md describes it). */
struct synth_innodb {
	uint64_t data_size;	    /* random 16 KiB page reads and writes */
	uint64_t log_size;	    /* circular redo log area after the data area */
	uint32_t page_size;	    /* 16 KiB */
	uint32_t readers;	    /* query threads doing synchronous page reads */
	uint64_t reads_per_reader;  /* per pass */
	uint64_t commits;	    /* redo appends per pass, each followed by a flush */
	uint32_t log_min, log_max;  /* redo write size range (log-uniform, 512-byte multiples) */
	bool log_fua;		    /* redo writes with FUA instead of a separate flush */
	uint32_t dblwr_pages;	    /* pages per doublewrite batch (and size of the dblwr area) */
	uint64_t batches;	    /* page-cleaner batches per pass */
	uint32_t cleaner_depth;	    /* page writes in flight from the page cleaner */
	struct dist_spec dist;	    /* which pages are read and written */
	uint64_t runtime_ns;
	bool time_based;
	uint64_t seed;
};

struct synth_spec {
	bool innodb; /* true: the InnoDB model; false: jobs[] */
	unsigned int njobs;
	struct synth_job jobs[SYNTH_MAX_JOBS];
	struct synth_innodb inno;
};

/* fio's defaults: rw=read, bs=4k, iodepth=1, numjobs=1, rwmixread=50, uniform, no size. */
void synth_job_defaults(struct synth_job *j);
void synth_innodb_defaults(struct synth_innodb *m);

/*
 * Applies one fio option (fio's name; '-' and '_' alike) to a job. value is NULL for a bare
 * flag ("time_based"). Returns 0; -EINVAL for a bad value (why gets a message); -EOPNOTSUPP
 * for a value whose semantics ioreel does not reproduce (why says what, e.g. ioengine=net);
 * -EALREADY for an option that does not change the pattern (why may say what it would do);
 * -ENOENT for an option synth_job_set does not know (synth/fioopts.c classifies the rest).
 */
int synth_job_set(struct synth_job *j, const char *key, const char *value, char *why,
		  size_t why_len);
/* The same with fio's kb_base for sizes (1024 or 1000). */
int synth_job_set_kb(struct synth_job *j, const char *key, const char *value, unsigned int kb_base,
		     char *why, size_t why_len);
/* The same options for the InnoDB model: size (data area), numjobs (readers), iodepth
 * (cleaner depth), number_ios (reads per reader), random_distribution, runtime, time_based,
 * randseed, plus its own parameters (synth/PRESETS.md). */
int synth_innodb_set(struct synth_innodb *m, const char *key, const char *value, char *why,
		     size_t why_len);

/* Checks a job is complete and consistent (size set, bs fits, ...). 0 or -EINVAL + why. */
int synth_job_check(const struct synth_job *j, char *why, size_t why_len);

/*
 * Settles where every job's region lies (synth/region.c): % sizes, zones, fill_device and
 * absent sizes against device_size when it is given, else the job becomes relative (resolved
 * against the target at replay); jobs' files are laid out one after another on the target.
 * 0, or -EINVAL / -EOPNOTSUPP with why.
 */
int synth_spec_resolve(struct synth_spec *s, uint64_t device_size, char *why, size_t why_len);

/* Only the run groups (stonewall, wait_for, exitall): what a file-level trace needs of
 * synth_spec_resolve. 0 or -EINVAL with why. */
int synth_spec_groups(struct synth_spec *s, char *why, size_t why_len);

/* Fills meta's mode, streams, runtime and device (name, size) for the spec. 0 or -EINVAL. */
int synth_spec_meta(const struct synth_spec *s, struct trace_meta *meta, const char *devname,
		    uint64_t device_size, char *why, size_t why_len);
/* Bytes of device the spec touches (offset + size over all jobs, or the InnoDB layout). */
uint64_t synth_spec_extent(const struct synth_spec *s);

typedef int (*synth_emit_fn)(void *ctx, const struct io_event *ev);
/* Generates the whole trace, event by event, in file order. Stops at the first emit error. */
int synth_generate(const struct synth_spec *s, synth_emit_fn emit, void *ctx);

/* What a written trace holds (synth/synth.c). */
struct synth_counts {
	uint64_t events, ops[IO_OP__COUNT], bytes[IO_OP__COUNT], last_ns;
	uint64_t fops[IO_FOP__COUNT]; /* a file-level trace: calls per op */
	uint32_t files;		      /* a file-level trace: its file table */
};

/*
 * Builds the header for s (source "synth", no wall-clock genesis, options = cmdline) into
 * meta and writes the trace to path. 0; -EINVAL (bad spec, why set) or -errno (why set).
 */
int synth_write_trace(const struct synth_spec *s, const char *path, const char *devname,
		      uint64_t devsize, const char *cmdline, struct trace_meta *meta,
		      struct synth_counts *counts, char *why, size_t why_len);

/* ---- regions (synth/region.c), shared by the generator and the header ---- */

uint32_t synth_job_min_bs(const struct synth_job *j);
/* Random offsets are multiples of this (blockalign, else the smallest block size). */
uint32_t synth_job_unit(const struct synth_job *j);
/* The job's region length is the target's (or a share of it): known only at replay. */
bool synth_job_len_rel(const struct synth_job *j);
/* A backwards walk (rw=read:-N) with one block size over a region of unknown length: its
 * offsets are distances back from the region's end (format 1.7, TRACE_STREAM_BACK). */
bool synth_job_back_rel(const struct synth_job *j);
/* Bytes the generator walks: the region, or a nominal span for a relative one. */
uint64_t synth_job_gen_size(const struct synth_job *j);
/* The stream record of clone `clone` of j, and where its region starts (0 when relative). */
void synth_stream_rec(const struct synth_job *j, uint32_t clone, struct trace_stream *rec,
		      uint64_t *base);

/* ---- fio job files (synth/fiojob.c) ---- */

struct fiojob_result {
	unsigned int njobs;
	/* "group_reporting, thread (reporting and logging); direct=0 (buffered I/O: ...)":
	 * options accepted without effect on the trace, by why, in one line */
	char ignored[2048];
};

/*
 * Reads a fio job file as fio does (synth/FIO.md): [global] sections, include, comments,
 * ${VAR}, arithmetic, fio's units; each job section becomes one job of spec (only `section`
 * when not NULL). 0; -errno on I/O; -EINVAL + why (file:line) for a bad value; -EOPNOTSUPP
 * + why when a job uses an option whose effect ioreel does not reproduce (the option and
 * why); -ENOENT when the section is absent; -EEXIST + why when out (the trace to be written,
 * or NULL) is the job file or a file it includes.
 */
int fiojob_load(const char *path, const char *section, const char *out, struct synth_spec *spec,
		struct fiojob_result *res, char *why, size_t why_len);

/* ---- file-level traces (synth/fileops.c) ---- */

/* The engine's call for an fio engine name (SYNTH_FOP_NONE for any other). */
enum synth_fileop synth_fileop_of(const char *engine);
/* fio's file_service_type value: 0, or -EINVAL / -EOPNOTSUPP with why. */
int synth_file_service_set(struct synth_job *j, const char *v, char *why, size_t why_len);
/* The spec needs a file-level trace: a job of a file or directory engine, or over several
 * files. */
bool synth_spec_file_level(const struct synth_spec *s);
/* Before synth_spec_resolve: each job's files as one region (nrfiles x the file size). */
int synth_fileops_prepare(struct synth_spec *s, char *why, size_t why_len);
/* A file-level trace of s (level 1, a file table, closed loop) at path. */
int synth_write_file_trace(const struct synth_spec *s, const char *path, const char *cmdline,
			   struct trace_meta *meta, struct synth_counts *counts, char *why,
			   size_t why_len);

/* ---- fio's sprandom (synth/fio_sprandom.c) ---- */

/* sprandom, spr-op, spr-num-regions, spr-cs, random-generator ('-' keys): 0, -EINVAL with
 * why, or -EALREADY (random_generator: no effect on the trace but beside sprandom). */
int synth_sprandom_set(struct synth_job *j, const char *k, const char *v, unsigned int kb,
		       char *why, size_t why_len);
/* What a sprandom job cannot be combined with (rw, files, sizes...): 0 or -EOPNOTSUPP. */
int synth_sprandom_check(const struct synth_job *j, char *why, size_t why_len);

/* ---- presets (synth/presets.c) ---- */

struct synth_preset {
	const char *name;
	const char *summary;
	/* fills spec; variant selects one of several (cdm: 0..3), -1 when it has one pattern */
	int (*fill)(struct synth_spec *spec, int variant);
	int variants; /* 1, or 4 for cdm */
	const char *const *variant_names;
};

const struct synth_preset *synth_preset_find(const char *name);
const struct synth_preset *synth_preset_at(size_t i); /* NULL past the end */

#endif
