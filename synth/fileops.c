// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fio jobs as file-level traces (formats/FORMAT.md section 5): the engines whose calls are not
 * reads and writes of a block device (falloc, ftruncate, filecreate, filestat, filedelete,
 * dircreate, dirstat, dirdelete) and jobs over several files (nrfiles, file_service_type).
 * The trace names every file the jobs use (fio's names, under /fio), the calls each job clone
 * makes on them as one closed-loop stream with the job's depth, runtime and group, and the
 * files it opens before its I/O as descriptors open at start, so `replay --root DIR` lays the
 * files out, opens them and runs the streams as block replay runs a synthesized job.
 *
 * fio's semantics (engines/fileoperations.c, falloc.c, ftruncate.c, HOWTO "file_service_type"):
 * - falloc: a read is fallocate(KEEP_SIZE), a write fallocate(0), a trim
 *   fallocate(PUNCH_HOLE | KEEP_SIZE), each over the I/O's range; ftruncate: a write is
 *   ftruncate(offset) (fio fails reads and trims with EINVAL: refused here).
 * - filecreate: open(O_CREAT | O_RDWR, 0600) of each file (timed), then its close; filestat and
 *   dirstat: stat() of each; filedelete: unlink(); dircreate: mkdir(name, S_IFDIR), which
 *   leaves no permission bit; dirdelete: rmdir(). One call per file per loop: fio makes it when
 *   it opens the file. dirstat and dirdelete find their directories made (fio's setup_dirs,
 *   0700), filestat and filedelete their files laid out at filesize.
 * - nrfiles: fio splits size over the files (filesize, when given, is each file's size and size
 *   the bytes to do); each file has its own offsets (its own random map); the job's I/Os go to
 *   its files by file_service_type: roundrobin (the default) and sequential switch after N I/Os
 *   (":N", default 1; sequential once a file is done), random picks a file for each N.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/file.h"
#include "synth/jobgen.h"
#include "synth/synth.h"
#include "util/num.h"
#include "util/outfile.h"

#define X86_O_RDWR 02
#define X86_O_CREAT 0100
#define X86_O_DIRECT 040000
#define X86_O_SYNC 04010000
#define FALLOC_KEEP_SIZE 0x01
#define FALLOC_PUNCH_HOLE 0x02
#define FALLOC_ZERO_RANGE 0x10
#define S_DIR 0040000
#define S_REG 0100000
#define FIRST_FD 3

static const char *const fop_engines[] = {
    [SYNTH_FOP_FALLOC] = "falloc",	   [SYNTH_FOP_FTRUNCATE] = "ftruncate",
    [SYNTH_FOP_FILECREATE] = "filecreate", [SYNTH_FOP_FILESTAT] = "filestat",
    [SYNTH_FOP_FILEDELETE] = "filedelete", [SYNTH_FOP_DIRCREATE] = "dircreate",
    [SYNTH_FOP_DIRSTAT] = "dirstat",	   [SYNTH_FOP_DIRDELETE] = "dirdelete",
};

enum synth_fileop synth_fileop_of(const char *engine)
{
	for (size_t i = 1; i < sizeof(fop_engines) / sizeof(fop_engines[0]); i++)
		if (engine && !strcmp(engine, fop_engines[i]))
			return (enum synth_fileop)i;
	return SYNTH_FOP_NONE;
}

/* One call per file: the engines that make no I/O of their own */
static bool per_file_op(const struct synth_job *j)
{
	return j->fileop >= SYNTH_FOP_FILECREATE;
}

static bool dir_op(const struct synth_job *j)
{
	return j->fileop >= SYNTH_FOP_DIRCREATE;
}

int synth_file_service_set(struct synth_job *j, const char *v, char *why, size_t why_len)
{
	static const char *const names[] = {"roundrobin", "sequential", "random"};
	char *end = NULL;
	size_t n = v ? strcspn(v, ":") : 0;
	unsigned long batch = 1;

	if (v && v[n] == ':') {
		errno = 0;
		batch = strtoul(v + n + 1, &end, 10);
		if (errno || !batch || *end || batch > UINT32_MAX) {
			snprintf(why, why_len,
				 "file_service_type=%s: expected roundrobin, "
				 "sequential or random, with :N (I/Os per file) >= 1",
				 v);
			return -EINVAL;
		}
	}
	for (size_t i = 0; v && i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && !strncmp(v, names[i], n)) {
			j->file_service = (uint8_t)i;
			j->fsvc_batch = (uint32_t)batch;
			return 0;
		}
	if (v && (!strncmp(v, "zipf", n) || !strncmp(v, "pareto", n) || !strncmp(v, "normal", n) ||
		  !strncmp(v, "gauss", n))) {
		snprintf(why, why_len,
			 "file_service_type=%s: files picked by a skewed "
			 "distribution are not modeled (roundrobin, sequential and "
			 "random are)",
			 v);
		return -EOPNOTSUPP;
	}
	snprintf(why, why_len,
		 "file_service_type=%s: expected roundrobin, sequential or random "
		 "(with :N, I/Os per file)",
		 v ? v : "");
	return -EINVAL;
}

bool synth_spec_file_level(const struct synth_spec *s)
{
	for (unsigned int i = 0; !s->innodb && i < s->njobs; i++)
		if (s->jobs[i].fileop || s->jobs[i].nrfiles > 1)
			return true;
	return false;
}

static int refuse_job(const struct synth_job *j, char *why, size_t why_len, const char *what)
{
	/* a file engine or nrfiles > 1 somewhere in the file made the trace file-level */
	snprintf(why, why_len, "job '%s' refused: %s (the file's jobs make a file-level trace)",
		 j->name, what);
	return -EOPNOTSUPP;
}

static uint32_t files_used(const struct synth_job *j);

/*
 * The file table is held in memory while the trace is written (some 160 bytes a file: 4 Mi files
 * took 650 MB and 7.6 s), and a job file may ask numjobs=1024 x nrfiles=1048576: 2^30 files,
 * past what fset counts. Refused beyond SYNTH_MAX_TRACE_FILES, naming the job that crosses it.
 */
static int files_check(const struct synth_spec *s, char *why, size_t why_len)
{
	uint64_t total = 0;

	for (unsigned int i = 0; i < s->njobs; i++) {
		const struct synth_job *j = &s->jobs[i];
		char what[256];

		total += (uint64_t)files_used(j) * j->numjobs;
		if (total <= SYNTH_MAX_TRACE_FILES)
			continue;
		snprintf(what, sizeof(what),
			 "nrfiles=%u x numjobs=%u: %llu files in the trace with the jobs above, and a "
			 "file-level trace holds at most %u: give fewer files or job clones",
			 j->nrfiles ? j->nrfiles : 1, j->numjobs, (unsigned long long)total,
			 SYNTH_MAX_TRACE_FILES);
		return refuse_job(j, why, why_len, what);
	}
	return 0;
}

/*
 * Each job's file size settled in bytes (fsize), as fio does: filesize, else size split over
 * nrfiles; size is then the region of each file the job works in. What a file-level trace
 * cannot hold is refused, naming the job.
 */
int synth_fileops_prepare(struct synth_spec *s, char *why, size_t why_len)
{
	int err = synth_spec_groups(s, why, why_len);

	if (err)
		return err;
	for (unsigned int i = 0; i < s->njobs; i++) {
		struct synth_job *j = &s->jobs[i];
		uint32_t n = j->nrfiles ? j->nrfiles : 1, mn = synth_job_min_bs(j);
		uint64_t F;

		if (j->sprandom) {
			char what[300];

			snprintf(what, sizeof(what), "%s: fio lays sprandom out over one file "
				 "(nrfiles=1) of writes, no file engine",
				 j->at_spr[0] ? j->at_spr : "sprandom");
			return refuse_job(j, why, why_len, what);
		}
		if (j->rate_iops > 0 || j->rate_bytes[0] || j->rate_bytes[1] || j->rate_bytes[2] ||
		    j->rate_ios[0] || j->rate_ios[1] || j->rate_ios[2])
			return refuse_job(j, why, why_len,
					  "rate or rate_iops: a file-level trace "
					  "is replayed as a closed loop");
		if (j->flow)
			return refuse_job(j, why, why_len, "flow: not modeled");
		if (j->size_ppm || j->offset_ppm || j->inc_ppm || j->size_nz || j->offset_nz ||
		    j->inc_nz || j->fill)
			return refuse_job(j, why, why_len,
					  "a size or offset in % or zones, or "
					  "fill_device: each file's size must be known in bytes");
		if (j->device_engine)
			return refuse_job(j, why, why_len, "an engine that names its device");
		if (j->file[0] && n > 1)
			return refuse_job(
			    j, why, why_len,
			    "filename with nrfiles > 1: fio gives "
			    "the job the files filename lists (one here); drop nrfiles or "
			    "filename");
		if (j->fileop == SYNTH_FOP_FTRUNCATE &&
		    (j->ddirs & (1u << SYNTH_DDIR_READ | 1u << SYNTH_DDIR_TRIM)))
			return refuse_job(j, why, why_len,
					  "ioengine=ftruncate with reads or trims: "
					  "fio fails them (EINVAL), only writes truncate");
		if (j->zeroes_pct && j->fileop)
			return refuse_job(j, why, why_len, "write_mode=zeroes with a file engine");
		if (!mn || mn == UINT32_MAX)
			return refuse_job(j, why, why_len, "every block size has a 0% share");
		if (j->filesize)
			F = j->filesize;
		else if (j->size)
			F = j->size / n;
		else if (per_file_op(j))
			F = mn; /* fio's filecreate and dircreate: a block per file */
		else
			return refuse_job(j, why, why_len,
					  "no size or filesize: the files' size "
					  "would come from the target");
		if (per_file_op(j)) {
			/* the region only bounds the generator's checks: the calls are per file */
			j->fsize = dir_op(j) ? 0 : F;
			j->size = F > mn ? F : mn;
			j->offset = 0;
			j->offset_inc = 0;
			j->io_size = 0;
			continue;
		}
		if (j->offset + (uint64_t)(j->numjobs - 1) * j->offset_inc >= F)
			return refuse_job(j, why, why_len, "offset past the end of each file");
		j->fsize = F;
		/* filesize given: size is the bytes to do (fio's io_size), over all the files */
		if (j->filesize && j->size && !j->io_size)
			j->io_size = j->size;
		j->size = F - j->offset - (uint64_t)(j->numjobs - 1) * j->offset_inc;
		j->file_base = 0;
		j->clone_span = 0;
		j->rel = false;
		err = synth_job_check(j, why, why_len);
		if (err)
			return err;
	}
	return files_check(s, why, why_len);
}

/* ---- the file table ---- */

/* The files, and an index of their paths (open addressing: filecreate's example names half a
 * million). */
struct fset {
	struct trace_file *tf;
	char **paths;
	uint32_t n, cap;
	uint32_t *slot; /* id, 0: empty */
	uint32_t nslot;
};

static uint32_t path_hash(const char *p)
{
	return (uint32_t)fnv1a_str(p);
}

static int fset_index(struct fset *fs, uint32_t id)
{
	if ((fs->n + 1) * 2 > fs->nslot) {
		uint32_t ns = fs->nslot ? fs->nslot * 2 : 1024, *s = calloc(ns, sizeof(*s));

		if (!s)
			return -ENOMEM;
		free(fs->slot);
		fs->slot = s;
		fs->nslot = ns;
		for (uint32_t i = 1; i < id; i++)
			fset_index(fs, i);
	}
	for (uint32_t h = path_hash(fs->paths[id - 1]) & (fs->nslot - 1);;
	     h = (h + 1) & (fs->nslot - 1))
		if (!fs->slot[h]) {
			fs->slot[h] = id;
			return 0;
		}
}

/* The file id of path (1, 2, ...), added at its first use; size: the largest asked. */
static int file_id(struct fset *fs, const char *path, uint32_t mode, uint32_t origin, uint64_t size,
		   uint32_t *id)
{
	for (uint32_t h = fs->nslot ? path_hash(path) & (fs->nslot - 1) : 0;
	     fs->nslot && fs->slot[h]; h = (h + 1) & (fs->nslot - 1)) {
		uint32_t i = fs->slot[h] - 1;

		if (strcmp(fs->paths[i], path))
			continue;
		if (size > fs->tf[i].size)
			fs->tf[i].size = fs->tf[i].alloc = size;
		*id = i + 1;
		return 0;
	}
	if (fs->n == fs->cap) {
		uint32_t cap = fs->cap ? fs->cap * 2 : 64;
		struct trace_file *tf = realloc(fs->tf, cap * sizeof(*tf));
		char **p = tf ? realloc(fs->paths, cap * sizeof(*p)) : NULL;

		if (tf)
			fs->tf = tf;
		if (!p)
			return -ENOMEM;
		fs->paths = p;
		fs->cap = cap;
	}
	fs->paths[fs->n] = strdup(path);
	if (!fs->paths[fs->n])
		return -ENOMEM;
	fs->tf[fs->n] = (struct trace_file){
	    .id = fs->n + 1, .origin = origin, .mode = mode, .size = size, .alloc = size};
	fs->tf[fs->n].path = fs->paths[fs->n];
	*id = ++fs->n;
	return fset_index(fs, *id);
}

static void fset_free(struct fset *fs)
{
	for (uint32_t i = 0; i < fs->n; i++)
		free(fs->paths[i]);
	free(fs->paths);
	free(fs->tf);
	free(fs->slot);
}

/* fio's name for file k of clone c: filename, else "jobname.c.k"; under /fio. */
static void file_path(const struct synth_job *j, uint32_t c, uint32_t k, char *buf, size_t len)
{
	if (j->file[0])
		snprintf(buf, len, "/fio/%s", j->file + (j->file[0] == '/'));
	else
		snprintf(buf, len, "/fio/%s.%u.%u", j->name, c, k);
}

/* ---- the events ---- */

struct fw {
	struct trace_writer *w;
	struct io_event ev[256];
	struct io_fext x[256];
	unsigned int n;
	uint64_t ordinal;
	struct synth_counts *c;
};

static int fw_flush(struct fw *fw)
{
	int err = fw->n ? trace_writer__add_fevents(fw->w, fw->ev, fw->x, fw->n) : 0;

	fw->n = 0;
	return err < 0 ? err : 0;
}

/* A call of stream s (its own process, pid 1000 + s). at_start: a descriptor open before it. */
static int fw_add(struct fw *fw, const struct synth_job *j, uint32_t s, uint8_t op, uint32_t file,
		  int32_t fd, uint64_t offset, uint32_t len, uint32_t aux, uint64_t arg,
		  uint32_t oflags, int64_t result, bool at_start)
{
	struct io_event *e = &fw->ev[fw->n];
	struct io_fext *x = &fw->x[fw->n];
	size_t nl = strlen(j->name);

	memset(e, 0, sizeof(*e));
	memset(x, 0, sizeof(*x));
	e->queue_ns = at_start ? 0 : ++fw->ordinal; /* closed loop: its place in the stream */
	e->issue_ns = IO_TS_NONE;
	/* a call that returned (an open without a return is one the recording cut short) */
	e->complete_ns = at_start ? IO_TS_NONE : e->queue_ns;
	e->offset = offset;
	e->length = len;
	e->pid = e->tid = 1000 + s;
	e->stream = s;
	e->op = op;
	memcpy(e->comm, j->name, nl < IO_COMM_LEN - 1 ? nl : IO_COMM_LEN - 1);
	x->file = file;
	x->fd = fd;
	x->oflags = oflags;
	x->aux = aux;
	x->arg = arg;
	x->result = result;
	x->iface = at_start ? IO_FIF_START : IO_FIF_SYSCALL;
	if (!at_start) {
		fw->c->events++;
		fw->c->fops[op]++;
		if (op == IO_FOP_READ || op == IO_FOP_WRITE) {
			fw->c->ops[op]++;
			fw->c->bytes[op] += len;
		}
	}
	return ++fw->n == 256 ? fw_flush(fw) : 0;
}

static uint32_t job_oflags(const struct synth_job *j)
{
	return X86_O_RDWR | (j->buffered ? 0 : X86_O_DIRECT) | (j->sync_writes ? X86_O_SYNC : 0);
}

/*
 * The calls a per-file job makes at most: number_ios counts fio's fake I/Os (a file's size in
 * blocks), and fio opens a file as its first one comes: the next file at the next I/O
 * (roundrobin, random), or once a file's blocks are done (sequential).
 */
static uint64_t per_file_cap(const struct synth_job *j)
{
	uint64_t per = j->fsize / synth_job_min_bs(j) ? j->fsize / synth_job_min_bs(j) : 1;

	if (!j->number_ios)
		return UINT64_MAX;
	return j->file_service == SYNTH_FSVC_SEQ ? (j->number_ios + per - 1) / per : j->number_ios;
}

/* The files of a job clone the trace names: all, or those a per-file job reaches. */
static uint32_t files_used(const struct synth_job *j)
{
	uint32_t n = j->nrfiles ? j->nrfiles : 1;

	return per_file_op(j) && per_file_cap(j) < n ? (uint32_t)per_file_cap(j) : n;
}

/* One call per file and loop: filecreate, filestat, filedelete, dircreate, dirstat, dirdelete */
static int per_file_stream(struct fw *fw, struct fset *fs, const struct synth_job *j, uint32_t c,
			   uint32_t s)
{
	uint32_t n = files_used(j), *ids = calloc(n, sizeof(*ids));
	uint64_t loops = j->time_based ? 1 : j->loops ? j->loops : 1, calls = 0;
	uint64_t cap = per_file_cap(j);
	char path[TRACE_FILE_PATH_MAX];
	bool dir = dir_op(j);
	int err = ids ? 0 : -ENOMEM;

	for (uint32_t k = 0; !err && k < n; k++) {
		bool made = j->fileop == SYNTH_FOP_FILECREATE || j->fileop == SYNTH_FOP_DIRCREATE;

		file_path(j, c, k, path, sizeof(path));
		/* what fio finds there: its files laid out, its directories made (0700) */
		err = file_id(fs, path, dir ? S_DIR | 0700 : S_REG | 0644,
			      made ? TRACE_FILE_NAME_ONLY : TRACE_FILE_OPENED, made ? 0 : j->fsize,
			      &ids[k]);
	}
	for (uint64_t l = 0; !err && l < loops; l++)
		for (uint32_t k = 0; !err && k < n && calls++ < cap; k++) {
			switch (j->fileop) {
			case SYNTH_FOP_FILECREATE:
				err = fw_add(fw, j, s, IO_FOP_OPEN, ids[k], -100, 0, 0, 0600, 0,
					     X86_O_CREAT | X86_O_RDWR, FIRST_FD, false);
				if (!err)
					err = fw_add(fw, j, s, IO_FOP_CLOSE, ids[k], FIRST_FD, 0, 0,
						     0, 0, X86_O_RDWR, 0, false);
				break;
			case SYNTH_FOP_FILESTAT:
			case SYNTH_FOP_DIRSTAT:
				err = fw_add(fw, j, s, IO_FOP_STAT, ids[k], -1, 0, 0, 0, 0, 0, 0,
					     false);
				break;
			case SYNTH_FOP_FILEDELETE:
				err = fw_add(fw, j, s, IO_FOP_UNLINK, ids[k], -1, 0, 0, 0, 0, 0, 0,
					     false);
				break;
			case SYNTH_FOP_DIRCREATE: /* fio_mkdir(name, S_IFDIR): no permission bit */
				err = fw_add(fw, j, s, IO_FOP_MKDIR, ids[k], -100, 0, 0, 0, 0, 0, 0,
					     false);
				break;
			case SYNTH_FOP_DIRDELETE:
				err = fw_add(fw, j, s, IO_FOP_RMDIR, ids[k], -100, 0, 0, 0x200, 0,
					     0, 0, false);
				break;
			}
		}
	free(ids);
	return err;
}

/* A block I/O of the job's generator as the call the job's engine makes on file id/fd. */
static int io_call(struct fw *fw, const struct synth_job *j, uint32_t s, const struct io_event *b,
		   uint32_t id, int32_t fd)
{
	uint32_t of = job_oflags(j);

	if (b->op == IO_OP_FLUSH)
		return fw_add(fw, j, s, j->fdatasync && !j->fsync ? IO_FOP_FDATASYNC : IO_FOP_FSYNC,
			      id, fd, 0, 0, 0, 0, of, 0, false);
	switch (j->fileop) {
	case SYNTH_FOP_FALLOC: /* fio's falloc: the direction picks the mode */
		return fw_add(fw, j, s, IO_FOP_FALLOCATE, id, fd, b->offset, 0,
			      b->op == IO_OP_READ    ? FALLOC_KEEP_SIZE
			      : b->op == IO_OP_WRITE ? 0
						     : FALLOC_PUNCH_HOLE | FALLOC_KEEP_SIZE,
			      b->length, of, 0, false);
	case SYNTH_FOP_FTRUNCATE:
		return fw_add(fw, j, s, IO_FOP_TRUNCATE, id, fd, b->offset, 0, 0, 0, of, 0, false);
	}
	switch (b->op) {
	case IO_OP_READ:
	case IO_OP_WRITE:
		/* sync=1: the file is opened O_SYNC (job_oflags), as fio opens it */
		return fw_add(fw, j, s, b->op, id, fd, b->offset, b->length, 0, 0, of, b->length,
			      false);
	case IO_OP_DISCARD: /* fio trims a file by punching a hole */
		return fw_add(fw, j, s, IO_FOP_FALLOCATE, id, fd, b->offset, 0,
			      FALLOC_PUNCH_HOLE | FALLOC_KEEP_SIZE, b->length, of, 0, false);
	case IO_OP_WRITE_ZEROES:
		return fw_add(fw, j, s, IO_FOP_FALLOCATE, id, fd, b->offset, 0,
			      FALLOC_ZERO_RANGE | FALLOC_KEEP_SIZE, b->length, of, 0, false);
	}
	return -EINVAL;
}

/*
 * Counts over files 0..n-1 that add, sum a prefix and find the k-th counted file in O(log n)
 * (a Fenwick tree, 1-based): next_file scanned every file for each batch, and a pass over
 * nrfiles=65536 of one block took 27 s under file_service_type=random (6.6 s roundrobin).
 */
struct fcount {
	uint32_t *t; /* t[i]: the count of files (i - lowbit(i), i - 1] */
	uint32_t n, total, top; /* top: the largest power of two <= n */
};

static int fcount_init(struct fcount *c, uint32_t n)
{
	c->t = calloc((size_t)n + 1, sizeof(*c->t));
	c->n = n;
	c->total = 0;
	for (c->top = 1; c->top <= n / 2; c->top *= 2)
		;
	return c->t ? 0 : -ENOMEM;
}

static void fcount_add(struct fcount *c, uint32_t k, int d)
{
	c->total += d;
	for (uint32_t i = k + 1; i <= c->n; i += i & -i)
		c->t[i] += d;
}

/* Counted files among 0..k. */
static uint32_t fcount_upto(const struct fcount *c, uint32_t k)
{
	uint32_t s = 0;

	for (uint32_t i = k + 1; i; i -= i & -i)
		s += c->t[i];
	return s;
}

/* The counted file with `rank` counted files before it (rank < total). */
static uint32_t fcount_find(const struct fcount *c, uint32_t rank)
{
	uint32_t pos = 0;

	for (uint32_t step = c->top; step; step /= 2)
		if (pos + step <= c->n && c->t[pos + step] <= rank) {
			pos += step;
			rank -= c->t[pos];
		}
	return pos;
}

/* The files of one job clone while its calls are written: which are done and which open. */
struct fstate {
	bool *done, *open;
	uint32_t n, nopen, limit; /* limit: openfiles (n: every file open before the clock) */
	struct fcount left, open_left; /* files not done; files open and not done */
};

/* fio may go on with file k: not done, and open or openable (fewer than openfiles open) */
static bool usable(const struct fstate *st, uint32_t k)
{
	return !st->done[k] && (st->open[k] || st->nopen < st->limit);
}

/* The usable files: those not done while fewer than openfiles are open, else the open ones. */
static const struct fcount *usable_set(const struct fstate *st)
{
	return st->nopen < st->limit ? &st->left : &st->open_left;
}

static void fstate_open(struct fstate *st, uint32_t k, bool open)
{
	if (st->open[k] == open)
		return;
	st->open[k] = open;
	st->nopen += open ? 1 : -1;
	if (!st->done[k])
		fcount_add(&st->open_left, k, open ? 1 : -1);
}

static void fstate_done(struct fstate *st, uint32_t k)
{
	if (st->done[k])
		return;
	st->done[k] = true;
	fcount_add(&st->left, k, -1);
	if (st->open[k])
		fcount_add(&st->open_left, k, -1);
}

/* Which file the next batch goes to, as fio's get_next_file: -1 when every file is done. With
 * openfiles below nrfiles fio picks among the files it has open or may open (checked against
 * fio 3.33: openfiles=1 does the files one after the other, whatever file_service_type). */
static int next_file(const struct synth_job *j, const struct fstate *st, int cur,
		     struct synth_rng *rng)
{
	const struct fcount *u = usable_set(st);
	uint32_t before;

	if (!u->total)
		return -1;
	/* the pick-th usable file in file order */
	if (j->file_service == SYNTH_FSVC_RANDOM)
		return (int)fcount_find(u, (uint32_t)rng_below(rng, u->total));
	if (j->file_service == SYNTH_FSVC_SEQ && cur >= 0 && usable(st, (uint32_t)cur))
		return cur;
	/* the first usable file after cur, else the first one (cur -1: the first file first) */
	before = cur >= 0 ? fcount_upto(u, (uint32_t)cur) : 0;
	return (int)fcount_find(u, before < u->total ? before : 0);
}

/* Reads, writes, fallocate, ftruncate over the job's files: one generator per file (its own
 * offsets and random map, as fio keeps per file), interleaved by file_service_type. */
static bool lazy_opens(const struct synth_job *j)
{
	return j->openfiles && j->openfiles < (j->nrfiles ? j->nrfiles : 1);
}

static int io_stream(struct fw *fw, struct fset *fs, const struct synth_job *j, uint32_t c,
		     uint32_t s, bool opens)
{
	uint32_t n = j->nrfiles ? j->nrfiles : 1, batch = j->fsvc_batch ? j->fsvc_batch : 1;
	struct jobgen **g = calloc(n, sizeof(*g));
	uint32_t *ids = calloc(n, sizeof(*ids)), of = job_oflags(j);
	struct fstate st = {.done = calloc(n, sizeof(bool)),
			    .open = calloc(n, sizeof(bool)),
			    .n = n,
			    .limit = lazy_opens(j) ? j->openfiles : n};
	/* over several files, number_ios and io_size count the job's I/Os and bytes over all of
	 * them (fio's): each file's generator walks its whole region, the job stops at either */
	struct synth_job *jf = n > 1 ? malloc(sizeof(*jf)) : NULL;
	uint64_t issued = 0, limit = n > 1 && j->number_ios ? j->number_ios : UINT64_MAX;
	uint64_t bytes = 0, blimit = UINT64_MAX;
	char path[TRACE_FILE_PATH_MAX];
	struct synth_rng rng;
	int err = g && ids && st.done && st.open && (n == 1 || jf) ? 0 : -ENOMEM, cur = -1;

	if (!err && (fcount_init(&st.left, n) || fcount_init(&st.open_left, n)))
		err = -ENOMEM;
	for (uint32_t k = 0; !err && k < n; k++)
		fcount_add(&st.left, k, 1);

	if (jf) {
		*jf = *j;
		jf->number_ios = jf->io_size = 0;
		if (j->io_size)
			blimit = j->io_size * (j->time_based ? 1 : j->loops ? j->loops : 1);
	}
	rng_seed(&rng, j->seed ^ (0x51ed2701ULL + s));
	for (uint32_t k = 0; !err && k < n; k++) {
		file_path(j, c, k, path, sizeof(path));
		err = file_id(fs, path, S_REG | 0644, TRACE_FILE_AT_START, j->fsize, &ids[k]);
		/* open before the clock, as fio opens a job's files before its I/O (all the
		 * streams' first: they are at time 0, the calls after); with openfiles below
		 * nrfiles the opens and closes are calls of the stream (below) */
		if (!err && opens && !lazy_opens(j))
			err = fw_add(fw, j, s, IO_FOP_OPEN, ids[k], FIRST_FD + (int32_t)k, 0, 0,
				     0644, 0, of, FIRST_FD + k, true);
	}
	if (opens)
		limit = 0;
	/* open before the clock (nopen stays 0: every file is usable until done) */
	if (!lazy_opens(j))
		for (uint32_t k = 0; !err && k < n; k++) {
			st.open[k] = true;
			fcount_add(&st.open_left, k, 1);
		}
	while (!err && issued < limit && bytes < blimit) {
		struct io_event b;
		double key;
		int more = 0;

		cur = next_file(j, &st, cur, &rng);
		if (cur < 0)
			break;
		/* every file its own numbers: stream s's cur-th generator, made when the file is
		 * first served and freed when it is done (made for all at once, nrfiles=1048576
		 * held 9 GiB of generators for a few hundred I/Os) */
		if (!g[cur] && !(g[cur] = jobgen_new(jf ? jf : j, s * SYNTH_MAX_FILES + cur, c,
						     false, 0, &err)))
			break;
		if (!st.open[cur]) { /* fio opens a file as it first comes to it */
			fstate_open(&st, cur, true);
			err = fw_add(fw, j, s, IO_FOP_OPEN, ids[cur], -100, 0, 0, 0644, 0, of,
				     FIRST_FD + cur, false);
		}
		for (uint32_t i = 0; !err && i < batch && issued < limit && bytes < blimit; i++) {
			more = jobgen_next(g[cur], &b, &key);
			if (more <= 0) {
				fstate_done(&st, cur);
				jobgen_free(g[cur]);
				g[cur] = NULL;
				err = more;
				break;
			}
			err = io_call(fw, j, s, &b, ids[cur], FIRST_FD + cur);
			issued += b.op != IO_OP_FLUSH;
			bytes += b.op != IO_OP_FLUSH ? b.length : 0;
		}
		/* and closes a finished one, making room for the next */
		if (!err && st.done[cur] && lazy_opens(j)) {
			fstate_open(&st, cur, false);
			err = fw_add(fw, j, s, IO_FOP_CLOSE, ids[cur], FIRST_FD + cur, 0, 0, 0, 0,
				     of, 0, false);
		}
	}
	/* the job's end closes what is still open */
	for (uint32_t k = 0; !err && !opens && lazy_opens(j) && k < n; k++)
		if (st.open[k])
			err = fw_add(fw, j, s, IO_FOP_CLOSE, ids[k], FIRST_FD + (int32_t)k, 0, 0, 0,
				     0, of, 0, false);
	for (uint32_t k = 0; g && k < n; k++)
		if (g[k])
			jobgen_free(g[k]);
	free(g);
	free(ids);
	free(st.done);
	free(st.open);
	free(st.left.t);
	free(st.open_left.t);
	free(jf);
	return err;
}

int synth_write_file_trace(const struct synth_spec *s, const char *path, const char *cmdline,
			   struct trace_meta *meta, struct synth_counts *counts, char *why,
			   size_t why_len)
{
	struct fw *fw = calloc(1, sizeof(*fw));
	struct fset fs = {0};
	uint32_t ns = 0;
	int err = fw ? 0 : -ENOMEM;

	memset(counts, 0, sizeof(*counts));
	trace_meta_init(meta, "synth");
	meta->genesis_realtime_ns = 0;
	snprintf(meta->options, sizeof(meta->options), "%s", cmdline);
	meta->level = TRACE_LEVEL_FILE;
	meta->mode = TRACE_MODE_CLOSED;
	for (unsigned int i = 0; !err && i < s->njobs; i++)
		for (uint32_t c = 0; c < s->jobs[i].numjobs; c++) {
			uint64_t base;

			if (ns == TRACE_MAX_STREAMS) {
				snprintf(why, why_len, "more than %d jobs in total (numjobs)",
					 TRACE_MAX_STREAMS);
				err = -EINVAL;
				break;
			}
			synth_stream_rec(&s->jobs[i], c, &meta->streams[ns++], &base);
		}
	meta->nstreams = ns;
	if (err)
		goto out;
	fw->c = counts;
	/* the calls first, in memory per stream; the file table must precede them in the file */
	fw->w = trace_writer__open(path, meta, &(struct trace_writer_opts){.replace = true});
	if (!fw->w) {
		err = -errno;
		snprintf(why, why_len, "cannot create %s: %s", path, outfile_strerror(errno));
		goto out;
	}
	/* the table: every file of every job, before any call names one */
	for (unsigned int i = 0, st = 0; !err && i < s->njobs; i++) {
		const struct synth_job *j = &s->jobs[i];

		for (uint32_t c = 0; !err && c < j->numjobs; c++, st++) {
			uint32_t n = files_used(j), id;
			char p[TRACE_FILE_PATH_MAX];

			for (uint32_t k = 0; !err && k < n; k++) {
				bool made = j->fileop == SYNTH_FOP_FILECREATE ||
					    j->fileop == SYNTH_FOP_DIRCREATE;

				file_path(j, c, k, p, sizeof(p));
				err =
				    file_id(&fs, p, dir_op(j) ? S_DIR | 0700 : S_REG | 0644,
					    made			      ? TRACE_FILE_NAME_ONLY
					    : per_file_op(j) || lazy_opens(j) ? TRACE_FILE_OPENED
									      : TRACE_FILE_AT_START,
					    made ? 0 : j->fsize, &id);
			}
		}
	}
	counts->files = fs.n;
	if (!err)
		err = trace_writer__add_files(fw->w, fs.tf, fs.n);
	for (unsigned int i = 0, st = 0; !err && i < s->njobs; i++)
		for (uint32_t c = 0; !err && c < s->jobs[i].numjobs; c++, st++)
			if (!per_file_op(&s->jobs[i]))
				err = io_stream(fw, &fs, &s->jobs[i], c, st, true);
	for (unsigned int i = 0, st = 0; !err && i < s->njobs; i++)
		for (uint32_t c = 0; !err && c < s->jobs[i].numjobs; c++, st++)
			err = per_file_op(&s->jobs[i])
				  ? per_file_stream(fw, &fs, &s->jobs[i], c, st)
				  : io_stream(fw, &fs, &s->jobs[i], c, st, false);
	if (!err)
		err = fw_flush(fw);
	if (!err && fs.n != counts->files)
		err = -EPROTO; /* a file the table did not list: cannot happen */
	if (err) {
		if (!why[0])
			snprintf(why, why_len, "writing %s failed: %s", path,
				 err == -EIO ? trace_writer__error(fw->w) : strerror(-err));
		trace_writer__abort(fw->w);
		goto out;
	}
	err = trace_writer__close(fw->w, &(struct trace_stats){.events = counts->events});
	if (err)
		snprintf(why, why_len, "closing %s failed: %s", path, strerror(-err));
out:
	fset_free(&fs);
	free(fw);
	return err;
}
