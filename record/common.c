// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "util/cli.h"
#include "formats/trace.h"
#include "record/common.h"
#include "record/record_int.h"

#define STR_(x) #x
#define STR(x) STR_(x)

int rec_opt_bad(const struct option *lo, int c, const char *arg, const char *want,
		const char *help)
{
	char shown[CLI_SHOWN_LEN];
	int i;

	for (i = 0; lo[i].name && lo[i].val != c; i++)
		;
	cli_error("invalid value %s for --%s: %s (see %s)", cli_shown(shown, arg),
		  lo[i].name ? lo[i].name : "?", want, help);
	return -EINVAL;
}

int rec_common_opt(int c, const char *arg, struct rec_common *o, const struct option *lo,
		   const char *help)
{
	static const int once[] = { 'o', REC_O_DURATION, REC_O_MAXSIZE, REC_O_PID, REC_O_COMM,
				    REC_O_CGROUP, REC_O_INFLIGHT, REC_O_RING };
	const char *want = NULL; /* what the option takes, when arg is not that */
	uint64_t v;

	_Static_assert(sizeof(once) / sizeof(once[0]) <= sizeof(o->given) / sizeof(o->given[0]),
		       "rec_common.given holds every single-valued option");
	/* -o a -o b recorded into b and said nothing of a: refused, as every verb does */
	for (size_t i = 0; i < sizeof(once) / sizeof(once[0]); i++) {
		char name[40];
		int j;

		if (c != once[i])
			continue;
		for (j = 0; lo[j].name && lo[j].val != c; j++)
			;
		snprintf(name, sizeof(name), "%s--%s", c == 'o' ? "-o/" : "",
			 lo[j].name ? lo[j].name : "?");
		if (cli_set_once(&o->given[i], name, arg))
			return -EINVAL;
	}
	switch (c) {
	case 'o':
		o->out = arg;
		return 1;
	case REC_O_DURATION:
		want = "a duration above 0, such as 60 (seconds), 1.5s, 500ms or 10m";
		if (parse_duration_ns(arg, &o->duration_ns) || !o->duration_ns)
			break;
		return 1;
	case REC_O_MAXSIZE:
		want = "a size above 0, such as 512m or 2g";
		if (parse_size(arg, &o->max_size) || !o->max_size)
			break;
		return 1;
	case REC_O_PID:
		want = "a process ID, from 1 to 2147483647";
		if (parse_u64(arg, &v) || !v || v > INT_MAX)
			break;
		/* a mistyped PID recorded nothing and said nothing: a PID is never reused ahead */
		if (kill((pid_t)v, 0) && errno == ESRCH) {
			cli_error("--pid %llu: no such process; give the PID of a running process "
				  "(pidof NAME, or --comm NAME for one that is not started yet)",
				  (unsigned long long)v);
			return -EINVAL;
		}
		o->pid = (uint32_t)v;
		return 1;
	case REC_O_COMM:
		if (!*arg || strlen(arg) > 15) {
			char shown[CLI_SHOWN_LEN];

			cli_error("--comm %s: a task name has 1 to 15 characters",
				  cli_shown(shown, arg));
			return -EINVAL;
		}
		o->comm = arg;
		return 1;
	case REC_O_CGROUP:
		o->cgroup = arg;
		return 1;
	case REC_O_CPU:
		o->cpu = true;
		return 1;
	case REC_O_INFLIGHT:
		want = "a count from " STR(REC_INFLIGHT_MIN) " to " STR(REC_INFLIGHT_MAX);
		if (parse_u64(arg, &v) || v < REC_INFLIGHT_MIN || v > REC_INFLIGHT_MAX)
			break;
		o->inflight = (uint32_t)v;
		return 1;
	case REC_O_RING:
		want = "a power of two from 4k to 1g, bytes per CPU";
		if (parse_size(arg, &o->ring_size) || o->ring_size < 4096 ||
		    o->ring_size > (1ULL << 30) || (o->ring_size & (o->ring_size - 1)))
			break;
		o->ring_size_given = true;
		return 1;
	case 'q':
		o->quiet = true;
		return 1;
	case REC_O_JSON:
		o->json = true;
		return 1;
	case REC_O_KEEP_PRIO:
		o->keep_priority = true;
		return 1;
	default:
		return 0;
	}
	return rec_opt_bad(lo, c, arg, want, help);
}

int rec_common_check(const struct rec_common *o, int argc, char **argv)
{
	if (optind < argc) {
		char shown[CLI_SHOWN_LEN];

		cli_error("unexpected argument %s: record takes options only (the trace goes to -o "
			  "FILE.ioreel)", cli_shown(shown, argv[optind]));
		cli_try_help("record");
		return -EINVAL;
	}
	if (!o->out) {
		cli_error("no output file: give -o FILE.ioreel");
		return -EINVAL;
	}
	return 0;
}

int rec_check_env(const char *caps)
{
	if (geteuid() != 0) {
		cli_error("loading eBPF programs needs root (%s): run ioreel record as root", caps);
		return -EPERM;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		cli_error("this kernel has no BTF (/sys/kernel/btf/vmlinux is missing): ioreel "
			  "record needs a kernel built with CONFIG_DEBUG_INFO_BTF=y");
		return -ENOTSUP;
	}
	return 0;
}

int rec_size_rings(struct rec_common *o, int ncpu, size_t rec_size)
{
	while (!o->ring_size_given && (uint64_t)ncpu * o->ring_size > (256ULL << 20) &&
	       o->ring_size > (256 << 10))
		o->ring_size /= 2;
	o->ring_shift = 6;
	while ((rec_size << (o->ring_shift + 1)) <= o->ring_size)
		o->ring_shift++;
	if (((uint64_t)ncpu << o->ring_shift) > UINT32_MAX) {
		cli_error("--ring-size %llu: %d rings of that size hold more records than a BPF "
			  "array can; give a smaller --ring-size",
			  (unsigned long long)o->ring_size, ncpu);
		return -EINVAL;
	}
	return 0;
}

char *rec_drops_why(const struct trace_counter *c, size_t n, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && k < len; i++)
		if (!strncmp(c[i].name, "dropped_", 8) && c[i].value)
			k += snprintf(buf + k, len - k, "%s%s %llu", k ? ", " : " (", c[i].name + 8,
				      (unsigned long long)c[i].value);
	if (k && k < len)
		snprintf(buf + k, len - k, ")");
	return buf;
}

void rec_ring_warn(const struct rec_common *o, uint64_t dropped_ring,
		   const struct rec_collect_stats *cs, const char *what)
{
	double gap_ms = cs->gap_max_ns / 1e6;

	if (!dropped_ring)
		return;
	if (cs->buffer_full)
		cli_warn("%llu %s were dropped because a CPU's ring was full: the trace's writer fell "
			 "%llu MiB behind (the disk of -o too slow, or the machine's CPUs busy); "
			 "write the trace to a faster disk", (unsigned long long)dropped_ring, what,
			 (unsigned long long)(cs->buffer_peak >> 20));
	else
		cli_warn("%llu %s were dropped because a CPU's ring was full: the drain thread left "
			 "the rings unread for up to %.0f ms, longer than a ring of %llu %s lasted "
			 "(the machine was busy or its CPU stalled); a larger --ring-size (now %llu "
			 "KiB per CPU) holds longer",
			 (unsigned long long)dropped_ring, what, gap_ms, 1ULL << o->ring_shift, what,
			 (unsigned long long)(o->ring_size >> 10));
}

uint64_t rec_unwritten(const struct trace_writer *w, uint64_t handed, uint64_t pending)
{
	uint64_t in = trace_writer__events(w);

	return handed + pending > in ? handed + pending - in : 0;
}

void rec_close_failed(struct trace_writer *w, const struct trace_stats *st, const char *out,
		      int werr, uint64_t unwritten)
{
	cli_error("writing %s: %s%s; stopped: the trace holds the %llu events written before, "
		  "%llu were not written (counted as dropped, unwritten)",
		  out, strerror(-werr),
		  werr == -ENOSPC ? " (disk full: free space or record elsewhere)" : "",
		  (unsigned long long)trace_writer__events(w), (unsigned long long)unwritten);
	trace_writer__close(w, st); /* -EIO: it failed before; what fits goes in */
}

char rec_failed_prog[64];

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	if (level == LIBBPF_WARN && strstr(fmt, "prog '%s': ")) {
		char msg[256];
		const char *p;
		va_list aq;

		va_copy(aq, ap);
		vsnprintf(msg, sizeof(msg), fmt, aq);
		va_end(aq);
		p = strstr(msg, "prog '");
		if (!p || sscanf(p, "prog '%63[^']'", rec_failed_prog) != 1)
			rec_failed_prog[0] = '\0';
	}
	if (!getenv("IOREEL_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void rec_libbpf_log(void)
{
	rec_failed_prog[0] = '\0';
	libbpf_set_print(libbpf_print);
}
