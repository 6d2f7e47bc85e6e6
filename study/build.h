/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Building and tearing down one candidate (study/build.c). */
#ifndef IOREEL_STUDY_BUILD_H
#define IOREEL_STUDY_BUILD_H

#include <stdio.h>
#include "study/exec.h"
#include "study/study.h"

struct build {
	const struct candidate *c;
	struct exec_ctx *x;
	const char *results;
	FILE *record;	    /* the commands as run (shown in the report), or NULL */
	char mnt[4200];	    /* results/mnt/NAME */
	char md[128];	    /* /dev/md/ioreel-NAME */
	char target[4300];  /* what the workloads run on */
	bool target_is_dir; /* a file in a filesystem: replay makes it with --size */
	bool target_is_blk;
};

void build_init(struct build *b, const struct candidate *c, struct exec_ctx *x,
		const char *results);
/* 0, or non-zero after saying which step failed; build_down undoes any part of it. */
int build_up(struct build *b);
/* Unmounts, stops the array, forgets btrfs members, wipes signatures; or runs teardown=. */
int build_down(struct build *b);

#endif
