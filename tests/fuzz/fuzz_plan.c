// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for the study plan parser (study/plan.c): the input is the plan file,
 * written into a private temporary folder under one of three names picked from a hash of the
 * input (plan.ini, plan, a.b/plan: the results folder's default is the name without its
 * suffix, and a dot in a folder is no suffix), and loaded. A plan is what a user types, so
 * plan_load must never crash, leak or hang on one, and refuses it with "FILE:LINE: ..." (what
 * `ioreel study` prints): a refusal without the plan's name and a line within the file, or with
 * no message at all, aborts here like a crash.
 * A plan that parses goes through what consumes it without a device, root or a command: its
 * cells' result paths (first and last repeat), md or not, the words that options= and the like become on a command
 * line (split as run.c and build.c split them), and the report of --dry-run (no cells: it
 * prints the analyze commands, to a stdout sent to /dev/null, and writes nothing). The plan's
 * paths (fio=, trace=, results=, devices=) are only strings to the parser: nothing here opens,
 * writes or runs them.
 * Built and run by `make fuzz`. Seeds (tests/fuzz/corpus/fuzz_plan/): the README's plan, the
 * integration tests' plan, one plan per kind of candidate and workload, and a few refusals.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "study/study.h"

#define WORDS_MAX 160 /* build.c's MAX_ARGS: the most words any caller asks split_words for */

static char dir[] = "/tmp/fuzz_plan.XXXXXX";
static char paths[3][64];
static struct plan plan;

static void remove_dir(void)
{
	snprintf(paths[0], sizeof(paths[0]), "%s/a.b", dir);
	rmdir(paths[0]);
	rmdir(dir);
}

static int write_plan(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ssize_t n = fd < 0 ? -1 : write(fd, data, size);

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)size ? 0 : -1;
}

/* Every word split off s is freed; a refusal must leave nothing allocated (ASan's leak check). */
static void split(const char *s)
{
	char *v[WORDS_MAX];
	int n;

	if (!s)
		return;
	n = split_words(s, v, WORDS_MAX);
	for (int i = 0; i < n; i++)
		free(v[i]);
}

/* "PATH:LINE: what", LINE from 1 to the input's lines (+1: a plan without a last newline, and
 * line 1 for what the whole plan lacks) */
static void check_refusal(const char *path, const char *err, const uint8_t *data, size_t size)
{
	size_t plen = strlen(path), lines = 1;
	char *end;
	long line;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (strncmp(err, path, plen) || err[plen] != ':')
		goto bad;
	line = strtol(err + plen + 1, &end, 10);
	if (end == err + plen + 1 || line < 1 || (size_t)line > lines || strncmp(end, ": ", 2) ||
	    !end[2])
		goto bad;
	return;
bad:
	fprintf(stderr, "fuzz_plan: refused without FILE:LINE (%zu lines): '%s'\n", lines, err);
	abort();
}

/* report_write's runner: --dry-run's prints the command, here nothing runs */
static int no_run(char *const argv[], const char *out, void *arg)
{
	(void)argv;
	(void)out;
	(void)arg;
	return 0;
}

static void use_plan(const struct plan *p)
{
	const struct report_opts ro = { .dry_run = true, .self = "ioreel" };
	char buf[8192];

	if (p->ncand < 1 || p->ncand > STUDY_MAX_CAND || p->nwork < 1 ||
	    p->nwork > STUDY_MAX_WORK || p->repeats < 1 || p->repeats > STUDY_MAX_REPEATS ||
	    !*p->results) {
		fprintf(stderr, "fuzz_plan: a plan loaded with %d candidates, %d workloads, %d "
			"repeats, results '%s'\n", p->ncand, p->nwork, p->repeats, p->results);
		abort();
	}
	for (int c = 0; c < p->ncand; c++) {
		const struct candidate *cd = &p->cand[c];

		(void)cand_uses_md(cd);
		split(cd->mkfs_opts);
		split(cd->mount_opts);
		split(cd->raid_opts);
		/* the first and the last repeat: all 100 of 32 x 32 cells slowed every run */
		for (int w = 0; w < p->nwork; w++) {
			cell_path(p, c, w, 0, "part.ioreel", buf, sizeof(buf));
			cell_path(p, c, w, p->repeats - 1, "part.ioreel", buf, sizeof(buf));
		}
	}
	for (int w = 0; w < p->nwork; w++) {
		split(p->work[w].options);
		split(p->work[w].replay_opts);
	}
	if (report_write(p, NULL, 0, &ro, no_run, NULL))
		abort(); /* a dry run's report writes nothing, so nothing can fail */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t h = 2166136261u;
	const char *path;
	char err[1024];
	int ret;

	if (!paths[0][0]) {
		if (!mkdtemp(dir))
			abort();
		snprintf(paths[0], sizeof(paths[0]), "%s/a.b", dir);
		if (mkdir(paths[0], 0700))
			abort();
		snprintf(paths[0], sizeof(paths[0]), "%s/plan.ini", dir);
		snprintf(paths[1], sizeof(paths[1]), "%s/plan", dir);
		snprintf(paths[2], sizeof(paths[2]), "%s/a.b/plan", dir);
		atexit(remove_dir);
		if (!freopen("/dev/null", "w", stdout))
			abort();
	}
	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 16777619u;
	path = paths[h % 3];
	if (write_plan(path, data, size))
		abort();
	err[0] = '\0';
	ret = plan_load(&plan, path, err, sizeof(err));
	unlink(path); /* a crash or a leak report (no atexit then) leaves only the empty folders */
	if (ret == -EINVAL)
		check_refusal(path, err, data, size);
	else if (ret && !*err)
		abort(); /* a refusal says why */
	else if (!ret)
		use_plan(&plan);
	plan_free(&plan);
	return 0;
}
