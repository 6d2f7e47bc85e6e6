// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reading a trace file into an analysis: chunk by chunk through the container reader, so memory
 * stays what analysis__new() allocated plus one batch of events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/analysis_int.h"
#include "util/cli.h"

#define BATCH 4096

int an_set_group_by(struct analysis *a, const char *by)
{
	static const char *const names[] = { "none", "op", "device", "comm", "pid" };

	if (a->included)
		return -EBUSY;
	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(by, names[i])) {
			a->group_by = (int)i;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

struct analysis *an_from_file(const char *path, const struct analyze_opts *opts,
			      unsigned int reader_flags, const char *group_by, an_progress_fn progress,
			      void *arg, char *err, size_t errlen)
{
	char why[256] = "";
	struct trace_reader *r;
	struct analysis *a = NULL;
	struct io_event *buf = NULL;
	struct io_fext *fx = NULL;
	int saved;

	r = trace_reader__open(path, reader_flags, why, sizeof(why));
	if (!r) {
		saved = errno;
		snprintf(err, errlen, "%s", why); /* it names the file */
		errno = saved;
		return NULL;
	}
	/* a trace cut short (no index, an incomplete last chunk dropped): said, as info says it */
	if (trace_reader__notice(r))
		cli_warn("%s", trace_reader__notice(r));
	a = analysis__new(opts, trace_reader__meta(r), base_name(path));
	if (a)
		a->has_elastic = trace_reader__elastic(r, &a->elastic);
	buf = malloc(BATCH * sizeof(*buf));
	if (a && trace_reader__meta(r)->level == TRACE_LEVEL_FILE) {
		/* its calls: to the summary as one device's I/O, and per op and file (file_level.c) */
		if (!(fx = malloc(BATCH * sizeof(*fx))) || an_flevel_init(a, r))
			buf = (free(buf), NULL);
	}
	if (!a || !buf) {
		saved = ENOMEM;
		snprintf(err, errlen, "%s: out of memory for the analysis", path);
		goto fail;
	}
	if (group_by && an_set_group_by(a, group_by)) {
		saved = EINVAL;
		snprintf(err, errlen, "unknown --group-by '%s' (op, device, comm or pid)", group_by);
		goto fail;
	}
	uint64_t last = 0;
	for (size_t i = 0; i < trace_reader__chunk_count(r); i++) {
		const struct trace_chunk_info *c = trace_reader__chunk(r, i);
		if (c && c->last_ns > last && c->last_ns != IO_TS_NONE)
			last = c->last_ns;
	}
	an_span_hint(a, last);
	/* The index lets us skip what is before --from; a sorted file lets us stop at --to. */
	if (opts && opts->from_ns && trace_reader__has_index(r))
		trace_reader__seek(r, opts->from_ns);
	bool sorted = trace_reader__is_sorted(r);
	uint64_t total = trace_reader__event_count(r), done = 0;
	for (;;) {
		long n = a->fl ? trace_reader__next_file(r, buf, fx, BATCH)
			       : trace_reader__next(r, buf, BATCH);
		if (n < 0) {
			saved = (int)-n;
			/* it names the file, and --salvage where that helps (not for a
			 * trace of the other level) */
			snprintf(err, errlen, "%s", trace_reader__error(r));
			goto fail;
		}
		if (n == 0)
			break;
		if (cli_stop) { /* SIGINT/SIGTERM: the verb says so and writes no report */
			saved = EINTR;
			snprintf(err, errlen, "%s: interrupted", path);
			goto fail;
		}
		if (a->fl)
			an_flevel_add(a, buf, fx, (size_t)n);
		else
			analysis__add(a, buf, (size_t)n);
		done += (uint64_t)n;
		if (progress)
			progress(arg, done, total);
		if (sorted && opts && opts->to_ns && io_event_time(&buf[n - 1]) >= opts->to_ns &&
		    io_event_time(&buf[n - 1]) != IO_TS_NONE)
			break;
	}
	a->damaged_chunks = trace_reader__damaged_chunks(r);
	free(buf);
	free(fx);
	trace_reader__close(r);
	return a;
fail:
	free(buf);
	free(fx);
	analysis__free(a);
	trace_reader__close(r);
	errno = saved;
	return NULL;
}

struct analysis *analysis__from_file(const char *path, const struct analyze_opts *opts,
				     unsigned int reader_flags, char *err, size_t errlen)
{
	return an_from_file(path, opts, reader_flags, NULL, NULL, NULL, err, errlen);
}

/*
 * Several traces as one analysis: their events in one time order (formats/merge.c), every
 * trace's times as they are (t = 0 taken as the same instant: true of the traces the fleet
 * records with one genesis and of its ranks' result traces, which start together).
 */
struct analysis *an_from_merge(const char *const *paths, unsigned int n,
			       const struct analyze_opts *opts, unsigned int reader_flags,
			       const char *group_by, char *err, size_t errlen)
{
	struct trace_merge *m = trace_merge__open(paths, n, NULL, reader_flags, 0, err, errlen);
	struct io_event *buf = NULL;
	struct analysis *a = NULL;
	uint64_t last = 0, damaged = 0;
	char name[256];
	size_t nb = 0;
	int ret = 0;

	if (!m)
		return NULL;
	/*
	 * A closed-loop trace (synthesized) has an order, not times: merged with a timed one its
	 * I/Os landed over the timed one's runtime and rates came out of nothing (issue 21 W9).
	 */
	for (unsigned int k = 1; k < n; k++) {
		const struct trace_meta *m0 = trace_reader__meta(trace_merge__reader(m, 0));
		const struct trace_meta *mk = trace_reader__meta(trace_merge__reader(m, k));

		if ((m0->mode == TRACE_MODE_CLOSED) == (mk->mode == TRACE_MODE_CLOSED))
			continue;
		snprintf(err, errlen, "--merge: %s is closed-loop (an order of I/Os, no times) and "
			 "%s is timed: they share no clock; replay the closed-loop trace (replay -o) "
			 "and merge its result", paths[m0->mode == TRACE_MODE_CLOSED ? 0 : k],
			 paths[m0->mode == TRACE_MODE_CLOSED ? k : 0]);
		trace_merge__close(m);
		errno = EINVAL;
		return NULL;
	}
	snprintf(name, sizeof(name), "%s + %u more", base_name(paths[0]), n - 1);
	a = analysis__new(opts, trace_merge__meta(m), name);
	buf = malloc(BATCH * sizeof(*buf));
	if (!a || !buf) {
		snprintf(err, errlen, "out of memory for the analysis");
		ret = -ENOMEM;
		goto out;
	}
	if (group_by && an_set_group_by(a, group_by)) {
		snprintf(err, errlen, "unknown --group-by '%s' (op, device, comm or pid)", group_by);
		ret = -EINVAL;
		goto out;
	}
	for (unsigned int k = 0; k < n; k++) {
		const struct trace_reader *r = trace_merge__reader(m, k);

		for (size_t i = 0; i < trace_reader__chunk_count(r); i++) {
			const struct trace_chunk_info *c = trace_reader__chunk(r, i);

			if (c && c->last_ns > last && c->last_ns != IO_TS_NONE)
				last = c->last_ns;
		}
	}
	an_span_hint(a, last);
	while ((ret = trace_merge__next(m, &buf[nb], NULL)) > 0) {
		if (++nb == BATCH) {
			analysis__add(a, buf, nb);
			nb = 0;
			if (cli_stop) {
				snprintf(err, errlen, "interrupted");
				ret = -EINTR;
				goto out;
			}
		}
	}
	if (ret < 0) {
		snprintf(err, errlen, "%s", trace_merge__error(m)); /* as above */
		goto out;
	}
	analysis__add(a, buf, nb);
	for (unsigned int k = 0; k < n; k++)
		damaged += trace_reader__damaged_chunks(trace_merge__reader(m, k));
	a->damaged_chunks = damaged;
out:
	free(buf);
	trace_merge__close(m);
	if (ret < 0) {
		analysis__free(a);
		errno = -ret;
		return NULL;
	}
	return a;
}
