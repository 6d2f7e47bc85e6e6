#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# tests/setups.sh: setup_zram hot-adds a zram device of our own (never zram0), sized as asked,
# takes O_DIRECT writes, and is hot-removed by the teardown.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../setups.sh"
need_root

dir=$SETUPS_DIR
dev=$(setup_zram 64)
[ -b "$dev" ] || fail "setup_zram gave '$dev'"
[ "$dev" != /dev/zram0 ] || fail "setup_zram handed out zram0, which others use"
id=${dev#/dev/zram}
assert_eq "$(blockdev --getsize64 "$dev")" $((64 << 20)) "zram size"
dd if=/dev/urandom of="$dev" bs=1M count=8 oflag=direct status=none || fail "O_DIRECT write to $dev"
cmp -n $((8 << 20)) "$dev" "$dev" || fail "read back"
setups_teardown_dir "$dir"
setups_assert_gone "$dir" "$id"
echo "ok: $dev created and removed"
