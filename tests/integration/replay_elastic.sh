#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Dep mode's elastic models (replay/dep/dep_el.h), by exact counts, on the null engine with set
# latencies (--null-latency IO,FLUSH: every I/O completes exactly that long after it was
# queued, flushes after their own). Each trace was "recorded" on a fast device; its rounds lie
# farther apart than a round takes on the slowed target, so every round meets the same case.
#  - group commit (100 ms per I/O, 2 s per flush): per round, thread B's flush comes due while
#    D's flush, issued after B's write completed, is in flight: coalesced. D's flush was issued
#    in the recording while A's was in flight: kept (redundant). E's write completes after
#    every flush in flight was issued: its flush is issued. Exactly 1 coalesced per round.
#  - absorbed writes (1 s per I/O): a kernel thread writes pages 0-3 with two in flight, then
#    (a new burst, 500 ms later) pages 2 and 3 again. On the slowed target its first burst
#    still holds pages 2 and 3 when the second is due: those 2 are absorbed per round.
#  - absorbed writes at file level (1 s per I/O): the same, by a thread that only writes
#    (tests/tools/ftrace_bg: a page cleaner through libaio), pages 0-5 then 4 and 5.
#  - split flushes (100 ms per I/O, 2 s per flush): per round, B reads five times, writes, and
#    wakes after A's flush, which in the recording was issued after B's write completed (B
#    waited on it for its write). On the slowed target B's write completes only after A's
#    flush went out: B issues its own flush, exactly 1 split per round, and its read waits.
#  - with the models on, onto a fast target (null engine, no latency), per-op counts equal the
#    recording's: nothing is coalesced, absorbed or split. With them off (the default) nothing
#    is, on the slowed target too.
# Function, not timing. Each decision is fixed by the latencies and the dependencies (a write
# cannot complete before its latency, a flush follows its own write's completion), or else
# lies 200 ms or more either side: on this busy 2-core machine the replayer was seen stalled
# 76 ms, once 300 ms, and the first designs, 3-20 ms either side, flipped.
# timeout: 240
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
need_cmd python3
d=$(scratch_dir)
truncate -s 64M "$d/t.img"
ROUNDS=2

# The designs' times in us (c: recorded completion).
python3 - "$d/gc.csv" "$CSV_HEADER" "$ROUNDS" <<'PY'
import sys
rows = []
def io(q, c, op, off, ln, tid, flags=""):
    rows.append((q * 1000, "", c * 1000, "dev0", off, ln, op, flags, 0, 42, tid, "db", 0, 0))
for k in range(int(sys.argv[3])):
    T = 1000 + k * 3000000
    # fresh threads each round: each starts on the trace's clock (an open I/O)
    a, b, dd, e = 100 + k, 200 + k, 300 + k, 400 + k
    io(T, T + 100, "write", 4096 * 1, 4096, b)
    io(T + 300000, T + 300100, "flush", 0, 0, b)      # due while A's and D's are in flight
    io(T + 20000, T + 20100, "write", 4096 * 2, 4096, a)
    io(T + 20110, T + 80110, "flush", 0, 0, a)        # a slow flush in the recording
    io(T, T + 100, "write", 4096 * 3, 4096, dd)       # done with B's, so D's flush covers B
    io(T + 40000, T + 40100, "flush", 0, 0, dd)       # issued while A's was in flight
    io(T + 400000, T + 400100, "write", 4096 * 4, 4096, e)
    io(T + 700000, T + 700100, "flush", 0, 0, e)      # its write done after D's went
rows.sort(key=lambda r: r[0])
with open(sys.argv[1], "w") as f:
    f.write(sys.argv[2] + "\n")
    for r in rows:
        f.write(",".join(str(x) for x in r) + "\n")
PY
python3 - "$d/ab.csv" "$CSV_HEADER" "$ROUNDS" <<'PY'
import sys
rows = []
def io(q, c, op, off, ln, tid, flags=""):
    rows.append((q * 1000, "", c * 1000, "dev0", off, ln, op, flags, 0, 0, tid, "kworker", 0, 0))
for k in range(int(sys.argv[3])):
    T = 1000 + k * 3000000
    tid = 500 + k
    for burst, pages in ((0, range(4)), (500000, range(2, 4))):
        for i in pages:                                # 1 ms apart, 1.5 ms each: 2 in flight
            q = T + burst + i * 1000
            io(q, q + 1500, "write", (1 << 20) + i * 4096, 4096, tid, "kthread")
rows.sort(key=lambda r: r[0])
with open(sys.argv[1], "w") as f:
    f.write(sys.argv[2] + "\n")
    for r in rows:
        f.write(",".join(str(x) for x in r) + "\n")
PY
python3 - "$d/sp.csv" "$CSV_HEADER" "$ROUNDS" <<'PY'
import sys
rows = []
def io(q, c, op, off, ln, tid, flags=""):
    rows.append((q * 1000, "", c * 1000, "dev0", off, ln, op, flags, 0, 42, tid, "db", 0, 0))
for k in range(int(sys.argv[3])):
    T = 1000 + k * 5000000
    a, b = 600 + k, 700 + k
    for i in range(5):
        io(T + 200 * i, T + 200 * i + 100, "read", 4096 * (10 + i), 4096, b)
    io(T + 1000, T + 1100, "write", 4096 * 7, 4096, b)   # done before A's flush went
    io(T + 200000, T + 200100, "write", 4096 * 5, 4096, a)
    io(T + 201000, T + 202000, "flush", 0, 0, a)         # covers B's write too
    io(T + 202010, T + 202110, "read", 4096 * 8, 4096, b)  # woke by A's flush
rows.sort(key=lambda r: r[0])
with open(sys.argv[1], "w") as f:
    f.write(sys.argv[2] + "\n")
    for r in rows:
        f.write(",".join(str(x) for x in r) + "\n")
PY
mktrace "$d/gc.csv" "$d/gc.ioreel"
mktrace "$d/sp.csv" "$d/sp.ioreel"
mktrace "$d/ab.csv" "$d/ab.ioreel"

# rp NAME TRACE ARGS...: a dep replay onto the null engine, its JSON in $d/NAME.json
rp() {
	local name=$1 trace=$2
	shift 2
	"$IOREEL" replay "$trace" --target "$d/t.img" --allow-writes --mode dep --engine null \
		--json -q "$@" >"$d/$name.json" 2>"$d/$name.err" ||
		fail "replay $name failed: $(cat "$d/$name.err")"
}
# check NAME OP TRACE ISSUED COALESCED ABSORBED: the elastic report's row for OP
check() {
	python3 - "$d/$1.json" "$2" "$3" "$4" "$5" "$6" <<'PY' || fail "$1: see above"
import json, sys
j = json.load(open(sys.argv[1]))
op = sys.argv[2]
want = [int(x) for x in sys.argv[3:7]]
row = j["fidelity"]["elastic"]["ops"][op]
got = [row["trace"], row["issued"], row["coalesced"], row["absorbed"]]
print("%s %s: trace %d, issued %d, coalesced %d, absorbed %d" % (sys.argv[1], op, *got))
assert got == want, "expected trace/issued/coalesced/absorbed %s, got %s" % (want, got)
# what reached the target (the analysis of the result) is what the report says was issued
got = j["jobs"][0]["sync" if op == "flush" else op]["total_ios"]
assert got == row["issued"], (got, row["issued"])
PY
}

echo "== group commit on, the slowed target"
# think times up to 300 ms are the threads' own here (the default 10 ms would take them as
# waits for a client and keep the trace's clock)
rp gc_slow "$d/gc.ioreel" --null-latency 100ms,2s --dep-group-commit on --dep-think-max 1s
check gc_slow flush $((4 * ROUNDS)) $((3 * ROUNDS)) "$ROUNDS" 0
check gc_slow write $((4 * ROUNDS)) $((4 * ROUNDS)) 0 0
[ "$(json_get "$d/gc_slow.json" "d['fidelity']['elastic']['flushes_kept_redundant']")" = \
	"$ROUNDS" ] || fail "D's flushes should be the redundant ones: $(cat "$d/gc_slow.json")"
"$IOREEL" replay "$d/gc.ioreel" --target "$d/t.img" --allow-writes --mode dep --engine null \
	--null-latency 100ms,2s --dep-group-commit on --dep-think-max 1s -q >"$d/gc_slow.txt" 2>&1 ||
	fail "text report: $(cat "$d/gc_slow.txt")"
grep -q "elastic models: group commit on" "$d/gc_slow.txt" &&
	grep -Eq "flush +$((4 * ROUNDS)) +$((3 * ROUNDS)) +$ROUNDS +0" "$d/gc_slow.txt" ||
	fail "text report lacks the elastic table: $(cat "$d/gc_slow.txt")"

echo "== group commit off, the same target"
rp gc_off "$d/gc.ioreel" --null-latency 100ms,2s --dep-group-commit off --dep-think-max 1s
check gc_off flush $((4 * ROUNDS)) $((4 * ROUNDS)) 0 0

echo "== group commit on, a fast target: the recording's counts"
rp gc_fast "$d/gc.ioreel" --dep-group-commit on --dep-absorb on --dep-think-max 1s
check gc_fast flush $((4 * ROUNDS)) $((4 * ROUNDS)) 0 0
check gc_fast write $((4 * ROUNDS)) $((4 * ROUNDS)) 0 0

echo "== absorbed writes on, the slowed target; off (the default)"
rp ab_slow "$d/ab.ioreel" --null-latency 1s --dep-absorb on
check ab_slow write $((6 * ROUNDS)) $((4 * ROUNDS)) 0 $((2 * ROUNDS))
rp ab_off "$d/ab.ioreel" --null-latency 1s
check ab_off write $((6 * ROUNDS)) $((6 * ROUNDS)) 0 0

echo "== absorbed writes on, a fast target: the recording's counts"
rp ab_fast "$d/ab.ioreel" --dep-absorb on --dep-group-commit on
check ab_fast write $((6 * ROUNDS)) $((6 * ROUNDS)) 0 0

echo "== split flushes on, the slowed target"
rp sp_slow "$d/sp.ioreel" --null-latency 100ms,2s --dep-split on --dep-think-max 1s
check sp_slow flush "$ROUNDS" $((2 * ROUNDS)) 0 0
assert_eq "$(json_get "$d/sp_slow.json" "d['fidelity']['elastic']['ops']['flush']['split']")" \
	"$ROUNDS" "split flushes"
assert_eq "$(json_get "$d/sp_slow.json" "d['fidelity']['elastic']['split_grounded']")" \
	"$ROUNDS" "reads grounded as waiting on A's flush"
rp sp_off "$d/sp.ioreel" --null-latency 100ms,2s --dep-think-max 1s
check sp_off flush "$ROUNDS" "$ROUNDS" 0 0
rp sp_fast "$d/sp.ioreel" --dep-split on --dep-group-commit on --dep-absorb on \
	--dep-think-max 4s
check sp_fast flush "$ROUNDS" "$ROUNDS" 0 0
check sp_fast read $((6 * ROUNDS)) $((6 * ROUNDS)) 0 0

echo "== absorbed writes at file level: a page cleaner through libaio, 1 s per I/O"
# tests/tools/ftrace_bg: per round a thread that only writes (so a background writer) writes
# pages 0-5 two at a time, then pages 4 and 5 again 500 ms later: 4 and 5 are absorbed
bg=$BUILD/tests/tools/ftrace_bg
[ -x "$bg" ] || fail "$bg is not built (make check builds it)"
"$bg" "$d/bg.ioreel" "$ROUNDS" || fail "ftrace_bg"
mkdir -p "$d/root"
# rf NAME ARGS...: a file-level dep replay under $d/root onto the null engine
rf() {
	local name=$1
	shift
	replay_file_null "$d/bg.ioreel" "$d/root" "$d/$name.json" "$@"
}
rf bg_slow --null-latency 1s --dep-absorb on
check bg_slow write $((8 * ROUNDS)) $((6 * ROUNDS)) 0 $((2 * ROUNDS))
rf bg_off --null-latency 1s
check bg_off write $((8 * ROUNDS)) $((8 * ROUNDS)) 0 0
rf bg_fast --dep-absorb on --dep-group-commit on --dep-split on
check bg_fast write $((8 * ROUNDS)) $((8 * ROUNDS)) 0 0

echo "== options"
rc=0
"$IOREEL" replay "$d/gc.ioreel" --target "$d/t.img" --mode dep --dep-absorb maybe \
	>/dev/null 2>"$d/o.err" || rc=$?
assert_eq "$rc" 2 "exit status of --dep-absorb maybe"
grep -q "on or off" "$d/o.err" || fail "unclear message: $(cat "$d/o.err")"
rc=0
"$IOREEL" replay "$d/gc.ioreel" --target "$d/t.img" --mode dep --null-latency 1ms \
	>/dev/null 2>"$d/o2.err" || rc=$?
assert_eq "$rc" 2 "exit status of --null-latency without --engine null"
grep -q -- "--engine null" "$d/o2.err" || fail "unclear message: $(cat "$d/o2.err")"
echo PASS
