#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# --dep-kthread-clock progress (replay/dep/dep_pace.c): a kernel thread's I/O waits until the
# application's threads have issued everything the trace holds before it. The trace: one
# database thread's 100 sync reads (100 us each, 200 us apart) and a kworker's 10 writes, 2 ms
# apart, "recorded" on a fast device; replayed onto the null engine at 1 ms per I/O, the
# database runs ~5x slower than the trace while the kworker's chain barely slows. With the
# trace's clock (the default) the writes run ahead of the database; with progress each waits
# for it: exactly 10 held, and each write issued after every read recorded before it.
# Function, not timing: the order checked is the model's rule, and the default's lead is ~5x.
# timeout: 120
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
need_cmd python3
d=$(scratch_dir)
truncate -s 64M "$d/t.img"

csv_trace "$d/t.csv" "$d/t.ioreel" <<'PY'
def io(q, c, op, off, tid, comm, pid, flags=""):
    rows.append((q * 1000, "", c * 1000, "dev0", off, 4096, op, flags, 0, pid, tid, comm, 0, 0))
for i in range(100):
    q = 1000 + 200 * i
    io(q, q + 100, "read", 4096 * (100 + i), 101, "db", 42)
for k in range(10):
    q = 2000 + 2000 * k
    io(q, q + 100, "write", (1 << 20) + 4096 * k, 7, "kworker", 0, "kthread")
PY

dep_null_each "$d" --dep-kthread-clock "trace progress" "$d/t.ioreel" "$d/t.img" --null-latency 1ms
python3 - "$d" <<'PY' || fail "--dep-kthread-clock (above)"
import csv, json, sys
d = sys.argv[1]
bad = []
for m in ("trace", "progress"):
    f = json.load(open(f"{d}/{m}.json"))["fidelity"]
    dep = f["dep"]
    rows = [r for r in csv.DictReader(l for l in open(f"{d}/{m}.csv") if not l.startswith("#"))]
    reads = sorted(int(r["issue_ns"]) for r in rows if r["tid"] == "101")
    writes = sorted(int(r["issue_ns"]) for r in rows if r["tid"] == "7")
    # write k's trace time is 2000 + 2000k us: the reads recorded before it are 5 + 10k
    ahead = sum(1 for k, w in enumerate(writes) if sum(1 for t in reads if t <= w) < 5 + 10 * k)
    print("%s: %d I/Os, clock %s, %d held for %.1f ms in all, %d writes ahead of the reads "
          "recorded before them" % (m, f["ios"], dep["kthread_clock"], dep["kthread_paced"],
                                    dep["kthread_pace_ns"] / 1e6, ahead))
    if f["ios"] != 110 or len(reads) != 100 or len(writes) != 10:
        bad.append("%s: every I/O once" % m)
    if dep["kthread_clock"] != m:
        bad.append("%s: the report names the clock" % m)
    if m == "trace" and (dep["kthread_paced"] != 0 or ahead < 8):
        bad.append("trace: none held, the writes ahead of the database")
    if m == "progress" and (dep["kthread_paced"] != 10 or ahead != 0):
        bad.append("progress: all 10 held, none ahead of the reads before them")
print("ok" if not bad else "WRONG: " + "; ".join(bad))
sys.exit(1 if bad else 0)
PY
"$IOREEL" replay "$d/t.ioreel" --target "$d/t.img" --engine null --mode dep --allow-writes \
	--dep-kthread-clock progress >"$d/text.out" 2>&1 || fail "replay (text): $(cat "$d/text.out")"
grep -q "kernel threads on the application's clock" "$d/text.out" ||
	fail "the text report names the model: $(cat "$d/text.out")"
assert_status 2 "$IOREEL" replay "$d/t.ioreel" --target "$d/t.img" --dep-kthread-clock later
echo PASS
