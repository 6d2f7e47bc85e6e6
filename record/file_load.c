// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Loads bpf/file.bpf.c in what this kernel allows, found by trying (record/FILE.md):
 *   system calls  per-syscall tracepoints (syscalls:sys_enter_NAME / sys_exit_NAME), else the
 *                 raw sys_enter/sys_exit tracepoints as tp_btf (a program on every system call
 *                 of the machine: dearer);
 *   io_uring      io_uring_submit_req / io_uring_complete, else io_uring submissions are only
 *                 counted (sys_enter_io_uring_enter's to_submit);
 *   processes     sched_process_fork / sched_process_exit;
 *   at start      iter/task_file with bpf_d_path, else /proc/PID/fd.
 * A group whose program fails to load or attach is left out and the rest loaded again; what ran
 * is said on stderr, in --json and in the trace's options.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "util/cli.h"
#include "record/file_int.h"
#include "file.skel.h"

/* The system calls recorded: tracepoint name (sys_enter_NAME), number here, kind. */
static const struct {
	const char *name;
	long nr;
	uint8_t kind;
} sc_table[] = {
    {"read", SYS_read, FL_SC_READ},
    {"write", SYS_write, FL_SC_WRITE},
    {"pread64", SYS_pread64, FL_SC_PREAD},
    {"pwrite64", SYS_pwrite64, FL_SC_PWRITE},
    {"readv", SYS_readv, FL_SC_READV},
    {"writev", SYS_writev, FL_SC_WRITEV},
    {"preadv", SYS_preadv, FL_SC_PREADV},
    {"pwritev", SYS_pwritev, FL_SC_PWRITEV},
    {"preadv2", SYS_preadv2, FL_SC_PREADV2},
    {"pwritev2", SYS_pwritev2, FL_SC_PWRITEV2},
#ifdef SYS_open
    {"open", SYS_open, FL_SC_OPEN},
    {"creat", SYS_creat, FL_SC_CREAT},
    {"dup2", SYS_dup2, FL_SC_DUP2},
    {"rename", SYS_rename, FL_SC_RENAME},
    {"unlink", SYS_unlink, FL_SC_UNLINK},
#endif
    {"openat", SYS_openat, FL_SC_OPENAT},
    {"openat2", SYS_openat2, FL_SC_OPENAT2},
    {"close", SYS_close, FL_SC_CLOSE},
    {"dup", SYS_dup, FL_SC_DUP},
    {"dup3", SYS_dup3, FL_SC_DUP3},
    {"fcntl", SYS_fcntl, FL_SC_FCNTL},
    {"fsync", SYS_fsync, FL_SC_FSYNC},
    {"fdatasync", SYS_fdatasync, FL_SC_FDATASYNC},
    {"sync_file_range", SYS_sync_file_range, FL_SC_SYNC_FILE_RANGE},
    {"syncfs", SYS_syncfs, FL_SC_SYNCFS},
    {"fallocate", SYS_fallocate, FL_SC_FALLOCATE},
    {"ftruncate", SYS_ftruncate, FL_SC_FTRUNCATE},
    {"truncate", SYS_truncate, FL_SC_TRUNCATE},
    {"renameat", SYS_renameat, FL_SC_RENAMEAT},
    {"renameat2", SYS_renameat2, FL_SC_RENAMEAT2},
    {"unlinkat", SYS_unlinkat, FL_SC_UNLINKAT},
    {"io_submit", SYS_io_submit, FL_SC_IO_SUBMIT},
    {"io_getevents", SYS_io_getevents, FL_SC_IO_GETEVENTS},
    {"io_pgetevents", SYS_io_pgetevents, FL_SC_IO_PGETEVENTS},
    {"mmap", SYS_mmap, FL_SC_MMAP},
    {"copy_file_range", SYS_copy_file_range, FL_SC_COPY_FILE_RANGE},
    {"sendfile64", SYS_sendfile, FL_SC_SENDFILE},
    {"close_range", SYS_close_range, FL_SC_CLOSE_RANGE},
    {"io_uring_enter", SYS_io_uring_enter, FL_SC_IO_URING_ENTER},
#ifdef SYS_fadvise64
    {"fadvise64", SYS_fadvise64, FL_SC_FADVISE},
#endif
    {"readahead", SYS_readahead, FL_SC_READAHEAD},
#ifdef SYS_stat
    {"newstat", SYS_stat, FL_SC_STAT},
    {"newlstat", SYS_lstat, FL_SC_STAT},
    {"mkdir", SYS_mkdir, FL_SC_MKDIR},
    {"rmdir", SYS_rmdir, FL_SC_RMDIR},
#endif
    {"newfstatat", SYS_newfstatat, FL_SC_NEWFSTATAT},
    {"statx", SYS_statx, FL_SC_STATX},
    {"mkdirat", SYS_mkdirat, FL_SC_MKDIRAT},
};

#define NSC (sizeof(sc_table) / sizeof(sc_table[0]))

/* Program groups: each is loaded, or left out as a whole. */
enum { G_SC_TP, G_SC_RAW, G_URING, G_PROCS, G_ITER, G_CPU, G__N };

static const char *const group_names[G__N] = {"per-syscall tracepoints", "raw sys_enter/sys_exit",
					      "io_uring tracepoints",
					      "process fork/exit tracepoints", "iter/task_file",
					      "CPU accounting (sched_switch)"};

static int group_of(const char *prog)
{
	if (!strncmp(prog, "sc_", 3))
		return G_SC_TP;
	if (!strncmp(prog, "raw_", 4))
		return G_SC_RAW;
	if (!strncmp(prog, "uring_", 6))
		return G_URING;
	if (!strncmp(prog, "proc_", 5))
		return G_PROCS;
	if (!strncmp(prog, "iter_", 5))
		return G_ITER;
	if (!strncmp(prog, "oncpu_", 6))
		return G_CPU;
	return -1;
}

/* IOREEL_RECORD_FAULT (tests): "sys_tp", "uring", "iter", "procs" act as if that group failed. */
static bool fault(const char *what)
{
	const char *f = getenv("IOREEL_RECORD_FAULT");

	if (!f || !strstr(f, what))
		return false;
	cli_warn("IOREEL_RECORD_FAULT: acting as if the %s failed", what);
	return true;
}

static int add_link(struct fl_bpf *b, struct bpf_link *l)
{
	if (!l)
		return -errno;
	if (b->nlinks == b->cap) {
		int cap = b->cap ? 2 * b->cap : 64;
		struct bpf_link **p = realloc(b->links, cap * sizeof(*p));

		if (!p) {
			bpf_link__destroy(l);
			return -ENOMEM;
		}
		b->links = p;
		b->cap = cap;
	}
	b->links[b->nlinks++] = l;
	return 0;
}

/*
 * Destroying a link to a syscall tracepoint waits for an RCU grace period twice, once as the
 * program leaves the event and once as the event is released, each under a kernel mutex of its
 * own: one link after the other, the stop took 6.7 s after a Ctrl-C here. Destroyed from a few
 * threads at once, one link's second wait overlaps the next one's first: 3.3-3.7 s (16 threads
 * gain nothing more, the mutexes serialise the rest).
 */
#define DETACH_THREADS 4

struct detach_part {
	struct fl_bpf *b;
	int first;
};

static void *detach_part(void *arg)
{
	struct detach_part *p = arg;

	for (int i = p->first; i < p->b->nlinks; i += DETACH_THREADS)
		bpf_link__destroy(p->b->links[i]);
	return NULL;
}

void fl_bpf_detach(struct fl_bpf *b)
{
	struct detach_part part[DETACH_THREADS];
	pthread_t th[DETACH_THREADS];
	bool started[DETACH_THREADS] = {0};

	for (int k = 0; k < DETACH_THREADS; k++) {
		part[k] = (struct detach_part){ b, k };
		started[k] = k < b->nlinks && !pthread_create(&th[k], NULL, detach_part, &part[k]);
	}
	for (int k = 0; k < DETACH_THREADS; k++) {
		if (started[k])
			pthread_join(th[k], NULL);
		else
			detach_part(&part[k]); /* no thread to spare: here */
	}
	b->nlinks = 0;
}

void fl_bpf_close(struct fl_bpf *b)
{
	fl_bpf_detach(b);
	free(b->links);
	ring_buffer__free(b->names);
	if (b->slots)
		munmap(b->slots, sizeof(struct fl_slot) * FL_SLOTS);
	file_bpf__destroy(b->skel);
	*b = (struct fl_bpf){0};
}

/*
 * The ids of the syscall tracepoints (-1 for one this kernel does not have). They are in tracefs;
 * where it is not mounted, a child mounts it in a mount namespace of its own and reads them, so
 * nothing changes for anyone else (nor for us: our paths stay the ones the recorded see).
 */
static int tp_ids(long (*ids)[2])
{
	static const char *const roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	const char *root = NULL;
	int pfd[2], found = 0;
	pid_t pid;

	for (int i = 0; i < 2 && !root; i++) {
		char p[96];

		snprintf(p, sizeof(p), "%s/events/syscalls", roots[i]);
		if (!access(p, F_OK))
			root = roots[i];
	}
	if (pipe(pfd))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(pfd[0]);
		if (!root) {
			if (unshare(CLONE_NEWNS) ||
			    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
			    mount("tracefs", roots[0], "tracefs", 0, NULL))
				_exit(2);
			root = roots[0];
		}
		for (size_t i = 0; i < NSC; i++) {
			for (int x = 0; x < 2; x++) {
				char p[160];
				long id = -1;
				FILE *f;

				snprintf(p, sizeof(p), "%s/events/syscalls/sys_%s_%s/id", root,
					 x ? "exit" : "enter", sc_table[i].name);
				f = fopen(p, "r");
				if (f && fscanf(f, "%ld", &id) != 1)
					id = -1;
				if (f)
					fclose(f);
				if (write(pfd[1], &id, sizeof(id)) != sizeof(id))
					_exit(3);
			}
		}
		_exit(0);
	}
	close(pfd[1]);
	for (size_t i = 0; i < NSC; i++)
		for (int x = 0; x < 2; x++)
			if (read(pfd[0], &ids[i][x], sizeof(long)) != sizeof(long))
				ids[i][x] = -1;
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	for (size_t i = 0; i < NSC; i++)
		found += ids[i][0] >= 0 && ids[i][1] >= 0;
	return found ? 0 : -ENOENT;
}

static int attach_tp(struct fl_bpf *b, struct bpf_program *prog, long id)
{
	struct perf_event_attr a = {.type = PERF_TYPE_TRACEPOINT,
				    .size = sizeof(a),
				    .config = (unsigned long long)id,
				    .sample_period = 1,
				    .wakeup_events = 1};
	int pfd = syscall(SYS_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	struct bpf_link *l;

	if (pfd < 0)
		return -errno;
	l = bpf_program__attach_perf_event(prog, pfd);
	if (!l) {
		int err = -errno;

		close(pfd);
		return err;
	}
	return add_link(b, l);
}

/* Attaches sc_enter/sc_exit to every per-syscall tracepoint of the table (want_enter_uring:
 * io_uring_enter too, to count what the io_uring tracepoints would have recorded). */
static int attach_syscalls(struct fl_bpf *b, bool with_uring_enter)
{
	long ids[NSC][2];
	int err;

	if (fault("sys_tp"))
		return -ENOENT;
	err = tp_ids(ids);
	if (err)
		return err;
	for (size_t i = 0; i < NSC; i++) {
		if (sc_table[i].kind == FL_SC_IO_URING_ENTER && !with_uring_enter)
			continue;
		if (ids[i][0] < 0 || ids[i][1] < 0)
			continue; /* a system call this kernel does not have (openat2 before 5.6) */
		err = attach_tp(b, b->skel->progs.sc_enter, ids[i][0]);
		err = err ?: attach_tp(b, b->skel->progs.sc_exit, ids[i][1]);
		if (err)
			return err;
		b->nsyscalls++;
	}
	return 0;
}

static void set_rodata(struct file_bpf *s, const struct fl_opts *o, bool uring, bool cpu)
{
	volatile __u8 *kind = s->rodata->sc_kind;

	s->rodata->oncpu_enabled = cpu;
	s->rodata->self_tgid = getpid();
	s->rodata->filter_by_pid = o->c.pid != 0;
	if (o->c.comm) {
		s->rodata->filter_by_comm = true;
		strncpy((char *)s->rodata->filter_comm, o->c.comm, 15);
	}
	s->rodata->filter_by_cgroup = o->c.cgroup != NULL;
	if (o->under[0]) {
		uint32_t devs[FL_UNDER_DEVS];
		int n = fl_under_devs(o->under, devs, FL_UNDER_DEVS);

		for (int i = 0; i < n; i++)
			s->rodata->under_devs[i] = devs[i];
		s->rodata->nunder = n;
	}
	for (size_t i = 0; i < NSC; i++) {
		if (sc_table[i].kind == FL_SC_IO_URING_ENTER && uring)
			continue;
		if (sc_table[i].nr >= 0 && sc_table[i].nr < FL_NR_MAX)
			kind[sc_table[i].nr] = sc_table[i].kind;
	}
	s->rodata->ring_shift = o->c.ring_shift;
}

/*
 * One attempt with the groups in want: open, load, attach. On failure *bad names the group to
 * leave out (-1: nothing to leave out), *what says which step failed.
 */
static int try_load(struct fl_bpf *b, const struct fl_opts *o, int ncpu, int cgfd,
		    const bool want[G__N], int *bad, char *what, size_t len)
{
	struct file_bpf *s = file_bpf__open();
	struct bpf_program *p;
	int err;

	*bad = -1;
	if (!s) {
		snprintf(what, len, "opening the BPF object");
		return -errno;
	}
	b->skel = s;
	set_rodata(s, o, want[G_URING], want[G_CPU]);
	bpf_map__set_max_entries(s->maps.ring_ctl, ncpu);
	bpf_map__set_max_entries(s->maps.ring_buf, (uint32_t)ncpu << o->c.ring_shift);
	bpf_map__set_max_entries(s->maps.async, o->c.inflight);
	bpf_object__for_each_program(p, s->obj)
	{
		int g = group_of(bpf_program__name(p));

		bpf_program__set_autoload(p, g >= 0 && want[g]);
	}
	rec_libbpf_log();
	for (int g = G_URING; g < G__N; g++) {
		static const char *const fnames[G__N] = {
		    [G_URING] = "uring", [G_PROCS] = "procs", [G_ITER] = "iter", [G_CPU] = "cpu"};

		if (want[g] && fault(fnames[g])) {
			*bad = g;
			snprintf(what, len, "loading the %s", group_names[g]);
			return -ESRCH;
		}
	}
	err = file_bpf__load(s);
	if (err) {
		*bad = rec_failed_prog[0] ? group_of(rec_failed_prog) : -1;
		snprintf(what, len, "loading %s",
			 rec_failed_prog[0] ? rec_failed_prog : "the programs");
		return err;
	}
	if (cgfd >= 0) {
		uint32_t k = 0;

		if (bpf_map_update_elem(bpf_map__fd(s->maps.cgroup), &k, &cgfd, 0)) {
			snprintf(what, len, "--cgroup %s: not a cgroup v2 directory", o->c.cgroup);
			return -errno;
		}
	}
	bpf_object__for_each_program(p, s->obj)
	{
		int g = group_of(bpf_program__name(p));

		if (g < 0 || !want[g] || g == G_SC_TP || g == G_ITER)
			continue; /* per-syscall tracepoints below; the iterator when it runs */
		err = add_link(b, bpf_program__attach(p));
		if (err) {
			*bad = g;
			snprintf(what, len, "attaching %s", bpf_program__name(p));
			return err;
		}
	}
	if (want[G_SC_TP]) {
		err = attach_syscalls(b, !want[G_URING]);
		if (err) {
			*bad = G_SC_TP;
			snprintf(what, len, "attaching the per-syscall tracepoints");
			return err;
		}
	}
	return 0;
}

int fl_bpf_load(struct fl_bpf *b, const struct fl_opts *o, int ncpu, int cgfd)
{
	bool want[G__N] = {true, false, true, true, true, o->c.cpu};
	char what[160];
	int err, bad;

	rec_libbpf_log();
	if (o->attach == FL_ATTACH_RAW) {
		want[G_SC_TP] = false;
		want[G_SC_RAW] = true;
	}
	for (int attempt = 0; attempt < G__N + 1; attempt++) {
		err = try_load(b, o, ncpu, cgfd, want, &bad, what, sizeof(what));
		if (!err)
			break;
		fl_bpf_close(b);
		if (bad == G_SC_TP && o->attach == FL_ATTACH_AUTO) {
			cli_warn(
			    "%s failed (%s): using raw sys_enter/sys_exit instead (a program runs "
			    "on every system call of the machine)",
			    what, strerror(-err));
			want[G_SC_TP] = false;
			want[G_SC_RAW] = true;
			continue;
		}
		if (bad == G_URING || bad == G_PROCS || bad == G_ITER || bad == G_CPU) {
			cli_warn("%s failed (%s): %s", what, strerror(-err),
				 bad == G_URING ? "io_uring requests are counted, not recorded"
				 : bad == G_PROCS
				     ? "no fork/exit events, and --pid follows no child"
				 : bad == G_CPU
				     ? "no CPU time recorded (a replay of this trace cannot "
				       "reproduce the CPU its threads used)"
				     : "files open at start are read from /proc");
			want[bad] = false;
			continue;
		}
		break;
	}
	if (err) {
		cli_error(
		    "%s failed: %s (set IOREEL_DEBUG=1 for libbpf's log; the kernel needs BPF "
		    "with BTF, mmap()able arrays, ring buffers and bpf_loop (5.17+)%s)",
		    what, strerror(-err),
		    o->attach == FL_ATTACH_TRACEPOINT ? "; try --attach auto" : "");
		return err;
	}
	b->raw = want[G_SC_RAW];
	b->uring = want[G_URING];
	b->procs = want[G_PROCS];
	b->iter = want[G_ITER];
	b->cpu = want[G_CPU];
	b->slots = mmap(NULL, sizeof(struct fl_slot) * FL_SLOTS, PROT_READ | PROT_WRITE, MAP_SHARED,
			bpf_map__fd(b->skel->maps.slots), 0);
	if (b->slots == MAP_FAILED) {
		b->slots = NULL;
		err = -errno;
		cli_error("mapping the table of calls in progress: %s", strerror(-err));
		return err;
	}
	return 0;
}

int fl_bpf_names(struct fl_bpf *b, struct fl_drain *d)
{
	b->names = ring_buffer__new(bpf_map__fd(b->skel->maps.names), fl_drain__name, d, NULL);
	return b->names ? 0 : -errno;
}

void fl_bpf_names_poll(void *ctx)
{
	struct fl_bpf *b = ctx;

	if (b->names)
		ring_buffer__consume(b->names);
}

void fl_bpf_start(struct fl_bpf *b)
{
	__atomic_store_n(&b->skel->data->stopping, 0, __ATOMIC_SEQ_CST);
}

void fl_bpf_stopping(struct fl_bpf *b)
{
	__atomic_store_n(&b->skel->data->stopping, 1, __ATOMIC_SEQ_CST);
}

int fl_bpf_add_tgid(struct fl_bpf *b, uint32_t tgid)
{
	uint8_t one = 1;

	return bpf_map_update_elem(bpf_map__fd(b->skel->maps.tgids), &tgid, &one, BPF_ANY) ? -errno
											   : 0;
}

const char *fl_bpf_tiers(const struct fl_bpf *b, char *buf, size_t len)
{
	snprintf(buf, len, "syscalls: %s; io_uring: %s; start: %s%s",
		 b->raw ? "raw sys_enter/sys_exit" : "per-syscall tracepoints",
		 b->uring ? "tracepoints" : "counted only", b->iter ? "iter/task_file" : "/proc",
		 b->procs ? "" : "; no fork/exit");
	return buf;
}

void fl_bpf_stats(struct fl_bpf *b, int ncpu, uint64_t *vals, uint64_t *nested)
{
	int fd = bpf_map__fd(b->skel->maps.fstats);
	struct bpf_program *p;

	for (uint32_t k = 0; k < FL_STAT__COUNT; k++) {
		uint64_t v[ncpu];

		vals[k] = 0;
		if (bpf_map_lookup_elem(fd, &k, v))
			continue;
		for (int i = 0; i < ncpu; i++)
			vals[k] += v[i];
	}
	/* a skipped entry program is a lost call; skipped returns show as unseen returns */
	*nested = 0;
	bpf_object__for_each_program(p, b->skel->obj)
	{
		struct bpf_prog_info info = {0};
		uint32_t len = sizeof(info);
		int pfd = bpf_program__fd(p);

		if (pfd < 0 || bpf_obj_get_info_by_fd(pfd, &info, &len))
			continue;
		if (p == b->skel->progs.sc_enter || p == b->skel->progs.raw_enter ||
		    p == b->skel->progs.uring_submit)
			*nested += info.recursion_misses;
	}
}

/* ---- calls in progress ---- */

static uint64_t scan_hash(int fd, size_t ksz, uint64_t *n,
			  void (*each)(void *, const struct fl_event *), void *ctx)
{
	static uint8_t keys[256 * sizeof(struct fl_akey)];
	static struct fl_event vals[256];
	uint64_t oldest = UINT64_MAX;
	uint32_t in = 0, out = 0;
	bool first = true;

	(void)ksz;
	for (;;) {
		uint32_t cnt = 256;
		int err =
		    bpf_map_lookup_batch(fd, first ? NULL : &in, &out, keys, vals, &cnt, NULL);

		if (err && errno != ENOENT)
			break;
		for (uint32_t i = 0; i < cnt; i++) {
			(*n)++;
			if (vals[i].enter_ns < oldest)
				oldest = vals[i].enter_ns;
			if (each)
				each(ctx, &vals[i]);
		}
		if (err)
			break;
		in = out;
		first = false;
	}
	return oldest;
}

uint64_t fl_bpf_pending(struct fl_bpf *b, uint64_t *n,
			void (*each)(void *, const struct fl_event *), void *ctx)
{
	uint64_t oldest = UINT64_MAX, t, cnt = 0;

	for (uint32_t i = 0; i < FL_SLOTS; i++) {
		struct fl_slot *s = &b->slots[i];

		if (!__atomic_load_n(&s->key, __ATOMIC_ACQUIRE))
			continue;
		cnt++;
		t = __atomic_load_n(&s->e.enter_ns, __ATOMIC_RELAXED);
		if (t < oldest)
			oldest = t;
		if (each) {
			struct fl_event e = s->e;

			each(ctx, &e);
		}
	}
	if (b->skel->bss->more_count) {
		t = scan_hash(bpf_map__fd(b->skel->maps.sync_more), sizeof(uint64_t), &cnt, each,
			      ctx);
		oldest = t < oldest ? t : oldest;
	}
	t = scan_hash(bpf_map__fd(b->skel->maps.async), sizeof(struct fl_akey), &cnt, each, ctx);
	oldest = t < oldest ? t : oldest;
	if (n)
		*n = cnt;
	return oldest;
}

/* ---- files open at the start ---- */

static bool comm_is(uint32_t pid, const char *want)
{
	char p[64], comm[32] = "";
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%u/comm", pid);
	f = fopen(p, "r");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	comm[strcspn(comm, "\n")] = '\0';
	return !strcmp(comm, want);
}

/* Is process pid in the cgroup v2 group rel (its path in the hierarchy) or below it? */
static bool in_cgroup(uint32_t pid, const char *rel)
{
	char p[64], line[4096];
	bool in = false;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%u/cgroup", pid);
	f = fopen(p, "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "0::", 3))
			in = fl_path_is_under(rel, line + 3) || !strcmp(rel, "/");
	}
	if (f)
		fclose(f);
	return in;
}

static bool snap_wanted(const struct fl_opts *o, uint32_t pid, const char *comm)
{
	if (pid == (uint32_t)getpid())
		return false;
	if (o->c.comm && (comm ? strncmp(comm, o->c.comm, 15) : !comm_is(pid, o->c.comm)))
		return false;
	if (o->c.cgroup && !in_cgroup(pid, o->cgroup_rel))
		return false;
	return true;
}

static int snapshot_iter(struct fl_bpf *b, const struct fl_opts *o, struct fl_drain *d)
{
	struct bpf_link *l = bpf_program__attach_iter(b->skel->progs.iter_files, NULL);
	size_t len = 0, cap = 1 << 16, pos = 0;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	if (!l || !buf) {
		free(buf);
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	fd = bpf_iter_create(bpf_link__fd(l));
	while (fd >= 0 && (n = read(fd, buf + len, cap - len)) > 0) {
		len += n;
		if (len == cap) {
			char *p = realloc(buf, cap * 2);

			if (!p)
				break;
			buf = p;
			cap *= 2;
		}
	}
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(l);
	while (pos + sizeof(struct fl_snap) <= len) {
		struct fl_snap s;
		const char *path = NULL;

		memcpy(&s, buf + pos, sizeof(s));
		pos += sizeof(s);
		if (s.path_len) {
			if (pos + s.path_len > len || buf[pos + s.path_len - 1])
				break;
			path = buf + pos;
			pos += s.path_len;
		}
		s.comm[15] = '\0';
		if (snap_wanted(o, s.pid, s.comm))
			fl_drain__start(d, &s, path);
	}
	free(buf);
	return fd < 0 ? -EIO : 0;
}

/* Without the iterator: /proc/PID/fd and fdinfo, the generation through FS_IOC_GETVERSION. */
static void snapshot_proc_pid(const struct fl_opts *o, struct fl_drain *d, uint32_t pid)
{
	char p[64], path[4096];
	struct dirent *de;
	DIR *dir;

	snprintf(p, sizeof(p), "/proc/%u/fd", pid);
	dir = opendir(p);
	while (dir && (de = readdir(dir))) {
		struct fl_snap s = {.pid = pid};
		struct stat st;
		char link[96], line[256];
		unsigned long long pos = 0;
		unsigned int flags = 0;
		ssize_t n;
		FILE *f;
		int fd, gen = 0;

		if (de->d_name[0] == '.')
			continue;
		s.fd = atoi(de->d_name);
		snprintf(link, sizeof(link), "/proc/%u/fd/%d", pid, s.fd);
		if (stat(link, &st) || !S_ISREG(st.st_mode))
			continue;
		n = readlink(link, path, sizeof(path) - 1);
		path[n > 0 ? n : 0] = '\0';
		fd = open(link, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOATIME);
		if (fd >= 0) {
			if (ioctl(fd, FS_IOC_GETVERSION, &gen))
				gen = 0;
			close(fd);
		}
		snprintf(link, sizeof(link), "/proc/%u/fdinfo/%d", pid, s.fd);
		f = fopen(link, "r");
		while (f && fgets(line, sizeof(line), f)) {
			sscanf(line, "pos: %llu", &pos);
			sscanf(line, "flags: %o", &flags);
		}
		if (f)
			fclose(f);
		s.ino = st.st_ino;
		s.dev = major(st.st_dev) << 20 | minor(st.st_dev);
		s.gen = gen;
		s.size = st.st_size;
		s.blocks = st.st_blocks;
		s.pos = pos;
		s.fflags = flags;
		s.mode = st.st_mode;
		if (o->under[0] && !fl_path_is_under(o->under, path))
			continue;
		fl_drain__start(d, &s, path[0] == '/' ? path : NULL);
	}
	if (dir)
		closedir(dir);
}

int fl_bpf_snapshot(struct fl_bpf *b, const struct fl_opts *o, struct fl_drain *d,
		    const uint32_t *tgids, size_t ntgids)
{
	struct dirent *de;
	DIR *proc;
	int err = 0;

	if (b->iter) {
		err = snapshot_iter(b, o, d);
		if (!err)
			goto out;
		cli_warn("reading the open files with iter/task_file failed (%s): reading /proc",
			 strerror(-err));
	}
	if (o->c.pid) {
		for (size_t i = 0; i < ntgids; i++)
			if (snap_wanted(o, tgids[i], NULL))
				snapshot_proc_pid(o, d, tgids[i]);
		goto out;
	}
	proc = opendir("/proc");
	while (proc && (de = readdir(proc))) {
		uint32_t pid = strtoul(de->d_name, NULL, 10);

		if (pid && snap_wanted(o, pid, NULL))
			snapshot_proc_pid(o, d, pid);
	}
	if (proc)
		closedir(proc);
out:
	fl_drain__snapshot_done(d);
	return 0;
}
