/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Running (or, under --dry-run, printing) the commands of a study, logged (study/exec.c). */
#ifndef IOREEL_STUDY_EXEC_H
#define IOREEL_STUDY_EXEC_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* How many SIGINT/SIGTERM/SIGHUP arrived. */
extern volatile sig_atomic_t study_stop;

struct exec_ctx {
	bool dry_run, quiet;
	FILE *log; /* the results directory's log, once it exists */
};

struct step {
	char **argv;	    /* NULL-terminated */
	const char *out;    /* stdout to this file */
	bool shell;	    /* argv is sh -c CMD: print CMD alone */
	bool interruptible; /* a Ctrl-C is passed on to it */
	bool insist;	    /* with interruptible: only a second Ctrl-C is */
	bool quiet_out;	    /* its stdout to stderr (the study's stdout is its report) */
	bool no_stderr;	    /* a try that may fail and is retried: its stderr is dropped */
};

struct exec_res {
	uint64_t wall_ns, cpu_ns;
	bool interrupted; /* a Ctrl-C was passed to it */
};

void exec_signals(void);
/* The exit status (0 ok), 128+N for signal N, or -errno when it could not be started. */
int exec_run(struct exec_ctx *x, const struct step *s, struct exec_res *res);
int exec_sh(struct exec_ctx *x, const char *cmd, bool interruptible, bool insist);
/* Logs (and prints) something the study does itself as the shell command it equals. */
void exec_note(struct exec_ctx *x, const char *what);
void exec_print(FILE *f, const struct step *s);
void exec_log(struct exec_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
