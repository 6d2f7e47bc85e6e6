// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Which devices to record, from sysfs: a path or MAJ:MIN becomes the whole disk the BPF side
 * sees (it keys on the gendisk), the partition's start and size (the BPF side sees whole-disk
 * sectors; the trace stores partition-relative offsets so it replays onto any target of the
 * partition's size), block sizes, model, and whether the disk has a blk-mq request queue.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "record/record_int.h"

const char *rec_level_name(uint32_t level)
{
	switch (level) {
	case REC_LEVEL_BIO:
		return "bio";
	case REC_LEVEL_RQ:
		return "rq";
	default:
		return "none";
	}
}

/* Reads the first line of dir/name into buf (newline stripped); -errno if unreadable. */
static int sysfs_read(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		buf[0] = 0;
		return -EIO;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	/* Models are padded with blanks by SCSI/ATA. */
	for (size_t n = strlen(buf); n && buf[n - 1] == ' '; n--)
		buf[n - 1] = 0;
	return 0;
}

static uint64_t sysfs_u64(const char *dir, const char *name)
{
	char buf[64];

	if (sysfs_read(dir, name, buf, sizeof(buf)))
		return 0;
	return strtoull(buf, NULL, 10);
}

static bool exists(const char *dir, const char *name)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* Fills t from /sys/dev/block/MAJ:MIN. */
static int from_sysfs(uint32_t maj, uint32_t min, enum rec_level_req req, struct rec_target *t)
{
	char link[64], dir[PATH_MAX], disk[PATH_MAX], buf[64];
	unsigned int dmaj, dmin;

	memset(t, 0, sizeof(*t));
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", maj, min);
	if (!realpath(link, dir))
		return -ENOENT;
	snprintf(t->td.name, sizeof(t->td.name), "%s", strrchr(dir, '/') + 1);
	t->td.major = maj;
	t->td.minor = min;
	t->is_partition = exists(dir, "partition");
	snprintf(disk, sizeof(disk), "%s", dir);
	if (t->is_partition) {
		*strrchr(disk, '/') = 0;
		t->start_sector = sysfs_u64(dir, "start");
	}
	if (sysfs_read(disk, "dev", buf, sizeof(buf)) || sscanf(buf, "%u:%u", &dmaj, &dmin) != 2)
		return -ENOENT;
	t->disk_dev = rec_mkdev(dmaj, dmin);
	t->diskseq = sysfs_u64(disk, "diskseq");
	t->nr_sectors = sysfs_u64(dir, "size");
	t->td.size_bytes = t->nr_sectors * 512;
	t->td.logical_block_size = (uint32_t)sysfs_u64(disk, "queue/logical_block_size");
	t->td.physical_block_size = (uint32_t)sysfs_u64(disk, "queue/physical_block_size");
	sysfs_read(disk, "device/model", t->td.model, sizeof(t->td.model));
	/* blk-mq disks have an "mq" directory; bio-based ones (zram, md, dm) do not. */
	t->has_mq = exists(disk, "mq");
	switch (req) {
	case REC_REQ_BIO:
		t->level = REC_LEVEL_BIO;
		break;
	case REC_REQ_RQ:
		if (!t->has_mq)
			return -EOPNOTSUPP;
		t->level = REC_LEVEL_RQ;
		break;
	default:
		t->level = t->has_mq ? REC_LEVEL_RQ : REC_LEVEL_BIO;
	}
	return 0;
}

const char *rec_device_gone(const struct rec_target *t)
{
	char dir[64];

	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", t->disk_dev >> 20,
		 t->disk_dev & 0xfffff);
	if (!exists(dir, "dev"))
		return "was removed";
	if (t->diskseq && sysfs_u64(dir, "diskseq") != t->diskseq)
		return "was detached or changed (a new disk sequence number: a loop device "
		       "detached or set to another file, a medium changed)";
	return NULL;
}

bool rec_device_holds(const struct rec_target *t, dev_t dev)
{
	char dir[80], buf[64];
	unsigned int dmaj, dmin;

	if (major(dev) == t->td.major && minor(dev) == t->td.minor)
		return true;
	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	if (t->is_partition || !exists(dir, "partition"))
		return false;
	/* a partition's parent directory in sysfs is its disk */
	strcat(dir, "/..");
	return !sysfs_read(dir, "dev", buf, sizeof(buf)) &&
	       sscanf(buf, "%u:%u", &dmaj, &dmin) == 2 && rec_mkdev(dmaj, dmin) == t->disk_dev;
}

int rec_device_resolve(const char *spec, enum rec_level_req req, struct rec_target *t)
{
	unsigned int maj, min;
	char tail;
	struct stat st;

	if (sscanf(spec, "%u:%u%c", &maj, &min, &tail) == 2)
		return from_sysfs(maj, min, req, t);
	if (stat(spec, &st))
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	return from_sysfs(major(st.st_rdev), minor(st.st_rdev), req, t);
}

int rec_device_all(enum rec_level_req req, struct rec_target *t, int max)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < max) {
		char dir[PATH_MAX], buf[64];
		unsigned int maj, min;

		if (de->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "/sys/block/%s", de->d_name);
		/* Unused loop and zram devices have no size: nothing to record. */
		if (sysfs_u64(dir, "size") == 0)
			continue;
		if (sysfs_read(dir, "dev", buf, sizeof(buf)) || sscanf(buf, "%u:%u", &maj, &min) != 2)
			continue;
		/* A bio-based disk with --level rq is simply recorded at bio level here. */
		if (from_sysfs(maj, min, req, &t[n]) == -EOPNOTSUPP &&
		    from_sysfs(maj, min, REC_REQ_BIO, &t[n]))
			continue;
		n++;
	}
	closedir(d);
	return n;
}
