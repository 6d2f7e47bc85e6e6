#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# --mode dep on a target slowed with blk-throttle (cgroup io.max, or v1 blkio.throttle): a trace
# of four synchronous threads (read, or write + flush, then think) and one asynchronous thread
# at depth 8, recorded against a fast device, is replayed where I/O is 10-40x slower. The
# replay stretches instead of piling up: in flight it never holds more than the trace's threads
# held at once, where a timed replay of the same trace does; every I/O is issued once, with its
# op and size; it reports how each was released. A trace without completion times (an
# imported fio log) is refused with a clear message, or replayed in the mode given by
# --dep-fallback. Function, not timing: no latency is compared with a number.
# timeout: 240
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
need_root
need_cmd python3
d=$(scratch_dir)
dev=$(make_loop 64)
procs=$(make_throttled_cgroup "$(dev_majmin "$dev")" 400 400) || exit $?

# The trace: times in us, as a fast device served it (100 us per I/O).
python3 - "$d/t.csv" "$CSV_HEADER" <<'PY'
import random, sys
random.seed(7)
rows = []
def io(q, c, op, off, ln, tid, flags=""):
    rows.append((q * 1000, "", c * 1000, "dev0", off, ln, op, flags, 0, 42, tid, "db", 0, 0))
for tid in (101, 102, 103, 104):           # synchronous: each I/O after the last completed
    t = tid                                 # staggered starts
    for i in range(150):
        if tid == 101 and i % 5 == 4:       # a commit: a write, then a flush
            io(t, t + 100, "write", random.randrange(0, 1 << 14) * 4096, 4096, tid, "sync")
            t += 120
            io(t, t + 100, "flush", 0, 0, tid, "sync")
        else:
            io(t, t + 100, "read", random.randrange(0, 1 << 14) * 4096, 8192, tid)
        t += 150                            # 100 us of I/O, 50 us of think time
for i in range(200):                        # asynchronous: 8 in flight (20 us apart, 160 us each)
    q = 1000 + 20 * i
    io(q, q + 160, "write", (1 << 26) // 2 + i * 65536, 65536, 300)
rows.sort(key=lambda r: r[0])
with open(sys.argv[1], "w") as f:
    f.write(sys.argv[2] + "\n")
    for r in rows:
        f.write(",".join(str(x) for x in r) + "\n")
PY
mktrace "$d/t.csv" "$d/t.ioreel"
"$IOREEL" info "$d/t.ioreel" --json >"$d/t.info" || fail "info of the trace"
# the most I/O the trace's threads held at once: the sum of each thread's own maximum
held=$(python3 - "$d/t.csv" <<'PY'
import csv, collections, sys
per = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    per[r["tid"]].append((int(r["queue_ns"]), int(r["complete_ns"])))
total = 0
for ios in per.values():
    ev = sorted([(q, 1) for q, c in ios] + [(c, -1) for q, c in ios])
    n = m = 0
    for _, k in ev:
        n += k
        m = max(m, n)
    total += m
print(total)
PY
)
echo "the trace's threads hold at most $held I/Os in flight together"

# replay in the throttled cgroup: "echo $$ >procs" in the subshell that then runs ioreel
throttled() { (echo $BASHPID >"$procs" && exec "$IOREEL" "$@"); }

echo "== dep mode on the throttled device"
throttled replay "$d/t.ioreel" --target "$dev" --allow-writes --mode dep -o "$d/dep.ioreel" \
	--json >"$d/dep.json" 2>"$d/dep.err" || fail "dep replay failed: $(cat "$d/dep.err")"
json_get "$d/dep.json" "d['fidelity']['dep']" >/dev/null || exit 1
"$IOREEL" info "$d/dep.ioreel" --json >"$d/dep.info" || fail "info of the result"
python3 - "$d/t.info" "$d/dep.info" "$d/dep.json" "$held" <<'PY' || fail "dep replay: see above"
import json, sys
t, r, j = (json.load(open(p)) for p in sys.argv[1:4])
held = int(sys.argv[4])
f = j["fidelity"]
dep = f["dep"]
print("dep: stretch %.1fx, max in flight %d (the trace's threads: %d), released %s, edges %s"
      % (f["stretch"] + 1, f["max_inflight"], held, dep["released"], dep["edges"]))
# every I/O once, with its op and size
for op in ("read", "write", "flush"):
    assert t["ops"][op] == r["ops"][op], (op, t["ops"][op], r["ops"][op])
    assert t["op_bytes"][op] == r["op_bytes"][op], (op, t["op_bytes"][op], r["op_bytes"][op])
assert f["ios"] == t["events"], (f["ios"], t["events"])
# no pile-up: never more in flight than the threads held, and it stretched instead
assert f["max_inflight"] <= held, "dep held %d in flight, the trace's threads %d" % (
    f["max_inflight"], held)
assert f["stretch"] > 4, "a replay 10-40x slower per I/O stretched only %.2fx" % (f["stretch"] + 1)
assert f["cap_hits"] == 0, f["cap_hits"]
# how each I/O was released: every one counted once, the synchronous threads on their
# completions, the asynchronous one on its submissions, the commits' flushes as barriers
assert sum(dep["released"].values()) == t["events"], dep["released"]
assert dep["released"]["sync"] >= 4 * 149, dep["released"]
assert dep["released"]["async"] >= 190, dep["released"]
assert dep["released"]["open"] >= 5, dep["released"]    # the five threads' first I/Os
assert dep["threads"] == 5, dep["threads"]
assert dep["stall_ns"]["count"] > 0 and dep["held_depth"] >= 0
PY

echo "== timed mode on the same device piles up (what dep mode avoids)"
throttled replay "$d/t.ioreel" --target "$dev" --allow-writes --mode timed --json \
	>"$d/timed.json" 2>"$d/timed.err" || fail "timed replay failed: $(cat "$d/timed.err")"
timed_max=$(json_get "$d/timed.json" "d['fidelity']['max_inflight']")
echo "timed: max in flight $timed_max"
[ "$timed_max" -gt "$held" ] || fail "timed replay held only $timed_max in flight: the device " \
	"was not slowed, the test proves nothing"

echo "== a trace without completion times"
python3 - "$d/nocompl.csv" "$CSV_HEADER" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write(sys.argv[2] + "\n")
    for i in range(100):
        f.write("%d,,,dev0,%d,4096,read,,0,1,1,x,0,0\n" % (i * 10000, i * 4096))
PY
mktrace "$d/nocompl.csv" "$d/nocompl.ioreel"
rc=0
"$IOREEL" replay "$d/nocompl.ioreel" --target "$dev" --mode dep -q >/dev/null 2>"$d/nc.err" || rc=$?
assert_eq "$rc" 1 "exit status of dep mode on a trace without completion times"
grep -q "no completion time" "$d/nc.err" && grep -q -- "--dep-fallback" "$d/nc.err" ||
	fail "unclear message: $(cat "$d/nc.err")"
cat "$d/nc.err"
"$IOREEL" replay "$d/nocompl.ioreel" --target "$dev" --mode dep --dep-fallback timed --json \
	>"$d/nc.json" 2>"$d/nc2.err" || fail "--dep-fallback timed failed: $(cat "$d/nc2.err")"
assert_eq "$(json_get "$d/nc.json" "d['fidelity']['mode']")" timed "mode after --dep-fallback"
grep -q "replaying in timed mode" "$d/nc2.err" || fail "the fallback was silent: $(cat "$d/nc2.err")"

# a recording missing a few completions (the kernel ended 7 of 200 loop reads without a
# completion event in one burst, record/LEVELS.md): replayed in dep mode, each taken as done
# when queued, with a warning and the count in the report
echo "== a trace with 3 of 100 completion times missing"
python3 - "$d/fewcompl.csv" "$CSV_HEADER" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write(sys.argv[2] + "\n")
    for i in range(100):
        q = i * 10000
        c = "" if i in (40, 41, 70) else str(q + 2000)
        f.write("%d,%d,%s,dev0,%d,4096,read,,0,1,1,x,0,0\n" % (q, q + 100, c, i * 4096))
PY
mktrace "$d/fewcompl.csv" "$d/fewcompl.ioreel"
"$IOREEL" replay "$d/fewcompl.ioreel" --target "$dev" --mode dep --json >"$d/fc.json" \
	2>"$d/fc.err" || fail "dep mode refused 3 of 100 missing completions: $(cat "$d/fc.err")"
assert_eq "$(json_get "$d/fc.json" "d['fidelity']['mode']")" dep "mode with 3 of 100 missing"
assert_eq "$(json_get "$d/fc.json" "d['fidelity']['dep']['no_completion']")" 3 "no_completion"
assert_eq "$(json_get "$d/fc.json" "d['jobs'][0]['read']['total_ios']")" 100 "reads replayed"
grep -q "3 of 100 I/Os have no completion time" "$d/fc.err" ||
	fail "the missing completions were not reported: $(cat "$d/fc.err")"
echo PASS
