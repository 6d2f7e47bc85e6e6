#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The paths this kernel never takes on its own, run with fault injection (IOREEL_RECORD_FAULT,
# see record/record.c): when the tp_btf programs fail to load, --attach auto says so in one
# line and records with raw_tp, exactly what fio issued on zram; --attach tp_btf fails with a
# clear message. On a kernel without block_io_start (before 6.5) requests start at
# block_rq_insert/issue: at request level on a loop device, with tp_btf and with raw_tp, the
# trace still holds fio's bytes per op in no more requests than fio's I/Os, nothing dropped.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"

dir=$(scratch_dir)
loop=$(make_loop 256)
zram=$(make_zram 256)
lname=$(basename "$loop")
zname=$(basename "$zram")

# 1. tp_btf fails to load: auto falls back to raw_tp, saying what failed.
export IOREEL_RECORD_FAULT=tp_btf
rec_start "$dir/auto.ioreel" -d "$zram"
fio --name=auto --filename="$zram" --direct=1 --ioengine=libaio --size=128M --rw=randrw \
	--bs=4k --iodepth=16 --io_size=16M --write_iolog="$dir/auto.iolog" >/dev/null ||
	fail "fio on zram failed"
rec_finish "$dir/auto.ioreel" raw_tp
grep -q "loading tp_btf/block_bio_queue failed: .*retrying with raw_tp" "$dir/auto.ioreel.err" ||
	fail "no one-line warning naming what failed: $(cat "$dir/auto.ioreel.err")"
compare_iolog "$dir/auto.iolog" "$dir/auto.ioreel.csv" "$zname" || fail "fallback trace differs from fio"

# ... and asked for tp_btf explicitly, it is an error that says what to try.
"$IOREEL" record -d "$zram" --attach tp_btf -o "$dir/tp.ioreel" --duration 1 -q \
	2>"$dir/tp.err"
assert_eq $? 1 "exit status when tp_btf cannot load"
grep -q "try --attach raw_tp" "$dir/tp.err" || fail "unclear message: $(cat "$dir/tp.err")"
[ ! -e "$dir/tp.ioreel" ] || fail "a failed start left a trace file behind"

# 2. No block_io_start: request level with the *_nostart programs, tp_btf then raw_tp.
for mode in tp_btf raw_tp; do
	IOREEL_RECORD_FAULT=no_io_start rec_start "$dir/ns_$mode.ioreel" -d "$loop" --level rq \
		--attach "$mode"
	fio --name="ns_$mode" --filename="$loop" --direct=1 --ioengine=libaio --size=128M \
		--rw=randrw --rwmixread=70 --bs=16k --iodepth=8 --io_size=32M \
		--write_iolog="$dir/ns_$mode.iolog" >/dev/null || fail "fio on the loop device failed"
	rec_finish "$dir/ns_$mode.ioreel" "$mode"
	grep -q "no block_io_start tracepoint" "$dir/ns_$mode.ioreel.err" ||
		fail "the recorder did not say it runs without block_io_start"
	compare_rq "$dir/ns_$mode.iolog" "$dir/ns_$mode.ioreel.csv" "$lname" ||
		fail "request level without block_io_start differs from fio ($mode)"
	echo "ended unseen ($mode): $(json_get "$dir/ns_$mode.ioreel.json" ended_unseen)"
done
echo PASS
