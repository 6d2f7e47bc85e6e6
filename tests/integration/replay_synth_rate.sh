#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A synthesized job with a rate is replayed as fio would run it: timed, every I/O issued, and
# never more than numjobs x iodepth in flight (fio's rate lags when the target falls behind;
# a recorded or imported trace keeps the 1024 default). The cap is reported in the text and
# in --json, and --max-inflight overrides it.
# timeout: 120
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
need_root
need_cmd python3
d=$(scratch_dir)
z=$(make_zram 128)

fid() { # JSON KEY -> fidelity[KEY]
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["fidelity"][sys.argv[2]])' "$1" "$2"
}

"$IOREEL" synth --rw=randread --bs=4k --size=64m --iodepth=4 --numjobs=2 --rate-iops=2000 \
	--runtime=1 -o "$d/rate.ioreel" >/dev/null || fail "synth --rate-iops failed"
"$IOREEL" replay "$d/rate.ioreel" --target "$z" -q --json >"$d/rate.json" 2>"$d/rate.err" ||
	fail "replay of the rate job failed: $(cat "$d/rate.err")"
assert_eq "$(fid "$d/rate.json" mode)" timed "mode of a --rate-iops job"
assert_eq "$(fid "$d/rate.json" ios)" 4000 "I/Os replayed (2 jobs x 2000 IOPS x 1 s)"
assert_eq "$(fid "$d/rate.json" inflight_cap)" 8 "in-flight cap (numjobs 2 x iodepth 4)"
max=$(fid "$d/rate.json" max_inflight)
[ "$max" -le 8 ] || fail "max in flight $max above the jobs' depth 8"

"$IOREEL" replay "$d/rate.ioreel" --target "$z" --max-inflight 3 -q --json >"$d/cap3.json" ||
	fail "replay with --max-inflight 3 failed"
assert_eq "$(fid "$d/cap3.json" inflight_cap)" 3 "--max-inflight overrides the jobs' depth"

# the text report says it too
out=$("$IOREEL" replay "$d/rate.ioreel" --target "$z" -q 2>&1) && grep -q "of 8 allowed" <<<"$out" ||
	fail "the text report does not give the in-flight cap"

# an imported trace (no jobs) keeps the default
{
	echo "$CSV_HEADER"
	for i in $(seq 0 99); do
		echo "$((i * 100000)),,,0,$((i * 4096)),4096,read,,0,1,1,x,0,0"
	done
} >"$d/imp.csv"
mktrace "$d/imp.csv" "$d/imp.ioreel"
"$IOREEL" replay "$d/imp.ioreel" --target "$z" -q --json >"$d/imp.json" ||
	fail "replay of the imported trace failed"
assert_eq "$(fid "$d/imp.json" inflight_cap)" 1024 "in-flight cap of a trace without jobs"
echo "rate job: 4000 I/Os timed, cap 8, max in flight $max; imported: cap 1024"
