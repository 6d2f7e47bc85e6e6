// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One result for the fleet. Every rank sends rank 0 its analysis (as bytes, analyze/merge.c)
 * and its replay figures; rank 0 adds them up exactly, in rank order: histograms bucket for
 * bucket, so fleet percentiles are exact rather than averages of averages (IOR reports the
 * minimum of per-rank means; fio summed its clients' buckets but printed no percentiles for
 * them until 3.39). The output is fio's client-mode JSON: the aggregate in "jobs", one entry
 * per rank in "client_stats", plus the fleet's clock and fidelity under "fleet".
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "analyze/analyze.h"
#include "mpi/fleet.h"
#include "util/cli.h"
#include "util/json.h"

#define TAG_RES 21
#define TAG_LEN 22
#define TAG_AN 23

static const double fleet_pct[] = {50, 90, 99, 99.9, 99.99};
#define NPCT (sizeof(fleet_pct) / sizeof(fleet_pct[0]))

/* What rank 0 works out from everyone's results. */
struct fleet_sum {
	struct hist late;
	uint64_t ios, errors, bytes, late_100us, cap_hits;
	int failed, worst;
	uint64_t worst_bound;
	int64_t late_min, late_max;  /* start lateness */
	int64_t skew_lo, skew_hi;    /* start instants in rank 0's clock, with uncertainty */
	uint64_t woke_min, woke_max; /* raw CLOCK_MONOTONIC: comparable on one host */
	bool all_met;
	uint64_t *bound; /* per rank */
};

/* p99 lateness + the offset's uncertainty at the start + how far the offset moved by the end. */
static uint64_t rank_bound(const struct rank_result *r)
{
	const struct clock_run *c = &r->clock;
	uint64_t b = hist_percentile(&r->lateness, 99) + c->start.uncert_ns;

	if (c->have_end)
		b += (uint64_t)llabs(c->end.offset_ns - c->start.offset_ns) + c->end.uncert_ns;
	return b;
}

static void sum_up(const struct fleet *f, const struct rank_result *rs, struct fleet_sum *s)
{
	memset(s, 0, sizeof(*s));
	hist_init(&s->late);
	s->all_met = true;
	s->worst = -1;
	s->late_min = INT64_MAX;
	s->late_max = INT64_MIN;
	s->skew_lo = INT64_MAX;
	s->skew_hi = INT64_MIN;
	s->woke_min = UINT64_MAX;
	s->bound = calloc((size_t)f->size, sizeof(*s->bound));
	for (int i = 0; i < f->size; i++) {
		const struct rank_result *r = &rs[i];
		const struct clock_run *c = &r->clock;
		int64_t u = (int64_t)c->start.uncert_ns;

		hist_merge(&s->late, &r->lateness);
		s->ios += r->ios;
		s->errors += r->errors;
		s->bytes += r->bytes;
		s->late_100us += r->late_100us;
		s->cap_hits += r->cap_hits;
		s->failed += r->status != 0;
		s->all_met &= c->start_met;
		if (c->start_late_ns < s->late_min)
			s->late_min = c->start_late_ns;
		if (c->start_late_ns > s->late_max)
			s->late_max = c->start_late_ns;
		if (c->start_late_ns - u < s->skew_lo)
			s->skew_lo = c->start_late_ns - u;
		if (c->start_late_ns + u > s->skew_hi)
			s->skew_hi = c->start_late_ns + u;
		if (c->start_woke < s->woke_min)
			s->woke_min = c->start_woke;
		if (c->start_woke > s->woke_max)
			s->woke_max = c->start_woke;
		if (s->bound) {
			s->bound[i] = rank_bound(r);
			if (s->worst < 0 || s->bound[i] > s->worst_bound) {
				s->worst = i;
				s->worst_bound = s->bound[i];
			}
		}
	}
}

static void json_pct(FILE *o, const struct hist *h)
{
	fprintf(o, "{\"N\": %llu, \"max\": %llu, \"mean\": %.1f, \"percentile\": {",
		(unsigned long long)h->count, (unsigned long long)h->max,
		h->count ? hist_mean(h) : 0.0);
	for (size_t i = 0; i < NPCT; i++)
		fprintf(o, "%s\"%f\": %llu", i ? ", " : "", fleet_pct[i],
			(unsigned long long)hist_percentile(h, fleet_pct[i]));
	fprintf(o, "}}");
}

static void json_clock(FILE *o, const struct clock_run *c)
{
	fprintf(
	    o,
	    "\"clock\": {\"offset_ns\": %lld, \"uncertainty_ns\": %llu, "
	    "\"rtt_min_ns\": %llu, \"rounds\": %u, \"drift_ppm\": %.4f, "
	    "\"drift_uncertainty_ppm\": %.4f, \"end_offset_ns\": %lld, "
	    "\"end_uncertainty_ns\": %llu, \"run_drift_ppm\": %.4f, "
	    "\"run_drift_uncertainty_ppm\": %.4f}, \"start\": {\"late_ns\": %lld, "
	    "\"met\": %s}",
	    (long long)c->start.offset_ns, (unsigned long long)c->start.uncert_ns,
	    (unsigned long long)c->start.rtt_min_ns, c->start.rounds, c->drift_ppm,
	    c->drift_uncert_ppm, (long long)(c->have_end ? c->end.offset_ns : c->start.offset_ns),
	    (unsigned long long)(c->have_end ? c->end.uncert_ns : 0), c->run_drift_ppm,
	    c->run_drift_uncert_ppm, (long long)c->start_late_ns, c->start_met ? "true" : "false");
}

/* The members client_stats[r] has beyond a fio job: who, what, and how well it kept time. */
static char *rank_extra(const struct fleet *f, int i, const struct rank_result *r, uint64_t bound)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);

	if (!o)
		return NULL;
	fprintf(o, "\"hostname\": ");
	json_str(o, f->hosts[i]);
	fprintf(o, ", \"rank\": %d, \"ioreel_fleet\": {\"status\": \"%s\", \"error\": ", i,
		r->status ? "failed" : "ok");
	json_str(o, r->err);
	fprintf(o, ", \"part\": ");
	json_str(o, r->share);
	fprintf(o, ", ");
	json_clock(o, &r->clock);
	fprintf(o, ", \"lateness_ns\": ");
	json_pct(o, &r->lateness);
	fprintf(o, ", \"global_error_bound_ns\": %llu", (unsigned long long)bound);
	if (r->fidelity[0])
		fprintf(o, ", %s", r->fidelity);
	fprintf(o, "}");
	fclose(o);
	return buf;
}

static void print_json(const struct fleet *f, const struct report_opts *ro,
		       const struct rank_result *rs, struct analysis *const *as,
		       const struct analysis *all, const struct fleet_sum *s)
{
	const struct plan *p = ro->plan;
	char name[256];

	printf("{\"fio version\": \"ioreel-mpi-%s\", \"ioreel version\": \"%s\", \"jobs\": [\n",
	       IOREEL_VERSION, IOREEL_VERSION);
	analysis__print_job_json(all, stdout, NULL);
	printf("],\n\"client_stats\": [");
	for (int i = 0; i < f->size; i++) {
		char *extra = rank_extra(f, i, &rs[i], s->bound ? s->bound[i] : 0);

		printf("%s\n", i ? "," : "");
		analysis__print_job_json(as[i], stdout, extra);
		free(extra);
	}
	printf("],\n\"fleet\": {\"verb\": \"%s\", \"ranks\": %d, \"one_host\": %s, \"status\": "
	       "\"%s\", \"failed_ranks\": %d, \"ios\": %llu, \"errors\": %llu, \"bytes\": %llu, "
	       "\"late_100us\": %llu, \"cap_hits\": %llu, \"lateness_ns\": ",
	       ro->title, f->size, f->one_host ? "true" : "false", s->failed ? "failed" : "ok",
	       s->failed, (unsigned long long)s->ios, (unsigned long long)s->errors,
	       (unsigned long long)s->bytes, (unsigned long long)s->late_100us,
	       (unsigned long long)s->cap_hits);
	json_pct(stdout, &s->late);
	printf(", \"start\": {\"skew_ns\": %lld, \"skew_bound_ns\": %lld, ",
	       (long long)(s->late_max - s->late_min), (long long)(s->skew_hi - s->skew_lo));
	if (f->one_host) /* one CLOCK_MONOTONIC: the spread of the wake-ups is measured, not bounded
			  */
		printf("\"measured_skew_ns\": %llu, ",
		       (unsigned long long)(s->woke_max - s->woke_min));
	printf("\"all_met\": %s}, \"global_error_bound_ns\": %llu, \"worst_rank\": %d, "
	       "\"worst_host\": ",
	       s->all_met ? "true" : "false", (unsigned long long)s->worst_bound, s->worst);
	json_str(stdout, s->worst >= 0 ? f->hosts[s->worst] : "");
	printf(", \"invalid\": %s", s->all_met ? "false" : "true");
	if (p) {
		printf(", \"origin_ns\": %llu, \"stripe_bytes\": %llu, \"each\": %s, \"traces\": [",
		       (unsigned long long)p->origin_ns, (unsigned long long)p->stripe_bytes,
		       p->each ? "true" : "false");
		for (uint32_t t = 0; t < p->ntraces; t++) {
			printf("%s{\"path\": ", t ? ", " : "");
			json_str(stdout, p->traces[t].path);
			printf(", \"events\": %llu, \"shift_ns\": %llu}",
			       (unsigned long long)p->traces[t].events,
			       (unsigned long long)p->traces[t].shift_ns);
		}
		printf("], \"parts\": [");
		for (uint32_t i = 0; i < p->nstreams; i++) {
			printf("%s{\"name\": ", i ? ", " : "");
			json_str(stdout, plan_stream_name(p, &p->s[i], name, sizeof(name)));
			printf(", \"rank\": %d, \"events_planned\": %llu}", p->s[i].rank,
			       (unsigned long long)p->s[i].events);
		}
		printf("]");
	}
	printf("}}\n");
}

static void print_text(const struct fleet *f, const struct report_opts *ro,
		       const struct rank_result *rs, const struct analysis *all,
		       const struct fleet_sum *s)
{
	char a[32], b[32], c[32], d[32], e[32], g[32];

	analysis__print_text(all, stdout);
	printf("\nfleet: %d ranks%s, %s mode, engine %s\n", f->size,
	       f->one_host ? " on one host" : "", rs[0].mode, rs[0].engine);
	printf("  %-4s %-16s %10s %27s %10s %17s %9s  %s\n", "rank", "host", "I/Os",
	       "late p50 / p99 / p99.9", "start", "offset +- unc", "bound", "part");
	for (int i = 0; i < f->size; i++) {
		const struct rank_result *r = &rs[i];
		const struct hist *h = &r->lateness;
		char late[64], off[48];

		snprintf(late, sizeof(late), "%s / %s / %s", fmt_ns(hist_percentile(h, 50), a, 32),
			 fmt_ns(hist_percentile(h, 99), b, 32),
			 fmt_ns(hist_percentile(h, 99.9), c, 32));
		snprintf(off, sizeof(off), "%s%s +- %s", r->clock.start.offset_ns < 0 ? "-" : "",
			 fmt_ns((uint64_t)llabs(r->clock.start.offset_ns), d, 32),
			 fmt_ns(r->clock.start.uncert_ns, e, 32));
		printf("  %-4d %-16.16s %10llu %27s %10s %17s %9s  %s%s%s\n", i, f->hosts[i],
		       (unsigned long long)r->ios, h->count ? late : "-",
		       fmt_ns((uint64_t)(r->clock.start_late_ns > 0 ? r->clock.start_late_ns : 0),
			      g, 32),
		       off, s->bound ? fmt_ns(s->bound[i], a, 32) : "-", r->share,
		       r->status ? "  FAILED: " : "", r->status ? r->err : "");
	}
	printf("  %-4s %-16s %10llu %27s\n", "all", "", (unsigned long long)s->ios,
	       s->late.count ? (snprintf(d, sizeof(d), "%s / %s",
					 fmt_ns(hist_percentile(&s->late, 50), a, 32),
					 fmt_ns(hist_percentile(&s->late, 99), b, 32)),
				d)
			     : "-");
	printf("  start skew %s (bound %s%s%s); global error bound %s, worst: rank %d on %s\n",
	       fmt_ns((uint64_t)(s->late_max - s->late_min), a, 32),
	       fmt_ns((uint64_t)(s->skew_hi - s->skew_lo), b, 32),
	       f->one_host ? ", measured on the host's one clock " : "",
	       f->one_host ? fmt_ns(s->woke_max - s->woke_min, c, 32) : "",
	       fmt_ns(s->worst_bound, e, 32), s->worst, s->worst >= 0 ? f->hosts[s->worst] : "?");
	if (!s->all_met)
		printf("  INVALID: a rank got the start after it was due: raise --slack\n");
	(void)ro;
}

/*
 * Rank 0 waits for every rank's result, but not forever: a rank whose process died takes the
 * job down through the launcher (mpirun names it), but one stuck in uninterruptible I/O or
 * behind a dead network would leave everyone waiting. Past ro->wait_ns it is named and the
 * job aborted.
 */
static void wait_results(const struct fleet *f, const struct report_opts *ro,
			 struct rank_result *rs)
{
	MPI_Request *req = calloc((size_t)f->size, sizeof(*req));
	uint64_t until = now_mono_ns() + ro->wait_ns;
	int done = 0;

	if (!req)
		MPI_Abort(MPI_COMM_WORLD, EXIT_RUNTIME);
	req[0] = MPI_REQUEST_NULL;
	for (int r = 1; r < f->size; r++)
		MPI_Irecv(&rs[r], (int)sizeof(rs[r]), MPI_BYTE, r, TAG_RES, MPI_COMM_WORLD,
			  &req[r]);
	for (;;) {
		struct timespec ts = {0, 10000000};

		MPI_Testall(f->size, req, &done, MPI_STATUSES_IGNORE);
		if (done)
			break;
		if (ro->wait_ns && now_mono_ns() > until) {
			for (int r = 1; r < f->size; r++) {
				int got = 0;

				MPI_Test(&req[r], &got, MPI_STATUS_IGNORE);
				if (!got)
					fprintf(
					    stderr,
					    "ioreel-mpi %s: rank %d on %s sent no result "
					    "%llu s after rank 0 ended: it hangs (I/O stuck?) or "
					    "its host is gone; aborting the job (--wait raises the "
					    "limit for parts that take longer)\n",
					    f->verb, r, f->hosts[r],
					    (unsigned long long)(ro->wait_ns / 1000000000ULL));
			}
			MPI_Abort(MPI_COMM_WORLD, EXIT_RUNTIME);
		}
		nanosleep(&ts, NULL);
	}
	free(req);
}

/*
 * The clock once everyone is done (after the gather, so a rank that hangs is caught by
 * wait_results, not by a ping-pong with no timeout): how far each offset moved during the run.
 */
static void end_offsets(const struct fleet *f, const struct report_opts *ro, struct rank_result *rs)
{
	struct clock_est mine, *all = calloc((size_t)f->size, sizeof(*all));

	clock_sync(f, ro->rounds, &mine, all);
	for (int r = 0; all && r < f->size; r++) {
		struct clock_run *c = &rs[r].clock;

		if (!c->start.at_ns)
			continue; /* never started */
		c->end = all[r];
		c->have_end = true;
		c->run_drift_ppm = clock_drift_ppm(&c->start, &c->end);
		c->run_drift_uncert_ppm = clock_drift_uncert_ppm(&c->start, &c->end);
	}
	free(all);
}

int report_fleet(const struct fleet *f, const struct report_opts *ro, struct rank_result *res,
		 const struct analysis *an)
{
	struct analysis *empty = NULL, **as = NULL, *all = NULL;
	struct rank_result *rs = NULL;
	void *buf = NULL;
	size_t len = 0;
	int verdict = EXIT_OK;

	if (!an)
		an = empty = analysis__new(NULL, NULL, "nothing");
	if (!an || analysis__pack(an, &buf, &len)) {
		fprintf(stderr, "ioreel-mpi: out of memory packing the results\n");
		MPI_Abort(MPI_COMM_WORLD, EXIT_RUNTIME);
	}
	analysis__free(empty);
	if (f->rank) {
		uint64_t l = len;

		MPI_Send(res, (int)sizeof(*res), MPI_BYTE, 0, TAG_RES, MPI_COMM_WORLD);
		MPI_Send(&l, 1, MPI_UINT64_T, 0, TAG_LEN, MPI_COMM_WORLD);
		MPI_Send(buf, (int)len, MPI_BYTE, 0, TAG_AN, MPI_COMM_WORLD);
		free(buf);
		clock_sync(f, ro->rounds, &res->clock.end, NULL);
		MPI_Bcast(&verdict, 1, MPI_INT, 0, MPI_COMM_WORLD);
		return verdict;
	}
	rs = calloc((size_t)f->size, sizeof(*rs));
	as = calloc((size_t)f->size, sizeof(*as));
	all = analysis__new(NULL, NULL, "All ranks");
	if (!rs || !as || !all) {
		fprintf(stderr, "ioreel-mpi: out of memory for %d ranks' results\n", f->size);
		MPI_Abort(MPI_COMM_WORLD, EXIT_RUNTIME);
	}
	rs[0] = *res;
	as[0] = analysis__unpack(buf, len);
	free(buf);
	wait_results(f, ro, rs);
	for (int r = 1; r < f->size; r++) {
		uint64_t l;

		MPI_Recv(&l, 1, MPI_UINT64_T, r, TAG_LEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		buf = malloc(l ? l : 1);
		if (!buf) {
			fprintf(stderr, "ioreel-mpi: out of memory for rank %d's results\n", r);
			MPI_Abort(MPI_COMM_WORLD, EXIT_RUNTIME);
		}
		MPI_Recv(buf, (int)l, MPI_BYTE, r, TAG_AN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		as[r] = analysis__unpack(buf, l);
		free(buf);
	}
	end_offsets(f, ro, rs);
	for (int r = 0; r < f->size; r++) {
		char name[128];

		if (!as[r]) {
			fprintf(stderr,
				"ioreel-mpi %s: rank %d's results did not unpack: do all "
				"hosts run the same ioreel-mpi?\n",
				f->verb, r);
			verdict = EXIT_RUNTIME;
			as[r] = analysis__new(NULL, NULL, "?");
			if (!as[r])
				MPI_Abort(MPI_COMM_WORLD, EXIT_RUNTIME);
		}
		snprintf(name, sizeof(name), "rank %d on %s", r, f->hosts[r]);
		analysis__set_name(as[r], name);
		analysis__set_bins(as[r], true);
		if (analysis__merge(all, as[r]))
			fprintf(stderr,
				"ioreel-mpi %s: rank %d's devices do not fit in the fleet's "
				"table of %d: the aggregate lists the first ones\n",
				f->verb, r, TRACE_MAX_DEVICES);
	}
	analysis__set_name(all, "All ranks");
	analysis__set_bins(all, true);
	{
		struct fleet_sum s;

		sum_up(f, rs, &s);
		if (ro->json)
			print_json(f, ro, rs, as, all, &s);
		else
			print_text(f, ro, rs, all, &s);
		fflush(stdout);
		for (int r = 0; r < f->size; r++)
			if (rs[r].status)
				fprintf(stderr, "ioreel-mpi %s: rank %d on %s failed: %s\n",
					f->verb, r, f->hosts[r], rs[r].err);
		if (s.failed)
			verdict = EXIT_RUNTIME;
		else if (s.errors)
			cli_warn("%llu I/Os failed across the fleet (client_stats say where)",
				 (unsigned long long)s.errors);
		free(s.bound);
	}
	for (int r = 0; r < f->size; r++)
		analysis__free(as[r]);
	analysis__free(all);
	free(as);
	free(rs);
	MPI_Bcast(&verdict, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return verdict;
}
