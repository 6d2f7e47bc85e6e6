#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A property walk over synthesized closed-loop traces: I/O size 512 B to 1 GiB, depth 1 to 4096,
# numjobs 1 to 64, each replayed in closed, afap and timed mode with the null engine (the
# scheduler alone) and a sample with io_uring on a real file. Every replay must finish (no
# crash: the closed loop once took a slot it did not have whenever the streams wanted more in
# flight than the cap), issue every I/O once, keep under the in-flight cap it reports, and keep
# its buffers small: they no longer grow with the depth. Dep mode refuses a synthesized trace
# with a message, never a crash.
# timeout: 600
. "$(dirname "$0")/../lib.sh"
need_cmd python3
d=$(scratch_dir)
truncate -s 2G "$d/t.img"

# check MODE TRACE EXPECTED_IOS JOBS_DEPTH [REPLAY OPTIONS...]
check() {
	local mode=$1 trace=$2 want=$3 jobs_depth=$4 rc
	shift 4
	"$IOREEL" replay "$trace" --target "$d/t.img" --allow-writes --mode "$mode" --json -q \
		"$@" >"$d/out.json" 2>"$d/err" && rc=0 || rc=$?
	[ "$rc" = 0 ] || fail "replay $trace --mode $mode $*: exit $rc: $(cat "$d/err")"
	python3 - "$mode" "$want" "$jobs_depth" "$d/out.json" <<'PY' || fail "replay $trace --mode $mode $*: $(cat "$d/err")"
import json, sys
mode, want, jobs_depth = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
f = json.load(open(sys.argv[4]))["fidelity"]
assert f["ios"] == want, f"{f['ios']} I/Os replayed, {want} in the trace"
assert f["errors"] == 0, f"{f['errors']} errors"
assert 1 <= f["max_inflight"] <= f["inflight_cap"], f"{f['max_inflight']} in flight, cap {f['inflight_cap']}"
cap = {"closed": min(jobs_depth, 4096), "afap": 32, "timed": min(jobs_depth, 65536)}[mode]
assert f["inflight_cap"] == cap, f"cap {f['inflight_cap']}, expected {cap}"
PY
}

n=0
for bs in 512 4k 1m 64m 1g; do
	for depth in 1 32 4096; do
		for jobs in 1 8 64; do
			ios=8
			rw=randrw
			# 1 GiB reads and writes: the buffers are two of them, whatever the depth;
			# keep the count small (the null engine moves no data, setup does)
			case $bs in 64m | 1g) rw=randread; [ "$jobs" = 64 ] && ios=2 ;; esac
			t=$d/g-$bs-$depth-$jobs.ioreel
			said=$("$IOREEL" synth --rw $rw --bs $bs --iodepth $depth --numjobs $jobs \
				--size 1g --number-ios $ios -o "$t" 2>"$d/err") ||
				fail "synth bs=$bs depth=$depth jobs=$jobs: $(cat "$d/err")"
			# "T.ioreel: N I/Os (...)": a random job over 1g in 1g blocks has one
			said=${said#*: }
			for mode in closed afap timed; do
				check $mode "$t" "${said%% *}" $((depth * jobs)) --engine null
				n=$((n + 1))
			done
		done
	done
done
echo "null engine: $n replays, each I/O once, under the cap"

# dep mode refuses a synthesized trace (no recorded dependencies) with a message, exit 2
"$IOREEL" replay "$d/g-4k-32-8.ioreel" --target "$d/t.img" --mode dep --engine null -q \
	>/dev/null 2>"$d/err" && fail "dep mode replayed a synthesized trace"
rc=$?
[ $rc = 2 ] || [ $rc = 1 ] || fail "dep mode on a synthesized trace: exit $rc ($(cat "$d/err"))"
[ -s "$d/err" ] || fail "dep mode refused a synthesized trace without a word"

# a header claiming a depth past any cap: closed mode caps it and says so
"$IOREEL" synth --rw randread --bs 4k --iodepth 4096 --numjobs 64 --size 1g --number-ios 4 \
	-o "$d/huge.ioreel" >/dev/null || fail "synth of 64 x 4096"
check closed "$d/huge.ioreel" 256 262144 --engine null
grep -q 'capped at 4096' "$d/err" || fail "the cap below the streams' depth is not reported"
out=$("$IOREEL" replay "$d/huge.ioreel" --target "$d/t.img" --engine null --max-inflight 100 \
	--json -q 2>/dev/null) || fail "--max-inflight 100 on a closed trace"
python3 -c 'import json,sys; f=json.load(sys.stdin)["fidelity"]; assert f["inflight_cap"]==100 and f["max_inflight"]<=100 and f["ios"]==256, f' <<<"$out" ||
	fail "--max-inflight does not cap a closed-loop replay"

# a sample on a real engine: the RAID-study shape at 4 MiB (8 jobs x 32 deep, which crashed),
# 64 jobs at 64k, 4 MiB writes at depth 1024 (1024 buffers of 4 MiB before); resident memory
# stays small whatever the depth
for shape in "4m 32 8" "64k 64 64" "4m 1024 1"; do
	set -- $shape
	"$IOREEL" synth --rw write --bs "$1" --iodepth "$2" --numjobs "$3" --size 1g \
		--number-ios 16 -o "$d/real.ioreel" >/dev/null || fail "synth $shape"
	/usr/bin/time -f '%M' -o "$d/rss" "$IOREEL" replay "$d/real.ioreel" --target "$d/t.img" \
		--allow-writes -q --json >"$d/real.json" 2>"$d/err" ||
		fail "io_uring replay of $shape: $(cat "$d/err")"
	# every I/O once, under the cap, and the cap the streams' depth: never lowered for memory
	python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["fidelity"]; assert f["ios"]==int(sys.argv[2]) and f["errors"]==0 and f["max_inflight"]<=f["inflight_cap"]==int(sys.argv[3]), f' \
		"$d/real.json" $((16 * $3)) $(($2 * $3)) || fail "io_uring replay of $shape"
	rss_kib=$(tail -1 "$d/rss")
	echo "io_uring $shape: peak RSS $((rss_kib / 1024)) MiB"
	# a function check, not a benchmark: 1 GiB of per-slot buffers used to be allocated
	[ "$rss_kib" -lt $((256 * 1024)) ] || fail "replay of $shape took $rss_kib KiB resident"
done

# --write-data pattern keeps a bounded pool: 64 MiB writes at depth 8 wait for a buffer, and
# every byte written still carries its own offset's stamp
"$IOREEL" synth --rw write --bs 64m --iodepth 8 --numjobs 1 --size 1g --number-ios 16 \
	-o "$d/pat.ioreel" >/dev/null || fail "synth of the pattern trace"
out=$("$IOREEL" replay "$d/pat.ioreel" --target "$d/t.img" --allow-writes --write-data pattern \
	--engine null --json -q) || fail "--write-data pattern replay"
python3 -c 'import json,sys; f=json.load(sys.stdin)["fidelity"]; assert f["ios"]==16 and f["buffer_waits"]>0, f' <<<"$out" ||
	fail "a pattern replay past its pool did not wait for buffers"
echo "PASS"
