/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * File-level replay (`ioreel replay TRACE --root DIR`): the calls a file-level trace recorded
 * (formats/FORMAT.md, section 5) reissued on files recreated under a directory, through the
 * scheduler, engines and modes of block replay. Design: replay/README.md, "File level".
 *
 * An open file is a target. Every descriptor the recording opened becomes a slot of a table
 * handed to the engine (an engine_target per slot, its descriptor read at each I/O), so the
 * engines index open files where they index devices for block traces. The helper thread turns
 * recorded calls into struct sev (file_decode.c, file_setup.c); the loops of run.c and
 * dep_run.c release them as they release block I/Os; reads, writes, syncs and fallocate go to
 * the engine, calls on names and descriptors (open, close, dup, fcntl, rename, unlink,
 * truncate, stat, mkdir, rmdir) are made by the scheduling thread itself when released
 * (file_run.c, file_ops.c).
 *
 * A call (struct sev of a file-level replay):
 *   op      enum io_fop
 *   dev     the slot it acts on; FSLOT_NONE for a call by name
 *   offset  read, write, sync_file_range, fallocate: the file offset; truncate: the new size
 *   len     read, write: bytes; open: the mode; a call by name: the file id
 *   aux     read, write: RWF flags; open: flags (x86-64 values); setfl: the flags asked;
 *           sync_file_range: flags; fallocate: mode; rename: renameat2 flags
 *   arg     read: bytes the recording got; sync_file_range, fallocate: length; open: its
 *           name; dup: the new slot; close: calls on the slot before it; rename: the source
 *           name | the destination name << 32; unlink, truncate by name, stat, mkdir,
 *           rmdir: the name
 */
#ifndef IOREEL_REPLAY_FILE_INT_H
#define IOREEL_REPLAY_FILE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include "formats/trace.h"
#include "replay/core/run.h"

#define FSLOT_NONE UINT32_MAX

/* A file-level replay's completed call: the result event's file-level half too (the output
 * ring's item, replay_source_file.out_item). */
struct done_fev {
	struct done_ev d;
	struct io_fext x;
};
#define FMARKER ".ioreel-replay" /* in a root a replay prepared: it may replace files there */

/* A path under the root. Several file-table entries may share one (a file made again). */
struct fname {
	char *rel;	  /* relative to the root: no leading '/', no "." or ".." component */
	const char *base; /* its last component, in rel */
	int dirfd;	  /* its directory, opened beneath the root (O_PATH); -1 until made */
	bool dir;	  /* the trace has a directory there (file_ops.c) */
	bool parent;	  /* other names lie under it: a directory */
};

enum flayout {
	FLAY_NONE = 0,	/* made by the trace (an open with O_CREAT), or only a name */
	FLAY_DATA = 1,	/* existed before its first call: recreated at its size, with data */
	FLAY_EMPTY = 2, /* only a name, unlinked or renamed in the recording: made empty */
};

/* Per file id (1..nfiles). */
struct ffile {
	uint32_t name;	    /* its name at first sight */
	uint8_t layout;	    /* enum flayout */
	bool seen;	    /* prescan: a call named it */
	bool tmpfile;	    /* opened with O_TMPFILE: no name, its calls are not replayed */
	bool dir;	    /* a directory (FLAY_DATA: made before the clock, empty) */
	bool weak;	    /* laid out only because a stat found the name (file_ops.c) */
};

/* Per slot, fixed by the decoder's first pass. */
struct fslot_info {
	uint32_t file;
	int32_t fd;	  /* the recorded descriptor */
	uint32_t oflags;  /* at_setup: the flags to open it with */
	bool at_setup;	  /* opened before the clock: open at start, or used without its open */
};

/* Per slot while the replay runs (scheduling thread). */
struct fslot {
	uint64_t done_uses; /* calls on it completed since its open */
	uint64_t issued;    /* calls on it issued since its open */
	uint64_t close_at;  /* close the descriptor once done_uses reaches this; UINT64_MAX: open */
	uint32_t gen;	    /* its opens so far: a closed loop cycles a stream's open, calls and
			     * close, and may reopen the slot while the last cycle's close still
			     * waits for its calls (each call carries the gen it was issued in) */
	uint32_t oflags;    /* its flags now (x86-64 values), for the result */
};

/* A descriptor of an earlier generation of a slot, reopened while calls issued on this one were
 * still in flight: closed when the last of them completes. */
struct fretired {
	uint32_t slot, gen;
	int fd;
	uint64_t left; /* its calls still in flight */
};

/* One entry of the recorded descriptor tables: (pid, fd) -> slot. */
struct fdent {
	uint32_t pid;
	int32_t fd;
	uint32_t slot;
	uint8_t state; /* 0 empty, 1 used, 2 deleted */
};

/*
 * A descriptor an open found still in the table, kept aside until the open's return: another
 * thread's close that entered after the open did may still have freed that number for it (the
 * trace orders calls by their entry), and claims it then; otherwise its close was missed.
 */
struct fdshadow {
	uint32_t pid, tid; /* the process, and the thread whose open found it */
	int32_t fd;
	uint32_t slot;
	uint64_t until; /* the open's return */
};

#define FDEC_SHADOWS 8

/* Per slot in the decoder. */
struct fdslot {
	uint64_t uses;	   /* calls on it decoded so far */
	uint64_t open_seq; /* the call that opened it; UINT64_MAX: before the clock */
	uint32_t open_tid;
	uint32_t refs;	   /* descriptors (of processes that forked) naming it */
};

/* The recorded descriptor tables, replayed as slots (file_decode.c). Run twice: a prescan that
 * numbers and describes the slots, then the real pass, which numbers them the same way. */
struct fdec {
	struct frun *f;
	struct fdent *tab;
	uint32_t cap, used, deleted;
	struct fdslot *sl;
	uint32_t nslots, capslots;
	/* dep mode keeps the order of calls on a name across threads, per name: the last call
	 * that changed what the name holds (create, truncate, rename, unlink), and the last
	 * plain open since, which only follows the change before it. Two processes opening one
	 * file do not wait for each other; the next change waits for the later open only (an
	 * I/O has at most DEP_MAX_PARENTS parents), so an earlier opener lagging past it fails
	 * its open, counted, never silently */
	uint64_t *name_seq;
	uint32_t *name_tid;
	uint64_t *name_rd_seq;
	uint32_t *name_rd_tid;
	uint32_t *name_file; /* per name: the file there now (0: none known) */
	uint32_t *cur_name;  /* per file: its name now */
	uint64_t seq;	     /* calls produced so far */
	struct fdshadow shadow[FDEC_SHADOWS];
	uint32_t nshadow;
	bool first_pass;
};

/* A call decoded from one recorded event, waiting for the input ring. */
struct fcall {
	struct sev s;
	struct io_event iev; /* the call as dependency inference sees it */
	uint64_t seq;
	uint64_t after[4];   /* calls of other threads it must follow (an open, a name's last
			      * change and open, for a rename both names') */
	uint8_t nafter;
};

struct frun {
	struct replay_file_result *res;
	const struct replay_opts *o;
	struct trace_reader *rd;
	int rootfd;
	/* names and their directories */
	struct fname *names;
	uint32_t nnames;
	struct strmap *name_map, *dir_map;
	int *dirfds;
	uint32_t ndirs, capdirs;
	/* files (index = file id) */
	struct ffile *files;
	uint32_t nfiles;
	/* slots */
	struct fslot_info *info;
	struct fslot *slots;
	struct engine_target *tg;
	uint32_t nslots, capinfo;
	struct fdec dec;
	bool syscalls_only; /* the prescan found no call made through libaio or io_uring */
	/* helper thread: decoding */
	struct io_event *ev;
	struct io_fext *x;
	size_t nbuf, pos;
	bool eof;
	struct fcall *pend;
	size_t npend, pend_pos, cappend;
	/* scheduling thread: calls made there, handed back by the next reap */
	struct replay_io **done;
	unsigned int ndone;
	struct fretired *retired; /* (file_run.c) */
	uint32_t nretired, capretired;
};

/* file_root.c: the directory, names, lay-out */
int froot_open(struct frun *f, const char *dir, bool force, char *err, size_t errlen);
int froot_names(struct frun *f, const char *strip, char *err, size_t errlen);
int froot_vet(struct frun *f, char *err, size_t errlen);
int froot_prepare(struct frun *f, char *err, size_t errlen);
/* openat2 beneath the root, never through a symlink: a descriptor or -errno */
int froot_open_name(const struct frun *f, uint32_t name, int flags, unsigned int mode);
void froot_free(struct frun *f);

/* file_decode.c */
int fdec_init(struct fdec *d, struct frun *f, bool first_pass);
void fdec_free(struct fdec *d);
/* The calls one recorded event becomes, appended to f->pend; 0 or -ENOMEM. */
int fdec_event(struct fdec *d, const struct io_event *ev, const struct io_fext *x);

static inline struct frun *frun_of(const struct run *r)
{
	return r->src_state;
}

extern const struct replay_source_ops replay_source_file;

/* file_run.c: the calls the scheduling thread makes itself, and the results (the table's) */
int file_issue(struct run *r, struct replay_io *io);
int file_reap(struct run *r, struct replay_io **done, unsigned int max);
void file_complete(struct run *r, struct replay_io *io, struct done_ev *d);
void file_skip(struct run *r, const struct sev *s);
/* would file_issue() hand s to the engine now (a call on an open descriptor)? */
bool file_to_engine(const struct run *r, const struct sev *s);
/* A call on a name, made on an engine's thread (engine_names.call; frun: struct frun). */
int file_name_call(void *frun, const struct replay_io *io);
void file_out(struct run *r, const struct done_ev *d);

/* file_ops.c: stat, mkdir, rmdir and the directories a trace names */
int fops_mark_parents(struct frun *f);
int fops_settle_weak(struct frun *f);
bool fops_is_dir_op(uint8_t op);
bool fops_by_name_op(uint8_t op);
void fops_first_sight(struct frun *f, uint32_t file, const struct io_event *ev,
		      const struct io_fext *x);
int fops_by_name(struct frun *f, const struct replay_io *io);
int fops_clear(struct frun *f, uint32_t name, char *err, size_t errlen);
int fops_lay_out_dir(struct frun *f, uint32_t id, char *err, size_t errlen);

/* file_setup.c: open flags, x86-64 values (as recorded) to this machine's; and those a
 * recorded open is replayed with (--buffered drops O_DIRECT) */
int fflags_host(uint32_t x86);
int file_open_flags(const struct run *r, uint32_t x86);

#endif
