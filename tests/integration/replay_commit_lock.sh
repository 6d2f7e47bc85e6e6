#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# timeout: 240
# The commit lock (--dep-commit-lock, replay/dep/dep_lock.c): three threads of one process
# share a log file and a lock, as a database's backends share its WAL and WALWriteLock. Per
# round, A, B and C come 30 ms apart and each, holding the lock, writes its own 4 KiB record
# and fdatasyncs (and the main thread writes 64 KiB to a data file once). Recorded at file
# level on ext4, where each group is done before the next thread comes, so none waited.
# Replayed with the null engine at 200 ms per sync: A's group holds the lock when B and C
# come; when A's fdatasync completes B leads, its write takes in C's record, and C follows
# (both came after A's group would have ended at the recorded pace): C's write and fdatasync
# are not issued. So per round: 2 of 3 groups waited, 1 followed, 4096 bytes merged. With the
# model off, or onto the null engine without latency (no group waits), every call is issued
# as recorded.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"
. "$(dirname "$0")/replay_common.inc"
ROUNDS=3
src=$(make_fs ext4 "$(make_loop 64)")
out=$(scratch_dir)
w=$src/w
mkdir -p "$w" "$out/root"
cat >"$out/work.py" <<'PY'
import os, sys, threading, time
d = sys.argv[1]
fd = os.open(os.path.join(d, "wal"), os.O_RDWR | os.O_CREAT, 0o600)
os.pwrite(fd, b"x" * 65536, 0)
os.fsync(fd)
lock = threading.Lock()
open(os.path.join(d, "ready"), "w").close()
while not os.path.exists(os.path.join(d, "go")):
    time.sleep(0.01)
# a data file's 64 KiB write (a checkpoint's): the replay's buffers hold 64 KiB, room for a
# leader's write to take in its followers' records
data = os.open(os.path.join(d, "data"), os.O_RDWR | os.O_CREAT, 0o600)
os.pwrite(data, b"d" * 65536, 0)
os.close(data)
def commit(k, i, rnd):
    time.sleep(0.03 * i)
    with lock:
        os.pwrite(fd, bytes([65 + i]) * 4096, 4096 * (3 * rnd + i))
        os.fdatasync(fd)
for rnd in range(3):
    ts = [threading.Thread(target=commit, args=(k, i, rnd)) for k, i in (("a", 0), ("b", 1), ("c", 2))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    time.sleep(1)
PY
rec_file_workload "$out/work.py" "$w" "$out/f.ioreel"
assert_eq "$(grep -c ',fdatasync,' "$out/f.csv")" $((3 * ROUNDS)) "fdatasyncs recorded (3 per round)"
assert_eq "$(grep -c ',write,' "$out/f.csv")" $((3 * ROUNDS + 1)) "writes recorded (3 per round, the data file's)"

# rp NAME ARGS...: a file-level dep replay onto the null engine, its JSON in $out/NAME.json
rp() {
	local name=$1
	shift
	replay_file_null "$out/f.ioreel" "$out/root" "$out/$name.json" "$@"
}
# check NAME WAITS FOLLOWED MERGED: the commit lock's figures and the per-op counts
check() {
	python3 - "$out/$1.json" "$2" "$3" "$4" "$ROUNDS" <<'PY' || fail "$1: see above"
import json, sys
el = json.load(open(sys.argv[1]))["fidelity"]["elastic"]
waits, followed, merged, rounds = map(int, sys.argv[2:6])
f, w = el["ops"]["fdatasync"], el["ops"]["write"]
print("%s: lock waits %d, merged %d bytes; fdatasync trace %d issued %d followed %d; "
      "write %d issued %d followed %d" % (sys.argv[1], el["lock_waits"], el["merged_bytes"],
      f["trace"], f["issued"], f["followed"], w["trace"], w["issued"], w["followed"]))
assert f["trace"] == 3 * rounds and w["trace"] == 3 * rounds + 1
assert el["lock_waits"] == waits, "expected %d groups to wait" % waits
assert f["followed"] == w["followed"] == followed, "expected %d followed" % followed
assert f["issued"] == f["trace"] - followed and w["issued"] == w["trace"] - followed
assert el["merged_bytes"] == merged, "expected %d bytes merged" % merged
# every waiter came after the holder's recorded end (its group took a few ms on ext4, the
# threads come 30 ms apart): none came early by drift, none leads a group of its own
assert el["lock_kept"] == 0, "expected no waiter to keep its own group"
PY
}
rp slow --null-latency 100us,200ms --dep-commit-lock on
grep -q '"commit_lock": true' "$out/slow.json" || fail "the report does not say the commit lock was on"
check slow $((2 * ROUNDS)) "$ROUNDS" $((4096 * ROUNDS))
rp off --null-latency 100us,200ms --dep-commit-lock off
check off 0 0 0
rp fast --dep-commit-lock on
check fast 0 0 0
# the text report names the model and its figures
"$IOREEL" replay "$out/f.ioreel" --root "$out/root" --allow-writes --force --mode dep \
	--engine null --null-latency 100us,200ms --dep-commit-lock on -q >"$out/slow.txt" 2>&1 ||
	fail "replay (text report) failed: $(cat "$out/slow.txt")"
grep -q "commit lock on" "$out/slow.txt" && grep -q "commit lock: $((2 * ROUNDS)) groups" "$out/slow.txt" ||
	fail "the text report lacks the commit lock: $(cat "$out/slow.txt")"
echo PASS
