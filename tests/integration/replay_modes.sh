#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Replay modes on zram: timed keeps the schedule (checked independently in the kernel at
# block_bio_queue with bpftrace), --speed scales it, afap keeps --iodepth in flight (psync at
# depth 1 without workers too), closed keeps each synthesized stream's depth and cycles
# time_based jobs.
# timeout: 180
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
need_root
need_cmd python3 bpftrace
M=/work/shared/measure
[ -f "$M/issue_times.bt" ] || M=$(dirname "$0")/../../bench/measure
d=$(scratch_dir)
z=$(make_zram 1100)
zn=$(basename "$z")

# a Poisson schedule of 4 KiB reads at 5k IOPS, 10000 I/Os (2 s), as a fio v3 log and a trace
python3 "$M/gen_poisson_v3.py" "$d/p.v3" "$z" 5000 10000 3 1e6
"$IOREEL" convert "$d/p.v3" "$d/p.ioreel" >/dev/null || fail "convert of the v3 log failed"

# 1. timed, observed by the kernel
majmin=$(dev_majmin "$z")
devt=$(( (${majmin%:*} << 20) | ${majmin#*:} ))
# bpftrace resolves tracepoints through tracefs: mount it in a private mount namespace when
# this system has it unmounted, so nothing is left behind and nobody else is affected
unshare -m sh -c 'mountpoint -q /sys/kernel/tracing ||
	mount -t tracefs nodev /sys/kernel/tracing; ulimit -l unlimited
	exec env BPFTRACE_MAP_KEYS_MAX=1000000 bpftrace "$@"' sh "$M/issue_times.bt" "$devt" \
	>"$d/seen.txt" 2>"$d/bt.err" &
bt=$!
cleanup_push "kill_same $bt '$(proc_start "$bt")' INT; wait $bt"
bpftrace_live $bt "$d/seen.txt" block_bio_queue ||
	skip_kernel "bpftrace cannot attach block_bio_queue: $(cat "$d/bt.err")"
"$IOREEL" replay "$d/p.ioreel" --target "$z" -q --json -o "$d/r.ioreel" >"$d/r.json" ||
	fail "timed replay failed"
kill -INT $bt; wait $bt
line=$(python3 "$M/fidelity.py" "$d/p.v3" "$d/seen.txt") || fail "fidelity.py failed"
echo "kernel-side: $line"
echo "ioreel-side: $(json_get "$d/r.json" "d['fidelity']['lateness_ns'], d['fidelity']['stretch']")"
python3 - "$line" <<'PY' || fail "the kernel saw a replay that does not follow the schedule: $line"
import re, sys
m = re.search(r"matched (\d+).*stretch ([-+.\d]+)%", sys.argv[1])
n, stretch = int(m.group(1)), float(m.group(2))
# Function, not timing: the I/Os follow the schedule (not afap, not a multiple of it), which
# the stretch says (afap would be near -100 %, a doubled clock +100 %); the bound is far above
# a healthy run's 0.00 %. The lateness (printed above) is a benchmark figure, not asserted:
# bench/replay_fidelity.sh measures it.
assert n >= 9500, "only %d I/Os matched" % n
assert abs(stretch) < 20.0, "stretch %.2f%%" % stretch
PY
# the result trace knows the same: deadlines and issue times of every I/O
assert_eq "$(json_get "$d/r.json" "d['fidelity']['ios']")" 10000 "timed: I/Os"

# 2. --speed 4: the replay takes a quarter of the time
"$IOREEL" replay "$d/p.ioreel" --target "$z" -q --json --speed 4 >"$d/s.json" || fail "--speed failed"
# the trace's span shrinks exactly; the replay's follows it (bound far above a healthy 0.00 %)
json_get "$d/s.json" "abs(d['fidelity']['replay_span_ns'] / (d['fidelity']['trace_span_ns'] or 1) - 1) < 0.2 and 0.45e9 < d['fidelity']['trace_span_ns'] < 0.55e9 or sys.exit(1)" >/dev/null ||
	fail "--speed 4: $(json_get "$d/s.json" "d['fidelity']")"

# 3. afap with each engine: never more than --iodepth in flight, far faster than the schedule
for eng in io_uring libaio psync; do
	"$IOREEL" replay "$d/p.ioreel" --target "$z" -q --json --mode afap --iodepth 8 -e $eng \
		>"$d/a.json" || fail "afap $eng failed"
	assert_eq "$(json_get "$d/a.json" "d['fidelity']['ios']")" 10000 "afap $eng: I/Os"
	assert_eq "$(json_get "$d/a.json" "d['fidelity']['max_inflight'] <= 8")" True "afap $eng: depth"
	json_get "$d/a.json" "d['fidelity']['replay_span_ns'] < d['fidelity']['trace_span_ns'] / 2 or sys.exit(1)" \
		>/dev/null || fail "afap $eng was not faster than the schedule"
done

# psync at depth 1 makes each call on the scheduling thread, without a worker: all done, one
# at a time
"$IOREEL" replay "$d/p.ioreel" --target "$z" -q --json --mode afap --iodepth 1 -e psync \
	>"$d/a1.json" || fail "afap psync at depth 1 failed"
assert_eq "$(json_get "$d/a1.json" "d['fidelity']['ios']")" 10000 "afap psync depth 1: I/Os"
assert_eq "$(json_get "$d/a1.json" "d['fidelity']['max_inflight']")" 1 "afap psync depth 1: depth"

# 4. closed: a synthesized job keeps numjobs x iodepth in flight, time_based cycles it
"$IOREEL" synth --rw randrw --bs 4k --iodepth 4 --numjobs 2 --size 64M --number-ios 2000 \
	-o "$d/c.ioreel" >/dev/null || fail "synth failed"
"$IOREEL" replay "$d/c.ioreel" --target "$z" -q --json --allow-writes --write-data pattern -o "$d/cr.ioreel" \
	>"$d/c.json" || fail "closed replay failed"
assert_eq "$(json_get "$d/c.json" "d['fidelity']['mode']")" closed "synth traces replay closed"
assert_eq "$(json_get "$d/c.json" "d['fidelity']['ios']")" 4000 "closed: I/Os"
assert_eq "$(json_get "$d/c.json" "d['fidelity']['max_inflight']")" 8 "closed: depth"
verify_image "$d/cr.ioreel" "$z"
"$IOREEL" synth --rw randread --bs 4k --iodepth 2 --numjobs 1 --size 64M --time_based \
	--runtime 1 -o "$d/t.ioreel" >/dev/null || fail "synth time_based failed"
"$IOREEL" replay "$d/t.ioreel" --target "$z" -q --json >"$d/t.json" || fail "time_based replay failed"
# cycled for its runtime: not ended after one pass, and ended (the upper bound is 10x slack)
json_get "$d/t.json" "0.95e9 < d['fidelity']['replay_span_ns'] < 10e9 or sys.exit(1)" >/dev/null ||
	fail "time_based 1 s ran $(json_get "$d/t.json" "d['fidelity']['replay_span_ns']") ns"

# 5. analyze reads the result trace, and replay --json carries the same keys as analyze --json
if "$IOREEL" analyze --help >/dev/null 2>&1; then
	"$IOREEL" analyze "$d/r.ioreel" --json >"$d/an.json" || fail "analyze of the result failed"
	python3 - "$d/an.json" "$d/r.json" <<'PY' || fail "replay --json keys differ from analyze --json"
import json, sys
a, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
missing = set(a) - set(r)
assert not missing, missing
assert "fidelity" in r
PY
fi
echo PASS
