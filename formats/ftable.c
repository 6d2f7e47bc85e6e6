// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The container's side frames (formats/FORMAT.md, "File-level traces"): the file table, written
 * in pieces before the chunks whose events name the files, and the named counters a recorder
 * stores at close. Both are skippable frames with a crc, so zstd -d still reads the file and a
 * damaged one is an error naming its offset, never trusted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "formats/ftable.h"

#define ENTRY_FIXED 82u /* an entry without its path and segments */
#define COUNTER_MIN 10u /* u16 name length, u64 value */

void side_put_bytes(struct side_buf *b, const void *p, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *q;

		while (cap < b->len + n)
			cap *= 2;
		q = realloc(b->p, cap);
		if (!q) {
			b->failed = true;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put_le(struct side_buf *b, uint64_t v, size_t n)
{
	uint8_t tmp[8];

	put_u64(tmp, v);
	side_put_bytes(b, tmp, n);
}

void side_buf_free(struct side_buf *b)
{
	free(b->p);
	*b = (struct side_buf){0};
}

/* Starts a frame: magic, size (set by side_end), tag, count (set by side_end), reserved. */
void side_begin(struct side_buf *b, uint32_t magic, const char tag[4])
{
	b->len = 0;
	b->count = 0;
	b->failed = false;
	b->state = SIDE_OPEN;
	put_le(b, magic, 4);
	put_le(b, 0, 4);
	side_put_bytes(b, tag, 4);
	put_le(b, 0, 4);
	put_le(b, 0, 4);
}

int side_end(struct side_buf *b)
{
	if (b->state == SIDE_SEALED) /* a frame whose write failed, tried again at the close */
		return 0;
	if (b->failed || b->len < 20)
		return -ENOMEM;
	put_u32(b->p + 12, b->count);
	put_le(b, crc32(0, b->p + 8, b->len - 8), 4);
	if (b->failed)
		return -ENOMEM;
	put_u32(b->p + 4, b->len - 8);
	b->state = SIDE_SEALED;
	return 0;
}

int ftab_put(struct side_buf *b, const struct trace_file *f)
{
	size_t pl = f->path ? strnlen(f->path, TRACE_FILE_PATH_MAX) : 0;
	uint32_t nsegs = f->segs ? f->nsegs : 0;

	if (nsegs > TRACE_FILE_SEGS_MAX || (f->origin & ~TRACE_FILE__ALL) || !f->id)
		return -EINVAL;
	put_le(b, f->id, 4);
	put_le(b, f->origin, 4);
	put_le(b, f->dev_major, 4);
	put_le(b, f->dev_minor, 4);
	put_le(b, f->ino, 8);
	put_le(b, f->gen, 4);
	put_le(b, f->mode, 4);
	put_le(b, f->size, 8);
	put_le(b, f->alloc, 8);
	put_le(b, f->oflags, 4);
	put_le(b, nsegs, 4);
	put_le(b, f->first_ns, 8);
	side_put_bytes(b, f->fs, sizeof(f->fs));
	put_le(b, pl, 2);
	side_put_bytes(b, f->path, pl);
	for (uint32_t i = 0; i < nsegs; i++) {
		put_le(b, f->segs[i].offset, 8);
		put_le(b, f->segs[i].length, 8);
	}
	b->count++;
	return b->failed ? -ENOMEM : 0;
}

int counters_put(struct side_buf *b, const char *name, uint64_t value)
{
	size_t n = strnlen(name, TRACE_COUNTER_NAME_MAX);

	if (!n || n == TRACE_COUNTER_NAME_MAX || b->count >= TRACE_MAX_COUNTERS)
		return -EINVAL;
	put_le(b, n, 2);
	side_put_bytes(b, name, n);
	put_le(b, value, 8);
	b->count++;
	return b->failed ? -ENOMEM : 0;
}

/* Checks tag, reserved word and crc of a payload (after magic and size); *count, *body. */
int side_open(const uint8_t *p, size_t len, const char tag[4], uint32_t *count,
		     size_t *body_end, const char **what)
{
	if (len < 16 || memcmp(p, tag, 4) || get_u32(p + 8)) {
		*what = "bad side frame header";
		return -EBADMSG;
	}
	if (crc32(0, p, len - 4) != get_u32(p + len - 4)) {
		*what = "side frame checksum mismatch";
		return -EBADMSG;
	}
	*count = get_u32(p + 4);
	*body_end = len - 4;
	return 0;
}

void ftab_free(struct ftab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free((void *)t->f[i].path);
		free((void *)t->f[i].segs);
	}
	free(t->f);
	*t = (struct ftab){0};
}

/* One entry at p (at most end - p bytes) into *f with its own copies; bytes used or -EBADMSG. */
static long parse_entry(const uint8_t *p, size_t left, struct trace_file *f)
{
	size_t pl, need;
	struct trace_file_seg *segs = NULL;
	char *path;

	if (left < ENTRY_FIXED)
		return -EBADMSG;
	*f = (struct trace_file){
	    .id = get_u32(p),
	    .origin = get_u32(p + 4),
	    .dev_major = get_u32(p + 8),
	    .dev_minor = get_u32(p + 12),
	    .ino = get_u64(p + 16),
	    .gen = get_u32(p + 24),
	    .mode = get_u32(p + 28),
	    .size = get_u64(p + 32),
	    .alloc = get_u64(p + 40),
	    .oflags = get_u32(p + 48),
	    .nsegs = get_u32(p + 52),
	    .first_ns = get_u64(p + 56),
	};
	memcpy(f->fs, p + 64, sizeof(f->fs));
	f->fs[sizeof(f->fs) - 1] = '\0';
	pl = get_u16(p + 80);
	need = ENTRY_FIXED + pl + 16 * (size_t)f->nsegs;
	if (pl > TRACE_FILE_PATH_MAX || f->nsegs > TRACE_FILE_SEGS_MAX ||
	    (f->origin & ~TRACE_FILE__ALL) || need > left)
		return -EBADMSG;
	path = malloc(pl + 1);
	if (f->nsegs)
		segs = malloc(f->nsegs * sizeof(*segs));
	if (!path || (f->nsegs && !segs)) {
		free(path);
		free(segs);
		return -ENOMEM;
	}
	memcpy(path, p + ENTRY_FIXED, pl);
	path[pl] = '\0';
	for (uint32_t i = 0; i < f->nsegs; i++) {
		const uint8_t *s = p + ENTRY_FIXED + pl + 16 * (size_t)i;

		segs[i].offset = get_u64(s);
		segs[i].length = get_u64(s + 8);
	}
	f->path = path;
	f->segs = segs;
	return (long)need;
}

int ftab_parse(const uint8_t *p, size_t len, struct ftab *t, const char **what)
{
	size_t pos = 12, end;
	uint32_t count;
	int err = side_open(p, len, "IOFT", &count, &end, what);

	if (err)
		return err;
	if (count > (end - pos) / ENTRY_FIXED) {
		*what = "file table count larger than its frame";
		return -EBADMSG;
	}
	for (uint32_t i = 0; i < count; i++) {
		struct trace_file f;
		long used = parse_entry(p + pos, end - pos, &f);

		if (used == -ENOMEM)
			return -ENOMEM;
		if (used < 0 || f.id != t->n + 1) {
			if (used >= 0) {
				free((void *)f.path);
				free((void *)f.segs);
			}
			*what = used < 0 ? "bad file table entry"
					 : "file table ids out of sequence (1, 2, ... expected)";
			return -EBADMSG;
		}
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 64;
			struct trace_file *q = realloc(t->f, cap * sizeof(*q));

			if (!q) {
				free((void *)f.path);
				free((void *)f.segs);
				return -ENOMEM;
			}
			t->f = q;
			t->cap = cap;
		}
		t->f[t->n++] = f;
		pos += (size_t)used;
	}
	if (pos != end) {
		*what = "trailing bytes in the file table frame";
		return -EBADMSG;
	}
	return 0;
}

void counters_free(struct counters *c)
{
	for (size_t i = 0; i < c->n; i++)
		free((void *)c->c[i].name);
	free(c->c);
	*c = (struct counters){0};
}

int counters_parse(const uint8_t *p, size_t len, struct counters *c, const char **what)
{
	size_t pos = 12, end;
	uint32_t count;
	int err = side_open(p, len, "IOFC", &count, &end, what);

	if (err)
		return err;
	if (count > TRACE_MAX_COUNTERS || count > (end - pos) / COUNTER_MIN) {
		*what = "bad counter count";
		return -EBADMSG;
	}
	counters_free(c);
	c->c = calloc(count ? count : 1, sizeof(*c->c));
	if (!c->c)
		return -ENOMEM;
	for (uint32_t i = 0; i < count; i++) {
		size_t n;
		char *name;

		if (end - pos < COUNTER_MIN || (n = get_u16(p + pos)) == 0 ||
		    n >= TRACE_COUNTER_NAME_MAX || end - pos < COUNTER_MIN + n) {
			*what = "bad counter entry";
			return -EBADMSG;
		}
		name = malloc(n + 1);
		if (!name)
			return -ENOMEM;
		memcpy(name, p + pos + 2, n);
		name[n] = '\0';
		c->c[c->n].name = name;
		c->c[c->n++].value = get_u64(p + pos + 2 + n);
		pos += COUNTER_MIN + n;
	}
	if (pos != end) {
		*what = "trailing bytes in the counters frame";
		return -EBADMSG;
	}
	return 0;
}
