// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Dependency inference (replay/dep_infer.c) on small hand-built traces whose dependencies are
 * known: a synchronous thread, an asynchronous thread at depth 8, an fsync waiting on a
 * journal thread's commit, overlapping writes, long gaps, and traces inference cannot use.
 */
#include <stdlib.h>
#include <string.h>
#include "replay/dep/dep.h"

#include "tests/unit/check.h"

#define US 1000ULL

static struct io_event ev(uint32_t tid, uint64_t q_us, uint64_t c_us, uint8_t op, uint8_t flags,
			  uint64_t off, uint32_t len)
{
	struct io_event e;

	memset(&e, 0, sizeof(e));
	e.queue_ns = q_us * US;
	e.issue_ns = IO_TS_NONE;
	e.complete_ns = c_us == UINT64_MAX ? IO_TS_NONE : c_us * US;
	e.tid = e.pid = tid;
	e.op = op;
	e.flags = flags;
	e.offset = off;
	e.length = len;
	return e;
}

/* Runs inference over n events (in queue order), one dep_info each. */
static struct dep_infer *infer(const struct io_event *e, size_t n, struct dep_info *out,
			       const struct dep_opts *o)
{
	struct dep_infer *d = dep_infer__new(o);

	CHECK(d != NULL, "dep_infer__new");
	if (!d)
		exit(1);
	for (size_t i = 0; i < n; i++)
		dep_infer__next(d, &e[i], &out[i]);
	return d;
}

/* Has info an edge of this kind to the I/O back positions earlier, with this gap? */
static bool has_edge(const struct dep_info *x, uint8_t kind, uint32_t back, uint64_t gap_us)
{
	for (int i = 0; i < x->npar; i++)
		if (x->par[i].kind == kind && x->par[i].back == back &&
		    x->par[i].gap_ns == gap_us * US)
			return true;
	return false;
}

static void test_sync_thread(void)
{
	/* read, think 50 us, write, think 20 us, flush: each waits for the one before */
	struct io_event e[] = {
		ev(10, 0, 100, IO_OP_READ, 0, 0, 8192),
		ev(10, 150, 250, IO_OP_WRITE, IO_F_SYNC, 8192, 8192),
		ev(10, 270, 400, IO_OP_FLUSH, IO_F_SYNC, 0, 0),
	};
	struct dep_info x[3];
	struct dep_infer *d = infer(e, 3, x, NULL);

	CHECK(x[0].kind == DEP_OPEN && x[0].npar == 0, "stream head is open");
	CHECK(x[1].kind == DEP_SYNC && x[1].npar == 1 && has_edge(&x[1], DEP_SYNC, 1, 50),
	      "write after the read's completion + 50 us (kind %d npar %d)", x[1].kind, x[1].npar);
	CHECK(x[2].kind == DEP_SYNC && has_edge(&x[2], DEP_SYNC, 1, 20), "flush after the write");
	CHECK(x[1].stream == x[0].stream && x[2].depth == 0, "one stream, nothing in flight");
	CHECK(dep_infer__stats(d)->streams == 1, "one thread");
	dep_infer__free(d);
}

static void test_async_depth8(void)
{
	/* 8 reads 1 us apart, each taking 500 us; a 9th as the first completes keeps depth 8;
	 * after all are done, one more waits for the latest completion */
	struct io_event e[11];
	struct dep_info x[11];
	struct dep_infer *d;

	for (int i = 0; i < 8; i++)
		e[i] = ev(20, (uint64_t)i, 500 + (uint64_t)i, IO_OP_READ, 0, (uint64_t)i << 20, 4096);
	e[8] = ev(20, 503, 1000, IO_OP_READ, 0, 8 << 20, 4096);	 /* 4 of 8 done */
	e[9] = ev(21, 600, 700, IO_OP_READ, 0, 9 << 20, 4096);	 /* another thread */
	e[10] = ev(20, 1100, 1200, IO_OP_READ, 0, 10 << 20, 4096); /* all of 20's done */
	d = infer(e, 11, x, NULL);
	CHECK(x[0].kind == DEP_OPEN, "head");
	for (int i = 1; i < 8; i++) {
		CHECK(x[i].kind == DEP_ASYNC && has_edge(&x[i], DEP_ASYNC, 1, 1),
		      "read %d follows the previous submission by 1 us (kind %d)", i, x[i].kind);
		CHECK(x[i].depth == i, "read %d: %d earlier in flight, not %d", i, i, x[i].depth);
	}
	/* completions at 500..503 are done by 503: 4 of 8 still in flight */
	CHECK(x[8].kind == DEP_ASYNC && has_edge(&x[8], DEP_ASYNC, 1, 496), "9th is async");
	CHECK(x[8].depth == 4, "9th: 4 still in flight (completions up to 503 us are done), "
			       "got %d", x[8].depth);
	CHECK(x[9].kind == DEP_OPEN && x[9].stream != x[0].stream, "other thread: its own head");
	CHECK(x[10].kind == DEP_SYNC && has_edge(&x[10], DEP_SYNC, 2, 100) && x[10].depth == 0,
	      "after all completed: sync on the latest completion (the 9th, 2 back), 100 us");
	dep_infer__free(d);
}

static void test_fsync_journal(void)
{
	/* user thread 30 writes data and fsyncs: jbd2 (kernel thread 31) writes the journal
	 * block, then the commit block with preflush+fua once it completed; thread 30 goes on
	 * 20 us after the commit completed. A flush by thread 32 completes too early to count. */
	uint8_t k = IO_F_KTHREAD;
	struct io_event e[] = {
		ev(32, 0, 30, IO_OP_FLUSH, 0, 0, 0),
		ev(30, 10, 100, IO_OP_WRITE, IO_F_SYNC, 0, 4096),
		ev(31, 110, 200, IO_OP_WRITE, k, 1 << 20, 4096),
		ev(31, 210, 300, IO_OP_WRITE, k | IO_F_PREFLUSH | IO_F_FUA, 2 << 20, 4096),
		ev(30, 320, 400, IO_OP_WRITE, IO_F_SYNC, 4096, 4096),
	};
	struct dep_info x[5];
	struct dep_infer *d = infer(e, 5, x, NULL);

	CHECK(x[3].kind == DEP_SYNC && has_edge(&x[3], DEP_SYNC, 1, 10),
	      "commit block after the journal block");
	/* the wait for the commit is in that gap: after its own write it has no think time */
	CHECK(x[4].kind == DEP_SYNC && has_edge(&x[4], DEP_SYNC, 3, 0),
	      "thread 30: its own write, completed before, no think time of its own");
	CHECK(has_edge(&x[4], DEP_BARRIER, 1, 20) && x[4].npar == 2,
	      "thread 30: the commit's completion 20 us before (npar %d)", x[4].npar);
	CHECK(dep_infer__stats(d)->kthread == 2, "two I/Os by a kernel thread");
	CHECK(dep_infer__stats(d)->edges[DEP_BARRIER] == 1, "one barrier edge");
	dep_infer__free(d);

	/* without barrier edges, or outside xwin, thread 30 depends on itself only */
	struct dep_opts o;

	dep_opts_default(&o);
	o.barrier = DEP_BARRIER_NONE;
	d = infer(e, 5, x, &o);
	CHECK(x[4].npar == 1 && has_edge(&x[4], DEP_SYNC, 3, 220),
	      "--dep-barrier none: its own write, 220 us before");
	dep_infer__free(d);
	o.barrier = DEP_BARRIER_KTHREAD; /* jbd2 is a kernel thread: still found */
	d = infer(e, 5, x, &o);
	CHECK(x[4].npar == 2 && has_edge(&x[4], DEP_BARRIER, 1, 20), "--dep-barrier kthread");
	dep_infer__free(d);
	dep_opts_default(&o);
	o.xwin_ns = 10 * US;
	d = infer(e, 5, x, &o);
	CHECK(x[4].npar == 1, "the commit completed 20 us before, xwin 10 us");
	dep_infer__free(d);
}

static void test_overlap(void)
{
	struct io_event e[] = {
		ev(40, 0, 1000, IO_OP_WRITE, 0, 0, 8192),
		ev(41, 10, 500, IO_OP_WRITE, 0, 4096, 4096),	   /* over the first, in flight */
		ev(42, 20, 500, IO_OP_WRITE, 0, 16384, 4096),	   /* elsewhere */
		ev(43, 30, 500, IO_OP_READ, 0, 0, 4096),	   /* a read: not ordered */
		ev(44, 2000, 2500, IO_OP_WRITE, 0, 0, 8192),	   /* over, but all done */
		ev(45, 2010, 2600, IO_OP_WRITE, 1, 70000, 200000), /* spans granules... */
		ev(46, 2020, 2700, IO_OP_WRITE, 0, 200000, 512),   /* ...and is in flight */
	};
	struct dep_info x[7];
	struct dep_infer *d = infer(e, 7, x, NULL);

	CHECK(has_edge(&x[1], DEP_OVERLAP, 1, 10) && x[1].npar == 1, "write over a write in "
	      "flight is issued after it");
	CHECK(x[2].npar == 0 && x[3].npar == 0 && x[4].npar == 0, "no overlap edges elsewhere");
	CHECK(has_edge(&x[6], DEP_OVERLAP, 1, 10), "an overlap inside a long write's range");
	dep_infer__free(d);
}

static void test_long_gaps(void)
{
	struct io_event e[] = {
		ev(50, 0, 100, IO_OP_READ, 0, 0, 4096),
		ev(51, 0, 100, IO_OP_WRITE, IO_F_KTHREAD, 4096, 4096),
		ev(50, 20100, 20200, IO_OP_READ, 0, 0, 4096),		   /* 20 ms: a client */
		ev(51, 20100, 20200, IO_OP_WRITE, IO_F_KTHREAD, 0, 4096), /* new work item */
		ev(50, 20300, UINT64_MAX, IO_OP_READ, 0, 0, 4096),	   /* no completion */
		ev(50, 20400, 20500, IO_OP_READ, 0, 0, 4096),
	};
	struct dep_info x[6];
	struct dep_infer *d = infer(e, 6, x, NULL);

	CHECK(x[2].kind == DEP_WAIT && has_edge(&x[2], DEP_WAIT, 2, 20000), "a user thread's "
	      "20 ms gap keeps the trace clock, after its parent");
	CHECK(x[3].kind == DEP_OPEN && x[3].npar == 0, "a kernel thread's is open");
	CHECK(x[4].kind == DEP_SYNC && x[5].kind == DEP_SYNC && has_edge(&x[5], DEP_SYNC, 1, 100),
	      "an I/O without completion is taken as done when queued");
	CHECK(dep_infer__stats(d)->no_completion == 1, "counted");
	dep_infer__free(d);
}

static void test_far_parents(void)
{
	/* a thread whose previous I/O lies more than DEP_MAX_BACK back: the edge is dropped */
	struct dep_infer *d = dep_infer__new(NULL);
	struct io_event a = ev(60, 0, 10, IO_OP_READ, 0, 0, 4096), b;
	struct dep_info x;

	dep_infer__next(d, &a, &x);
	for (uint32_t i = 0; i < DEP_MAX_BACK; i++) {
		b = ev(61, 1 + i / 1000, 2 + i / 1000, IO_OP_READ, 0, 0, 4096);
		dep_infer__next(d, &b, &x);
	}
	a = ev(60, 100 + DEP_MAX_BACK / 1000, 200 + DEP_MAX_BACK / 1000, IO_OP_READ, 0, 0, 4096);
	dep_infer__next(d, &a, &x);
	CHECK(x.npar == 0 && dep_infer__stats(d)->dropped_far == 1, "dropped (npar %d)", x.npar);
	dep_infer__free(d);
}

static void test_fitness(void)
{
	char why[512];
	struct dep_fitness ok = { .events = 1000000, .no_completion = 3 };
	struct dep_fitness burst = { .events = 200, .no_completion = 7 }; /* seen on a loop dev */
	struct dep_fitness broken = { .events = 1000, .no_completion = 101 };
	struct dep_fitness imported = { .events = 1000, .no_completion = 1000 };
	struct dep_fitness no_tid = { .events = 1000, .no_tid = 1000 };

	CHECK(dep_fitness_ok(&ok, why, sizeof(why)), "a few missing completions are fine");
	CHECK(!dep_fitness_ok(&imported, why, sizeof(why)) && strstr(why, "no completion time"),
	      "%s", why);
	CHECK(dep_fitness_ok(&burst, why, sizeof(why)), "7 of 200 missing: a burst, replayed");
	CHECK(!dep_fitness_ok(&broken, why, sizeof(why)) && strstr(why, "101 of 1000"), "%s", why);
	CHECK(!dep_fitness_ok(&no_tid, why, sizeof(why)) && strstr(why, "thread id"), "%s", why);
}

/*
 * Group commit's grounding: a flush the recording issued while another thread's flush of the
 * same device was in flight, queued after all of this thread's writes there completed, is
 * marked redundant (replay never coalesces it); one whose thread's write completed after the
 * other flush was queued, one of another device, one after the other completed, are not.
 * Classes: writes, flushes, preflush writes (cover), FUA writes (do not), kernel threads.
 */
static void test_group_commit_grounding(void)
{
	struct io_event e[] = {
		ev(1, 0, 100, IO_OP_WRITE, 0, 0, 4096),		   /* 0: A writes */
		ev(2, 10, 110, IO_OP_WRITE, 0, 8192, 4096),	   /* 1: B writes */
		ev(3, 20, 300, IO_OP_WRITE, 0, 16384, 4096),	   /* 2: C's slow write */
		ev(1, 150, 1000, IO_OP_FLUSH, 0, 0, 0),		   /* 3: A's flush, in flight */
		ev(2, 200, 1100, IO_OP_FLUSH, 0, 0, 0),		   /* 4: B: covered by 3 */
		ev(3, 400, 1200, IO_OP_FLUSH, 0, 0, 0),		   /* 5: C wrote after 3 went */
		ev(4, 500, 600, IO_OP_FLUSH, 0, 0, 0),		   /* 6: D never wrote: covered */
		ev(5, 2000, 2100, IO_OP_FLUSH, 0, 0, 0),	   /* 7: nothing in flight */
		ev(6, 2200, 2300, IO_OP_WRITE, IO_F_FUA | IO_F_KTHREAD, 0, 4096), /* 8 */
		ev(7, 2400, 2500, IO_OP_WRITE, IO_F_PREFLUSH, 0, 4096),		   /* 9 */
	};
	struct dep_info x[10];
	struct dep_infer *d;

	d = infer(e, 10, x, NULL);
	CHECK(!(x[3].flags & DEP_F_REDUNDANT), "A's flush is the first");
	CHECK(x[4].flags & DEP_F_REDUNDANT, "B's flush was covered by A's in flight");
	CHECK(!(x[5].flags & DEP_F_REDUNDANT), "C's write completed after A's flush was queued");
	CHECK(x[6].flags & DEP_F_REDUNDANT, "D wrote nothing: covered");
	CHECK(!(x[7].flags & DEP_F_REDUNDANT), "no flush in flight");
	CHECK(x[0].flags == DEP_F_WRITE && x[0].key == 0, "a write: flags %x", x[0].flags);
	CHECK(x[3].flags == (DEP_F_FLUSH | DEP_F_COVERS | DEP_F_META), "a flush: flags %x",
	      x[3].flags);
	CHECK(x[8].flags == (DEP_F_WRITE | DEP_F_KTHREAD | DEP_F_BG), "FUA covers only itself: %x",
	      x[8].flags);
	CHECK(x[9].flags == (DEP_F_WRITE | DEP_F_COVERS | DEP_F_META), "a preflush write covers: "
	      "flags %x", x[9].flags);
	CHECK(dep_infer__stats(d)->flushes == 5 && dep_infer__stats(d)->redundant == 2,
	      "stats: %llu flushes, %llu redundant",
	      (unsigned long long)dep_infer__stats(d)->flushes,
	      (unsigned long long)dep_infer__stats(d)->redundant);
	dep_infer__free(d);

	/* the same flush on another device is not covered */
	e[4].dev = 1;
	d = infer(e, 10, x, NULL);
	CHECK(!(x[4].flags & DEP_F_REDUNDANT), "another device's flush does not cover");
	dep_infer__free(d);
}

/*
 * Split's grounding: B's read wakes after A's flush (a barrier edge), which was queued after B's
 * write completed: B waited on it for its write (DEP_F_SPLIT). Not when B flushed the write
 * itself, when another flush queued after B's write came before A's, or when A's barrier
 * parent is a preflush write (replay does not issue the preflush: no flush to share).
 */
static void test_split_grounding(void)
{
	struct io_event e[] = {
		ev(2, 0, 100, IO_OP_WRITE, 0, 8192, 4096),  /* 0: B writes */
		ev(1, 200, 300, IO_OP_WRITE, 0, 0, 4096),   /* 1: A writes */
		ev(1, 310, 900, IO_OP_FLUSH, 0, 0, 0),	    /* 2: A's flush covers B's write */
		ev(2, 910, 1000, IO_OP_READ, 0, 65536, 4096), /* 3: B wakes after it */
	};
	struct dep_info x[6];
	struct dep_infer *d;

	d = infer(e, 4, x, NULL);
	CHECK(has_edge(&x[3], DEP_BARRIER, 1, 10), "B's read follows A's flush");
	CHECK(x[3].flags & DEP_F_SPLIT, "B waited on A's flush for its write: flags %x",
	      x[3].flags);
	CHECK(dep_infer__stats(d)->split_grounded == 1, "one grounded");
	dep_infer__free(d);

	/* B flushed its write itself before A's flush: it did not wait on A's for it */
	{
		struct io_event f[] = {
			ev(2, 0, 100, IO_OP_WRITE, 0, 8192, 4096),
			ev(2, 110, 150, IO_OP_FLUSH, 0, 0, 0),
			ev(1, 200, 300, IO_OP_WRITE, 0, 0, 4096),
			ev(1, 310, 900, IO_OP_FLUSH, 0, 0, 0),
			ev(2, 910, 1000, IO_OP_READ, 0, 65536, 4096),
		};

		d = infer(f, 5, x, NULL);
		CHECK(!(x[4].flags & DEP_F_SPLIT), "B's own flush covered it: flags %x",
		      x[4].flags);
		dep_infer__free(d);
	}
	/* another thread's flush queued after B's write came first: that one covered it */
	{
		struct io_event f[] = {
			ev(2, 0, 100, IO_OP_WRITE, 0, 8192, 4096),
			ev(3, 120, 150, IO_OP_FLUSH, 0, 0, 0),
			ev(1, 200, 300, IO_OP_WRITE, 0, 0, 4096),
			ev(1, 310, 900, IO_OP_FLUSH, 0, 0, 0),
			ev(2, 910, 1000, IO_OP_READ, 0, 65536, 4096),
		};

		d = infer(f, 5, x, NULL);
		CHECK(!(x[4].flags & DEP_F_SPLIT), "C's earlier flush covered it: flags %x",
		      x[4].flags);
		dep_infer__free(d);
	}
	/* a journal's preflush commit write: replay issues no preflush, nothing to split from */
	e[2] = ev(1, 310, 900, IO_OP_WRITE, IO_F_PREFLUSH | IO_F_FUA, 4096, 4096);
	d = infer(e, 4, x, NULL);
	CHECK(has_edge(&x[3], DEP_BARRIER, 1, 10), "B's read follows the commit write");
	CHECK(!(x[3].flags & DEP_F_SPLIT), "a preflush write is not split from: flags %x",
	      x[3].flags);
	dep_infer__free(d);
}

/* Background writers at file level (bg_by_mix): a thread that only writes is one from its
 * DEP_BG_WRITES-th write; one that read is never; kernel threads are always. */
static void test_background(void)
{
	struct dep_opts o;
	struct io_event e[8];
	struct dep_info x[8];
	struct dep_infer *d;

	dep_opts_default(&o);
	o.bg_by_mix = true;
	for (int i = 0; i < 5; i++)
		e[i] = ev(7, 1000 * (uint64_t)i, 1000 * (uint64_t)i + 100, IO_OP_WRITE, 0,
			  4096 * (uint64_t)i, 4096);
	e[5] = ev(8, 6000, 6100, IO_OP_READ, 0, 0, 4096);
	e[6] = ev(8, 7000, 7100, IO_OP_WRITE, 0, 0, 4096);
	e[7] = ev(9, 8000, 8100, IO_OP_WRITE, IO_F_KTHREAD, 0, 4096);
	d = infer(e, 8, x, &o);
	CHECK(!(x[2].flags & DEP_F_BG) && (x[3].flags & DEP_F_BG) && (x[4].flags & DEP_F_BG),
	      "a writer from its 4th write: %x %x %x", x[2].flags, x[3].flags, x[4].flags);
	CHECK(!(x[6].flags & DEP_F_BG), "a thread that read is not one");
	CHECK(x[7].flags & DEP_F_BG, "a kernel thread is one");
	dep_infer__free(d);
	/* with --dep-absorb a writer's new batch after a long gap stays on the trace's clock,
	 * but after its own previous call's issue (maybe the open of what it writes) */
	o.absorb = true;
	e[5] = ev(7, 30000, 30100, IO_OP_WRITE, 0, 0, 4096);
	d = infer(e, 6, x, &o);
	CHECK(x[5].kind == DEP_OPEN && x[5].npar == 1 && has_edge(&x[5], DEP_ASYNC, 1, 0),
	      "a background writer's next batch: open, after its previous call's issue (kind %u, "
	      "%u parents)", x[5].kind, x[5].npar);
	dep_infer__free(d);
	o.absorb = false;
	e[5] = ev(8, 6000, 6100, IO_OP_READ, 0, 0, 4096);
	o.bg_by_mix = false;
	d = infer(e, 8, x, &o);
	CHECK(!(x[4].flags & DEP_F_BG) && (x[7].flags & DEP_F_BG), "block level: kernel threads only");
	dep_infer__free(d);
}

/*
 * The commit lock (--dep-commit-lock): thread 40 writes and flushes the log; thread 41 read,
 * then wrote the log 5 us after 40's flush completed (it waited for the lock). Its think time
 * after its read (255 us) is kept beside the barrier edge, for the replay to take the wait for
 * the lock out of; without the model it is zeroed (the wait is the barrier's).
 */
static void test_commit_lock_gap(void)
{
	struct io_event e[] = {
		ev(41, 0, 50, IO_OP_READ, 0, 1 << 20, 8192),
		ev(40, 10, 20, IO_OP_WRITE, 0, 0, 8192),
		ev(40, 22, 300, IO_OP_FLUSH, 0, 0, 0),
		ev(41, 305, 320, IO_OP_WRITE, 0, 8192, 8192),
	};
	struct dep_info x[4];
	struct dep_opts o;
	struct dep_infer *d;

	dep_opts_default(&o);
	CHECK(o.commit_lock, "the commit lock is on by default (file level: dep_run.c)");
	o.commit_lock = false; /* as replay sets it at block level, or --dep-commit-lock off */
	d = infer(e, 4, x, &o);
	CHECK(has_edge(&x[3], DEP_BARRIER, 1, 5) && has_edge(&x[3], DEP_SYNC, 3, 0),
	      "without the commit lock: the barrier's 5 us, no think time after the read");
	dep_infer__free(d);
	o.commit_lock = true;
	d = infer(e, 4, x, &o);
	CHECK(has_edge(&x[3], DEP_BARRIER, 1, 5) && has_edge(&x[3], DEP_SYNC, 3, 255),
	      "with the commit lock: the think time after the read kept (255 us)");
	dep_infer__free(d);
}

/* The defaults set every field: a dep replay given no --dep-* option takes them onto a stack
 * variable, and once ran --dep-wbt's model because of what that held (now its default). */
static void test_defaults_whole(void)
{
	struct dep_opts o;

	memset(&o, 0xa5, sizeof(o));
	dep_opts_default(&o);
	CHECK(o.wbt == DEP_WBT_TARGET && o.wbt_lat_ns == 0 && !o.wbt_asked,
	      "wbt %d, lat %llu: the model on, each target's own latency", o.wbt,
	      (unsigned long long)o.wbt_lat_ns);
	CHECK(!o.group_commit && !o.absorb && !o.split && !o.bg_by_mix && !o.sync_calls &&
		      !o.commit_lock_block && !o.kthread_progress && !o.writer_clock,
	      "the models and clocks not measured to help are off");
	CHECK(o.overlap && o.chain && o.commit_lock && o.date_wakes && o.eps_ns == 2000,
	      "the measured defaults on");
}

int main(void)
{
	test_defaults_whole();
	test_sync_thread();
	test_async_depth8();
	test_fsync_journal();
	test_overlap();
	test_long_gaps();
	test_far_parents();
	test_fitness();
	test_group_commit_grounding();
	test_split_grounding();
	test_background();
	test_commit_lock_gap();
	if (!failures)
		printf("dep inference: all checks passed\n");
	return failures ? 1 : 0;
}
