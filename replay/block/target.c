// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Opening and vetting replay targets. Nothing here issues replayed I/O. */
#include <blkid/blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include "replay/block/target.h"
#include "replay/dep/dep_wbt.h"
#include "replay/core/run.h"
#include "util/cli.h"
#include "util/fileio.h"

static uint32_t read_sysfs_u32(const char *path, uint32_t dflt)
{
	FILE *f = fopen(path, "r");
	unsigned int v;

	if (!f)
		return dflt;
	if (fscanf(f, "%u", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

/* O_DIRECT alignment for a file: the logical block size of the device under its filesystem */
static uint32_t file_lbs(dev_t dev)
{
	char p[128];
	uint32_t v;

	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/queue/logical_block_size", major(dev),
		 minor(dev));
	v = read_sysfs_u32(p, 0);
	if (!v) { /* a partition: its queue is the parent's */
		snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/../queue/logical_block_size",
			 major(dev), minor(dev));
		v = read_sysfs_u32(p, 4096); /* btrfs' anonymous dev_t: the safe choice */
	}
	return v;
}

/* Writes the pattern over [from, to) so that reads of a fresh file hit real blocks. */
static int fill_file(int fd, uint64_t from, uint64_t to)
{
	const size_t chunk = 1 << 20;
	void *buf;
	int ret = 0;

	if (posix_memalign(&buf, 4096, chunk))
		return -ENOMEM;
	for (uint64_t off = from & ~511ULL; off < to; off += chunk) {
		size_t n = to - off < chunk ? (size_t)(to - off) : chunk;

		/* a 20G target takes minutes: Ctrl-C ends it (and the caller removes a file it made) */
		if (replay_stop) {
			ret = -EINTR;
			break;
		}
		n = (n + 511) & ~(size_t)511;
		pattern_fill(buf, off, (uint32_t)n, PATTERN_FILL_MAGIC);
		ret = pwrite_whole(fd, buf, n, off);
		if (ret)
			break;
	}
	free(buf);
	if (!ret && fdatasync(fd))
		ret = -errno;
	return ret;
}

/*
 * Is the directory path would be made in /dev (a mount of its own, devtmpfs or tmpfs)? A
 * device named with a slip (--target /dev/sdx --size 64G) became a regular file there, in
 * memory, that later kept udev from making the node.
 */
static bool in_dev_dir(const char *path)
{
	char dir[PATH_MAX];
	struct stat sd, sdev, sroot;
	struct statfs fs;

	snprintf(dir, sizeof(dir), "%s", path);
	if (stat(dirname(dir), &sd) || stat("/dev", &sdev) || stat("/", &sroot) ||
	    statfs("/dev", &fs))
		return false;
	return sd.st_dev == sdev.st_dev && sdev.st_dev != sroot.st_dev &&
	       (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC);
}

static int check_holds(const struct target *t, const char *file, char *err, size_t errlen);
static int check_busy(const struct target *t, char *err, size_t errlen);
static int check_loop_busy(const struct target *t, const struct stat *st, char *err,
			   size_t errlen);
static int check_signature(const struct target *t, char *err, size_t errlen);

static int open_path(struct target *t, const char *path, const struct target_open_opts *o,
		     bool *made, char *err, size_t errlen)
{
	int flags = (o->writes ? O_RDWR : O_RDONLY) | O_CLOEXEC | (o->direct ? O_DIRECT : 0);
	struct stat st;
	int ret;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	snprintf(t->path, sizeof(t->path), "%s", path);
	if (stat(path, &st)) {
		if (errno != ENOENT || !o->create_size) {
			ret = -errno;
			snprintf(err, errlen, "target %s: %s%s", path, strerror(errno),
				 errno == ENOENT ? " (give --size SIZE to create a file that big)"
						 : "");
			return ret;
		}
		if (in_dev_dir(path)) {
			snprintf(err, errlen,
				 "target %s: no such device, and a file of --size there would be "
				 "made in /dev, in memory; give a device that exists (lsblk lists "
				 "them), or a file on a filesystem",
				 path);
			return -ENODEV;
		}
		int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

		if (fd < 0 || fstat(fd, &st)) {
			ret = -errno;
			snprintf(err, errlen, "cannot create target file %s: %s", path,
				 strerror(errno));
			if (fd >= 0)
				close(fd);
			return ret;
		}
		close(fd);
		*made = true;
	}
	t->is_blk = S_ISBLK(st.st_mode);
	if (!t->is_blk && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "target %s is neither a block device nor a regular file", path);
		return -EINVAL;
	}
	if (t->is_blk)
		t->rdev = st.st_rdev;
	if (o->writes && o->keep && (ret = check_holds(t, o->keep, err, errlen)))
		return ret;
	/* --force or not: it covers a signature, data that may go, never a device in use */
	if (t->is_blk && o->writes && (ret = check_busy(t, err, errlen)))
		return ret;
	if (!t->is_blk && o->writes && (ret = check_loop_busy(t, &st, err, errlen)))
		return ret;
	/* growing a file the user had is writing to it: a replay without writes grew (and filled)
	 * one to --size; a file it makes itself is its own */
	if (!t->is_blk && !*made && !o->may_grow && o->create_size > (uint64_t)st.st_size) {
		snprintf(err, errlen,
			 "target %s holds %llu bytes, less than --size %llu, and growing it writes "
			 "to it: give --allow-writes, or a --size it holds, or a new file",
			 path, (unsigned long long)st.st_size, (unsigned long long)o->create_size);
		return -EPERM;
	}
	if (!t->is_blk && o->create_size > (uint64_t)st.st_size)
		flags = (flags & ~O_RDONLY) | O_RDWR;
	/*
	 * O_EXCL on a block device fails with EBUSY while it is mounted, held by dm/md, swap, or
	 * opened so by another program (a replay, mkfs): the kernel's word where the checks above
	 * see nothing. Without it, --force wrote under a mounted filesystem and beside another
	 * replay onto the same device.
	 */
	if (t->is_blk && o->writes)
		flags |= O_EXCL;
	t->fd = open(path, flags);
	/* a replay just ended may hold its claim a moment longer (killed: its io_uring is torn
	 * down by a kernel worker): waited for, up to a second, or until a Ctrl-C */
	for (int i = 0; t->fd < 0 && errno == EBUSY && (flags & O_EXCL) && i < 50 && !replay_stop;
	     i++) {
		usleep(20000);
		t->fd = open(path, flags);
	}
	if (t->fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot open target %s%s: %s%s", path,
			 o->direct ? " with O_DIRECT" : "", strerror(errno),
			 errno == EBUSY ? " (another program holds it for itself: "
					  "another replay, mkfs, a mount or an array being made; "
					  "wait for it to end, or replay onto another device)" :
			 errno == EINVAL && o->direct ? " (try --buffered)" : "");
		return ret;
	}
	if (t->is_blk) {
		int lbs = 512;

		if (ioctl(t->fd, BLKGETSIZE64, &t->size) || ioctl(t->fd, BLKSSZGET, &lbs)) {
			ret = -errno;
			snprintf(err, errlen, "cannot read the size of %s: %s", path, strerror(errno));
			target_close(t);
			return ret;
		}
		t->lbs = (uint32_t)lbs;
		if (o->create_size && o->create_size > t->size) {
			snprintf(err, errlen, "target %s holds %llu bytes, less than --size %llu", path,
				 (unsigned long long)t->size, (unsigned long long)o->create_size);
			target_close(t);
			return -ENOSPC;
		}
	} else {
		t->lbs = file_lbs(st.st_dev);
		t->size = (uint64_t)st.st_size;
		if (o->create_size && o->create_size < t->lbs && t->size < t->lbs) {
			snprintf(err, errlen,
				 "--size %llu is less than one block of %s (%u bytes): give a size "
				 "like 1G",
				 (unsigned long long)o->create_size, path, t->lbs);
			target_close(t);
			return -EDOM;
		}
		/* the replay uses whole blocks: --size 4097 made a file of 4608 bytes (whole
		 * sectors) and replayed onto 4096 of them */
		if (o->create_size > t->size && o->create_size % t->lbs) {
			uint64_t below = o->create_size - o->create_size % t->lbs;

			snprintf(err, errlen,
				 "--size %llu is not a whole number of the %u-byte blocks of %s "
				 "(the logical block size under it): give %llu or %llu",
				 (unsigned long long)o->create_size, t->lbs, path,
				 (unsigned long long)below, (unsigned long long)(below + t->lbs));
			target_close(t);
			return -EDOM;
		}
		if (o->create_size > t->size) {
			ret = fallocate(t->fd, 0, 0, (off_t)o->create_size) ? -errno : 0;
			if (ret != -ENOSPC)
				ret = fill_file(t->fd, t->size, o->create_size);
			if (ret == -EINTR) {
				snprintf(err, errlen, "interrupted while filling target file %s to "
					 "%llu bytes (--size): nothing was replayed%s", path,
					 (unsigned long long)o->create_size,
					 *made ? "; the file was removed" : "");
				target_close(t);
				return ret;
			}
			if (ret) {
				snprintf(err, errlen, "cannot fill target file %s to %llu bytes: %s",
					 path, (unsigned long long)o->create_size, strerror(-ret));
				target_close(t);
				return ret;
			}
			t->size = o->create_size;
			t->created = true;
		}
		t->bytes = t->size;
		t->size &= ~(uint64_t)(t->lbs - 1);
	}
	if (!t->size) {
		snprintf(err, errlen, "target %s is empty (give --size SIZE to size a file)", path);
		target_close(t);
		return -ENOSPC;
	}
	if (o->writes && !o->force) {
		ret = check_signature(t, err, errlen);
		if (ret) {
			target_close(t);
			return ret;
		}
	}
	return 0;
}

int target_open(struct target *t, const char *path, const struct target_open_opts *o, char *err,
		size_t errlen)
{
	bool made = false;
	int ret = open_path(t, path, o, &made, err, errlen);

	if (ret && made)
		unlink(path); /* ours, and of no use: never left behind half made */
	t->made = !ret && made;
	return ret;
}

void target_close(struct target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

/* sysfs path of a dev_t, resolved ("/sys/devices/.../block/sda"), for parent checks */
static int sysfs_dev_path(dev_t d, char *buf, size_t len)
{
	char link[64];

	if (len < PATH_MAX) /* realpath() writes up to PATH_MAX */
		return -ENAMETOOLONG;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(d), minor(d));
	return realpath(link, buf) ? 0 : -errno;
}

int target_sysfs_read(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		ret = -EIO;
	else
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return ret;
}

/* The three files of a queue directory (fmt: the device's own, or a partition's disk's). */
static int wbt_files(const char *sys, const char *fmt, char v[3][64])
{
	static const char *const name[] = { "wbt_lat_usec", "nr_requests", "write_cache" };
	char path[PATH_MAX + 64];

	for (int i = 0; i < 3; i++) {
		int ret;

		snprintf(path, sizeof(path), fmt, sys, name[i]);
		ret = target_sysfs_read(path, v[i], sizeof(v[i]));
		if (ret)
			return ret;
	}
	return 0;
}

int target_wbt_read(const struct target *t, struct wbt_target *out)
{
	char sys[PATH_MAX], v[3][64];
	int ret;

	if (!t->is_blk)
		return -ENOTBLK;
	ret = sysfs_dev_path(t->rdev, sys, sizeof(sys));
	if (!ret && wbt_files(sys, "%s/queue/%s", v))
		ret = wbt_files(sys, "%s/../queue/%s", v); /* a partition: its disk's queue */
	if (ret)
		return ret;
	*out = (struct wbt_target){ .lat_ns = strtoull(v[0], NULL, 10) * 1000,
				    .queue_depth = (uint32_t)strtoul(v[1], NULL, 10),
				    .write_cache = !strcmp(v[2], "write back") };
	if (!out->queue_depth)
		out->queue_depth = 1;
	return 0;
}

/* Is d the target or one of its partitions? */
static bool is_ours(const struct target *t, const char *tsys, dev_t d)
{
	char p[PATH_MAX];
	size_t n = strlen(tsys);

	if (d == t->rdev)
		return true;
	if (!*tsys || sysfs_dev_path(d, p, sizeof(p)))
		return false;
	return !strncmp(p, tsys, n) && p[n] == '/';
}

const char *target_holds(const struct target *t, const char *file)
{
	static const char *const loop_file[] = { "%s/loop/backing_file", "%s/../loop/backing_file" };
	char tsys[PATH_MAX] = "", path[PATH_MAX + 32], back[PATH_MAX];
	struct stat sf, sb;

	if (!t->is_blk || stat(file, &sf))
		return NULL;
	sysfs_dev_path(t->rdev, tsys, sizeof(tsys));
	if (is_ours(t, tsys, sf.st_dev) && sf.st_dev == t->rdev)
		return "the file is on its filesystem";
	if (is_ours(t, tsys, sf.st_dev))
		return "the file is on the filesystem of one of its partitions";
	for (int i = 0; *tsys && i < 2; i++) {
		snprintf(path, sizeof(path), loop_file[i], tsys);
		if (!target_sysfs_read(path, back, sizeof(back)) && !stat(back, &sb) &&
		    sb.st_dev == sf.st_dev && sb.st_ino == sf.st_ino)
			return "it is a loop device over the file";
	}
	return NULL;
}

/* The trace being replayed on the target: such a replay wrote over the trace as it read it;
 * --force does not allow it. */
static int check_holds(const struct target *t, const char *file, char *err, size_t errlen)
{
	const char *how = target_holds(t, file);

	if (!how)
		return 0;
	snprintf(err, errlen,
		 "target %s holds the trace being replayed, %s (%s): its writes would destroy the "
		 "trace as it is read; copy the trace off it, or replay onto another device",
		 t->path, file, how);
	return -ELOOP; /* the replay would feed on itself: told apart, a usage error for replay */
}

static int check_mounted(const struct target *t, const char *tsys, char *err, size_t errlen)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096];
	int ret = 0;

	if (!f)
		return 0;
	while (!ret && fgets(line, sizeof(line), f)) {
		unsigned int ma, mi;
		char mnt[2048], src[2048] = "";
		char *dash = strstr(line, " - ");
		struct stat st;

		if (sscanf(line, "%*u %*u %u:%u %*s %2047s", &ma, &mi, mnt) != 3)
			continue;
		/* btrfs shows an anonymous dev_t: compare the mount source too */
		if (dash)
			sscanf(dash + 3, "%*s %2047s", src);
		if (is_ours(t, tsys, makedev(ma, mi)) ||
		    (src[0] == '/' && !stat(src, &st) && S_ISBLK(st.st_mode) &&
		     is_ours(t, tsys, st.st_rdev))) {
			snprintf(err, errlen,
				 "refusing to write to %s: it (or a partition of it) is mounted on "
				 "%s; unmount it first (--force or not: writes under a mounted "
				 "filesystem corrupt it)",
				 t->path, mnt);
			ret = -EBUSY;
		}
	}
	fclose(f);
	return ret;
}

static int check_holders(const struct target *t, char *err, size_t errlen)
{
	char p[128];
	DIR *d;
	struct dirent *de;
	int ret = 0;

	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/holders", major(t->rdev), minor(t->rdev));
	d = opendir(p);
	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			snprintf(err, errlen,
				 "refusing to write to %s: it is held by %s (device mapper or md); "
				 "take it out of that first (--force or not: writes under it "
				 "corrupt what is built on it)",
				 t->path, de->d_name);
			ret = -EBUSY;
			break;
		}
	closedir(d);
	return ret;
}

static int check_swap(const struct target *t, const char *tsys, char *err, size_t errlen)
{
	FILE *f = fopen("/proc/swaps", "r");
	char name[2048];
	int ret = 0;

	if (!f)
		return 0;
	while (!ret && fscanf(f, "%2047s %*[^\n]", name) == 1) {
		struct stat st;

		if (name[0] == '/' && !stat(name, &st) && S_ISBLK(st.st_mode) &&
		    is_ours(t, tsys, st.st_rdev)) {
			snprintf(err, errlen, "refusing to write to %s: it is in use as swap (%s)",
				 t->path, name);
			ret = -EBUSY;
		}
	}
	fclose(f);
	return ret;
}

static int check_signature(const struct target *t, char *err, size_t errlen)
{
	blkid_probe pr = blkid_new_probe_from_filename(t->path);
	const char *type = NULL, *what = "filesystem or RAID";
	int rc, ret = 0;

	if (!pr) {
		snprintf(err, errlen, "cannot probe %s for signatures (libblkid)", t->path);
		return -EIO;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE);
	blkid_probe_enable_partitions(pr, 1);
	rc = blkid_do_safeprobe(pr);
	if (rc == 0) {
		if (!blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL))
			what = "partition table";
		else
			blkid_probe_lookup_value(pr, "TYPE", &type, NULL);
	}
	if (rc == 0 || rc == -2) {
		snprintf(err, errlen,
			 "refusing to write to %s: it carries a %s signature (%s); wipe it "
			 "(wipefs -a) or --force if you really mean it",
			 t->path, what, type ? type : "several, ambivalent");
		ret = -EEXIST;
	} else if (rc < 0) {
		snprintf(err, errlen, "probing %s for signatures failed (libblkid)", t->path);
		ret = -EIO;
	}
	blkid_free_probe(pr);
	return ret;
}

/* Mounted (or a partition), held by dm/md, swap: -EBUSY with the reason in err, else 0. */
static int check_busy(const struct target *t, char *err, size_t errlen)
{
	char tsys[PATH_MAX] = "";
	int ret;

	sysfs_dev_path(t->rdev, tsys, sizeof(tsys));
	ret = check_mounted(t, tsys, err, errlen);
	if (!ret)
		ret = check_holders(t, err, errlen);
	if (!ret)
		ret = check_swap(t, tsys, err, errlen);
	return ret;
}

/*
 * A file target under a loop device that is in use (a filesystem on it mounted, held, swap):
 * --force wrote into the image of a mounted filesystem, as onto the device itself. -EBUSY.
 */
static int check_loop_busy(const struct target *t, const struct stat *st, char *err,
			   size_t errlen)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;
	int ret = 0;

	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		struct target lt = { .fd = -1, .is_blk = true };
		char path[PATH_MAX], back[PATH_MAX], why[1024];
		unsigned int ma, mi;
		struct stat sb;

		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", de->d_name);
		if (target_sysfs_read(path, back, sizeof(back)) || stat(back, &sb) ||
		    sb.st_dev != st->st_dev || sb.st_ino != st->st_ino)
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/dev", de->d_name);
		if (target_sysfs_read(path, back, sizeof(back)) ||
		    sscanf(back, "%u:%u", &ma, &mi) != 2)
			continue;
		lt.rdev = makedev(ma, mi);
		snprintf(lt.path, sizeof(lt.path), "/dev/%s", de->d_name);
		ret = check_busy(&lt, why, sizeof(why));
		if (ret)
			snprintf(err, errlen, "target %s is the file under %s: %s", t->path,
				 lt.path, why);
	}
	closedir(d);
	return ret;
}

int target_check_writable(const struct target *t, char *err, size_t errlen)
{
	int ret = t->is_blk ? check_busy(t, err, errlen) : 0;

	return ret ? ret : check_signature(t, err, errlen);
}
