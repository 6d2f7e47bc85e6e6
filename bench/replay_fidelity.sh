#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Timing fidelity of `ioreel replay` (timed, io_uring) against fio's iolog replay of the same
# Poisson schedule of 4 KiB random reads on zram, at 10k and 100k IOPS, judged in the kernel
# at block_bio_queue (bpftrace issue_times.bt + fidelity.py). Alternates ioreel, fio, ioreel,
# fio ... and prints each run and the medians. Never pass/fail.
# Env: ROUNDS (default 3), SECONDS_PER_RUN (default 3), RATES (default "10000 100000"),
# ENGINE (ioreel engine; default: ioreel's own choice, libaio on zram), IOREEL_ARGS (more replay options, e.g. --realtime).
. "$(dirname "$0")/replay_common.inc"
rounds=${ROUNDS:-3} secs=${SECONDS_PER_RUN:-3}
d=$(scratch_dir)
ZDEV=$(make_zram 1100)
# fill so that reads decompress real pages rather than hit zram's empty-slot shortcut
dd if=/dev/urandom of="$ZDEV" bs=1M count=1024 oflag=direct status=none
for rate in ${RATES:-10000 100000}; do
	n=$((rate * secs))
	python3 "$M/gen_poisson_v3.py" "$d/p.v3" "$ZDEV" "$rate" "$n" 1 1e6
	"$IOREEL" convert "$d/p.v3" "$d/p.ioreel" >/dev/null
	echo "== $rate IOPS, $n I/Os of 4 KiB random reads on $ZDEV ($secs s)"
	for r in $(seq "$rounds"); do
		with_bio_times "$d/i.txt" "$IOREEL" replay "$d/p.ioreel" --target "$ZDEV" -q --json \
			${ENGINE:+-e "$ENGINE"} ${IOREEL_ARGS:-}
		li=$(python3 "$M/fidelity.py" "$d/p.v3" "$d/i.txt")
		echo "ioreel  $li"
		echo "$li" >>"$d/ioreel.$rate"
		with_bio_times "$d/f.txt" fio --name=replay --read_iolog="$d/p.v3" --ioengine=io_uring \
			--direct=1 --iodepth=32
		lf=$(python3 "$M/fidelity.py" "$d/p.v3" "$d/f.txt")
		echo "fio     $lf"
		echo "$lf" >>"$d/fio.$rate"
	done
	for t in ioreel fio; do
		printf 'median %-6s @%6d IOPS: stretch %s%%  p50 %s us  p99 %s us  p99.9 %s us\n' $t $rate \
			"$(sed 's/.*stretch \([-+.0-9]*\)%.*/\1/' "$d/$t.$rate" | median)" \
			"$(sed 's/.*p50 \([.0-9]*\).*/\1/' "$d/$t.$rate" | median)" \
			"$(sed 's/.*p99 \([.0-9]*\).*/\1/' "$d/$t.$rate" | median)" \
			"$(sed 's/.*p999 \([.0-9]*\).*/\1/' "$d/$t.$rate" | median)"
	done
done
