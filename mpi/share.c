// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One rank's part of the trace set, written as one trace before the clock starts, so the
 * rank's replay is `ioreel replay` of one file: the same scheduler, engines, modes, safety
 * and report, with nothing of the fleet inside it. The part is read in one time order from
 * every trace it draws on (formats/merge.c), times shifted onto the set's clock, and filtered
 * to this rank's devices and stripes; thread ids stay apart per trace (dep mode infers by
 * thread, and tid 1234 on two hosts is two threads).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpi/fleet.h"
#include "util/cli.h"

#define OUT_BATCH 4096

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* This rank's streams on (trace, dev): the stripes it replays; NULL when none. */
static const struct plan_stream *mine(const struct fleet *f, const struct plan *p, uint32_t t,
				      uint32_t d, uint64_t offset)
{
	for (uint32_t i = 0; i < p->nstreams; i++) {
		const struct plan_stream *s = &p->s[i];

		if (s->rank != f->rank || s->trace != t || s->dev != d)
			continue;
		if (s->nstripes == 1 || (offset / p->stripe_bytes) % s->nstripes == s->stripe)
			return s;
	}
	return NULL;
}

static void describe(const struct fleet *f, const struct plan *p, struct share *sh)
{
	size_t n = 0;
	char name[256];

	sh->desc[0] = '\0';
	for (uint32_t i = 0; i < p->nstreams && n < sizeof(sh->desc) - 8; i++) {
		if (p->s[i].rank != f->rank)
			continue;
		n += (size_t)snprintf(sh->desc + n, sizeof(sh->desc) - n, "%s%s", n ? ", " : "",
				      plan_stream_name(p, &p->s[i], name, sizeof(name)));
	}
	if (!n)
		snprintf(sh->desc, sizeof(sh->desc), "nothing");
	else if (n >= sizeof(sh->desc) - 8)
		snprintf(sh->desc + sizeof(sh->desc) - 8, 8, ", ...");
}

/*
 * The traces this rank draws on, and the devices it replays: the share's device table, so
 * every device in it has events here and a target (replay wants one for each).
 */
static int pick(const struct fleet *f, const struct plan *p, struct share *sh, const char **paths,
		uint64_t *shift, uint32_t *set_of, char *why, size_t len)
{
	unsigned int n = 0;

	for (uint32_t t = 0; t < p->ntraces; t++) {
		bool used = false;

		for (uint32_t i = 0; i < p->nstreams; i++)
			used |= p->s[i].rank == f->rank && p->s[i].trace == t;
		if (!used)
			continue;
		set_of[n] = t;
		paths[n] = p->traces[t].path;
		shift[n] = p->traces[t].shift_ns;
		n++;
		for (uint32_t d = 0; d < p->traces[t].ndev; d++) {
			struct share_dev *sd;
			bool mine_too = false;

			for (uint32_t i = 0; i < p->nstreams; i++)
				mine_too |= p->s[i].rank == f->rank && p->s[i].trace == t &&
					    p->s[i].dev == d;
			if (!mine_too)
				continue;
			if (sh->ndev >= TRACE_MAX_DEVICES) {
				snprintf(why, len,
					 "this rank's part holds more than %d devices: "
					 "spread the set over more ranks",
					 TRACE_MAX_DEVICES);
				return -ENOSPC;
			}
			sd = &sh->dev[sh->ndev++];
			sd->trace = t;
			sd->dev = d;
			snprintf(sd->name, sizeof(sd->name), "%.40s:%.22s", base_name(paths[n - 1]),
				 p->traces[t].dev_names[d]);
			sd->stream = NULL;
			for (uint32_t i = 0; i < p->nstreams && !sd->stream; i++)
				if (p->s[i].rank == f->rank && p->s[i].trace == t &&
				    p->s[i].dev == d)
					sd->stream = &p->s[i];
		}
	}
	return (int)n;
}

/* The traces must be the ones rank 0 planned with: a host may hold another file by the name. */
static int check_traces(const struct plan *p, struct trace_merge *m, const uint32_t *set_of,
			unsigned int n, char *why, size_t len)
{
	for (unsigned int i = 0; i < n; i++) {
		const struct plan_trace *t = &p->traces[set_of[i]];
		const struct trace_reader *r = trace_merge__reader(m, i);
		const struct trace_meta *mt = trace_reader__meta(r);
		uint64_t have = trace_reader__event_count(r);

		if (have != t->events || mt->genesis_realtime_ns != t->genesis_realtime_ns) {
			snprintf(why, len,
				 "trace %s here is not the one rank 0 planned with (%llu "
				 "events here, %llu there): give every host the same file",
				 t->path, (unsigned long long)have, (unsigned long long)t->events);
			return -ESTALE;
		}
	}
	return 0;
}

int share_build(const struct fleet *f, const struct plan *p, const char *dir, struct share *sh,
		char *why, size_t len)
{
	const char *paths[PLAN_MAX_TRACES];
	uint64_t shift[PLAN_MAX_TRACES];
	uint32_t set_of[PLAN_MAX_TRACES];
	struct trace_merge *m = NULL;
	struct trace_writer *w = NULL;
	struct trace_meta *meta = NULL;
	struct io_event *out = NULL;
	uint64_t seg = p->segments ? (uint64_t)f->rank * p->segment_bytes : 0;
	int remap[TRACE_MAX_DEVICES], fd;
	size_t nout = 0;
	int n, ret;

	memset(sh, 0, sizeof(*sh));
	describe(f, p, sh);
	n = pick(f, p, sh, paths, shift, set_of, why, len);
	if (n <= 0)
		return n;
	m = trace_merge__open(paths, (unsigned int)n, shift, 0, TRACE_MERGE_TIDS, why, len);
	if (!m)
		return -errno;
	ret = p->local_traces ? 0 : check_traces(p, m, set_of, (unsigned int)n, why, len);
	meta = malloc(sizeof(*meta));
	out = malloc(OUT_BATCH * sizeof(*out));
	if (!ret && (!meta || !out)) {
		snprintf(why, len, "out of memory");
		ret = -ENOMEM;
	}
	if (ret)
		goto out;
	*meta = *trace_merge__meta(m);
	for (uint32_t i = 0; i < TRACE_MAX_DEVICES; i++)
		remap[i] = -1;
	for (uint32_t d = 0; d < sh->ndev; d++) {
		const struct share_dev *sd = &sh->dev[d];
		uint32_t k = 0, from;

		while (set_of[k] != sd->trace)
			k++;
		from = trace_merge__dev_base(m, k) + sd->dev;
		remap[from] = (int)d;
		meta->devices[d] = trace_merge__meta(m)->devices[from];
		snprintf(meta->devices[d].name, sizeof(meta->devices[d].name), "%s", sd->name);
		if (seg) /* --segments: the device as the rank sees it, its region further on */
			meta->devices[d].size_bytes =
			    p->traces[sd->trace].dev_extent[sd->dev] + seg;
	}
	meta->ndevices = sh->ndev;
	/*
	 * Made here, exclusively and under a name nobody can guess (/tmp is everyone's): the name
	 * was the rank and the pid, and a symbolic link planted at it made a rank running as root
	 * write its part over the file the link named.
	 */
	snprintf(sh->path, sizeof(sh->path), "%s/ioreel-mpi-share-r%d-XXXXXX.ioreel", dir,
		 f->rank);
	fd = mkostemps(sh->path, (int)strlen(".ioreel"), O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	w = fd >= 0 ? trace_writer__open(sh->path, meta, NULL) : NULL;
	if (!w) {
		ret = -errno;
		snprintf(why, len, "cannot write this rank's part to %s: %s (give --share-dir)",
			 sh->path, strerror(errno));
		if (fd >= 0)
			unlink(sh->path); /* ours, made above */
		sh->path[0] = '\0';
		goto out;
	}
	for (;;) {
		struct io_event *e = &out[nout];
		unsigned int src;

		ret = trace_merge__next(m, e, &src);
		if (ret <= 0)
			break;
		if (e->dev >= TRACE_MAX_DEVICES || remap[e->dev] < 0 ||
		    !mine(f, p, set_of[src], e->dev - trace_merge__dev_base(m, src), e->offset))
			continue;
		e->dev = (uint32_t)remap[e->dev];
		if (e->op != IO_OP_FLUSH)
			e->offset += seg;
		sh->events++;
		if (++nout == OUT_BATCH) {
			ret = trace_writer__add(w, out, nout);
			nout = 0;
			if (ret < 0)
				break;
		}
	}
	if (!ret && nout)
		ret = trace_writer__add(w, out, nout);
	if (ret < 0) {
		snprintf(why, len, "writing this rank's part to %s: %s", sh->path,
			 trace_writer__error(w)[0] ? trace_writer__error(w)
						   : trace_merge__error(m));
	} else {
		struct trace_stats st = {.events = sh->events};

		ret = trace_writer__close(w, &st);
		w = NULL;
		if (ret)
			snprintf(why, len, "writing %s: %s", sh->path, strerror(-ret));
	}
out:
	if (w)
		trace_writer__abort(w);
	trace_merge__close(m);
	free(meta);
	free(out);
	if (ret)
		share_remove(sh);
	return ret;
}

void share_remove(struct share *sh)
{
	if (sh->path[0])
		unlink(sh->path);
	sh->path[0] = '\0';
}
