/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Small helpers every verb needs: option values with units, and how errors are printed. */
#ifndef IOREEL_UTIL_CLI_H
#define IOREEL_UTIL_CLI_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes shared by every verb. */
enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

#define IOREEL_VERSION "0.1.0"

/* "4096", "4k", "16K", "1m", "2G", "1T" (powers of 1024, as fio reads them). 0 or -EINVAL. */
int parse_size(const char *s, uint64_t *bytes);
/* "10" (seconds), "500ms", "20us", "100ns", "1.5s", "2m", "1h": a plain decimal as
 * parse_decimal takes it, then the unit; no sign, hex or exponent. 0, -EINVAL, or -ERANGE (past
 * 292 years: 2^63 ns). */
int parse_duration_ns(const char *s, uint64_t *ns);
/* A plain unsigned integer, whole string. 0 or -EINVAL / -ERANGE. */
int parse_u64(const char *s, uint64_t *v);
/* A plain decimal number, whole string: "99", "99.9", ".5". Digits and one point only: strtod
 * alone also takes a sign, spaces, "0x32", "1e2", "nan" and "inf". 0, -EINVAL or -ERANGE. */
int parse_decimal(const char *s, double *v);

/* The verb name used as prefix of error messages ("ioreel replay: ..."). */
extern const char *cli_verb;
/* Who speaks, between the verb and the message ("rank 1 on hostB: " in the fleet); "". */
extern const char *cli_who;
/* Prints "ioreel VERB: <who><message>\n" to stderr, in one write. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * SIGINT/SIGTERM for a verb that stops by itself at its next check: cli_catch_stop() installs a
 * handler (without SA_RESTART, so a blocking read or write returns EINTR) that stores the
 * signal number in cli_stop; the verb's loops test cli_stop, clean up (temporary outputs
 * removed) and return. A second signal of the same kind ends the process at once.
 */
extern volatile sig_atomic_t cli_stop;
void cli_catch_stop(void);

/*
 * Installs sa for SIGHUP (a verb's clean stop when its terminal goes away) unless SIGHUP is
 * ignored: `nohup ioreel replay ...` asked to outlive the terminal, and the handler made the
 * hang-up end the run "interrupted" all the same.
 */
void cli_catch_hangup(const struct sigaction *sa);

/*
 * Flushes and closes stdout, and says so when that failed (`> /dev/full`, a closed pipe):
 * "ioreel VERB: cannot write the output (standard output): No space left on device".
 * Returns rc unchanged when stdout was written, EXIT_RUNTIME (if rc was EXIT_OK) otherwise.
 * Every verb's entry calls it last: `return cli_close_stdout(rc);`, and main() once more after
 * the verb returns (a second call does nothing), so that no path is left unchecked.
 */
int cli_close_stdout(int rc);
/*
 * The same check without closing stdout, for a verb another one also runs in its own process
 * (ioreel-mpi bench calls cmd_synth, then prints its own report on the same stdout).
 */
int cli_flush_stdout(int rc);

/*
 * A value the user gave, for a message that refuses it: as a JSON string literal (its control
 * bytes escaped: a value echoed as it is can move the cursor or recolour the terminal), cut
 * after CLI_SHOWN_MAX bytes with "..." (a 5,000-byte value filled the screen). Returns shown.
 */
#define CLI_SHOWN_MAX 80
#define CLI_SHOWN_LEN 512
const char *cli_shown(char shown[CLI_SHOWN_LEN], const char *arg);

/*
 * A single-valued option given again: the same value is fine, two values are refused (rather
 * than the last one taken silently). name is the option as the user spells it ("--html",
 * "-o/--output"). 0, or -EINVAL with the message printed (exit 2 follows).
 */
int cli_set_once(const char **slot, const char *name, const char *val);

/* After a usage error's one line: where the help is, "Try 'ioreel VERB --help'." (verb: "info"). */
void cli_try_help(const char *verb);

struct option;
/*
 * What getopt_long() refused, in one line, then "Try 'HELP'." (help: "ioreel analyze --help"),
 * rather than the whole usage text, in which the one line that matters scrolled away: "--from
 * needs a value", "unknown option '--bogus'", "--json takes no value". For getopt_long() given
 * short options that start with ':' (it then prints nothing and returns ':' for a missing value,
 * '?' for the rest); c is what it returned, lo its long options; verb ("info", "record --level
 * file") names the help the last line points to (cli_try_help). Returns EXIT_USAGE.
 */
int cli_getopt_error(int c, char *const *argv, const struct option *lo, const char *verb);

/* Monotonic and realtime clocks in ns. */
uint64_t now_mono_ns(void);
uint64_t now_real_ns(void);

/* Formats n bytes as "4.0 KiB" / ns as "12.3us" into buf; returns buf. */
char *fmt_bytes(uint64_t n, char *buf, size_t len);
char *fmt_ns(uint64_t ns, char *buf, size_t len);

#endif
