// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Building and tearing down one candidate: an md array or a btrfs profile across its devices,
 * a filesystem with the plan's mkfs and mount options, or the user's own setup= commands.
 * The teardown undoes whatever is there, whatever the build got to (it looks at the mounts
 * and arrays, not at how far the build went), so it also clears what a crashed study left.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "study/build.h"
#include "util/cli.h"

#define MAX_ARGS 160

struct argv_buf {
	char *v[MAX_ARGS];
	int n;
	bool overflow;
};

static void add(struct argv_buf *a, const char *s)
{
	if (a->n >= MAX_ARGS - 1) {
		a->overflow = true;
		return;
	}
	a->v[a->n++] = strdup(s);
	a->v[a->n] = NULL;
}

static void add_words(struct argv_buf *a, const char *s)
{
	char *w[MAX_ARGS];
	int n = s ? split_words(s, w, MAX_ARGS) : 0;

	for (int i = 0; i < n; i++) {
		add(a, w[i]);
		free(w[i]);
	}
	if (n < 0)
		a->overflow = true;
}

static bool has_word(const char *s, const char *w)
{
	char *v[MAX_ARGS];
	int n = s ? split_words(s, v, MAX_ARGS) : 0;
	bool yes = false;

	for (int i = 0; i < n; i++) {
		yes |= !strcmp(v[i], w);
		free(v[i]);
	}
	return yes;
}

static void argv_free(struct argv_buf *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->v[i]);
	a->n = 0;
}

/* Runs a built command line; its text goes to the candidate's record of what was run. */
static int run_argv(struct build *b, struct argv_buf *a, bool quiet_out)
{
	struct step s = {.argv = a->v, .quiet_out = quiet_out};
	int ret;

	if (a->overflow) {
		cli_error("candidate [%s]: a command line has too many words", b->c->name);
		argv_free(a);
		return -E2BIG;
	}
	if (b->record) {
		exec_print(b->record, &s);
		fputc('\n', b->record);
		fflush(b->record);
	}
	ret = exec_run(b->x, &s, NULL);
	if (ret)
		cli_error("candidate [%s]: %s failed (%s %d)", b->c->name, a->v[0],
			  ret < 0 ? "error" : "exit status", ret);
	argv_free(a);
	return ret;
}

static void env_set(const struct build *b)
{
	char devs[8192] = "";

	for (int i = 0; i < b->c->ndev; i++)
		snprintf(devs + strlen(devs), sizeof(devs) - strlen(devs), "%s%s", i ? " " : "",
			 b->c->devices[i]);
	setenv("IOREEL_STUDY_DEVICES", devs, 1);
	setenv("IOREEL_STUDY_CANDIDATE", b->c->name, 1);
	setenv("IOREEL_STUDY_RESULTS", b->results, 1);
}

void build_init(struct build *b, const struct candidate *c, struct exec_ctx *x, const char *results)
{
	memset(b, 0, sizeof(*b));
	b->c = c;
	b->x = x;
	b->results = results;
	snprintf(b->mnt, sizeof(b->mnt), "%s/mnt/%s", results, c->name);
	snprintf(b->md, sizeof(b->md), "/dev/md/ioreel-%s", c->name);
}

static bool is_mounted(const char *mnt)
{
	char real[4096], line[8192];
	FILE *f;
	bool yes = false;

	if (!realpath(mnt, real))
		return false;
	f = fopen("/proc/self/mounts", "r");
	while (f && !yes && fgets(line, sizeof(line), f)) {
		char dev[4096], on[4096];

		if (sscanf(line, "%4095s %4095s", dev, on) == 2 && !strcmp(on, real))
			yes = true;
	}
	if (f)
		fclose(f);
	return yes;
}

int build_up(struct build *b)
{
	const struct candidate *c = b->c;
	struct argv_buf a = {0};
	const char *dev = c->ndev ? c->devices[0] : "", *ext4_lazy = NULL;
	int ret;

	env_set(b);
	if (c->kind == CAND_CMDS) {
		for (int i = 0; i < c->nsetup; i++) {
			if (b->record)
				fprintf(b->record, "%s\n", c->setup[i]);
			ret = exec_sh(b->x, c->setup[i], true, true);
			if (ret) {
				cli_error(
				    "candidate [%s]: setup command failed (exit status %d): %s",
				    c->name, ret, c->setup[i]);
				return ret;
			}
		}
		snprintf(b->target, sizeof(b->target), "%s", c->target);
		if (!b->x->dry_run) {
			struct stat st;

			if (stat(c->target, &st)) {
				cli_error("candidate [%s]: target=%s after setup: %s", c->name,
					  c->target, strerror(errno));
				return -ENOENT;
			}
			b->target_is_dir = S_ISDIR(st.st_mode);
			b->target_is_blk = S_ISBLK(st.st_mode);
		} else {
			b->target_is_dir = !strncmp(c->target, "/dev/", 5) ? false : true;
		}
		if (b->target_is_dir)
			snprintf(b->target, sizeof(b->target), "%s/ioreel-study.img", c->target);
		return 0;
	}
	if (c->raid == RAID_MD) {
		char lvl[32], n[32];

		snprintf(lvl, sizeof(lvl), "--level=%s", c->level);
		snprintf(n, sizeof(n), "--raid-devices=%d", c->ndev);
		add(&a, "mdadm");
		add(&a, "--create");
		add(&a, b->md);
		add(&a, "--run");
		add(&a, "--metadata=1.2");
		/* no initial resync: it would run beside the measurements and slow them */
		if (strcmp(c->level, "0"))
			add(&a, "--assume-clean");
		add(&a, lvl);
		add(&a, n);
		add_words(&a, c->raid_opts);
		for (int i = 0; i < c->ndev; i++)
			add(&a, c->devices[i]);
		ret = run_argv(b, &a, true);
		if (ret)
			return ret;
		dev = b->md;
	}
	if (c->kind == CAND_RAW) {
		snprintf(b->target, sizeof(b->target), "%s", dev);
		b->target_is_blk = true;
		return 0;
	}
	if (!strcmp(c->fs, "xfs")) {
		add(&a, "mkfs.xfs");
		add(&a, "-f");
		add(&a, "-q");
	} else if (!strcmp(c->fs, "ext4")) {
		add(&a, "mkfs.ext4");
		add(&a, "-F");
		add(&a, "-q");
		/* initialise now, not in the background while the workloads run; mke2fs keeps
		 * only the last -E, so the plan's own -E options get ours in front */
		ext4_lazy = "lazy_itable_init=0,lazy_journal_init=0";
		if (!has_word(c->mkfs_opts, "-E")) {
			add(&a, "-E");
			add(&a, ext4_lazy);
			ext4_lazy = NULL;
		}
	} else {
		add(&a, "mkfs.btrfs");
		add(&a, "-f");
		add(&a, "-q");
		if (c->raid == RAID_BTRFS) {
			add(&a, "-d");
			add(&a, c->level);
			add(&a, "-m");
			add(&a, *c->metadata ? c->metadata : c->level);
		}
		add_words(&a, c->raid_opts);
	}
	add_words(&a, c->mkfs_opts);
	for (int i = 1; ext4_lazy && i < a.n; i++)
		if (!strcmp(a.v[i - 1], "-E")) {
			char *m;

			if (asprintf(&m, "%s,%s", ext4_lazy, a.v[i]) < 0)
				return -ENOMEM;
			free(a.v[i]);
			a.v[i] = m;
			break;
		}
	if (!strcmp(c->fs, "btrfs") && c->raid != RAID_MD)
		for (int i = 0; i < c->ndev; i++)
			add(&a, c->devices[i]);
	else
		add(&a, dev);
	ret = run_argv(b, &a, true);
	if (ret)
		return ret;
	if (!strcmp(c->fs, "btrfs") && c->raid != RAID_MD && c->ndev > 1) {
		/* the kernel must know every member before one of them is mounted */
		add(&a, "btrfs");
		add(&a, "device");
		add(&a, "scan");
		for (int i = 0; i < c->ndev; i++)
			add(&a, c->devices[i]);
		ret = run_argv(b, &a, true);
		if (ret)
			return ret;
	}
	add(&a, "mkdir");
	add(&a, "-p");
	add(&a, b->mnt);
	ret = run_argv(b, &a, true);
	if (ret)
		return ret;
	add(&a, "mount");
	if (c->mount_opts) {
		add(&a, "-o");
		add(&a, c->mount_opts);
	}
	add(&a, dev);
	add(&a, b->mnt);
	ret = run_argv(b, &a, true);
	if (ret)
		return ret;
	snprintf(b->target, sizeof(b->target), "%s/ioreel-study.img", b->mnt);
	b->target_is_dir = true;
	return 0;
}

/*
 * A teardown step, tried up to 10 times 0.5 s apart: the kernel lets go of a just-ended
 * replay's files (io_uring) and of an unmounted filesystem's device a moment later, so an
 * umount, a wipefs or an mdadm --stop may find them busy at first. Only the last try's
 * complaint is shown; the log has every try.
 */
static int retry(struct build *b, char **argv, bool shell)
{
	int ret = 0;

	for (int t = 0; t < 10; t++) {
		struct step s = {.argv = argv, .shell = shell, .quiet_out = true, .no_stderr = t < 9};

		ret = exec_run(b->x, &s, NULL);
		if (!ret || b->x->dry_run || study_stop > 3)
			break;
		usleep(500000);
	}
	if (ret && !shell)
		cli_error("candidate [%s]: %s failed (exit status %d)", b->c->name, argv[0], ret);
	return ret;
}

static int wipe(struct build *b)
{
	char *v[STUDY_MAX_DEVS + 4] = {"wipefs", "-a", "-q"};

	for (int i = 0; i < b->c->ndev; i++)
		v[3 + i] = b->c->devices[i];
	v[3 + b->c->ndev] = NULL;
	return retry(b, v, false);
}

int build_down(struct build *b)
{
	const struct candidate *c = b->c;
	struct argv_buf a = {0};
	int bad = 0;
	struct stat st;

	env_set(b);
	if (c->kind == CAND_CMDS) {
		if (b->target_is_dir && !b->x->dry_run)
			unlink(b->target); /* ours: the file the replays made */
		for (int i = 0; i < c->nteardown; i++) {
			char *v[] = {"/bin/sh", "-c", c->teardown[i], NULL};
			int ret = retry(b, v, true);

			if (ret) {
				cli_error(
				    "candidate [%s]: teardown command failed (exit status %d): %s",
				    c->name, ret, c->teardown[i]);
				bad = -EIO;
			}
		}
		/* as for a built candidate: the next one (and the next study) finds the disks
		 * blank, as the vetting wants them */
		if (!bad && c->ndev && wipe(b))
			bad = -EIO;
		return bad;
	}
	if (c->kind == CAND_FS && (b->x->dry_run || is_mounted(b->mnt))) {
		if (retry(b, (char *[]){"umount", b->mnt, NULL}, false) && !b->x->dry_run &&
		    is_mounted(b->mnt)) {
			add(&a, "umount");
			add(&a, "-l");
			add(&a, b->mnt);
			bad = run_argv(b, &a, true) ? -EBUSY : 0;
		}
	}
	if (!strcmp(c->fs, "btrfs") && c->raid != RAID_MD) {
		add(&a, "btrfs");
		add(&a, "device");
		add(&a, "scan");
		add(&a, "--forget");
		for (int i = 0; i < c->ndev; i++)
			add(&a, c->devices[i]);
		run_argv(b, &a, true); /* older btrfs-progs lack it: not a failure */
	}
	if (c->raid == RAID_MD && (b->x->dry_run || !stat(b->md, &st)) &&
	    retry(b, (char *[]){"mdadm", "--stop", b->md, NULL}, false))
		bad = -EBUSY;
	/* leave the disks as blank as the vetting wanted them, for the next candidate */
	if (!bad && wipe(b))
		bad = -EIO;
	if (c->kind == CAND_FS && !b->x->dry_run)
		rmdir(b->mnt);
	return bad;
}
