// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A workload's two commands, `ioreel synth` (a preset or a fio job, once) and `ioreel replay`
 * (each cell), and the checks made on them before a study builds anything. The run (run.c)
 * and the checks build each command here, so that what is checked is what runs; the checks
 * call synth's and replay's own parsers in this process, so that a refusal found first is
 * the one the command would make, worded as it would word it. A dry run makes the same
 * checks: a day-long study must not end at its first cell over a typo in a preset's name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ioreel.h"
#include "formats/trace.h"
#include "replay/replay.h"
#include "study/study.h"
#include "synth/synth.h"
#include "util/cli.h"

void work_trace_path(const struct plan *p, int w, char *buf, size_t len)
{
	const struct workload *wl = &p->work[w];

	if (wl->kind == WORK_TRACE)
		snprintf(buf, len, "%s", wl->trace);
	else
		snprintf(buf, len, "%s/workloads/%s.ioreel", p->results, wl->name);
}

/* Appends the words of a plan value (plan.c split it once already, so it splits). They are
 * kept in own[] too: a parser may reorder argv (getopt does), and they are freed from there. */
static int add_words(struct work_cmd *c, const char *s)
{
	int k = s ? split_words(s, c->own, STUDY_MAX_WORDS) : 0;

	if (k < 0)
		return k;
	memcpy(c->argv + c->argc, c->own, k * sizeof(c->own[0]));
	c->nown = k;
	c->argc += k;
	return 0;
}

/* synth's own units: ms when whole (as the plan says it, mostly), else us, never cut to 0 */
static void fmt_runtime(uint64_t ns, char *buf, size_t len)
{
	if (ns % 1000000)
		snprintf(buf, len, "%lluus", (unsigned long long)(ns / 1000));
	else
		snprintf(buf, len, "%llums", (unsigned long long)(ns / 1000000));
}

int work_synth_cmd(struct work_cmd *c, const struct plan *p, int w, const char *argv0)
{
	const struct workload *wl = &p->work[w];
	char **v = c->argv;
	int ret;

	memset(c, 0, sizeof(*c));
	work_trace_path(p, w, c->out, sizeof(c->out));
	snprintf(c->size, sizeof(c->size), "%llu",
		 (unsigned long long)(wl->size ? wl->size : p->size));
	fmt_runtime(wl->runtime_ns ? wl->runtime_ns : p->runtime_ns, c->rt, sizeof(c->rt));
	v[c->argc++] = (char *)argv0;
	v[c->argc++] = "synth";
	if (wl->kind == WORK_PRESET) {
		v[c->argc++] = "--preset";
		v[c->argc++] = wl->preset;
		v[c->argc++] = "--size";
		v[c->argc++] = c->size;
	} else {
		v[c->argc++] = "--fio-job";
		v[c->argc++] = wl->fio;
		if (wl->section) {
			v[c->argc++] = "--section";
			v[c->argc++] = wl->section;
		}
		v[c->argc++] = wl->size ? "--size" : "--device-size";
		v[c->argc++] = c->size;
	}
	v[c->argc++] = "--runtime";
	v[c->argc++] = c->rt;
	ret = add_words(c, wl->options);
	if (ret)
		return ret;
	v[c->argc++] = "-o";
	v[c->argc++] = c->out;
	v[c->argc] = NULL;
	return 0;
}

int work_replay_cmd(struct work_cmd *c, const struct plan *p, int w, const char *argv0,
		    const struct work_where *at)
{
	const struct workload *wl = &p->work[w];
	char **v = c->argv;
	int ret;

	memset(c, 0, sizeof(*c));
	work_trace_path(p, w, c->out, sizeof(c->out));
	v[c->argc++] = (char *)argv0;
	v[c->argc++] = "replay";
	v[c->argc++] = c->out;
	v[c->argc++] = "--target";
	v[c->argc++] = (char *)at->target;
	if (at->target_is_dir) {
		snprintf(c->size, sizeof(c->size), "%llu", (unsigned long long)p->size);
		v[c->argc++] = "--size";
		v[c->argc++] = c->size;
	}
	v[c->argc++] = "--allow-writes";
	if (at->force)
		v[c->argc++] = "--force";
	if (*wl->mode) {
		v[c->argc++] = "--mode";
		v[c->argc++] = (char *)wl->mode;
	}
	/* the first run of a workload on a candidate writes what it reads once (not timed) */
	if (at->first)
		v[c->argc++] = "--prefill";
	ret = add_words(c, wl->replay_opts);
	if (ret)
		return ret;
	v[c->argc++] = "-o";
	v[c->argc++] = (char *)at->part;
	v[c->argc++] = "-q";
	v[c->argc++] = "--json";
	v[c->argc] = NULL;
	return 0;
}

void work_cmd_free(struct work_cmd *c)
{
	while (c->nown)
		free(c->own[--c->nown]);
}

/* The presets a study can run: one trace each ("4k-randread, 4k-randwrite, ..."). */
static void preset_names(char *buf, size_t len)
{
	const struct synth_preset *sp;
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; (sp = synth_preset_at(i)) && n < len; i++)
		if (sp->variants == 1)
			n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "", sp->name);
}

static int check_preset(const struct plan *p, const struct workload *wl)
{
	const struct synth_preset *sp = synth_preset_find(wl->preset);
	char names[512];

	preset_names(names, sizeof(names));
	if (!sp) {
		plan_error(p, wl->kind_line,
			   "workload [%s]: preset=%s is not a preset: give one of %s "
			   "(ioreel synth --list-presets says what each runs)",
			   wl->name, wl->preset, names);
		return EXIT_USAGE;
	}
	/* synth writes FILE-<test>.ioreel per test, and the cells would replay a FILE.ioreel
	 * that was never written */
	if (sp->variants > 1) {
		plan_error(
		    p, wl->kind_line,
		    "workload [%s]: preset=%s makes %d traces (one per test), and a workload "
		    "replays one: give one workload per test as a fio= job, or a preset with "
		    "options= (%s)",
		    wl->name, wl->preset, sp->variants, names);
		return EXIT_USAGE;
	}
	return 0;
}

/* synth's own checks on the command the run would give it (cmd_synth --check). */
/*
 * Runs synth's own checks on the command, its stderr held back unless it refuses: before a
 * real run synth's warnings would be said twice (here, then by the synth the run starts);
 * a dry run starts none, so there they are said here.
 */
static int synth_checked(struct work_cmd *c, bool quiet_unless_refused)
{
	FILE *held = quiet_unless_refused ? tmpfile() : NULL;
	int saved = held ? dup(2) : -1, ret;
	char buf[4096];
	size_t n;

	fflush(stderr);
	if (saved >= 0 && dup2(fileno(held), 2) < 0) {
		close(saved);
		saved = -1;
	}
	ret = cmd_synth(c->argc - 1, c->argv + 1);
	fflush(stderr);
	if (saved >= 0) {
		dup2(saved, 2);
		close(saved);
		rewind(held);
		while (ret && (n = fread(buf, 1, sizeof(buf), held)) > 0)
			fwrite(buf, 1, n, stderr);
	}
	if (held)
		fclose(held);
	return ret;
}

static int check_synth(const struct plan *p, int w, bool dry_run)
{
	const struct workload *wl = &p->work[w];
	const char *verb = cli_verb;
	struct work_cmd *c = calloc(1, sizeof(*c));
	int ret;

	if (!c) {
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	ret = work_synth_cmd(c, p, w, "ioreel");
	if (!ret) {
		c->argv[c->argc++] = "--check";
		c->argv[c->argc] = NULL;
		/* its messages as its own: "ioreel synth: unknown option --bogus ..." */
		cli_verb = "synth";
		ret = synth_checked(c, !dry_run);
		cli_verb = verb;
	} else {
		cli_error("workload [%s]: options=: %s", wl->name, split_words_error(ret));
	}
	work_cmd_free(c);
	free(c);
	if (!ret)
		return 0;
	plan_error(p, wl->line,
		   "workload [%s]: ioreel synth refuses its command (said above): mend %s "
		   "in [%s], or size=/runtime= in [study]",
		   wl->name,
		   wl->kind == WORK_FIO ? "fio=, section=, options=, size= or runtime="
					: "options=, size= or runtime=",
		   wl->name);
	return EXIT_USAGE;
}

/* A recording replays with --target: it must be an ioreel trace, and a block-level one. */
static int check_trace(const struct plan *p, const struct workload *wl)
{
	char why[1024] = "";
	struct trace_reader *r = trace_reader__open(wl->trace, 0, why, sizeof(why));
	bool file;

	if (!r) {
		plan_error(p, wl->kind_line,
			   "workload [%s]: trace=: %s: give the path of an ioreel trace (ioreel "
			   "record, convert or synth writes one)",
			   wl->name, *why ? why : strerror(errno));
		return EXIT_USAGE;
	}
	file = trace_reader__meta(r)->level == TRACE_LEVEL_FILE;
	trace_reader__close(r);
	if (file) {
		plan_error(
		    p, wl->kind_line,
		    "workload [%s]: trace=%s is a file-level trace (replayed on files under "
		    "--root): a study replays block-level traces on its candidates' targets; "
		    "give one ioreel record makes without --level file",
		    wl->name, wl->trace);
		return EXIT_USAGE;
	}
	return 0;
}

/* Does a cell replay on a file in a directory somewhere (run_cell adds --size to it)? */
static bool any_dir_target(const struct plan *p)
{
	for (int i = 0; i < p->ncand; i++)
		if (p->cand[i].kind == CAND_FS ||
		    (p->cand[i].kind == CAND_CMDS && strncmp(p->cand[i].target, "/dev/", 5)))
			return true;
	return false;
}

/* replay's own option parser on the command a cell would run: its first, with --prefill, and
 * with --size where a candidate gives it (replay_opts=--size, given twice then, is refused) */
static int check_replay(const struct plan *p, int w, bool force)
{
	const struct workload *wl = &p->work[w];
	const char *verb = cli_verb;
	struct work_where at = {.target = "/dev/null",
				.part = "/dev/null",
				.force = force,
				.first = true,
				.target_is_dir = any_dir_target(p)};
	struct work_cmd *c = calloc(1, sizeof(*c));
	struct replay_cli *cli = calloc(1, sizeof(*cli));
	const char *why = "ioreel replay refuses them (said above)";
	int ret;

	if (!c || !cli) {
		free(c);
		free(cli);
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	ret = work_replay_cmd(c, p, w, "ioreel replay", &at);
	if (!ret) {
		/* getopt's own messages start with argv[0]: "ioreel replay: unrecognized ..." */
		c->argv[1] = c->argv[0];
		cli_verb = "replay";
		ret = replay_cli_parse(c->argc - 1, c->argv + 1, cli);
		cli_verb = verb;
		/* --help replays nothing, and a word left over would be a second trace */
		if (!ret && (cli->help || optind != c->argc - 2)) {
			why = cli->help
				  ? "--help replays nothing"
				  : "a word that is not an option (ioreel replay takes it for "
				    "a second trace)";
			ret = EXIT_USAGE;
		}
	} else {
		why = split_words_error(ret);
	}
	work_cmd_free(c);
	free(c);
	free(cli);
	if (!ret)
		return 0;
	/* without replay_opts=, what replay refused is the study's own options and mode= */
	plan_error(p, wl->replay_line ? wl->replay_line : wl->line,
		   "workload [%s]: %s%s: %s; mend it", wl->name,
		   wl->replay_opts ? "replay_opts=" : "mode=",
		   wl->replay_opts ? wl->replay_opts : wl->mode, why);
	return EXIT_USAGE;
}

int work_check(const struct plan *p, int w, bool force, bool dry_run)
{
	const struct workload *wl = &p->work[w];
	int ret = 0;

	if (wl->kind == WORK_PRESET)
		ret = check_preset(p, wl);
	if (!ret && wl->kind != WORK_TRACE)
		ret = check_synth(p, w, dry_run);
	if (!ret && wl->kind == WORK_TRACE)
		ret = check_trace(p, wl);
	/* its options are checked whatever its trace: both mistakes are said at once */
	return check_replay(p, w, force) ? EXIT_USAGE : ret;
}
