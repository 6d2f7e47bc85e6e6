/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * File-level traces (ioreel record --level file): what applications asked of files, as
 * opposed to what the block layer asked of a disk. Such a trace holds a file table (struct
 * trace_file) and events that are a struct io_event (times, offset, length, pid/tid, comm,
 * op, flags, error) plus a struct io_fext (file id, descriptor, open flags, result, arguments).
 * Layout on disk: formats/FORMAT.md, "File-level traces".
 */
#ifndef IOREEL_FORMATS_FILE_H
#define IOREEL_FORMATS_FILE_H

#include <stddef.h>
#include <stdint.h>

/* What a file-level event did (io_event.op of a file-level trace). */
enum io_fop {
	IO_FOP_READ = 0, /* same values as IO_OP_READ and IO_OP_WRITE */
	IO_FOP_WRITE = 1,
	IO_FOP_FSYNC = 2,
	IO_FOP_FDATASYNC = 3,
	IO_FOP_SYNC_RANGE = 4, /* sync_file_range(2) */
	IO_FOP_OPEN = 5,       /* open, openat, openat2, creat; and files open at start */
	IO_FOP_CLOSE = 6,
	IO_FOP_DUP = 7,	  /* dup, dup2, dup3, fcntl(F_DUPFD*) */
	IO_FOP_SETFL = 8, /* fcntl(F_SETFL): how InnoDB turns O_DIRECT on after open */
	IO_FOP_FALLOCATE = 9,
	IO_FOP_TRUNCATE = 10, /* ftruncate, truncate */
	IO_FOP_RENAME = 11,
	IO_FOP_UNLINK = 12,
	IO_FOP_MMAP = 13, /* a mapping of a recorded file: its loads and stores are not seen */
	IO_FOP_SYNCFS = 14,
	IO_FOP_FORK = 15, /* a recorded process made a new one (it inherits the descriptors) */
	IO_FOP_EXIT = 16, /* a recorded process ended (its descriptors are closed) */
	/* calls by name that move no data (fio's filestat, dircreate, dirdelete engines) */
	IO_FOP_STAT = 17,  /* stat, lstat, newfstatat, statx of a path */
	IO_FOP_MKDIR = 18, /* mkdir, mkdirat */
	IO_FOP_RMDIR = 19, /* rmdir, unlinkat(AT_REMOVEDIR) */
	IO_FOP__COUNT
};

/* How the call was made (io_fext.iface). */
enum io_fiface {
	IO_FIF_SYSCALL = 0, /* a system call, timed from entry to return */
	IO_FIF_AIO = 1,	    /* a libaio iocb: submitted at io_submit, completion seen when reaped */
	IO_FIF_URING = 2,   /* an io_uring request: submitted, completed (its own tracepoints) */
	IO_FIF_START = 3,   /* a descriptor already open when the recording started */
	IO_FIF__COUNT
};

/* io_event.flags of a file-level event. */
enum io_fflag {
	IO_FF_FPOS = 1 << 0,   /* the offset was the file position (read, write, readv, pos -1) */
	IO_FF_VECTOR = 1 << 1, /* a vectored call (readv, IORING_OP_READV, IOCB_CMD_PREADV) */
	IO_FF_FIXED = 1 << 2,  /* io_uring: a registered file or buffer */
	IO_FF_LEN_GUESS = 1 << 3, /* the iovecs could not be read: length is the result */
	IO_FF__ALL = (1 << 4) - 1
};

/* The file-level half of an event; the io_event half carries times, offset, length, op. */
struct io_fext {
	uint32_t file;	 /* id in the trace's file table (1, 2, ...); 0: no file */
	int32_t fd;	 /* the descriptor argument of the call; -1 when it has none */
	uint32_t oflags; /* the file's open flags (f_flags) at the time; open: the flags asked */
	uint32_t aux;	 /* op-specific 32-bit argument (FORMAT.md) */
	int64_t result;	 /* the return value: bytes, a new descriptor, 0, or -errno */
	uint64_t arg;	 /* op-specific 64-bit argument (FORMAT.md) */
	uint8_t iface;	 /* enum io_fiface */
	uint8_t _pad[7];
};

_Static_assert(sizeof(struct io_fext) == 40, "io_fext layout changed: bump the format version");

/* struct trace_file.origin bits: where the entry came from and how far to trust it. */
enum trace_file_origin {
	TRACE_FILE_AT_START = 1 << 0,	  /* open in a recorded process when recording started */
	TRACE_FILE_OPENED = 1 << 1,	  /* first seen at an open the recording saw */
	TRACE_FILE_NAME_ONLY = 1 << 2,	  /* only a name (unlink, rename target): no identity */
	TRACE_FILE_PATH_PROC = 1 << 3,	  /* path read from /proc/PID/fd after the fact */
	TRACE_FILE_PATH_UNKNOWN = 1 << 4, /* no path could be found: path is "" */
	TRACE_FILE_PATH_GUESS = 1 << 5,	  /* relative path joined to a cwd/dirfd read later,
					   * unchecked against the one the call had */
	TRACE_FILE_SEGS_CUT = 1 << 6,	  /* more data segments than stored: segs is a prefix */
	TRACE_FILE_SEGS_KNOWN = 1 << 7,	  /* segs lists the data (holes elsewhere); else dense */
	TRACE_FILE_ALLOC_INODE = 1 << 8,  /* alloc from the inode's i_blocks, as the file could not
					   * be stat()ed: XFS keeps it 0, so it may be too low */
	TRACE_FILE__ALL = (1 << 9) - 1
};

/* One data segment of a sparse file (SEEK_DATA .. SEEK_HOLE), at first sight. */
struct trace_file_seg {
	uint64_t offset;
	uint64_t length;
};

#define TRACE_FILE_PATH_MAX 4096
#define TRACE_FILE_SEGS_MAX 4096

/* A file-table entry: one file (or name) the recording saw, as it was when first seen. */
struct trace_file {
	uint32_t id;	    /* 1, 2, ... in the order the recorder met them */
	uint32_t origin;    /* enum trace_file_origin bits */
	uint32_t dev_major; /* the filesystem's device (the superblock's s_dev) */
	uint32_t dev_minor;
	uint64_t ino;
	uint32_t gen;	   /* i_generation: tells a reused inode number from the old file */
	uint32_t mode;	   /* st_mode (type and permissions) */
	uint64_t size;	   /* bytes, at first sight */
	uint64_t alloc;	   /* bytes allocated (st_blocks x 512), at first sight */
	uint32_t oflags;   /* open flags at first sight */
	uint32_t nsegs;	   /* entries in segs (TRACE_FILE_SEGS_KNOWN) */
	uint64_t first_ns; /* when first seen, ns since genesis */
	char fs[16];	   /* filesystem type ("xfs", "ext4"), "" if unknown */
	const char *path;  /* absolute path at first sight; "" if unknown */
	const struct trace_file_seg *segs;
};

/* A named counter a recorder stores at close ("uncovered_mmap", "dropped_ring", ...). */
struct trace_counter {
	const char *name;
	uint64_t value;
};

#define TRACE_COUNTER_NAME_MAX 64
#define TRACE_MAX_COUNTERS 256

/* "read", "fsync", "open", ...; "?" for an unknown value. */
const char *io_fop_name(unsigned int op);
/* "syscall", "aio", "uring", "start"; "?" for an unknown value. */
const char *io_fiface_name(unsigned int iface);
/* Writes flag names joined by '|' ("fpos|vector"), "" when none; returns buf. */
char *io_fflags_format(unsigned int flags, char *buf, size_t len);
/* Writes O_* names joined by '|' ("O_RDWR|O_DIRECT"); returns buf. */
char *io_oflags_format(uint32_t oflags, char *buf, size_t len);

#endif
