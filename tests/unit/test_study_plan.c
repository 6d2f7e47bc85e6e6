// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The study plan parser (study/plan.c): a full plan reads as written (kinds, md and btrfs
 * levels, repeated setup=, quoted words, paths relative to the plan); every mistake is refused
 * with FILE:LINE and what is wrong: unknown keys, keys of the other kind, duplicates, bad
 * values, device counts, sections that are neither kind; runtime= within what synth runs; the
 * lines the checks before a study cite; the synth and replay commands a workload runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "study/study.h"

#include "tests/unit/check.h"

static char dir[] = "/tmp/ioreel-test-plan.XXXXXX";

/* Loads text as DIR/p.ini: 0 or -errno, the message in err. */
static int load(struct plan *p, const char *text, char *err, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/p.ini", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	err[0] = '\0';
	return plan_load(p, path, err, len);
}

/* The plan is refused and the message holds want (after "DIR/p.ini:"). */
static void refused(const char *text, const char *want)
{
	struct plan p;
	char err[1024], full[1200];
	int ret = load(&p, text, err, sizeof(err));

	snprintf(full, sizeof(full), "%s/p.ini:%s", dir, want);
	CHECK(ret < 0, "accepted: %s", text);
	CHECK(strstr(err, want[0] >= '0' && want[0] <= '9' ? full : want), "message '%s', want '%s'",
	      err, want);
	plan_free(&p);
}

static const char *const good =
	"# a comment\n"
	"; another\n"
	"[study]\n"
	"repeats = 2\n"
	"runtime=1500ms\n"
	"size=64M\n"
	"\n"
	"[xfs-md6]\n"
	"devices=/dev/sdb /dev/sdc /dev/sdd /dev/sde\n"
	"raid=md6\n"
	"fs=xfs\n"
	"mkfs-opts=-d su=64k,sw=2\n"
	"[btrfs]\n"
	"devices=/dev/sdb /dev/sdc\n"
	"fs=btrfs\n"
	"raid=raid1\n"
	"metadata=raid1c3\n"
	"[zfs]\n"
	"setup=zpool create t mirror $IOREEL_STUDY_DEVICES\n"
	"setup=zfs set recordsize=16k t\n"
	"teardown=zpool destroy t\n"
	"target=/t\n"
	"devices=/dev/sdb '/dev/disk/by-id/with space'\n"
	"[raw]\n"
	"devices=/dev/sdb\n"
	"fs=raw\n"
	"[r]\n"
	"preset=4k-randread\n"
	"options=--numjobs 2 --bs \"8k\"\n"
	"[f]\n"
	"fio=jobs/a.fio\n"
	"section=x\n"
	"[t]\n"
	"trace=/abs/prod.ioreel\n"
	"mode=timed\n"
	"replay_opts=--engine psync\n";

static void test_good(void)
{
	struct plan p;
	char err[1024], want[256];
	char *w[8];
	int ret = load(&p, good, err, sizeof(err));

	CHECK(ret == 0, "a good plan refused: %s", err);
	if (ret) {
		plan_free(&p);
		return;
	}
	CHECK(p.repeats == 2 && p.runtime_ns == 1500000000ULL && p.size == 64 << 20,
	      "[study]: %d %llu %llu", p.repeats, (unsigned long long)p.runtime_ns,
	      (unsigned long long)p.size);
	snprintf(want, sizeof(want), "%s/p.results", dir);
	CHECK(!strcmp(p.results, want), "default results %s", p.results);
	CHECK(p.ncand == 4 && p.nwork == 3, "%d candidates, %d workloads", p.ncand, p.nwork);
	CHECK(p.cand[0].kind == CAND_FS && p.cand[0].raid == RAID_MD &&
		  !strcmp(p.cand[0].level, "6") && p.cand[0].ndev == 4 &&
		  !strcmp(p.cand[0].mkfs_opts, "-d su=64k,sw=2"),
	      "xfs on md6");
	CHECK(cand_uses_md(&p.cand[0]) && !cand_uses_md(&p.cand[1]), "md use");
	CHECK(p.cand[1].raid == RAID_BTRFS && !strcmp(p.cand[1].level, "raid1") &&
		  !strcmp(p.cand[1].metadata, "raid1c3"),
	      "btrfs raid1");
	CHECK(p.cand[2].kind == CAND_CMDS && p.cand[2].nsetup == 2 && p.cand[2].nteardown == 1 &&
		  !strcmp(p.cand[2].target, "/t") && p.cand[2].ndev == 2 &&
		  !strcmp(p.cand[2].devices[1], "/dev/disk/by-id/with space"),
	      "commands candidate");
	CHECK(p.cand[3].kind == CAND_RAW, "raw");
	CHECK(p.work[0].kind == WORK_PRESET && !strcmp(p.work[0].preset, "4k-randread") &&
		  !*p.work[0].mode,
	      "preset");
	CHECK(split_words(p.work[0].options, w, 8) == 4 && !strcmp(w[3], "8k"), "quoted options");
	for (int i = 0; i < 4; i++)
		free(w[i]);
	snprintf(want, sizeof(want), "%s/jobs/a.fio", dir);
	CHECK(p.work[1].kind == WORK_FIO && !strcmp(p.work[1].fio, want) &&
		  !strcmp(p.work[1].section, "x"),
	      "fio job relative to the plan: %s", p.work[1].fio);
	CHECK(p.work[2].kind == WORK_TRACE && !strcmp(p.work[2].trace, "/abs/prod.ioreel") &&
		  !strcmp(p.work[2].mode, "timed") &&
		  !strcmp(p.work[2].replay_opts, "--engine psync"),
	      "trace");
	plan_free(&p);
	/* a plan an editor saved with a UTF-8 byte order mark and CRLF line ends */
	ret = load(&p, "\xEF\xBB\xBF[study]\r\nrepeats=3\r\n[raw]\r\ndevices=/dev/sdb\r\n"
		       "fs=raw\r\n[r]\r\npreset=4k-randread\r\n", err, sizeof(err));
	CHECK(ret == 0 && p.repeats == 3 && p.ncand == 1, "BOM and CRLF: %s", err);
	plan_free(&p);
}

static void test_refusals(void)
{
	const char *w = "[w]\npreset=4k-randread\n";
	char t[1024];

	snprintf(t, sizeof(t), "[c]\ndevices=/dev/sdb\nfs=xfs\nmkfs_optz=-f\n%s", w);
	refused(t, "4: unknown key 'mkfs_optz' in candidate [c]");
	snprintf(t, sizeof(t), "[c]\ndevices=/dev/sdb\nfs=xfs\n\n[w]\npreset=x\ndevices=/dev/sdc\n");
	refused(t, "7: 'devices' is a candidate key, and [w] is a workload");
	snprintf(t, sizeof(t), "[study]\nrepeat=3\n[c]\ndevices=/dev/sdb\nfs=xfs\n%s", w);
	refused(t, "2: unknown key 'repeat' in [study]");
	snprintf(t, sizeof(t), "[study]\nrepeats=0\n[c]\ndevices=/dev/sdb\nfs=xfs\n%s", w);
	refused(t, "2: repeats=0");
	snprintf(t, sizeof(t), "[c]\ndevices=/dev/sdb\nfs=xfs\nfs=ext4\n%s", w);
	refused(t, "4: 'fs' given twice");
	snprintf(t, sizeof(t), "[c]\ndevices=/dev/sdb\nfs=zfs\n%s", w);
	refused(t, "fs=zfs: give ext4, xfs, btrfs or raw");
	snprintf(t, sizeof(t), "[c]\ndevices=/dev/sdb /dev/sdc\nfs=ext4\n%s", w);
	refused(t, "lists 2 devices: say how to join them with raid=");
	snprintf(t, sizeof(t), "[c]\ndevices=/dev/sdb /dev/sdc /dev/sdd\nfs=ext4\nraid=md6\n%s", w);
	refused(t, "4: raid=md6 needs at least 4 devices");
	snprintf(t, sizeof(t), "[c]\ndevices=/dev/sdb /dev/sdc\nfs=btrfs\nraid=raid7\n%s", w);
	refused(t, "4: raid=raid7: btrfs profiles are");
	snprintf(t, sizeof(t), "[c]\ndevices=sdb\nfs=xfs\n%s", w);
	refused(t, "'sdb' is not a path");
	snprintf(t, sizeof(t), "[c]\nsetup=true\ntarget=/t\n%s", w);
	refused(t, "needs setup=, teardown= and target=");
	snprintf(t, sizeof(t), "[c]\ndevices=/dev/sdb\nfs=xfs\n[c]\ndevices=/dev/sdc\nfs=xfs\n%s", w);
	refused(t, "4: section [c] given twice (first at line 1)");
	snprintf(t, sizeof(t), "[c]\ndevices=/dev/sdb\nfs=xfs\n[w]\ntrace=t.ioreel\nmode=closed\n");
	refused(t, "mode=closed");
	snprintf(t, sizeof(t), "[c]\ndevices=/dev/sdb\nfs=xfs\n[w]\npreset=a\nfio=b.fio\n");
	refused(t, "give one of preset=, fio= (with section=) or trace=");
	snprintf(t, sizeof(t), "[c]\ndevices=/dev/sdb\nfs=xfs\n[a/b]\npreset=a\n");
	refused(t, "4: section name [a/b]");
	snprintf(t, sizeof(t), "repeats=1\n[c]\ndevices=/dev/sdb\nfs=xfs\n%s", w);
	refused(t, "1: a key before any [section]");
	snprintf(t, sizeof(t), "[c]\ndevices=/dev/sdb\nfs=xfs\nnonsense\n%s", w);
	refused(t, "4: not key=value");
	snprintf(t, sizeof(t), "[c]\ndevices=/dev/sdb\nfs=xfs\n");
	refused(t, "the plan has no workload");
	snprintf(t, sizeof(t), "[c]\nfoo=1\n%s", w);
	refused(t, "2: unknown key 'foo' in [c]");
	/* words for a command line are refused at the plan's line, not once the study runs */
	snprintf(t, sizeof(t), "[c]\ndevices=/dev/sdb\nfs=xfs\n[w]\npreset=a\nreplay_opts=--x 'y\n");
	refused(t, "6: replay_opts=--x 'y: unbalanced quotes");
	snprintf(t, sizeof(t), "[c]\ndevices=/dev/sdb\nfs=xfs\nraid_opts=%0*d\n%s", 250, 0, w);
	for (char *c = strstr(t, "raid_opts=") + 10; *c == '0'; c += 2)
		*c = ' ';
	refused(t, "4: raid_opts=: more than 100 words");
	snprintf(t, sizeof(t), "[c]\ndevices=/dev/sdb\nfs=xfs\n\n[w]\npreset=a\nsection=x\n");
	refused(t, "section= names a section of a fio= job file");
	/* the devices' own line; refusals after values were kept (the fuzzer's leaks) */
	snprintf(t, sizeof(t), "[c]\nfs=xfs\nmkfs_opts=-f\ndevices=/dev/sdb '/dev/sdc\n%s", w);
	refused(t, "4: devices= of [c]: unbalanced quotes");
	snprintf(t, sizeof(t), "[c]\ndevices=/dev/sdb\nfs=xfs\ndevices=/dev/sdc\n%s", w);
	refused(t, "4: 'devices' given twice");
	/* a key that names something, empty: it named the plan's folder (trace=, fio=) */
	snprintf(t, sizeof(t), "[c]\ndevices=/dev/sdb\nfs=xfs\n[w]\ntrace= \n");
	refused(t, "5: trace= is empty");
	snprintf(t, sizeof(t), "[study]\nresults=\n[c]\ndevices=/dev/sdb\nfs=xfs\n%s", w);
	refused(t, "2: results= is empty");
	snprintf(t, sizeof(t), "[c]\nsetup=true\nteardown=true\ntarget=\n%s", w);
	refused(t, "4: target= is empty");
	/* below 1 ms the run gave synth --runtime 0ms, which it refuses, after the vetting */
	snprintf(t, sizeof(t), "[study]\nruntime=1ns\n[c]\ndevices=/dev/sdb\nfs=xfs\n%s", w);
	refused(t, "2: runtime=1ns: give a duration from 1ms to 292 years (30, 500ms, 2m)");
	snprintf(t, sizeof(t), "[study]\nruntime=999us\n[c]\ndevices=/dev/sdb\nfs=xfs\n%s", w);
	refused(t, "2: runtime=999us: give a duration from 1ms");
	snprintf(t, sizeof(t), "[c]\ndevices=/dev/sdb\nfs=xfs\n[w]\npreset=a\nruntime=1ns\n");
	refused(t, "6: runtime=1ns: give a duration from 1ms");
	/* past what synth takes (9.2e15 us), and past what the clock holds */
	snprintf(t, sizeof(t), "[study]\nruntime=2600000h\n[c]\ndevices=/dev/sdb\nfs=xfs\n%s", w);
	refused(t, "2: runtime=2600000h: give a duration from 1ms to 292 years");
	snprintf(t, sizeof(t), "[study]\nruntime=3000000h\n[c]\ndevices=/dev/sdb\nfs=xfs\n%s", w);
	refused(t, "2: runtime=3000000h: give a duration");
}

/* The ends of runtime='s range, and the lines the checks before a study cite (vet.c, work.c). */
static void test_runtime_and_lines(void)
{
	static const char *const text =
		"[study]\n"
		"runtime=1ms\n"
		"results=out\n"
		"[c]\n"
		"fs=raw\n"
		"devices=/dev/sdb\n"
		"[w]\n"
		"options=--bs 8k\n"
		"preset=4k-randread\n"
		"runtime=1500us\n"
		"[t]\n"
		"trace=t.ioreel\n"
		"replay_opts=--engine psync\n"
		"[long]\n"
		"preset=4k-randread\n"
		"runtime=1000000h\n";
	struct plan p;
	struct work_cmd c;
	char err[1024];
	int ret = load(&p, text, err, sizeof(err));
	bool rt = false;

	CHECK(ret == 0, "refused: %s", err);
	if (ret) {
		plan_free(&p);
		return;
	}
	CHECK(p.runtime_ns == 1000000, "runtime=1ms: %llu", (unsigned long long)p.runtime_ns);
	CHECK(p.work[2].runtime_ns == 3600000000000000000ULL, "runtime=1000000h: %llu",
	      (unsigned long long)p.work[2].runtime_ns);
	CHECK(p.results_line == 3, "results= at line %d", p.results_line);
	CHECK(p.cand[0].dev_line == 6, "devices= at line %d", p.cand[0].dev_line);
	CHECK(p.work[0].kind_line == 9, "preset= at %d", p.work[0].kind_line);
	CHECK(p.work[1].kind_line == 12 && p.work[1].replay_line == 13,
	      "trace= at %d, replay_opts= at %d", p.work[1].kind_line, p.work[1].replay_line);
	/* synth gets 1500us: the run cut it to whole ms (1ms), as it cut 999us to 0ms */
	CHECK(work_synth_cmd(&c, &p, 0, "ioreel") == 0, "synth command");
	for (int i = 0; i + 1 < c.argc; i++)
		rt |= !strcmp(c.argv[i], "--runtime") && !strcmp(c.argv[i + 1], "1500us");
	CHECK(rt, "synth's --runtime is not 1500us");
	CHECK(!strcmp(c.argv[c.argc - 3], "8k") && c.argv[c.argc] == NULL, "options= words");
	work_cmd_free(&c);
	plan_free(&p);
}

/* A word is never cut short (a 4 KiB buffer truncated it), quotes or not; a refusal leaves
 * nothing behind to free. */
static void test_split(void)
{
	static char s[6000];
	char *v[4];
	int n;

	memset(s, 'a', sizeof(s) - 1);
	s[0] = '"';
	s[10] = '"';
	s[5000] = ' ';
	n = split_words(s, v, 4);
	CHECK(n == 2 && strlen(v[0]) == 4998 && strlen(v[1]) == sizeof(s) - 5002,
	      "long words: %d, %zu", n, n > 0 ? strlen(v[0]) : 0);
	while (n > 0)
		free(v[--n]);
	CHECK(split_words("a b c d e", v, 4) == -E2BIG, "five words in four");
	CHECK(split_words("a 'b", v, 4) == -EINVAL, "open quote");
	CHECK(split_words(" \t ", v, 4) == 0, "blanks");
	/* what study/run.c says of a split that failed */
	CHECK(strstr(split_words_error(-E2BIG), "more than 100 words") != NULL, "E2BIG: %s",
	      split_words_error(-E2BIG));
	CHECK(!strcmp(split_words_error(-EINVAL), "unbalanced quotes"), "EINVAL");
	CHECK(strstr(split_words_error(-ENOMEM), "out of memory") != NULL, "ENOMEM");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_good();
	test_refusals();
	test_runtime_and_lines();
	test_split();
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/p.ini", dir);
		unlink(path);
		rmdir(dir);
	}
	return failures ? 1 : 0;
}
