// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for `ioreel info`: the input is a .ioreel file, described by cmd_info itself
 * as `info FILE --files`, with --json, with --salvage and with both, so the header's counts,
 * the file table, the CPU figures, the elastic records and the counters all reach the code that
 * prints them (divisions by a zero duration, indexes taken from the file). A second pass
 * recomputes the checksums the bytes claim (checksums.h), as fuzz_reader does.
 * stdout is /dev/null; stderr is caught in memory while the verb runs, because a refusal must
 * say why: an exit other than 0 without a message, or any exit other than 0, 1 or 2, aborts.
 * cmd_info closes stdout when it succeeds and leaves it open when it fails, so fclose is
 * wrapped (-Wl,--wrap=fclose, see the Makefile) to only flush that one stream: a fresh stream
 * per run would leak one descriptor per refusal.
 * Built and run by `make fuzz` (seeds: tests/fuzz/corpus/fuzz_info/).
 * FUZZ_INFO_VERBOSE=1 prints what the verb said for each input.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "util/cli.h"
#include "tests/fuzz/checksums.h"

int cmd_info(int argc, char **argv);

static bool verbose;
static FILE *devnull;

int __real_fclose(FILE *f);

int __wrap_fclose(FILE *f)
{
	if (f && f == devnull)
		return fflush(f);
	return __real_fclose(f);
}

static void describe(char *path, bool json, bool salvage)
{
	char a0[] = "info", aj[] = "--json", as[] = "--salvage", af[] = "--files";
	char *argv[6] = { a0, path, af };
	int argc = 3, rc;
	FILE *err_was = stderr;
	char *said = NULL;
	size_t len = 0;

	if (json)
		argv[argc++] = aj;
	if (salvage)
		argv[argc++] = as;
	stdout = devnull;
	stderr = open_memstream(&said, &len);
	if (!stderr)
		abort();
	rc = cmd_info(argc, argv);
	fclose(stderr);
	stderr = err_was;
	if (verbose)
		fprintf(stderr, "fuzz_info:%s%s %d %s", json ? " --json" : "",
			salvage ? " --salvage" : "", rc, said);
	if (rc != EXIT_OK && rc != EXIT_RUNTIME && rc != EXIT_USAGE) {
		fprintf(stderr, "fuzz_info: exit %d: %s\n", rc, said);
		abort();
	}
	if (rc != EXIT_OK && !len) {
		fprintf(stderr, "fuzz_info: exit %d without saying why\n", rc);
		abort();
	}
	free(said);
}

static void run(int fd, char *path, const uint8_t *data, size_t size)
{
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		return;
	for (int i = 0; i < 4; i++)
		describe(path, i & 1, i & 2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	uint8_t *copy;

	if (fd < 0) {
		fd = fuzz_memfd("fuzz_info", path);
		if (fd < 0)
			return 0;
		verbose = getenv("FUZZ_INFO_VERBOSE") != NULL;
		devnull = fopen("/dev/null", "w");
		if (!devnull)
			abort();
	}
	run(fd, path, data, size);
	copy = malloc(size ? size : 1);
	if (copy) {
		memcpy(copy, data, size);
		fix_checksums(copy, size);
		if (memcmp(copy, data, size))
			run(fd, path, copy, size);
		free(copy);
	}
	return 0;
}
