#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A dep replay's elastic models travel in its result trace (formats/FORMAT.md, "Counters
# frame": counters elastic_*) and show in `analyze --compare` (text and JSON) and `info`, with
# the figures the replay's own JSON reported (fidelity.elastic), compared number for number:
#  - file level (op names of enum io_fop): tests/tools/ftrace_bg's background writer replayed
#    on the null engine at 1 s per call with --dep-absorb on (2 of its 8 writes absorbed, as in
#    replay_elastic.sh), and with every model off, which writes no record;
#  - block level (op names of enum io_op): two threads' writes and flushes with
#    --dep-group-commit on, and the writeback throttle's model (--dep-wbt, 2 ms onto a file:
#    on by default onto a block device) with its own line;
#  - a trace without the record (tests/data's 1.0 trace, written before it) still compares,
#    and says "none".
# timeout: 120
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
need_cmd python3
d=$(scratch_dir)
bg=$BUILD/tests/tools/ftrace_bg
[ -x "$bg" ] || fail "$bg is not built (make check builds it)"
"$bg" "$d/bg.ioreel" 1 || fail "ftrace_bg"
replay_file_null "$d/bg.ioreel" "$d/root" "$d/on.json" --null-latency 1s --dep-absorb on \
	-o "$d/on.ioreel"
replay_file_null "$d/bg.ioreel" "$d/root" "$d/off.json" --null-latency 1s \
	--dep-commit-lock off -o "$d/off.ioreel"
assert_eq "$(json_get "$d/on.json" "d['fidelity']['elastic']['ops']['write']['absorbed']")" 2 \
	"writes absorbed in the replay (its own report)"

# block level: per thread a write, then a flush
{
	echo "$CSV_HEADER"
	echo "1000000,,1100000,dev0,0,4096,write,,0,42,1,db,0,0"
	echo "1050000,,1150000,dev0,4096,4096,write,,0,42,2,db,0,0"
	echo "1200000,,1300000,dev0,0,0,flush,,0,42,1,db,0,0"
	echo "1250000,,1350000,dev0,0,0,flush,,0,42,2,db,0,0"
} >"$d/blk.csv"
mktrace "$d/blk.csv" "$d/blk.ioreel"
truncate -s 16M "$d/t.img"
"$IOREEL" replay "$d/blk.ioreel" --target "$d/t.img" --allow-writes --mode dep --engine null \
	--dep-group-commit on --dep-wbt 2ms --json -q -o "$d/gc.ioreel" >"$d/gc.json" \
	2>"$d/gc.err" ||
	fail "block replay failed: $(cat "$d/gc.err")"
old=$(dirname "$0")/../data/v1.0-synth-closed.ioreel

"$IOREEL" analyze --compare "$d/on.ioreel" "$d/off.ioreel" "$d/gc.ioreel" "$old" \
	>"$d/cmp.txt" 2>"$d/cmp.err" || fail "analyze --compare: $(cat "$d/cmp.err")"
"$IOREEL" analyze --compare --json "$d/on.ioreel" "$d/off.ioreel" "$d/gc.ioreel" "$old" \
	>"$d/cmp.json" 2>"$d/cmp.err" || fail "analyze --compare --json: $(cat "$d/cmp.err")"
"$IOREEL" info "$d/on.ioreel" >"$d/info_on.txt" || fail "info on.ioreel"
"$IOREEL" info --json "$d/on.ioreel" >"$d/info_on.json" || fail "info --json on.ioreel"
"$IOREEL" info "$d/gc.ioreel" >"$d/info_gc.txt" || fail "info gc.ioreel"
"$IOREEL" info --json "$d/off.ioreel" >"$d/info_off.json" || fail "info --json off.ioreel"
"$IOREEL" info "$d/off.ioreel" >"$d/info_off.txt" || fail "info off.ioreel"

python3 - "$d" "$(basename "$old")" <<'PY' || fail "see above"
import json, re, sys
d, old = sys.argv[1], sys.argv[2]
rep = {n: json.load(open("%s/%s.json" % (d, n)))["fidelity"]["elastic"] for n in ("on", "gc")}
assert "elastic" not in json.load(open(d + "/off.json"))["fidelity"] or \
    not any(json.load(open(d + "/off.json"))["fidelity"]["elastic"][k]
            for k in ("group_commit", "absorb", "split", "commit_lock")), "off: a model was on"

# JSON: per trace the replay's own object, key for key and number for number; null without
cmp = json.load(open(d + "/cmp.json"))["ioreel"]["compare"]["elastic"]
got = {e["trace"]: e["elastic"] for e in cmp}
assert [e["trace"] for e in cmp] == ["on.ioreel", "off.ioreel", "gc.ioreel", old], cmp
assert got["on.ioreel"] == rep["on"], (got["on.ioreel"], rep["on"])
assert got["gc.ioreel"] == rep["gc"], (got["gc.ioreel"], rep["gc"])
assert got["off.ioreel"] is None and got[old] is None, got
assert set(rep["on"]["ops"]) == {"write"}, rep["on"]["ops"]       # file level: io_fop names
assert set(rep["gc"]["ops"]) == {"write", "flush"}, rep["gc"]["ops"]  # block level: io_op's
print("compare --json: the replays' own elastic objects, none for the others")

def rows(text, name):
    """The models line and the per-op rows after 'name:' in the compare text."""
    lines = text.split("\n")
    i = next(k for k, l in enumerate(lines) if l.startswith("  %s: " % name))
    models, out = lines[i].split(": ", 1)[1], {}
    for l in lines[i + 2:]:
        if not l.startswith("    ") or ":" in l:
            break
        f = l.split()
        out[f[0]] = f[1:]
    return models, out

def want_rows(e):
    return {op: [str(v[k]) for k in ("trace", "issued", "coalesced", "absorbed", "split",
                                     "followed")] + ["%.3f" % v["issued_share"]]
            for op, v in e["ops"].items()}

def want_models(e):
    on = lambda b: "on" if b else "off"
    return ("group commit %s, absorbed writes %s, split flushes %s, commit lock %s, "
            "writeback throttle %s") % (on(e["group_commit"]), on(e["absorb"]), on(e["split"]),
                                        on(e["commit_lock"]), on(e["wbt"]))

text = open(d + "/cmp.txt").read()
sec = text.split("\nelastic models (dep replays):\n", 1)
assert len(sec) == 2, "no elastic section after the table:\n" + text
for name, e in (("on.ioreel", rep["on"]), ("gc.ioreel", rep["gc"])):
    models, r = rows(sec[1], name)
    assert models == want_models(e), (name, models)
    assert r == want_rows(e), (name, r, want_rows(e))
kept = "    group commit: %d of %d flushes kept" % (rep["gc"]["flushes_kept_redundant"],
                                                  rep["gc"]["flushes"])
assert kept in sec[1], sec[1]
g = rep["gc"]
assert g["wbt"] and g["wbt_throttled"] == 2 and not rep["on"]["wbt"], (g, rep["on"])
wbt = ("    writeback throttle: %d of %d writeback writes waited for it, %.3f s in all; %d of %d "
       "windows over the latency aimed at" % (g["wbt_held"], g["wbt_throttled"],
                                              g["wbt_held_ns"] / 1e9, g["wbt_exceeded"],
                                              g["wbt_windows"]))
assert wbt in sec[1], sec[1]
for name in ("off.ioreel", old):
    assert "  %s: none (models off, or not a dep replay)\n" % name in sec[1], sec[1]
print("compare text: the same counts, per op")

# info: the same lines; JSON the same object; nothing (null) for a trace without the record
for n, f in (("on", "info_on.txt"), ("gc", "info_gc.txt")):
    t = open("%s/%s" % (d, f)).read()
    m = re.search(r"\n  elastic    (.*)\n((?:    .*\n)+)", t)
    assert m and m.group(1) == want_models(rep[n]), t
    r = {l.split()[0]: l.split()[1:] for l in m.group(2).splitlines()[1:] if ":" not in l}
    assert r == want_rows(rep[n]), (r, want_rows(rep[n]))
assert json.load(open(d + "/info_on.json"))["elastic"] == rep["on"]
assert json.load(open(d + "/info_off.json"))["elastic"] is None
assert "elastic" not in open(d + "/info_off.txt").read()
print("info: the same lines and object")
PY
echo PASS
