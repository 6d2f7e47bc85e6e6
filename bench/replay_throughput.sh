#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Throughput of `ioreel replay --mode afap --iodepth 32` against fio --read_iolog
# --replay_no_stall=1 --iodepth 32 on the same 4 KiB random-read trace on zram, alternating
# ioreel/fio: IOPS and user CPU per I/O (from the process's rusage). Then the null engine:
# how many I/Os per second one core schedules with no I/O at all. Never pass/fail.
# Env: ROUNDS (default 3), NIOS (default 500000).
. "$(dirname "$0")/replay_common.inc"
rounds=${ROUNDS:-3} n=${NIOS:-500000}
d=$(scratch_dir)
ZDEV=$(make_zram 1100)
dd if=/dev/urandom of="$ZDEV" bs=1M count=1024 oflag=direct status=none
python3 "$M/gen_poisson_v3.py" "$d/p.v3" "$ZDEV" 100000 "$n" 1 1e6
"$IOREEL" convert "$d/p.v3" "$d/p.ioreel" >/dev/null
echo "== afap, iodepth 32, $n I/Os of 4 KiB random reads on $ZDEV"
for r in $(seq "$rounds"); do
	/usr/bin/time -f "%e %U %S" -o "$d/t" "$IOREEL" replay "$d/p.ioreel" --target "$ZDEV" \
		--mode afap --iodepth 32 -q --json >"$d/i.json"
	read -r wall usr sys <"$d/t"
	iops=$(python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['fidelity']; print('%.0f' % (f['ios']*1e9/f['replay_span_ns']))" "$d/i.json")
	upi=$(awk -v u="$usr" -v n="$n" 'BEGIN { printf "%.2f", u * 1e6 / n }')
	echo "ioreel  IOPS $iops  user ${usr}s sys ${sys}s wall ${wall}s  user/IO ${upi} us"
	echo "$iops $upi" >>"$d/ioreel"
	/usr/bin/time -f "%e %U %S" -o "$d/t" fio --name=replay --read_iolog="$d/p.v3" \
		--replay_no_stall=1 --ioengine=io_uring --direct=1 --iodepth=32 \
		--output-format=json >"$d/f.json"
	read -r wall usr sys <"$d/t"
	iops=$(python3 -c "import json,sys; print('%.0f' % json.load(open(sys.argv[1]))['jobs'][0]['read']['iops'])" "$d/f.json")
	upi=$(awk -v u="$usr" -v n="$n" 'BEGIN { printf "%.2f", u * 1e6 / n }')
	echo "fio     IOPS $iops  user ${usr}s sys ${sys}s wall ${wall}s  user/IO ${upi} us"
	echo "$iops $upi" >>"$d/fio"
done
ii=$(awk '{print $1}' "$d/ioreel" | median) fi=$(awk '{print $1}' "$d/fio" | median)
iu=$(awk '{print $2}' "$d/ioreel" | median) fu=$(awk '{print $2}' "$d/fio" | median)
echo "median IOPS: ioreel $ii, fio $fi, ratio $(awk -v a="$ii" -v b="$fi" 'BEGIN { printf "%.2f", a / b }')"
echo "median user CPU per I/O: ioreel $iu us, fio $fu us, ratio $(awk -v a="$iu" -v b="$fu" 'BEGIN { printf "%.2f", b ? a / b : 0 }')"
echo "== null engine (no I/O): scheduling rate of one core, afap iodepth 32"
for r in $(seq "$rounds"); do
	"$IOREEL" replay "$d/p.ioreel" --target "$ZDEV" -e null --mode afap --iodepth 32 -q --json |
		python3 -c "import json,sys; f=json.load(sys.stdin)['fidelity']; print('%.0f' % (f['ios']*1e9/f['replay_span_ns']))"
done | tee "$d/null" | sed 's/^/null    I\/Os per second: /'
echo "median null-engine I/Os per second: $(median <"$d/null")"
