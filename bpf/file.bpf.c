// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ioreel record --level file, kernel side: the calls chosen processes make on regular files.
 * This kernel refuses fentry/fexit/LSM programs and has no kprobes, so everything comes from
 * tracepoints (record/FILE.md):
 *
 *   system calls  one program pair attached to each per-syscall tracepoint (sys_enter_pread64,
 *                 ...), or, where those cannot be attached, the raw sys_enter/sys_exit ones
 *                 (tp_btf); the syscall number picks the handler through sc_kind[].
 *                 Entry resolves fd -> file -> inode (identity, size, f_flags, f_pos) and parks
 *                 the call in its thread's slot; the return completes it and emits it.
 *   libaio        io_submit's entry reads the iocbs from user memory (one pending request each),
 *                 io_getevents' return reads the io_events and completes them.
 *   io_uring      io_uring_submit_req / io_uring_complete (SQPOLL and io-wq included).
 *   at start      iter/task_file lists the files already open, with bpf_d_path().
 *
 * Emitted calls go to per-CPU rings of our own (bpf/record.h's protocol, struct fl_rec), paths
 * to a BPF ring buffer ("names"). Everything lost is counted in "fstats" (bpf/file.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "record.h"
#include "file.h"
#include "rings.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define S_IFMT 00170000
#define S_IFREG 0100000
#define AT_FDCWD -100
#define F_DUPFD 0
#define F_SETFL 4
#define F_DUPFD_CLOEXEC 1030
#define PROT_WRITE 0x2
#define MAP_SHARED 0x01
#define MAP_SHARED_VALIDATE 0x03
#define IORING_FSYNC_DATASYNC 1u
/* REQ_F_FIXED_FILE_BIT has been bit 0 of io_kiocb.flags since io_uring began (v5.1); its enum
 * is anonymous, so CO-RE cannot look it up. */
#define REQ_F_FIXED_FILE 1ull

/* Set by record/ before load. */
const volatile __u32 self_tgid = 0;
const volatile bool filter_by_pid = false;  /* only tgids in the "tgids" map (and their children) */
const volatile bool filter_by_comm = false; /* only processes whose group leader has this comm */
const volatile char filter_comm[16] = {};
const volatile bool filter_by_cgroup = false;
const volatile __u32 nunder = 0; /* --under: only files on these filesystems */
const volatile __u32 under_devs[FL_UNDER_DEVS] = {};
const volatile __u8 sc_kind[FL_NR_MAX] = {}; /* syscall number -> enum fl_sc */
/* Set by record/: 1 until it is ready, and at the end (no new call is tracked then). */
volatile __u32 stopping = 1;
/* Record each thread's on-CPU time and the host's CPU load (bpf/oncpu.bpf.h). */
const volatile bool oncpu_enabled = false;
/* Entries in sync_more: the exit path looks there only when it holds any. */
volatile __u64 more_count = 0;

/* The per-CPU rings of returned calls (bpf/rings.bpf.h). */
REC_RINGS(struct fl_rec, 14)

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FL_SLOTS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct fl_slot);
} slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64); /* tid */
	__type(value, struct fl_event);
} sync_more SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536); /* resized by record/ (--inflight) */
	__type(key, struct fl_akey);
	__type(value, struct fl_event);
} async SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FL_STAT__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} fstats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32); /* tgid */
	__type(value, __u8);
} tgids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} names SEC(".maps");

/* Room for one path record; syscall tracepoints run in task context and do not nest. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fl_name);
} name_buf SEC(".maps");

/* Path arguments that could not be read at a call's entry, by thread. The string's page was not
 * yet in memory and a tracepoint cannot fault it in (a program's first open of a path in its
 * data segment: fio's library and locale probes). The kernel's own copy of the path faults it
 * in, so the call's return reads it again (FL_F_NAME_LATE). LRU: a thread that never returns
 * (killed mid-call) leaves an entry that ages out. */
struct fl_late_name {
	__u64 upath[2]; /* by `which`; 0: read at entry */
	__s32 dirfd[2];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32); /* tid */
	__type(value, struct fl_late_name);
} late_names SEC(".maps");

static __always_inline void count(__u32 slot, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&fstats, &slot);

	if (v)
		*v += n;
}

#include "oncpu.bpf.h"

/* Is the current task one we record? Cheapest checks first: this runs for every traced call. */
static __always_inline bool wanted(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (tgid == self_tgid)
		return false;
	if (filter_by_pid && !bpf_map_lookup_elem(&tgids, &tgid))
		return false;
	if (filter_by_comm) {
		/* The group leader's name: io_uring's iou-wrk and iou-sqp threads have their own.
		 */
		struct task_struct *t = (void *)bpf_get_current_task();
		struct task_struct *leader = BPF_CORE_READ(t, group_leader);
		char comm[16];

		if (bpf_core_read(comm, sizeof(comm), &leader->comm))
			return false;
		for (int i = 0; i < 16; i++) {
			if (comm[i] != filter_comm[i])
				return false;
			if (!comm[i])
				break;
		}
	}
	if (filter_by_cgroup && bpf_current_task_under_cgroup(&cgroup, 0) != 1)
		return false;
	return true;
}

static __always_inline void fill_task(struct fl_event *e, __u64 now)
{
	__u64 id = bpf_get_current_pid_tgid();

	__builtin_memset(e, 0, sizeof(*e));
	e->enter_ns = now;
	e->pid = id >> 32;
	e->tid = (__u32)id;
	e->fd = -1;
	e->cpu = bpf_get_smp_processor_id();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
}

static __always_inline struct file *fd_file(long fd)
{
	struct task_struct *t = (void *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(t, files, fdt);
	struct file **fds, *f = NULL;

	if (fd < 0 || !fdt || fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	return f;
}

/* Fills the file's identity and state into e; false for anything but a regular file we want. */
static __always_inline bool file_ident(struct file *f, struct fl_event *e)
{
	struct inode *in;
	__u16 mode;
	__u32 dev, i;

	if (!f)
		return false;
	in = BPF_CORE_READ(f, f_inode);
	mode = BPF_CORE_READ(in, i_mode);
	if ((mode & S_IFMT) != S_IFREG)
		return false;
	dev = BPF_CORE_READ(in, i_sb, s_dev);
	if (nunder) {
		for (i = 0; i < FL_UNDER_DEVS && i < nunder; i++)
			if (under_devs[i] == dev)
				break;
		if (i >= FL_UNDER_DEVS || i >= nunder)
			return false;
	}
	e->dev = dev;
	e->mode = mode;
	e->ino = BPF_CORE_READ(in, i_ino);
	e->gen = BPF_CORE_READ(in, i_generation);
	e->size = BPF_CORE_READ(in, i_size);
	e->blocks = BPF_CORE_READ(in, i_blocks);
	e->fflags = BPF_CORE_READ(f, f_flags);
	return true;
}

/*
 * Copies a call into this CPU's ring (protocol: struct rec_ring_ctl in bpf/record.h); a full
 * ring is a counted drop. No wakeup: record/ drains the rings on a short timer.
 */
static __always_inline void emit(const struct fl_event *src)
{
	struct fl_rec *rec;
	bool full;
	__u64 pos;

	rec = ring_claim(&pos, &full);
	if (full)
		count(FL_DROP_RING, 1);
	if (!rec) /* cannot happen; the hole is skipped and counted by record/ */
		return;
	__builtin_memcpy(&rec->e, src, sizeof(rec->e));
	ring_publish(rec, pos);
}

/* A call whose return was never seen (its slot is wanted again): written without it. */
static __always_inline void unseen(const struct fl_event *e)
{
	count(FL_STAT_UNSEEN_EXIT, 1);
	if (e->op < FL_OP__TRACE)
		emit(e);
}

/* Parks a call of this thread until its return: its slot, or the overflow map. */
static __always_inline void pend_put(const struct fl_event *e)
{
	__u64 key = e->tid;
	__u32 i = e->tid & (FL_SLOTS - 1);
	struct fl_slot *s = bpf_map_lookup_elem(&slots, &i);
	struct fl_event *prev;

	if (s) {
		__u64 old = __sync_val_compare_and_swap(&s->key, 0, key);

		if (old == key)
			unseen(&s->e);
		if (old == 0 || old == key) {
			__builtin_memcpy(&s->e, e, sizeof(*e));
			return;
		}
	}
	prev = bpf_map_lookup_elem(&sync_more, &key);
	if (prev) {
		unseen(prev);
		__builtin_memcpy(prev, e, sizeof(*e));
		return;
	}
	if (bpf_map_update_elem(&sync_more, &key, e, BPF_NOEXIST))
		count(FL_DROP_PENDING, 1);
	else
		__sync_fetch_and_add(&more_count, 1);
}

static __always_inline struct fl_event *pend_find(__u32 tid, struct fl_slot **slot)
{
	__u32 i = tid & (FL_SLOTS - 1);
	__u64 key = tid;
	struct fl_slot *s = bpf_map_lookup_elem(&slots, &i);

	*slot = NULL;
	if (s && s->key == key) {
		*slot = s;
		return &s->e;
	}
	if (!more_count)
		return NULL;
	return bpf_map_lookup_elem(&sync_more, &key);
}

static __always_inline void pend_done(__u32 tid, struct fl_slot *slot)
{
	__u64 key = tid;

	if (slot)
		__sync_val_compare_and_swap(&slot->key, key, 0);
	else if (!bpf_map_delete_elem(&sync_more, &key))
		__sync_fetch_and_add(&more_count, -1);
}

/* Parks path argument `which` of call e for its return to read (see late_names). False when
 * there is no room: then the entry sends what it has (an empty path, counted missing). */
static __always_inline bool park_name(struct fl_event *e, __s32 dirfd, __u16 which,
				      const char *upath)
{
	struct fl_late_name *l, zero = {};
	__u32 tid = e->tid;

	l = bpf_map_lookup_elem(&late_names, &tid);
	if (!l) {
		bpf_map_update_elem(&late_names, &tid, &zero, BPF_ANY);
		l = bpf_map_lookup_elem(&late_names, &tid);
		if (!l)
			return false;
	}
	if (!(e->flags & FL_F_NAME_LATE)) { /* this call's first: forget a killed call's */
		l->upath[0] = 0;
		l->upath[1] = 0;
	}
	l->upath[which & 1] = (__u64)upath;
	l->dirfd[which & 1] = dirfd;
	e->flags |= FL_F_NAME_LATE;
	return true;
}

/* A path argument, paired with its call by (tid, enter_ns) in record/. At entry (`late` false)
 * one that cannot be read yet is parked for the return instead. */
static __always_inline void put_name(struct fl_event *e, __s32 dirfd, __u16 which,
				     const char *upath, bool late)
{
	__u32 zero = 0, size;
	struct fl_name *n = bpf_map_lookup_elem(&name_buf, &zero);
	long len;

	struct inode *dir = NULL;

	if (!n)
		return;
	n->enter_ns = e->enter_ns;
	n->tid = e->tid;
	n->dirfd = dirfd;
	n->which = which;
	/* Which directory a relative path starts from, so record/ can name it even once the
	 * process is gone (a backend that opened, read and exited before /proc was read). */
	if (dirfd == AT_FDCWD) {
		struct task_struct *t = (void *)bpf_get_current_task();

		dir = BPF_CORE_READ(t, fs, pwd.dentry, d_inode);
	} else {
		struct file *f = fd_file(dirfd);

		dir = f ? BPF_CORE_READ(f, f_inode) : NULL;
	}
	n->dir_ino = dir ? BPF_CORE_READ(dir, i_ino) : 0;
	n->dir_dev = dir ? BPF_CORE_READ(dir, i_sb, s_dev) : 0;
	len = bpf_probe_read_user_str(n->path, sizeof(n->path), upath);
	if (len <= 0 && upath && !late && park_name(e, dirfd, which, upath))
		return;
	n->len = len > 0 ? len : 0;
	size = FL_NAME_HDR + n->len;
	if (size > sizeof(*n))
		size = sizeof(*n);
	if (bpf_ringbuf_output(&names, n, size, BPF_RB_NO_WAKEUP))
		count(FL_DROP_NAME, 1);
}

/* At the return of call e: the paths its entry parked, now that the kernel's copy has faulted
 * them in. Sent before the call itself, as at entry. An entry evicted from the LRU sends
 * nothing, and record/ counts the path missing. */
static __always_inline void late_names_put(struct fl_event *e)
{
	__u32 tid = e->tid;
	struct fl_late_name *l = bpf_map_lookup_elem(&late_names, &tid);

	e->flags &= ~FL_F_NAME_LATE;
	if (!l)
		return;
	count(FL_STAT_NAME_LATE, !!l->upath[0] + !!l->upath[1]);
	if (l->upath[0])
		put_name(e, l->dirfd[0], 0, (const char *)l->upath[0], true);
	if (l->upath[1])
		put_name(e, l->dirfd[1], 1, (const char *)l->upath[1], true);
	bpf_map_delete_elem(&late_names, &tid);
}

struct iov_ctx {
	__u64 iov;
	__u64 sum;
	bool bad;
};

static long iov_one(__u32 i, void *data)
{
	struct iov_ctx *c = data;
	struct iovec v;

	if (bpf_probe_read_user(&v, sizeof(v), (void *)(c->iov + (__u64)i * sizeof(v)))) {
		c->bad = true;
		return 1;
	}
	c->sum += v.iov_len;
	return 0;
}

/* A vectored call: the bytes asked are the sum of the iovecs (user memory). */
static __always_inline void iov_len(struct fl_event *e, __u64 iov, __u64 cnt)
{
	struct iov_ctx c = {.iov = iov};

	e->flags |= FL_F_VECTOR;
	e->arg = cnt;
	if (cnt > FL_IOV_MAX)
		c.bad = true;
	else
		bpf_loop(cnt, iov_one, &c, 0);
	if (c.bad) {
		e->flags |= FL_F_LEN_GUESS;
		count(FL_STAT_LEN_GUESS, 1);
	}
	e->len = c.bad ? 0 : c.sum;
}

/* The kernel caps one read or write at MAX_RW_COUNT (INT_MAX rounded down to a page). */
static __always_inline __u64 rw_count(__u64 n)
{
	return n > 0x7ffff000ull ? 0x7ffff000ull : n;
}

/* libaio's iocbs and io_uring's requests: file_async.h, included once here (it uses the
 * helpers above, and the system call handlers below use its libaio callbacks). */
#include "file_async.h"
/* stat, mkdir, rmdir: fops_enter(), which put_name() above serves */
#include "file_ops.h"

/* ---- system calls ---- */

/* Entry of a system call of kind k with its arguments, by a task wanted() accepted: parks what
 * its return will need. */
static __always_inline void on_enter(__u32 k, const __u64 *a)
{
	__u64 now;
	struct fl_event e;
	struct file *f = NULL;
	bool need_file = true;

	now = bpf_ktime_get_ns();
	fill_task(&e, now);
	e.oncpu = oncpu_since(now, e.tid, false);
	switch (k) {
	case FL_SC_READ:
	case FL_SC_WRITE:
	case FL_SC_READV:
	case FL_SC_WRITEV:
		e.op = (k == FL_SC_READ || k == FL_SC_READV) ? FL_OP_READ : FL_OP_WRITE;
		e.flags = FL_F_FPOS;
		break;
	case FL_SC_PREAD:
	case FL_SC_PWRITE:
	case FL_SC_PREADV:
	case FL_SC_PWRITEV:
	case FL_SC_PREADV2:
	case FL_SC_PWRITEV2:
		e.op = (k == FL_SC_PREAD || k == FL_SC_PREADV || k == FL_SC_PREADV2) ? FL_OP_READ
										     : FL_OP_WRITE;
		e.offset = a[3];
		if ((k == FL_SC_PREADV2 || k == FL_SC_PWRITEV2) && (__s64)a[3] == -1)
			e.flags = FL_F_FPOS;
		break;
	case FL_SC_CLOSE:
		e.op = FL_OP_CLOSE;
		break;
	case FL_SC_DUP:
	case FL_SC_DUP2:
	case FL_SC_DUP3:
		e.op = FL_OP_DUP;
		break;
	case FL_SC_FCNTL:
		if (a[1] == F_SETFL) {
			e.op = FL_OP_SETFL;
			e.aux = a[2];
		} else if (a[1] == F_DUPFD || a[1] == F_DUPFD_CLOEXEC) {
			e.op = FL_OP_DUP;
		} else {
			return;
		}
		break;
	case FL_SC_FSYNC:
		e.op = FL_OP_FSYNC;
		break;
	case FL_SC_FDATASYNC:
		e.op = FL_OP_FDATASYNC;
		break;
	case FL_SC_SYNC_FILE_RANGE:
		e.op = FL_OP_SYNC_RANGE;
		e.offset = a[1];
		e.len = a[2];
		e.aux = a[3];
		break;
	case FL_SC_SYNCFS:
		e.op = FL_OP_SYNCFS;
		break;
	case FL_SC_FALLOCATE:
		e.op = FL_OP_FALLOCATE;
		e.aux = a[1];
		e.offset = a[2];
		e.len = a[3];
		break;
	case FL_SC_FTRUNCATE:
		e.op = FL_OP_TRUNCATE;
		e.offset = a[1];
		break;
	case FL_SC_MMAP:
		/* mmap(addr, len, prot, flags, fd, off) */
		e.op = FL_OP_MMAP;
		e.aux = (a[2] & 0xff) | (a[3] << 8);
		e.len = a[1];
		e.offset = a[5];
		/* Only shared mappings: their loads and stores are the file's data. A private one
		 * (a program's libraries) reads at most a copy. */
		if ((a[3] & 3) != MAP_SHARED && (a[3] & 3) != MAP_SHARED_VALIDATE)
			return;
		f = fd_file((long)a[4]);
		if (!file_ident(f, &e))
			return;
		e.fd = a[4];
		count((a[2] & PROT_WRITE) ? FL_UNC_MMAP_SHARED_W : FL_UNC_MMAP_SHARED_R, 1);
		need_file = false;
		break;
	case FL_SC_COPY_FILE_RANGE: /* (fd_in, off_in, fd_out, off_out, len, flags) */
	case FL_SC_SENDFILE:	    /* (out_fd, in_fd, off, count) */
		if (file_ident(fd_file((long)a[0]), &e) ||
		    file_ident(fd_file((long)a[k == FL_SC_SENDFILE ? 1 : 2]), &e))
			count(FL_UNC_COPY, 1);
		return;
	case FL_SC_CLOSE_RANGE:
		count(FL_UNC_CLOSE_RANGE, 1);
		return;
	case FL_SC_FADVISE:   /* (fd, offset, len, advice): WILLNEED reads ahead */
	case FL_SC_READAHEAD: /* (fd, offset, count) */
		if (file_ident(fd_file((long)a[0]), &e))
			count(FL_UNC_HINT, 1);
		return;
	case FL_SC_IO_URING_ENTER:
		count(FL_UNC_URING_NOTRACE, a[1]);
		return;
	case FL_SC_OPEN:
	case FL_SC_CREAT:
		e.op = FL_OP_OPEN;
		e.fd = AT_FDCWD;
		e.fflags = k == FL_SC_CREAT ? 01101 /* O_CREAT|O_WRONLY|O_TRUNC */ : a[1];
		e.aux = k == FL_SC_CREAT ? a[1] : a[2];
		put_name(&e, AT_FDCWD, 0, (const char *)a[0], false);
		need_file = false;
		break;
	case FL_SC_OPENAT:
	case FL_SC_OPENAT2:
		e.op = FL_OP_OPEN;
		e.fd = a[0];
		if (k == FL_SC_OPENAT2) {
			struct open_how how = {};

			bpf_probe_read_user(&how, sizeof(how), (void *)a[2]);
			e.fflags = how.flags;
			e.aux = how.mode;
		} else {
			e.fflags = a[2];
			e.aux = a[3];
		}
		put_name(&e, a[0], 0, (const char *)a[1], false);
		need_file = false;
		break;
	case FL_SC_TRUNCATE:
		e.op = FL_OP_TRUNCATE;
		e.offset = a[1];
		put_name(&e, AT_FDCWD, 0, (const char *)a[0], false);
		need_file = false;
		break;
	case FL_SC_RENAME:
		e.op = FL_OP_RENAME;
		put_name(&e, AT_FDCWD, 0, (const char *)a[0], false);
		put_name(&e, AT_FDCWD, 1, (const char *)a[1], false);
		need_file = false;
		break;
	case FL_SC_RENAMEAT:
	case FL_SC_RENAMEAT2:
		e.op = FL_OP_RENAME;
		e.aux = k == FL_SC_RENAMEAT2 ? a[4] : 0;
		put_name(&e, a[0], 0, (const char *)a[1], false);
		put_name(&e, a[2], 1, (const char *)a[3], false);
		need_file = false;
		break;
	case FL_SC_UNLINK:
	case FL_SC_UNLINKAT:
		e.op = FL_OP_UNLINK;
		e.aux = k == FL_SC_UNLINKAT ? a[2] : 0;
		put_name(&e, k == FL_SC_UNLINKAT ? a[0] : AT_FDCWD, 0,
			 (const char *)a[k == FL_SC_UNLINKAT ? 1 : 0], false);
		need_file = false;
		break;
	case FL_SC_IO_SUBMIT: { /* (ctx, nr, iocbpp) */
		struct aio_ctx c = {.iocbpp = a[2], .now = now};
		__u64 nr = (__s64)a[1] > 0 ? a[1] : 0;

		if (nr > FL_AIO_MAX)
			nr = FL_AIO_MAX;
		bpf_loop(nr, aio_one, &c, 0);
		e.op = FL_OP_AIO_SUBMIT;
		e.arg = a[2];
		e.len = a[1];
		need_file = false;
		break;
	}
	case FL_SC_IO_GETEVENTS:
	case FL_SC_IO_PGETEVENTS: /* (ctx, min_nr, nr, events, timeout[, sig]) */
		e.op = FL_OP_AIO_REAP;
		e.arg = a[3];
		need_file = false;
		break;
	default:
		if (!fops_enter(k, a, &e))
			return;
		need_file = false;
	}
	if (need_file) {
		e.fd = a[0];
		f = fd_file((long)a[0]);
		if (!file_ident(f, &e))
			return;
		if (e.flags & FL_F_FPOS)
			e.offset = BPF_CORE_READ(f, f_pos);
	}
	switch (k) {
	case FL_SC_READ:
	case FL_SC_WRITE:
	case FL_SC_PREAD:
	case FL_SC_PWRITE:
		e.len = rw_count(a[2]);
		break;
	case FL_SC_PREADV2:
	case FL_SC_PWRITEV2:
		e.aux = a[5];
		/* fall through */
	case FL_SC_READV:
	case FL_SC_WRITEV:
	case FL_SC_PREADV:
	case FL_SC_PWRITEV:
		iov_len(&e, a[1], a[2]);
		break;
	}
	pend_put(&e);
}

/* Return of a system call of this thread (ret): completes what its entry parked. */
static __always_inline void on_return(__s64 ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fl_slot *slot;
	struct fl_event *e = pend_find(tid, &slot);
	__u64 now;

	if (!e)
		return;
	now = bpf_ktime_get_ns();
	e->exit_ns = now;
	e->result = ret;
	if (e->flags & FL_F_NAME_LATE)
		late_names_put(e);
	/* the thread's next gap starts here (a call that made no event included: its time
	 * is the kernel's, which the replay's own call spends again) */
	e->cpuwait = oncpu_mark(now, tid);
	switch (e->op) {
	case FL_OP_AIO_SUBMIT: {
		struct aio_undo_ctx c = {.iocbpp = e->arg, .tgid = e->pid};
		__u64 asked = (__s64)e->len > 0 ? e->len : 0, done = ret > 0 ? ret : 0;

		if (asked > FL_AIO_MAX) {
			if (done > FL_AIO_MAX)
				count(FL_DROP_AIO_BATCH, done - FL_AIO_MAX);
			asked = FL_AIO_MAX;
		}
		if (done < asked)
			bpf_loop(asked - done, aio_undo, &c, 0);
		break;
	}
	case FL_OP_AIO_REAP: {
		struct reap_ctx c = {.events = e->arg, .now = now, .tgid = e->pid};

		if (ret > 0)
			bpf_loop(ret, aio_reap, &c, 0);
		break;
	}
	case FL_OP_OPEN: {
		/* the flags asked (O_CREAT, O_TRUNC, O_EXCL), not the file's f_flags, which drops
		 * them: a replay must ask the same */
		__u32 asked = e->fflags;

		if (ret >= 0 && !file_ident(fd_file(ret), e))
			break; /* a directory, a socket, a device: not a file we record */
		e->fflags = asked;
		emit(e);
		break;
	}
	default:
		if ((e->flags & FL_F_LEN_GUESS) && ret > 0)
			e->len = ret;
		emit(e);
	}
	pend_done(tid, slot);
}

/* Per-syscall tracepoints (syscalls:sys_enter_NAME): their records after the common header. */
struct sc_enter_ctx {
	__u64 common;
	__s32 nr;
	__u32 _pad;
	__u64 args[6];
};

struct sc_exit_ctx {
	__u64 common;
	__s32 nr;
	__u32 _pad;
	__s64 ret;
};

/* Attached by record/ to every sys_enter_NAME it wants (one program, many tracepoints). */
SEC("tracepoint")
int sc_enter(struct sc_enter_ctx *ctx)
{
	__u32 nr = ctx->nr;
	__u64 a[6];

	/* the filter before reading the arguments: most calls are other processes' */
	if (nr >= FL_NR_MAX || !sc_kind[nr] || stopping || !wanted())
		return 0;
	/* Read, not loaded: a program that loads past a tracepoint's record (close has one
	 * argument) is refused at attach (EACCES); the bytes after the record are not used. */
	bpf_probe_read_kernel(a, sizeof(a), ctx->args);
	on_enter(sc_kind[nr], a);
	return 0;
}

SEC("tracepoint")
int sc_exit(struct sc_exit_ctx *ctx)
{
	on_return(ctx->ret);
	return 0;
}

/* The sixth system call argument (libbpf before 1.3 has no PT_REGS_PARM6_CORE_SYSCALL). */
#if defined(PT_REGS_PARM6_CORE_SYSCALL)
#define SC_ARG6(regs) PT_REGS_PARM6_CORE_SYSCALL(regs)
#elif defined(__TARGET_ARCH_x86)
#define SC_ARG6(regs) BPF_CORE_READ(regs, r9)
#else
#define SC_ARG6(regs) 0 /* preadv2's flags and mmap's offset read as 0 in the raw tier */
#endif

/* Where per-syscall tracepoints cannot be attached: every system call passes here, so the table
 * lookup comes first. Compat (32-bit) calls are not told apart (record/FILE.md). */
SEC("tp_btf/sys_enter")
int BPF_PROG(raw_enter, struct pt_regs *regs, long id)
{
	__u64 a[6];
	__u32 k;

	if (id < 0 || id >= FL_NR_MAX)
		return 0;
	k = sc_kind[id];
	if (!k || stopping || !wanted())
		return 0;
	a[0] = PT_REGS_PARM1_CORE_SYSCALL(regs);
	a[1] = PT_REGS_PARM2_CORE_SYSCALL(regs);
	a[2] = PT_REGS_PARM3_CORE_SYSCALL(regs);
	a[3] = PT_REGS_PARM4_CORE_SYSCALL(regs);
	a[4] = PT_REGS_PARM5_CORE_SYSCALL(regs);
	a[5] = SC_ARG6(regs);
	on_enter(k, a);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(raw_exit, struct pt_regs *regs, long ret)
{
	on_return(ret);
	return 0;
}

/* ---- processes ---- */

/* A recorded process makes a new one: it inherits the descriptors (and, with --pid, the
 * recording). Threads are not processes: they share the descriptors already. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(proc_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;
	struct fl_event e;

	if (stopping || ctgid != BPF_CORE_READ(child, pid) || !wanted())
		return 0;
	if (filter_by_pid)
		bpf_map_update_elem(&tgids, &ctgid, &one, BPF_ANY);
	fill_task(&e, bpf_ktime_get_ns());
	e.op = FL_OP_FORK;
	e.arg = ctgid;
	e.exit_ns = e.enter_ns;
	emit(&e);
	return 0;
}

/* A thread ends: a call it left parked never returns (written without its return); the last
 * thread of a recorded process makes an exit event. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(proc_exit, struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid), tgid = BPF_CORE_READ(p, tgid);
	struct fl_slot *slot;
	struct fl_event *pe = pend_find(tid, &slot), e;

	if (pe) {
		unseen(pe);
		pend_done(tid, slot);
	}
	if (BPF_CORE_READ(p, signal, live.counter) != 0 || stopping || !wanted())
		return 0;
	fill_task(&e, bpf_ktime_get_ns());
	e.op = FL_OP_EXIT;
	e.exit_ns = e.enter_ns;
	emit(&e);
	if (filter_by_pid)
		bpf_map_delete_elem(&tgids, &tgid);
	return 0;
}

/* ---- files open at the start ---- */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[FL_PATH_MAX]);
} path_buf SEC(".maps");

/* Every regular file open in a process (one entry per process and descriptor: threads sharing
 * their descriptors are skipped by the iterator), with its path. record/ reads them once,
 * right after the programs above are attached. */
SEC("iter/task_file")
int iter_files(struct bpf_iter__task_file *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	struct file *file = ctx->file;
	struct fl_snap s = {};
	struct fl_event e = {};
	__u32 zero = 0;
	char *path;
	long n;

	if (!task || !file)
		return 0;
	s.pid = task->tgid;
	if (s.pid == self_tgid || (filter_by_pid && !bpf_map_lookup_elem(&tgids, &s.pid)))
		return 0;
	if (!file_ident(file, &e))
		return 0;
	s.fd = ctx->fd;
	s.ino = e.ino;
	s.dev = e.dev;
	s.gen = e.gen;
	s.size = e.size;
	s.blocks = e.blocks;
	s.fflags = e.fflags;
	s.mode = e.mode;
	s.pos = file->f_pos;
	bpf_probe_read_kernel_str(s.comm, sizeof(s.comm), task->group_leader->comm);
	path = bpf_map_lookup_elem(&path_buf, &zero);
	if (!path)
		return 0;
	n = bpf_d_path((struct path *)&file->f_path, path, FL_PATH_MAX);
	if (n <= 0 || n > FL_PATH_MAX)
		n = 0;
	s.path_len = n;
	bpf_seq_write(seq, &s, sizeof(s));
	if (n > 0 && n <= FL_PATH_MAX)
		bpf_seq_write(seq, path, n);
	return 0;
}
