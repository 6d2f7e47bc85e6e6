#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# An fsync on ext4 over a loop device shows up in the trace as a flush or a preflush/FUA
# write, at both levels; the submitter of the data write is the writing process, and the
# journal's I/O (jbd2) is marked as a kernel thread's while dd's is not (from task->flags).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"
need_cmd mkfs.ext4 dd

dir=$(scratch_dir)
dev=$(make_loop 128)
name=$(basename "$dev")
mnt=$(make_fs ext4 "$dev")
sync

for level in bio rq; do
	rec_start "$dir/$level.ioreel" -d "$dev" --level "$level"
	dd if=/dev/urandom of="$mnt/f-$level" bs=64k count=16 conv=fsync status=none ||
		fail "dd failed"
	rec_stop || fail "ioreel record exited $?"
	trace_csv "$dir/$level.ioreel" >"$dir/$level.csv" || fail "cannot export"
	python3 - "$dir/$level.csv" "$name" <<'PY' || fail "$level: no flush/FUA in the trace"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["dev"] == sys.argv[2]]
fl = [r for r in rows if r["op"] == "flush" or "fua" in r["flags"] or "preflush" in r["flags"]]
dd = [r for r in rows if r["comm"] == "dd" and r["op"] == "write"]
print(f"{len(rows)} I/Os, {len(fl)} flush/FUA/preflush, {len(dd)} writes by dd")
for r in fl[:5]:
    print("  ", r["op"], r["flags"], r["offset"], r["length"], r["comm"])
jbd = [r for r in rows if r["comm"].startswith("jbd2/")]
bad = [r for r in dd + jbd if ("kthread" in r["flags"]) != r["comm"].startswith("jbd2/")]
if not jbd or bad:
    sys.exit(f"kernel-thread marks: {len(jbd)} jbd2 I/Os; wrong on {bad[:3]}")
sys.exit(0 if fl and dd and sum(int(r["length"]) for r in dd) >= 1 << 20 else 1)
PY
	assert_eq "$(json_get "$dir/$level.ioreel.json" dropped)" 0 "dropped I/Os ($level)"
done
echo PASS
