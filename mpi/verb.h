/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the fleet's verbs share: their command lines and the run of a trace set (replay.c). */
#ifndef IOREEL_MPI_VERB_H
#define IOREEL_MPI_VERB_H

#include "mpi/fleet.h"

/* ---- cli.c ---- */
struct fleet_set;

/* A fleet option taken out of argv before the shared code's parser reads the rest. */
struct fleet_opt {
	const char *name; /* without "--" */
	bool arg;
};

/*
 * Copies argv into rest without the options of table, calling apply(ctx, name, value) for
 * each ("--name value" or "--name=value"); everything after "--" is copied as it is.
 * 0 or the first -errno of apply (or -EINVAL for a missing value, said on stderr).
 */
int fleet_take_opts(int argc, char **argv, const struct fleet_opt *table, char **rest, int *nrest,
		    void *ctx, int (*apply)(void *ctx, const char *name, const char *val));

/* What a rank's shared code prints on stderr while parsing, kept for rank 0 to say once. */
struct capture {
	int saved, fd;
};
void capture_begin(struct capture *c);
/* Restores stderr; the text (prefixes "ioreel mpi VERB: " dropped, lines joined) into buf. */
void capture_end(struct capture *c, char *buf, size_t len);

/* ---- replay.c: a trace set replayed over the ranks ---- */
struct fleet_set {
	struct fleet *f;
	struct replay_cli cli;
	struct plan_opts po;
	uint64_t slack_ns, wait_ns;
	unsigned int rounds;
	const char *share_dir;
	const char *const *paths;
	int npaths;
	char **rest;
	char *cmdline;
	struct plan *plan;
	struct share share;
	struct replay_map maps[TRACE_MAX_DEVICES];
	unsigned int nmaps;
	char target_paths[TRACE_MAX_DEVICES][PLAN_PATH_LEN];
	char output[PLAN_PATH_LEN];
	int stage; /* agreements reached: 1 the target checks, 2 setting up */
	bool cancelled, started;
	struct rank_result res;
	char why[FLEET_MSG_LEN];
};

/* Reads replay's options and the fleet's; 0, 1 after --help, -EINVAL (every rank agrees). */
int fleet_parse_set(struct fleet *f, int argc, char **argv, struct fleet_set *s, bool need_traces);
int fleet_check_set(const struct fleet *f, struct fleet_set *s, bool need_traces);
/* Plans, builds each rank's part, replays it on the common start, reports. The exit code.
 * local_paths, when set, may replace the plan's trace paths with this rank's own copies. */
int fleet_run_set(struct fleet *f, struct fleet_set *s, const char *title,
		  void (*local_paths)(struct fleet_set *s));
void fleet_set_free(struct fleet_set *s);

#endif
