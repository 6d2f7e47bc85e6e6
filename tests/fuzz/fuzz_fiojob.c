// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for `ioreel synth --fio-job`: the input is written as a job file and taken
 * through what cmd_synth does with one (fiojob_load, the overrides, synth_fileops_prepare or
 * synth_spec_resolve, synth_write_trace), with --number-ios 200 given on the command line so
 * that one input makes a small trace (and file-level jobs of 16384 files at most, see
 * too_many_files), written into a temporary directory and removed.
 * --device-size is none (regions resolved at replay), 1 GiB or 16 TiB, picked from a hash of
 * the input. Must never crash, leak or hang, and a refusal must say why (an empty message
 * aborts). ${VAR} reads the environment as it is.
 * Includes: the job file is the only file of an otherwise empty directory, and fopen is
 * wrapped (-Wl,--wrap=fopen, see the Makefile) so that while a job file is read nothing
 * outside that directory opens: "include /etc/passwd" or "include /dev/stdin" is not found,
 * where the verb would read it as fio does. The job file may include itself (the depth limit).
 * Built and run by `make fuzz`. Seeds: tests/fuzz/corpus/fuzz_fiojob/.
 * FUZZ_FIOJOB_VERBOSE=1 prints what each input gave.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "synth/synth.h"

static char dir[64], job[96], out[96];
static bool confined, verbose;

FILE *__real_fopen(const char *path, const char *mode);

/* Only the files of the fuzzer's directory open while confined (realpath: no ".." out). */
FILE *__wrap_fopen(const char *path, const char *mode)
{
	char real[PATH_MAX];
	size_t n = strlen(dir);

	if (confined &&
	    (!realpath(path, real) || strncmp(real, dir, n) || real[n] != '/')) {
		errno = ENOENT;
		return NULL;
	}
	return __real_fopen(path, mode);
}

static void cleanup(void)
{
	unlink(out);
	unlink(job);
	rmdir(dir);
}

static void setup(void)
{
	char tmpl[] = "/tmp/fuzz_fiojob.XXXXXX", real[PATH_MAX];

	/* the real path: /tmp may be a link, and the wrapper compares real paths */
	if (!mkdtemp(tmpl) || !realpath(tmpl, real) || strlen(real) >= sizeof(dir))
		abort();
	snprintf(dir, sizeof(dir), "%s", real);
	snprintf(job, sizeof(job), "%s/job.fio", dir);
	snprintf(out, sizeof(out), "%s/out.ioreel", dir);
	atexit(cleanup);
	verbose = getenv("FUZZ_FIOJOB_VERBOSE");
}

static bool write_job(const uint8_t *data, size_t size)
{
	int fd = open(job, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	bool ok = fd >= 0 && write(fd, data, size) == (ssize_t)size;

	if (fd >= 0)
		close(fd);
	return ok;
}

/* A refusal that says nothing is a bug too: the verb would print "ioreel synth: " alone. */
static void check_why(int err, const char *why, const char *stage)
{
	if (verbose)
		fprintf(stderr, "fuzz_fiojob: %s: %d %s\n", stage, err, why);
	if (err && !why[0]) {
		fprintf(stderr, "fuzz_fiojob: %s refused (%d) without saying why\n", stage, err);
		abort();
	}
}

/*
 * A file-level trace lists every file of every job clone (fio opens them all), whatever
 * --number-ios says: 4 Mi files took the verb 7.6 s (2^24 may be asked, synth/fileops.c).
 * Past FUZZ_MAX_FILES the input is not generated, as --number-ios keeps the I/O small.
 */
#define FUZZ_MAX_FILES 16384

static bool too_many_files(const struct synth_spec *s)
{
	uint64_t n = 0;

	if (!synth_spec_file_level(s))
		return false;
	for (unsigned int i = 0; i < s->njobs; i++)
		n += (uint64_t)(s->jobs[i].nrfiles ? s->jobs[i].nrfiles : 1) * s->jobs[i].numjobs;
	return n > FUZZ_MAX_FILES;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t devsizes[] = { 0, 1ull << 30, 16ull << 40 };
	static struct synth_spec spec;
	static struct trace_meta meta;
	struct fiojob_result res;
	struct synth_counts counts;
	uint32_t h = 2166136261u;
	uint64_t devsize;
	char why[512] = "";
	int err;

	if (!dir[0])
		setup();
	if (!write_job(data, size))
		return 0;
	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 16777619u;
	devsize = devsizes[h % 3];

	confined = true;
	err = fiojob_load(job, NULL, NULL, &spec, &res, why, sizeof(why));
	confined = false;
	check_why(err, why, "fiojob_load");
	if (err)
		return 0;
	/* cmd_synth's apply_overrides for --number-ios 200 */
	for (unsigned int i = 0; i < spec.njobs && !err; i++)
		err = synth_job_set(&spec.jobs[i], "number_ios", "200", why, sizeof(why));
	check_why(err, why, "--number-ios");
	if (err)
		return 0;
	err = synth_spec_file_level(&spec) ? synth_fileops_prepare(&spec, why, sizeof(why))
					   : synth_spec_resolve(&spec, devsize, why, sizeof(why));
	check_why(err, why, "resolve");
	if (err || too_many_files(&spec))
		return 0;
	err = synth_write_trace(&spec, out, "fuzz", devsize, "fuzz_fiojob", &meta, &counts, why,
				sizeof(why));
	check_why(err, why, "write");
	if (verbose && !err)
		fprintf(stderr, "fuzz_fiojob: %llu events\n", (unsigned long long)counts.events);
	unlink(out);
	return 0;
}
