#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ioreel study --resume after a crash tears down the candidate left built only where its
# devices still hold what the build made: a reboot renames disks (/dev/sdb is another disk
# after it), and the teardown wiped, and the run then rebuilt on, a user's filesystem that had
# come to sit at the plan's device name. Here a loop device is reattached over a user's ext4
# image after the study was killed: --resume refuses (exit 1), saying why and what to do, and
# the user's filesystem is as it was; with the study's own disk back at the name, --resume
# tears down and finishes as before.
# timeout: 120
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd mkfs.ext4 wipefs blkid losetup
d=$(scratch_dir)
dev=$(make_loop 128)
ours=$(losetup -n -O BACK-FILE "$dev" | sed 's/ *$//')
[ -f "$ours" ] || fail "cannot tell the file under $dev"
printf '[study]\nrepeats=1\nruntime=3s\nsize=16M\n\n[cand]\ndevices=%s\nfs=ext4\n' "$dev" \
	>"$d/p.ini"
printf '[w]\npreset=4k-randread\n' >>"$d/p.ini"
res=$d/p.results
cleanup_push "umount -l '$res/mnt/cand' 2>/dev/null"

"$IOREEL" study "$d/p.ini" --allow-writes -q >/dev/null 2>"$d/err1" &
pid=$!
cleanup_kill "$pid"
for ((i = 0; i < 600; i++)); do
	grep -q ' replay .*cells/cand/' "$res/log" 2>/dev/null && break
	kill -0 $pid 2>/dev/null || { cat "$d/err1"; fail "the study ended before it was killed"; }
	sleep 0.05
done
[ "$i" -lt 600 ] || fail "the study did not reach its cell in 30 s"
kill -9 $pid
wait $pid 2>/dev/null
grep -q "^made cand 0 " "$res/state" ||
	fail "the state names no device the build made: $(cat "$res/state")"
# the "reboot": nothing mounted, and the name now a user's disk with a filesystem
umount "$res/mnt/cand" || fail "the killed study's candidate was not mounted"
user=$(mktemp "${TMPDIR:-/tmp}/ioreel-user.XXXXXX")
cleanup_push "rm -f '$user'"
truncate -s 128M "$user"
mkfs.ext4 -q -F "$user" || fail "mkfs.ext4 $user"
uuid=$(blkid -p -o value -s UUID "$user")
losetup -d "$dev" || fail "losetup -d $dev"
losetup "$dev" "$user" || fail "losetup $dev $user"
rc=0
"$IOREEL" study "$d/p.ini" --allow-writes --resume -q >/dev/null 2>"$d/err2" || rc=$?
cat "$d/err2"
assert_eq "$rc" 1 "exit status of a --resume onto a renamed disk"
grep -q "candidate \[cand\] was left built by an earlier run, but $dev carries a ext4 signature \
UUID $uuid that the study did not leave there" "$d/err2" || fail "no message naming the disk"
grep -q "wipe it by hand (wipefs -a $dev) and --resume again" "$d/err2" || fail "no way out said"
assert_eq "$(blkid -p -o value -s UUID "$dev")" "$uuid" "the user's filesystem after --resume"
# the study's own disk back at the name: torn down, and the cell run again
losetup -d "$dev" && losetup "$dev" "$ours" || fail "cannot put $ours back under $dev"
"$IOREEL" study "$d/p.ini" --allow-writes --resume -q >/dev/null 2>"$d/err3" ||
	fail "--resume with the study's disk back: $(cat "$d/err3")"
grep -q "candidate \[cand\] was left built by an earlier run: tearing it down" "$d/err3" ||
	fail "the leftover was not torn down: $(cat "$d/err3")"
assert_eq "$(grep -c '^done ' "$res/state")" 1 "cells done after the resume"
echo ok
