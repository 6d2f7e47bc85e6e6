// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fio options that shape the I/O, applied to a synth job (the command line and job files
 * alike), and the options of the InnoDB model. Values are read with fio's rules
 * (synth/fiovalue.c); what each option means here is in synth/FIO.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "synth/fio.h"
#include "synth/synth.h"
#include "util/cli.h"

void synth_job_defaults(struct synth_job *j)
{
	memset(j, 0, sizeof(*j));
	snprintf(j->name, sizeof(j->name), "synth");
	j->ddirs = 1u << SYNTH_DDIR_READ;
	j->rwmixread = 50;
	for (int d = 0; d < SYNTH_DDIR_N; d++) {
		j->bs[d].n = 1;
		j->bs[d].e[0].bs = 4096;
		j->bs[d].e[0].pct = 100;
	}
	j->iodepth = 1;
	j->numjobs = 1;
	j->dist.kind = DIST_UNIFORM;
	j->seed = SYNTH_DEFAULT_SEED;
	j->perc_rand = 100;
	j->flow_lead = -1;
	j->lat_pct_ppm = 1000000; /* fio's latency_percentile default: 100 */
	j->buffered = true;	  /* fio's direct=0 */
	j->spr_regions = 100;	  /* fio's sprandom defaults */
	j->spr_op = 0.15;
}

void synth_innodb_defaults(struct synth_innodb *m)
{
	memset(m, 0, sizeof(*m));
	m->data_size = 1ULL << 30;
	m->log_size = 64ULL << 20;
	m->page_size = 16384;
	m->readers = 8;
	m->reads_per_reader = 4096;
	m->commits = 8192;
	m->log_min = 512;
	m->log_max = 65536;
	m->dblwr_pages = 64;
	m->batches = 64;
	m->cleaner_depth = 16;
	m->dist.kind = DIST_UNIFORM;
	m->seed = SYNTH_DEFAULT_SEED;
}

/* "read_write" -> "read-write" so CLI (--rate-iops) and job-file (rate_iops) spellings match. */
static void norm_key(const char *key, char *out, size_t len)
{
	size_t i;

	for (i = 0; key[i] && i + 1 < len; i++)
		out[i] = key[i] == '_' ? '-' : key[i];
	out[i] = '\0';
}

/* What one option call works with. */
struct opt_ctx {
	struct synth_job *j;
	const char *key, *v;
	unsigned int kb;
	char *why;
	size_t why_len;
};

static int bad(struct opt_ctx *c, const char *expected)
{
	snprintf(c->why, c->why_len, "%s=%s: expected %s", c->key, c->v ? c->v : "", expected);
	return -EINVAL;
}

static int refuse(struct opt_ctx *c, const char *why)
{
	snprintf(c->why, c->why_len, "%s=%s: %s", c->key, c->v ? c->v : "", why);
	return -EOPNOTSUPP;
}

/* Splits "a,b,c" into per-direction parts (read, write, trim) by fio's rule: one value applies
 * to every direction, "a,b" leaves trim as it was, an empty part leaves its direction alone.
 * v may be buf itself (bsrange rewrites its value there first). */
static int split_ddir(const char *v, char *buf, size_t len, const char *part[SYNTH_DDIR_N])
{
	int n = 0;

	if (!v || !*v || strlen(v) >= len)
		return -EINVAL;
	memmove(buf, v, strlen(v) + 1); /* strcpy onto itself is undefined */
	part[n++] = buf;
	for (char *p = buf; *p; p++)
		if (*p == ',') {
			if (n == SYNTH_DDIR_N)
				return -EINVAL;
			*p = '\0';
			part[n++] = p + 1;
		}
	for (int d = n; d < SYNTH_DDIR_N; d++)
		part[d] = n == 1 ? part[0] : NULL;
	for (int d = 0; d < SYNTH_DDIR_N; d++)
		if (part[d] && !*part[d])
			part[d] = NULL;
	return 0;
}

/* One direction's bssplit: "4k/50:16k/30:64k" (fio: a missing or 0 share splits the rest). */
static int parse_bssplit_one(const char *s, unsigned int kb, struct synth_bsplit *b)
{
	char buf[1024], *save = NULL, *tok;
	uint32_t given = 0, nopct = 0, zeros = 0, left, seen = 0;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	memset(b, 0, sizeof(*b));
	for (tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		char *slash = strchr(tok, '/');
		uint64_t bs;
		int64_t pct = 0;

		if (b->n == SYNTH_MAX_BS)
			return -EINVAL;
		if (slash)
			*slash = '\0';
		if (fio_parse_bytes(tok, kb, &bs) || bs == 0 || bs > UINT32_MAX)
			return -EINVAL;
		if (slash && (fio_parse_int(slash + 1, &pct) || pct < 0 || pct > 100))
			return -EINVAL;
		b->e[b->n].bs = (uint32_t)bs;
		b->e[b->n].pct = pct ? (uint32_t)pct : UINT32_MAX;
		if (pct)
			given += (uint32_t)pct;
		else
			nopct++;
		zeros += slash && !pct;
		b->n++;
	}
	/* fio reads a 0 share as none (it gets a part of the rest), but a split whose every
	 * share is an explicit 0 asks for no I/O of any size (issue 21 W11) */
	if (b->n && zeros == b->n)
		return -ERANGE;
	if (!b->n || given > 100 || (!nopct && given != 100))
		return -EINVAL;
	left = 100 - given;
	for (uint32_t i = 0; i < b->n; i++) {
		if (b->e[i].pct != UINT32_MAX)
			continue;
		seen++;
		b->e[i].pct = seen == nopct ? left - (nopct - 1) * (left / nopct) : left / nopct;
	}
	return 0;
}

static int set_bs(struct opt_ctx *c, bool split)
{
	const char *part[SYNTH_DDIR_N];
	struct synth_bsplit tmp[SYNTH_DDIR_N];
	char buf[2048];

	if (split_ddir(c->v, buf, sizeof(buf), part))
		goto fail;
	memcpy(tmp, c->j->bs, sizeof(tmp));
	for (int d = 0; d < SYNTH_DDIR_N; d++) {
		if (!part[d])
			continue;
		int err = parse_bssplit_one(part[d], c->kb, &tmp[d]);

		if (err == -ERANGE)
			return bad(c, "a share above 0 for at least one size (every share is 0: "
				      "no I/O would be made)");
		if (err)
			goto fail;
		if (!split && tmp[d].n != 1)
			return bad(c, "one size per direction (bssplit gives a mix)");
	}
	memcpy(c->j->bs, tmp, sizeof(tmp));
	return 0;
fail:
	return bad(c, split ? "a split like 4k/50:16k/30:64k/20 per direction, shares to 100" :
			      "sizes like 4k, or 4k,16k for reads,writes");
}

/* bsrange=1k-4k[,2k-8k] (also '/' or ':' between the directions' ranges, fio's irange). */
static int set_bsrange(struct opt_ctx *c)
{
	const char *part[SYNTH_DDIR_N];
	char buf[512];

	if (!c->v || strlen(c->v) >= sizeof(buf))
		return bad(c, "a range like 4k-64k");
	strcpy(buf, c->v);
	for (char *p = buf; *p; p++)
		if (*p == '/')
			*p = ',';
	if (split_ddir(buf, buf, sizeof(buf), part))
		return bad(c, "a range like 4k-64k");
	for (int d = 0; d < SYNTH_DDIR_N; d++) {
		char r[sizeof(buf)], *sep; /* a part is shorter than buf: none is skipped */
		uint64_t lo, hi;

		if (!part[d])
			continue;
		strcpy(r, part[d]);
		sep = strpbrk(r, "-:");
		if (!sep)
			return bad(c, "a range like 4k-64k");
		*sep = '\0';
		if (fio_parse_bytes(r, c->kb, &lo) || fio_parse_bytes(sep + 1, c->kb, &hi) || !lo ||
		    !hi || lo > UINT32_MAX || hi > UINT32_MAX)
			return bad(c, "a range like 4k-64k");
		if (lo > hi) /* fio swaps them silently; a typo more likely (issue 21 W12) */
			return bad(c, "a range from the smaller size to the larger, like 4k-64k");
		memset(&c->j->bs[d], 0, sizeof(c->j->bs[d]));
		c->j->bs[d].n = 1;
		c->j->bs[d].e[0].bs = (uint32_t)lo;
		c->j->bs[d].e[0].pct = 100;
		if (hi > lo) {
			c->j->bs[d].range_lo = (uint32_t)lo;
			c->j->bs[d].range_hi = (uint32_t)hi;
		}
	}
	return 0;
}

static int set_rw(struct opt_ctx *c)
{
	static const struct {
		const char *name;
		bool random, trimwrite;
		unsigned int ddirs;
	} rws[] = {
		{ "read", false, false, 1 },	    { "write", false, false, 2 },
		{ "trim", false, false, 4 },	    { "randread", true, false, 1 },
		{ "randwrite", true, false, 2 },    { "randtrim", true, false, 4 },
		{ "rw", false, false, 3 },	    { "readwrite", false, false, 3 },
		{ "randrw", true, false, 3 },	    { "trimwrite", false, true, 6 },
		{ "randtrimwrite", true, true, 6 },
	};
	char name[32];
	const char *colon = c->v ? strchr(c->v, ':') : NULL;
	size_t n = colon ? (size_t)(colon - c->v) : (c->v ? strlen(c->v) : 0);

	if (!c->v || n >= sizeof(name))
		goto fail;
	memcpy(name, c->v, n);
	name[n] = '\0';
	for (size_t i = 0; i < sizeof(rws) / sizeof(rws[0]); i++) {
		if (strcmp(name, rws[i].name))
			continue;
		c->j->random = rws[i].random;
		c->j->ddirs = rws[i].ddirs;
		c->j->trimwrite = rws[i].trimwrite;
		c->j->seq_add = 0;
		c->j->rand_run = 0;
		if (colon) {
			/* the offset modifier: random -> I/Os per new offset; sequential -> bytes
			 * added after each I/O (fio's "ddir_seq_add", negative runs backwards) */
			int neg = colon[1] == '-';
			uint64_t v;

			if (fio_parse_bytes(colon + 1 + neg, c->kb, &v) || v > INT64_MAX)
				return bad(c, "a modifier like randread:8 or read:8k or read:-8k");
			if (c->j->random) {
				if (neg || !v || v > UINT32_MAX)
					return bad(c, "randread:N with N >= 1 I/Os per offset");
				c->j->rand_run = (uint32_t)v;
			} else {
				c->j->seq_add = neg ? -(int64_t)v : (int64_t)v;
			}
		}
		return 0;
	}
fail:
	return bad(c, "read, write, trim, randread, randwrite, randtrim, rw, readwrite, randrw, "
		      "trimwrite or randtrimwrite, with an optional :modifier");
}

/* size, offset, offset_increment: bytes, N% of the file, or Nz zones */
static int set_region_size(struct opt_ctx *c, uint64_t *bytes, uint32_t *ppm, uint64_t *nz)
{
	struct fio_size sz;

	if (!c->v || fio_parse_size(c->v, c->kb, &sz))
		return bad(c, "a size (4k, 10g, 0x1000), N% of the file or device, or Nz zones");
	*bytes = sz.bytes;
	*ppm = sz.is_pct ? (sz.ppm ? sz.ppm : 0) : 0;
	*nz = sz.zones;
	if (sz.is_pct && !sz.ppm && ppm != &c->j->offset_ppm && ppm != &c->j->inc_ppm)
		return bad(c, "a share above 0%");
	return 0;
}

static int set_u64(struct opt_ctx *c, uint64_t *out, uint64_t min, uint64_t max)
{
	int64_t x;

	if (!c->v || fio_parse_int(c->v, &x) || x < 0 || (uint64_t)x < min || (uint64_t)x > max)
		return bad(c, "a whole number in range");
	*out = (uint64_t)x;
	return 0;
}

static int set_flag(struct opt_ctx *c, bool *out)
{
	return fio_parse_bool(c->v, out) ? bad(c, "0 or 1") : 0;
}

/* rate=1m,500k (bytes/s) and rate_iops=100,50: per direction, as fio caps each. */
static int set_rate(struct opt_ctx *c, double *out)
{
	const char *part[SYNTH_DDIR_N];
	char buf[256];

	if (split_ddir(c->v, buf, sizeof(buf), part))
		return bad(c, "a rate, or read,write[,trim] rates");
	for (int d = 0; d < SYNTH_DDIR_N; d++) {
		uint64_t r;

		if (!part[d])
			continue;
		if (fio_parse_bytes(part[d], c->kb, &r))
			return bad(c, "a rate, or read,write[,trim] rates");
		out[d] = (double)r;
	}
	return 0;
}

static int set_engine(struct opt_ctx *c)
{
	const struct fio_engine *e = c->v ? fio_engine_find(c->v) : NULL;

	if (!e) {
		snprintf(c->why, c->why_len,
			 "ioengine=%s: an engine ioreel does not know, so it cannot say whether its "
			 "I/O has a block or file equivalent",
			 c->v ? c->v : "");
		return -EOPNOTSUPP;
	}
	if (e->cls == FIO_ENGINE_REFUSED)
		return refuse(c, e->why);
	c->j->sync_engine = e->cls == FIO_ENGINE_SYNC;
	c->j->device_engine = e->names_device;
	c->j->fileop = (uint8_t)synth_fileop_of(c->v);
	return 0;
}

/* write_mode=write/40:zeroes/30 (io_uring_cmd): plain writes and write-zeroes are ops a trace
 * holds; uncor (write uncorrectable) and verify (a compare on the device) are not. */
static int set_write_mode(struct opt_ctx *c)
{
	char buf[256], *save = NULL, *tok;
	uint32_t zeroes = 0, total = 0, n = 0;

	if (!c->v || strlen(c->v) >= sizeof(buf))
		return bad(c, "write, zeroes, uncor or verify, or a mix like write/40:zeroes/60");
	strcpy(buf, c->v);
	for (tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		char *slash = strchr(tok, '/');
		uint32_t pct = 100;

		if (slash) {
			*slash = '\0';
			pct = (uint32_t)atoi(slash + 1);
		}
		if (!strcmp(tok, "zone_append"))
			return refuse(c, "zone append lets the device choose where each write lands "
					 "in its zone; a trace holds fixed offsets");
		if (!strcmp(tok, "uncor") || !strcmp(tok, "verify"))
			return refuse(c, "NVMe write-uncorrectable and verify commands have no "
					 "equivalent in a trace (reads, writes, flushes, discards, "
					 "write-zeroes)");
		if (strcmp(tok, "write") && strcmp(tok, "zeroes"))
			return bad(c, "write, zeroes, uncor or verify");
		if (!strcmp(tok, "zeroes"))
			zeroes += pct;
		total += pct;
		n++;
	}
	if (!n || (n > 1 && total != 100))
		return bad(c, "shares summing to 100");
	c->j->zeroes_pct = n == 1 ? (zeroes ? 100 : 0) : zeroes;
	return 0;
}

static int set_sg_write_mode(struct opt_ctx *c)
{
	if (c->v && (!strcmp(c->v, "write") || !strcmp(c->v, "write_stream"))) {
		c->j->zeroes_pct = 0;
		return 0;
	}
	if (c->v && !strcmp(c->v, "write_same_ndob")) {
		c->j->zeroes_pct = 100; /* WRITE SAME with no data buffer writes zeroes */
		return 0;
	}
	return refuse(c, "SCSI WRITE AND VERIFY, VERIFY and WRITE SAME with data compare or "
			 "replicate on the device; a trace holds plain reads, writes and write-zeroes");
}

static int set_zonemode(struct opt_ctx *c)
{
	if (c->v && (!strcmp(c->v, "none") || !strcmp(c->v, "strided"))) {
		c->j->zbd = false;
		if (!strcmp(c->v, "none"))
			c->j->zone_size = 0;
		return 0;
	}
	if (c->v && !strcmp(c->v, "zbd")) {
		c->j->zbd = true;
		return refuse(c, "fio writes at each zone's write pointer and resets zones as the "
				 "device's zone state dictates at run time; a trace of fixed "
				 "offsets cannot follow write pointers");
	}
	return bad(c, "none, strided or zbd");
}

/*
 * fio's verify= values: 0 (and our none) verify nothing; every other one, null too ("pretend
 * to verify": fio still reads the data back, checking nothing), reads back what was written.
 * fio refuses any other value, and so does the job here.
 */
static int set_verify(struct opt_ctx *c)
{
	static const char *const reads_back[] = {
		"md5",	    "crc64",	"crc32",    "crc32c-intel", "crc32c",	"crc16",
		"crc7",	    "sha1",	"sha256",   "sha512",	    "sha3-224", "sha3-256",
		"sha3-384", "sha3-512", "xxhash",   "meta",	    "pattern",	"null"};

	if (c->v && (!strcmp(c->v, "0") || !strcmp(c->v, "none"))) {
		c->j->verify = false;
		return 0;
	}
	for (size_t i = 0; c->v && i < sizeof(reads_back) / sizeof(reads_back[0]); i++)
		if (!strcmp(c->v, reads_back[i])) {
			c->j->verify = true;
			return 0;
		}
	return bad(c, "0, or a checksum fio knows (md5, crc32c, crc64, sha256, xxhash, ..., "
		      "meta, pattern, null)");
}

static int set_stonewall(struct opt_ctx *c)
{
	return set_flag(c, &c->j->stonewall);
}

static int set_engine_sync(struct opt_ctx *c)
{
	bool b;

	/* sync=1 or sync=sync|dsync (fio 3.3x): O_SYNC / O_DSYNC writes reach the device as FUA */
	if (c->v && (!strcmp(c->v, "sync") || !strcmp(c->v, "dsync"))) {
		c->j->sync_writes = true;
		return 0;
	}
	if (c->v && !strcmp(c->v, "none")) {
		c->j->sync_writes = false;
		return 0;
	}
	if (fio_parse_bool(c->v, &b))
		return bad(c, "0, 1, none, sync or dsync");
	c->j->sync_writes = b;
	return 0;
}

static int set_direct(struct opt_ctx *c)
{
	bool b;

	if (fio_parse_bool(c->v, &b))
		return bad(c, "0 or 1");
	/* a file-level trace opens its files with O_DIRECT or without, as the job does */
	c->j->buffered = b != (c->key[0] == 'd' || c->key[0] == 'D');
	if (b == (c->key[0] == 'd' || c->key[0] == 'D'))
		return 0;
	snprintf(c->why, c->why_len,
		 "buffered I/O: the trace holds the I/O the job issues; replay issues it with "
		 "O_DIRECT unless --buffered");
	return -EALREADY;
}

static int set_time(struct opt_ctx *c, uint64_t *out, bool default_us)
{
	if (!c->v || fio_parse_time(c->v, default_us, out))
		return bad(c, "a time like 120, 30s, 500ms, 2m (at most 292 years)");
	return 0;
}

static int set_opt(struct opt_ctx *c, const char *k)
{
	struct synth_job *j = c->j;
	uint64_t u;
	bool b;
	int err;

	if (!strcmp(k, "rw") || !strcmp(k, "readwrite"))
		return set_rw(c);
	if (!strcmp(k, "rw-sequencer")) {
		if (c->v && (!strcmp(c->v, "sequential") || !strcmp(c->v, "identical"))) {
			j->run_identical = c->v[0] == 'i';
			return 0;
		}
		return bad(c, "sequential or identical");
	}
	if (!strcmp(k, "rwmixread") || !strcmp(k, "rwmixwrite")) {
		if (set_u64(c, &u, 0, 100))
			return -EINVAL;
		j->rwmixread = k[5] == 'r' ? (uint32_t)u : 100 - (uint32_t)u;
		return 0;
	}
	if (!strcmp(k, "bs") || !strcmp(k, "blocksize"))
		return set_bs(c, false);
	if (!strcmp(k, "bssplit"))
		return set_bs(c, true);
	if (!strcmp(k, "bsrange") || !strcmp(k, "blocksize-range"))
		return set_bsrange(c);
	if (!strcmp(k, "blockalign") || !strcmp(k, "ba") || !strcmp(k, "offset-align")) {
		const char *part[SYNTH_DDIR_N];
		char buf[256];

		if (split_ddir(c->v, buf, sizeof(buf), part) || !part[0] ||
		    fio_parse_bytes(part[0], c->kb, &u) || u > UINT32_MAX)
			return bad(c, "a size like 4k");
		*(k[0] == 'o' ? &j->offset_align : &j->blockalign) = (uint32_t)u;
		return 0;
	}
	if (!strcmp(k, "bs-unaligned") || !strcmp(k, "blocksize-unaligned"))
		return set_flag(c, &j->bs_unaligned);
	if (!strcmp(k, "size"))
		return set_region_size(c, &j->size, &j->size_ppm, &j->size_nz);
	if (!strcmp(k, "offset") || !strcmp(k, "fileoffset"))
		return set_region_size(c, &j->offset, &j->offset_ppm, &j->offset_nz);
	if (!strcmp(k, "offset-increment"))
		return set_region_size(c, &j->offset_inc, &j->inc_ppm, &j->inc_nz);
	if (!strcmp(k, "filesize")) {
		if (!c->v || strpbrk(c->v, "-:") || fio_parse_bytes(c->v, c->kb, &j->filesize))
			return bad(c, "one size (a range of file sizes is not modeled)");
		return 0;
	}
	if (!strcmp(k, "io-size") || !strcmp(k, "io-limit")) {
		if (!c->v || fio_parse_bytes(c->v, c->kb, &j->io_size))
			return bad(c, "a size in bytes (a % of size is not modeled)");
		return 0;
	}
	if (!strcmp(k, "iodepth") || !strcmp(k, "numjobs")) {
		if (set_u64(c, &u, 1, k[0] == 'n' ? TRACE_MAX_STREAMS : 65536))
			return -EINVAL;
		*(k[0] == 'i' ? &j->iodepth : &j->numjobs) = (uint32_t)u;
		return 0;
	}
	if (!strcmp(k, "number-ios"))
		return set_u64(c, &j->number_ios, 0, UINT64_MAX);
	if (!strcmp(k, "fsync"))
		return set_u64(c, &j->fsync, 0, UINT64_MAX);
	if (!strcmp(k, "fdatasync"))
		return set_u64(c, &j->fdatasync, 0, UINT64_MAX);
	if (!strcmp(k, "write-barrier"))
		return set_u64(c, &j->write_barrier, 0, UINT64_MAX);
	if (!strcmp(k, "end-fsync") || !strcmp(k, "fsync-on-close") || !strcmp(k, "end-syncfs")) {
		if (set_flag(c, &b))
			return -EINVAL;
		j->end_fsync |= b;
		return 0;
	}
	if (!strcmp(k, "randseed") || !strcmp(k, "seed"))
		return set_u64(c, &j->seed, 0, UINT64_MAX);
	if (!strcmp(k, "loops"))
		return set_u64(c, &j->loops, 1, UINT64_MAX);
	if (!strcmp(k, "runtime") || !strcmp(k, "timeout"))
		return set_time(c, &j->runtime_ns, false);
	if (!strcmp(k, "ramp-time"))
		return set_time(c, &j->ramp_ns, false);
	if (!strcmp(k, "startdelay")) {
		if (c->v && strchr(c->v, '-'))
			return refuse(c, "a random start delay in a range is not modeled");
		return set_time(c, &j->delay_ns, false);
	}
	if (!strcmp(k, "thinktime"))
		return set_time(c, &j->think_ns, true);
	if (!strcmp(k, "thinktime-spin"))
		return set_time(c, &j->think_spin_ns, true);
	if (!strcmp(k, "thinktime-iotime"))
		return set_time(c, &j->think_iotime_ns, false); /* fio: seconds by default */
	if (!strcmp(k, "thinktime-blocks")) {
		if (set_u64(c, &u, 1, UINT32_MAX))
			return -EINVAL;
		j->think_blocks = (uint32_t)u;
		return 0;
	}
	if (!strcmp(k, "thinktime-blocks-type")) {
		if (c->v && (!strcmp(c->v, "complete") || !strcmp(c->v, "issue"))) {
			j->think_issue = c->v[0] == 'i';
			return 0;
		}
		return bad(c, "complete or issue");
	}
	if (!strcmp(k, "latency-target"))
		return set_time(c, &j->lat_target_ns, true);
	if (!strcmp(k, "latency-window"))
		return set_time(c, &j->lat_window_ns, true);
	if (!strcmp(k, "latency-run"))
		return set_flag(c, &j->lat_run);
	if (!strcmp(k, "latency-percentile")) {
		char *end = NULL;
		double pct = c->v ? strtod(c->v, &end) : -1;

		if (!c->v || end == c->v || *end || !(pct >= 0 && pct <= 100))
			return bad(c, "a percentage from 0 to 100, like 99.9");
		j->lat_pct_ppm = (uint32_t)(pct * 10000 + 0.5);
		return 0;
	}
	if (!strcmp(k, "time-based"))
		return set_flag(c, &j->time_based);
	if (!strcmp(k, "norandommap")) {
		err = set_flag(c, &j->norandommap);
		j->randommap_asked = !err && !j->norandommap;
		return err;
	}
	if (!strcmp(k, "sprandom") || !strncmp(k, "spr-", 4) || !strcmp(k, "random-generator"))
		return synth_sprandom_set(j, k, c->v, c->kb, c->why, c->why_len);
	if (!strcmp(k, "sync"))
		return set_engine_sync(c);
	if (!strcmp(k, "writefua") || !strcmp(k, "readfua"))
		return set_flag(c, k[0] == 'w' ? &j->write_fua : &j->read_fua);
	if (!strcmp(k, "rate-iops") || !strcmp(k, "rate"))
		return set_rate(c, k[4] ? j->rate_ios : j->rate_bytes);
	if (!strcmp(k, "arrivals") || !strcmp(k, "rate-process")) {
		if (c->v && (!strcmp(c->v, "uniform") || !strcmp(c->v, "linear")))
			j->arrivals = SYNTH_ARRIVALS_UNIFORM;
		else if (c->v && !strcmp(c->v, "poisson"))
			j->arrivals = SYNTH_ARRIVALS_POISSON;
		else
			return bad(c, "uniform (fio: linear) or poisson");
		return 0;
	}
	if (!strcmp(k, "random-distribution")) {
		int seq_stride = j->dist.seq_stride;

		err = c->v ? dist_parse(c->v, &j->dist) : -EINVAL;
		j->dist.seq_stride = seq_stride;
		if (err == -EOPNOTSUPP)
			return refuse(c, "one zone set per direction and a distribution's center "
					 "are not modeled");
		_Static_assert(DIST_MAX_SEQ == 64, "the message below says 64");
		if (err)
			return bad(c, "random, zipf[:θ] (θ>0, ≠1), pareto[:h] (0<h<1), normal[:dev] "
				      "(0<=dev<100), zoned:A/R:..., zoned_abs:A/SIZE:... or "
				      "sequence:i,j,... (at most 64 numbers)");
		return 0;
	}
	if (!strcmp(k, "random-sequence-stride")) {
		if (set_flag(c, &b))
			return -EINVAL;
		j->dist.seq_stride = b;
		return 0;
	}
	if (!strcmp(k, "percentage-random") || !strcmp(k, "percentage-sequential")) {
		const char *part[SYNTH_DDIR_N];
		char buf[128];
		int64_t p;

		if (split_ddir(c->v, buf, sizeof(buf), part) || !part[0] ||
		    fio_parse_int(part[0], &p) || p < 0 || p > 100)
			return bad(c, "a percentage 0-100");
		for (int d = 1; d < SYNTH_DDIR_N; d++)
			if (part[d] && strcmp(part[d], part[0]))
				return refuse(c, "a different share per direction is not modeled");
		j->perc_rand = k[11] == 'r' ? (uint32_t)p : 100 - (uint32_t)p;
		return 0;
	}
	if (!strcmp(k, "ioengine"))
		return set_engine(c);
	if (!strcmp(k, "direct") || !strcmp(k, "buffered"))
		return set_direct(c);
	if (!strcmp(k, "filename")) {
		if (!c->v || strlen(c->v) >= sizeof(j->file))
			return bad(c, "a file or device name");
		for (const char *p = c->v; *p; p++)
			if (*p == ':' && (p == c->v || p[-1] != '\\'))
				return refuse(c, "several files in one job (fio's ':' list) are not "
						 "modeled");
		snprintf(j->file, sizeof(j->file), "%s", c->v);
		return 0;
	}
	if (!strcmp(k, "nrfiles") || !strcmp(k, "nr-files")) {
		/* a job over several files becomes a file-level trace (synth/fileops.c) */
		if (set_u64(c, &u, 1, SYNTH_MAX_FILES))
			return -EINVAL;
		c->j->nrfiles = (uint32_t)u;
		return 0;
	}
	if (!strcmp(k, "openfiles")) {
		/* fewer than nrfiles: fio opens a file as it comes to it and closes a finished
		 * one before it opens another (synth/fileops.c) */
		if (set_u64(c, &u, 1, UINT32_MAX))
			return -EINVAL;
		c->j->openfiles = (uint32_t)u;
		return 0;
	}
	if (!strcmp(k, "file-service-type"))
		return synth_file_service_set(c->j, c->v, c->why, c->why_len);
	if (!strcmp(k, "stat-type")) {
		/* filestat, dirstat: stat, lstat and statx all look the name up and read its
		 * attributes; the trace's stat stands for each */
		if (!c->v || (strcmp(c->v, "stat") && strcmp(c->v, "lstat") &&
			      strcmp(c->v, "statx")))
			return bad(c, "stat, lstat or statx");
		return 0;
	}
	if (!strcmp(k, "fill-device") || !strcmp(k, "fill-fs"))
		return set_flag(c, &j->fill);
	if (!strcmp(k, "zonemode"))
		return set_zonemode(c);
	if (!strcmp(k, "zonesize") || !strcmp(k, "zonerange") || !strcmp(k, "zoneskip")) {
		if (!c->v || fio_parse_bytes(c->v, c->kb, &u))
			return bad(c, "a size in bytes");
		*(k[4] == 's' && k[5] == 'i' ? &j->zone_size :
		  k[4] == 'r'		      ? &j->zone_range :
						&j->zone_skip) = u;
		return 0;
	}
	if (!strcmp(k, "verify"))
		return set_verify(c);
	if (!strcmp(k, "do-verify")) {
		if (set_flag(c, &b))
			return -EINVAL;
		if (!b)
			j->verify = false;
		return 0;
	}
	if (!strcmp(k, "verify-backlog"))
		return set_u64(c, &j->verify_backlog, 0, UINT64_MAX);
	if (!strcmp(k, "write-mode"))
		return set_write_mode(c);
	if (!strcmp(k, "sg-write-mode"))
		return set_sg_write_mode(c);
	if (!strcmp(k, "num-range")) {
		if (set_u64(c, &u, 1, 256))
			return -EINVAL;
		j->num_range = (uint32_t)u;
		return 0;
	}
	if (!strcmp(k, "stonewall") || !strcmp(k, "wait-for-previous"))
		return set_stonewall(c);
	if (!strcmp(k, "wait-for")) {
		if (!c->v || strlen(c->v) >= sizeof(j->wait_for))
			return bad(c, "a job name");
		snprintf(j->wait_for, sizeof(j->wait_for), "%s", c->v);
		return 0;
	}
	if (!strcmp(k, "exitall"))
		return set_flag(c, &j->exitall);
	if (!strcmp(k, "new-group"))
		return set_flag(c, &j->new_group);
	if (!strcmp(k, "exit-what")) {
		static const char *const what[] = { "group", "stonewall", "all" };

		for (unsigned int i = 0; c->v && i < 3; i++)
			if (!strcmp(c->v, what[i])) {
				j->exit_what = (uint8_t)i;
				return 0;
			}
		return bad(c, "group, stonewall or all");
	}
	if (!strcmp(k, "flow") || !strcmp(k, "flow-id")) {
		int64_t x;

		/* fio 3.x: flow is a weight (older fio took signed flows; a negative one keeps
		 * its size as the weight) */
		if (!c->v || fio_parse_int(c->v, &x) || x < -1000000 || x > 1000000)
			return bad(c, "a whole number");
		*(k[4] ? &j->flow_id : &j->flow) = (uint32_t)(x < 0 ? -x : x);
		return 0;
	}
	return -ENOENT;
}

int synth_job_set_kb(struct synth_job *j, const char *key, const char *value, unsigned int kb_base,
		     char *why, size_t why_len)
{
	struct opt_ctx c = { .j = j, .key = key, .v = value, .kb = kb_base, .why = why,
			     .why_len = why_len };
	char k[64];

	norm_key(key, k, sizeof(k));
	/* where the I/O goes and how fio names things: no effect on the pattern */
	if (!strcmp(k, "directory") || !strcmp(k, "name") || !strcmp(k, "description") ||
	    !strcmp(k, "group-reporting"))
		return -EALREADY;
	return set_opt(&c, k);
}

int synth_job_set(struct synth_job *j, const char *key, const char *value, char *why,
		  size_t why_len)
{
	return synth_job_set_kb(j, key, value, 1024, why, why_len);
}

int synth_innodb_set(struct synth_innodb *m, const char *key, const char *value, char *why,
		     size_t why_len)
{
	char k[64];
	uint64_t u;
	struct synth_job tmp;
	int err;

	norm_key(key, k, sizeof(k));
	if (!strcmp(k, "log-size") || !strcmp(k, "size")) {
		if (!value || parse_size(value, &u) || u < (1 << 20)) {
			snprintf(why, why_len, "%s=%s: expected a size of at least 1m", key,
				 value ? value : "");
			return -EINVAL;
		}
		if (k[0] == 'l')
			m->log_size = u;
		else
			m->data_size = u;
		return 0;
	}
	if (!strcmp(k, "log-min") || !strcmp(k, "log-max")) {
		if (!value || parse_size(value, &u) || !u || u % 512 || u > (16 << 20)) {
			snprintf(why, why_len, "%s=%s: expected a multiple of 512 up to 16m", key,
				 value ? value : "");
			return -EINVAL;
		}
		if (k[5] == 'i')
			m->log_min = (uint32_t)u;
		else
			m->log_max = (uint32_t)u;
		return 0;
	}
	if (!strcmp(k, "log-fua")) {
		if (fio_parse_bool(value, &m->log_fua)) {
			snprintf(why, why_len, "%s=%s: expected 0 or 1", key, value ? value : "");
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(k, "numjobs") || !strcmp(k, "iodepth") || !strcmp(k, "dblwr-pages")) {
		if (!value || parse_u64(value, &u) || u < 1 || u > 1000) {
			snprintf(why, why_len, "%s=%s: expected a whole number from 1 to 1000", key,
				 value ? value : "");
			return -EINVAL;
		}
		if (k[0] == 'n')
			m->readers = (uint32_t)u;
		else if (k[0] == 'i')
			m->cleaner_depth = (uint32_t)u;
		else
			m->dblwr_pages = (uint32_t)u;
		return 0;
	}
	if (!strcmp(k, "number-ios") || !strcmp(k, "commits") || !strcmp(k, "batches")) {
		if (!value || parse_u64(value, &u) || !u) {
			snprintf(why, why_len, "%s=%s: expected a whole number >= 1", key,
				 value ? value : "");
			return -EINVAL;
		}
		if (k[0] == 'n')
			m->reads_per_reader = u;
		else if (k[0] == 'c')
			m->commits = u;
		else
			m->batches = u;
		return 0;
	}
	/* The rest means the same as for a job. */
	synth_job_defaults(&tmp);
	tmp.dist = m->dist;
	tmp.runtime_ns = m->runtime_ns;
	tmp.time_based = m->time_based;
	tmp.seed = m->seed;
	if (!strcmp(k, "random-distribution") || !strcmp(k, "runtime") ||
	    !strcmp(k, "time-based") || !strcmp(k, "randseed") || !strcmp(k, "seed")) {
		err = synth_job_set(&tmp, key, value, why, why_len);
		if (err)
			return err;
		if (tmp.dist.kind >= DIST_ZONED) {
			snprintf(why, why_len, "%s=%s: the innodb-16k model takes random, zipf, "
					       "pareto or normal", key, value);
			return -EINVAL;
		}
		m->dist = tmp.dist;
		m->runtime_ns = tmp.runtime_ns;
		m->time_based = tmp.time_based;
		m->seed = tmp.seed;
		return 0;
	}
	snprintf(why, why_len,
		 "%s does not apply to the innodb-16k model (it takes size, log-size, numjobs, "
		 "iodepth, number-ios, commits, batches, dblwr-pages, log-min, log-max, log-fua, "
		 "random-distribution, runtime, time-based, seed)",
		 key);
	return -EINVAL;
}
