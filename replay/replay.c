// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `ioreel replay`: the verb's options, its messages and its report. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analyze/analyze.h"
#include "ioreel.h"
#include "replay/replay.h"
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
"      --size SIZE          create or grow a file target to SIZE, filled with data\n"
"      --offsets HOW        wrap (default), scale, or strict: for offsets beyond the target\n"
"      --buffered           through the page cache (default O_DIRECT); file level: opens\n"
"                           without the O_DIRECT the recording had\n"
"safety:\n"
"      --allow-writes       replay writes, discards and write-zeroes (destroys target data)\n"
"      --writes-as-reads    replay writes as reads of the same range\n"
"      --force              write even to a mounted device or one with a signature\n"
"      --prefill            before the clock starts, write once (random data) the regions\n"
"                           the trace reads, so reads hit written blocks (needs\n"
"                           --allow-writes; not timed). Without it, replay warns when\n"
"                           they were never written: file holes, fresh zram, loop devices\n"
"                           over sparse files read as zeroes from memory\n"
"      --no-prefill         no warning either: measure never-written space as it is\n"
"timing:\n"
"  -e, --engine NAME        io_uring, libaio, psync, null (no I/O). Default: io_uring, or\n"
"                           libaio for a device that refuses RWF_NOWAIT (zram, md, dm)\n"
"      --mode MODE          dep (default for recordings), timed (default for imported\n"
"                           traces), afap, closed (default for synthesized jobs), auto\n"
"                           dep: each I/O once the I/Os it waited for completed on the\n"
"                           target, plus the recorded think time (how would this\n"
"                           workload run there?); timed: each I/O at its recorded time,\n"
"                           the offered load (can the candidate absorb it?)\n"
"      --speed X            timed, dep: X times as fast (0.5 = half speed)\n"
"      --iodepth N          afap: I/Os in flight (default 32)\n"
"      --max-inflight N     timed: cap on I/Os in flight (default 1024; numjobs x iodepth\n"
"                           for a synthesized job with --rate-iops)\n"
"      --spin TIME          timed: spin this long before each deadline (default 200us),\n"
"                           yielding the CPU until the last 20us\n"
"      --realtime           timed: run the scheduler SCHED_FIFO, so other tasks cannot push\n"
"                           deadlines back. Off by default: its spinning starves the kernel\n"
"                           threads that serve the target (loop, io-wq) on small machines\n"
"      --write-data KIND    random (default: incompressible, as fio writes) or pattern:\n"
"                           every 512-byte sector stamped with its offset, to verify where\n"
"                           writes landed (compresses well: not for compressing targets)\n"
"dependencies (--mode dep, see replay/README.md):\n"
"      --think-scale X      recorded think times x X (default 1: the same CPU)\n"
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
"report:\n"
"  -o, --output FILE        the result trace: per I/O deadline, submit and completion\n"
"      --json               ioreel analyze --json of the result, plus \"fidelity\"\n"
"  -q, --quiet              no progress line\n"
"\n"
"Writes happen only with --allow-writes, and not on a mounted device or one carrying a\n"
"filesystem, RAID or partition signature unless --force.\n"
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

static char *join_args(int argc, char **argv)
{
	size_t len = 16;
	char *s;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	strcpy(s, "ioreel");
	for (int i = 0; i < argc; i++) {
		strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static void print_report(const struct replay_result *res, bool json)
{
	if (json) {
		char extra[32768];
		int n = replay_fidelity_json(res, extra, sizeof(extra));

		if (n > 0 && (size_t)n < sizeof(extra))
			replay_file_json(res, extra + n, sizeof(extra) - (size_t)n);
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
}

int replay_cli_parse(int argc, char **argv, struct replay_cli *cli)
{
	static const struct option lo[] = {
		{ "target", required_argument, 0, 't' },
		{ "map", required_argument, 0, 'm' },
		{ "output", required_argument, 0, 'o' },
		{ "engine", required_argument, 0, 'e' },
		{ "json", no_argument, 0, 'j' },
		{ "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' },
		{ "mode", required_argument, 0, 1 },
		{ "speed", required_argument, 0, 2 },
		{ "iodepth", required_argument, 0, 3 },
		{ "max-inflight", required_argument, 0, 4 },
		{ "buffered", no_argument, 0, 5 },
		{ "allow-writes", no_argument, 0, 6 },
		{ "writes-as-reads", no_argument, 0, 7 },
		{ "force", no_argument, 0, 8 },
		{ "size", required_argument, 0, 9 },
		{ "offsets", required_argument, 0, 10 },
		{ "spin", required_argument, 0, 11 },
		{ "no-realtime", no_argument, 0, 12 },
		{ "realtime", no_argument, 0, 13 },
		{ "write-data", required_argument, 0, 14 },
		{ "think-scale", required_argument, 0, 15 },
		{ "dep-think-max", required_argument, 0, 16 },
		{ "dep-xwin", required_argument, 0, 17 },
		{ "dep-eps", required_argument, 0, 18 },
		{ "dep-barrier", required_argument, 0, 19 },
		{ "no-dep-overlap", no_argument, 0, 20 },
		{ "dep-fallback", required_argument, 0, 21 },
		{ "prefill", no_argument, 0, 22 },
		{ "no-prefill", no_argument, 0, 23 },
		{ "root", required_argument, 0, 24 },
		{ "strip", required_argument, 0, 25 },
		{ 0, 0, 0, 0 }
	};
	struct replay_map *maps = cli->maps;
	struct replay_opts o = { .mode = REPLAY_MODE_AUTO, .warn = warn_cb };
	bool json = false, quiet = false;
	uint64_t v;
	char *end;
	int c;

	dep_opts_default(&o.dep);
	optind = 1;
	while ((c = getopt_long(argc, argv, "t:m:o:e:jqh", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			if (o.target && strcmp(o.target, optarg)) {
				cli_error("--target given twice (%s, %s): one target, or --map "
					  "DEV=PATH per device", o.target, optarg);
				return EXIT_USAGE;
			}
			o.target = optarg;
			break;
		case 'm': {
			char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg || !eq[1] || o.nmaps >= REPLAY_CLI_MAX_MAPS) {
				cli_error("--map wants DEV=PATH (at most %d), got '%s'",
					  REPLAY_CLI_MAX_MAPS, optarg);
				return EXIT_USAGE;
			}
			*eq = '\0';
			for (unsigned int k = 0; k < o.nmaps; k++) {
				if (!strcmp(maps[k].name, optarg)) {
					cli_error("--map gives device %s twice (%s, %s): one target "
						  "per device", optarg, maps[k].path, eq + 1);
					return EXIT_USAGE;
				}
			}
			maps[o.nmaps++] = (struct replay_map){ optarg, eq + 1 };
			break;
		}
		case 'o':
			if (o.output && strcmp(o.output, optarg)) {
				cli_error("-o given twice (%s, %s): one result trace", o.output,
					  optarg);
				return EXIT_USAGE;
			}
			o.output = optarg;
			break;
		case 'e':
			if (o.engine && strcmp(o.engine, optarg)) {
				cli_error("--engine given twice (%s, %s)", o.engine, optarg);
				return EXIT_USAGE;
			}
			o.engine = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			cli->help = true;
			return 0;
		case 1:
			if (!strcmp(optarg, "timed"))
				o.mode = REPLAY_TIMED;
			else if (!strcmp(optarg, "afap"))
				o.mode = REPLAY_AFAP;
			else if (!strcmp(optarg, "closed"))
				o.mode = REPLAY_CLOSED;
			else if (!strcmp(optarg, "dep"))
				o.mode = REPLAY_DEP;
			else if (!strcmp(optarg, "auto"))
				o.mode = REPLAY_MODE_AUTO;
			else {
				cli_error("--mode: timed, dep, afap, closed or auto, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 2:
			o.speed = strtod(optarg, &end);
			if (*end || !(o.speed >= 1e-6) || o.speed > 1e6) {
				cli_error("--speed wants a factor from 0.000001 to 1000000 (2 = twice "
					  "as fast), got '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 3:
		case 4:
			if (parse_u64(optarg, &v) || !v || v > 65536) {
				cli_error("--%s wants 1..65536, got '%s'",
					  c == 3 ? "iodepth" : "max-inflight", optarg);
				return EXIT_USAGE;
			}
			if (c == 3)
				o.iodepth = (unsigned int)v;
			else
				o.max_inflight = (unsigned int)v;
			break;
		case 5:
			o.buffered = true;
			break;
		case 6:
			o.allow_writes = true;
			break;
		case 7:
			o.writes_as_reads = true;
			break;
		case 8:
			o.force = true;
			break;
		case 9:
			if (parse_size(optarg, &o.size) || !o.size) {
				cli_error("--size wants a size like 1G or 512m, got '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 10:
			if (!strcmp(optarg, "wrap"))
				o.offsets = REPLAY_OFFSETS_WRAP;
			else if (!strcmp(optarg, "scale"))
				o.offsets = REPLAY_OFFSETS_SCALE;
			else if (!strcmp(optarg, "strict"))
				o.offsets = REPLAY_OFFSETS_STRICT;
			else {
				cli_error("--offsets: wrap, scale or strict, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 11:
			if (parse_duration_ns(optarg, &o.spin_ns)) {
				cli_error("--spin wants a duration like 200us, got '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 12:
			o.realtime = false;
			break;
		case 13:
			o.realtime = true;
			break;
		case 14:
			if (!strcmp(optarg, "pattern") || !strcmp(optarg, "random")) {
				o.pattern_data = optarg[0] == 'p';
				break;
			}
			cli_error("--write-data '%s': give random or pattern", optarg);
			return EXIT_USAGE;
		case 15:
			o.think_scale = strtod(optarg, &end);
			if (*end || !(o.think_scale >= 0) || o.think_scale > 1e6) {
				cli_error("--think-scale wants a factor >= 0 (0.5 = half the recorded "
					  "think time), got '%s'", optarg);
				return EXIT_USAGE;
			}
			if (o.think_scale == 0)
				o.think_scale = 1e-9; /* 0 means the default inside replay */
			break;
		case 16:
		case 17:
		case 18:
			if (parse_duration_ns(optarg, c == 16   ? &o.dep.think_max_ns
						      : c == 17 ? &o.dep.xwin_ns
								: &o.dep.eps_ns)) {
				cli_error("--%s wants a duration like 10ms or 2us, got '%s'",
					  c == 16 ? "dep-think-max" : c == 17 ? "dep-xwin" : "dep-eps",
					  optarg);
				return EXIT_USAGE;
			}
			o.dep_set = true;
			break;
		case 19:
			if (!strcmp(optarg, "all"))
				o.dep.barrier = DEP_BARRIER_ALL;
			else if (!strcmp(optarg, "kthread"))
				o.dep.barrier = DEP_BARRIER_KTHREAD;
			else if (!strcmp(optarg, "none"))
				o.dep.barrier = DEP_BARRIER_NONE;
			else {
				cli_error("--dep-barrier: all, kthread or none, not '%s'", optarg);
				return EXIT_USAGE;
			}
			o.dep_set = true;
			break;
		case 20:
			o.dep.overlap = false;
			o.dep_set = true;
			break;
		case 21:
			if (!strcmp(optarg, "timed") || !strcmp(optarg, "afap")) {
				o.dep_fallback_set = true;
				o.dep_fallback = optarg[0] == 't' ? REPLAY_TIMED : REPLAY_AFAP;
				break;
			}
			cli_error("--dep-fallback '%s': give timed or afap", optarg);
			return EXIT_USAGE;
		case 22:
		case 23: {
			int want = c == 22 ? REPLAY_PREFILL_ON : REPLAY_PREFILL_OFF;

			if (o.prefill != REPLAY_PREFILL_WARN && o.prefill != want) {
				cli_error("--prefill and --no-prefill contradict each other");
				return EXIT_USAGE;
			}
			o.prefill = want;
			break;
		}
		case 24:
			o.root = optarg;
			break;
		case 25:
			if (optarg[0] != '/') {
				cli_error("--strip wants the absolute recorded directory --root stands "
					  "for, got '%s'", optarg);
				return EXIT_USAGE;
			}
			o.strip = optarg;
			break;
		default:
			cli->bad_option = true; /* getopt said which */
			return EXIT_USAGE;
		}
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
	if (o.allow_writes && o.writes_as_reads) {
		cli_error("--allow-writes and --writes-as-reads contradict each other");
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
	bool json, quiet;
	char err[1024] = "";
	int ret;

	ret = replay_cli_parse(argc, argv, &cli);
	if (cli.help || cli.bad_option) {
		usage(cli.help ? stdout : stderr);
		return ret;
	}
	if (ret)
		return ret;
	o = cli.o;
	json = cli.json;
	quiet = cli.quiet;
	if (optind != argc - 1) {
		cli_error(optind >= argc ? "which trace? give one TRACE file"
					 : "one TRACE at a time (got '%s' too)",
			  optind < argc - 1 ? argv[optind + 1] : "");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!o.target && !o.nmaps && !o.root) {
		cli_error("no target: give --target PATH (or --map DEV=PATH per device), or --root "
			  "DIR for a file-level trace");
		return EXIT_USAGE;
	}
	o.trace = argv[optind];
	/* never write over the trace being read (./T, a symlink or a hard link to it too) */
	if (o.output && (outfile_same_file(o.output, o.trace) ||
			 (o.target && outfile_same_file(o.output, o.target)))) {
		cli_error("-o %s is the %s: give the result trace a name of its own", o.output,
			  outfile_same_file(o.output, o.trace) ? "trace being replayed" : "target");
		return EXIT_USAGE;
	}
	for (unsigned int k = 0; k <= o.nmaps; k++) {
		const char *t = k < o.nmaps ? o.maps[k].path : o.target;

		if (t && outfile_same_file(t, o.trace)) {
			cli_error("target %s is the trace being replayed: replay onto another device "
				  "or file", t);
			return EXIT_USAGE;
		}
	}
	o.progress = !quiet && !json && isatty(STDERR_FILENO);
	o.command_line = join_args(argc, argv);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

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
		cli_warn("%llu %s failed (first: %s at offset %llu on the target)",
			 (unsigned long long)res.errors, res.file ? "calls" : "I/Os",
			 strerror(-res.first_error),
			 (unsigned long long)res.first_error_offset);
	if (replay_stop)
		cli_warn("interrupted: the report covers what was replayed before the signal");
	free((char *)o.command_line);
	replay_result_free(&res);
	return cli_close_stdout(ret ? EXIT_RUNTIME : EXIT_OK);
}
