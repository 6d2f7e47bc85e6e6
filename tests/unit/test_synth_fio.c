// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fio job files as fio reads them: the text layer (sections, include, comments, ${VAR},
 * $pagesize arithmetic), fio's values (kb_base, kib, %, hex, times, parenthesized arithmetic),
 * what each option is to ioreel (honoured, ignored, refused with its reason), and how jobs
 * become regions and groups (files per clone, shares of the target, stonewall, wait_for).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "synth/fio.h"
#include "synth/synth.h"

#include "tests/unit/check.h"

static char dir[] = "/tmp/test_synth_fio.XXXXXX";

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static int load(const char *name, const char *section, struct synth_spec *s,
		struct fiojob_result *res, char *why, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return fiojob_load(path, section, NULL, s, res, why, len);
}

static void test_values(void)
{
	struct fio_size v;
	uint64_t ns;
	double d;
	int64_t i;

	CHECK(!fio_parse_size("4k", 1024, &v) && v.bytes == 4096, "4k");
	CHECK(!fio_parse_size("4kib", 1024, &v) && v.bytes == 4000, "4kib = 4000 (kb_base 1024)");
	CHECK(!fio_parse_size("4kib", 1000, &v) && v.bytes == 4096, "4kib = 4096 (kb_base 1000)");
	CHECK(!fio_parse_size("4k", 1000, &v) && v.bytes == 4000, "4k = 4000 (kb_base 1000)");
	CHECK(!fio_parse_size("2MB", 1024, &v) && v.bytes == 2 << 20, "2MB");
	CHECK(!fio_parse_size("1t", 1024, &v) && v.bytes == 1ULL << 40, "1t");
	CHECK(!fio_parse_size("0x1000", 1024, &v) && v.bytes == 4096, "hex");
	CHECK(!fio_parse_size("30%", 1024, &v) && v.is_pct && v.ppm == 300000, "30%%");
	CHECK(!fio_parse_size("8z", 1024, &v) && v.is_zones && v.zones == 8, "8z");
	CHECK(!fio_parse_size("(1k*3+512)", 1024, &v) && v.bytes == 3584, "arithmetic");
	CHECK(fio_parse_size("1.5g", 1024, &v) == -EINVAL, "fractions refused (fio reads 1)");
	CHECK(fio_parse_size("5*1024", 1024, &v) == -EINVAL, "math without parentheses refused");
	CHECK(fio_parse_size("101%", 1024, &v) == -EINVAL, "over 100%%");
	CHECK(!fio_parse_time("10", false, &ns) && ns == 10000000000ULL, "seconds by default");
	CHECK(!fio_parse_time("500ms", false, &ns) && ns == 500000000ULL, "ms");
	CHECK(!fio_parse_time("2m", false, &ns) && ns == 120000000000ULL, "m is minutes");
	CHECK(!fio_parse_time("1d", false, &ns) && ns == 86400000000000ULL, "days");
	CHECK(!fio_parse_time("2000", true, &ns) && ns == 2000000, "us by default (thinktime)");
	CHECK(!fio_parse_time("(2*30)", false, &ns) && ns == 60000000000ULL, "(expr) in seconds");
	CHECK(!fio_expr_eval("7/2*2", FIO_EXPR_INT, 1, &d) && d == 6, "bc truncates: %g", d);
	CHECK(!fio_expr_eval("2^10 % 1000", FIO_EXPR_INT, 1, &d) && d == 24, "^ and %%: %g", d);
	CHECK(fio_expr_eval("(1+", FIO_EXPR_INT, 1, &d) == -EINVAL, "unbalanced");
	CHECK(!fio_parse_int("(3*4)", &i) && i == 12, "int expr");
}

static void test_text(void)
{
	struct fio_jobfile jf;
	char path[256], why[512], buf[64];

	setenv("IOREEL_T_SIZE", "64m", 1);
	unsetenv("IOREEL_T_UNSET");
	put("inc.fio", "; included\niodepth=8 # depth\n");
	put("main.fio", "# a comment\n; another\n[global]\ninclude inc.fio\n"
			"size=${IOREEL_T_SIZE}   ; from the environment\n"
			"bs=4k#no space before the comment\n"
			"nrfiles=${IOREEL_T_UNSET}1\n"
			"io_size=$pagesize*2\n\n"
			"[job one]\nrw = randread\ntime_based\n");
	snprintf(path, sizeof(path), "%s/main.fio", dir);
	CHECK(!fio_jobfile_read(path, &jf, why, sizeof(why)), "read: %s", why);
	CHECK(jf.nsec == 2 && jf.sec[0].global && !strcmp(jf.sec[1].name, "job one") &&
		  !jf.sec[1].global,
	      "sections");
	if (jf.nsec == 2) {
		const struct fio_section *g = &jf.sec[0], *j = &jf.sec[1];

		CHECK(g->nopt == 5 && !strcmp(g->opt[0].key, "iodepth") &&
			  !strcmp(g->opt[0].value, "8") && strstr(g->opt[0].file, "inc.fio"),
		      "include pulls its lines into the section");
		CHECK(!strcmp(g->opt[1].value, "64m"), "${VAR}: '%s'", g->opt[1].value);
		CHECK(!strcmp(g->opt[2].value, "4k"), "# comment: '%s'", g->opt[2].value);
		CHECK(!strcmp(g->opt[3].value, "1"), "unset ${VAR} is empty: '%s'",
		      g->opt[3].value);
		snprintf(buf, sizeof(buf), "%ld", 2 * sysconf(_SC_PAGESIZE));
		CHECK(!strcmp(g->opt[4].value, buf), "$pagesize*2 = %s, got %s", buf,
		      g->opt[4].value);
		CHECK(j->nopt == 2 && !strcmp(j->opt[0].key, "rw") &&
			  !strcmp(j->opt[0].value, "randread") && !j->opt[1].value &&
			  j->opt[1].line == 12,
		      "spaces around '=', a bare flag and its line");
	}
	fio_jobfile_free(&jf);
	put("bad.fio", "size=1m\n[a]\n");
	snprintf(path, sizeof(path), "%s/bad.fio", dir);
	CHECK(fio_jobfile_read(path, &jf, why, sizeof(why)) == -EINVAL && strstr(why, ":1:"),
	      "an option before any section: %s", why);
	put("loop.fio", "[a]\ninclude loop.fio\n");
	snprintf(path, sizeof(path), "%s/loop.fio", dir);
	CHECK(fio_jobfile_read(path, &jf, why, sizeof(why)) == -EINVAL, "a section in an include");
	put("loop2.fio", "[a]\ninclude loop3.inc\n");
	put("loop3.inc", "include loop3.inc\n");
	snprintf(path, sizeof(path), "%s/loop2.fio", dir);
	CHECK(fio_jobfile_read(path, &jf, why, sizeof(why)) == -ELOOP, "include loop: %s", why);
}

static void test_classes(void)
{
	struct synth_spec *s = calloc(1, sizeof(*s));
	struct fiojob_result res;
	char why[1024];
	int err;

	put("net.fio", "[global]\nioengine=net\nport=8888\n[recv]\nrw=read\nsize=1m\n");
	err = load("net.fio", NULL, s, &res, why, sizeof(why));
	CHECK(err == -EOPNOTSUPP && strstr(why, "net.fio:2: ioengine=net") &&
		  strstr(why, "network"),
	      "engine refused with file:line and why: %s", why);
	put("lat.fio", "[a]\nrw=randread\nsize=1m\nthinkcycles=500\n");
	err = load("lat.fio", NULL, s, &res, why, sizeof(why));
	CHECK(err == -EOPNOTSUPP && strstr(why, "thinkcycles=500"), "refused option: %s", why);
	put("unk.fio", "[a]\nrw=read\nsize=1m\nfrobnicate=3\n");
	err = load("unk.fio", NULL, s, &res, why, sizeof(why));
	CHECK(err == -EOPNOTSUPP && strstr(why, "frobnicate"), "unknown option refused: %s", why);
	put("ign.fio", "[a]\nrw=read\nsize=1m\nthread\ngroup_reporting\nwrite_lat_log=x\n"
		       "buffer_pattern=0xaa\ndirect=0\nnumjobs=2\n");
	err = load("ign.fio", NULL, s, &res, why, sizeof(why));
	CHECK(!err && strstr(res.ignored, "thread") && strstr(res.ignored, "write_lat_log") &&
		  strstr(res.ignored, "buffer_pattern") && strstr(res.ignored, "direct=0") &&
		  strstr(res.ignored, "(reporting and logging)"),
	      "ignored options in one line, by why: %s", res.ignored);
	CHECK(!err && s->jobs[0].sync_engine && s->jobs[0].own_files,
	      "fio's defaults: psync, a file per clone");
	put("bad.fio", "[a]\nrw=read\nsize=lots\n");
	err = load("bad.fio", NULL, s, &res, why, sizeof(why));
	CHECK(err == -EINVAL && strstr(why, "bad.fio:3: size=lots"), "bad value: %s", why);
	/* verify= as fio: null still reads back ("pretend to verify"), 0 none, others refused */
	put("vnull.fio", "[a]\nrw=write\nsize=1m\nverify=null\n");
	err = load("vnull.fio", NULL, s, &res, why, sizeof(why));
	CHECK(!err && s->jobs[0].verify, "verify=null reads back as in fio: %d %s", err, why);
	put("v0.fio", "[a]\nrw=write\nsize=1m\nverify=0\n");
	err = load("v0.fio", NULL, s, &res, why, sizeof(why));
	CHECK(!err && !s->jobs[0].verify, "verify=0: %d %s", err, why);
	put("vbad.fio", "[a]\nrw=write\nsize=1m\nverify=nan\n");
	err = load("vbad.fio", NULL, s, &res, why, sizeof(why));
	CHECK(err == -EINVAL && strstr(why, "vbad.fio:4: verify=nan"), "verify=nan: %s", why);
	put("env.fio", "[a]\nrw=read\nbs=${IOREEL_T_UNSET}\n");
	err = load("env.fio", NULL, s, &res, why, sizeof(why));
	CHECK(err == -EINVAL && strstr(why, "bs=${IOREEL_T_UNSET} is empty"), "empty env: %s", why);
	free(s);
}

static int count_ops(void *ctx, const struct io_event *ev)
{
	uint64_t *c = ctx; /* reads, writes */

	c[ev->op == IO_OP_WRITE] += ev->op == IO_OP_READ || ev->op == IO_OP_WRITE;
	return ev->stream ? -EINVAL : 0;
}

/* Every option the table calls a pattern option is one synth_job_set() applies. */
static void test_table(void)
{
	const struct fio_optdef *d;
	struct synth_job j;
	char why[512];

	for (size_t i = 0; (d = fio_opt_at(i)); i++) {
		int err;

		if (d->cls != FIO_OPT_PATTERN || !strcmp(d->name, "kb_base") ||
		    !strcmp(d->name, "name"))
			continue;
		synth_job_defaults(&j);
		err = synth_job_set(&j, d->name, "1", why, sizeof(why));
		CHECK(err != -ENOENT, "%s is a pattern option the setter does not know", d->name);
		CHECK(fio_opt_find(d->name) == d, "%s found by name", d->name);
	}
	CHECK(fio_opt_find("Group-Reporting") && !fio_opt_find("frobnicate"),
	      "names match case and '-' insensitively");
	CHECK(fio_engine_find("libaio")->cls == FIO_ENGINE_ASYNC &&
		      fio_engine_find("psync")->cls == FIO_ENGINE_SYNC &&
		      fio_engine_find("net")->cls == FIO_ENGINE_REFUSED && !fio_engine_find("nope"),
	      "engines");
}

static void test_regions_groups(void)
{
	struct synth_spec *s = calloc(1, sizeof(*s));
	struct fiojob_result res;
	struct trace_stream rec;
	uint64_t base;
	char why[1024];
	int err;

	/* a file per clone, laid out one after another; shared files once */
	put("files.fio", "[global]\nrw=randread\nsize=3m\n[own]\nnumjobs=2\n"
			 "[shared1]\nfilename=f\n[shared2]\nstonewall\nfilename=f\nsize=5m\n"
			 "[after]\nwait_for=own\nfilename=g\nsize=1m\n");
	err = load("files.fio", NULL, s, &res, why, sizeof(why));
	CHECK(!err && !synth_spec_resolve(s, 0, why, sizeof(why)), "files: %s", why);
	CHECK(s->jobs[0].clone_span == 3 << 20 && s->jobs[0].file_base == 0,
	      "own files: 3 MiB each");
	synth_stream_rec(&s->jobs[0], 1, &rec, &base);
	CHECK(base == 3 << 20, "clone 1 in its own file: %llu", (unsigned long long)base);
	CHECK(s->jobs[1].file_base == 6 << 20 && s->jobs[2].file_base == 6 << 20,
	      "jobs naming one file share it");
	CHECK(s->jobs[3].file_base == 11 << 20, "the next file after the 5 MiB one: %llu",
	      (unsigned long long)s->jobs[3].file_base);
	CHECK(s->jobs[0].group == 0 && s->jobs[1].group == 0 && s->jobs[2].group == 1 &&
		  s->jobs[3].group == 1,
	      "groups: stonewall starts one, wait_for follows its job (%u %u %u %u)",
	      s->jobs[0].group, s->jobs[1].group, s->jobs[2].group, s->jobs[3].group);

	/* no size and % sizes: relative, resolved at replay (or with --device-size) */
	put("rel.fio", "[global]\nfilename=/dev/x\nnumber_ios=100\n[all]\nrw=randread\n"
		       "[quarter]\nrw=read\noffset=25%\nsize=50%\nbs=64k\n");
	err = load("rel.fio", NULL, s, &res, why, sizeof(why));
	CHECK(!err && !synth_spec_resolve(s, 0, why, sizeof(why)), "rel: %s", why);
	synth_stream_rec(&s->jobs[0], 0, &rec, &base);
	CHECK((rec.flags & TRACE_STREAM_REL) && (rec.flags & TRACE_STREAM_SCALE) &&
		  !rec.rel_len_ppm && rec.rel_align == 4096,
	      "no size: the whole target, random offsets scaled");
	synth_stream_rec(&s->jobs[1], 0, &rec, &base);
	CHECK((rec.flags & TRACE_STREAM_REL) && !(rec.flags & TRACE_STREAM_SCALE) &&
		  rec.rel_start_ppm == 250000 && rec.rel_len_ppm == 500000 && rec.rel_span == 65536,
	      "25%%/50%%: a sequential walk wrapping at its stride");
	err = load("rel.fio", NULL, s, &res, why, sizeof(why));
	CHECK(!err && !synth_spec_resolve(s, 1ULL << 30, why, sizeof(why)) && !s->jobs[1].rel &&
		  s->jobs[1].offset == 1ULL << 28 && s->jobs[1].size == 1ULL << 29,
	      "--device-size resolves them at synth time");
	put("unbound.fio", "[a]\nfilename=/dev/x\nrw=randread\n");
	err = load("unbound.fio", NULL, s, &res, why, sizeof(why));
	CHECK(!err && synth_spec_resolve(s, 0, why, sizeof(why)) == -EINVAL &&
		  strstr(why, "number_ios"),
	      "a whole-device pass needs a bound: %s", why);

	/* exitall: the first job to end ends the others; runtimes say when at the latest */
	put("exit.fio", "[global]\nexitall\nsize=1m\n[a]\nrw=read\nruntime=5\ntime_based\n"
			"[b]\nrw=write\nruntime=60\n");
	err = load("exit.fio", NULL, s, &res, why, sizeof(why));
	CHECK(!err && !synth_spec_resolve(s, 0, why, sizeof(why)) &&
		  s->jobs[1].runtime_ns == 5000000000ULL,
	      "exitall caps b at a's runtime");
	/* flow: jobs of one flow_id share a stream, I/Os in the ratio of their weights */
	put("flow.fio", "[global]\nfilename=f\nsize=64m\nioengine=libaio\n"
			"[w]\nrw=write\nflow=1\niodepth=2\n[r]\nrw=randread\nflow=3\niodepth=8\n");
	err = load("flow.fio", NULL, s, &res, why, sizeof(why));
	CHECK(!err && !synth_spec_resolve(s, 0, why, sizeof(why)) && s->jobs[1].flow_lead == 0,
	      "flow set: %s", why);
	{
		struct trace_meta *m = calloc(1, sizeof(*m));
		struct counts {
			uint64_t r, w;
		} c = {0, 0};

		CHECK(!synth_spec_meta(s, m, NULL, 0, why, sizeof(why)) && m->nstreams == 1 &&
			  m->streams[0].depth == 10,
		      "one stream of depth 2 + 8: %s (%u streams)", why, m->nstreams);
		CHECK(!synth_generate(s, count_ops, &c) && c.r == 16384 &&
			  (c.w == 16384 / 3 || c.w == 16384 / 3 + 1),
		      "reads:writes = 3:1 until the reader's pass ends: %llu %llu",
		      (unsigned long long)c.r, (unsigned long long)c.w);
		free(m);
	}
	/* z units need zonemode=zbd, which is refused */
	put("z.fio", "[a]\nrw=read\nsize=8z\nzonesize=256m\n");
	err = load("z.fio", NULL, s, &res, why, sizeof(why));
	CHECK(!err && synth_spec_resolve(s, 0, why, sizeof(why)) == -EOPNOTSUPP &&
		  strstr(why, "zonemode=zbd"),
	      "zone units refused outside zbd: %s", why);
	free(s);
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_values();
	test_text();
	test_classes();
	test_table();
	test_regions_groups();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", dir);
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
