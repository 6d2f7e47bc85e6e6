/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ioreel record --level file, user side (record/FILE.md):
 *   file_record.c  the verb: options, the loop, the report
 *   file_load.c    loading bpf/file.bpf.c in the tiers this kernel allows, the start iterator,
 *                  the calls still in progress (for the release order), the kernel counters
 *   file_drain.c   rings -> file table and io_event/io_fext -> reorder heap -> trace writer
 *   file_table.c   file identities and paths: names from the calls, /proc, mounts, holes
 */
#ifndef IOREEL_RECORD_FILE_INT_H
#define IOREEL_RECORD_FILE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include "formats/trace.h"
#include "bpf/file.h"
#include "record/common.h"

/* file_record.c: the verb, dispatched from record.c when argv asks for --level file. */
int cmd_record_file(int argc, char **argv);
bool rec_wants_file_level(int argc, char **argv);

struct fl_opts {
	struct rec_common c;   /* the options the block level takes too (common.h); --pid: with
				* its descendants */
	char cgroup_rel[4096]; /* --cgroup as a path in the cgroup v2 hierarchy ("/system.slice") */
	char under[4096];      /* --under, absolute and without a trailing slash; "" for none */
	int attach;	       /* enum fl_attach */
};

/* --attach for system calls: per-syscall tracepoints, or the raw sys_enter/sys_exit ones. */
enum fl_attach { FL_ATTACH_AUTO, FL_ATTACH_TRACEPOINT, FL_ATTACH_RAW };

/* ---- file_table.c: what the trace's file table says, and the paths it needs ---- */

struct fl_files;

/* One identity or name: its trace id, or 0 when it is not in the trace (outside --under). */
struct fl_file {
	uint32_t id;
	bool outside;
	uint32_t dev; /* kernel encoding */
	uint64_t ino;
	uint32_t gen;
	char *path; /* the current path as far as we know (renames move it); NULL if unknown */
};

/* under: only paths under it are written ("" for all). */
struct fl_files *fl_files__new(struct trace_writer *w, const char *under);
void fl_files__free(struct fl_files *t);

/* The file of a call that has an identity (e from the kernel). name: the path it was opened
 * by (absolute), or NULL. New files get an entry: path from name, else /proc/PID/fd/FD,
 * checked against the identity; size, allocation and holes at this moment. at_start: open
 * when the recording started. Returns the entry (never NULL unless out of memory). */
struct fl_file *fl_files__ident(struct fl_files *t, const struct fl_event *e, const char *name,
				uint32_t name_origin, uint64_t first_ns, bool at_start);
/* The file a path names now (unlink, rename, truncate by path): the file last known there,
 * else a name-only entry. */
struct fl_file *fl_files__by_path(struct fl_files *t, const char *path, uint64_t first_ns);
/* A rename moved what was at from to to. */
void fl_files__moved(struct fl_files *t, struct fl_file *f, const char *to);
/* An unlink removed the name. */
void fl_files__unlinked(struct fl_files *t, struct fl_file *f);
/* Is a file known at path now? */
bool fl_files__known_path(struct fl_files *t, const char *path);
/* Would a file at path be in the trace (--under)? */
bool fl_files__wants_path(const struct fl_files *t, const char *path);
/* path is the --under directory itself (not a file under it) */
bool fl_files__is_under_dir(const struct fl_files *t, const char *path);

/* A path argument as the kernel gave it, and the directory it is relative to. */
struct fl_join {
	const char *path;
	uint32_t tid;
	int32_t dirfd;	  /* -100: cwd */
	uint32_t dir_dev; /* the cwd's or dirfd's identity at the call (0: unknown) */
	uint64_t dir_ino;
};

/*
 * Joins a path argument to the directory it is relative to and normalizes it lexically: that
 * directory's path is known from before (by identity), or read from /proc/TID/cwd or
 * /proc/TID/fd/DIRFD now and checked against the identity (*origin gets
 * TRACE_FILE_PATH_GUESS then). 0, or -errno when it cannot be told (the process is gone).
 */
int fl_files__join(struct fl_files *t, const struct fl_join *j, char *out, size_t len,
		   uint32_t *origin);
/* Learns process pid's cwd now (recorded processes at start: their relative paths later). */
void fl_files__learn_cwd(struct fl_files *t, uint32_t pid);
/* dir (a directory of a cgroup v2 mount) as a path in the hierarchy: "/system.slice". */
int fl_cgroup_rel(const char *dir, char *out, size_t len);
/* Is path under (or equal to) the directory under ("": everything is)? */
bool fl_path_is_under(const char *under, const char *path);
/* The filesystems (kernel dev_t) of DIR and of every mount below it; returns the count. */
int fl_under_devs(const char *dir, uint32_t *devs, int max);
/* The same, one per mount, with the mounts' ids (devs may repeat): to see the mounts change. */
int fl_under_mounts(const char *dir, uint32_t *devs, uint32_t *ids, int max);

struct fl_files_stats {
	uint64_t files;	       /* entries written to the trace */
	uint64_t outside;      /* identities outside --under (their calls are not written) */
	uint64_t path_unknown; /* entries written without a path */
	uint64_t name_only;    /* entries that are names only (unlink/rename of unseen files) */
};
void fl_files__stats(const struct fl_files *t, struct fl_files_stats *s);

/* ---- file_drain.c ---- */

struct fl_drain;

struct fl_drain_stats {
	uint64_t events;	/* written to the trace */
	uint64_t bytes_io;	/* bytes read and written by them */
	uint64_t outside;	/* calls on files outside --under (not written) */
	uint64_t out_of_order;	/* written after a later-starting call (held longer than HOLD) */
	uint64_t unfinished;	/* written without a return (in progress at the stop) */
	uint64_t names_missing; /* calls whose path record never came (path unknown) */
	uint64_t pending;	/* in the reorder heap now */
};

/* names_fn: drains the names ring buffer (called when a call's name is not there yet). */
struct fl_drain *fl_drain__new(struct trace_writer *w, struct fl_files *t, uint64_t genesis,
			       void (*names_fn)(void *), void *names_ctx);
void fl_drain__free(struct fl_drain *d);
/* The rings' consumer (a struct fl_event); 0 (the heap keeps it, or counts the failure). */
int fl_drain__push(void *d, const void *ev);
/* The names ring buffer's consumer (libbpf ring_buffer_sample_fn). */
int fl_drain__name(void *d, void *data, size_t size);
/* A descriptor open at start (the iterator's record and its path). */
void fl_drain__start(struct fl_drain *d, const struct fl_snap *s, const char *path);
/* The start snapshot is in: later opens need no longer be remembered against it. */
void fl_drain__snapshot_done(struct fl_drain *d);
/* A call still in progress at the end: written without its return. */
void fl_drain__unfinished(struct fl_drain *d, const struct fl_event *e);
/* Writes what started before ktime `before` (UINT64_MAX: everything). 0 or the writer's -errno. */
int fl_drain__release(struct fl_drain *d, uint64_t before);
void fl_drain__stats(const struct fl_drain *d, struct fl_drain_stats *s);

/* How long a call may hold back the calls that started after it before they are written. */
#define FL_HOLD_NS (1000ULL * 1000000ULL)

/* ---- file_load.c ---- */

struct file_bpf;

struct fl_bpf {
	struct file_bpf *skel;
	struct bpf_link **links;
	int nlinks, cap;
	bool raw;	       /* system calls through raw sys_enter/sys_exit */
	bool uring;	       /* io_uring tracepoints attached */
	bool iter;	       /* the start iterator loaded */
	bool procs;	       /* fork/exit tracepoints attached */
	bool cpu;	       /* on-CPU time and CPU load recorded (bpf/oncpu.bpf.h) */
	int nsyscalls;	       /* system calls attached */
	struct fl_slot *slots; /* mmap()ed */
	struct ring_buffer *names;
};

/* Loads and attaches (with tracking held off: fl_bpf_start() lets calls in). Prints what went
 * wrong and returns -errno. */
int fl_bpf_load(struct fl_bpf *b, const struct fl_opts *o, int ncpu, int cgfd);
/* The names ring buffer's consumer (fl_drain__name with d). 0 or -errno. */
int fl_bpf_names(struct fl_bpf *b, struct fl_drain *d);
/* Drains the names ring buffer (the names_fn of fl_drain__new). */
void fl_bpf_names_poll(void *b);
void fl_bpf_start(struct fl_bpf *b);
/* Stop tracking new calls; then detach. */
void fl_bpf_stopping(struct fl_bpf *b);
void fl_bpf_detach(struct fl_bpf *b);
void fl_bpf_close(struct fl_bpf *b);
/* Files open at start in the recorded processes, to d (iterator, or /proc without it; with
 * --pid, the tgids it found). */
int fl_bpf_snapshot(struct fl_bpf *b, const struct fl_opts *o, struct fl_drain *d,
		    const uint32_t *tgids, size_t ntgids);
/* Start time (ktime) of the oldest call in progress (UINT64_MAX if none); *n gets how many.
 * each (if not NULL) is called for every one (the end: written as unfinished). */
uint64_t fl_bpf_pending(struct fl_bpf *b, uint64_t *n,
			void (*each)(void *, const struct fl_event *), void *ctx);
/* Processes the filters name at start (--pid: it and its descendants) into the tgids map. */
int fl_bpf_add_tgid(struct fl_bpf *b, uint32_t tgid);
/* The kernel's counters, summed over CPUs: vals[FL_STAT__COUNT]; *nested: skipped entries. */
void fl_bpf_stats(struct fl_bpf *b, int ncpu, uint64_t *vals, uint64_t *nested);
/* "tracepoints, io_uring, iter" or what replaced them: for the trace's options and --json. */
const char *fl_bpf_tiers(const struct fl_bpf *b, char *buf, size_t len);

#endif
