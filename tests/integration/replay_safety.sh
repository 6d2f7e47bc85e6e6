#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Replay's safety rules and its messages before any I/O: no writes without --allow-writes,
# no writes to a device carrying a filesystem signature without --force, nor to one in use
# (mounted, a partition of it mounted, another replay writing there), --force or not, a
# wrong map, a missing target, a trace larger than its target (--offsets strict/wrap/scale),
# never writes to a device that holds the trace being replayed.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
need_root
need_cmd python3 mkfs.ext4 wipefs sfdisk partx
d=$(scratch_dir)
{
	echo "$CSV_HEADER"
	for i in $(seq 0 19); do
		echo "$((i * 100000)),,,dev0,$((i * 65536)),4096,write,,0,1,1,t,0,0"
		echo "$((i * 100000 + 50000)),,,dev0,$((i * 65536)),4096,read,,0,1,1,t,0,0"
	done
} >"$d/w.csv"
mktrace "$d/w.csv" "$d/w.ioreel"
z=$(make_zram 32)
nonzero() { head -c 4M "$1" | tr -d '\0' | wc -c; }

# 1. without --allow-writes: writes skipped, said so, device untouched
"$IOREEL" replay "$d/w.ioreel" --target "$z" -q >"$d/out" 2>"$d/err" || fail "read-only replay failed"
grep -q "skipping 20 writes" "$d/err" || fail "no word about skipped writes: $(cat "$d/err")"
assert_eq "$(nonzero "$z")" 0 "device written without --allow-writes"
# --writes-as-reads: 40 reads in the result
"$IOREEL" replay "$d/w.ioreel" --target "$z" -q --writes-as-reads -o "$d/r.ioreel" >/dev/null ||
	fail "--writes-as-reads failed"
assert_eq "$(result_csv "$d/r.ioreel" | grep -c ',read,')" 40 "writes as reads"
assert_eq "$(nonzero "$z")" 0 "device written with --writes-as-reads"

# 2. a filesystem signature refuses writes (before any I/O), --force overrides
mkfs.ext4 -q -F "$z" >/dev/null 2>&1 || fail "mkfs.ext4 $z"
sum=$(md5sum <"$z")
assert_status 1 "$IOREEL" replay "$d/w.ioreel" --target "$z" --allow-writes -q 2>"$d/err" >/dev/null
grep -q "signature (ext4)" "$d/err" || fail "no signature message: $(cat "$d/err")"
assert_eq "$(md5sum <"$z")" "$sum" "device changed although refused"
"$IOREEL" replay "$d/w.ioreel" --target "$z" --allow-writes --force --write-data pattern -q -o "$d/r.ioreel" >/dev/null ||
	fail "--force did not override the signature"
verify_image "$d/r.ioreel" "$z"
wipefs -qa "$z"

# 3. a mounted device (loop with ext4) is refused even without signature checks passing
loop=$(make_loop 64)
mnt=$(make_fs ext4 "$loop")
assert_status 1 "$IOREEL" replay "$d/w.ioreel" --target "$loop" --allow-writes -q 2>"$d/err" >/dev/null
grep -qi "mounted\|in use" "$d/err" || fail "no mounted message: $(cat "$d/err")"
# reading a mounted device is allowed
"$IOREEL" replay "$d/w.ioreel" --target "$loop" -q >/dev/null 2>&1 || fail "read replay of a mounted device refused"

# 3b. a target that holds the trace being replayed is refused for writes even with --force:
# the trace on the target's filesystem, and a loop device over the trace file itself
cp "$d/w.ioreel" "$mnt/w.ioreel" || fail "cp to $mnt"
sum=$(md5sum <"$mnt/w.ioreel")
assert_status 2 "$IOREEL" replay "$mnt/w.ioreel" --target "$loop" --allow-writes --force -q 2>"$d/err" >/dev/null
grep -q "target $loop holds the trace being replayed, $mnt/w.ioreel (the file is on its filesystem)" "$d/err" ||
	fail "trace on the target's filesystem: $(cat "$d/err")"
assert_eq "$(md5sum <"$mnt/w.ioreel")" "$sum" "the trace on the target changed"
# a trace of reads only onto it, with --prefill: the prefill writes, so it is refused too
{
	echo "$CSV_HEADER"
	for i in $(seq 0 19); do echo "$((i * 100000)),,,dev0,$((i * 65536)),4096,read,,0,1,1,t,0,0"; done
} >"$d/r.csv"
mktrace "$d/r.csv" "$mnt/r.ioreel"
sum=$(md5sum <"$mnt/r.ioreel")
"$IOREEL" replay "$mnt/r.ioreel" --target "$loop" --prefill --allow-writes --force -q 2>"$d/err" >/dev/null &&
	fail "a prefill onto the device holding the trace ran"
grep -q "target $loop holds the trace being replayed" "$d/err" ||
	fail "prefill onto the trace's device: $(cat "$d/err")"
assert_eq "$(md5sum <"$mnt/r.ioreel")" "$sum" "the trace on the target changed (prefill)"
over=$(losetup -f --show "$d/w.ioreel") || fail "losetup over the trace"
cleanup_push "losetup -d '$over'"
sum=$(md5sum <"$d/w.ioreel")
assert_status 2 "$IOREEL" replay "$d/w.ioreel" --target "$over" --allow-writes --force -q 2>"$d/err" >/dev/null
grep -q "it is a loop device over the file" "$d/err" || fail "loop over the trace: $(cat "$d/err")"
assert_eq "$(md5sum <"$d/w.ioreel")" "$sum" "the trace under the loop device changed"

# 4. map and target errors, all before any I/O
assert_status 1 "$IOREEL" replay "$d/w.ioreel" --map nosuch="$z" -q 2>"$d/err" >/dev/null
grep -q "no device nosuch (it has: dev0)" "$d/err" || fail "wrong-map message: $(cat "$d/err")"
assert_status 1 "$IOREEL" replay "$d/w.ioreel" --target "$d/missing.img" -q 2>"$d/err" >/dev/null
grep -q "give --size" "$d/err" || fail "missing-target message: $(cat "$d/err")"
# a device name with a slip and --size: a regular file was made in /dev (in memory), and kept
# udev from making the device's node there later
if [ "$(stat -f -c %T /dev)" = tmpfs ] && [ "$(stat -c %d /dev)" != "$(stat -c %d /)" ]; then
	nodev=/dev/ioreel-no-such-disk.$$
	cleanup_push "rm -f '$nodev'"
	assert_status 1 "$IOREEL" replay "$d/w.ioreel" --target "$nodev" --size 1M --allow-writes \
		-q 2>"$d/err" >/dev/null
	grep -q "target $nodev: no such device, and a file of --size there would be made in /dev" \
		"$d/err" || fail "a missing device with --size: $(cat "$d/err")"
	[ ! -e "$nodev" ] || fail "a file was made in /dev: $(ls -l "$nodev")"
fi
assert_status 2 "$IOREEL" replay "$d/w.ioreel" -q 2>/dev/null
assert_status 2 "$IOREEL" replay "$d/w.ioreel" --target "$z" --mode nope 2>/dev/null

# 5. a trace reaching beyond its target: strict refuses, wrap and scale stay inside
{
	echo "$CSV_HEADER"
	echo "1000,,,dev0,$((100 << 20)),4096,write,,0,1,1,t,0,0"
	echo "2000,,,dev0,$((50 << 20)),8192,write,,0,1,1,t,0,0"
	echo "3000,,,dev0,$((10 << 20)),4096,write,,0,1,1,t,0,0"
} >"$d/big.csv"
mktrace "$d/big.csv" "$d/big.ioreel"
blkdiscard "$z"
assert_status 1 "$IOREEL" replay "$d/big.ioreel" --target "$z" --allow-writes --offsets strict -q \
	2>"$d/err" >/dev/null
grep -q "larger than target" "$d/err" || fail "strict message: $(cat "$d/err")"
assert_eq "$(nonzero "$z")" 0 "strict refusal wrote"
for how in wrap scale; do
	blkdiscard "$z"
	"$IOREEL" replay "$d/big.ioreel" --target "$z" --allow-writes --write-data pattern --offsets $how -q \
		-o "$d/r.ioreel" 2>"$d/err" >/dev/null || fail "--offsets $how failed"
	grep -q "larger than target" "$d/err" || fail "$how: no warning"
	offs=$(result_csv "$d/r.ioreel" | awk -F, '$7 == "write" { print $5 }' | sort -n | tr '\n' ' ')
	case $how in
	wrap) assert_eq "$offs" "$((4 << 20)) $((10 << 20)) $((18 << 20)) " "wrapped offsets" ;;
	scale) # times 32 MiB / (100 MiB + 4 KiB), aligned down to the logical block size
		want=$(python3 -c "
s=32<<20; src=(100<<20)+4096; b=$(blockdev --getss "$z")
print(' '.join(str(int(o*s/src)//b*b) for o in sorted([100<<20, 50<<20, 10<<20])) + ' ')")
		assert_eq "$offs" "$want" "scaled offsets" ;;
	esac
	verify_image "$d/r.ioreel" "$z"
done

# 6. two devices mapped to two targets
{
	echo "$CSV_HEADER"
	echo "1000,,,alpha,4096,4096,write,,0,1,1,t,0,0"
	echo "2000,,,beta,8192,4096,write,,0,1,1,t,0,0"
} >"$d/two.csv"
mktrace "$d/two.csv" "$d/two.ioreel"
blkdiscard "$z"
assert_status 1 "$IOREEL" replay "$d/two.ioreel" --map alpha="$z" --allow-writes -q 2>"$d/err" >/dev/null
grep -q "trace device beta has no target" "$d/err" || fail "unmapped device message: $(cat "$d/err")"
"$IOREEL" replay "$d/two.ioreel" --map alpha="$z" --map beta="$d/b.img" --size 1M --allow-writes --write-data pattern \
	-q -o "$d/r.ioreel" >/dev/null || fail "two-device replay failed"
verify_image "$d/r.ioreel" "$z" "$(basename "$z")"
verify_image "$d/r.ioreel" "$d/b.img" b.img
assert_eq "$(result_csv "$d/r.ioreel" | awk -F, '$7 == "write" { print $4, $5 }' | sort | tr '\n' ' ')" \
	"$(printf '%s\n' "$(basename "$z") 4096" "b.img 8192" | sort | tr '\n' ' ')" \
	"each device's write on its target"
# both onto one device: the second exclusive open of it failed (EBUSY, the first held it)
blkdiscard "$z"
"$IOREEL" replay "$d/two.ioreel" --map alpha="$z" --map beta="$z" --allow-writes \
	--write-data pattern -q -o "$d/r.ioreel" >/dev/null 2>"$d/err" ||
	fail "two devices onto one: $(cat "$d/err")"
verify_image "$d/r.ioreel" "$z" "$(basename "$z")"

# 7. --force covers a signature (data that may go), never a device in use: it wrote under a
# mounted filesystem, onto a disk whose partition was mounted, and beside another replay
m7=$(make_loop 64)
mnt7=$(make_fs ext4 "$m7")
mount -o remount,ro "$mnt7" || fail "remount $mnt7 read-only"
sum=$(md5sum <"$m7")
assert_status 1 "$IOREEL" replay "$d/w.ioreel" --target "$m7" --allow-writes --force -q \
	2>"$d/err" >/dev/null
grep -q "refusing to write to $m7: it (or a partition of it) is mounted on $mnt7; \
unmount it first (--force or not" "$d/err" || fail "--force onto a mounted device: $(cat "$d/err")"
assert_eq "$(md5sum <"$m7")" "$sum" "the mounted device after a refused --force replay"
# the file under it as the target: --force wrote into the image of the mounted filesystem
img7=$(losetup -n -O BACK-FILE "$m7" | sed 's/ *$//')
[ -f "$img7" ] || fail "cannot tell the file under $m7"
assert_status 1 "$IOREEL" replay "$d/w.ioreel" --target "$img7" --allow-writes --force -q \
	2>"$d/err" >/dev/null
grep -q "target $img7 is the file under $m7: refusing to write to $m7: it (or a partition of \
it) is mounted on $mnt7" "$d/err" ||
	fail "--force onto the file under a mounted loop: $(cat "$d/err")"
assert_eq "$(md5sum <"$m7")" "$sum" "the mounted device after a --force replay onto its file"
# the result trace on the mounted filesystem of the target: refused as well
assert_status 1 "$IOREEL" replay "$d/w.ioreel" --target "$m7" --allow-writes --force -q \
	-o "$mnt7/r.ioreel" 2>"$d/err" >/dev/null
assert_eq "$(md5sum <"$m7")" "$sum" "the mounted device (result trace on it)"
# a disk whose first partition is mounted: the disk refused, --force or not
img=$(mktemp "${TMPDIR:-/tmp}/ioreel-loop.XXXXXX")
truncate -s 64M "$img"
printf 'label: dos\nstart=2048, size=40960\nstart=43008, size=40960\n' |
	sfdisk -q "$img" >/dev/null || fail "sfdisk"
disk=$(losetup -f --show -P "$img") || fail "losetup -P"
cleanup_push "losetup -d '$disk'; rm -f '$img'"
ln=$(basename "$disk")
for ((i = 0; i < 50; i++)); do
	[ -e "/sys/block/$ln/${ln}p1/dev" ] && break
	partx -a "$disk" >/dev/null 2>&1
	sleep 0.1
done
[ -e "/sys/block/$ln/${ln}p1/dev" ] || fail "the partitions of $disk did not appear in sysfs"
IFS=: read -r ma mi <"/sys/block/$ln/${ln}p1/dev"
mknod "$d/p1" b "$ma" "$mi" || fail "mknod p1"
pmnt=$(make_fs ext4 "$d/p1")
mount -o remount,ro "$pmnt" || fail "remount $pmnt read-only"
sum=$(md5sum <"$disk")
assert_status 1 "$IOREEL" replay "$d/w.ioreel" --target "$disk" --allow-writes --force -q \
	2>"$d/err" >/dev/null
grep -q "refusing to write to $disk: it (or a partition of it) is mounted on $pmnt" "$d/err" ||
	fail "--force onto a disk with a mounted partition: $(cat "$d/err")"
assert_eq "$(md5sum <"$disk")" "$sum" "the disk with a mounted partition after --force"
# another replay writing there: refused, saying so
"$IOREEL" synth --rw randwrite --bs 4k --size 1m --runtime 3s --time-based \
	-o "$d/long.ioreel" >/dev/null || fail "synth"
blkdiscard "$z"
"$IOREEL" replay "$d/long.ioreel" --target "$z" --allow-writes --force -q >/dev/null 2>&1 &
first=$!
cleanup_kill "$first"
sleep 1
assert_status 1 "$IOREEL" replay "$d/w.ioreel" --target "$z" --allow-writes --force -q \
	2>"$d/err" >/dev/null
grep -q "another program holds it for itself: another replay" "$d/err" ||
	fail "a second replay onto a device being replayed onto: $(cat "$d/err")"
wait "$first" || fail "the first replay failed"
# one replay after another: the io_uring's registered files held the device's exclusive claim
# until a kernel worker freed the ring after the replay's exit, and every other replay failed
for i in 1 2 3 4 5 6; do
	"$IOREEL" replay "$d/w.ioreel" --target "$z" --allow-writes --force --engine io_uring -q \
		>/dev/null 2>"$d/err" || fail "replay $i of 6 in a row onto $z: $(cat "$d/err")"
done
# and after one killed (its ring torn down after its exit): the next waits for the claim
"$IOREEL" replay "$d/long.ioreel" --target "$z" --allow-writes --force -q >/dev/null 2>&1 &
first=$!
cleanup_kill "$first"
sleep 0.5
kill -KILL "$first"
wait "$first"
"$IOREEL" replay "$d/w.ioreel" --target "$z" --allow-writes --force -q >/dev/null 2>"$d/err" ||
	fail "a replay right after one was killed: $(cat "$d/err")"
echo PASS
