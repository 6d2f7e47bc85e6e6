#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A replay's resident memory (peak RSS) and in-flight cap: 4 MiB writes at depth 1024 on a
# zram, and every trace given (default: make demo's recording, build/demo/trace.ioreel) replayed
# in its default mode onto a file. Replay once kept a buffer per slot, sized for the largest
# I/O: the demo's PostgreSQL trace (2 MiB writes) took over 1 GiB and had its cap lowered
# ("in-flight cap lowered from 1024 to 510"). Issue 27's goal: under 128 MiB, no cap lowered.
# Usage: bench/replay_memory.sh [TRACE...]. Never pass/fail.
. "$(dirname "$0")/../tests/lib.sh"
need_root
d=$(scratch_dir)

# report NAME JSON RSS_KIB STDERR
report() {
	python3 - "$@" <<'PY'
import json, sys
name, js, rss, err = sys.argv[1:5]
f = json.load(open(js))["fidelity"]
lowered = "lowered" in open(err).read()
print(f"{name}: peak RSS {int(open(rss).read().split()[-1]) // 1024} MiB, {f['ios']} I/Os, "
      f"in flight max {f['max_inflight']} of cap {f['inflight_cap']}"
      f"{', CAP LOWERED' if lowered else ''}, buffer waits {f.get('buffer_waits', 0)}")
PY
}

z=$(make_zram 4400)
"$IOREEL" synth --rw write --bs 4m --iodepth 1024 --size 4g --number-ios 1024 \
	-o "$d/w4m.ioreel" >/dev/null || fail "synth"
/usr/bin/time -f '%M' -o "$d/rss" "$IOREEL" replay "$d/w4m.ioreel" --target "$z" \
	--allow-writes --force -q --json >"$d/w4m.json" 2>"$d/err" || fail "replay: $(cat "$d/err")"
report "4 MiB writes, iodepth 1024, io_uring on zram" "$d/w4m.json" "$d/rss" "$d/err"

traces=("$@")
[ ${#traces[@]} -gt 0 ] || traces=("$TESTS_DIR/../build/demo/trace.ioreel")
for t in "${traces[@]}"; do
	if [ ! -f "$t" ]; then
		echo "$t: not there (make demo leaves its recording in build/demo/trace.ioreel)"
		continue
	fi
	size=$("$IOREEL" info "$t" --json | python3 -c 'import json,sys; j=json.load(sys.stdin); print(max([x.get("size_bytes") or 0 for x in j.get("devices",[])] + [1<<30]))')
	rm -f "$d/target.img"
	/usr/bin/time -f '%M' -o "$d/rss" "$IOREEL" replay "$t" --target "$d/target.img" \
		--size "$size" --allow-writes -q --json >"$d/t.json" 2>"$d/err" ||
		{ echo "$t: replay failed: $(tail -2 "$d/err")"; continue; }
	report "$(basename "$t") (default mode, io_uring, onto a file)" "$d/t.json" "$d/rss" "$d/err"
done
