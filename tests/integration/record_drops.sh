#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Drops are counted exactly: with ring buffers far too small for the load (one page per CPU),
# the recorder loses I/Os, and recorded + dropped equals the I/Os fio issued, in --json and in
# the trace's stats (ioreel info).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"

dir=$(scratch_dir)
dev=$(make_zram 128)
name=$(basename "$dev")

rec_start "$dir/d.ioreel" -d "$dev" --ring-size 4k
# A quiet machine drains even one page in time: the reader is stopped for all of fio's run, so
# the rings surely overflow (a stop timed with sleeps missed fio when zram finished first). The
# programs keep running in the kernel, counting what they cannot store.
stopped_at=$(date +%s%N)
kill -STOP "$REC_PID"
cleanup_kill "$REC_PID" CONT
fio --name=d --filename="$dev" --direct=1 --ioengine=libaio --rw=randread --bs=4k \
	--iodepth=32 --size=64M --io_size=256M --write_iolog="$dir/d.iolog" >/dev/null ||
	{ kill -CONT "$REC_PID"; fail "fio failed"; }
kill -CONT "$REC_PID"
stopped_ms=$((($(date +%s%N) - stopped_at) / 1000000))
rec_stop || fail "ioreel record exited $?"
issued=$(grep -c " read " "$dir/d.iolog")
events=$(json_get "$dir/d.ioreel.json" events)
dropped=$(json_get "$dir/d.ioreel.json" dropped)
reserve=$(json_get "$dir/d.ioreel.json" dropped_reserve)
echo "fio issued $issued reads; recorded $events, dropped $dropped ($reserve with a full ring)"
[ "$dropped" -gt 0 ] || fail "a one-page ring kept up with $issued I/Os: the test proves nothing"
assert_eq "$((events + dropped))" "$issued" "recorded + dropped"
# The overflow is explained: how long the rings went unread (at least the stop; stopped_ms also
# counts the forks of date and kill around it, slow on a loaded host: half of it is asserted),
# and what to do.
gap=$(json_get "$dir/d.ioreel.json" drain_gap_max_ms)
echo "the drain thread stopped for $stopped_ms ms; longest gap between passes $gap ms"
python3 -c 'import sys; sys.exit(float(sys.argv[1]) < int(sys.argv[2]) / 2)' "$gap" "$stopped_ms" ||
	fail "drain_gap_max_ms $gap is under half the $stopped_ms ms the drain thread was stopped"
grep -q "$reserve I/Os were dropped because a CPU's ring was full.*larger --ring-size" \
	"$dir/d.ioreel.err" || fail "no warning naming the overflow: $(cat "$dir/d.ioreel.err")"
"$IOREEL" info "$dir/d.ioreel" --json >"$dir/d.info" || fail "ioreel info"
assert_eq "$(json_get "$dir/d.info" events)" "$events" "events in the trace"
assert_eq "$(json_get "$dir/d.info" dropped)" "$dropped" "dropped in the trace's stats"
echo PASS
