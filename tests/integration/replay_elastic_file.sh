#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# timeout: 240
# Group commit at file level (--dep-group-commit, replay/dep/dep_el.h): two threads of one
# process share a log file. Per round, B writes its record, thinks 300 ms, then fdatasyncs; A
# sleeps 40 ms, writes its own record and fdatasyncs at once; rounds 2.5 s apart. Recorded at
# file level on ext4, then replayed with the null engine at 100 ms per call and 2 s per sync:
# B's write completes before A's (so before A's fdatasync is issued), and B's fdatasync comes
# due while A's is in flight (by 1.7 s or more), so every B fdatasync the recording did not
# itself issue under A's (flushes_kept_redundant: a slow fdatasync in the recording) is
# coalesced: rounds - kept, exactly. With the model off, or onto the null engine without
# latency (the two fdatasyncs 260 ms apart), none is, and every call is issued as recorded.
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
open(os.path.join(d, "ready"), "w").close()
while not os.path.exists(os.path.join(d, "go")):
    time.sleep(0.01)
def b():
    os.pwrite(fd, b"b" * 4096, 4096)
    time.sleep(0.3)
    os.fdatasync(fd)
def a():
    time.sleep(0.04)
    os.pwrite(fd, b"a" * 4096, 8192)
    os.fdatasync(fd)
for k in range(int(sys.argv[2]) if len(sys.argv) > 2 else 3):
    ts = [threading.Thread(target=f) for f in (a, b)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    time.sleep(2.5)
PY
rec_file_workload "$out/work.py" "$w" "$out/f.ioreel"
n=$(grep -c ',fdatasync,' "$out/f.csv")
assert_eq "$n" $((2 * ROUNDS)) "fdatasyncs recorded (A's and B's per round)"

# rp NAME ARGS...: a file-level dep replay onto the null engine, its JSON in $out/NAME.json
rp() {
	local name=$1
	shift
	replay_file_null "$out/f.ioreel" "$out/root" "$out/$name.json" --dep-think-max 1s "$@"
}
# check NAME COALESCED: fdatasync's row; COALESCED "kept" means rounds - kept redundant
check() {
	python3 - "$out/$1.json" "$2" "$ROUNDS" <<'PY' || fail "$1: see above"
import json, sys
el = json.load(open(sys.argv[1]))["fidelity"]["elastic"]
row, w = el["ops"]["fdatasync"], el["ops"]["write"]
kept = el["flushes_kept_redundant"]
want = int(sys.argv[3]) - kept if sys.argv[2] == "kept" else int(sys.argv[2])
print("%s: fdatasync trace %d issued %d coalesced %d (kept as recorded: %d); write %d/%d" %
      (sys.argv[1], row["trace"], row["issued"], row["coalesced"], kept, w["issued"], w["trace"]))
assert row["trace"] == 2 * int(sys.argv[3]), row
assert row["coalesced"] == want, "expected %d coalesced" % want
assert row["issued"] == row["trace"] - want and w["issued"] == w["trace"]
PY
}
rp on --null-latency 100ms,2s --dep-group-commit on
check on kept
rp off --null-latency 100ms,2s
check off 0
rp fast --dep-group-commit on
check fast 0
echo PASS
