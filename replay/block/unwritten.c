// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Was this part of a target ever written? Only what the kernel says cheaply: SEEK_DATA and
 * SEEK_HOLE on a file (ext4, xfs and btrfs also report fallocated, unwritten extents as
 * holes: reads of those return zeroes without touching the disk as well), on the backing file
 * of a loop device, and zram's mm_stat (orig_data_size counts every stored page, zero-filled
 * ones included; a discard frees them). Other devices (an SSD after a trim, a thin volume)
 * are not asked: no cheap kernel interface tells which of their blocks hold data.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "replay/block/prefill.h"

static int sysfs_u64(const char *path, uint64_t *v)
{
	char buf[64], *end;
	int ret = target_sysfs_read(path, buf, sizeof(buf));

	if (ret)
		return ret;
	*v = strtoull(buf, &end, 10);
	return end == buf ? -EINVAL : 0;
}

static void probe_zram(struct uw_probe *p, const char *sys, uint64_t size)
{
	char path[160], buf[256];
	unsigned long long stored;

	snprintf(path, sizeof(path), "%s/mm_stat", sys);
	if (target_sysfs_read(path, buf, sizeof(buf)) || sscanf(buf, "%llu", &stored) != 1)
		return;
	p->method = "zram mm_stat";
	p->written = stored;
	/* which pages the stored ones are, mm_stat does not say (block_state in debugfs would,
	 * with CONFIG_ZRAM_MEMORY_TRACKING, which kernels rarely have) */
	p->lower_bound = stored && stored < size;
}

/* A loop device (or a partition of one) over a regular file: its holes are the device's. */
static void probe_loop(struct uw_probe *p, const char *sys)
{
	char path[4200], file[4096];
	uint64_t start = 0, offset = 0;
	const char *dir = "";
	struct stat st;

	snprintf(path, sizeof(path), "%s/partition", sys);
	if (!access(path, F_OK)) {
		snprintf(path, sizeof(path), "%s/start", sys);
		if (sysfs_u64(path, &start))
			return;
		dir = "/..";
	}
	snprintf(path, sizeof(path), "%s%s/loop/backing_file", sys, dir);
	if (target_sysfs_read(path, file, sizeof(file)))
		return;
	snprintf(path, sizeof(path), "%s%s/loop/offset", sys, dir);
	if (sysfs_u64(path, &offset))
		return;
	p->fd = open(file, O_RDONLY | O_CLOEXEC);
	if (p->fd < 0)
		return;
	p->own_fd = true;
	if (fstat(p->fd, &st) || !S_ISREG(st.st_mode) ||
	    (lseek(p->fd, 0, SEEK_DATA) < 0 && errno != ENXIO))
		return;
	p->shift = offset + start * 512;
	p->method = "SEEK_HOLE on the loop device's backing file";
	p->per_extent = true;
}

void uw_probe_open(struct uw_probe *p, const struct target *t)
{
	char sys[96];

	memset(p, 0, sizeof(*p));
	p->fd = -1;
	if (!t->is_blk) {
		/* SEEK_DATA fails with EINVAL where the filesystem cannot answer */
		if (lseek(t->fd, 0, SEEK_DATA) < 0 && errno != ENXIO)
			return;
		p->fd = t->fd;
		p->method = "SEEK_HOLE";
		p->per_extent = true;
		return;
	}
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(t->rdev), minor(t->rdev));
	probe_zram(p, sys, t->size);
	if (!p->method)
		probe_loop(p, sys);
}

void uw_probe_close(struct uw_probe *p)
{
	if (p->own_fd && p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	p->own_fd = false;
}

struct walk {
	uint64_t from, to, done; /* done: emitted up to here (aligned ranges never overlap) */
	uint32_t align;
	int (*fn)(void *arg, uint64_t from, uint64_t to);
	void *arg;
};

static int emit(struct walk *w, uint64_t a, uint64_t b)
{
	a &= ~(uint64_t)(w->align - 1);
	b = (b + w->align - 1) & ~(uint64_t)(w->align - 1);
	if (a < w->done)
		a = w->done;
	if (b > w->to)
		b = w->to;
	if (a >= b)
		return 0;
	w->done = b;
	return w->fn(w->arg, a, b);
}

int uw_walk(const struct uw_probe *p, uint64_t from, uint64_t to, uint32_t align,
	    int (*fn)(void *arg, uint64_t from, uint64_t to), void *arg)
{
	struct walk w = { .from = from, .to = to, .done = from, .align = align ? align : 1,
			  .fn = fn, .arg = arg };
	uint64_t pos = from;
	int ret = 0;

	if (!p->per_extent)
		return from < to ? fn(arg, from, to) : 0;
	while (!ret && pos < to) {
		off_t d = lseek(p->fd, (off_t)(pos + p->shift), SEEK_DATA), h;

		if (d < 0) /* ENXIO: nothing but holes up to the end of the file */
			return errno == ENXIO ? emit(&w, pos, to) : -errno;
		d -= (off_t)p->shift;
		if ((uint64_t)d > pos)
			ret = emit(&w, pos, (uint64_t)d < to ? (uint64_t)d : to);
		if (ret || (uint64_t)d >= to)
			break;
		h = lseek(p->fd, d + (off_t)p->shift, SEEK_HOLE);
		if (h < 0)
			return -errno;
		pos = (uint64_t)h - p->shift;
	}
	return ret;
}

static int add_len(void *arg, uint64_t from, uint64_t to)
{
	*(uint64_t *)arg += to - from;
	return 0;
}

int uw_sum(const struct uw_probe *p, uint64_t from, uint64_t to, uint32_t align, uint64_t *sum)
{
	return uw_walk(p, from, to, align, add_len, sum);
}

uint64_t uw_bound(const struct uw_probe *p, uint64_t region)
{
	return region > p->written ? region - p->written : 0;
}
