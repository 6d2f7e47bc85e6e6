// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `ioreel info FILE`: what a trace holds (header, devices, counts per op, span, rates) and
 * what it costs on disk. Reads every event, so it also checks every chunk.
 *
 * A closed-loop trace (synthesized fio-like jobs) has no schedule: its queue times are the
 * events' positions in the file (synth/PRESETS.md), so a span and a mean rate of those would be
 * nonsense (800000 I/Os "in 800 us"). For it, info says what the replayer will do instead:
 * the streams and their depths, the I/Os of a pass, and how long the replay runs.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "formats/info.h"
#include "ioreel.h"
#include "util/cli.h"
#include "util/json.h"

struct info {
	uint64_t events, ops[IO_OP__COUNT], op_bytes[IO_OP__COUNT], errors;
	uint64_t first, last; /* earliest and latest timestamp present */
	uint64_t stream_ios[TRACE_MAX_STREAMS]; /* closed loop: I/Os of each stream in a pass */
	struct info_cpu cpu;
};

/* The trace's times are a schedule (timed), or only an order (closed loop). */
static bool is_scheduled(const struct trace_meta *m)
{
	return m->mode != TRACE_MODE_CLOSED;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ioreel info FILE [--json] [--salvage] [--files]\n"
		   "Describes a trace: header (source, host, kernel, options), devices, events per\n"
		   "op, time span, mean IOPS and bandwidth, chunks, bytes on disk per event, whether\n"
		   "the index was present (absent: the writer was killed) and dropped I/Os.\n"
		   "A closed-loop trace (ioreel synth without a rate) has no schedule: for it, info\n"
		   "gives the streams, their depths, the I/Os of a pass and how long a replay runs.\n"
		   "A file-level trace (record --level file): calls per op and interface, its files,\n"
		   "what was dropped and what was seen but not recorded (uncovered).\n\n"
		   "  --json      one JSON object on stdout\n"
		   "  --salvage   skip damaged chunks (counted) instead of failing\n"
		   "  --files     a file-level trace's files: size, allocation, holes, path\n\n"
		   "examples:\n"
		   "  ioreel info prod.ioreel\n"
		   "  ioreel info --json run-md1.ioreel | python3 -m json.tool\n"
		   "  ioreel info --salvage crashed.ioreel\n");
}

static void see(struct info *in, uint64_t t)
{
	if (t == IO_TS_NONE)
		return;
	if (t < in->first)
		in->first = t;
	if (t > in->last)
		in->last = t;
}

static int scan_events(struct trace_reader *r, struct info *in)
{
	static struct io_event buf[4096];
	long n;

	in->first = UINT64_MAX;
	while ((n = trace_reader__next(r, buf, 4096)) > 0) {
		for (long i = 0; i < n; i++) {
			const struct io_event *e = &buf[i];

			in->ops[e->op]++; /* the reader guarantees op < IO_OP__COUNT */
			in->op_bytes[e->op] += e->length;
			in->errors += e->error != 0;
			if (e->stream < TRACE_MAX_STREAMS)
				in->stream_ios[e->stream]++;
			see(in, e->queue_ns);
			see(in, e->issue_ns);
			see(in, e->complete_ns);
			info_cpu_see(&in->cpu, e);
		}
		in->events += n;
	}
	if (in->first == UINT64_MAX)
		in->first = in->last = 0;
	return n < 0 ? (int)n : 0;
}

static uint32_t nstreams(const struct trace_meta *m)
{
	return m->nstreams < TRACE_MAX_STREAMS ? m->nstreams : TRACE_MAX_STREAMS;
}

/* How a closed-loop replay ends (synth/PRESETS.md, the contract's points 3 and 4). */
static const char *closed_end(const struct trace_meta *m)
{
	if (m->time_based && m->runtime_ns)
		return "runtime";
	return m->runtime_ns ? "pass_or_runtime" : "pass";
}

static uint64_t closed_in_flight(const struct trace_meta *m)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < nstreams(m); i++)
		sum += m->streams[i].depth;
	return sum;
}

/* "8, depth 32 each" or "130: 2 at depth 16, 128 at depth 1", then the I/Os in flight. */
static void print_depths(const struct trace_meta *m)
{
	enum { SHOWN = 4 };
	uint32_t depth[SHOWN], count[SHOWN], distinct = 0, n = nstreams(m);
	bool more = false;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = 0;

		while (k < distinct && depth[k] != m->streams[i].depth)
			k++;
		if (k == distinct) {
			if (distinct == SHOWN) {
				more = true;
				continue;
			}
			depth[distinct] = m->streams[i].depth;
			count[distinct++] = 0;
		}
		count[k]++;
	}
	printf("%u", n);
	if (distinct == 1) {
		printf(", depth %u%s", depth[0], n == 1 ? "" : " each");
	} else if (distinct > 1) {
		for (uint32_t k = 0; k < distinct; k++)
			printf("%s%u at depth %u", k ? ", " : ": ", count[k], depth[k]);
		if (more)
			printf(", the rest at other depths");
	}
	printf(" (%llu I/Os in flight at most)", (unsigned long long)closed_in_flight(m));
}

static void print_closed(const struct trace_meta *m, const struct info *in, uint64_t bytes)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	char b1[32];

	printf("  times      an order, not a schedule: closed loop, each stream keeps its depth "
	       "in flight\n  streams    ");
	print_depths(m);
	for (uint32_t i = 0; i < nstreams(m); i++) {
		lo = in->stream_ios[i] < lo ? in->stream_ios[i] : lo;
		hi = in->stream_ios[i] > hi ? in->stream_ios[i] : hi;
	}
	printf("\n  one pass   %llu I/Os, %s", (unsigned long long)in->events,
	       fmt_bytes(bytes, b1, sizeof(b1)));
	if (hi && lo == hi)
		printf(" (%llu per stream)", (unsigned long long)hi);
	else if (hi)
		printf(" (%llu to %llu per stream)", (unsigned long long)lo,
		       (unsigned long long)hi);
	fmt_ns(m->runtime_ns, b1, sizeof(b1));
	if (!strcmp(closed_end(m), "runtime"))
		printf("\n  replay     runs %s, cycling the pass (time based)\n", b1);
	else if (!strcmp(closed_end(m), "pass_or_runtime"))
		printf("\n  replay     runs the pass once, for %s at most (runtime, not time "
		       "based)\n", b1);
	else
		printf("\n  replay     runs the pass once: how long is up to the target\n");
}

static void print_json_closed(const struct trace_meta *m, const struct info *in, uint64_t bytes)
{
	if (is_scheduled(m)) {
		printf("\"closed_loop\": null,\n");
		return;
	}
	printf("\"closed_loop\": {\"streams\": %u, \"in_flight\": %llu, \"pass_ios\": %llu, "
	       "\"pass_bytes\": %llu, \"ends\": \"%s\", \"runtime_ns\": %llu, \"stream_ios\": [",
	       nstreams(m), (unsigned long long)closed_in_flight(m),
	       (unsigned long long)in->events, (unsigned long long)bytes, closed_end(m),
	       (unsigned long long)m->runtime_ns);
	for (uint32_t i = 0; i < nstreams(m); i++)
		printf("%s%llu", i ? ", " : "", (unsigned long long)in->stream_ios[i]);
	printf("]},\n");
}

/* The block level's stale, unfinished, nested; the file level's aio, nested, holes. */
static void print_json(const char *path, struct trace_reader *r, const struct info *in)
{
	const struct trace_meta *m = trace_reader__meta(r);
	const struct trace_stats *st = trace_reader__stats(r);
	uint64_t dur = in->last - in->first, bytes = 0, fb = trace_reader__file_bytes(r);
	const char *notice = trace_reader__notice(r);

	for (int o = 0; o < IO_OP__COUNT; o++)
		bytes += in->op_bytes[o];
	printf("{\"file\": ");
	json_str(stdout, path);
	printf(", \"format_version\": \"%u.%u\", \"header_checksum\": %s, \"source\": ",
	       m->version >> 16, m->version & 0xffff, m->header_checked ? "true" : "false");
	json_str(stdout, m->source);
	printf(", \"mode\": \"%s\", \"time_based\": %s, \"runtime_ns\": %llu, \"host\": ",
	       m->mode == TRACE_MODE_CLOSED ? "closed" : "timed", m->time_based ? "true" : "false",
	       (unsigned long long)m->runtime_ns);
	json_str(stdout, m->host);
	printf(", \"kernel\": ");
	json_str(stdout, m->kernel);
	printf(", \"tool_version\": ");
	json_str(stdout, m->tool_version);
	printf(", \"options\": ");
	json_str(stdout, m->options);
	printf(", \"genesis_realtime_ns\": %llu,\n \"devices\": [",
	       (unsigned long long)m->genesis_realtime_ns);
	for (uint32_t i = 0; i < m->ndevices; i++) {
		const struct trace_device *d = &m->devices[i];

		printf("%s{\"index\": %u, \"name\": ", i ? ", " : "", i);
		json_str(stdout, d->name);
		printf(", \"major\": %u, \"minor\": %u, \"size_bytes\": ", d->major, d->minor);
		/* unknown (imported traces) is null, not a device of 0 bytes */
		if (d->size_bytes)
			printf("%llu", (unsigned long long)d->size_bytes);
		else
			printf("null");
		printf(", \"logical_block_size\": %u, \"physical_block_size\": %u, \"model\": ",
		       d->logical_block_size, d->physical_block_size);
		json_str(stdout, d->model);
		printf("}");
	}
	printf("],\n \"streams\": [");
	for (uint32_t i = 0; i < m->nstreams; i++)
		printf("%s%u", i ? ", " : "", m->streams[i].depth);
	printf("],\n \"stream_records\": [");
	for (uint32_t i = 0; i < m->nstreams; i++) {
		const struct trace_stream *t = &m->streams[i];

		printf("%s{\"depth\": %u, \"group\": %u, \"time_based\": %s, \"runtime_ns\": %llu, "
		       "\"ios\": %llu, \"delay_ns\": %llu, \"relative\": ",
		       i ? ", " : "", t->depth, t->group,
		       (t->flags & TRACE_STREAM_TIME_BASED) ? "true" : "false",
		       (unsigned long long)t->runtime_ns, (unsigned long long)t->ios,
		       (unsigned long long)t->delay_ns);
		if (t->flags & TRACE_STREAM_REL)
			printf("{\"base\": %llu, \"start_ppm\": %u, \"len_ppm\": %u, \"scaled\": "
			       "%s, \"span\": %llu, \"align\": %u}",
			       (unsigned long long)t->rel_base, t->rel_start_ppm, t->rel_len_ppm,
			       (t->flags & TRACE_STREAM_SCALE) ? "true" : "false",
			       (unsigned long long)t->rel_span, t->rel_align);
		else
			printf("null");
		if (t->flags & TRACE_STREAM_THINK)
			printf(", \"think\": {\"ns\": %llu, \"spin_ns\": %llu, "
			       "\"iotime_ns\": %llu, \"blocks\": %u, \"blocks_type\": \"%s\"}",
			       (unsigned long long)t->think_ns,
			       (unsigned long long)t->think_spin_ns,
			       (unsigned long long)t->think_iotime_ns, t->think_blocks,
			       (t->flags & TRACE_STREAM_THINK_ISSUE) ? "issue" : "complete");
		if (t->flags & TRACE_STREAM_LAT_TARGET)
			printf(", \"latency_target\": {\"ns\": %llu, \"window_ns\": %llu, "
			       "\"percentile\": %g, \"run\": %s}",
			       (unsigned long long)t->lat_target_ns,
			       (unsigned long long)t->lat_window_ns, t->lat_pct_ppm / 1e4,
			       (t->flags & TRACE_STREAM_LAT_RUN) ? "true" : "false");
		if (t->flags & TRACE_STREAM_BACK)
			printf(", \"back\": {\"add\": %u, \"step\": %u}", t->rel_back_add,
			       t->rel_back_step);
		if (t->flags & TRACE_STREAM_RATE)
			printf(", \"rate_bps\": [%llu, %llu, %llu]",
			       (unsigned long long)t->rate_bps[0],
			       (unsigned long long)t->rate_bps[1],
			       (unsigned long long)t->rate_bps[2]);
		if (t->flags & TRACE_STREAM_EXIT)
			printf(", \"exit\": {\"group\": %u, \"running\": %s}", t->exit_group,
			       (t->flags & TRACE_STREAM_EXIT_RUNNING) ? "true" : "false");
		printf("}");
	}
	printf("],\n \"events\": %llu, \"ops\": {", (unsigned long long)in->events);
	for (int o = 0; o < IO_OP__COUNT; o++)
		printf("%s\"%s\": %llu", o ? ", " : "", io_op_name(o),
		       (unsigned long long)in->ops[o]);
	printf("}, \"op_bytes\": {");
	for (int o = 0; o < IO_OP__COUNT; o++)
		printf("%s\"%s\": %llu", o ? ", " : "", io_op_name(o),
		       (unsigned long long)in->op_bytes[o]);
	printf("}, \"errors\": %llu,\n \"times\": \"%s\", ", (unsigned long long)in->errors,
	       is_scheduled(m) ? "schedule" : "order");
	if (is_scheduled(m))
		printf("\"first_ns\": %llu, \"last_ns\": %llu, \"duration_ns\": %llu, "
		       "\"iops\": %.3f, \"bandwidth_bytes_per_s\": %.3f, ",
		       (unsigned long long)in->first, (unsigned long long)in->last,
		       (unsigned long long)dur, dur ? in->events * 1e9 / dur : 0.0,
		       dur ? bytes * 1e9 / dur : 0.0);
	else /* positions in the file, not times: no span, no rate (see the top of this file) */
		printf("\"first_ns\": null, \"last_ns\": null, \"duration_ns\": null, "
		       "\"iops\": null, \"bandwidth_bytes_per_s\": null, ");
	print_json_closed(m, in, bytes);
	info_cpu_print(r, (struct info_cpu *)&in->cpu, in->events, true);
	printf(" \"file_bytes\": %llu, \"bytes_per_event\": %.4f, \"chunks\": %zu, \"index\": %s, "
	       "\"sorted\": %s, \"damaged_chunks\": %llu, ",
	       (unsigned long long)fb, in->events ? (double)fb / in->events : 0.0,
	       trace_reader__chunk_count(r), trace_reader__has_index(r) ? "true" : "false",
	       trace_reader__is_sorted(r) ? "true" : "false",
	       (unsigned long long)trace_reader__damaged_chunks(r));
	if (st) {
		printf("\"dropped\": %llu, \"dropped_reserve\": %llu, \"dropped_inflight\": %llu, "
		       "\"end_ns\": %llu, ",
		       (unsigned long long)st->dropped, (unsigned long long)st->dropped_reserve,
		       (unsigned long long)st->dropped_inflight, (unsigned long long)st->end_ns);
		info_drop_causes(r, true, "dropped_inflight");
		info_no_end(r, true);
	} else {
		printf("\"dropped\": null, \"dropped_reserve\": null, \"dropped_inflight\": null, "
		       "\"end_ns\": null, ");
	}
	info_elastic(r, true);
	printf("\"notice\": ");
	if (notice)
		json_str(stdout, notice);
	else
		printf("null");
	printf("}\n");
}

/* Closed-mode stream records that say more than a depth (format 1.1), a few lines at most. */
static void print_streams(const struct trace_meta *m)
{
	char b1[32], b2[32];
	uint32_t shown = 0;

	if (m->mode != TRACE_MODE_CLOSED)
		return;
	for (uint32_t i = 0; i < m->nstreams && shown < 8; i++) {
		const struct trace_stream *t = &m->streams[i];

		if (!t->group && !t->runtime_ns && !t->ios && !t->delay_ns && !t->flags)
			continue;
		printf("\n  stream %-3u depth %u, group %u", i, t->depth, t->group);
		if (t->runtime_ns)
			printf(", %s %s", (t->flags & TRACE_STREAM_TIME_BASED) ? "time based" :
										   "runtime",
			       fmt_ns(t->runtime_ns, b1, sizeof(b1)));
		if (t->ios)
			printf(", %llu I/Os", (unsigned long long)t->ios);
		if (t->delay_ns)
			printf(", starts after %s", fmt_ns(t->delay_ns, b2, sizeof(b2)));
		if (t->flags & TRACE_STREAM_REL) {
			printf(", region resolved at replay: from %llu B + %g%% of the target, ",
			       (unsigned long long)t->rel_base, t->rel_start_ppm / 1e4);
			if (t->rel_len_ppm)
				printf("%g%% of it long", t->rel_len_ppm / 1e4);
			else
				printf("to its end");
			if (t->flags & TRACE_STREAM_SCALE)
				printf(", offsets scaled");
			if (t->flags & TRACE_STREAM_BACK)
				printf(", walks back %u B per I/O from %u B before its end",
				       t->rel_back_step, t->rel_back_add);
		}
		if (t->flags & TRACE_STREAM_THINK) {
			printf(", thinks %s", fmt_ns(t->think_ns, b1, sizeof(b1)));
			if (t->think_spin_ns)
				printf(" (spins %s)", fmt_ns(t->think_spin_ns, b2, sizeof(b2)));
			if (t->think_blocks || !t->think_iotime_ns)
				printf(" every %u I/Os %s", t->think_blocks ? t->think_blocks : 1,
				       (t->flags & TRACE_STREAM_THINK_ISSUE) ? "issued"
									     : "completed");
			if (t->think_iotime_ns)
				printf(" %s %s of I/O", t->think_blocks ? "or" : "every",
				       fmt_ns(t->think_iotime_ns, b2, sizeof(b2)));
		}
		if (t->flags & TRACE_STREAM_LAT_TARGET) {
			printf(", latency target %s at %g%% ", fmt_ns(t->lat_target_ns, b1, sizeof(b1)),
			       t->lat_pct_ppm / 1e4);
			if (t->lat_window_ns)
				printf("over %s windows", fmt_ns(t->lat_window_ns, b2, sizeof(b2)));
			else
				printf("judged at each completion");
			if (t->flags & TRACE_STREAM_LAT_RUN)
				printf(", searched all run");
		}
		if (t->flags & TRACE_STREAM_RATE)
			printf(", at most %llu/%llu/%llu B/s (read/write/trim, 0: no cap)",
			       (unsigned long long)t->rate_bps[0],
			       (unsigned long long)t->rate_bps[1],
			       (unsigned long long)t->rate_bps[2]);
		if (t->flags & TRACE_STREAM_EXIT)
			printf(", its end ends %s", (t->flags & TRACE_STREAM_EXIT_RUNNING)
							? "every stream of its group"
							: "its exit group's streams");
		shown++;
	}
	if (shown == 8)
		printf("\n  ...");
}

static void print_text(const char *path, struct trace_reader *r, const struct info *in)
{
	const struct trace_meta *m = trace_reader__meta(r);
	const struct trace_stats *st = trace_reader__stats(r);
	uint64_t dur = in->last - in->first, bytes = 0, fb = trace_reader__file_bytes(r);
	char b1[32], b2[32], when[64] = "unknown";
	time_t gen = m->genesis_realtime_ns / 1000000000ull;
	struct tm tm;

	for (int o = 0; o < IO_OP__COUNT; o++)
		bytes += in->op_bytes[o];
	if (m->genesis_realtime_ns && gmtime_r(&gen, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	printf("%s: ioreel trace, format %u.%u, %s, %zu chunk%s, index %s\n", path,
	       m->version >> 16, m->version & 0xffff, fmt_bytes(fb, b1, sizeof(b1)),
	       trace_reader__chunk_count(r), trace_reader__chunk_count(r) == 1 ? "" : "s",
	       trace_reader__has_index(r) ? "present" : "ABSENT (read by scanning)");
	if (!m->header_checked)
		printf("  header     not checksummed (format %u.%u): damage to it cannot be told; "
		       "`ioreel convert` to a new .ioreel adds the checksum\n",
		       m->version >> 16, m->version & 0xffff);
	/* The trace's own timing, not a replay's --mode: a dep replay's result read
	 * "source replay:dep, mode timed". */
	printf("  source     %s, %s", m->source[0] ? m->source : "?",
	       m->mode == TRACE_MODE_CLOSED ? "closed-loop (a depth per stream)"
					    : "timed (each I/O at its time)");
	print_streams(m);
	printf("\n  recorded   %s on %s (%s) by %s\n", when, m->host[0] ? m->host : "?",
	       m->kernel[0] ? m->kernel : "?", m->tool_version[0] ? m->tool_version : "?");
	if (m->options[0])
		printf("  options    %s\n", m->options);
	for (uint32_t i = 0; i < m->ndevices; i++) {
		const struct trace_device *d = &m->devices[i];

		printf("  device %-3u %s %u:%u, %s, blocks %u/%u%s%s%s\n", i, d->name, d->major,
		       d->minor, d->size_bytes ? fmt_bytes(d->size_bytes, b1, sizeof(b1)) : "size unknown",
		       d->logical_block_size, d->physical_block_size, d->model[0] ? ", \"" : "",
		       d->model, d->model[0] ? "\"" : "");
	}
	printf("  events     %llu:", (unsigned long long)in->events);
	for (int o = 0; o < IO_OP__COUNT; o++)
		if (in->ops[o])
			printf(" %s %llu (%s)", io_op_name(o), (unsigned long long)in->ops[o],
			       fmt_bytes(in->op_bytes[o], b1, sizeof(b1)));
	if (in->errors)
		printf(", %llu with errors", (unsigned long long)in->errors);
	printf("\n");
	if (is_scheduled(m)) {
		printf("  span       %s (%.9f s)", fmt_ns(dur, b1, sizeof(b1)), dur / 1e9);
		if (dur)
			printf(", mean %.0f IOPS, %s/s", in->events * 1e9 / dur,
			       fmt_bytes((uint64_t)(bytes * 1e9 / dur), b2, sizeof(b2)));
		printf("\n");
	} else {
		print_closed(m, in, bytes);
	}
	printf("  on disk    %s, %.2f bytes/event\n", fmt_bytes(fb, b1, sizeof(b1)),
	       in->events ? (double)fb / in->events : 0.0);
	if (st) {
		printf("  dropped    %llu (ring buffer %llu, in-flight table %llu",
		       (unsigned long long)st->dropped, (unsigned long long)st->dropped_reserve,
		       (unsigned long long)st->dropped_inflight);
		info_drop_causes(r, false, "dropped_inflight");
		printf(")\n");
		info_no_end(r, false);
	} else
		printf("  dropped    unknown (%s)\n", trace_reader__has_index(r)
							? "the writer recorded no stats"
							: "no index: the writer did not close the trace");
	info_cpu_print(r, (struct info_cpu *)&in->cpu, in->events, false);
	info_elastic(r, false);
	printf("  sorted     %s\n", trace_reader__is_sorted(r) ? "yes (file order is time order)"
							 : "no");
	if (trace_reader__damaged_chunks(r))
		printf("  damaged    %llu chunk(s) skipped (--salvage)\n",
		       (unsigned long long)trace_reader__damaged_chunks(r));
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = { { "json", no_argument, NULL, 'j' },
					      { "salvage", no_argument, NULL, 's' },
					      { "files", no_argument, NULL, 'f' },
					      { "help", no_argument, NULL, 'h' },
					      { 0 } };
	bool json = false, files = false;
	unsigned int flags = 0;
	struct trace_reader *r;
	struct info in = { 0 };
	char why[600];
	int c, err;

	optind = 1;
	/* ':' first: getopt_long says nothing, cli_getopt_error says it in one line */
	while ((c = getopt_long(argc, argv, ":jsfh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'f':
			files = true;
			break;
		case 's':
			flags |= TRACE_SALVAGE;
			break;
		case 'h':
			usage(stdout);
			return cli_close_stdout(EXIT_OK);
		default:
			return cli_getopt_error(c, argv, opts, "info");
		}
	}
	if (optind != argc - 1) {
		cli_error("give one trace file (got %d)", argc - optind);
		cli_try_help("info");
		return EXIT_USAGE;
	}
	r = trace_reader__open(argv[optind], flags, why, sizeof(why));
	if (!r) {
		cli_error("%s", why);
		return EXIT_RUNTIME;
	}
	if (trace_reader__meta(r)->level == TRACE_LEVEL_FILE)
		err = info_file(argv[optind], r, json, files);
	else
		err = scan_events(r, &in);
	if (err) {
		cli_error("%s", trace_reader__error(r));
		trace_reader__close(r);
		return EXIT_RUNTIME;
	}
	if (trace_reader__notice(r) && !json)
		cli_warn("%s", trace_reader__notice(r));
	if (trace_reader__meta(r)->level == TRACE_LEVEL_FILE)
		; /* info_file() printed it */
	else if (json)
		print_json(argv[optind], r, &in);
	else
		print_text(argv[optind], r, &in);
	trace_reader__close(r);
	/* `info > /dev/full` is a failure, not a description nobody got */
	return cli_close_stdout(EXIT_OK);
}
