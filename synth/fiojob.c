// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fio job files into synth jobs. The text is read by synth/fioparse.c; here every option of
 * every section is looked up in fio's option table (synth/fioopts.c): options that shape the
 * I/O are applied in file order, a job section starting from the [global] sections above it
 * (fio's rule); options that only concern fio's machinery are collected for one note line;
 * an option ioreel does not reproduce refuses the job, naming the option and why.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "synth/fio.h"
#include "synth/synth.h"
#include "util/outfile.h"

/* A job being built: the job, and the first reason it cannot be reproduced. */
struct pending {
	struct synth_job job;
	unsigned int kb_base;
	char refused[768];
	bool engine_refused; /* an engine refusal says more than any option after it */
	bool global;	     /* the [global] sections' options, not a job's */
};

/* The ignored options of the whole file, by why: "a, b (why); c (why2)". */
struct ignored {
	char why[32][256];
	char keys[32][512];
	unsigned int n;
};

static void ignore(struct ignored *ig, const char *key, const char *why)
{
	unsigned int i;
	size_t kl = strlen(key), used;
	char *k;

	for (i = 0; i < ig->n && strcmp(ig->why[i], why); i++)
		;
	if (i == ig->n) {
		if (ig->n == sizeof(ig->why) / sizeof(ig->why[0]))
			return;
		snprintf(ig->why[ig->n++], sizeof(ig->why[0]), "%s", why);
		ig->keys[i][0] = '\0';
	}
	k = ig->keys[i];
	for (const char *p = k; (p = strstr(p, key)); p += kl)
		if ((p == k || p[-2] == ',') && (p[kl] == '\0' || p[kl] == ','))
			return;
	used = strlen(k);
	snprintf(k + used, sizeof(ig->keys[i]) - used, "%s%s", used ? ", " : "", key);
}

static void ignored_line(const struct ignored *ig, char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (unsigned int i = 0; i < ig->n && used + 1 < len; i++) {
		int n = snprintf(out + used, len - used, "%s%s (%s)", i ? "; " : "", ig->keys[i],
				 ig->why[i]);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static void refuse(struct pending *p, const struct fio_opt *o, const char *why, bool engine)
{
	if (p->refused[0] && (p->engine_refused || !engine))
		return;
	snprintf(p->refused, sizeof(p->refused), "%s:%u: %s%s%s: %s", o->file, o->line, o->key,
		 o->value ? "=" : "", o->value ? o->value : "", why);
	p->engine_refused = engine;
}

/* fio reads kb_base before the sizes of its section (option priorities), so do we. */
static int section_kb_base(const struct fio_section *sec, unsigned int *kb, char *why,
			   size_t why_len)
{
	for (unsigned int i = 0; i < sec->nopt; i++) {
		const struct fio_opt *o = &sec->opt[i];

		if (strcmp(o->key, "kb_base"))
			continue;
		if (!o->value || (strcmp(o->value, "1024") && strcmp(o->value, "1000"))) {
			snprintf(why, why_len, "%s:%u: kb_base=%s: expected 1024 or 1000", o->file,
				 o->line, o->value ? o->value : "");
			return -EINVAL;
		}
		*kb = (unsigned int)atoi(o->value);
	}
	return 0;
}

/* fio's log options take an empty value (the job's name is the log's then) */
static bool takes_empty(const char *name)
{
	static const char *const logs[] = { "write_bw_log", "write_lat_log", "write_iops_log",
					    "write_hist_log" };

	for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++)
		if (!strcmp(name, logs[i]))
			return true;
	return false;
}

/* The first ${NAME} of a raw value, for the message that says which variable to set. */
static const char *var_name(const char *raw)
{
	const char *v = strstr(raw, "${");

	return v ? v + 2 : "";
}

static int var_name_len(const char *raw)
{
	const char *v = var_name(raw);

	return (int)strcspn(v, "}");
}

static int apply(struct pending *p, const struct fio_opt *o, struct ignored *ig, char *why,
		 size_t why_len)
{
	const struct fio_optdef *def = fio_opt_find(o->key);
	char msg[512] = "";
	int err;

	if (!def) {
		refuse(p, o, "not an option ioreel knows, so it cannot say what it does to the I/O",
		       false);
		return 0;
	}
	/* fio's parser fails on an empty value ("failed parsing KEY=") and then refuses the whole
	 * file, whether the value was written empty or a ${VAR} left it so; only the log-file
	 * options take an empty name (checked against fio 3.33 --parse-only) */
	if (o->value && !o->value[0] && !takes_empty(def->name)) {
		/* as fio's "job NAME dropped": the job, or the global section, is named */
		char who[160];

		if (p->global)
			snprintf(who, sizeof(who), "global section");
		else
			snprintf(who, sizeof(who), "job '%s'", p->job.name);
		if (o->raw && strstr(o->raw, "${"))
			snprintf(why, why_len,
				 "%s refused: %s:%u: %s=%s is empty: the environment does not set "
				 "it (or sets it empty), and fio refuses the job file the same way; "
				 "set it, e.g. %.*s=VALUE ioreel synth ...",
				 who, o->file, o->line, o->key, o->raw, var_name_len(o->raw),
				 var_name(o->raw));
		else
			snprintf(why, why_len, "%s refused: %s:%u: %s= has no value (fio refuses "
				 "it too)", who, o->file, o->line, o->key);
		return -EINVAL;
	}
	if (def->cls == FIO_OPT_IGNORED) {
		ignore(ig, o->key, def->why);
		return 0;
	}
	if (def->cls == FIO_OPT_REFUSED) {
		refuse(p, o, def->why, false);
		return 0;
	}
	if (!strcmp(o->key, "kb_base"))
		return 0;
	if (!strcmp(o->key, "name") && o->value) {
		snprintf(p->job.name, sizeof(p->job.name), "%s", o->value);
		return 0;
	}
	err = synth_job_set_kb(&p->job, o->key, o->value, p->kb_base, msg, sizeof(msg));
	if (err == -EALREADY) {
		char key[160];

		if (!msg[0]) {
			ignore(ig, o->key, "where the I/O goes and what fio calls it");
			return 0;
		}
		/* a value that changes how fio runs, not what the trace holds: name it */
		snprintf(key, sizeof(key), "%s%s%s", o->key, o->value ? "=" : "",
			 o->value ? o->value : "");
		ignore(ig, key, msg);
		return 0;
	}
	if (err == -EOPNOTSUPP || err == -ENOENT) {
		char prefix[600];
		const char *w = err == -ENOENT ? "not modeled" : msg;

		/* synth_job_set says "key=value: why"; the refusal names the option itself */
		snprintf(prefix, sizeof(prefix), "%s=%s: ", o->key, o->value ? o->value : "");
		if (!strncmp(w, prefix, strlen(prefix)))
			w += strlen(prefix);
		refuse(p, o, w, !strcmp(o->key, "ioengine"));
		return 0;
	}
	if (err) {
		/* a bad value: the job (or the global section), the place and the option */
		if (p->global)
			snprintf(why, why_len, "global section: %s:%u: %s", o->file, o->line, msg);
		else
			snprintf(why, why_len, "job '%s': %s:%u: %s", p->job.name, o->file, o->line,
				 msg);
		return err;
	}
	if (!strcmp(def->name, "rw") || !strcmp(def->name, "readwrite") ||
	    !strcmp(def->name, "rate") || !strcmp(def->name, "rate_iops")) {
		bool rw = def->name[1] == 'w' || def->name[1] == 'e';
		char *at = rw ? p->job.at_rw : p->job.at_rate;

		snprintf(at, sizeof(p->job.at_rw), "%s:%u: %s=%s", o->file, o->line, o->key,
			 o->value ? o->value : "");
	}
	if (!strcmp(def->name, "sprandom")) /* its refusals come once the job is whole */
		snprintf(p->job.at_spr, sizeof(p->job.at_spr), "%s:%u: %s%s%s", o->file, o->line,
			 o->key, o->value ? "=" : "", o->value ? o->value : "");
	return 0;
}

/* A job without filename gets one file per clone (fio's jobname.N.0), unless its engine
 * names the device. */
static void finish_job(struct synth_job *j)
{
	j->own_files = !j->file[0] && !j->device_engine;
	if (!j->file[0] && j->device_engine)
		snprintf(j->file, sizeof(j->file), "(the engine's device)");
}

int fiojob_load(const char *path, const char *section, const char *out, struct synth_spec *spec,
		struct fiojob_result *res, char *why, size_t why_len)
{
	struct fio_jobfile jf;
	struct pending *global = calloc(1, sizeof(*global)), *cur = calloc(1, sizeof(*cur));
	struct ignored *ig = calloc(1, sizeof(*ig));
	bool seen = false, empty = false;
	int err;

	memset(res, 0, sizeof(*res));
	spec->innodb = false;
	spec->njobs = 0;
	if (!global || !cur || !ig) {
		snprintf(why, why_len, "out of memory");
		err = -ENOMEM;
		goto out_free;
	}
	err = fio_jobfile_read(path, &jf, why, why_len);
	if (err)
		goto out_free;
	/* never write what it reads (issue 21 D3): an include too, which -o replaced */
	for (unsigned int i = 0; out && !err && i < jf.npaths; i++)
		if (outfile_same_file(jf.paths[i], out)) {
			snprintf(why, why_len, "-o %s is %s, %s: give the trace another name", out,
				 jf.paths[i],
				 i ? "a file the job file includes" : "the job file itself");
			err = -EEXIST;
		}
	empty = !jf.nsec;
	synth_job_defaults(&global->job);
	global->job.sync_engine = true; /* fio's default engine is psync */
	global->kb_base = 1024;
	global->global = true;
	for (unsigned int s = 0; !err && s < jf.nsec; s++) {
		const struct fio_section *sec = &jf.sec[s];
		struct pending *p = sec->global ? global : cur;
		bool skip = !sec->global && section && strcmp(sec->name, section);

		if (skip)
			continue;
		if (!sec->global) {
			*cur = *global;
			cur->global = false;
			snprintf(cur->job.name, sizeof(cur->job.name), "%s", sec->name);
			seen = true;
		}
		err = section_kb_base(sec, &p->kb_base, why, why_len);
		for (unsigned int i = 0; !err && i < sec->nopt; i++)
			err = apply(p, &sec->opt[i], ig, why, why_len);
		if (err || sec->global)
			continue;
		if (cur->refused[0]) {
			snprintf(why, why_len, "job '%s' refused: %s", sec->name, cur->refused);
			err = -EOPNOTSUPP;
			break;
		}
		if (spec->njobs == SYNTH_MAX_JOBS) {
			snprintf(why, why_len, "%s:%u: more than %d job sections", sec->file,
				 sec->line, SYNTH_MAX_JOBS);
			err = -EINVAL;
			break;
		}
		finish_job(&cur->job);
		spec->jobs[spec->njobs++] = cur->job;
	}
	fio_jobfile_free(&jf);
	if (err)
		goto out_free;
	if (section && !seen) {
		snprintf(why, why_len, "%s has no section [%s]", path, section);
		err = -ENOENT;
	} else if (!spec->njobs && empty) {
		/* said "only [global]" of an empty file (issue 21) */
		snprintf(why, why_len, "%s has no section at all (empty, or only comments): a job "
			 "is a [name] section with its options", path);
		err = -EINVAL;
	} else if (!spec->njobs) {
		snprintf(why, why_len, "%s has no job section (only [global])", path);
		err = -EINVAL;
	}
	res->njobs = spec->njobs;
	ignored_line(ig, res->ignored, sizeof(res->ignored));
out_free:
	free(global);
	free(cur);
	free(ig);
	return err;
}
