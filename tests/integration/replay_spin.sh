#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# --spin, by function: the timed loop's scheduling thread spins, yielding the CPU
# (sched_yield), only inside the last --spin before each deadline, so --spin 0 makes no
# sched_yield at all (it sleeps to each deadline) and a long --spin makes many. --spin 0 once
# meant the 200 us default silently (10,728 yields for this trace). Counted by strace, which
# slows the replay and does not matter here: nothing is timed.
# timeout: 120
. "$(dirname "$0")/../lib.sh"
need_cmd strace
d=$(scratch_dir)
truncate -s 64M "$d/t.img"
# 1000 reads at 1000 IOPS: a deadline every millisecond for one second
"$IOREEL" synth --rw randread --bs 4k --size 64m --rate-iops 1000 --number-ios 1000 \
	-o "$d/r.ioreel" >/dev/null || fail "synth failed"

yields() { # spin: the sched_yield calls of a timed replay with it, every thread
	strace -f -qq -c -e trace=sched_yield -o "$d/st.txt" \
		"$IOREEL" replay "$d/r.ioreel" --engine null --target "$d/t.img" -q --spin "$1" \
		>/dev/null 2>"$d/err" || fail "replay --spin $1 failed: $(cat "$d/err")"
	awk '$NF == "sched_yield" { n = $(NF - 1) } END { print n + 0 }' "$d/st.txt"
}
n0=$(yields 0)
n2=$(yields 2ms)
echo "sched_yield calls: --spin 0: $n0, --spin 2ms: $n2"
assert_eq "$n0" 0 "--spin 0 yielded (it spun)"
[ "$n2" -ge 1000 ] || fail "--spin 2ms made $n2 sched_yield calls for 1000 deadlines (expected >= 1000)"
echo "ok"
