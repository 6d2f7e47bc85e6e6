#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Every cause of a drop is named (issue 27 item 5): a block recording keeps its drop causes as
# the trace's counters (dropped_ring, dropped_inflight, dropped_stale, dropped_nested; they sum
# to dropped) and what is not a drop beside them (unfinished: I/Os written without a completion
# at the stop); `ioreel info` shows each cause on its dropped line and `info --json` each as a
# field; the recorder's last line names the causes of any drop. I/Os written without a completion
# time (ended unseen, unfinished) are on a line of their own, and in --json.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"

dir=$(scratch_dir)
dev=$(make_loop 64)
rec_start "$dir/t.ioreel" -d "$dev"
fio --name=causes --filename="$dev" --direct=1 --ioengine=libaio --rw=randrw --bs=16k \
	--iodepth=8 --io_size=8M >/dev/null || fail "fio on $dev failed"
rec_stop || fail "ioreel record exited $? ($(cat "$dir/t.ioreel.err"))"
dropped=$(json_get "$dir/t.ioreel.json" dropped)

"$IOREEL" info "$dir/t.ioreel" >"$dir/info.txt" || fail "info failed: $(cat "$dir/info.txt")"
cat "$dir/info.txt"
line=$(grep '^  dropped ' "$dir/info.txt") || fail "info has no dropped line"
for cause in "ring buffer" "in-flight table" stale nested; do
	[[ $line == *"$cause "[0-9]* ]] || fail "info's dropped line does not name '$cause': $line"
done
[[ $line == "  dropped    $dropped ("* ]] || fail "info says '$line', record said $dropped"
# I/Os written without a completion are not drops, but are named beside them
noend=$(( $(json_get "$dir/t.ioreel.json" ended_unseen) + $(json_get "$dir/t.ioreel.json" unfinished) ))
grep -q "^  no end     $noend written without a completion time (ended unseen [0-9]*, unfinished [0-9]*)$" \
	"$dir/info.txt" || fail "info's 'no end' line is missing or does not say $noend"

"$IOREEL" info --json "$dir/t.ioreel" >"$dir/info.json" || fail "info --json failed"
python3 - "$dir/info.json" "$dropped" <<'PY' || fail "info --json: causes missing or not summing to dropped"
import json, sys
j = json.load(open(sys.argv[1]))
causes = ("dropped_reserve", "dropped_inflight", "dropped_stale", "dropped_nested")
print({k: j.get(k) for k in ("dropped", "ended_unseen", "unfinished") + causes})
sys.exit(0 if all(isinstance(j.get(k), int) for k in causes + ("ended_unseen", "unfinished")) and
         sum(j[k] for k in causes) == j["dropped"] == int(sys.argv[2]) else 1)
PY
grep -q "^ioreel record: .* events, $dropped dropped" "$dir/t.ioreel.err" ||
	fail "record's last line: $(tail -1 "$dir/t.ioreel.err")"
echo PASS
