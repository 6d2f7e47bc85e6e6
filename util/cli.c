// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include "util/cli.h"
#include "util/json.h"

const char *cli_verb = "";

int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*v = x;
	return 0;
}

int parse_decimal(const char *s, double *v)
{
	size_t digits = 0, points = 0;
	char *end;

	if (!s)
		return -EINVAL;
	for (const char *p = s; *p; p++) {
		if (isdigit((unsigned char)*p))
			digits++;
		else if (*p == '.')
			points++;
		else
			return -EINVAL;
	}
	if (!digits || points > 1)
		return -EINVAL;
	errno = 0;
	double x = strtod(s, &end);
	if (errno || !isfinite(x))
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*v = x;
	return 0;
}

int parse_size(const char *s, uint64_t *bytes)
{
	char *end;
	uint64_t mult = 1;

	if (!s || !*s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	switch (tolower((unsigned char)*end)) {
	case '\0':
		break;
	case 'k':
		mult = 1ULL << 10;
		break;
	case 'm':
		mult = 1ULL << 20;
		break;
	case 'g':
		mult = 1ULL << 30;
		break;
	case 't':
		mult = 1ULL << 40;
		break;
	default:
		return -EINVAL;
	}
	if (*end) {
		end++;
		/* fio accepts "4k", "4kb", "4KiB" alike */
		if (!strcasecmp(end, "b") || !strcasecmp(end, "ib"))
			end += strlen(end);
		if (*end)
			return -EINVAL;
	}
	if (x > UINT64_MAX / mult)
		return -ERANGE;
	*bytes = x * mult;
	return 0;
}

int parse_duration_ns(const char *s, uint64_t *ns)
{
	char number[64];
	const char *end;
	double mult = 1e9, x;
	size_t n;
	int rc;

	if (!s)
		return -EINVAL;
	/* The number alone goes through parse_decimal: strtod on the whole string took "0x10" as
	 * 16 s and "1e3ms" as 1 s. */
	n = strspn(s, "0123456789.");
	end = s + n;
	if (n >= sizeof(number))
		return -ERANGE; /* more digits than any duration up to 2^63 ns needs */
	memcpy(number, s, n);
	number[n] = '\0';
	rc = parse_decimal(number, &x);
	if (rc)
		return rc;
	if (!*end || !strcmp(end, "s"))
		mult = 1e9;
	else if (!strcmp(end, "ms"))
		mult = 1e6;
	else if (!strcmp(end, "us"))
		mult = 1e3;
	else if (!strcmp(end, "ns"))
		mult = 1;
	else if (!strcmp(end, "m"))
		mult = 60e9;
	else if (!strcmp(end, "h"))
		mult = 3600e9;
	else
		return -EINVAL;
	if (x * mult > 9.2e18) /* llround's long long: 292 years */
		return -ERANGE;
	*ns = (uint64_t)llround(x * mult);
	return 0;
}

const char *cli_who = "";

/* One write per message: processes sharing a stderr (the fleet's ranks under mpirun) then
 * interleave whole lines, never pieces of them. */
static void vsay(const char *kind, const char *fmt, va_list ap)
{
	char line[4096];
	size_t room = sizeof(line) - 1, n; /* one byte kept for the newline */
	int k = snprintf(line, room, "ioreel%s%s: %s%s", *cli_verb ? " " : "", cli_verb, cli_who,
			 kind);

	n = k < 0 ? 0 : (size_t)k < room ? (size_t)k : room - 1;
	k = vsnprintf(line + n, room - n, fmt, ap);
	n += k < 0 ? 0 : (size_t)k < room - n ? (size_t)k : room - n - 1;
	line[n++] = '\n';
	fwrite(line, 1, n, stderr); /* stderr is unbuffered: one write() */
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("warning: ", fmt, ap);
	va_end(ap);
}

volatile sig_atomic_t cli_stop;

static void on_stop(int sig)
{
	if (cli_stop == sig) {
		/* asked twice: the user means it */
		signal(sig, SIG_DFL);
		raise(sig);
	}
	cli_stop = sig;
}

void cli_catch_hangup(const struct sigaction *sa)
{
	struct sigaction old;

	if (!sigaction(SIGHUP, NULL, &old) && old.sa_handler == SIG_IGN)
		return;
	sigaction(SIGHUP, sa, NULL);
}

void cli_catch_stop(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

const char *cli_shown(char shown[CLI_SHOWN_LEN], const char *arg)
{
	FILE *f = fmemopen(shown, CLI_SHOWN_LEN, "w");

	_Static_assert(CLI_SHOWN_LEN > 6 * CLI_SHOWN_MAX + sizeof("\"\"..."),
		       "every byte shown may take a 6-byte escape");
	if (!f)
		return "(the value)";
	json_strn(f, arg, CLI_SHOWN_MAX);
	if (strlen(arg) > CLI_SHOWN_MAX)
		fputs("...", f);
	fclose(f);
	return shown;
}

int cli_set_once(const char **slot, const char *name, const char *val)
{
	if (*slot && (!val || strcmp(*slot, val))) {
		char a[CLI_SHOWN_LEN], b[CLI_SHOWN_LEN];

		cli_error("%s given twice (%s and %s): give it once", name, cli_shown(a, *slot),
			  cli_shown(b, val ? val : ""));
		return -EINVAL;
	}
	*slot = val;
	return 0;
}

/* The long option arg ("--perc=5", "--from") names, by its prefix as getopt_long takes it: its
 * index in lo, -1 for none, -2 for several (an ambiguous abbreviation). */
static int long_match(const struct option *lo, const char *arg, int val, bool by_val)
{
	size_t n = strcspn(arg, "=");
	int found = -1;

	for (int i = 0; lo && lo[i].name; i++) {
		if (strncmp(lo[i].name, arg, n) || (by_val && lo[i].val != val))
			continue;
		if (strlen(lo[i].name) == n)
			return i; /* exact */
		found = found == -1 ? i : -2;
	}
	return found;
}

void cli_try_help(const char *verb)
{
	fprintf(stderr, "Try 'ioreel %s --help'.\n", verb);
}

int cli_getopt_error(int c, char *const *argv, const struct option *lo, const char *verb)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	int n = (int)strcspn(arg, "="), i = -1;
	bool is_short = optopt > 0 && optopt < 256 && isgraph(optopt);

	if (!strncmp(arg, "--", 2) && arg[2])
		i = long_match(lo, arg + 2, optopt, optopt != 0);
	/* optopt names a short option and arg is not it: a short option in a group ("-qz")
	 * leaves optind on the group, and arg is the word before */
	if (i < 0 && optopt && is_short)
		cli_error(c == ':' ? "-%c needs a value" : "unknown option '-%c'", optopt);
	else if (i >= 0 && c == ':')
		cli_error("--%s needs a value", lo[i].name);
	else if (i >= 0 && arg[n] == '=')
		cli_error("--%s takes no value (given '%s')", lo[i].name, arg + n + 1);
	else if (!optopt && long_match(lo, arg + 2, 0, false) == -2)
		cli_error("option '%.*s' is ambiguous: give more of its name", n, arg);
	else if (!optopt)
		cli_error("unknown option '%.*s'", n, arg);
	else
		cli_error("option '%s' refused (a value missing, or one given to a flag)", arg);
	cli_try_help(verb);
	return EXIT_USAGE;
}

static int check_stdout(int rc, bool close)
{
	/* main() closes it again after every verb: for those that did not (help, record); a
	 * failure said once (a verb's flush, then main's close) is not said again */
	static bool closed, failed;
	int err = 0;

	if (closed || failed)
		return failed && rc == EXIT_OK ? EXIT_RUNTIME : rc;
	errno = 0;
	if (fflush(stdout) || ferror(stdout))
		err = errno ? errno : EIO;
	/* fclose reports what fflush could not (a write error of an NFS close, EBADF) */
	if (close) {
		closed = true;
		if (fclose(stdout) && !err)
			err = errno ? errno : EIO;
	}
	if (!err)
		return rc;
	failed = true;
	cli_error("cannot write the output (standard output): %s", strerror(err));
	return rc == EXIT_OK ? EXIT_RUNTIME : rc;
}

int cli_close_stdout(int rc)
{
	return check_stdout(rc, true);
}

int cli_flush_stdout(int rc)
{
	return check_stdout(rc, false);
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t now_mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t now_real_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

char *fmt_bytes(uint64_t n, char *buf, size_t len)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)n;
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)n);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
	return buf;
}

char *fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns < 10000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 10000000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 10000000000ULL)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
	return buf;
}
