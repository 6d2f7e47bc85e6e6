#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Issue 21 W15: the never-written share counts the bytes the reads cover, not 1 MiB per read:
# 54 random reads of 4 KiB on a sparse file are 216 KiB never written (it said 54 MiB), and
# --prefill writes those 216 KiB (it wrote 54 MiB).
. "$(dirname "$0")/../lib.sh"
need_cmd python3
d=$(scratch_dir)
"$IOREEL" synth --rw randread --bs 4k --size 1g --number-ios 54 -o "$d/r.ioreel" >/dev/null ||
	fail "synth"
truncate -s 1G "$d/t.img"
python3 -c 'import os,sys; os.lseek(os.open(sys.argv[1], os.O_RDONLY), 0, os.SEEK_DATA)' \
	"$d/t.img" 2>/dev/null || [ $? = 1 ] || skip "no SEEK_DATA on ${TMPDIR:-/tmp}"
"$IOREEL" replay "$d/r.ioreel" --target "$d/t.img" --engine psync --json >"$d/w.json" \
	2>"$d/err" || fail "replay: $(cat "$d/err")"
grep -q "100.0% of the 216.0 KiB this trace reads there was never written" "$d/err" ||
	fail "not the bytes the reads cover: $(cat "$d/err")"
"$IOREEL" replay "$d/r.ioreel" --target "$d/t.img" --engine psync --json --allow-writes \
	--prefill >"$d/p.json" 2>"$d/err" || fail "replay --prefill: $(cat "$d/err")"
python3 - "$d/w.json" "$d/p.json" "$d/t.img" <<'PY' || fail "JSON: $(cat "$d/w.json" "$d/p.json")"
import json, os, sys
w = json.load(open(sys.argv[1]))["fidelity"]["targets"][0]
p = json.load(open(sys.argv[2]))["fidelity"]["targets"][0]
assert w["read_region_bytes"] == 54 * 4096 and w["unwritten_share_found"] == 1.0, w
assert p["read_region_bytes"] == 54 * 4096 and p["prefilled_bytes"] == 54 * 4096, p
assert p["unwritten_share"] == 0.0, p
assert os.stat(sys.argv[3]).st_blocks * 512 <= 54 * 65536, os.stat(sys.argv[3])
PY
echo ok
