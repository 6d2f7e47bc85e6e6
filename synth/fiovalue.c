// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fio's value syntax (fio's HOWTO, "Parameter types"), with fio's own readings where they
 * surprise: with kb_base=1024 (the default) "4k" and "4kb" are 4096 but "4kib" is 4000, since
 * fio takes the IEC prefixes the other way round in that mode (checked with fio 3.33: size=8kib
 * lays out an 8000-byte file). Sizes are whole numbers; fio would read "1.5g" as 1 byte, so
 * such values are refused rather than guessed.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "synth/fio.h"

/* Multiplier of a size suffix ("k", "KiB", "mb", ...), 0 when it is not one. */
static double size_suffix(const char *s, size_t n, unsigned int kb_base)
{
	static const char units[] = "kmgtp";
	char c;
	const char *u;
	double m = 1;

	if (!n)
		return 1;
	c = (char)tolower((unsigned char)s[0]);
	u = strchr(units, c);
	if (!u || !c)
		return (n == 1 && (c == 'b')) ? 1 : 0;
	if (n == 1 || (n == 2 && tolower((unsigned char)s[1]) == 'b')) {
		for (long i = 0; i <= u - units; i++)
			m *= kb_base;
		return m;
	}
	if (n == 3 && !strncasecmp(s + 1, "ib", 2)) {
		/* IEC prefix: the other base (fio's __get_mult_bytes) */
		for (long i = 0; i <= u - units; i++)
			m *= kb_base == 1024 ? 1000 : 1024;
		return m;
	}
	if (n == 2 && tolower((unsigned char)s[1]) == 'i') /* "4ki": fio reads the 'k' */
		return size_suffix(s, 1, kb_base);
	return 0;
}

/* Microseconds per time suffix unit, 0 when it is not one. */
static double time_suffix(const char *s, size_t n)
{
	static const struct {
		const char *name;
		double us;
	} t[] = {{"us", 1},    {"usec", 1}, {"ms", 1e3},   {"msec", 1e3}, {"s", 1e6},
		 {"sec", 1e6}, {"m", 60e6}, {"min", 60e6}, {"h", 3600e6}, {"d", 86400e6}};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strlen(t[i].name) == n && !strncasecmp(s, t[i].name, n))
			return t[i].us;
	return 0;
}

struct expr {
	const char *p;
	enum fio_expr_kind kind;
	double unit_us;
	bool units; /* a number carried a suffix; else the result is in the default unit */
	int err;
};

static double expr_sum(struct expr *e);

static void skip_ws(struct expr *e)
{
	while (isspace((unsigned char)*e->p))
		e->p++;
}

static double expr_primary(struct expr *e)
{
	double v, m;
	char *end;
	const char *s;

	skip_ws(e);
	if (*e->p == '(') {
		e->p++;
		v = expr_sum(e);
		skip_ws(e);
		if (*e->p != ')')
			e->err = -EINVAL;
		else
			e->p++;
		return v;
	}
	if (*e->p == '-') {
		e->p++;
		return -expr_primary(e);
	}
	if (!isdigit((unsigned char)*e->p) && *e->p != '.') {
		e->err = -EINVAL;
		return 0;
	}
	v = strtod(e->p, &end);
	if (end == e->p) {
		e->err = -EINVAL;
		return 0;
	}
	e->p = end;
	s = e->p;
	while (isalpha((unsigned char)*e->p))
		e->p++;
	if (e->p == s)
		m = 1;
	else if (e->kind == FIO_EXPR_TIME)
		m = time_suffix(s, (size_t)(e->p - s));
	else if (e->kind == FIO_EXPR_SIZE)
		m = size_suffix(s, (size_t)(e->p - s), 1024);
	else
		m = 0;
	e->units |= e->p != s;
	if (m == 0)
		e->err = -EINVAL;
	return v * m;
}

static double expr_power(struct expr *e)
{
	double v = expr_primary(e);

	skip_ws(e);
	if (*e->p == '^') {
		e->p++;
		v = pow(v, expr_power(e));
	}
	return v;
}

static double expr_product(struct expr *e)
{
	double v = expr_power(e);

	for (;;) {
		char op;
		double r;

		skip_ws(e);
		op = *e->p;
		if (op != '*' && op != '/' && op != '%')
			return v;
		e->p++;
		r = expr_power(e);
		if (op == '*') {
			v *= r;
		} else if (r == 0) {
			e->err = -EINVAL;
			return 0;
		} else if (op == '/') {
			v /= r;
			if (e->kind == FIO_EXPR_INT)
				v = trunc(v); /* bc with scale 0 */
		} else {
			v = fmod(v, r);
		}
	}
}

static double expr_sum(struct expr *e)
{
	double v = expr_product(e);

	for (;;) {
		skip_ws(e);
		if (*e->p == '+') {
			e->p++;
			v += expr_product(e);
		} else if (*e->p == '-') {
			e->p++;
			v -= expr_product(e);
		} else {
			return v;
		}
	}
}

int fio_expr_eval(const char *s, enum fio_expr_kind kind, double unit_us, double *out)
{
	struct expr e = {.p = s, .kind = kind, .unit_us = unit_us};
	double v = expr_sum(&e);

	skip_ws(&e);
	if (e.err || *e.p || !isfinite(v))
		return -EINVAL;
	/* fio: without any unit in it, the expression is in the option's default unit */
	*out = e.kind == FIO_EXPR_TIME && !e.units ? v * unit_us : v;
	return 0;
}

int fio_parse_size(const char *s, unsigned int kb_base, struct fio_size *out)
{
	const char *p;
	char *end;
	unsigned long long x;
	double m;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (!s || !*s)
		return -EINVAL;
	if (*s == '(') {
		double v;

		if (fio_expr_eval(s, FIO_EXPR_SIZE, 1, &v) || v < 0 || v > 1.8e19)
			return -EINVAL;
		out->bytes = (uint64_t)v;
		return 0;
	}
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10);
	if (errno || end == s)
		return -EINVAL;
	p = end;
	n = strlen(p);
	if (n == 1 && *p == '%') {
		if (x > 100)
			return -EINVAL;
		out->is_pct = true;
		out->ppm = (uint32_t)x * 10000;
		return 0;
	}
	if (n == 1 && (*p == 'z' || *p == 'Z')) {
		out->is_zones = true;
		out->zones = x;
		return 0;
	}
	m = size_suffix(p, n, kb_base);
	if (m == 0 || (double)x * m > 1.8e19)
		return -EINVAL;
	out->bytes = x * (uint64_t)m;
	return 0;
}

int fio_parse_bytes(const char *s, unsigned int kb_base, uint64_t *out)
{
	struct fio_size v;

	if (fio_parse_size(s, kb_base, &v) || v.is_pct || v.is_zones)
		return -EINVAL;
	*out = v.bytes;
	return 0;
}

/* Times are at most this many us: in ns they fit llround's long long (292 years; 1.8e16 us,
 * the bound before, made runtime=10000000000 2^63 ns instead of 1e19). */
#define FIO_MAX_TIME_US 9.2e15

int fio_parse_time(const char *s, bool default_us, uint64_t *ns)
{
	double unit = default_us ? 1 : 1e6, us, m;
	char *end;
	unsigned long long x;

	if (!s || !*s)
		return -EINVAL;
	if (*s == '(') {
		if (fio_expr_eval(s, FIO_EXPR_TIME, unit, &us) || us < 0 || us > FIO_MAX_TIME_US)
			return -EINVAL;
		*ns = (uint64_t)llround(us * 1000);
		return 0;
	}
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	m = *end ? time_suffix(end, strlen(end)) : unit;
	if (m == 0 || (double)x * m > FIO_MAX_TIME_US)
		return -EINVAL;
	*ns = (uint64_t)llround((double)x * m * 1000);
	return 0;
}

int fio_parse_bool(const char *s, bool *out)
{
	if (!s || !strcmp(s, "1") || !strcasecmp(s, "true") || !strcasecmp(s, "yes") ||
	    !strcasecmp(s, "on")) {
		*out = true;
		return 0;
	}
	if (!strcmp(s, "0") || !strcasecmp(s, "false") || !strcasecmp(s, "no") ||
	    !strcasecmp(s, "off")) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

int fio_parse_int(const char *s, int64_t *out)
{
	char *end;
	long long x;

	if (!s || !*s)
		return -EINVAL;
	if (*s == '(') {
		double v;

		if (fio_expr_eval(s, FIO_EXPR_INT, 1, &v) || fabs(v) > 9.2e18)
			return -EINVAL;
		*out = (int64_t)v;
		return 0;
	}
	errno = 0;
	x = strtoll(s, &end, (strstr(s, "0x") || strstr(s, "0X")) ? 16 : 10);
	if (errno || end == s || *end)
		return -EINVAL;
	*out = x;
	return 0;
}
