#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Two builds of ioreel side by side (A B A B ...), for a change to replay that must leave its
# figures as they were (issue 22's restructuring): the scheduler alone (null engine, afap,
# iodepth 32: I/Os per second of one core), and timed replay's fidelity on zram at 10k and 100k
# IOPS judged in the kernel at block_bio_queue (stretch and lateness percentiles, as
# bench/replay_fidelity.sh). Prints every run, the medians and the ratios B/A. Never pass/fail.
# Usage: bench/replay_ab.sh A_IOREEL B_IOREEL
# Env: ROUNDS (default 5), NIOS (null-engine trace, default 2000000), SECONDS_PER_RUN (3),
# RATES (default "10000 100000").
. "$(dirname "$0")/replay_common.inc"
A=${1:?usage: replay_ab.sh A_IOREEL B_IOREEL} B=${2:?usage: replay_ab.sh A_IOREEL B_IOREEL}
rounds=${ROUNDS:-5} n=${NIOS:-2000000} secs=${SECONDS_PER_RUN:-3}
d=$(scratch_dir)
ZDEV=$(make_zram 1100)
dd if=/dev/urandom of="$ZDEV" bs=1M count=1024 oflag=direct status=none

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a ? b / a : 0 }'; }

echo "A = $A"
echo "B = $B"
python3 "$M/gen_poisson_v3.py" "$d/n.v3" "$ZDEV" 100000 "$n" 1 1e6
"$A" convert "$d/n.v3" "$d/n.ioreel" >/dev/null
echo "== scheduler alone: null engine, afap, iodepth 32, $n I/Os"
for r in $(seq "$rounds"); do
	for t in A B; do
		bin=$A; [ $t = B ] && bin=$B
		v=$("$bin" replay "$d/n.ioreel" --target "$ZDEV" -e null --mode afap --iodepth 32 -q \
			--json | python3 -c "import json,sys; f=json.load(sys.stdin)['fidelity']; print('%.0f' % (f['ios']*1e9/f['replay_span_ns']))")
		echo "$t null I/Os per second: $v"
		echo "$v" >>"$d/null.$t"
	done
done
na=$(median <"$d/null.A") nb=$(median <"$d/null.B")
echo "median null I/Os per second: A $na, B $nb, B/A $(ratio "$na" "$nb")"

for rate in ${RATES:-10000 100000}; do
	m=$((rate * secs))
	python3 "$M/gen_poisson_v3.py" "$d/p.v3" "$ZDEV" "$rate" "$m" 1 1e6
	"$A" convert "$d/p.v3" "$d/p.ioreel" >/dev/null
	echo "== timed, $rate IOPS, $m I/Os of 4 KiB random reads on $ZDEV ($secs s)"
	for r in $(seq "$rounds"); do
		for t in A B; do
			bin=$A; [ $t = B ] && bin=$B
			with_bio_times "$d/i.txt" "$bin" replay "$d/p.ioreel" --target "$ZDEV" -q --json
			l=$(python3 "$M/fidelity.py" "$d/p.v3" "$d/i.txt")
			echo "$t $l"
			echo "$l" >>"$d/$t.$rate"
		done
	done
	for f in stretch p50 p99 p999; do
		case $f in stretch) re='s/.*stretch \([-+.0-9]*\)%.*/\1/' ;; *) re="s/.* $f \([.0-9]*\).*/\1/" ;; esac
		va=$(sed "$re" "$d/A.$rate" | median) vb=$(sed "$re" "$d/B.$rate" | median)
		echo "median @$rate IOPS $f: A $va, B $vb"
	done
done
