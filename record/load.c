// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ioreel record, the block level's programs (bpf/record.bpf.c): which hooks the recorded
 * devices' levels need, the filters and device table set before the load, and the load and
 * attach of the tp_btf set, falling back to the raw_tp one (--attach). record.c runs them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "util/cli.h"
#include "record/common.h"
#include "record/record_int.h"
#include "record.skel.h"

/* Fills the BPF dev_tab (before load): each recorded disk once, with the hull of its
 * recorded ranges (partitions); drain.c assigns each I/O to its exact device. */
static int fill_devs(struct record_bpf *skel, const struct rec_target *t, int nt)
{
	volatile struct rec_dev *tab = skel->rodata->dev_tab;
	uint32_t n = 0;

	for (int i = 0; i < nt; i++) {
		uint64_t lo = t[i].start_sector, hi = lo + t[i].nr_sectors;
		uint32_t k;

		if (!t[i].is_partition)
			lo = 0, hi = UINT64_MAX;
		for (k = 0; k < n && tab[k].dev != t[i].disk_dev; k++)
			;
		if (k == n) {
			tab[n].dev = t[i].disk_dev;
			tab[n].level = t[i].level;
			tab[n].lo_sector = lo;
			tab[n].hi_sector = hi;
			n++;
			continue;
		}
		if (tab[k].level != t[i].level) {
			cli_error("%s and another device on the same disk ask for different levels",
				  t[i].td.name);
			return -EINVAL;
		}
		if (lo < tab[k].lo_sector)
			tab[k].lo_sector = lo;
		if (hi > tab[k].hi_sector)
			tab[k].hi_sector = hi;
	}
	skel->rodata->ndev_tab = n;
	return 0;
}

static void set_filters(struct record_bpf *skel, const struct rec_opts *o, int cgfd)
{
	const char *ao = getenv("IOREEL_RECORD_ATTACH_ONLY");

	skel->rodata->filter_tgid = o->c.pid;
	/* For bench/record.sh: the cost of the attached hooks alone. Never silent. */
	if (ao && *ao && strcmp(ao, "0")) {
		skel->rodata->attach_only = true;
		cli_warn("IOREEL_RECORD_ATTACH_ONLY is set: the programs return at once and "
			 "nothing is recorded (a measurement mode; unset it to record)");
	}
	if (o->c.comm) {
		skel->rodata->filter_by_comm = true;
		strncpy((char *)skel->rodata->filter_comm, o->c.comm, 15);
	}
	skel->rodata->filter_by_cgroup = cgfd >= 0;
}

bool rec_has_level(const struct rec_target *t, int nt, uint32_t level)
{
	for (int i = 0; i < nt; i++)
		if (t[i].level == level)
			return true;
	return false;
}

/* Is a blk-mq disk recorded at bio level (its bios end with their request)? */
static bool has_bio_mq(const struct rec_target *t, int nt)
{
	for (int i = 0; i < nt; i++)
		if (t[i].level == REC_LEVEL_BIO && t[i].has_mq)
			return true;
	return false;
}

/*
 * block_io_start (v6.5, commit 5a80bd075f3b) is where a request-level I/O starts; without it
 * block_rq_insert or block_rq_issue start it (record/LEVELS.md). Asked of the kernel's BTF,
 * which has a btf_trace_<name> typedef for every tracepoint.
 */
/*
 * Fault injection for tests/integration/record_fallback.sh, so the paths this kernel never
 * takes run in CI: IOREEL_RECORD_FAULT holds "tp_btf" (the tp_btf set fails to load, as on a
 * kernel without it) and/or "no_io_start" (as on a kernel before 6.5). Announced on stderr.
 */
static bool fault(const char *what)
{
	const char *f = getenv("IOREEL_RECORD_FAULT");

	if (!f || !strstr(f, what))
		return false;
	cli_warn("IOREEL_RECORD_FAULT: acting as if %s", !strcmp(what, "tp_btf")
		 ? "the tp_btf programs failed to load" : "the kernel had no block_io_start");
	return true;
}

bool rec_kernel_has_io_start(void)
{
	struct btf *btf;
	bool has;

	if (fault("no_io_start"))
		return false;
	btf = btf__load_vmlinux_btf();

	if (!btf)
		return true; /* let the load say what is wrong */
	has = btf__find_by_name_kind(btf, "btf_trace_block_io_start", BTF_KIND_TYPEDEF) >= 0;
	btf__free(btf);
	return has;
}

/* Loads one set of programs (tp_btf or raw_tp), and of it only the hooks the levels need. */
static void set_autoload(struct record_bpf *skel, const struct rec_target *t, int nt, bool raw,
			 bool io_start)
{
	bool bio = rec_has_level(t, nt, REC_LEVEL_BIO), rq = rec_has_level(t, nt, REC_LEVEL_RQ);
	bool bio_mq = has_bio_mq(t, nt), rq_old = rq && !io_start;
	/* Hooks nobody needs would cost every I/O on the machine a map lookup. */
	const struct {
		struct bpf_program *tp_btf, *raw_tp;
		bool need;
	} set[] = {
		{ skel->progs.bio_queue, skel->progs.raw_bio_queue, bio },
		{ skel->progs.bio_complete, skel->progs.raw_bio_complete, bio },
		{ skel->progs.bio_rq_complete, skel->progs.raw_bio_rq_complete, bio_mq },
		{ skel->progs.rq_start, skel->progs.raw_rq_start, rq && !rq_old },
		{ skel->progs.rq_insert, skel->progs.raw_rq_insert, rq && !rq_old },
		{ skel->progs.rq_issue, skel->progs.raw_rq_issue, rq && !rq_old },
		{ skel->progs.rq_merge, skel->progs.raw_rq_merge, rq },
		{ skel->progs.rq_complete, skel->progs.raw_rq_complete, rq },
		/* without block_io_start (bpf/record_progs.h, rq_renew) */
		{ skel->progs.rq_insert_nostart, skel->progs.raw_rq_insert_nostart, rq_old },
		{ skel->progs.rq_issue_nostart, skel->progs.raw_rq_issue_nostart, rq_old },
		{ skel->progs.rq_requeue, skel->progs.raw_rq_requeue, rq_old },
	};

	for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
		bpf_program__set_autoload(set[i].tp_btf, set[i].need && !raw);
		bpf_program__set_autoload(set[i].raw_tp, set[i].need && raw);
	}
	/* CPU time (bpf/oncpu.bpf.h) needs tp_btf: the raw_tp set records none */
	bpf_program__set_autoload(skel->progs.oncpu_switch, skel->rodata->oncpu_enabled);
	bpf_program__set_autoload(skel->progs.oncpu_exit, skel->rodata->oncpu_enabled);
}


/*
 * Opens, loads and attaches one set of programs (raw: the raw_tp set), with tracking held off
 * (stopping) until cmd_record is ready for events. Returns 0; -ECANCELED after printing an
 * error no other set would avoid; or the load's or attach's -errno, with *what naming the
 * step and the tracepoint of the program that failed.
 */
static int load_set(struct record_bpf **out, const struct rec_opts *o, const struct rec_target *t,
		    int nt, int ncpu, int cgfd, bool raw, bool io_start, char *what, size_t len)
{
	struct record_bpf *skel = record_bpf__open();
	const char *step = "loading";
	struct bpf_program *p;
	int err;

	if (!skel) {
		cli_error("opening the BPF object: %s", strerror(errno));
		return -ECANCELED;
	}
	set_filters(skel, o, cgfd);
	skel->rodata->self_tgid = getpid();
	skel->rodata->oncpu_enabled = o->c.cpu && !raw;
	skel->bss->stopping = 1;
	skel->rodata->ring_shift = o->c.ring_shift;
	bpf_map__set_max_entries(skel->maps.ring_ctl, ncpu);
	bpf_map__set_max_entries(skel->maps.ring_buf, (uint32_t)ncpu << o->c.ring_shift);
	bpf_map__set_max_entries(skel->maps.inflight, o->c.inflight);
	set_autoload(skel, t, nt, raw, io_start);
	if (fill_devs(skel, t, nt)) {
		err = -ECANCELED;
		goto fail;
	}
	rec_libbpf_log();
	if (!raw && fault("tp_btf")) {
		snprintf(rec_failed_prog, sizeof(rec_failed_prog), "%s",
			 bpf_program__name(skel->progs.bio_queue));
		err = -ESRCH;
		goto failed;
	}
	err = record_bpf__load(skel);
	if (!err && cgfd >= 0) {
		uint32_t k = 0;

		if (bpf_map_update_elem(bpf_map__fd(skel->maps.cgroup), &k, &cgfd, 0)) {
			const char *why = strerror(errno);
			char shown[CLI_SHOWN_LEN];

			cli_error("--cgroup %s: not a cgroup v2 directory (%s)",
				  cli_shown(shown, o->c.cgroup), why);
			err = -ECANCELED;
			goto fail;
		}
	}
	if (!err) {
		step = "attaching";
		err = record_bpf__attach(skel);
	}
	if (!err) {
		*out = skel;
		return 0;
	}
failed:
	p = rec_failed_prog[0] ? bpf_object__find_program_by_name(skel->obj, rec_failed_prog)
				  : NULL;
	snprintf(what, len, "%s %s", step,
		 p ? bpf_program__section_name(p)
		   : raw ? "the raw_tp programs" : "the tp_btf programs");
fail:
	record_bpf__destroy(skel);
	return err;
}

/* libbpf fails a load with -ESRCH when the kernel's BTF has no such attach target. */
static const char *load_strerror(int err)
{
	return err == -ESRCH ? "the kernel's BTF has no such tracepoint" : strerror(-err);
}

/* Loads and attaches the programs --attach asks for (auto: tp_btf, else raw_tp); on failure
 * says what failed and what to do. *raw says which set runs. */
struct record_bpf *rec_load(const struct rec_opts *o, const struct rec_target *t, int nt,
			   int ncpu, int cgfd, bool io_start, bool *raw)
{
	struct record_bpf *skel = NULL;
	char what[96];
	int err;

	*raw = o->attach == REC_ATTACH_RAW_TP;
	err = load_set(&skel, o, t, nt, ncpu, cgfd, *raw, io_start, what, sizeof(what));
	if (err && err != -ECANCELED && o->attach == REC_ATTACH_AUTO) {
		cli_warn("%s failed: %s; retrying with raw_tp programs", what, load_strerror(err));
		*raw = true;
		err = load_set(&skel, o, t, nt, ncpu, cgfd, true, io_start, what, sizeof(what));
	}
	if (err && err != -ECANCELED)
		cli_error("%s failed: %s (set IOREEL_DEBUG=1 for libbpf's log and the verifier's; "
			  "%s)",
			  what, load_strerror(err),
			  *raw ? "the kernel needs BPF, BTF, mmap()able BPF arrays and raw tracepoints"
			       : "try --attach raw_tp");
	return err ? NULL : skel;
}
