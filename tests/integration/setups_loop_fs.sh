#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# tests/setups.sh: a raw loop device and ext4/xfs on loop devices are created, take O_DIRECT
# writes, carry the filesystem asked for, and leave nothing behind after teardown (also when the
# setup was made inside $(...), where lib.sh-style cleanup_push would be lost).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../setups.sh"
need_root
need_cmd losetup mkfs.ext4 mkfs.xfs blkid

dir=$SETUPS_DIR

dev=$(setup_raw_loop 64)
[ -b "$dev" ] || fail "setup_raw_loop gave '$dev', not a block device"
size=$(blockdev --getsize64 "$dev")
assert_eq "$size" $((64 << 20)) "raw loop size"
dd if=/dev/urandom of="$dev" bs=1M count=4 oflag=direct status=none || fail "O_DIRECT write to $dev"

for fs in ext4 xfs; do
	# In a subshell on purpose: the teardown must still find it.
	read -r mnt fdev < <(setup_fs_loop $fs 300)
	[ -d "$mnt" ] && [ -b "$fdev" ] || fail "setup_fs_loop $fs printed '$mnt $fdev'"
	got=$(findmnt -n -o FSTYPE --target "$mnt")
	assert_eq "$got" "$fs" "filesystem mounted at $mnt"
	assert_eq "$(findmnt -n -o SOURCE --target "$mnt")" "$fdev" "device mounted at $mnt"
	dd if=/dev/zero of="$mnt/data" bs=1M count=8 oflag=direct status=none ||
		fail "O_DIRECT write on $fs at $mnt"
	assert_eq "$(stat -c %s "$mnt/data")" $((8 << 20)) "file size on $fs"
done

# Direct call (no subshell) sets the variables.
setup_fs_loop ext4 128 >/dev/null
[ -b "$SETUP_DEV" ] && mountpoint -q "$SETUP_MNT" || fail "SETUP_DEV/SETUP_MNT not set"

n=$(losetup -n -l -O BACK-FILE | grep -c "^$dir/")
assert_eq "$n" 4 "loop devices backed by $dir before teardown"

setups_teardown_dir "$dir"
setups_assert_gone "$dir"
# Idempotent: a second teardown (the EXIT trap's) is harmless.
setups_teardown_dir "$dir" || fail "second teardown failed"
echo "ok: raw loop, ext4, xfs created and torn down"
