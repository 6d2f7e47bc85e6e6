#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# --runtime: a replay that runs as long as asked, or as long as the trace lasted (a time-bound
# benchmark such as pgbench -T replayed onto a slower target), and stops issuing there. A
# trace of four synchronous threads (100 us I/Os, 50 us apart, 0.3 s) is replayed in dep mode
# onto the null engine at 1 ms per I/O, about 7x slower: with --runtime trace it stops at the
# trace's span with a prefix of each thread's I/Os issued, in order, and says how far into the
# trace it got; without it, every I/O. Timed mode with --runtime issues the I/Os due before
# the end; afap with --runtime trace is refused (no span), --runtime 0 too. A whole dep
# replay far longer than its trace names --runtime trace in its report. Function, not
# timing: the bounds are wide.
# timeout: 120
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
need_cmd python3
d=$(scratch_dir)
truncate -s 256M "$d/target.img"

python3 - "$d/t.csv" "$CSV_HEADER" <<'PY'
import random, sys
random.seed(11)
rows = []
for tid in (101, 102, 103, 104):
    t = tid
    for i in range(2000):
        rows.append((t * 1000, "", (t + 100) * 1000, "dev0",
                     random.randrange(0, 1 << 14) * 4096, 4096, "read", "", 0, 42, tid, "db", 0, 0))
        t += 150
rows.sort(key=lambda r: r[0])
with open(sys.argv[1], "w") as f:
    f.write(sys.argv[2] + "\n")
    for r in rows:
        f.write(",".join(str(x) for x in r) + "\n")
PY
mktrace "$d/t.csv" "$d/t.ioreel"

run() { # NAME ARGS...: a replay onto the null engine, its JSON in NAME.json
	local n=$1
	shift
	"$IOREEL" replay "$d/t.ioreel" --target "$d/target.img" --engine null --json -q \
		-o "$d/$n.ioreel" "$@" >"$d/$n.json" 2>"$d/$n.err" ||
		fail "replay $n failed: $(cat "$d/$n.err")"
}
run whole --mode dep --null-latency 1ms
run bound --mode dep --null-latency 1ms --runtime trace
run timed --runtime 100ms
result_csv "$d/bound.ioreel" >"$d/bound.csv"
python3 - "$d" <<'PY' || fail "--runtime (above)"
import collections, csv, json, sys
d = sys.argv[1]
f = {n: json.load(open(f"{d}/{n}.json"))["fidelity"] for n in ("whole", "bound", "timed")}
w, b, t = f["whole"], f["bound"], f["timed"]
print("whole: %d I/Os, runtime %d hit %s" % (w["ios"], w["runtime_ns"], w["runtime_hit"]))
print("bound: %d I/Os in %.3f s, trace reached %.3f of %.3f s, hit %s" % (
    b["ios"], b["runtime_ns"] / 1e9, b["trace_reached_ns"] / 1e9, b["trace_span_ns"] / 1e9,
    b["runtime_hit"]))
print("timed: %d I/Os, reached %.3f s, hit %s" % (t["ios"], t["trace_reached_ns"] / 1e9,
                                                  t["runtime_hit"]))
bad = []
if w["ios"] != 8000 or w["runtime_ns"] or w["runtime_hit"]:
    bad.append("without --runtime every I/O goes")
# the trace lasts 0.3 s; at 1 ms per I/O the replay needs ~2 s: it stops near a seventh
if b["runtime_ns"] != b["trace_span_ns"] or not b["runtime_hit"]:
    bad.append("--runtime trace: the trace's span, hit")
if not 100 <= b["ios"] <= 4000:
    bad.append("--runtime trace: %d I/Os, not a part of the 8000" % b["ios"])
if not 0 < b["trace_reached_ns"] < b["trace_span_ns"] * 0.6:
    bad.append("--runtime trace: reached %d" % b["trace_reached_ns"])
# the stretch is held against the part of the trace reached: the replay's span (the runtime,
# less the last I/Os' time) over the trace time reached, about x7 here; against the whole
# trace it would read as a shrink
span = (1 + b["stretch"]) * b["trace_reached_ns"]
if not 0.7 * b["runtime_ns"] <= span <= 1.05 * b["runtime_ns"]:
    bad.append("--runtime trace: stretch %.3f, not the replay's %.3f s over the %.3f s reached"
               % (b["stretch"], b["runtime_ns"] / 1e9, b["trace_reached_ns"] / 1e9))
# each thread's I/Os issued are the first ones of that thread, in order, none twice
rows = [r for r in csv.DictReader(l for l in open(f"{d}/bound.csv") if not l.startswith("#"))]
per = collections.Counter(r["tid"] for r in rows)
if len(rows) != b["ios"] or any(not 0 < n <= 2000 for n in per.values()):
    bad.append("per thread %s" % dict(per))
# timed, 100 ms of a 0.3 s schedule: about a third issued, the rest not
if not (t["runtime_hit"] and 1000 <= t["ios"] <= 3500 and
        t["trace_reached_ns"] <= 0.1e9 + 1e6):
    bad.append("timed --runtime 100ms")
print("ok" if not bad else "WRONG: " + "; ".join(bad))
sys.exit(1 if bad else 0)
PY
# the whole trace's dep replay, ~7x as long as the trace, says what --runtime trace would give;
# the bound one, which is that, does not
for n in whole bound; do
	args=(--mode dep --null-latency 1ms)
	[ "$n" = bound ] && args+=(--runtime trace)
	"$IOREEL" replay "$d/t.ioreel" --target "$d/target.img" --engine null "${args[@]}" \
		>"$d/$n.txt" 2>&1 || fail "replay $n (text) failed: $(cat "$d/$n.txt")"
done
grep -q "as long as the trace: .*--runtime trace gives its rates" "$d/whole.txt" ||
	fail "a long dep replay names --runtime trace: $(grep -i duration "$d/whole.txt")"
! grep -q "gives its rates" "$d/bound.txt" || fail "--runtime trace given: no hint wanted"
msg=$("$IOREEL" replay "$d/t.ioreel" --target "$d/target.img" --engine null --mode afap \
	--runtime trace 2>&1)
assert_eq "$?" 2 "afap --runtime trace: exit status"
grep -q "give a duration" <<<"$msg" || fail "afap --runtime trace: $msg"
assert_status 2 "$IOREEL" replay "$d/t.ioreel" --target "$d/target.img" --runtime 0
echo PASS
