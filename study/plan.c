// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The study plan: an INI file in the spirit of fio's job files. A [study] section (repeats,
 * runtime, size, results), then one section per candidate and one per workload, told apart by
 * their keys (devices=/fs=/setup= make a candidate; preset=/fio=/trace= a workload). Every key
 * is checked: an unknown one, or one of the other kind, is refused with FILE:LINE and the key,
 * because a typo that is silently ignored changes a row of the result without anyone knowing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "study/study.h"
#include "util/cli.h"
#include "util/num.h"

#define PLAN_MAX_BYTES (1 << 20)

static const char *const study_keys[] = {"repeats", "runtime", "size", "region", "results", NULL};
/* clang-format off */
static const char *const cand_keys[] = {
	"devices", "fs", "raid", "metadata", "mkfs_opts", "mount_opts", "raid_opts", "setup",
	"teardown", "target", NULL
};
static const char *const work_keys[] = {
	"preset", "fio", "section", "trace", "mode", "options", "replay_opts", "size", "runtime",
	NULL
};
/* Keys that name a file, a preset, a section or a folder: empty, they named the plan's own folder
 * (fio=, trace=, results=, after plan_rel) or nothing, and the study failed only once under way
 * (a trace "read" as a folder passes the access check). */
static const char *const named_keys[] = {
	"preset", "fio", "section", "trace", "target", "results", NULL
};
/* clang-format on */

static bool in_list(const char *const *l, const char *k)
{
	for (; *l; l++)
		if (!strcmp(*l, k))
			return true;
	return false;
}

/*
 * One word from s (not a blank) to the first blank outside quotes, its quotes taken out: into
 * out when given, its length in *len. The word's end, or NULL when a quote is left open.
 */
static const char *unquote(const char *s, char *out, size_t *len)
{
	char q = 0;

	for (*len = 0; *s && (q || (*s != ' ' && *s != '\t')); s++) {
		if (!q && (*s == '\'' || *s == '"'))
			q = *s;
		else if (q && *s == q)
			q = 0;
		else if (out)
			out[(*len)++] = *s;
		else
			(*len)++;
	}
	return q ? NULL : s;
}

/*
 * Each word is measured and then copied, never cut short (a fixed buffer truncated a long one
 * into another path or option). On a refusal the words it appended are freed: its callers then
 * hold nothing to free.
 */
int split_words(const char *s, char **v, int max)
{
	int n = 0, ret = 0;

	for (;;) {
		const char *end;
		size_t len;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		end = unquote(s, NULL, &len);
		ret = !end ? -EINVAL : n >= max ? -E2BIG : 0;
		if (!ret && !(v[n] = malloc(len + 1)))
			ret = -ENOMEM;
		if (ret)
			break;
		unquote(s, v[n], &len);
		v[n++][len] = '\0';
		s = end;
	}
	if (ret)
		while (n)
			free(v[--n]);
	return ret ? ret : n;
}

#define WORDS_STR_(x) #x
#define WORDS_STR(x) WORDS_STR_(x)

const char *split_words_error(int err)
{
	return err == -E2BIG ? "more than " WORDS_STR(STUDY_MAX_WORDS) " words"
	       : err == -ENOMEM ? "out of memory splitting it into words"
				: "unbalanced quotes";
}

bool cand_uses_md(const struct candidate *c)
{
	return c->kind != CAND_CMDS && c->raid == RAID_MD;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* One key=value line of a section, kept until the section's kind is known. */
struct kv {
	int line;
	char *key, *val;
};

struct section {
	char name[64];
	int line;
	struct kv *kv;
	int n, cap;
};

/*
 * arr with room for element n (of size bytes), or NULL (arr left as it was): it doubles, so that
 * a plan of a million lines is read in linear time (growing by one copied the whole array at
 * each line under ASan).
 */
static void *grow(void *arr, int n, int *cap, size_t size)
{
	int nc = *cap ? 2 * *cap : 8;

	if (n < *cap)
		return arr;
	arr = realloc(arr, nc * size);
	if (arr)
		*cap = nc;
	return arr;
}

/* A path in the plan is relative to the plan's own folder: a plan is a document of its own. */
static char *plan_rel(const struct plan *p, const char *v)
{
	const char *slash = strrchr(p->path, '/');
	char *out;

	if (v[0] == '/' || !slash)
		return strdup(v);
	if (asprintf(&out, "%.*s/%s", (int)(slash - p->path), p->path, v) < 0)
		return NULL;
	return out;
}

#define PERR(line, ...)                                                                            \
	do {                                                                                       \
		int _o = snprintf(err, errlen, "%s:%d: ", p->path, line);                          \
		if (_o > 0 && (size_t)_o < errlen)                                                 \
			snprintf(err + _o, errlen - _o, __VA_ARGS__);                              \
		return -EINVAL;                                                                    \
	} while (0)

void plan_error(const struct plan *p, int line, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		cli_error("%s:%d: %s", p->path, line, msg);
	else
		cli_error("%s", msg);
}

/* A duration synth can run for, STUDY_MIN_RUNTIME_NS to STUDY_MAX_RUNTIME_NS: 0 or -EINVAL. */
static int parse_runtime(const char *v, uint64_t *ns)
{
	if (parse_duration_ns(v, ns) || *ns < STUDY_MIN_RUNTIME_NS || *ns > STUDY_MAX_RUNTIME_NS)
		return -EINVAL;
	return 0;
}

#define RUNTIME_RANGE "give a duration from 1ms to 292 years (30, 500ms, 2m)"

static bool good_name(const char *s)
{
	if (!*s || *s == '.')
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			return false;
	return true;
}

static int study_section(struct plan *p, const struct section *s, char *err, size_t errlen)
{
	for (int i = 0; i < s->n; i++) {
		const struct kv *kv = &s->kv[i];
		uint64_t v;

		if (!in_list(study_keys, kv->key))
			PERR(kv->line,
			     "unknown key '%s' in [study] (it takes: repeats, runtime, "
			     "size, results)",
			     kv->key);
		if (!*kv->val && in_list(named_keys, kv->key))
			PERR(kv->line, "%s= is empty", kv->key);
		if (!strcmp(kv->key, "repeats")) {
			if (parse_u64(kv->val, &v) || !v || v > STUDY_MAX_REPEATS)
				PERR(kv->line, "repeats=%s: give a number from 1 to %d", kv->val,
				     STUDY_MAX_REPEATS);
			p->repeats = (int)v;
		} else if (!strcmp(kv->key, "runtime")) {
			if (parse_runtime(kv->val, &p->runtime_ns))
				PERR(kv->line, "runtime=%s: " RUNTIME_RANGE, kv->val);
		} else if (!strcmp(kv->key, "size") || !strcmp(kv->key, "region")) {
			if (parse_size(kv->val, &p->size) || p->size < (1 << 20))
				PERR(kv->line, "%s=%s: give a size of at least 1M (256M, 4G)",
				     kv->key, kv->val);
		} else {
			char *r = plan_rel(p, kv->val);

			if (!r || strlen(r) >= sizeof(p->results)) {
				free(r);
				PERR(kv->line, "results=%s: path too long", kv->val);
			}
			strcpy(p->results, r);
			p->results_line = kv->line;
			free(r);
		}
	}
	return 0;
}

static int set_str(char **dst, const struct kv *kv, const struct plan *p, char *err, size_t errlen)
{
	if (*dst)
		PERR(kv->line, "'%s' given twice", kv->key);
	*dst = strdup(kv->val);
	return *dst ? 0 : -ENOMEM;
}

/* A value that becomes words of a command line (run.c, build.c): refused here, with its line,
 * when it cannot, not once the study is under way. */
static int set_words(char **dst, const struct kv *kv, const struct plan *p, char *err,
		     size_t errlen)
{
	char *v[STUDY_MAX_WORDS];
	int n = split_words(kv->val, v, STUDY_MAX_WORDS);

	if (n == -ENOMEM)
		return n;
	if (n == -E2BIG)
		PERR(kv->line, "%s=: more than %d words", kv->key, STUDY_MAX_WORDS);
	if (n < 0)
		PERR(kv->line, "%s=%s: unbalanced quotes", kv->key, kv->val);
	while (n)
		free(v[--n]);
	return set_str(dst, kv, p, err, errlen);
}

static int set_word(char *dst, size_t len, const struct kv *kv, const struct plan *p, char *err,
		    size_t errlen)
{
	if (*dst)
		PERR(kv->line, "'%s' given twice", kv->key);
	if (!*kv->val || strlen(kv->val) >= len)
		PERR(kv->line, "%s=%s: not a valid value", kv->key, kv->val);
	strcpy(dst, kv->val);
	return 0;
}

/* clang-format off */
static const char *const btrfs_profiles[] = {
	"single", "dup", "raid0", "raid1", "raid1c3", "raid1c4", "raid10", "raid5", "raid6", NULL
};
/* clang-format on */
static const char *const md_levels[] = {"0", "1", "5", "6", "10", NULL};

/* raid= for a candidate: md0..md10 (or raidN with ext4, xfs, raw) is md; btrfs takes its own
 * profiles. */
static int cand_raid(struct candidate *c, const struct plan *p, int line, char *err, size_t errlen)
{
	char v[sizeof(c->level)];
	int min = 2;

	strcpy(v, c->level); /* as written, for the messages */

	if (!*v)
		return 0;
	if (!strncmp(v, "md", 2) || (strcmp(c->fs, "btrfs") && !strncmp(v, "raid", 4))) {
		const char *lvl = v + (v[0] == 'm' ? 2 : 4);

		if (!in_list(md_levels, lvl))
			PERR(line, "raid=%s: md levels are md0, md1, md5, md6, md10", v);
		memmove(c->level, lvl, strlen(lvl) + 1);
		c->raid = RAID_MD;
		min = !strcmp(lvl, "5") ? 3 : !strcmp(lvl, "6") ? 4 : 2;
	} else if (!strcmp(c->fs, "btrfs")) {
		if (!in_list(btrfs_profiles, v))
			PERR(line,
			     "raid=%s: btrfs profiles are raid0, raid1, raid1c3, raid1c4, "
			     "raid10, raid5, raid6, single, dup (md0 ... md10 for btrfs on md)",
			     v);
		c->raid = RAID_BTRFS;
		min = !strcmp(v, "raid6") ? 3 : strcmp(v, "single") && strcmp(v, "dup") ? 2 : 1;
	} else {
		PERR(line, "raid=%s: give an md level (md0, md1, md5, md6, md10)", v);
	}
	if (c->ndev < min)
		PERR(line, "raid=%s needs at least %d devices, [%s] lists %d", v, min, c->name,
		     c->ndev);
	return 0;
}

static int cand_section(struct plan *p, const struct section *s, char *err, size_t errlen)
{
	struct candidate *c = &p->cand[p->ncand];
	bool devs = false;
	int ret = 0, raid_line = s->line;

	if (p->ncand >= STUDY_MAX_CAND)
		PERR(s->line, "more than %d candidates", STUDY_MAX_CAND);
	/* counted at once: what it holds is plan_free's to free, refused or not */
	memset(c, 0, sizeof(*c));
	p->ncand++;
	snprintf(c->name, sizeof(c->name), "%s", s->name);
	c->line = s->line;
	for (int i = 0; i < s->n && !ret; i++) {
		const struct kv *kv = &s->kv[i];
		const char *k = kv->key;

		if (in_list(work_keys, k) && !in_list(cand_keys, k))
			PERR(kv->line,
			     "'%s' is a workload key, and [%s] is a candidate (it has "
			     "devices=, fs= or setup=)",
			     k, s->name);
		if (!in_list(cand_keys, k))
			PERR(kv->line,
			     "unknown key '%s' in candidate [%s] (candidates take: "
			     "devices, fs, raid, metadata, mkfs_opts, mount_opts, "
			     "raid_opts, setup, teardown, target)",
			     k, s->name);
		if (!*kv->val && in_list(named_keys, k))
			PERR(kv->line, "%s= is empty", k);
		if (!strcmp(k, "devices")) {
			int n;

			if (devs)
				PERR(kv->line, "'%s' given twice", k);
			devs = true;
			c->dev_line = kv->line;
			n = split_words(kv->val, c->devices, STUDY_MAX_DEVS);
			if (n == -ENOMEM)
				return n;
			if (n < 0)
				PERR(kv->line, "devices= of [%s]: %s", s->name,
				     n == -E2BIG ? "too many devices" : "unbalanced quotes");
			c->ndev = n;
			for (int j = 0; j < n; j++)
				if (c->devices[j][0] != '/')
					PERR(kv->line,
					     "devices= of [%s]: '%s' is not a path (/dev/...)",
					     s->name, c->devices[j]);
		} else if (!strcmp(k, "fs"))
			ret = set_word(c->fs, sizeof(c->fs), kv, p, err, errlen);
		else if (!strcmp(k, "raid")) {
			ret = set_word(c->level, sizeof(c->level), kv, p, err, errlen);
			raid_line = kv->line;
		} else if (!strcmp(k, "metadata"))
			ret = set_word(c->metadata, sizeof(c->metadata), kv, p, err, errlen);
		else if (!strcmp(k, "mkfs_opts"))
			ret = set_words(&c->mkfs_opts, kv, p, err, errlen);
		else if (!strcmp(k, "mount_opts"))
			ret = set_str(&c->mount_opts, kv, p, err, errlen);
		else if (!strcmp(k, "raid_opts"))
			ret = set_words(&c->raid_opts, kv, p, err, errlen);
		else if (!strcmp(k, "target"))
			ret = set_str(&c->target, kv, p, err, errlen);
		else if (!strcmp(k, "setup") || !strcmp(k, "teardown")) {
			bool su = k[0] == 's';
			int *n = su ? &c->nsetup : &c->nteardown;

			if (*n >= STUDY_MAX_CMDS)
				PERR(kv->line, "more than %d %s= commands", STUDY_MAX_CMDS, k);
			if (!*kv->val)
				PERR(kv->line, "%s= is empty", k);
			if (!((su ? c->setup : c->teardown)[*n] = strdup(kv->val)))
				return -ENOMEM;
			(*n)++;
		}
	}
	if (ret)
		return ret;
	if (c->nsetup || c->nteardown || c->target) {
		c->kind = CAND_CMDS;
		if (!c->nsetup || !c->nteardown || !c->target)
			PERR(s->line,
			     "candidate [%s] built by commands needs setup=, teardown= and "
			     "target= (the path to test)",
			     s->name);
		if (*c->fs || *c->level || c->mkfs_opts || c->mount_opts || c->raid_opts)
			PERR(s->line,
			     "candidate [%s]: setup= commands build it, so fs=, raid=, "
			     "mkfs_opts=, mount_opts= and raid_opts= do not apply",
			     s->name);
		return 0;
	}
	if (!*c->fs)
		PERR(s->line,
		     "candidate [%s] has no fs= (ext4, xfs, btrfs, or raw for the device "
		     "itself) and no setup= commands",
		     s->name);
	if (!c->ndev)
		PERR(s->line, "candidate [%s] lists no devices=", s->name);
	if (!strcmp(c->fs, "raw")) {
		c->kind = CAND_RAW;
		if (c->mkfs_opts || c->mount_opts)
			PERR(s->line,
			     "candidate [%s] is raw: mkfs_opts= and mount_opts= do not apply",
			     s->name);
	} else if (strcmp(c->fs, "ext4") && strcmp(c->fs, "xfs") && strcmp(c->fs, "btrfs")) {
		PERR(s->line,
		     "candidate [%s]: fs=%s: give ext4, xfs, btrfs or raw (others through "
		     "setup=/teardown= commands)",
		     s->name, c->fs);
	}
	ret = cand_raid(c, p, raid_line, err, errlen);
	if (ret)
		return ret;
	if (c->ndev > 1 && c->raid == RAID_NONE && strcmp(c->fs, "btrfs"))
		PERR(s->line,
		     "candidate [%s] lists %d devices: say how to join them with raid= "
		     "(md0, md1, md5, md6, md10)",
		     s->name, c->ndev);
	if (*c->metadata && c->raid != RAID_BTRFS)
		PERR(s->line, "candidate [%s]: metadata= is for btrfs profiles", s->name);
	if (*c->metadata && !in_list(btrfs_profiles, c->metadata))
		PERR(s->line, "candidate [%s]: metadata=%s is not a btrfs profile", s->name,
		     c->metadata);
	return 0;
}

static int work_section(struct plan *p, const struct section *s, char *err, size_t errlen)
{
	struct workload *w = &p->work[p->nwork];
	int ret = 0, kinds = 0;

	if (p->nwork >= STUDY_MAX_WORK)
		PERR(s->line, "more than %d workloads", STUDY_MAX_WORK);
	memset(w, 0, sizeof(*w));
	p->nwork++;
	snprintf(w->name, sizeof(w->name), "%s", s->name);
	w->line = s->line;
	for (int i = 0; i < s->n && !ret; i++) {
		const struct kv *kv = &s->kv[i];
		const char *k = kv->key;

		if (in_list(cand_keys, k))
			PERR(kv->line,
			     "'%s' is a candidate key, and [%s] is a workload (it has "
			     "preset=, fio= or trace=)",
			     k, s->name);
		if (!in_list(work_keys, k))
			PERR(kv->line,
			     "unknown key '%s' in workload [%s] (workloads take: preset, "
			     "fio, section, trace, mode, options, replay_opts, size, "
			     "runtime)",
			     k, s->name);
		if (!*kv->val && in_list(named_keys, k))
			PERR(kv->line, "%s= is empty", k);
		if (!strcmp(k, "preset") || !strcmp(k, "fio") || !strcmp(k, "trace"))
			w->kind_line = kv->line;
		if (!strcmp(k, "preset"))
			ret = set_str(&w->preset, kv, p, err, errlen);
		else if (!strcmp(k, "fio") || !strcmp(k, "trace")) {
			char **dst = k[0] == 'f' ? &w->fio : &w->trace;

			if (*dst)
				PERR(kv->line, "'%s' given twice", k);
			*dst = plan_rel(p, kv->val);
			if (!*dst)
				return -ENOMEM;
			/* no such path opens, and run.c copied a trace's into a PATH_MAX buffer: cut
			 * short, it named another file */
			if (strlen(*dst) >= PATH_MAX)
				PERR(kv->line, "%s=: path too long", k);
		} else if (!strcmp(k, "section"))
			ret = set_str(&w->section, kv, p, err, errlen);
		else if (!strcmp(k, "mode"))
			ret = set_word(w->mode, sizeof(w->mode), kv, p, err, errlen);
		else if (!strcmp(k, "options"))
			ret = set_words(&w->options, kv, p, err, errlen);
		else if (!strcmp(k, "replay_opts")) {
			ret = set_words(&w->replay_opts, kv, p, err, errlen);
			w->replay_line = kv->line;
		}
		else if (!strcmp(k, "size")) {
			if (parse_size(kv->val, &w->size) || !w->size)
				PERR(kv->line, "size=%s: give a size (256M, 4G)", kv->val);
		} else if (!strcmp(k, "runtime")) {
			if (parse_runtime(kv->val, &w->runtime_ns))
				PERR(kv->line, "runtime=%s: " RUNTIME_RANGE, kv->val);
		}
	}
	if (ret)
		return ret;
	kinds = !!w->preset + !!w->fio + !!w->trace;
	if (kinds != 1)
		PERR(s->line,
		     "workload [%s]: give one of preset=, fio= (with section=) or trace= "
		     "(with mode=)",
		     s->name);
	w->kind = w->preset ? WORK_PRESET : w->fio ? WORK_FIO : WORK_TRACE;
	if (w->section && w->kind != WORK_FIO)
		PERR(s->line, "workload [%s]: section= names a section of a fio= job file",
		     s->name);
	if (w->kind == WORK_TRACE) {
		/* no mode: replay's default (dep for a recording, timed for an imported trace,
		 * closed for a synthesized job) */
		if (*w->mode && strcmp(w->mode, "dep") && strcmp(w->mode, "timed") &&
		    strcmp(w->mode, "afap"))
			PERR(s->line,
			     "workload [%s]: mode=%s: a trace replays in dep (how would "
			     "it run there?), timed (can it absorb the load?) or afap",
			     s->name, w->mode);
		if (w->options || w->size || w->runtime_ns)
			PERR(s->line,
			     "workload [%s]: a trace keeps its own I/O: options=, size= "
			     "and runtime= are for preset= and fio= (replay_opts= applies)",
			     s->name);
	} else if (*w->mode) {
		PERR(s->line,
		     "workload [%s]: mode= is for trace= workloads (a preset or fio job "
		     "replays as fio runs it)",
		     s->name);
	}
	return 0;
}

static int plan_sections(struct plan *p, struct section *secs, int nsec, char *err, size_t errlen)
{
	for (int i = 0; i < nsec; i++) {
		const struct section *s = &secs[i];
		bool work = false, cand = false;
		int ret;

		for (int j = 0; j < i; j++)
			if (!strcmp(secs[j].name, s->name))
				PERR(s->line, "section [%s] given twice (first at line %d)",
				     s->name, secs[j].line);
		if (!strcmp(s->name, "study")) {
			ret = study_section(p, s, err, errlen);
			if (ret)
				return ret;
			continue;
		}
		if (!good_name(s->name))
			PERR(s->line,
			     "section name [%s]: use letters, digits, '.', '-', '_' (it "
			     "names result files)",
			     s->name);
		/* the first key that tells decides: a key of the other kind is then refused */
		for (int j = 0; j < s->n && !work && !cand; j++) {
			const char *k = s->kv[j].key;

			work = !strcmp(k, "preset") || !strcmp(k, "fio") || !strcmp(k, "trace");
			cand = !strcmp(k, "devices") || !strcmp(k, "fs") || !strcmp(k, "setup") ||
			       !strcmp(k, "target") || !strcmp(k, "teardown");
		}
		if (work)
			ret = work_section(p, s, err, errlen);
		else if (cand)
			ret = cand_section(p, s, err, errlen);
		else if (s->n && !in_list(cand_keys, s->kv[0].key) &&
			 !in_list(work_keys, s->kv[0].key))
			PERR(s->kv[0].line, "unknown key '%s' in [%s]", s->kv[0].key, s->name);
		else
			PERR(s->line,
			     "section [%s] is neither a candidate (devices= with fs=, or "
			     "setup=) nor a workload (preset=, fio= or trace=)",
			     s->name);
		if (ret)
			return ret;
	}
	if (!p->ncand)
		PERR(1, "the plan has no candidate (a section with devices= and fs=, or setup=)");
	if (!p->nwork)
		PERR(1, "the plan has no workload (a section with preset=, fio= or trace=)");
	return 0;
}

static int plan_parse(struct plan *p, char *err, size_t errlen)
{
	struct section *secs = NULL;
	int nsec = 0, seccap = 0, lineno = 0, ret;
	char *text = strdup(p->text), *line, *next;

	if (!text)
		return -ENOMEM;
	/* a plan saved by an editor that starts files with a UTF-8 byte order mark */
	line = strncmp(text, "\xEF\xBB\xBF", 3) ? text : text + 3;
	for (; line; line = next) {
		char *l, *eq;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		l = trim(line);
		if (!*l || *l == '#' || *l == ';')
			continue;
		if (*l == '[') {
			char *e = strchr(l, ']');
			struct section *ns;

			if (!e || e[1] || e == l + 1 || (size_t)(e - l - 1) >= sizeof(secs->name)) {
				snprintf(err, errlen, "%s:%d: bad section header '%s'", p->path,
					 lineno, l);
				ret = -EINVAL;
				goto out;
			}
			ns = grow(secs, nsec, &seccap, sizeof(*secs));
			if (!ns) {
				ret = -ENOMEM;
				goto out;
			}
			secs = ns;
			memset(&secs[nsec], 0, sizeof(*secs));
			snprintf(secs[nsec].name, sizeof(secs->name), "%.*s", (int)(e - l - 1),
				 l + 1);
			secs[nsec++].line = lineno;
			continue;
		}
		eq = strchr(l, '=');
		if (!nsec || !eq) {
			snprintf(err, errlen, "%s:%d: %s '%s'", p->path, lineno,
				 !nsec ? "a key before any [section]:" : "not key=value:", l);
			ret = -EINVAL;
			goto out;
		} else {
			struct section *s = &secs[nsec - 1];
			struct kv *nk;

			nk = grow(s->kv, s->n, &s->cap, sizeof(*nk));
			if (!nk) {
				ret = -ENOMEM;
				goto out;
			}
			s->kv = nk;
			*eq = '\0';
			nk[s->n].line = lineno;
			nk[s->n].key = trim(l);
			nk[s->n].val = trim(eq + 1);
			/* fio writes mkfs-opts and mkfs_opts alike */
			for (char *c = nk[s->n].key; *c; c++)
				*c = *c == '-' ? '_' : *c;
			s->n++;
		}
	}
	ret = plan_sections(p, secs, nsec, err, errlen);
out:
	for (int i = 0; i < nsec; i++)
		free(secs[i].kv);
	free(secs);
	free(text);
	return ret;
}

int plan_load(struct plan *p, const char *path, char *err, size_t errlen)
{
	FILE *f;
	struct stat st;
	size_t n;
	int fd, ret;
	char *nul;

	memset(p, 0, sizeof(*p));
	snprintf(p->path, sizeof(p->path), "%s", path);
	p->repeats = 3;
	p->runtime_ns = 60ULL * 1000000000;
	p->size = 1ULL << 30;
	/* O_NONBLOCK: a named pipe nobody writes is refused below, not waited on (it changes
	 * nothing for a regular file) */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	f = fd < 0 ? NULL : fdopen(fd, "r");
	if (!f && fd >= 0) {
		int e = errno;

		close(fd);
		errno = e;
	}
	if (!f || fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size > PLAN_MAX_BYTES) {
		ret = f ? -EINVAL : -errno;
		snprintf(err, errlen, "cannot read the plan %s: %s", path,
			 f ? "not a regular file under 1 MiB" : strerror(errno));
		if (f)
			fclose(f);
		return ret;
	}
	p->text = calloc(1, st.st_size + 1);
	n = p->text ? fread(p->text, 1, st.st_size, f) : 0;
	fclose(f);
	if (!p->text || n != (size_t)st.st_size) {
		snprintf(err, errlen, "cannot read the plan %s: %s", path,
			 p->text ? "a short read (did it change?)" : strerror(ENOMEM));
		return -EIO;
	}
	/* a plan is typed, so a NUL is a mistake of the user's too (a binary file given as the
	 * plan): said where, as every other mistake */
	nul = memchr(p->text, '\0', n);
	if (nul) {
		int line = 1;

		for (const char *c = p->text; c < nul; c++)
			line += *c == '\n';
		snprintf(err, errlen, "%s:%d: a NUL byte: a plan is a text file", path, line);
		return -EINVAL;
	}
	p->text_len = n;
	p->hash = fnv1a_str(p->text);
	ret = plan_parse(p, err, errlen);
	if (ret == -ENOMEM) /* the one refusal the parser does not word */
		snprintf(err, errlen, "cannot read the plan %s: %s", path, strerror(ENOMEM));
	if (!ret && !*p->results) {
		const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
		int keep = dot && (!slash || dot > slash) ? (int)(dot - path) : (int)strlen(path);

		/* cut short, it named another folder: left empty, for cmd_study to refuse unless
		 * --results names one */
		if (snprintf(p->results, sizeof(p->results), "%.*s.results", keep, path) >=
		    (int)sizeof(p->results))
			*p->results = '\0';
	}
	return ret;
}

void plan_free(struct plan *p)
{
	for (int i = 0; i < p->ncand; i++) {
		struct candidate *c = &p->cand[i];

		for (int j = 0; j < c->ndev; j++)
			free(c->devices[j]);
		for (int j = 0; j < c->nsetup; j++)
			free(c->setup[j]);
		for (int j = 0; j < c->nteardown; j++)
			free(c->teardown[j]);
		free(c->mkfs_opts);
		free(c->mount_opts);
		free(c->raid_opts);
		free(c->target);
	}
	for (int i = 0; i < p->nwork; i++) {
		struct workload *w = &p->work[i];

		free(w->preset);
		free(w->fio);
		free(w->section);
		free(w->trace);
		free(w->options);
		free(w->replay_opts);
	}
	free(p->text);
	p->text = NULL;
}
