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
#include "formats/trace.h"
#include "synth/dist.h"

#define SYNTH_MAX_BS 64	   /* bssplit entries per direction */
#define SYNTH_MAX_JOBS 64  /* job sections in one spec */
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
	uint64_t number_ios; /* data I/Os per job per pass (0: by bytes) */
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
};

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
 * flag ("time_based"). Returns 0, -EINVAL for a bad value (why gets a message), -ENOENT for an
 * option the generator does not model (the caller lists those), -EALREADY for an option that
 * has no effect on the pattern (filename, directory: the target is chosen at replay).
 */
int synth_job_set(struct synth_job *j, const char *key, const char *value, char *why,
		  size_t why_len);
/* The same options for the InnoDB model: size (data area), numjobs (readers), iodepth
 * (cleaner depth), number_ios (reads per reader), random_distribution, runtime, time_based,
 * randseed, plus its own parameters (synth/PRESETS.md). */
int synth_innodb_set(struct synth_innodb *m, const char *key, const char *value, char *why,
		     size_t why_len);

/* Checks a job is complete and consistent (size set, bs fits, ...). 0 or -EINVAL + why. */
int synth_job_check(const struct synth_job *j, char *why, size_t why_len);

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
};

/*
 * Builds the header for s (source "synth", no wall-clock genesis, options = cmdline) into
 * meta and writes the trace to path. 0; -EINVAL (bad spec, why set) or -errno (why set).
 */
int synth_write_trace(const struct synth_spec *s, const char *path, const char *devname,
		      uint64_t devsize, const char *cmdline, struct trace_meta *meta,
		      struct synth_counts *counts, char *why, size_t why_len);

/* ---- fio job files (synth/fiojob.c) ---- */

struct fiojob_result {
	unsigned int njobs;
	char unmodeled[1024]; /* "ioengine=libaio rate=10m ..." options not modeled */
	char ignored[512];    /* "filename directory": no effect on the pattern */
};

/*
 * Reads a fio job file: [global] then job sections (only `section` when not NULL). Each job
 * section becomes one job of spec (with its numjobs). 0, -errno on I/O, -EINVAL + why
 * (with file:line) for a bad value, -ENOENT when the section is absent.
 */
int fiojob_load(const char *path, const char *section, struct synth_spec *spec,
		struct fiojob_result *res, char *why, size_t why_len);

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
