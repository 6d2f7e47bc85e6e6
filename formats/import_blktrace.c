// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * blktrace binary importer: `struct blk_io_trace` (48 bytes + pdu, magic 0x65617400 | 0x07, in
 * the byte order of the CPU that wrote it) as blktrace writes it per CPU and `blkparse -d`
 * merges it. Layout and action codes: include/uapi/linux/blktrace_api.h.
 *
 * One io_event per bio the submitter queued (Q), with the issue (D) and completion (C) times of
 * the request that carried it. Records are joined by (device, sector): a D or C of a request
 * covering [sector, sector + bytes) walks the queued bios that tile that range, so bios that
 * were back- or front-merged (M/F: no D/C of their own) take their request's times. A split
 * (X) makes the remainder a second part of the same I/O (issued at the first part's D,
 * completed at the last part's C); a remap (A) re-keys the bio to the lower device but keeps
 * the device and sector the submitter used. Bio-based drivers (zram) complete without D.
 * A D with no queued bio (a trace without Q events) starts an I/O of its own.
 *
 * Records must come in time order, as `blkparse -d` writes them or as one per-CPU file holds
 * them; per-CPU files concatenated one after another are not joined correctly (merge them with
 * `blkparse -d` first). Memory: at most BT_MAX_INFLIGHT I/Os are held; beyond that the oldest
 * is passed on as it is (queue time only), which is also what happens at the end of a trace
 * recorded with `-a queue` only (btrecord's input).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "formats/convert.h"

#define BT_MAGIC 0x65617400u
#define BT_VERSION 0x07u
#define BT_REC 48
#define BT_MAX_INFLIGHT 65536u
#define BT_HASH 65536u
#define BT_PIDS 4096u

/* categories (action >> 16) */
enum {
	TC_READ = 1 << 0, TC_WRITE = 1 << 1, TC_FLUSH = 1 << 2, TC_SYNC = 1 << 3,
	TC_QUEUE = 1 << 4, TC_REQUEUE = 1 << 5, TC_ISSUE = 1 << 6, TC_COMPLETE = 1 << 7,
	TC_FS = 1 << 8, TC_PC = 1 << 9, TC_NOTIFY = 1 << 10, TC_AHEAD = 1 << 11,
	TC_META = 1 << 12, TC_DISCARD = 1 << 13, TC_DRV_DATA = 1 << 14, TC_FUA = 1 << 15,
};

/* actions (low 8 bits; bit 8 says a cgroup id leads the pdu) */
enum {
	TA_QUEUE = 1, TA_BACKMERGE = 2, TA_FRONTMERGE = 3, TA_REQUEUE = 6, TA_ISSUE = 7,
	TA_COMPLETE = 8, TA_SPLIT = 13, TA_REMAP = 15,
};
#define TA_CGROUP (1u << 8)
#define TN_PROCESS 0

enum part_state { P_FREE = 0, P_QUEUED, P_ISSUED, P_DONE };

struct bt_part {
	uint64_t sector;
	uint32_t dev, bytes;
	int32_t next; /* hash chain */
	int32_t io;
	int32_t sib; /* next part of the same I/O */
	uint64_t order;
	uint8_t state;
	bool remapped; /* re-keyed by a remap: its Q on the lower device is not a new I/O */
};

struct bt_io {
	struct io_event ev;
	uint32_t parts; /* parts not yet completed */
	int32_t first_part;
	int32_t next_free;
	uint32_t gen;
	bool live;
};

struct bt_state {
	struct import_ctx *c;
	struct bt_part *parts;
	struct bt_io *ios;
	int32_t *heads;
	int32_t free_part, free_io;
	uint32_t nparts, nios; /* used slots (high-water marks) */
	uint64_t order;
	/* creation order of I/Os, for eviction: (index, generation) pairs */
	struct {
		int32_t io;
		uint32_t gen;
	} *ring;
	uint32_t ring_head, ring_len;
	struct {
		uint32_t pid;
		char comm[IO_COMM_LEN];
	} pids[BT_PIDS];
	uint64_t unmatched, evicted;
};

struct bt_rec {
	uint32_t magic, seq;
	uint64_t time, sector;
	uint32_t bytes, action, pid, device, cpu;
	uint16_t error, pdu_len;
};

static uint16_t ld16(const unsigned char *p, bool be)
{
	return be ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static uint32_t ld32(const unsigned char *p, bool be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t ld64(const unsigned char *p, bool be)
{
	return be ? (uint64_t)ld32(p, true) << 32 | ld32(p + 4, true)
		  : (uint64_t)ld32(p + 4, false) << 32 | ld32(p, false);
}

__attribute__((format(printf, 3, 4))) static int bad(struct import_ctx *c, uint64_t off,
						     const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(c->err, sizeof(c->err), "byte %llu: ", (unsigned long long)off);

	va_start(ap, fmt);
	vsnprintf(c->err + n, sizeof(c->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static uint32_t hash_of(uint32_t dev, uint64_t sector)
{
	uint64_t h = (sector ^ ((uint64_t)dev << 40)) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 48) & (BT_HASH - 1);
}

/* The oldest part at (dev, sector) in one of the states of mask. */
static int32_t find(struct bt_state *s, uint32_t dev, uint64_t sector, unsigned int mask)
{
	int32_t best = -1;

	for (int32_t i = s->heads[hash_of(dev, sector)]; i >= 0; i = s->parts[i].next) {
		struct bt_part *p = &s->parts[i];
		if (p->dev == dev && p->sector == sector && (mask & (1u << p->state)) &&
		    (best < 0 || p->order < s->parts[best].order))
			best = i;
	}
	return best;
}

static void unlink_part(struct bt_state *s, int32_t i)
{
	struct bt_part *p = &s->parts[i];
	int32_t *pp = &s->heads[hash_of(p->dev, p->sector)];

	while (*pp != i)
		pp = &s->parts[*pp].next;
	*pp = p->next;
}

static void link_part(struct bt_state *s, int32_t i)
{
	struct bt_part *p = &s->parts[i];
	uint32_t h = hash_of(p->dev, p->sector);

	p->next = s->heads[h];
	s->heads[h] = i;
}

static void free_part(struct bt_state *s, int32_t i)
{
	int32_t *pp = &s->ios[s->parts[i].io].first_part;

	while (*pp >= 0 && *pp != i)
		pp = &s->parts[*pp].sib;
	if (*pp == i)
		*pp = s->parts[i].sib;
	unlink_part(s, i);
	s->parts[i].state = P_FREE;
	s->parts[i].next = s->free_part;
	s->free_part = i;
}

/* Passes the I/O on and frees it with all its parts. */
static int finish_io(struct bt_state *s, int32_t io)
{
	struct bt_io *x = &s->ios[io];
	int err;

	while (x->first_part >= 0)
		free_part(s, x->first_part);
	err = import_window_push(s->c->win, &x->ev);
	x->live = false;
	x->gen++;
	x->parts = 0;
	x->next_free = s->free_io;
	s->free_io = io;
	return err;
}

static int32_t alloc_part(struct bt_state *s)
{
	int32_t i = s->free_part;

	if (i >= 0) {
		s->free_part = s->parts[i].next;
		return i;
	}
	if (s->nparts == BT_MAX_INFLIGHT)
		return -1;
	return (int32_t)s->nparts++;
}

static int evict_oldest(struct bt_state *s)
{
	while (s->ring_len) {
		int32_t io = s->ring[s->ring_head].io;
		uint32_t gen = s->ring[s->ring_head].gen;
		s->ring_head = (s->ring_head + 1) % BT_MAX_INFLIGHT;
		s->ring_len--;
		if (s->ios[io].live && s->ios[io].gen == gen) {
			s->evicted++;
			return finish_io(s, io);
		}
		/* a dead entry: its slot in the ring is now free */
		return 0;
	}
	return 0;
}

/* A new I/O with one part; -ENOSPC never escapes: the oldest I/O is passed on first. */
static int new_io(struct bt_state *s, const struct bt_rec *t, uint32_t dev, int32_t *part)
{
	int32_t io, p;
	int err;

	if (s->ring_len == BT_MAX_INFLIGHT && (err = evict_oldest(s)))
		return err;
	while ((p = alloc_part(s)) < 0)
		if ((err = evict_oldest(s)) || !s->ring_len)
			return err ? err : -ENOSPC;
	if (s->free_io >= 0) {
		io = s->free_io;
		s->free_io = s->ios[io].next_free;
	} else {
		io = (int32_t)s->nios++; /* nios <= ring capacity, checked above */
	}
	struct bt_io *x = &s->ios[io];
	memset(&x->ev, 0, sizeof(x->ev));
	x->ev.queue_ns = x->ev.issue_ns = x->ev.complete_ns = IO_TS_NONE;
	x->live = true;
	x->parts = 1;
	x->first_part = p;
	s->ring[(s->ring_head + s->ring_len) % BT_MAX_INFLIGHT].io = io;
	s->ring[(s->ring_head + s->ring_len) % BT_MAX_INFLIGHT].gen = x->gen;
	s->ring_len++;

	struct bt_part *pp = &s->parts[p];
	pp->sector = t->sector;
	pp->dev = t->device;
	pp->bytes = t->bytes;
	pp->io = io;
	pp->order = s->order++;
	pp->state = P_QUEUED;
	pp->sib = -1;
	pp->remapped = false;
	link_part(s, p);

	uint32_t cat = t->action >> 16;
	struct io_event *e = &x->ev;
	if (cat & TC_DISCARD)
		e->op = IO_OP_DISCARD;
	else if (cat & TC_WRITE)
		e->op = IO_OP_WRITE;
	else
		e->op = IO_OP_READ;
	if (cat & TC_FLUSH) {
		if (t->bytes == 0)
			e->op = IO_OP_FLUSH;
		else
			e->flags |= IO_F_PREFLUSH;
	}
	e->flags |= (cat & TC_FUA ? IO_F_FUA : 0) | (cat & TC_SYNC ? IO_F_SYNC : 0) |
		    (cat & TC_META ? IO_F_META : 0) | (cat & TC_AHEAD ? IO_F_READAHEAD : 0);
	e->offset = t->sector * 512;
	e->length = t->bytes;
	e->dev = dev;
	e->pid = e->tid = t->pid; /* blktrace's pid is the kernel task id (a thread) */
	e->cpu = (uint16_t)t->cpu;
	uint32_t slot = t->pid % BT_PIDS;
	if (s->pids[slot].pid == t->pid)
		memcpy(e->comm, s->pids[slot].comm, IO_COMM_LEN);
	*part = p;
	return 0;
}

static int device_index(struct bt_state *s, uint32_t devt, uint64_t off)
{
	char name[32];
	uint32_t maj = devt >> 20, min = devt & 0xfffff; /* the kernel's dev_t, MINORBITS 20 */
	int d;

	snprintf(name, sizeof(name), "%u:%u", maj, min);
	d = import_device(s->c, name, maj, min);
	if (d < 0)
		return bad(s->c, off, "more than %d devices", TRACE_MAX_DEVICES);
	return d;
}

/* Walks the parts tiling [sector, sector + bytes) of dev in a state of mask; applies op. */
enum walk_op { W_ISSUE, W_REQUEUE, W_COMPLETE };

static int walk(struct bt_state *s, const struct bt_rec *t, unsigned int mask, enum walk_op op,
		uint32_t *hits)
{
	uint64_t sec = t->sector, end = t->sector + (t->bytes + 511ull) / 512;
	int err;

	*hits = 0;
	do {
		int32_t i = -1;
		if (op == W_COMPLETE)
			i = find(s, t->device, sec, 1u << P_ISSUED);
		if (i < 0)
			i = find(s, t->device, sec, mask);
		if (i < 0)
			break;
		struct bt_part *p = &s->parts[i];
		struct bt_io *x = &s->ios[p->io];
		uint64_t next = sec + (p->bytes ? (p->bytes + 511ull) / 512 : 1);
		(*hits)++;
		switch (op) {
		case W_ISSUE:
			p->state = P_ISSUED;
			if (x->ev.issue_ns == IO_TS_NONE || x->ev.issue_ns > t->time)
				x->ev.issue_ns = t->time;
			break;
		case W_REQUEUE:
			p->state = P_QUEUED;
			break;
		case W_COMPLETE: {
			int16_t e = (int16_t)t->error;
			if (e && !x->ev.error)
				x->ev.error = e > 0 ? -e : e;
			if (x->ev.complete_ns == IO_TS_NONE || x->ev.complete_ns < t->time)
				x->ev.complete_ns = t->time;
			int32_t io = p->io;
			free_part(s, i);
			if (--x->parts == 0 && (err = finish_io(s, io)))
				return err;
			break;
		}
		}
		sec = next;
	} while (sec < end);
	return 0;
}

static int handle(struct bt_state *s, const struct bt_rec *t, const unsigned char *pdu,
		  uint64_t off)
{
	uint32_t act = t->action & 0xffff, cat = t->action >> 16, hits;
	int32_t p;
	int d, err;

	if (act & TA_CGROUP) {
		/* a 64-bit cgroup id precedes the payload */
		if (t->pdu_len < 8)
			return bad(s->c, off, "cgroup flag set but pdu has %u bytes", t->pdu_len);
		pdu += 8;
	}
	uint32_t plen = t->pdu_len - (act & TA_CGROUP ? 8 : 0);
	act &= 0xff;
	if (cat & TC_NOTIFY) {
		if (act == TN_PROCESS && plen) {
			uint32_t slot = t->pid % BT_PIDS;
			s->pids[slot].pid = t->pid;
			memset(s->pids[slot].comm, 0, IO_COMM_LEN);
			memcpy(s->pids[slot].comm, pdu, plen < IO_COMM_LEN - 1 ? plen : IO_COMM_LEN - 1);
		}
		return 0;
	}
	switch (act) {
	case TA_QUEUE:
		/* a bio queued again on the lower device after a remap is the same I/O */
		p = find(s, t->device, t->sector, 1u << P_QUEUED);
		if (p >= 0 && s->parts[p].remapped) {
			s->parts[p].remapped = false;
			return 0;
		}
		if ((d = device_index(s, t->device, off)) < 0)
			return d;
		if ((err = new_io(s, t, (uint32_t)d, &p)))
			return err;
		s->ios[s->parts[p].io].ev.queue_ns = t->time;
		return 0;
	case TA_ISSUE:
		if ((err = walk(s, t, 1u << P_QUEUED, W_ISSUE, &hits)))
			return err;
		if (!hits) {
			/* no Q seen (trace of D/C only, or Q lost): the request is the I/O */
			if ((d = device_index(s, t->device, off)) < 0)
				return d;
			if ((err = new_io(s, t, (uint32_t)d, &p)))
				return err;
			s->parts[p].state = P_ISSUED;
			s->ios[s->parts[p].io].ev.issue_ns = t->time;
		}
		return 0;
	case TA_REQUEUE:
		return walk(s, t, 1u << P_ISSUED, W_REQUEUE, &hits);
	case TA_COMPLETE:
		if ((err = walk(s, t, 1u << P_QUEUED, W_COMPLETE, &hits)))
			return err;
		if (!hits)
			s->unmatched++;
		return 0;
	case TA_SPLIT: {
		if (plen < 8)
			return bad(s->c, off, "split record without the new sector in its pdu");
		uint64_t nsec = ld64(pdu, true); /* pdu is big-endian whatever the CPU */
		int32_t i = find(s, t->device, t->sector, 1u << P_QUEUED);
		if (i < 0 || nsec <= t->sector ||
		    (nsec - t->sector) * 512 >= s->parts[i].bytes)
			return 0;
		int32_t q = alloc_part(s);
		if (q < 0)
			return 0; /* table full: the tail stays part of the head */
		struct bt_part *a = &s->parts[i], *b = &s->parts[q];
		*b = *a;
		b->sector = nsec;
		b->bytes = a->bytes - (uint32_t)((nsec - t->sector) * 512);
		b->order = s->order++;
		a->bytes -= b->bytes;
		link_part(s, q);
		a->sib = q; /* b inherited a's old sib */
		s->ios[a->io].parts++;
		return 0;
	}
	case TA_REMAP: {
		if (plen < 16)
			return bad(s->c, off, "remap record with a %u-byte pdu (need 16)", plen);
		uint32_t from = ld32(pdu, true);
		uint64_t from_sec = ld64(pdu + 8, true);
		int32_t i = find(s, from, from_sec, 1u << P_QUEUED);
		if (i < 0)
			return 0;
		unlink_part(s, i);
		s->parts[i].dev = t->device;
		s->parts[i].sector = t->sector;
		s->parts[i].remapped = true;
		link_part(s, i);
		return 0;
	}
	default:
		return 0; /* M/F/G/S/P/U/I/B: no time of their own in an io_event */
	}
}

int import_blktrace(FILE *f, struct import_ctx *c)
{
	unsigned char h[BT_REC], *pdu = NULL;
	struct bt_state *s;
	uint64_t off = 0;
	int err = 0;
	bool be = false, known = false;

	s = calloc(1, sizeof(*s));
	if (s)
		s->heads = malloc(BT_HASH * sizeof(*s->heads));
	if (s) {
		s->parts = malloc(BT_MAX_INFLIGHT * sizeof(*s->parts));
		s->ios = calloc(BT_MAX_INFLIGHT, sizeof(*s->ios));
		s->ring = malloc(BT_MAX_INFLIGHT * sizeof(*s->ring));
		pdu = malloc(65536);
	}
	if (!s || !s->heads || !s->parts || !s->ios || !s->ring || !pdu) {
		err = -ENOMEM;
		snprintf(c->err, sizeof(c->err), "out of memory for the in-flight table");
		goto out;
	}
	s->c = c;
	s->free_part = s->free_io = -1;
	for (uint32_t i = 0; i < BT_HASH; i++)
		s->heads[i] = -1;

	for (;;) {
		struct bt_rec t;
		size_t n = fread(h, 1, BT_REC, f);

		if (n == 0)
			break;
		if (n < BT_REC) {
			err = bad(c, off, "truncated record (%zu of 48 bytes)", n);
			break;
		}
		if (!known) {
			uint32_t le = ld32(h, false);
			be = (le & 0xffffff00u) != BT_MAGIC;
			known = true;
		}
		t.magic = ld32(h, be);
		if ((t.magic & 0xffffff00u) != BT_MAGIC) {
			err = bad(c, off, "bad magic 0x%08x (not a blktrace record, or corrupted)",
				  t.magic);
			break;
		}
		if ((t.magic & 0xff) != BT_VERSION) {
			err = bad(c, off, "blktrace version 0x%02x, only 0x07 (blk_io_trace) is "
					  "supported", t.magic & 0xff);
			break;
		}
		t.seq = ld32(h + 4, be);
		t.time = ld64(h + 8, be);
		t.sector = ld64(h + 16, be);
		t.bytes = ld32(h + 24, be);
		t.action = ld32(h + 28, be);
		t.pid = ld32(h + 32, be);
		t.device = ld32(h + 36, be);
		t.cpu = ld32(h + 40, be);
		t.error = ld16(h + 44, be);
		t.pdu_len = ld16(h + 46, be);
		if (t.pdu_len && fread(pdu, 1, t.pdu_len, f) != t.pdu_len) {
			err = bad(c, off, "truncated payload (%u bytes announced)", t.pdu_len);
			break;
		}
		if (t.sector > UINT64_MAX / 512 - (1ull << 32)) {
			if (c->salvage) {
				c->skipped++;
				off += BT_REC + t.pdu_len;
				continue;
			}
			err = bad(c, off, "sector %llu out of range", (unsigned long long)t.sector);
			break;
		}
		c->records++;
		if ((err = handle(s, &t, pdu, off)))
			break;
		off += BT_REC + t.pdu_len;
	}
	/* I/Os still open at the end: passed on with the times they have, oldest first */
	while (!err && s->ring_len)
		err = evict_oldest(s);
out:
	if (s) {
		free(s->heads);
		free(s->parts);
		free(s->ios);
		free(s->ring);
	}
	free(s);
	free(pdu);
	return err;
}
