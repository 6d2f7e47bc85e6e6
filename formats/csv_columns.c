// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The header of a CSV trace as it comes: which column gives which field of an I/O, and in
 * which unit. Our own names (what export_text.c writes) are read as they are; the names other
 * tools and people use (ts_ns, timestamp, lba, size, rw, latency_ns...) through one table of
 * synonyms; anything else through `convert --columns NAME=FIELD`. A column is never guessed:
 * a name the table does not hold, two columns for one field, or a time without a unit is an
 * error that names the column and the choices, because a trace read with the wrong column or
 * a 1000x wrong clock looks plausible and is wrong in every figure drawn from it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "formats/convert.h"

/* Our own name of each field (export_text.c's header); latency is not ours, only read. */
static const char *const field_names[CSVF__COUNT] = {
	[CSVF_QUEUE] = "queue_ns",   [CSVF_ISSUE] = "issue_ns", [CSVF_COMPLETE] = "complete_ns",
	[CSVF_LATENCY] = "latency",  [CSVF_DEV] = "dev",	[CSVF_OFFSET] = "offset",
	[CSVF_LENGTH] = "length",    [CSVF_OP] = "op",		[CSVF_FLAGS] = "flags",
	[CSVF_ERROR] = "error",	     [CSVF_PID] = "pid",	[CSVF_TID] = "tid",
	[CSVF_COMM] = "comm",	     [CSVF_CPU] = "cpu",	[CSVF_STREAM] = "stream",
	[CSVF_ONCPU] = "oncpu_ns",
};

const char *csv_field_name(enum csv_field f)
{
	return (unsigned int)f < CSVF__COUNT ? field_names[f] : "?";
}

/* Names of times, before their unit suffix (_ns, _us, _ms, _s). */
static const struct {
	const char *base;
	enum csv_field f;
} time_bases[] = {
	{ "queue", CSVF_QUEUE },	 { "ts", CSVF_QUEUE },	       { "timestamp", CSVF_QUEUE },
	{ "time", CSVF_QUEUE },		 { "start", CSVF_QUEUE },      { "submit", CSVF_QUEUE },
	{ "issue", CSVF_ISSUE },	 { "dispatch", CSVF_ISSUE },   { "complete", CSVF_COMPLETE },
	{ "completion", CSVF_COMPLETE }, { "end", CSVF_COMPLETE },     { "finish", CSVF_COMPLETE },
	{ "latency", CSVF_LATENCY },	 { "lat", CSVF_LATENCY },
	{ "response_time", CSVF_LATENCY }, { "start_time", CSVF_QUEUE },
	{ "submit_time", CSVF_QUEUE },	 { "arrival", CSVF_QUEUE },    { "arrival_time", CSVF_QUEUE },
	{ "issue_time", CSVF_ISSUE },	 { "end_time", CSVF_COMPLETE },
	{ "complete_time", CSVF_COMPLETE }, { "completion_time", CSVF_COMPLETE },
	{ "oncpu", CSVF_ONCPU },
};

static const struct {
	const char *suffix;
	enum csv_unit unit;
} time_units[] = {
	{ "_ns", CSVU_NS },    { "_us", CSVU_US },    { "_ms", CSVU_MS },    { "_s", CSVU_S },
	{ "_nsec", CSVU_NS }, { "_usec", CSVU_US }, { "_msec", CSVU_MS }, { "_sec", CSVU_S },
};

/* Every other name. */
static const struct {
	const char *name;
	enum csv_field f;
	enum csv_unit unit;
} plain[] = {
	{ "dev", CSVF_DEV, CSVU_NONE },
	{ "device", CSVF_DEV, CSVU_NONE },
	{ "disk", CSVF_DEV, CSVU_NONE },
	{ "device_id", CSVF_DEV, CSVU_NONE },
	{ "devname", CSVF_DEV, CSVU_NONE },
	{ "offset", CSVF_OFFSET, CSVU_BYTES },
	{ "offset_bytes", CSVF_OFFSET, CSVU_BYTES },
	{ "off", CSVF_OFFSET, CSVU_BYTES },
	{ "byte_offset", CSVF_OFFSET, CSVU_BYTES },
	{ "lba", CSVF_OFFSET, CSVU_SECTORS },
	{ "sector", CSVF_OFFSET, CSVU_SECTORS },
	{ "offset_sectors", CSVF_OFFSET, CSVU_SECTORS },
	{ "length", CSVF_LENGTH, CSVU_BYTES },
	{ "len", CSVF_LENGTH, CSVU_BYTES },
	{ "len_bytes", CSVF_LENGTH, CSVU_BYTES },
	{ "length_bytes", CSVF_LENGTH, CSVU_BYTES },
	{ "size", CSVF_LENGTH, CSVU_BYTES },
	{ "size_bytes", CSVF_LENGTH, CSVU_BYTES },
	{ "bytes", CSVF_LENGTH, CSVU_BYTES },
	{ "nbytes", CSVF_LENGTH, CSVU_BYTES },
	{ "io_size", CSVF_LENGTH, CSVU_BYTES },
	{ "sectors", CSVF_LENGTH, CSVU_SECTORS },
	{ "nsectors", CSVF_LENGTH, CSVU_SECTORS },
	{ "len_sectors", CSVF_LENGTH, CSVU_SECTORS },
	{ "op", CSVF_OP, CSVU_NONE },
	{ "rw", CSVF_OP, CSVU_NONE },
	{ "type", CSVF_OP, CSVU_NONE },
	{ "opcode", CSVF_OP, CSVU_NONE },
	{ "io_type", CSVF_OP, CSVU_NONE },
	{ "rwbs", CSVF_OP, CSVU_NONE },
	{ "flags", CSVF_FLAGS, CSVU_NONE },
	{ "error", CSVF_ERROR, CSVU_NONE },
	{ "errno", CSVF_ERROR, CSVU_NONE },
	{ "pid", CSVF_PID, CSVU_NONE },
	{ "process_id", CSVF_PID, CSVU_NONE },
	{ "tid", CSVF_TID, CSVU_NONE },
	{ "thread_id", CSVF_TID, CSVU_NONE },
	{ "comm", CSVF_COMM, CSVU_NONE },
	{ "process", CSVF_COMM, CSVU_NONE },
	{ "cpu", CSVF_CPU, CSVU_NONE },
	{ "stream", CSVF_STREAM, CSVU_NONE },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

const char *const csv_column_choices =
	"times: queue/ts/timestamp/time/start/submit/arrival (the start), issue/dispatch, "
	"complete/completion/end/finish, latency/lat/response_time (completion = start + "
	"latency), also as start_time, end_time..., each with _ns, _us, _ms or _s (or _nsec, "
	"_usec, _msec, _sec; without one: --time-unit); dev/device/disk/"
	"device_id/devname; offset/offset_bytes/off/byte_offset (bytes), lba/sector/"
	"offset_sectors (x --sector-size); length/len/len_bytes/length_bytes/size/size_bytes/"
	"bytes/nbytes/io_size (bytes), sectors/nsectors/len_sectors; op/rw/type/opcode/io_type/"
	"rwbs; flags; error/errno; pid/process_id; tid/thread_id; comm/process; cpu; stream; "
	"oncpu (the thread's on-CPU time before the I/O, a time); or - to leave the column out";

/* "Start Time" and "start-time" are start_time: lower case, '-' and ' ' as '_'. */
static void normalize(const char *in, char *out, size_t len)
{
	size_t n = 0;

	in += strspn(in, " \t");
	for (; *in && n + 1 < len; in++)
		out[n++] = *in == '-' || *in == ' ' ? '_' : (char)tolower((unsigned char)*in);
	while (n && out[n - 1] == '_')
		n--;
	out[n] = '\0';
}

int csv_name_lookup(const char *name, enum csv_field *f, enum csv_unit *unit)
{
	char n[64];
	size_t len;

	normalize(name, n, sizeof(n));
	for (size_t i = 0; i < NELEM(plain); i++)
		if (!strcmp(n, plain[i].name)) {
			*f = plain[i].f;
			*unit = plain[i].unit;
			return 0;
		}
	len = strlen(n);
	for (size_t i = 0; i < NELEM(time_bases); i++) {
		size_t b = strlen(time_bases[i].base);

		if (strncmp(n, time_bases[i].base, b))
			continue;
		*f = time_bases[i].f;
		if (len == b) {
			*unit = CSVU_TIME; /* no unit in the name */
			return 0;
		}
		for (size_t k = 0; k < NELEM(time_units); k++)
			if (!strcmp(n + b, time_units[k].suffix)) {
				*unit = time_units[k].unit;
				return 0;
			}
	}
	return -ENOENT;
}

/* The FIELD of NAME in a --columns spec ("A=ts_us,B=-"); NULL when NAME is not there. */
static const char *spec_field(const char *spec, const char *name, char *buf, size_t len)
{
	char want[64], have[64];

	if (!spec)
		return NULL;
	normalize(name, want, sizeof(want));
	while (*spec) {
		size_t n = strcspn(spec, ","), eq = strcspn(spec, "=");
		char key[64];

		if (eq < n && eq < sizeof(key)) {
			memcpy(key, spec, eq);
			key[eq] = '\0';
			normalize(key, have, sizeof(have));
			if (!strcmp(have, want) && n - eq - 1 < len) {
				memcpy(buf, spec + eq + 1, n - eq - 1);
				buf[n - eq - 1] = '\0';
				return buf;
			}
		}
		spec += n;
		if (*spec == ',')
			spec++;
	}
	return NULL;
}

int csv_columns_check_spec(const char *spec, char *err, size_t len)
{
	const char *s = spec;

	if (!*s) {
		snprintf(err, len, "--columns: empty; give NAME=FIELD,... (%s)", csv_column_choices);
		return -EINVAL;
	}
	while (*s) {
		size_t n = strcspn(s, ","), eq = strcspn(s, "=");
		char field[64];
		enum csv_field f;
		enum csv_unit u;

		if (eq >= n || eq == 0 || n - eq - 1 == 0 || n - eq - 1 >= sizeof(field)) {
			snprintf(err, len, "--columns '%.*s': expected NAME=FIELD (e.g. "
				 "Start=ts_us,Addr=lba,Kind=op,Junk=-)", (int)n, s);
			return -EINVAL;
		}
		memcpy(field, s + eq + 1, n - eq - 1);
		field[n - eq - 1] = '\0';
		if (strcmp(field, "-") && csv_name_lookup(field, &f, &u)) {
			snprintf(err, len, "--columns %.*s: '%s' is not a field; FIELD is one of the "
				 "names convert knows (%s)", (int)n, s, field, csv_column_choices);
			return -EINVAL;
		}
		s += n;
		if (*s == ',')
			s++;
	}
	return 0;
}

static bool spec_names_column(const char *spec, char *const *names, int n, char *missing,
			      size_t len)
{
	while (spec && *spec) {
		size_t k = strcspn(spec, ","), eq = strcspn(spec, "=");
		char key[64], a[64], b[64];
		bool found = false;

		snprintf(key, sizeof(key), "%.*s", (int)(eq < k ? eq : k), spec);
		normalize(key, a, sizeof(a));
		for (int j = 0; j < n && !found; j++) {
			normalize(names[j], b, sizeof(b));
			found = !strcmp(a, b);
		}
		if (!found) {
			snprintf(missing, len, "%s", key);
			return false;
		}
		spec += k;
		if (*spec == ',')
			spec++;
	}
	return true;
}

static const char *unit_name(enum csv_unit u)
{
	static const char *const n[] = { [CSVU_NONE] = "", [CSVU_NS] = "ns", [CSVU_US] = "us",
					 [CSVU_MS] = "ms", [CSVU_S] = "s", [CSVU_TIME] = "?",
					 [CSVU_BYTES] = "bytes", [CSVU_SECTORS] = "sectors" };
	return n[u];
}

static uint64_t unit_scale(enum csv_unit u, const struct csv_opts *o)
{
	switch (u) {
	case CSVU_NS: return 1;
	case CSVU_US: return 1000;
	case CSVU_MS: return 1000000;
	case CSVU_S: return 1000000000;
	case CSVU_SECTORS: return o && o->sector_size ? o->sector_size : 512;
	default: return 1;
	}
}

__attribute__((format(printf, 2, 3))) static void say(struct csv_columns *c, const char *fmt,
							...)
{
	size_t used = strlen(c->said);
	va_list ap;

	if (used && used + 2 < sizeof(c->said)) {
		memcpy(c->said + used, ", ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	if (used < sizeof(c->said))
		vsnprintf(c->said + used, sizeof(c->said) - used, fmt, ap);
	va_end(ap);
}

int csv_columns_resolve(char *const *names, int n, const struct csv_opts *o,
			struct csv_columns *c, char *err, size_t len)
{
	const char *spec = o ? o->columns : NULL;
	char missing[64];

	memset(c, 0, sizeof(*c));
	for (int i = 0; i < CSVF__COUNT; i++)
		c->col[i] = -1;
	if (!spec_names_column(spec, names, n, missing, sizeof(missing))) {
		size_t u = (size_t)snprintf(err, len, "--columns names '%s', which the header does "
					    "not have (its columns:", missing);
		for (int j = 0; j < n && u < len; j++)
			u += (size_t)snprintf(err + u, len - u, " %s", names[j]);
		if (u < len)
			snprintf(err + u, len - u, ")");
		return -EINVAL;
	}
	for (int j = 0; j < n; j++) {
		char buf[64];
		const char *as = spec_field(spec, names[j], buf, sizeof(buf));
		enum csv_field f;
		enum csv_unit u;

		/* pandas' to_csv() writes its index as a first column without a name */
		char nm[64];

		normalize(names[j], nm, sizeof(nm));
		if (!nm[0]) {
			say(c, "column %d (no name) skipped", j + 1);
			c->foreign = true;
			continue;
		}
		if (as && !strcmp(as, "-")) {
			say(c, "%s skipped", names[j]);
			c->foreign = true;
			continue;
		}
		if (csv_name_lookup(as ? as : names[j], &f, &u)) {
			snprintf(err, len, "column %d '%s' is not a field convert knows; name it "
				 "with --columns '%s=FIELD' (FIELD: %s)", j + 1, names[j], names[j],
				 csv_column_choices);
			return -EINVAL;
		}
		if (u == CSVU_TIME) {
			if (!o || o->time_unit == CSVU_NONE) {
				snprintf(err, len, "column %d '%s' is a time without a unit (ns, us, "
					 "ms or s?): give --time-unit UNIT, or --columns '%s=%s_us' "
					 "(or _ns, _ms, _s)", j + 1, names[j], names[j],
					 as ? as : names[j]);
				return -EINVAL;
			}
			u = o->time_unit;
		}
		if (c->col[f] >= 0 && !strcmp(names[c->col[f]], names[j])) {
			/* --columns names columns by their header: it cannot tell these apart */
			snprintf(err, len, "columns %d and %d are both named '%s': rename one in "
				 "the header line (the file's first line) and give it to --columns "
				 "as NAME=- to leave it out", c->col[f] + 1, j + 1, names[j]);
			return -EINVAL;
		}
		if (c->col[f] >= 0) {
			snprintf(err, len, "columns %d '%s' and %d '%s' both give %s: leave one out "
				 "with --columns '%s=-' (or '%s=-')", c->col[f] + 1, names[c->col[f]],
				 j + 1, names[j], field_names[f], names[j], names[c->col[f]]);
			return -EINVAL;
		}
		c->col[f] = j;
		c->unit[f] = u;
		c->scale[f] = unit_scale(u, o);
		/* a header of our own names says nothing new; any other is reported whole */
		if (strcmp(nm, field_names[f]) || u == CSVU_SECTORS)
			c->foreign = true;
		{
			if (u == CSVU_SECTORS)
				say(c, "%s->%s (sectors of %llu bytes)", names[j], field_names[f],
				    (unsigned long long)c->scale[f]);
			else if (f == CSVF_LATENCY)
				say(c, "%s->complete_ns (start + latency, %s)", names[j],
				    unit_name(u));
			else if (u != CSVU_NONE && u != CSVU_BYTES)
				say(c, "%s->%s (%s)", names[j], field_names[f], unit_name(u));
			else
				say(c, "%s->%s", names[j], field_names[f]);
		}
	}
	if (c->col[CSVF_LATENCY] >= 0 && c->col[CSVF_COMPLETE] >= 0) {
		snprintf(err, len, "columns '%s' and '%s' both give the completion time: leave one "
			 "out with --columns '%s=-'", names[c->col[CSVF_COMPLETE]],
			 names[c->col[CSVF_LATENCY]], names[c->col[CSVF_LATENCY]]);
		return -EINVAL;
	}
	if (c->col[CSVF_LATENCY] >= 0 && c->col[CSVF_QUEUE] < 0 && c->col[CSVF_ISSUE] < 0) {
		snprintf(err, len, "column '%s' is a latency, but no column gives the start it is "
			 "added to (a ts/timestamp/queue or issue column)",
			 names[c->col[CSVF_LATENCY]]);
		return -EINVAL;
	}
	if (c->col[CSVF_OFFSET] < 0 || c->col[CSVF_LENGTH] < 0 || c->col[CSVF_OP] < 0 ||
	    (c->col[CSVF_QUEUE] < 0 && c->col[CSVF_ISSUE] < 0 && c->col[CSVF_COMPLETE] < 0)) {
		const char *what = c->col[CSVF_OFFSET] < 0   ? "an offset (offset, lba, ...)"
				   : c->col[CSVF_LENGTH] < 0 ? "a length (length, size, ...)"
				   : c->col[CSVF_OP] < 0     ? "an op (op, rw, type, ...)"
							     : "a time (queue_ns, ts_ns, timestamp, ...)";
		snprintf(err, len, "CSV header must name offset, length, op and at least one time; "
			 "no column gives %s (columns convert knows: %s)", what, csv_column_choices);
		return -EINVAL;
	}
	return 0;
}

/*
 * An op as traces write it: our names (read, write, flush, discard, write-zeroes, trim), one
 * letter (R W D T F), 1 = read and 2 = write, and blkparse's RWBS (an F before the op is a
 * preflush; after it F is FUA, S sync, M meta, A readahead): "WS", "FWFS", "RA".
 */
int csv_op_parse(const char *s, int *op, unsigned int *flags)
{
	static const struct {
		const char *name;
		int op;
	} words[] = {
		{ "read", IO_OP_READ },		{ "write", IO_OP_WRITE },    { "flush", IO_OP_FLUSH },
		{ "discard", IO_OP_DISCARD },	{ "trim", IO_OP_DISCARD },   { "sync", IO_OP_FLUSH },
		{ "fsync", IO_OP_FLUSH },	{ "write-zeroes", IO_OP_WRITE_ZEROES },
		{ "write_zeroes", IO_OP_WRITE_ZEROES },	{ "1", IO_OP_READ }, { "2", IO_OP_WRITE },
	};
	const char *p = s;

	*flags = 0;
	for (size_t i = 0; i < NELEM(words); i++)
		if (!strcasecmp(s, words[i].name)) {
			*op = words[i].op;
			return 0;
		}
	if (!strcasecmp(s, "F")) {
		*op = IO_OP_FLUSH;
		return 0;
	}
	if (*p == 'F' || *p == 'f') {
		*flags |= IO_F_PREFLUSH;
		p++;
	}
	switch (*p) {
	case 'R': case 'r': *op = IO_OP_READ; break;
	case 'W': case 'w': *op = IO_OP_WRITE; break;
	case 'D': case 'd': case 'T': case 't': *op = IO_OP_DISCARD; break;
	default: return -EINVAL;
	}
	for (p++; *p; p++) {
		switch (*p) {
		case 'F': case 'f': *flags |= IO_F_FUA; break;
		case 'S': case 's': *flags |= IO_F_SYNC; break;
		case 'M': case 'm': *flags |= IO_F_META; break;
		case 'A': case 'a': *flags |= IO_F_READAHEAD; break;
		default: return -EINVAL;
		}
	}
	return 0;
}

/* A whole or decimal number of `scale` ns ("1.5" s); empty is absent. Sub-ns digits drop. */
int csv_time_parse(const char *s, uint64_t scale, uint64_t *ns)
{
	uint64_t whole = 0;
	const char *p = s;

	if (!*s) {
		*ns = IO_TS_NONE;
		return 0;
	}
	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (whole > (UINT64_MAX - 1) / scale)
		return -ERANGE;
	whole *= scale;
	if (*p == '.') {
		if (whole > UINT64_MAX - scale)
			return -ERANGE;
		uint64_t step = scale;

		if (!p[1])
			return -EINVAL;
		for (p++; *p >= '0' && *p <= '9'; p++) {
			step /= 10;
			whole += step * (uint64_t)(*p - '0');
		}
	}
	if (*p || whole == IO_TS_NONE)
		return -EINVAL;
	*ns = whole;
	return 0;
}
