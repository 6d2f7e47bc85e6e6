#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The closed loop's think time and latency-target search (fio's thinktime and latency_target,
# format 1.5 stream records), by function, never by timing:
#  - think time, null engine: the result trace's issue times, as fio's write_iolog would show
#    them, fall into runs of exactly thinktime_blocks I/Os (issue-counted at depth 4,
#    completion-counted at depth 1) split by pauses; the pauses add up to at least the think
#    time each (a sleep is never shorter) and at most 10x it; the report counts them.
#    Counted by completion at a depth of thinktime_blocks and above, the runs are fio 3.33's
#    on a loop device (one completion reaped each time its queue is full, what the pause
#    reaps counting toward the next): 15 then 8 each at iodepth 8, thinktime_blocks 8; 23,
#    then 1, 22, 1, 22... at iodepth 16, whatever the engine's timing. A pause longer than
#    the runtime ends with it, and a delayed stream starts during another's pause.
#  - latency target, a loop device throttled to 500 reads/s (blk-throttle): each queued read
#    waits about 2 ms per read ahead of it, so a 20 ms target allows a depth near 10 of the
#    64 the job offers. The search must settle on a depth inside 2..32 and report it in the
#    text and JSON fidelity reports; a 1 us target must end at depth 1, reported as missed.
# timeout: 300
. "$(dirname "$0")/../lib.sh"
need_cmd python3
d=$(scratch_dir)
truncate -s 64M "$d/t.img"

echo "== think time, null engine"
cat >"$d/think.fio" <<'EOF'
[global]
ioengine=libaio
bs=4k
size=4m
rw=randread
thinktime=20ms

[by-issue]
iodepth=4
number_ios=400
thinktime_blocks=8
thinktime_blocks_type=issue
thinktime_spin=1ms

[by-completion]
iodepth=1
number_ios=120
thinktime_blocks=6

[completion-qd8]
iodepth=8
number_ios=200
thinktime_blocks=8

[completion-qd16]
iodepth=16
number_ios=200
thinktime_blocks=8
EOF
"$IOREEL" synth --fio-job "$d/think.fio" -o "$d/think.ioreel" >/dev/null 2>"$d/err" ||
	fail "synth think.fio: $(cat "$d/err")"
"$IOREEL" replay "$d/think.ioreel" --target "$d/t.img" --engine null -o "$d/think.run.ioreel" \
	--json -q >"$d/think.json" 2>"$d/err" || fail "replay think: $(cat "$d/err")"
"$IOREEL" convert "$d/think.run.ioreel" "$d/think.csv" >/dev/null || fail "convert think"
python3 - "$d/think.csv" "$d/think.json" <<'PY' || fail "think time"
import csv, json, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
f = json.load(open(sys.argv[2]))["fidelity"]
think = 20_000_000
pauses_all = 0
expect = {0: [8] * 50, 1: [6] * 20,
          2: [15] + [8] * 23 + [1],                   # 200 = 15 + 8 x 23 + 1
          3: [23] + [1, 22] * 7 + [1, 15]}            # 200 = 23 + 23 x 7 + 1 + 15
for stream, n in ((0, 400), (1, 120), (2, 200), (3, 200)):
    t = sorted(int(r["issue_ns"]) for r in rows if int(r["stream"]) == stream)
    assert len(t) == n, f"stream {stream}: {len(t)} I/Os, {n} in the job"
    # a gap of half the think time or more is a pause: the null engine's I/O between
    # two pauses takes microseconds
    runs, cur, gaps = [], 1, []
    for a, b in zip(t, t[1:]):
        if b - a >= think // 2:
            runs.append(cur); gaps.append(b - a); cur = 1
        else:
            cur += 1
    runs.append(cur)
    assert runs == expect[stream], f"stream {stream}: I/Os per think {runs}"
    assert all(think <= g <= 10 * think for g in gaps), f"stream {stream}: pauses {gaps}"
    pauses_all += len(gaps)
    print(f"  stream {stream}: {len(gaps)} pauses, {runs[:4]}... I/Os between, "
          f"{sum(gaps) / 1e6:.1f} ms in all")
# the report counts every pause taken, the last one too when the stream had not ended yet
assert pauses_all <= f["thinks"] <= pauses_all + 4, (f["thinks"], pauses_all)
assert f["thinks"] * think <= f["think_ns"] <= 10 * f["thinks"] * think, f
assert f["latency_target"] == [], f
PY

# A pause longer than the runtime ends with the runtime (the loop wakes at the sooner of the
# two); a stream with a start delay starts while the other one thinks. 10x headroom: the run
# must end within 3 s of its 300 ms, where waiting out the 5 s pause would take 5 s.
cat >"$d/end.fio" <<'EOF'
[global]
ioengine=libaio
bs=4k
size=4m
rw=randread
[long-pause]
runtime=300ms
time_based
thinktime=5s
thinktime_blocks=10
[delayed]
startdelay=200ms
number_ios=20
thinktime=50ms
thinktime_blocks=10
EOF
"$IOREEL" synth --fio-job "$d/end.fio" -o "$d/end.ioreel" >/dev/null 2>"$d/err" ||
	fail "synth end.fio: $(cat "$d/err")"
t0=$(date +%s%N)
"$IOREEL" replay "$d/end.ioreel" --target "$d/t.img" --engine null --json -q >"$d/end.json" \
	2>"$d/err" || fail "replay end: $(cat "$d/err")"
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -lt 3000 ] || fail "a 5 s pause held a 300 ms runtime: the run took $ms ms"
python3 - "$d/end.json" <<'PY' || fail "pause past the runtime"
import json, sys
f = json.load(open(sys.argv[1]))["fidelity"]
assert f["ios"] == 30 and f["thinks"] == 2, f  # 10 + pause; 10 + pause + 10
PY
echo "  a pause past the runtime ended with it (${ms} ms)"

echo "== latency target, throttled loop device"
need_root
dev=$(make_loop 64)
procs=$(make_throttled_cgroup "$(dev_majmin "$dev")" 500 500) || exit $?
throttled() { (echo $BASHPID >"$procs" && exec "$IOREEL" "$@"); }
lat_job() { # NAME TARGET PERCENTILE
	cat >"$d/$1.fio" <<EOF
[$1]
ioengine=libaio
direct=1
bs=4k
size=32m
rw=randread
iodepth=64
runtime=30
time_based
latency_target=$2
latency_window=300ms
latency_percentile=$3
EOF
	"$IOREEL" synth --fio-job "$d/$1.fio" -o "$d/$1.ioreel" >/dev/null 2>"$d/err" ||
		fail "synth $1.fio: $(cat "$d/err")"
}
lat_job target 20ms 90
throttled replay "$d/target.ioreel" --target "$dev" --engine libaio >"$d/target.txt" \
	2>"$d/err" || fail "replay target: $(cat "$d/err")"
throttled replay "$d/target.ioreel" --target "$dev" --engine libaio --json -q \
	>"$d/target.json" 2>"$d/err" || fail "replay target --json: $(cat "$d/err")"
grep -E "latency target: stream 0 at depth [0-9]+ of 64 after [0-9]+ windows \(settled\)" \
	"$d/target.txt" || fail "no depth in the text report: $(grep -i latency "$d/target.txt")"
python3 - "$d/target.json" <<'PY' || fail "latency target search"
import json, sys
f = json.load(open(sys.argv[1]))["fidelity"]
(l,) = f["latency_target"]
assert l["settled"] and not l["missed"], l
assert 2 <= l["depth"] <= 32 and l["max_depth"] == 64, l
assert l["windows"] >= 3, l
# it ended once settled (latency_run=0), long before the 30 s runtime, never deeper than 64
assert f["max_inflight"] <= 64, f
print(f"  depth found {l['depth']} of 64 after {l['windows']} windows")
PY

lat_job never 1 100
throttled replay "$d/never.ioreel" --target "$dev" --engine libaio --json -q \
	>"$d/never.json" 2>"$d/err" || fail "replay never: $(cat "$d/err")"
python3 - "$d/never.json" <<'PY' || fail "a target nothing meets"
import json, sys
(l,) = json.load(open(sys.argv[1]))["fidelity"]["latency_target"]
assert l["missed"] and l["depth"] == 1 and l["found"] == 0, l
print("  1 us target: ended at depth 1, reported missed")
PY
echo "replay_think: ok"
