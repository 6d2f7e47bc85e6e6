// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ioreel record --level file: the calls chosen processes make on files (record/FILE.md), into a
 * file-level trace (formats/FORMAT.md, section 5). Loads bpf/file.bpf.c (file_load.c), reads the
 * files open at start, then drains the rings on a short timer, orders calls by their start
 * (file_drain.c) and writes them, flushing a chunk once a second. Stops on SIGINT/SIGTERM/SIGHUP,
 * --duration, --max-size, or when the --pid process exits.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>
#include "util/argv.h"
#include "util/cli.h"
#include "util/json.h"
#include "util/outfile.h"
#include "record/record_int.h"
#include "record/file_int.h"
#include "record/cpuload.h"
#include "file.skel.h"

#define POLL_MS 10 /* also the CPU load's interval (record/cpuload.h) */
#define STOP_WAIT_NS (500ULL * 1000000ULL)
#define MAX_TGIDS 65536

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

bool rec_wants_file_level(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--level=file") ||
		    (!strcmp(argv[i], "--level") && i + 1 < argc && !strcmp(argv[i + 1], "file")))
			return true;
	}
	return false;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ioreel record --level file -o FILE.ioreel\n"
		"         [--pid PID | --comm NAME | --cgroup DIR] [--under DIR] [options]\n"
		"\n"
		"Records the calls processes make on files (reads and writes with their offsets,\n"
		"fsync, fdatasync, open flags over time, fallocate, truncate, rename, unlink;\n"
		"system calls, libaio and io_uring) and the files they touch (path, size, holes),\n"
		"until SIGINT/SIGTERM/SIGHUP, a limit, or the --pid process exits. See record/FILE.md.\n"
		"\n"
		"  -o, --output FILE    trace to write (created 0600)\n"
		"      --pid PID        process PID and the processes it starts (PostgreSQL's\n"
		"                       backends)\n"
		"      --comm NAME      processes whose main thread is named NAME\n"
		"      --cgroup DIR     processes in cgroup v2 directory DIR or below\n"
		"      --under DIR      only files under DIR\n"
		"                       (none of these: every process, every file)\n"
		"      --duration T     stop after T (\"60\", \"1.5s\", \"10m\")\n"
		"      --max-size SIZE  stop when the trace reaches SIZE (\"512m\", \"2g\")\n"
		"      --attach MODE    system calls through per-syscall tracepoints\n"
		"                       (tracepoint), the raw sys_enter/sys_exit ones (raw,\n"
		"                       dearer), or auto (default: tracepoint, else raw)\n"
		"      --inflight N     libaio/io_uring requests tracked in flight, 64 to 4194304\n"
		"                       (default 65536)\n"
		"      --ring-size SIZE ring of calls per CPU, a power of two, 4k to 1g\n"
		"                       (default 16m, 256m shared past 16 CPUs; 136 B a call,\n"
		"                       drained every 1-20 ms)\n"
		"      --keep-priority  run the drain thread at the priority ioreel was started with\n"
		"                       (default: real-time SCHED_FIFO 1, or nice -20 where that is\n"
		"                       refused, as the block level's)\n"
		"      --cpu            record each thread's on-CPU time between its calls and the\n"
		"                       host's CPU load every 10 ms, for replay --cpu replay (a\n"
		"                       program on every context switch of the host: see\n"
		"                       record/README.md for its cost)\n"
		"  -q, --quiet          no status line\n"
		"      --json           print final statistics as JSON on stdout\n"
		"\n"
		"examples:\n"
		"  ioreel record --level file -o pg.ioreel --duration 10m \\\n"
		"      --pid $(head -1 /var/lib/postgresql/16/main/postmaster.pid)\n"
		"  ioreel record --level file --comm mariadbd --under /var/lib/mysql \\\n"
		"      -o innodb.ioreel\n"
		"  ioreel record --level file -o app.ioreel \\\n"
		"      --cgroup /sys/fs/cgroup/system.slice/app.service\n"
		"  ioreel info pg.ioreel   # the files, calls per op, what was not covered\n");
}

#define HELP "ioreel record --level file --help"

static int parse_args(int argc, char **argv, struct fl_opts *o)
{
	enum { O_UNDER = REC_O__NEXT, O_LEVEL, O_ATTACH };
	static const struct option lo[] = {
		REC_COMMON_OPTIONS,
		{ "under", required_argument, 0, O_UNDER },
		{ "level", required_argument, 0, O_LEVEL },
		{ "attach", required_argument, 0, O_ATTACH },
		{ 0 }
	};
	const char *under = NULL, *attach = NULL;
	int c, r;

	o->c.inflight = 65536;
	/* 65,536 calls a CPU: one CPU doing nothing but system calls on tmpfs makes ~400k
	 * calls/s, which filled half of a 4 MiB ring between two 20 ms passes, and all of it once
	 * on a loaded host (record/FILE.md); 8 MiB until block-level rings were seen unread for
	 * over 110 ms (record/README.md, "Why this design") */
	o->c.ring_size = 16 << 20;
	optind = 1;
	/* ':' first: getopt_long says nothing, cli_getopt_error says it in one line */
	while ((c = getopt_long(argc, argv, ":" REC_SHORT_OPTIONS, lo, NULL)) != -1) {
		r = rec_common_opt(c, optarg, &o->c, lo, HELP);
		if (r < 0)
			return r;
		if (r)
			continue;
		switch (c) {
		case O_UNDER: {
			char *rp;
			struct stat st;

			if (cli_set_once(&under, "--under", optarg))
				return -EINVAL;
			rp = realpath(optarg, NULL);
			if (!rp || stat(rp, &st) || !S_ISDIR(st.st_mode)) {
				const char *why = rp ? "not a directory" : strerror(errno);
				char shown[CLI_SHOWN_LEN];

				cli_error("--under %s: %s (give an existing directory)",
					  cli_shown(shown, optarg), why);
				free(rp);
				return -EINVAL;
			}
			snprintf(o->under, sizeof(o->under), "%s", strcmp(rp, "/") ? rp : "");
			free(rp);
			break;
		}
		case O_LEVEL:
			if (strcmp(optarg, "file"))
				return rec_opt_bad(lo, c, optarg,
						   "file here (bio, rq and auto record block "
						   "I/O: ioreel record --help)", HELP);
			break;
		case O_ATTACH:
			if (cli_set_once(&attach, "--attach", optarg))
				return -EINVAL;
			if (!strcmp(optarg, "auto"))
				o->attach = FL_ATTACH_AUTO;
			else if (!strcmp(optarg, "tracepoint"))
				o->attach = FL_ATTACH_TRACEPOINT;
			else if (!strcmp(optarg, "raw"))
				o->attach = FL_ATTACH_RAW;
			else
				return rec_opt_bad(lo, c, optarg, "tracepoint, raw or auto", HELP);
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			cli_getopt_error(c, argv, lo, "record --level file");
			return -EINVAL;
		}
	}
	return rec_common_check(&o->c, argc, argv);
}

/* --pid and the processes below it now (the kernel side follows later forks). */
static size_t find_tgids(uint32_t root, uint32_t *out, size_t max)
{
	static uint32_t pids[MAX_TGIDS], ppids[MAX_TGIDS];
	size_t n = 0, k = 0;
	struct dirent *de;
	DIR *proc = opendir("/proc");

	while (proc && (de = readdir(proc)) && n < MAX_TGIDS) {
		char p[64], line[512], *rp;
		uint32_t pid = strtoul(de->d_name, NULL, 10);
		FILE *f;

		if (!pid)
			continue;
		snprintf(p, sizeof(p), "/proc/%u/stat", pid);
		f = fopen(p, "r");
		if (!f)
			continue;
		/* "pid (comm) state ppid": comm may hold spaces and parentheses */
		if (fgets(line, sizeof(line), f) && (rp = strrchr(line, ')')) &&
		    sscanf(rp + 1, " %*c %u", &ppids[n]) == 1)
			pids[n++] = pid;
		fclose(f);
	}
	if (proc)
		closedir(proc);
	out[k++] = root;
	/* breadth first over the parent links: out[] grows as children are found */
	for (size_t i = 0; i < k; i++)
		for (size_t j = 0; j < n && k < max; j++)
			if (ppids[j] == out[i] && pids[j] != root)
				out[k++] = pids[j];
	return k;
}

struct fl_result {
	struct fl_drain_stats ds;
	struct fl_files_stats fs;
	uint64_t k[FL_STAT__COUNT], nested, holes;
	uint64_t unwritten; /* given to the writer after it failed: lost (rec_unwritten) */
	struct rec_collect_stats cs;
	enum rec_prio prio; /* what the drain thread ran at */
	uint64_t trace_bytes, elapsed_ns;
	int werr;
	bool max_size, pid_exited;
	bool mounts_changed; /* a filesystem was mounted or unmounted at or under --under */
};

static uint64_t dropped(const struct fl_result *r)
{
	return r->k[FL_DROP_RING] + r->k[FL_DROP_PENDING] + r->k[FL_DROP_AIO_READ] +
	       r->k[FL_DROP_AIO_BATCH] + r->nested + r->holes + r->unwritten;
}

static uint64_t uncovered(const struct fl_result *r)
{
	uint64_t n = 0;

	for (int k = FL_UNC_MMAP_SHARED_W; k < FL_STAT__COUNT; k++)
		n += r->k[k];
	return n;
}

struct fl_loop {
	struct fl_bpf *b;
	struct rec_rings *rg;
	struct fl_drain *d;
	struct rec_collect *c; /* the drain thread (collect.c, as the block level's) */
	struct trace_writer *w;
	struct fl_files *files;
	const struct fl_opts *o;
	struct rec_cpuload cl;
	int ncpu, pidfd;
	/* --under: the mounts there now (the programs filter by the devices in their rodata) */
	uint32_t mnt_ids[FL_UNDER_DEVS], mnt_devs[FL_UNDER_DEVS];
	int nmnt;
};

static void refresh(struct fl_loop *l, struct fl_result *r)
{
	fl_drain__stats(l->d, &r->ds);
	fl_files__stats(l->files, &r->fs);
	fl_bpf_stats(l->b, l->ncpu, r->k, &r->nested);
	r->holes = __atomic_load_n(&l->rg->holes, __ATOMIC_RELAXED); /* the drain thread's */
}

static size_t counters(const struct fl_result *r, struct trace_counter *c);

static void status_line(const struct fl_result *r, uint64_t elapsed, double rate, double mbps)
{
	struct trace_counter c[FL_STAT__COUNT + 16];
	char b[32], why[200];

	fprintf(stderr,
		"%s%6.1fs %9.0f calls/s %8.1f MB/s  events %llu  files %llu  drops %llu%s  "
		"trace %s%s",
		isatty(2) ? "\r" : "", elapsed / 1e9, rate, mbps, (unsigned long long)r->ds.events,
		(unsigned long long)r->fs.files, (unsigned long long)dropped(r),
		rec_drops_why(c, counters(r, c), why, sizeof(why)),
		fmt_bytes(r->trace_bytes, b, sizeof(b)), isatty(2) ? "   " : "\n");
}

/* The drain thread's view of the calls in progress (rec_collect_src.oldest): a call that runs
 * longer than FL_HOLD_NS holds the others back no longer (it is written out of order). */
static uint64_t pending_oldest(void *b, uint64_t now, uint64_t *stale)
{
	uint64_t oldest = fl_bpf_pending(b, NULL, NULL, NULL);

	(void)stale;
	return oldest < now - FL_HOLD_NS ? now - FL_HOLD_NS : oldest;
}

static int drain_release(void *d, uint64_t before)
{
	return fl_drain__release(d, before);
}

static bool has(const uint32_t *v, int n, uint32_t x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/*
 * --under's filesystems are chosen when the recording starts (the programs filter by their
 * devices). Once a second: a filesystem unmounted there (its files still open are still
 * recorded, as a lazy unmount leaves them in use), or one mounted there since (recorded only
 * if it is on a device filtered from the start) is said, and the JSON says mounts_changed.
 */
static void check_mounts(struct fl_loop *l, struct fl_result *r, double t)
{
	uint32_t ids[FL_UNDER_DEVS], devs[FL_UNDER_DEVS];
	const char *dir = l->o->under;
	int n = fl_under_mounts(dir, devs, ids, FL_UNDER_DEVS);

	for (int i = 0; i < l->nmnt; i++)
		if (!has(ids, n, l->mnt_ids[i])) {
			cli_warn("%s: the filesystem on %u:%u mounted there or below was unmounted "
				 "after %.1f s; calls on its files still open are still recorded",
				 dir, l->mnt_devs[i] >> 20, l->mnt_devs[i] & 0xfffff, t);
			r->mounts_changed = true;
		}
	for (int i = 0; i < n; i++)
		if (!has(l->mnt_ids, l->nmnt, ids[i])) {
			bool in = has((const uint32_t *)l->b->skel->rodata->under_devs,
				      (int)l->b->skel->rodata->nunder, devs[i]);

			cli_warn("%s: a filesystem on %u:%u was mounted there or below after %.1f s: "
				 "%s", dir, devs[i] >> 20, devs[i] & 0xfffff, t,
				 in ? "it is recorded (a device recorded from the start)"
				    : "its calls are NOT recorded (the filesystems under --under are "
				      "chosen at the start): start the recording again to record it");
			r->mounts_changed = true;
		}
	memcpy(l->mnt_ids, ids, sizeof(ids));
	memcpy(l->mnt_devs, devs, sizeof(devs));
	l->nmnt = n;
}

/* Takes what the drain thread collected, releases it in start order, flushes once a second,
 * until a signal or a limit. The drain thread does not wait for this one. */
static void run_loop(struct fl_loop *l, struct fl_result *r)
{
	uint64_t start = now_mono_ns(), tick = start + 1000000000ULL, last_t = start;
	uint64_t last_events = 0, last_bytes = 0;

	if (l->o->under[0])
		l->nmnt = fl_under_mounts(l->o->under, l->mnt_devs, l->mnt_ids, FL_UNDER_DEVS);
	while (!stop_signal) {
		struct timespec poll_ts = {0, POLL_MS * 1000000L};
		uint64_t now;
		int err;

		nanosleep(&poll_ts, NULL); /* a signal cuts it short */
		now = now_mono_ns();
		/* paths before the calls that need them (file_drain.c asks again if one is late) */
		fl_bpf_names_poll(l->b);
		err = rec_collect__deliver(l->c, fl_drain__push, drain_release, l->d);
		if (!err)
			err = rec_cpuload_tick(&l->cl, l->w, now, false);
		if (err) {
			r->werr = err;
			break;
		}
		if (now >= tick) {
			double dt = (now - last_t) / 1e9;

			tick = now + 1000000000ULL;
			err = trace_writer__flush(l->w);
			if (err) {
				r->werr = err;
				break;
			}
			refresh(l, r);
			if (l->o->under[0])
				check_mounts(l, r, (now - start) / 1e9);
			r->trace_bytes = trace_writer__bytes(l->w);
			if (!l->o->c.quiet)
				status_line(r, now - start, (r->ds.events - last_events) / dt,
					    (r->ds.bytes_io - last_bytes) / dt / 1e6);
			last_events = r->ds.events;
			last_bytes = r->ds.bytes_io;
			last_t = now;
			if (l->o->c.max_size && r->trace_bytes >= l->o->c.max_size) {
				r->max_size = true;
				break;
			}
		}
		if (l->o->c.duration_ns && now - start >= l->o->c.duration_ns)
			break;
		if (l->pidfd >= 0 &&
		    poll(&(struct pollfd){.fd = l->pidfd, .events = POLLIN}, 1, 0) == 1) {
			r->pid_exited = true;
			break;
		}
	}
	if (!l->o->c.quiet && isatty(2))
		fputc('\n', stderr);
	r->elapsed_ns = now_mono_ns() - start;
}

static void write_unfinished(void *d, const struct fl_event *e)
{
	fl_drain__unfinished(d, e);
}

/* Stops the drain thread and takes what it held, stops tracking new calls, lets the ones in
 * progress return for a moment, detaches, drains everything on this thread, and writes what
 * is still in progress without its return. */
static void finish(struct fl_loop *l, struct fl_result *r)
{
	uint64_t until, left = 0;
	struct timespec wait = {0, 5 * 1000000L};
	int err;

	fl_bpf_names_poll(l->b);
	err = rec_collect__stop(l->c, fl_drain__push, drain_release, l->d, &r->cs);
	if (err && !r->werr)
		r->werr = err;
	fl_bpf_stopping(l->b);
	until = now_mono_ns() + STOP_WAIT_NS;
	do {
		nanosleep(&wait, NULL);
		fl_bpf_names_poll(l->b);
		rec_rings_drain(l->rg, fl_drain__push, l->d, NULL);
		fl_bpf_pending(l->b, &left, NULL, NULL);
	} while (left && now_mono_ns() < until);
	fl_bpf_detach(l->b);
	fl_bpf_names_poll(l->b);
	rec_rings_drain(l->rg, fl_drain__push, l->d, NULL);
	fl_bpf_pending(l->b, NULL, write_unfinished, l->d);
	if (!r->werr)
		r->werr = fl_drain__release(l->d, UINT64_MAX);
	refresh(l, r);
}

static const char *const stat_names[FL_STAT__COUNT] = {
    [FL_DROP_RING] = "dropped_ring",
    [FL_DROP_PENDING] = "dropped_pending",
    [FL_DROP_AIO_READ] = "dropped_aio_unreadable",
    [FL_DROP_AIO_BATCH] = "dropped_aio_batch",
    [FL_DROP_NAME] = "paths_lost",
    [FL_STAT_UNSEEN_EXIT] = "return_unseen",
    [FL_STAT_LEN_GUESS] = "length_from_result",
    [FL_STAT_NAME_LATE] = "paths_read_at_return",
    [FL_UNC_MMAP_SHARED_W] = "uncovered_mmap_shared_write",
    [FL_UNC_MMAP_SHARED_R] = "uncovered_mmap_shared_read",
    [FL_UNC_COPY] = "uncovered_copy",
    [FL_UNC_CLOSE_RANGE] = "uncovered_close_range",
    [FL_UNC_AIO_OTHER] = "uncovered_aio_other",
    [FL_UNC_URING_OTHER] = "uncovered_uring_other",
    [FL_UNC_URING_NOTRACE] = "uncovered_uring_untraced",
    [FL_UNC_HINT] = "uncovered_fadvise_readahead",
};

/* The named counters: kernel ones, then user-space ones. */
static size_t counters(const struct fl_result *r, struct trace_counter *c)
{
	size_t n = 0;

	c[n++] = (struct trace_counter){"dropped", dropped(r)};
	for (int k = 0; k < FL_STAT__COUNT; k++)
		c[n++] = (struct trace_counter){stat_names[k], r->k[k]};
	c[n++] = (struct trace_counter){"dropped_nested", r->nested};
	c[n++] = (struct trace_counter){"dropped_ring_holes", r->holes};
	c[n++] = (struct trace_counter){"dropped_unwritten", r->unwritten};
	c[n++] = (struct trace_counter){"unfinished", r->ds.unfinished};
	c[n++] = (struct trace_counter){"out_of_order", r->ds.out_of_order};
	c[n++] = (struct trace_counter){"paths_missing", r->ds.names_missing};
	c[n++] = (struct trace_counter){"paths_unknown", r->fs.path_unknown};
	c[n++] = (struct trace_counter){"files", r->fs.files};
	c[n++] = (struct trace_counter){"files_name_only", r->fs.name_only};
	c[n++] = (struct trace_counter){"files_outside", r->fs.outside};
	c[n++] = (struct trace_counter){"calls_outside", r->ds.outside};
	return n;
}

static void print_json(const struct fl_opts *o, const struct fl_bpf *b, const struct fl_result *r,
		       bool ok)
{
	struct trace_counter c[FL_STAT__COUNT + 16];
	size_t n = counters(r, c);

	printf("{\"file\":");
	json_str(stdout, o->c.out);
	printf(",\"ok\":%s,\"level\":\"file\",\"syscalls\":\"%s\","
	       "\"io_uring\":%s,\"start_files\":\"%s\",\"duration_s\":%.3f,\"events\":%llu,"
	       "\"io_bytes\":%llu,\"trace_bytes\":%llu,\"bytes_per_event\":%.2f,"
	       "\"pid_exited\":%s,\"mounts_changed\":%s,\"uncovered\":%llu,"
	       "\"drain_priority\":\"%s\","
	       "\"ring_peak\":%.3f,\"drain_gap_max_ms\":%.1f,\"buffer_peak_bytes\":%llu",
	       ok ? "true" : "false", b->raw ? "raw" : "tracepoint",
	       b->uring ? "true" : "false", b->iter ? "iter" : "proc", r->elapsed_ns / 1e9,
	       (unsigned long long)r->ds.events, (unsigned long long)r->ds.bytes_io,
	       (unsigned long long)r->trace_bytes,
	       r->ds.events ? (double)r->trace_bytes / r->ds.events : 0.0,
	       r->pid_exited ? "true" : "false", r->mounts_changed ? "true" : "false",
	       (unsigned long long)uncovered(r),
	       r->prio == REC_PRIO_FIFO ? "fifo" : r->prio == REC_PRIO_NICE ? "nice" : "inherited",
	       r->cs.ring_peak, r->cs.gap_max_ns / 1e6, (unsigned long long)r->cs.buffer_peak);
	for (size_t i = 0; i < n; i++)
		printf(",\"%s\":%llu", c[i].name, (unsigned long long)c[i].value);
	printf("}\n");
}

/* The processes to record, for the start line. */
static void who(const struct fl_opts *o, size_t ntgids, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (o->c.pid)
		n += snprintf(buf + n, len - n, "pid %u and %zu below it", o->c.pid, ntgids - 1);
	if (o->c.comm && n < len)
		n += snprintf(buf + n, len - n, "%scomm %s", n ? ", " : "", o->c.comm);
	if (o->c.cgroup && n < len)
		n += snprintf(buf + n, len - n, "%scgroup %s", n ? ", " : "", o->c.cgroup);
	if (!n)
		n += snprintf(buf, len, "every process");
	if (o->under[0] && n < len)
		snprintf(buf + n, len - n, ", files under %s", o->under);
}

static int prepare(struct fl_opts *o, uint32_t *tgids, size_t *ntgids, int *cgfd, int *pidfd)
{
	if (o->c.pid) {
		if (kill((pid_t)o->c.pid, 0) && errno == ESRCH) {
			cli_error("--pid %u: no such process", o->c.pid);
			return -ESRCH;
		}
		*pidfd = syscall(SYS_pidfd_open, o->c.pid, 0);
		*ntgids = find_tgids(o->c.pid, tgids, MAX_TGIDS);
	}
	if (o->c.cgroup) {
		*cgfd = open(o->c.cgroup, O_RDONLY | O_DIRECTORY);
		if (*cgfd < 0 || fl_cgroup_rel(o->c.cgroup, o->cgroup_rel, sizeof(o->cgroup_rel))) {
			const char *why = *cgfd < 0 ? strerror(errno) : "not in a cgroup v2 mount";
			char shown[CLI_SHOWN_LEN];

			cli_error("--cgroup %s: %s (give a cgroup v2 directory, e.g. "
				  "/sys/fs/cgroup/system.slice)",
				  cli_shown(shown, o->c.cgroup), why);
			return -EINVAL;
		}
	}
	return 0;
}

int cmd_record_file(int argc, char **argv)
{
	static uint32_t tgids[MAX_TGIDS];
	static struct trace_meta meta;
	static struct fl_opts o;
	struct fl_result r = {0};
	struct fl_bpf b = {0};
	struct rec_rings rg = {0};
	struct fl_files *files = NULL;
	struct sigaction sa = {.sa_handler = on_signal};
	struct fl_loop l = {.b = &b, .rg = &rg, .o = &o, .pidfd = -1, .cl = {.map_fd = -1}};
	struct trace_counter cs[FL_STAT__COUNT + 16];
	size_t ntgids = 0;
	int cgfd = -1, err, rc = EXIT_RUNTIME;
	char tiers[160], whom[4600];
	uint64_t genesis;

	memset(&o, 0, sizeof(o));
	err = parse_args(argc, argv, &o);
	if (err)
		return err > 0 ? EXIT_OK : EXIT_USAGE;
	if (rec_check_env("CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN for tracefs"))
		return EXIT_RUNTIME;
	l.ncpu = libbpf_num_possible_cpus();
	if (l.ncpu <= 0) {
		cli_error("cannot count the CPUs: %s", strerror(-l.ncpu));
		return EXIT_RUNTIME;
	}
	if (rec_size_rings(&o.c, l.ncpu, sizeof(struct fl_rec)))
		return EXIT_USAGE;
	if (prepare(&o, tgids, &ntgids, &cgfd, &l.pidfd))
		goto out;
	if (fl_bpf_load(&b, &o, l.ncpu, cgfd))
		goto out;
	for (size_t i = 0; i < ntgids; i++)
		fl_bpf_add_tgid(&b, tgids[i]);

	trace_meta_init(&meta, "record");
	meta.level = TRACE_LEVEL_FILE;
	{
		size_t n = argv_join_buf(meta.options, sizeof(meta.options), "ioreel", argc, argv);

		if (n < sizeof(meta.options))
			snprintf(meta.options + n, sizeof(meta.options) - n, " (%s)",
				 fl_bpf_tiers(&b, tiers, sizeof(tiers)));
	}
	/* t = 0 of the trace is this instant, on both clocks (bpf_ktime_get_ns is MONOTONIC). */
	meta.genesis_realtime_ns = now_real_ns();
	genesis = now_mono_ns();
	l.w = trace_writer__open(o.c.out, &meta, NULL);
	if (!l.w) {
		cli_error("cannot create %s: %s", o.c.out, outfile_strerror(errno));
		goto out;
	}
	if (rec_cpuload_init(&l.cl, b.cpu ? bpf_map__fd(b.skel->maps.oncpu_cpus) : -1, genesis)) {
		cli_error("out of memory for the CPU load");
		goto out;
	}
	files = l.files = fl_files__new(l.w, o.under);
	l.d = files ? fl_drain__new(l.w, files, genesis, fl_bpf_names_poll, &b) : NULL;
	if (!l.d || fl_bpf_names(&b, l.d)) {
		cli_error("out of memory for the file table and the reorder buffer");
		goto out;
	}
	err = rec_rings_open_sized(bpf_map__fd(b.skel->maps.ring_ctl),
				   bpf_map__fd(b.skel->maps.ring_buf), l.ncpu, o.c.ring_shift,
				   sizeof(struct fl_rec), &rg);
	if (err) {
		cli_error("mapping %d rings of %llu bytes: %s (lower --ring-size?)", l.ncpu,
			  (unsigned long long)o.c.ring_size, strerror(-err));
		goto out;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/*
	 * The terminal of a recording started over ssh going away: a clean stop, as SIGTERM (by
	 * default it killed the recorder, leaving a trace without its index and counters).
	 */
	cli_catch_hangup(&sa);
	signal(SIGPIPE, SIG_IGN);
	/* Calls begun from now on are recorded; files open before are read right after, so a
	 * file opened in between is seen both ways (file_drain.c keeps it once). */
	fl_bpf_start(&b);
	fl_bpf_names_poll(&b);
	rec_rings_drain(&rg, fl_drain__push, l.d, NULL);
	fl_bpf_snapshot(&b, &o, l.d, tgids, ntgids);
	err = rec_collect__start(&l.c,
				 &(struct rec_collect_src){ .rg = &rg, .oldest = pending_oldest,
							    .ctx = &b },
				 o.c.keep_priority);
	if (err) {
		cli_error("starting the drain thread: %s", strerror(-err));
		goto out;
	}
	r.prio = rec_collect__priority(l.c, NULL);
	rec_collect__warn(l.c);
	if (!o.c.quiet) {
		who(&o, ntgids, whom, sizeof(whom));
		fprintf(stderr, "ioreel record: %s (%s) at file level\n", whom, tiers);
	}

	run_loop(&l, &r);
	/* the CPU load ends at the stop: detaching the per-syscall tracepoints (finish) waits
	 * for RCU grace periods, seconds in all (file_load.c), and is not the recording's time */
	int lerr = r.werr ? 0 : rec_cpuload_tick(&l.cl, l.w, now_mono_ns(), true);
	finish(&l, &r);
	if (!r.werr)
		r.werr = lerr; /* after finish, which releases the calls unless the writer failed */
	if (!r.werr) /* the last chunk: a full disk there stops as anywhere, its calls counted */
		r.werr = trace_writer__flush(l.w);
	if (r.werr)
		r.unwritten = rec_unwritten(l.w, r.ds.events, r.ds.pending);
	trace_writer__set_counters(l.w, cs, counters(&r, cs));
	{
		struct trace_stats st = {
		    .events = r.ds.events,
		    .dropped = dropped(&r),
		    .dropped_reserve = r.k[FL_DROP_RING],
		    .dropped_inflight = r.k[FL_DROP_PENDING],
		    .end_ns = now_mono_ns() - genesis,
		};

		if (r.werr) {
			rec_close_failed(l.w, &st, o.c.out, r.werr, r.unwritten);
		} else {
			err = trace_writer__close(l.w, &st);
			if (err) {
				cli_error("closing %s: %s", o.c.out, strerror(-err));
				r.werr = err;
			}
		}
		l.w = NULL;
	}
	if (!r.werr) {
		struct stat sb;

		if (stat(o.c.out, &sb) == 0)
			r.trace_bytes = sb.st_size;
		rc = EXIT_OK;
	}
	if (!o.c.quiet && !r.werr)
		fprintf(stderr,
			"ioreel record: %llu events, %llu files, %llu dropped%s, %llu "
			"uncovered, %s written%s%s%s\n",
			(unsigned long long)r.ds.events, (unsigned long long)r.fs.files,
			(unsigned long long)dropped(&r),
			rec_drops_why(cs, counters(&r, cs), whom, sizeof(whom)),
			(unsigned long long)uncovered(&r), o.c.out,
			r.max_size ? " (stopped at --max-size)" : "",
			r.pid_exited ? " (the process exited)" : "",
			stop_signal ? " (stopped by signal)" : "");
	if (!r.werr)
		rec_ring_warn(&o.c, r.k[FL_DROP_RING], &r.cs, "calls");
	if (o.c.json)
		print_json(&o, &b, &r, rc == EXIT_OK);
out:
	if (l.w)
		trace_writer__abort(l.w);
	rec_collect__free(l.c); /* before the rings and the maps it reads */
	rec_rings_close(&rg);
	fl_drain__free(l.d);
	rec_cpuload_free(&l.cl);
	fl_files__free(files);
	fl_bpf_close(&b);
	if (cgfd >= 0)
		close(cgfd);
	if (l.pidfd >= 0)
		close(l.pidfd);
	return rc;
}
