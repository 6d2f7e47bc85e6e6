// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for file-level replay (replay --root): each input is a recipe of a
 * file-level trace (write_recipe: a file table whose paths are the input's bytes, "..", "/",
 * NULs and all, then calls of every op and interface with the input's descriptors, offsets,
 * lengths, results and flags), written by the trace writer and replayed under a fresh root
 * directory with the null engine, writes allowed, in the trace's default mode (dep) and in one
 * other picked from a hash of the input (every other input with the threads engine there,
 * which makes the calls for real). Must never crash, leak or hang (replay_fuzz.h),
 * and never touch anything outside the root: the root's parent holds a canary file beside it,
 * and after every run the parent must hold exactly the two, the canary as it was.
 * Built and run by `make fuzz`; seeds in tests/fuzz/corpus/fuzz_replay_file/ (ftrace_craft's
 * pattern: open at start, write, fsync, close; and a rename, an unlink, a mkdir).
 * FUZZ_REPLAY_VERBOSE=1 prints what each run did.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "formats/trace.h"
#include "tests/fuzz/replay_fuzz.h"

#define CANARY "a file outside the root: no replay may touch it\n"
#define MAX_FILES 8
#define MAX_PATH_BYTES 48

static bool verbose;
static char sandbox[64], root[96], canary[96];

/*
 * A recipe: a byte for the number of files (1 to MAX_FILES), per file a path (a length byte,
 * then that many bytes, cut at a NUL), its size, mode (regular or directory) and origin bits;
 * then 30-byte calls until the input ends. What the writer refuses is no run.
 */
static int write_recipe(const char *path, const uint8_t *data, size_t size)
{
	struct cursor c = { data, size };
	char paths[MAX_FILES][MAX_PATH_BYTES + 1];
	uint32_t nfiles = 1 + take(&c, 1) % MAX_FILES;
	struct trace_writer *w;
	struct trace_meta m;
	uint64_t t = 1000000, n = 0;
	int err = 0;

	trace_meta_init(&m, "record");
	m.level = TRACE_LEVEL_FILE;
	w = trace_writer__open(path, &m, NULL);
	if (!w)
		return -1;
	for (uint32_t i = 0; i < nfiles && !err; i++) {
		unsigned int len = take(&c, 1) % (MAX_PATH_BYTES + 1);
		struct trace_file f = { .id = i + 1, .dev_major = 7, .ino = 100 + i, .fs = "ext4" };

		for (unsigned int k = 0; k < len; k++)
			paths[i][k] = (char)take(&c, 1);
		paths[i][len] = 0;
		f.path = paths[i];
		f.size = take(&c, 2); /* recreated before the clock: kept small */
		f.alloc = f.size;
		f.mode = take(&c, 1) & 1 ? 040755 : 0100644;
		f.origin = take(&c, 1) & 0x3f;
		f.oflags = 02;
		err = trace_writer__add_files(w, &f, 1);
	}
	while (c.left && !err) {
		struct io_event e = { .issue_ns = IO_TS_NONE, .pid = 4242, .comm = "fuzzed" };
		struct io_fext x;

		memset(&x, 0, sizeof(x));
		e.op = take(&c, 1) % IO_FOP__COUNT;
		x.file = take(&c, 1) % (nfiles + 1);
		x.fd = (int32_t)(take(&c, 1) % 16) - 2;
		e.offset = take(&c, 3);
		e.length = take(&c, 2);
		x.result = (int64_t)(int16_t)take(&c, 2);
		x.aux = take(&c, 4);
		x.arg = take(&c, 4);
		x.oflags = take(&c, 4);
		x.iface = take(&c, 1) % IO_FIF__COUNT;
		e.flags = take(&c, 1) & IO_FF__ALL;
		e.tid = 4242 + take(&c, 1) % 4;
		t += take(&c, 2) * 100;
		e.queue_ns = x.iface == IO_FIF_START ? 0 : t;
		e.complete_ns = e.queue_ns + 1000 + take(&c, 2);
		take(&c, 1);
		err = trace_writer__add_fevents(w, &e, &x, 1);
		n++;
	}
	if (err) {
		trace_writer__abort(w);
		return -1;
	}
	return trace_writer__close(w, &(struct trace_stats){ .events = n }) ? -1 : 0;
}

static int remove_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p) && errno != ENOENT ? -1 : 0;
}

/* The root emptied and made again; the parent checked: the root and the canary, nothing else. */
static void fresh_root(bool check)
{
	struct dirent *de;
	DIR *d;
	char buf[sizeof(CANARY) + 8];
	ssize_t n;
	int fd;

	if (nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
		abort();
	if (check) {
		d = opendir(sandbox);
		if (!d)
			abort();
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
			    strcmp(de->d_name, "root") && strcmp(de->d_name, "canary")) {
				fprintf(stderr, "fuzz_replay_file: %s/%s appeared outside the root\n",
					sandbox, de->d_name);
				abort();
			}
		closedir(d);
		fd = open(canary, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
		if (fd >= 0)
			close(fd);
		if (n != (ssize_t)strlen(CANARY) || memcmp(buf, CANARY, n)) {
			fprintf(stderr, "fuzz_replay_file: the canary outside the root was changed\n");
			abort();
		}
	}
	if (mkdir(root, 0755))
		abort();
}

static void cleanup(void)
{
	nftw(sandbox, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void replay_once(const char *trace, int mode, const char *engine)
{
	struct replay_opts o;
	struct replay_result res;
	char err[1024];
	int ret;

	fuzz_replay_opts(&o, trace, mode);
	o.root = root;
	o.engine = engine;
	fresh_root(true);
	watchdog_arm(mode);
	ret = replay_run(&o, &res, err, sizeof(err));
	watchdog_disarm();
	if (verbose)
		fprintf(stderr, "fuzz_replay_file: mode %s, engine %s: %d %s, %llu calls%s\n",
			replay_mode_name(mode), engine, ret, ret ? err : "",
			(unsigned long long)res.ios, replay_stop ? ", stopped" : "");
	replay_result_free(&res);
	fresh_root(true);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int modes[] = { REPLAY_TIMED, REPLAY_AFAP, REPLAY_DEP };
	static int fd = -1;
	static char path[64];
	uint32_t h = 2166136261u;

	if (fd < 0) {
		snprintf(sandbox, sizeof(sandbox), "/tmp/fuzz_replay_file.XXXXXX");
		if (!mkdtemp(sandbox))
			abort();
		atexit(cleanup);
		snprintf(root, sizeof(root), "%s/root", sandbox);
		snprintf(canary, sizeof(canary), "%s/canary", sandbox);
		fd = open(canary, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0 || write(fd, CANARY, strlen(CANARY)) != (ssize_t)strlen(CANARY))
			abort();
		close(fd);
		fresh_root(false);
		fd = memfd_create("fuzz_replay_file", 0); /* the trace, written by path */
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		watchdog_start();
		verbose = getenv("FUZZ_REPLAY_VERBOSE");
	}
	if (write_recipe(path, data, size))
		return 0;
	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 16777619u;
	replay_once(path, REPLAY_MODE_AUTO, "null");
	/* every other input once more with the threads engine: its workers make the calls for
	 * real under the root, the calls on names (stat, mkdir, rename...) too in dep mode */
	replay_once(path, modes[h % 3], (h >> 8) & 1 ? "threads" : "null");
	return 0;
}
