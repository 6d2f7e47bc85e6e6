// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The replay's own report: how closely it kept the schedule, and what it changed. */
#include <stdio.h>
#include <string.h>
#include "formats/event.h"
#include "replay/core/run.h"
#include "util/cli.h"
#include "util/json.h"

static uint64_t dep_total(const struct replay_result *r)
{
	uint64_t n = 0;

	for (int k = 0; k < DEP__KINDS; k++)
		n += r->dep_released[k];
	return n;
}

/* How the I/Os were released, and how far behind the trace's clock the target held them. */
static void dep_print(const struct replay_result *r, FILE *out)
{
	uint64_t n = dep_total(r);
	char a[32], b[32], c[32];

	fprintf(out, "  released after:");
	for (int k = 0; k < DEP__KINDS; k++)
		if (r->dep_released[k])
			fprintf(out, " %s %.1f%%", dep_kind_name((unsigned int)k),
				n ? 100.0 * (double)r->dep_released[k] / (double)n : 0.0);
	fprintf(out, " (of %llu I/Os, %llu threads, %llu I/Os by kernel threads)\n",
		(unsigned long long)n, (unsigned long long)r->dep.streams,
		(unsigned long long)r->dep.kthread);
	fprintf(out, "  edges: %llu sync, %llu async, %llu barrier, %llu overlap, %llu wait; "
		     "%llu beyond the window dropped\n",
		(unsigned long long)r->dep.edges[DEP_SYNC],
		(unsigned long long)r->dep.edges[DEP_ASYNC],
		(unsigned long long)r->dep.edges[DEP_BARRIER],
		(unsigned long long)r->dep.edges[DEP_OVERLAP],
		(unsigned long long)r->dep.edges[DEP_WAIT], (unsigned long long)r->dep.dropped_far);
	fprintf(out, "  stall (release - trace time): p50=%s, p99=%s, max=%s over %llu I/Os; %llu "
		     "released ahead of the trace\n",
		fmt_ns(hist_percentile(&r->stall, 50), a, sizeof(a)),
		fmt_ns(hist_percentile(&r->stall, 99), b, sizeof(b)),
		fmt_ns(r->stall.max, c, sizeof(c)), (unsigned long long)r->stall.count,
		(unsigned long long)r->ahead);
	fprintf(out, "  held to their thread's recorded depth: %llu times\n",
		(unsigned long long)r->held_depth);
	if (r->kthread_progress)
		fprintf(out, "  kernel threads on the application's clock (--dep-kthread-clock "
			     "progress): %llu I/Os held, %s each on average\n",
			(unsigned long long)r->kthread_paced,
			fmt_ns(r->kthread_paced ? r->kthread_pace_ns / r->kthread_paced : 0, a,
			       sizeof(a)));
	if (r->writer_clock)
		fprintf(out, "  timed writers (--dep-writer-clock trace): %llu I/Os of threads that "
			     "only write kept their own clock\n",
			(unsigned long long)r->dep.writer);
	if (r->chained)
		fprintf(out, "  chained: %llu I/Os (%.1f %%) made by their thread's worker after "
			     "its previous one, without the scheduling thread\n",
			(unsigned long long)r->chained,
			n ? 100.0 * (double)r->chained / (double)n : 0.0);
	if (r->wake.on)
		fprintf(out, "  dated wake-ups (--dep-date-wakes): %llu completions the scheduling "
			     "thread slept until taken %s earlier on average (its wake-up latency, "
			     "%s at the end, from %llu timed waits)\n",
			(unsigned long long)r->wake.dated,
			fmt_ns(r->wake.dated ? r->wake.dated_ns / r->wake.dated : 0, a, sizeof(a)),
			fmt_ns(r->wake.late_ns, b, sizeof(b)), (unsigned long long)r->wake.samples);
	if (r->wbt.on) {
		const struct wbt_report *w = &r->wbt;

		fprintf(out, "  writeback throttle (--dep-wbt, aiming at reads within %s, %u "
			     "requests, %s): of %llu writeback writes %llu waited for it (their "
			     "thread's later ones behind them), %s each on average; background "
			     "depth %u-%u, at most %u in flight; %llu of %llu windows over the "
			     "latency\n",
			fmt_ns(w->lat_ns, a, sizeof(a)), w->queue_depth,
			w->write_cache ? "write back" : "write through",
			(unsigned long long)w->throttled, (unsigned long long)w->held,
			fmt_ns(w->held ? w->held_ns / w->held : 0, b, sizeof(b)), w->bg_min,
			w->bg_max, w->max_inflight, (unsigned long long)w->exceeded,
			(unsigned long long)w->windows);
	}
	dep_elastic_print(&r->elastic, (unsigned long long)r->dep.flushes,
			  (unsigned long long)r->dep.redundant, out);
}

/* `"dep": {...}` for the JSON fidelity block (leading ", "), or "" outside dep mode. */
static void dep_json(const struct replay_result *r, char *buf, size_t len)
{
	uint64_t n = dep_total(r);
	const struct hist *s = &r->stall;
	size_t k = 0;

	*buf = '\0';
	if (r->mode != REPLAY_DEP)
		return;
	k += (size_t)snprintf(buf + k, len - k, ", \"dep\": {\"released\": {");
	for (int i = 0; i < DEP__KINDS && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s\"%s\": %llu", i ? ", " : "",
				      dep_kind_name((unsigned int)i),
				      (unsigned long long)r->dep_released[i]);
	if (k < len)
		k += (size_t)snprintf(buf + k, len - k, "}, \"edges\": {");
	for (int i = 1; i < DEP__KINDS && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s\"%s\": %llu", i > 1 ? ", " : "",
				      dep_kind_name((unsigned int)i),
				      (unsigned long long)r->dep.edges[i]);
	if (k < len)
		snprintf(buf + k, len - k,
			 "}, \"no_dependency_share\": %.6f, \"threads\": %llu, "
			 "\"kthread_ios\": %llu, \"no_completion\": %llu, \"dropped_far\": %llu, "
			 "\"stall_ns\": {\"p50\": %llu, "
			 "\"p99\": %llu, \"max\": %llu, \"mean\": %.1f, \"count\": %llu}, "
			 "\"ahead\": %llu, \"held_depth\": %llu, \"window_full\": %llu, "
			 "\"chained\": %llu, \"kthread_clock\": \"%s\", \"kthread_paced\": %llu, "
			 "\"kthread_pace_ns\": %llu, \"writer_clock\": \"%s\", "
			 "\"writer_ios\": %llu, \"wbt\": {\"on\": %s, \"lat_ns\": %llu, \"queue_depth\": %u, "
			 "\"write_cache\": %s, \"throttled\": %llu, \"held\": %llu, "
			 "\"held_ns\": %llu, \"windows\": %llu, \"exceeded\": %llu, "
			 "\"background_min\": %u, \"background_max\": %u, "
			 "\"max_inflight\": %u}, \"date_wakes\": {\"on\": %s, \"dated\": %llu, "
			 "\"dated_ns\": %llu, \"wake_late_ns\": %llu, \"clip_ns\": %llu, "
			 "\"samples\": %llu}}",
			 n ? (double)r->dep_released[DEP_OPEN] / (double)n : 0.0,
			 (unsigned long long)r->dep.streams, (unsigned long long)r->dep.kthread,
			 (unsigned long long)r->dep.no_completion,
			 (unsigned long long)r->dep.dropped_far,
			 (unsigned long long)hist_percentile(s, 50),
			 (unsigned long long)hist_percentile(s, 99), (unsigned long long)s->max,
			 hist_mean(s), (unsigned long long)s->count, (unsigned long long)r->ahead,
			 (unsigned long long)r->held_depth, (unsigned long long)r->window_full,
			 (unsigned long long)r->chained, r->kthread_progress ? "progress" : "trace",
			 (unsigned long long)r->kthread_paced,
			 (unsigned long long)r->kthread_pace_ns, r->writer_clock ? "trace" : "deps",
			 (unsigned long long)r->dep.writer, r->wbt.on ? "true" : "false",
			 (unsigned long long)r->wbt.lat_ns, r->wbt.queue_depth,
			 r->wbt.write_cache ? "true" : "false",
			 (unsigned long long)r->wbt.throttled,
			 (unsigned long long)r->wbt.held, (unsigned long long)r->wbt.held_ns,
			 (unsigned long long)r->wbt.windows, (unsigned long long)r->wbt.exceeded,
			 r->wbt.bg_min, r->wbt.bg_max, r->wbt.max_inflight,
			 r->wake.on ? "true" : "false", (unsigned long long)r->wake.dated,
			 (unsigned long long)r->wake.dated_ns, (unsigned long long)r->wake.late_ns,
			 WAKE_LATE_CLIP_NS, (unsigned long long)r->wake.samples);
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0.0;
}

/* Never-written space the trace read (prefill.c), where it could be told or was prefilled. */
static void unwritten_print(const struct replay_result *r, FILE *out)
{
	char a[32], b[32], c[32];

	for (int i = 0; i < REPLAY_MAX_TARGETS; i++) {
		const struct replay_unwritten *u = &r->unwritten[i];

		if (!u->path || (!u->method && !u->prefilled_bytes))
			continue;
		fprintf(out, "  never written: ");
		if (u->method)
			fprintf(out, "%s%.1f%% of the %s read on %s (%s)",
				u->lower_bound ? "at least " : "",
				100 * share(u->start_bytes, u->region_bytes),
				fmt_bytes(u->region_bytes, a, sizeof(a)), u->path, u->method);
		else
			fprintf(out, "unknown on %s", u->path);
		if (u->prefilled_bytes)
			fprintf(out, ", after a prefill of %s in %s",
				fmt_bytes(u->prefilled_bytes, b, sizeof(b)),
				fmt_ns(u->prefill_ns, c, sizeof(c)));
		if (u->prefilled_bytes && u->method)
			fprintf(out, " (%.1f%% before)", 100 * share(u->found_bytes, u->region_bytes));
		fprintf(out, "\n");
	}
}

/* ", \"targets\": [...]": what each target read that was never written, and the prefill. */
static size_t unwritten_json(const struct replay_result *r, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, ", \"targets\": [");
	bool first = true;

	for (int i = 0; i < REPLAY_MAX_TARGETS && n < len; i++) {
		const struct replay_unwritten *u = &r->unwritten[i];
		char one[8704], path[8192], now[32] = "null", found[32] = "null";
		int k;

		if (!u->path)
			continue;
		if (u->method) {
			snprintf(now, sizeof(now), "%.6f", share(u->start_bytes, u->region_bytes));
			snprintf(found, sizeof(found), "%.6f", share(u->found_bytes, u->region_bytes));
		}
		json_str_buf(path, sizeof(path), u->path);
		k = snprintf(one, sizeof(one),
			     "%s{\"path\": %s, \"read_region_bytes\": %llu, \"unwritten_method\": "
			     "\"%s\", \"unwritten_lower_bound\": %s, \"unwritten_share\": %s, "
			     "\"unwritten_share_found\": %s, \"prefilled_bytes\": %llu, "
			     "\"prefill_ns\": %llu}",
			     first ? "" : ", ", path, (unsigned long long)u->region_bytes,
			     u->method ? u->method : "none", u->lower_bound ? "true" : "false", now,
			     found, (unsigned long long)u->prefilled_bytes,
			     (unsigned long long)u->prefill_ns);
		if (k < 0 || n + (size_t)k + 2 >= len)
			break; /* no room for more: the list ends shorter, still valid */
		memcpy(buf + n, one, (size_t)k + 1);
		n += (size_t)k;
		first = false;
	}
	if (n + 2 <= len)
		n += (size_t)snprintf(buf + n, len - n, "]");
	return n;
}

/* A dep replay this much longer than its whole trace says what --runtime trace would give. */
#define DEP_LONG_STRETCH 0.5

/* The modes that follow the trace's clock: lateness, stretch, how far a --runtime got. */
static bool clocked_mode(const struct replay_result *r)
{
	return r->mode == REPLAY_TIMED || r->mode == REPLAY_DEP;
}

/* Closed mode: fio's think time and the depths its latency targets found. */
static void closed_print(const struct replay_result *r, FILE *out)
{
	char a[32];

	if (r->chained && r->mode == REPLAY_CLOSED)
		fprintf(out, "  chained: %llu I/Os made by their stream's worker as the one before "
			     "completed, without the scheduling thread\n",
			(unsigned long long)r->chained);
	if (r->thinks)
		fprintf(out, "  think time: %llu pauses, %s in all (as fio's thinktime)\n",
			(unsigned long long)r->thinks, fmt_ns(r->think_ns, a, sizeof(a)));
	for (uint32_t i = 0; i < r->nlat && i < REPLAY_MAX_LAT_STREAMS; i++) {
		const struct replay_lat_result *l = &r->lat[i];

		fprintf(out, "  latency target: stream %u at depth %u of %u after %u windows (%s)",
			l->stream, l->depth, l->max_depth, l->windows,
			l->missed ? "missed even at depth 1" :
			l->settled ? "settled" : "still searching when the run ended");
		if (l->found != l->depth)
			fprintf(out, "; deepest that met it: %u", l->found);
		fprintf(out, "\n");
	}
	if (r->nlat > REPLAY_MAX_LAT_STREAMS)
		fprintf(out, "  latency target: %u more streams not shown\n",
			r->nlat - REPLAY_MAX_LAT_STREAMS);
}

static size_t closed_json(const struct replay_result *r, char *buf, size_t len)
{
	size_t n = 0;

	if (len < 2)
		return 0;
	n += (size_t)snprintf(buf, len,
			      ", \"chained\": %llu, \"thinks\": %llu, \"think_ns\": %llu, "
			      "\"latency_target\": [",
			      (unsigned long long)r->chained, (unsigned long long)r->thinks,
			      (unsigned long long)r->think_ns);
	for (uint32_t i = 0; i < r->nlat && i < REPLAY_MAX_LAT_STREAMS && n < len; i++) {
		const struct replay_lat_result *l = &r->lat[i];

		n += (size_t)snprintf(buf + n, len - n,
				      "%s{\"stream\": %u, \"depth\": %u, \"found\": %u, "
				      "\"max_depth\": %u, \"windows\": %u, \"settled\": %s, "
				      "\"missed\": %s}",
				      i ? ", " : "", l->stream, l->depth, l->found, l->max_depth,
				      l->windows, l->settled ? "true" : "false",
				      l->missed ? "true" : "false");
	}
	if (n < len)
		n += (size_t)snprintf(buf + n, len - n, "]");
	return n < len ? n : len - 1;
}

void replay_fidelity_print(const struct replay_result *r, FILE *out)
{
	char a[32], b[32], c[32], d[32], e[32];

	bool clocked = clocked_mode(r);
	char sp[48] = "";

	if (clocked)
		snprintf(sp, sizeof(sp), ", spin %s", r->spin_ns ? fmt_ns(r->spin_ns, a, sizeof(a))
								 : "none");
	fprintf(out, "replay fidelity (%s mode, %s engine%s):\n", replay_mode_name(r->mode),
		r->engine, sp);
	if (r->writeback_writes)
		fprintf(out, "  %llu writes made as the kernel's writeback (--async-writes "
			     "writeback: through the page cache, written back at once)\n",
			(unsigned long long)r->writeback_writes);

	if (clocked && r->lateness.count) {
		fprintf(out,
			"  lateness (submit - %s): p50=%s, p99=%s, p99.9=%s, max=%s, "
			"mean=%s\n",
			r->mode == REPLAY_DEP ? "release" : "deadline",
			fmt_ns(hist_percentile(&r->lateness, 50), a, sizeof(a)),
			fmt_ns(hist_percentile(&r->lateness, 99), b, sizeof(b)),
			fmt_ns(hist_percentile(&r->lateness, 99.9), c, sizeof(c)),
			fmt_ns(r->lateness.max, d, sizeof(d)),
			fmt_ns((uint64_t)hist_mean(&r->lateness), e, sizeof(e)));
		fprintf(out, "  later than 100us: %.3f%% (%llu of %llu I/Os)\n",
			r->lateness.count ? 100.0 * (double)r->late_100us / (double)r->lateness.count
					  : 0.0,
			(unsigned long long)r->late_100us, (unsigned long long)r->lateness.count);
	}
	if (r->mode == REPLAY_DEP)
		dep_print(r, out);
	if (clocked)
		fprintf(out, "  duration: replay %s vs trace %s%s, stretch %+.3f%%\n",
			fmt_ns(r->replay_span_ns, a, sizeof(a)),
			fmt_ns(stretch_base_ns(r), b, sizeof(b)),
			stretch_cut(r) ? " (the part --runtime reached)" : "",
			100.0 * r->stretch);
	else /* afap and closed ignore the trace's times: no stretch to speak of */
		fprintf(out, "  duration: replay %s (%.0f I/Os per second)\n",
			fmt_ns(r->replay_span_ns, a, sizeof(a)),
			r->replay_span_ns ? (double)r->ios * 1e9 / (double)r->replay_span_ns : 0.0);
	/* A dep replay of a whole trace onto a much slower stack spreads the recording's mix
	 * (a cold start's warm-up, say) over a longer run than the workload would have had there
	 * if it runs for a set time: bench/predict.sh's B read x0.77 of the real IOPS so, x0.91-1.01
	 * cut at the trace's span (bench/PREDICTION.md, "A time-bound benchmark"). Said, not
	 * decided: a batch job does run all of its I/O. */
	if (r->mode == REPLAY_DEP && !r->runtime_ns && r->stretch > DEP_LONG_STRETCH)
		fprintf(out, "  the replay ran %.1fx as long as the trace: for a workload that runs "
			     "for a set time (a service over the recorded window, pgbench -T), "
			     "--runtime trace gives its rates over that span\n",
			1.0 + r->stretch);
	fprintf(out, "  in flight: max %llu of %llu allowed, cap hit %llu times; decoder behind "
		     "%llu times\n",
		(unsigned long long)r->max_inflight_seen, (unsigned long long)r->inflight_cap,
		(unsigned long long)r->cap_hits,
		(unsigned long long)r->starved);
	if (r->buffer_waits)
		fprintf(out, "  write buffers: %llu writes waited for one (--write-data pattern keeps "
			     "a bounded pool)\n",
			(unsigned long long)r->buffer_waits);
	if (r->remapped || r->realigned || r->converted)
		fprintf(out, "  changed: %llu offsets wrapped/scaled, %llu realigned to the block "
			     "size, %llu writes as reads\n",
			(unsigned long long)r->remapped, (unsigned long long)r->realigned,
			(unsigned long long)r->converted);
	for (int op = 0; op < 5; op++)
		if (r->skipped[op])
			fprintf(out, "  skipped: %llu %s\n", (unsigned long long)r->skipped[op],
				io_op_name((unsigned int)op));
	if (r->errors)
		fprintf(out, "  errors: %llu I/Os failed, first: %s at offset %llu\n",
			(unsigned long long)r->errors, strerror(-r->first_error),
			(unsigned long long)r->first_error_offset);
	if (r->runtime_ns) {
		fprintf(out, "  runtime: %s (--runtime), %s", fmt_ns(r->runtime_ns, a, sizeof(a)),
			r->runtime_hit ? "stopped there with I/Os left" : "the trace ended first");
		/* only timed and dep follow the trace's clock: how far along it they got, and
		 * the pace against the recording's (a time-bound benchmark's slowdown) */
		if (clocked)
			fprintf(out, "; the trace's time reached %s of %s",
				fmt_ns(r->trace_reached_ns, b, sizeof(b)),
				fmt_ns(r->trace_span_ns, c, sizeof(c)));
		if (clocked && r->runtime_hit && r->trace_reached_ns)
			fprintf(out, " (x%.2f the recorded pace)",
				(double)r->trace_reached_ns / (double)r->runtime_ns);
		fprintf(out, "\n");
	}
	closed_print(r, out);
	unwritten_print(r, out);
}

int replay_fidelity_json(const struct replay_result *r, char *buf, size_t len)
{
	const struct hist *h = &r->lateness;
	bool clocked = clocked_mode(r);
	bool timed = clocked && h->count;
	char stretch[32] = "null"; /* only timed and dep replays have a duration to compare */
	char spin[32] = "null";	   /* and a spin before their deadlines */
	char dep[4096]; /* dep_json's ~55 numbers, each up to 20 digits, and their keys */

	if (clocked) {
		snprintf(stretch, sizeof(stretch), "%.6f", r->stretch);
		snprintf(spin, sizeof(spin), "%llu", (unsigned long long)r->spin_ns);
	}
	dep_json(r, dep, sizeof(dep));

	int n = snprintf(
		buf, len,
		"\"fidelity\": {\"mode\": \"%s\", \"engine\": \"%s\", \"writeback_writes\": %llu, "
		"\"spin_ns\": %s, "
		"\"lateness_ns\": {\"p50\": %llu, \"p99\": %llu, \"p999\": %llu, \"max\": %llu, "
		"\"mean\": %.1f}, \"late_100us_share\": %.6f, \"stretch\": %s, "
		"\"trace_span_ns\": %llu, \"replay_span_ns\": %llu, \"ios\": %llu, "
		"\"errors\": %llu, \"interrupted\": %s, \"cap_hits\": %llu, \"max_inflight\": %llu, \"inflight_cap\": %llu, "
		"\"buffer_waits\": %llu, "
		"\"decoder_behind\": %llu, \"remapped\": %llu, \"realigned\": %llu, "
		"\"writes_as_reads\": %llu, \"skipped\": {\"read\": %llu, \"write\": %llu, "
		"\"flush\": %llu, \"discard\": %llu, \"write-zeroes\": %llu}%s",
		replay_mode_name(r->mode), r->engine, (unsigned long long)r->writeback_writes, spin,
		(unsigned long long)(timed ? hist_percentile(h, 50) : 0),
		(unsigned long long)(timed ? hist_percentile(h, 99) : 0),
		(unsigned long long)(timed ? hist_percentile(h, 99.9) : 0),
		(unsigned long long)(timed ? h->max : 0), timed ? hist_mean(h) : 0.0,
		timed ? (double)r->late_100us / (double)h->count : 0.0, stretch,
		(unsigned long long)r->trace_span_ns, (unsigned long long)r->replay_span_ns,
		(unsigned long long)r->ios, (unsigned long long)r->errors,
		r->interrupted ? "true" : "false", (unsigned long long)r->cap_hits, (unsigned long long)r->max_inflight_seen,
		(unsigned long long)r->inflight_cap, (unsigned long long)r->buffer_waits,
		(unsigned long long)r->starved, (unsigned long long)r->remapped,
		(unsigned long long)r->realigned, (unsigned long long)r->converted,
		(unsigned long long)r->skipped[0], (unsigned long long)r->skipped[1],
		(unsigned long long)r->skipped[2], (unsigned long long)r->skipped[3],
		(unsigned long long)r->skipped[4], dep);

	if (n < 0 || (size_t)n + 2 >= len)
		return n;
	n += (int)unwritten_json(r, buf + n, len - (size_t)n - 1);
	if ((size_t)n + 2 >= len)
		return n;
	n += (int)closed_json(r, buf + n, len - (size_t)n - 1);
	if ((size_t)n + 2 < len) {
		int k = snprintf(buf + n, len - (size_t)n - 1,
				 ", \"runtime_ns\": %llu, \"runtime_hit\": %s, "
				 "\"trace_reached_ns\": %llu",
				 (unsigned long long)r->runtime_ns, r->runtime_hit ? "true" : "false",
				 (unsigned long long)r->trace_reached_ns);

		n += k > 0 && (size_t)k < len - (size_t)n - 1 ? k : 0;
	}
	if (r->mode == REPLAY_DEP && (size_t)n + 2 < len)
		n += (int)dep_elastic_json(&r->elastic, (unsigned long long)r->dep.flushes,
					   (unsigned long long)r->dep.redundant, &r->wbt, buf + n,
					   len - (size_t)n - 1);
	return n + snprintf(buf + n, len - (size_t)n, "}");
}
