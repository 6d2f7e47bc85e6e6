// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Calls on names that move no data: stat, mkdir and rmdir (fio's filestat, dirstat,
 * dircreate and dirdelete engines; a recording's stat/statx/newfstatat, mkdir/mkdirat,
 * rmdir/unlinkat(AT_REMOVEDIR)), and the directories a trace names as files: which existed
 * before their first call (made before the clock), and how a name the replay made earlier
 * is cleared. Everything acts beneath the root through the name's directory descriptor
 * (opened with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), never following a symlink.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "replay/file/file_int.h"

static int rel_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Names other names lie under are directories (a recording's stat or mkdir of the directory it
 * then works in): made on the way to those names, never cleared or made a file. 0 or -ENOMEM.
 */
int fops_mark_parents(struct frun *f)
{
	char **rel = malloc(((size_t)f->nnames + 1) * sizeof(*rel)), key[TRACE_FILE_PATH_MAX + 70];

	if (!rel)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->nnames; i++)
		rel[i] = f->names[i].rel;
	qsort(rel, f->nnames, sizeof(*rel), rel_cmp);
	for (uint32_t i = 0; i < f->nnames; i++) {
		struct fname *n = &f->names[i];
		size_t lo = 0, hi = f->nnames, kl;

		/* the first name at or after "rel/": under rel when it starts so */
		kl = (size_t)snprintf(key, sizeof(key), "%s/", n->rel);
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (strcmp(rel[mid], key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < f->nnames && !strncmp(rel[lo], key, kl))
			n->dir = n->parent = true;
	}
	free(rel);
	return 0;
}

bool fops_is_dir_op(uint8_t op)
{
	return op == IO_FOP_MKDIR || op == IO_FOP_RMDIR;
}

bool fops_by_name_op(uint8_t op)
{
	return op == IO_FOP_STAT || op == IO_FOP_MKDIR || op == IO_FOP_RMDIR;
}

/* A file-table entry stands for a directory: its mode says so (a synthesized trace, an entry
 * the recorder stat()ed), or a call made or removed it as one. */
void fops_first_sight(struct frun *f, uint32_t file, const struct io_event *ev,
		      const struct io_fext *x)
{
	const struct trace_file *tf = trace_reader__file(f->rd, file);
	struct ffile *ff = &f->files[file];

	if (!S_ISDIR(tf->mode) && !fops_is_dir_op(ev->op) && !f->names[ff->name].parent) {
		/* a name first seen by a stat that found it: it existed (a name only has no size:
		 * made empty, as an unlinked name is) */
		if (ev->op == IO_FOP_STAT && (tf->origin & TRACE_FILE_NAME_ONLY) &&
		    x->result >= 0) {
			ff->layout = tf->size ? FLAY_DATA : FLAY_EMPTY;
			ff->weak = true;
		}
		return;
	}
	ff->dir = true;
	f->names[ff->name].dir = true;
	/* a directory the trace makes is not made before; one it stats or removes existed */
	ff->layout = ev->op == IO_FOP_MKDIR || x->result < 0 ? FLAY_NONE : FLAY_DATA;
}

/*
 * A name a stat found and the recorder knew by name only (fio stats its files before it opens
 * them: the open is another entry, with the file's identity and size) gives way to an entry
 * laid out from more than a stat. 0 or -ENOMEM.
 */
int fops_settle_weak(struct frun *f)
{
	uint8_t *strong = calloc(f->nnames + 1, 1);

	if (!strong)
		return -ENOMEM;
	for (uint32_t id = 1; id <= f->nfiles; id++)
		if (f->files[id].layout != FLAY_NONE && !f->files[id].weak)
			strong[f->files[id].name] = 1;
	for (uint32_t id = 1; id <= f->nfiles; id++)
		if (f->files[id].weak && strong[f->files[id].name])
			f->files[id].layout = FLAY_NONE;
	free(strong);
	return 0;
}

/* The call io stands for, on its name: 0 or -errno (stat's result is 0: the trace keeps no
 * stat buffer). */
int fops_by_name(struct frun *f, const struct replay_io *io)
{
	const struct fname *n = &f->names[(uint32_t)io->arg];
	struct stat st;

	if (n->dirfd < 0)
		return -ENOENT;
	switch (io->fop) {
	case IO_FOP_STAT:
		/* no symlink is followed under the root: lstat's answer for stat's */
		return fstatat(n->dirfd, n->base, &st, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
	case IO_FOP_MKDIR:
		/* the mode asked (fio's dircreate asks S_IFDIR alone: no permission bit) */
		return mkdirat(n->dirfd, n->base, io->aux & 07777) ? -errno : 0;
	case IO_FOP_RMDIR:
		return unlinkat(n->dirfd, n->base, AT_REMOVEDIR) ? -errno : 0;
	}
	return -EINVAL;
}

/* Before the clock: what an earlier replay left at a directory's name goes (an empty
 * directory, or a file there); a directory with something in it is refused, since the
 * replay did not put that there. */
int fops_clear(struct frun *f, uint32_t name, char *err, size_t errlen)
{
	const struct fname *n = &f->names[name];

	if (n->parent) /* made on the way to the names under it, its descriptor kept */
		return 0;
	if (!unlinkat(n->dirfd, n->base, AT_REMOVEDIR) || errno == ENOENT)
		return 0;
	if (errno == ENOTDIR && !unlinkat(n->dirfd, n->base, 0))
		return 0;
	snprintf(err, errlen, "cannot remove %s/%s left by an earlier replay: %s%s", f->res->root,
		 n->rel, strerror(errno),
		 errno == ENOTEMPTY ? " (it holds files the trace does not name: remove them, or "
				      "pick another --root)"
				    : "");
	return -errno;
}

/* A directory that existed before its first call, made before the clock. */
int fops_lay_out_dir(struct frun *f, uint32_t id, char *err, size_t errlen)
{
	const struct trace_file *tf = trace_reader__file(f->rd, id);
	const struct fname *n = &f->names[f->files[id].name];
	unsigned int mode = tf->mode & 07777 ? tf->mode & 07777 : 0755;

	if (mkdirat(n->dirfd, n->base, mode) && errno != EEXIST) {
		snprintf(err, errlen, "cannot make the directory %s/%s (file %u of the trace): %s",
			 f->res->root, n->rel, id, strerror(errno));
		return -errno;
	}
	f->res->dirs++;
	return 0;
}
