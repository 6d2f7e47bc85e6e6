/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the block level (record.c) and the file level (file_record.c) of ioreel record share:
 * the options both take, with one parser; the check that BPF can be loaded; the rings' sizing;
 * libbpf's log, which names the program whose load failed.
 */
#ifndef IOREEL_RECORD_COMMON_H
#define IOREEL_RECORD_COMMON_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rec_common {
	const char *out;
	uint64_t duration_ns, max_size;
	uint32_t pid;
	const char *comm, *cgroup;
	uint32_t inflight;  /* the level's default before parsing */
	uint64_t ring_size; /* bytes per CPU */
	bool ring_size_given;
	uint32_t ring_shift; /* log2 of the records per ring: rec_size_rings() */
	bool keep_priority; /* leave the drain thread's scheduling as inherited */
	bool cpu;	    /* record the threads' on-CPU time and the CPU load (--cpu) */
	bool quiet, json;
	const char *given[8]; /* the single-valued options' values as given: two are refused */
};

/* The shared options' codes; a level numbers its own from REC_O__NEXT. */
enum {
	REC_O_DURATION = 256,
	REC_O_MAXSIZE,
	REC_O_PID,
	REC_O_COMM,
	REC_O_CGROUP,
	REC_O_INFLIGHT,
	REC_O_RING,
	REC_O_JSON,
	REC_O_KEEP_PRIO,
	REC_O_CPU,
	REC_O__NEXT
};

/* The shared entries of a level's getopt_long table (short options: "o:qh"). */
#define REC_COMMON_OPTIONS                                                                  \
	{ "output", required_argument, 0, 'o' },                                            \
	{ "duration", required_argument, 0, REC_O_DURATION },                               \
	{ "max-size", required_argument, 0, REC_O_MAXSIZE },                                \
	{ "pid", required_argument, 0, REC_O_PID },                                         \
	{ "comm", required_argument, 0, REC_O_COMM },                                       \
	{ "cgroup", required_argument, 0, REC_O_CGROUP },                                   \
	{ "inflight", required_argument, 0, REC_O_INFLIGHT },                               \
	{ "ring-size", required_argument, 0, REC_O_RING },                                  \
	{ "quiet", no_argument, 0, 'q' },                                                   \
	{ "json", no_argument, 0, REC_O_JSON },                                             \
	{ "keep-priority", no_argument, 0, REC_O_KEEP_PRIO },                               \
	{ "cpu", no_argument, 0, REC_O_CPU },                                               \
	{ "help", no_argument, 0, 'h' }
#define REC_SHORT_OPTIONS "o:qh"

/* --inflight's range (the entries of the BPF map of I/Os or calls in flight): 64 to 2^22. */
#define REC_INFLIGHT_MIN 64
#define REC_INFLIGHT_MAX 4194304

/* One option getopt_long returned (c, arg), if it is a shared one: 1 (applied to o), 0 (not a
 * shared option, or -h: the level's), -EINVAL (its value is bad: said, naming the option in
 * lo, what it takes and the help command). */
int rec_common_opt(int c, const char *arg, struct rec_common *o, const struct option *lo,
		   const char *help);
/* Says that arg is no value for the option with code c in lo, and what is (want: "bio, rq or
 * auto"); -EINVAL. */
int rec_opt_bad(const struct option *lo, int c, const char *arg, const char *want,
		const char *help);
/* After getopt_long: no stray argument, and an output. 0 or -EINVAL (said). */
int rec_common_check(const struct rec_common *o, int argc, char **argv);

/* Root and BTF. caps: the capabilities to name. 0 or -errno (said). */
int rec_check_env(const char *caps);

/*
 * o->ring_shift: log2 of the records of rec_size bytes that fit in --ring-size (at least 64).
 * The rings are locked kernel memory, one per possible CPU: past 64 CPUs the default shares
 * 256 MiB among them. -EINVAL, said, when the records would not fit one BPF array.
 */
int rec_size_rings(struct rec_common *o, int ncpu, size_t rec_size);

struct trace_counter;
/* " (ring 3, stale 2)": the drop causes among the counters (names "dropped_CAUSE") that are not
 * 0, for status lines; "" when none is. Returns buf. */
char *rec_drops_why(const struct trace_counter *c, size_t n, char *buf, size_t len);

/* When a ring overflowed (dropped_ring > 0): warns why (the writer's buffer full, or how long
 * the drain thread left the rings unread against what a ring holds) and what to do. `what`:
 * "I/Os", "calls". */
struct rec_collect_stats;
void rec_ring_warn(const struct rec_common *o, uint64_t dropped_ring,
		   const struct rec_collect_stats *cs, const char *what);
struct trace_writer;
struct trace_stats;
/* A recording the trace's writer stopped (werr: a full disk): the events given to it (handed)
 * or still held for ordering (pending) that are not in the file. */
uint64_t rec_unwritten(const struct trace_writer *w, uint64_t handed, uint64_t pending);
/* Says so, naming what the trace holds, and closes it: the counters (with those events as
 * dropped_unwritten) and the index go in if they fit. Frees w. */
void rec_close_failed(struct trace_writer *w, const struct trace_stats *st, const char *out,
		      int werr, uint64_t unwritten);

/* libbpf's log: hidden unless IOREEL_DEBUG is set; its warnings name the program whose load
 * or attach failed, kept in rec_failed_prog ("" when none). */
extern char rec_failed_prog[64];
void rec_libbpf_log(void);

#endif
