#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# --dep-writer-clock trace (replay/dep/dep_infer.c): a user thread that has only written, never
# read nor flushed (a database's checkpointer), keeps its own clock. The trace, "recorded" on a
# fast device: a database thread's 50 commits (a write, then a flush, 1 ms apart) and a writer
# thread's 10 bursts of 4 writes, 5 ms apart, each burst queued 20 us after one of the
# database's flushes completed (so inference would take that flush for what woke it: a barrier
# edge). Replayed onto the null engine at 1 ms per write and 5 ms per flush, the database runs
# ~6x slower than the trace. Following its dependencies (deps, the default), each burst waits
# for that flush and so for the database; on its own clock it does not: its bursts come well
# before those flushes complete. Function, not timing: the ordering is the model's rule, and
# the lead is ~5x (bursts ~6 ms apart against the database's ~30 ms per 5 commits).
# timeout: 120
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
need_cmd python3
d=$(scratch_dir)
truncate -s 64M "$d/t.img"

csv_trace "$d/t.csv" "$d/t.ioreel" <<'PY'
def io(q, c, op, off, tid, length=4096):
    rows.append((q * 1000, "", c * 1000, "dev0", off, length, op, "", 0, 42, tid, "postgres",
                 0, 0))
for k in range(50):                      # the database: write, then flush (tid 101)
    q = 1000 * k
    io(q, q + 50, "write", 4096 * k, 101)
    io(q + 60, q + 160, "flush", 0, 101, 0)
for j in range(10):                      # the writer (tid 9): 20 us after commit 5j's flush
    q = 5000 * j + 180
    for i in range(4):
        io(q + 10 * i, q + 10 * i + 50, "write", (1 << 20) + 4096 * (4 * j + i), 9)
PY

dep_null_each "$d" --dep-writer-clock "deps trace" "$d/t.ioreel" "$d/t.img" --null-latency 1ms,5ms
python3 - "$d" <<'PY' || fail "--dep-writer-clock (above)"
import csv, json, sys
d = sys.argv[1]
bad = []
for m in ("deps", "trace"):
    f = json.load(open(f"{d}/{m}.json"))["fidelity"]
    dep = f["dep"]
    rows = [r for r in csv.DictReader(l for l in open(f"{d}/{m}.csv") if not l.startswith("#"))]
    flushes = sorted(int(r["complete_ns"]) for r in rows if r["tid"] == "101" and r["op"] == "flush")
    bursts = sorted(int(r["issue_ns"]) for r in rows if r["tid"] == "9")[::4]
    # burst j came 20 us after commit 5j's flush completed in the recording
    early = sum(1 for j, b in enumerate(bursts) if j and b < flushes[5 * j])
    print("%s: %d I/Os, %d of a timed writer's, %d of 9 bursts before the flush recorded "
          "before them completed" % (m, f["ios"], dep["writer_ios"], early))
    if dep["writer_clock"] != m:
        bad.append("%s: the report names the clock" % m)
    if f["ios"] != 140 or len(flushes) != 50 or len(bursts) != 10:
        bad.append("%s: every I/O once" % m)
    if m == "deps" and (dep["writer_ios"] != 0 or early != 0):
        bad.append("deps: no timed writer, each burst after its flush")
    if m == "trace" and (dep["writer_ios"] != 37 or early < 8):
        bad.append("trace: the writer's I/Os from its 4th on its own clock, its bursts "
                   "ahead of the database")
print("ok" if not bad else "WRONG: " + "; ".join(bad))
sys.exit(1 if bad else 0)
PY
"$IOREEL" replay "$d/t.ioreel" --target "$d/t.img" --engine null --mode dep --allow-writes \
	--dep-writer-clock trace >"$d/text.out" 2>&1 || fail "replay (text): $(cat "$d/text.out")"
grep -q "timed writers (--dep-writer-clock trace): 37 I/Os" "$d/text.out" ||
	fail "the text report names the model: $(cat "$d/text.out")"
assert_status 2 "$IOREEL" replay "$d/t.ioreel" --target "$d/t.img" --dep-writer-clock timer
echo PASS
