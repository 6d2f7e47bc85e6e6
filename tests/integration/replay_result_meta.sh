#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A replay's result trace names the command that made it in its header (`ioreel info`'s
# options, JSON "options"), as a recording does: "ioreel replay ..." once, every argument
# there. It once read "ioreel ioreel replay ...": getopt's name for the verb, "ioreel replay",
# was joined behind the program's.
# timeout: 60
. "$(dirname "$0")/../lib.sh"
need_cmd python3
d=$(scratch_dir)
truncate -s 16M "$d/t.img"
"$IOREEL" synth --rw randread --bs 4k --size 16m --rate-iops 1000 --number-ios 20 \
	-o "$d/r.ioreel" >/dev/null || fail "synth failed"
"$IOREEL" replay "$d/r.ioreel" --target "$d/t.img" --engine null -q -o "$d/o.ioreel" \
	>/dev/null || fail "replay failed"
"$IOREEL" info "$d/o.ioreel" --json >"$d/info.json" || fail "info of the result"
python3 - "$d" <<'PY' || fail "the result's options"
import json, sys
d = sys.argv[1]
o = json.load(open(d + "/info.json"))["options"]
print("options:", o)
assert o.split()[:2] == ["ioreel", "replay"] and not o.startswith("ioreel ioreel"), o
for arg in ("--target", d + "/t.img", "--engine null", "-o " + d + "/o.ioreel", d + "/r.ioreel"):
    assert arg in o, (arg, o)
PY
echo "ok"
