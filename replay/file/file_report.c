// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A file-level replay's own report, beside the analysis and the fidelity block: what was
 * recreated under --root before the clock, the calls per op (in the trace, reissued, failed on
 * the target, their latency), what was not reissued and why, and what the recording itself
 * says it missed. A reader compares "trace" with "replayed" per op to see that every call ran.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "replay/core/run.h"
#include "util/cli.h"
#include "util/json.h"

static const char *const fskip_names[FSKIP__COUNT] = {
    [FSKIP_FAILED] = "failed_in_recording",
    [FSKIP_NO_RESULT] = "unfinished_open",
    [FSKIP_NO_FILE] = "no_file",
    [FSKIP_MMAP] = "mmap",
    [FSKIP_TMPFILE] = "tmpfile",
    [FSKIP_RENAME_DST] = "rename_unknown_target",
    [FSKIP_SHARED] = "close_still_shared",
};

static const char *const fskip_text[FSKIP__COUNT] = {
    [FSKIP_FAILED] = "failed in the recording",
    [FSKIP_NO_RESULT] = "opens unfinished when the recording stopped",
    [FSKIP_NO_FILE] = "on no known file",
    [FSKIP_MMAP] = "shared mappings (their loads and stores were not recorded)",
    [FSKIP_TMPFILE] = "on O_TMPFILE files (no name to recreate)",
    [FSKIP_RENAME_DST] = "renames to a name the recording did not know",
    [FSKIP_SHARED] = "closes of a file another process still held (closed with the last)",
};

/* Ops a replay never reissues as such: they change its descriptor tables only. */
static bool is_bookkeeping(int op)
{
	return op == IO_FOP_FORK || op == IO_FOP_EXIT || op == IO_FOP_MMAP;
}

void replay_file_print(const struct replay_result *r, FILE *out)
{
	const struct replay_file_result *f = r->file;
	char a[32], b[32], c[32], d[32];
	bool any = false;

	if (!f)
		return;
	fprintf(out, "file level (under %s, standing for %s):\n", f->root, f->strip);
	fprintf(out,
		"  recreated: %llu files (%llu sparse as recorded, %llu empty names), %llu "
		"directories, %s of data in %s\n",
		(unsigned long long)f->files, (unsigned long long)f->files_sparse,
		(unsigned long long)f->files_empty, (unsigned long long)f->dirs,
		fmt_bytes(f->layout_bytes, a, sizeof(a)),
		fmt_ns(f->layout_ns, b, sizeof(b)));
	if (f->files_guess)
		fprintf(out,
			"  %llu files were sparse in the recording without their holes listed: "
			"recreated dense\n",
			(unsigned long long)f->files_guess);
	if (f->layout_conflicts)
		fprintf(out,
			"  %llu files shared a name with one recreated before them: not "
			"recreated\n",
			(unsigned long long)f->layout_conflicts);
	fprintf(out,
		"  descriptors opened before the clock: %llu open at start, %llu used "
		"without their open in the trace\n",
		(unsigned long long)f->opened_at_start, (unsigned long long)f->opened_unseen);
	fprintf(out, "  %-16s %10s %10s %8s %10s %10s %10s\n", "call", "in trace", "replayed",
		"failed", "mean", "p99", "max");
	for (int op = 0; op < IO_FOP__COUNT; op++) {
		const struct hist *h = &f->lat[op];

		if (!f->trace[op] && !f->replayed[op])
			continue;
		if (is_bookkeeping(op)) {
			fprintf(out, "  %-16s %10llu %10s\n", io_fop_name((unsigned int)op),
				(unsigned long long)f->trace[op], "-");
			continue;
		}
		fprintf(out, "  %-16s %10llu %10llu %8llu %10s %10s %10s\n",
			io_fop_name((unsigned int)op), (unsigned long long)f->trace[op],
			(unsigned long long)f->replayed[op], (unsigned long long)f->failed[op],
			fmt_ns((uint64_t)hist_mean(h), b, sizeof(b)),
			fmt_ns(hist_percentile(h, 99), c, sizeof(c)), fmt_ns(h->max, d, sizeof(d)));
	}
	for (int k = 0; k < FSKIP__COUNT; k++)
		if (f->skipped[k])
			fprintf(out, "  not reissued: %llu %s\n", (unsigned long long)f->skipped[k],
				fskip_text[k]);
	if (f->closes_implied)
		fprintf(out,
			"  %llu closes replayed where the recording saw a descriptor dropped "
			"without one (process exit, number reused)\n",
			(unsigned long long)f->closes_implied);
	if (f->not_open)
		fprintf(out, "  %llu calls on a descriptor whose open failed on the target\n",
			(unsigned long long)f->not_open);
	if (f->direct_refused)
		fprintf(out, "  %llu opens without the O_DIRECT the recording had (refused here)\n",
			(unsigned long long)f->direct_refused);
	if (f->short_reads)
		fprintf(out, "  %llu reads returned less than in the recording\n",
			(unsigned long long)f->short_reads);
	if (f->fd_mismatch)
		fprintf(out, "  %llu descriptors reused without the recording seeing them closed\n",
			(unsigned long long)f->fd_mismatch);
	if (r->mode == REPLAY_DEP)
		fprintf(out,
			"  dep: %llu cross-thread edges for a descriptor's open or a name's "
			"earlier call\n",
			(unsigned long long)f->res_edges);
	if (f->dropped && f->dropped != UINT64_MAX)
		fprintf(out, "  the recording dropped %llu calls: they are not replayed\n",
			(unsigned long long)f->dropped);
	for (unsigned int i = 0; i < f->ncounters; i++) {
		fprintf(out, "%s %s %llu",
			any ? "," : "  the recording could not see:", f->counters[i].name,
			(unsigned long long)f->counters[i].value);
		any = true;
	}
	if (any)
		fprintf(out, "\n");
}

/* Appends to buf at *n what fmt gives, never past len (the result is then cut short). */
static void put(char *buf, size_t len, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void put(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*n + 1 >= len)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	if (k > 0)
		*n += (size_t)k < len - *n ? (size_t)k : len - *n - 1;
}

int replay_file_json(const struct replay_result *r, char *buf, size_t len)
{
	const struct replay_file_result *f = r->file;
	char root[8192], strip[8192];
	size_t n = 0;

	if (!len)
		return 0;
	*buf = '\0';
	if (!f)
		return 0;
	json_str_buf(root, sizeof(root), f->root);
	json_str_buf(strip, sizeof(strip), f->strip);
	put(buf, len, &n,
	    ", \"file\": {\"root\": %s, \"strip\": %s, \"recreated\": {\"files\": %llu, "
	    "\"sparse\": %llu, \"empty_names\": %llu, \"dense_guess\": %llu, \"conflicts\": %llu, "
	    "\"dirs\": %llu, \"bytes\": %llu, \"ns\": %llu}, \"opened_at_start\": %llu, \"opened_unseen\": %llu, "
	    "\"ops\": {",
	    root, strip, (unsigned long long)f->files, (unsigned long long)f->files_sparse,
	    (unsigned long long)f->files_empty, (unsigned long long)f->files_guess,
	    (unsigned long long)f->layout_conflicts, (unsigned long long)f->dirs,
	    (unsigned long long)f->layout_bytes,
	    (unsigned long long)f->layout_ns, (unsigned long long)f->opened_at_start,
	    (unsigned long long)f->opened_unseen);
	for (int op = 0, first = 1; op < IO_FOP__COUNT; op++) {
		const struct hist *h = &f->lat[op];

		if (!f->trace[op] && !f->replayed[op])
			continue;
		put(buf, len, &n,
		    "%s\"%s\": {\"trace\": %llu, \"replayed\": %llu, \"failed\": %llu, "
		    "\"lat_ns\": {\"mean\": %.1f, \"p50\": %llu, \"p99\": %llu, \"max\": %llu}}",
		    first ? "" : ", ", io_fop_name((unsigned int)op),
		    (unsigned long long)f->trace[op], (unsigned long long)f->replayed[op],
		    (unsigned long long)f->failed[op], h->count ? hist_mean(h) : 0.0,
		    (unsigned long long)hist_percentile(h, 50),
		    (unsigned long long)hist_percentile(h, 99), (unsigned long long)h->max);
		first = 0;
	}
	put(buf, len, &n, "}, \"skipped\": {");
	for (int k = 0; k < FSKIP__COUNT; k++)
		put(buf, len, &n, "%s\"%s\": %llu", k ? ", " : "", fskip_names[k],
		    (unsigned long long)f->skipped[k]);
	put(buf, len, &n,
	    "}, \"closes_implied\": %llu, \"not_open\": %llu, \"direct_refused\": %llu, "
	    "\"short_reads\": %llu, \"fd_mismatch\": %llu, \"dep_edges\": %llu, "
	    "\"recording\": {\"dropped\": ",
	    (unsigned long long)f->closes_implied, (unsigned long long)f->not_open,
	    (unsigned long long)f->direct_refused, (unsigned long long)f->short_reads,
	    (unsigned long long)f->fd_mismatch, (unsigned long long)f->res_edges);
	if (f->dropped == UINT64_MAX)
		put(buf, len, &n, "null");
	else
		put(buf, len, &n, "%llu", (unsigned long long)f->dropped);
	put(buf, len, &n, ", \"counters\": {");
	for (unsigned int i = 0; i < f->ncounters; i++)
		put(buf, len, &n, "%s\"%s\": %llu", i ? ", " : "", f->counters[i].name,
		    (unsigned long long)f->counters[i].value);
	put(buf, len, &n, "}}}");
	return (int)n;
}
