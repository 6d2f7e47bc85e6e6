// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A dep replay's elastic models in a result trace (formats/elastic.h): written as counters and
 * read back equal at either level (op names of enum io_fop, enum io_op), 0 where a count is 0;
 * a trace without them reads as none, and names a newer writer may add are skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "formats/elastic.h"
#include "check.h"

static bool same(const struct trace_elastic *a, const struct trace_elastic *b)
{
	return a->group_commit == b->group_commit && a->absorb == b->absorb &&
	       a->splits == b->splits && a->commit_lock == b->commit_lock &&
	       a->file_level == b->file_level && !memcmp(a->trace, b->trace, sizeof(a->trace)) &&
	       !memcmp(a->issued, b->issued, sizeof(a->issued)) &&
	       !memcmp(a->coalesced, b->coalesced, sizeof(a->coalesced)) &&
	       !memcmp(a->absorbed, b->absorbed, sizeof(a->absorbed)) &&
	       !memcmp(a->split, b->split, sizeof(a->split)) &&
	       !memcmp(a->followed, b->followed, sizeof(a->followed)) && a->flushes == b->flushes &&
	       a->redundant == b->redundant && a->grounded == b->grounded &&
	       a->lock_waits == b->lock_waits && a->lock_kept == b->lock_kept &&
	       a->lock_broken == b->lock_broken && a->merged_bytes == b->merged_bytes;
}

/* Writes a trace of one event at the level asked, with e's record (or none), plus extra
 * counters after it when given; then reads the record back into got. */
static bool round_trip(const char *path, bool file, const struct trace_elastic *e,
		       const struct trace_counter *extra, size_t nextra, struct trace_elastic *got)
{
	struct io_event ev = {.queue_ns = 1000,
			      .issue_ns = IO_TS_NONE,
			      .complete_ns = 2000,
			      .length = 4096,
			      .op = IO_OP_WRITE};
	struct io_fext x = {.file = 1, .fd = 3};
	struct trace_file f = {.id = 1, .path = "/w"};
	struct trace_meta m;
	struct trace_writer *w;
	struct trace_reader *r;
	char why[256];
	bool has;
	int err;

	trace_meta_init(&m, "replay:dep");
	if (file) {
		m.level = TRACE_LEVEL_FILE;
	} else {
		m.ndevices = 1;
		snprintf(m.devices[0].name, sizeof(m.devices[0].name), "dev0");
	}
	w = trace_writer__open(path, &m, NULL);
	if (!w)
		return fprintf(stderr, "open %s: %s\n", path, strerror(errno)), false;
	err = file ? trace_writer__add_files(w, &f, 1) ?: trace_writer__add_fevents(w, &ev, &x, 1)
		   : trace_writer__add(w, &ev, 1);
	if (nextra && !e)
		err = err ?: trace_writer__set_counters(w, extra, nextra);
	err = err ?: (e ? trace_writer__set_elastic(w, e) : 0);
	err = err ?: trace_writer__close(w, NULL);
	if (err)
		return fprintf(stderr, "write %s: %d\n", path, err), false;
	r = trace_reader__open(path, 0, why, sizeof(why));
	if (!r)
		return fprintf(stderr, "read %s: %s\n", path, why), false;
	has = trace_reader__elastic(r, got);
	trace_reader__close(r);
	return has;
}

int main(void)
{
	char path[] = "/tmp/ioreel-elastic-XXXXXX";
	int fd = mkstemp(path);
	struct trace_elastic e = {0}, got;
	const struct trace_counter others[] = {{"uncovered_mmap_shared", 3},
					       {"elastic_nosuchop_coalesced", 7}};

	CHECK(fd >= 0, "mkstemp: %s", strerror(errno));
	if (fd < 0)
		return 1;
	close(fd);

	/* file level: every model on, counts on ops past the reads, writes and syncs */
	e = (struct trace_elastic){.group_commit = true,
				   .absorb = true,
				   .splits = true,
				   .commit_lock = true,
				   .file_level = true,
				   .flushes = 40,
				   .redundant = 3,
				   .grounded = 5,
				   .lock_waits = 6,
				   .lock_broken = 1,
				   .lock_kept = 2,
				   .merged_bytes = 12288};
	e.trace[IO_FOP_WRITE] = 100, e.issued[IO_FOP_WRITE] = 90, e.absorbed[IO_FOP_WRITE] = 8;
	e.followed[IO_FOP_WRITE] = 2;
	e.trace[IO_FOP_FDATASYNC] = 40, e.issued[IO_FOP_FDATASYNC] = 37;
	e.coalesced[IO_FOP_FDATASYNC] = 4, e.split[IO_FOP_FDATASYNC] = 2;
	e.followed[IO_FOP_FDATASYNC] = 1;
	e.trace[IO_FOP_SYNC_RANGE] = 9, e.issued[IO_FOP_SYNC_RANGE] = 9; /* '_' in its name */
	e.trace[IO_FOP_RMDIR] = 1, e.issued[IO_FOP_RMDIR] = 1;
	CHECK(round_trip(path, true, &e, NULL, 0, &got) && same(&e, &got), "file level");

	/* block level: one model, flushes by io_op's names */
	e = (struct trace_elastic){.group_commit = true, .flushes = 2, .redundant = 1};
	e.trace[IO_OP_WRITE] = 2, e.issued[IO_OP_WRITE] = 2;
	e.trace[IO_OP_FLUSH] = 2, e.issued[IO_OP_FLUSH] = 1, e.coalesced[IO_OP_FLUSH] = 1;
	CHECK(round_trip(path, false, &e, NULL, 0, &got) && same(&e, &got), "block level");

	/* no record: every model off is not written; a recorder's counters are not one */
	CHECK(!trace_elastic_any(&(struct trace_elastic){.file_level = true}), "all off");
	CHECK(!round_trip(path, true, NULL, others, 1, &got), "a recorder's counters");
	CHECK(!got.absorb && !got.trace[IO_FOP_WRITE], "zeroed when absent");

	/* a name a newer writer may add (an op this reader does not know) is skipped */
	e = (struct trace_elastic){.absorb = true};
	e.trace[IO_OP_WRITE] = 3, e.issued[IO_OP_WRITE] = 3;
	{
		struct trace_writer *w;
		struct trace_meta m;
		struct trace_reader *r;
		struct trace_counter c[] = {{"elastic_models", 2},
					    {"elastic_write_trace", 3},
					    {"elastic_write_issued", 3},
					    {"elastic_nosuchop_coalesced", 7},
					    {"elastic_write_newcount", 9}};
		struct io_event ev = {.queue_ns = 1, .issue_ns = IO_TS_NONE, .complete_ns = 2};

		trace_meta_init(&m, "replay:dep");
		m.ndevices = 1;
		w = trace_writer__open(path, &m, NULL);
		CHECK(w && !trace_writer__add(w, &ev, 1) &&
			  !trace_writer__set_counters(w, c, sizeof(c) / sizeof(c[0])) &&
			  !trace_writer__close(w, NULL),
		      "write");
		r = trace_reader__open(path, 0, NULL, 0);
		CHECK(r && trace_reader__elastic(r, &got) && same(&e, &got), "unknown names");
		if (r)
			trace_reader__close(r);
	}
	unlink(path);
	return failures ? 1 : 0;
}
