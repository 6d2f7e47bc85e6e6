// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `ioreel info` of a file-level trace: calls per op and interface, the files (how many, open at
 * start, names only, without a path, their sizes at first sight, with --files each one), what the
 * recorder dropped and what it saw but could not record (its counters). Reads every event, so it
 * checks every chunk too.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "formats/convert.h"
#include "formats/info.h"
#include "util/cli.h"
#include "util/json.h"

struct finfo {
	uint64_t events, ops[IO_FOP__COUNT], op_bytes[IO_FOP__COUNT], iface[IO_FIF__COUNT];
	uint64_t errors, unfinished, first, last;
	uint64_t at_start, name_only, no_path, sparse, size, alloc;
	struct info_cpu cpu;
};

static void see(struct finfo *in, uint64_t t)
{
	if (t == IO_TS_NONE)
		return;
	if (t < in->first)
		in->first = t;
	if (t > in->last)
		in->last = t;
}

static int scan(struct trace_reader *r, struct finfo *in)
{
	static struct io_event ev[4096];
	static struct io_fext x[4096];
	long n;

	in->first = UINT64_MAX;
	while ((n = trace_reader__next_file(r, ev, x, 4096)) > 0) {
		for (long i = 0; i < n; i++) {
			in->ops[ev[i].op]++; /* the reader guarantees op < IO_FOP__COUNT */
			if (x[i].result > 0 && ev[i].op <= IO_FOP_WRITE)
				in->op_bytes[ev[i].op] += (uint64_t)x[i].result;
			in->iface[x[i].iface]++;
			in->errors += x[i].result < 0;
			in->unfinished +=
			    ev[i].complete_ns == IO_TS_NONE && x[i].iface != IO_FIF_START;
			see(in, ev[i].queue_ns);
			see(in, ev[i].complete_ns);
			info_cpu_see(&in->cpu, &ev[i]);
			info_cpu_wait(&in->cpu, &ev[i]);
		}
		in->events += n;
	}
	if (in->first == UINT64_MAX)
		in->first = in->last = 0;
	for (uint32_t id = 1; id <= trace_reader__file_count(r); id++) {
		const struct trace_file *f = trace_reader__file(r, id);

		in->at_start += !!(f->origin & TRACE_FILE_AT_START);
		in->name_only += !!(f->origin & TRACE_FILE_NAME_ONLY);
		in->no_path += !f->path[0];
		in->sparse += f->alloc < f->size;
		in->size += f->size;
		in->alloc += f->alloc;
	}
	return n < 0 ? (int)n : 0;
}

static const char *origin_text(uint32_t o)
{
	if (o & TRACE_FILE_AT_START)
		return "start";
	if (o & TRACE_FILE_OPENED)
		return "open";
	if (o & TRACE_FILE_NAME_ONLY)
		return "name";
	return "call";
}

static void print_files_text(struct trace_reader *r)
{
	printf("  %6s %10s %10s %5s %-6s %-5s %s\n", "id", "size", "allocated", "segs", "fs",
	       "seen", "path");
	for (uint32_t id = 1; id <= trace_reader__file_count(r); id++) {
		const struct trace_file *f = trace_reader__file(r, id);
		char b1[32], b2[32], segs[16] = "-";

		if (f->origin & TRACE_FILE_SEGS_KNOWN)
			snprintf(segs, sizeof(segs), "%u%s", f->nsegs,
				 f->origin & TRACE_FILE_SEGS_CUT ? "+" : "");
		printf("  %6u %10s %10s %5s %-6s %-5s %s%s\n", id,
		       fmt_bytes(f->size, b1, sizeof(b1)), fmt_bytes(f->alloc, b2, sizeof(b2)),
		       segs, f->fs[0] ? f->fs : "?", origin_text(f->origin),
		       f->path[0] ? f->path : "(path unknown)",
		       f->origin & TRACE_FILE_PATH_GUESS ? " (relative, joined later, unchecked)"
							 : "");
	}
}

static void print_text(const char *path, struct trace_reader *r, const struct finfo *in, bool files)
{
	const struct trace_meta *m = trace_reader__meta(r);
	const struct trace_stats *st = trace_reader__stats(r);
	uint64_t dur = in->last - in->first, fb = trace_reader__file_bytes(r), unc = 0;
	bool recorder = false;
	char b1[32], b2[32], when[64] = "unknown";
	time_t gen = m->genesis_realtime_ns / 1000000000ull;
	struct tm tm;

	if (m->genesis_realtime_ns && gmtime_r(&gen, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	printf("%s: ioreel trace, format %u.%u, file level, %s, %zu chunk%s, index %s\n", path,
	       m->version >> 16, m->version & 0xffff, fmt_bytes(fb, b1, sizeof(b1)),
	       trace_reader__chunk_count(r), trace_reader__chunk_count(r) == 1 ? "" : "s",
	       trace_reader__has_index(r) ? "present" : "ABSENT (read by scanning)");
	if (!m->header_checked)
		printf("  header     not checksummed (format %u.%u): damage to it cannot be told; "
		       "`ioreel convert` to a new .ioreel adds the checksum\n",
		       m->version >> 16, m->version & 0xffff);
	printf("  source     %s\n  recorded   %s on %s (%s) by %s\n",
	       m->source[0] ? m->source : "?", when, m->host[0] ? m->host : "?",
	       m->kernel[0] ? m->kernel : "?", m->tool_version[0] ? m->tool_version : "?");
	if (m->options[0])
		printf("  options    %s\n", m->options);
	printf("  calls      %" PRIu64 ":", in->events);
	for (int o = 0; o < IO_FOP__COUNT; o++) {
		if (!in->ops[o])
			continue;
		printf(" %s %" PRIu64, io_fop_name(o), in->ops[o]);
		if (o <= IO_FOP_WRITE)
			printf(" (%s)", fmt_bytes(in->op_bytes[o], b1, sizeof(b1)));
	}
	if (in->errors)
		printf(", %" PRIu64 " failed", in->errors);
	if (in->unfinished)
		printf(", %" PRIu64 " without a return", in->unfinished);
	printf("\n  via       ");
	for (int i = 0; i < IO_FIF__COUNT; i++)
		printf(" %s %" PRIu64, io_fiface_name(i), in->iface[i]);
	printf("\n  files      %zu (%" PRIu64 " open at start, %" PRIu64 " names only, %" PRIu64
	       " without a path, %" PRIu64 " sparse); at first sight %s, %s allocated\n",
	       trace_reader__file_count(r), in->at_start, in->name_only, in->no_path, in->sparse,
	       fmt_bytes(in->size, b1, sizeof(b1)), fmt_bytes(in->alloc, b2, sizeof(b2)));
	if (m->mode == TRACE_MODE_CLOSED) { /* synth's file-level jobs: times are an order */
		uint64_t depth = 0;

		for (uint32_t i = 0; i < m->nstreams && i < TRACE_MAX_STREAMS; i++)
			depth += m->streams[i].depth;
		printf("  times      an order, not a schedule: closed loop, %u stream%s keeping "
		       "%" PRIu64 " calls in flight at most", m->nstreams,
		       m->nstreams == 1 ? "" : "s", depth);
	} else {
		printf("  span       %s (%.9f s)", fmt_ns(dur, b1, sizeof(b1)), dur / 1e9);
		if (dur)
			printf(", mean %.0f calls/s", in->events * 1e9 / dur);
	}
	printf("\n  on disk    %s, %.2f bytes/event\n", fmt_bytes(fb, b1, sizeof(b1)),
	       in->events ? (double)fb / in->events : 0.0);
	if (st) {
		printf("  dropped    %" PRIu64 " (ring %" PRIu64 ", in-progress table %" PRIu64,
		       st->dropped, st->dropped_reserve, st->dropped_inflight);
		info_drop_causes(r, false, "dropped_pending");
		printf(")\n");
	} else
		printf("  dropped    unknown (%s)\n",
		       trace_reader__has_index(r) ? "the writer recorded no stats"
						  : "no index: the writer did not close the trace");
	info_paths(r);
	printf("  uncovered ");
	for (size_t i = 0; i < trace_reader__counter_count(r); i++) {
		const struct trace_counter *c = trace_reader__counter(r, i);

		if (!strncmp(c->name, "uncovered_", 10) && c->value) {
			printf(" %s %" PRIu64, c->name + 10, c->value);
			unc += c->value;
		}
		/* a replay's elastic counters are not a recorder's (a result trace has none) */
		recorder |= strncmp(c->name, "elastic_", 8) != 0;
	}
	printf("%s\n", unc ? "" : recorder ? " none" : " unknown (no counters)");
	info_cpu_print(r, (struct info_cpu *)&in->cpu, in->events, false);
	info_elastic(r, false);
	printf("  sorted     %s\n", trace_reader__is_sorted(r)
					? "yes (file order is time order)"
					: "no (calls longer than the recorder's hold)");
	if (trace_reader__damaged_chunks(r))
		printf("  damaged    %" PRIu64 " chunk(s) or frame(s) skipped (--salvage)\n",
		       trace_reader__damaged_chunks(r));
	if (files)
		print_files_text(r);
}

static void print_json(const char *path, struct trace_reader *r, const struct finfo *in, bool files)
{
	const struct trace_meta *m = trace_reader__meta(r);
	const struct trace_stats *st = trace_reader__stats(r);
	uint64_t dur = in->last - in->first, fb = trace_reader__file_bytes(r);

	printf("{\"file\": ");
	json_str(stdout, path);
	printf(", \"format_version\": \"%u.%u\", \"header_checksum\": %s, \"level\": \"file\", "
	       "\"source\": ", m->version >> 16, m->version & 0xffff,
	       m->header_checked ? "true" : "false");
	json_str(stdout, m->source);
	printf(", \"host\": ");
	json_str(stdout, m->host);
	printf(", \"kernel\": ");
	json_str(stdout, m->kernel);
	printf(", \"options\": ");
	json_str(stdout, m->options);
	printf(", \"genesis_realtime_ns\": %" PRIu64 ",\n \"events\": %" PRIu64 ", \"ops\": {",
	       m->genesis_realtime_ns, in->events);
	for (int o = 0; o < IO_FOP__COUNT; o++)
		printf("%s\"%s\": %" PRIu64, o ? ", " : "", io_fop_name(o), in->ops[o]);
	printf("}, \"read_bytes\": %" PRIu64 ", \"write_bytes\": %" PRIu64 ", \"interfaces\": {",
	       in->op_bytes[IO_FOP_READ], in->op_bytes[IO_FOP_WRITE]);
	for (int i = 0; i < IO_FIF__COUNT; i++)
		printf("%s\"%s\": %" PRIu64, i ? ", " : "", io_fiface_name(i), in->iface[i]);
	printf("}, ");
	info_cpu_print(r, (struct info_cpu *)&in->cpu, in->events, true);
	printf("\"errors\": %" PRIu64 ", \"unfinished\": %" PRIu64 ",\n \"first_ns\": %" PRIu64
	       ", \"last_ns\": %" PRIu64 ", \"duration_ns\": %" PRIu64 ", \"file_bytes\": %" PRIu64
	       ", \"bytes_per_event\": %.4f, \"chunks\": %zu, \"index\": %s, \"sorted\": %s, "
	       "\"damaged_chunks\": %" PRIu64 ",\n \"files\": %zu, \"files_at_start\": %" PRIu64
	       ", \"files_name_only\": %" PRIu64 ", \"files_without_path\": %" PRIu64
	       ", \"files_sparse\": %" PRIu64 ", \"size_at_first_sight\": %" PRIu64
	       ", \"allocated_at_first_sight\": %" PRIu64 ", ",
	       in->errors, in->unfinished, in->first, in->last, dur, fb,
	       in->events ? (double)fb / in->events : 0.0, trace_reader__chunk_count(r),
	       trace_reader__has_index(r) ? "true" : "false",
	       trace_reader__is_sorted(r) ? "true" : "false", trace_reader__damaged_chunks(r),
	       trace_reader__file_count(r), in->at_start, in->name_only, in->no_path, in->sparse,
	       in->size, in->alloc);
	if (st)
		printf("\"dropped\": %" PRIu64 ", ", st->dropped);
	else
		printf("\"dropped\": null, ");
	info_elastic(r, true);
	printf("\"counters\": {");
	for (size_t i = 0; i < trace_reader__counter_count(r); i++) {
		const struct trace_counter *c = trace_reader__counter(r, i);

		printf("%s", i ? ", " : "");
		json_str(stdout, c->name);
		printf(": %" PRIu64, c->value);
	}
	printf("}");
	if (files) {
		printf(",\n \"file_table\": [");
		for (uint32_t id = 1; id <= trace_reader__file_count(r); id++) {
			const struct trace_file *f = trace_reader__file(r, id);

			printf("%s\n  {\"id\": %u, \"path\": ", id > 1 ? "," : "", id);
			json_str(stdout, f->path);
			printf(", \"dev\": \"%u:%u\", \"ino\": %" PRIu64 ", \"generation\": %u, "
			       "\"mode\": %u, \"size\": %" PRIu64 ", \"allocated\": %" PRIu64
			       ", \"oflags\": %u, \"origin\": %u, \"first_ns\": %" PRIu64
			       ", \"fs\": ",
			       f->dev_major, f->dev_minor, f->ino, f->gen, f->mode, f->size,
			       f->alloc, f->oflags, f->origin, f->first_ns);
			json_str(stdout, f->fs);
			printf(", \"data_segments\": ");
			if (!(f->origin & TRACE_FILE_SEGS_KNOWN))
				printf("null");
			for (uint32_t k = 0; (f->origin & TRACE_FILE_SEGS_KNOWN) && k <= f->nsegs;
			     k++)
				if (k == f->nsegs)
					printf("%s]", k ? "" : "[");
				else
					printf("%s[%" PRIu64 ", %" PRIu64 "]", k ? ", " : "[",
					       f->segs[k].offset, f->segs[k].length);
			printf("}");
		}
		printf("]");
	}
	printf("}\n");
}

int info_file(const char *path, struct trace_reader *r, bool json, bool files)
{
	struct finfo in = {0};
	int err = scan(r, &in);

	if (err)
		return err;
	if (json)
		print_json(path, r, &in, files);
	else
		print_text(path, r, &in, files);
	return 0;
}
