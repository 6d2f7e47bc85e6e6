#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# --realtime onto a loop device: replay says that the device's workers (kernel threads) wait
# behind its SCHED_FIFO scheduling thread, so the latencies are partly the replayer's (in dep
# mode onto a loop device the means came to x1.4-2.9 of the default's); a file-level replay
# too, when --root's filesystem is on a loop device. Not onto a file, not without --realtime,
# not in a mode without deadlines (afap). Nothing timed here.
# timeout: 120
. "$(dirname "$0")/../lib.sh"
need_root
d=$(scratch_dir)
"$IOREEL" synth --rw randread --bs 4k --size 16m --rate-iops 1000 --number-ios 100 \
	-o "$d/r.ioreel" >/dev/null || fail "synth failed"
loop=$(make_loop 32)
truncate -s 32M "$d/t.img"

said() { # target, mode, options...: whether replay warned about a loop device and --realtime
	local t=$1 m=$2
	shift 2
	"$IOREEL" replay "$d/r.ioreel" --target "$t" --mode "$m" -q "$@" >/dev/null 2>"$d/err" ||
		fail "replay onto $t ($m $*) failed: $(cat "$d/err")"
	if grep -q -- "--realtime with target $t, a loop device" "$d/err"; then
		echo yes
	else
		echo no
	fi
}
assert_eq "$(said "$loop" timed --realtime)" yes "no word about --realtime onto a loop device"
assert_eq "$(said "$loop" timed)" no "a word about --realtime without it"
assert_eq "$(said "$d/t.img" timed --realtime)" no "a word about a loop device onto a file"
assert_eq "$(said "$loop" afap --realtime)" no "a word about --realtime in afap (no deadlines)"

# File level: --root on a filesystem over a loop device, the same workers in the way.
need_cmd mkfs.ext4
craft=$BUILD/tests/tools/ftrace_craft
[ -x "$craft" ] || fail "$craft is not built (make check builds it)"
"$craft" "$d/f.ioreel" /data/a.dat || fail "ftrace_craft"
mnt=$(make_fs ext4 "$(make_loop 64)")
mkdir "$mnt/r" || fail "mkdir $mnt/r"
file_said() { # root, options...: whether a file-level replay warned about the loop device
	local root=$1
	shift
	"$IOREEL" replay "$d/f.ioreel" --root "$root" --allow-writes --force -q "$@" \
		>/dev/null 2>"$d/err" || fail "file replay onto $root ($*) failed: $(cat "$d/err")"
	if grep -q -- "--realtime with --root $root, on a loop device" "$d/err"; then
		echo yes
	else
		echo no
	fi
}
assert_eq "$(file_said "$mnt/r" --realtime)" yes "no word about --realtime onto a loop-backed fs"
assert_eq "$(file_said "$mnt/r")" no "a word about --realtime without it (file level)"
mkdir -p "$d/onfile"
assert_eq "$(file_said "$d/onfile" --realtime)" no "a word about a loop device off one"
echo "ok"
