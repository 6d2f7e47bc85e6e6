// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * util/outfile: an output appears under its name only when committed, whole; an abort leaves
 * the name as it was (absent, or the old file) and no temporary file; a symlink is followed
 * (the link stays); a FIFO is written in place; a replaced file keeps its mode.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tests/unit/check.h"
#include "util/outfile.h"

static char dir[] = "/tmp/test_outfile.XXXXXX";

static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static void slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	char path[256], link[256], fifo[256], buf[64];
	struct outfile o;
	struct stat st;
	FILE *f;

	CHECK(mkdtemp(dir), "mkdtemp");
	snprintf(path, sizeof(path), "%s/out.csv", dir);
	/* a new file: nothing under its name until the commit */
	CHECK(!outfile_open(&o, path), "open");
	f = outfile_fdopen(&o);
	CHECK(f && fputs("new\n", f) >= 0, "write");
	CHECK(access(path, F_OK) && entries() == 1, "only the temporary file before the commit");
	CHECK(!fclose(f) && !outfile_commit(&o), "commit");
	slurp(path, buf, sizeof(buf));
	CHECK(!strcmp(buf, "new\n") && entries() == 1, "committed: %s", buf);
	/* an abort leaves the old file as it was, and no temporary file */
	chmod(path, 0640);
	CHECK(!outfile_open(&o, path), "open again");
	CHECK(write(o.fd, "half", 4) == 4, "write");
	outfile_abort(&o);
	slurp(path, buf, sizeof(buf));
	CHECK(!strcmp(buf, "new\n") && entries() == 1, "abort kept the old file: %s", buf);
	/* a replaced file keeps its mode */
	CHECK(!outfile_open(&o, path) && write(o.fd, "v2\n", 3) == 3 && !outfile_commit(&o),
	      "replace");
	CHECK(!stat(path, &st) && (st.st_mode & 07777) == 0640, "mode %o", st.st_mode & 07777);
	/* through a symlink: the file it names is replaced, the link stays */
	snprintf(link, sizeof(link), "%s/link.csv", dir);
	CHECK(!symlink("out.csv", link), "symlink");
	CHECK(!outfile_open(&o, link) && write(o.fd, "v3\n", 3) == 3 && !outfile_commit(&o),
	      "via link");
	slurp(path, buf, sizeof(buf));
	CHECK(!lstat(link, &st) && S_ISLNK(st.st_mode) && !strcmp(buf, "v3\n"), "link kept: %s",
	      buf);
	CHECK(outfile_same_file(link, path) && !outfile_same_file(dir, path), "same_file");
	/* a FIFO is written in place and never removed, even on abort */
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	CHECK(!mkfifo(fifo, 0600), "mkfifo");
	int rd = open(fifo, O_RDONLY | O_NONBLOCK);
	CHECK(!outfile_open(&o, fifo) && o.in_place && !o.tmp, "FIFO in place");
	CHECK(write(o.fd, "x", 1) == 1, "write FIFO");
	outfile_abort(&o);
	CHECK(!lstat(fifo, &st) && S_ISFIFO(st.st_mode), "the FIFO is still there");
	close(rd);
	unlink(fifo);
	unlink(link);
	unlink(path);
	CHECK(entries() == 0, "nothing else was left");
	rmdir(dir);
	return failures ? 1 : 0;
}
