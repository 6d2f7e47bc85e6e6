// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Outputs under a temporary name, renamed into place when complete: util/outfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/outfile.h"

static mode_t default_mode(void)
{
	mode_t um = umask(0);

	umask(um);
	return 0666 & ~um;
}

int outfile_open(struct outfile *o, const char *path)
{
	struct stat st;
	const char *base;
	size_t dlen;
	int err;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!strcmp(path, "-")) {
		o->in_place = true;
		o->fd = dup(STDOUT_FILENO);
		if (o->fd < 0)
			return -errno;
		o->path = strdup(path);
		goto check;
	}
	/* "" became the temporary name "./.XXXXXX", written whole and only then refused */
	if (!*path)
		return -ENOENT;
	if ((err = outfile_refuse_blkdev(path)))
		return err;
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		/* a character device, a FIFO: written where it is, never truncated or removed */
		o->in_place = true;
		o->fd = open(path, O_WRONLY | O_CLOEXEC);
		if (o->fd < 0)
			return -errno;
		o->path = strdup(path);
		goto check;
	}
	/* a symlink to a file: replace the file it names, keep the link */
	o->path = realpath(path, NULL);
	if (!o->path && errno == ENOENT) {
		struct stat lst;

		/* a dangling link is not followed: the link itself would be replaced */
		if (!lstat(path, &lst) && S_ISLNK(lst.st_mode))
			return -ELOOP;
		o->path = strdup(path);
	}
	if (!o->path)
		return -errno;
	o->mode = !stat(o->path, &st) ? st.st_mode & 07777 : default_mode();
	base = strrchr(o->path, '/');
	base = base ? base + 1 : o->path;
	dlen = (size_t)(base - o->path);
	o->tmp = malloc(dlen + strlen(base) + 16);
	if (!o->tmp) {
		err = -ENOMEM;
		goto fail;
	}
	/* hidden, and marked as ioreel's, beside the final name (same filesystem: rename works) */
	sprintf(o->tmp, "%.*s.%s.XXXXXX", (int)dlen, o->path, base);
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		err = -errno;
		goto fail;
	}
	return 0;
check:
	if (!o->path) {
		err = -ENOMEM;
		goto fail;
	}
	return 0;
fail:
	if (o->fd >= 0)
		close(o->fd);
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	return err;
}

int outfile_refuse_blkdev(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISBLK(st.st_mode) ? -OUTFILE_EBLKDEV : 0;
}

const char *outfile_strerror(int err)
{
	if (err == OUTFILE_EBLKDEV)
		return "it is a block device: an output goes to a file (or -, /dev/null), never "
		       "onto a disk, whose data it would destroy";
	if (err == EBUSY) /* trace_writer__open's lock on a trace written in place */
		return "another ioreel (a recording) is writing it now: give another name, or let "
		       "that one end first";
	if (err == ELOOP) /* outfile_open's dangling link too: "Too many levels" misled */
		return "a symbolic link to nothing (its target is missing, or links loop): give "
		       "the file's own path, or remove the link";
	return strerror(err);
}

const char *outfile_name(const struct outfile *o)
{
	return o->tmp ? o->tmp : o->path;
}

FILE *outfile_fdopen(struct outfile *o)
{
	FILE *f = fdopen(o->fd, "w");

	if (f)
		o->fd = -1;
	return f;
}

static void release(struct outfile *o)
{
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
}

int outfile_commit(struct outfile *o)
{
	int err = 0;

	if (o->fd >= 0 && close(o->fd))
		err = -errno;
	o->fd = -1;
	if (o->tmp && !err && chmod(o->tmp, o->mode))
		err = -errno;
	if (o->tmp && !err && rename(o->tmp, o->path))
		err = -errno;
	if (err && o->tmp)
		unlink(o->tmp);
	release(o);
	return err;
}

void outfile_abort(struct outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp)
		unlink(o->tmp);
	release(o);
}

bool outfile_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
