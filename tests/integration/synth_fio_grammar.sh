#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# fio job files as fio reads them: the job files in tests/data/fio-grammar (written for this
# test in fio's grammar: [global] inheritance, include, inline comments, ${VAR}, arithmetic,
# fio's units, bssplit per direction, offset modifiers, trimwrite, zoned distributions, %
# sizes, no size, bs not a multiple of 512, jobs with their own runtime, count and loops) run
# under fio on a loop device with write_iolog; ioreel synthesizes each file, replays it on the
# same device, and tests/integration/fio_compare.py compares the two job by job.
# timeout: 600
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd fio python3 bc
d=$(scratch_dir)
jobs=$TESTS_DIR/data/fio-grammar
dev=$(make_loop 256)
export IOREEL_DEV=$dev IOREEL_LOGS=$d/logs
mkdir -p "$IOREEL_LOGS"
MiB=$((1 << 20))

# compare FILE [fio_compare.py options]: fio, then ioreel synth + replay, then the comparison
compare() {
	local f=$1 out; shift
	fio --output-format=json --output="$d/$f.json" "$jobs/$f.fio" >/dev/null 2>"$d/$f.fio.err" ||
		fail "fio $f.fio: $(cat "$d/$f.fio.err")"
	out=$("$IOREEL" synth --fio-job "$jobs/$f.fio" -o "$d/$f.ioreel" 2>&1 >/dev/null) ||
		fail "ioreel synth $f.fio: $out"
	[ -n "$out" ] && echo "  $out"
	"$IOREEL" replay "$d/$f.ioreel" --target "$dev" --allow-writes -o "$d/$f.run.ioreel" -q \
		>/dev/null 2>"$d/$f.replay.err" || fail "replay $f: $(cat "$d/$f.replay.err")"
	"$IOREEL" convert "$d/$f.ioreel" "$d/$f.csv" >/dev/null || fail "convert $f"
	"$IOREEL" convert "$d/$f.run.ioreel" "$d/$f.run.csv" >/dev/null || fail "convert $f run"
	"$IOREEL" info --json "$d/$f.ioreel" >"$d/$f.info.json" || fail "info $f"
	echo "$f.fio:"
	python3 "$TESTS_DIR/integration/fio_compare.py" --logs "$IOREEL_LOGS" \
		--fio-json "$d/$f.json" --synth "$d/$f.csv" --run "$d/$f.run.csv" \
		--info "$d/$f.info.json" "$@" || fail "$f.fio: ioreel differs from fio"
}

compare grammar
compare patterns --exact holes,backwards,trimwrite
# zoned:50/5:30/15:20/ over the 256 MiB device; zoned_abs:60/8m:30/16m:10/40m from 64 MiB
size=$((256 * MiB))
compare zones --zones "{\"zoned\": [[0, $((size * 5 / 100))], [$((size * 5 / 100)), $((size * 20 / 100))], [$((size * 20 / 100)), $size]],
	\"zoned-abs\": [[$((64 * MiB)), $((72 * MiB))], [$((72 * MiB)), $((88 * MiB))], [$((88 * MiB)), $((128 * MiB))]]}"
compare runtimes --exact counted-writer,looped-reader,odd-bs \
	--counts '{"counted-writer": 300, "looped-reader": 24, "odd-bs": 1024}' \
	--runtime '{"timed-reader": 2}'

# The trace says each stream's runtime, count and group (format 1.1 stream records).
python3 - "$d/runtimes.info.json" <<'PY' || fail "runtimes.fio stream records"
import json, sys
s = json.load(open(sys.argv[1]))["stream_records"]
tr, cw, lr, ob = s
assert tr["time_based"] and tr["runtime_ns"] == 2 * 10**9 and tr["group"] == 0, tr
assert not cw["time_based"] and cw["group"] == 0 and not lr["time_based"], (cw, lr)
assert ob["group"] == 1, ob
print("  stream records: timed-reader time_based 2 s, odd-bs in group 1 (stonewall)")
PY
# Think time and latency targets: each option lands in its stream's record (format 1.5),
# with fio's default units (thinktime, thinktime_spin, latency_*: us; thinktime_iotime: s)
"$IOREEL" synth --fio-job "$jobs/think.fio" -o "$d/think.ioreel" >/dev/null 2>&1 ||
	fail "synth think.fio"
"$IOREEL" info --json "$d/think.ioreel" >"$d/think.info.json" || fail "info think"
python3 - "$d/think.info.json" <<'PY' || fail "think.fio stream records"
import json, sys
th, bt, sp, tg, td = json.load(open(sys.argv[1]))["stream_records"]
assert th["think"] == {"ns": 2000000, "spin_ns": 500000, "iotime_ns": 0, "blocks": 4,
                       "blocks_type": "issue"}, th
assert bt["think"] == {"ns": 1000000, "spin_ns": 0, "iotime_ns": 50000000, "blocks": 0,
                       "blocks_type": "complete"}, bt
assert sp["think"]["spin_ns"] == 100000, sp  # spinning longer than the think: all of it
assert "latency_target" not in th and "think" not in tg, (th, tg)
assert tg["latency_target"] == {"ns": 2000000, "window_ns": 50000000, "percentile": 99.5,
                                "run": True} and tg["depth"] == 16, tg
assert td["latency_target"] == {"ns": 750000, "window_ns": 0, "percentile": 100,
                                "run": False}, td
print("  think.fio: thinktime*, latency_* in the stream records")
PY
# a bad value names the option; with a rate (a timed trace) both are refused, saying why
for bad in "thinktime_blocks_type=sometimes:complete or issue" \
	"latency_percentile=101:0 to 100" "thinktime_blocks=0:whole number" \
	"rate_iops=100:not modeled"; do
	opt=${bad%%:*} want=${bad#*:}
	printf '[j]\nbs=4k\nsize=1m\nthinktime=1ms\nlatency_target=1ms\n%s\n' "$opt" >"$d/bad.fio"
	out=$("$IOREEL" synth --fio-job "$d/bad.fio" -o "$d/bad.ioreel" 2>&1) &&
		fail "$opt accepted"
	case $out in *"$want"*) ;; *) fail "$opt: no '$want' in: $out" ;; esac
	case $out in *"${opt%%=*}"* | *thinktime*) ;; *) fail "$opt not named: $out" ;; esac
done
# a flow set is one stream: think time or a latency target in one is refused, saying why
printf '[a]\nbs=4k\nsize=1m\nflow=1\nthinktime=1ms\n[b]\nbs=4k\nsize=1m\nflow=2\n' >"$d/bad.fio"
out=$("$IOREEL" synth --fio-job "$d/bad.fio" -o "$d/bad.ioreel" 2>&1) && fail "flow + thinktime accepted"
case $out in *"think time or a latency target"*) ;; *) fail "flow + thinktime: $out" ;; esac
[ -e "$d/bad.ioreel" ] && fail "a refused job left its output"
# File and directory engines, jobs over several files (nrfiles, filesize, file_service_type,
# stat_type, openfiles, create_on_open): a file-level trace with fio's calls per job (fio's
# clat samples: one per call, FIO_NOSTATS engines included) and fio's file order. fio 3.33 has
# no dircreate/dirstat/dirdelete (fio 3.34): those jobs are checked against fio's source.
fd=$d/fileops
mkdir -p "$fd"
"$IOREEL" synth --fio-job "$jobs/fileops.fio" -o "$d/fileops.ioreel" --json >"$d/fileops.json" \
	2>"$d/fileops.err" || fail "synth fileops.fio: $(cat "$d/fileops.err")"
"$IOREEL" convert "$d/fileops.ioreel" "$d/fileops.csv" >/dev/null || fail "convert fileops"
have_dir_engines=0
fio --enghelp=dircreate >/dev/null 2>&1 && have_dir_engines=1
python3 - "$jobs/fileops.fio" "$fd/fileops.fio" "$have_dir_engines" <<'PY' || fail "fileops.fio for fio"
import re, sys
src, dst, dirs = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
out = []
for part in re.split(r"(?m)^(?=\[)", open(src).read()):
    m = re.match(r"\[(\w+)\]", part)
    if m and m.group(1) in ("mkdirs", "dstat", "rmdirs") and not dirs:
        continue
    if m and m.group(1) != "global":  # fio logs each job's calls on its own
        part = part.replace("]\n", "]\nwrite_iolog=%s.iolog\n" % m.group(1), 1)
    out.append(part)
open(dst, "w").write("".join(out))
PY
(cd "$fd" && fio --output-format=json --output=fio.json fileops.fio >/dev/null 2>fio.err) ||
	fail "fio fileops.fio: $(cat "$fd/fio.err")"
python3 - "$d/fileops.json" "$d/fileops.csv" "$fd" "$have_dir_engines" <<'PY' || fail "fileops.fio: ioreel differs from fio"
import collections, csv, json, os, sys
syn, tcsv, fd, dirs = json.load(open(sys.argv[1]))["traces"][0], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
rows = [r for r in csv.DictReader(l for l in open(tcsv) if not l.startswith("#"))]
calls = collections.Counter()  # per job: its calls, not its files' opens and closes (fio's
for r in rows:                 # are not timed, filecreate's open apart)
    if r["op"] != "close" and (r["op"] != "open" or r["comm"] in ("create", "capped")):
        calls[r["comm"]] += 1
fio = {j["jobname"]: sum(j[k]["clat_ns"].get("N", 0) for k in ("read", "write", "trim"))
       for j in json.load(open(os.path.join(fd, "fio.json")))["jobs"]}
bad = [f"{j}: fio {n} calls, trace {calls[j]}" for j, n in fio.items() if calls[j] != n]
# fio 3.33 lacks the directory engines: their calls as engines/fileoperations.c makes them
for j, n in (("mkdirs", 4), ("dstat", 4), ("rmdirs", 4)):
    if not dirs and calls[j] != n:
        bad.append(f"{j}: {calls[j]} calls, want {n}")
ops = lambda j: collections.Counter((r["op"], r["aux"]) for r in rows
                                    if r["comm"] == j and r["iface"] != "start")
want = {"create": {("open", "384"): 8, ("close", "0"): 8}, "stat": {("stat", "0"): 8},
        "delete": {("unlink", "0"): 8}, "mkdirs": {("mkdir", "0"): 4},
        "dstat": {("stat", "0"): 4}, "rmdirs": {("rmdir", "512"): 4},
        "alloc": {("fallocate", "0"): 64}, "keep": {("fallocate", "1"): 64},
        "punch": {("fallocate", "3"): 16}, "trunc": {("truncate", "0"): 16}}
for j, w in want.items():
    if dict(ops(j)) != w:
        bad.append(f"{j}: calls {dict(ops(j))}, want {w}")
# the truncates walk the file as fio's writes do: 0, 4k, ... 60k
tr = [int(r["offset"]) for r in rows if r["comm"] == "trunc" and r["op"] == "truncate"]
if tr != list(range(0, 65536, 4096)):
    bad.append(f"trunc: sizes {tr}")
# each job's reads and writes go to its files in fio's order (file_service_type)
# (openfiles below nrfiles: the opens and closes too, where fio makes them)
def fio_order(j):
    seq = []
    for line in open(os.path.join(fd, j + ".iolog")):
        f = line.split()
        if len(f) == 5 and f[2] in ("read", "write"):
            seq.append((os.path.basename(f[1]), int(f[3])))
        elif len(f) == 3 and f[2] in ("open", "close") and j.startswith("of"):
            seq.append((os.path.basename(f[1]), f[2]))
    return seq
for j in ("rr", "seq", "rr2", "rrn", "iosz", "of1", "of2"):
    ours = [(os.path.basename(r["path"]),
             r["op"] if r["op"] in ("open", "close") else int(r["offset"])) for r in rows
            if r["comm"] == j and r["op"] in ("read", "write", "open", "close") and
            r["iface"] != "start"]
    if ours != fio_order(j):
        bad.append(f"{j}: order {ours[:6]}..., fio {fio_order(j)[:6]}...")
rnd = [(os.path.basename(r["path"]), int(r["offset"])) for r in rows
       if r["comm"] == "rnd" and r["op"] == "read"]
if len(rnd) != 12 or len(set(rnd)) != 12 or set(p for p, _ in rnd) != {"rnd.0.0", "rnd.0.1", "rnd.0.2"}:
    bad.append(f"rnd: {rnd}")
# the file table: fio's names, the sizes fio lays out (filecreate's and dircreate's names are
# made by the calls; capped's 7 of its 50, as number_ios stops fio); depth 1 each (sync
# engines), one stream per job
if syn["files"] != 68 or syn["streams"] != 19 or set(syn["depth"]) != {1}:
    bad.append(f"trace: {syn['files']} files, {syn['streams']} streams, depths {syn['depth']}")
print("  fileops.fio: calls per job as fio's", "" if not bad else "WRONG:", *bad, sep="\n    ")
sys.exit(1 if bad else 0)
PY
# what a file-level trace cannot hold is refused, naming the job (a bad value: its line)
for bad in "ioengine=ftruncate;rw=randread|fio fails them|'j'" \
	"nrfiles=2;filename=x|drop nrfiles or filename|'j'" \
	"nrfiles=2;file_service_type=zipf|skewed distribution|'j'" \
	"nrfiles=2;file_service_type=roundrobin:0|with :N|bad.fio:5" \
	"ioengine=filestat;stat_type=fstat|stat, lstat or statx|bad.fio:5" \
	"nrfiles=2;rate_iops=100|closed loop|'j'"; do
	IFS='|' read -r opts want who <<<"$bad"
	printf '[j]\nbs=4k\nsize=1m\n%s\n' "${opts//;/$'\n'}" >"$d/bad.fio"
	out=$("$IOREEL" synth --fio-job "$d/bad.fio" -o "$d/bad.ioreel" 2>&1) &&
		fail "$opts accepted"
	case $out in *"$want"*) ;; *) fail "$opts: no '$want' in: $out" ;; esac
	case $out in *"$who"*) ;; *) fail "$opts: '$who' not named: $out" ;; esac
done

# exitall (one job's is every job's, as in fio), its scope by exit_what (group: the reporting
# group, which new_group cuts; stonewall: every job running) and new_group: the runtime each
# job gets, against the job_runtime fio reports (null engine, a few I/Os a second)
for what in group stonewall; do
	printf '%s\n' '[global]' size=16m ioengine=null rate_iops=20 "exit_what=$what" \
		'[a]' rw=read runtime=1 time_based '[b]' exitall rw=randread new_group runtime=3 \
		time_based '[c]' rw=read runtime=3 time_based >"$d/ex-$what.fio"
	sed 's/^ioengine=null$/filename=t/; /^rate_iops=/d' "$d/ex-$what.fio" >"$d/ex-$what.s.fio"
	fio --output-format=json --output="$d/ex-$what.json" "$d/ex-$what.fio" >/dev/null \
		2>"$d/err" || fail "fio ex-$what.fio: $(cat "$d/err")"
	"$IOREEL" synth --fio-job "$d/ex-$what.s.fio" -o "$d/ex-$what.ioreel" >/dev/null 2>"$d/err" ||
		fail "synth ex-$what.fio: $(cat "$d/err")"
	"$IOREEL" info --json "$d/ex-$what.ioreel" >"$d/ex-$what.info.json" || fail "info ex-$what"
	python3 - "$what" "$d/ex-$what.json" "$d/ex-$what.info.json" <<'PY' || fail "exit_what=$what"
import json, sys
what, fj, ij = sys.argv[1:4]
fio = [round(j["job_runtime"] / 1000) for j in json.load(open(fj))["jobs"]]
ours = [s["runtime_ns"] / 1e9 for s in json.load(open(ij))["stream_records"]]
want = {"group": [1, 3, 3], "stonewall": [1, 1, 1]}[what]
assert fio == want, ("fio", fio)
assert ours == want, ("ioreel", ours)
print(f"  exitall, exit_what={what}: runtimes {ours} s, as fio's {fio}")
PY
done
# exit_what=all also ends the jobs of later groups before they start: refused, saying so
printf '%s\n' '[global]' size=1m filename=t exitall exit_what=all '[a]' rw=read '[b]' stonewall \
	rw=read >"$d/ex-all.fio"
assert_status 2 "$IOREEL" synth --fio-job "$d/ex-all.fio" -o "$d/ex-all.ioreel" 2>"$d/err" \
	>/dev/null
grep -q "job 'a': exit_what=all with exitall ends every job when it ends, also job 'b'" "$d/err" ||
	fail "exit_what=all: $(cat "$d/err")"

# fio's exitwhat.fio, on the test's device and shorter: rated jobs beside unrated ones (the
# rate caps a closed loop, format 1.7) and exitall ending them at run time (slow1 ends by its
# count; exit_what=stonewall ends fast1, exit_what=all ends fast2 and runsnever). fio does 1
# read and 1 write per rated job (300 B/s: the next would be 13.6 s later), as the replay must.
printf '%s\n' '[global]' "filename=$dev" filesize=64m blocksize=4096 exitall=1 \
	'[slow1]' rw=read ioengine=sync new_group=1 thinktime=2000 number_ios=300 \
	exit_what=stonewall '[fast1]' new_group=1 rw=randrw numjobs=3 ioengine=libaio iodepth=32 \
	rate=300,300,300 '[slow2]' stonewall rw=write ioengine=sync new_group=1 thinktime=2000 \
	number_ios=300 exit_what=all '[fast2]' rw=randrw numjobs=3 ioengine=libaio iodepth=32 \
	rate=300,300,300 '[runsnever]' rw=randrw numjobs=3 ioengine=libaio iodepth=32 \
	rate=300,300,300 >"$d/exitwhat.fio"
fio --output-format=json --output="$d/exitwhat.json" "$d/exitwhat.fio" >/dev/null 2>"$d/err" ||
	fail "fio exitwhat.fio: $(cat "$d/err")"
"$IOREEL" synth --fio-job "$d/exitwhat.fio" -o "$d/exitwhat.ioreel" >/dev/null 2>"$d/err" ||
	fail "synth exitwhat.fio: $(cat "$d/err")"
"$IOREEL" info --json "$d/exitwhat.ioreel" >"$d/exitwhat.info.json" || fail "info exitwhat"
"$IOREEL" replay "$d/exitwhat.ioreel" --target "$dev" --allow-writes -q \
	-o "$d/exitwhat.run.ioreel" >/dev/null 2>"$d/err" || fail "replay exitwhat: $(cat "$d/err")"
"$IOREEL" convert "$d/exitwhat.run.ioreel" "$d/exitwhat.run.csv" >/dev/null ||
	fail "convert exitwhat"
python3 - "$d/exitwhat.json" "$d/exitwhat.info.json" "$d/exitwhat.run.csv" <<'PY' ||
import collections, csv, json, sys
fj, ij, rc = sys.argv[1:4]
fio = [(j["jobname"], j["read"]["total_ios"], j["write"]["total_ios"])
       for j in json.load(open(fj))["jobs"]]
recs = json.load(open(ij))["stream_records"]
n = collections.Counter()
for r in csv.DictReader(l for l in open(rc) if not l.startswith("#")):
    n[(int(r["stream"]), r["op"])] += 1
ours = [(f[0], n[(i, "read")], n[(i, "write")]) for i, f in enumerate(fio)]
names = ["slow1"] + ["fast1"] * 3 + ["slow2"] + ["fast2"] * 3 + ["runsnever"] * 3
want = [("slow1", 300, 0)] + [(x, 1, 1) for x in names[1:4]] + [("slow2", 0, 300)] + \
       [(x, 1, 1) for x in names[5:]]
assert fio == want, ("fio", fio)
assert ours == want, ("ioreel", ours)
assert [r["group"] for r in recs] == [0] * 4 + [1] * 7, recs
assert [r.get("rate_bps") for r in recs] == [None] + [[300] * 3] * 3 + [None] + [[300] * 3] * 6
assert [r["exit"]["running"] for r in recs] == [True] + [False] * 3 + [True] + [False] * 6
print("  exitwhat: per job (reads, writes) as fio's:", [x[1:] for x in ours])
PY
	fail "exitwhat: ioreel differs from fio"

# fio's butterfly.fio on the whole device, no size given: a flow set of a forward walk and a
# backward one (rw=read:-8k) over a region the trace leaves to the target (format 1.7: the
# backward offsets count from its end). Each job's offsets as fio's write_iolog has them:
# 0, 4k, 8k... and 0, end - 8k, end - 12k...; each member's own, in the replay's result trace
printf '%s\n' '[global]' "filename=$dev" bs=4k direct=1 number_ios=300 '[forward]' rw=read \
	flow=2 "write_iolog=$d/bf-forward.iolog" '[backward]' rw=read:-8k flow=2 \
	"write_iolog=$d/bf-backward.iolog" >"$d/butterfly.fio"
fio --output-format=json --output="$d/butterfly.json" "$d/butterfly.fio" >/dev/null \
	2>"$d/err" || fail "fio butterfly.fio: $(cat "$d/err")"
"$IOREEL" synth --fio-job "$d/butterfly.fio" -o "$d/butterfly.ioreel" >/dev/null 2>"$d/err" ||
	fail "synth butterfly.fio: $(cat "$d/err")"
"$IOREEL" replay "$d/butterfly.ioreel" --target "$dev" -q -o "$d/butterfly.run.ioreel" \
	>/dev/null 2>"$d/err" || fail "replay butterfly: $(cat "$d/err")"
"$IOREEL" convert "$d/butterfly.run.ioreel" "$d/butterfly.run.csv" >/dev/null ||
	fail "convert butterfly"
python3 - "$d" "$(blockdev --getsize64 "$dev")" <<'PY' || fail "butterfly: ioreel differs from fio"
import csv, sys
d, size = sys.argv[1], int(sys.argv[2])
def fio(job):
    return [int(l.split()[3]) for l in open(f"{d}/bf-{job}.iolog") if l.split()[2:3] == ["read"]]
ours = {}
for r in csv.DictReader(l for l in open(f"{d}/butterfly.run.csv") if not l.startswith("#")):
    ours.setdefault(int(r["tid"]), []).append(int(r["offset"]))
fwd, back = fio("forward"), fio("backward")
assert fwd == [k * 4096 for k in range(300)], fwd[:5]
assert back == [0] + [size - 8192 - k * 4096 for k in range(299)], back[:5]
assert sorted(ours.values()) == sorted([fwd, back]), {t: v[:5] for t, v in ours.items()}
print(f"  butterfly: forward {fwd[:3]}..., backward {back[:3]}... on {size} B, as fio's")
PY
# fio's sprandom (fio master; fio 3.33 here predates it, so no write_iolog to compare): the
# layout its model defines, computed here from fio's HOWTO and the model's figures (WA ~ 0.5 /
# op + 0.7, validities from 1 down to the GC block's, space in 1 / validity, resampled to
# equal regions, the least valid first): every offset a block inside the file; regions of
# physical / regions / bs writes in write order; each block once before any rewrite; a
# region's rewrites are blocks of the region before, in the order written there, right after
# its first write (at its end with spr_cs); each region's share rewritten near the model's;
# the end at the physical size or once every block is written. Seeds are ioreel's: the
# blocks differ from fio's, the layout may not (fio master's own log, built once by hand,
# passes the same checks: synth/FIO.md, "fio's sprandom").
for cs in 0 256k; do
	printf '%s\n' '[global]' ioengine=libaio rw=randwrite bs=4k blockalign=4k direct=1 \
		norandommap=1 iodepth=64 size=64m '[pre]' sprandom=1 spr_op=0.15 \
		spr_num_regions=20 "spr_cs=$cs" >"$d/spr-$cs.fio"
	"$IOREEL" synth --fio-job "$d/spr-$cs.fio" -o "$d/spr-$cs.ioreel" >/dev/null 2>"$d/err" ||
		fail "synth spr-$cs.fio: $(cat "$d/err")"
	"$IOREEL" convert "$d/spr-$cs.ioreel" "$d/spr-$cs.csv" >/dev/null || fail "convert spr-$cs"
	python3 - "$d/spr-$cs.csv" "$cs" <<'PY' || fail "sprandom spr_cs=$cs: not fio's layout"
import csv, math, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
cache = sys.argv[2] != "0"
L, bs, op, nr = 64 << 20, 4096, 0.15, 20
phys = L + math.ceil(L * op)
phys -= phys % bs
rwc = phys // nr // bs
assert all(r["op"] == "write" and int(r["length"]) == bs for r in rows), "writes of bs only"
off = [int(r["offset"]) for r in rows]
assert all(o % bs == 0 and 0 <= o < L for o in off), "an offset off a block or the file"
assert len(off) == phys // bs or len(set(off)) == L // bs, (len(off), phys // bs)
# the model's validity per region, the least valid first
wa = 0.5 / op + 0.7
gc = 1 - 1 / wa
val = [1 + i * (gc - 1) / (nr - 1) for i in range(nr)]
space = [sum(1 / v for v in val[:i + 1]) for i in range(nr)]
def at(x):
    for i in range(nr - 1):
        if space[i] <= x <= space[i + 1]:
            return val[i] + (val[i + 1] - val[i]) * (x - space[i]) / (space[i + 1] - space[i])
    return val[-1] if x > space[-1] else val[0]
step = (space[-1] - space[0]) / (nr - 1)
valid = [at(space[0] + i * step) for i in range(nr)][::-1]
prev, last, bad = {}, {}, []
for i, o in enumerate(off):
    if o in last:
        prev[i] = last[o]
    last[o] = i
for k in range(nr):
    lo, hi = k * rwc, (k + 1) * rwc
    rew = [i for i in range(lo, hi) if i in prev]
    if k == 0 and rew:
        bad.append("region 0 rewrites")
    if any(not (lo - rwc <= prev[i] < lo) for i in rew):
        bad.append(f"region {k}: a rewrite of a block not written in region {k - 1}")
    if [prev[i] for i in rew] != sorted(prev[i] for i in rew):
        bad.append(f"region {k}: rewrites not in the order written")
    m = len(rew)
    want = list(range(hi - m, hi)) if cache else list(range(lo + 1, lo + 1 + m))
    if k and rew != want:
        bad.append(f"region {k}: {m} rewrites at {rew[:3]}..., want {want[:3]}...")
    if k < nr - 1:  # its share rewritten in the next region, near the model's
        p = (round((1 - valid[k]) * 10000) + 1) / 10001
        n = sum(1 for i in range(lo, hi) if last[off[i]] != i)
        if abs(n - rwc * p) > 5 * math.sqrt(rwc * p * (1 - p)) + 2:
            bad.append(f"region {k}: {n} of {rwc} rewritten, model {rwc * p:.0f}")
shares = [round(sum(1 for i in range(k * rwc, (k + 1) * rwc) if last[off[i]] != i) / rwc, 2)
          for k in (0, nr // 2, nr - 2)]
print(f"  sprandom spr_cs={sys.argv[2]}: {len(off)} writes, {nr} regions of {rwc},",
      f"rewritten shares {shares} (model {1 - valid[0]:.2f} {1 - valid[nr // 2]:.2f}",
      f"{1 - valid[nr - 2]:.2f})", "" if not bad else "WRONG:", *bad, sep=" ")
sys.exit(1 if bad else 0)
PY
done
# fio's examples/sprandom.fio has no size (fio takes the device's): its first writes, which
# are its first region's on any target large enough, as a region scaled at replay
printf '%s\n' '[global]' rw=randwrite bs=4k blockalign=4k norandommap=1 '[pre]' sprandom=1 \
	spr_op=0.15 spr_num_regions=100 >"$d/spr-rel.fio"
"$IOREEL" synth --fio-job "$d/spr-rel.fio" --number-ios 500 -o "$d/spr-rel.ioreel" \
	>/dev/null 2>"$d/err" || fail "synth spr-rel.fio: $(cat "$d/err")"
"$IOREEL" convert "$d/spr-rel.ioreel" "$d/spr-rel.csv" >/dev/null || fail "convert spr-rel"
n=$(grep -v '^#' "$d/spr-rel.csv" | tail -n +2 | cut -d, -f5 | sort -u | wc -l)
[ "$n" = 500 ] || fail "sprandom with no size: $n distinct blocks in 500 writes"
assert_status 2 "$IOREEL" synth --fio-job "$d/spr-rel.fio" -o "$d/x.ioreel" 2>"$d/err" >/dev/null
grep -q "job 'pre' refused: .*spr-rel.fio:7: sprandom=1: .*--device-size" "$d/err" ||
	fail "sprandom with no size nor count: $(cat "$d/err")"
# what fio refuses beside sprandom, or ioreel does not model, is refused: the job, the place,
# the option
for bad in "spr_op=0|job 'j': .*bad.fio:5: spr_op=0: expected an over-provisioning ratio" \
	"spr_op=1|bad.fio:5: spr_op=1: expected" \
	"spr_num_regions=0|job 'j': .*bad.fio:5: spr_num_regions=0: expected" \
	"rw=write|job 'j' refused: .*bad.fio:4: sprandom=1: .*rw=randwrite, not .*bad.fio:5: rw=write" \
	"rw=randrw|bad.fio:4: sprandom=1: .*rw=randrw" \
	"random_generator=tausworthe|bad.fio:4: sprandom=1: random_generator other than lfsr" \
	"norandommap=0|bad.fio:4: sprandom=1: norandommap=0" \
	"spr_cs=1m|bad.fio:4: sprandom=1: .*smaller than the cache, spr_cs" \
	"nrfiles=2|job 'j' refused: .*bad.fio:4: sprandom=1: .*nrfiles=1" \
	"bssplit=4k/50:8k/50|bad.fio:4: sprandom=1: one write block size" \
	"time_based|bad.fio:4: sprandom=1: time_based and loops"; do
	IFS='|' read -r opt want <<<"$bad"
	printf '[j]\nbs=4k\nsize=16m\nsprandom=1\n%s\n' "$opt" >"$d/bad.fio"
	[ "${opt%%=*}" = rw ] || echo rw=randwrite >>"$d/bad.fio"
	out=$("$IOREEL" synth --fio-job "$d/bad.fio" -o "$d/bad.ioreel" 2>&1) &&
		fail "sprandom with $opt accepted"
	grep -q -- "$want" <<<"$out" || fail "sprandom with $opt: no '$want' in: $out"
done
[ -e "$d/bad.ioreel" ] && fail "a refused sprandom job left its output"
# regions of one write each: what a region keeps can overflow fio's buffer, where fio master
# stops on an assertion (seen with its randseed=6); synth stops too, saying so, no output
printf '[j]\nbs=4k\nsize=400k\nrw=randwrite\nsprandom=1\nrandseed=1\n' >"$d/bad.fio"
assert_status 1 "$IOREEL" synth --fio-job "$d/bad.fio" -o "$d/bad.ioreel" 2>"$d/err" >/dev/null
grep -q "kept more of a region's writes for rewriting than fio's buffer holds" "$d/err" ||
	fail "sprandom overflow: $(cat "$d/err")"
[ -e "$d/bad.ioreel" ] && fail "an overflowed sprandom job left its output"
echo "synth_fio_grammar: ok"
