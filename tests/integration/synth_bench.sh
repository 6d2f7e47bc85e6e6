#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ioreel bench: each preset replayed on two loop devices of our own gives one row per target
# with figures that are consistent (IOPS x block size = bandwidth, p99 >= mean), writes are
# refused without --allow-writes exactly as in replay, and cdm expands to its four tests; a
# recorded trace (--trace) gives a row per mode and target, timed and dep by default. Ctrl-C
# ends it with the rows finished, no temporary file left and an earlier --html as it was.
# timeout: 120
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd python3
d=$(scratch_dir)
a=$(make_loop 64)
b=$(make_loop 64)

output_has '--target' "$IOREEL" bench --help || fail "bench --help"
assert_status 2 "$IOREEL" bench --preset 4k-randread 2>/dev/null
assert_status 2 "$IOREEL" bench --preset nope --target "$a" 2>/dev/null
# an engine replay does not have is refused before anything is set up (it failed once each
# target was vetted, exit 1), with the list; a missing value is one line, not a guess
"$IOREEL" bench --preset 4k-randread --target "$a" --engine bogus 2>"$d/e"
assert_eq $? 2 "bench --engine bogus"
grep -q "engine bogus: unknown engine; give io_uring, libaio, psync, threads or null" "$d/e" ||
	fail "bench --engine bogus: $(cat "$d/e")"
"$IOREEL" bench --preset 4k-randread --target "$a" --engine 2>"$d/e"
assert_eq $? 2 "bench --engine without a value"
assert_eq "$(cat "$d/e")" "ioreel bench: --engine needs a value
Try 'ioreel bench --help'." "bench --engine without a value"
"$IOREEL" bench --preset 4k-randread --target "$a" --bogus 2>"$d/e"
assert_eq "$(cat "$d/e")" "ioreel bench: unknown option '--bogus'
Try 'ioreel bench --help'." "bench --bogus"

"$IOREEL" bench --preset 4k-randread --preset cdm --size 32m --runtime 1 --target "$a" \
	--target "$b" --json >"$d/r.json" 2>"$d/err" || fail "bench: $(cat "$d/err")"
python3 - "$d/r.json" "$a" "$b" <<'PY' || fail "bench results"
import json, sys
r = json.load(open(sys.argv[1]))["results"]
pats = [x["pattern"] for x in r]
want = ["4k-randread", "cdm-seq1m-q8t1", "cdm-seq1m-q1t1", "cdm-rnd4k-q32t1", "cdm-rnd4k-q1t1"]
assert pats == [p for p in want for _ in (0, 1)], pats
assert [x["target"] for x in r[:2]] == sys.argv[2:4]
for x in r:
    bs = 1 << 20 if "seq1m" in x["pattern"] else 4096
    assert x["ios"] > 0 and x["errors"] == 0 and x["skipped"] == 0, x
    assert abs(x["iops"] * bs - x["bw_bytes"]) <= 0.01 * x["bw_bytes"], x
    assert 0 < x["lat_avg_ns"] <= x["lat_p99_ns"] * 1.01, x
    # time_based 1 s: the replay ran about that long
    assert 0.5e9 < x["span_ns"] < 3e9, x
    print(f'  {x["pattern"]:16} {x["target"]:12} {x["iops"]:9.0f} IOPS  avg {x["lat_avg_ns"]/1e3:.1f} us  p99 {x["lat_p99_ns"]/1e3:.1f} us  cpu {x["cpu_pct"]:.0f}%')
PY

# Writes are guarded as in replay: skipped (and said so) without --allow-writes.
"$IOREEL" bench --preset 4k-randwrite --size 16m --runtime 1 --target "$a" >"$d/w.txt" 2>&1 ||
	fail "bench 4k-randwrite: $(cat "$d/w.txt")"
grep -q 'allow-writes' "$d/w.txt" || fail "skipped writes not reported: $(cat "$d/w.txt")"
"$IOREEL" bench --preset 4k-randwrite --size 16m --runtime 1 --target "$a" --allow-writes --json \
	>"$d/w.json" 2>"$d/err" || fail "bench --allow-writes: $(cat "$d/err")"
python3 -c 'import json,sys; x=json.load(open(sys.argv[1]))["results"][0]; assert x["ios"] > 0 and x["skipped"] == 0, x' \
	"$d/w.json" || fail "writes not replayed with --allow-writes"
# --html: one page with a run per pattern and target, charts included; a bad path fails first.
"$IOREEL" bench --preset 4k-randread --size 16m --runtime 1 --target "$a" --target "$b" \
	--html "$d/bench.html" >"$d/h.txt" 2>&1 || fail "bench --html: $(cat "$d/h.txt")"
grep -q "report: $d/bench.html" "$d/h.txt" || fail "bench --html did not say where the report is"
for t in "$a" "$b"; do
	grep -q "4k-randread on $t" "$d/bench.html" || fail "no run of 4k-randread on $t in the page"
done
[ "$(grep -o '<svg' "$d/bench.html" | wc -l)" -ge 4 ] || fail "bench --html: no charts"
"$IOREEL" bench --preset 4k-randread --runtime 1 --target "$a" --html /nonexistent/r.html \
	>"$d/h2.txt" 2>&1 && fail "bench --html to a missing folder succeeded"
grep -q "cannot write --html" "$d/h2.txt" || fail "no clear message: $(cat "$d/h2.txt")"
# --trace: a recorded-like trace (a thread reading, one writing), timed and dep, per target.
{
	echo "queue_ns,issue_ns,complete_ns,dev,offset,length,op,flags,error,pid,tid,comm,cpu,stream"
	for i in $(seq 0 199); do
		echo "$((i * 300000)),,$((i * 300000 + 100000)),d0,$((i * 8192)),8192,read,,0,7,7,db,0,0"
		echo "$((i * 300000 + 150000)),,$((i * 300000 + 250000)),d0,$((i * 4096)),4096,write,sync,0,7,8,db,0,0"
	done
} >"$d/rec.csv"
"$IOREEL" convert "$d/rec.csv" "$d/rec.ioreel" --from csv >/dev/null || fail "convert rec.csv"
"$IOREEL" bench --trace "$d/rec.ioreel" --target "$a" --target "$b" --allow-writes --json \
	>"$d/t.json" 2>"$d/err" || fail "bench --trace: $(cat "$d/err")"
python3 - "$d/t.json" <<'PY' || fail "bench --trace results"
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert [x["pattern"] for x in r] == ["rec.ioreel timed"] * 2 + ["rec.ioreel dep"] * 2, r
assert all(x["ios"] == 400 and x["errors"] == 0 and x["skipped"] == 0 for x in r), r
PY
assert_status 2 "$IOREEL" bench --trace "$d/rec.ioreel" --mode closed --target "$a" 2>/dev/null

# Ctrl-C in the second pattern's replay: bench was killed there, leaving its half-written
# --html beside the report (.r.html.XXXXXX) and its traces in /tmp. Now the replay ends, the
# row that finished is printed, the earlier report stays and no temporary file is left.
echo mine >"$d/r.html"
"$IOREEL" bench --preset 4k-randread --preset 4k-randwrite --target "$a" --runtime 2 \
	--allow-writes --html "$d/r.html" >"$d/int.out" 2>"$d/int.err" &
pid=$!
cleanup_kill "$pid"
for ((i = 0; i < 300; i++)); do
	grep -q "4k-randwrite on" "$d/int.err" && break
	sleep 0.1
done
sleep 0.5
interrupt_ends "$pid" "bench"
grep -q "interrupted by SIGINT: the rows above are the runs that finished; --html not written, \
an earlier report stays: $d/r.html" "$d/int.err" || fail "bench after SIGINT: $(cat "$d/int.err")"
grep -q "^4k-randread" "$d/int.out" || fail "the finished row: $(cat "$d/int.out")"
grep -q "^4k-randwrite" "$d/int.out" && fail "the interrupted run was printed: $(cat "$d/int.out")"
assert_eq "$(cat "$d/r.html")" mine "the earlier report after an interrupted bench"
[ -z "$(find "$d" -name '.r.html.*')" ] || fail "a temporary --html left: $(ls -a "$d")"
echo "synth_bench: ok"
