#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# One JSON string rule for every verb (util/json.h): a trace whose file name and device names
# hold UTF-8 and bytes that are not UTF-8 goes through info --json, analyze --json, replay --json
# (null engine, a target whose name holds both too), convert --json and the fleet report; each
# output parses as JSON, and each gives the same string for the same name: UTF-8 as itself,
# an invalid byte B as U+00B.
. "$(dirname "$0")/../lib.sh"
need_cmd python3
d=$(scratch_dir)
cd "$d" || fail "cd $d"

u=$(printf 'caf\xc3\xa9-\xe2\x82\xac-\xf0\x9f\x92\xbe')	# valid UTF-8: é € 💾
bad=$(printf 'x\xffy\xc3z\x01')				# 0xff, a cut sequence, a control byte
trace="t-$u-$bad.ioreel"
target="g-$u-$bad.img"
printf 'queue_ns,issue_ns,complete_ns,dev,offset,length,op\n0,10,100,d-%s,0,4096,read\n1000,1010,1100,d-%s,4096,4096,read\n' \
	"$u" "$bad" >in.csv
"$IOREEL" convert in.csv "$trace" --json >conv.json || fail "convert failed"
"$IOREEL" info --json "$trace" >info.json || fail "info --json failed"
"$IOREEL" analyze --json "$trace" >analyze.json || fail "analyze --json failed"
truncate -s 16M "$target"
"$IOREEL" replay "$trace" --engine null --target "$target" --json -o r.ioreel >replay.json ||
	fail "replay --json failed"
"$IOREEL" info --json r.ioreel >rinfo.json || fail "info --json of the result failed"
fleet=
if [ -x "$BUILD/ioreel-mpi" ] && command -v mpirun >/dev/null; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
	timeout -k 5 100 mpirun --mca btl self,vader -np 1 "$BUILD/ioreel-mpi" replay "$trace" \
		--engine null --target "tgt-%r" --size 8m --json >fleet.json 2>fleet.err ||
		{ cat fleet.err; fail "ioreel-mpi replay --json failed"; }
	fleet=fleet.json
else
	echo "note: no ioreel-mpi or mpirun: the fleet report is not checked"
fi

python3 - "$u" "$bad" "$fleet" <<'PY' || fail "JSON outputs disagree: see above"
import json, os, sys
u = os.fsencode(sys.argv[1])
bad = os.fsencode(sys.argv[2])

def want(b):
    # the rule of util/json.h: valid UTF-8 as itself, any other byte B as U+00B
    out, i = "", 0
    while i < len(b):
        for n in (4, 3, 2, 1):
            try:
                ch = b[i:i + n].decode("utf-8")
                if len(ch) == 1:
                    out += ch
                    i += n
                    break
            except UnicodeDecodeError:
                pass
        else:
            out += chr(b[i])
            i += 1
    return out

def load(p):
    raw = open(p, "rb").read()
    raw.decode("utf-8")  # strict: the output itself is valid UTF-8
    return json.loads(raw)

trace = want(b"t-" + u + b"-" + bad + b".ioreel")
target = want(b"g-" + u + b"-" + bad + b".img")
devs = [want(b"d-" + u), want(b"d-" + bad)]
assert want(bad) == "x\xffy\xc3z\x01", repr(want(bad))

conv = load("conv.json")
assert conv["output"] == trace, (conv["output"], trace)
info = load("info.json")
assert info["file"] == trace, (info["file"], trace)
assert [x["name"] for x in info["devices"]] == devs, info["devices"]
an = load("analyze.json")
assert an["jobs"][0]["jobname"] == trace, an["jobs"][0]["jobname"]
assert [x["name"] for x in an["ioreel"]["traces"][0]["devices"]] == devs, an["ioreel"]
rp = load("replay.json")
assert [x["name"] for x in rp["ioreel"]["traces"][0]["devices"]] == [target, target], rp["ioreel"]
ri = load("rinfo.json")
assert [x["name"] for x in ri["devices"]] == [target, target], ri["devices"]
if sys.argv[3]:
    fl = load(sys.argv[3])
    paths = [t["path"] for t in fl["fleet"]["traces"]]
    assert paths == [trace], (paths, trace)
print("same strings in every output:", trace, devs, target)
PY
echo "PASS: every JSON output valid, one string per name"
