// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Named patterns (synth/PRESETS.md). The RAID-study suite follows the fio jobs users run
 * (numjobs=8 iodepth=32 for 4k, numjobs=1 iodepth=32 for 4m, time_based runtime=120) on a
 * 1 GiB region by default (--size 20G gives the exact job); cdm follows
 * CrystalDiskMark 8's defaults (1 GiB test file, 5 s per test).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "synth/synth.h"

static struct synth_job *one_job(struct synth_spec *s, const char *name)
{
	struct synth_job *j = &s->jobs[0];

	memset(s, 0, sizeof(*s));
	s->njobs = 1;
	synth_job_defaults(j);
	snprintf(j->name, sizeof(j->name), "%s", name);
	j->size = 1ULL << 30;
	j->time_based = true;
	j->runtime_ns = 120ULL * 1000000000ULL;
	return j;
}

static void set_bs(struct synth_job *j, uint32_t bs)
{
	for (int d = 0; d < SYNTH_DDIR_N; d++) {
		j->bs[d].n = 1;
		j->bs[d].e[0].bs = bs;
		j->bs[d].e[0].pct = 100;
	}
}

static int raid4k(struct synth_spec *s, const char *name, unsigned int ddirs, uint32_t mix)
{
	struct synth_job *j = one_job(s, name);

	j->random = true;
	j->ddirs = ddirs;
	j->rwmixread = mix;
	j->numjobs = 8;
	j->iodepth = 32;
	return 0;
}

static int p_4k_randread(struct synth_spec *s, int v)
{
	(void)v;
	return raid4k(s, "4k-randread", 1, 100);
}

static int p_4k_randwrite(struct synth_spec *s, int v)
{
	(void)v;
	return raid4k(s, "4k-randwrite", 2, 0);
}

static int p_4k_randrw70(struct synth_spec *s, int v)
{
	(void)v;
	return raid4k(s, "4k-randrw70", 3, 70);
}

static int seq4m(struct synth_spec *s, const char *name, unsigned int ddirs)
{
	struct synth_job *j = one_job(s, name);

	j->ddirs = ddirs;
	set_bs(j, 4 << 20);
	j->iodepth = 32;
	return 0;
}

static int p_4m_seqread(struct synth_spec *s, int v)
{
	(void)v;
	return seq4m(s, "4m-seqread", 1);
}

static int p_4m_seqwrite(struct synth_spec *s, int v)
{
	(void)v;
	return seq4m(s, "4m-seqwrite", 2);
}

static const char *const cdm_names[] = { "seq1m-q8t1", "seq1m-q1t1", "rnd4k-q32t1",
					 "rnd4k-q1t1" };

static int p_cdm(struct synth_spec *s, int v)
{
	static const struct {
		bool random;
		uint32_t bs, depth;
	} t[] = { { false, 1 << 20, 8 }, { false, 1 << 20, 1 }, { true, 4096, 32 },
		  { true, 4096, 1 } };
	struct synth_job *j;
	char name[64];

	if (v < 0 || v > 3)
		return -EINVAL;
	snprintf(name, sizeof(name), "cdm-%s", cdm_names[v]);
	j = one_job(s, name);
	j->random = t[v].random;
	set_bs(j, t[v].bs);
	j->iodepth = t[v].depth;
	j->runtime_ns = 5ULL * 1000000000ULL;
	return 0;
}

static int p_innodb(struct synth_spec *s, int v)
{
	(void)v;
	memset(s, 0, sizeof(*s));
	s->innodb = true;
	synth_innodb_defaults(&s->inno);
	s->inno.time_based = true;
	s->inno.runtime_ns = 60ULL * 1000000000ULL;
	return 0;
}

static const struct synth_preset presets[] = {
	{ "4k-randread", "4 KiB random reads, 8 jobs x QD32 (RAID study)", p_4k_randread, 1, NULL },
	{ "4k-randwrite", "4 KiB random writes, 8 jobs x QD32", p_4k_randwrite, 1, NULL },
	{ "4k-randrw70", "4 KiB random 70% reads / 30% writes, 8 jobs x QD32", p_4k_randrw70, 1,
	  NULL },
	{ "4m-seqread", "4 MiB sequential reads, 1 job x QD32", p_4m_seqread, 1, NULL },
	{ "4m-seqwrite", "4 MiB sequential writes, 1 job x QD32", p_4m_seqwrite, 1, NULL },
	{ "cdm", "CrystalDiskMark: Seq 1M Q8T1, Seq 1M Q1T1, 4K Q32T1, 4K Q1T1 (one trace each)",
	  p_cdm, 4, cdm_names },
	{ "innodb-16k",
	  "InnoDB-like: 16 KiB page reads/writes, redo appends + flushes, doublewrite batches",
	  p_innodb, 1, NULL },
};

const struct synth_preset *synth_preset_at(size_t i)
{
	return i < sizeof(presets) / sizeof(presets[0]) ? &presets[i] : NULL;
}

const struct synth_preset *synth_preset_find(const char *name)
{
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (!strcmp(presets[i].name, name))
			return &presets[i];
	return NULL;
}
