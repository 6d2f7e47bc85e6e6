/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Reading fio job files the way fio reads them (fio's HOWTO, "Job file format"): the text layer
 * (synth/fioparse.c: sections, include, comments, ${VAR}, $pagesize and friends, arithmetic),
 * fio's value syntax (synth/fiovalue.c: sizes with kb_base, %, zones, times, ranges) and the
 * table saying what ioreel does with each fio option (synth/fioopts.c, documented in
 * synth/FIO.md). synth/fiojob.c turns the sections into a synth_spec.
 */
#ifndef IOREEL_SYNTH_FIO_H
#define IOREEL_SYNTH_FIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the text layer ---- */

struct fio_opt {
	char *key;
	char *value; /* NULL for a bare flag ("time_based") */
	char *raw;   /* the value as written, before ${VAR} and keywords */
	const char *file;
	unsigned int line;
};

struct fio_section {
	char *name;
	bool global; /* fio: any name starting with "global" */
	struct fio_opt *opt;
	unsigned int nopt, cap;
	const char *file;
	unsigned int line;
};

struct fio_jobfile {
	struct fio_section *sec;
	unsigned int nsec, cap;
	char **paths; /* every file read (the job file and its includes), owned */
	unsigned int npaths;
};

/*
 * Reads path and its includes into jf: comments stripped (fio cuts a line at its first ';' or
 * '#'), ${VAR} from the environment, $pagesize/$mb_memory/$ncpus replaced and the arithmetic
 * around them evaluated, as fio does. 0, or -errno / -EINVAL with why ("file:line: ...").
 */
int fio_jobfile_read(const char *path, struct fio_jobfile *jf, char *why, size_t why_len);
void fio_jobfile_free(struct fio_jobfile *jf);

/* ---- values ---- */

enum fio_expr_kind {
	FIO_EXPR_INT,  /* bc's integer arithmetic (fio evaluates keyword values with bc) */
	FIO_EXPR_SIZE, /* numbers may carry k, m, g, kib, ... (bytes) */
	FIO_EXPR_TIME, /* numbers may carry us, ms, s, m, h, d (the result is in microseconds) */
};

/* Arithmetic as fio evaluates it: + - * / % ^ and parentheses. For FIO_EXPR_TIME a number
 * without a suffix is in units of unit_us microseconds. 0 or -EINVAL. */
int fio_expr_eval(const char *s, enum fio_expr_kind kind, double unit_us, double *out);

/* A size as fio reads it: a plain number of bytes, a percentage of the file, or zones. */
struct fio_size {
	uint64_t bytes;
	uint32_t ppm;	/* the value was "N%": N * 10^4 parts per million (bytes is 0) */
	uint64_t zones; /* the value was "Nz": N zones (bytes is 0) */
	bool is_pct, is_zones;
};

/* "4k", "4kib" (= 4000 with kb_base 1024, as fio reads it), "0x1000", "25%", "8z", "(1k*3)".
 * kb_base is 1024 or 1000. 0 or -EINVAL. */
int fio_parse_size(const char *s, unsigned int kb_base, struct fio_size *out);
/* A plain size in bytes (no % or z). */
int fio_parse_bytes(const char *s, unsigned int kb_base, uint64_t *out);
/* A time: seconds by default (us when default_us), suffixes us/usec, ms/msec, s, m, h, d;
 * "(expr)" in microseconds as fio does. ns out. 0 or -EINVAL. */
int fio_parse_time(const char *s, bool default_us, uint64_t *ns);
/* fio's bool: 1/0, true/false, yes/no, on/off; NULL (a bare flag) is true. 0 or -EINVAL. */
int fio_parse_bool(const char *s, bool *out);
/* A whole number, decimal or 0x hex, or "(expr)". 0 or -EINVAL. */
int fio_parse_int(const char *s, int64_t *out);

/* ---- the option table (synth/fioopts.c) ---- */

enum fio_opt_class {
	FIO_OPT_UNKNOWN = 0, /* not an option ioreel knows */
	FIO_OPT_PATTERN,     /* shapes the I/O: applied by synth_job_set() */
	FIO_OPT_IGNORED,     /* fio's own machinery: accepted, listed as ignored */
	FIO_OPT_REFUSED,     /* ioreel does not reproduce what it does: the job is refused */
};

struct fio_optdef {
	const char *name;
	enum fio_opt_class cls;
	const char *why; /* IGNORED: the category; REFUSED: the reason */
};

/* The entry for key ('-' and '_' alike, fio's aliases folded), or NULL. */
const struct fio_optdef *fio_opt_find(const char *key);
/* The i-th entry of the table, NULL past its end. */
const struct fio_optdef *fio_opt_at(size_t i);

/* What an I/O engine is to ioreel. */
enum fio_engine_class {
	FIO_ENGINE_UNKNOWN = 0,
	FIO_ENGINE_SYNC,  /* one I/O in flight per job, whatever iodepth says */
	FIO_ENGINE_ASYNC, /* keeps iodepth in flight */
	FIO_ENGINE_REFUSED,
};

struct fio_engine {
	const char *name;
	enum fio_engine_class cls;
	const char *why;   /* REFUSED: what the engine does that no block or file I/O is */
	bool names_device; /* the device is an engine option (rbd, nbd, libblkio): jobs share it */
};

const struct fio_engine *fio_engine_find(const char *name);

#endif
