/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `ioreel study PLAN` (issue 25): builds each candidate of a plan, runs every workload on it
 * a number of times, tears it down, and reports the candidates side by side. It sits above
 * synth, replay and analyze as mpi/ does and drives them as child processes (the ioreel
 * binary itself), so every step is one loggable command and --dry-run can print them all.
 * plan.c reads the plan; vet.c checks it against this host (devices, tools, results) and
 * work.c its workloads, the same for a run and a dry run; run.c runs it, report.c reports.
 */
#ifndef IOREEL_STUDY_H
#define IOREEL_STUDY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define STUDY_MAX_CAND 32
#define STUDY_MAX_WORK 32
#define STUDY_MAX_DEVS 32
#define STUDY_MAX_CMDS 16
#define STUDY_MAX_REPEATS 100
#define STUDY_MAX_WORDS 100 /* in options=, replay_opts=, mkfs_opts=, raid_opts= */
/* runtime= of a preset or fio cell: at least 1 ms (below it the run gave synth --runtime 0ms,
 * which synth refuses), at most what synth takes (FIO_MAX_TIME_US, synth/fiovalue.c) */
#define STUDY_MIN_RUNTIME_NS 1000000ULL
#define STUDY_MAX_RUNTIME_NS 9200000000000000000ULL

enum cand_kind { CAND_FS, CAND_RAW, CAND_CMDS };
enum raid_kind { RAID_NONE, RAID_BTRFS, RAID_MD };
enum work_kind { WORK_PRESET, WORK_FIO, WORK_TRACE };

struct candidate {
	char name[64];
	int line;     /* where its section starts, for messages */
	int dev_line; /* devices= (0: none) */
	enum cand_kind kind;
	char fs[16]; /* ext4, xfs, btrfs; "raw" */
	enum raid_kind raid;
	char level[16];	   /* btrfs profile (raid0 ... raid6) or md level (0, 1, 5, 6, 10) */
	char metadata[16]; /* btrfs metadata profile (default: the data profile) */
	char *devices[STUDY_MAX_DEVS];
	int ndev;
	char *mkfs_opts, *mount_opts, *raid_opts;
	char *setup[STUDY_MAX_CMDS], *teardown[STUDY_MAX_CMDS];
	int nsetup, nteardown;
	char *target; /* setup=/teardown= candidates: the path to test */
};

struct workload {
	char name[64];
	int line;
	int kind_line;	 /* preset=, fio= or trace= */
	int replay_line; /* replay_opts= (0: none) */
	enum work_kind kind;
	char *preset, *fio, *section, *trace;
	char mode[16]; /* replay mode: dep or timed for traces; the synth default otherwise */
	char *options; /* extra synth options (presets, fio jobs) */
	char *replay_opts;
	uint64_t size, runtime_ns; /* 0: the study's */
};

struct plan {
	char path[4096];
	char *text; /* the plan as read (shown in the report) */
	size_t text_len;
	uint64_t hash;
	int repeats;
	uint64_t runtime_ns, size;
	char results[2048]; /* short enough for every path under it */
	int results_line;   /* results= in [study]; 0 beside the plan; -1 --results */
	struct candidate cand[STUDY_MAX_CAND];
	int ncand;
	struct workload work[STUDY_MAX_WORK];
	int nwork;
};

/* plan.c: 0, or -errno with "FILE:LINE: what is wrong" in err. */
int plan_load(struct plan *p, const char *path, char *err, size_t errlen);
void plan_free(struct plan *p);
/* Prints "FILE:LINE: " (the plan's, when line > 0) and the message, as cli_error does. */
void plan_error(const struct plan *p, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Splits s at blanks, honouring '...' and "..." quotes: argv entries appended to v. */
int split_words(const char *s, char **v, int max);
/* What a negative split_words result means, for a message ("unbalanced quotes"...). */
const char *split_words_error(int err);
bool cand_uses_md(const struct candidate *c);

/* vet.c */
struct vet_opts {
	bool force, allow_writes, dry_run;
};
/* Checks the plan against this host before anything is written: devices, tools, workloads
 * (work_check), the results directory. A dry run makes every check but --allow-writes.
 * 0, or an exit code (messages said): 2 for a mistake in the plan, else 1. */
int vet_plan(const struct plan *p, const struct vet_opts *o);
/* Before building one candidate: its devices are not mounted or held now. 0 or -EBUSY. */
int vet_candidate_free(const struct candidate *c, char *err, size_t errlen);
/* The signature on dev (libblkid): 1 with its TYPE and UUID ("" when it has none), 0 when it
 * carries none, -errno when it cannot be probed. */
int vet_signature(const char *dev, char *type, size_t tlen, char *uuid, size_t ulen);
/* Locks every listed device against another study running at once (check_only, a dry run:
 * only says whether a run could, taking and writing nothing). 0 or an exit code. */
int vet_lock_devices(const struct plan *p, bool check_only);
/* "md" when the kernel has md and mdadm is installed, else NULL with the reason. */
bool md_available(char *why, size_t len);

/* work.c: a workload's commands, built alike for the run and for the checks before it. */
struct work_cmd {
	char *argv[STUDY_MAX_WORDS + 28]; /* NULL-terminated */
	int argc;
	char *own[STUDY_MAX_WORDS]; /* the words of options= or replay_opts= (work_cmd_free) */
	int nown;
	char out[4096], size[32], rt[32];
};
/* Where a cell replays (its candidate, built) and what it writes. */
struct work_where {
	const char *target, *part;
	bool target_is_dir, force, first;
};
/* The trace workload w replays: synthesized once into RESULTS/workloads, or the recording. */
void work_trace_path(const struct plan *p, int w, char *buf, size_t len);
/* `ioreel synth ... -o RESULTS/workloads/W.ioreel` and `ioreel replay TRACE ...`: 0, or a
 * split_words error (options= or replay_opts=); work_cmd_free either way. */
int work_synth_cmd(struct work_cmd *c, const struct plan *p, int w, const char *argv0);
int work_replay_cmd(struct work_cmd *c, const struct plan *p, int w, const char *argv0,
		    const struct work_where *at);
void work_cmd_free(struct work_cmd *c);
/* Workload w as synth and replay would take it (without running them): 0 or an exit code,
 * said with the plan's line. synth's warnings are said on a dry run only (a run's synth says
 * them when it runs). */
int work_check(const struct plan *p, int w, bool force, bool dry_run);

/* One finished cell, as the state file records it. */
struct cell_result {
	int cand, work, rep;
	double cpu_pct;
	uint64_t wall_ns;
};

/* report.c */
struct report_opts {
	bool json, quiet, dry_run;
	const char *self; /* the ioreel binary */
};
/* The study's figures from its finished cells: table (stdout or JSON), report.json, HTML. */
int report_write(const struct plan *p, const struct cell_result *cells, int ncells,
		 const struct report_opts *o,
		 int (*run_cmd)(char *const argv[], const char *out, void *arg), void *arg);
/* results/cells/CAND/WORK/rN.ioreel */
void cell_path(const struct plan *p, int c, int w, int r, const char *ext, char *buf, size_t len);
/* HTML-escapes s into f. */

#endif
