/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * An output file written under a temporary name beside it and renamed into place when complete
 * (as git and rsync do), so an interrupted or failed run never leaves a half-written file
 * under the name asked for, and never removes a file it did not create.
 *
 *   struct outfile o;
 *   if (outfile_open(&o, path)) ...           // creates DIR/.NAME.XXXXXX (or opens in place)
 *   FILE *f = outfile_fdopen(&o);             // or write(o.fd, ...), or reopen outfile_name()
 *   ... write; fclose(f) and check it ...
 *   outfile_commit(&o) or outfile_abort(&o);  // rename into place, or remove the temporary
 *
 * Written in place, never renamed or removed: "-" (stdout), and an existing path that is not
 * a regular file (a character device such as /dev/null or /dev/full, a FIFO, a socket). A
 * symlink to a regular file is followed: the file it names is replaced and the link stays.
 * A block device is refused (OUTFILE_EBLKDEV): an output written onto a disk destroys what it
 * holds, and `-o /dev/sdb` is a slip of `-d /dev/sdb` far more often than a wish.
 * The temporary file is created 0600 and given, before the rename, the mode of the file it
 * replaces or 0666 & ~umask for a new one.
 */
#ifndef IOREEL_UTIL_OUTFILE_H
#define IOREEL_UTIL_OUTFILE_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct outfile {
	char *path;	/* the file to end up with (a symlink resolved) */
	char *tmp;	/* the temporary name beside it; NULL when written in place */
	int fd;		/* open for writing; -1 once handed to a FILE* or closed */
	mode_t mode;	/* the mode the file gets at commit */
	bool in_place;	/* stdout or not a regular file: written directly */
};

/* What outfile_open() and trace_writer__open() fail with for a block device (errno). */
#define OUTFILE_EBLKDEV EMEDIUMTYPE

/* 0 or -errno (nothing is left behind on failure). */
int outfile_open(struct outfile *o, const char *path);
/* -OUTFILE_EBLKDEV when path is a block device (a symlink to one too), else 0. */
int outfile_refuse_blkdev(const char *path);
/* strerror(err) (err > 0), or what to do instead for OUTFILE_EBLKDEV, a link to nothing and
 * EBUSY (a trace written in place that another ioreel holds locked: trace_writer__open). */
const char *outfile_strerror(int err);
/* The name the data goes to now: the temporary name, or the path itself when in place. */
const char *outfile_name(const struct outfile *o);
/* A "w" stream on o->fd (which it takes); NULL + errno. fclose() it before the commit. */
FILE *outfile_fdopen(struct outfile *o);
/* Closes o->fd if still open, then renames the temporary file into place. 0 or -errno (the
 * temporary file is removed on failure). Frees o's names either way. */
int outfile_commit(struct outfile *o);
/* Closes o->fd if still open and removes the temporary file (never the path asked for). */
void outfile_abort(struct outfile *o);

/* a and b name the same file (same st_dev and st_ino, symlinks and hard links included). */
bool outfile_same_file(const char *a, const char *b);

#endif
