// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Line-oriented importers: fio iolog v2/v3, MSR Cambridge CSV, Alibaba 2020 block CSV and
 * CSV with a header (what export_text.c writes, so CSV round-trips, and the columns other
 * tools write, named through csv_columns.c).
 *
 * fio v2 `wait`: fio's HOWTO says "wait for offset microseconds" relative to the previous wait,
 * but iolog.c compares it with milliseconds since job start (fio issues #247, #756, #1568).
 * We follow the documented meaning (µs, cumulative), because that is what people write by
 * hand; a v2 log that relied on fio's code behaviour will come out 1000x compressed in time.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "formats/convert.h"

/* Windows FILETIME (100 ns ticks since 1601-01-01) of the Unix epoch. */
#define FILETIME_UNIX_EPOCH_TICKS 116444736000000000ULL

__attribute__((format(printf, 3, 4))) static int bad(struct import_ctx *c, uint64_t line,
						     const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(c->err, sizeof(c->err), "line %llu: ", (unsigned long long)line);

	va_start(ap, fmt);
	vsnprintf(c->err + n, sizeof(c->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Strict unsigned parse of a whole token. */
static int u64_of(const char *s, uint64_t *v)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*v = x;
	return 0;
}

static int u32_of(const char *s, uint32_t *v)
{
	uint64_t x;

	if (u64_of(s, &x) || x > UINT32_MAX)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

static void event_init(struct io_event *e)
{
	memset(e, 0, sizeof(*e));
	e->queue_ns = e->issue_ns = e->complete_ns = IO_TS_NONE;
}

/* Splits on blanks; returns the token count (at most max; more is -EINVAL). */
static int split_ws(char *s, char **tok, int max)
{
	int n = 0;

	for (;;) {
		s += strspn(s, " \t");
		if (!*s)
			return n;
		if (n == max)
			return -EINVAL;
		tok[n++] = s;
		s += strcspn(s, " \t");
		if (*s)
			*s++ = '\0';
	}
}

/* Records "DEV:ACTION@US" in meta.options so fio export can restore add/open/close lines. */
static void note_fio_file_event(struct import_ctx *c, int dev, const char *act, uint64_t us)
{
	char *o = c->meta->options;
	size_t n = strlen(o);

	if (!strstr(o, FIO_FILES_TAG)) {
		int w = snprintf(o + n, sizeof(c->meta->options) - n, "%s%s", n ? " " : "",
				 FIO_FILES_TAG);
		if (w < 0 || (size_t)w >= sizeof(c->meta->options) - n) {
			o[n] = '\0';
			return;
		}
		n += (size_t)w;
	}
	/* when it does not fit, export falls back to add/open at first use */
	int w = snprintf(o + n, sizeof(c->meta->options) - n, " %d:%s@%llu", dev, act,
			 (unsigned long long)us);
	if (w < 0 || (size_t)w >= sizeof(c->meta->options) - n)
		o[n] = '\0';
}

int import_fio(FILE *f, struct import_ctx *c)
{
	char line[IMPORT_LINE_BUF], *tok[6];
	uint64_t lineno = 0, now_us = 0;
	int version, r;

	r = import_getline(f, line, true);
	lineno = 1;
	/* --salvage skips records: the version line is not one ("--salvage skips bad records"
	 * after 'not a fio iolog' sent the user to an option that changed nothing) */
	c->bad_header = true;
	if (r <= 0)
		return bad(c, 1, "%s", r == -EILSEQ ? IMPORT_NUL_WHY
				 : r < 0    ? "line too long"
					    : "empty file, expected 'fio version 3 iolog'");
	if (!strcmp(line, "fio version 2 iolog"))
		version = 2;
	else if (!strcmp(line, "fio version 3 iolog"))
		version = 3;
	else
		return bad(c, 1, "not a fio iolog (expected 'fio version 2 iolog' or "
				 "'fio version 3 iolog')");
	c->bad_header = false;

	while ((r = import_getline(f, line, false)) != 0) {
		struct io_event e;
		uint64_t off = 0, len = 0, ts = 0;
		int nt, dev, op = -1, k = 0;
		unsigned int flags = 0;

		lineno++;
		c->records++;
		if (r < 0) {
			if (c->salvage) {
				c->skipped++;
				continue;
			}
			if (r == -EILSEQ)
				return bad(c, lineno, IMPORT_NUL_WHY);
			return bad(c, lineno, "line longer than %d bytes", IMPORT_LINE_MAX);
		}
		nt = split_ws(line, tok, 6);
		if (nt == 0)
			continue;
		if (version == 3) {
			if (nt < 0 || (nt != 3 && nt != 5) || u64_of(tok[0], &ts)) {
				if (c->salvage) {
					c->skipped++;
					continue;
				}
				return bad(c, lineno, "expected 'TIMESTAMP FILE ACTION [OFFSET LENGTH]'");
			}
			if (ts > UINT64_MAX / 1000)
				return bad(c, lineno, "timestamp %s us out of range", tok[0]);
			now_us = ts;
			k = 1;
			nt--;
		} else if (nt < 0 || (nt != 2 && nt != 3 && nt != 4)) {
			if (c->salvage) {
				c->skipped++;
				continue;
			}
			return bad(c, lineno, "expected 'FILE ACTION [OFFSET LENGTH]'");
		}
		const char *file = tok[k], *act = tok[k + 1];

		if (!strcmp(act, "add") || !strcmp(act, "open") || !strcmp(act, "close")) {
			if (nt != 2)
				return bad(c, lineno, "'%s' takes no offset/length", act);
			dev = import_device(c, file, 0, 0);
			if (dev < 0)
				return bad(c, lineno, "more than %d files", TRACE_MAX_DEVICES);
			if (version == 3)
				note_fio_file_event(c, dev, act, now_us);
			continue;
		}
		/* fio writes "FILE wait US 0": the number is the first field after the action */
		if (!strcmp(act, "wait") && nt >= 3 && u64_of(tok[k + 2], &off)) {
			if (c->salvage) {
				c->skipped++;
				continue;
			}
			return bad(c, lineno, "'wait %s': a wait is a whole number of microseconds "
					      "(0 or more)", tok[k + 2]);
		}
		if (!strcmp(act, "wait") && nt < 3)
			return bad(c, lineno, "'wait' needs the microseconds to wait");
		if (nt >= 3 && u64_of(tok[k + 2], &off))
			goto bad_num;
		if (nt == 4 && u64_of(tok[k + 3], &len))
			goto bad_num;
		if (!strcmp(act, "wait")) {
			if (version == 3)
				return bad(c, lineno, "'wait' is not allowed in a v3 iolog");
			/* documented semantics: µs after the previous wait */
			if (off > UINT64_MAX / 1000 - now_us)
				return bad(c, lineno, "wait %llu us overflows the clock",
					   (unsigned long long)off);
			now_us += off;
			continue;
		}
		if (!strcmp(act, "read"))
			op = IO_OP_READ;
		else if (!strcmp(act, "write"))
			op = IO_OP_WRITE;
		else if (!strcmp(act, "trim"))
			op = IO_OP_DISCARD;
		else if (!strcmp(act, "sync"))
			op = IO_OP_FLUSH, flags = IO_F_META; /* fsync: data and metadata */
		else if (!strcmp(act, "datasync"))
			op = IO_OP_FLUSH;
		if (op < 0) {
			if (c->salvage) {
				c->skipped++;
				continue;
			}
			return bad(c, lineno, "unknown action '%s'", act);
		}
		if (op != IO_OP_FLUSH && nt != 4)
			return bad(c, lineno, "'%s' needs OFFSET LENGTH", act);
		if (len > UINT32_MAX)
			return bad(c, lineno, "length %llu larger than 4 GiB",
				   (unsigned long long)len);
		if (import_past_end(off, len))
			return bad(c, lineno, "offset %llu + length %llu passes the end of any device "
					      "(2^64 bytes)", (unsigned long long)off,
				   (unsigned long long)len);
		dev = import_device(c, file, 0, 0);
		if (dev < 0)
			return bad(c, lineno, "more than %d files", TRACE_MAX_DEVICES);
		event_init(&e);
		e.queue_ns = now_us * 1000;
		e.offset = off;
		e.length = (uint32_t)len;
		e.op = (uint8_t)op;
		e.flags = (uint8_t)flags;
		e.dev = (uint32_t)dev;
		if ((r = import_window_push(c->win, &e)))
			return r;
		continue;
bad_num:
		if (c->salvage) {
			c->skipped++;
			continue;
		}
		return bad(c, lineno, "offset/length is not an unsigned number");
	}
	return 0;
}

/* Fields of a line, header or row, at most (convert --help says so of the header). */
#define CSV_FIELDS_MAX 64

/* Called per data line of a comma-separated file by csv_rows. */
typedef int (*csv_line_fn)(struct import_ctx *c, char **f, int nf, uint64_t lineno, void *st);

/*
 * The next line that is not empty, split into fld: 1, with *nf fields (-1: more than maxf or
 * bad quoting); -EINVAL when longer than IMPORT_LINE_MAX, -EILSEQ with a NUL byte (*nf = -1);
 * 0 at the end.
 */
static int csv_next(FILE *f, struct import_ctx *c, char *line, char **fld, int maxf,
		    uint64_t *lineno, int *nf)
{
	int r;

	*nf = -1;
	while ((r = import_getline(f, line, !*lineno)) != 0) {
		++*lineno;
		if (r < 0)
			return r;
		if (!line[0])
			continue;
		c->records++;
		*nf = import_split_csv(line, fld, maxf);
		return 1;
	}
	return 0;
}

/* Calls fn per line after line `lineno` (0: from the start), a bad one skipped by --salvage. */
static int csv_rows(FILE *f, struct import_ctx *c, int maxf, csv_line_fn fn, void *st,
		    uint64_t lineno)
{
	char line[IMPORT_LINE_BUF], *fld[CSV_FIELDS_MAX];
	int r, nf;

	while ((r = csv_next(f, c, line, fld, maxf, &lineno, &nf)) != 0) {
		if (nf < 0) { /* too long (r < 0), or not split */
			if (c->salvage) {
				c->skipped++;
				continue;
			}
			if (r == -EILSEQ)
				return bad(c, lineno, IMPORT_NUL_WHY);
			if (r < 0)
				return bad(c, lineno, "line longer than %d bytes", IMPORT_LINE_MAX);
			return bad(c, lineno, "malformed CSV (bad quoting or more than %d fields)",
				   maxf);
		}
		r = fn(c, fld, nf, lineno, st);
		if (r == -EINVAL && c->salvage) {
			c->skipped++;
			continue;
		}
		if (r)
			return r;
	}
	return 0;
}

static int msr_line(struct import_ctx *c, char **f, int nf, uint64_t lineno, void *st)
{
	uint64_t ticks, off, size, rt;
	struct io_event e;
	char name[64];
	int dev;

	(void)st;
	if (lineno == 1 && nf >= 1 && !strcasecmp(f[0], "Timestamp"))
		return 0; /* optional header */
	if (nf != 7)
		return bad(c, lineno, "expected 7 MSR fields "
				      "(Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime), "
				      "got %d", nf);
	if (u64_of(f[0], &ticks) || u64_of(f[4], &off) || u64_of(f[5], &size) ||
	    u64_of(f[6], &rt))
		return bad(c, lineno, "Timestamp/Offset/Size/ResponseTime must be unsigned numbers");
	if (ticks > UINT64_MAX / 100 || rt > UINT64_MAX / 100 || ticks * 100 > UINT64_MAX - rt * 100)
		return bad(c, lineno, "timestamp out of range");
	if (size > UINT32_MAX)
		return bad(c, lineno, "Size %llu larger than 4 GiB", (unsigned long long)size);
	if (import_past_end(off, size))
		return bad(c, lineno, "Offset %llu + Size %llu passes the end of any device (2^64 "
				      "bytes)", (unsigned long long)off, (unsigned long long)size);
	event_init(&e);
	if (!strcasecmp(f[3], "Read"))
		e.op = IO_OP_READ;
	else if (!strcasecmp(f[3], "Write"))
		e.op = IO_OP_WRITE;
	else
		return bad(c, lineno, "Type '%s' is neither Read nor Write", f[3]);
	snprintf(name, sizeof(name), "%.40s_%.20s", f[1], f[2]);
	dev = import_device(c, name, 0, 0);
	if (dev < 0)
		return bad(c, lineno, "more than %d devices", TRACE_MAX_DEVICES);
	/* MSR gives the arrival time and the response time, nothing about driver issue */
	e.queue_ns = ticks * 100;
	e.complete_ns = e.queue_ns + rt * 100;
	e.offset = off;
	e.length = (uint32_t)size;
	e.dev = (uint32_t)dev;
	if (!c->has_realtime && e.queue_ns >= FILETIME_UNIX_EPOCH_TICKS * 100) {
		c->has_realtime = true;
		c->realtime_offset_ns = FILETIME_UNIX_EPOCH_TICKS * 100;
	}
	return import_window_push(c->win, &e);
}

int import_msr(FILE *f, struct import_ctx *c)
{
	return csv_rows(f, c, 16, msr_line, NULL, 0);
}

static int ali_line(struct import_ctx *c, char **f, int nf, uint64_t lineno, void *st)
{
	uint64_t off, len, us;
	struct io_event e;
	int dev;

	(void)st;
	if (lineno == 1 && nf >= 1 && !strcasecmp(f[0], "device_id"))
		return 0;
	if (nf != 5)
		return bad(c, lineno, "expected 5 Alibaba fields "
				      "(device_id,opcode,offset,length,timestamp), got %d", nf);
	if (u64_of(f[2], &off) || u64_of(f[3], &len) || u64_of(f[4], &us) || !f[0][0])
		return bad(c, lineno, "offset/length/timestamp must be unsigned numbers");
	if (len > UINT32_MAX || us > UINT64_MAX / 1000)
		return bad(c, lineno, "length or timestamp out of range");
	if (import_past_end(off, len))
		return bad(c, lineno, "offset %llu + length %llu passes the end of any device (2^64 "
				      "bytes)", (unsigned long long)off, (unsigned long long)len);
	event_init(&e);
	if (!strcasecmp(f[1], "R"))
		e.op = IO_OP_READ;
	else if (!strcasecmp(f[1], "W"))
		e.op = IO_OP_WRITE;
	else
		return bad(c, lineno, "opcode '%s' is neither R nor W", f[1]);
	dev = import_device(c, f[0], 0, 0);
	if (dev < 0)
		return bad(c, lineno, "more than %d devices", TRACE_MAX_DEVICES);
	e.queue_ns = us * 1000; /* "received by server", µs since the Unix epoch */
	e.offset = off;
	e.length = (uint32_t)len;
	e.dev = (uint32_t)dev;
	c->has_realtime = true;
	c->realtime_offset_ns = 0;
	return import_window_push(c->win, &e);
}

int import_alibaba(FILE *f, struct import_ctx *c)
{
	return csv_rows(f, c, 16, ali_line, NULL, 0);
}

/* ---- CSV: a header names the columns (csv_columns.c says which is which) ---- */

struct csv_state {
	struct csv_columns cols;
	int nf;
};

/* A number of bytes, or of sectors times scale; length below 4 GiB when max says so. */
static int bytes_of(const char *s, uint64_t scale, uint64_t max, uint64_t *v)
{
	uint64_t x;

	if (u64_of(s, &x) || (scale > 1 && x > max / scale) || x * scale > max)
		return -EINVAL;
	*v = x * scale;
	return 0;
}

static int csv_header(struct import_ctx *c, struct csv_state *st, char **f, int nf,
		      uint64_t lineno)
{
	char why[sizeof(c->err) - 32];

	if (csv_columns_resolve(f, nf, c->csv, &st->cols, why, sizeof(why))) {
		/* without a header no line can be read: --salvage would not help */
		c->bad_header = true;
		return bad(c, lineno, "%s", why);
	}
	if (st->cols.foreign)
		snprintf(c->said, sizeof(c->said), "%s", st->cols.said);
	st->nf = nf;
	return 0;
}

/* "# genesis_realtime_ns=N" carries the one piece of meta CSV cannot hold. */
static void csv_comment(struct import_ctx *c, const char *line)
{
	const char *g = strstr(line, "genesis_realtime_ns=");

	if (g && g[20] >= '0' && g[20] <= '9')
		c->meta->genesis_realtime_ns = strtoull(g + 20, NULL, 10);
}

/* What is wrong with a line csv_next could not split (r < 0: too long, or nul: a NUL byte in
 * it), header limits said. */
static int header_unreadable(struct import_ctx *c, uint64_t lineno, const char *what, bool nul)
{
	const char *skipped =
		c->salvage ? " (skipped by --salvage, and no line after it is a header)" : "";

	c->bad_header = true;
	if (nul)
		return bad(c, lineno, "the CSV header %s%s: " IMPORT_TEXT_WHY, what, skipped);
	return bad(c, lineno, "the CSV header %s%s: convert reads a header of at most %d columns "
			      "in %d bytes", what, skipped, CSV_FIELDS_MAX, IMPORT_LINE_MAX);
}

/*
 * Reads the file up to its header, the first line that is neither empty nor a comment, and
 * resolves the columns; *lineno is then the header's line. A line that cannot be split there
 * is the header's error without --salvage (--salvage would not help). With it the line is
 * skipped as any bad one, the next taken as the header; if none is, that line is what went
 * wrong: it said "no CSV header" of a header of 1,000,000 columns.
 */
static int csv_read_header(FILE *f, struct import_ctx *c, struct csv_state *st,
			   uint64_t *lineno)
{
	char line[IMPORT_LINE_BUF], *fld[CSV_FIELDS_MAX], what[64];
	uint64_t skipped_at = 0; /* the first line skipped where the header was due */
	bool nul = false;	 /* that line held a NUL byte */
	int r, nf;

	while ((r = csv_next(f, c, line, fld, CSV_FIELDS_MAX, lineno, &nf)) != 0) {
		if (nf < 0) {
			if (!skipped_at) {
				nul = r == -EILSEQ;
				if (nul)
					snprintf(what, sizeof(what), "holds a NUL byte");
				else if (r < 0)
					snprintf(what, sizeof(what), "is longer than %d bytes",
						 IMPORT_LINE_MAX);
				else
					snprintf(what, sizeof(what),
						 "has more than %d fields or bad quoting",
						 CSV_FIELDS_MAX);
				if (!c->salvage)
					return header_unreadable(c, *lineno, what, nul);
				skipped_at = *lineno;
			}
			c->skipped++;
			continue;
		}
		if (fld[0][0] != '#')
			break;
		/* export_file.c's CSV: its columns (file, path, fd...) would be refused one by one
		 * as unknown, which says nothing of why */
		if (strstr(fld[0], "ioreel csv (file level)")) {
			r = bad(c, *lineno, "a file-level CSV (convert wrote it from a trace "
					    "recorded with --level file): convert imports block "
					    "I/O only; replay or convert the .ioreel it came from");
			if (!c->salvage) {
				c->bad_header = true; /* no record --salvage could skip */
				return r;
			}
			c->skipped++;
			continue;
		}
		csv_comment(c, fld[0]);
	}
	if (!r && skipped_at)
		return header_unreadable(c, skipped_at, what, nul);
	if (!r) { /* --salvage skips records: it cannot make a header */
		c->bad_header = true;
		if (!*lineno)
			snprintf(c->err, sizeof(c->err), "the file is empty: no CSV header "
							 "(expected queue_ns,...)");
		else
			snprintf(c->err, sizeof(c->err), "no CSV header in its %llu line%s, only "
				 "comments and blank lines (expected queue_ns,...)",
				 (unsigned long long)*lineno, *lineno == 1 ? "" : "s");
		return -EINVAL;
	}
	r = csv_header(c, st, fld, nf, *lineno);
	if (r && skipped_at) {
		/* the header it refused is the line after the one that was */
		size_t n = strlen(c->err);

		if (nul)
			snprintf(c->err + n, sizeof(c->err) - n,
				 " (line %llu, skipped by --salvage, %s: convert reads text)",
				 (unsigned long long)skipped_at, what);
		else
			snprintf(c->err + n, sizeof(c->err) - n,
				 " (line %llu, skipped by --salvage, %s: convert reads a header of "
				 "at most %d columns in %d bytes)",
				 (unsigned long long)skipped_at, what, CSV_FIELDS_MAX,
				 IMPORT_LINE_MAX);
	}
	return r;
}

static int csv_line(struct import_ctx *c, char **f, int nf, uint64_t lineno, void *arg)
{
	struct csv_state *st = arg;
	const struct csv_columns *k = &st->cols;
	struct io_event e;
	uint64_t lat = IO_TS_NONE, oncpu = IO_TS_NONE;
	uint32_t u;

	if (f[0][0] == '#') {
		csv_comment(c, f[0]);
		return 0;
	}
	if (nf != st->nf)
		return bad(c, lineno, "%d fields, the header has %d", nf, st->nf);
	event_init(&e);
#define COL(i) (k->col[i] >= 0 ? f[k->col[i]] : NULL)
#define NAME(i) (k->col[i] >= 0 ? csv_field_name(i) : "")
	const int tcols[] = { CSVF_QUEUE, CSVF_ISSUE, CSVF_COMPLETE, CSVF_LATENCY, CSVF_ONCPU };
	uint64_t *tdst[] = { &e.queue_ns, &e.issue_ns, &e.complete_ns, &lat, &oncpu };
	for (int i = 0; i < 5; i++) {
		const char *s = COL(tcols[i]);
		if (s && csv_time_parse(s, k->scale[tcols[i]], tdst[i]))
			return bad(c, lineno, "%s '%s' is not an unsigned number of %s (empty = "
					      "absent)", NAME(tcols[i]), s,
				   k->unit[tcols[i]] == CSVU_S	 ? "s"
				   : k->unit[tcols[i]] == CSVU_MS ? "ms"
				   : k->unit[tcols[i]] == CSVU_US ? "us"
								  : "ns");
	}
	e.oncpu_ns = oncpu != IO_TS_NONE ? oncpu : 0; /* empty: not known */
	if (lat != IO_TS_NONE) {
		/* completion = start + latency, the start being the queue time, else the issue */
		uint64_t start = e.queue_ns != IO_TS_NONE ? e.queue_ns : e.issue_ns;
		if (start != IO_TS_NONE) {
			if (lat >= IO_TS_NONE - start)
				return bad(c, lineno, "start + latency overflows the clock");
			e.complete_ns = start + lat;
		}
	}
	if (io_event_time(&e) == IO_TS_NONE)
		return bad(c, lineno, "no time at all (every time column is empty)");
	uint64_t len;
	if (bytes_of(COL(CSVF_OFFSET), k->scale[CSVF_OFFSET], UINT64_MAX, &e.offset) ||
	    bytes_of(COL(CSVF_LENGTH), k->scale[CSVF_LENGTH], UINT32_MAX, &len))
		return bad(c, lineno, "offset/length must be unsigned numbers (length < 4 GiB)");
	e.length = (uint32_t)len;
	if (import_past_end(e.offset, e.length))
		return bad(c, lineno, "offset %llu + length %u passes the end of any device (2^64 "
				      "bytes)", (unsigned long long)e.offset, e.length);
	/* a row whose times go backwards has no latency to give: refused, not left out of it */
	if ((e.queue_ns != IO_TS_NONE && e.issue_ns != IO_TS_NONE && e.issue_ns < e.queue_ns) ||
	    (e.issue_ns != IO_TS_NONE && e.complete_ns != IO_TS_NONE &&
	     e.complete_ns < e.issue_ns) ||
	    (e.queue_ns != IO_TS_NONE && e.complete_ns != IO_TS_NONE &&
	     e.complete_ns < e.queue_ns))
		return bad(c, lineno, "times go backwards (want queue_ns <= issue_ns <= "
				      "complete_ns)");
	int op;
	unsigned int fl = 0, fl2 = 0;
	if (csv_op_parse(COL(CSVF_OP), &op, &fl))
		return bad(c, lineno, "unknown op '%s' (read/write/flush/discard/write-zeroes, "
				      "R/W/D/F, 1 = read, 2 = write, or blkparse RWBS such as WS)",
			   COL(CSVF_OP));
	e.op = (uint8_t)op;
	if (COL(CSVF_FLAGS)) {
		if (io_flags_parse(COL(CSVF_FLAGS), &fl2))
			return bad(c, lineno, "unknown flag in '%s'", COL(CSVF_FLAGS));
	}
	e.flags = (uint8_t)(fl | fl2);
	const char *errs = COL(CSVF_ERROR);
	if (errs && errs[0]) {
		char *end;
		long x = strtol(errs, &end, 10);
		if (*end || x > 0 || x < -4095)
			return bad(c, lineno, "error must be 0 or -errno");
		e.error = (int32_t)x;
	}
	const int ucols[] = { CSVF_PID, CSVF_TID, CSVF_STREAM };
	uint32_t *udst[] = { &e.pid, &e.tid, &e.stream };
	for (int i = 0; i < 3; i++) {
		const char *s = COL(ucols[i]);
		if (s && *s && u32_of(s, udst[i]))
			return bad(c, lineno, "%s must be an unsigned 32-bit number", NAME(ucols[i]));
	}
	if (COL(CSVF_CPU) && *COL(CSVF_CPU)) {
		if (u32_of(COL(CSVF_CPU), &u) || u > UINT16_MAX)
			return bad(c, lineno, "cpu must be below 65536");
		e.cpu = (uint16_t)u;
	}
	if (COL(CSVF_COMM))
		snprintf(e.comm, sizeof(e.comm), "%s", COL(CSVF_COMM));
	int dev = import_device(c, COL(CSVF_DEV) && *COL(CSVF_DEV) ? COL(CSVF_DEV) : "dev0", 0,
				0);
	if (dev < 0)
		return bad(c, lineno, "more than %d devices", TRACE_MAX_DEVICES);
	e.dev = (uint32_t)dev;
#undef COL
#undef NAME
	return import_window_push(c->win, &e);
}

int import_csv(FILE *f, struct import_ctx *c)
{
	struct csv_state st = { 0 };
	uint64_t lineno = 0;
	int r = csv_read_header(f, c, &st, &lineno);

	return r ? r : csv_rows(f, c, CSV_FIELDS_MAX, csv_line, &st, lineno);
}
