/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Importers and exporters behind `ioreel convert`. Internal to formats/ (and its tests/fuzzer).
 *
 * An importer reads a FILE* (a real file, a pipe, or fmemopen() over a buffer for the fuzzer)
 * and hands every I/O to a sink through import_emit(), with times in ns on the format's own
 * clock. The sink is a bounded reorder window (struct import_window) that sorts by time,
 * rebases the clock to the trace's genesis and passes events on. Memory is bounded: the
 * window, the blktrace in-flight table and the line buffer all have fixed caps.
 */
#ifndef IOREEL_FORMATS_CONVERT_H
#define IOREEL_FORMATS_CONVERT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "formats/event.h"
#include "formats/trace.h"

enum conv_fmt {
	CONV_NONE = 0,
	CONV_IOREEL,
	CONV_FIO2,
	CONV_FIO3,
	CONV_FIO, /* v2 or v3, decided by the header line */
	CONV_BLKTRACE,
	CONV_MSR,
	CONV_ALIBABA,
	CONV_CSV,
	CONV_JSON,
	CONV__COUNT
};

/* "fio", "fio2", "fio3", "blktrace", "msr", "alibaba", "csv", "json", "ioreel". */
const char *conv_fmt_name(enum conv_fmt f);
enum conv_fmt conv_fmt_parse(const char *name);
/* Guess from the first bytes of a file (magic, header line, CSV shape); CONV_NONE if unsure. */
enum conv_fmt conv_fmt_sniff(const unsigned char *buf, size_t len);
/* Guess from a file name's extension; CONV_NONE if unsure. */
enum conv_fmt conv_fmt_from_name(const char *path);
/* The suffixes conv_fmt_from_name() knows, of the formats keep() accepts (NULL: all), as
 * ".iolog .log .fio .v3 (fio3), .csv (csv)" for messages. Returns buf. */
char *conv_fmt_suffixes(bool (*keep)(enum conv_fmt), char *buf, size_t len);

/* Longest text line an importer accepts, in bytes without its "\n" or "\r\n" (longer lines
 * are an error, not an allocation). */
#define IMPORT_LINE_MAX 4096
/* A buffer for one line: room for its "\r" and the NUL besides (and a spare byte). */
#define IMPORT_LINE_BUF (IMPORT_LINE_MAX + 3)
/* What import_getline's -EILSEQ means, for a message (IMPORT_TEXT_WHY: what to do). */
#define IMPORT_TEXT_WHY "convert reads text (ASCII or UTF-8; iconv -f UTF-16 -t UTF-8 converts " \
			"a UTF-16 file)"
#define IMPORT_NUL_WHY "a NUL byte in the line: " IMPORT_TEXT_WHY
/* Default size of the reorder window, in events (88 bytes each with their order). */
#define IMPORT_WINDOW_DEFAULT 65536

typedef int (*import_sink_fn)(void *arg, const struct io_event *ev, size_t n);

/*
 * Sorts events by io_event_time() within a window of `cap` events and rebases times:
 * rebase = true subtracts the smallest time of the first full window (absolute clocks:
 * MSR, Alibaba); false keeps the format's own zero (fio, blktrace are relative to start).
 * An event older than one already passed on is passed on as it is (out of order) and counted.
 */
struct import_item {
	struct io_event ev;
	uint64_t seq; /* insertion order, so equal times keep file order */
};

struct import_window {
	struct import_item *heap;
	size_t n, cap;
	uint64_t next_seq;
	bool rebase, based;
	uint64_t base_ns;
	uint64_t last_out_ns;
	uint64_t late;	  /* events passed on out of order (beyond the window) */
	uint64_t emitted; /* events passed on */
	uint64_t first_abs_ns; /* the absolute time of genesis when rebase is set */
	import_sink_fn sink;
	void *sink_arg;
};

int import_window_init(struct import_window *w, size_t cap, bool rebase, import_sink_fn sink,
		       void *arg);
int import_window_push(struct import_window *w, const struct io_event *ev);
/* Passes on everything still held. */
int import_window_drain(struct import_window *w);
void import_window_free(struct import_window *w);

/* ---- CSV traces as they come (csv_columns.c): which column is which field ---- */
enum csv_field {
	CSVF_QUEUE, CSVF_ISSUE, CSVF_COMPLETE, CSVF_LATENCY, CSVF_DEV, CSVF_OFFSET, CSVF_LENGTH,
	CSVF_OP, CSVF_FLAGS, CSVF_ERROR, CSVF_PID, CSVF_TID, CSVF_COMM, CSVF_CPU, CSVF_STREAM,
	CSVF_ONCPU, /* record --cpu: the thread's on-CPU time before the I/O (empty: unknown) */
	CSVF__COUNT
};

enum csv_unit {
	CSVU_NONE, CSVU_NS, CSVU_US, CSVU_MS, CSVU_S,
	CSVU_TIME, /* a time whose name says no unit: --time-unit decides, or an error */
	CSVU_BYTES, CSVU_SECTORS,
};

/* What `convert` was told about a CSV: --columns, --time-unit, --sector-size. */
struct csv_opts {
	const char *columns;	/* "NAME=FIELD,..." (FIELD a known name or '-'), or NULL */
	enum csv_unit time_unit; /* for times without a unit in their name; CSVU_NONE: refuse */
	uint32_t sector_size;	/* bytes per lba/sector (0: 512) */
};

struct csv_columns {
	int col[CSVF__COUNT];	       /* field index per field, -1 when absent */
	enum csv_unit unit[CSVF__COUNT];
	uint64_t scale[CSVF__COUNT];   /* ns per unit (times), bytes per unit (offset, length) */
	bool foreign;		       /* a column not named as ours: said says what went where */
	char said[512];		       /* "ts_ns->queue_ns (ns), lba->offset (sectors...)" */
};

/* Every name a column may have, for messages and --help. */
extern const char *const csv_column_choices;
const char *csv_field_name(enum csv_field f);
/* The field and unit of a column name (case, ' ' and '-' ignored); -ENOENT if unknown. */
int csv_name_lookup(const char *name, enum csv_field *f, enum csv_unit *unit);
/* Checks --columns' syntax and FIELD names before any file is read. */
int csv_columns_check_spec(const char *spec, char *err, size_t len);
/* Which column is which field, from a header line; -EINVAL with err naming the column. */
int csv_columns_resolve(char *const *names, int n, const struct csv_opts *o,
			struct csv_columns *c, char *err, size_t len);
/* op names, letters, 1/2 and blkparse RWBS ("WS", "FWFS"); flags get what RWBS says. */
int csv_op_parse(const char *s, int *op, unsigned int *flags);
/* A whole or decimal count of scale ns; "" is IO_TS_NONE. */
int csv_time_parse(const char *s, uint64_t scale, uint64_t *ns);

struct import_ctx {
	struct trace_meta *meta; /* devices are added here as they are seen */
	struct import_window *win;
	const char *device_name; /* --device: the name of the (single) device the input has */
	bool salvage;		 /* skip bad records (counted) instead of failing */
	uint64_t skipped;	 /* records skipped under salvage */
	uint64_t records;	 /* input records read (lines, blktrace records) */
	/* absolute-clock importers: the format's time minus this is Unix epoch ns */
	bool has_realtime;
	uint64_t realtime_offset_ns;
	const struct csv_opts *csv; /* our CSV importer: columns, units (NULL: defaults) */
	char said[512];		 /* CSV: which column went to which field, when not ours */
	bool bad_header;	 /* the error is the header's: no record to skip */
	char err[1280];		 /* "line 12: ..." or "byte 4096: ..." on failure */
};

/* Each returns 0 or -errno (message in ctx->err; -EINVAL for bad input). */
int import_fio(FILE *f, struct import_ctx *c);
int import_blktrace(FILE *f, struct import_ctx *c);
int import_msr(FILE *f, struct import_ctx *c);
int import_alibaba(FILE *f, struct import_ctx *c);
int import_csv(FILE *f, struct import_ctx *c);
/* Dispatches on fmt (convert.c: importers call import_common.c, never it). */
int import_run(enum conv_fmt fmt, FILE *f, struct import_ctx *c);
/* True when the format's clock is absolute (window should rebase). */
bool import_is_absolute(enum conv_fmt fmt);

/* Finds the device called name, adding it when new; its index or -ENOSPC. */
int import_device(struct import_ctx *c, const char *name, uint32_t major, uint32_t minor);
/* Reads one line into buf, IMPORT_LINE_BUF bytes (without the newline); 1 = line, 0 = end,
 * -EINVAL when longer than IMPORT_LINE_MAX, -EILSEQ when it holds a NUL byte (the rest of
 * either is read: the next call reads the line after it). first: line 1, whose UTF-8
 * byte-order mark (EF BB BF) is left out before the limit applies. */
int import_getline(FILE *f, char *buf, bool first);
/* offset + length would pass 2^64 (wrap): no device holds such an I/O. */
static inline bool import_past_end(uint64_t offset, uint64_t length)
{
	return length > UINT64_MAX - offset;
}
/* Splits a CSV line in place ("a","b" quoting as RFC 4180); returns field count or -EINVAL. */
int import_split_csv(char *line, char **fields, int max);

/* ---- exporters: begin, events in time order, end. Each returns 0 or -errno. ---- */
#define EXPORT_FIO_FEV_MAX 96
struct export_fio_fev {
	uint32_t dev;
	uint64_t us;
	char act[8];
};

struct export_ctx {
	FILE *out;
	enum conv_fmt fmt;
	const struct trace_meta *meta;
	uint64_t events;
	uint64_t lossy; /* events the format cannot express exactly (e.g. write-zeroes in fio) */
	/* fio v3 per-device state: opened, last timestamp in µs */
	uint8_t opened[TRACE_MAX_DEVICES];
	uint64_t last_us;
	/* fio v3 add/open/close events restored from meta.options, in time order */
	struct export_fio_fev fevs[EXPORT_FIO_FEV_MAX];
	int nfev, fev_next;
	char err[256];
};

/* s as one CSV field (quoted when it holds a comma, quote or line break). */
void export_csv_field(FILE *o, const char *s);

int export_begin(struct export_ctx *x, FILE *out, enum conv_fmt fmt,
		 const struct trace_meta *meta);
int export_events(struct export_ctx *x, const struct io_event *ev, size_t n);
int export_end(struct export_ctx *x);

/* A file-level trace (export_file.c) to csv, json or ioreel at out; *events gets the count.
 * 0 or -errno with err set. */
int convert_file_trace(struct trace_reader *r, const char *out, enum conv_fmt to,
		       uint64_t *events, char *err, size_t len);

/* fio v3 file events are stored in meta.options as "fio-files: NAME add@US open@US ...". */
#define FIO_FILES_TAG "fio-files:"

#endif
