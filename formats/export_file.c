// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `ioreel convert` of a file-level trace (formats/FORMAT.md, section 5): to CSV or JSON lines,
 * one line per call with its file's path, or to another .ioreel (file table, events and
 * counters copied; with --salvage, what could be read). fio's iologs have no place for most of
 * what such a trace holds (open flags, fsync results, renames): refused with a message.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "formats/convert.h"
#include "util/cli.h"
#include "util/json.h"
#include "util/outfile.h"

#define BATCH 4096

static const char csv_header[] = "queue_ns,complete_ns,op,file,path,offset,length,result,fd,"
				 "oflags,aux,arg,iface,flags,pid,tid,comm,cpu,issue_ns,oncpu_ns,cpuwait_ns";

static void put_ts(FILE *o, bool json, const char *k, uint64_t t)
{
	if (json && t == IO_TS_NONE)
		fprintf(o, "\"%s\":null,", k);
	else if (json)
		fprintf(o, "\"%s\":%" PRIu64 ",", k, t);
	else if (t != IO_TS_NONE)
		fprintf(o, "%" PRIu64 ",", t);
	else
		fputc(',', o);
}

static void line(FILE *o, bool json, const struct io_event *e, const struct io_fext *x,
		 const struct trace_file *f)
{
	char ofl[256], fl[64], comm[IO_COMM_LEN + 1];
	const char *path = f ? f->path : "";

	memcpy(comm, e->comm, IO_COMM_LEN);
	comm[IO_COMM_LEN] = '\0';
	io_oflags_format(x->oflags, ofl, sizeof(ofl));
	io_fflags_format(e->flags, fl, sizeof(fl));
	if (json)
		fputc('{', o);
	put_ts(o, json, "queue_ns", e->queue_ns);
	put_ts(o, json, "complete_ns", e->complete_ns);
	if (json) {
		fprintf(o, "\"op\":\"%s\",\"file\":%u,\"path\":", io_fop_name(e->op), x->file);
		json_strn(o, path, TRACE_FILE_PATH_MAX);
		fprintf(o,
			",\"offset\":%" PRIu64 ",\"length\":%u,\"result\":%" PRId64
			",\"fd\":%d,\"oflags\":\"%s\",\"aux\":%u,\"arg\":%" PRIu64
			",\"iface\":\"%s\",\"flags\":\"%s\",\"pid\":%u,\"tid\":%u,\"comm\":",
			e->offset, e->length, x->result, x->fd, ofl, x->aux, x->arg,
			io_fiface_name(x->iface), fl, e->pid, e->tid);
		json_strn(o, comm, IO_COMM_LEN);
		fprintf(o, ",\"cpu\":%u,\"issue_ns\":", e->cpu);
		if (e->issue_ns == IO_TS_NONE)
			fputs("null", o);
		else
			fprintf(o, "%" PRIu64, e->issue_ns);
		fputs(",\"oncpu_ns\":", o);
		if (e->oncpu_ns)
			fprintf(o, "%" PRIu64 ",\"cpuwait_ns\":%u}\n", e->oncpu_ns, e->cpuwait_ns);
		else
			fputs("null,\"cpuwait_ns\":null}\n", o);
		return;
	}
	fprintf(o, "%s,%u,", io_fop_name(e->op), x->file);
	export_csv_field(o, path);
	fprintf(o, ",%" PRIu64 ",%u,%" PRId64 ",%d,%s,%u,%" PRIu64 ",%s,%s,%u,%u,", e->offset,
		e->length, x->result, x->fd, ofl, x->aux, x->arg, io_fiface_name(x->iface), fl,
		e->pid, e->tid);
	comm[strcspn(comm, "\n\r")] = '\0';
	export_csv_field(o, comm);
	fprintf(o, ",%u,", e->cpu);
	/* last, so that the columns before keep their places: a replay's submission time */
	if (e->issue_ns != IO_TS_NONE)
		fprintf(o, "%" PRIu64, e->issue_ns);
	/* record --cpu: the thread's CPU time before the call (empty: not recorded) */
	/* and how long it waited for a CPU inside the call (known where oncpu_ns is) */
	fputc(',', o);
	if (e->oncpu_ns)
		fprintf(o, "%" PRIu64 ",%u", e->oncpu_ns, e->cpuwait_ns);
	else
		fputc(',', o);
	fputc('\n', o);
}

/* A copy as .ioreel: the whole file table first (the reader has it all), then the events. */
static int copy_trace(struct trace_reader *r, const char *out, uint64_t *events, char *err,
		      size_t len)
{
	static struct io_event ev[BATCH];
	static struct io_fext x[BATCH];
	struct trace_writer_opts wo = { .replace = true };
	struct trace_writer *w = trace_writer__open(out, trace_reader__meta(r), &wo);
	size_t nf = trace_reader__file_count(r), nc = trace_reader__counter_count(r);
	struct trace_counter *c = calloc(nc ? nc : 1, sizeof(*c));
	long n = 0;
	int e = 0;

	if (!w || !c) {
		snprintf(err, len, "%s: cannot create: %s", out, outfile_strerror(errno));
		free(c);
		trace_writer__abort(w);
		return -EIO;
	}
	for (uint32_t id = 1; id <= nf && !e; id++)
		e = trace_writer__add_files(w, trace_reader__file(r, id), 1);
	while (!e && (n = trace_reader__next_file(r, ev, x, BATCH)) > 0) {
		e = trace_writer__add_fevents(w, ev, x, n);
		*events += n;
		if (!e && cli_stop) {
			trace_writer__abort(w);
			free(c);
			snprintf(err, len, "interrupted: %s not written", out);
			return -EINTR;
		}
	}
	{ /* the recording's CPU load goes along (replay --cpu) */
		const struct trace_cpu_load *l;
		uint32_t ncpus = 0, interval = 0;
		size_t nl = trace_reader__cpu_load(r, &l, &ncpus, &interval);

		if (!e && n == 0 && nl)
			e = trace_writer__add_cpu_load(w, ncpus, interval, l, nl);
	}
	for (size_t i = 0; i < nc; i++)
		c[i] = *trace_reader__counter(r, i);
	if (!e && n == 0 && nc)
		e = trace_writer__set_counters(w, c, nc);
	free(c);
	if (n < 0) {
		snprintf(err, len, "%s", trace_reader__error(r));
		trace_writer__abort(w); /* removes its temporary file, never OUT */
		return (int)n;
	}
	if (e) {
		snprintf(err, len, "%s: %s", out, trace_writer__error(w));
		trace_writer__abort(w);
		return e;
	}
	e = trace_writer__close(w, trace_reader__stats(r));
	if (e)
		snprintf(err, len, "%s: %s", out, strerror(-e));
	return e;
}

int convert_file_trace(struct trace_reader *r, const char *out, enum conv_fmt to, uint64_t *events,
		       char *err, size_t len)
{
	static struct io_event ev[BATCH];
	static struct io_fext x[BATCH];
	const struct trace_meta *m = trace_reader__meta(r);
	bool json = to == CONV_JSON;
	struct outfile of;
	FILE *o = NULL;
	long n;
	int e = 0;

	*events = 0;
	if (to == CONV_IOREEL)
		return copy_trace(r, out, events, err, len);
	if (to != CONV_CSV && to != CONV_JSON) {
		snprintf(err, len,
			 "a file-level trace goes to csv, json or ioreel, not %s (fio "
			 "iologs have no open flags, results or renames)",
			 conv_fmt_name(to));
		return -EINVAL;
	}
	e = outfile_open(&of, out);
	if (!e && !(o = outfile_fdopen(&of)))
		e = -errno;
	if (e) {
		snprintf(err, len, "%s: cannot create: %s", out, outfile_strerror(-e));
		outfile_abort(&of);
		return e;
	}
	if (!json)
		fprintf(o,
			"# ioreel csv (file level): genesis_realtime_ns=%" PRIu64
			" source=%s files=%zu\n%s\n",
			m->genesis_realtime_ns, m->source, trace_reader__file_count(r), csv_header);
	while ((n = trace_reader__next_file(r, ev, x, BATCH)) > 0 && !cli_stop) {
		for (long i = 0; i < n; i++)
			line(o, json, &ev[i], &x[i], trace_reader__file(r, x[i].file));
		*events += n;
	}
	if (n < 0) {
		snprintf(err, len, "%s", trace_reader__error(r));
		e = (int)n;
	}
	if (cli_stop && !e) {
		snprintf(err, len, "interrupted: %s not written", out);
		e = -EINTR;
	}
	errno = 0;
	if ((fflush(o) || ferror(o)) && !e) {
		snprintf(err, len, "%s: cannot write: %s", out, strerror(errno ? errno : EIO));
		e = -EIO;
	}
	if (fclose(o) && !e) {
		snprintf(err, len, "%s: cannot write: %s", out, strerror(errno ? errno : EIO));
		e = -EIO;
	}
	if (e)
		outfile_abort(&of); /* the temporary file only, never OUT */
	else if ((e = outfile_commit(&of)))
		snprintf(err, len, "%s: cannot put the output in place: %s", out, strerror(-e));
	return e;
}
