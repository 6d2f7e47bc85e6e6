#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# tests/setups.sh: btrfs raid1, raid10, raid5 and raid6 across four loop devices really carry
# that profile for data and metadata (btrfs filesystem df), take O_DIRECT writes, and leave
# nothing behind.
# timeout: 180
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../setups.sh"
need_root
need_cmd losetup mkfs.btrfs btrfs
grep -qw btrfs /proc/filesystems || modprobe btrfs 2>/dev/null
grep -qw btrfs /proc/filesystems || skip_kernel "no btrfs in /proc/filesystems"

for prof in raid1 raid10 raid5 raid6; do
	dir=$SETUPS_DIR
	setup_btrfs_raid $prof 256 >/dev/null
	assert_eq "${#SETUP_DEVS[@]}" 4 "$prof member count"
	mountpoint -q "$SETUP_MNT" || fail "$prof not mounted at $SETUP_MNT"
	dd if=/dev/urandom of="$SETUP_MNT/data" bs=1M count=32 oflag=direct status=none ||
		fail "O_DIRECT write on btrfs $prof"
	sync
	df=$(btrfs filesystem df "$SETUP_MNT") || fail "btrfs filesystem df $SETUP_MNT"
	want=${prof^^}
	grep -q "^Data, $want:" <<<"$df" || fail "btrfs $prof: data profile is not $want: $df"
	grep -q "^Metadata, ${SETUP_MPROFILE^^}:" <<<"$df" ||
		fail "btrfs $prof: metadata profile is not ${SETUP_MPROFILE^^}: $df"
	ndev=$(btrfs filesystem show "$SETUP_MNT" | grep -c 'devid')
	assert_eq "$ndev" 4 "btrfs $prof devices"
	echo "ok: btrfs $prof (metadata ${SETUP_MPROFILE}) on ${SETUP_DEVS[*]}"
	setups_teardown_dir "$dir"
	setups_assert_gone "$dir"
	# A fresh state directory for the next profile (the old one is gone).
	SETUPS_DIR=
	_setups_init
done
