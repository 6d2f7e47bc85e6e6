#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# fio's think time and latency target against ioreel's closed loop (issue 26), side by side on
# the same loop device. Figures, never pass/fail; run it on a quiet machine (both halves are
# about time: pauses, and latencies under a throttle).
#
#  1. Think time: each job below run by fio with write_iolog (its issue times, microseconds)
#     and by ioreel (synth --fio-job, replay, the result trace's issue times). A gap of half the
#     think time or more is a pause. Per job and tool: pauses, I/Os per think (min, median,
#     max), the total pause time, and the whole run's length.
#  2. Latency target: the device throttled to LAT_IOPS reads/s (blk-throttle in a cgroup, each
#     queued read then waits about 1/LAT_IOPS per read ahead of it), a latency_target job at
#     several targets, run by fio (its JSON's latency_depth) and by ioreel (replay --json,
#     fidelity.latency_target[0].depth), ROUNDS times each, alternating. Issue 26 asks for the
#     depth within one step of fio's.
# Env: ROUNDS (3), LAT_IOPS (500), TARGETS ("10ms 20ms 40ms"), PERCENTILE (90),
#      WINDOW (300ms), THINK ("all": every job below, or a list of their names).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/lib.sh"
need_root
need_cmd fio python3
rounds=${ROUNDS:-3}
lat_iops=${LAT_IOPS:-500}
d=$(scratch_dir)
dev=$(make_loop 256)

# name: options after [global] (ioengine=libaio direct=1 bs=4k size=64m rw=randread)
think_jobs=(
	"qd1-each:iodepth=1 number_ios=200 thinktime=10ms"
	"qd1-blocks8:iodepth=1 number_ios=800 thinktime=10ms thinktime_blocks=8"
	"qd8-blocks8-complete:iodepth=8 number_ios=800 thinktime=10ms thinktime_blocks=8"
	"qd8-blocks8-issue:iodepth=8 number_ios=800 thinktime=10ms thinktime_blocks=8 thinktime_blocks_type=issue"
	"qd16-blocks4-issue:iodepth=16 number_ios=400 thinktime=10ms thinktime_blocks=4 thinktime_blocks_type=issue"
	"qd4-spin:iodepth=4 number_ios=400 thinktime=10ms thinktime_spin=4ms thinktime_blocks=8"
	"qd4-iotime:iodepth=4 runtime=3 time_based thinktime=50ms thinktime_iotime=200ms"
	"qd4-iotime-blocks:iodepth=4 runtime=3 time_based thinktime=20ms thinktime_iotime=1 thinktime_blocks=64"
)

jobfile() { # NAME OPTIONS... -> $d/NAME.fio
	local name=$1; shift
	{
		printf '[global]\nioengine=libaio\ndirect=1\nbs=4k\nsize=64m\nrw=randread\n'
		printf 'filename=%s\n[%s]\n' "$dev" "$name"
		printf '%s\n' "$@"
	} >"$d/$name.fio"
}

echo "== think time (fio write_iolog vs ioreel result trace), on $dev"
printf '%-24s %-6s %7s %16s %10s %9s\n' job tool pauses "I/O per think" "paused" run
for j in "${think_jobs[@]}"; do
	name=${j%%:*}
	[ "${THINK:-all}" = all ] || [[ " ${THINK} " == *" $name "* ]] || continue
	# shellcheck disable=SC2086
	jobfile "$name" ${j#*:}
	think=$(sed -n 's/^thinktime=//p' "$d/$name.fio")
	fio --write_iolog="$d/$name.iolog" "$d/$name.fio" >/dev/null 2>"$d/err" ||
		{ echo "  fio $name failed: $(head -c 300 "$d/err")"; continue; }
	"$IOREEL" synth --fio-job "$d/$name.fio" -o "$d/$name.ioreel" >/dev/null 2>"$d/err" ||
		{ echo "  synth $name: $(cat "$d/err")"; continue; }
	"$IOREEL" replay "$d/$name.ioreel" --target "$dev" --engine libaio -q \
		-o "$d/$name.run.ioreel" >/dev/null 2>"$d/err" ||
		{ echo "  replay $name: $(cat "$d/err")"; continue; }
	"$IOREEL" convert "$d/$name.run.ioreel" "$d/$name.csv" >/dev/null
	python3 - "$name" "$think" "$d/$name.iolog" "$d/$name.csv" <<'PY'
import csv, statistics, sys
name, think, iolog, csvf = sys.argv[1:5]
unit = {"us": 1e3, "ms": 1e6, "s": 1e9}
num = think.rstrip("usm") or "0"
think_ns = float(num) * unit.get(think[len(num):] or "us", 1e3)
def fio_times():
    t = []
    for line in open(iolog):
        p = line.split()
        if len(p) == 5 and p[2] in ("read", "write", "trim"):
            t.append(int(p[0]) * 1000)  # microseconds since the job's start
    return t
def ioreel_times():
    rows = csv.DictReader(l for l in open(csvf) if not l.startswith("#"))
    return sorted(int(r["issue_ns"]) for r in rows)
for tool, t in (("fio", fio_times()), ("ioreel", ioreel_times())):
    runs, gaps, cur = [], [], 1
    for a, b in zip(t, t[1:]):
        if b - a >= think_ns / 2:
            runs.append(cur); gaps.append(b - a); cur = 1
        else:
            cur += 1
    runs.append(cur)
    per = f"{min(runs)}/{statistics.median(runs):g}/{max(runs)}"
    span = (t[-1] - t[0]) / 1e9 if t else 0
    print(f"{name:<24} {tool:<6} {len(gaps):>7} {per:>16} {sum(gaps) / 1e9:>9.3f}s "
          f"{span:>8.3f}s")
PY
done

echo
echo "== latency target: $dev throttled to $lat_iops reads/s; depth found (fio vs ioreel)"
procs=$(make_throttled_cgroup "$(dev_majmin "$dev")" "$lat_iops" "$lat_iops") || exit $?
throttled() { (echo $BASHPID >"$procs" && exec "$@"); }
printf '%-8s %-5s %-12s %-12s %s\n' target round fio ioreel "within one step"
for target in ${TARGETS:-10ms 20ms 40ms}; do
	name=lat-${target}
	jobfile "$name" iodepth=64 runtime=30 time_based "latency_target=$target" \
		"latency_window=${WINDOW:-300ms}" "latency_percentile=${PERCENTILE:-90}"
	"$IOREEL" synth --fio-job "$d/$name.fio" -o "$d/$name.ioreel" >/dev/null 2>"$d/err" ||
		{ echo "  synth $name: $(cat "$d/err")"; continue; }
	for r in $(seq 1 "$rounds"); do
		throttled fio --output-format=json --output="$d/$name.$r.json" "$d/$name.fio" \
			>/dev/null 2>"$d/err" || { echo "  fio $name: $(head -c 300 "$d/err")"; continue; }
		throttled "$IOREEL" replay "$d/$name.ioreel" --target "$dev" --engine libaio --json -q \
			>"$d/$name.$r.ioreel.json" 2>"$d/err" ||
			{ echo "  replay $name: $(cat "$d/err")"; continue; }
		python3 - "$target" "$r" "$d/$name.$r.json" "$d/$name.$r.ioreel.json" <<'PY'
import json, math, sys
target, r, fj, ij = sys.argv[1:5]
fd = json.load(open(fj))["jobs"][0]["latency_depth"]
l = json.load(open(ij))["fidelity"]["latency_target"][0]
idepth = l["depth"]
# one step: the search's last step is one depth
near = abs(idepth - fd) <= 1
state = "settled" if l["settled"] else ("missed" if l["missed"] else "searching")
print(f"{target:<8} {r:<5} {fd:<12} {str(idepth) + ' (' + state + ')':<12} "
      f"{'yes' if near else 'NO'}")
PY
	done
done
