/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The analysis other verbs reuse: replay prints the summary of its result trace with it, and
 * `--json` of replay is this document plus replay's own members (same keys as analyze --json).
 */
#ifndef IOREEL_ANALYZE_ANALYZE_H
#define IOREEL_ANALYZE_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include "formats/trace.h"

struct analysis;

struct analyze_opts {
	uint64_t from_ns, to_ns; /* only events whose time is in [from, to); to = 0: no limit */
	uint64_t interval_ns;	 /* 0: no time series */
	int device;		 /* -1: all devices */
	const double *percentiles; /* NULL: fio's default list */
	unsigned int npercentiles;
};

/* One analysis per trace. NULL + errno. */
struct analysis *analysis__new(const struct analyze_opts *opts, const struct trace_meta *meta,
			       const char *name);
/* Feeds events (any order). */
void analysis__add(struct analysis *a, const struct io_event *ev, size_t n);
/* Reads a whole trace file into a new analysis; NULL + errno, message in err. */
struct analysis *analysis__from_file(const char *path, const struct analyze_opts *opts,
				     unsigned int reader_flags, char *err, size_t errlen);
/* fio-like text summary. */
void analysis__print_text(const struct analysis *a, FILE *out);
/*
 * The JSON document of `ioreel analyze --json` for one trace. extra, when not NULL, is inserted
 * verbatim as further top-level members (e.g. "\"fidelity\": {...}", no leading comma).
 */
void analysis__print_json(const struct analysis *a, FILE *out, const char *extra);
/* The HTML page of `ioreel analyze --html` for n analyses (compared when n > 1). 0 or -errno. */
int analysis__print_html(const struct analysis *const *as, unsigned int n, FILE *out);
/*
 * One fio "jobs" entry for the whole analysis (its groups together); extra, when not NULL,
 * is inserted verbatim as further members of the job. 0 or -ENOMEM.
 */
int analysis__print_job_json(const struct analysis *a, FILE *out, const char *extra);
/* With on, the JSON gives each histogram's non-empty buckets, as fio's json+ "bins". */
void analysis__set_bins(struct analysis *a, bool on);

/*
 * Adds src's figures into dst, exactly: histograms bucket by bucket (one layout everywhere),
 * counts and bytes, sums behind means and variances; the span is the union; in-flight depth
 * distributions add (each its own depth, as fio sums its clients'). Ungrouped analyses merge
 * into dst's one job, groups by name, devices by name. Time series are not merged.
 * 0 or -ENOSPC (more devices than a device table holds).
 */
int analysis__merge(struct analysis *dst, const struct analysis *src);
/* An analysis as bytes, for a process running the same version; *buf malloc'ed. 0/-ENOMEM */
int analysis__pack(const struct analysis *a, void **buf, size_t *len);
/* The analysis back from analysis__pack's bytes; NULL + errno (EINVAL: not such bytes). */
struct analysis *analysis__unpack(const void *buf, size_t len);

/* Names the trace in reports (default: the name given to analysis__new), and its job when
 * the events are not grouped. */
void analysis__set_name(struct analysis *a, const char *name);
void analysis__free(struct analysis *a);

#endif
