#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# No verb writes an output onto a block device (util/outfile.h): `-o /dev/sdb` is a slip of
# `-d /dev/sdb` far more often than a wish, and it wrote a trace over the disk's first blocks
# (record even over the device it recorded). Each refusal names the device and exits non-zero;
# the device's data stays as it was. A character device (/dev/null) is still written in place.
. "$(dirname "$0")/../lib.sh"
need_root
d=$(scratch_dir)
cd "$d" || fail "cd $d"
dev=$(make_loop 16)
src=$(make_loop 16)
head -c 1M /dev/urandom >data
dd if=data of="$dev" bs=1M oflag=direct status=none || fail "cannot fill $dev"
ln -s "$dev" link
"$IOREEL" synth --rw randrw --bs 4k --size 1m -o x.ioreel >/dev/null || fail "synth"
printf '[j]\nioengine=filecreate\nnrfiles=2\nfilesize=4k\n' >f.fio
"$IOREEL" synth --fio-job f.fio -o f.ioreel >/dev/null || fail "synth of a file-level trace"

refused() { # WANT_RC ARGS...
	local want=$1; shift
	"$IOREEL" "$@" >/dev/null 2>err
	local rc=$?
	[ $rc = "$want" ] || fail "ioreel $* exited $rc, expected $want: $(cat err)"
	grep -q "block device: an output goes to a file" err ||
		fail "ioreel $*: message lacks why: $(cat err)"
	cmp -s data <(head -c 1M "$dev") || fail "ioreel $* wrote on $dev"
}
refused 1 convert x.ioreel "$dev" --to csv
refused 1 convert x.ioreel "$dev" --to ioreel
refused 1 convert x.ioreel link --to json
refused 1 convert f.ioreel "$dev" --to ioreel
refused 1 convert f.ioreel "$dev" --to csv
refused 1 synth --rw read --size 1m -o "$dev"
refused 1 synth --fio-job f.fio -o "$dev"
refused 1 analyze x.ioreel --html "$dev"
refused 2 replay x.ioreel --target "$src" --engine null -q -o "$dev"
if [ -e /sys/kernel/btf/vmlinux ]; then
	refused 1 record -d "$src" -o "$dev" --duration 1
	refused 1 record -d "$dev" -o "$dev" --duration 1
fi
# a character device is an output as before
"$IOREEL" convert x.ioreel /dev/null --to csv >/dev/null || fail "convert to /dev/null"
"$IOREEL" synth --rw read --size 1m -o /dev/null >/dev/null || fail "synth -o /dev/null"
echo ok
