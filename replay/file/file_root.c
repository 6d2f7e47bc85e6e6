// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The directory a file-level trace is replayed under (--root): where each recorded path goes,
 * the checks that keep every call inside it, and the files recreated before the clock starts.
 *
 * Inside the root, always: a recorded path is rebased (the recorded directory --strip names,
 * by default the deepest one holding every recorded file, becomes the root) and refused when
 * it is not absolute, lies outside that directory or has a ".." component; every path is then
 * opened with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) from a directory itself opened
 * that way, so no symlink (in the tree before the replay, or made during it) is ever followed,
 * and renames and unlinks act on a last component within such a directory. A root that holds
 * files ioreel did not put there is refused (a replay replaces the files it recreates): give an
 * empty directory, which the replay marks as its own (FMARKER), or --force.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include "replay/file/file_int.h"
#include "util/cli.h"
#include "util/fileio.h"
#include "util/num.h"

#define LAYOUT_CHUNK (4u << 20)
#define RESOLVE_SAFE (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)

/* ---- a string -> index map (names, directories) ---- */

struct strmap {
	char **key;
	uint32_t *val;
	uint32_t cap, n;
};

static struct strmap *strmap_new(void)
{
	struct strmap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->cap = 256;
	m->key = calloc(m->cap, sizeof(*m->key));
	m->val = calloc(m->cap, sizeof(*m->val));
	if (!m->key || !m->val) {
		free(m->key);
		free(m->val);
		free(m);
		return NULL;
	}
	return m;
}

static void strmap_free(struct strmap *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->cap; i++)
		free(m->key[i]);
	free(m->key);
	free(m->val);
	free(m);
}

static uint32_t strmap_find(const struct strmap *m, const char *k)
{
	uint32_t i = (uint32_t)fnv1a_str(k) & (m->cap - 1);

	while (m->key[i] && strcmp(m->key[i], k))
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* The value of k, or UINT32_MAX. */
static uint32_t strmap_get(const struct strmap *m, const char *k)
{
	uint32_t i = strmap_find(m, k);

	return m->key[i] ? m->val[i] : UINT32_MAX;
}

/* Adds k (not there yet) -> v; its copy of k, or NULL when out of memory. */
static char *strmap_put(struct strmap *m, const char *k, uint32_t v)
{
	uint32_t i;

	if ((m->n + 1) * 2 > m->cap) {
		struct strmap g = { .cap = m->cap * 2 };

		g.key = calloc(g.cap, sizeof(*g.key));
		g.val = calloc(g.cap, sizeof(*g.val));
		if (!g.key || !g.val) {
			free(g.key);
			free(g.val);
			return NULL;
		}
		for (uint32_t j = 0; j < m->cap; j++)
			if (m->key[j]) {
				uint32_t h = strmap_find(&g, m->key[j]);

				g.key[h] = m->key[j];
				g.val[h] = m->val[j];
			}
		free(m->key);
		free(m->val);
		m->key = g.key;
		m->val = g.val;
		m->cap = g.cap;
	}
	i = strmap_find(m, k);
	m->key[i] = strdup(k);
	if (!m->key[i])
		return NULL;
	m->val[i] = v;
	m->n++;
	return m->key[i];
}

/* ---- the root ---- */

static int openat2_safe(int dirfd, const char *path, int flags, unsigned int mode)
{
	struct open_how how = { .flags = (uint64_t)flags | O_CLOEXEC, .resolve = RESOLVE_SAFE };
	long fd;

	if (flags & (O_CREAT | __O_TMPFILE))
		how.mode = mode;
	fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	return fd < 0 ? -errno : (int)fd;
}

int froot_open_name(const struct frun *f, uint32_t name, int flags, unsigned int mode)
{
	const struct fname *n = &f->names[name];

	if (n->dirfd < 0)
		return -ENOENT;
	return openat2_safe(n->dirfd, n->base, flags, mode);
}

int froot_open(struct frun *f, const char *dir, bool force, char *err, size_t errlen)
{
	char real[PATH_MAX];
	bool foreign = false, marked = false;
	struct dirent *de;
	DIR *d;
	int fd;

	if (!realpath(dir, real) || strlen(real) >= sizeof(f->res->root)) {
		snprintf(err, errlen, "--root %s: %s (give an existing, empty directory)", dir,
			 strerror(errno ? errno : ENAMETOOLONG));
		return -ENOENT;
	}
	snprintf(f->res->root, sizeof(f->res->root), "%s", real);
	f->rootfd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC);
	fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f->rootfd < 0 || fd < 0 || !(d = fdopendir(fd))) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "--root %s: %s (give a directory)", dir, strerror(e));
		return -e;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!strcmp(de->d_name, FMARKER))
			marked = true;
		else
			foreign = true;
	}
	closedir(d);
	if (foreign && !marked && !force) {
		snprintf(err, errlen,
			 "--root %s holds files ioreel did not put there, and a replay replaces the "
			 "files it recreates: refused. Give an empty directory (a replay marks it as "
			 "its own, %s, and may reuse it), or --force",
			 real, FMARKER);
		return -EEXIST;
	}
	return 0;
}

/* The length of the deepest directory a[0..an) and b[0..bn) share (both "" or "/x/y"). */
static size_t common_dir(const char *a, size_t an, const char *b, size_t bn)
{
	size_t i = 0;

	while (i < an && i < bn && a[i] == b[i])
		i++;
	if ((i == an && (i == bn || b[i] == '/')) || (i == bn && a[i] == '/'))
		return i;
	while (i && a[i] != '/')
		i--;
	return i;
}

/*
 * The recorded directory the root stands for: given, or the deepest one holding every
 * recorded path.
 */
static int strip_prefix(struct frun *f, const char *strip, char *err, size_t errlen)
{
	char *s = f->res->strip;
	size_t n = 0;
	bool any = false;

	if (strip) {
		if (strip[0] != '/' || strlen(strip) >= sizeof(f->res->strip)) {
			snprintf(err, errlen, "--strip %s: give the absolute recorded directory that "
					      "--root stands for", strip);
			return -EINVAL;
		}
		snprintf(s, sizeof(f->res->strip), "%s", strip);
		n = strlen(s);
		while (n > 1 && s[n - 1] == '/')
			s[--n] = '\0';
		return 0;
	}
	for (uint32_t id = 1; id <= f->nfiles; id++) {
		const char *p = trace_reader__file(f->rd, id)->path;
		size_t dn;

		if (p[0] != '/')
			continue; /* unknown (""), or refused by check_path */
		dn = (size_t)(strrchr(p, '/') - p);
		if (!any)
			memcpy(s, p, n = dn);
		else
			n = common_dir(s, n, p, dn);
		any = true;
	}
	s[n] = '\0';
	if (!n)
		snprintf(s, sizeof(f->res->strip), "/");
	return 0;
}

/* rel of recorded path p under the strip prefix, checked. 0, or -EXDEV with why. */
static int check_path(const struct frun *f, const char *p, char *rel, size_t len, const char **why)
{
	const char *s = f->res->strip;
	size_t sl = strcmp(s, "/") ? strlen(s) : 0, k = 0;

	if (p[0] != '/') {
		*why = "is not absolute (the recorder writes absolute paths: a damaged or "
		       "hand-made trace?)";
		return -EXDEV;
	}
	if (strncmp(p, s, sl) || (p[sl] != '/' && p[sl] != '\0')) {
		*why = "lies outside the recorded directory --root stands for (see --strip)";
		return -EXDEV;
	}
	for (const char *c = p + sl; *c;) {
		size_t cl;

		while (*c == '/')
			c++;
		cl = strcspn(c, "/");
		if (!cl)
			break;
		if ((cl == 1 && c[0] == '.') || (cl == 2 && c[0] == '.' && c[1] == '.')) {
			*why = "has a \".\" or \"..\" component, which could lead outside --root";
			return -EXDEV;
		}
		if (k + cl + 2 > len) {
			*why = "is too long";
			return -ENAMETOOLONG;
		}
		if (k)
			rel[k++] = '/';
		memcpy(rel + k, c, cl);
		k += cl;
		c += cl;
	}
	rel[k] = '\0';
	if (!k) {
		*why = "is the recorded directory itself, not a file in it";
		return -EXDEV;
	}
	if (!strcmp(rel, FMARKER)) {
		*why = "is the name of the replay's own marker file";
		return -EXDEV;
	}
	return 0;
}

static int add_name(struct frun *f, const char *rel, uint32_t *out)
{
	uint32_t i = strmap_get(f->name_map, rel);
	char *k;

	if (i != UINT32_MAX) {
		*out = i;
		return 0;
	}
	if (f->nnames % 256 == 0) {
		struct fname *n = realloc(f->names, (f->nnames + 256) * sizeof(*n));

		if (!n)
			return -ENOMEM;
		f->names = n;
	}
	k = strmap_put(f->name_map, rel, f->nnames);
	if (!k)
		return -ENOMEM;
	f->names[f->nnames] = (struct fname){ .rel = k, .dirfd = -1 };
	f->names[f->nnames].base = strrchr(k, '/') ? strrchr(k, '/') + 1 : k;
	*out = f->nnames++;
	return 0;
}

/* The trace being replayed and its result trace (-o), as found before the names are checked:
 * a replay must not recreate either under its root. */
struct own_files {
	struct stat st[2];
	bool have[2];
};

static const char *const own_what[2] = { "the trace being replayed", "the result trace (-o)" };

/* rel under the root is one of them: which, or NULL */
static const char *own_file(const struct frun *f, const struct own_files *own, const char *rel)
{
	struct stat st;

	if ((!own->have[0] && !own->have[1]) || fstatat(f->rootfd, rel, &st, 0))
		return NULL;
	for (int i = 0; i < 2; i++)
		if (own->have[i] && own->st[i].st_dev == st.st_dev &&
		    own->st[i].st_ino == st.st_ino)
			return own_what[i];
	return NULL;
}

int froot_names(struct frun *f, const char *strip, char *err, size_t errlen)
{
	char rel[TRACE_FILE_PATH_MAX + 64];
	struct own_files own = { 0 };
	int ret;

	f->name_map = strmap_new();
	f->dir_map = strmap_new();
	if (!f->name_map || !f->dir_map)
		return -ENOMEM;
	own.have[0] = !stat(f->o->trace, &own.st[0]);
	own.have[1] = f->o->output && !stat(f->o->output, &own.st[1]);
	ret = strip_prefix(f, strip, err, errlen);
	for (uint32_t id = 1; !ret && id <= f->nfiles; id++) {
		const struct trace_file *tf = trace_reader__file(f->rd, id);
		const char *why = "";
		const char *mine;

		if (!tf->path[0]) /* unknown path: a file of its own */
			snprintf(rel, sizeof(rel), "ioreel-nopath/%u", id);
		else if ((ret = check_path(f, tf->path, rel, sizeof(rel), &why)))
			snprintf(err, errlen,
				 "%s: file %u of the trace, %s, %s: refused, nothing was written",
				 f->o->trace, id, tf->path, why);
		else if ((mine = own_file(f, &own, rel))) {
			/* the replay recreates, truncates or deletes its files: never its own */
			snprintf(err, errlen,
				 "%s: file %u of the trace, %s, is %s under --root %s: a replay "
				 "recreates its files and would destroy it; move it out of --root: "
				 "refused, nothing was written",
				 f->o->trace, id, tf->path, mine, f->res->root);
			ret = -EEXIST;
		}
		if (!ret && (ret = add_name(f, rel, &f->files[id].name)))
			snprintf(err, errlen, "out of memory for the file names");
	}
	return ret;
}

/*
 * The directory rel_dir beneath the root (made when make): its descriptor in *fd (cached, not
 * to be closed), -ENOENT when missing and !make, -ELOOP/-ENOTDIR with why.
 */
static int dir_get(struct frun *f, const char *rel_dir, bool make, int *fd, const char **why)
{
	uint32_t i = strmap_get(f->dir_map, rel_dir);
	char parent[TRACE_FILE_PATH_MAX + 64];
	const char *base = strrchr(rel_dir, '/');
	int pfd = f->rootfd, ret;

	if (!*rel_dir) {
		*fd = f->rootfd;
		return 0;
	}
	if (i != UINT32_MAX) {
		*fd = f->dirfds[i];
		return 0;
	}
	if (base) {
		snprintf(parent, sizeof(parent), "%.*s", (int)(base - rel_dir), rel_dir);
		ret = dir_get(f, parent, make, &pfd, why);
		if (ret)
			return ret;
		base++;
	} else {
		base = rel_dir;
	}
	if (make && mkdirat(pfd, base, 0755) && errno != EEXIST) {
		*why = strerror(errno);
		return -errno;
	}
	ret = openat2_safe(pfd, base, O_PATH | O_DIRECTORY, 0);
	if (ret == -ELOOP || ret == -EXDEV)
		*why = "is a symlink: replay never follows one under --root (it could lead outside)";
	else if (ret == -ENOTDIR)
		*why = "is not a directory";
	else if (ret < 0 && ret != -ENOENT)
		*why = strerror(-ret);
	if (ret < 0)
		return ret;
	if (f->ndirs == f->capdirs) {
		uint32_t cap = f->capdirs ? f->capdirs * 2 : 64;
		int *d = realloc(f->dirfds, cap * sizeof(*d));

		if (!d) {
			close(ret);
			*why = "out of memory";
			return -ENOMEM;
		}
		f->dirfds = d;
		f->capdirs = cap;
	}
	if (!strmap_put(f->dir_map, rel_dir, f->ndirs)) {
		close(ret);
		*why = "out of memory";
		return -ENOMEM;
	}
	f->dirfds[f->ndirs++] = ret;
	*fd = ret;
	return 0;
}

/* The directory of name i, made or only looked up. */
static int name_dir(struct frun *f, uint32_t i, bool make, char *err, size_t errlen)
{
	struct fname *n = &f->names[i];
	char dir[TRACE_FILE_PATH_MAX + 64];
	const char *why = "";
	int ret;

	snprintf(dir, sizeof(dir), "%.*s", (int)(n->base > n->rel ? n->base - n->rel - 1 : 0),
		 n->rel);
	ret = dir_get(f, dir, make, &n->dirfd, &why);
	if (ret == -ENOENT && !make)
		return 0; /* made by the lay-out */
	if (ret)
		snprintf(err, errlen, "%s/%s (on the way to %s): %s: refused, nothing was replayed",
			 f->res->root, dir, n->rel, why);
	return ret;
}

/* What is at name i now: 0 (nothing, or a regular file), or -errno with a message. */
static int name_vet(struct frun *f, uint32_t i, char *err, size_t errlen)
{
	struct fname *n = &f->names[i];
	struct stat st;

	if (n->dirfd < 0 || fstatat(n->dirfd, n->base, &st, AT_SYMLINK_NOFOLLOW))
		return 0;
	if (S_ISREG(st.st_mode) || (S_ISDIR(st.st_mode) && n->dir))
		return 0;
	snprintf(err, errlen, "%s/%s is %s, where the trace has a file: refused, nothing was "
			      "replayed", f->res->root, n->rel,
		 S_ISLNK(st.st_mode) ? "a symlink (replay never follows one under --root)"
		 : S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
	return S_ISLNK(st.st_mode) ? -ELOOP : -EEXIST;
}

/* Before any write: every existing directory on the way and every existing name is safe. */
int froot_vet(struct frun *f, char *err, size_t errlen)
{
	int ret = 0;

	for (uint32_t i = 0; !ret && i < f->nnames; i++) {
		ret = name_dir(f, i, false, err, errlen);
		if (!ret)
			ret = name_vet(f, i, err, errlen);
	}
	return ret;
}

/* ---- lay-out ---- */

struct layout {
	struct frun *f;
	char *buf;
	uint64_t seed, done, total, next_progress;
};

static int write_range(struct layout *l, int fd, uint64_t from, uint64_t to)
{
	for (uint64_t off = from; off < to;) {
		size_t n = to - off < LAYOUT_CHUNK ? (size_t)(to - off) : LAYOUT_CHUNK;
		int ret;

		if (replay_stop)
			return -EINTR;
		/* every 4 KiB block different: deduplicating or compressing targets store them all */
		for (size_t k = 0; k + 8 <= n; k += 4096)
			*(uint64_t *)(l->buf + k) = (off + k) ^ l->seed;
		ret = pwrite_whole(fd, l->buf, n, off);
		if (ret)
			return ret;
		off += n;
		l->done += n;
		if (l->f->o->progress && now_mono_ns() >= l->next_progress) {
			char a[32], b[32];

			l->next_progress = now_mono_ns() + 1000000000ULL;
			fprintf(stderr, "\r\033[Klaying out the files: %s of %s",
				fmt_bytes(l->done, a, sizeof(a)), fmt_bytes(l->total, b, sizeof(b)));
		}
	}
	return 0;
}

/* The data of a file as it was at first sight: its listed segments, else all of it. */
static int write_data(struct layout *l, int fd, const struct trace_file *tf, bool count)
{
	struct replay_file_result *res = l->f->res;
	uint64_t end = 0, bytes = 0;
	int ret = 0;

	if (!(tf->origin & TRACE_FILE_SEGS_KNOWN)) {
		if (count)
			res->files_guess += tf->alloc < tf->size &&
					    !(tf->origin & TRACE_FILE_ALLOC_INODE);
		return count ? (l->total += tf->size, 0) : write_range(l, fd, 0, tf->size);
	}
	for (uint32_t s = 0; !ret && s < tf->nsegs; s++) {
		uint64_t a = tf->segs[s].offset, b = a + tf->segs[s].length;

		b = b < tf->size ? b : tf->size;
		if (a >= b)
			continue;
		bytes += b - a;
		if (!count)
			ret = write_range(l, fd, a, b);
		end = b;
	}
	/* more segments than the recorder kept: the rest as data */
	if (!ret && (tf->origin & TRACE_FILE_SEGS_CUT) && end < tf->size) {
		bytes += tf->size - end;
		if (!count)
			ret = write_range(l, fd, end, tf->size);
	}
	if (count) {
		l->total += bytes;
		res->files_sparse += bytes < tf->size;
	}
	return ret;
}

static int lay_out_one(struct layout *l, uint32_t id, char *err, size_t errlen)
{
	struct frun *f = l->f;
	const struct trace_file *tf = trace_reader__file(f->rd, id);
	const struct fname *n = &f->names[f->files[id].name];
	unsigned int mode = tf->mode & 0777 ? tf->mode & 0777 : 0644;
	int fd, ret = 0;

	fd = froot_open_name(f, f->files[id].name, O_CREAT | O_EXCL | O_WRONLY, mode);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s/%s (file %u of the trace): %s",
			 f->res->root, n->rel, id, strerror(-fd));
		return fd;
	}
	f->res->files++;
	if (f->files[id].layout == FLAY_EMPTY) {
		f->res->files_empty++;
	} else {
		if (ftruncate(fd, (off_t)tf->size))
			ret = -errno;
		if (!ret)
			ret = write_data(l, fd, tf, false);
		/* on disk and out of the page cache, as a database restored before a run */
		if (!ret && fdatasync(fd))
			ret = -errno;
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	}
	close(fd);
	if (ret)
		snprintf(err, errlen, "laying out %s/%s (%llu bytes): %s", f->res->root, n->rel,
			 (unsigned long long)tf->size, strerror(-ret));
	return ret;
}

/* syncfs of the root's filesystem: 0 or -errno (syncfs refuses the O_PATH root descriptor). */
static int sync_root(const struct frun *f)
{
	int fd = openat(f->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = 0;

	if (fd < 0 || syncfs(fd))
		ret = -errno;
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Bytes a write may take: root's include the blocks ext4 reserves for it (f_bfree). */
static uint64_t room_of(const struct statvfs *sv)
{
	return (uint64_t)(geteuid() ? sv->f_bavail : sv->f_bfree) * sv->f_frsize;
}

/*
 * The data to lay out against the free room under the root, before a byte is written: a lay-out
 * of 100 GiB onto 90 free would fail an hour in. A filesystem that frees a removed file's
 * blocks at its next commit (btrfs: an earlier replay's files, removed just before) is synced
 * and asked again before it is refused. 0 where the filesystem cannot say.
 */
static int room_check(struct frun *f, uint64_t need, char *err, size_t errlen)
{
	struct statvfs sv;
	char a[32], b[32];
	uint64_t room;

	if (fstatvfs(f->rootfd, &sv))
		return 0;
	room = room_of(&sv);
	if (need <= room)
		return 0;
	if (!sync_root(f) && !fstatvfs(f->rootfd, &sv))
		room = room_of(&sv);
	if (need <= room)
		return 0;
	snprintf(err, errlen, "the files to lay out under %s take %s and its filesystem has %s "
		 "free: no data was written; free space there or replay onto a larger filesystem",
		 f->res->root, fmt_bytes(need, a, sizeof(a)), fmt_bytes(room, b, sizeof(b)));
	return -ENOSPC;
}

/*
 * Writes: the marker, the directories, stale files at the trace's names removed, the files
 * that existed before their first call recreated (size, data where the source had data).
 */
int froot_prepare(struct frun *f, char *err, size_t errlen)
{
	struct layout l = { .f = f, .seed = now_mono_ns() };
	uint64_t t0 = now_mono_ns();
	char a[32], b[32];
	int ret = 0, fd;

	fd = openat(f->rootfd, FMARKER, O_CREAT | O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || dprintf(fd, "ioreel replay --root: files here are replaced by the next "
				  "replay (%s)\n", f->o->trace) < 0) {
		snprintf(err, errlen, "cannot write %s/%s: %s", f->res->root, FMARKER,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	close(fd);
	for (uint32_t i = 0; !ret && i < f->nnames; i++) {
		struct fname *n = &f->names[i];

		/* a trace of 100k names takes a second here: Ctrl-C is looked at by each */
		if (replay_stop) {
			ret = -EINTR;
			break;
		}
		ret = name_dir(f, i, true, err, errlen);
		if (!ret)
			ret = name_vet(f, i, err, errlen);
		if (!ret && n->dir)
			ret = fops_clear(f, i, err, errlen);
		else if (!ret && unlinkat(n->dirfd, n->base, 0) && errno != ENOENT) {
			ret = -errno;
			snprintf(err, errlen, "cannot remove %s/%s left by an earlier replay: %s",
				 f->res->root, n->rel, strerror(errno));
		}
	}
	for (uint32_t id = 1; !ret && id <= f->nfiles; id++)
		if (f->files[id].layout == FLAY_DATA && !f->files[id].dir)
			write_data(&l, -1, trace_reader__file(f->rd, id), true);
	if (!ret)
		ret = room_check(f, l.total, err, errlen);
	l.buf = malloc(LAYOUT_CHUNK);
	if (!ret && !l.buf)
		ret = -ENOMEM;
	if (l.buf)
		pattern_random(l.buf, LAYOUT_CHUNK);
	for (uint32_t id = 1; !ret && id <= f->nfiles; id++) {
		/* an empty file or a directory writes no data that would look at it */
		if (replay_stop)
			ret = -EINTR;
		else if (f->files[id].layout != FLAY_NONE)
			ret = f->files[id].dir ? fops_lay_out_dir(f, id, err, errlen)
					       : lay_out_one(&l, id, err, errlen);
	}
	free(l.buf);
	if (f->o->progress && l.next_progress)
		fprintf(stderr, "\r\033[K");
	/* the journal too, so the clock starts on a quiet filesystem */
	if (!ret)
		ret = sync_root(f);
	if (ret == -EINTR && replay_stop) { /* not "laying out F: Interrupted system call" */
		char done[80] = "";

		if (l.total)
			snprintf(done, sizeof(done), " (%s of %s written)",
				 fmt_bytes(l.done, a, sizeof(a)), fmt_bytes(l.total, b, sizeof(b)));
		snprintf(err, errlen, "interrupted while laying out the files under %s%s: nothing "
			 "was replayed; the next replay there lays them out anew", f->res->root,
			 done);
	} else if (ret && !*err) {
		snprintf(err, errlen, "preparing %s: %s", f->res->root, strerror(-ret));
	}
	f->res->layout_bytes = l.done;
	f->res->layout_ns = now_mono_ns() - t0;
	return ret;
}

void froot_free(struct frun *f)
{
	for (uint32_t i = 0; i < f->ndirs; i++)
		close(f->dirfds[i]);
	free(f->dirfds);
	strmap_free(f->name_map);
	strmap_free(f->dir_map);
	free(f->names);
	if (f->rootfd > 0)
		close(f->rootfd);
}
