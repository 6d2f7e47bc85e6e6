// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The file table of a file-level recording: every file the recorded processes touched, known
 * by its identity (filesystem, inode, generation) and by the path it is at now, with what it
 * was when first seen (size, allocation, holes, filesystem type), written to the trace as it
 * is met. The kernel gives identities; paths come from the calls' own path arguments (joined to
 * the caller's cwd or dirfd), from the start iterator, or from /proc/PID/fd after the fact.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "record/file_int.h"
#include "util/num.h"

#define MAX_MOUNTS 4096

struct mount {
	uint32_t id;  /* the mount's id (mountinfo's first field): a new mount has a new one */
	uint32_t dev; /* kernel encoding */
	char fs[16];
	char *point;
};

/* A directory whose path we know (a cwd or a dirfd's), by identity. */
struct dir {
	uint32_t dev;
	uint64_t ino;
	char *path;
};

/* Open addressing, linear probing; a slot holds an entry pointer, TOMB when removed. */
struct index {
	struct fl_file **slot;
	size_t cap, used; /* used counts tombstones too */
};

#define TOMB ((struct fl_file *)1)

struct fl_files {
	struct trace_writer *w;
	char under[4096];
	struct index by_id, by_path;
	struct fl_file **all;
	size_t n, cap;
	uint32_t next_id;
	struct mount mounts[MAX_MOUNTS];
	int nmounts;
	struct dir *dirs; /* directories relative paths start from, by identity */
	size_t ndirs, dirs_cap;
	struct fl_files_stats st;
};

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

static uint64_t hash_ident(uint32_t dev, uint64_t ino, uint32_t gen)
{
	return mix(ino ^ mix((uint64_t)dev << 32 | gen));
}

static uint64_t hash_path(const char *p)
{
	return mix(fnv1a_str(p));
}

/* Doubles the identity index (only entries with an identity are in it). */
static int id_grow(struct index *x)
{
	struct index n = {.cap = x->cap ? 2 * x->cap : 1024};

	n.slot = calloc(n.cap, sizeof(*n.slot));
	if (!n.slot)
		return -ENOMEM;
	for (size_t i = 0; i < x->cap; i++) {
		struct fl_file *f = x->slot[i];

		if (!f || f == TOMB)
			continue;
		for (size_t j = hash_ident(f->dev, f->ino, f->gen) & (n.cap - 1);;
		     j = (j + 1) & (n.cap - 1)) {
			if (!n.slot[j]) {
				n.slot[j] = f;
				n.used++;
				break;
			}
		}
	}
	free(x->slot);
	*x = n;
	return 0;
}

/* Rebuilds the path index, twice as large, from the entries' current paths (which also
 * clears its tombstones). */
static int path_rebuild(struct fl_files *t)
{
	size_t cap = t->by_path.cap ? 2 * t->by_path.cap : 1024;
	struct fl_file **slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	free(t->by_path.slot);
	t->by_path = (struct index){.slot = slot, .cap = cap};
	for (size_t i = 0; i < t->n; i++) {
		struct fl_file *f = t->all[i];

		if (!f->path)
			continue;
		for (size_t j = hash_path(f->path) & (cap - 1);; j = (j + 1) & (cap - 1)) {
			if (!slot[j]) {
				slot[j] = f;
				t->by_path.used++;
				break;
			}
		}
	}
	return 0;
}

static struct fl_file *id_find(struct fl_files *t, uint32_t dev, uint64_t ino, uint32_t gen)
{
	struct index *x = &t->by_id;

	if (!x->cap)
		return NULL;
	for (size_t j = hash_ident(dev, ino, gen) & (x->cap - 1);; j = (j + 1) & (x->cap - 1)) {
		struct fl_file *f = x->slot[j];

		if (!f)
			return NULL;
		if (f != TOMB && f->dev == dev && f->ino == ino && f->gen == gen)
			return f;
	}
}

static int id_put(struct fl_files *t, struct fl_file *f)
{
	struct index *x = &t->by_id;

	if ((x->used + 1) * 2 > x->cap && id_grow(x))
		return -ENOMEM;
	for (size_t j = hash_ident(f->dev, f->ino, f->gen) & (x->cap - 1);;
	     j = (j + 1) & (x->cap - 1)) {
		if (!x->slot[j]) {
			x->slot[j] = f;
			x->used++;
			return 0;
		}
	}
}

static size_t path_slot(struct fl_files *t, const char *path, bool *found)
{
	struct index *x = &t->by_path;
	size_t tomb = SIZE_MAX;

	for (size_t j = hash_path(path) & (x->cap - 1);; j = (j + 1) & (x->cap - 1)) {
		struct fl_file *f = x->slot[j];

		if (!f) {
			*found = false;
			return tomb != SIZE_MAX ? tomb : j;
		}
		if (f == TOMB) {
			if (tomb == SIZE_MAX)
				tomb = j;
			continue;
		}
		if (!strcmp(f->path, path)) {
			*found = true;
			return j;
		}
	}
}

static struct fl_file *path_find(struct fl_files *t, const char *path)
{
	bool found;
	size_t j;

	if (!t->by_path.cap)
		return NULL;
	j = path_slot(t, path, &found);
	return found ? t->by_path.slot[j] : NULL;
}

static void path_del(struct fl_files *t, struct fl_file *f)
{
	bool found;
	size_t j;

	if (!f->path || !t->by_path.cap)
		return;
	j = path_slot(t, f->path, &found);
	if (found && t->by_path.slot[j] == f)
		t->by_path.slot[j] = TOMB;
}

/* f is at path now; whatever was there before is no longer known by that path. */
static int path_set(struct fl_files *t, struct fl_file *f, const char *path)
{
	struct fl_file *old;
	bool found;
	size_t j;
	char *p;

	if (f->path && !strcmp(f->path, path))
		return 0;
	p = strdup(path);
	if (!p)
		return -ENOMEM;
	path_del(t, f);
	free(f->path);
	f->path = p;
	if ((t->by_path.used + 1) * 2 > t->by_path.cap && path_rebuild(t))
		return -ENOMEM;
	j = path_slot(t, path, &found);
	old = found ? t->by_path.slot[j] : NULL;
	if (old && old != f) {
		free(old->path); /* replaced (rename over it): it has no name now */
		old->path = NULL;
	}
	if (!found && !t->by_path.slot[j])
		t->by_path.used++;
	t->by_path.slot[j] = f;
	return 0;
}

struct fl_files *fl_files__new(struct trace_writer *w, const char *under)
{
	struct fl_files *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->w = w;
	t->next_id = 1;
	snprintf(t->under, sizeof(t->under), "%s", under ? under : "");
	return t;
}

void fl_files__free(struct fl_files *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->all[i]->path);
		free(t->all[i]);
	}
	for (int i = 0; i < t->nmounts; i++)
		free(t->mounts[i].point);
	for (size_t i = 0; i < t->ndirs; i++)
		free(t->dirs[i].path);
	free(t->dirs);
	free(t->all);
	free(t->by_id.slot);
	free(t->by_path.slot);
	free(t);
}

bool fl_files__known_path(struct fl_files *t, const char *path)
{
	return path_find(t, path) != NULL;
}

bool fl_files__wants_path(const struct fl_files *t, const char *path)
{
	return fl_path_is_under(t->under, path);
}

bool fl_files__is_under_dir(const struct fl_files *t, const char *path)
{
	size_t n = strlen(t->under);

	while (n > 1 && t->under[n - 1] == '/')
		n--;
	return n && path && !strncmp(path, t->under, n) && (!path[n] || !strcmp(path + n, "/"));
}

void fl_files__stats(const struct fl_files *t, struct fl_files_stats *s)
{
	*s = t->st;
}

/* /proc/self/mountinfo: "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw" */
static void load_mounts(struct mount *m, int *n)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[8192];

	for (int i = 0; i < *n; i++)
		free(m[i].point);
	*n = 0;
	while (f && *n < MAX_MOUNTS && fgets(line, sizeof(line), f)) {
		unsigned int id, maj, min;
		char point[4096], fs[64], *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%u %*u %u:%u %*s %4095s", &id, &maj, &min, point) != 4 ||
		    sscanf(dash, " - %63s", fs) != 1)
			continue;
		m[*n].id = id;
		m[*n].dev = maj << 20 | min;
		snprintf(m[*n].fs, sizeof(m[*n].fs), "%.15s", fs);
		m[*n].point = strdup(point);
		if (m[*n].point)
			(*n)++;
	}
	if (f)
		fclose(f);
}

static const char *fs_of(struct fl_files *t, uint32_t dev)
{
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < t->nmounts; i++)
			if (t->mounts[i].dev == dev)
				return t->mounts[i].fs;
		if (!pass)
			load_mounts(t->mounts, &t->nmounts); /* a filesystem mounted since */
	}
	return "";
}

bool fl_path_is_under(const char *under, const char *path)
{
	size_t n = strlen(under);

	if (!n)
		return true;
	return path && !strncmp(path, under, n) && (path[n] == '/' || path[n] == '\0');
}

int fl_under_devs(const char *dir, uint32_t *devs, int max)
{
	return fl_under_mounts(dir, devs, NULL, max);
}

int fl_under_mounts(const char *dir, uint32_t *devs, uint32_t *ids, int max)
{
	static struct mount m[MAX_MOUNTS];
	int n = 0, k = 0, best = -1;
	size_t best_len = 0;

	load_mounts(m, &n);
	for (int i = 0; i < n; i++) {
		size_t l = strlen(m[i].point);

		/* the mount holding dir: the longest mount point that is a prefix of it */
		if ((fl_path_is_under(m[i].point, dir) || !strcmp(m[i].point, "/")) &&
		    l >= best_len) {
			best = i;
			best_len = l;
		}
	}
	if (best >= 0 && k < max) {
		if (ids)
			ids[k] = m[best].id;
		devs[k++] = m[best].dev;
	}
	for (int i = 0; i < n && k < max; i++) {
		bool seen = false;

		if (!fl_path_is_under(dir, m[i].point) || i == best)
			continue;
		for (int j = 0; j < k; j++)
			seen |= ids ? ids[j] == m[i].id : devs[j] == m[i].dev;
		if (seen)
			continue;
		if (ids)
			ids[k] = m[i].id;
		devs[k++] = m[i].dev;
	}
	for (int i = 0; i < n; i++)
		free(m[i].point);
	return k;
}

int fl_cgroup_rel(const char *dir, char *out, size_t len)
{
	static struct mount m[MAX_MOUNTS];
	char real[4096];
	int n = 0, err = -ENOENT;

	if (!realpath(dir, real))
		return -errno;
	load_mounts(m, &n);
	for (int i = 0; i < n; i++) {
		size_t l = strlen(m[i].point);

		if (strcmp(m[i].fs, "cgroup2") || !fl_path_is_under(m[i].point, real))
			continue;
		snprintf(out, len, "%s", real[l] ? real + l : "/");
		err = 0;
		break;
	}
	for (int i = 0; i < n; i++)
		free(m[i].point);
	return err;
}

/* Lexical clean-up of an absolute path: no "//", "/./", "/../" (a symlink is not followed). */
static void normalize(char *p)
{
	char *out = p, *in = p;

	while (*in) {
		while (*in == '/')
			in++;
		if (!*in)
			break;
		if (in[0] == '.' && (in[1] == '/' || !in[1])) {
			in++;
			continue;
		}
		if (in[0] == '.' && in[1] == '.' && (in[2] == '/' || !in[2])) {
			in += 2;
			while (out > p && *--out != '/')
				;
			continue;
		}
		*out++ = '/';
		while (*in && *in != '/')
			*out++ = *in++;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

static int read_link(const char *link, char *out, size_t len)
{
	ssize_t n = readlink(link, out, len - 1);

	if (n < 0)
		return -errno;
	out[n] = '\0';
	return 0;
}

/* A cwd or dirfd seen by the kernel as (dev, ino): its path, learned before (a few directories
 * serve every process: a database's data directory). Linear: there are few. */
static const char *dir_find(struct fl_files *t, uint32_t dev, uint64_t ino)
{
	for (size_t i = t->ndirs; i-- > 0;)
		if (t->dirs[i].dev == dev && t->dirs[i].ino == ino)
			return t->dirs[i].path;
	return NULL;
}

static void dir_learn(struct fl_files *t, uint32_t dev, uint64_t ino, const char *path)
{
	if (!ino || dir_find(t, dev, ino) || t->ndirs >= 4096)
		return;
	if (t->ndirs == t->dirs_cap) {
		size_t cap = t->dirs_cap ? 2 * t->dirs_cap : 16;
		struct dir *p = realloc(t->dirs, cap * sizeof(*p));

		if (!p)
			return;
		t->dirs = p;
		t->dirs_cap = cap;
	}
	t->dirs[t->ndirs].path = strdup(path);
	if (t->dirs[t->ndirs].path) {
		t->dirs[t->ndirs].dev = dev;
		t->dirs[t->ndirs++].ino = ino;
	}
}

/* Reads link (a /proc cwd or fd link) into out if it is the directory ino (0: any). */
static int read_dir_link(const char *link, uint64_t ino, char *out, size_t len)
{
	struct stat st;
	int err = read_link(link, out, len);

	if (err)
		return err;
	if (ino && (stat(link, &st) || st.st_ino != ino))
		return -ESTALE; /* changed directory since the call */
	return 0;
}

void fl_files__learn_cwd(struct fl_files *t, uint32_t pid)
{
	char link[64], path[4096];
	struct stat st;

	snprintf(link, sizeof(link), "/proc/%u/cwd", pid);
	if (!read_link(link, path, sizeof(path)) && !stat(link, &st))
		dir_learn(t, major(st.st_dev) << 20 | minor(st.st_dev), st.st_ino, path);
}

int fl_files__join(struct fl_files *t, const struct fl_join *j, char *out, size_t len,
		   uint32_t *origin)
{
	char link[64], base[4096], root[4096] = "/";
	const char *known;
	int err;

	if (j->path[0] == '/') {
		snprintf(link, sizeof(link), "/proc/%u/root", j->tid);
		if (read_link(link, root, sizeof(root)))
			snprintf(root, sizeof(root), "/");
		snprintf(out, len, "%s/%s", strcmp(root, "/") ? root : "", j->path);
		normalize(out);
		return 0;
	}
	/* cwd and fd links are already seen from our root */
	known = dir_find(t, j->dir_dev, j->dir_ino);
	if (known) {
		snprintf(out, len, "%s/%s", known, j->path);
	} else {
		if (j->dirfd == -100)
			snprintf(link, sizeof(link), "/proc/%u/cwd", j->tid);
		else
			snprintf(link, sizeof(link), "/proc/%u/fd/%d", j->tid, j->dirfd);
		err = read_dir_link(link, j->dir_ino, base, sizeof(base));
		if (err)
			return err;
		dir_learn(t, j->dir_dev, j->dir_ino, base);
		snprintf(out, len, "%s/%s", base, j->path);
		if (!j->dir_ino)
			*origin |= TRACE_FILE_PATH_GUESS; /* not checked against the call's */
	}
	normalize(out);
	return 0;
}

/* The data segments of a sparse file (SEEK_DATA/SEEK_HOLE), through the caller's descriptor
 * when we can (the file may be unlinked or its path not ours). */
static struct trace_file_seg *holes(uint32_t pid, int32_t fd, const char *path, uint64_t size,
				    uint32_t *n, uint32_t *origin)
{
	struct trace_file_seg *s = NULL;
	char link[64];
	int d = -1;
	off_t at = 0;

	*n = 0;
	if (fd >= 0) {
		snprintf(link, sizeof(link), "/proc/%u/fd/%d", pid, fd);
		d = open(link, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOATIME);
	}
	if (d < 0 && path && path[0])
		d = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOATIME);
	if (d < 0)
		return NULL;
	s = malloc(TRACE_FILE_SEGS_MAX * sizeof(*s));
	while (s && at < (off_t)size) {
		off_t data = lseek(d, at, SEEK_DATA), hole;

		if (data < 0)
			break; /* ENXIO: no data after at */
		hole = lseek(d, data, SEEK_HOLE);
		if (hole <= data)
			break;
		if (*n == TRACE_FILE_SEGS_MAX) {
			*origin |= TRACE_FILE_SEGS_CUT;
			break;
		}
		s[(*n)++] = (struct trace_file_seg){data, hole - data};
		at = hole;
	}
	close(d);
	if (s)
		*origin |= TRACE_FILE_SEGS_KNOWN;
	return s;
}

/* The file of e, through the caller's descriptor if it is still open, else by its path; only
 * if it is still the same inode. */
static bool file_stat(const struct fl_event *e, const char *path, struct stat *st)
{
	char link[64];

	if (e->fd >= 0) {
		snprintf(link, sizeof(link), "/proc/%u/fd/%d", e->pid, e->fd);
		if (!stat(link, st) && st->st_ino == e->ino)
			return true;
	}
	return path && path[0] && !stat(path, st) && st->st_ino == e->ino;
}

/* Adds f to the trace's table (unless outside --under), with what the kernel saw (e). */
static int publish(struct fl_files *t, struct fl_file *f, const struct fl_event *e, uint32_t origin,
		   uint64_t first_ns)
{
	struct trace_file tf = {.origin = origin,
				.dev_major = f->dev >> 20,
				.dev_minor = f->dev & 0xfffff,
				.ino = f->ino,
				.gen = f->gen,
				.first_ns = first_ns};
	struct trace_file_seg *segs = NULL;
	int err;

	f->outside = !fl_path_is_under(t->under, f->path);
	if (f->outside) {
		t->st.outside++;
		return 0;
	}
	if (e) {
		struct stat st;

		tf.mode = e->mode;
		tf.size = e->size;
		/* The inode's i_blocks, as the call saw it, where the filesystem keeps it; XFS
		 * leaves it 0 and computes st_blocks: fstat() then, a moment later. */
		if (e->blocks || !e->size) {
			tf.alloc = e->blocks * 512;
		} else if (file_stat(e, f->path, &st)) {
			tf.alloc = (uint64_t)st.st_blocks * 512;
		} else {
			tf.alloc = 0;
			tf.origin |= TRACE_FILE_ALLOC_INODE;
		}
		tf.oflags = e->fflags;
		snprintf(tf.fs, sizeof(tf.fs), "%s", fs_of(t, f->dev));
		if (tf.alloc < tf.size)
			segs = holes(e->pid, e->fd, f->path, e->size, &tf.nsegs, &tf.origin);
		tf.segs = segs;
	}
	if (!f->path)
		tf.origin |= TRACE_FILE_PATH_UNKNOWN;
	tf.path = f->path ? f->path : "";
	tf.id = f->id = t->next_id++;
	err = trace_writer__add_files(t->w, &tf, 1);
	free(segs);
	t->st.files++;
	t->st.path_unknown += !f->path;
	t->st.name_only += !!(origin & TRACE_FILE_NAME_ONLY);
	return err;
}

static struct fl_file *new_file(struct fl_files *t)
{
	struct fl_file *f;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct fl_file **p = realloc(t->all, cap * sizeof(*p));

		if (!p)
			return NULL;
		t->all = p;
		t->cap = cap;
	}
	f = calloc(1, sizeof(*f));
	if (f)
		t->all[t->n++] = f;
	return f;
}

/* The path an open descriptor has now, if it still names the file of e. */
static bool proc_path(const struct fl_event *e, char *out, size_t len)
{
	char link[64];
	struct stat st;
	size_t n;

	if (e->fd < 0)
		return false;
	snprintf(link, sizeof(link), "/proc/%u/fd/%d", e->pid, e->fd);
	if (read_link(link, out, len) || stat(link, &st) || st.st_ino != e->ino || out[0] != '/')
		return false;
	n = strlen(out);
	if (n > 10 && !strcmp(out + n - 10, " (deleted)"))
		out[n - 10] = '\0';
	return true;
}

struct fl_file *fl_files__ident(struct fl_files *t, const struct fl_event *e, const char *name,
				uint32_t name_origin, uint64_t first_ns, bool at_start)
{
	struct fl_file *f = id_find(t, e->dev, e->ino, e->gen);
	uint32_t origin = name_origin;
	char buf[4096];

	if (f) {
		if (name && e->op == FL_OP_OPEN && path_set(t, f, name))
			return NULL;
		return f;
	}
	f = new_file(t);
	if (!f)
		return NULL;
	f->dev = e->dev;
	f->ino = e->ino;
	f->gen = e->gen;
	if (id_put(t, f))
		return NULL;
	if (at_start)
		origin |= TRACE_FILE_AT_START;
	else if (e->op == FL_OP_OPEN)
		origin |= TRACE_FILE_OPENED;
	if (!name && proc_path(e, buf, sizeof(buf))) {
		name = buf;
		origin |= TRACE_FILE_PATH_PROC;
	}
	if (name && path_set(t, f, name))
		return NULL;
	if (publish(t, f, e, origin, first_ns))
		return NULL;
	return f;
}

struct fl_file *fl_files__by_path(struct fl_files *t, const char *path, uint64_t first_ns)
{
	struct fl_file *f = path_find(t, path);

	if (f)
		return f;
	f = new_file(t);
	if (!f || path_set(t, f, path) || publish(t, f, NULL, TRACE_FILE_NAME_ONLY, first_ns))
		return NULL;
	return f;
}

void fl_files__moved(struct fl_files *t, struct fl_file *f, const char *to)
{
	path_set(t, f, to);
}

void fl_files__unlinked(struct fl_files *t, struct fl_file *f)
{
	path_del(t, f);
	free(f->path);
	f->path = NULL;
}
