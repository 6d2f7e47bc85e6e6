/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Internals of the .ioreel container shared by trace_writer.c, trace_reader.c and meta.c:
 * the columnar chunk coding (see formats/FORMAT.md) and the header's tagged fields.
 * Not an API for other folders: use formats/trace.h.
 */
#ifndef IOREEL_FORMATS_CODEC_H
#define IOREEL_FORMATS_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "formats/trace.h"
#include "formats/file.h"

#define TRACE_VERSION_MAJOR 1
/* 1.1: flags bit 5, kthread; 1.2: file-level traces (FORMAT.md, section 5); 1.3: a record per
 * stream (header tag 12); 1.4: the header's checksum (tag 13); 1.5: think time and latency
 * targets in stream records; 1.6: the on-CPU column and CPU load frames; 1.7: rate caps and
 * exit groups in stream records; 1.8: the CPU-wait column */
#define TRACE_VERSION_MINOR 8

#define TRACE_SKIP_MAGIC_HEADER 0x184D2A50u
#define TRACE_SKIP_MAGIC_CHUNK 0x184D2A51u
#define TRACE_SKIP_MAGIC_INDEX 0x184D2A52u
#define TRACE_SKIP_MAGIC_FILES 0x184D2A53u /* file table (file-level traces, 1.1) */
#define TRACE_SKIP_MAGIC_COUNTERS 0x184D2A54u /* named counters, written at close (1.1) */
#define TRACE_SKIP_MAGIC_CPU_LOAD 0x184D2A55u /* host CPU load per interval (1.6) */
#define TRACE_MAX_SIDE_FRAME (16u << 20) /* file table and counters frames */
#define TRACE_CHUNK_HDR_SIZE 52u
#define TRACE_FOOTER_SIZE 24u
#define TRACE_INDEX_ENTRY_SIZE 40u
#define TRACE_INDEX_FIXED 56u /* magic, nchunks, flags, reserved, 5 stats */
#define TRACE_MAX_HEADER (1u << 20)
#define TRACE_MAX_RAW (64u << 20)
#define TRACE_MAX_COMP (TRACE_MAX_RAW + (1u << 20))
#define TRACE_MAX_CHUNK_EVENTS (1u << 20)
#define TRACE_DEFAULT_CHUNK_EVENTS 65536u
/* The writer's cap: 192 raw bytes per event at worst (22 columns of 8 bytes plus a comm) must
 * stay under TRACE_MAX_RAW, which readers enforce. */
#define TRACE_WRITER_MAX_CHUNK_EVENTS (1u << 18)

enum codec_col_id {
	COL_PRES,
	COL_Q,
	COL_I,
	COL_C,
	COL_OFF,
	COL_LEN,
	COL_DEV,
	COL_PID,
	COL_TID,
	COL_ERR,
	COL_STREAM,
	COL_CPU,
	COL_OP,
	COL_FLAGS,
	COL_COMM,
	COL__COUNT,
	/* file-level chunks only (chunk flag bit 1): the struct io_fext fields */
	COL_FILE = COL__COUNT,
	COL_FD,
	COL_OFLAGS,
	COL_AUX,
	COL_RESULT,
	COL_ARG,
	COL_IFACE,
	COL__FCOUNT,
	/* optional, last of either kind (1.6): io_event.oncpu_ns, written only by a chunk that
	 * has some; its position is codec_ncols(file) */
	COL_ONCPU = COL__FCOUNT,
	/* optional, after it (1.8): io_event.cpuwait_ns, written only by a chunk that has some
	 * (and then the on-CPU column too, zeros if need be) */
	COL_CPUWAIT,
	COL__ALL
};

/* Chunk header flags. */
#define TRACE_CHUNK_SORTED 1u
#define TRACE_CHUNK_FILE 2u /* file-level events: columns COL_FILE.. follow the block ones */

static inline void put_u16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}
static inline void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}
static inline void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = v >> (8 * i);
}
static inline uint16_t get_u16(const uint8_t *p)
{
	return p[0] | (uint16_t)p[1] << 8;
}
static inline uint32_t get_u32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t get_u64(const uint8_t *p)
{
	return get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* ---- chunk encoder: events in, raw column bytes out (then zstd'ed by the writer) ---- */
struct codec_enc;
/* file: a file-level chunk (codec_enc_add_file only); else block events (codec_enc_add). */
struct codec_enc *codec_enc_new(uint32_t cap, bool file);
void codec_enc_free(struct codec_enc *e);
/* Appends one event; the caller keeps count < cap. */
void codec_enc_add(struct codec_enc *e, const struct io_event *ev);
void codec_enc_add_file(struct codec_enc *e, const struct io_event *ev, const struct io_fext *x);
/* Columns a chunk of this kind has. */
static inline unsigned int codec_ncols(bool file)
{
	return file ? COL__FCOUNT : COL__COUNT;
}
uint32_t codec_enc_count(const struct codec_enc *e);
uint64_t codec_enc_first(const struct codec_enc *e);
uint64_t codec_enc_last(const struct codec_enc *e);
bool codec_enc_sorted(const struct codec_enc *e);
/* Upper bound of the raw size of what is buffered. */
size_t codec_enc_raw_bound(const struct codec_enc *e);
/* Writes the raw chunk into out; cuts[] receives the end offsets of the segments (planes)
 * worth a zstd block of their own, *ncuts their number. Returns the raw size. Resets e. */
size_t codec_enc_finish(struct codec_enc *e, uint8_t *out, size_t *cuts, size_t *ncuts);
size_t codec_enc_max_cuts(void); /* for either kind of chunk */

/* ---- chunk decoder: raw column bytes in, events out in batches ---- */
struct codec_col {
	const uint8_t *data;
	uint32_t n, width, pos;
	uint8_t mode;
	uint8_t radix, digits; /* top plane packed as base-radix digits, digits per byte */
	uint64_t base, mult;
};

struct codec_dec {
	uint32_t count, done, ndict;
	const uint8_t *dict;
	uint32_t ndevices; /* 0: any device index accepted */
	uint32_t nfiles;   /* file-level: file ids 1..nfiles accepted */
	bool file;	   /* a file-level chunk */
	struct codec_col col[COL__ALL];
	bool oncpu;   /* the chunk has the on-CPU column */
	bool cpuwait; /* and the CPU-wait one */
	uint64_t prev_q, prev_i, prev_c;
	uint64_t prev_end[64];
	uint8_t unpack[COL__ALL][256][8]; /* packed byte -> its digits, per packed column */
};

/* Validates the raw chunk's structure (file: the chunk header has TRACE_CHUNK_FILE).
 * 0 or -EBADMSG with *what set. */
int codec_dec_init(struct codec_dec *d, const uint8_t *raw, size_t len, uint32_t ndevices,
		   bool file, uint32_t nfiles, const char **what);
/* Decodes up to cap events; x (file-level chunks only, else NULL) gets their io_fext halves.
 * Returns the count (0 when done) or -EBADMSG with *what set. */
long codec_dec_next(struct codec_dec *d, struct io_event *out, struct io_fext *x, size_t cap,
		    const char **what);

/* ---- header (meta.c) ---- */
/* Serializes meta into a malloc'ed skippable frame (magic+size+payload). NULL on ENOMEM. */
uint8_t *meta_encode(const struct trace_meta *m, size_t *len);
/*
 * Parses a header payload (after magic+size). 0, or -EINVAL/-EPROTONOSUPPORT with *what;
 * -EBADMSG when its checksum (1.4) does not match, or, with salvage, 1 and meta decoded from
 * the unchecked header (*what says why it is suspect).
 */
int meta_decode(const uint8_t *p, size_t len, struct trace_meta *m, bool salvage,
		const char **what);

#endif
