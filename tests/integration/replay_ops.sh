#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Every op lands where the trace says, with every engine, on a zram device and on files on
# ext4, xfs and btrfs: written data carries its offset stamp, discard and write-zeroes leave
# zeros, the result trace lists each I/O as issued.
# timeout: 200
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
need_root
need_cmd python3
d=$(scratch_dir)

# 64 I/Os: writes of 4k/8k/64k (some FUA), reads, flushes, then a discard and a write-zeroes
# over earlier writes, then writes again inside the zeroed range.
{
	echo "$CSV_HEADER"
	t=1000
	for i in $(seq 0 39); do
		off=$(( (i * 7919 % 4000) * 4096 ))
		len=$(( (i % 3 == 0) ? 65536 : (i % 3 == 1) ? 8192 : 4096 ))
		fl=$([ $((i % 5)) = 0 ] && echo fua)
		echo "$t,,,dev0,$off,$len,write,$fl,0,1,1,t,0,0"; t=$((t + 50000))
		echo "$t,,,dev0,$off,4096,read,,0,1,1,t,0,0"; t=$((t + 50000))
		[ $((i % 10)) = 9 ] && { echo "$t,,,dev0,0,0,flush,,0,1,1,t,0,0"; t=$((t + 50000)); }
	done
	echo "$t,,,dev0,$((100 * 4096)),$((64 * 4096)),discard,,0,1,1,t,0,0"; t=$((t + 50000))
	echo "$t,,,dev0,$((1000 * 4096)),$((64 * 4096)),write-zeroes,,0,1,1,t,0,0"; t=$((t + 50000))
	echo "$t,,,dev0,$((1010 * 4096)),4096,write,,0,1,1,t,0,0"; t=$((t + 50000))
	echo "$t,,,dev0,$((110 * 4096)),8192,write,,0,1,1,t,0,0"
} >"$d/ops.csv"
mktrace "$d/ops.csv" "$d/ops.ioreel"
nios=$(grep -vc '^#\|^queue_ns' "$d/ops.csv")

check_run() { # ENGINE TARGET LABEL [extra replay args]
	local eng=$1 tgt=$2 label=$3; shift 3
	"$IOREEL" replay "$d/ops.ioreel" --target "$tgt" --allow-writes -e "$eng" -q --write-data pattern \
		-o "$d/r.ioreel" --json "$@" >"$d/r.json" || fail "$label: replay with $eng failed"
	assert_eq "$(json_get "$d/r.json" "d['fidelity']['ios']")" "$nios" "$label/$eng: I/Os done"
	assert_eq "$(json_get "$d/r.json" "d['fidelity']['errors']")" 0 "$label/$eng: errors"
	sync
	verify_image "$d/r.ioreel" "$tgt"
	# the result trace: same ops at the same offsets, each with deadline <= submit <= complete
	result_csv "$d/r.ioreel" | python3 -c '
import csv, sys
want = sorted((r["op"], int(r["offset"]), int(r["length"])) for r in csv.DictReader(
    l for l in open(sys.argv[1]) if not l.startswith("#")))
rows = list(csv.DictReader(l for l in sys.stdin if not l.startswith("#")))
got = sorted((r["op"], int(r["offset"]), int(r["length"])) for r in rows)
assert got == want, "ops differ: %s" % [x for x in got if x not in want][:5]
for r in rows:
    q, i, c = int(r["queue_ns"]), int(r["issue_ns"]), int(r["complete_ns"])
    assert q <= i <= c, r
print("result trace: %d I/Os as in the trace" % len(rows))
' "$d/ops.csv" || fail "$label/$eng: result trace differs from the trace"
	echo "ok: $label with $eng"
}

z=$(make_zram 64)
for eng in io_uring libaio psync; do
	blkdiscard "$z" 2>/dev/null
	check_run "$eng" "$z" zram
done
blkdiscard "$z"
check_run io_uring "$z" zram-buffered --buffered

# default write data is random (as fio writes): zram cannot compress it, and no sector carries
# the verification pattern
blkdiscard "$z"
"$IOREEL" replay "$d/ops.ioreel" --target "$z" --allow-writes -q >/dev/null 2>&1 ||
	fail "replay with random write data failed"
read -r orig compr _ <"/sys/block/$(basename "$z")/mm_stat"
echo "random write data: zram holds $orig bytes compressed to $compr"
[ "$orig" -gt 0 ] && [ "$compr" -ge $((orig * 9 / 10)) ] ||
	fail "default write data compressed from $orig to $compr bytes: not random"
! grep -qa IOERELRW <(head -c 8M "$z") || fail "default write data carries the verification pattern"

# the null engine issues nothing: all I/Os accounted, the device untouched
blkdiscard "$z"
"$IOREEL" replay "$d/ops.ioreel" --target "$z" --allow-writes -e null -q --json >"$d/n.json" ||
	fail "null engine replay failed"
assert_eq "$(json_get "$d/n.json" "d['fidelity']['ios']")" "$nios" "null: I/Os"
[ "$(head -c 8M "$z" | tr -d '\0' | wc -c)" = 0 ] || fail "null engine wrote to $z"

# files on each filesystem, created and laid out by --size
for fs in ext4 xfs btrfs; do
	command -v "mkfs.$fs" >/dev/null || skip "needs mkfs.$fs (make deps)"
	loop=$(make_loop 400)
	mnt=$(make_fs "$fs" "$loop")
	f=$mnt/target.img
	"$IOREEL" replay "$d/ops.ioreel" --target "$f" --size 20M --allow-writes -q --write-data pattern -o "$d/r.ioreel" \
		--json >"$d/r.json" || fail "$fs: replay on a new file failed"
	assert_eq "$(stat -c %s "$f")" $((20 << 20)) "$fs: --size made the file"
	verify_image "$d/r.ioreel" "$f"
	# untouched blocks hold the lay-out pattern: reads hit real blocks
	python3 -c '
import struct, sys
f = open(sys.argv[1], "rb"); f.seek(19 << 20); b = f.read(512)
assert b[:16] == struct.pack("<Q", 19 << 20) + struct.pack("<Q", 0x4c4c4946454f4949), b[:16]
' "$f" || fail "$fs: --size did not lay out data"
	for eng in libaio psync; do check_run "$eng" "$f" "$fs"; done
	echo "ok: $fs"
done
echo PASS
