// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What every importer shares: format names and sniffing, the reorder window, line reading.
 * Importers call down into this file; the dispatcher that names every importer is in
 * convert.c, beside its caller, so the two never call each other in a circle.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "formats/convert.h"
#include "util/heap.h"

static const char *const fmt_names[CONV__COUNT] = {
	[CONV_NONE] = "?",	     [CONV_IOREEL] = "ioreel", [CONV_FIO2] = "fio2",
	[CONV_FIO3] = "fio3",	     [CONV_FIO] = "fio",       [CONV_BLKTRACE] = "blktrace",
	[CONV_MSR] = "msr",	     [CONV_ALIBABA] = "alibaba", [CONV_CSV] = "csv",
	[CONV_JSON] = "json",
};

const char *conv_fmt_name(enum conv_fmt f)
{
	return (unsigned int)f < CONV__COUNT ? fmt_names[f] : "?";
}

enum conv_fmt conv_fmt_parse(const char *name)
{
	for (int i = 1; i < CONV__COUNT; i++)
		if (!strcasecmp(name, fmt_names[i]))
			return (enum conv_fmt)i;
	if (!strcasecmp(name, "jsonl") || !strcasecmp(name, "ndjson"))
		return CONV_JSON;
	if (!strcasecmp(name, "iolog"))
		return CONV_FIO;
	return CONV_NONE;
}

/*
 * File name suffixes, longest match wins by order. fio users name their logs .iolog, .log or
 * after the version (.v3); when reading, the "fio version N iolog" line decides first anyway.
 */
static const struct {
	const char *ext;
	enum conv_fmt fmt;
} exts[] = {
	{ ".ioreel", CONV_IOREEL }, { ".iolog", CONV_FIO3 },  { ".log", CONV_FIO3 },
	{ ".fio", CONV_FIO3 },	    { ".v3", CONV_FIO3 },     { ".v2", CONV_FIO2 },
	{ ".blktrace", CONV_BLKTRACE }, { ".bin", CONV_BLKTRACE }, { ".csv", CONV_CSV },
	{ ".jsonl", CONV_JSON },    { ".json", CONV_JSON },   { ".ndjson", CONV_JSON },
};

enum conv_fmt conv_fmt_from_name(const char *path)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t e = strlen(exts[i].ext);
		if (n > e && !strcasecmp(path + n - e, exts[i].ext))
			return exts[i].fmt;
	}
	/* per-CPU blktrace output files are called DEV.blktrace.CPU */
	if (strstr(path, ".blktrace."))
		return CONV_BLKTRACE;
	return CONV_NONE;
}

char *conv_fmt_suffixes(bool (*keep)(enum conv_fmt), char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	/* grouped by format, in the order the formats first appear in the table */
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t first = 0;

		while (exts[first].fmt != exts[i].fmt)
			first++;
		if (first != i || (keep && !keep(exts[i].fmt)))
			continue;
		for (size_t k = i; k < sizeof(exts) / sizeof(exts[0]); k++)
			if (exts[k].fmt == exts[i].fmt && used < len)
				used += (size_t)snprintf(buf + used, len - used, "%s%s",
							 k == i ? (used ? ", " : "") : " ",
							 exts[k].ext);
		if (exts[i].fmt == CONV_BLKTRACE && used < len)
			used += (size_t)snprintf(buf + used, len - used, " .blktrace.N");
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, " (%s)",
						 conv_fmt_name(exts[i].fmt));
	}
	return buf;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

enum conv_fmt conv_fmt_sniff(const unsigned char *buf, size_t len)
{
	char line[512], *f[64];
	size_t n = 0, off = 0;
	int nf;

	/* a text file saved by a spreadsheet program may start with a UTF-8 byte-order mark */
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3)) {
		buf += 3;
		len -= 3;
	}
	/* the header is a zstd skippable frame (0x184D2A50, LE) whose payload starts "IORL" */
	if (len >= 12 && !memcmp(buf, "\x50\x2a\x4d\x18", 4) && !memcmp(buf + 8, "IORL", 4))
		return CONV_IOREEL;
	if (len >= 4) {
		uint32_t le = buf[0] | buf[1] << 8 | buf[2] << 16 | (uint32_t)buf[3] << 24;
		uint32_t be = buf[3] | buf[2] << 8 | buf[1] << 16 | (uint32_t)buf[0] << 24;
		if ((le & 0xffffff00u) == 0x65617400u || (be & 0xffffff00u) == 0x65617400u)
			return CONV_BLKTRACE;
	}
	if (len >= 19 && !memcmp(buf, "fio version 2 iolog", 19))
		return CONV_FIO2;
	if (len >= 19 && !memcmp(buf, "fio version 3 iolog", 19))
		return CONV_FIO3;
	/* first line that is not a comment */
	while (off < len) {
		n = 0;
		while (off < len && buf[off] != '\n' && n < sizeof(line) - 1)
			line[n++] = (char)buf[off++];
		line[n] = '\0';
		off++;
		if (n && line[0] != '#')
			break;
		n = 0;
	}
	if (!n)
		return CONV_NONE;
	if (n && line[n - 1] == '\r')
		line[--n] = '\0';
	if (!strncmp(line, "queue_ns,", 9))
		return CONV_CSV;
	nf = import_split_csv(line, f, 64);
	if (nf == 7 && all_digits(f[0]) && (!strcasecmp(f[3], "Read") || !strcasecmp(f[3], "Write")))
		return CONV_MSR;
	if (nf == 7 && !strcasecmp(f[0], "Timestamp"))
		return CONV_MSR;
	if (nf == 5 && all_digits(f[0]) && (!strcmp(f[1], "R") || !strcmp(f[1], "W")))
		return CONV_ALIBABA;
	if (nf == 5 && !strcasecmp(f[0], "device_id"))
		return CONV_ALIBABA;
	/* a header whose every column is a name the CSV importer knows (ts_ns,lba,size,rw) */
	if (nf >= 3) {
		enum csv_field fld;
		enum csv_unit u;
		int known = 0;

		while (known < nf && !csv_name_lookup(f[known], &fld, &u))
			known++;
		if (known == nf)
			return CONV_CSV;
	}
	return CONV_NONE;
}

bool import_is_absolute(enum conv_fmt fmt)
{
	return fmt == CONV_MSR || fmt == CONV_ALIBABA;
}

/* ---- reorder window: a binary min-heap on (time, insertion order) ---- */

/* Insertion order breaks ties, so equal times keep file order: the key is unique. */
#define WIN_KEY(it) ((unsigned __int128)io_event_time(&(it).ev) << 64 | (it).seq)
HEAP_DEFINE(winheap, struct import_item, WIN_KEY)

int import_window_init(struct import_window *w, size_t cap, bool rebase, import_sink_fn sink,
		       void *arg)
{
	memset(w, 0, sizeof(*w));
	if (!cap)
		cap = 1;
	w->heap = calloc(cap, sizeof(*w->heap));
	if (!w->heap) {
		import_window_free(w);
		return -ENOMEM;
	}
	w->cap = cap;
	w->rebase = rebase;
	w->sink = sink;
	w->sink_arg = arg;
	return 0;
}

static void shift(struct io_event *e, uint64_t base)
{
	uint64_t *ts[3] = { &e->queue_ns, &e->issue_ns, &e->complete_ns };

	for (int i = 0; i < 3; i++)
		if (*ts[i] != IO_TS_NONE)
			*ts[i] = *ts[i] >= base ? *ts[i] - base : 0;
}

static int pop_one(struct import_window *w)
{
	struct import_item it;
	struct io_event *e = &it.ev;
	uint64_t t;

	winheap_pop(w->heap, &w->n, &it);
	if (!w->based) {
		/* the smallest time of the first full window is genesis */
		w->based = true;
		w->first_abs_ns = io_event_time(e);
		w->base_ns = w->rebase ? w->first_abs_ns : 0;
	}
	shift(e, w->base_ns);
	t = io_event_time(e);
	if (w->emitted && t < w->last_out_ns)
		w->late++;
	else
		w->last_out_ns = t;
	w->emitted++;
	return w->sink ? w->sink(w->sink_arg, e, 1) : 0;
}

int import_window_push(struct import_window *w, const struct io_event *ev)
{
	int err;

	if (w->n == w->cap && (err = pop_one(w)))
		return err;
	struct import_item it = { .ev = *ev, .seq = w->next_seq++ };

	winheap_push(w->heap, &w->n, &it);
	return 0;
}

int import_window_drain(struct import_window *w)
{
	int err;

	while (w->n)
		if ((err = pop_one(w)))
			return err;
	return 0;
}

void import_window_free(struct import_window *w)
{
	free(w->heap);
	w->heap = NULL;
	w->n = w->cap = 0;
}

/* ---- helpers ---- */

int import_device(struct import_ctx *c, const char *name, uint32_t major, uint32_t minor)
{
	struct trace_meta *m = c->meta;
	struct trace_device d;

	if (c->device_name)
		name = c->device_name;
	for (uint32_t i = 0; i < m->ndevices; i++)
		if (!strncmp(m->devices[i].name, name, sizeof(m->devices[i].name) - 1))
			return (int)i;
	memset(&d, 0, sizeof(d));
	snprintf(d.name, sizeof(d.name), "%s", name);
	d.major = major;
	d.minor = minor;
	d.logical_block_size = 512;
	d.physical_block_size = 512;
	return trace_meta_add_device(m, &d);
}

/*
 * Reads a UTF-8 byte-order mark (EF BB BF, which spreadsheet programs put before line 1) off
 * the stream, so that it does not count towards IMPORT_LINE_MAX: a header of 4096 bytes after
 * one was refused. The bytes of a partial one are the line's own: they stay, in buf; the byte
 * that differs goes back (one byte of ungetc is what C promises). Returns how many are in buf.
 */
static size_t drop_bom(FILE *f, char *buf)
{
	static const unsigned char bom[3] = { 0xef, 0xbb, 0xbf };
	size_t n = 0;
	int ch;

	while (n < sizeof(bom) && (ch = getc(f)) != EOF) {
		if (ch != bom[n]) {
			ungetc(ch, f);
			break;
		}
		buf[n++] = (char)ch;
	}
	return n == sizeof(bom) ? 0 : n;
}

/*
 * Byte by byte, not fgets(): a NUL byte inside a line (a UTF-16 file, binary data) ended the
 * line for strlen(), which then took it for a line cut at the buffer's end and read on to the
 * next newline, so the message said "longer than 4096 bytes" of a short line and --salvage
 * lost the good line after it uncounted.
 */
int import_getline(FILE *f, char *buf, bool first)
{
	size_t n = first ? drop_bom(f, buf) : 0;
	bool any = n, nul = false, cut = false;
	int ch;

	while ((ch = getc_unlocked(f)) != EOF) {
		any = true;
		if (ch == '\n')
			break;
		nul |= !ch;
		if (n < IMPORT_LINE_MAX + 1) /* room for the line and its '\r' */
			buf[n++] = (char)ch;
		else
			cut = true; /* the rest of it is read: the next call reads the line after */
	}
	if (!any)
		return 0;
	buf[n] = '\0';
	if (nul)
		return -EILSEQ;
	if (!cut && n && buf[n - 1] == '\r')
		buf[--n] = '\0';
	return cut || n > IMPORT_LINE_MAX ? -EINVAL : 1;
}

int import_split_csv(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		if (n == max)
			return -EINVAL;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '"') {
			/* quoted: "" is a literal quote; unquote in place */
			char *w = ++p;
			fields[n++] = w;
			for (;;) {
				if (!*p)
					return -EINVAL;
				if (*p == '"' && p[1] == '"') {
					*w++ = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					*w++ = *p++;
				}
			}
			*w = '\0';
			while (*p == ' ' || *p == '\t')
				p++;
			if (!*p)
				return n;
			if (*p != ',')
				return -EINVAL;
			p++;
			continue;
		}
		fields[n++] = p;
		p += strcspn(p, ",");
		char *end = p;
		while (end > fields[n - 1] && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (!*p) {
			*end = '\0';
			return n;
		}
		*end = '\0';
		p++;
	}
}
