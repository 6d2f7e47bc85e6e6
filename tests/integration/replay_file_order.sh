#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# timeout: 240
# dep mode keeps the order of calls on a name across threads (replay/file/file_decode.c): a thread
# opening a file another created waits for the create, and a thread unlinking it waits for the
# other's plain open too, even though plain opens of one name by two threads are not ordered.
# Three threads of one process, recorded at file level: A creates x.dat and writes it, B opens
# it as it is 0.2 s later and reads it, C unlinks it 0.4 s later. Replayed with the threads'
# think time scaled to 0 (so each would go at once but for its dependencies), through psync's
# parallel workers, ten times: every call is reissued and none fails (no ENOENT).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"

src=$(make_fs ext4 "$(make_loop 64)")
dst=$(make_fs ext4 "$(make_loop 64)")
out=$(scratch_dir)
w=$src/w
mkdir -p "$w"
cat >"$out/work.py" <<'PY'
import os, sys, threading, time
d = sys.argv[1]
for i in range(3):
    with open(os.path.join(d, "own%d" % i), "wb") as f:
        f.write(b"o" * 8192)
open(os.path.join(d, "ready"), "w").close()
while not os.path.exists(os.path.join(d, "go")):
    time.sleep(0.01)
x = os.path.join(d, "x.dat")
def own(i):  # each thread's first call: the trace's clock starts it
    fd = os.open(os.path.join(d, "own%d" % i), os.O_RDONLY)
    os.pread(fd, 4096, 0)
    os.close(fd)
def a():
    own(0)
    fd = os.open(x, os.O_CREAT | os.O_WRONLY, 0o644)
    os.pwrite(fd, b"x" * 8192, 0)
    os.fsync(fd)
    os.close(fd)
def b():
    own(1)
    time.sleep(0.2)
    fd = os.open(x, os.O_RDONLY)
    os.pread(fd, 8192, 0)
    os.close(fd)
def c():
    own(2)
    time.sleep(0.4)
    os.unlink(x)
ts = [threading.Thread(target=t) for t in (a, b, c)]
for t in ts:
    t.start()
for t in ts:
    t.join()
time.sleep(0.2)
PY
rec_file_workload "$out/work.py" "$w" "$out/w.ioreel"
python3 - "$out/w.csv" <<'PY' || fail "the recording is not what the workload did"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["path"].endswith("x.dat")]
ops = [(r["op"], r["tid"]) for r in rows if r["op"] in ("open", "unlink")]
tids = {t for _, t in ops}
print(ops)
assert [o for o, _ in ops] == ["open", "open", "unlink"] and len(tids) == 3, ops
PY

for i in $(seq 10); do
	mkdir "$dst/r$i"
	"$IOREEL" replay "$out/w.ioreel" --root "$dst/r$i" --allow-writes --mode dep \
		--engine psync --think-scale 0 --dep-think-max 10s --json -o "$out/r$i.ioreel" \
		>"$out/r$i.json" 2>"$out/r$i.err" || fail "replay $i: $(cat "$out/r$i.err")"
	python3 - "$out/r$i.json" <<'PY' || fail "replay $i: a call failed or was not reissued"
import json, sys
ops = json.load(open(sys.argv[1]))["file"]["ops"]
bad = {k: v for k, v in ops.items() if v["failed"]}
for k in ("open", "close", "unlink", "read", "write", "fsync"):
    if not ops.get(k, {}).get("replayed") or ops[k]["replayed"] != ops[k]["trace"]:
        bad[k] = ops.get(k)
print({k: (v["trace"], v["replayed"], v["failed"]) for k, v in ops.items()})
sys.exit(1 if bad else 0)
PY
done
echo "ok"
