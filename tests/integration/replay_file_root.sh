#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# timeout: 300
# ioreel replay TRACE --root DIR (issue 14): file-level recordings on ext4 replayed onto xfs.
# Two recordings: a process that had its files open before the recording started and makes
# every kind of call (record_file_workload.py: a dense and a sparse file, pread/pwrite/read at
# the position, fdatasync, fsync, fcntl O_DIRECT, fallocate, ftruncate, create, rename,
# unlink), and fio with two jobs at once (libaio O_DIRECT with fdatasync, psync buffered with
# fsync) on files laid out before. Each replayed through io_uring, libaio and psync, in dep,
# timed and afap mode. Checked: every call of the trace was reissued and none failed (per op,
# from the trace's own CSV), the result trace holds them, the files under DIR end with the
# sizes the recorded ones ended with, and the sparse file has its data where the source had it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"
need_cmd mkfs.xfs

src=$(make_fs ext4 "$(make_loop 256)")
dst=$(make_fs xfs "$(make_loop 512)") # mkfs.xfs refuses under 300 MB
out=$(scratch_dir)
work=$(dirname "$0")/record_file_workload.py

# 1. the recordings
w=$src/w
mkdir -p "$w"
rec_file_workload "$work" "$w" "$out/w.ioreel"

f=$src/fio
mkdir -p "$f"
fio_jobs=(--directory="$f" --bs=4k --size=2m --io_size=1m
	--name=aio --nrfiles=2 --ioengine=libaio --iodepth=4 --direct=1 --rw=randrw --fdatasync=5
	--name=sync --nrfiles=2 --ioengine=psync --rw=randwrite --fsync=4)
fio "${fio_jobs[@]}" --create_only=1 --output=/dev/null || fail "fio layout failed"
rec_start "$out/fio.ioreel" --level file --comm fio --under "$f"
fio "${fio_jobs[@]}" --output="$out/fio.txt" || fail "fio failed: $(cat "$out/fio.txt")"
rec_finish "$out/fio.ioreel"
cp "$out/fio.ioreel.csv" "$out/fio.csv"

# check TRACE.csv REPORT.json RESULT.csv SRC_DIR ROOT: every call reissued, the files' sizes
check() {
	python3 - "$@" <<'PY'
import collections, csv, json, os, sys
tcsv, rep, rcsv, src, root = sys.argv[1:6]
rows = list(csv.DictReader(l for l in open(tcsv) if not l.startswith("#")))
f = json.load(open(rep))["file"]
ops = f["ops"]
bad = []
def need(c, what):
    if not c:
        bad.append(what)
# what the trace asks, counted here from its calls (opens at start are made before the clock)
want = collections.Counter(r["op"] for r in rows if int(r["result"]) >= 0 and
                           not (r["op"] == "open" and r["iface"] == "start"))
for op in ("read", "write", "fsync", "fdatasync", "open", "setfl", "fallocate", "truncate", "stat",
           "rename", "unlink"):
    got = ops.get(op, {"trace": 0, "replayed": 0, "failed": 0})
    need(got["replayed"] == want[op], f"{op}: {want[op]} in the trace, {got['replayed']} replayed")
    need(got["failed"] == 0, f"{op}: {got['failed']} failed on the target")
cl = ops.get("close", {"trace": 0, "replayed": 0, "failed": 0})
need(cl["failed"] == 0 and cl["replayed"] == want["close"] -
     f["skipped"]["close_still_shared"] + f["closes_implied"], f"close: {cl}, {f}")
# not reissued: closes of a file still shared, and the calls that failed in the recording (a
# workload's stat of a name not there yet, fio's mkdir of its directory; and fio's opens of
# system files that do not exist, ENOENT, which --under leaves out; a path the recorder could
# still not read, counted in paths_missing, would be kept, as it cannot tell where it was)
failed = [(r["op"], r["path"], r["result"]) for r in rows
          if int(r["result"]) < 0 and r["op"] not in ("fork", "exit", "mmap")]
need(f["skipped"]["close_still_shared"] + len(failed) == sum(f["skipped"].values()) and
     f["skipped"]["failed_in_recording"] == len(failed),
     f"calls not reissued: {f['skipped']}; failed in the recording: {failed}")
need(f["not_open"] == 0 and f["short_reads"] == 0, f"not open / short reads: {f}")
need(want["read"] + want["write"] > 0, "no reads or writes in the trace")
# the result trace holds what the report says was replayed
res = collections.Counter(r["op"] for r in csv.DictReader(l for l in open(rcsv)
                                                            if not l.startswith("#")))
for op, v in ops.items():
    need(res[op] == v["replayed"], f"result trace: {res[op]} {op}, report {v['replayed']}")
# the files end as the recorded ones did: same names (of those the trace names), same sizes
named = {r["path"] for r in rows if r["path"].startswith(src + "/")}
have = {p for p in named if os.path.isfile(p)}  # files: a directory stat-ed is a name too
got = {os.path.join(dp, n) for dp, _, ns in os.walk(root) for n in ns if n != ".ioreel-replay"}
need({os.path.relpath(p, src) for p in have} == {os.path.relpath(p, root) for p in got},
     f"files: recorded {sorted(have)}, replayed {sorted(got)}")
def segs(p):
    fd, s, out = os.open(p, os.O_RDONLY), 0, []
    size = os.fstat(fd).st_size
    while s < size:
        try:
            a = os.lseek(fd, s, os.SEEK_DATA)
        except OSError:
            break
        b = os.lseek(fd, a, os.SEEK_HOLE)
        out.append((a, b))
        s = b
    os.close(fd)
    return out
for p in have:
    q = os.path.join(root, os.path.relpath(p, src))
    if os.path.exists(q):
        a, b = os.stat(p), os.stat(q)
        need(a.st_size == b.st_size, f"{q}: {b.st_size} bytes, recorded {a.st_size}")
        if os.path.basename(p) == "b.dat":  # sparse: data where the source has it
            need(segs(p) == segs(q), f"{q}: data at {segs(q)}, recorded {segs(p)}")
            need(b.st_blocks * 512 < b.st_size // 2, f"{q} is not sparse: {b.st_blocks}")
print(f"{sum(want.values())} calls, {len(got)} files;", "ok" if not bad else "WRONG:")
for x in bad:
    print("  ", x)
sys.exit(1 if bad else 0)
PY
}

# replay NAME SRC_DIR ENGINE MODE
replay() {
	local name=$1 dir=$2 eng=$3 mode=$4 root=$dst/$1-$3-$4
	mkdir -p "$root"
	"$IOREEL" replay "$out/$name.ioreel" --root "$root" --allow-writes --engine "$eng" \
		--mode "$mode" --json -o "$out/r.ioreel" >"$out/r.json" 2>"$out/r.err" ||
		fail "replay $name $eng $mode: $(cat "$out/r.err")"
	trace_csv "$out/r.ioreel" >"$out/r.csv" || fail "cannot export the result of $name $eng $mode"
	echo "== $name, $eng, $mode"
	check "$out/$name.csv" "$out/r.json" "$out/r.csv" "$dir" "$root" ||
		fail "$name through $eng in $mode mode"
}

replay w "$w" io_uring dep
replay w "$w" libaio timed
replay w "$w" psync afap
replay fio "$f" io_uring dep
replay fio "$f" libaio timed
replay fio "$f" psync afap

# a root a replay prepared is reused: the files are recreated as at the start
replay w "$w" io_uring dep
"$IOREEL" replay "$out/w.ioreel" --root "$dst/w-io_uring-dep" --allow-writes -q >"$out/r.txt" ||
	fail "text report"
grep -q '^file level (under ' "$out/r.txt" || fail "no file-level block in the text report"
grep -Eq '^  fsync +1 +1 +0 ' "$out/r.txt" || fail "text report's fsync line: $(cat "$out/r.txt")"
output_has 'file level' "$IOREEL" info "$out/r.ioreel" || fail "the result trace is not file-level"

# analyze reads the recording and the result: per op (fsync apart from fdatasync) and per file,
# the same calls in both; --compare sets them side by side (syncs as flushes)
replay fio "$f" io_uring dep
"$IOREEL" analyze "$out/fio.ioreel" "$out/r.ioreel" --json >"$out/an.json" ||
	fail "analyze of the recording and its replay"
"$IOREEL" analyze "$out/fio.ioreel" "$out/r.ioreel" --compare >"$out/cmp.txt" ||
	fail "analyze --compare of the recording and its replay"
cat "$out/cmp.txt"
python3 - "$out/an.json" "$out/r.json" "$out/cmp.txt" <<'PY' || fail "analyze of file-level traces"
import json, sys
an, rep = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["file"]["ops"]
rec, res = an["ioreel"]["file_level"]
for op in ("read", "write", "fsync", "fdatasync"):
    assert rec["ops"][op]["calls"] == res["ops"][op]["calls"] == rep[op]["replayed"], op
    assert res["ops"][op]["lat_ns"]["count"] == rep[op]["replayed"], op
# the four data files (fio stats each by name before it opens it: a name-only entry of its own,
# with only those stats, record/FILE.md)
data = lambda fs: [x for x in fs if x["read_bytes"] or x["write_bytes"]]
assert len(data(rec["files"])) == len(data(res["files"])) == 4, (rec["files"], res["files"])
assert {x["calls"] for x in rec["files"]} == {x["calls"] for x in res["files"]}
jobs = {j["jobname"]: j for j in an["jobs"]}
assert len(jobs) == 2, jobs.keys()
ops = lambda j: (j["read"]["total_ios"], j["write"]["total_ios"], j["sync"]["total_ios"])
a, b = (ops(j) for j in jobs.values())
assert a == b and a[2] == rec["ops"]["fsync"]["calls"] + rec["ops"]["fdatasync"]["calls"], (a, b)
cmp = open(sys.argv[3]).read()
assert all(k in cmp for k in ("read", "write", "flush", "fio.ioreel", "r.ioreel")), cmp
print("analyze: ok")
PY
"$IOREEL" analyze "$out/w.ioreel" >"$out/an.txt" || fail "analyze of the workload's trace"
grep -Eq '^  fsync +1 +0 ' "$out/an.txt" || fail "analyze's fsync line: $(cat "$out/an.txt")"
grep -q "$w/b.dat" "$out/an.txt" || fail "analyze's per-file lines: $(cat "$out/an.txt")"
# the workload's end is a moment, not a call: no latency shown for it (it showed "0ns")
grep -Eq '^  exit +[1-9][0-9]* +0 +- +- +- +-$' "$out/an.txt" || fail "analyze's exit line: $(cat "$out/an.txt")"
echo PASS
