/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What bpf/file.bpf.c (ioreel record --level file) shares with record/file_*.c: the call record
 * handed over through the per-CPU rings (the protocol of struct rec_ring_ctl in bpf/record.h,
 * with a larger record), the path records of the names ring buffer, the records the start
 * iterator writes, and the slots of calls in progress. Kernel units: ktime, kernel dev_t
 * (major << 20 | minor), f_flags, i_blocks; record/ translates them.
 * Only fixed-width fields and explicit padding: the layout is the same on both sides.
 */
#ifndef IOREEL_BPF_FILE_H
#define IOREEL_BPF_FILE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * What a recorded call did: the trace's enum io_fop (formats/file.h, checked in record/),
 * then internal markers for system calls that make no event of their own.
 */
enum fl_op {
	FL_OP_READ = 0,
	FL_OP_WRITE,
	FL_OP_FSYNC,
	FL_OP_FDATASYNC,
	FL_OP_SYNC_RANGE,
	FL_OP_OPEN,
	FL_OP_CLOSE,
	FL_OP_DUP,
	FL_OP_SETFL,
	FL_OP_FALLOCATE,
	FL_OP_TRUNCATE,
	FL_OP_RENAME,
	FL_OP_UNLINK,
	FL_OP_MMAP,
	FL_OP_SYNCFS,
	FL_OP_FORK,
	FL_OP_EXIT,
	FL_OP_STAT, /* bpf/file_ops.h */
	FL_OP_MKDIR,
	FL_OP_RMDIR,
	FL_OP__TRACE,	  /* ops above this are never written to the trace */
	FL_OP_AIO_SUBMIT, /* io_submit: its iocbs are recorded one by one */
	FL_OP_AIO_REAP,	  /* io_getevents: completes the iocbs it returns */
};

/* enum io_fiface */
enum fl_iface { FL_IF_SYSCALL = 0, FL_IF_AIO = 1, FL_IF_URING = 2, FL_IF_START = 3 };

/* enum io_fflag */
enum fl_flag {
	FL_F_FPOS = 1 << 0,
	FL_F_VECTOR = 1 << 1,
	FL_F_FIXED = 1 << 2,
	FL_F_LEN_GUESS = 1 << 3,
	FL_F_NAME_LATE = 1 << 6, /* internal: a path is read again at return (late_names) */
	FL_F_NO_FILE = 1 << 7, /* internal: identity not resolved (io_uring registered file) */
};

/*
 * The system calls the programs know, as record/ maps this machine's syscall numbers onto them
 * (the rodata table sc_kind): one program pair serves every per-syscall tracepoint, or the raw
 * sys_enter/sys_exit ones.
 */
enum fl_sc {
	FL_SC_NONE = 0,
	FL_SC_READ,
	FL_SC_WRITE,
	FL_SC_PREAD,
	FL_SC_PWRITE,
	FL_SC_READV,
	FL_SC_WRITEV,
	FL_SC_PREADV,
	FL_SC_PWRITEV,
	FL_SC_PREADV2,
	FL_SC_PWRITEV2,
	FL_SC_OPEN,
	FL_SC_OPENAT,
	FL_SC_OPENAT2,
	FL_SC_CREAT,
	FL_SC_CLOSE,
	FL_SC_DUP,
	FL_SC_DUP2,
	FL_SC_DUP3,
	FL_SC_FCNTL,
	FL_SC_FSYNC,
	FL_SC_FDATASYNC,
	FL_SC_SYNC_FILE_RANGE,
	FL_SC_SYNCFS,
	FL_SC_FALLOCATE,
	FL_SC_FTRUNCATE,
	FL_SC_TRUNCATE,
	FL_SC_RENAME,
	FL_SC_RENAMEAT,
	FL_SC_RENAMEAT2,
	FL_SC_UNLINK,
	FL_SC_UNLINKAT,
	FL_SC_IO_SUBMIT,
	FL_SC_IO_GETEVENTS,
	FL_SC_IO_PGETEVENTS,
	FL_SC_MMAP,
	FL_SC_COPY_FILE_RANGE,
	FL_SC_SENDFILE,
	FL_SC_CLOSE_RANGE,
	FL_SC_IO_URING_ENTER, /* only when the io_uring tracepoints are not loaded */
	FL_SC_FADVISE,
	FL_SC_READAHEAD,
	FL_SC_STAT, /* bpf/file_ops.h: stat, lstat */
	FL_SC_NEWFSTATAT,
	FL_SC_STATX,
	FL_SC_MKDIR,
	FL_SC_MKDIRAT,
	FL_SC_RMDIR,
	FL_SC__COUNT
};

#define FL_NR_MAX 1024 /* syscall numbers the table covers (x86-64 and arm64 are below 512) */

/* Slots of the per-CPU "fstats" map: drops (an I/O lost) and what was seen but not covered. */
enum fl_stat {
	FL_DROP_RING = 0,     /* the per-CPU ring was full */
	FL_DROP_PENDING,      /* no room for a call in progress (slots and overflow map full) */
	FL_DROP_AIO_READ,     /* an iocb (or the iocb array) could not be read from user memory */
	FL_DROP_AIO_BATCH,    /* iocbs past FL_AIO_MAX in one io_submit */
	FL_DROP_NAME,	      /* names ring full: a path lost (the call is kept, path unknown) */
	FL_STAT_UNSEEN_EXIT,  /* a call whose return was never seen (written without it) */
	FL_STAT_LEN_GUESS,    /* iovecs unreadable: the length recorded is the result */
	FL_STAT_NAME_LATE,    /* a path unreadable at entry (page not in), read at return */
	FL_UNC_MMAP_SHARED_W, /* writable shared mappings of recorded files */
	FL_UNC_MMAP_SHARED_R, /* read-only shared mappings of recorded files (loads not seen) */
	FL_UNC_COPY,	      /* copy_file_range, sendfile touching a recorded file */
	FL_UNC_CLOSE_RANGE,   /* close_range calls (descriptors closed unseen) */
	FL_UNC_AIO_OTHER,     /* iocbs other than read, write, fsync, fdatasync */
	FL_UNC_URING_OTHER,   /* io_uring requests on files other than rw, fsync, fallocate... */
	FL_UNC_URING_NOTRACE, /* io_uring submissions when its tracepoints are not loaded */
	FL_UNC_HINT,	      /* posix_fadvise, readahead on recorded files: I/O they start */
	FL_STAT__COUNT
};

/* One recorded call, as the rings carry it and as a call in progress waits in its slot. */
struct fl_event {
	__u64 enter_ns; /* bpf_ktime_get_ns() at entry / submission; first: record/ sorts by it */
	__u64 exit_ns;	/* at return / completion seen; 0: not seen */
	__u64 offset;	/* file offset (given or f_pos), new size (truncate) */
	__u64 len;	/* bytes asked; fallocate, sync_file_range: the range length */
	__s64 result;	/* the return value */
	__u64 arg;	/* op-specific (io_fext.arg); internal: user pointer of aio arrays */
	__u64 ino;
	__u64 size;   /* i_size when looked up */
	__u64 blocks; /* i_blocks (512-byte units) */
	__u32 dev;    /* i_sb->s_dev, kernel encoding */
	__u32 gen;    /* i_generation */
	__u32 fflags; /* f_flags when looked up; open: the flags asked */
	__u32 pid;    /* tgid */
	__u32 tid;
	__s32 fd;
	__u32 aux;  /* op-specific (io_fext.aux) */
	__u16 mode; /* i_mode */
	__u16 cpu;
	__u8 op;    /* enum fl_op */
	__u8 iface; /* enum fl_iface */
	__u8 flags; /* enum fl_flag */
	__u8 _pad0;
	__u32 oncpu; /* the thread's on-CPU ns since its previous recorded call (bpf/oncpu.bpf.h),
		      * saturated at ONCPU_SAT; 0: not known */
	char comm[16];
	__u64 cpuwait; /* with oncpu: ns the thread waited for a CPU during the call (its
			* return seen), saturated at CPUWAIT_SAT; 0 otherwise */
};

_Static_assert(sizeof(struct fl_event) == 136, "fl_event layout changed: update record/");

/* A ring record: seq as in struct rec_rec (bpf/record.h), then the event. */
struct fl_rec {
	__u64 seq;
	struct fl_event e;
};

_Static_assert(sizeof(struct fl_rec) == 144, "fl_rec layout changed: update record/");

/* Calls in progress, by thread: a direct-mapped array indexed by tid (claimed with
 * compare-and-swap on key = tid), mmap()ed by record/ to find the oldest; collisions go to the
 * "sync_more" hash map. */
struct fl_slot {
	__u64 key;
	struct fl_event e;
};

#define FL_SLOTS 4096 /* a power of two */

/* Async requests in flight (iocbs, io_uring requests): the "async" hash map's key. */
struct fl_akey {
	__u64 kind_tgid; /* FL_AK_* << 32 | tgid */
	__u64 id;	 /* the iocb's user address, or the io_kiocb's kernel address */
};

enum { FL_AK_AIO = 1, FL_AK_URING = 2 };

#define FL_AIO_MAX 4096 /* iocbs read per io_submit; more are counted in FL_DROP_AIO_BATCH */
#define FL_IOV_MAX 1024 /* IOV_MAX: iovecs summed per vectored call */

/* The names ring buffer: a path argument, read at entry; paired with the call by (tid, enter_ns).
 */
#define FL_PATH_MAX 4096

struct fl_name {
	__u64 enter_ns;
	__u64 dir_ino; /* the directory a relative path starts from: cwd or dirfd */
	__u32 dir_dev; /* its filesystem (kernel dev_t); 0 when it could not be read */
	__u32 tid;
	__s32 dirfd; /* the dirfd of *at() calls; -100 (AT_FDCWD) otherwise */
	__u16 which; /* 0: the first path argument, 1: the second (rename's target) */
	__u16 len;   /* bytes of path including its NUL; 0: it could not be read */
	char path[FL_PATH_MAX];
};

#define FL_NAME_HDR 32 /* offsetof(struct fl_name, path) */

/* What iter/task_file writes for each regular file open in a process at the start. */
struct fl_snap {
	__u64 ino;
	__u64 size;
	__u64 blocks;
	__u64 pos;
	__u32 pid;
	__s32 fd;
	__u32 dev;
	__u32 gen;
	__u32 fflags;
	__u16 mode;
	__u16 path_len; /* bytes of the path that follows, including its NUL; 0: none */
	char comm[16];	/* the group leader's */
};

_Static_assert(sizeof(struct fl_snap) == 72, "fl_snap layout changed: update record/");

#define FL_UNDER_DEVS 16 /* filesystems --under may name */

#endif
