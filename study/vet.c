// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Before a study writes anything: the devices its candidates list must be safe to destroy,
 * with the same checks replay makes before it writes (replay/target.h: mounted, held by dm or
 * md, swap, a filesystem, RAID or partition signature), and md must exist where it is asked.
 * A signature passes with --force (the user says the data may go); a mounted or held device
 * never does, because building a candidate on it would corrupt what is using it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "replay/block/target.h"
#include "study/study.h"
#include "util/cli.h"

bool md_available(char *why, size_t len)
{
	const char *path = getenv("PATH");
	bool mdadm = false;

	if (access("/proc/mdstat", R_OK)) {
		snprintf(why, len,
			 "this kernel has no md (no /proc/mdstat: modprobe md_mod, or "
			 "build the array by setup=/teardown= commands)");
		return false;
	}
	for (const char *s = path ? path : "/usr/sbin:/usr/bin:/sbin:/bin"; *s;) {
		const char *e = strchrnul(s, ':');
		char p[4096];

		snprintf(p, sizeof(p), "%.*s/mdadm", (int)(e - s), s);
		if (!access(p, X_OK))
			mdadm = true;
		s = *e ? e + 1 : e;
	}
	if (!mdadm) {
		snprintf(why, len, "mdadm is not installed (apt-get install mdadm)");
		return false;
	}
	return true;
}

/* Mounted, held or swap: -EBUSY with the reason; a signature: -EEXIST; else 0. */
static int dev_check(const char *path, struct stat *st, char *err, size_t errlen)
{
	struct target t = {.fd = -1, .is_blk = true};

	if (stat(path, st)) {
		snprintf(err, errlen, "device %s: %s", path, strerror(errno));
		return -ENOENT;
	}
	if (!S_ISBLK(st->st_mode)) {
		snprintf(err, errlen,
			 "%s is not a block device (devices= lists the disks a "
			 "candidate is built on)",
			 path);
		return -EINVAL;
	}
	snprintf(t.path, sizeof(t.path), "%s", path);
	t.rdev = st->st_rdev;
	return target_check_writable(&t, err, errlen);
}

/*
 * replay's message for a device in use ends in "; --force if you really mean it" (or
 * "unmount it, or --force ..."): a study never builds on a device in use, so it says so.
 */
static const char *in_use(char *err, size_t errlen, int ret)
{
	char *f = strstr(err, "; unmount it, or --force");

	if (ret != -EBUSY)
		return err;
	if (!f)
		f = strstr(err, "; --force");
	if (f)
		snprintf(f, errlen - (size_t)(f - err),
			 "; a study never builds on a device in use, --force or not");
	return err;
}

int vet_candidate_free(const struct candidate *c, char *err, size_t errlen)
{
	for (int i = 0; i < c->ndev; i++) {
		struct stat st;
		int ret = dev_check(c->devices[i], &st, err, errlen);

		if (ret && ret != -EEXIST) {
			in_use(err, errlen, ret);
			return ret;
		}
	}
	return 0;
}

int vet_plan(const struct plan *p, const struct vet_opts *o)
{
	char err[1024], why[256];
	int bad = 0;

	for (int i = 0; i < p->ncand; i++) {
		const struct candidate *c = &p->cand[i];
		dev_t seen[STUDY_MAX_DEVS];

		if (cand_uses_md(c) && !o->dry_run && !md_available(why, sizeof(why))) {
			cli_error("candidate [%s] asks for md raid%s: %s; nothing was written",
				  c->name, c->level, why);
			bad = EXIT_USAGE;
		}
		for (int j = 0; j < c->ndev; j++) {
			struct stat st;
			int ret = dev_check(c->devices[j], &st, err, sizeof(err));

			for (int k = 0; k < j && (ret == 0 || ret == -EEXIST || ret == -EBUSY); k++)
				if (seen[k] == st.st_rdev) {
					cli_error(
					    "candidate [%s] lists %s twice (as %s and %s): a "
					    "device can be in one place of a candidate at once",
					    c->name, c->devices[j], c->devices[k], c->devices[j]);
					bad = EXIT_USAGE;
				}
			seen[j] = st.st_rdev;
			if (o->dry_run && (ret == -ENOENT || ret == -EINVAL))
				continue; /* a plan written for another host prints as well */
			if (ret == -EEXIST && o->force)
				continue;
			if (ret) {
				cli_error("candidate [%s]: %s", c->name,
					  in_use(err, sizeof(err), ret));
				bad = bad ? bad : EXIT_RUNTIME;
			}
		}
	}
	if (!o->dry_run && !o->allow_writes) {
		cli_error(
		    "a study destroys what is on its devices (mkfs, arrays, replayed writes): "
		    "add --allow-writes to run %s; nothing was written",
		    p->path);
		bad = EXIT_USAGE;
	}
	if (bad && !o->dry_run)
		cli_error("refusing to run %s: nothing was written", p->path);
	return bad; /* a dry run still prints its commands, and exits with it at the end */
}

/*
 * One lock file per device (/run/lock/ioreel-study.MAJ:MIN), held with flock for the whole
 * run: two studies at once on one disk would each measure the other and destroy its
 * candidates. The lock goes with the process, so a crashed study never leaves one held.
 */
/* The lock file names the pid of the study that wrote it: is that one running now? */
static bool holder_is_study(const char *pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	if (!*pid || strspn(pid, "0123456789") != strlen(pid) || strlen(pid) > 10)
		return false;
	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strncmp(comm, "ioreel", 6);
}

int vet_lock_devices(const struct plan *p)
{
	static dev_t locked[STUDY_MAX_CAND * STUDY_MAX_DEVS];
	static int nlocked;

	for (int i = 0; i < p->ncand; i++) {
		const struct candidate *c = &p->cand[i];

		for (int j = 0; j < c->ndev; j++) {
			char path[128], holder[64] = "";
			struct stat st;
			int fd;
			ssize_t n;

			bool have = false;

			if (stat(c->devices[j], &st) || !S_ISBLK(st.st_mode))
				continue;
			/* flock conflicts between two opens in one process too: once per device */
			for (int k = 0; k < nlocked; k++)
				have |= locked[k] == st.st_rdev;
			if (have)
				continue;
			snprintf(path, sizeof(path), "/run/lock/ioreel-study.%u:%u",
				 major(st.st_rdev), minor(st.st_rdev));
			fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
			if (fd < 0) {
				snprintf(path, sizeof(path), "/tmp/ioreel-study.%u:%u",
					 major(st.st_rdev), minor(st.st_rdev));
				fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
			}
			if (fd < 0)
				continue; /* no place for locks: the mount checks still apply */
			if (flock(fd, LOCK_EX | LOCK_NB)) {
				n = pread(fd, holder, sizeof(holder) - 1, 0);
				holder[n > 0 ? n : 0] = '\0';
				holder[strcspn(holder, "\n")] = '\0';
				if (!holder_is_study(holder))
					holder[0] =
					    '\0'; /* left by an earlier study: not the holder */
				cli_error(
				    "candidate [%s]: %s is in another study running now (%s%s, "
				    "lock "
				    "%s): one device, one study at a time; nothing was written",
				    c->name, c->devices[j], *holder ? "pid " : "an unknown process",
				    holder, path);
				close(fd);
				return EXIT_RUNTIME;
			}
			locked[nlocked++] = st.st_rdev;
			if (ftruncate(fd, 0) == 0)
				dprintf(fd, "%d\n", (int)getpid());
			/* kept open (and locked) until the study exits */
		}
	}
	return 0;
}
