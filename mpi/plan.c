// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Which rank replays what. The set's devices go to ranks by a plan file or by load; a device
 * with more events than a rank's fair share is split by address stripes (offset / stripe %
 * K), so each block stays on one rank and keeps its order there. Rank 0 reads the set once and
 * sends the plan to every rank.
 *
 * Times: trace i's genesis (wall clock) less the earliest one shifts its events, so traces
 * recorded apart replay with the gaps they had; the recording hosts' clock error is a floor
 * no replay removes, and traces recorded by ioreel-mpi record share one genesis exactly.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi/fleet.h"
#include "util/cli.h"

#define SCAN_BATCH 4096
#define MIB (1ULL << 20)

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

char *plan_stream_name(const struct plan *p, const struct plan_stream *s, char *buf, size_t len)
{
	const struct plan_trace *t = &p->traces[s->trace];

	if (s->nstripes > 1)
		snprintf(buf, len, "%s:%s [stripe %u/%u]", base_name(t->path), t->dev_names[s->dev],
			 s->stripe + 1, s->nstripes);
	else
		snprintf(buf, len, "%s:%s", base_name(t->path), t->dev_names[s->dev]);
	return buf;
}

/* One pass over a trace: events per device, the first time, how far each device reaches. */
static int scan_trace(struct plan_trace *t, char *why, size_t len)
{
	char err[256] = "";
	struct trace_reader *r = trace_reader__open(t->path, 0, err, sizeof(err));
	struct io_event *buf;
	const struct trace_meta *m;
	long n;
	int ret = 0;

	if (!r) {
		ret = -errno;
		snprintf(why, len, "cannot read trace %s: %s", t->path,
			 *err ? err : strerror(errno));
		return ret;
	}
	m = trace_reader__meta(r);
	t->ndev = m->ndevices ? m->ndevices : 1;
	t->genesis_realtime_ns = m->genesis_realtime_ns;
	t->closed = m->mode == TRACE_MODE_CLOSED;
	t->first_ns = UINT64_MAX;
	for (unsigned int d = 0; d < t->ndev; d++) {
		snprintf(t->dev_names[d], sizeof(t->dev_names[d]), "%s",
			 m->ndevices ? m->devices[d].name : "?");
		t->dev_extent[d] = m->ndevices ? m->devices[d].size_bytes : 0;
	}
	buf = malloc(SCAN_BATCH * sizeof(*buf));
	if (!buf) {
		trace_reader__close(r);
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	while ((n = trace_reader__next(r, buf, SCAN_BATCH)) > 0) {
		for (long i = 0; i < n; i++) {
			const struct io_event *e = &buf[i];
			uint64_t tt = io_event_time(e);

			if (e->dev >= t->ndev)
				continue; /* replay refuses the trace and says why */
			t->events++;
			t->dev_events[e->dev]++;
			if (tt != IO_TS_NONE && tt < t->first_ns)
				t->first_ns = tt;
			if (e->offset + e->length > t->dev_extent[e->dev])
				t->dev_extent[e->dev] = e->offset + e->length;
		}
	}
	if (n < 0) {
		snprintf(why, len, "reading %s: %s", t->path, trace_reader__error(r));
		ret = (int)n;
	} else if (!t->events) {
		snprintf(why, len, "%s holds no I/O to replay", t->path);
		ret = -ENODATA;
	}
	free(buf);
	trace_reader__close(r);
	if (t->first_ns == UINT64_MAX)
		t->first_ns = 0;
	return ret;
}

static int add_stream(struct plan *p, uint32_t trace, uint32_t dev, uint32_t k, uint32_t K,
		      int rank, const char *target, char *why, size_t len)
{
	struct plan_stream *s;

	if (p->nstreams >= PLAN_MAX_STREAMS) {
		snprintf(why, len, "more than %d parts of the set: use fewer stripes or ranks",
			 PLAN_MAX_STREAMS);
		return -ENOSPC;
	}
	s = &p->s[p->nstreams++];
	memset(s, 0, sizeof(*s));
	s->trace = trace;
	s->dev = dev;
	s->stripe = k;
	s->nstripes = K;
	s->rank = rank;
	s->events = p->traces[trace].dev_events[dev] / K;
	if (target)
		snprintf(s->target, sizeof(s->target), "%s", target);
	return 0;
}

/* ---- by a plan file ---- */

static int find_trace(const struct plan *p, const char *name)
{
	for (uint32_t i = 0; i < p->ntraces; i++)
		if (!strcmp(p->traces[i].path, name) || !strcmp(base_name(p->traces[i].path), name))
			return (int)i;
	return -1;
}

/* "0,2,host-b": ranks in order (a host name stands for each of its ranks). */
static int parse_ranks(const struct fleet *f, char *list, int *ranks, int max, char *why,
		       size_t len)
{
	int n = 0;
	char *save = NULL;

	for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		bool found = false;

		if (!parse_u64(tok, &v)) {
			if (v >= (uint64_t)f->size) {
				snprintf(why, len, "rank %s does not exist (%d ranks: 0-%d)", tok,
					 f->size, f->size - 1);
				return -EINVAL;
			}
			if (n < max)
				ranks[n++] = (int)v;
			continue;
		}
		for (int r = 0; r < f->size; r++) {
			if (strcmp(f->hosts[r], tok))
				continue;
			found = true;
			if (n < max)
				ranks[n++] = r;
		}
		if (!found) {
			snprintf(why, len, "no rank runs on host %s", tok);
			return -EINVAL;
		}
	}
	for (int i = 0; i < n; i++)
		for (int k = 0; k < i; k++)
			if (ranks[i] == ranks[k]) {
				snprintf(why, len, "rank %d is listed twice", ranks[i]);
				return -EINVAL;
			}
	return n;
}

static int plan_rule(const struct fleet *f, struct plan *p, bool (*done)[TRACE_MAX_DEVICES],
		     char *line, char *why, size_t len)
{
	char *save = NULL, *tr = strtok_r(line, " \t", &save), *dev = strtok_r(NULL, " \t", &save);
	char *rl = strtok_r(NULL, " \t", &save), *target = strtok_r(NULL, " \t", &save);
	int ranks[256], nr, t;

	if (!tr || !dev || !rl || strtok_r(NULL, " \t", &save)) {
		snprintf(why, len, "want TRACE DEVICE RANKS [TARGET]");
		return -EINVAL;
	}
	t = find_trace(p, tr);
	if (t < 0) {
		snprintf(why, len, "no trace %s in the set given on the command line", tr);
		return -EINVAL;
	}
	nr = parse_ranks(f, rl, ranks, 256, why, len);
	if (nr < 0)
		return nr;
	if (nr > 1 && p->traces[t].closed) {
		snprintf(why, len,
			 "%s is closed-loop (synthesized): its streams keep their depth "
			 "on one rank and cannot be split by stripes",
			 tr);
		return -EINVAL;
	}
	for (uint32_t d = 0; d < p->traces[t].ndev; d++) {
		if (strcmp(dev, "*") && strcmp(dev, p->traces[t].dev_names[d]))
			continue;
		if (done[t][d]) {
			snprintf(why, len, "%s device %s is already in an earlier rule", tr,
				 p->traces[t].dev_names[d]);
			return -EINVAL;
		}
		done[t][d] = true;
		for (int k = 0; k < nr; k++) {
			int ret = add_stream(p, (uint32_t)t, d, (uint32_t)k, (uint32_t)nr, ranks[k],
					     target, why, len);
			if (ret)
				return ret;
		}
		if (strcmp(dev, "*"))
			return 0;
	}
	if (strcmp(dev, "*")) {
		snprintf(why, len, "%s has no device %s", tr, dev);
		return -EINVAL;
	}
	return 0;
}

static int plan_from_file(const struct fleet *f, struct plan *p, const char *file, char *why,
			  size_t len)
{
	bool(*done)[TRACE_MAX_DEVICES] = calloc(PLAN_MAX_TRACES, sizeof(*done));
	FILE *in = fopen(file, "r");
	char line[1024], msg[512];
	unsigned int no = 0;
	int ret = 0;

	if (!in || !done) {
		ret = in ? -ENOMEM : -errno;
		snprintf(why, len, "cannot read the plan %s: %s", file, strerror(-ret));
		goto out;
	}
	while (fgets(line, sizeof(line), in)) {
		char *h = strchr(line, '#'), *s = line;

		no++;
		if (h)
			*h = '\0';
		s[strcspn(s, "\r\n")] = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			continue;
		ret = plan_rule(f, p, done, s, msg, sizeof(msg));
		if (ret) {
			snprintf(why, len, "plan %s line %u: %s", file, no, msg);
			goto out;
		}
	}
	for (uint32_t t = 0; t < p->ntraces; t++)
		for (uint32_t d = 0; d < p->traces[t].ndev; d++)
			if (!done[t][d] && p->traces[t].dev_events[d]) {
				snprintf(why, len,
					 "plan %s: no rule for %s device %s: add one (or "
					 "a '*' device rule for the trace)",
					 file, base_name(p->traces[t].path),
					 p->traces[t].dev_names[d]);
				ret = -EINVAL;
				goto out;
			}
out:
	if (in)
		fclose(in);
	free(done);
	return ret;
}

/* ---- by load ---- */

static int cmp_load(const void *a, const void *b)
{
	const struct plan_stream *x = a, *y = b;

	if (x->events != y->events)
		return x->events < y->events ? 1 : -1;
	if (x->trace != y->trace)
		return x->trace < y->trace ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->stripe < y->stripe ? -1 : x->stripe > y->stripe;
}

/*
 * Largest first, each to the least loaded rank (Graham's LPT); the stripes of one device go to
 * different ranks, else splitting it would gain nothing.
 */
static int plan_by_load(const struct fleet *f, struct plan *p, const struct plan_opts *po,
			char *why, size_t len)
{
	uint64_t fair = (p->total_events + (uint64_t)f->size - 1) / (uint64_t)f->size;
	uint64_t *load = calloc((size_t)f->size, sizeof(*load));
	int ret = 0;

	if (!load)
		return -ENOMEM;
	for (uint32_t t = 0; t < p->ntraces && !ret; t++) {
		for (uint32_t d = 0; d < p->traces[t].ndev && !ret; d++) {
			uint64_t ev = p->traces[t].dev_events[d];
			uint32_t K = 1;

			if (!ev)
				continue;
			if (!po->no_split && !p->traces[t].closed && ev > fair && fair)
				K = (uint32_t)((ev + fair - 1) / fair);
			if (K > (uint32_t)f->size)
				K = (uint32_t)f->size;
			for (uint32_t k = 0; k < K && !ret; k++)
				ret = add_stream(p, t, d, k, K, -1, NULL, why, len);
		}
	}
	qsort(p->s, p->nstreams, sizeof(p->s[0]), cmp_load);
	for (uint32_t i = 0; i < p->nstreams && !ret; i++) {
		struct plan_stream *s = &p->s[i];
		int best = -1;

		for (int r = 0; r < f->size; r++) {
			bool taken = false;

			for (uint32_t j = 0; j < i && s->nstripes > 1; j++)
				taken |= p->s[j].trace == s->trace && p->s[j].dev == s->dev &&
					 p->s[j].rank == r;
			if (!taken && (best < 0 || load[r] < load[best]))
				best = r;
		}
		s->rank = best;
		load[best] += s->events ? s->events : 1;
	}
	for (int r = 0; r < f->size && !ret; r++)
		if (!load[r]) {
			size_t n = strlen(p->warn);

			snprintf(p->warn + n, sizeof(p->warn) - n,
				 "%srank %d on %s has nothing to replay (the set has fewer parts "
				 "than ranks); it keeps the clock",
				 n ? "; " : "", r, f->hosts[r]);
		}
	free(load);
	return ret;
}

static int plan_each(const struct fleet *f, struct plan *p, char *why, size_t len)
{
	uint64_t extent = 0;
	int ret = 0;

	for (int r = 0; r < f->size; r++)
		for (uint32_t t = 0; t < p->ntraces; t++)
			for (uint32_t d = 0; d < p->traces[t].ndev && !ret; d++)
				if (p->traces[t].dev_events[d])
					ret = add_stream(p, t, d, 0, 1, r, NULL, why, len);
	for (uint32_t t = 0; t < p->ntraces; t++)
		for (uint32_t d = 0; d < p->traces[t].ndev; d++)
			if (p->traces[t].dev_extent[d] > extent)
				extent = p->traces[t].dev_extent[d];
	/* IOR's segments of a shared file: each rank in a region of its own, 1 MiB aligned */
	p->segment_bytes = (extent + MIB - 1) / MIB * MIB;
	return ret;
}

int plan_make(const struct fleet *f, const char *const *paths, unsigned int n,
	      const struct plan_opts *po, struct plan *p, char *why, size_t len)
{
	uint64_t gmin = 0;
	bool unknown = false;
	int ret;

	memset(p, 0, sizeof(*p));
	if (n > PLAN_MAX_TRACES) {
		snprintf(why, len, "%u traces given; at most %d at once", n, PLAN_MAX_TRACES);
		return -EINVAL;
	}
	p->ntraces = n;
	p->stripe_bytes = po->stripe_bytes ? po->stripe_bytes : MIB;
	p->each = po->each;
	p->segments = po->segments;
	for (unsigned int i = 0; i < n; i++) {
		struct plan_trace *t = &p->traces[i];

		if (strlen(paths[i]) >= sizeof(t->path)) {
			snprintf(why, len, "trace path too long: %s", paths[i]);
			return -ENAMETOOLONG;
		}
		snprintf(t->path, sizeof(t->path), "%s", paths[i]);
		ret = scan_trace(t, why, len);
		if (ret)
			return ret;
		p->total_events += t->events;
		if (t->genesis_realtime_ns && (!gmin || t->genesis_realtime_ns < gmin))
			gmin = t->genesis_realtime_ns;
		unknown |= !t->genesis_realtime_ns;
		if (i && t->closed != p->closed) {
			snprintf(why, len,
				 "%s is %s but %s is not: replay closed-loop (synthesized) "
				 "and timed traces in separate runs",
				 paths[i], t->closed ? "closed-loop" : "timed", paths[0]);
			return -EINVAL;
		}
		p->closed = t->closed;
	}
	p->origin_ns = UINT64_MAX;
	for (unsigned int i = 0; i < n; i++) {
		struct plan_trace *t = &p->traces[i];

		t->shift_ns = t->genesis_realtime_ns ? t->genesis_realtime_ns - gmin : 0;
		if (t->first_ns + t->shift_ns < p->origin_ns)
			p->origin_ns = t->first_ns + t->shift_ns;
	}
	if (unknown && n > 1)
		snprintf(p->warn, sizeof(p->warn),
			 "some traces have no wall-clock genesis "
			 "(synthesized or imported): they are taken to start with the earliest");
	if (po->each)
		ret = plan_each(f, p, why, len);
	else if (po->plan_file)
		ret = plan_from_file(f, p, po->plan_file, why, len);
	else
		ret = plan_by_load(f, p, po, why, len);
	return ret;
}

int plan_bcast(const struct fleet *f, struct plan *p)
{
	/* Every rank runs the same binary (fleet_check_versions): the struct goes as bytes. */
	(void)f;
	return MPI_Bcast(p, (int)sizeof(*p), MPI_BYTE, 0, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -EIO;
}
