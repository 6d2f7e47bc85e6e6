#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# --dep-date-wakes (replay/core/slots.c, run_reap): a completion the scheduling thread slept
# until is dated back by its measured wake-up latency before its children are released. The
# trace: a thread's chain of 300 reads (100 us each in the recording, 300 us of think time
# after each) beside another's chain of flushes, back to back. Onto the null engine at 1 ms a
# read and 5 ms a flush, --spin 0 (the scheduling thread sleeps in the kernel, as beside the
# host's load): a flush is in flight through each think time, so the wait for the next read's
# release times out (the wake-ups it measures), and each read's completion is slept until:
#  - on (the default): completions dated, wake-ups measured, the latency within its 1 ms clip,
#    no completion dated by more than that; every I/O still released after the one before it
#    in its thread was submitted (a completion is never dated before its wait began);
#  - off: nothing dated or measured, and the text report says nothing of it;
#  - a bad value is a usage error.
# Function, not timing: the counts hold whatever the host's pace.
# timeout: 120
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
need_cmd python3
d=$(scratch_dir)
truncate -s 64M "$d/t.img"

csv_trace "$d/w.csv" "$d/w.ioreel" <<'PY'
q = 1000
for i in range(300):
    rows.append((q * 1000, "", (q + 100) * 1000, "dev0", 4096 * i, 4096, "read", "", 0, 42,
                 10, "db", 0, 0))
    q += 400
for i in range(24):
    q = 1000 + i * 5000
    rows.append((q * 1000, "", (q + 4990) * 1000, "dev0", 0, 0, "flush", "", 0, 42, 11,
                 "wal", 0, 0))
PY

# rp NAME ARGS...: a dep replay onto the null engine, JSON and result trace kept
rp() {
	local name=$1
	shift
	"$IOREEL" replay "$d/w.ioreel" --target "$d/t.img" --mode dep --engine null \
		--null-latency 1ms,5ms --spin 0 --json -o "$d/$name.out.ioreel" "$@" \
		>"$d/$name.json" 2>"$d/$name.err" ||
		fail "replay $name failed: $(cat "$d/$name.err")"
}
wk() { json_get "$d/$1.json" "d['fidelity']['dep']['date_wakes']['$2']"; }

echo "== on (the default)"
rp on
assert_eq "$(wk on on)" True "the report"
assert_eq "$(json_get "$d/on.json" "d['jobs'][0]['read']['total_ios']")" 300 "reads issued"
echo "dated $(wk on dated), by $(wk on dated_ns) ns in all; wake-up $(wk on wake_late_ns) ns" \
	"from $(wk on samples) timed waits"
[ "$(wk on dated)" -ge 1 ] || fail "no completion dated: $(cat "$d/on.json")"
[ "$(wk on samples)" -ge 1 ] || fail "no wake-up measured: $(cat "$d/on.json")"
# not a time bound: the code clips each sample (clip_ns, the report's), so neither the average
# nor any completion's dating can pass it on however slow a host
clip=$(wk on clip_ns)
[ "$clip" -gt 0 ] || fail "no clip in the report: $(cat "$d/on.json")"
[ "$(wk on wake_late_ns)" -le "$clip" ] || fail "wake-up latency over its clip"
[ "$(wk on dated_ns)" -le $(($(wk on dated) * clip)) ] ||
	fail "a completion dated back by more than the clip"
# per thread: each I/O released (queue_ns) no earlier than the previous one's submission
result_csv "$d/on.out.ioreel" | python3 -c '
import csv, sys
last = {}
bad = 0
for r in csv.DictReader(l for l in sys.stdin if not l.startswith("#")):
    t = r["tid"]
    if t in last and int(r["queue_ns"]) < last[t]:
        bad += 1
    last[t] = int(r["issue_ns"])
print(bad)' >"$d/order"
assert_eq "$(cat "$d/order")" 0 "reads released before the read before them was submitted"
"$IOREEL" replay "$d/w.ioreel" --target "$d/t.img" --mode dep --engine null \
	--null-latency 1ms,5ms --spin 0 -q >"$d/on.txt" 2>&1 || fail "$(cat "$d/on.txt")"
grep -q "dated wake-ups (--dep-date-wakes)" "$d/on.txt" || fail "text report: $(cat "$d/on.txt")"

echo "== off"
rp off --dep-date-wakes off
assert_eq "$(wk off on)" False "the report, off"
assert_eq "$(wk off dated)" 0 "completions dated, off"
assert_eq "$(wk off samples)" 0 "wake-ups measured, off"
"$IOREEL" replay "$d/w.ioreel" --target "$d/t.img" --mode dep --engine null \
	--null-latency 1ms,5ms --spin 0 --dep-date-wakes off -q >"$d/off.txt" 2>&1 ||
	fail "$(cat "$d/off.txt")"
! grep -q "dated wake-ups" "$d/off.txt" || fail "text report, off: $(cat "$d/off.txt")"

echo "== a bad value"
rc=0
"$IOREEL" replay "$d/w.ioreel" --target "$d/t.img" --mode dep --dep-date-wakes maybe \
	>/dev/null 2>"$d/bad.err" || rc=$?
assert_eq "$rc" 2 "exit status of --dep-date-wakes maybe"
grep -q "dep-date-wakes" "$d/bad.err" || fail "unclear message: $(cat "$d/bad.err")"
echo "PASS"
