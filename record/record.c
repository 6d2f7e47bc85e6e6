// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ioreel record: loads bpf/record.bpf.c; a drain thread at a raised priority empties its
 * per-CPU rings (collect.c), and this thread orders the I/Os by queue time and writes them to
 * a trace, flushing a chunk once a second so a kill -9 loses at most that second. Kernel-side
 * drops are read from the per-CPU stats map and reported live, in the trace's stats and in
 * --json.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "ioreel.h"
#include "util/argv.h"
#include "util/cli.h"
#include "util/json.h"
#include "util/outfile.h"
#include "record/common.h"
#include "record/record.h"
#include "record/record_int.h"
#include "record/file_int.h"
#include "record/cpuload.h"
#include "record.skel.h"

#define POLL_MS 10 /* also the CPU load's interval (record/cpuload.h) */
#define STOP_WAIT_NS (500ULL * 1000000ULL) /* how long in-flight I/Os may finish at the end */

struct rec_totals {
	uint64_t drop_reserve, drop_inflight, merged, unseen_end;
	/* Runs the kernel skipped because the same program was already running on that CPU (an
	 * interrupt nested in it): an I/O whose queue was skipped is lost (counted as dropped);
	 * one whose completion was skipped stays in the table and ends as unfinished or stale. */
	uint64_t nested_queue, nested_other;
};

static volatile sig_atomic_t stop_signal;

int (*record_genesis_hook)(uint64_t *mono_ns, uint64_t *realtime_ns,
			   void (*arm)(void *arm_ctx, uint64_t mono_ns), void *arm_ctx);

/* Track every I/O queued from t = 0 (CLOCK_MONOTONIC ns) on: the programs compare each I/O's
 * queue time with it, so a genesis in the future (the fleet's) is met exactly, not when this
 * process wakes for it. The rings hold what comes before the drain thread starts. */
static void arm_tracking(void *ctx, uint64_t genesis_ns)
{
	struct record_bpf *skel = ctx;

	skel->bss->track_from = genesis_ns;
	skel->bss->stopping = 0;
}

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ioreel record [-d DEV]... -o FILE.ioreel [options]\n"
		"\n"
		"Records the block I/O of devices with eBPF until SIGINT/SIGTERM/SIGHUP or a\n"
		"limit.\n"
		"\n"
		"  -d, --device DEV     /dev/X, a partition, or MAJ:MIN (repeatable; none = every disk)\n"
		"  -o, --output FILE    trace to write (created 0600)\n"
		"      --duration T     stop after T (\"60\", \"1.5s\", \"10m\")\n"
		"      --max-size SIZE  stop when the trace reaches SIZE (\"512m\", \"2g\")\n"
		"      --pid PID        only I/O submitted by process PID (stops when it exits)\n"
		"      --comm NAME      only I/O submitted by tasks named NAME\n"
		"      --cgroup PATH    only I/O submitted from cgroup v2 PATH (or below)\n"
		"      --level L        bio, rq or auto (default: rq for blk-mq disks, else bio);\n"
		"                       file: the calls processes make on files instead (see\n"
		"                       ioreel record --level file --help)\n"
		"      --attach MODE    tp_btf, raw_tp or auto (default: tp_btf, and raw_tp if\n"
		"                       tp_btf fails to load or attach on this kernel)\n"
		"      --inflight N     I/Os tracked in flight at once, 64 to 4194304\n"
		"                       (default 16384)\n"
		"      --ring-size SIZE ring of completed I/Os per CPU, a power of two, 4k to\n"
		"                       1g (default 16m, 256m shared past 16 CPUs; 80 B per\n"
		"                       I/O, drained every 1-20 ms)\n"
		"      --keep-priority  run the drain thread at the priority ioreel was started with\n"
		"                       (default: real-time SCHED_FIFO 1, or nice -20 where that is\n"
		"                       refused, so busy applications cannot crowd it off the CPUs\n"
		"                       and overflow the rings; it only copies 72 bytes per I/O)\n"
		"      --cpu            record each thread's on-CPU time between its calls and the\n"
		"                       host's CPU load every 10 ms, for replay --cpu replay (a\n"
		"                       program on every context switch of the host: see\n"
		"                       record/README.md for its cost)\n"
		"  -q, --quiet          no status line\n"
		"      --json           print final statistics as JSON on stdout\n"
		"\n"
		"Levels: bio is what the filesystem or program asked (before merges), rq is what the\n"
		"device got (after merges, with issue time). See record/LEVELS.md.\n"
		"Attach modes: tp_btf programs read kernel memory directly (the cheapest); raw_tp\n"
		"programs read it with bpf_probe_read_kernel, slower per I/O but loadable where\n"
		"tp_btf is not. --json says which one ran (\"attach\").\n"
		"\n"
		"examples:\n"
		"  ioreel record -d /dev/nvme0n1 -o prod.ioreel --duration 60\n"
		"  ioreel record -d /dev/md0 -d 8:16 -o db.ioreel --comm postgres --json\n"
		"  ioreel record -d /dev/sda2 -o part.ioreel --level bio --max-size 1g\n"
		"  ioreel record -d /dev/vda -o vm.ioreel --attach raw_tp\n");
}

#define HELP "ioreel record --help"

static int parse_args(int argc, char **argv, struct rec_opts *o)
{
	enum { O_LEVEL = REC_O__NEXT, O_ATTACH };
	static const struct option lo[] = {
		REC_COMMON_OPTIONS,
		{ "device", required_argument, 0, 'd' },
		{ "level", required_argument, 0, O_LEVEL },
		{ "attach", required_argument, 0, O_ATTACH },
		{ 0 }
	};
	const char *level = NULL, *attach = NULL;
	int c, r;

	o->c.inflight = 16384;
	/* 131,072 I/Os a CPU: 0.4-0.7 s of tests/integration/record_saturation.sh, whose
	 * completions bunch on one CPU. A CI run of it filled a 4 MiB ring (3 % dropped at 254k
	 * IOPS): the rings went unread for longer than the 110-170 ms those held. */
	o->c.ring_size = 16 << 20;
	optind = 1;
	/* ':' first: getopt_long says nothing, cli_getopt_error says it in one line */
	while ((c = getopt_long(argc, argv, ":d:" REC_SHORT_OPTIONS, lo, NULL)) != -1) {
		r = rec_common_opt(c, optarg, &o->c, lo, HELP);
		if (r < 0)
			return r;
		if (r)
			continue;
		switch (c) {
		case 'd':
			if (o->ndevs == TRACE_MAX_DEVS) {
				cli_error("at most %d devices", TRACE_MAX_DEVS);
				return -EINVAL;
			}
			o->devs[o->ndevs++] = optarg;
			break;
		case O_LEVEL:
			if (cli_set_once(&level, "--level", optarg))
				return -EINVAL;
			if (!strcmp(optarg, "bio"))
				o->level = REC_REQ_BIO;
			else if (!strcmp(optarg, "rq"))
				o->level = REC_REQ_RQ;
			else if (!strcmp(optarg, "auto"))
				o->level = REC_REQ_AUTO;
			else
				return rec_opt_bad(lo, c, optarg, "bio, rq, auto or file", HELP);
			break;
		case O_ATTACH:
			if (cli_set_once(&attach, "--attach", optarg))
				return -EINVAL;
			if (!strcmp(optarg, "auto"))
				o->attach = REC_ATTACH_AUTO;
			else if (!strcmp(optarg, "tp_btf"))
				o->attach = REC_ATTACH_TP_BTF;
			else if (!strcmp(optarg, "raw_tp"))
				o->attach = REC_ATTACH_RAW_TP;
			else
				return rec_opt_bad(lo, c, optarg, "tp_btf, raw_tp or auto", HELP);
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			cli_getopt_error(c, argv, lo, "record");
			return -EINVAL;
		}
	}
	return rec_common_check(&o->c, argc, argv);
}

/* Sum of one per-CPU slot of the stats map. */
static uint64_t stat_sum(int fd, uint32_t slot, int ncpu)
{
	uint64_t vals[ncpu], sum = 0;

	if (bpf_map_lookup_elem(fd, &slot, vals))
		return 0;
	for (int i = 0; i < ncpu; i++)
		sum += vals[i];
	return sum;
}

static void read_totals(struct record_bpf *skel, int ncpu, struct rec_totals *t)
{
	int fd = bpf_map__fd(skel->maps.stats);

	t->drop_reserve = stat_sum(fd, REC_DROP_RESERVE, ncpu);
	t->drop_inflight = stat_sum(fd, REC_DROP_INFLIGHT, ncpu);
	t->merged = stat_sum(fd, REC_STAT_MERGED, ncpu);
	t->unseen_end = stat_sum(fd, REC_STAT_UNSEEN_END, ncpu);
	t->nested_queue = t->nested_other = 0;
	for (struct bpf_program *p = bpf_object__next_program(skel->obj, NULL); p;
	     p = bpf_object__next_program(skel->obj, p)) {
		struct bpf_prog_info info = { 0 };
		uint32_t len = sizeof(info);
		int pfd = bpf_program__fd(p);

		if (pfd < 0 || bpf_obj_get_info_by_fd(pfd, &info, &len))
			continue;
		if (p == skel->progs.bio_queue || p == skel->progs.rq_start ||
		    p == skel->progs.raw_bio_queue || p == skel->progs.raw_rq_start)
			t->nested_queue += info.recursion_misses;
		else
			t->nested_other += info.recursion_misses;
	}
}

/* The trace's options say which programs recorded it: the format has no field for it. */
static void note_attach(char *buf, size_t len, bool raw, bool io_start)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, " (attach: %s%s)", raw ? "raw_tp" : "tp_btf",
		 io_start ? "" : ", no block_io_start");
}

static uint64_t ktime_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int resolve_targets(const struct rec_opts *o, struct rec_target *t, int *nt)
{
	int n;

	if (!o->ndevs) {
		n = rec_device_all(o->level, t, TRACE_MAX_DEVS);
		if (n <= 0) {
			cli_error("no block device with a size in /sys/block to record");
			return -ENODEV;
		}
		if (n == TRACE_MAX_DEVS)
			cli_warn("recording the first %d disks in /sys/block only; name the ones you "
				 "want with -d",
				 n);
		*nt = n;
		return 0;
	}
	for (int i = 0; i < o->ndevs; i++) {
		int err = rec_device_resolve(o->devs[i], o->level, &t[i]);

		if (err == -EOPNOTSUPP) {
			cli_error("%s is bio-based (no blk-mq request queue): it has no request "
				  "level; use --level bio or auto",
				  o->devs[i]);
			return err;
		}
		if (err) {
			char shown[CLI_SHOWN_LEN];

			cli_error("device %s: %s (give /dev/NAME, a partition or MAJ:MIN of a "
				  "block device, see lsblk)",
				  cli_shown(shown, o->devs[i]), strerror(-err));
			return err;
		}
	}
	*nt = o->ndevs;
	return 0;
}

static int open_cgroup(const struct rec_opts *o, int *cgfd)
{
	if (!o->c.cgroup)
		return 0;
	*cgfd = open(o->c.cgroup, O_RDONLY | O_DIRECTORY);
	if (*cgfd < 0) {
		char shown[CLI_SHOWN_LEN];
		int err = errno;

		cli_error("--cgroup %s: %s (give a cgroup v2 directory, e.g. "
			  "/sys/fs/cgroup/system.slice)",
			  cli_shown(shown, o->c.cgroup), strerror(err));
		return -err;
	}
	return 0;
}

/* Defined below with struct rec_result. */
struct rec_result;
static size_t counters(const struct rec_result *r, struct trace_counter *c);
static uint64_t dropped_total(const struct rec_result *r);

static void status_line(const struct rec_result *r, uint64_t elapsed_ns, double iops,
			double mbps);

struct rec_result {
	struct rec_drain_stats ds;
	struct rec_totals tt;
	struct rec_collect_stats cs;
	enum rec_prio prio; /* what the drain thread ran at */
	uint64_t stale, unfinished, trace_bytes, elapsed_ns;
	uint64_t unwritten; /* given to the writer after it failed: lost (rec_unwritten) */
	int werr;     /* writer error that ended the recording (-ENOSPC ...) */
	bool max_size; /* stopped at --max-size */
	bool pid_exited; /* the --pid process exited, which ended the recording */
	int gone;      /* a -d device that went away and ended the recording, or -1 */
	const char *gone_why;
};

/* The drain thread's view of the in-flight table (rec_collect_src.oldest). */
static uint64_t table_oldest(void *tab, uint64_t now, uint64_t *stale)
{
	return rec_table_oldest(tab, now, stale, NULL);
}

static int drain_release(void *d, uint64_t before)
{
	return rec_drain__release(d, before);
}

/* Whether the process of a pidfd has exited (the pidfd reads ready then). */
static bool process_exited(int pidfd)
{
	return poll(&(struct pollfd){ .fd = pidfd, .events = POLLIN }, 1, 0) == 1;
}

/* Takes what the drain thread collected, releases it in queue-time order, flushes once a
 * second, until a signal or a limit. The drain thread does not wait for this one. */
static void run_loop(struct record_bpf *skel, struct rec_collect *c, struct rec_drain *d,
		     struct trace_writer *w, const struct rec_opts *o, int ncpu,
		     struct rec_cpuload *cl, const struct rec_target *t, int nt, int pidfd,
		     struct rec_result *r)
{
	uint64_t start = ktime_now(), tick = start + 1000000000ULL;
	uint64_t last_events = 0, last_bytes = 0, last_t = start, warned = 0;

	while (!stop_signal) {
		struct timespec poll = { 0, POLL_MS * 1000000L };
		uint64_t now;
		int err;

		nanosleep(&poll, NULL); /* a signal cuts it short */
		now = ktime_now();
		err = rec_collect__deliver(c, rec_drain__push, drain_release, d);
		if (!err)
			err = rec_drain__error(d);
		if (!err)
			err = rec_cpuload_tick(cl, w, now, false);
		if (err) {
			r->werr = err;
			break;
		}
		if (now >= tick) {
			double dt = (now - last_t) / 1e9;

			tick += 1000000000ULL;
			if (tick < now)
				tick = now + 1000000000ULL;
			err = trace_writer__flush(w);
			if (err) {
				r->werr = err;
				break;
			}
			rec_drain__stats(d, &r->ds);
			read_totals(skel, ncpu, &r->tt);
			r->stale = rec_collect__stale(c);
			r->trace_bytes = trace_writer__bytes(w);
			if (!o->c.quiet)
				status_line(r, now - start, (r->ds.events - last_events) / dt,
					    (r->ds.bytes_io - last_bytes) / dt / 1e6);
			last_events = r->ds.events;
			last_bytes = r->ds.bytes_io;
			last_t = now;
			/*
			 * A device detached or removed: its dev_t may come to name another one,
			 * whose I/O would be recorded as the first one's. Named with -d, the
			 * recording stops there; of every disk, the others go on.
			 */
			for (int i = 0; i < nt && r->gone < 0; i++) {
				const char *why = warned >> i & 1 ? NULL : rec_device_gone(&t[i]);

				if (why && o->ndevs) {
					r->gone = i;
					r->gone_why = why;
				} else if (why) {
					warned |= 1ULL << i;
					cli_warn("%s (%u:%u) %s after %.1f s: I/O of that number "
						 "recorded from now on may be of another device",
						 t[i].td.name, t[i].td.major, t[i].td.minor, why,
						 (now - start) / 1e9);
				}
			}
			if (r->gone >= 0)
				break;
			if (o->c.max_size && r->trace_bytes >= o->c.max_size) {
				r->max_size = true;
				break;
			}
		}
		if (o->c.duration_ns && now - start >= o->c.duration_ns)
			break;
		/*
		 * As at file level: nothing more of the --pid process can come, and its PID, once
		 * reused, would bring another process's I/O into the trace.
		 */
		if (pidfd >= 0 && process_exited(pidfd)) {
			r->pid_exited = true;
			break;
		}
	}
	if (!o->c.quiet && isatty(2))
		fputc('\n', stderr);
	r->elapsed_ns = ktime_now() - start;
}

/*
 * Stops the drain thread and takes what it held, stops tracking new I/O, gives the ones in
 * flight a moment to complete (so they are recorded, not lost), then detaches and drains
 * everything on this thread. What is still in flight after that is written without a
 * completion and counted as unfinished (not dropped: it happened, and is in the trace).
 */
static void finish(struct record_bpf *skel, struct rec_collect *c, struct rec_table *tab,
		   struct rec_rings *rg, struct rec_drain *d, int ncpu, struct rec_result *r)
{
	uint64_t until, left = 0;
	struct timespec wait = { 0, 5 * 1000000L };
	int err = rec_collect__stop(c, rec_drain__push, drain_release, d, &r->cs);

	if (err && !r->werr)
		r->werr = err;
	r->stale = r->cs.stale;
	skel->bss->stopping = 1;
	until = ktime_now() + STOP_WAIT_NS;
	do {
		nanosleep(&wait, NULL);
		rec_rings_drain(rg, rec_drain__push, d, NULL);
		rec_table_oldest(tab, ktime_now(), &r->stale, &left);
	} while (left && ktime_now() < until);
	record_bpf__detach(skel);
	rec_rings_drain(rg, rec_drain__push, d, NULL);
	rec_table_oldest(tab, ktime_now(), &r->stale, NULL);
	/* Queued and never seen to complete (still in flight, or ended by the kernel without a
	 * completion event): written with no completion time, as ended_unseen ones are. */
	r->unfinished = rec_table_each(tab, rec_drain__push, d);
	if (!r->werr)
		r->werr = rec_drain__release(d, UINT64_MAX);
	rec_drain__stats(d, &r->ds);
	read_totals(skel, ncpu, &r->tt);
	r->tt.drop_reserve += rg->holes;
}

static uint64_t dropped_total(const struct rec_result *r)
{
	return r->tt.drop_reserve + r->tt.drop_inflight + r->tt.nested_queue + r->stale +
	       r->unwritten;
}

/* The trace's counters (formats/FORMAT.md, counters frame): every cause of a drop as
 * dropped_CAUSE (they sum to dropped), then what was seen and not a drop. */
#define REC_COUNTERS 12
static size_t counters(const struct rec_result *r, struct trace_counter *c)
{
	size_t n = 0;

	c[n++] = (struct trace_counter){ "dropped", dropped_total(r) };
	c[n++] = (struct trace_counter){ "dropped_ring", r->tt.drop_reserve };
	c[n++] = (struct trace_counter){ "dropped_inflight", r->tt.drop_inflight };
	c[n++] = (struct trace_counter){ "dropped_stale", r->stale };
	c[n++] = (struct trace_counter){ "dropped_nested", r->tt.nested_queue };
	c[n++] = (struct trace_counter){ "dropped_unwritten", r->unwritten };
	c[n++] = (struct trace_counter){ "unfinished", r->unfinished };
	c[n++] = (struct trace_counter){ "nested_other", r->tt.nested_other };
	c[n++] = (struct trace_counter){ "merged", r->tt.merged };
	c[n++] = (struct trace_counter){ "ended_unseen", r->tt.unseen_end };
	c[n++] = (struct trace_counter){ "out_of_order", r->ds.out_of_order };
	c[n++] = (struct trace_counter){ "outside_partitions", r->ds.unmatched };
	return n;
}

static void status_line(const struct rec_result *r, uint64_t elapsed_ns, double iops,
			double mbps)
{
	struct trace_counter c[REC_COUNTERS];
	char b[32], why[160];

	fprintf(stderr, "%s%6.1fs %9.0f IOPS %8.1f MB/s  events %llu  drops %llu%s  trace %s%s",
		isatty(2) ? "\r" : "", elapsed_ns / 1e9, iops, mbps,
		(unsigned long long)r->ds.events, (unsigned long long)dropped_total(r),
		rec_drops_why(c, counters(r, c), why, sizeof(why)),
		fmt_bytes(r->trace_bytes, b, sizeof(b)), isatty(2) ? "   " : "\n");
}

static void print_json(const struct rec_opts *o, const struct rec_target *t, int nt,
		       const struct rec_result *r, bool ok, bool raw)
{
	printf("{\"file\":");
	json_str(stdout, o->c.out);
	printf(",\"ok\":%s,\"attach\":\"%s\",\"duration_s\":%.3f,"
	       "\"events\":%llu,\"dropped\":%llu,"
	       "\"dropped_reserve\":%llu,\"dropped_inflight\":%llu,\"dropped_stale\":%llu,"
	       "\"unfinished\":%llu,\"nested_queue\":%llu,\"nested_other\":%llu,"
	       "\"merged\":%llu,\"ended_unseen\":%llu,\"out_of_order\":%llu,"
	       "\"outside_partitions\":%llu,\"io_bytes\":%llu,\"trace_bytes\":%llu,"
	       "\"bytes_per_event\":%.2f,\"iops\":%.1f,\"drain_priority\":\"%s\","
	       "\"ring_peak\":%.3f,\"drain_gap_max_ms\":%.1f,\"buffer_peak_bytes\":%llu,"
	       "\"pid_exited\":%s,\"devices\":[",
	       ok ? "true" : "false", raw ? "raw_tp" : "tp_btf", r->elapsed_ns / 1e9,
	       (unsigned long long)r->ds.events, (unsigned long long)dropped_total(r),
	       (unsigned long long)r->tt.drop_reserve, (unsigned long long)r->tt.drop_inflight,
	       (unsigned long long)r->stale, (unsigned long long)r->unfinished,
	       (unsigned long long)r->tt.nested_queue, (unsigned long long)r->tt.nested_other,
	       (unsigned long long)r->tt.merged, (unsigned long long)r->tt.unseen_end,
	       (unsigned long long)r->ds.out_of_order,
	       (unsigned long long)r->ds.unmatched, (unsigned long long)r->ds.bytes_io,
	       (unsigned long long)r->trace_bytes,
	       r->ds.events ? (double)r->trace_bytes / r->ds.events : 0.0,
	       r->elapsed_ns ? r->ds.events / (r->elapsed_ns / 1e9) : 0.0,
	       r->prio == REC_PRIO_FIFO ? "fifo" : r->prio == REC_PRIO_NICE ? "nice" : "inherited",
	       r->cs.ring_peak, r->cs.gap_max_ns / 1e6, (unsigned long long)r->cs.buffer_peak,
	       r->pid_exited ? "true" : "false");
	for (int i = 0; i < nt; i++) {
		printf("%s{\"name\":", i ? "," : "");
		json_str(stdout, t[i].td.name);
		printf(",\"dev\":\"%u:%u\",\"level\":\"%s\",\"size\":%llu}", t[i].td.major,
		       t[i].td.minor, rec_level_name(t[i].level),
		       (unsigned long long)t[i].td.size_bytes);
	}
	printf("]}\n");
}

/*
 * The trace written on a recorded device: the recorder leaves out the I/O it submits itself
 * (self_tgid), but the page cache's writeback of the trace is submitted by the kernel's flusher
 * threads, as the workload's is, and recorded. Not a loop (a few bytes of trace per I/O), but
 * not the workload's either: said; --pid, --comm or --cgroup leave it out.
 */
static void warn_own_writes(const struct rec_common *o, const struct rec_target *t, int nt)
{
	char dir[PATH_MAX];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", o->out);
	if (o->pid || o->comm || o->cgroup || stat(dirname(dir), &st))
		return;
	for (int i = 0; i < nt; i++)
		if (rec_device_holds(&t[i], st.st_dev)) {
			cli_warn("%s is on %s, a recorded device: the writeback of the trace "
				 "itself (by the kernel's flusher threads) will be in it; write it "
				 "elsewhere, or record with --pid or --comm to leave it out",
				 o->out, t[i].td.name);
			return;
		}
}

int cmd_record(int argc, char **argv)
{
	static struct rec_target t[TRACE_MAX_DEVS];
	static struct trace_meta meta;
	struct rec_opts o = { 0 };
	struct rec_result r = { .gone = -1 };
	struct record_bpf *skel = NULL;
	struct rec_rings rg = { 0 };
	struct trace_writer *w = NULL;
	struct rec_drain *d = NULL;
	struct rec_collect *c = NULL;
	struct rec_table tab = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct rec_cpuload cl = { .map_fd = -1 };
	int nt = 0, ncpu, cgfd = -1, pidfd = -1, err, rc = EXIT_RUNTIME;
	bool raw, io_start = true;
	uint64_t genesis;

	if (rec_wants_file_level(argc, argv))
		return cmd_record_file(argc, argv);
	err = parse_args(argc, argv, &o);
	if (err)
		return err > 0 ? EXIT_OK : EXIT_USAGE;
	if (rec_check_env("CAP_BPF, CAP_PERFMON and CAP_SYS_RESOURCE") || resolve_targets(&o, t, &nt))
		return EXIT_RUNTIME;
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0) {
		cli_error("cannot count the CPUs: %s", strerror(-ncpu));
		return EXIT_RUNTIME;
	}
	if (rec_size_rings(&o.c, ncpu, sizeof(struct rec_rec)))
		return EXIT_USAGE;
	rec_libbpf_log();
	if (open_cgroup(&o, &cgfd))
		goto out;
	if (rec_has_level(t, nt, REC_LEVEL_RQ) && !rec_kernel_has_io_start()) {
		io_start = false;
		if (!o.c.quiet)
			fprintf(stderr, "ioreel record: no block_io_start tracepoint (kernel "
				"before 6.5): requests are queued at block_rq_insert, or at "
				"block_rq_issue if never inserted\n");
	}
	skel = rec_load(&o, t, nt, ncpu, cgfd, io_start, &raw);
	if (!skel)
		goto out;
	err = rec_table_open(bpf_map__fd(skel->maps.slots), bpf_map__fd(skel->maps.inflight), &tab);
	if (err) {
		cli_error("mapping the in-flight table: %s", strerror(-err));
		goto out;
	}

	trace_meta_init(&meta, "record");
	argv_join_buf(meta.options, sizeof(meta.options), "ioreel", argc, argv);
	note_attach(meta.options, sizeof(meta.options), raw, io_start);
	for (int i = 0; i < nt; i++)
		trace_meta_add_device(&meta, &t[i].td);
	/* t = 0 of the trace is this instant, on both clocks (bpf_ktime_get_ns is MONOTONIC). */
	meta.genesis_realtime_ns = now_real_ns();
	genesis = ktime_now();
	if (!record_genesis_hook)
		arm_tracking(skel, genesis);
	else if (record_genesis_hook(&genesis, &meta.genesis_realtime_ns, arm_tracking, skel)) {
		cli_error("the recording was called off before it started");
		goto out;
	}
	w = trace_writer__open(o.c.out, &meta, NULL);
	if (!w) {
		cli_error("cannot create %s: %s", o.c.out, outfile_strerror(errno));
		goto out;
	}
	warn_own_writes(&o.c, t, nt);
	d = rec_drain__new(w, t, nt, genesis);
	if (!d) {
		cli_error("out of memory for the reorder buffer");
		goto out;
	}
	if (rec_cpuload_init(&cl, skel->rodata->oncpu_enabled ?
				  bpf_map__fd(skel->maps.oncpu_cpus) : -1, genesis)) {
		cli_error("out of memory for the CPU load");
		goto out;
	}
	if (!skel->rodata->oncpu_enabled && o.c.cpu)
		cli_warn("the raw_tp programs record no CPU time: a replay of this trace cannot "
			 "reproduce the CPU its threads used (replay --cpu idle)");
	err = rec_rings_open(bpf_map__fd(skel->maps.ring_ctl), bpf_map__fd(skel->maps.ring_buf),
			     ncpu, o.c.ring_shift, &rg);
	if (err) {
		cli_error("mapping %d rings of %llu bytes: %s (lower --ring-size?)", ncpu,
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
	err = rec_collect__start(&c,
				 &(struct rec_collect_src){ .rg = &rg, .oldest = table_oldest,
							    .ctx = &tab },
				 o.c.keep_priority);
	if (err) {
		cli_error("starting the drain thread: %s", strerror(-err));
		goto out;
	}
	r.prio = rec_collect__priority(c, NULL);
	rec_collect__warn(c);
	if (!o.c.quiet)
		for (int i = 0; i < nt; i++)
			fprintf(stderr, "ioreel record: %s (%u:%u) at %s level\n", t[i].td.name,
				t[i].td.major, t[i].td.minor, rec_level_name(t[i].level));

	if (o.c.pid) {
		pidfd = (int)syscall(SYS_pidfd_open, o.c.pid, 0);
		if (pidfd < 0 && errno == ESRCH)
			r.pid_exited = true; /* gone since the options were read */
	}
	if (!r.pid_exited)
		run_loop(skel, c, d, w, &o, ncpu, &cl, t, nt, pidfd, &r);
	/* the CPU load ends at the stop, not after the wait for the I/O in flight and the
	 * detach (finish) */
	int lerr = r.werr ? 0 : rec_cpuload_tick(&cl, w, ktime_now(), true);
	finish(skel, c, &tab, &rg, d, ncpu, &r);
	if (!r.werr)
		r.werr = lerr; /* after finish, which releases the I/O unless the writer failed */
	if (!r.werr) /* the last chunk: a full disk there stops as anywhere, its calls counted */
		r.werr = trace_writer__flush(w);
	if (r.werr)
		r.unwritten = rec_unwritten(w, r.ds.events, r.ds.pending);
	{
		struct trace_stats st = {
			.events = r.ds.events,
			.dropped = dropped_total(&r),
			.dropped_reserve = r.tt.drop_reserve,
			.dropped_inflight = r.tt.drop_inflight,
			.end_ns = ktime_now() - genesis,
		};

		struct trace_counter cs[REC_COUNTERS];

		r.trace_bytes = trace_writer__bytes(w);
		trace_writer__set_counters(w, cs, counters(&r, cs));
		if (r.werr) {
			rec_close_failed(w, &st, o.c.out, r.werr, r.unwritten);
		} else {
			err = trace_writer__close(w, &st);
			if (err) {
				cli_error("closing %s: %s", o.c.out, strerror(-err));
				r.werr = err;
			}
		}
		w = NULL;
	}
	if (!r.werr) {
		struct stat sb;

		if (stat(o.c.out, &sb) == 0)
			r.trace_bytes = sb.st_size;
		rc = EXIT_OK;
	}
	if (!r.werr && r.gone >= 0) {
		cli_error("%s (%u:%u) %s after %.1f s: the recording stopped there, %s holds the "
			  "%llu events before it", t[r.gone].td.name, t[r.gone].td.major,
			  t[r.gone].td.minor, r.gone_why, r.elapsed_ns / 1e9, o.c.out,
			  (unsigned long long)r.ds.events);
		rc = EXIT_RUNTIME;
	}
	if (!o.c.quiet && !r.werr) {
		struct trace_counter cs[REC_COUNTERS];
		char why[160];

		fprintf(stderr, "ioreel record: %llu events, %llu dropped%s, %s written%s%s%s\n",
			(unsigned long long)r.ds.events, (unsigned long long)dropped_total(&r),
			rec_drops_why(cs, counters(&r, cs), why, sizeof(why)), o.c.out,
			r.max_size ? " (stopped at --max-size)" : "",
			r.pid_exited ? " (the process exited)" : "",
			stop_signal ? " (stopped by signal)" : "");
	}
	if (!r.werr)
		rec_ring_warn(&o.c, r.tt.drop_reserve, &r.cs, "I/Os");
	if (o.c.json)
		print_json(&o, t, nt, &r, rc == EXIT_OK, raw);
out:
	if (w)
		trace_writer__abort(w);
	rec_collect__free(c); /* before the rings and the table it reads */
	rec_rings_close(&rg);
	rec_drain__free(d);
	rec_cpuload_free(&cl);
	rec_table_close(&tab);
	record_bpf__destroy(skel);
	if (cgfd >= 0)
		close(cgfd);
	if (pidfd >= 0)
		close(pidfd);
	return rc;
}
