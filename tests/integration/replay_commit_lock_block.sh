#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The commit lock at block level (replay/dep/dep_lock.c, "At block level"): only with
# --dep-commit-lock on given. A crafted block trace with exact times (us), the shape of
# replay_commit_lock_rule.sh's "late" case, as a database's fdatasync of its log reaches the
# device (a sync write, then a flush, by the committing thread):
#   A  write 1000-1010, flush 1020-11000                 (its group spans 10 ms)
#   B  read 1000-60000, write 60050-60060, flush 60070-70000
#   C  read 1000-1100, write 75050-75060, flush 75070-85000
#   K  a kernel thread (writeback): write 1000-1500, then write 70050-70100, which wakes after
#      B's flush (a barrier edge)
# Onto the null engine (I/O 50 us, flushes 100 ms): A holds the device's lock for its 100 ms
# flush; B (its slow read now fast) and C (74 ms of think time, after A's recorded end) wait.
# When A's flush completes B leads and C follows: C's write and flush are not issued. K is not
# the lock's: its second write keeps its edge on B's flush and goes only once that completed,
# at about 100 ms without the lock and 200 ms with it (the lock would otherwise have dropped
# the edge and let it go at about 1 ms). Without the
# option the lock is off at block level: every I/O issued. Margins of 10 ms or more.
# timeout: 60
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
need_cmd python3
d=$(scratch_dir)
truncate -s 64M "$d/t.img"
python3 - "$d/l.csv" "$CSV_HEADER" <<'PY'
import sys
rows = []
def io(q, c, op, off, tid, flags="", comm="db", ln=4096):
    rows.append((q * 1000, "", c * 1000, "dev0", off, ln if op != "flush" else 0, op, flags, 0,
                 42 if comm == "db" else 0, tid, comm, 0, 0))
io(1000, 1010, "write", 0, 501, "sync")
io(1000, 60000, "read", 1 << 20, 502)
io(1000, 1100, "read", 2 << 20, 503)
io(1000, 1500, "write", 8 << 20, 600, "kthread", "kworker/u8:2")
io(1020, 11000, "flush", 0, 501, "sync")
io(60050, 60060, "write", 4096, 502, "sync")
io(60070, 70000, "flush", 0, 502, "sync")
io(70050, 70100, "write", (8 << 20) + 4096, 600, "kthread", "kworker/u8:2")
io(75050, 75060, "write", 8192, 503, "sync")
io(75070, 85000, "flush", 0, 503, "sync")
with open(sys.argv[1], "w") as f:
    f.write(sys.argv[2] + "\n")
    for r in rows:
        f.write(",".join(map(str, r)) + "\n")
PY
mktrace "$d/l.csv" "$d/l.ioreel"

# lock NAME ON FOLLOWED: a replay (--dep-commit-lock on when ON is 1) and its figures
lock() {
	local opt=()
	[ "$2" = 1 ] && opt=(--dep-commit-lock on)
	"$IOREEL" replay "$d/l.ioreel" --target "$d/t.img" --allow-writes --mode dep --engine null \
		--null-latency 50us,100ms --dep-think-max 1s "${opt[@]}" --json -q -o "$d/$1.ioreel" \
		>"$d/$1.json" 2>"$d/$1.err" || fail "replay $1 failed: $(cat "$d/$1.err")"
	result_csv "$d/$1.ioreel" >"$d/$1.csv"
	python3 - "$d/$1.json" "$d/$1.csv" "$2" "$3" <<'PY' || fail "$1: see above"
import csv, json, sys
el = json.load(open(sys.argv[1]))["fidelity"]["elastic"]
on, followed = sys.argv[3] == "1", int(sys.argv[4])
ops = el["ops"]
rows = [r for r in csv.DictReader(l for l in open(sys.argv[2]) if not l.startswith("#"))]
k2 = [r for r in rows if r["op"] == "write" and int(r["offset"]) == (8 << 20) + 4096]
print("%s: lock %s, waits %d, kept %d, broken %d; write %s, flush %s; K's second write at %s ns"
      % (sys.argv[1], el["commit_lock"], el["lock_waits"], el["lock_kept"], el["lock_broken"],
         ops["write"], ops["flush"], [r["issue_ns"] or r["queue_ns"] for r in k2]))
assert el["commit_lock"] == on, "the lock is on at block level only when asked for"
assert el["lock_waits"] == (2 if on else 0) and el["lock_broken"] == 0 and el["lock_kept"] == 0
assert ops["write"]["trace"] == 5 and ops["write"]["followed"] == followed, ops["write"]
assert ops["write"]["issued"] == 5 - followed, ops["write"]
assert ops["flush"]["trace"] == 3 and ops["flush"]["followed"] == followed, ops["flush"]
assert ops["flush"]["issued"] == 3 - followed, ops["flush"]
assert ops["read"]["issued"] == 2
# K's second write waited for B's flush (100 ms on the null engine; with the lock B's group
# goes only once A's completed, at about 100 ms, so K's write at about 200 ms)
assert len(k2) == 1 and int(k2[0]["issue_ns"] or k2[0]["queue_ns"]) >= 90_000_000, k2
PY
}
lock off 0 0
lock on 1 1
echo PASS
