// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Columnar chunk coding of the .ioreel container (formats/FORMAT.md, "Raw chunk").
 * Each column is predicted (deltas), reduced by its minimum and GCD, and stored as byte planes
 * so zstd's Huffman stage sees one byte distribution per block. Decoding goes in batches of
 * 256 events: every column is unpacked into a small array that stays in L1, then events are
 * assembled row by row straight into the caller's buffer (no intermediate event copy).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "formats/codec.h"
#include "util/num.h"

#define DEC_BATCH 256

/* The plane loops are worth vectorizing; -O2 of gcc 12 does so only at a very cheap cost. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize")
#endif

/*
 * A top plane whose bytes only take a few values wastes most of each byte, and zstd's Huffman
 * stage cannot code a symbol in less than one bit: pack it as base-radix digits, digits_per[r]
 * to a byte, where that fills at least 7 of the 8 bits (offsets over 1 GiB in 4 KiB: radix 4).
 */
static const uint8_t digits_per[17] = { 0, 0, 8, 5, 4, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 };
static const bool pack_worth[17] = { [2] = 1, [3] = 1, [4] = 1, [6] = 1, [12] = 1, [13] = 1,
				     [14] = 1, [15] = 1, [16] = 1 };

struct codec_enc {
	uint32_t cap, n;
	bool file;
	unsigned int ncols;
	bool oncpu; /* some event of the chunk has oncpu_ns: the optional column is written */
	bool cpuwait; /* some has cpuwait_ns: that column too, after the on-CPU one */
	uint64_t *v[COL__ALL];
	uint32_t nv[COL__ALL];
	uint64_t prev_q, prev_i, prev_c;
	uint64_t first, last, prev_t;
	bool sorted;
	uint8_t (*dict)[IO_COMM_LEN];
	uint32_t ndict, last_comm, hmask;
	uint32_t *hash; /* dictionary index + 1, 0 = empty slot */
};

struct codec_enc *codec_enc_new(uint32_t cap, bool file)
{
	struct codec_enc *e = calloc(1, sizeof(*e));
	uint32_t hs = 16;

	if (!e)
		return NULL;
	e->cap = cap;
	e->file = file;
	e->ncols = codec_ncols(file);
	while (hs < 2 * cap)
		hs <<= 1;
	e->hmask = hs - 1;
	e->hash = calloc(hs, sizeof(*e->hash));
	e->dict = malloc((size_t)cap * IO_COMM_LEN);
	for (unsigned int c = 0; c < COL__ALL; c++) {
		if (c >= e->ncols && c != COL_ONCPU && c != COL_CPUWAIT)
			continue;
		e->v[c] = malloc((size_t)cap * sizeof(uint64_t));
		if (!e->v[c])
			goto fail;
	}
	if (!e->hash || !e->dict)
		goto fail;
	e->sorted = true;
	e->first = UINT64_MAX;
	return e;
fail:
	codec_enc_free(e);
	errno = ENOMEM;
	return NULL;
}

void codec_enc_free(struct codec_enc *e)
{
	if (!e)
		return;
	for (int c = 0; c < COL__ALL; c++)
		free(e->v[c]);
	free(e->hash);
	free(e->dict);
	free(e);
}

uint32_t codec_enc_count(const struct codec_enc *e)
{
	return e->n;
}
uint64_t codec_enc_first(const struct codec_enc *e)
{
	return e->first;
}
uint64_t codec_enc_last(const struct codec_enc *e)
{
	return e->last;
}
bool codec_enc_sorted(const struct codec_enc *e)
{
	return e->sorted;
}

static uint32_t comm_index(struct codec_enc *e, const char *comm)
{
	uint64_t a, b;
	uint32_t h;

	/* Most consecutive I/Os come from the same task: try the last entry first. */
	if (e->ndict && !memcmp(e->dict[e->last_comm], comm, IO_COMM_LEN))
		return e->last_comm;
	memcpy(&a, comm, 8);
	memcpy(&b, comm + 8, 8);
	h = (uint32_t)(((a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full)) >> 40);
	for (;; h++) {
		uint32_t s = e->hash[h & e->hmask];

		if (!s) {
			memcpy(e->dict[e->ndict], comm, IO_COMM_LEN);
			e->hash[h & e->hmask] = ++e->ndict;
			return e->last_comm = e->ndict - 1;
		}
		if (!memcmp(e->dict[s - 1], comm, IO_COMM_LEN))
			return e->last_comm = s - 1;
	}
}

void codec_enc_add(struct codec_enc *e, const struct io_event *ev)
{
	uint32_t i = e->n++;
	uint64_t q = ev->queue_ns, is = ev->issue_ns, c = ev->complete_ns, t;
	unsigned int p = (q != IO_TS_NONE) | (is != IO_TS_NONE) << 1 | (c != IO_TS_NONE) << 2;

	e->v[COL_PRES][i] = p;
	if (p & 1) {
		e->v[COL_Q][e->nv[COL_Q]++] = q - e->prev_q;
		e->prev_q = q;
	}
	if (p & 2) {
		e->v[COL_I][e->nv[COL_I]++] = is - ((p & 1) ? q : e->prev_i);
		e->prev_i = is;
	}
	if (p & 4) {
		e->v[COL_C][e->nv[COL_C]++] = c - ((p & 2) ? is : (p & 1) ? q : e->prev_c);
		e->prev_c = c;
	}
	e->v[COL_OFF][i] = ev->offset;
	e->v[COL_LEN][i] = ev->length;
	e->v[COL_DEV][i] = ev->dev;
	e->v[COL_PID][i] = ev->pid;
	e->v[COL_TID][i] = (uint64_t)ev->tid - ev->pid;
	e->v[COL_ERR][i] = (uint64_t)(int64_t)ev->error;
	e->v[COL_STREAM][i] = ev->stream;
	e->v[COL_CPU][i] = ev->cpu;
	e->v[COL_OP][i] = ev->op;
	e->v[COL_FLAGS][i] = ev->flags;
	e->v[COL_COMM][i] = comm_index(e, ev->comm);
	e->v[COL_ONCPU][i] = ev->oncpu_ns;
	e->oncpu |= ev->oncpu_ns != 0;
	e->v[COL_CPUWAIT][i] = ev->cpuwait_ns;
	e->cpuwait |= ev->cpuwait_ns != 0;

	t = io_event_time(ev);
	if (t < e->first)
		e->first = t;
	if (i == 0 || t > e->last)
		e->last = t;
	if (i && t < e->prev_t)
		e->sorted = false;
	e->prev_t = t;
}

void codec_enc_add_file(struct codec_enc *e, const struct io_event *ev, const struct io_fext *x)
{
	uint32_t i = e->n;

	codec_enc_add(e, ev);
	e->v[COL_FILE][i] = x->file;
	e->v[COL_FD][i] = (uint64_t)(int64_t)x->fd;
	e->v[COL_OFLAGS][i] = x->oflags;
	e->v[COL_AUX][i] = x->aux;
	e->v[COL_RESULT][i] = (uint64_t)x->result;
	e->v[COL_ARG][i] = x->arg;
	e->v[COL_IFACE][i] = x->iface;
}

size_t codec_enc_raw_bound(const struct codec_enc *e)
{
	return 16 + (size_t)e->ndict * IO_COMM_LEN + (e->ncols + 1) * (24 + 8 * (size_t)e->n);
}

size_t codec_enc_max_cuts(void)
{
	return COL__ALL * 8 + 2;
}

/* Minimum (as signed: deltas may be negative) and largest distance to it. */
static void col_range(const uint64_t *v, uint32_t n, uint64_t *min, uint64_t *range)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	for (uint32_t i = 0; i < n; i++) {
		int64_t x = (int64_t)v[i];

		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
	}
	*min = n ? (uint64_t)lo : 0;
	*range = n ? (uint64_t)hi - (uint64_t)lo : 0;
}

/*
 * Offset as a distance from where the previous I/O of the same slot ended, in place. The slot
 * is the device (dev & 63), or in a file-level chunk the file (file & 63): a file's offsets
 * follow each other, a filesystem's do not.
 */
static void offsets_to_deltas(struct codec_enc *e)
{
	const uint64_t *slot = e->v[e->file ? COL_FILE : COL_DEV];
	uint64_t prev_end[64] = { 0 };

	for (uint32_t i = 0; i < e->n; i++) {
		unsigned int d = slot[i] & 63;
		uint64_t off = e->v[COL_OFF][i];

		e->v[COL_OFF][i] = off - prev_end[d];
		prev_end[d] = off + e->v[COL_LEN][i];
	}
}

static uint64_t delta_range(const struct codec_enc *e)
{
	const uint64_t *slot = e->v[e->file ? COL_FILE : COL_DEV];
	uint64_t prev_end[64] = { 0 };
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	for (uint32_t i = 0; i < e->n; i++) {
		unsigned int d = slot[i] & 63;
		int64_t x = (int64_t)(e->v[COL_OFF][i] - prev_end[d]);

		prev_end[d] = e->v[COL_OFF][i] + e->v[COL_LEN][i];
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
	}
	return e->n ? (uint64_t)hi - (uint64_t)lo : 0;
}

size_t codec_enc_finish(struct codec_enc *e, uint8_t *out, size_t *cuts, size_t *ncuts)
{
	size_t pos = 16, nc = 0;
	/* the CPU-wait column is written after the on-CPU one, which it needs in place */
	unsigned int ncols = e->ncols + (e->oncpu || e->cpuwait) + e->cpuwait;

	put_u32(out, e->n);
	put_u32(out + 4, e->ndict);
	put_u32(out + 8, ncols);
	put_u32(out + 12, 0);
	memcpy(out + pos, e->dict, (size_t)e->ndict * IO_COMM_LEN);
	pos += (size_t)e->ndict * IO_COMM_LEN;

	for (unsigned int at = 0; at < ncols; at++) {
		unsigned int c = at < e->ncols ? at : at == e->ncols ? COL_ONCPU : COL_CPUWAIT;
		uint32_t n = (c >= COL_Q && c <= COL_C) ? e->nv[c] : e->n;
		uint64_t *v = e->v[c], min, range, g = 0, scaled;
		unsigned int width = 0, mode = 0, radix;

		col_range(v, n, &min, &range);
		if (c == COL_OFF && range && delta_range(e) < range) {
			/* Sequential streams cost nothing this way; random ones stay absolute. */
			offsets_to_deltas(e);
			col_range(v, n, &min, &range);
			mode = 1;
		}
		if (range) {
			for (uint32_t i = 0; i < n && g != 1; i++) {
				uint64_t d = v[i] - min;

				if (g == 0 || d % g)
					g = gcd_u64(g, d);
			}
		}
		if (!g)
			g = 1;
		scaled = range / g;
		while (width < 8 && (scaled >> (8 * width)))
			width++;
		radix = width ? (scaled >> (8 * (width - 1))) + 1 : 0;
		if (radix > 16 || !pack_worth[radix])
			radix = 0;
		out[pos] = width;
		out[pos + 1] = mode;
		out[pos + 2] = radix;
		out[pos + 3] = 0;
		put_u32(out + pos + 4, n);
		put_u64(out + pos + 8, min);
		put_u64(out + pos + 16, g);
		pos += 24;
		if (!width)
			continue;
		if (g == 1) {
			for (uint32_t i = 0; i < n; i++)
				v[i] -= min;
		} else if (!(g & (g - 1))) {
			unsigned int sh = __builtin_ctzll(g);

			for (uint32_t i = 0; i < n; i++)
				v[i] = (v[i] - min) >> sh;
		} else {
			for (uint32_t i = 0; i < n; i++)
				v[i] = (v[i] - min) / g;
		}
		for (unsigned int k = 0; k < width - (radix ? 1 : 0); k++) {
			uint8_t *o = out + pos;

			for (uint32_t i = 0; i < n; i++)
				o[i] = v[i] >> (8 * k);
			pos += n;
			cuts[nc++] = pos;
		}
		if (radix) {
			unsigned int digits = digits_per[radix], sh = 8 * (width - 1), r = 0;
			uint32_t nb = (n + digits - 1) / digits, q = 0, mul = 1;
			uint8_t *o = out + pos;

			memset(o, 0, nb);
			for (uint32_t i = 0; i < n; i++) {
				o[q] += (v[i] >> sh) * mul;
				mul *= radix;
				if (++r == digits) {
					r = 0;
					q++;
					mul = 1;
				}
			}
			pos += nb;
			cuts[nc++] = pos;
		}
	}
	if (!nc || cuts[nc - 1] != pos)
		cuts[nc++] = pos;
	*ncuts = nc;

	e->n = 0;
	e->oncpu = false;
	e->cpuwait = false;
	memset(e->nv, 0, sizeof(e->nv));
	e->prev_q = e->prev_i = e->prev_c = 0;
	e->first = UINT64_MAX;
	e->last = e->prev_t = 0;
	e->sorted = true;
	memset(e->hash, 0, ((size_t)e->hmask + 1) * sizeof(*e->hash));
	e->ndict = e->last_comm = 0;
	return pos;
}

/* ---- decoder ---- */

int codec_dec_init(struct codec_dec *d, const uint8_t *raw, size_t len, uint32_t ndevices,
		   bool file, uint32_t nfiles, const char **what)
{
	uint32_t ncols, known = codec_ncols(file);
	size_t pos = 16;

	memset(d, 0, sizeof(*d));
	d->file = file;
	d->nfiles = nfiles;
	if (len < 16) {
		*what = "chunk too short";
		return -EBADMSG;
	}
	d->count = get_u32(raw);
	d->ndict = get_u32(raw + 4);
	ncols = get_u32(raw + 8);
	d->ndevices = ndevices;
	if (get_u32(raw + 12) || ncols < known || ncols > 256) {
		*what = "bad column table";
		return -EBADMSG;
	}
	if (d->count > TRACE_MAX_CHUNK_EVENTS || d->ndict > d->count ||
	    (uint64_t)d->ndict * IO_COMM_LEN > len - pos) {
		*what = "bad event count or comm dictionary";
		return -EBADMSG;
	}
	d->dict = raw + pos;
	pos += (size_t)d->ndict * IO_COMM_LEN;
	for (uint32_t at = 0; at < ncols; at++) {
		/* the columns after the known ones are the optional on-CPU one (1.6) and the
		 * CPU-wait one (1.8); later ones, a newer minor's, are skipped */
		uint32_t c = at < known ? at : at == known ? COL_ONCPU :
			     at == known + 1 ? COL_CPUWAIT : COL__ALL;
		struct codec_col col;
		uint64_t bytes;

		if (len - pos < 24) {
			*what = "column header past the end";
			return -EBADMSG;
		}
		col.width = raw[pos];
		col.mode = raw[pos + 1];
		col.radix = raw[pos + 2];
		col.n = get_u32(raw + pos + 4);
		col.base = get_u64(raw + pos + 8);
		col.mult = get_u64(raw + pos + 16);
		col.pos = 0;
		pos += 24;
		col.digits = col.radix <= 16 ? digits_per[col.radix] : 0;
		bytes = (uint64_t)col.width * col.n;
		if (col.radix && col.digits && col.width)
			bytes = (uint64_t)(col.width - 1) * col.n + (col.n + col.digits - 1) / col.digits;
		if (col.width > 8 || raw[pos - 21] || (col.radix && (!col.digits || !col.width)) ||
		    bytes > len - pos ||
		    col.mode > (c == COL_OFF ? 1 : 0) || col.n > d->count ||
		    ((c < known || c == COL_ONCPU || c == COL_CPUWAIT) && !(c >= COL_Q && c <= COL_C) &&
		     col.n != d->count)) {
			*what = "bad column header";
			return -EBADMSG;
		}
		col.data = raw + pos;
		pos += bytes;
		if (c == COL__ALL)
			continue;
		d->oncpu |= c == COL_ONCPU;
		d->cpuwait |= c == COL_CPUWAIT;
		d->col[c] = col;
		for (unsigned int b = 0; col.radix && b < 256; b++)
			for (unsigned int j = 0, x = b; j < col.digits; j++, x /= col.radix)
				d->unpack[c][b][j] = x % col.radix;
	}
	if (pos != len) {
		*what = "trailing bytes after the columns";
		return -EBADMSG;
	}
	return 0;
}

static void col_get(struct codec_col *c, const uint8_t (*unpack)[8], uint64_t *restrict dst,
		    uint32_t m)
{
	const uint8_t *restrict p = c->data + c->pos;
	const uint32_t n = c->n, at = c->pos;
	const uint64_t base = c->base, mult = c->mult;

	c->pos += m;
	if (!c->width) {
		for (uint32_t i = 0; i < m; i++)
			dst[i] = base;
		return;
	}
	/* One pass per width, so the compiler can widen bytes to u64 lanes. */
	switch (c->width - (c->radix ? 1 : 0)) {
	case 0:
		for (uint32_t i = 0; i < m; i++)
			dst[i] = 0;
		break;
	case 1:
		for (uint32_t i = 0; i < m; i++)
			dst[i] = p[i];
		break;
	case 2:
		for (uint32_t i = 0; i < m; i++)
			dst[i] = p[i] | (uint64_t)p[n + i] << 8;
		break;
	case 3:
		for (uint32_t i = 0; i < m; i++)
			dst[i] = p[i] | (uint64_t)p[n + i] << 8 | (uint64_t)p[2 * n + i] << 16;
		break;
	case 4:
		for (uint32_t i = 0; i < m; i++)
			dst[i] = p[i] | (uint64_t)p[n + i] << 8 | (uint64_t)p[2 * n + i] << 16 |
				 (uint64_t)p[3 * n + i] << 24;
		break;
	default:
		for (uint32_t i = 0; i < m; i++)
			dst[i] = 0;
		for (uint32_t k = 0; k < c->width - (c->radix ? 1u : 0u); k++) {
			const uint8_t *pk = p + (size_t)k * n;

			for (uint32_t i = 0; i < m; i++)
				dst[i] |= (uint64_t)pk[i] << (8 * k);
		}
	}
	if (c->radix) {
		const uint8_t *top = c->data + (size_t)(c->width - 1) * n + at / c->digits;
		unsigned int r = at % c->digits, sh = 8 * (c->width - 1);

		for (uint32_t i = 0; i < m; i++) {
			dst[i] |= (uint64_t)unpack[*top][r] << sh;
			if (++r == c->digits) {
				r = 0;
				top++;
			}
		}
	}
	if (mult == 1) {
		for (uint32_t i = 0; i < m; i++)
			dst[i] += base;
	} else {
		for (uint32_t i = 0; i < m; i++)
			dst[i] = base + dst[i] * mult;
	}
}

/* The io_fext columns of a file-level chunk, for m events, into x. Returns 0 or -EBADMSG. */
static int dec_fext(struct codec_dec *d, struct io_fext *x, uint32_t m, const char **what)
{
	uint64_t v[COL__FCOUNT - COL_FILE][DEC_BATCH], bad = 0;

	for (unsigned int c = COL_FILE; c < COL__FCOUNT; c++)
		col_get(&d->col[c], d->unpack[c], v[c - COL_FILE], m);
	for (uint32_t i = 0; i < m; i++) {
		uint64_t file = v[COL_FILE - COL_FILE][i], fd = v[COL_FD - COL_FILE][i];
		uint64_t ofl = v[COL_OFLAGS - COL_FILE][i], aux = v[COL_AUX - COL_FILE][i];
		uint64_t iface = v[COL_IFACE - COL_FILE][i];

		bad |= (file > d->nfiles) | (fd + (1ull << 31)) >> 32 | (ofl | aux) >> 32 |
		       (iface >= IO_FIF__COUNT);
		x[i] = (struct io_fext){ .file = file, .fd = (int32_t)fd, .oflags = ofl, .aux = aux,
					 .result = (int64_t)v[COL_RESULT - COL_FILE][i],
					 .arg = v[COL_ARG - COL_FILE][i], .iface = iface };
	}
	if (bad) {
		*what = "a file-level column value is out of range (or names a file not in the table)";
		return -EBADMSG;
	}
	return 0;
}

static int dec_batch(struct codec_dec *d, struct io_event *out, struct io_fext *x, uint32_t m,
		     const char **what)
{
	uint64_t pres[DEC_BATCH], tq[DEC_BATCH], ti[DEC_BATCH], tc[DEC_BATCH], off[DEC_BATCH];
	uint64_t len[DEC_BATCH], dev[DEC_BATCH], pid[DEC_BATCH], tid[DEC_BATCH], err[DEC_BATCH];
	uint64_t stream[DEC_BATCH], cpu[DEC_BATCH], op[DEC_BATCH], fl[DEC_BATCH], comm[DEC_BATCH];
	uint64_t oncpu[DEC_BATCH], cpuwait[DEC_BATCH];
	uint32_t nq = 0, ni = 0, nc = 0, jq = 0, ji = 0, jc = 0;
	uint64_t bad = 0, newop = 0, ndev = d->ndevices ? d->ndevices : UINT64_MAX;
	uint64_t nops = d->file ? IO_FOP__COUNT : IO_OP__COUNT;
	uint64_t flmask = d->file ? IO_FF__ALL : IO_F__ALL;
	struct codec_col *col = d->col;

	col_get(&col[COL_PRES], d->unpack[COL_PRES], pres, m);
	for (uint32_t i = 0; i < m; i++) {
		bad |= pres[i] >> 3;
		nq += pres[i] & 1;
		ni += (pres[i] >> 1) & 1;
		nc += (pres[i] >> 2) & 1;
	}
	if (bad || nq > col[COL_Q].n - col[COL_Q].pos || ni > col[COL_I].n - col[COL_I].pos ||
	    nc > col[COL_C].n - col[COL_C].pos) {
		*what = "timestamp presence does not match the time columns";
		return -EBADMSG;
	}
	col_get(&col[COL_Q], d->unpack[COL_Q], tq, nq);
	col_get(&col[COL_I], d->unpack[COL_I], ti, ni);
	col_get(&col[COL_C], d->unpack[COL_C], tc, nc);
	col_get(&col[COL_OFF], d->unpack[COL_OFF], off, m);
	col_get(&col[COL_LEN], d->unpack[COL_LEN], len, m);
	col_get(&col[COL_DEV], d->unpack[COL_DEV], dev, m);
	col_get(&col[COL_PID], d->unpack[COL_PID], pid, m);
	col_get(&col[COL_TID], d->unpack[COL_TID], tid, m);
	col_get(&col[COL_ERR], d->unpack[COL_ERR], err, m);
	col_get(&col[COL_STREAM], d->unpack[COL_STREAM], stream, m);
	col_get(&col[COL_CPU], d->unpack[COL_CPU], cpu, m);
	col_get(&col[COL_OP], d->unpack[COL_OP], op, m);
	col_get(&col[COL_FLAGS], d->unpack[COL_FLAGS], fl, m);
	col_get(&col[COL_COMM], d->unpack[COL_COMM], comm, m);
	if (d->oncpu)
		col_get(&col[COL_ONCPU], d->unpack[COL_ONCPU], oncpu, m);
	else
		memset(oncpu, 0, m * sizeof(*oncpu));
	if (d->cpuwait)
		col_get(&col[COL_CPUWAIT], d->unpack[COL_CPUWAIT], cpuwait, m);
	else
		memset(cpuwait, 0, m * sizeof(*cpuwait));
	if (d->file && dec_fext(d, x, m, what))
		return -EBADMSG;

	for (uint32_t i = 0; i < m; i++) {
		struct io_event *e = &out[i];
		unsigned int p = pres[i];
		uint64_t q = IO_TS_NONE, is = IO_TS_NONE, c = IO_TS_NONE, o;
		uint64_t t = pid[i] + tid[i];

		if (p & 1) {
			q = d->prev_q + tq[jq++];
			d->prev_q = q;
		}
		if (p & 2) {
			is = ((p & 1) ? q : d->prev_i) + ti[ji++];
			d->prev_i = is;
		}
		if (p & 4) {
			c = ((p & 2) ? is : (p & 1) ? q : d->prev_c) + tc[jc++];
			d->prev_c = c;
		}
		o = off[i];
		if (col[COL_OFF].mode) {
			/* the same slot as the encoder's offsets_to_deltas() */
			unsigned int s = (d->file ? x[i].file : dev[i]) & 63;

			o += d->prev_end[s];
			d->prev_end[s] = o + len[i];
		}
		bad |= (len[i] | pid[i] | t | stream[i]) >> 32 | (err[i] + (1ull << 31)) >> 32 |
		       cpu[i] >> 16 | cpuwait[i] >> 32 | (fl[i] & ~flmask) | (dev[i] >= ndev) | (comm[i] >= d->ndict);
		newop |= op[i] >= nops;
		e->queue_ns = q;
		e->issue_ns = is;
		e->complete_ns = c;
		e->offset = o;
		e->length = len[i];
		e->dev = dev[i];
		e->pid = pid[i];
		e->tid = t;
		e->error = (int32_t)err[i];
		e->stream = stream[i];
		e->cpu = cpu[i];
		e->op = op[i];
		e->flags = fl[i];
		e->cpuwait_ns = (uint32_t)cpuwait[i];
		e->oncpu_ns = oncpu[i];
		if (comm[i] < d->ndict)
			memcpy(e->comm, d->dict + comm[i] * IO_COMM_LEN, IO_COMM_LEN);
	}
	if (bad) {
		*what = "a column value is out of range";
		return -EBADMSG;
	}
	if (newop) {
		/* ops are appended (formats/file.h): a newer ioreel's, not a damaged file */
		*what = "an op this ioreel does not know, from a newer ioreel: upgrade to read it";
		return -EBADMSG;
	}
	return 0;
}

long codec_dec_next(struct codec_dec *d, struct io_event *out, struct io_fext *x, size_t cap,
		    const char **what)
{
	size_t total = d->count - d->done, done = 0;

	if (d->file && !x) {
		*what = "a file-level chunk read as block events";
		return -EMEDIUMTYPE;
	}
	if (cap < total)
		total = cap;
	while (done < total) {
		uint32_t m = total - done > DEC_BATCH ? DEC_BATCH : total - done;
		int err = dec_batch(d, out + done, d->file ? x + done : NULL, m, what);

		if (err)
			return err;
		done += m;
	}
	d->done += done;
	if (d->done == d->count && (d->col[COL_Q].pos != d->col[COL_Q].n ||
				    d->col[COL_I].pos != d->col[COL_I].n ||
				    d->col[COL_C].pos != d->col[COL_C].n)) {
		*what = "time columns hold more values than present timestamps";
		return -EBADMSG;
	}
	return done;
}
