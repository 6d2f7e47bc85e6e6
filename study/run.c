// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `ioreel study PLAN`: the comparison users run by hand over a day, as one unattended run.
 * For each candidate: build it, drop caches, run every workload (synthesized once, replayed
 * by `ioreel replay` as a child) the plan's number of times, interleaved across repeats so that
 * a drift of the machine spreads over every workload, then tear it down. Every finished cell
 * is a file and a line of the state file the moment it ends, so a Ctrl-C, a failed step or a
 * crash loses at most the cell that was running, and --resume runs only what is missing.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "ioreel.h"
#include "formats/trace.h"
#include "study/build.h"
#include "study/exec.h"
#include "study/study.h"
#include "util/cli.h"

#define STATE_MAGIC "ioreel-study-state 1"

struct study {
	struct plan p;
	struct exec_ctx x;
	struct vet_opts vo;
	bool resume, json;
	char self[PATH_MAX];
	int state_fd;
	struct cell_result *cells; /* finished */
	int ncells;
	bool done[STUDY_MAX_CAND][STUDY_MAX_WORK][STUDY_MAX_REPEATS];
	int built; /* a candidate built and not torn down, per the state file; -1 none */
	/* the UUID of what the build left on each of its devices ("-": none), per "made" lines;
	 * made_known: the state has them (a build that ended, by this version) */
	char made[STUDY_MAX_DEVS][64];
	bool made_known;
	bool plan_changed; /* the state file was written for another version of the plan */
	bool state_foreign; /* DIR/state is not empty and not a study's state file */
	uint64_t est_ns[STUDY_MAX_WORK]; /* measured time of a cell of each workload */
	int est_n[STUDY_MAX_WORK];
	uint64_t span_ns[STUDY_MAX_WORK]; /* a recording's span, before a cell measured it */
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: ioreel study PLAN [--allow-writes] [--force] [--dry-run] [--resume]\n"
	    "                         [--results DIR] [--json] [-q]\n"
	    "\n"
	    "Runs a comparison plan: for each candidate (a filesystem on a device or on an md\n"
	    "or btrfs array, a raw device, or your own setup=/teardown= commands) it builds it,\n"
	    "checks its devices as replay does (not mounted or held; signatures refused without\n"
	    "--force), drops caches, runs every workload (a preset, a fio job section, a\n"
	    "recorded trace in dep or timed mode) the plan's number of times, interleaved\n"
	    "across repeats, and tears it down. Then per workload a table of candidates: IOPS,\n"
	    "bandwidth, mean and p99 latency per op, CPU, median [min-max] over the repeats,\n"
	    "the fastest marked *; DIR/report.json and DIR/report.html (charts per workload,\n"
	    "the plan, the environment and the commands as run).\n"
	    "\n"
	    "  --allow-writes   needed to run: a study destroys what is on its devices\n"
	    "  --force          build even on devices carrying a signature (never on mounted)\n"
	    "  -n, --dry-run    print every command in order, run none; every check a run makes\n"
	    "                   first is made (devices, tools, workloads, results): exit non-zero\n"
	    "                   when the run would refuse the plan\n"
	    "  --resume         continue an interrupted study: finished cells are kept\n"
	    "  --results DIR    where results go (default: the plan's results=, else\n"
	    "                   PLAN without its suffix + .results)\n"
	    "  --json           the report as JSON on stdout\n"
	    "  -q, --quiet      no progress and no command echo (the log has them)\n"
	    "\n"
	    "The plan (an INI file; paths in it are relative to it; comments are whole lines\n"
	    "starting with # or ;):\n"
	    "  [study]\n"
	    "  repeats=3\n"
	    "  # per preset and fio cell; the region the workloads use (a file's size)\n"
	    "  runtime=60s\n"
	    "  size=16G\n"
	    "  [xfs-raid6]\n"
	    "  devices=/dev/sdb /dev/sdc /dev/sdd /dev/sde\n"
	    "  # md0 md1 md5 md6 md10; btrfs: raid0 raid1 raid10 raid5 raid6 (and metadata=)\n"
	    "  raid=md6\n"
	    "  # ext4, xfs, btrfs, or raw (the device or array itself)\n"
	    "  fs=xfs\n"
	    "  mkfs_opts=-d su=64k,sw=2\n"
	    "  mount_opts=noatime\n"
	    "  [zfs-raidz2]\n"
	    "  devices=/dev/sdb /dev/sdc /dev/sdd /dev/sde\n"
	    "  setup=zpool create -f -m /study study raidz2 $IOREEL_STUDY_DEVICES\n"
	    "  teardown=zpool destroy study\n"
	    "  # a directory (a file is made in it) or a device\n"
	    "  target=/study\n"
	    "  [4k-randread]\n"
	    "  # ioreel synth --list-presets; options= adds synth's fio options\n"
	    "  preset=4k-randread\n"
	    "  [oltp]\n"
	    "  fio=oltp.fio\n"
	    "  section=data\n"
	    "  [prod-db]\n"
	    "  trace=prod.ioreel\n"
	    "  # dep or timed (default: replay's, dep for a recording)\n"
	    "  mode=dep\n"
	    "  # any workload: options for ioreel replay\n"
	    "  replay_opts=--engine libaio\n"
	    "\n"
	    "examples:\n"
	    "  ioreel study raid6.plan --dry-run\n"
	    "  ioreel study raid6.plan --allow-writes\n"
	    "  ioreel study raid6.plan --allow-writes --resume     # after a Ctrl-C\n");
}

static const char *cand_name(const struct study *s, int c)
{
	return s->p.cand[c].name;
}

static int find_cand(const struct study *s, const char *n)
{
	for (int i = 0; i < s->p.ncand; i++)
		if (!strcmp(s->p.cand[i].name, n))
			return i;
	return -1;
}

static int find_work(const struct study *s, const char *n)
{
	for (int i = 0; i < s->p.nwork; i++)
		if (!strcmp(s->p.work[i].name, n))
			return i;
	return -1;
}

static void state_line(struct study *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void state_line(struct study *s, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	if (s->state_fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(buf) - 1)
		return;
	buf[n++] = '\n';
	/* one write per line (O_APPEND) and fsync: a crash leaves whole lines */
	if (write(s->state_fd, buf, n) != n || fsync(s->state_fd))
		cli_warn("cannot write the state file in %s: %s", s->p.results, strerror(errno));
}

static int add_cell(struct study *s, int c, int w, int r, double cpu, uint64_t wall)
{
	struct cell_result *n = realloc(s->cells, (s->ncells + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	s->cells = n;
	n[s->ncells++] = (struct cell_result){c, w, r, cpu, wall};
	s->done[c][w][r] = true;
	s->est_ns[w] += wall;
	s->est_n[w]++;
	return 0;
}

/* Reads DIR/state: the finished cells and a candidate left built. 0 or an exit code. */
static int state_read(struct study *s, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int lineno = 0;

	s->built = -1;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char a[128], b[128], what[16];
		unsigned long long h, wall;
		int rep, c, w;
		double cpu;

		lineno++;
		if (lineno == 1 && strncmp(line, STATE_MAGIC, strlen(STATE_MAGIC))) {
			s->state_foreign = true;
			break;
		}
		if (sscanf(line, "plan %llx", &h) == 1 && h != s->p.hash)
			s->plan_changed = true; /* open_results decides what that means */
		if (sscanf(line, "made %127s %d %127s", a, &rep, b) == 3) {
			if (find_cand(s, a) == s->built && rep >= 0 && rep < STUDY_MAX_DEVS) {
				snprintf(s->made[rep], sizeof(s->made[rep]), "%.63s", b);
				s->made_known = true;
			}
		} else if (sscanf(line, "done %127s %127s %d %lf %llu", a, b, &rep, &cpu,
				  &wall) == 5) {
			c = find_cand(s, a);
			w = find_work(s, b);
			if (c >= 0 && w >= 0 && rep >= 1 && rep <= s->p.repeats &&
			    !s->done[c][w][rep - 1])
				add_cell(s, c, w, rep - 1, cpu, wall);
		} else if (sscanf(line, "%15s %127s", what, a) == 2) {
			c = find_cand(s, a);
			if (!strcmp(what, "built")) {
				s->built = c;
				s->made_known = false;
			}
			else if (!strcmp(what, "torn") && c == s->built)
				s->built = -1;
		}
	}
	fclose(f);
	return 0;
}

static bool cand_finished(const struct study *s, int c)
{
	for (int w = 0; w < s->p.nwork; w++)
		for (int r = 0; r < s->p.repeats; r++)
			if (!s->done[c][w][r])
				return false;
	return true;
}

static int mkdirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *c = buf + 1; *c; c++)
		if (*c == '/') {
			*c = '\0';
			if (mkdir(buf, 0755) && errno != EEXIST)
				return -errno;
			*c = '/';
		}
	return mkdir(buf, 0755) && errno != EEXIST ? -errno : 0;
}

/* A recording's span from its chunk index: the first guess at how long its cells take. */
static uint64_t trace_span_ns(const char *path)
{
	struct trace_reader *r = trace_reader__open(path, 0, NULL, 0);
	uint64_t first = UINT64_MAX, last = 0;

	if (!r)
		return 0;
	for (size_t i = 0; i < trace_reader__chunk_count(r); i++) {
		const struct trace_chunk_info *ci = trace_reader__chunk(r, i);

		first = ci->first_ns < first ? ci->first_ns : first;
		last = ci->last_ns > last ? ci->last_ns : last;
	}
	trace_reader__close(r);
	return last > first ? last - first : 0;
}

static int synth_workloads(struct study *s)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/workloads", s->p.results);
	if (!s->x.dry_run && mkdirs(dir)) {
		cli_error("cannot create %s: %s", dir, strerror(errno));
		return EXIT_RUNTIME;
	}
	for (int w = 0; w < s->p.nwork && !study_stop; w++) {
		const struct workload *wl = &s->p.work[w];
		struct work_cmd c;
		int ret;
		struct stat st;
		struct step st_ = {.argv = c.argv, .quiet_out = true};

		if (wl->kind == WORK_TRACE) {
			if (!s->x.dry_run)
				s->span_ns[w] = trace_span_ns(wl->trace);
			continue;
		}
		ret = work_synth_cmd(&c, &s->p, w, s->self);
		if (ret) {
			cli_error("workload [%s]: options=: %s", wl->name, split_words_error(ret));
			work_cmd_free(&c);
			return EXIT_USAGE;
		}
		if (s->resume && !stat(c.out, &st)) {
			work_cmd_free(&c);
			continue; /* the finished cells ran this one: keep it */
		}
		ret = exec_run(&s->x, &st_, NULL);
		work_cmd_free(&c);
		if (ret) {
			cli_error("workload [%s]: ioreel synth failed (exit status %d)", wl->name,
				  ret);
			return EXIT_RUNTIME;
		}
	}
	return 0;
}

static void progress(const struct study *s, int c, int w, int r, int idx, int total)
{
	unsigned long long left;
	double secs = 0;
	char t[48];

	if (s->x.quiet || s->x.dry_run)
		return;
	/* what is left, at each workload's measured pace (the plan's runtime before that), in
	 * seconds: a sum of nanoseconds overflowed past 584 years, six cells of runtime=1000000h */
	for (int cc = 0; cc < s->p.ncand; cc++)
		for (int ww = 0; ww < s->p.nwork; ww++)
			for (int rr = 0; rr < s->p.repeats; rr++)
				if (!s->done[cc][ww][rr])
					secs += (s->est_n[ww] ? (double)s->est_ns[ww] / s->est_n[ww]
						 : s->span_ns[ww] ? (double)s->span_ns[ww]
								  : (double)s->p.runtime_ns) /
						1e9;
	left = secs < 1e15 ? (unsigned long long)secs : 1000000000000000ULL;
	if (left >= 3600)
		snprintf(t, sizeof(t), "%lluh%02llum", left / 3600, left / 60 % 60);
	else
		snprintf(t, sizeof(t), "%llum%02llus", left / 60, left % 60);
	fprintf(stderr, "study: cell %d/%d: [%s] %s, repeat %d/%d, about %s left\n", idx, total,
		cand_name(s, c), s->p.work[w].name, r + 1, s->p.repeats, t);
}

static void drop_caches(struct study *s)
{
	int fd;

	exec_note(&s->x, "sync; echo 3 >/proc/sys/vm/drop_caches");
	if (s->x.dry_run)
		return;
	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "3\n", 2) != 2)
		cli_warn("cannot drop caches (%s): the first cell may read from memory",
			 strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* One cell: replays the workload on the candidate's target. 0 done, 1 failed, -1 stopped. */
static int run_cell(struct study *s, const struct build *b, int c, int w, int r, bool first)
{
	const struct workload *wl = &s->p.work[w];
	char part[PATH_MAX], json[PATH_MAX], fin[PATH_MAX], finj[PATH_MAX];
	struct exec_res res;
	struct work_cmd cmd;
	struct work_where at = {.target = b->target, .part = part, .force = s->vo.force,
				.target_is_dir = b->target_is_dir, .first = first};
	int ret;
	struct step st = {.argv = cmd.argv, .interruptible = true};

	cell_path(&s->p, c, w, r, "part.ioreel", part, sizeof(part));
	cell_path(&s->p, c, w, r, "part.json", json, sizeof(json));
	cell_path(&s->p, c, w, r, "ioreel", fin, sizeof(fin));
	cell_path(&s->p, c, w, r, "json", finj, sizeof(finj));
	if (!s->x.dry_run) {
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%s", fin);
		*strrchr(dir, '/') = '\0';
		if (mkdirs(dir)) {
			cli_error("cannot create %s: %s", dir, strerror(errno));
			return 1;
		}
	}
	drop_caches(s);
	ret = work_replay_cmd(&cmd, &s->p, w, s->self, &at);
	if (ret) {
		cli_error("workload [%s]: replay_opts=: %s", wl->name, split_words_error(ret));
		work_cmd_free(&cmd);
		return 1;
	}
	st.out = json;
	ret = exec_run(&s->x, &st, &res);
	work_cmd_free(&cmd);
	if (s->x.dry_run)
		return 0;
	/* a cell is kept whole or not at all: --resume runs it again from its start */
	if (res.interrupted || study_stop || ret) {
		unlink(part);
		unlink(json);
	}
	if (res.interrupted || study_stop)
		return -1;
	if (ret) {
		cli_error("[%s] %s repeat %d: ioreel replay failed (exit status %d)",
			  cand_name(s, c), wl->name, r + 1, ret);
		return 1;
	}
	if (rename(part, fin) || rename(json, finj)) {
		cli_error("cannot rename the results of [%s] %s: %s", cand_name(s, c), wl->name,
			  strerror(errno));
		return 1;
	}
	/* the replayer's CPU over its run, as bench reports it */
	double cpu = res.wall_ns ? 100.0 * (double)res.cpu_ns / (double)res.wall_ns : 0;

	state_line(s, "done %s %s %d %.2f %llu", cand_name(s, c), wl->name, r + 1, cpu,
		   (unsigned long long)res.wall_ns);
	exec_log(&s->x, "cell done: [%s] %s repeat %d", cand_name(s, c), wl->name, r + 1);
	add_cell(s, c, w, r, cpu, res.wall_ns);
	return 0;
}

/* Builds candidate c, runs its missing cells, tears it down. 0, 1 (failed) or -1 (stopped). */
static int run_candidate(struct study *s, int c, int *idx, int total)
{
	struct build b;
	char rec[PATH_MAX], err[1024];
	bool first[STUDY_MAX_WORK];
	int ret = 0, down;

	build_init(&b, &s->p.cand[c], &s->x, s->p.results);
	if (!s->x.dry_run) {
		ret = vet_candidate_free(&s->p.cand[c], err, sizeof(err));
		if (ret) {
			cli_error("candidate [%s]: %s", cand_name(s, c), err);
			return 1;
		}
		snprintf(rec, sizeof(rec), "%s/built", s->p.results);
		mkdirs(rec);
		snprintf(rec, sizeof(rec), "%s/built/%s.sh", s->p.results, cand_name(s, c));
		b.record = fopen(rec, "w");
	}
	if (!s->x.quiet || s->x.dry_run) {
		const struct candidate *cd = &s->p.cand[c];
		FILE *f = s->x.dry_run ? stdout : stderr;

		fprintf(f, "%s# candidate [%s]: build\n", s->x.dry_run ? "\n" : "", cd->name);
		if (cd->kind == CAND_CMDS && cd->ndev) {
			fprintf(f, "# (its commands see IOREEL_STUDY_DEVICES='");
			for (int i = 0; i < cd->ndev; i++)
				fprintf(f, "%s%s", i ? " " : "", cd->devices[i]);
			fprintf(f, "')\n");
		}
	}
	state_line(s, "built %s", cand_name(s, c));
	ret = build_up(&b);
	for (int i = 0; !ret && !s->x.dry_run && i < s->p.cand[c].ndev; i++) {
		char type[64], uuid[64];

		vet_signature(s->p.cand[c].devices[i], type, sizeof(type), uuid, sizeof(uuid));
		state_line(s, "made %s %d %s", cand_name(s, c), i, *uuid ? uuid : "-");
	}
	if (b.record) {
		fclose(b.record);
		b.record = NULL;
	}
	ret = ret ? 1 : 0;
	for (int w = 0; w < s->p.nwork; w++)
		first[w] = true;
	for (int r = 0; !ret && r < s->p.repeats; r++)
		for (int w = 0; !ret && w < s->p.nwork; w++) {
			if (s->done[c][w][r])
				continue;
			if (study_stop) {
				ret = -1;
				break;
			}
			progress(s, c, w, r, ++*idx, total);
			ret = run_cell(s, &b, c, w, r, first[w]);
			first[w] = false;
		}
	if (!s->x.quiet || s->x.dry_run)
		fprintf(s->x.dry_run ? stdout : stderr, "# candidate [%s]: tear down%s\n",
			cand_name(s, c),
			ret < 0 ? " (interrupted)"
			: ret	? " (a step failed)"
				: "");
	down = build_down(&b);
	if (down) {
		cli_error("candidate [%s] could not be torn down whole: see above; fix it by hand "
			  "before the next run (--resume tries again)",
			  cand_name(s, c));
		return 2;
	}
	state_line(s, "torn %s", cand_name(s, c));
	return ret;
}

/* Prints (dry run) or runs the report's commands: analyze --html per workload. */
static int report_cmd(char *const argv[], const char *out, void *arg)
{
	struct study *s = arg;
	struct step st = {.argv = (char **)argv, .out = out};

	return exec_run(&s->x, &st, NULL);
}

/*
 * What the state file at path (read by state_read) says of starting the study there: 0 to go
 * on, or the exit code of a refusal (said). An earlier start that stopped before its first cell
 * finished (a synth that failed, a candidate that failed to build, a Ctrl-C) left
 * nothing measured and nothing standing: *restart, the study starts again under the plan as it
 * is now, rather than send the user to delete the directory (its synthesized workloads are
 * made again: they may be of the plan's earlier version). The run decides with it once it holds
 * the state file's lock, a dry run on the file as it is.
 */
static int state_verdict(struct study *s, const char *path, bool *restart)
{
	*restart = false;
	if (s->state_foreign) {
		cli_error("%s is not the state file of an ioreel study: give another --results "
			  "DIR (nothing was written)", path);
		return EXIT_USAGE;
	}
	if (!s->ncells && s->built < 0) {
		*restart = true;
		s->resume = false;
		return 0;
	}
	if (!s->resume) {
		cli_error("%s holds a study already (%d cells done): --resume to continue it, or "
			  "give another --results DIR (nothing was written)",
			  s->p.results, s->ncells);
		return EXIT_USAGE;
	}
	if (s->plan_changed) {
		cli_error("%s holds the results of another version of the plan (it changed since): "
			  "use another --results DIR, or put the plan back (nothing was written)",
			  s->p.results);
		return EXIT_USAGE;
	}
	return 0;
}

static int open_results(struct study *s)
{
	char path[PATH_MAX];
	struct stat st;
	bool exists, restart = false;
	int ret;

	snprintf(path, sizeof(path), "%s/state", s->p.results);
	exists = !stat(path, &st);
	if (mkdirs(s->p.results)) {
		cli_error("cannot create the results directory %s: %s", s->p.results,
			  strerror(errno));
		return EXIT_RUNTIME;
	}
	{
		/* absolute from here on: the log and the mount table read better, and the
		 * commands mean the same wherever they are replayed from */
		char real[PATH_MAX];

		if (realpath(s->p.results, real) && strlen(real) < sizeof(s->p.results))
			strcpy(s->p.results, real);
		snprintf(path, sizeof(path), "%s/state", s->p.results);
	}
	s->state_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (s->state_fd < 0) {
		cli_error("cannot write %s: %s", path, strerror(errno));
		return EXIT_RUNTIME;
	}
	/* Held until the study exits (the lock goes with the process, kill -9 too). The device
	 * locks do not cover a candidate without devices= (setup= alone): a --resume of a study
	 * still running would read its state, tear its candidate down under its replay and run
	 * its cells a second time. */
	if (flock(s->state_fd, LOCK_EX | LOCK_NB)) {
		cli_error("%s is in use by another ioreel study running now (fuser %s names it): "
			  "let it end, or give another --results DIR; nothing was written",
			  s->p.results, path);
		return EXIT_RUNTIME;
	}
	ret = state_read(s, path);
	if (!ret && exists)
		ret = state_verdict(s, path, &restart);
	if (ret)
		return ret;
	if (restart) {
		if (ftruncate(s->state_fd, 0)) {
			cli_error("cannot rewrite %s: %s", path, strerror(errno));
			return EXIT_RUNTIME;
		}
		if (!s->x.quiet)
			fprintf(stderr, "study: %s holds no finished cell and no candidate left "
				"built: starting the study there again\n", s->p.results);
		exists = false;
	}
	if (!exists) {
		state_line(s, STATE_MAGIC);
		state_line(s, "plan %llx", (unsigned long long)s->p.hash);
	}
	snprintf(path, sizeof(path), "%s/log", s->p.results);
	s->x.log = fopen(path, "a");
	snprintf(path, sizeof(path), "%s/plan.ini", s->p.results);
	if (!exists) {
		FILE *f = fopen(path, "w");

		if (f) {
			fwrite(s->p.text, 1, s->p.text_len, f);
			fclose(f);
		}
	}
	return 0;
}

/*
 * The devices of the candidate a crash left built must still hold what the build made there,
 * or nothing: a disk's name may point at another disk since (a reboot renames /dev/sdX, a loop
 * device is reused), and the teardown wiped and the run rebuilt on a user's filesystem there.
 */
static int leftover_ours(const struct study *s)
{
	const struct candidate *c = &s->p.cand[s->built];

	for (int i = 0; i < c->ndev; i++) {
		char type[64], uuid[64];
		int ret = vet_signature(c->devices[i], type, sizeof(type), uuid, sizeof(uuid));

		if (ret <= 0 || (s->made_known && *uuid && !strcmp(uuid, s->made[i])))
			continue;
		cli_error("candidate [%s] was left built by an earlier run, but %s carries a %s "
			  "signature%s%s that the study did not leave there (%s%s): the name may "
			  "point at another disk since (a reboot renames disks). Nothing was torn "
			  "down or wiped; if %s is the study's disk, wipe it by hand (wipefs -a "
			  "%s) and --resume again",
			  c->name, c->devices[i], type, *uuid ? " UUID " : "", uuid,
			  !s->made_known ? "its build did not finish, or the state predates the "
					   "check"
			  : strcmp(s->made[i], "-") ? "it left UUID "
						    : "it left none",
			  s->made_known && strcmp(s->made[i], "-") ? s->made[i] : "",
			  c->devices[i], c->devices[i]);
		return EXIT_RUNTIME;
	}
	return 0;
}

/* A crash left candidate s->built up (mounted, an array running): take it down first. */
static int teardown_leftover(struct study *s)
{
	struct build b;

	if (s->built < 0)
		return 0;
	if (leftover_ours(s))
		return EXIT_RUNTIME;
	if (s->x.dry_run)
		printf("\n# candidate [%s] was left built by an earlier run: tear it down first\n",
		       cand_name(s, s->built));
	else
		cli_warn("candidate [%s] was left built by an earlier run: tearing it down",
			 cand_name(s, s->built));
	build_init(&b, &s->p.cand[s->built], &s->x, s->p.results);
	if (build_down(&b))
		return EXIT_RUNTIME;
	state_line(s, "torn %s", cand_name(s, s->built));
	s->built = -1;
	return 0;
}

static int study_main(struct study *s)
{
	int ret, total = 0, idx = 0, failed = 0;
	bool opened = false;
	int dry_refused = 0;
	char state[PATH_MAX];
	struct stat st;

	/* from here on a Ctrl-C is counted, never fatal: every teardown must run whole */
	if (!s->x.dry_run)
		exec_signals();
	/* resuming after a crash: our own candidate may still hold the devices, and the vetting
	 * would refuse them as in use; it comes down first (its devices locked meanwhile) */
	snprintf(state, sizeof(state), "%s/state", s->p.results);
	if (!s->x.dry_run && s->resume && s->vo.allow_writes && !stat(state, &st)) {
		ret = vet_lock_devices(&s->p, false);
		if (!ret)
			ret = open_results(s);
		if (!ret)
			ret = teardown_leftover(s);
		if (ret)
			return ret;
		opened = true;
	}
	ret = vet_plan(&s->p, &s->vo);
	if (s->x.dry_run) {
		bool restart;

		dry_refused = ret; /* the commands are printed all the same */
		if (!dry_refused) /* another study on its devices now: the run would refuse */
			dry_refused = vet_lock_devices(&s->p, true);
		/* what the run decides from a state file there, and the cells it would skip */
		if (!stat(state, &st)) {
			ret = state_read(s, state);
			if (!ret)
				ret = state_verdict(s, state, &restart);
			if (ret && dry_refused != EXIT_USAGE)
				dry_refused = ret;
		}
		ret = 0;
	}
	if (ret)
		return ret;
	if (!s->x.dry_run) {
		if (!opened) {
			ret = vet_lock_devices(&s->p, false);
			if (!ret)
				ret = open_results(s);
			if (ret)
				return ret;
		}
		exec_log(&s->x, "study %s%s", s->p.path, s->resume ? " --resume" : "");
		if (s->ncells)
			fprintf(stderr, "study: %d of %d cells already done in %s: skipping them\n",
				s->ncells, s->p.ncand * s->p.nwork * s->p.repeats, s->p.results);
	} else {
		printf("# ioreel study %s --dry-run: every command in order; none is run\n",
		       s->p.path);
		printf("# (the study itself also drops caches and writes results to %s)\n\n",
		       s->p.results);
		if (s->resume)
			teardown_leftover(s); /* as the run does first */
	}
	ret = synth_workloads(s);
	if (ret)
		return ret;
	for (int c = 0; c < s->p.ncand; c++)
		for (int w = 0; w < s->p.nwork; w++)
			for (int r = 0; r < s->p.repeats; r++)
				total += !s->done[c][w][r];
	for (int c = 0; c < s->p.ncand && !study_stop; c++) {
		if (cand_finished(s, c))
			continue;
		ret = run_candidate(s, c, &idx, total);
		if (ret == 2)
			return EXIT_RUNTIME;
		failed += ret == 1;
	}
	if (study_stop && !s->x.dry_run) {
		cli_error("interrupted: %d of %d cells done, the candidate torn down; continue "
			  "with: ioreel study %s --allow-writes --resume%s",
			  s->ncells, s->p.ncand * s->p.nwork * s->p.repeats, s->p.path,
			  s->vo.force ? " --force" : "");
		return EXIT_RUNTIME;
	}
	{
		struct report_opts ro = {
		    .json = s->json, .quiet = s->x.quiet, .self = s->self, .dry_run = s->x.dry_run};

		ret = report_write(&s->p, s->cells, s->ncells, &ro, report_cmd, s);
	}
	if (s->x.dry_run && dry_refused) {
		printf("\n# a real run would refuse this plan: see the errors above\n");
		cli_error("%s: a real run would refuse this plan (the errors above); the commands "
			  "were printed all the same", s->p.path);
		return dry_refused;
	}
	if (failed) {
		cli_error("%d candidate(s) failed (see above and %s/log); --resume runs their "
			  "missing cells again",
			  failed, s->p.results);
		return EXIT_RUNTIME;
	}
	return ret;
}

int cmd_study(int argc, char **argv)
{
	static const struct option opts[] = {{"allow-writes", no_argument, NULL, 'w'},
					     {"force", no_argument, NULL, 'f'},
					     {"dry-run", no_argument, NULL, 'n'},
					     {"resume", no_argument, NULL, 'r'},
					     {"results", required_argument, NULL, 'o'},
					     {"json", no_argument, NULL, 'j'},
					     {"quiet", no_argument, NULL, 'q'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	struct study *s = calloc(1, sizeof(*s));
	const char *results = NULL;
	char err[1024];
	ssize_t n;
	int opt, ret;

	if (!s) {
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	s->state_fd = -1;
	s->built = -1;
	while ((opt = getopt_long(argc, argv, "nqo:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'w':
			s->vo.allow_writes = true;
			break;
		case 'f':
			s->vo.force = true;
			break;
		case 'n':
			s->vo.dry_run = s->x.dry_run = true;
			break;
		case 'r':
			s->resume = true;
			break;
		case 'o':
			/* two directories: refused, not the last one taken (cli_set_once) */
			if (cli_set_once(&results, "-o/--results", optarg)) {
				free(s);
				return EXIT_USAGE;
			}
			break;
		case 'j':
			s->json = true;
			break;
		case 'q':
			s->x.quiet = true;
			break;
		case 'h':
			usage(stdout);
			free(s);
			return EXIT_OK;
		default:
			usage(stderr);
			free(s);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		cli_error("give one PLAN file (ioreel study --help shows one)");
		free(s);
		return EXIT_USAGE;
	}
	n = readlink("/proc/self/exe", s->self, sizeof(s->self) - 1);
	if (n <= 0) {
		cli_error("cannot find the ioreel binary (/proc/self/exe): %s", strerror(errno));
		free(s);
		return EXIT_RUNTIME;
	}
	s->self[n] = '\0';
	ret = plan_load(&s->p, argv[optind], err, sizeof(err));
	if (ret) {
		cli_error("%s", err);
		plan_free(&s->p);
		free(s);
		return ret == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	if (results && !*results) {
		/* it named no directory: the run failed at its mkdir, the dry run wrote the cells
		 * to /cells/... */
		cli_error("--results '': give the directory the study's results go to (it is made "
			  "if missing)");
		ret = EXIT_USAGE;
	} else if (results && strlen(results) >= sizeof(s->p.results) - 1) {
		cli_error("--results %s: path too long", results);
		ret = EXIT_USAGE;
	} else if (results) {
		snprintf(s->p.results, sizeof(s->p.results), "%s", results);
		s->p.results_line = -1;
	} else if (!*s->p.results) {
		cli_error("%s: its path is too long for the results beside it: give --results DIR, "
			  "or results= in its [study]",
			  argv[optind]);
		ret = EXIT_USAGE;
	}
	if (!ret)
		ret = study_main(s);
	if (s->state_fd >= 0)
		close(s->state_fd);
	if (s->x.log)
		fclose(s->x.log);
	free(s->cells);
	plan_free(&s->p);
	free(s);
	return ret;
}
