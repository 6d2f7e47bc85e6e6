// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Every step of a study is one command, logged before it runs (stderr and the results log)
 * and printed instead of run under --dry-run. Children get their own process group, so a
 * Ctrl-C reaches the study alone, which passes it on once to the step being measured and
 * never to a teardown: the candidate must come down whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include "study/exec.h"
#include "util/cli.h"

volatile sig_atomic_t study_stop;

static void on_signal(int sig)
{
	(void)sig;
	study_stop++;
}

/* SIGALRM only wakes wait4 (no SA_RESTART) to look at study_stop again. */
static void on_alarm(int sig)
{
	(void)sig;
}

void exec_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	cli_catch_hangup(&sa);
	/* A stderr whose reader is gone (`ioreel study plan 2>&1 | sed`, the pipeline killed
	 * with it) must not end the study at its "interrupted" line, before the teardown: a
	 * demo stopped so left btrfs RAID6 mounted over four loop devices. Its commands get the
	 * default back. */
	signal(SIGPIPE, SIG_IGN);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
}

/* A word as sh reads it back: bare when safe, else in single quotes. */
static void put_word(FILE *f, const char *w)
{
	if (*w && !w[strcspn(w, " \t\n'\"\\$`;&|<>()*?[]#~{}!")]) {
		fputs(w, f);
		return;
	}
	fputc('\'', f);
	for (; *w; w++)
		if (*w == '\'')
			fputs("'\\''", f);
		else
			fputc(*w, f);
	fputc('\'', f);
}

void exec_print(FILE *f, const struct step *s)
{
	if (s->shell) {
		fputs(s->argv[2], f);
	} else {
		for (int i = 0; s->argv[i]; i++) {
			if (i)
				fputc(' ', f);
			put_word(f, s->argv[i]);
		}
	}
	if (s->out)
		fprintf(f, " >%s", s->out);
}

void exec_log(struct exec_ctx *x, const char *fmt, ...)
{
	va_list ap;

	if (x->log) {
		time_t t = time(NULL);
		char ts[32];

		strftime(ts, sizeof(ts), "%F %T", localtime(&t));
		fprintf(x->log, "%s ", ts);
		va_start(ap, fmt);
		vfprintf(x->log, fmt, ap);
		va_end(ap);
		fputc('\n', x->log);
		fflush(x->log);
	}
}

static void announce(struct exec_ctx *x, const struct step *s)
{
	FILE *f = x->dry_run ? stdout : stderr;

	if (x->dry_run || !x->quiet) {
		fputs(x->dry_run ? "" : "+ ", f);
		exec_print(f, s);
		fputc('\n', f);
		fflush(f);
	}
	if (x->log) {
		time_t t = time(NULL);
		char ts[32];

		strftime(ts, sizeof(ts), "%F %T", localtime(&t));
		fprintf(x->log, "%s + ", ts);
		exec_print(x->log, s);
		fputc('\n', x->log);
		fflush(x->log);
	}
}

void exec_note(struct exec_ctx *x, const char *what)
{
	struct step s = {.argv = (char *[]){"/bin/sh", "-c", (char *)what, NULL}, .shell = true};

	announce(x, &s);
}

int exec_run(struct exec_ctx *x, const struct step *s, struct exec_res *res)
{
	struct rusage ru;
	uint64_t t0;
	pid_t pid, parent;
	int st = 0, fd = -1, seen = study_stop;
	bool passed = false, noted = false;
	uint64_t kill_at = 0;

	announce(x, s);
	if (res)
		memset(res, 0, sizeof(*res));
	if (x->dry_run)
		return 0;
	if (s->out) {
		fd = open(s->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			cli_error("cannot create %s: %s", s->out, strerror(errno));
			return -errno;
		}
	}
	t0 = now_mono_ns();
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		cli_error("cannot start %s: %s", s->argv[0], strerror(errno));
		if (fd >= 0)
			close(fd);
		return -EAGAIN;
	}
	if (!pid) {
		int null = open("/dev/null", O_RDONLY);
		struct sigaction dfl = {.sa_handler = SIG_DFL};

		setpgid(0, 0);
		/* a study killed outright (kill -9, a crash) must not leave a replay writing to a
		 * candidate that --resume is about to tear down: it stops with its study */
		if (s->interruptible) {
			prctl(PR_SET_PDEATHSIG, SIGINT);
			if (getppid() != parent)
				_exit(130);
		}
		sigaction(SIGINT, &dfl, NULL);
		sigaction(SIGTERM, &dfl, NULL);
		sigaction(SIGHUP, &dfl, NULL);
		sigaction(SIGPIPE, &dfl, NULL);
		if (null >= 0)
			dup2(null, 0);
		if (s->no_stderr && null >= 0) {
			int w = open("/dev/null", O_WRONLY);

			if (w >= 0)
				dup2(w, 2);
		}
		if (fd >= 0)
			dup2(fd, 1);
		else if (x->quiet || s->quiet_out)
			dup2(2, 1);
		execvp(s->argv[0], s->argv);
		fprintf(stderr, "ioreel study: cannot run %s: %s\n", s->argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	if (fd >= 0)
		close(fd);
	for (;;) {
		pid_t r;

		/* woken once a second to pass on a Ctrl-C that came just before wait4 */
		if (s->interruptible)
			alarm(1);
		r = wait4(pid, &st, 0, &ru);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			cli_error("waiting for %s: %s", s->argv[0], strerror(errno));
			return -errno;
		}
		/* A new Ctrl-C during a measured step ends that step (it writes its output and
		 * exits); a teardown is never interrupted. A step that ignores it is ended after
		 * 10 s so that the teardown still comes. A setup= command is let finish on the
		 * first (the teardown= commands undo a whole setup, and may fail on half of one:
		 * the candidate would stay "built" for every --resume); a second ends it, for
		 * one that hangs. */
		if (s->interruptible && s->insist && study_stop == seen + 1 && !noted) {
			cli_warn("interrupted: letting this setup command finish, then tearing the "
				 "candidate down (Ctrl-C again to end the command now)");
			noted = true;
		}
		if (s->interruptible && study_stop - seen > s->insist && !passed) {
			kill(-pid, SIGINT);
			passed = true;
			kill_at = now_mono_ns() + 10000000000ULL;
		} else if (passed && now_mono_ns() > kill_at) {
			kill(-pid, SIGKILL);
		}
	}
	alarm(0);
	if (res) {
		res->wall_ns = now_mono_ns() - t0;
		res->cpu_ns = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
			      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
		res->interrupted = passed;
	}
	if (WIFEXITED(st)) {
		if (WEXITSTATUS(st) && x->log)
			exec_log(x, "  exit status %d", WEXITSTATUS(st));
		return WEXITSTATUS(st);
	}
	if (x->log)
		exec_log(x, "  killed by signal %d", WTERMSIG(st));
	return 128 + WTERMSIG(st);
}

int exec_sh(struct exec_ctx *x, const char *cmd, bool interruptible, bool insist)
{
	struct step s = {.argv = (char *[]){"/bin/sh", "-c", (char *)cmd, NULL},
			 .shell = true,
			 .interruptible = interruptible,
			 .insist = insist};

	return exec_run(x, &s, NULL);
}
