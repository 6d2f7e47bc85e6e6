#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# tests/setups.sh: a run killed with SIGKILL leaves its loop devices, mounts and zram behind;
# setups_teardown_stale removes them, a loop device over a file on its mount too (as
# bench/predict.sh's image on the btrfs array), and never touches a live run's setups.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../setups.sh"
need_root
need_cmd losetup mkfs.ext4

scratch=$(scratch_dir)
# A live run (this process) with its own setup, which must survive.
mine=$(setup_raw_loop 32)

# The crashed run: builds setups, reports its state dir, then dies without cleaning up.
bash -c '
	. "$1/../lib.sh"; . "$1/../setups.sh"
	setup_fs_loop ext4 64 >/dev/null
	truncate -s 8M "$SETUP_MNT/inner.img" || exit 1
	inner=$(losetup -f --show "$SETUP_MNT/inner.img") || exit 1
	setup_raw_loop 32 >/dev/null
	z=$(setup_zram 16)
	echo "$SETUPS_DIR ${z#/dev/zram} $_CLEANUP_FILE $inner" >"$2/state"
	kill -KILL $$
' _ "$here" "$scratch"
read -r sdir zid cfile inner <"$scratch/state" || fail "the crashing child did not report its state"
cleanup_push "rm -f '$cfile'" # its lib.sh clean-up list, which its SIGKILL left behind
cleanup_push "losetup -d '$inner' 2>/dev/null || true"
[ -d "$sdir" ] || fail "crashed run's $sdir missing"
n=$(losetup -n -l -O BACK-FILE | grep -c "^$sdir/")
assert_eq "$n" 3 "loop devices left by the crashed run"
grep -q " $sdir/" /proc/mounts || fail "crashed run's mount missing"

setups_teardown_stale
setups_assert_gone "$sdir" "$zid"
! losetup "$inner" >/dev/null 2>&1 ||
	fail "the loop device over a file on its mount is left: $inner"
losetup "$mine" >/dev/null 2>&1 || fail "setups_teardown_stale removed a live run's $mine"
output_has "^$SETUPS_DIR/" losetup -n -l -O BACK-FILE "$mine" || fail "$mine is no longer ours"
echo "ok: crashed run's leftovers removed, live run's $mine kept"
