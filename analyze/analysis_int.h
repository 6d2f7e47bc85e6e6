/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The inside of struct analysis, shared by the aggregation (summary.c) and the reports
 * (report_text.c, report_json.c, compare.c, html.c). Not for other folders: they use analyze.h.
 *
 * Memory is fixed at analysis__new(): histograms instead of event lists, a bounded interval
 * series whose width doubles when the trace outgrows it, and a fixed offset/time grid.
 */
#ifndef IOREEL_ANALYZE_ANALYSIS_INT_H
#define IOREEL_ANALYZE_ANALYSIS_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "analyze/analyze.h"
#include "analyze/hist.h"
#include "formats/elastic.h"
#include "formats/file.h"
#include "formats/trace.h"
#include "util/json.h" /* json_str: every JSON string the reports write */

#define AN_MAX_GROUPS 32     /* --group-by comm|pid: the rest goes to "other" */
#define AN_MAX_PCT 64	     /* --percentiles entries */
#define AN_LAT_BINS 32	     /* fio's latency_ns (10) + latency_us (10) + latency_ms (12) */
#define AN_DEPTH_BINS 7	     /* fio's iodepth_level: 1, 2, 4, 8, 16, 32, >=64 */
#define AN_BS_BINS 34	     /* by bit length of (length - 1): 0 = zero-length, up to 8 GiB */
#define AN_SEQ_WAYS 8	     /* recent end offsets remembered per device and op */
#define AN_MAX_INTERVALS 4096 /* series bound; the width doubles beyond it */
#define AN_IH_SUB 3	     /* interval latency histogram: 8 buckets per power of two */
#define AN_IH_MAXMSB 40	     /* ... up to 2^41 ns (36 minutes); longer goes to the last one */
#define AN_IH_BUCKETS ((AN_IH_MAXMSB - AN_IH_SUB + 2) << AN_IH_SUB)
#define AN_GRID_COLS 64	     /* offset heatmap: time columns */
#define AN_GRID_ROWS 32	     /* offset rows */
#define AN_DEPTH_CAP 65536   /* in-flight completions kept for the depth reconstruction */

enum an_group_by { AN_GROUP_NONE = 0, AN_GROUP_OP, AN_GROUP_DEVICE, AN_GROUP_COMM, AN_GROUP_PID };

/*
 * Exact sums beside each histogram: Welford's per-sample division was a third of the cost of
 * an event; integer sums are exact and cheap, and an_finish() derives mean and m2 from them.
 */
struct an_sums {
	unsigned __int128 sum, sumsq;
};

struct an_op {
	uint64_t ios, bytes, errors, seq;
	int first_error; /* errno of its first failed I/O (fio's "error"), 0 if none failed */
	struct hist slat, clat, lat; /* buckets, count, min, max live; mean/m2 set by an_finish() */
	struct an_sums slat_s, clat_s, lat_s;
	uint64_t lat_bins[AN_LAT_BINS];
	uint64_t bs[AN_BS_BINS];
	uint64_t bs_bytes[AN_BS_BINS];
};

struct an_group {
	char name[64];
	uint64_t key;
	uint64_t events;
	uint64_t first_ns, last_ns; /* span of this group's events */
	uint64_t depth[AN_DEPTH_BINS];
	struct an_op op[IO_OP__COUNT];
};

#define AN_REORDER 16384	 /* power of two */
#define AN_REORDER_STEPS 256 /* how far back an I/O may be inserted into the window */

struct an_pending {
	uint64_t issue, complete;
	uint32_t group;
};

struct an_interval {
	uint64_t ios[3];   /* read, write, other */
	uint64_t bytes[3];
	uint32_t lat[AN_IH_BUCKETS];
};

struct analysis {
	char name[256];
	struct trace_meta meta; /* copy; zeroed when none was given */
	bool has_meta;
	bool replay; /* meta.source starts with "replay": slat is lateness + submission */
	bool unscheduled; /* closed-loop trace: times are the file order, so no runtime or rates */
	bool json_bins;	  /* --bins: the histograms' non-empty buckets in the JSON (fio's json+) */
	struct analyze_opts opts;
	double pct[AN_MAX_PCT];
	unsigned int npct;
	int group_by; /* enum an_group_by */

	uint64_t events;       /* events fed */
	uint64_t included;     /* passed the filters */
	uint64_t no_completion; /* included events without a completion time */
	uint64_t clat_from_issue, clat_from_queue; /* where clat started (no issue time: queue) */
	uint64_t first_ns, last_ns; /* span of the included events (first time .. last stamp) */
	uint64_t dev_ios[TRACE_MAX_DEVICES];
	uint64_t dev_bytes[TRACE_MAX_DEVICES];
	uint64_t damaged_chunks; /* from the reader with --salvage */

	unsigned int ngroups;
	bool groups_overflow;
	struct an_group *groups; /* AN_MAX_GROUPS + 1 ("other") */

	/* sequential detection: recent end offsets per device (mod 64) and op */
	uint64_t seq_end[TRACE_MAX_DEVICES][IO_OP__COUNT][AN_SEQ_WAYS];
	uint8_t seq_next[TRACE_MAX_DEVICES][IO_OP__COUNT];

	/* in-flight depth: min-heap of completion times of I/Os issued and not yet completed */
	uint64_t *heap;
	size_t heap_len;
	bool depth_approx; /* events came too far out of issue order, or the heap filled */
	uint64_t last_issue_ns;
	/*
	 * Depth needs issues in time order, but files come in queue or completion order: a window
	 * of the latest AN_REORDER I/Os is kept sorted by issue time (insertion from the tail, cheap
	 * for nearly sorted input) and the oldest is processed when it fills.
	 */
	struct an_pending *pend;
	unsigned int pend_head, pend_len;

	/* time series (opts.interval_ns > 0) */
	struct an_interval *iv;
	uint64_t iv_width;   /* current width, >= opts.interval_ns */
	uint64_t iv_base;    /* start time of interval 0 */
	unsigned int iv_len; /* intervals in use */
	uint64_t iv_cur, iv_cur_lo; /* the last interval hit and its start */

	/* offset/time heatmap: both dimensions are powers of two so a cell is two shifts */
	uint32_t grid[AN_GRID_ROWS][AN_GRID_COLS];
	uint64_t col_ios[AN_GRID_COLS], col_bytes[AN_GRID_COLS]; /* every op, for the rate charts */
	unsigned int grid_tshift, grid_oshift;
	uint64_t max_end; /* highest offset + length seen */

	struct an_flevel *fl; /* a file-level trace's own figures (file_level.c); else NULL */
	/* a dep replay's result: its elastic models' figures, when the trace holds them */
	struct trace_elastic elastic;
	bool has_elastic;
};

/*
 * Processes the I/Os still in the reorder window. The reports call it first: the API's report
 * functions take a const analysis, and finishing buffered work is not a visible change.
 */
void an_finish(const struct analysis *a);

/* The aggregation's inlined copy of hist_bucket_of(), exposed for the unit test. */
unsigned int an_bucket_of(uint64_t v);

/* Helpers shared by the reports. */
extern const double an_default_pct[17];
/* fio's name for the op in JSON ("read", "write", "trim", "sync"), NULL for write-zeroes. */
const char *an_fio_op_key(unsigned int op);
/* A label for the op in text: "read", "write", "trim", "flush", "write-zeroes". */
const char *an_op_label(unsigned int op);
/* fio's latency distribution labels: (unit, upper bound) for bin i. */
const char *an_lat_bin_label(unsigned int i, const char **unit);
/* "1", "2", ..., ">=64". */
const char *an_depth_label(unsigned int i);
/* Block-size bin label into buf ("4k", "<=12k"...). */
char *an_bs_label(unsigned int i, char *buf, size_t len);
/* What clat, lat measure in this trace (analyze/README.md), for the reports to say. */
const char *an_clat_meaning(const struct analysis *a);
const char *an_lat_meaning(const struct analysis *a);
/* Runtime in ns of the analysis (span of the included events), 0 when unknown. */
uint64_t an_runtime_ns(const struct analysis *a);
double an_iops(const struct analysis *a, const struct an_op *o);
double an_bw_bytes(const struct analysis *a, const struct an_op *o);
/* Interval latency percentile from its coarse histogram (bucket midpoint). */
uint64_t an_iv_percentile(const struct an_interval *iv, double p);
uint64_t an_iv_total(const struct an_interval *iv);
/* Adds s into d: counts, histograms (buckets; mean/m2 by Chan's update), sums, bins. */
void an_op_add(struct an_op *d, const struct an_op *s);
/* Aggregate over all groups into out (for compare and HTML, which work per trace). */
void an_total_op(const struct analysis *a, unsigned int op, struct an_op *out);
/* Merge of the lat (or clat when lat is empty: what --compare uses) of all ops and groups. */
void an_total_lat(const struct analysis *a, struct hist *out);
/* The same for one op. */
void an_op_lat(const struct analysis *a, unsigned int op, struct hist *out);

/* An empty group (histograms ready, first_ns unset). */
void an_group_init(struct an_group *g, const char *name, uint64_t key);
/* fio's latency distribution bin (latency_ns/us/ms) of a latency in ns. */
unsigned int an_lat_bin(uint64_t ns);

/* file_level.c: a file-level trace's calls, to the summary and per op and file beside it */
struct an_flevel;
int an_flevel_init(struct analysis *a, const struct trace_reader *r);
void an_flevel_add(struct analysis *a, const struct io_event *ev, const struct io_fext *x,
		   size_t n);
void an_flevel_print(const struct analysis *a, FILE *f);
void an_flevel_json(const struct analysis *a, FILE *f);
void an_flevel_free(struct an_flevel *fl);

/* Halve the heatmap's resolution in time (columns twice as wide) or in offset (rows). */
void an_grid_coarsen_time(struct analysis *a);
void an_grid_coarsen_offset(struct analysis *a);

/* Sets the grid's column width from the trace's last time (before any event is added). */
void an_span_hint(struct analysis *a, uint64_t last_ns);

/* --group-by: "op", "device", "comm", "pid" (or "none"); before any event. 0 or -EINVAL. */
int an_set_group_by(struct analysis *a, const char *by);
typedef void (*an_progress_fn)(void *arg, uint64_t done, uint64_t total);
/* analysis__from_file() with grouping and a progress callback (called after each batch). */
struct analysis *an_from_file(const char *path, const struct analyze_opts *opts,
			      unsigned int reader_flags, const char *group_by, an_progress_fn progress,
			      void *arg, char *err, size_t errlen);

/* --merge: n traces read as one (their times taken as one clock). NULL + errno, err. */
struct analysis *an_from_merge(const char *const *paths, unsigned int n,
			       const struct analyze_opts *opts, unsigned int reader_flags,
			       const char *group_by, char *err, size_t errlen);

/* A fleet report (ioreel-mpi --json) read back: its sum ("jobs") then each rank
 * ("client_stats"), at most max analyses into out. The count, or -errno with err. */
int an_from_fleet_json(const char *path, struct analysis **out, unsigned int max, char *err,
		       size_t errlen);
/* The file starts like a JSON document (its first non-blank byte is '{'). */
bool an_is_json_file(const char *path);

#endif
