// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `ioreel convert IN OUT`: between .ioreel and the formats other tools write and read.
 *
 * Imports run twice over the input: a first pass validates the whole file and learns its device
 * table and genesis (the .ioreel header, written first, needs both), the second writes. So a bad
 * line is reported before any output exists, and memory stays bounded (stdin is spooled to an
 * unlinked temporary file to be read twice).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "ioreel.h"
#include "formats/convert.h"
#include "util/cli.h"
#include "util/json.h"
#include "util/outfile.h"

static void usage(FILE *o)
{
	char known[256];

	fprintf(o,
		"usage: ioreel convert IN OUT [--from FMT] [--to FMT] [--device NAME] [--salvage]\n"
		"                      [--window N] [--json]\n"
		"                      [--columns NAME=FIELD,...] [--time-unit U] [--sector-size N]\n"
		"\n"
		"Converts block I/O traces. IN/OUT may be '-' (stdin/stdout; give --from/--to).\n"
		"A file-level trace (record --level file) goes to csv, json or ioreel, a line per\n"
		"call with its file's path (header queue_ns,complete_ns,op,file,path,...).\n"
		"Formats (guessed from magic, header lines or CSV shape, then the file name):\n"
		"  ioreel    the .ioreel container (in and out)\n"
		"  fio       fio iolog v2 or v3 (in); fio3 (out): 'fio --read_iolog=OUT' replays it\n"
		"  blktrace  blktrace binary, blk_io_trace v7, either byte order (in; Q/D/C joined)\n"
		"  msr       MSR Cambridge CSV: Timestamp(100ns),Hostname,DiskNumber,Type,Offset,\n"
		"            Size,ResponseTime (in)\n"
		"  alibaba   Alibaba 2020 block CSV: device_id,opcode,offset,length,timestamp(us) (in)\n"
		"  csv       CSV with a header: ours, queue_ns,issue_ns,...,stream (in and out),\n"
		"            or columns named as other tools name them (in; see below)\n"
		"  json      JSON lines, every field of every I/O (out)\n"
		"\n"
		"Options:\n"
		"  --from FMT      input format (skip the guess)\n"
		"  --to FMT        output format (skip the guess from OUT's name)\n"
		"  --device NAME   the name (1 to 63 characters) of every device in the output:\n"
		"                  for an input that names none, or the file fio should open\n"
		"                  when exporting to fio\n"
		"  --salvage       skip bad lines/records/chunks (counted) instead of failing\n"
		"  --window N      events held to sort an unsorted input by time (default %d)\n"
		"  --json          print the summary as JSON\n"
		"  --columns NAME=FIELD,...  read CSV column NAME as FIELD (any name below, or -\n"
		"                  to leave it out): --columns Start=ts_us,Addr=lba,Junk=-\n"
		"  --time-unit U   ns, us, ms or s: the unit of CSV times whose name says none\n"
		"                  (timestamp, time, latency...)\n"
		"  --sector-size N bytes per lba/sector in a CSV (default 512)\n"
		"\n"
		"CSV columns: a header names them, in any order, case, '-' and ' ' as '_'. Besides\n"
		"our own names convert knows:\n"
		"  start     ts, timestamp, time, start, submit, arrival, start_time,\n"
		"            submit_time, arrival_time\n"
		"  issue     issue, dispatch, issue_time\n"
		"  complete  complete, completion, end, finish, end_time, complete_time\n"
		"  latency   latency, lat, response_time: completion = start + latency\n"
		"            each time with its unit: _ns _us _ms _s (_nsec _usec _msec _sec);\n"
		"            a whole or decimal number (1.5); no unit in the name: --time-unit\n"
		"  offset    offset, offset_bytes, off, byte_offset; lba, sector (sectors)\n"
		"  length    length, len, len_bytes, size, bytes, nbytes, io_size; sectors\n"
		"  op        op, rw, type, opcode, io_type, rwbs: read/write/flush/discard/trim,\n"
		"            R/W/D/F, 1 = read, 2 = write, or blkparse RWBS (WS, FWFS, RA)\n"
		"  dev       dev, device, disk, device_id, devname;  pid, process_id; tid,\n"
		"            thread_id; comm, process; flags; error, errno; cpu; stream\n"
		"A column it does not know, two columns for one field, or a time without a unit is\n"
		"an error naming the column (a column without a name, as pandas writes its index,\n"
		"is left out); convert says on stderr (and in --json) which column it took for\n"
		"which field. Needed: an offset, a length, an op and a time. A header has at most\n"
		"64 columns in 4096 bytes.\n"
		"\n"
		"Times become ns since the trace's genesis: the format's own zero for fio and\n"
		"blktrace, the first I/O for MSR and Alibaba (whose epoch goes to genesis_realtime).\n"
		"fio v2 'wait N' is read as documented (N us after the previous wait).\n"
		"Refused (each with its file and line; --salvage skips and counts them): an I/O\n"
		"whose offset + length passes 2^64, a CSV row whose times go backwards\n"
		"(complete_ns < issue_ns < queue_ns: it has no latency to give). A UTF-8\n"
		"byte-order mark before the first line is read as nothing.\n"
		"\n"
		"Examples:\n"
		"  ioreel convert job.iolog job.ioreel\n"
		"  ioreel convert sda.blktrace.0 sda.ioreel --device sda\n"
		"  ioreel convert CAMRESWEBA03-lvm0.csv web.ioreel --from msr\n"
		"  ioreel convert blocks.csv blocks.ioreel --time-unit us   # timestamp,lba,size,rw\n"
		"  ioreel convert trace.ioreel replay.iolog --device /dev/loop3\n"
		"  fio --name=r --read_iolog=replay.iolog --ioengine=libaio --direct=1\n"
		"  ioreel convert trace.ioreel - --to csv | head\n",
		IMPORT_WINDOW_DEFAULT);
	fprintf(o, "\nFile name suffixes known (OUT: those of ioreel, fio3, csv, json):\n  %s\n",
		conv_fmt_suffixes(NULL, known, sizeof(known)));
}

static bool writable(enum conv_fmt f)
{
	return f == CONV_IOREEL || f == CONV_FIO3 || f == CONV_FIO || f == CONV_CSV ||
	       f == CONV_JSON;
}

static bool readable(enum conv_fmt f)
{
	return f != CONV_NONE && f != CONV_JSON;
}

struct conv {
	const char *in_path, *out_path;
	enum conv_fmt from, to;
	const char *device;
	struct csv_opts csv; /* --columns, --time-unit, --sector-size */
	bool csv_given;
	bool salvage, json;
	size_t window;
	/* output */
	struct trace_meta *meta;
	struct trace_writer *w;
	struct export_ctx x;
	struct outfile of; /* an export's output, under a temporary name until complete */
	FILE *out;
	struct io_event batch[1024];
	size_t nbatch;
	uint64_t nbatch_seen; /* pass 1: events the window let out (a stop is looked for) */
	char err[1536];
	char columns[512]; /* a CSV's columns, when not named as ours: which went where */
	/* summary */
	uint64_t events, records, skipped, late, damaged, files;
};

/* SIGINT/SIGTERM: the verb stops at its next batch, its output removed (never half-written). */
static int stopped(struct conv *cv)
{
	if (!cli_stop)
		return 0;
	if (!cv->err[0])
		snprintf(cv->err, sizeof(cv->err), "interrupted by %s: %s not written",
			 cli_stop == SIGINT ? "SIGINT" : "SIGTERM", cv->out_path);
	return -EINTR;
}

static int flush_batch(struct conv *cv)
{
	int err = 0;

	if (!cv->nbatch)
		return 0;
	if ((err = stopped(cv)))
		return err;
	if (cv->w) {
		err = trace_writer__add(cv->w, cv->batch, cv->nbatch);
		if (err)
			snprintf(cv->err, sizeof(cv->err), "%s: %s", cv->out_path,
				 trace_writer__error(cv->w));
	} else if (cv->out) {
		err = export_events(&cv->x, cv->batch, cv->nbatch);
		if (err)
			snprintf(cv->err, sizeof(cv->err), "%s: %s", cv->out_path, cv->x.err);
	}
	cv->events += cv->nbatch;
	cv->nbatch = 0;
	return err;
}

static int sink(void *arg, const struct io_event *ev, size_t n)
{
	struct conv *cv = arg;
	int err;

	for (size_t i = 0; i < n; i++) {
		cv->batch[cv->nbatch++] = ev[i];
		if (cv->nbatch == sizeof(cv->batch) / sizeof(cv->batch[0]) && (err = flush_batch(cv)))
			return err;
	}
	return 0;
}

/* Pass 1 of an import writes nothing: it only looks for a stop now and then. */
static int sink_none(void *arg, const struct io_event *ev, size_t n)
{
	struct conv *cv = arg;

	(void)ev;
	cv->nbatch_seen += n;
	return (cv->nbatch_seen & 1023) ? 0 : stopped(cv);
}

static void rename_devices(struct conv *cv)
{
	if (!cv->device)
		return;
	for (uint32_t i = 0; i < cv->meta->ndevices; i++)
		snprintf(cv->meta->devices[i].name, sizeof(cv->meta->devices[i].name), "%s",
			 cv->device);
}

/* Opens OUT for the chosen format (the writer for .ioreel, a FILE* otherwise). */
static int open_output(struct conv *cv)
{
	int err;

	rename_devices(cv);
	if (cv->to == CONV_IOREEL) {
		struct trace_writer_opts wo = { .replace = true };

		cv->w = trace_writer__open(cv->out_path, cv->meta, &wo);
		if (!cv->w) {
			snprintf(cv->err, sizeof(cv->err), "%s: cannot create: %s", cv->out_path,
				 outfile_strerror(errno));
			return -errno;
		}
		return 0;
	}
	err = outfile_open(&cv->of, cv->out_path);
	if (!err && !(cv->out = outfile_fdopen(&cv->of)))
		err = -errno;
	if (err) {
		snprintf(cv->err, sizeof(cv->err), "%s: cannot create: %s", cv->out_path,
			 outfile_strerror(-err));
		outfile_abort(&cv->of);
		return err;
	}
	err = export_begin(&cv->x, cv->out, cv->to, cv->meta);
	if (err)
		snprintf(cv->err, sizeof(cv->err), "%s: %s", cv->out_path, cv->x.err);
	return err;
}

static int close_output(struct conv *cv, int err)
{
	if (!err)
		err = flush_batch(cv);
	if (!err)
		err = stopped(cv);
	if (cv->w) {
		/* the writer removes its temporary file; OUT is left as it was */
		if (err)
			trace_writer__abort(cv->w);
		else if ((err = trace_writer__close(cv->w, NULL)))
			snprintf(cv->err, sizeof(cv->err), "%s: %s", cv->out_path, strerror(-err));
		cv->w = NULL;
	} else if (cv->out) {
		int e2 = err ? 0 : export_end(&cv->x);
		if (e2) {
			snprintf(cv->err, sizeof(cv->err), "%s: %s", cv->out_path, cv->x.err);
			err = e2;
		}
		errno = 0;
		if (fclose(cv->out) && !err) {
			snprintf(cv->err, sizeof(cv->err), "%s: cannot write: %s", cv->out_path,
				 strerror(errno ? errno : EIO));
			err = -EIO;
		}
		if (!err)
			err = stopped(cv);
		if (err)
			outfile_abort(&cv->of); /* only the temporary file: never OUT itself */
		else if ((err = outfile_commit(&cv->of)))
			snprintf(cv->err, sizeof(cv->err), "%s: cannot put the output in place: %s",
				 cv->out_path, strerror(-err));
		cv->out = NULL;
	}
	return err;
}

/* The one place that names every importer (tests and the fuzzer call it too). */
int import_run(enum conv_fmt fmt, FILE *f, struct import_ctx *c)
{
	switch (fmt) {
	case CONV_FIO:
	case CONV_FIO2:
	case CONV_FIO3:
		return import_fio(f, c);
	case CONV_BLKTRACE:
		return import_blktrace(f, c);
	case CONV_MSR:
		return import_msr(f, c);
	case CONV_ALIBABA:
		return import_alibaba(f, c);
	case CONV_CSV:
		return import_csv(f, c);
	default:
		snprintf(c->err, sizeof(c->err), "cannot import format %s", conv_fmt_name(fmt));
		return -EINVAL;
	}
}

/* One pass of an importer over f; with a sink (pass 2) events go to the output. */
static int import_pass(struct conv *cv, FILE *f, struct trace_meta *m, bool write)
{
	struct import_window win;
	struct import_ctx c;
	int err;

	memset(&c, 0, sizeof(c));
	c.meta = m;
	c.device_name = cv->device; /* all devices become one */
	c.csv = &cv->csv;
	c.salvage = cv->salvage;
	c.win = &win;
	err = import_window_init(&win, cv->window, import_is_absolute(cv->from),
				 write ? sink : sink_none, cv);
	if (err) {
		snprintf(cv->err, sizeof(cv->err), "out of memory for a %zu-event window",
			 cv->window);
		return err;
	}
	err = import_run(cv->from, f, &c);
	if (!err)
		err = import_window_drain(&win);
	if (err && !cv->err[0]) {
		snprintf(cv->err, sizeof(cv->err), "%s: %s%s", cv->in_path,
			 c.err[0] ? c.err : strerror(-err),
			 err == -EINVAL && !cv->salvage && !c.bad_header
				 ? " (--salvage skips bad records)"
				 : "");
	}
	/* pass 1 says once which column it took for which field, when the names were not ours */
	if (!err && !write && c.said[0]) {
		fprintf(stderr, "ioreel convert: %s: columns: %s\n", cv->in_path, c.said);
		snprintf(cv->columns, sizeof(cv->columns), "%s", c.said);
	}
	if (!err && !write && c.has_realtime && win.based &&
	    win.first_abs_ns >= c.realtime_offset_ns)
		m->genesis_realtime_ns = win.first_abs_ns - c.realtime_offset_ns;
	if (!err && !write && !win.emitted) { /* --salvage too: an empty trace is no salvage */
		char skipped[64] = "";

		if (cv->salvage)
			snprintf(skipped, sizeof(skipped), "; %llu bad records skipped",
				 (unsigned long long)c.skipped);
		snprintf(cv->err, sizeof(cv->err), "%s: no I/O in the file (%s format%s)",
			 cv->in_path, conv_fmt_name(cv->from), skipped);
		err = -EINVAL;
	}
	cv->records = c.records;
	cv->skipped = c.skipped;
	cv->late = win.late;
	import_window_free(&win);
	return err;
}

static int run_import(struct conv *cv, FILE *f)
{
	static struct trace_meta scratch;
	char src[32];
	int err;

	snprintf(src, sizeof(src), "import:%s", conv_fmt_name(cv->from));
	trace_meta_init(cv->meta, src);
	cv->meta->genesis_realtime_ns = 0; /* imported: unknown unless the format says */
	snprintf(cv->meta->options, sizeof(cv->meta->options), "ioreel convert %s", cv->in_path);
	/* this machine is not the one the trace came from */
	cv->meta->host[0] = '\0';
	cv->meta->kernel[0] = '\0';
	err = import_pass(cv, f, cv->meta, false);
	if (err)
		return err;
	if (fseek(f, 0, SEEK_SET)) {
		snprintf(cv->err, sizeof(cv->err), "%s: cannot rewind: %s", cv->in_path,
			 strerror(errno));
		return -errno;
	}
	/* the device table is final now; pass 2 rebuilds it in a scratch copy (same order) */
	scratch = *cv->meta;
	scratch.ndevices = 0;
	scratch.options[0] = '\0';
	if ((err = open_output(cv)))
		return close_output(cv, err);
	err = import_pass(cv, f, &scratch, true);
	return close_output(cv, err);
}

/* A .ioreel input, read from path (IN, or the spooled copy of a pipe), named IN in messages. */
static int run_reader(struct conv *cv, const char *path)
{
	struct trace_reader *r;
	struct import_window win;
	struct io_event buf[4096];
	char why[256] = "";
	long n;
	int err;

	r = trace_reader__open_as(path, cv->in_path, cv->salvage ? TRACE_SALVAGE : 0, why,
				  sizeof(why));
	if (!r) {
		snprintf(cv->err, sizeof(cv->err), "%s", why); /* it names IN */
		return -EINVAL;
	}
	/* a trace cut short (no index, an incomplete last chunk dropped): said, as info says it */
	if (trace_reader__notice(r))
		cli_warn("%s", trace_reader__notice(r));
	*cv->meta = *trace_reader__meta(r);
	if (cv->meta->level == TRACE_LEVEL_FILE) {
		err = convert_file_trace(r, cv->out_path, cv->to, &cv->events, cv->err,
					 sizeof(cv->err));
		cv->records = cv->events;
		cv->files = trace_reader__file_count(r);
		trace_reader__close(r);
		return err;
	}
	if ((err = open_output(cv)))
		goto out;
	/* a trace that is not sorted (rare: imported unsorted) is sorted within the window */
	err = import_window_init(&win, trace_reader__is_sorted(r) ? 1 : cv->window, false, sink,
				 cv);
	if (err)
		goto out;
	while ((n = trace_reader__next(r, buf, sizeof(buf) / sizeof(buf[0]))) > 0) {
		if ((err = stopped(cv)))
			break;
		cv->records += (uint64_t)n;
		for (long i = 0; i < n && !err; i++)
			err = import_window_push(&win, &buf[i]);
		if (err)
			break;
	}
	if (n < 0 && !err) {
		snprintf(cv->err, sizeof(cv->err), "%s", trace_reader__error(r));
		err = (int)n;
	}
	if (!err)
		err = import_window_drain(&win);
	if (!err && cv->w) { /* the recording's CPU load goes along (replay --cpu) */
		const struct trace_cpu_load *l;
		uint32_t ncpus = 0, interval = 0;
		size_t nl = trace_reader__cpu_load(r, &l, &ncpus, &interval);

		if (nl && (err = trace_writer__add_cpu_load(cv->w, ncpus, interval, l, nl)))
			snprintf(cv->err, sizeof(cv->err), "%s: %s", cv->out_path,
				 trace_writer__error(cv->w));
	}
	cv->late = win.late;
	import_window_free(&win);
	cv->damaged = trace_reader__damaged_chunks(r);
	/* as of an import (run_import): an empty trace is no salvage; it wrote one, exit 0 */
	if (!err && !cv->records && cv->damaged) {
		snprintf(cv->err, sizeof(cv->err), "%s: no I/O left: every event was in the %llu "
			 "damaged chunk%s --salvage skipped", cv->in_path,
			 (unsigned long long)cv->damaged, cv->damaged == 1 ? "" : "s");
		err = -EINVAL;
	}
out:
	err = close_output(cv, err);
	trace_reader__close(r);
	return err;
}

/*
 * Imports read their input twice (and the format is sniffed from its first bytes): an input
 * that cannot seek (stdin, a named pipe, a process substitution) is copied to an unlinked
 * temporary file first. Read in place, a pipe lost its first 4 KiB to the sniffing. Devices
 * are refused before (open_input): a disk would be copied whole.
 */
static FILE *spool(FILE *src, const char *name, char *err, size_t len)
{
	char buf[65536];
	size_t n;
	FILE *t = tmpfile();

	if (!t) {
		snprintf(err, len, "%s: cannot create a temporary file to read it into: %s", name,
			 strerror(errno));
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof(buf), src)) > 0 && !cli_stop)
		if (fwrite(buf, 1, n, t) != n) {
			snprintf(err, len, "%s: cannot copy it to a temporary file: %s", name,
				 strerror(errno));
			fclose(t);
			return NULL;
		}
	if (cli_stop || ferror(src)) {
		/* a read cut by SIGINT is not the end of the input */
		snprintf(err, len, "%s: %s", name,
			 cli_stop ? "interrupted while reading it" : "cannot read it");
		fclose(t);
		return NULL;
	}
	rewind(t);
	return t;
}

/* The input, seekable: a regular file as it is, a pipe through spool(); *spooled says which. */
static FILE *open_input(const char *path, bool *spooled, char *err, size_t len)
{
	struct stat st;
	FILE *src, *t;

	*spooled = false;
	if (!strcmp(path, "-")) {
		*spooled = true;
		return spool(stdin, "-", err, len);
	}
	if (stat(path, &st)) {
		snprintf(err, len, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	if (S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode)) {
		/* a device would be copied whole (a disk, /dev/zero without end) */
		snprintf(err, len, "%s: is a %s, not a trace (give the trace file, or - for stdin)",
			 path, S_ISDIR(st.st_mode) ? "directory" : "device");
		return NULL;
	}
	src = fopen(path, "rb"); /* a named pipe's open waits for its writer, or a signal */
	if (!src) {
		if (cli_stop)
			snprintf(err, len, "%s: interrupted%s", path,
				 S_ISFIFO(st.st_mode) ? " while waiting for the pipe's writer" : "");
		else
			snprintf(err, len, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	if (S_ISREG(st.st_mode))
		return src;
	*spooled = true;
	t = spool(src, path, err, len);
	fclose(src);
	return t;
}

static void report(const struct conv *cv)
{
	FILE *o = strcmp(cv->out_path, "-") ? stdout : stderr;

	if (cv->json) {
		fputs("{\"input\":", o);
		json_str(o, cv->in_path);
		fprintf(o, ",\"from\":\"%s\",\"output\":", conv_fmt_name(cv->from));
		json_str(o, cv->out_path);
		fprintf(o,
			",\"to\":\"%s\","
			"\"events\":%" PRIu64 ",\"records\":%" PRIu64 ",\"skipped\":%" PRIu64
			",\"out_of_order\":%" PRIu64 ",\"damaged_chunks\":%" PRIu64
			",\"lossy\":%" PRIu64 ",\"devices\":%u",
			conv_fmt_name(cv->to), cv->events, cv->records, cv->skipped, cv->late, cv->damaged, cv->x.lossy,
			cv->meta->ndevices);
		if (cv->columns[0]) {
			fputs(",\"columns\":", o);
			json_str(o, cv->columns);
		}
		fputs("}\n", o);
		return;
	}
	if (cv->meta->level == TRACE_LEVEL_FILE)
		fprintf(o, "%s (%s, file level) -> %s (%s): %" PRIu64 " calls, %" PRIu64 " files",
			cv->in_path, conv_fmt_name(cv->from), cv->out_path, conv_fmt_name(cv->to),
			cv->events, cv->files);
	else
		fprintf(o, "%s (%s) -> %s (%s): %" PRIu64 " I/Os, %u device%s", cv->in_path,
			conv_fmt_name(cv->from), cv->out_path, conv_fmt_name(cv->to), cv->events,
			cv->meta->ndevices, cv->meta->ndevices == 1 ? "" : "s");
	if (cv->skipped)
		fprintf(o, ", %" PRIu64 " bad records skipped", cv->skipped);
	if (cv->damaged)
		fprintf(o, ", %" PRIu64 " damaged chunks skipped", cv->damaged);
	if (cv->late)
		fprintf(o, ", %" PRIu64 " I/Os out of time order (beyond --window)", cv->late);
	if (cv->x.lossy)
		fprintf(o, ", %" PRIu64 " write-zeroes written as writes", cv->x.lossy);
	fputc('\n', o);
}

/* Whether s holds a control byte (0x00-0x1f, 0x7f). */
static bool has_control(const char *s)
{
	for (; *s; s++)
		if (iscntrl((unsigned char)*s))
			return true;
	return false;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, 'f' }, { "to", required_argument, NULL, 't' },
		{ "device", required_argument, NULL, 'd' }, { "salvage", no_argument, NULL, 's' },
		{ "window", required_argument, NULL, 'w' }, { "json", no_argument, NULL, 'j' },
		{ "columns", required_argument, NULL, 'c' },
		{ "time-unit", required_argument, NULL, 'T' },
		{ "sector-size", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },	    { NULL, 0, NULL, 0 },
	};
	/* the options that take one value */
	struct {
		int opt;
		const char *name, *val;
	} once[] = {
		{ 'f', "--from", NULL },	 { 't', "--to", NULL },
		{ 'd', "--device", NULL },	 { 'w', "--window", NULL },
		{ 'c', "--columns", NULL },	 { 'T', "--time-unit", NULL },
		{ 'S', "--sector-size", NULL },
	};
	static struct trace_meta meta;
	struct conv *cv;
	uint64_t v;
	int o, err, rc = EXIT_OK;
	FILE *in = NULL;
	bool spooled = false;

	cli_verb = "convert";
	cli_catch_stop();
	cv = calloc(1, sizeof(*cv));
	if (!cv) {
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	cv->meta = &meta;
	cv->window = IMPORT_WINDOW_DEFAULT;
	optind = 1;
	/* ':' first: getopt_long says nothing, cli_getopt_error says it in one line */
	while ((o = getopt_long(argc, argv, ":f:t:d:sw:jh", opts, NULL)) != -1) {
		/* a value given twice: refused, not the last one taken (--to csv --to json wrote
		 * JSON lines into a .csv) */
		for (size_t i = 0; i < sizeof(once) / sizeof(once[0]); i++)
			if (o == once[i].opt && cli_set_once(&once[i].val, once[i].name, optarg))
				goto usage;
		switch (o) {
		case 'f':
			if (!readable(cv->from = conv_fmt_parse(optarg))) {
				cli_error("--from %s: unknown input format (fio, fio2, fio3, blktrace, "
					  "msr, alibaba, csv, ioreel)", optarg);
				goto usage;
			}
			break;
		case 't':
			cv->to = conv_fmt_parse(optarg);
			if (!writable(cv->to)) {
				cli_error("--to %s: cannot write that format (fio3, csv, json, ioreel)",
					  optarg);
				goto usage;
			}
			break;
		case 'd':
			/* it names every device of the output, which info and analyze print: a
			 * control byte would reach the terminal as it is (synth --name too) */
			if (has_control(optarg)) {
				cli_error("--device: a name of 1 to 63 characters, none a control "
					  "character (this one holds one)");
				goto usage;
			}
			if (!*optarg || strlen(optarg) >= sizeof(meta.devices[0].name)) {
				cli_error("--device '%.80s%s': a name of 1 to 63 characters",
					  optarg, strlen(optarg) > 80 ? "..." : "");
				goto usage;
			}
			cv->device = optarg;
			break;
		case 's':
			cv->salvage = true;
			break;
		case 'w':
			if (parse_u64(optarg, &v) || v < 1 || v > (1u << 24)) {
				cli_error("--window %s: a count of events from 1 to 16777216", optarg);
				goto usage;
			}
			cv->window = v;
			break;
		case 'j':
			cv->json = true;
			break;
		case 'c':
			if (csv_columns_check_spec(optarg, cv->err, sizeof(cv->err))) {
				cli_error("%s", cv->err);
				goto usage;
			}
			cv->csv.columns = optarg;
			cv->csv_given = true;
			break;
		case 'T': {
			static const char *const units[] = { "ns", "us", "ms", "s" };
			static const enum csv_unit uv[] = { CSVU_NS, CSVU_US, CSVU_MS, CSVU_S };
			cv->csv.time_unit = CSVU_NONE;
			for (int i = 0; i < 4; i++)
				if (!strcmp(optarg, units[i]))
					cv->csv.time_unit = uv[i];
			if (cv->csv.time_unit == CSVU_NONE) {
				cli_error("--time-unit %s: one of ns, us, ms, s", optarg);
				goto usage;
			}
			cv->csv_given = true;
			break;
		}
		case 'S':
			if (parse_u64(optarg, &v) || v < 1 || v > (1u << 20) || (v & (v - 1))) {
				cli_error("--sector-size %s: a power of two from 1 to 1048576 bytes "
					  "(512 when not given)", optarg);
				goto usage;
			}
			cv->csv.sector_size = (uint32_t)v;
			cv->csv_given = true;
			break;
		case 'h':
			usage(stdout);
			free(cv);
			return cli_close_stdout(EXIT_OK);
		default:
			rc = cli_getopt_error(o, argv, opts, "convert");
			goto out;
		}
	}
	if (argc - optind != 2) {
		cli_error("need IN and OUT (got %d argument%s)", argc - optind,
			  argc - optind == 1 ? "" : "s");
		goto usage;
	}
	cv->in_path = argv[optind];
	cv->out_path = argv[optind + 1];
	/* `convert X X`, ./X, a symlink or a hard link to X: the output would replace the input */
	if (strcmp(cv->in_path, "-") && strcmp(cv->out_path, "-") &&
	    outfile_same_file(cv->in_path, cv->out_path)) {
		cli_error("%s and %s are the same file: convert never writes the file it reads; "
			  "give OUT another name", cv->in_path, cv->out_path);
		goto usage;
	}
	if (!cv->to) {
		char known[256];

		cv->to = strcmp(cv->out_path, "-") ? conv_fmt_from_name(cv->out_path) : CONV_NONE;
		conv_fmt_suffixes(writable, known, sizeof(known));
		if (!cv->to) {
			cli_error("%s: cannot tell the output format from the name; known "
				  "suffixes: %s; or give --to (ioreel, fio3, csv, json)",
				  cv->out_path, known);
			goto usage;
		}
		if (!writable(cv->to)) {
			cli_error("%s: the name says %s, which convert reads but cannot "
				  "write; use a suffix it writes (%s) or give --to (ioreel, "
				  "fio3, csv, json)", cv->out_path, conv_fmt_name(cv->to), known);
			goto usage;
		}
	}
	if (cv->to == CONV_IOREEL && !strcmp(cv->out_path, "-")) {
		cli_error("a .ioreel trace cannot go to stdout (its index is written last)");
		goto usage;
	}

	if (!(in = open_input(cv->in_path, &spooled, cv->err, sizeof(cv->err))))
		goto fail;
	/* the CSV options say what the input is; any other format has no columns to name */
	if (cv->csv_given && !cv->from)
		cv->from = CONV_CSV;
	if (cv->csv_given && cv->from != CONV_CSV) {
		cli_error("--columns, --time-unit and --sector-size read a CSV with a header; "
			  "--from %s has none", conv_fmt_name(cv->from));
		goto usage;
	}
	if (!cv->from) {
		unsigned char head[4096];
		size_t n = fread(head, 1, sizeof(head), in);
		cv->from = conv_fmt_sniff(head, n);
		if (!cv->from)
			cv->from = conv_fmt_from_name(cv->in_path);
		if (!readable(cv->from)) {
			char known[256];

			conv_fmt_suffixes(readable, known, sizeof(known));
			if (n)
				snprintf(cv->err, sizeof(cv->err),
					 "%s: cannot tell the input format from its first bytes "
					 "or its name (known suffixes: %s); give --from (fio, "
					 "blktrace, msr, alibaba, csv, ioreel)",
					 cv->in_path, known);
			else
				snprintf(cv->err, sizeof(cv->err),
					 "%s: empty file; give --from (fio, blktrace, msr, "
					 "alibaba, csv, ioreel)", cv->in_path);
			goto fail;
		}
		rewind(in);
	}
	if (cv->from == CONV_IOREEL && spooled) {
		/* the reader seeks (the index is at the end): it reads the spooled copy, an
		 * unlinked file that only this descriptor reaches */
		char fd_path[32];

		snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fileno(in));
		err = run_reader(cv, fd_path);
	} else if (cv->from == CONV_IOREEL) {
		fclose(in);
		in = NULL;
		err = run_reader(cv, cv->in_path);
	} else {
		err = run_import(cv, in);
	}
	if (err)
		goto fail;
	report(cv);
	goto out;
usage:
	cli_try_help("convert");
	rc = EXIT_USAGE;
	goto out;
fail:
	cli_error("%s", cv->err[0] ? cv->err : "failed");
	rc = EXIT_RUNTIME;
out:
	if (in)
		fclose(in);
	free(cv);
	return cli_close_stdout(rc);
}
