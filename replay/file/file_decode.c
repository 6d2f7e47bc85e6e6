// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A file-level trace's events turned into the calls a replay makes (struct fcall), following
 * the recorded processes' descriptor tables: an open makes a slot (an open file of the replay),
 * a read names it by (pid, fd), fork shares a process's descriptors with its child (one slot,
 * counted twice, as one open file description), close and exit drop them and the last one
 * closes the slot. Run twice over the trace: the prescan numbers the slots, decides which
 * files exist before the clock and counts what cannot be replayed; the run numbers the slots
 * the same way, so a call's slot is known when it is decoded, long before it is released.
 *
 * For dep mode each call also names the calls of other threads it must follow (its own
 * thread's are ordered by inference's stream edges): the open of the descriptor it uses, and
 * the last call on each name it uses (open, rename, unlink, truncate by name), so that an open
 * of a name another thread renamed into place comes after that rename, as in the recording.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "replay/file/file_int.h"

#define X86_O_CREAT 0100
#define X86_O_TRUNC 01000
#define X86_O_TMPFILE 020000000
#define NO_SEQ UINT64_MAX

/* ---- the recorded descriptor tables: (pid, fd) -> slot, open addressing ---- */

static uint32_t fd_hash(uint32_t pid, int32_t fd, uint32_t cap)
{
	uint64_t k = ((uint64_t)pid << 32 | (uint32_t)fd) * 0x9E3779B97F4A7C15ULL;

	return (uint32_t)(k >> 40) & (cap - 1);
}

static struct fdent *fd_find(const struct fdec *d, uint32_t pid, int32_t fd)
{
	uint32_t i = fd_hash(pid, fd, d->cap);

	for (; d->tab[i].state; i = (i + 1) & (d->cap - 1))
		if (d->tab[i].state == 1 && d->tab[i].pid == pid && d->tab[i].fd == fd)
			return &d->tab[i];
	return NULL;
}

static int fd_put(struct fdec *d, uint32_t pid, int32_t fd, uint32_t slot)
{
	uint32_t i;

	if ((d->used + d->deleted + 1) * 2 > d->cap) {
		uint32_t cap = d->used * 4 > d->cap ? d->cap * 2 : d->cap;
		struct fdent *old = d->tab, *t = calloc(cap, sizeof(*t));

		if (!t)
			return -ENOMEM;
		d->tab = t;
		for (uint32_t j = 0; j < d->cap; j++) {
			if (old[j].state != 1)
				continue;
			i = fd_hash(old[j].pid, old[j].fd, cap);
			while (t[i].state)
				i = (i + 1) & (cap - 1);
			t[i] = old[j];
		}
		free(old);
		d->cap = cap;
		d->deleted = 0;
	}
	i = fd_hash(pid, fd, d->cap);
	while (d->tab[i].state == 1)
		i = (i + 1) & (d->cap - 1);
	if (d->tab[i].state == 2)
		d->deleted--;
	d->tab[i] = (struct fdent){ .pid = pid, .fd = fd, .slot = slot, .state = 1 };
	d->used++;
	return 0;
}

static void fd_del(struct fdec *d, struct fdent *e)
{
	e->state = 2;
	d->used--;
	d->deleted++;
}

/* ---- set-up ---- */

int fdec_init(struct fdec *d, struct frun *f, bool first_pass)
{
	memset(d, 0, sizeof(*d));
	d->f = f;
	d->first_pass = first_pass;
	d->cap = 1024;
	d->tab = calloc(d->cap, sizeof(*d->tab));
	d->name_seq = malloc(((size_t)f->nnames + 1) * sizeof(*d->name_seq));
	d->name_tid = calloc((size_t)f->nnames + 1, sizeof(*d->name_tid));
	d->name_rd_seq = malloc(((size_t)f->nnames + 1) * sizeof(*d->name_rd_seq));
	d->name_rd_tid = calloc((size_t)f->nnames + 1, sizeof(*d->name_rd_tid));
	d->name_file = calloc((size_t)f->nnames + 1, sizeof(*d->name_file));
	d->cur_name = calloc((size_t)f->nfiles + 1, sizeof(*d->cur_name));
	d->capslots = first_pass ? 1024 : f->nslots + 1;
	d->sl = calloc(d->capslots, sizeof(*d->sl));
	if (!d->tab || !d->name_seq || !d->name_tid || !d->name_rd_seq || !d->name_rd_tid ||
	    !d->name_file || !d->cur_name || !d->sl)
		return -ENOMEM;
	for (uint32_t i = 0; i <= f->nnames; i++)
		d->name_seq[i] = d->name_rd_seq[i] = NO_SEQ;
	for (uint32_t id = 1; id <= f->nfiles; id++) {
		d->cur_name[id] = f->files[id].name;
		if (f->files[id].layout != FLAY_NONE)
			d->name_file[f->files[id].name] = id;
	}
	return 0;
}

void fdec_free(struct fdec *d)
{
	free(d->tab);
	free(d->name_seq);
	free(d->name_tid);
	free(d->name_rd_seq);
	free(d->name_rd_tid);
	free(d->name_file);
	free(d->cur_name);
	free(d->sl);
	memset(d, 0, sizeof(*d));
}

/* ---- slots ---- */

/* A new slot: its descriptor opened at the call about to be made, or before the clock. */
static int slot_new(struct fdec *d, uint32_t tid, uint32_t file, int32_t fd, uint32_t oflags,
		    bool at_setup, uint32_t *out)
{
	struct frun *f = d->f;

	if (d->first_pass) {
		if (d->nslots == d->capslots) {
			struct fdslot *s = realloc(d->sl, 2 * d->capslots * sizeof(*s));

			if (!s)
				return -ENOMEM;
			d->sl = s;
			d->capslots *= 2;
		}
		if (f->nslots == f->capinfo) {
			uint32_t cap = f->capinfo ? 2 * f->capinfo : 1024;
			struct fslot_info *in = realloc(f->info, cap * sizeof(*in));

			if (!in)
				return -ENOMEM;
			f->info = in;
			f->capinfo = cap;
		}
		f->info[f->nslots++] = (struct fslot_info){ .file = file, .fd = fd,
							    .oflags = oflags,
							    .at_setup = at_setup };
	} else if (d->nslots >= f->nslots) {
		return -EPROTO; /* the two passes disagree: cannot happen */
	}
	d->sl[d->nslots] = (struct fdslot){ .open_seq = at_setup ? NO_SEQ : d->seq,
					    .open_tid = tid, .refs = 1 };
	*out = d->nslots++;
	return 0;
}

static struct fcall *call_new(struct fdec *d, const struct io_event *ev, uint8_t op,
			      uint32_t slot, uint32_t file)
{
	struct frun *f = d->f;
	struct fcall *c;

	if (f->npend == f->cappend) {
		size_t cap = f->cappend ? 2 * f->cappend : 64;

		c = realloc(f->pend, cap * sizeof(*c));
		if (!c)
			return NULL;
		f->pend = c;
		f->cappend = cap;
	}
	c = &f->pend[f->npend++];
	memset(c, 0, sizeof(*c));
	c->s.op = op;
	c->s.dev = slot;
	c->s.tid = ev->tid;
	c->s.stream = ev->stream; /* closed mode: the synthesized job it belongs to */
	c->s.t = io_event_time(ev); /* the trace's time: file_feed makes it a deadline */
	c->seq = d->seq++;
	/* inference sees reads, writes and flush-class syncs, per file (for overlaps) */
	c->iev = *ev;
	c->iev.op = op == IO_FOP_READ || op == IO_FOP_WRITE ? op
		    : op == IO_FOP_FSYNC || op == IO_FOP_FDATASYNC || op == IO_FOP_SYNC_RANGE
			? IO_OP_FLUSH
			: IO_OP_READ;
	if (op != IO_FOP_READ && op != IO_FOP_WRITE)
		c->iev.length = 0;
	c->iev.dev = file;
	c->iev.flags = 0;
	return c;
}

/* dep mode: c follows the open of its slot, when another thread made it */
static void after_open(struct fdec *d, struct fcall *c, uint32_t slot)
{
	const struct fdslot *s = &d->sl[slot];

	if (s->open_seq != NO_SEQ && s->open_tid != c->s.tid && c->nafter < 4)
		c->after[c->nafter++] = s->open_seq;
}

static void follow(struct fcall *c, uint64_t seq, uint32_t tid)
{
	if (seq != NO_SEQ && tid != c->s.tid && c->nafter < 4)
		c->after[c->nafter++] = seq;
}

/* dep mode: c changes what the name holds: it follows the last change and the last plain open
 * of the name by another thread, and is now the name's last change */
static void after_name(struct fdec *d, struct fcall *c, uint32_t name)
{
	follow(c, d->name_seq[name], d->name_tid[name]);
	follow(c, d->name_rd_seq[name], d->name_rd_tid[name]);
	d->name_seq[name] = c->seq;
	d->name_tid[name] = c->s.tid;
	d->name_rd_seq[name] = NO_SEQ;
}

/* dep mode: c opens the name as it is (neither creating nor truncating it): it follows the
 * name's last change only, so a faster replay's threads are not tied to each other's opens
 * of a table's file (and through them to a thread that keeps the trace's clock) */
static void after_name_open(struct fdec *d, struct fcall *c, uint32_t name)
{
	follow(c, d->name_seq[name], d->name_tid[name]);
	d->name_rd_seq[name] = c->seq;
	d->name_rd_tid[name] = c->s.tid;
}

static void skip(struct fdec *d, int why)
{
	if (d->first_pass)
		d->f->res->skipped[why]++;
}

/* One descriptor naming slot is gone; the last one closes it: 1 when it did. */
static int drop_ref(struct fdec *d, const struct io_event *ev, uint32_t slot)
{
	struct fcall *c;

	if (--d->sl[slot].refs)
		return 0;
	c = call_new(d, ev, IO_FOP_CLOSE, slot, d->f->info[slot].file);
	if (!c)
		return -ENOMEM;
	c->s.arg = d->sl[slot].uses; /* the real close waits for the calls made on it before */
	if (d->first_pass && ev->op != IO_FOP_CLOSE)
		d->f->res->closes_implied++;
	return 1;
}

/*
 * The descriptors set aside by opens (struct fdshadow) that no close claimed by the open's
 * return, or all of a process's when it forks or ends: their closes were missed, and the slot
 * is closed now, by the thread whose open found it.
 */
static int shadows_expire(struct fdec *d, const struct io_event *ev, bool whole_pid)
{
	for (uint32_t i = 0; i < d->nshadow;) {
		struct fdshadow sh = d->shadow[i];
		struct io_event as = *ev;
		int ret;

		if (!(io_event_time(ev) > sh.until || (whole_pid && sh.pid == ev->pid))) {
			i++;
			continue;
		}
		d->shadow[i] = d->shadow[--d->nshadow];
		as.pid = sh.pid;
		as.tid = sh.tid;
		as.op = IO_FOP_OPEN; /* counted as implied */
		if ((ret = drop_ref(d, &as, sh.slot)) < 0)
			return ret;
	}
	return 0;
}

/* A close that entered before the open that found its descriptor returned: its own slot. */
static int shadow_claim(struct fdec *d, const struct io_event *ev, int32_t fd)
{
	for (uint32_t i = 0; i < d->nshadow; i++) {
		struct fdshadow sh = d->shadow[i];
		int ret;

		if (sh.pid != ev->pid || sh.fd != fd || io_event_time(ev) > sh.until)
			continue;
		d->shadow[i] = d->shadow[--d->nshadow];
		if (!(ret = drop_ref(d, ev, sh.slot)))
			skip(d, FSKIP_SHARED);
		return ret < 0 ? ret : 1;
	}
	return 0;
}

/*
 * The slot a call on descriptor x->fd of ev->pid uses: the one the table holds for it, or, when
 * the trace never showed that descriptor's open (opened before the recording without the
 * start-time scan seeing it, or an io_uring registered file), one opened before the clock.
 */
static int slot_of(struct fdec *d, const struct io_event *ev, const struct io_fext *x,
		   uint32_t *slot)
{
	struct frun *f = d->f;
	struct fdent *e = fd_find(d, ev->pid, x->fd);
	int ret;

	if (e && f->info[e->slot].file == x->file) {
		*slot = e->slot;
		return 0;
	}
	for (uint32_t i = 0; i < d->nshadow; i++) /* its close is yet to come */
		if (d->shadow[i].pid == ev->pid && d->shadow[i].fd == x->fd &&
		    f->info[d->shadow[i].slot].file == x->file) {
			*slot = d->shadow[i].slot;
			return 0;
		}
	if (ev->flags & IO_FF_FIXED) /* x->fd is an index into the ring's own table */
		for (uint32_t i = 0; i < d->cap; i++)
			if (d->tab[i].state == 1 && d->tab[i].pid == ev->pid &&
			    f->info[d->tab[i].slot].file == x->file) {
				*slot = d->tab[i].slot;
				return 0;
			}
	if (e) { /* a close the recording missed (close_range, say) */
		if (d->first_pass)
			f->res->fd_mismatch++;
		fd_del(d, e);
		if ((ret = drop_ref(d, ev, e->slot)) < 0)
			return ret;
	}
	ret = slot_new(d, ev->tid, x->file, x->fd, x->oflags & ~(uint32_t)X86_O_CREAT, true, slot);
	if (!ret && d->first_pass)
		f->res->opened_unseen++;
	return ret ? ret : fd_put(d, ev->pid, x->fd, *slot);
}

/* What the prescan learns from the first call on a file: did it exist before? */
static void first_sight(struct fdec *d, uint32_t file, const struct io_event *ev,
			const struct io_fext *x)
{
	struct ffile *ff = &d->f->files[file];
	const struct trace_file *tf = trace_reader__file(d->f->rd, file);

	if (ff->seen)
		return;
	ff->seen = true;
	if (tf->origin & TRACE_FILE_NAME_ONLY) /* a name that was unlinked or renamed existed */
		ff->layout = x->result >= 0 && x->file == file &&
					     (ev->op == IO_FOP_UNLINK || ev->op == IO_FOP_RENAME ||
					      ev->op == IO_FOP_TRUNCATE)
				     ? FLAY_EMPTY
				     : FLAY_NONE;
	else if (ev->op == IO_FOP_OPEN && x->iface != IO_FIF_START &&
		 (x->oflags & X86_O_CREAT) && !tf->size)
		ff->layout = FLAY_NONE; /* the trace makes it */
	else
		ff->layout = FLAY_DATA;
	fops_first_sight(d->f, file, ev, x);
}

/* A call on a descriptor: read, write, the syncs, fallocate, fcntl, ftruncate, syncfs. */
static int fd_call(struct fdec *d, const struct io_event *ev, const struct io_fext *x)
{
	struct fcall *c;
	uint32_t slot;
	int ret = slot_of(d, ev, x, &slot);

	if (ret)
		return ret;
	c = call_new(d, ev, ev->op, slot, x->file);
	if (!c)
		return -ENOMEM;
	switch (ev->op) {
	case IO_FOP_READ:
		c->s.arg = (uint64_t)x->result;
		/* fall through */
	case IO_FOP_WRITE:
		c->s.len = ev->length;
		if (ev->op == IO_FOP_WRITE)
			c->s.aux = x->aux & (RWF_DSYNC | RWF_SYNC | RWF_APPEND);
		break;
	case IO_FOP_SYNC_RANGE:
	case IO_FOP_FALLOCATE:
		c->s.arg = x->arg;
		/* fall through */
	case IO_FOP_SETFL:
		c->s.aux = x->aux;
		break;
	}
	c->s.offset = ev->offset;
	d->sl[slot].uses++;
	after_open(d, c, slot);
	return 0;
}

/* A call by name: unlink, truncate, stat, mkdir, rmdir, rename (the source and destination
 * names). */
static int name_call(struct fdec *d, const struct io_event *ev, const struct io_fext *x)
{
	uint32_t name = d->cur_name[x->file], dst = 0;
	struct fcall *c;

	if (ev->op == IO_FOP_RENAME) {
		if (!x->arg || x->arg > d->f->nfiles) {
			skip(d, FSKIP_RENAME_DST);
			return 0;
		}
		dst = d->f->files[x->arg].name;
	}
	c = call_new(d, ev, ev->op, FSLOT_NONE, x->file);
	if (!c)
		return -ENOMEM;
	c->s.len = x->file;
	c->s.arg = name | (uint64_t)dst << 32;
	c->s.aux = x->aux;
	c->s.offset = ev->offset;
	if (ev->op == IO_FOP_STAT)
		after_name_open(d, c, name); /* looks at the name, changes nothing */
	else
		after_name(d, c, name);
	if (ev->op == IO_FOP_MKDIR)
		d->name_file[name] = x->file;
	if (ev->op == IO_FOP_RENAME) {
		uint32_t there = d->name_file[dst];

		after_name(d, c, dst);
		d->cur_name[x->file] = dst;
		d->name_file[dst] = x->file;
		d->name_file[name] = 0;
		if ((x->aux & RENAME_EXCHANGE) && there) {
			d->cur_name[there] = name;
			d->name_file[name] = there;
		}
	} else if (ev->op == IO_FOP_UNLINK || ev->op == IO_FOP_RMDIR) {
		d->name_file[name] = 0;
	}
	return 0;
}

static int open_call(struct fdec *d, const struct io_event *ev, const struct io_fext *x)
{
	struct fdent *e = fd_find(d, ev->pid, (int32_t)x->result);
	uint32_t slot, name = d->cur_name[x->file];
	bool start = x->iface == IO_FIF_START;
	struct fcall *c;
	int ret;

	if (e && !start && ev->complete_ns != IO_TS_NONE && d->nshadow < FDEC_SHADOWS) {
		d->shadow[d->nshadow++] = (struct fdshadow){
			.pid = ev->pid, .tid = ev->tid, .fd = e->fd, .slot = e->slot,
			.until = ev->complete_ns};
		fd_del(d, e);
	} else if (e) { /* the recording missed its close */
		fd_del(d, e);
		if ((ret = drop_ref(d, ev, e->slot)) < 0)
			return ret;
	}
	ret = slot_new(d, ev->tid, x->file, (int32_t)x->result,
		       start ? x->oflags : x->oflags & ~(uint32_t)X86_O_CREAT, start, &slot);
	if (!ret)
		ret = fd_put(d, ev->pid, (int32_t)x->result, slot);
	if (ret || start) {
		if (!ret && d->first_pass)
			d->f->res->opened_at_start++;
		return ret;
	}
	c = call_new(d, ev, IO_FOP_OPEN, slot, x->file);
	if (!c)
		return -ENOMEM;
	c->s.aux = x->oflags;
	c->s.len = x->aux; /* mode */
	c->s.arg = name;
	d->name_file[name] = x->file;
	if (x->oflags & (X86_O_CREAT | X86_O_TRUNC))
		after_name(d, c, name);
	else
		after_name_open(d, c, name);
	return 0;
}

static int dup_call(struct fdec *d, const struct io_event *ev, const struct io_fext *x)
{
	struct fdent *e = fd_find(d, ev->pid, (int32_t)x->result);
	uint32_t old, slot;
	struct fcall *c;
	int ret = slot_of(d, ev, x, &old);

	if (!ret && e && e->slot != old) { /* dup2 onto an open descriptor closes it */
		fd_del(d, e);
		ret = drop_ref(d, ev, e->slot);
	} else if (!ret && e) {
		return 0; /* dup2(fd, fd) */
	}
	if (ret < 0)
		return ret;
	ret = slot_new(d, ev->tid, x->file, (int32_t)x->result, x->oflags, false, &slot);
	if (!ret)
		ret = fd_put(d, ev->pid, (int32_t)x->result, slot);
	if (ret)
		return ret;
	c = call_new(d, ev, IO_FOP_DUP, old, x->file);
	if (!c)
		return -ENOMEM;
	c->s.arg = slot;
	d->sl[old].uses++;
	after_open(d, c, old);
	return 0;
}

/* A process forks (its child shares its descriptors) or ends (they are dropped). */
static int process_call(struct fdec *d, const struct io_event *ev, const struct io_fext *x)
{
	uint32_t n = 0, *idx = malloc((d->used + 1) * sizeof(*idx));
	int ret = 0;

	if (!idx)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->cap; i++)
		if (d->tab[i].state == 1 && d->tab[i].pid == ev->pid)
			idx[n++] = i;
	for (uint32_t k = 0; k < n && ret >= 0; k++) {
		struct fdent e = d->tab[idx[k]];

		if (ev->op == IO_FOP_FORK) {
			d->sl[e.slot].refs++;
			ret = fd_put(d, (uint32_t)x->arg, e.fd, e.slot);
		} else {
			fd_del(d, &d->tab[idx[k]]);
			ret = drop_ref(d, ev, e.slot);
		}
	}
	free(idx);
	return ret < 0 ? ret : 0;
}

int fdec_event(struct fdec *d, const struct io_event *ev, const struct io_fext *x)
{
	struct frun *f = d->f;
	bool known = x->file && x->file <= f->nfiles;
	int ret;

	if (d->first_pass) {
		/* a descriptor open at start is opened before the clock, not reissued */
		if (ev->op != IO_FOP_OPEN || x->iface != IO_FIF_START)
			f->res->trace[ev->op]++;
		if (known)
			first_sight(d, x->file, ev, x);
		if (ev->op == IO_FOP_RENAME && x->arg && x->arg <= f->nfiles)
			first_sight(d, (uint32_t)x->arg, ev, x);
	}
	if (d->nshadow &&
	    (ret = shadows_expire(d, ev, ev->op == IO_FOP_FORK || ev->op == IO_FOP_EXIT)) < 0)
		return ret;
	if (ev->op == IO_FOP_FORK || ev->op == IO_FOP_EXIT)
		return process_call(d, ev, x);
	if (ev->op == IO_FOP_MMAP) {
		skip(d, FSKIP_MMAP);
		return 0;
	}
	if (x->result < 0) {
		skip(d, FSKIP_FAILED);
		return 0;
	}
	if ((ev->op == IO_FOP_OPEN || ev->op == IO_FOP_DUP) && ev->complete_ns == IO_TS_NONE &&
	    x->iface != IO_FIF_START) {
		skip(d, FSKIP_NO_RESULT);
		return 0;
	}
	if (ev->op == IO_FOP_OPEN && (x->oflags & X86_O_TMPFILE) && known)
		f->files[x->file].tmpfile = true;
	if (known && f->files[x->file].tmpfile) {
		skip(d, FSKIP_TMPFILE);
		return 0;
	}
	if (!known && ev->op != IO_FOP_CLOSE) {
		skip(d, FSKIP_NO_FILE);
		return 0;
	}
	switch (ev->op) {
	case IO_FOP_OPEN:
		return open_call(d, ev, x);
	case IO_FOP_DUP:
		return dup_call(d, ev, x);
	case IO_FOP_CLOSE: {
		struct fdent *e;
		uint32_t slot;

		if (d->nshadow && (ret = shadow_claim(d, ev, x->fd)))
			return ret < 0 ? ret : 0;
		e = fd_find(d, ev->pid, x->fd);
		if (!e) {
			skip(d, FSKIP_NO_FILE);
			return 0;
		}
		slot = e->slot;
		fd_del(d, e);
		ret = drop_ref(d, ev, slot);
		if (!ret)
			skip(d, FSKIP_SHARED);
		return ret < 0 ? ret : 0;
	}
	case IO_FOP_RENAME:
	case IO_FOP_UNLINK:
	case IO_FOP_STAT:
	case IO_FOP_MKDIR:
	case IO_FOP_RMDIR:
		return name_call(d, ev, x);
	case IO_FOP_TRUNCATE:
		return x->fd < 0 ? name_call(d, ev, x) : fd_call(d, ev, x);
	default:
		return fd_call(d, ev, x);
	}
}
