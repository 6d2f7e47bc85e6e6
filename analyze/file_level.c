// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * File-level traces (record --level file, and the result traces of replay --root) in analyze.
 * Their reads and writes feed the fio-like summary as a device's would, and fsync, fdatasync
 * and sync_file_range as its flushes, all on one device named "files": so the summary, the
 * time series and --compare read them as they read a block trace (a file-level replay against
 * its recording, or against a block trace of the same run). What only a file-level trace
 * knows is kept beside: every call per op (open, rename, fsync apart from fdatasync, ...) with
 * its latency, and per file its calls, bytes and syncs.
 *
 * Latency of a call: completion - issue where the trace has an issue time (a replay's result:
 * the call's own time once handed to the engine), else completion - queue (a recording: the
 * system call from entry to exit; an iocb from io_submit to its reaping).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/analysis_int.h"
#include "util/cli.h"

#define TOP_FILES 20

struct an_ffile {
	uint64_t calls, rbytes, wbytes, syncs, sync_ns;
};

struct an_flevel {
	uint64_t calls[IO_FOP__COUNT], failed[IO_FOP__COUNT], bytes[IO_FOP__COUNT];
	struct hist lat[IO_FOP__COUNT];
	uint32_t nfiles;
	struct an_ffile *files; /* index = file id */
	char **paths;
};

static bool is_sync(unsigned int op)
{
	return op == IO_FOP_FSYNC || op == IO_FOP_FDATASYNC || op == IO_FOP_SYNC_RANGE;
}

int an_flevel_init(struct analysis *a, const struct trace_reader *r)
{
	struct an_flevel *fl = calloc(1, sizeof(*fl));

	if (!fl)
		return -ENOMEM;
	a->fl = fl;
	for (int op = 0; op < IO_FOP__COUNT; op++)
		hist_init(&fl->lat[op]);
	fl->nfiles = (uint32_t)trace_reader__file_count(r);
	fl->files = calloc(fl->nfiles + 1, sizeof(*fl->files));
	fl->paths = calloc(fl->nfiles + 1, sizeof(*fl->paths));
	if (!fl->files || !fl->paths)
		return -ENOMEM;
	for (uint32_t id = 1; id <= fl->nfiles; id++) {
		fl->paths[id] = strdup(trace_reader__file(r, id)->path);
		if (!fl->paths[id])
			return -ENOMEM;
	}
	/* the summary's one device, where the calls' reads, writes and syncs go */
	a->meta.ndevices = 1;
	memset(&a->meta.devices[0], 0, sizeof(a->meta.devices[0]));
	snprintf(a->meta.devices[0].name, sizeof(a->meta.devices[0].name), "files");
	snprintf(a->meta.devices[0].model, sizeof(a->meta.devices[0].model), "file-level calls");
	return 0;
}

void an_flevel_free(struct an_flevel *fl)
{
	if (!fl)
		return;
	for (uint32_t id = 0; fl->paths && id <= fl->nfiles; id++)
		free(fl->paths[id]);
	free(fl->paths);
	free(fl->files);
	free(fl);
}

void an_flevel_add(struct analysis *a, const struct io_event *ev, const struct io_fext *x, size_t n)
{
	struct an_flevel *fl = a->fl;
	struct io_event b[256];
	size_t nb = 0;

	for (size_t i = 0; i < n; i++) {
		const struct io_event *e = &ev[i];
		uint64_t t = io_event_time(e), start;
		unsigned int op = e->op;
		struct an_ffile *ff;

		if (op >= IO_FOP__COUNT || (x[i].iface == IO_FIF_START && op == IO_FOP_OPEN))
			continue; /* a descriptor open at start is not a call */
		if (t != IO_TS_NONE &&
		    (t < a->opts.from_ns || (a->opts.to_ns && t >= a->opts.to_ns)))
			continue;
		fl->calls[op]++;
		fl->failed[op] += x[i].result < 0;
		if (op <= IO_FOP_WRITE && x[i].result > 0)
			fl->bytes[op] += (uint64_t)x[i].result;
		start = e->issue_ns != IO_TS_NONE ? e->issue_ns : e->queue_ns;
		/* a fork or an exit is a moment, not a call: no latency (not "0 ns") */
		if (e->complete_ns != IO_TS_NONE && start != IO_TS_NONE && e->complete_ns >= start &&
		    op != IO_FOP_FORK && op != IO_FOP_EXIT)
			hist_add(&fl->lat[op], e->complete_ns - start);
		ff = x[i].file && x[i].file <= fl->nfiles ? &fl->files[x[i].file] : NULL;
		if (ff) {
			ff->calls++;
			if (op == IO_FOP_READ && x[i].result > 0)
				ff->rbytes += (uint64_t)x[i].result;
			if (op == IO_FOP_WRITE && x[i].result > 0)
				ff->wbytes += (uint64_t)x[i].result;
			if (is_sync(op)) {
				ff->syncs++;
				if (e->complete_ns != IO_TS_NONE && start != IO_TS_NONE &&
				    e->complete_ns >= start)
					ff->sync_ns += e->complete_ns - start;
			}
		}
		if (op > IO_FOP_WRITE && !is_sync(op))
			continue;
		/* to the summary, as a device's I/O (analysis__add applies the time filters) */
		b[nb] = *e;
		b[nb].op = op <= IO_FOP_WRITE ? (uint8_t)op : IO_OP_FLUSH;
		b[nb].length = op <= IO_FOP_WRITE ? e->length : 0;
		b[nb].dev = 0;
		b[nb].flags = 0;
		if (++nb == sizeof(b) / sizeof(b[0])) {
			analysis__add(a, b, nb);
			nb = 0;
		}
	}
	if (nb)
		analysis__add(a, b, nb);
}

static int by_calls(const void *pa, const void *pb, void *arg)
{
	const struct an_ffile *f = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return f[a].calls < f[b].calls ? 1 : f[a].calls > f[b].calls ? -1 : (a > b) - (a < b);
}

/* The files with calls, busiest first; their count in *n. NULL when out of memory. */
static uint32_t *busiest(const struct an_flevel *fl, uint32_t *n)
{
	uint32_t *ids = malloc((fl->nfiles + 1) * sizeof(*ids));

	*n = 0;
	if (!ids)
		return NULL;
	for (uint32_t id = 1; id <= fl->nfiles; id++)
		if (fl->files[id].calls)
			ids[(*n)++] = id;
	qsort_r(ids, *n, sizeof(*ids), by_calls, fl->files);
	return ids;
}

void an_flevel_print(const struct analysis *a, FILE *f)
{
	const struct an_flevel *fl = a->fl;
	char b1[32], b2[32], b3[32], b4[32];
	uint32_t n, *ids;

	if (!fl)
		return;
	fprintf(f, "\nFile-level calls (fsync, fdatasync and sync_file_range are the flushes "
		   "above):\n");
	fprintf(f, "  %-16s %10s %8s %10s %10s %10s %10s\n", "call", "calls", "failed", "bytes",
		"mean", "p99", "max");
	for (unsigned int op = 0; op < IO_FOP__COUNT; op++) {
		const struct hist *h = &fl->lat[op];

		if (!fl->calls[op])
			continue;
		fprintf(f, "  %-16s %10llu %8llu %10s %10s %10s %10s\n", io_fop_name(op),
			(unsigned long long)fl->calls[op], (unsigned long long)fl->failed[op],
			op <= IO_FOP_WRITE ? fmt_bytes(fl->bytes[op], b1, sizeof(b1)) : "-",
			h->count ? fmt_ns((uint64_t)hist_mean(h), b2, sizeof(b2)) : "-",
			h->count ? fmt_ns(hist_percentile(h, 99), b3, sizeof(b3)) : "-",
			h->count ? fmt_ns(h->max, b4, sizeof(b4)) : "-");
	}
	ids = busiest(fl, &n);
	if (!ids || !n) {
		free(ids);
		return;
	}
	fprintf(f, "  per file (busiest %u of %u):\n", n < TOP_FILES ? n : TOP_FILES, n);
	fprintf(f, "  %10s %10s %10s %7s %10s  %s\n", "calls", "read", "written", "syncs",
		"sync mean", "path");
	for (uint32_t k = 0; k < n && k < TOP_FILES; k++) {
		const struct an_ffile *ff = &fl->files[ids[k]];

		fprintf(f, "  %10llu %10s %10s %7llu %10s  %s\n", (unsigned long long)ff->calls,
			fmt_bytes(ff->rbytes, b1, sizeof(b1)),
			fmt_bytes(ff->wbytes, b2, sizeof(b2)), (unsigned long long)ff->syncs,
			ff->syncs ? fmt_ns(ff->sync_ns / ff->syncs, b3, sizeof(b3)) : "-",
			fl->paths[ids[k]][0] ? fl->paths[ids[k]] : "(path unknown)");
	}
	free(ids);
}

/* `{"trace": ..., "ops": {...}, "files": [...]}` of one analysis (every file with calls). */
void an_flevel_json(const struct analysis *a, FILE *f)
{
	const struct an_flevel *fl = a->fl;
	uint32_t n, *ids;
	bool first = true;

	fprintf(f, "{\"trace\": ");
	json_str(f, a->name);
	fprintf(f, ", \"ops\": {");
	for (unsigned int op = 0; op < IO_FOP__COUNT; op++) {
		const struct hist *h = &fl->lat[op];

		if (!fl->calls[op])
			continue;
		fprintf(f,
			"%s\"%s\": {\"calls\": %llu, \"failed\": %llu, \"bytes\": %llu, "
			"\"lat_ns\": {\"mean\": %.1f, \"p50\": %llu, \"p99\": %llu, \"max\": %llu, "
			"\"count\": %llu}}",
			first ? "" : ", ", io_fop_name(op), (unsigned long long)fl->calls[op],
			(unsigned long long)fl->failed[op], (unsigned long long)fl->bytes[op],
			h->count ? hist_mean(h) : 0.0, (unsigned long long)hist_percentile(h, 50),
			(unsigned long long)hist_percentile(h, 99), (unsigned long long)h->max,
			(unsigned long long)h->count);
		first = false;
	}
	fprintf(f, "}, \"files\": [");
	ids = busiest(fl, &n);
	for (uint32_t k = 0; ids && k < n; k++) {
		const struct an_ffile *ff = &fl->files[ids[k]];

		fprintf(f, "%s{\"id\": %u, \"path\": ", k ? ", " : "", ids[k]);
		json_str(f, fl->paths[ids[k]]);
		fprintf(f,
			", \"calls\": %llu, \"read_bytes\": %llu, \"write_bytes\": %llu, "
			"\"syncs\": %llu, \"sync_ns_mean\": %.1f}",
			(unsigned long long)ff->calls, (unsigned long long)ff->rbytes,
			(unsigned long long)ff->wbytes, (unsigned long long)ff->syncs,
			ff->syncs ? (double)ff->sync_ns / (double)ff->syncs : 0.0);
	}
	free(ids);
	fprintf(f, "]}");
}
