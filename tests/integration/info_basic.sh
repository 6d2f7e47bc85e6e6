#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `ioreel info` on a generated trace (fio v3 log converted to .ioreel): text and JSON agree
# with what was generated; on closed-loop synthesized traces it gives streams, depths, the
# pass and the runtime instead of a span and rates of times that are only an order; usage
# errors exit 2.
. "$(dirname "$0")/../lib.sh"
need_cmd python3 awk
d=$(scratch_dir)

# 100000 I/Os, one every 10 us: 70 % reads of 4 KiB, writes of 8 KiB, a few trims.
awk 'BEGIN { print "fio version 3 iolog"; print "0 /dev/sdx add"; print "0 /dev/sdx open";
	srand(7);
	for (i = 0; i < 100000; i++) {
		r = rand(); off = int(rand() * 262144) * 4096;
		if (i % 1000 == 999) print (i * 10) " /dev/sdx trim " off " 1048576";
		else if (r < 0.7) print (i * 10) " /dev/sdx read " off " 4096";
		else print (i * 10) " /dev/sdx write " off " 8192";
	}
	print "1000000 /dev/sdx close" }' > "$d/gen.log"
"$IOREEL" convert "$d/gen.log" "$d/t.ioreel" >/dev/null || fail "convert failed"
want_reads=$(grep -c ' read ' "$d/gen.log")
want_writes=$(grep -c ' write ' "$d/gen.log")

"$IOREEL" info "$d/t.ioreel" > "$d/info.txt" 2> "$d/info.err" || fail "info exited $?: $(cat "$d/info.err")"
cat "$d/info.txt"
grep -q "index present" "$d/info.txt" || fail "text: no 'index present'"
grep -q "events     100000: read $want_reads " "$d/info.txt" || fail "text: wrong events line"
grep -q "device 0   /dev/sdx" "$d/info.txt" || fail "text: device missing"
grep -q "bytes/event" "$d/info.txt" || fail "text: bytes/event missing"

"$IOREEL" info --json "$d/t.ioreel" > "$d/info.json" || fail "info --json failed"
python3 - "$d/info.json" "$d/t.ioreel" "$want_reads" "$want_writes" <<'PY' || fail "json check failed"
import json, os, sys
j = json.load(open(sys.argv[1]))
size = os.path.getsize(sys.argv[2])
assert j["events"] == 100000, j["events"]
assert j["ops"]["read"] == int(sys.argv[3]) and j["ops"]["write"] == int(sys.argv[4]), j["ops"]
assert j["ops"]["discard"] == 100, j["ops"]
assert j["file_bytes"] == size, (j["file_bytes"], size)
assert abs(j["bytes_per_event"] - size / 100000) < 1e-3
assert j["index"] is True and j["sorted"] is True
assert j["dropped"] is None
assert j["duration_ns"] > 0 and j["chunks"] >= 1
assert j["devices"][0]["name"] == "/dev/sdx"
assert j["source"].startswith("import"), j["source"]
assert j["times"] == "schedule" and j["closed_loop"] is None
assert abs(j["iops"] - 100000 * 1e9 / j["duration_ns"]) < 1e-3 * j["iops"]
print("json ok:", j["events"], "events,", j["bytes_per_event"], "bytes/event")
PY

# Closed loop: times are the file order. No span or rate; streams, depths, pass and runtime.
"$IOREEL" synth --preset 4k-randrw70 --number-ios 1000 -o "$d/c.ioreel" >/dev/null || fail "synth preset"
"$IOREEL" synth --rw randread --bs 4k --size 64m --iodepth 4 --numjobs 3 --number-ios 500 \
	-o "$d/c2.ioreel" >/dev/null || fail "synth randread"
"$IOREEL" info "$d/c.ioreel" >"$d/c.txt" || fail "info closed-loop"
cat "$d/c.txt"
grep -qE "span|IOPS|/s$" "$d/c.txt" && fail "closed-loop trace: a span or rate of times that are no schedule"
grep -q "times      an order, not a schedule" "$d/c.txt" || fail "closed: no times line"
grep -q "^  source     synth, closed-loop" "$d/c.txt" || fail "closed: the source line's timing"
grep -q "streams    8, depth 32 each (256 I/Os in flight at most)" "$d/c.txt" || fail "closed: streams"
grep -q "one pass   8000 I/Os, .* (1000 per stream)" "$d/c.txt" || fail "closed: pass"
grep -q "replay     runs 120.00s, cycling the pass (time based)" "$d/c.txt" || fail "closed: runtime"
output_has "replay     runs the pass once" "$IOREEL" info "$d/c2.ioreel" || fail "closed, not time based"
for t in c c2; do "$IOREEL" info --json "$d/$t.ioreel" >"$d/$t.json" || fail "info --json $t"; done
python3 - "$d/c.json" "$d/c2.json" <<'PY' || fail "closed-loop json check failed"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for j in (a, b):
    assert j["mode"] == "closed" and j["times"] == "order", j["times"]
    for k in ("first_ns", "last_ns", "duration_ns", "iops", "bandwidth_bytes_per_s"):
        assert j[k] is None, (k, j[k])
    c = j["closed_loop"]
    assert c["streams"] == len(j["streams"]) and c["in_flight"] == sum(j["streams"])
    assert sum(c["stream_ios"]) == c["pass_ios"] == j["events"]
    assert c["pass_bytes"] == sum(j["op_bytes"].values())
ca, cb = a["closed_loop"], b["closed_loop"]
assert ca["streams"] == 8 and ca["in_flight"] == 256 and ca["stream_ios"] == [1000] * 8, ca
assert ca["ends"] == "runtime" and ca["runtime_ns"] == 120 * 10**9, ca
assert cb["streams"] == 3 and cb["in_flight"] == 12 and cb["stream_ios"] == [500] * 3, cb
assert cb["ends"] == "pass", cb
print("closed-loop json ok")
PY

assert_status 0 "$IOREEL" info --help >/dev/null
assert_status 2 "$IOREEL" info 2>/dev/null
assert_status 2 "$IOREEL" info --bogus "$d/t.ioreel" 2>"$d/err"
# one line and where the help is (it printed the whole usage)
assert_eq "$(cat "$d/err")" "ioreel info: unknown option '--bogus'
Try 'ioreel info --help'." "info --bogus"
assert_status 2 "$IOREEL" info -x "$d/t.ioreel" 2>"$d/err"
assert_eq "$(cat "$d/err")" "ioreel info: unknown option '-x'
Try 'ioreel info --help'." "info -x"
assert_status 2 "$IOREEL" info "$d/t.ioreel" "$d/t.ioreel" 2>"$d/err"
assert_eq "$(cat "$d/err")" "ioreel info: give one trace file (got 2)
Try 'ioreel info --help'." "info T T"
echo PASS
