// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fio job files: "[global]" and job sections of "key=value" lines (or bare flags), '#' and ';'
 * comments. Options apply in file order; a job section starts from the [global] seen so far,
 * as fio does. What the generator does not model is collected, never dropped silently.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "synth/synth.h"

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Appends "word" to a space-separated list once (by key), keeping the list NUL-terminated. */
static void list_add(char *list, size_t len, const char *key, const char *value)
{
	char item[160];
	size_t klen = strlen(key), used = strlen(list);

	for (const char *p = list; (p = strstr(p, key)); p += klen) {
		bool start = p == list || p[-1] == ' ';
		char after = p[klen];

		if (start && (after == '\0' || after == ' ' || after == '='))
			return;
	}
	snprintf(item, sizeof(item), "%s%s%s%s", used ? " " : "", key, value ? "=" : "",
		 value ? value : "");
	if (used + strlen(item) + 1 < len)
		strcat(list, item);
}

int fiojob_load(const char *path, const char *section, struct synth_spec *spec,
		struct fiojob_result *res, char *why, size_t why_len)
{
	FILE *f = fopen(path, "r");
	struct synth_job global, *cur = &global;
	bool in_global = false, skipping = true, seen_section = false;
	char line[4096], msg[512];
	unsigned int lineno = 0;
	int err = 0;

	if (!f) {
		err = -errno;
		snprintf(why, why_len, "cannot open %s: %s", path, strerror(errno));
		return err;
	}
	memset(res, 0, sizeof(*res));
	synth_job_defaults(&global);
	spec->innodb = false;
	spec->njobs = 0;
	while (fgets(line, sizeof(line), f)) {
		char *s = trim(line), *eq, *key, *value;

		lineno++;
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			char *close = strchr(s, ']');

			if (!close) {
				snprintf(why, why_len, "%s:%u: section header without ']'", path,
					 lineno);
				err = -EINVAL;
				break;
			}
			*close = '\0';
			s = trim(s + 1);
			in_global = !strcmp(s, "global");
			if (in_global) {
				cur = &global;
				skipping = false;
				continue;
			}
			skipping = section && strcmp(s, section);
			if (skipping)
				continue;
			seen_section = true;
			if (spec->njobs == SYNTH_MAX_JOBS) {
				snprintf(why, why_len, "%s:%u: more than %d job sections", path, lineno,
					 SYNTH_MAX_JOBS);
				err = -EINVAL;
				break;
			}
			cur = &spec->jobs[spec->njobs++];
			*cur = global;
			snprintf(cur->name, sizeof(cur->name), "%s", s);
			continue;
		}
		if (skipping && !in_global)
			continue;
		if (!strncmp(s, "include ", 8)) {
			list_add(res->unmodeled, sizeof(res->unmodeled), "include", trim(s + 8));
			continue;
		}
		eq = strchr(s, '=');
		if (eq) {
			*eq = '\0';
			key = trim(s);
			value = trim(eq + 1);
		} else {
			key = s;
			value = NULL;
		}
		if (!strcmp(key, "kb_base") && value && !strcmp(value, "1024"))
			continue; /* the default, which is how sizes are read anyway */
		msg[0] = '\0';
		err = synth_job_set(cur, key, value, msg, sizeof(msg));
		if (err == -ENOENT) {
			list_add(res->unmodeled, sizeof(res->unmodeled), key, value);
			err = 0;
		} else if (err == -EALREADY) {
			list_add(res->ignored, sizeof(res->ignored), key, NULL);
			err = 0;
		} else if (err) {
			snprintf(why, why_len, "%s:%u: %s", path, lineno, msg);
			break;
		}
	}
	if (!err && ferror(f)) {
		err = -EIO;
		snprintf(why, why_len, "cannot read %s", path);
	}
	fclose(f);
	if (err)
		return err;
	if (section && !seen_section) {
		snprintf(why, why_len, "%s has no section [%s]", path, section);
		return -ENOENT;
	}
	if (!spec->njobs) {
		snprintf(why, why_len, "%s has no job section (only [global])", path);
		return -EINVAL;
	}
	res->njobs = spec->njobs;
	return 0;
}
