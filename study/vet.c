// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Before a study writes anything: the devices its candidates list must be safe to destroy,
 * with the same checks replay makes before it writes (replay/target.h: mounted, held by dm or
 * md, swap, a filesystem, RAID or partition signature), md must exist where it is asked, the
 * tools that build and tear down each candidate must be installed, every workload must be
 * one synth and replay take (work.c), and the results must have a directory to go to.
 * A signature passes with --force (the user says the data may go); a mounted or held device
 * never does, because building a candidate on it would corrupt what is using it, nor one that
 * holds a file the study reads (the plan, a trace, a fio job).
 * A dry run makes every one of these checks: it is what a user runs before leaving a study
 * unattended, and a mistake it lets through is found hours later, or never.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <blkid/blkid.h>
#include <linux/magic.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include "replay/block/target.h"
#include "study/study.h"
#include "util/cli.h"

/* Is name a program in PATH (as execvp, which runs the study's commands, looks it up)? */
static bool tool_in_path(const char *name)
{
	const char *path = getenv("PATH");

	for (const char *s = path ? path : "/usr/sbin:/usr/bin:/sbin:/bin"; *s;) {
		const char *e = strchrnul(s, ':');
		char p[4096];

		snprintf(p, sizeof(p), "%.*s/%s", (int)(e - s), s, name);
		if (!access(p, X_OK))
			return true;
		s = *e ? e + 1 : e;
	}
	return false;
}

bool md_available(char *why, size_t len)
{
	if (access("/proc/mdstat", R_OK)) {
		snprintf(why, len,
			 "this kernel has no md (no /proc/mdstat: modprobe md_mod, or "
			 "build the array by setup=/teardown= commands)");
		return false;
	}
	if (!tool_in_path("mdadm")) {
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
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -ENOENT;
	}
	if (!S_ISBLK(st->st_mode)) {
		snprintf(err, errlen, "%s is %s, not a block device", path,
			 S_ISDIR(st->st_mode)	? "a directory"
			 : S_ISREG(st->st_mode) ? "a regular file"
			 : S_ISCHR(st->st_mode) ? "a character device"
						: "not a device");
		return -EINVAL;
	}
	snprintf(t.path, sizeof(t.path), "%s", path);
	t.rdev = st->st_rdev;
	return target_check_writable(&t, err, errlen);
}

/*
 * replay's message for a device in use ends in what to do first and why --force does not
 * help ("; unmount it first (--force or not: ...)"): a study says it its own way.
 */
static const char *in_use(char *err, size_t errlen, int ret)
{
	char *f = strstr(err, "; unmount it first");

	if (ret != -EBUSY)
		return err;
	if (!f)
		f = strstr(err, "; take it out of that first");
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

int vet_signature(const char *dev, char *type, size_t tlen, char *uuid, size_t ulen)
{
	blkid_probe pr = blkid_new_probe_from_filename(dev);
	const char *v;
	int rc;

	*type = *uuid = '\0';
	if (!pr)
		return errno ? -errno : -EIO;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID);
	blkid_probe_enable_partitions(pr, 1);
	rc = blkid_do_safeprobe(pr);
	if (rc == 0) {
		if (!blkid_probe_lookup_value(pr, "TYPE", &v, NULL) ||
		    !blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL))
			snprintf(type, tlen, "%s", v);
		if (!blkid_probe_lookup_value(pr, "UUID", &v, NULL) ||
		    !blkid_probe_lookup_value(pr, "PTUUID", &v, NULL))
			snprintf(uuid, ulen, "%s", v);
	} else if (rc == -2) {
		snprintf(type, tlen, "several, ambivalent");
	}
	blkid_free_probe(pr);
	return rc == 0 || rc == -2 ? 1 : rc == 1 ? 0 : -EIO;
}

/* The exit code of several refusals: a mistake in the plan (2) before a state of the host (1). */
static void worst(int *bad, int code)
{
	if (code == EXIT_USAGE || !*bad)
		*bad = code;
}

/* What each candidate runs to be built and torn down, and the package that has it. */
static int vet_tools(const struct plan *p, const struct candidate *c)
{
	static const char *const pkg[][2] = {
	    {"mkfs.ext4", "e2fsprogs"}, {"mkfs.xfs", "xfsprogs"}, {"mkfs.btrfs", "btrfs-progs"},
	    {"btrfs", "btrfs-progs"},	{"mount", "util-linux"},  {"umount", "util-linux"},
	    {"wipefs", "util-linux"},
	};
	const char *need[8];
	char mkfs[32], why[256];
	int n = 0, bad = 0;

	if (c->kind == CAND_FS) {
		snprintf(mkfs, sizeof(mkfs), "mkfs.%s", c->fs);
		need[n++] = mkfs;
		need[n++] = "mount";
		need[n++] = "umount";
	}
	/* btrfs device scan, so that the kernel knows every member before the mount */
	if (!strcmp(c->fs, "btrfs") && c->raid != RAID_MD && c->ndev > 1)
		need[n++] = "btrfs";
	/* every teardown wipes the signatures off its devices */
	if (c->ndev)
		need[n++] = "wipefs";
	for (int i = 0; i < n; i++) {
		const char *from = "util-linux";

		if (tool_in_path(need[i]))
			continue;
		for (size_t k = 0; k < sizeof(pkg) / sizeof(pkg[0]); k++)
			if (!strcmp(pkg[k][0], need[i]))
				from = pkg[k][1];
		plan_error(p, c->line,
			   "candidate [%s] needs %s, which is not in PATH: install %s (apt-get "
			   "install %s)%s",
			   c->name, need[i], from, from,
			   strcmp(from, "util-linux") ? ", or build it by setup=/teardown= commands"
						      : "");
		bad = EXIT_USAGE;
	}
	if (cand_uses_md(c) && !md_available(why, sizeof(why))) {
		plan_error(p, c->line, "candidate [%s] asks for md raid%s: %s", c->name, c->level,
			   why);
		bad = EXIT_USAGE;
	}
	return bad;
}

/*
 * The files the study reads (the plan, each trace and fio job) must not be on a device it
 * builds on: a loop device over a trace passed every check (no signature, not mounted), mkfs
 * wrote over the trace, and the study then replayed what was left. The file on a device's
 * filesystem is found too, though a mounted device is refused before. --force or not.
 */
static int vet_holds(const struct plan *p, const struct candidate *c, const char *dev,
		     const struct stat *st)
{
	struct target t = {.fd = -1, .is_blk = true, .rdev = st->st_rdev};
	const char *how = target_holds(&t, p->path), *file = p->path, *what = "the plan";
	char buf[128];

	for (int w = 0; !how && w < p->nwork; w++) {
		const struct workload *wl = &p->work[w];

		file = wl->trace ? wl->trace : wl->fio;
		if (file && (how = target_holds(&t, file))) {
			snprintf(buf, sizeof(buf), "the %s of workload [%s]",
				 wl->trace ? "trace" : "fio job", wl->name);
			what = buf;
		}
	}
	if (!how)
		return 0;
	plan_error(p, c->dev_line,
		   "candidate [%s]: %s holds %s, %s (%s): building the candidate would destroy "
		   "it, --force or not; copy the file elsewhere, or build on another device",
		   c->name, dev, what, file, how);
	return EXIT_USAGE;
}

static int vet_devices(const struct plan *p, const struct candidate *c, const struct vet_opts *o)
{
	dev_t seen[STUDY_MAX_DEVS];
	char err[1024];
	int bad = 0;

	for (int j = 0; j < c->ndev; j++) {
		struct stat st;
		int ret = dev_check(c->devices[j], &st, err, sizeof(err));

		/* 0:0 is no block device: a path refused here is never "listed twice" */
		seen[j] = ret == 0 || ret == -EEXIST || ret == -EBUSY ? st.st_rdev : 0;
		for (int k = 0; k < j && seen[j]; k++)
			if (seen[k] == seen[j]) {
				plan_error(p, c->dev_line,
					   "candidate [%s] lists %s twice (as %s and %s): a device "
					   "can be in one place of a candidate at once",
					   c->name, c->devices[j], c->devices[k], c->devices[j]);
				worst(&bad, EXIT_USAGE);
			}
		if (ret == -ENOENT || ret == -EINVAL) {
			/* a plan written for another host is refused here too: its dry run is run
			 * before the study, on the host it will run on */
			plan_error(
			    p, c->dev_line,
			    "candidate [%s]: devices=: %s: give the disks or partitions to "
			    "build it on (lsblk lists them; losetup -f --show FILE makes one "
			    "of a file)",
			    c->name, err);
			worst(&bad, EXIT_USAGE);
		} else if (ret && !(ret == -EEXIST && o->force)) {
			plan_error(p, c->dev_line, "candidate [%s]: %s", c->name,
				   in_use(err, sizeof(err), ret));
			worst(&bad, EXIT_RUNTIME);
		}
		if ((ret == 0 || ret == -EEXIST) && vet_holds(p, c, c->devices[j], &st))
			worst(&bad, EXIT_USAGE);
	}
	return bad;
}

/*
 * The name of the kernel's pseudo filesystem (/proc, /sys and their kind) that path is on; NULL
 * for any other. As root, access() passes a directory there as writable (/proc/self, /sys/kernel
 * all the same), and the study's first mkdir fails after the vetting, or a file lands where the
 * kernel takes its writes as commands.
 */
static const char *pseudo_fs_name(const char *path)
{
	static const struct {
		uint32_t type; /* f_type's width differs; every magic fits in 32 bits */
		const char *name;
	} pseudo[] = {
		{ PROC_SUPER_MAGIC, "proc" },	    { SYSFS_MAGIC, "sysfs" },
		{ DEBUGFS_MAGIC, "debugfs" },	    { TRACEFS_MAGIC, "tracefs" },
		{ CGROUP_SUPER_MAGIC, "cgroup" },   { CGROUP2_SUPER_MAGIC, "cgroup2" },
		{ SECURITYFS_MAGIC, "securityfs" }, { SELINUX_MAGIC, "selinuxfs" },
		{ BPF_FS_MAGIC, "bpf" },	    { DEVPTS_SUPER_MAGIC, "devpts" },
		{ PSTOREFS_MAGIC, "pstore" },	    { EFIVARFS_MAGIC, "efivarfs" },
		{ NSFS_MAGIC, "nsfs" },
	};
	struct statfs sf;

	if (statfs(path, &sf))
		return NULL; /* stat found it a moment ago; the mkdir will say what is wrong */
	for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++)
		if ((uint32_t)sf.f_type == pseudo[i].type)
			return pseudo[i].name;
	return NULL;
}

/* Says where the results directory came from, for messages. */
static void results_from(const struct plan *p, char *buf, size_t len)
{
	if (p->results_line > 0)
		snprintf(buf, len, "%s:%d: results=%s", p->path, p->results_line, p->results);
	else if (p->results_line < 0)
		snprintf(buf, len, "--results %s", p->results);
	else
		snprintf(buf, len, "the results directory %s (beside the plan)", p->results);
}

/*
 * An existing results directory is a study's (it has a state file) or empty: a study writes
 * report.html, report.json, plan.ini and log there, and replaced a user's files of those names
 * in a directory that held other things (--results ~/reports).
 */
static int vet_results_ours(const char *from, const char *dir)
{
	char names[256] = "";
	bool state = false;
	struct dirent *de;
	size_t n = 0;
	int count = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0; /* the run's mkdir and open say what is wrong */
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		state |= !strcmp(de->d_name, "state");
		if (count++ < 4 && n < sizeof(names))
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "",
					      de->d_name);
	}
	closedir(d);
	if (state || !count)
		return 0;
	cli_error("%s: %s holds files that are not an ioreel study's (%s%s), and a study writes "
		  "report.html, report.json, plan.ini and log there, replacing files of those "
		  "names: give a new or empty directory (--results DIR, or results= in [study])",
		  from, dir, names, count > 4 ? ", ..." : "");
	return EXIT_USAGE;
}

/*
 * The results go to a directory made if missing (with its parents): what exists of the path
 * must be directories the study may write in. Found at the run's first mkdir, after the
 * vetting; here, before anything, and in a dry run too.
 */
static int vet_results(const struct plan *p)
{
	char path[sizeof(p->results)], from[sizeof(p->results) + 4200];
	struct stat st;
	const char *fs;
	char *slash;

	results_from(p, from, sizeof(from));
	snprintf(path, sizeof(path), "%s", p->results);
	/* the deepest part of the path that exists */
	while (stat(path, &st)) {
		if (errno != ENOENT && errno != ENOTDIR) {
			cli_error("%s: cannot look at %s: %s", from, path, strerror(errno));
			return EXIT_USAGE;
		}
		slash = strrchr(path, '/');
		if (!slash) {
			snprintf(path, sizeof(path), ".");
			continue;
		}
		slash[slash == path] = '\0';
	}
	if (!S_ISDIR(st.st_mode)) {
		cli_error("%s: %s exists and is not a directory: give a directory for the study's "
			  "results (it is made if missing; --results DIR, or results= in [study])",
			  from, path);
		return EXIT_USAGE;
	}
	if (access(path, W_OK | X_OK)) {
		cli_error("%s: cannot write in %s: %s: give a directory the study may write in "
			  "(--results DIR, or results= in [study])",
			  from, path, strerror(errno));
		return EXIT_USAGE;
	}
	fs = pseudo_fs_name(path);
	if (fs) {
		cli_error("%s: %s is on %s, a pseudo filesystem of the kernel, not storage: give a "
			  "directory on a disk or tmpfs (--results DIR, or results= in [study])",
			  from, path, fs);
		return EXIT_USAGE;
	}
	return strcmp(path, p->results) ? 0 : vet_results_ours(from, path);
}

int vet_plan(const struct plan *p, const struct vet_opts *o)
{
	int bad = 0, ret;

	for (int i = 0; i < p->ncand; i++) {
		ret = vet_tools(p, &p->cand[i]);
		if (ret)
			worst(&bad, ret);
		ret = vet_devices(p, &p->cand[i], o);
		if (ret)
			worst(&bad, ret);
	}
	for (int w = 0; w < p->nwork; w++) {
		ret = work_check(p, w, o->force, o->dry_run);
		if (ret)
			worst(&bad, ret);
	}
	ret = vet_results(p);
	if (ret)
		worst(&bad, ret);
	/* the one check a dry run skips: it writes nothing */
	if (!o->dry_run && !o->allow_writes) {
		cli_error(
		    "a study destroys what is on its devices (mkfs, arrays, replayed writes): "
		    "add --allow-writes to run %s; nothing was written",
		    p->path);
		worst(&bad, EXIT_USAGE);
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

/*
 * The lock file of a device in the lock directory dir (/run/lock, /tmp: both world-writable),
 * made where create (O_CREAT) asks: its descriptor, -errno where the directory cannot hold it,
 * or -EEXIST where something else is at its name (a symbolic link, a directory, a FIFO, a hard
 * link, another user's file), said in err. Never through a symbolic link: a study truncates
 * and writes its lock, and a link planted at its name by another user made a root study
 * truncate the file it pointed to.
 */
static int lock_open(const char *dir, dev_t rdev, int create, char *path, size_t pathlen,
		     char *err, size_t errlen)
{
	struct stat st;
	int fd;

	snprintf(path, pathlen, "%s/ioreel-study.%u:%u", dir, major(rdev), minor(rdev));
	fd = open(path, O_RDWR | create | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
	/* nor a hard link (another name of a file elsewhere), nor another user's file */
	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
	    st.st_uid == geteuid())
		return fd;
	if (fd < 0 && errno != ELOOP && errno != EISDIR)
		return -errno;
	if (fd >= 0)
		close(fd);
	if (lstat(path, &st))
		return -errno;
	if (S_ISREG(st.st_mode) && st.st_nlink != 1)
		snprintf(err, errlen, "a file of %lu names (hard links)",
			 (unsigned long)st.st_nlink);
	else if (S_ISREG(st.st_mode))
		snprintf(err, errlen, "a file of user %u", (unsigned int)st.st_uid);
	else
		snprintf(err, errlen, "%s", S_ISLNK(st.st_mode)   ? "a symbolic link"
					    : S_ISDIR(st.st_mode) ? "a directory"
								  : "not a regular file");
	return -EEXIST;
}

/*
 * flock(LOCK_EX | LOCK_NB) on a device's lock, tried again for up to LOCK_WAIT_TRIES x 10 ms
 * while another holds it: a dry run's check takes the lock for a moment and lets it go at
 * once, and a study starting in that moment refused, saying another study ran. A study that
 * really runs holds it for hours: refused a second later. 0, or -1 with errno.
 */
#define LOCK_WAIT_TRIES 100

static int lock_take(int fd)
{
	for (int i = 0;; i++) {
		if (!flock(fd, LOCK_EX | LOCK_NB))
			return 0;
		if (errno != EWOULDBLOCK || i == LOCK_WAIT_TRIES || cli_stop)
			return -1;
		usleep(10000);
	}
}

int vet_lock_devices(const struct plan *p, bool check_only)
{
	const int create = check_only ? 0 : O_CREAT;
	static dev_t locked[STUDY_MAX_CAND * STUDY_MAX_DEVS];
	static int nlocked;

	for (int i = 0; i < p->ncand; i++) {
		const struct candidate *c = &p->cand[i];

		for (int j = 0; j < c->ndev; j++) {
			char path[128], holder[64] = "", what[48];
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
			/* a check (dry run) makes no lock file: none there, none held */
			fd = lock_open("/run/lock", st.st_rdev, create, path, sizeof(path), what,
				       sizeof(what));
			if (fd < 0 && fd != -EEXIST)
				fd = lock_open("/tmp", st.st_rdev, create, path, sizeof(path),
					       what, sizeof(what));
			if (fd == -EEXIST) {
				cli_error("candidate [%s]: the lock file of %s, %s, is %s: ioreel "
					  "makes none such; remove it and run again; %s",
					  c->name, c->devices[j], path, what,
					  check_only ? "a run now would refuse it"
						     : "nothing was written");
				return EXIT_RUNTIME;
			}
			if (fd < 0)
				continue; /* no place for locks: the mount checks still apply */
			if (lock_take(fd)) {
				n = pread(fd, holder, sizeof(holder) - 1, 0);
				holder[n > 0 ? n : 0] = '\0';
				holder[strcspn(holder, "\n")] = '\0';
				if (!holder_is_study(holder))
					holder[0] =
					    '\0'; /* left by an earlier study: not the holder */
				cli_error(
				    "candidate [%s]: %s is in another study running now (%s%s, "
				    "lock %s): one device, one study at a time; %s",
				    c->name, c->devices[j], *holder ? "pid " : "an unknown process",
				    holder, path,
				    check_only ? "a run now would refuse it"
					       : "nothing was written");
				close(fd);
				return EXIT_RUNTIME;
			}
			if (check_only) { /* free now: let it go at once, unwritten */
				close(fd);
				continue;
			}
			locked[nlocked++] = st.st_rdev;
			if (ftruncate(fd, 0) == 0)
				dprintf(fd, "%d\n", (int)getpid());
			/* kept open (and locked) until the study exits */
		}
	}
	return 0;
}
