// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `ioreel replay`: the verb's options, its messages and its report. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "analyze/analyze.h"
#include "ioreel.h"
#include "replay/engine/engine.h"
#include "replay/replay.h"
#include "util/argv.h"
#include "util/cli.h"
#include "util/outfile.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: ioreel replay TRACE --target PATH [options]\n"
"       ioreel replay FILE-TRACE --root DIR --allow-writes [options]\n"
"\n"
"Reissues the I/O of TRACE on a block device or file with its original timing, and reports\n"
"the target's latencies (as ioreel analyze) and the replay's own fidelity. A file-level\n"
"trace (record --level file) is replayed on its files, recreated under a directory.\n"
"\n"
"file-level traces:\n"
"      --root DIR           recreate the recorded files under DIR (sizes, data, holes as\n"
"                           recorded), then reissue every recorded thread's calls there:\n"
"                           reads, writes, fsync, fdatasync, sync_file_range, fallocate,\n"
"                           open/close with their flags (O_DIRECT, later fcntl F_SETFL),\n"
"                           dup, truncate, rename, unlink. DIR must be empty or prepared\n"
"                           by an earlier replay; nothing outside it is touched (paths\n"
"                           with \"..\" and symlinks are refused). Needs --allow-writes\n"
"      --strip DIR          the recorded directory --root stands for (default: the\n"
"                           deepest one holding every recorded file); a recorded path\n"
"                           outside it is refused\n"
"\n"
"targets:\n"
"  -t, --target PATH        device or file for every trace device not given by --map\n"
"  -m, --map DEV=PATH       the trace device named DEV (ioreel info TRACE) goes to PATH\n"
"      --size SIZE          create or grow a file target to SIZE, filled with data;\n"
"                           whole blocks of the device under it (512 B or 4 KiB)\n"
"      --offsets HOW        wrap (default), scale, or strict: for offsets beyond the target\n"
"      --buffered           through the page cache (default O_DIRECT); file level: opens\n"
"                           without the O_DIRECT the recording had\n"
"      --async-writes HOW   block level: the writes recorded as the kernel's writeback\n"
"                           makes them (no sync flag): direct (default: O_DIRECT, as sync\n"
"                           writes), or writeback (through the page cache, written back at\n"
"                           once: the device's writeback throttling and I/O scheduler see\n"
"                           async writes, as they did)\n"
"safety:\n"
"      --allow-writes       replay writes, discards and write-zeroes (destroys target data)\n"
"      --writes-as-reads    replay writes as reads of the same range\n"
"      --force              write even to a device with a signature (never to one in\n"
"                           use: mounted, held by md/dm, swap, another replay's)\n"
"      --prefill            before the clock starts, write once (random data) the regions\n"
"                           the trace reads, so reads hit written blocks (needs\n"
"                           --allow-writes; not timed). Without it, replay warns when\n"
"                           they were never written: file holes, fresh zram, loop devices\n"
"                           over sparse files read as zeroes from memory\n"
"      --no-prefill         no warning either: measure never-written space as it is\n"
"timing:\n"
"  -e, --engine NAME        io_uring, libaio, psync, threads (a thread per recorded\n"
"                           thread, making its own calls), null (no I/O). Default:\n"
"                           io_uring, or libaio for a device that refuses RWF_NOWAIT (zram,\n"
"                           md, dm); file level: io_uring, or threads where each recorded\n"
"                           thread is replayed by its own (--cpu, --cpu-wait) and for a\n"
"                           closed loop of plain calls one at a time per stream (fio's\n"
"                           sync engines: falloc, ftruncate, psync...)\n"
"      --null-latency TIME[,FLUSH]  engine null: each I/O completes TIME after it was\n"
"                           queued, flushes and syncs FLUSH after (a target slowed by a\n"
"                           known amount, for tests)\n"
"      --mode MODE          dep (default for recordings), timed (default for imported\n"
"                           traces), afap, closed (default for synthesized jobs), auto\n"
"                           dep: each I/O once the I/Os it waited for completed on the\n"
"                           target, plus the recorded think time (how would this\n"
"                           workload run there?); timed: each I/O at its recorded time,\n"
"                           the offered load (can the candidate absorb it?)\n"
"      --speed X            timed, dep: X times as fast (0.5 = half speed)\n"
"      --runtime TIME|trace no I/O is issued TIME after the start (those in flight\n"
"                           complete); trace: as long as the trace lasted (timed, dep).\n"
"                           A time-bound benchmark (pgbench -T) replayed onto a slower\n"
"                           target, as long as it ran: the rates of that run, warm-up\n"
"                           and all, and how far into the trace it got\n"
"      --iodepth N          afap: I/Os in flight (default 32)\n"
"      --max-inflight N     cap on I/Os in flight (timed, dep: default 1024, numjobs x\n"
"                           iodepth for a synthesized job with --rate-iops; closed: the\n"
"                           streams' depths together, at most 4096 unless raised here)\n"
"      --spin TIME          timed, dep: spin this long before each deadline (default 200us,\n"
"                           none in dep mode beside the host's load at block level),\n"
"                           yielding the CPU until the last 20us; 0: no spin\n"
"      --cpu HOW            idle: the I/O alone, on an idle replayer (the default, but\n"
"                           host where the calls wait for a CPU as recorded: --cpu-wait,\n"
"                           and in dep mode at block level, or at file level with libaio\n"
"                           or io_uring calls, where the trace holds the host's load);\n"
"                           replay (a trace with CPU data, recorded by ioreel record): each\n"
"                           recorded thread's calls made by a thread of its own that first\n"
"                           spends the CPU the recorded one spent since its previous call\n"
"                           (file level: engine threads; dep mode with io_uring or\n"
"                           libaio: a burner per thread, the I/O issued once burned),\n"
"                           and the load the host's other tasks put on its CPUs,\n"
"                           interval by interval; calls: the threads' own CPU only\n"
"                           (not yet closer to the real runs: bench/PREDICTION.md);\n"
"                           load: the other tasks' load only (the clients beside a\n"
"                           database), with the calls' recorded waits (--cpu-wait);\n"
"                           host: the whole recording host's load, the recorded threads'\n"
"                           CPU between their calls included, burned by load threads;\n"
"                           each recorded thread's calls made by a thread of its own\n"
"                           (not for libaio or io_uring calls: their engine),\n"
"                           which waits for the CPU the load takes (the device's kernel\n"
"                           threads too, as on the recording host), and with the\n"
"                           calls' recorded waits (--cpu-wait)\n"
"      --cpu-slice TIME     with the host's load (load threads): the scheduling thread's\n"
"                           scheduler slice (EEVDF, Linux 6.12 on; 100us to 100ms),\n"
"                           so that its yields and wake-ups do not wait behind the load\n"
"                           threads' turns; 0: the kernel's (the default).\n"
"                           bench/PREDICTION.md, \"The replayer beside the host's\n"
"                           load\": with --engine libaio --spin 0, the replay keeps the\n"
"                           recorded pace there\n"
"      --cpu-load-threads N with the host's load: the threads that burn it (1 to 256;\n"
"                           default: one per CPU, of the recording's and this host's)\n"
"      --cpu-load-chunk TIME  each load thread's burst between its pace sleeps (1us to\n"
"                           10ms; default 50us). More threads in shorter bursts (one per\n"
"                           recorded thread, their median time on a CPU) with --cpu-slice\n"
"                           100us: nearer the real calls' latencies on a busy host, the\n"
"                           pace a little behind (bench/PREDICTION.md, \"The load's shape\")\n"
"      --cpu-load-clock trace|progress  with the host's load: each recorded\n"
"                           interval's load burned at its time in the trace, or once\n"
"                           the application's threads have come that far (dep mode;\n"
"                           the default there), as a database's CPU goes with its work:\n"
"                           onto a slower stack it falls behind the trace, its CPU too\n"
"      --cpu-fill on|off|host  with the host's load (load threads): the replayer's own\n"
"                           CPU beyond what the recorded calls used inside them (its\n"
"                           scheduling, spins, hand-offs, the result trace), measured\n"
"                           each 10 ms, is burned that much less, so the host is as busy\n"
"                           as the recording's was, not busier; the report gives both.\n"
"                           host: every task's CPU on this host counts (other programs\n"
"                           running now, kernel threads beyond the recorded ones'), not\n"
"                           only the replayer's. Default: on at file level, off at block\n"
"                           level (bench/PREDICTION.md, \"The replayer's own CPU\")\n"
"      --cpu-wait HOW       recorded or none (file level, a trace recorded with --cpu):\n"
"                           a call whose thread waited for a CPU less than the recorded\n"
"                           one did waits the rest after it, inside its latency: the\n"
"                           recording host's CPU contention, measured, as a model. Default:\n"
"                           recorded in dep mode where the trace has the waits, on engine\n"
"                           threads (unless --engine names another one), its calls plain\n"
"                           system calls (no libaio, io_uring), without --cpu replay\n"
"                           or calls; else none. The report says which, and why\n"
"      --realtime           timed: run the scheduler SCHED_FIFO, so other tasks cannot push\n"
"                           deadlines back. Off by default: its spinning starves the kernel\n"
"                           threads that serve the target (loop, io-wq) on small machines\n"
"      --write-data KIND    random (default: incompressible, as fio writes) or pattern:\n"
"                           every 512-byte sector stamped with its offset, to verify where\n"
"                           writes landed (compresses well: not for compressing targets)\n"
"dependencies (--mode dep, see replay/README.md):\n"
"      --think-scale X      recorded think times x X (default 1: the same CPU); with\n"
"                           --cpu replay, the CPU part of them\n"
"      --dep-think-max TIME a longer gap waits for something outside the storage: keep\n"
"                           the trace's clock (default 10ms)\n"
"      --dep-xwin TIME      how far back another thread's flush may have woken an I/O\n"
"                           (default 1ms)\n"
"      --dep-eps TIME       a completion this close before an I/O did not wake it (2us)\n"
"      --dep-barrier WHOSE  which other threads' flush/FUA I/O may have woken a thread:\n"
"                           all (default), kthread (journal/log threads only), none\n"
"      --no-dep-overlap     no ordering of overlapping writes\n"
"      --dep-fallback MODE  timed or afap for a trace without completion times or thread\n"
"                           ids (imported logs); without it such a trace is refused\n"
"      --dep-group-commit on|off  a flush that comes due while another thread's flush\n"
"                           of the same device (file) that covers its writes is in flight\n"
"                           waits for that one instead of being issued (default off)\n"
"      --dep-absorb on|off  a background writer's write (kernel thread; file level: a\n"
"                           thread that only writes) is skipped when the same thread,\n"
"                           behind the trace, has a later write of the same range due\n"
"                           (default off)\n"
"      --dep-split on|off   a thread the recording shows waiting on another thread's flush\n"
"                           for its writes issues its own where that flush was issued\n"
"                           before they completed (default off)\n"
"      --dep-commit-lock on|off  a thread's writes and flush of a file (block level:\n"
"                           of the device) wait while another thread's are in flight,\n"
"                           and when they complete the first group waiting covers those\n"
"                           that came after the holder's recorded end, which are not\n"
"                           issued (a database's group commit; default on at file level,\n"
"                           off at block level unless given on)\n"
"      --dep-kthread-clock trace|progress  block level: a kernel thread's new work\n"
"                           (writeback, the journal) goes at its trace time (trace, the\n"
"                           default) or once the application's threads have issued\n"
"                           everything before it (progress: writeback lags a slower\n"
"                           database as the kernel's does)\n"
"      --dep-writer-clock deps|trace  a thread that has only written, never read nor\n"
"                           flushed (a checkpointer, a background writer): follows its\n"
"                           dependencies (deps, the default) or keeps its own clock\n"
"                           (trace: no other thread's flush woke it; after a pause, its\n"
"                           next batch at its trace time)\n"
"      --dep-wbt on|off|TIME  block level: the kernel's writeback throttling (wbt) for\n"
"                           the recorded writes it throttles (no REQ_SYNC: writeback),\n"
"                           which the replay's O_DIRECT writes escape: they wait while\n"
"                           the target's reads run slower than its wbt_lat_usec, as the\n"
"                           kernel scales their depth (on, the default: each target's\n"
"                           own setting; TIME: that latency)\n"
"      --dep-chain on|off   engine threads: a thread's next call, when it waits only for\n"
"                           the thread's previous one, waits in the thread's own worker\n"
"                           instead of a round trip through the scheduler (default on;\n"
"                           off with the group commit, absorb and split models); closed\n"
"                           mode: the same for a job at iodepth 1 without think time,\n"
"                           rate or latency target\n"
"      --dep-date-wakes on|off  a completion the scheduling thread slept until is\n"
"                           dated back by its wake-up latency (measured on its timed\n"
"                           waits), since the recorded think time after it already holds\n"
"                           the recorded thread's own wake-up (default on)\n"
"report:\n"
"  -o, --output FILE        the result trace: per I/O deadline, submit and completion\n"
"      --json               ioreel analyze --json of the result, plus \"fidelity\"\n"
"  -q, --quiet              no progress line\n"
"\n"
"Writes happen only with --allow-writes, not on a device carrying a filesystem, RAID or\n"
"partition signature unless --force, and never on one in use (mounted, a partition of it\n"
"mounted, held by md/dm, swap, opened by another replay).\n"
"\n"
"examples:\n"
"  ioreel replay prod.ioreel --target /dev/md1 -o run-md1.ioreel\n"
"  ioreel replay prod.ioreel --target /mnt/xfs/big.img --size 20G --allow-writes\n"
"  ioreel replay prod.ioreel --target /dev/md1 --allow-writes --prefill\n"
"  ioreel replay two.ioreel --map nvme0n1=/dev/loop3 --map nvme1n1=/dev/loop4 --json\n"
"  ioreel replay synth.ioreel --target /dev/zram1 --mode afap --iodepth 64 --engine libaio\n"
"  ioreel replay db.ioreel --target /dev/md1 --allow-writes --force --mode dep -o run.ioreel\n"
"  ioreel replay pg-files.ioreel --root /mnt/btrfs/replay --allow-writes -o run-btrfs.ioreel\n"
"  ioreel replay pg-files.ioreel --root /mnt/ext4/pg --strip /var/lib/postgresql \\\n"
"                --allow-writes --mode timed --engine psync --json\n");
}

static void warn_cb(const char *msg)
{
	cli_warn("%s", msg);
}

static void on_signal(int sig)
{
	(void)sig;
	replay_stop = 1;
}

static void print_report(const struct replay_result *res, bool json)
{
	if (json) {
		char extra[32768];
		int n = replay_fidelity_json(res, extra, sizeof(extra));

		if (n > 0 && (size_t)n < sizeof(extra))
			n += replay_file_json(res, extra + n, sizeof(extra) - (size_t)n);
		if (n > 0 && (size_t)n < sizeof(extra))
			replay_cpu_json(res, extra + n, sizeof(extra) - (size_t)n);
		if (res->analysis)
			analysis__print_json(res->analysis, stdout, extra);
		else
			printf("{%s}\n", extra);
		return;
	}
	if (res->analysis)
		analysis__print_text(res->analysis, stdout);
	replay_fidelity_print(res, stdout);
	replay_file_print(res, stdout);
	replay_cpu_print(res, stdout);
}

/* I/Os or calls that failed on the target: how many, and the first with what failed */
static void report_failures(const struct replay_result *res)
{
	const struct replay_file_result *f = res->file;
	unsigned long long n = res->errors, all = res->ios;

	if (f && f->first_fail_rel[0])
		cli_error("%llu of %llu calls failed on the target (first: %s of %s/%s: %s); the "
			  "report counts them per call", n, all, io_fop_name(f->first_fail_op),
			  f->root, f->first_fail_rel, strerror(-res->first_error));
	else
		cli_error("%llu of %llu %s failed on the target (first: %s at offset %llu); the "
			  "report counts them", n, all, f ? "calls" : "I/Os",
			  strerror(-res->first_error), (unsigned long long)res->first_error_offset);
}

/* The long options without a short one: named, grouped as --help groups them. */
enum replay_opt {
	/* when: the mode and its clock */
	OPT_MODE = 256,
	OPT_SPEED,
	OPT_RUNTIME,
	OPT_IODEPTH,
	OPT_MAX_INFLIGHT,
	OPT_SPIN,
	OPT_CPU_SLICE,
	OPT_CPU_LOAD_THREADS,
	OPT_CPU_LOAD_CHUNK,
	OPT_CPU_FILL,
	OPT_CPU_LOAD_CLOCK,
	OPT_NO_REALTIME,
	OPT_REALTIME,
	OPT_THINK_SCALE,
	OPT_NULL_LATENCY,
	/* dep mode */
	OPT_DEP_THINK_MAX,
	OPT_DEP_XWIN,
	OPT_DEP_EPS,
	OPT_DEP_BARRIER,
	OPT_NO_DEP_OVERLAP,
	OPT_DEP_FALLBACK,
	OPT_DEP_GROUP_COMMIT,
	OPT_DEP_ABSORB,
	OPT_DEP_SPLIT,
	OPT_DEP_CHAIN,
	OPT_DEP_DATE_WAKES,
	OPT_DEP_COMMIT_LOCK,
	OPT_DEP_KTHREAD_CLOCK,
	OPT_DEP_WRITER_CLOCK,
	OPT_DEP_WBT,
	/* where: targets, what may be written, and how */
	OPT_BUFFERED,
	OPT_ASYNC_WRITES,
	OPT_ALLOW_WRITES,
	OPT_WRITES_AS_READS,
	OPT_FORCE,
	OPT_SIZE,
	OPT_OFFSETS,
	OPT_WRITE_DATA,
	OPT_PREFILL,
	OPT_NO_PREFILL,
	OPT_ROOT,
	OPT_STRIP,
	OPT_CPU,
	OPT_CPU_WAIT,
};

static const struct option replay_long_opts[] = {
	{ "target", required_argument, 0, 't' },
	{ "map", required_argument, 0, 'm' },
	{ "output", required_argument, 0, 'o' },
	{ "engine", required_argument, 0, 'e' },
	{ "json", no_argument, 0, 'j' },
	{ "quiet", no_argument, 0, 'q' },
	{ "help", no_argument, 0, 'h' },
	{ "mode", required_argument, 0, OPT_MODE },
	{ "speed", required_argument, 0, OPT_SPEED },
	{ "runtime", required_argument, 0, OPT_RUNTIME },
	{ "iodepth", required_argument, 0, OPT_IODEPTH },
	{ "max-inflight", required_argument, 0, OPT_MAX_INFLIGHT },
	{ "spin", required_argument, 0, OPT_SPIN },
	{ "cpu-slice", required_argument, 0, OPT_CPU_SLICE },
	{ "cpu-load-threads", required_argument, 0, OPT_CPU_LOAD_THREADS },
	{ "cpu-load-chunk", required_argument, 0, OPT_CPU_LOAD_CHUNK },
	{ "cpu-fill", required_argument, 0, OPT_CPU_FILL },
	{ "cpu-load-clock", required_argument, 0, OPT_CPU_LOAD_CLOCK },
	{ "no-realtime", no_argument, 0, OPT_NO_REALTIME },
	{ "realtime", no_argument, 0, OPT_REALTIME },
	{ "think-scale", required_argument, 0, OPT_THINK_SCALE },
	{ "null-latency", required_argument, 0, OPT_NULL_LATENCY },
	{ "dep-think-max", required_argument, 0, OPT_DEP_THINK_MAX },
	{ "dep-xwin", required_argument, 0, OPT_DEP_XWIN },
	{ "dep-eps", required_argument, 0, OPT_DEP_EPS },
	{ "dep-barrier", required_argument, 0, OPT_DEP_BARRIER },
	{ "no-dep-overlap", no_argument, 0, OPT_NO_DEP_OVERLAP },
	{ "dep-fallback", required_argument, 0, OPT_DEP_FALLBACK },
	{ "dep-group-commit", required_argument, 0, OPT_DEP_GROUP_COMMIT },
	{ "dep-absorb", required_argument, 0, OPT_DEP_ABSORB },
	{ "dep-split", required_argument, 0, OPT_DEP_SPLIT },
	{ "dep-chain", required_argument, 0, OPT_DEP_CHAIN },
	{ "dep-date-wakes", required_argument, 0, OPT_DEP_DATE_WAKES },
	{ "dep-commit-lock", required_argument, 0, OPT_DEP_COMMIT_LOCK },
	{ "dep-kthread-clock", required_argument, 0, OPT_DEP_KTHREAD_CLOCK },
	{ "dep-writer-clock", required_argument, 0, OPT_DEP_WRITER_CLOCK },
	{ "dep-wbt", required_argument, 0, OPT_DEP_WBT },
	{ "buffered", no_argument, 0, OPT_BUFFERED },
	{ "async-writes", required_argument, 0, OPT_ASYNC_WRITES },
	{ "allow-writes", no_argument, 0, OPT_ALLOW_WRITES },
	{ "writes-as-reads", no_argument, 0, OPT_WRITES_AS_READS },
	{ "force", no_argument, 0, OPT_FORCE },
	{ "size", required_argument, 0, OPT_SIZE },
	{ "offsets", required_argument, 0, OPT_OFFSETS },
	{ "write-data", required_argument, 0, OPT_WRITE_DATA },
	{ "prefill", no_argument, 0, OPT_PREFILL },
	{ "no-prefill", no_argument, 0, OPT_NO_PREFILL },
	{ "root", required_argument, 0, OPT_ROOT },
	{ "strip", required_argument, 0, OPT_STRIP },
	{ "cpu", required_argument, 0, OPT_CPU },
	{ "cpu-wait", required_argument, 0, OPT_CPU_WAIT },
	{ 0, 0, 0, 0 }
};

/* Each group's parser: 0 when it took the option, EXIT_USAGE when the value is wrong, -1 when
 * the option is another group's. */

/* An on|off option's value into *on; -1 with the message for anything else. */
static int parse_on_off(const char *name, const char *arg, bool *on)
{
	if (!strcmp(arg, "on") || !strcmp(arg, "off")) {
		*on = arg[1] == 'n';
		return 0;
	}
	cli_error("--%s: on or off, not '%s'", name, arg);
	return -1;
}

/* One of two words (off: the default), naming both in the error. */
static int parse_either(const char *name, const char *arg, const char *off, const char *on,
			const char *both, bool *is_on)
{
	if (strcmp(arg, off) && strcmp(arg, on)) {
		cli_error("--%s '%s': give %s", name, arg, both);
		return -1;
	}
	*is_on = !strcmp(arg, on);
	return 0;
}

static int parse_when(int c, const char *arg, struct replay_opts *o)
{
	uint64_t v;
	char *end;

	switch (c) {
	case OPT_MODE: {
		int m = !strcmp(arg, "timed")  ? REPLAY_TIMED
			: !strcmp(arg, "afap")	? REPLAY_AFAP
			: !strcmp(arg, "closed") ? REPLAY_CLOSED
			: !strcmp(arg, "dep")	? REPLAY_DEP
			: !strcmp(arg, "auto")	? REPLAY_MODE_AUTO
						: -2;

		if (m == -2) {
			cli_error("--mode: timed, dep, afap, closed or auto, not '%s'", arg);
			return EXIT_USAGE;
		}
		if (o->mode_set && o->mode != m) {
			cli_error("--mode given twice (%s and %s): give it once",
				  replay_mode_name(o->mode), arg);
			return EXIT_USAGE;
		}
		o->mode = m;
		o->mode_set = true;
		return 0;
	}
	case OPT_RUNTIME:
		o->runtime_trace = !strcmp(arg, "trace");
		if (!o->runtime_trace && (parse_duration_ns(arg, &o->runtime_ns) || !o->runtime_ns)) {
			cli_error("--runtime wants a duration like 30s, or trace (as long as the trace "
				  "lasted), got '%s'", arg);
			return EXIT_USAGE;
		}
		if (o->runtime_trace)
			o->runtime_ns = 0;
		return 0;
	case OPT_SPEED:
		o->speed = strtod(arg, &end);
		if (*end || !(o->speed >= 1e-6) || o->speed > 1e6) {
			cli_error("--speed wants a factor from 0.000001 to 1000000 (2 = twice as fast), "
				  "got '%s'", arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_IODEPTH:
	case OPT_MAX_INFLIGHT:
		if (parse_u64(arg, &v) || !v || v > 65536) {
			cli_error("--%s wants 1..65536, got '%s'",
				  c == OPT_IODEPTH ? "iodepth" : "max-inflight", arg);
			return EXIT_USAGE;
		}
		if (c == OPT_IODEPTH)
			o->iodepth = (unsigned int)v;
		else
			o->max_inflight = (unsigned int)v;
		return 0;
	case OPT_SPIN:
		/* a spin holds a CPU: past a second it is a mistyped unit, not a choice */
		if (parse_duration_ns(arg, &o->spin_ns) || o->spin_ns > 1000000000) {
			cli_error("--spin wants a duration from 0 to 1s, like 200us, got '%s'", arg);
			return EXIT_USAGE;
		}
		o->spin_set = true;
		return 0;
	case OPT_CPU_SLICE:
		if (parse_duration_ns(arg, &o->cpu_slice_ns) ||
		    (o->cpu_slice_ns && (o->cpu_slice_ns < 100000 || o->cpu_slice_ns > 100000000))) {
			cli_error("--cpu-slice wants 0 (the kernel's default) or a duration from 100us "
				  "to 100ms (what the kernel accepts), got '%s'", arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_CPU_LOAD_THREADS: {
		uint64_t n;

		if (parse_u64(arg, &n) || n < 1 || n > 256) {
			cli_error("--cpu-load-threads wants a count of load threads from 1 to 256, "
				  "got '%s'", arg);
			return EXIT_USAGE;
		}
		o->cpu_load_threads = (unsigned int)n;
		return 0;
	}
	case OPT_CPU_LOAD_CHUNK:
		if (parse_duration_ns(arg, &o->cpu_load_chunk_ns) || o->cpu_load_chunk_ns < 1000 ||
		    o->cpu_load_chunk_ns > 10000000) {
			cli_error("--cpu-load-chunk wants a duration from 1us to 10ms, got '%s'", arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_CPU_LOAD_CLOCK: {
		bool progress;

		if (parse_either("cpu-load-clock", arg, "trace", "progress",
				 "trace (each interval's load at its time in the trace) or "
				 "progress (once the application's threads have come that far: "
				 "dep mode)",
				 &progress))
			return EXIT_USAGE;
		o->cpu_load_clock = progress ? REPLAY_LOAD_CLOCK_PROGRESS : REPLAY_LOAD_CLOCK_TRACE;
		return 0;
	}
	case OPT_CPU_FILL:
		if (!strcmp(arg, "on") || !strcmp(arg, "off") || !strcmp(arg, "host")) {
			o->cpu_fill = arg[0] == 'h' ? REPLAY_FILL_HOST
				      : arg[1] == 'n' ? REPLAY_FILL_ON : REPLAY_FILL_OFF;
			return 0;
		}
		cli_error("--cpu-fill: on, off or host, not '%s'", arg);
		return EXIT_USAGE;
	case OPT_NO_REALTIME:
	case OPT_REALTIME:
		o->realtime = c == OPT_REALTIME;
		return 0;
	case OPT_THINK_SCALE:
		o->think_scale = strtod(arg, &end);
		if (!*arg || *end || !(o->think_scale >= 0) || o->think_scale > 1e6) {
			cli_error("--think-scale wants a factor >= 0 (0.5 = half the recorded think "
				  "time), got '%s'", arg);
			return EXIT_USAGE;
		}
		if (o->think_scale == 0)
			o->think_scale = 1e-9; /* 0 means the default inside replay */
		return 0;
	case OPT_NULL_LATENCY: {
		char buf[64], *comma;

		snprintf(buf, sizeof(buf), "%s", arg);
		comma = strchr(buf, ',');
		if (comma)
			*comma++ = '\0';
		o->null_flush_lat_ns = 0;
		if (parse_duration_ns(buf, &o->null_lat_ns) || o->null_lat_ns > 60000000000ULL ||
		    (comma && (parse_duration_ns(comma, &o->null_flush_lat_ns) ||
			       o->null_flush_lat_ns > 60000000000ULL))) {
			cli_error("--null-latency wants a duration up to 60s like 5ms, or two (I/O, "
				  "flush) like 1ms,20ms, got '%s'", arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_CPU_WAIT:
		if (strcmp(arg, "recorded") && strcmp(arg, "none")) {
			cli_error("--cpu-wait: recorded or none, not '%s'", arg);
			return EXIT_USAGE;
		}
		o->cpu_wait = !strcmp(arg, "recorded") ? REPLAY_CPU_WAIT_RECORDED
							  : REPLAY_CPU_WAIT_NONE;
		return 0;
	case OPT_CPU: {
		int v = -1;

		for (int k = 0; k < REPLAY_CPU__COUNT; k++)
			if (replay_cpu_names[k] && !strcmp(arg, replay_cpu_names[k]))
				v = k;
		if (v < 0) {
			cli_error("--cpu: replay, calls, load, host or idle, not '%s'", arg);
			return EXIT_USAGE;
		}
		if (o->cpu && o->cpu != v) {
			cli_error("--cpu given twice with different values: give it once");
			return EXIT_USAGE;
		}
		o->cpu = v;
		return 0;
	}
	}
	}
	return -1;
}

static int parse_dep(int c, const char *arg, struct replay_opts *o)
{
	switch (c) {
	case OPT_DEP_THINK_MAX:
	case OPT_DEP_XWIN:
	case OPT_DEP_EPS:
		if (parse_duration_ns(arg, c == OPT_DEP_THINK_MAX ? &o->dep.think_max_ns
					   : c == OPT_DEP_XWIN	   ? &o->dep.xwin_ns
								   : &o->dep.eps_ns)) {
			cli_error("--%s wants a duration like 10ms or 2us, got '%s'",
				  c == OPT_DEP_THINK_MAX ? "dep-think-max"
				  : c == OPT_DEP_XWIN	 ? "dep-xwin"
							 : "dep-eps",
				  arg);
			return EXIT_USAGE;
		}
		break;
	case OPT_DEP_BARRIER:
		if (!strcmp(arg, "all"))
			o->dep.barrier = DEP_BARRIER_ALL;
		else if (!strcmp(arg, "kthread"))
			o->dep.barrier = DEP_BARRIER_KTHREAD;
		else if (!strcmp(arg, "none"))
			o->dep.barrier = DEP_BARRIER_NONE;
		else {
			cli_error("--dep-barrier: all, kthread or none, not '%s'", arg);
			return EXIT_USAGE;
		}
		break;
	case OPT_NO_DEP_OVERLAP:
		o->dep.overlap = false;
		break;
	case OPT_DEP_GROUP_COMMIT:
	case OPT_DEP_ABSORB:
	case OPT_DEP_SPLIT:
	case OPT_DEP_CHAIN:
	case OPT_DEP_DATE_WAKES:
	case OPT_DEP_COMMIT_LOCK: {
		bool *b = c == OPT_DEP_ABSORB ? &o->dep.absorb
			  : c == OPT_DEP_SPLIT ? &o->dep.split
			  : c == OPT_DEP_CHAIN ? &o->dep.chain
			  : c == OPT_DEP_DATE_WAKES ? &o->dep.date_wakes
			  : c == OPT_DEP_COMMIT_LOCK ? &o->dep.commit_lock
					       : &o->dep.group_commit;

		if (parse_on_off(c == OPT_DEP_ABSORB	   ? "dep-absorb"
				 : c == OPT_DEP_SPLIT	   ? "dep-split"
				 : c == OPT_DEP_CHAIN	   ? "dep-chain"
				 : c == OPT_DEP_DATE_WAKES ? "dep-date-wakes"
				 : c == OPT_DEP_COMMIT_LOCK ? "dep-commit-lock"
							   : "dep-group-commit",
				 arg, b))
			return EXIT_USAGE;
		if (c == OPT_DEP_COMMIT_LOCK)
			o->dep.commit_lock_block = *b; /* asked for: at block level too */
		break;
	}
	case OPT_DEP_KTHREAD_CLOCK:
	case OPT_DEP_WRITER_CLOCK: {
		bool k = c == OPT_DEP_KTHREAD_CLOCK;

		if (parse_either(k ? "dep-kthread-clock" : "dep-writer-clock", arg,
				 k ? "trace" : "deps", k ? "progress" : "trace",
				 k ? "trace (kernel threads' new work at its trace time, the default) "
				     "or progress (once the application's threads have come that far)"
				   : "deps (a thread that only writes follows its dependencies as any "
				     "thread, the default) or trace (it keeps its own clock)",
				 k ? &o->dep.kthread_progress : &o->dep.writer_clock))
			return EXIT_USAGE;
		break;
	}
	case OPT_DEP_WBT:
		o->dep.wbt_asked = true;
		if (!strcmp(arg, "off") || !strcmp(arg, "on")) {
			o->dep.wbt = arg[1] == 'n' ? DEP_WBT_TARGET : DEP_WBT_OFF;
		} else if (!parse_duration_ns(arg, &o->dep.wbt_lat_ns) && o->dep.wbt_lat_ns) {
			o->dep.wbt = DEP_WBT_SET;
		} else {
			cli_error("--dep-wbt '%s': give on (each target's own wbt_lat_usec), off, "
				  "or the read latency to aim at (e.g. 2ms)", arg);
			return EXIT_USAGE;
		}
		break;
	case OPT_DEP_FALLBACK:
		if (strcmp(arg, "timed") && strcmp(arg, "afap")) {
			cli_error("--dep-fallback '%s': give timed or afap", arg);
			return EXIT_USAGE;
		}
		o->dep_fallback_set = true;
		o->dep_fallback = arg[0] == 't' ? REPLAY_TIMED : REPLAY_AFAP;
		return 0;
	default:
		return -1;
	}
	o->dep_set = true;
	return 0;
}

static int parse_map(char *arg, struct replay_opts *o, struct replay_map *maps)
{
	char *eq = strchr(arg, '=');

	if (!eq || eq == arg || !eq[1] || o->nmaps >= REPLAY_CLI_MAX_MAPS) {
		cli_error("--map wants DEV=PATH (at most %d), got '%s'", REPLAY_CLI_MAX_MAPS, arg);
		return EXIT_USAGE;
	}
	*eq = '\0';
	for (unsigned int k = 0; k < o->nmaps; k++) {
		if (!strcmp(maps[k].name, arg)) {
			cli_error("--map gives device %s twice (%s, %s): one target per device", arg,
				  maps[k].path, eq + 1);
			return EXIT_USAGE;
		}
	}
	maps[o->nmaps++] = (struct replay_map){ arg, eq + 1 };
	return 0;
}

static int parse_where(int c, char *arg, struct replay_opts *o, struct replay_map *maps)
{
	switch (c) {
	case 't':
		return cli_set_once(&o->target, "--target", arg) ? EXIT_USAGE : 0;
	case 'm':
		return parse_map(arg, o, maps);
	case 'o':
		return cli_set_once(&o->output, "-o/--output", arg) ? EXIT_USAGE : 0;
	case 'e':
		return cli_set_once(&o->engine, "--engine", arg) ? EXIT_USAGE : 0;
	case OPT_BUFFERED:
		o->buffered = true;
		return 0;
	case OPT_ASYNC_WRITES:
		if (strcmp(arg, "direct") && strcmp(arg, "writeback")) {
			cli_error("--async-writes %s: expected direct or writeback", arg);
			return EXIT_USAGE;
		}
		o->async_writeback = !strcmp(arg, "writeback");
		return 0;
	case OPT_ALLOW_WRITES:
		o->allow_writes = true;
		return 0;
	case OPT_WRITES_AS_READS:
		o->writes_as_reads = true;
		return 0;
	case OPT_FORCE:
		o->force = true;
		return 0;
	case OPT_SIZE:
		if (parse_size(arg, &o->size) || !o->size) {
			cli_error("--size wants a size like 1G or 512m, got '%s'", arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_OFFSETS:
		if (!strcmp(arg, "wrap"))
			o->offsets = REPLAY_OFFSETS_WRAP;
		else if (!strcmp(arg, "scale"))
			o->offsets = REPLAY_OFFSETS_SCALE;
		else if (!strcmp(arg, "strict"))
			o->offsets = REPLAY_OFFSETS_STRICT;
		else {
			cli_error("--offsets: wrap, scale or strict, not '%s'", arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_WRITE_DATA:
		if (strcmp(arg, "pattern") && strcmp(arg, "random")) {
			cli_error("--write-data '%s': give random or pattern", arg);
			return EXIT_USAGE;
		}
		o->pattern_data = arg[0] == 'p';
		return 0;
	case OPT_PREFILL:
	case OPT_NO_PREFILL: {
		int want = c == OPT_PREFILL ? REPLAY_PREFILL_ON : REPLAY_PREFILL_OFF;

		if (o->prefill != REPLAY_PREFILL_WARN && o->prefill != want) {
			cli_error("--prefill and --no-prefill contradict each other");
			return EXIT_USAGE;
		}
		o->prefill = want;
		return 0;
	}
	case OPT_ROOT:
		return cli_set_once(&o->root, "--root", arg) ? EXIT_USAGE : 0;
	case OPT_STRIP:
		if (arg[0] != '/') {
			cli_error("--strip wants the absolute recorded directory --root stands for, got "
				  "'%s'", arg);
			return EXIT_USAGE;
		}
		o->strip = arg;
		return 0;
	}
	return -1;
}

struct given_opt {
	int c;
	const char *arg;
};

/*
 * An option given twice with two values: which one was meant? Refused, as analyze, convert,
 * synth and record refuse it (the same value again is harmless; --map repeats by design).
 */
static bool given_twice(int c, const char *arg, struct given_opt *given, size_t *n)
{
	const struct option *lo = replay_long_opts;

	if (c == 'm')
		return false;
	for (size_t k = 0; k < *n; k++) {
		if (given[k].c != c)
			continue;
		if (!strcmp(given[k].arg, arg))
			return false;
		while (lo->name && lo->val != c)
			lo++;
		char a[CLI_SHOWN_LEN], b[CLI_SHOWN_LEN];

		cli_error("--%s given twice (%s, then %s): give it once",
			  lo->name ? lo->name : "?", cli_shown(a, given[k].arg), cli_shown(b, arg));
		return true;
	}
	given[(*n)++] = (struct given_opt){ c, arg };
	return false;
}

int replay_cli_parse(int argc, char **argv, struct replay_cli *cli)
{
	struct replay_map *maps = cli->maps;
	struct replay_opts o = { .mode = REPLAY_MODE_AUTO, .warn = warn_cb };
	struct given_opt given[sizeof(replay_long_opts) / sizeof(replay_long_opts[0])];
	size_t ngiven = 0;
	bool json = false, quiet = false;
	int c, ret;

	dep_opts_default(&o.dep);
	optind = 1;
	while ((c = getopt_long(argc, argv, "t:m:o:e:jqh", replay_long_opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			continue;
		case 'q':
			quiet = true;
			continue;
		case 'h':
			cli->help = true;
			return 0;
		}
		if (optarg && given_twice(c, optarg, given, &ngiven))
			return EXIT_USAGE;
		ret = parse_when(c, optarg, &o);
		if (ret < 0)
			ret = parse_dep(c, optarg, &o);
		if (ret < 0)
			ret = parse_where(c, optarg, &o, maps);
		if (ret < 0) {
			cli->bad_option = true; /* getopt said which */
			return EXIT_USAGE;
		}
		if (ret)
			return ret;
	}
	if (o.prefill == REPLAY_PREFILL_ON && !o.allow_writes) {
		cli_error("--prefill writes the regions the trace reads: give --allow-writes too "
			  "(it destroys the data there)");
		return EXIT_USAGE;
	}
	if (o.root && (o.target || o.nmaps)) {
		cli_error("--root replays a file-level trace on files under a directory; --target "
			  "and --map are for block-level traces: give one or the other");
		return EXIT_USAGE;
	}
	if (o.strip && !o.root) {
		cli_error("--strip goes with --root (file-level traces)");
		return EXIT_USAGE;
	}
	if ((o.null_lat_ns || o.null_flush_lat_ns) && (!o.engine || strcmp(o.engine, "null"))) {
		cli_error("--null-latency slows the null engine only: give --engine null too");
		return EXIT_USAGE;
	}
	if (o.allow_writes && o.writes_as_reads) {
		cli_error("--allow-writes and --writes-as-reads contradict each other");
		return EXIT_USAGE;
	}
	/* replay_run refuses it too, but only once the trace is open: ioreel study's checks
	 * parse a workload's replay_opts= here, before it builds any candidate */
	if (o.engine && !engine_find(o.engine)) {
		cli_error(REPLAY_UNKNOWN_ENGINE, o.engine);
		return EXIT_USAGE;
	}
	o.maps = maps;
	cli->o = o;
	cli->json = json;
	cli->quiet = quiet;
	return 0;
}

int cmd_replay(int argc, char **argv)
{
	static struct replay_cli cli;
	struct replay_opts o;
	struct replay_result res;
	struct stat st;
	bool json, quiet;
	char err[1024] = "";
	int ret, rc;

	/* first, so that a Ctrl-C in the checks before the first I/O is a clean stop too.
	 * A replay started over ssh whose connection drops: its report and result trace as on
	 * Ctrl-C, not death by SIGHUP with a temporary file left beside -o */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	cli_catch_hangup(&(struct sigaction){ .sa_handler = on_signal, .sa_flags = SA_RESTART });
	argv[0] = (char *)"ioreel replay"; /* getopt's own messages start with it */
	ret = replay_cli_parse(argc, argv, &cli);
	if (cli.help) {
		usage(stdout);
		return ret;
	}
	if (cli.bad_option) { /* getopt said which, in one line */
		cli_try_help("replay");
		return ret;
	}
	if (ret)
		return ret;
	o = cli.o;
	json = cli.json;
	quiet = cli.quiet;
	if (optind != argc - 1) {
		char extra[CLI_SHOWN_LEN]; /* escaped: a stray word is no terminal control */

		cli_error(optind >= argc ? "which trace? give one TRACE file"
					 : "one TRACE at a time (got %s too)",
			  cli_shown(extra, optind < argc - 1 ? argv[optind + 1] : ""));
		cli_try_help("replay");
		return EXIT_USAGE;
	}
	if (!o.target && !o.nmaps && !o.root) {
		cli_error("no target: give --target PATH (or --map DEV=PATH per device), or --root "
			  "DIR for a file-level trace");
		return EXIT_USAGE;
	}
	o.trace = argv[optind];
	/* never write over the trace being read (./T, a symlink or a hard link to it too) */
	if (o.output && outfile_same_file(o.output, o.trace)) {
		cli_error("-o %s is the trace being replayed: give the result trace a name of its "
			  "own", o.output);
		return EXIT_USAGE;
	}
	/* the writer refuses it too, but its error reaches the user as a bare strerror() */
	if (o.output && outfile_refuse_blkdev(o.output)) {
		cli_error("-o %s: %s", o.output, outfile_strerror(OUTFILE_EBLKDEV));
		return EXIT_USAGE;
	}
	/* found by the writer only after a file-level replay had laid out its files under --root
	 * (and removed the ones an earlier replay left there) */
	if (o.output && !stat(o.output, &st) && S_ISDIR(st.st_mode)) {
		cli_error("-o %s is a directory: give the result trace a file name "
			  "(DIR/run.ioreel)", o.output);
		return EXIT_USAGE;
	}
	for (unsigned int k = 0; k <= o.nmaps; k++) {
		const char *t = k < o.nmaps ? o.maps[k].path : o.target;

		if (t && outfile_same_file(t, o.trace)) {
			cli_error("target %s is the trace being replayed: replay onto another device "
				  "or file", t);
			return EXIT_USAGE;
		}
		/* a --map target too: the result replaced it, a read-only replay as well */
		if (t && o.output && outfile_same_file(o.output, t)) {
			cli_error("-o %s is the target%s%s: give the result trace a name of its "
				  "own", o.output, k < o.nmaps ? " of --map " : "",
				  k < o.nmaps ? o.maps[k].name : "");
			return EXIT_USAGE;
		}
	}
	o.progress = !quiet && !json && isatty(STDERR_FILENO);
	/* argv[0] is "ioreel replay" (above), which the line starts with already */
	o.command_line = argv_join(argv[0], argc - 1, argv + 1);

	ret = replay_run(&o, &res, err, sizeof(err));
	if (ret && !res.ios) {
		cli_error("%s", err);
		free((char *)o.command_line);
		replay_result_free(&res);
		return res.usage_error ? EXIT_USAGE : EXIT_RUNTIME;
	}
	print_report(&res, json);
	if (ret)
		cli_error("%s", err);
	else if (res.errors)
		report_failures(&res);
	if (res.interrupted)
		cli_error("interrupted: the report covers what was replayed before the signal, "
			  "not the whole trace");
	/* a script's `replay && publish` must not publish a partial or failing run as a result */
	rc = ret || res.errors || res.interrupted ? EXIT_RUNTIME : EXIT_OK;
	free((char *)o.command_line);
	replay_result_free(&res);
	return cli_close_stdout(rc);
}
