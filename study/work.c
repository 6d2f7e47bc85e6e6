// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A workload's two commands, `ioreel synth` (a preset or a fio job, once) and `ioreel replay`
 * (each cell), built in one place: what the study runs, prints under --dry-run, and (next)
 * checks before it builds anything are one command line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "study/study.h"

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
