#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# timeout: 300
# fio's file and directory engines and jobs over several files, synthesized as a file-level
# trace (tests/data/fio-grammar/fileops.fio: filecreate, filestat, filedelete, dircreate,
# dirstat, dirdelete, falloc in its three modes, ftruncate, nrfiles with each
# file_service_type), replayed under --root on ext4 with every engine in closed mode (threads
# chaining a stream's next call in its worker): every call of the trace is made once and none
# fails, fallocate's mode reaches the kernel as the trace gives it (the result trace's, and
# the holes punched), and the root ends as fio leaves its directory (created files and
# directories there, deleted ones gone, sizes). A time-based job cycles its calls for its
# runtime. A trace of one stream at depth 1 is made by threads on the scheduling thread, with
# nothing chained.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd python3
mnt=$(make_fs ext4 "$(make_loop 128)")
out=$(scratch_dir)
"$IOREEL" synth --fio-job "$TESTS_DIR/data/fio-grammar/fileops.fio" -o "$out/f.ioreel" \
	>/dev/null 2>"$out/synth.err" || fail "synth: $(cat "$out/synth.err")"
"$IOREEL" convert "$out/f.ioreel" "$out/f.csv" >/dev/null || fail "convert"
# info says the times are an order (closed loop), not a span of nanoseconds
output_has 'closed loop, 19 streams' "$IOREEL" info "$out/f.ioreel" || fail "info: not closed loop"

for eng in io_uring libaio psync threads null; do
	root=$mnt/$eng
	mkdir -p "$root"
	"$IOREEL" replay "$out/f.ioreel" --root "$root" --allow-writes --engine "$eng" --json \
		-o "$out/$eng.ioreel" >"$out/$eng.json" 2>"$out/$eng.err" ||
		fail "replay with $eng: $(cat "$out/$eng.err")"
	"$IOREEL" convert "$out/$eng.ioreel" "$out/$eng.csv" >/dev/null || fail "convert $eng"
	python3 - "$out/f.csv" "$out/$eng.json" "$out/$eng.csv" "$root" "$eng" <<'PY' ||
import collections, csv, json, os, stat, sys
tcsv, rep, rcsv, root, eng = sys.argv[1:6]
rows = lambda p: [r for r in csv.DictReader(l for l in open(p) if not l.startswith("#"))]
trace, res = rows(tcsv), rows(rcsv)
rj = json.load(open(rep))
f = rj["file"]
bad = []
want = collections.Counter(r["op"] for r in trace if r["iface"] != "start")
for op, n in want.items():
    got = f["ops"].get(op, {})
    if got.get("replayed") != n or got.get("failed"):
        bad.append(f"{op}: {n} in the trace, {got}")
if rj["fidelity"]["mode"] != "closed":
    bad.append(f"mode {rj['fidelity']['mode']}")
# fallocate's mode as the trace gives it: falloc's write 0, read KEEP_SIZE, trim PUNCH|KEEP
modes = collections.Counter(r["aux"] for r in res if r["op"] == "fallocate")
if modes != {"0": 64, "1": 64, "3": 16}:
    bad.append(f"fallocate modes {dict(modes)}")
if eng != "null":  # the null engine makes no call: only the lay-out is there
    ls = {n: os.lstat(os.path.join(root, n)) for n in os.listdir(root) if n != ".ioreel-replay"}
    def has(names, kind, size=None, mode=None):
        for n in names:
            s = ls.get(n)
            if not s or not kind(s.st_mode) or (size is not None and s.st_size != size) or \
               (mode is not None and stat.S_IMODE(s.st_mode) != mode):
                bad.append(f"{n}: {s}")
    has([f"create.0.{k}" for k in range(8)] + [f"capped.0.{k}" for k in range(7)],
        stat.S_ISREG, 0, 0o600)
    has([f"stat.0.{k}" for k in range(8)], stat.S_ISREG, 16384)
    has([f"mkdirs.0.{k}" for k in range(4)], stat.S_ISDIR, mode=0)  # mkdir(name, S_IFDIR)
    has([f"dstat.0.{k}" for k in range(4)], stat.S_ISDIR)
    has([f"{j}.0.{k}" for j in ("rr", "seq", "rnd", "rrn", "iosz", "of1", "of2")
         for k in range(3)] +
        ["rr2.0.0", "rr2.0.1"],
        stat.S_ISREG, 16384)
    has(["frag"], stat.S_ISREG, 262144)
    has(["trunc"], stat.S_ISREG, 61440)
    gone = [n for n in ls if n.startswith(("delete.", "rmdirs."))]
    if gone:
        bad.append(f"left though deleted: {gone}")
    if len(ls) != 8 + 7 + 8 + 4 + 4 + 21 + 2 + 2:
        bad.append(f"{len(ls)} names under the root: {sorted(ls)}")
    # 16 distinct 4 KiB holes punched in the 256 KiB laid out with data (st_blocks counts the
    # extent tree's blocks too: one block of room)
    if "frag" in ls and ls["frag"].st_blocks * 512 > 262144 - 16 * 4096 + 4096:
        bad.append(f"frag: {ls['frag'].st_blocks * 512} bytes allocated, holes not punched")
print(eng + ":", "ok" if not bad else "WRONG", *bad, sep="\n  ")
sys.exit(1 if bad else 0)
PY
		fail "replay with $eng differs (above)"
done
# threads: a depth-1 stream's next engine call waits in the stream's worker behind the one in
# flight (chained), and is not counted in flight while it waits: never more in flight than the
# streams' depths (psync's cap, which holds no slot for a chained call); each stream's calls
# one after the other, none begun before the one before it returned
python3 - "$out/threads.json" "$out/psync.json" "$out/threads.csv" <<'PY' ||
import collections, csv, json, sys
t, p = (json.load(open(a))["fidelity"] for a in sys.argv[1:3])
print("threads: chained", t["chained"], "max in flight", t["max_inflight"], "of",
      t["inflight_cap"], "slots; the streams' depths", p["inflight_cap"])
calls = collections.defaultdict(list)
for r in csv.DictReader(l for l in open(sys.argv[3]) if not l.startswith("#")):
    if r["issue_ns"] and r["complete_ns"]:
        calls[r["tid"]].append((int(r["issue_ns"]), int(r["complete_ns"])))
overlap = sum(b[0] < a[1] for c in calls.values() for a, b in zip(sorted(c), sorted(c)[1:]))
print("threads: calls begun before their stream's previous one returned:", overlap)
sys.exit(0 if t["chained"] > 0 and t["max_inflight"] <= p["inflight_cap"] < t["inflight_cap"]
         and overlap == 0 else 1)
PY
	fail "threads: chains (above)"

# time_based: the calls cycle for the runtime, one stream per job clone
printf '[s]\nioengine=filestat\nnrfiles=4\nfilesize=4k\ntime_based\nruntime=1\nnumjobs=2\n' \
	>"$out/t.fio"
"$IOREEL" synth --fio-job "$out/t.fio" -o "$out/t.ioreel" >/dev/null 2>&1 || fail "synth t.fio"
mkdir -p "$mnt/t"
"$IOREEL" replay "$out/t.ioreel" --root "$mnt/t" --allow-writes --json >"$out/t.json" ||
	fail "replay t.ioreel"
python3 - "$out/t.json" <<'PY' || fail "time-based stat job (above)"
import json, sys
r = json.load(open(sys.argv[1]))
st = r["file"]["ops"]["stat"]
print("time_based: stat", st["trace"], "in the trace, replayed", st["replayed"], "in",
      r["fidelity"]["replay_span_ns"], "ns")
sys.exit(0 if st["trace"] == 8 and st["replayed"] > 8 * 10 and st["failed"] == 0 else 1)
PY
# a trace of one stream at depth 1 (fio's falloc.fio falloc-fuzzer): with threads, nothing
# chains and nothing is handed off (the scheduling thread makes each call: depth 1), every
# call made once, none failing, and the file ends as psync leaves it
printf '[a]\nioengine=falloc\nrw=randwrite\nbs=4k\nfilename=one\nsize=256k\n' >"$out/one.fio"
"$IOREEL" synth --fio-job "$out/one.fio" -o "$out/one.ioreel" >/dev/null 2>&1 || fail "synth one.fio"
for eng in threads psync; do
	mkdir -p "$mnt/one-$eng"
	"$IOREEL" replay "$out/one.ioreel" --root "$mnt/one-$eng" --allow-writes --engine "$eng" \
		--json >"$out/one-$eng.json" || fail "replay one.ioreel with $eng"
done
python3 - "$out/one-threads.json" "$mnt/one-threads/one" "$mnt/one-psync/one" <<'PY' ||
import json, os, sys
r = json.load(open(sys.argv[1]))
f, ops = r["fidelity"], r["file"]["ops"]
a, b = (os.stat(p) for p in sys.argv[2:4])
print("one stream, threads:", {k: (v["trace"], v["replayed"], v["failed"]) for k, v in ops.items()},
      "cap", f["inflight_cap"], "chained", f["chained"], "size", a.st_size, "blocks", a.st_blocks)
sys.exit(0 if f["engine"] == "threads" and f["inflight_cap"] == 1 and f["chained"] == 0 and
         ops["fallocate"]["trace"] == 64 and ops["fallocate"]["replayed"] == 64 and
         not any(v["failed"] for v in ops.values()) and
         (a.st_size, a.st_blocks) == (b.st_size, b.st_blocks) else 1)
PY
	fail "one stream with threads (above)"
# no --engine: a closed loop of plain calls at depth 1 per stream (fio's sync engines) runs on
# threads, as fio's job makes its calls; io_uring would hand each fallocate to its io-wq
mkdir -p "$mnt/one-default"
"$IOREEL" replay "$out/one.ioreel" --root "$mnt/one-default" --allow-writes --json \
	>"$out/one-default.json" || fail "replay one.ioreel with no --engine"
python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["fidelity"]["engine"]; print("one stream, no --engine:", e); sys.exit(e != "threads")' \
	"$out/one-default.json" || fail "one stream with no --engine: not threads (above)"
# openfiles below nrfiles at depth 4, time based: each cycle opens, uses and closes the files
# again; a close waits for the calls on its file since that open (none fails, none on a
# closed descriptor)
printf '[o]\nioengine=libaio\niodepth=4\nrw=randread\nnrfiles=3\nopenfiles=1\nfilesize=64k\ntime_based\nruntime=1\n' \
	>"$out/o.fio"
"$IOREEL" synth --fio-job "$out/o.fio" -o "$out/o.ioreel" >/dev/null 2>&1 || fail "synth o.fio"
mkdir -p "$mnt/o"
"$IOREEL" replay "$out/o.ioreel" --root "$mnt/o" --allow-writes --engine libaio --json \
	>"$out/o.json" || fail "replay o.ioreel"
# with no --engine, a stream at depth 4 keeps io_uring (threads would make its calls one by one),
# and no call fails: the cycle reopens a file while the last cycle's reads on it may still be in
# flight, whose close once closed the new descriptor under its reads (EBADF in ~1 run of 10
# here); five runs
mkdir -p "$mnt/o-default"
for i in 1 2 3 4 5; do
	"$IOREEL" replay "$out/o.ioreel" --root "$mnt/o-default" --allow-writes --runtime 0.2 \
		--json >"$out/o-default.json" 2>"$out/o-default.err" ||
		fail "replay o.ioreel with no --engine, run $i: $(cat "$out/o-default.err")"
done
python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["fidelity"]["engine"]; print("depth 4, no --engine:", e); sys.exit(e != "io_uring")' \
	"$out/o-default.json" || fail "depth 4 with no --engine: not io_uring (above)"
python3 - "$out/o.json" <<'PY' || fail "openfiles, time based (above)"
import json, sys
f = json.load(open(sys.argv[1]))["file"]
o = {k: (v["trace"], v["replayed"], v["failed"]) for k, v in f["ops"].items()}
print("openfiles=1, time based:", o, "not open", f["not_open"])
sys.exit(0 if o["open"][0] == 3 and o["open"][1] > 3 and o["read"][1] > o["read"][0] and
         not any(v[2] for v in o.values()) and f["not_open"] == 0 else 1)
PY
echo PASS
