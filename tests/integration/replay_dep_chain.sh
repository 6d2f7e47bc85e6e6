#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# timeout: 240
# Chains (--dep-chain, replay/dep/dep_run.c): a file-level dep replay with the threads engine
# hands a thread's next call to its own worker as soon as the call before it is handed over,
# and the worker makes it the recorded think time after that one completed. Recorded: two
# threads, each reading 4 KiB blocks with 0-3 ms pauses between calls and an fdatasync every
# 8 calls, with a write between (calls back to back, under the 2 us the block level calls "too
# soon to have waited": at file level they are still synchronous). Replayed onto ext4 with
# chains on and off, the function is checked, not the time:
# - every call is replayed, none fails, in each thread's recorded order;
# - no call of a thread begins before its previous one completed (one worker per thread);
# - no call begins before the recorded think time after its previous one completed, less how
#   late that one began (dep mode's rule, edge_time); 5 us of slack for clock reads. Without
#   barrier edges (--dep-barrier none): a call after another thread's fdatasync would count
#   its think time from that one instead; and with every pause a think time (--dep-think-max
#   1s): on a loaded machine a 3 ms sleep of the workload's can pass 10 ms, the default, and
#   such a call keeps its trace time instead;
# - with chains on, calls are chained (the JSON's dep.chained, a fifth at least); off, none;
#   on both when threads is named and when no engine is (recorded with --cpu, dep mode's
#   default of waits for a CPU chooses threads after the mode's setup: chains were off there);
# - the calls released back to back are sync releases, not async (file level);
# - the result trace names the calls system calls, as the threads made them.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"
src=$(make_fs ext4 "$(make_loop 64)")
out=$(scratch_dir)
w=$src/w
mkdir -p "$w" "$out/root"
cat >"$out/work.py" <<'PY'
import os, random, sys, threading, time
d = sys.argv[1]
for n in ("a", "b"):
    with open(os.path.join(d, n), "wb") as f:
        f.write(os.urandom(1 << 20))
        os.fsync(f.fileno())
open(os.path.join(d, "ready"), "w").close()
while not os.path.exists(os.path.join(d, "go")):
    time.sleep(0.01)
def worker(name, seed):
    rnd = random.Random(seed)
    fd = os.open(os.path.join(d, name), os.O_RDWR)
    for i in range(200):
        os.pread(fd, 4096, rnd.randrange(256) * 4096)
        if i % 8 == 7:
            os.pwrite(fd, b"w" * 4096, rnd.randrange(256) * 4096)
            os.fdatasync(fd)
        time.sleep(rnd.choice((0, 0, 0.0005, 0.001, 0.003)))
    os.close(fd)
ts = [threading.Thread(target=worker, args=(n, k)) for k, n in enumerate("ab")]
for t in ts:
    t.start()
for t in ts:
    t.join()
PY
rec_file_workload "$out/work.py" "$w" "$out/f.ioreel" --cpu

# rp NAME ARGS...: the recording replayed in dep mode (engine threads: named, or the default)
rp() {
	local name=$1
	shift
	rm -rf "$out/root" && mkdir "$out/root"
	"$IOREEL" replay "$out/f.ioreel" --root "$out/root" --allow-writes --force --mode dep \
		--dep-barrier none --dep-think-max 1s --json -q \
		-o "$out/$name.ioreel" "$@" \
		>"$out/$name.json" \
		2>"$out/$name.err" || fail "replay $name failed: $(cat "$out/$name.err")"
	trace_csv "$out/$name.ioreel" >"$out/$name.csv" || fail "cannot export $name's result"
}
# check NAME on|off
check() {
	python3 -u - "$out/f.csv" "$out/$1.csv" "$out/$1.json" "$2" <<'PY' || fail "$1: see above"
import csv, json, sys
def calls(path):
    per = {}
    rows = csv.DictReader(l for l in open(path) if not l.startswith("#"))
    for r in rows:
        if r["op"] not in ("read", "write", "fdatasync") or not r["complete_ns"]:
            continue
        q, c = int(r["queue_ns"]), int(r["complete_ns"])
        i = int(r["issue_ns"]) if r["issue_ns"] else q
        per.setdefault(r["tid"], []).append((r["op"], q, i, c, r["iface"]))
    return per
rec, rep = calls(sys.argv[1]), calls(sys.argv[2])
fid = json.load(open(sys.argv[3]))["fidelity"]
dep = fid["dep"]
n = sum(len(v) for v in rec.values())
assert set(rec) == set(rep), (sorted(rec), sorted(rep))
early = overlap = 0
for tid, rv in rec.items():
    pv = rep[tid]
    assert [x[0] for x in rv] == [x[0] for x in pv], "thread %s: calls out of order" % tid
    for k in range(1, len(pv)):
        gap = rv[k][1] - rv[k - 1][3]           # recorded think time
        late = max(0, pv[k - 1][2] - pv[k - 1][1])  # how late the previous one began
        if pv[k][2] < pv[k - 1][3]:
            overlap += 1
        if pv[k][2] + 5000 < pv[k - 1][3] + max(0, gap - late):
            early += 1
            if early <= 5:
                print("early: thread %s call %d %s: began %d, previous %s queued %d began %d "
                      "completed %d, recorded gap %d, queued %d" % (tid, k, pv[k][0], pv[k][2],
                      pv[k - 1][0], pv[k - 1][1], pv[k - 1][2], pv[k - 1][3], gap, pv[k][1]))
print("%s: %d calls, %d threads, chained %d, released %s, overlapping %d, early %d, errors %d"
      % (sys.argv[4], n, len(rec), dep["chained"], dep["released"], overlap, early, fid["errors"]))
assert fid["errors"] == 0
assert fid["engine"] == "threads", fid["engine"]
assert overlap == 0 and early == 0
assert dep["released"]["async"] == 0, "back-to-back calls taken for asynchronous ones"
# the threads made plain system calls, and the result trace says so (it said uring where the
# engine was chosen after the source's setup)
ifaces = {x[4] for v in rep.values() for x in v}
assert ifaces == {"syscall"}, "result trace names the calls' interface %s" % sorted(ifaces)
if sys.argv[4] == "on":
    # 450-480 of 500 on a quiet machine, 350-380 with both cores busy beside it
    assert dep["chained"] >= n // 5, "expected calls chained"
else:
    assert dep["chained"] == 0
PY
}
rp on
check on on
rp named --engine threads
check named on
rp off --engine threads --dep-chain off
check off off
echo PASS
