// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A file-level replay while its clock runs. run.c's run_issue() hands each released call here
 * first: reads, writes, fsync, fdatasync, sync_file_range and fallocate go on to the engine on
 * their open file's descriptor; calls on names and descriptors (open, close, dup, fcntl,
 * ftruncate, rename, unlink, syncfs; stat, mkdir, rmdir in file_ops.c) are made here, on the scheduling thread, when released,
 * and handed back by the next reap like any completion. They are short next to the syncs that
 * dominate a database's file I/O, and doing them in order on one thread keeps what the
 * engines see simple: a descriptor exists before any I/O on it is queued.
 *
 * A close releases the descriptor only once every call the trace made on it before the close
 * has completed: in dep mode another thread's read on it may not even be released yet, and
 * closing under an I/O (psync's workers) could let a new open reuse the number. The close
 * itself returns at once, as the kernel's does while an I/O still holds the file. A closed
 * loop that cycles may reopen the slot before that: the old descriptor is retired, closed when
 * the calls issued on it are done, and the new one counts its own (each call is tagged with the
 * slot's generation; before, the old close's count closed the new descriptor under its calls,
 * which failed with EBADF).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "analyze/analyze.h"
#include "replay/file/file_int.h"
#include "util/cli.h"

/* Flags F_SETFL can change (fs/fcntl.c SETFL_MASK), x86-64 values. */
#define X86_SETFL_MASK (02000 | 020000 | 040000 | 01000000 | 04000)

/* io->op of a call made on the scheduling thread, not by the engine (past enum engine_fop) */
#define OP_HERE ENGINE_OP__END

static bool uses_slot(uint8_t fop)
{
	return fop != IO_FOP_OPEN && fop != IO_FOP_CLOSE;
}

/* A call of an earlier generation of the slot completed: its descriptor closes with the last. */
static void retired_done(struct frun *f, uint32_t slot, uint32_t gen)
{
	for (uint32_t i = 0; i < f->nretired; i++) {
		struct fretired *t = &f->retired[i];

		if (t->slot != slot || t->gen != gen)
			continue;
		if (--t->left)
			return;
		close(t->fd);
		*t = f->retired[--f->nretired];
		return;
	}
}

/* A call on the slot, issued in generation gen, completed: the descriptor closes once the last
 * call before its close did. */
static void use_done(struct frun *f, uint32_t slot, uint32_t gen)
{
	struct fslot *s = &f->slots[slot];

	if (gen != s->gen) {
		retired_done(f, slot, gen);
		return;
	}
	if (++s->done_uses < s->close_at)
		return;
	if (f->tg[slot].fd >= 0)
		close(f->tg[slot].fd);
	f->tg[slot].fd = -1;
	s->close_at = UINT64_MAX;
}

static const struct fname *name_of(const struct frun *f, uint64_t n)
{
	return &f->names[(uint32_t)n];
}

/* The slot's next generation, on descriptor fd (-1: its open failed). The descriptor it held
 * closes now, or once the calls still in flight on it are done. */
static int slot_open(struct frun *f, uint32_t slot, int fd)
{
	struct fslot *s = &f->slots[slot];
	int old = f->tg[slot].fd;

	if (old >= 0 && s->issued > s->done_uses) {
		if (f->nretired == f->capretired) {
			uint32_t cap = f->capretired ? 2 * f->capretired : 8;
			struct fretired *n = realloc(f->retired, cap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			f->retired = n;
			f->capretired = cap;
		}
		f->retired[f->nretired++] = (struct fretired){ slot, s->gen, old,
								s->issued - s->done_uses };
	} else if (old >= 0) {
		close(old);
	}
	s->gen++;
	s->done_uses = s->issued = 0;
	s->close_at = UINT64_MAX;
	f->tg[slot].fd = fd;
	return 0;
}

static int do_open(struct run *r, struct replay_io *io)
{
	struct frun *f = frun_of(r);
	int fl = file_open_flags(r, io->aux), fd, ret;

	fd = froot_open_name(f, (uint32_t)io->arg, fl, io->len & 07777);
	if (fd == -EINVAL && (fl & O_DIRECT)) {
		f->res->direct_refused++;
		fd = froot_open_name(f, (uint32_t)io->arg, fl & ~O_DIRECT, io->len & 07777);
	}
	ret = slot_open(f, io->dev, fd >= 0 ? fd : -1);
	if (ret) {
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if (fd < 0)
		return fd;
	f->slots[io->dev].oflags = io->aux;
	return fd;
}

static int do_close(struct frun *f, const struct replay_io *io)
{
	struct fslot *s = &f->slots[io->dev];

	s->close_at = io->arg; /* the calls on it since its open */
	/* uses done already: close now (use_done's check, without counting a use) */
	if (s->done_uses >= s->close_at) {
		s->done_uses--;
		use_done(f, io->dev, s->gen);
	}
	return 0;
}

/* A call on a name (io->dev FSLOT_NONE): on the scheduling thread, or on the engine's thread
 * of the recorded one (ENGINE_OP_NAME, file_name_call). Reads only what setup made (the
 * names' directory descriptors), so threads may make such calls at once. */
static int do_by_name(struct frun *f, const struct replay_io *io)
{
	const struct fname *a = name_of(f, io->arg), *b = name_of(f, io->arg >> 32);
	int fd, ret = 0;

	switch (io->fop) {
	case IO_FOP_RENAME:
		return renameat2(a->dirfd, a->base, b->dirfd, b->base,
				 io->aux & (RENAME_NOREPLACE | RENAME_EXCHANGE))
			       ? -errno
			       : 0;
	case IO_FOP_UNLINK:
		return unlinkat(a->dirfd, a->base, 0) ? -errno : 0;
	case IO_FOP_TRUNCATE:
		fd = froot_open_name(f, (uint32_t)io->arg, O_WRONLY, 0);
		if (fd < 0)
			return fd;
		if (ftruncate(fd, (off_t)io->offset))
			ret = -errno;
		close(fd);
		return ret;
	}
	if (fops_by_name_op(io->fop))
		return fops_by_name(f, io);
	return -EINVAL;
}

int file_name_call(void *frun, const struct replay_io *io)
{
	return do_by_name(frun, io);
}

/* The call io stands for, made now on the scheduling thread: its result or -errno. */
static int make_call(struct run *r, struct replay_io *io)
{
	struct frun *f = frun_of(r);
	int fd = io->dev != FSLOT_NONE ? f->tg[io->dev].fd : -1, nfd;

	if (io->dev == FSLOT_NONE)
		return do_by_name(f, io);
	if (io->fop == IO_FOP_OPEN)
		return do_open(r, io);
	if (io->fop == IO_FOP_CLOSE)
		return do_close(f, io);
	if (fd < 0) {
		f->res->not_open++;
		return -EBADF;
	}
	switch (io->fop) {
	case IO_FOP_DUP:
		nfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (nfd < 0)
			return -errno;
		if (slot_open(f, (uint32_t)io->arg, nfd)) {
			close(nfd);
			return -ENOMEM;
		}
		f->slots[io->arg].oflags = f->slots[io->dev].oflags;
		return nfd;
	case IO_FOP_SETFL: {
		int fl = file_open_flags(r, io->aux & X86_SETFL_MASK);

		if (fcntl(fd, F_SETFL, fl) && !((fl & O_DIRECT) && errno == EINVAL &&
						 !fcntl(fd, F_SETFL, fl & ~O_DIRECT)))
			return -errno;
		f->slots[io->dev].oflags = (f->slots[io->dev].oflags & ~(uint32_t)X86_SETFL_MASK) |
					   (io->aux & X86_SETFL_MASK);
		return 0;
	}
	case IO_FOP_TRUNCATE:
		return ftruncate(fd, (off_t)io->offset) ? -errno : 0;
	case IO_FOP_SYNCFS:
		return syncfs(fd) ? -errno : 0;
	}
	return -EINVAL;
}

/* The engine's op for a recorded call, or OP_HERE for one made on this thread. */
static uint8_t engine_op(uint8_t fop)
{
	switch (fop) {
	case IO_FOP_READ:
	case IO_FOP_WRITE:
		return fop; /* the same values as IO_OP_READ, IO_OP_WRITE */
	case IO_FOP_FDATASYNC:
		return IO_OP_FLUSH;
	case IO_FOP_FSYNC:
		return ENGINE_OP_FSYNC;
	case IO_FOP_SYNC_RANGE:
		return ENGINE_OP_SYNC_RANGE;
	case IO_FOP_FALLOCATE:
		return ENGINE_OP_FALLOCATE;
	default:
		return OP_HERE; /* made here */
	}
}

/*
 * A call on a name goes to an engine that takes them (threads): made by the thread of its
 * recorded thread, beside the others' calls. Only where what follows it on that name waits for
 * its completion: closed mode (a stream's calls one after another, each stream its own names)
 * and dep mode (inference orders the calls on a name across threads). In the clocked modes an
 * open of the name, made here, could overtake an unlink still queued behind a slow call of
 * its thread: there they are made here, in the order released.
 */
static bool names_to_engine(const struct run *r)
{
	return r->eng->takes_names && !r->eng->moves_no_data &&
	       (r->mode == REPLAY_CLOSED || r->mode == REPLAY_DEP);
}

bool file_to_engine(const struct run *r, const struct sev *s)
{
	const struct frun *f = frun_of(r);

	if (s->dev == FSLOT_NONE)
		return names_to_engine(r);
	return engine_op(s->op) != OP_HERE && (r->eng->moves_no_data || f->tg[s->dev].fd >= 0);
}

int file_issue(struct run *r, struct replay_io *io)
{
	struct frun *f = frun_of(r);
	uint64_t t0;

	io->flags = 0;
	io->op = engine_op(io->fop);
	if (io->dev == FSLOT_NONE && names_to_engine(r)) { /* reads, writes: one test */
		io->op = ENGINE_OP_NAME;
		return 0; /* to the engine */
	}
	if (io->dev != FSLOT_NONE) {
		io->fgen = f->slots[io->dev].gen;
		if (uses_slot(io->fop) && io->arg != DEP_ADDED_CALL)
			f->slots[io->dev].issued++;
	}
	if (io->op != OP_HERE && (r->eng->moves_no_data || f->tg[io->dev].fd >= 0))
		return 0; /* to the engine */
	/* made here, timed as psync times a call: clat is the whole call */
	t0 = now_mono_ns();
	io->submit_ns = io->issued_ns = t0 - r->start_mono;
	if (io->op != OP_HERE) {
		f->res->not_open++;
		io->res = -EBADF;
	} else {
		io->res = r->eng->moves_no_data ? 0 : make_call(r, io);
	}
	io->complete_ns = now_mono_ns();
	if (!r->first_submit_set) {
		r->first_submit = io->submit_ns;
		r->first_submit_set = true;
	}
	r->last_submit = io->submit_ns;
	f->done[f->ndone++] = io;
	return 1;
}

int file_reap(struct run *r, struct replay_io **done, unsigned int max)
{
	struct frun *f = frun_of(r);
	unsigned int n = f->ndone < max ? f->ndone : max;

	if (!n)
		return 0;
	memcpy(done, f->done, n * sizeof(*done));
	memmove(f->done, f->done + n, (f->ndone - n) * sizeof(*done));
	f->ndone -= n;
	return (int)n;
}

/* On the scheduling thread, for each completed call: the result event's file-level half. */
void file_complete(struct run *r, struct replay_io *io, struct done_ev *dv)
{
	struct done_fev *d = (struct done_fev *)dv;
	struct frun *f = frun_of(r);
	struct io_event *ev = &d->d.ev;
	struct io_fext *x = &d->x;
	bool by_name = io->dev == FSLOT_NONE;
	bool rw = io->fop == IO_FOP_READ || io->fop == IO_FOP_WRITE;

	memset(x, 0, sizeof(*x));
	ev->op = io->fop;
	ev->flags = 0;
	ev->length = rw ? io->len : 0;
	if (!rw && io->fop != IO_FOP_SYNC_RANGE && io->fop != IO_FOP_FALLOCATE &&
	    io->fop != IO_FOP_TRUNCATE)
		ev->offset = 0;
	x->file = by_name ? io->len : f->info[io->dev].file;
	x->fd = by_name ? -1 : f->info[io->dev].fd;
	x->oflags = by_name ? 0 : io->fop == IO_FOP_OPEN ? io->aux : f->slots[io->dev].oflags;
	x->aux = io->fop == IO_FOP_OPEN ? io->len : io->aux;
	x->result = io->res;
	x->arg = io->fop == IO_FOP_SYNC_RANGE || io->fop == IO_FOP_FALLOCATE ? io->arg : 0;
	/* r->eng is final by now (run.h): threads chosen for --cpu-wait make system calls */
	x->iface = io->op == OP_HERE ? IO_FIF_SYSCALL : r->eng->file_iface;
	if (io->fop == IO_FOP_READ && io->res >= 0 && (uint64_t)io->res < io->arg)
		f->res->short_reads++;
	/* a dup's is the descriptor it copied; a call dep mode added was never counted */
	if (!by_name && uses_slot(io->fop) && io->arg != DEP_ADDED_CALL)
		use_done(f, io->dev, io->fgen);
}

/* A call dep mode took out (a coalesced sync): a use of its descriptor all the same, so a
 * close waiting for the calls before it still comes. */
void file_skip(struct run *r, const struct sev *s)
{
	struct frun *f = frun_of(r);

	if (s->dev != FSLOT_NONE && uses_slot(s->op)) {
		f->slots[s->dev].issued++;
		use_done(f, s->dev, f->slots[s->dev].gen);
	}
}

/* On the helper thread: the result trace, the analysis, the figures per call. */
/* The first call that failed on the target, by its op and file, for the message that says
 * so (the file's name at its first sight: a later rename is not followed) */
static void first_failure(struct frun *f, const struct io_event *ev, const struct io_fext *x)
{
	f->res->first_fail_op = ev->op;
	if (x->file && x->file < f->nfiles)
		snprintf(f->res->first_fail_rel, sizeof(f->res->first_fail_rel), "%s",
			 f->names[f->files[x->file].name].rel);
}

void file_out(struct run *r, const struct done_ev *dv)
{
	const struct done_fev *d = (const struct done_fev *)dv;
	struct replay_file_result *res = frun_of(r)->res;
	const struct io_event *ev = &d->d.ev;
	struct io_event b;

	if (r->w && !r->werr && trace_writer__add_fevents(r->w, ev, &d->x, 1) < 0) {
		r->werr = -EIO;
		snprintf(r->herr, sizeof(r->herr), "writing the result trace %s: %s", r->o->output,
			 trace_writer__error(r->w));
	}
	res->replayed[ev->op]++;
	res->failed[ev->op] += ev->error != 0;
	if (ev->error && !r->res->errors) /* the first failure (out_event counts it next) */
		first_failure(frun_of(r), ev, &d->x);
	if (ev->complete_ns >= ev->queue_ns)
		hist_add(&res->lat[ev->op], ev->complete_ns - ev->queue_ns);
	/* the summary's read/write/flush figures, as of a device */
	if (!r->an || ev->op > IO_FOP_SYNC_RANGE)
		return;
	b = *ev;
	b.op = ev->op <= IO_FOP_WRITE ? ev->op : IO_OP_FLUSH;
	b.dev = 0;
	analysis__add(r->an, &b, 1);
}
