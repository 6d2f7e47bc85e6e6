// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Text exporters: fio iolog v3 (fio replays it with read_iolog), CSV and JSON lines with every
 * field of an io_event. Events must come in time order (the fio log needs it; CSV/JSON keep
 * whatever order they are given).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "formats/convert.h"
#include "util/json.h"

/* oncpu_ns (record --cpu: the submitting thread's on-CPU time since its previous I/O) is
 * last and empty where not known, so readers by position of the older columns still work */
static const char csv_header[] = "queue_ns,issue_ns,complete_ns,dev,offset,length,op,flags,"
				 "error,pid,tid,comm,cpu,stream,oncpu_ns";

/* fio v3 file events restored from meta.options (see import_text.c) */
static void parse_file_events(struct export_ctx *x, const struct trace_meta *m)
{
	const char *p = strstr(m->options, FIO_FILES_TAG);
	struct export_fio_fev *fevs = x->fevs;
	int nfev = 0;

	if (!p)
		return;
	p += strlen(FIO_FILES_TAG);
	while (nfev < EXPORT_FIO_FEV_MAX) {
		unsigned int dev;
		unsigned long long us;
		char act[8];
		int used;

		if (sscanf(p, " %u:%7[a-z]@%llu%n", &dev, act, &us, &used) != 3)
			break;
		if (dev < m->ndevices && (!strcmp(act, "add") || !strcmp(act, "open") ||
					  !strcmp(act, "close"))) {
			fevs[nfev].dev = dev;
			fevs[nfev].us = us;
			snprintf(fevs[nfev].act, sizeof(fevs[nfev].act), "%s", act);
			nfev++;
		}
		p += used;
	}
	x->nfev = nfev;
}

void export_csv_field(FILE *o, const char *s)
{
	if (!s[strcspn(s, ",\"\n\r")]) {
		fputs(s, o);
		return;
	}
	fputc('"', o);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', o);
		fputc(*s, o);
	}
	fputc('"', o);
}

static void csv_ts(FILE *o, uint64_t t)
{
	if (t != IO_TS_NONE)
		fprintf(o, "%" PRIu64, t);
	fputc(',', o);
}

static void json_ts(FILE *o, const char *k, uint64_t t)
{
	if (t == IO_TS_NONE)
		fprintf(o, "\"%s\":null,", k);
	else
		fprintf(o, "\"%s\":%" PRIu64 ",", k, t);
}

int export_begin(struct export_ctx *x, FILE *out, enum conv_fmt fmt,
		 const struct trace_meta *meta)
{
	memset(x, 0, sizeof(*x));
	x->out = out;
	x->fmt = fmt;
	x->meta = meta;
	switch (fmt) {
	case CONV_FIO3:
	case CONV_FIO:
		x->fmt = CONV_FIO3;
		parse_file_events(x, meta);
		fputs("fio version 3 iolog\n", out);
		break;
	case CONV_CSV:
		fprintf(out, "# ioreel csv: genesis_realtime_ns=%" PRIu64 " source=%s\n",
			meta->genesis_realtime_ns, meta->source);
		fprintf(out, "%s\n", csv_header);
		break;
	case CONV_JSON:
		break;
	default:
		snprintf(x->err, sizeof(x->err), "cannot export to %s (fio3, csv, json, ioreel)",
			 conv_fmt_name(fmt));
		return -EINVAL;
	}
	return ferror(out) ? -EIO : 0;
}

static const char *dev_name(const struct export_ctx *x, uint32_t dev)
{
	return dev < x->meta->ndevices ? x->meta->devices[dev].name : "?";
}

/* File events up to and including time us. */
static void fio_file_events(struct export_ctx *x, uint64_t us)
{
	for (; x->fev_next < x->nfev && x->fevs[x->fev_next].us <= us; x->fev_next++) {
		const struct export_fio_fev *f = &x->fevs[x->fev_next];
		fprintf(x->out, "%" PRIu64 " %s %s\n", f->us, dev_name(x, f->dev), f->act);
		if (!strcmp(f->act, "open"))
			x->opened[f->dev] = 1;
		else if (!strcmp(f->act, "close"))
			x->opened[f->dev] = 2;
	}
}

static int fio_event(struct export_ctx *x, const struct io_event *e)
{
	uint64_t t = io_event_time(e), us = t == IO_TS_NONE ? x->last_us : t / 1000;
	const char *act;

	if (e->dev >= x->meta->ndevices) {
		snprintf(x->err, sizeof(x->err), "event %" PRIu64 " names device %u of %u",
			 x->events, e->dev, x->meta->ndevices);
		return -EINVAL;
	}
	if (us < x->last_us)
		us = x->last_us; /* fio needs non-decreasing times */
	fio_file_events(x, us);
	if (x->opened[e->dev] != 1) {
		/* no recorded add/open (or it was closed): open it where it is first used */
		if (!x->opened[e->dev])
			fprintf(x->out, "%" PRIu64 " %s add\n", us, dev_name(x, e->dev));
		fprintf(x->out, "%" PRIu64 " %s open\n", us, dev_name(x, e->dev));
		x->opened[e->dev] = 1;
	}
	switch (e->op) {
	case IO_OP_READ:
		act = "read";
		break;
	case IO_OP_WRITE:
		act = "write";
		break;
	case IO_OP_DISCARD:
		act = "trim";
		break;
	case IO_OP_FLUSH:
		act = e->flags & IO_F_META ? "sync" : "datasync";
		break;
	default:
		act = "write"; /* fio has no write-zeroes: same bytes on disk, counted as lossy */
		x->lossy++;
		break;
	}
	fprintf(x->out, "%" PRIu64 " %s %s %" PRIu64 " %u\n", us, dev_name(x, e->dev), act,
		e->offset, e->length);
	x->last_us = us;
	return 0;
}

static void csv_event(struct export_ctx *x, const struct io_event *e)
{
	FILE *o = x->out;
	char fl[64], comm[IO_COMM_LEN + 1];

	csv_ts(o, e->queue_ns);
	csv_ts(o, e->issue_ns);
	csv_ts(o, e->complete_ns);
	export_csv_field(o, dev_name(x, e->dev));
	fprintf(o, ",%" PRIu64 ",%u,%s,%s,%d,%u,%u,", e->offset, e->length, io_op_name(e->op),
		io_flags_format(e->flags, fl, sizeof(fl)), e->error, e->pid, e->tid);
	memcpy(comm, e->comm, IO_COMM_LEN);
	comm[IO_COMM_LEN] = '\0';
	comm[strcspn(comm, "\n\r")] = '\0'; /* a comm with a newline cannot be one CSV line */
	export_csv_field(o, comm);
	fprintf(o, ",%u,%u,", e->cpu, e->stream);
	if (e->oncpu_ns)
		fprintf(o, "%" PRIu64, e->oncpu_ns);
	fputc('\n', o);
}

static void json_event(struct export_ctx *x, const struct io_event *e)
{
	FILE *o = x->out;
	char fl[64];

	fputc('{', o);
	json_ts(o, "queue_ns", e->queue_ns);
	json_ts(o, "issue_ns", e->issue_ns);
	json_ts(o, "complete_ns", e->complete_ns);
	fputs("\"dev\":", o);
	json_strn(o, dev_name(x, e->dev), 64);
	fprintf(o, ",\"offset\":%" PRIu64 ",\"length\":%u,\"op\":\"%s\",\"flags\":\"%s\","
		   "\"error\":%d,\"pid\":%u,\"tid\":%u,\"comm\":",
		e->offset, e->length, io_op_name(e->op), io_flags_format(e->flags, fl, sizeof(fl)),
		e->error, e->pid, e->tid);
	json_strn(o, e->comm, IO_COMM_LEN);
	fprintf(o, ",\"cpu\":%u,\"stream\":%u,\"oncpu_ns\":", e->cpu, e->stream);
	if (e->oncpu_ns)
		fprintf(o, "%" PRIu64 "}\n", e->oncpu_ns);
	else
		fputs("null}\n", o);
}

int export_events(struct export_ctx *x, const struct io_event *ev, size_t n)
{
	int err;

	for (size_t i = 0; i < n; i++, x->events++) {
		switch (x->fmt) {
		case CONV_FIO3:
			if ((err = fio_event(x, &ev[i])))
				return err;
			break;
		case CONV_CSV:
			csv_event(x, &ev[i]);
			break;
		default:
			json_event(x, &ev[i]);
			break;
		}
	}
	if (ferror(x->out)) {
		snprintf(x->err, sizeof(x->err), "cannot write after %" PRIu64 " events: %s",
			 x->events, strerror(errno ? errno : EIO));
		return -EIO;
	}
	return 0;
}

int export_end(struct export_ctx *x)
{
	if (x->fmt == CONV_FIO3) {
		fio_file_events(x, UINT64_MAX);
		bool noted[TRACE_MAX_DEVICES] = { false };
		/* a log that had file events gets back exactly those (fio closes at exit anyway) */
		for (int i = 0; i < x->nfev; i++)
			noted[x->fevs[i].dev] = true;
		for (uint32_t d = 0; d < x->meta->ndevices && d < TRACE_MAX_DEVICES; d++)
			if (x->opened[d] == 1 && !noted[d])
				fprintf(x->out, "%" PRIu64 " %s close\n", x->last_us, dev_name(x, d));
	}
	if (fflush(x->out) || ferror(x->out)) {
		snprintf(x->err, sizeof(x->err), "cannot write: %s", strerror(errno ? errno : EIO));
		return -EIO;
	}
	return 0;
}
