#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# blkdiscard on a loop device is recorded as discard, blkdiscard -z as write-zeroes, with the
# offsets and lengths asked for (bio level: before the block layer splits them).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"
need_cmd blkdiscard

dir=$(scratch_dir)
dev=$(make_loop 128)
name=$(basename "$dev")
[ "$(cat /sys/block/$name/queue/discard_max_bytes)" -gt 0 ] ||
	skip_kernel "$name does not support discard"

rec_start "$dir/d.ioreel" -d "$dev" --level bio
blkdiscard -o 1048576 -l 4194304 "$dev" || fail "blkdiscard failed"
blkdiscard -z -o 16777216 -l 2097152 "$dev" || fail "blkdiscard -z failed"
rec_stop || fail "ioreel record exited $?"
trace_csv "$dir/d.ioreel" >"$dir/d.csv" || fail "cannot export"
python3 - "$dir/d.csv" <<'PY' || fail "discard/write-zeroes not recorded as asked"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def cover(op):
    rs = sorted((int(r["offset"]), int(r["length"])) for r in rows if r["op"] == op)
    return (rs[0][0], sum(l for _, l in rs)) if rs else None
d, z = cover("discard"), cover("write-zeroes")
print("discard (start, bytes):", d, " write-zeroes:", z)
sys.exit(0 if d == (1048576, 4194304) and z == (16777216, 2097152) else 1)
PY
echo PASS
