// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Between the rings of bpf/file.bpf.c and the trace writer. A call arrives when it returns, but
 * the trace is ordered by when calls began: each waits in a min-heap keyed by its start and is
 * written once no call that began earlier can still arrive (record/file_record.c passes the
 * start of the oldest call in progress, never older than FL_HOLD_NS: a call that runs longer is
 * written when it returns, counted out of order). Its file is looked up or added to the table
 * then, in start order, so a file is first seen at its open; path arguments are joined to the
 * caller's cwd or dirfd as soon as they arrive, while /proc still shows them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/heap.h"
#include "record/file_int.h"

_Static_assert((int)FL_OP_READ == IO_FOP_READ && (int)FL_OP_OPEN == IO_FOP_OPEN &&
		   (int)FL_OP_SETFL == IO_FOP_SETFL && (int)FL_OP_EXIT == IO_FOP_EXIT &&
		   (int)FL_OP__TRACE == IO_FOP__COUNT,
	       "bpf/file.h ops must match formats/file.h");
_Static_assert((int)FL_IF_AIO == IO_FIF_AIO && (int)FL_IF_URING == IO_FIF_URING &&
		   (int)FL_IF_START == IO_FIF_START,
	       "bpf/file.h interfaces must match formats/file.h");
_Static_assert((int)FL_F_FPOS == IO_FF_FPOS && (int)FL_F_VECTOR == IO_FF_VECTOR &&
		   (int)FL_F_FIXED == IO_FF_FIXED && (int)FL_F_LEN_GUESS == IO_FF_LEN_GUESS,
	       "bpf/file.h flags must match formats/file.h");

#define OUT_BATCH 1024
#define NAME_BUCKETS 4096
#define NAME_KEEP_NS (60ULL * 1000000000ULL) /* a path whose call never came is forgotten */
#define OPENED_MAX 4096

/* One event as the trace holds it. */
struct fev {
	struct io_event ev;
	struct io_fext x;
};

/* A path argument waiting for its call: (tid, enter_ns, which), joined to its cwd/dirfd. */
struct pname {
	struct pname *next;
	uint64_t enter_ns;
	uint32_t tid, origin;
	uint16_t which;
	char path[]; /* "" when it could not be read or joined */
};

struct fl_drain {
	struct trace_writer *w;
	struct fl_files *t;
	uint64_t genesis, newest;
	void (*names_fn)(void *);
	void *names_ctx;
	struct fl_event *heap; /* calls as the kernel gave them, keyed by enter_ns */
	size_t n, cap;
	struct io_event out_ev[OUT_BATCH];
	struct io_fext out_x[OUT_BATCH];
	size_t nout;
	uint64_t last_queue;
	struct pname *names[NAME_BUCKETS];
	size_t nnames;
	/* descriptors opened by calls seen before the start snapshot was read: not twice */
	struct {
		uint32_t pid;
		int32_t fd;
		uint64_t ino;
	} opened[OPENED_MAX];
	size_t nopened;
	bool snapshot_done;
	int err;
	struct fl_drain_stats st;
};

struct fl_drain *fl_drain__new(struct trace_writer *w, struct fl_files *t, uint64_t genesis,
			       void (*names_fn)(void *), void *names_ctx)
{
	struct fl_drain *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->w = w;
	d->t = t;
	d->genesis = genesis;
	d->names_fn = names_fn;
	d->names_ctx = names_ctx;
	d->cap = 1 << 14;
	d->heap = malloc(d->cap * sizeof(*d->heap));
	if (!d->heap) {
		free(d);
		return NULL;
	}
	return d;
}

void fl_drain__free(struct fl_drain *d)
{
	if (!d)
		return;
	for (size_t b = 0; b < NAME_BUCKETS; b++)
		while (d->names[b]) {
			struct pname *p = d->names[b];

			d->names[b] = p->next;
			free(p);
		}
	free(d->heap);
	free(d);
}

void fl_drain__stats(const struct fl_drain *d, struct fl_drain_stats *s)
{
	*s = d->st;
	s->pending = d->n;
}

static size_t name_bucket(uint32_t tid, uint64_t enter_ns)
{
	return (size_t)((enter_ns * 0x9E3779B97F4A7C15ull) ^ tid) % NAME_BUCKETS;
}

/* Forgets paths whose call never came: the kernel skips calls on directories, sockets... */
static void prune_names(struct fl_drain *d)
{
	if (d->newest < NAME_KEEP_NS)
		return;
	for (size_t b = 0; b < NAME_BUCKETS; b++) {
		struct pname **pp = &d->names[b];

		while (*pp) {
			struct pname *p = *pp;

			if (p->enter_ns < d->newest - NAME_KEEP_NS) {
				*pp = p->next;
				free(p);
				d->nnames--;
			} else {
				pp = &p->next;
			}
		}
	}
}

int fl_drain__name(void *ctx, void *data, size_t size)
{
	struct fl_drain *d = ctx;
	const struct fl_name *n = data;
	char path[4096] = "";
	uint32_t origin = 0;
	struct pname *p;
	size_t b, len;

	if (size < FL_NAME_HDR)
		return 0;
	if (n->len && n->len <= size - FL_NAME_HDR && n->path[n->len - 1] == '\0') {
		struct fl_join j = {.path = n->path,
				    .tid = n->tid,
				    .dirfd = n->dirfd,
				    .dir_dev = n->dir_dev,
				    .dir_ino = n->dir_ino};

		if (fl_files__join(d->t, &j, path, sizeof(path), &origin))
			path[0] = '\0';
	}
	len = strlen(path);
	p = malloc(sizeof(*p) + len + 1);
	if (!p)
		return 0;
	p->enter_ns = n->enter_ns;
	p->tid = n->tid;
	p->which = n->which;
	p->origin = origin;
	memcpy(p->path, path, len + 1);
	b = name_bucket(n->tid, n->enter_ns);
	p->next = d->names[b];
	d->names[b] = p;
	if (n->enter_ns > d->newest)
		d->newest = n->enter_ns;
	if (++d->nnames % 4096 == 0)
		prune_names(d);
	return 0;
}

/* The path argument `which` of call e, absolute, or NULL (then counted). Caller frees. */
static struct pname *take_name(struct fl_drain *d, const struct fl_event *e, uint16_t which)
{
	for (int pass = 0; pass < 2; pass++) {
		struct pname **pp = &d->names[name_bucket(e->tid, e->enter_ns)];

		for (; *pp; pp = &(*pp)->next) {
			struct pname *p = *pp;

			if (p->tid == e->tid && p->enter_ns == e->enter_ns && p->which == which) {
				*pp = p->next;
				d->nnames--;
				if (p->path[0])
					return p;
				free(p);
				d->st.names_missing++;
				return NULL;
			}
		}
		/* Its record is published before the call's: still in the ring buffer. */
		if (!pass && d->names_fn)
			d->names_fn(d->names_ctx);
	}
	d->st.names_missing++;
	return NULL;
}

#define FL_START(e) ((e).enter_ns)
HEAP_DEFINE(flheap, struct fl_event, FL_START)

static void heap_push(struct fl_drain *d, const struct fl_event *e)
{
	if (d->n == d->cap) {
		struct fl_event *h = realloc(d->heap, 2 * d->cap * sizeof(*h));

		if (!h) {
			d->err = -ENOMEM;
			return;
		}
		d->heap = h;
		d->cap *= 2;
	}
	flheap_push(d->heap, &d->n, e);
}

static uint64_t rel(const struct fl_drain *d, uint64_t ktime)
{
	return ktime > d->genesis ? ktime - d->genesis : 0;
}

/* Open flags in the trace's encoding (asm-generic, as x86-64): four bits differ on arm. */
static uint32_t oflags_generic(uint32_t f)
{
#if defined(__aarch64__) || defined(__arm__)
	uint32_t out = f & ~(040000u | 0100000u | 0200000u | 0400000u);

	out |= (f & 040000u) ? 0200000u : 0;  /* O_DIRECTORY */
	out |= (f & 0100000u) ? 0400000u : 0; /* O_NOFOLLOW */
	out |= (f & 0200000u) ? 040000u : 0;  /* O_DIRECT */
	out |= (f & 0400000u) ? 0100000u : 0; /* O_LARGEFILE */
	return out;
#else
	return f;
#endif
}

/* Fills the trace's halves of e on file id (0: none); arg is op-specific (FORMAT.md). */
static void translate(const struct fl_drain *d, const struct fl_event *e, uint32_t file,
		      uint64_t arg, struct fev *f)
{
	struct io_event *o = &f->ev;
	struct io_fext *x = &f->x;
	bool rw = e->op == FL_OP_READ || e->op == FL_OP_WRITE;

	memset(f, 0, sizeof(*f));
	o->queue_ns = e->iface == FL_IF_START ? 0 : rel(d, e->enter_ns);
	o->issue_ns = IO_TS_NONE;
	o->complete_ns = e->exit_ns ? rel(d, e->exit_ns) : IO_TS_NONE;
	switch (e->op) {
	case FL_OP_READ:
	case FL_OP_WRITE:
	case FL_OP_SYNC_RANGE:
	case FL_OP_FALLOCATE:
	case FL_OP_TRUNCATE:
	case FL_OP_MMAP:
		o->offset = e->offset;
		break;
	}
	o->length = rw ? (uint32_t)(e->len > UINT32_MAX ? UINT32_MAX : e->len) : 0;
	o->pid = e->pid;
	o->tid = e->tid;
	o->error = e->result < 0 && e->result >= INT32_MIN ? (int32_t)e->result : 0;
	o->cpu = e->cpu;
	/* unlinkat(AT_REMOVEDIR) removes a directory: the trace's rmdir (FORMAT.md) */
	o->op = e->op == FL_OP_UNLINK && (e->aux & 0x200) ? IO_FOP_RMDIR : e->op;
	o->flags = e->flags & IO_FF__ALL;
	memcpy(o->comm, e->comm, IO_COMM_LEN);
	o->comm[IO_COMM_LEN - 1] = '\0';
	o->oncpu_ns = e->oncpu;
	o->cpuwait_ns = (uint32_t)e->cpuwait;
	x->file = file;
	x->fd = e->fd;
	x->oflags = oflags_generic(e->fflags);
	x->aux = e->aux;
	x->result = e->result;
	x->iface = e->iface;
	x->arg = arg;
}

/* The op-specific 64-bit argument the trace keeps (FORMAT.md, section 5). */
static uint64_t arg_of(const struct fl_event *e)
{
	switch (e->op) {
	case FL_OP_READ:
	case FL_OP_WRITE:
		return (e->flags & FL_F_VECTOR) ? e->arg : 0;
	case FL_OP_SYNC_RANGE:
	case FL_OP_FALLOCATE:
	case FL_OP_MMAP:
		return e->len;
	case FL_OP_FORK:
	case FL_OP_OPEN:
		return e->arg;
	default:
		return 0;
	}
}

static void note_opened(struct fl_drain *d, const struct fl_event *e)
{
	if (d->snapshot_done || d->nopened == OPENED_MAX)
		return;
	d->opened[d->nopened].pid = e->pid;
	d->opened[d->nopened].fd = (int32_t)e->result;
	d->opened[d->nopened++].ino = e->ino;
}

/*
 * What a path-only call (unlink, rename, truncate by path) is about: the file known at that
 * path, else a name-only entry. A call that failed makes no entry for a name never seen (an
 * unlink of a file that was not there, as fio does before laying files out): it stays a call
 * without a file, outside --under if its path is.
 */
static struct fl_file *path_file(struct fl_drain *d, const struct fl_event *e, uint16_t which,
				 bool *outside)
{
	struct pname *p = take_name(d, e, which);
	struct fl_file *f = NULL;

	*outside = false;
	if (!p)
		return NULL;
	/* a stat, mkdir or rmdir of the --under directory itself (fio's of its directory) is
	 * not a call on a file under it: a name for it would make the replay's root its parent */
	if ((e->op == FL_OP_STAT || e->op == FL_OP_MKDIR || e->op == FL_OP_RMDIR) &&
	    fl_files__is_under_dir(d->t, p->path)) {
		*outside = true;
		free(p);
		return NULL;
	}
	if (e->result < 0 && !fl_files__known_path(d->t, p->path)) {
		*outside = !fl_files__wants_path(d->t, p->path);
	} else {
		f = fl_files__by_path(d->t, p->path, rel(d, e->enter_ns));
		if (!f)
			d->err = -ENOMEM;
		*outside = f && f->outside;
	}
	free(p);
	return f;
}

/*
 * The file a call is about and its trace form, in start order (release time): so a file is
 * first seen at its open even when a read on another CPU came out of the rings first. False for
 * a call not written (outside --under).
 */
static bool resolve(struct fl_drain *d, const struct fl_event *e, struct fev *fv)
{
	struct fl_file *f = NULL, *to = NULL;
	struct pname *p;
	bool outside = false, out2 = false;
	uint64_t arg = arg_of(e);

	switch (e->op) {
	case FL_OP_FORK:
	case FL_OP_EXIT:
		break;
	case FL_OP_OPEN:
		/* open at start: its entry and path came from the snapshot */
		p = e->iface == FL_IF_START ? NULL : take_name(d, e, 0);
		if (e->result >= 0 && e->ino) {
			f = fl_files__ident(d->t, e, p ? p->path : NULL, p ? p->origin : 0,
					    rel(d, e->enter_ns), e->iface == FL_IF_START);
		} else if (p) {
			/* a failed open: no file, but --under still decides by its path */
			outside = !fl_files__wants_path(d->t, p->path);
		}
		free(p);
		if (e->result >= 0 && e->ino && !f)
			d->err = -ENOMEM;
		break;
	case FL_OP_RENAME:
		f = path_file(d, e, 0, &outside);
		to = path_file(d, e, 1, &out2);
		if (to)
			arg = to->id;
		if (f && to && e->result == 0 && to->path)
			fl_files__moved(d->t, f, to->path);
		outside = outside && (out2 || !to);
		break;
	case FL_OP_UNLINK:
	case FL_OP_RMDIR:
		f = path_file(d, e, 0, &outside);
		if (f && e->result == 0)
			fl_files__unlinked(d->t, f);
		break;
	case FL_OP_STAT:
	case FL_OP_MKDIR:
		f = path_file(d, e, 0, &outside);
		break;
	case FL_OP_TRUNCATE:
		if (!e->ino) {
			f = path_file(d, e, 0, &outside);
			break;
		}
		/* ftruncate has a descriptor */
		__attribute__((fallthrough));
	default:
		if (e->ino) {
			f = fl_files__ident(d->t, e, NULL, 0, rel(d, e->enter_ns), false);
			if (!f)
				d->err = -ENOMEM;
		}
	}
	if (f && f->outside)
		outside = true;
	if (outside) {
		d->st.outside++;
		return false;
	}
	translate(d, e, f ? f->id : 0, arg, fv);
	if (!e->exit_ns && e->iface != FL_IF_START)
		d->st.unfinished++;
	return true;
}

int fl_drain__push(void *ctx, const void *ev)
{
	struct fl_drain *d = ctx;
	const struct fl_event *e = ev;

	if (e->op >= FL_OP__TRACE)
		return 0;
	if (e->op == FL_OP_OPEN && e->result >= 0 && e->ino)
		note_opened(d, e);
	heap_push(d, e);
	return 0;
}

void fl_drain__unfinished(struct fl_drain *d, const struct fl_event *e)
{
	struct fl_event u = *e;

	u.exit_ns = 0;
	fl_drain__push(d, &u);
}

void fl_drain__start(struct fl_drain *d, const struct fl_snap *s, const char *path)
{
	struct fl_event e = {
	    .enter_ns = d->genesis,
	    .ino = s->ino,
	    .size = s->size,
	    .blocks = s->blocks,
	    .dev = s->dev,
	    .gen = s->gen,
	    .fflags = s->fflags,
	    .pid = s->pid,
	    .tid = s->pid,
	    .fd = s->fd,
	    .mode = s->mode,
	    .op = FL_OP_OPEN,
	    .iface = FL_IF_START,
	    .result = s->fd,
	    .arg = s->pos,
	};

	for (size_t i = 0; i < d->nopened; i++)
		if (d->opened[i].pid == s->pid && d->opened[i].fd == s->fd &&
		    d->opened[i].ino == s->ino)
			return; /* opened after the start: its open is in the trace */
	memcpy(e.comm, s->comm, sizeof(e.comm));
	fl_files__learn_cwd(d->t, s->pid); /* where its relative paths will start */
	/* the entry now, with the iterator's path; the event goes in order with the others */
	if (!fl_files__ident(d->t, &e, path && path[0] == '/' ? path : NULL, 0, 0, true)) {
		d->err = -ENOMEM;
		return;
	}
	heap_push(d, &e);
}

void fl_drain__snapshot_done(struct fl_drain *d)
{
	d->snapshot_done = true;
}

static int flush_out(struct fl_drain *d)
{
	int err;

	if (!d->nout)
		return 0;
	err = trace_writer__add_fevents(d->w, d->out_ev, d->out_x, d->nout);
	d->nout = 0;
	if (err < 0 && !d->err)
		d->err = err;
	return d->err;
}

int fl_drain__release(struct fl_drain *d, uint64_t before)
{
	struct fl_event e;
	struct fev f;

	while (!d->err && d->n && d->heap[0].enter_ns < before) {
		flheap_pop(d->heap, &d->n, &e);
		if (!resolve(d, &e, &f))
			continue;
		if (f.ev.queue_ns < d->last_queue)
			d->st.out_of_order++;
		else
			d->last_queue = f.ev.queue_ns;
		d->out_ev[d->nout] = f.ev;
		d->out_x[d->nout++] = f.x;
		d->st.events++;
		if (f.ev.op == IO_FOP_READ || f.ev.op == IO_FOP_WRITE)
			d->st.bytes_io += f.x.result > 0 ? (uint64_t)f.x.result : 0;
		if (d->nout == OUT_BATCH && flush_out(d))
			break;
	}
	if (!d->err)
		flush_out(d);
	return d->err;
}
