// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What replay --cpu did (replay/core/cpu.c), in the report: how the CPU was reproduced, per
 * replaying thread the CPU asked and got, and the host's load reproduced against the recorded.
 * "Got" below "asked" means the replay could not spend what the recording did in that time
 * (the candidate's CPUs were busier, or a burn was cut off at the end).
 */
#include <stdio.h>
#include "replay/replay.h"
#include "util/json.h"

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

void replay_cpu_print(const struct replay_result *r, FILE *out)
{
	fprintf(out, "cpu: %s\n", r->cpu_how[0] ? r->cpu_how : "idle");
	if (r->cpu_wait_how[0])
		fprintf(out, "  wait for a CPU: %s\n", r->cpu_wait_how);
	if (r->cpu_nthreads) {
		fprintf(out, "  per call: %u threads, %llu calls, CPU asked %.3f s, got %.3f s "
			     "(%.1f%%)\n",
			r->cpu_nthreads, (unsigned long long)r->cpu_calls, r->cpu_asked_ns / 1e9,
			r->cpu_got_ns / 1e9, pct(r->cpu_got_ns, r->cpu_asked_ns));
		for (uint32_t i = 0; i < r->cpu_nshown && i < 8; i++) {
			const struct replay_cpu_thread *t = &r->cpu_thread[i];

			if (!t->asked_ns)
				break;
			fprintf(out, "    tid %-8u %8llu calls  asked %9.3f ms  got %9.3f ms\n",
				t->tid, (unsigned long long)t->calls, t->asked_ns / 1e6,
				t->got_ns / 1e6);
		}
	}
	if (r->wait_calls)
		fprintf(out, "  wait for a CPU (--cpu-wait recorded): %llu calls waited %.3f s in the "
			     "recording; here %.3f s of their own, %.3f s added (%.1f%% of the "
			     "recorded reached)\n",
			(unsigned long long)r->wait_calls, r->wait_recorded_ns / 1e9,
			r->wait_own_ns / 1e9, r->wait_added_ns / 1e9,
			pct(r->wait_own_ns + r->wait_added_ns, r->wait_recorded_ns));
	if (r->load_threads)
		fprintf(out, "  load: %u threads in %.0f us bursts, %s recorded %.3f s, asked %.3f "
			     "s, got %.3f s (%.1f%% of the recorded)\n",
			r->load_threads, r->load_chunk_ns / 1e3,
			r->load_traced ? "recorded threads and other tasks" : "other tasks",
			r->load_recorded_ns / 1e9, r->load_asked_ns / 1e9, r->load_got_ns / 1e9,
			pct(r->load_got_ns, r->load_recorded_ns));
	if (r->load_threads && r->load_progress)
		fprintf(out, "  load on the application's progress (--cpu-load-clock progress): "
			     "held up to %.3f s behind the trace\n",
			r->load_lag_max_ns / 1e9);
	else if (r->load_threads)
		fprintf(out, "  load on the trace's clock (--cpu-load-clock trace)\n");
	if (r->fill)
		fprintf(out, "  fill (--cpu-fill%s): %s CPU %.3f s, the recorded calls' "
			     "%.3f s: %.3f s of load not burned\n",
			r->fill_host ? " host" : "",
			r->fill_host ? "the host's (beside the load threads)" : "the replayer's own",
			r->fill_own_ns / 1e9, r->fill_incall_ns / 1e9, r->fill_cut_ns / 1e9);
	if (r->slice_asked_ns)
		fprintf(out, "  scheduling thread's slice: asked %.0f us, got %.0f us\n",
			r->slice_asked_ns / 1e3, r->slice_got_ns / 1e3);
}

int replay_cpu_json(const struct replay_result *r, char *buf, size_t len)
{
	char how[400], wait_how[400];
	size_t n;
	int k;

	json_str_buf(how, sizeof(how), r->cpu_how[0] ? r->cpu_how : "idle");
	json_str_buf(wait_how, sizeof(wait_how), r->cpu_wait_how[0] ? r->cpu_wait_how : "none");
	k = snprintf(buf, len,
		     ", \"cpu\": {\"replayed\": %s, \"how\": %s, \"threads\": %u, \"calls\": %llu, "
		     "\"asked_ns\": %llu, \"got_ns\": %llu, \"load_threads\": %u, "
		     "\"load_chunk_ns\": %llu, \"load_includes_recorded_threads\": %s, "
		     "\"load_clock\": \"%s\", \"load_lag_max_ns\": %llu, "
		     "\"load_recorded_ns\": %llu, "
		     "\"load_asked_ns\": %llu, \"load_got_ns\": %llu, \"wait_how\": %s, "
		     "\"wait_calls\": %llu, \"wait_recorded_ns\": %llu, \"wait_own_ns\": %llu, "
		     "\"wait_added_ns\": %llu, \"slice_asked_ns\": %llu, \"slice_got_ns\": %llu, "
		     "\"fill\": %s, \"fill_host\": %s, \"fill_own_ns\": %llu, \"fill_incall_ns\": %llu, "
		     "\"fill_cut_ns\": %llu, \"per_thread\": [",
		     r->cpu_replayed ? "true" : "false", how, r->cpu_nthreads,
		     (unsigned long long)r->cpu_calls, (unsigned long long)r->cpu_asked_ns,
		     (unsigned long long)r->cpu_got_ns, r->load_threads,
		     (unsigned long long)r->load_chunk_ns,
		     r->load_traced ? "true" : "false", r->load_progress ? "progress" : "trace",
		     (unsigned long long)r->load_lag_max_ns,
		     (unsigned long long)r->load_recorded_ns,
		     (unsigned long long)r->load_asked_ns, (unsigned long long)r->load_got_ns,
		     wait_how, (unsigned long long)r->wait_calls,
		     (unsigned long long)r->wait_recorded_ns, (unsigned long long)r->wait_own_ns,
		     (unsigned long long)r->wait_added_ns, (unsigned long long)r->slice_asked_ns,
		     (unsigned long long)r->slice_got_ns, r->fill ? "true" : "false",
		     r->fill_host ? "true" : "false", (unsigned long long)r->fill_own_ns, (unsigned long long)r->fill_incall_ns,
		     (unsigned long long)r->fill_cut_ns);
	if (k < 0 || (size_t)k >= len)
		return 0;
	n = (size_t)k;
	for (uint32_t i = 0; i < r->cpu_nshown; i++) {
		const struct replay_cpu_thread *t = &r->cpu_thread[i];

		k = snprintf(buf + n, len - n,
			     "%s{\"tid\": %u, \"calls\": %llu, \"asked_ns\": %llu, \"got_ns\": %llu}",
			     i ? ", " : "", t->tid, (unsigned long long)t->calls,
			     (unsigned long long)t->asked_ns, (unsigned long long)t->got_ns);
		if (k < 0 || (size_t)k >= len - n)
			return 0;
		n += (size_t)k;
	}
	k = snprintf(buf + n, len - n, "]}");
	if (k < 0 || (size_t)k >= len - n)
		return 0;
	return (int)(n + (size_t)k);
}
