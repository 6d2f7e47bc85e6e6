// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* fio option names and values, applied to a synth job or to the InnoDB model. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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

static int bad(char *why, size_t len, const char *fmt, const char *key, const char *value)
{
	snprintf(why, len, fmt, key, value ? value : "");
	return -EINVAL;
}

static int parse_bool(const char *v, bool *out)
{
	if (!v || !strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
	    !strcasecmp(v, "on")) {
		*out = true;
		return 0;
	}
	if (!strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no") ||
	    !strcasecmp(v, "off")) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

static int parse_u32_min1(const char *v, uint32_t *out)
{
	uint64_t x;

	if (!v || parse_u64(v, &x) || x < 1 || x > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)x;
	return 0;
}

/* One direction's bssplit: "4k/50:16k/30:64k" (entries without a share split the rest). */
static int parse_bssplit_one(const char *s, struct synth_bsplit *b)
{
	char buf[512], *save = NULL, *tok;
	uint32_t given = 0, nopct = 0;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	b->n = 0;
	for (tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		char *slash = strchr(tok, '/');
		uint64_t bs, pct = 0;

		if (b->n == SYNTH_MAX_BS)
			return -EINVAL;
		if (slash)
			*slash = '\0';
		if (parse_size(tok, &bs) || bs == 0 || bs > UINT32_MAX || bs % 512)
			return -EINVAL;
		if (slash && (parse_u64(slash + 1, &pct) || pct > 100))
			return -EINVAL;
		b->e[b->n].bs = (uint32_t)bs;
		b->e[b->n].pct = slash ? (uint32_t)pct : UINT32_MAX;
		if (slash)
			given += (uint32_t)pct;
		else
			nopct++;
		b->n++;
	}
	if (!b->n || given > 100)
		return -EINVAL;
	/* fio: entries without a percentage share what is left equally, the last gets the rest */
	uint32_t left = 100 - given, seen = 0;

	for (uint32_t i = 0; i < b->n; i++) {
		if (b->e[i].pct != UINT32_MAX)
			continue;
		seen++;
		b->e[i].pct = seen == nopct ? left - (nopct - 1) * (left / nopct) : left / nopct;
	}
	if (!nopct && given != 100)
		return -EINVAL;
	return 0;
}

/* "A[,B[,C]]" per direction read, write, trim; one value applies to all (fio's rule). */
static int parse_per_ddir(const char *v, struct synth_bsplit out[SYNTH_DDIR_N])
{
	char buf[1024], *parts[SYNTH_DDIR_N] = { 0 };
	int n = 0;

	if (!v || strlen(v) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, v);
	parts[n++] = buf;
	for (char *p = buf; *p; p++) {
		if (*p == ',') {
			if (n == SYNTH_DDIR_N)
				return -EINVAL;
			*p = '\0';
			parts[n++] = p + 1;
		}
	}
	struct synth_bsplit tmp[SYNTH_DDIR_N];

	memcpy(tmp, out, sizeof(tmp));
	for (int d = 0; d < SYNTH_DDIR_N; d++) {
		const char *s = d < n ? parts[d] : (n == 1 ? parts[0] : NULL);

		if (!s)
			continue; /* "bs=4k,8k": trim keeps its own */
		if (!*s)
			continue; /* "bs=,8k": read keeps its own */
		if (parse_bssplit_one(s, &tmp[d]))
			return -EINVAL;
	}
	memcpy(out, tmp, sizeof(tmp));
	return 0;
}

static int set_rw(struct synth_job *j, const char *v)
{
	static const struct {
		const char *name;
		bool random;
		unsigned int ddirs;
	} rws[] = {
		{ "read", false, 1 }, { "write", false, 2 }, { "trim", false, 4 },
		{ "randread", true, 1 }, { "randwrite", true, 2 }, { "randtrim", true, 4 },
		{ "rw", false, 3 }, { "readwrite", false, 3 }, { "randrw", true, 3 },
	};

	for (size_t i = 0; v && i < sizeof(rws) / sizeof(rws[0]); i++) {
		if (!strcmp(v, rws[i].name)) {
			j->random = rws[i].random;
			j->ddirs = rws[i].ddirs;
			return 0;
		}
	}
	return -EINVAL;
}

/* Options that change nothing in the pattern: where the I/O goes and how fio reports it. */
static const char *const no_effect[] = {
	"filename", "directory", "group-reporting", "name", "description", "stonewall-never",
};

int synth_job_set(struct synth_job *j, const char *key, const char *value, char *why,
		  size_t why_len)
{
	char k[64];
	uint64_t u;

	norm_key(key, k, sizeof(k));
	for (size_t i = 0; i < sizeof(no_effect) / sizeof(no_effect[0]); i++)
		if (!strcmp(k, no_effect[i]))
			return -EALREADY;
	if (!strcmp(k, "rw") || !strcmp(k, "readwrite")) {
		/* fio allows "randread:8" (offset modifiers); we do not model those */
		if (set_rw(j, value))
			return bad(why, why_len,
				   "%s=%s: expected read, write, randread, randwrite, rw, readwrite, "
				   "randrw, trim or randtrim",
				   key, value);
		return 0;
	}
	if (!strcmp(k, "rwmixread") || !strcmp(k, "rwmixwrite")) {
		if (!value || parse_u64(value, &u) || u > 100)
			return bad(why, why_len, "%s=%s: expected a percentage 0-100", key, value);
		j->rwmixread = k[5] == 'r' ? (uint32_t)u : 100 - (uint32_t)u;
		return 0;
	}
	if (!strcmp(k, "bs") || !strcmp(k, "blocksize") || !strcmp(k, "bssplit")) {
		if (!value || parse_per_ddir(value, j->bs))
			return bad(why, why_len,
				   "%s=%s: expected sizes like 4k, 4k,16k (read,write) or a split "
				   "4k/50:16k/30:64k/20 (multiples of 512, shares summing to 100)",
				   key, value);
		if (k[2] != 's') { /* plain bs: a single size per direction */
			for (int d = 0; d < SYNTH_DDIR_N; d++)
				if (j->bs[d].n != 1)
					return bad(why, why_len,
						   "%s=%s: one size per direction; use --bssplit "
						   "for a mix",
						   key, value);
		}
		return 0;
	}
	if (!strcmp(k, "size") || !strcmp(k, "filesize") || !strcmp(k, "offset") ||
	    !strcmp(k, "io-size") || !strcmp(k, "io-limit")) {
		if (!value || parse_size(value, &u))
			return bad(why, why_len,
				   "%s=%s: expected a size in bytes with an optional k/m/g/t suffix "
				   "(powers of 1024, as fio reads them); percentages are not supported",
				   key, value);
		if (k[0] == 'o')
			j->offset = u;
		else if (k[0] == 'i')
			j->io_size = u;
		else
			j->size = u;
		return 0;
	}
	if (!strcmp(k, "iodepth") || !strcmp(k, "numjobs")) {
		uint32_t v32;

		if (parse_u32_min1(value, &v32) || (k[0] == 'n' && v32 > TRACE_MAX_STREAMS) ||
		    v32 > 65536)
			return bad(why, why_len,
				   "%s=%s: expected a whole number from 1 (numjobs up to 1024, "
				   "iodepth up to 65536)",
				   key, value);
		if (k[0] == 'i')
			j->iodepth = v32;
		else
			j->numjobs = v32;
		return 0;
	}
	if (!strcmp(k, "number-ios") || !strcmp(k, "fsync") || !strcmp(k, "randseed") ||
	    !strcmp(k, "seed")) {
		if (!value || parse_u64(value, &u))
			return bad(why, why_len, "%s=%s: expected a whole number", key, value);
		if (k[0] == 'n')
			j->number_ios = u;
		else if (k[0] == 'f')
			j->fsync = u;
		else
			j->seed = u;
		return 0;
	}
	if (!strcmp(k, "runtime") || !strcmp(k, "timeout")) {
		if (!value || parse_duration_ns(value, &j->runtime_ns))
			return bad(why, why_len, "%s=%s: expected a duration like 120, 30s, 500ms, 2m",
				   key, value);
		return 0;
	}
	if (!strcmp(k, "time-based") || !strcmp(k, "norandommap") || !strcmp(k, "sync")) {
		bool b;

		if (parse_bool(value, &b))
			return bad(why, why_len, "%s=%s: expected 0 or 1", key, value);
		if (k[0] == 't')
			j->time_based = b;
		else if (k[0] == 'n')
			j->norandommap = b;
		else
			j->sync_writes = b;
		return 0;
	}
	if (!strcmp(k, "rate-iops")) {
		char *end;
		double r = value ? strtod(value, &end) : 0;

		/* fio allows "r,w"; one rate for both directions is what we model */
		if (!value || end == value || *end || r < 0)
			return bad(why, why_len, "%s=%s: expected I/Os per second per job (one value)",
				   key, value);
		j->rate_iops = r;
		return 0;
	}
	if (!strcmp(k, "arrivals") || !strcmp(k, "rate-process")) {
		if (value && (!strcmp(value, "uniform") || !strcmp(value, "linear")))
			j->arrivals = SYNTH_ARRIVALS_UNIFORM;
		else if (value && !strcmp(value, "poisson"))
			j->arrivals = SYNTH_ARRIVALS_POISSON;
		else
			return bad(why, why_len, "%s=%s: expected uniform (fio: linear) or poisson",
				   key, value);
		return 0;
	}
	if (!strcmp(k, "random-distribution")) {
		if (!value || dist_parse(value, &j->dist))
			return bad(why, why_len,
				   "%s=%s: expected random, zipf[:θ] (θ>0, ≠1), pareto[:h] (0<h<1) "
				   "or normal[:dev] (0<=dev<100)",
				   key, value);
		return 0;
	}
	if (!strcmp(k, "ioengine")) {
		/* Sync engines keep one I/O in flight per job whatever iodepth says (fio HOWTO,
		 * iodepth). Async ones honour iodepth. Others are not modeled. */
		static const char *const sync_eng[] = { "psync", "sync", "pvsync", "pvsync2",
							"vsync" };
		static const char *const async_eng[] = { "libaio", "io_uring", "posixaio",
							 "windowsaio", "solarisaio" };

		for (size_t i = 0; value && i < sizeof(sync_eng) / sizeof(sync_eng[0]); i++)
			if (!strcmp(value, sync_eng[i])) {
				j->sync_engine = true;
				return 0;
			}
		for (size_t i = 0; value && i < sizeof(async_eng) / sizeof(async_eng[0]); i++)
			if (!strcmp(value, async_eng[i])) {
				j->sync_engine = false;
				return 0;
			}
		return -ENOENT;
	}
	if (!strcmp(k, "direct") || !strcmp(k, "buffered")) {
		bool b;

		/* A block trace is what reaches the device: direct=1 is what it models. */
		if (parse_bool(value, &b) || b != (k[0] == 'd'))
			return -ENOENT;
		return 0;
	}
	return -ENOENT;
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
		if (!value || parse_size(value, &u) || u < (1 << 20))
			return bad(why, why_len, "%s=%s: expected a size of at least 1m", key, value);
		if (k[0] == 'l')
			m->log_size = u;
		else
			m->data_size = u;
		return 0;
	}
	if (!strcmp(k, "log-min") || !strcmp(k, "log-max")) {
		if (!value || parse_size(value, &u) || !u || u % 512 || u > (16 << 20))
			return bad(why, why_len, "%s=%s: expected a multiple of 512 up to 16m", key,
				   value);
		if (k[5] == 'i')
			m->log_min = (uint32_t)u;
		else
			m->log_max = (uint32_t)u;
		return 0;
	}
	if (!strcmp(k, "log-fua")) {
		if (parse_bool(value, &m->log_fua))
			return bad(why, why_len, "%s=%s: expected 0 or 1", key, value);
		return 0;
	}
	if (!strcmp(k, "numjobs") || !strcmp(k, "iodepth") || !strcmp(k, "dblwr-pages")) {
		uint32_t v32;

		if (parse_u32_min1(value, &v32) || v32 > 1000)
			return bad(why, why_len, "%s=%s: expected a whole number from 1 to 1000", key,
				   value);
		if (k[0] == 'n')
			m->readers = v32;
		else if (k[0] == 'i')
			m->cleaner_depth = v32;
		else
			m->dblwr_pages = v32;
		return 0;
	}
	if (!strcmp(k, "number-ios") || !strcmp(k, "commits") || !strcmp(k, "batches")) {
		if (!value || parse_u64(value, &u) || !u)
			return bad(why, why_len, "%s=%s: expected a whole number >= 1", key, value);
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

static uint32_t bs_min(const struct synth_bsplit *b, uint32_t *max)
{
	uint32_t mn = UINT32_MAX, mx = 0;

	for (uint32_t i = 0; i < b->n; i++) {
		if (!b->e[i].pct)
			continue;
		mn = b->e[i].bs < mn ? b->e[i].bs : mn;
		mx = b->e[i].bs > mx ? b->e[i].bs : mx;
	}
	if (max)
		*max = mx;
	return mn;
}

int synth_job_check(const struct synth_job *j, char *why, size_t why_len)
{
	if (!j->size) {
		snprintf(why, why_len, "job '%s': no size: give --size (the region each job works in)",
			 j->name);
		return -EINVAL;
	}
	for (int d = 0; d < SYNTH_DDIR_N; d++) {
		uint32_t mx;

		if (!(j->ddirs & (1u << d)))
			continue;
		if (bs_min(&j->bs[d], &mx) == UINT32_MAX) {
			snprintf(why, why_len, "job '%s': every block size has a 0%% share", j->name);
			return -EINVAL;
		}
		if (mx > j->size) {
			snprintf(why, why_len, "job '%s': block size %u is larger than size %llu",
				 j->name, mx, (unsigned long long)j->size);
			return -EINVAL;
		}
	}
	if (j->time_based && !j->runtime_ns) {
		snprintf(why, why_len, "job '%s': time_based needs a runtime", j->name);
		return -EINVAL;
	}
	return 0;
}
