#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# --realtime onto a loop device: replay says that the device's workers (kernel threads) wait
# behind its SCHED_FIFO scheduling thread, so the latencies are partly the replayer's (in dep
# mode onto a loop device the means came to x1.4-2.9 of the default's). Not onto a file, not
# without --realtime, not in a mode without deadlines (afap). Nothing timed here.
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
echo "ok"
