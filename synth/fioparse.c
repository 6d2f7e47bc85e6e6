// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The text of fio job files, read as fio reads it (fio's HOWTO, "Job file format"):
 *   - "[name]" starts a section; a name starting with "global" is a global section;
 *   - a line is cut at its first ';' or '#' (so "numjobs=4 ; four" is numjobs=4, as in fio);
 *   - "include FILE" pulls FILE's lines into the current section (relative to the including
 *     file when FILE is not found as given; included files may not open sections);
 *   - "${VAR}" in a value is the environment variable (empty when unset);
 *   - $pagesize, $mb_memory and $ncpus are this machine's, and a value holding one of them is
 *     evaluated as integer arithmetic (fio hands it to bc).
 * The sections keep their options in file order; synth/fiojob.c gives them meaning.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "synth/fio.h"
#include "util/cli.h"

#define FIO_MAX_LINE 8192
#define FIO_MAX_INCLUDE_DEPTH 16

struct reader {
	struct fio_jobfile *jf;
	struct fio_section *cur;
	char *why;
	size_t why_len;
};

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && (isspace((unsigned char)e[-1]) || iscntrl((unsigned char)e[-1])))
		*--e = '\0';
	return s;
}

static int grow(void **p, unsigned int *cap, unsigned int n, size_t elem)
{
	void *q;

	if (n < *cap)
		return 0;
	q = realloc(*p, (size_t)(*cap ? *cap * 2 : 8) * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = *cap ? *cap * 2 : 8;
	return 0;
}

/* ${VAR} -> getenv(VAR), always substituted (empty when unset), as fio_option_dup_subs().
 * Only in values: fio leaves "${VAR}" in a section name or an option name as written. */
static int expand_env(const char *in, char *out, size_t len)
{
	size_t o = 0;

	while (*in) {
		const char *close;

		/* "${}" is getenv("") in fio: nothing; "${X" without '}' stays as written */
		if (in[0] == '$' && in[1] == '{' && (close = strchr(in + 2, '}'))) {
			char name[256];
			const char *v;
			size_t n = (size_t)(close - in - 2);

			if (n >= sizeof(name))
				return -EINVAL;
			memcpy(name, in + 2, n);
			name[n] = '\0';
			v = getenv(name);
			n = v ? strlen(v) : 0;
			if (o + n >= len)
				return -E2BIG;
			memcpy(out + o, v ? v : "", n);
			o += n;
			in = close + 1;
			continue;
		}
		if (o + 1 >= len)
			return -E2BIG;
		out[o++] = *in++;
	}
	out[o] = '\0';
	return 0;
}

static unsigned long long phys_mb(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	return pages > 0 && psz > 0 ? (unsigned long long)pages * (unsigned long long)psz >> 20 : 0;
}

/* $pagesize, $mb_memory, $ncpus -> this machine's values; returns how many were replaced. */
static int replace_keywords(char *s, size_t len)
{
	const char *word[] = {"$pagesize", "$mb_memory", "$ncpus"};
	char val[3][32];
	int n = 0;

	snprintf(val[0], sizeof(val[0]), "%ld", sysconf(_SC_PAGESIZE));
	snprintf(val[1], sizeof(val[1]), "%llu", phys_mb());
	snprintf(val[2], sizeof(val[2]), "%ld", sysconf(_SC_NPROCESSORS_CONF));
	for (int k = 0; k < 3; k++) {
		char *p;

		while ((p = strstr(s, word[k]))) {
			size_t wl = strlen(word[k]), vl = strlen(val[k]), rest = strlen(p + wl);

			if (strlen(s) - wl + vl >= len)
				return -E2BIG;
			memmove(p + vl, p + wl, rest + 1);
			memcpy(p, val[k], vl);
			n++;
		}
	}
	return n;
}

static int add_opt(struct reader *rd, char *text, const char *file, unsigned int line)
{
	struct fio_section *sec = rd->cur;
	char buf[FIO_MAX_LINE], *eq, *key, *value = NULL;
	struct fio_opt *o;
	int nkw;

	eq = strchr(text, '=');
	if (eq) {
		*eq = '\0';
		value = trim(eq + 1);
	}
	key = trim(text);
	if (!*key) {
		snprintf(rd->why, rd->why_len, "%s:%u: '=%s' has no option name", file, line,
			 value ? value : "");
		return -EINVAL;
	}
	if (value) {
		if (expand_env(value, buf, sizeof(buf))) {
			snprintf(rd->why, rd->why_len,
				 "%s:%u: %s: value longer than %d characters once its ${...} are "
				 "replaced by the environment's values",
				 file, line, key, FIO_MAX_LINE - 1);
			return -EINVAL;
		}
		nkw = replace_keywords(buf, sizeof(buf));
		if (nkw < 0) {
			snprintf(rd->why, rd->why_len, "%s:%u: %s: value too long", file, line,
				 key);
			return -EINVAL;
		}
		/* fio runs bc on a value once a keyword went in, if it holds an operator */
		if (nkw > 0 && strpbrk(buf, "+-*/")) {
			double v;

			if (fio_expr_eval(buf, FIO_EXPR_INT, 1, &v) || v < 0 || v > 1.8e19) {
				snprintf(rd->why, rd->why_len,
					 "%s:%u: %s=%s: cannot evaluate this arithmetic", file,
					 line, key, buf);
				return -EINVAL;
			}
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
		}
	}
	if (grow((void **)&sec->opt, &sec->cap, sec->nopt, sizeof(*sec->opt)))
		return -ENOMEM;
	o = &sec->opt[sec->nopt];
	o->key = strdup(key);
	o->value = value ? strdup(buf) : NULL;
	o->raw = value ? strdup(value) : NULL;
	o->file = file;
	o->line = line;
	if (!o->key || (value && (!o->value || !o->raw))) {
		free(o->key);
		free(o->value);
		free(o->raw);
		return -ENOMEM;
	}
	sec->nopt++;
	return 0;
}

static int add_section(struct reader *rd, const char *name, const char *file, unsigned int line)
{
	struct fio_jobfile *jf = rd->jf;
	struct fio_section *s;

	if (grow((void **)&jf->sec, &jf->cap, jf->nsec, sizeof(*jf->sec)))
		return -ENOMEM;
	s = &jf->sec[jf->nsec];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	if (!s->name)
		return -ENOMEM;
	s->global = !strncmp(name, "global", 6);
	s->file = file;
	s->line = line;
	rd->cur = s;
	jf->nsec++;
	return 0;
}

static const char *keep_path(struct fio_jobfile *jf, const char *path)
{
	char *p = strdup(path), **q;

	if (!p)
		return NULL;
	q = realloc(jf->paths, (jf->npaths + 1) * sizeof(*q));
	if (!q) {
		free(p);
		return NULL;
	}
	jf->paths = q;
	jf->paths[jf->npaths++] = p;
	return p;
}

/* "include FILE": FILE as given, else beside the including file (fio's rule). */
static int include_path(const char *name, const char *from, char *out, size_t len)
{
	const char *slash = strrchr(from, '/');

	if (!access(name, F_OK) || !slash || name[0] == '/')
		return snprintf(out, len, "%s", name) < (int)len ? 0 : -ENAMETOOLONG;
	return snprintf(out, len, "%.*s%s", (int)(slash - from + 1), from, name) < (int)len
		   ? 0
		   : -ENAMETOOLONG;
}

static int read_file(struct reader *rd, const char *path, int depth)
{
	char line[FIO_MAX_LINE];
	unsigned int lineno = 0;
	const char *file;
	FILE *f;
	int err = 0;

	file = keep_path(rd->jf, path);
	if (!file)
		return -ENOMEM;
	/* "-": the job file on standard input, as fio reads it; a named pipe's open waits for
	 * its writer, or for Ctrl-C */
	f = !depth && !strcmp(path, "-") ? stdin : fopen(path, "r");
	if (!f) {
		err = -errno;
		if (err == -EINTR && cli_stop)
			snprintf(rd->why, rd->why_len,
				 "%s: interrupted while waiting for the pipe's writer", path);
		else
			snprintf(rd->why, rd->why_len, "cannot open %s: %s", path,
				 strerror(errno));
		return err;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		char *s = line, *c;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(rd->why, rd->why_len, "%s:%u: line longer than %d bytes", file,
				 lineno, FIO_MAX_LINE - 2);
			err = -EINVAL;
			break;
		}
		/* fio's strip_blank_end(): the line ends at its first ';' or '#' */
		c = strpbrk(s, ";#");
		if (c)
			*c = '\0';
		s = trim(s);
		if (!*s)
			continue;
		if (*s == '[') {
			char *close = strrchr(s, ']');

			if (depth) {
				snprintf(rd->why, rd->why_len,
					 "%s:%u: an included file may not open a section (%s)",
					 file, lineno, s);
				err = -EINVAL;
			} else if (!close || close[1]) {
				snprintf(rd->why, rd->why_len, "%s:%u: section header without ']'",
					 file, lineno);
				err = -EINVAL;
			} else {
				*close = '\0';
				err = add_section(rd, s + 1, file, lineno);
			}
			continue;
		}
		if (!strncmp(s, "include", 7) && isspace((unsigned char)s[7])) {
			char inc[4096];

			if (depth >= FIO_MAX_INCLUDE_DEPTH) {
				snprintf(rd->why, rd->why_len,
					 "%s:%u: includes nested deeper than %d (a loop?)", file,
					 lineno, FIO_MAX_INCLUDE_DEPTH);
				err = -ELOOP;
			} else if (!rd->cur) {
				snprintf(rd->why, rd->why_len,
					 "%s:%u: include outside of a [section]", file, lineno);
				err = -EINVAL;
			} else if (include_path(trim(s + 8), file, inc, sizeof(inc))) {
				snprintf(rd->why, rd->why_len, "%s:%u: include path too long", file,
					 lineno);
				err = -EINVAL;
			} else {
				err = read_file(rd, inc, depth + 1);
				if (err == -ENOENT && !strstr(rd->why, ":"))
					snprintf(rd->why, rd->why_len,
						 "%s:%u: include %s: not found", file, lineno, inc);
			}
			continue;
		}
		if (!rd->cur) {
			snprintf(rd->why, rd->why_len,
				 "%s:%u: option '%s' outside of a [section] (fio refuses this too)",
				 file, lineno, s);
			err = -EINVAL;
			continue;
		}
		err = add_opt(rd, s, file, lineno);
	}
	if (!err && ferror(f)) {
		/* errno is fgets's (EISDIR for a directory named as a job file or an include) */
		snprintf(rd->why, rd->why_len, "cannot read %s: %s", path,
			 errno ? strerror(errno) : "read error");
		err = -EIO;
	}
	if (f != stdin)
		fclose(f);
	if (err == -ENOMEM)
		snprintf(rd->why, rd->why_len, "out of memory reading %s", path);
	return err;
}

int fio_jobfile_read(const char *path, struct fio_jobfile *jf, char *why, size_t why_len)
{
	struct reader rd = {.jf = jf, .why = why, .why_len = why_len};
	int err;

	memset(jf, 0, sizeof(*jf));
	err = read_file(&rd, path, 0);
	if (err)
		fio_jobfile_free(jf);
	return err;
}

void fio_jobfile_free(struct fio_jobfile *jf)
{
	for (unsigned int i = 0; i < jf->nsec; i++) {
		for (unsigned int k = 0; k < jf->sec[i].nopt; k++) {
			free(jf->sec[i].opt[k].key);
			free(jf->sec[i].opt[k].value);
			free(jf->sec[i].opt[k].raw);
		}
		free(jf->sec[i].opt);
		free(jf->sec[i].name);
	}
	for (unsigned int i = 0; i < jf->npaths; i++)
		free(jf->paths[i]);
	free(jf->sec);
	free(jf->paths);
	memset(jf, 0, sizeof(*jf));
}
