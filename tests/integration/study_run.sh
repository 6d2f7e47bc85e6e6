#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ioreel study on loop devices (issue 25): xfs on one device, btrfs raid1 on two, ext4 built by
# setup=/teardown= commands; a preset, a fio job section and a recorded trace in dep mode; 2
# repeats. The table has every cell, report.json has every candidate of every workload with 2
# repeats done, report.html has every workload's charts and the plan escaped, and afterwards
# nothing the study mounted or held is left; a --resume of the finished study runs nothing
# and prints the report as JSON. Function, not timing.
# timeout: 180
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/study_common.inc"
d=$(scratch_dir)
study_devices
study_record "$d/prod.ioreel"
study_plan "$d"
# a plan comment the HTML page must show as text, never as markup
sed -i '1a # <script>alert("x")</script> & more' "$d/plan.ini"

"$IOREEL" study "$d/plan.ini" --allow-writes >"$d/out" 2>"$d/err" ||
	{ tail -n 30 "$d/err"; fail "ioreel study exited $?"; }
cat "$d/out"
res=$d/plan.results
study_assert_clean "$res"
study_assert_clean "$d"

# the table: every workload, every candidate, one fastest per workload
for w in rand fiojob db; do
	grep -q "^\[$w\] " "$d/out" || fail "the table has no workload [$w]"
done
for c in xfs btrfs-raid1 ext4-cmds; do
	n=$(grep -cE "^[ *] $c +(read|write|flush) " "$d/out")
	[ "$n" -ge 3 ] || fail "candidate $c has $n rows in the table, want one per workload at least"
done
assert_eq "$(grep -c '^\* ' "$d/out")" 3 "fastest marks (one per workload)"
grep -q 'no finished run' "$d/out" && fail "a cell is missing from the table"

# every cell ran once and left its result
assert_eq "$(grep -c '^done ' "$res/state")" 18 "finished cells in the state file"
assert_eq "$(grep '^done ' "$res/state" | awk '{ print $2, $3, $4 }' | sort -u | wc -l)" 18 "distinct cells"
assert_eq "$(find "$res/cells" -name 'r*.ioreel' ! -name '*.part.*' | wc -l)" 18 "cell result traces"
[ -z "$(find "$res/cells" -name '*.part.*')" ] || fail "partial cell files left"

# JSON: 3 workloads x 3 candidates, 2 repeats each, IOPS > 0
python3 - "$res/report.json" <<'PY' || fail "report.json is incomplete"
import json, sys
r = json.load(open(sys.argv[1]))
assert [w["name"] for w in r["workloads"]] == ["rand", "fiojob", "db"], r["workloads"]
for w in r["workloads"]:
    assert w["fastest"] in ("xfs", "btrfs-raid1", "ext4-cmds"), w
    assert [c["name"] for c in w["candidates"]] == ["xfs", "btrfs-raid1", "ext4-cmds"]
    for c in w["candidates"]:
        assert c["repeats_done"] == 2, (w["name"], c)
        assert c["ops"], (w["name"], c)
        for op, f in c["ops"].items():
            assert f["iops"]["median"] > 0 and f["iops"]["min"] <= f["iops"]["max"], (op, f)
    if w["name"] == "db":
        assert "flush" in w["candidates"][0]["ops"], "the recorded fsyncs are missing"
PY

# HTML: the charts of each workload, the environment, the plan escaped
h=$res/report.html
[ -s "$h" ] || fail "no report.html"
assert_eq "$(grep -c '<iframe srcdoc=' "$h")" 3 "analyze charts per workload"
grep -q '<script>alert' "$h" && fail "the plan's text reached the HTML unescaped"
grep -q '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more' "$h" ||
	fail "the plan is not shown (escaped) in the HTML"
grep -q "mkfs.xfs -f -q $D_XFS" "$h" || fail "the HTML does not show the commands as run"
grep -q "$(uname -r)" "$h" || fail "the HTML does not show the kernel"
# the commands are logged
grep -q "+ mkfs.btrfs -f -q -d raid1 -m raid1 $D_B1 $D_B2" "$res/log" || fail "mkfs.btrfs not logged"
grep -q "+ umount $d/ext4mnt" "$res/log" || fail "the teardown command is not logged"
# a --resume of a finished study runs nothing and gives the report again, here as JSON
lines=$(wc -l <"$res/log")
"$IOREEL" study "$d/plan.ini" --allow-writes --resume --json >"$d/json" 2>"$d/err2" ||
	fail "--resume of a finished study exited $?: $(cat "$d/err2")"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert len(r["workloads"]) == 3' \
	"$d/json" || fail "--json did not print the report: $(head -c 300 "$d/json")"
tail -n +"$((lines + 1))" "$res/log" | grep -E ' (replay|mkfs|mount) ' && fail "a finished study ran something again"
study_assert_clean "$res"
echo "ok"
