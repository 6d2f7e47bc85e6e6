#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# fio on our own zram (bio-based: recorded at bio level by --level auto) while recording:
# the trace holds exactly the reads, writes and discards fio issued, nothing dropped, and
# --level rq is refused with a clear message (zram has no request queue).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"

dir=$(scratch_dir)
dev=$(make_zram 256)
name=$(basename "$dev")

rec_start "$dir/z.ioreel" -d "$dev"
grep -q "$name .* at bio level" "$dir/z.ioreel.err" || fail "zram not at bio level: $(cat "$dir/z.ioreel.err")"
fio_zram_mix "$dev" "$dir/all.iolog" 64M
rec_stop || fail "ioreel record exited $?"
trace_csv "$dir/z.ioreel" >"$dir/z.csv" || fail "cannot export the trace"
compare_iolog "$dir/all.iolog" "$dir/z.csv" "$name" || fail "trace differs from fio's I/O"
assert_eq "$(json_get "$dir/z.ioreel.json" dropped)" 0 "dropped I/Os"
n=$(grep -c ',discard,' "$dir/z.csv")
[ "$n" -eq 128 ] || fail "expected 128 discards, found $n"

# A time-ordered trace: queue times never go backwards.
python3 - "$dir/z.csv" <<'PY' || fail "trace not ordered by queue time"
import csv, sys
t = [int(r["queue_ns"]) for r in csv.DictReader(open(sys.argv[1]))]
sys.exit(0 if t == sorted(t) else 1)
PY

"$IOREEL" record -d "$dev" --level rq -o "$dir/bad.ioreel" 2>"$dir/bad.err"
rc=$?
assert_eq "$rc" 1 "exit status of --level rq on zram"
grep -q "bio-based" "$dir/bad.err" || fail "unclear message: $(cat "$dir/bad.err")"
echo PASS
