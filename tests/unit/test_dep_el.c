// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The elastic models' bookkeeping (replay/dep/dep_el.c): when an in-flight flush covers a
 * thread's writes (group commit, split), which flush is the one in flight, and the absorbed
 * writes' table.
 */
#include <stdio.h>
#include "replay/dep/dep.h"
#include "replay/dep/dep_el.h"

#include "tests/unit/check.h"

static void test_covered(void)
{
	struct dep_el e;
	uint64_t snap;

	CHECK(dep_el_init(&e, true, false, false) == 0, "init");
	/* thread 1 never wrote to key 0: any flush covers it */
	snap = dep_el_admit(&e, 1, 0, DEP_F_FLUSH, 0);
	CHECK(snap == 0 && dep_el_covered(&e, 1, 0, snap, 5), "no write: covered");
	/* thread 2 writes twice to key 0; its flush was read after both */
	dep_el_admit(&e, 2, 0, DEP_F_WRITE, 0);
	dep_el_admit(&e, 2, 0, DEP_F_WRITE, 0);
	snap = dep_el_admit(&e, 2, 0, DEP_F_FLUSH, 0);
	CHECK(snap == 2, "snapshot %llu", (unsigned long long)snap);
	dep_el_write_out(&e, 2, 0);
	CHECK(!dep_el_covered(&e, 2, 0, snap, 1000), "a write out: not covered");
	dep_el_write_done(&e, 2, 0, 100);
	CHECK(!dep_el_covered(&e, 2, 0, snap, 1000), "one of two done: not covered");
	dep_el_write_out(&e, 2, 0);
	dep_el_write_done(&e, 2, 0, 300);
	CHECK(dep_el_covered(&e, 2, 0, snap, 300), "both done by the flush's issue: covered");
	CHECK(!dep_el_covered(&e, 2, 0, snap, 299), "the last done after it went: not covered");
	CHECK(!dep_el_covered(&e, 2, 0, UINT64_MAX, 1000), "no count: never");
	CHECK(dep_el_covered(&e, 2, 1, 0, 0), "another key: nothing written there");
	dep_el_free(&e);
}

static void test_cov(void)
{
	struct dep_el e;

	CHECK(dep_el_init(&e, true, false, false) == 0, "init");
	CHECK(dep_el_cov(&e, 3, false) == 0, "none in flight");
	dep_el_flush_out(&e, 3, false, 10); /* an fdatasync */
	CHECK(dep_el_cov(&e, 3, false) == 11 && dep_el_cov(&e, 3, true) == 0,
	      "an fdatasync covers an fdatasync, not an fsync");
	dep_el_flush_out(&e, 3, true, 12); /* an fsync, issued later */
	CHECK(dep_el_cov(&e, 3, false) == 13 && dep_el_cov(&e, 3, true) == 13,
	      "the latest issued covers both");
	dep_el_flush_done(&e, 3, 10);
	CHECK(dep_el_cov(&e, 3, false) == 13, "an earlier one done: the latest stays");
	dep_el_flush_done(&e, 3, 12);
	CHECK(dep_el_cov(&e, 3, false) == 0 && dep_el_cov(&e, 3, true) == 0, "done: none");
	CHECK(dep_el_cov(&e, 100000, false) == 0, "a key never seen");
	dep_el_free(&e);
	/* off: nothing is kept */
	CHECK(dep_el_init(&e, false, false, false) == 0, "init off");
	dep_el_flush_out(&e, 3, true, 12);
	CHECK(dep_el_cov(&e, 3, true) == 0, "group commit off keeps no flush");
	dep_el_free(&e);
}

static void test_absorb_table(void)
{
	struct dep_el e;

	CHECK(dep_el_init(&e, false, true, false) == 0, "init");
	CHECK(dep_el_abs_find(&e, 1, 0, 4096) == 0, "empty");
	dep_el_abs_note(&e, 1, 0, 4096, 7);
	dep_el_abs_note(&e, 1, 0, 4096, 9);
	CHECK(dep_el_abs_find(&e, 1, 0, 4096) == 10, "the latest write of the range");
	dep_el_free(&e);
	CHECK(dep_el_init(&e, false, false, false) == 0, "init off");
	dep_el_abs_note(&e, 1, 0, 4096, 9);
	CHECK(dep_el_abs_find(&e, 1, 0, 4096) == 0, "absorb off keeps none");
	dep_el_free(&e);
}

int main(void)
{
	test_covered();
	test_cov();
	test_absorb_table();
	if (failures)
		return 1;
	printf("ok\n");
	return 0;
}
