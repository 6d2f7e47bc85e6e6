/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Internals of formats/: the side frames of the container (file table, named counters),
 * shared by trace_writer.c and trace_reader.c. Layout: formats/FORMAT.md. Not an API for other
 * folders: use formats/trace.h.
 */
#ifndef IOREEL_FORMATS_FTABLE_H
#define IOREEL_FORMATS_FTABLE_H

#include "formats/codec.h"

/* Index entry kinds (the u32 at offset 20 of an entry; 0 in format 1.0, where all are chunks). */
enum { IDX_CHUNK = 0, IDX_FILES = 1, IDX_COUNTERS = 2, IDX_CPU_LOAD = 3 /* 1.6 */ };

/*
 * Where a side frame is. Entries go in while SIDE_OPEN; side_end() seals it (count, size and
 * crc filled in), and a write that fails leaves it sealed, so the close tries it again as it
 * is; SIDE_WRITTEN once it is in the file, so no close writes it twice (the file table and
 * the CPU load begin their next frame at once: only the counters, written at close, stay so).
 */
enum side_state { SIDE_OPEN = 0 /* a zeroed side_buf */, SIDE_SEALED, SIDE_WRITTEN };

/* A frame being built: magic, size, tag, count, reserved, entries, crc. */
struct side_buf {
	uint8_t *p;
	size_t len, cap;
	uint32_t count;
	bool failed; /* out of memory at some point: side_end() says so */
	enum side_state state;
};

void side_begin(struct side_buf *b, uint32_t magic, const char tag[4]);
void side_put_bytes(struct side_buf *b, const void *p, size_t n);
/* Checks tag, reserved word and crc of a payload (after magic and size): *count, and where
 * the entries end (*body_end, before the crc). 0 or -EBADMSG with *what. */
int side_open(const uint8_t *p, size_t len, const char tag[4], uint32_t *count, size_t *body_end,
	      const char **what);
/* Appends one file-table entry; -EINVAL (bad entry) or -ENOMEM. */
int ftab_put(struct side_buf *b, const struct trace_file *f);
/* Appends one counter; -EINVAL (empty or too long name, too many) or -ENOMEM. */
int counters_put(struct side_buf *b, const char *name, uint64_t value);
/* Fills in count, size and crc: b->p[0 .. b->len) is then the whole frame. 0 or -ENOMEM. */
int side_end(struct side_buf *b);
void side_buf_free(struct side_buf *b);

/* The file table as read: entries in id order (f[i].id == i + 1), each with its own copies. */
struct ftab {
	struct trace_file *f;
	size_t n, cap;
};

/* Appends the entries of one file-table frame's payload (after magic and size) to t. Ids must
 * continue t's sequence. 0, -ENOMEM, or -EBADMSG with *what. */
int ftab_parse(const uint8_t *p, size_t len, struct ftab *t, const char **what);
void ftab_free(struct ftab *t);

struct counters {
	struct trace_counter *c;
	size_t n;
};

/* Replaces c with the counters of one counters frame's payload. 0, -ENOMEM, -EBADMSG. */
int counters_parse(const uint8_t *p, size_t len, struct counters *c, const char **what);
void counters_free(struct counters *c);

/* CPU load frames (cpuload.c): begin one for this host, append entries, side_end(). */
void cpu_load_begin(struct side_buf *b, uint32_t ncpus, uint32_t interval_ns);
int cpu_load_put(struct side_buf *b, const struct trace_cpu_load *l);

struct cpu_loads {
	struct trace_cpu_load *l;
	size_t n, cap;
	uint32_t ncpus, interval_ns;
};

/* Appends the entries of one CPU load frame's payload. 0, -ENOMEM, or -EBADMSG with *what. */
int cpu_load_parse(const uint8_t *p, size_t len, struct cpu_loads *c, const char **what);
void cpu_loads_free(struct cpu_loads *c);

#endif
