#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Recording a partition of a loop device (losetup -P + sfdisk): offsets are relative to the
# partition (what fio wrote on /dev/loopNp1), I/O on the other partition is not recorded,
# and the device table has the partition's name and size. Both levels. A trace written on a
# recorded partition or disk is said to hold its own writes.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"
need_cmd sfdisk losetup

dir=$(scratch_dir)
img=$(mktemp "${TMPDIR:-/tmp}/ioreel-loop.XXXXXX")
truncate -s 192M "$img"
printf 'label: dos\nstart=2048, size=131072\nstart=133120, size=131072\n' |
	sfdisk -q "$img" >/dev/null || fail "sfdisk failed"
dev=$(losetup -f --show -P --direct-io=on "$img") || fail "losetup -P failed"
cleanup_push "losetup -d '$dev'; rm -f '$img'"
ln=$(basename "$dev")
# The kernel may scan the table after losetup returns; partx asks again. Without udev there
# may be no /dev nodes for the partitions: make our own from sysfs, in the scratch dir.
for ((i = 0; i < 50; i++)); do
	[ -e /sys/block/$ln/${ln}p2/dev ] && break
	partx -a "$dev" >/dev/null 2>&1
	sleep 0.1
done
[ -e /sys/block/$ln/${ln}p2/dev ] || fail "partitions of $dev did not appear in sysfs"
for p in 1 2; do
	IFS=: read -r ma mi <"/sys/block/$ln/${ln}p$p/dev"
	mknod "$dir/${ln}p$p" b "$ma" "$mi" || fail "mknod ${ln}p$p"
done
p1=$dir/${ln}p1 p2=$dir/${ln}p2
name=${ln}p1

for level in bio rq; do
	rec_start "$dir/$level.ioreel" -d "$p1" --level "$level"
	fio --name=p2 --filename="$p2" --direct=1 --ioengine=libaio --rw=randwrite --bs=4k \
		--iodepth=4 --io_size=2M >/dev/null &
	other=$!
	fio --name=p1 --filename="$p1" --direct=1 --ioengine=libaio --rw=randrw --bs=8k \
		--iodepth=4 --io_size=4M --write_iolog="$dir/$level.iolog" >/dev/null ||
		fail "fio on $p1 failed"
	wait $other || fail "fio on $p2 failed"
	rec_stop || fail "ioreel record exited $?"
	trace_csv "$dir/$level.ioreel" >"$dir/$level.csv" || fail "cannot export"
	n=$(tail -n +2 "$dir/$level.csv" | grep -vc ",$name,")
	assert_eq "$n" 0 "I/Os of other devices in the $level trace"
	if [ $level = bio ]; then
		compare_iolog "$dir/$level.iolog" "$dir/$level.csv" "$name" || fail "bio level differs"
	else
		python3 - "$dir/$level.csv" <<'PY' || fail "rq level offsets outside the partition"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
bad = [r for r in rows if int(r["offset"]) + int(r["length"]) > 64 << 20]
print(f"{len(rows)} requests, {len(bad)} outside the 64 MiB partition")
sys.exit(1 if bad or not rows else 0)
PY
	fi
	grep -q "\"name\":\"$name\".*\"size\":67108864" "$dir/$level.ioreel.json" ||
		fail "device table: $(cat "$dir/$level.ioreel.json")"
done

# The trace written on a filesystem of a recorded device (the partition, or the disk holding
# it): its own writeback goes into it, which the recorder says; on the other partition, not.
mkfs.ext4 -q -F "$p2" >/dev/null 2>&1 || fail "mkfs.ext4 $p2"
mkdir "$dir/mnt"
mount "$p2" "$dir/mnt" || fail "mount $p2"
cleanup_push "umount -l '$dir/mnt'"
for d in "$dev" "$p2" "$p1"; do
	"$IOREEL" record -d "$d" -o "$dir/mnt/self.ioreel" -q --duration 0.5 2>"$dir/self.err" ||
		fail "record -d $d onto its own filesystem: $(cat "$dir/self.err")"
	err=$(cat "$dir/self.err")
	if [ "$d" = "$p1" ]; then
		grep -q "a recorded device" <<<"$err" && fail "warned for $p1: $err"
	else
		grep -q "self.ioreel is on $(basename "$d"), a recorded device: the writeback of" \
			<<<"$err" || fail "record -d $d: its own writeback not named: $err"
	fi
done
echo PASS
