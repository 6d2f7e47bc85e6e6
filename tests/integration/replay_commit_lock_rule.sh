#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The commit lock's rule for who follows (replay/dep/dep_lock.c), on a crafted trace with exact
# times (tests/tools/ftrace_lock): A's group holds the log's lock; B and C wait for it. When
# A's flush completes B leads, and C follows B only if it came to the lock after A would have
# let go at the recorded pace (A's start plus its group's recorded 10 ms):
#  - "drift": C's recorded read was slow and the replay's is fast, so C comes about 1 ms in,
#    long before that: its own group after B's (lock_kept 1), every call issued;
#  - "late": C's recorded think time brings it at about 75 ms, after A's recorded end and
#    while A's 100 ms flush still holds: it follows B (its write and fdatasync not issued).
# The null engine: reads and writes 50 us, syncs 100 ms. Margins of 10 ms or more on each side.
# timeout: 60
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
need_cmd python3
d=$(scratch_dir)
tool=$BUILD/tests/tools/ftrace_lock
[ -x "$tool" ] || fail "$tool is not built (make check builds it)"
# case NAME KEPT FOLLOWED: the figures replay reports for ftrace_lock's NAME
case_of() {
	"$tool" "$d/$1.ioreel" "$1" || fail "ftrace_lock $1"
	replay_file_null "$d/$1.ioreel" "$d/root" "$d/$1.json" --null-latency 50us,100ms \
		--dep-think-max 1s
	python3 - "$d/$1.json" "$2" "$3" <<'PY' || fail "$1: see above"
import json, sys
el = json.load(open(sys.argv[1]))["fidelity"]["elastic"]
kept, followed = int(sys.argv[2]), int(sys.argv[3])
ops = el["ops"]
print("%s: lock on %s, waits %d, kept %d, broken %d; write %s, fdatasync %s" % (
      sys.argv[1], el["commit_lock"], el["lock_waits"], el["lock_kept"], el["lock_broken"],
      ops["write"], ops["fdatasync"]))
assert el["commit_lock"], "the commit lock is on by default at file level"
assert el["lock_waits"] == 2, "B and C wait for A's group"
assert el["lock_broken"] == 0
assert el["lock_kept"] == kept, "expected %d waiter(s) to lead their own group" % kept
for op in ("write", "fdatasync"):
    assert ops[op]["trace"] == 3 and ops[op]["followed"] == followed, (op, ops[op])
    assert ops[op]["issued"] == 3 - followed, (op, ops[op])
assert ops["read"]["issued"] == 2
PY
}
case_of drift 1 0
case_of late 0 1
echo PASS
