#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ioreel-mpi replay of a trace set on 1, 2 and 4 ranks, over shared memory and TCP loopback:
# every event of the set is replayed exactly once (the ranks' result traces hold the set's
# multiset of device, offset, length and op, each at its place in the set's time: its trace
# time plus the trace's genesis shift), a split device's stripes each on one rank, and the
# fleet's summed histograms equal `ioreel analyze --merge` of the result traces, bucket for
# bucket. Also: afap and dep modes replay every event once, a plan file places devices and
# stripes on the ranks it names, and an idle rank (more ranks than parts) takes part.
# timeout: 600
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi_common.inc"
need_root
d=$(scratch_dir)
cd "$d" || fail "cd $d"
mpi_trace "$d/A.ioreel" 1 a0 a1
sleep 0.3 # B's genesis later: the set's time shifts B by the difference
mpi_trace "$d/B.ioreel" 1 b0

# check NAME NP [RANKS]: NP result traces run-NAME-*.ioreel against the set; fleet-NAME.json
# (RANKS ranks, default NP) against analyze --merge of them. TIMES=0: modes without the
# trace's clock (afap, dep) skip the times.
check() {
	local name=$1 np=$2 ranks=${3:-$2} times=${TIMES:-1} t
	"$IOREEL" analyze --merge run-"$name"-*.ioreel --json --bins >"merged-$name.json" ||
		fail "$name: analyze --merge of the result traces"
	"$IOREEL" analyze "fleet-$name.json" --json --bins >"back-$name.json" ||
		fail "$name: analyze of the fleet's report"
	for t in A B run-"$name"-*; do
		"$IOREEL" convert "${t%.ioreel}.ioreel" "$t.csv" --to csv >/dev/null 2>&1 ||
			fail "$name: convert $t"
		"$IOREEL" info "${t%.ioreel}.ioreel" --json >"$t.info.json" || fail "info $t"
	done
	python3 - "$name" "$np" "$times" "$ranks" <<'PY' || fail "$name on $np ranks: see above"
import collections, csv, glob, json, sys
name, np, times, ranks = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", int(sys.argv[4])
def rows(f):
    return [r for r in csv.DictReader(l for l in open(f) if not l.startswith("#"))]
def info(f):
    return json.load(open(f + ".info.json"))
def genesis(t):
    i = info(t)
    return i.get("genesis_realtime_ns") or i.get("meta", {}).get("genesis_realtime_ns")
g = {t: genesis(t) for t in ("A", "B")}
gmin = min(g.values())
want = collections.Counter()
first = None
events = {}
for t in ("A", "B"):
    rs = rows(t + ".csv")
    events[t] = rs
    for r in rs:
        q = int(r["queue_ns"]) + g[t] - gmin
        first = q if first is None else min(first, q)
for t in ("A", "B"):
    for r in events[t]:
        q = int(r["queue_ns"]) + g[t] - gmin - first
        key = (r["dev"].split(".")[0], r["offset"], r["length"], r["op"])
        want[key + ((q,) if times else ())] += 1
got = collections.Counter()
per_rank = collections.Counter()
for f in sorted(glob.glob("run-%s-*.ioreel.csv" % name)):
    for r in rows(f):
        # result devices are the targets tgt-<dev>-<rank>
        dev = r["dev"].split("-")[1]
        key = (dev, r["offset"], r["length"], r["op"])
        got[key + ((int(r["queue_ns"]),) if times else ())] += 1
        per_rank[f] += 1
print("%s on %d ranks: %d events in the set, %d replayed, per rank %s" %
      (name, np, sum(want.values()), sum(got.values()), dict(per_rank)))
if got != want:
    missing, extra = want - got, got - want
    print("missing (first 5):", list(missing.items())[:5])
    print("extra or duplicated (first 5):", list(extra.items())[:5])
    sys.exit(1)
if len(per_rank) != np:
    print("expected %d result traces, found %d" % (np, len(per_rank)))
    sys.exit(1)
fl = json.load(open("fleet-%s.json" % name))
mg = json.load(open("merged-%s.json" % name))
assert len(fl["client_stats"]) == ranks, "client_stats: %d entries" % len(fl["client_stats"])
assert fl["fleet"]["ios"] == sum(want.values()), "fleet ios %d" % fl["fleet"]["ios"]
a, b = fl["jobs"][0], mg["jobs"][0]
for op in ("read", "write", "sync", "trim"):
    assert a[op]["total_ios"] == b[op]["total_ios"], (op, a[op]["total_ios"], b[op]["total_ios"])
    assert a[op]["io_bytes"] == b[op]["io_bytes"], op
    for k in ("slat_ns", "clat_ns", "lat_ns"):
        x, y = a[op][k], b[op][k]
        assert x["N"] == y["N"] and x.get("bins", {}) == y.get("bins", {}), (op, k, "buckets differ")
        assert x["min"] == y["min"] and x["max"] == y["max"], (op, k, "min/max")
        assert abs(x["mean"] - y["mean"]) <= 1e-6 * max(1, abs(y["mean"])), (op, k, x["mean"], y["mean"])
        if x["N"]:
            assert x["percentile"] == y["percentile"] or k != "clat_ns", (op, k, "percentiles")
# analyze reads the fleet's report back: the sum and every rank, histograms exact
bk = json.load(open("back-%s.json" % name))["jobs"]
assert len(bk) == 1 + ranks, "analyze read %d jobs from the report" % len(bk)
for x, y in zip(fl["jobs"] + fl["client_stats"], bk):
    for op in ("read", "write"):
        assert x[op]["total_ios"] == y[op]["total_ios"], ("read back", op)
        for k in ("slat_ns", "clat_ns", "lat_ns"):
            assert x[op][k].get("bins", {}) == y[op][k].get("bins", {}), ("read back", op, k)
# the client_stats add up to the jobs entry
for op in ("read", "write"):
    assert sum(c[op]["total_ios"] for c in fl["client_stats"]) == a[op]["total_ios"], op
print("fleet JSON: %d ranks, histograms equal analyze --merge bucket for bucket" % ranks)
PY
}

for t in $TRANSPORTS; do
	for np in 1 2 4; do
		name=$t$np
		fleet "$t" "$np" replay A.ioreel B.ioreel --engine null --allow-writes --size 16m \
			--map a0=tgt-a0-%r --map a1=tgt-a1-%r --map b0=tgt-b0-%r \
			-o "run-$name-%r.ioreel" --json >"fleet-$name.json" 2>"err-$name" ||
			{ cat "err-$name"; fail "replay on $np ranks over $t"; }
		check "$name" "$np"
		rm -f tgt-*
	done
done

# modes without the trace's clock: every event still once
TIMES=0
fleet shm 2 replay A.ioreel B.ioreel --engine null --allow-writes --size 16m --mode afap \
	--map a0=tgt-a0-%r --map a1=tgt-a1-%r --map b0=tgt-b0-%r -o "run-afap-%r.ioreel" --json \
	>fleet-afap.json 2>err-afap || { cat err-afap; fail "afap"; }
check afap 2
fleet tcp 4 replay A.ioreel B.ioreel --engine null --allow-writes --size 16m --mode dep \
	--dep-fallback timed --map a0=tgt-a0-%r --map a1=tgt-a1-%r --map b0=tgt-b0-%r \
	-o "run-dep-%r.ioreel" --json >fleet-dep.json 2>err-dep || { cat err-dep; fail "dep"; }
check dep 4
TIMES=1

# a plan: A's a0 split over ranks 2,0 (stripes in that order), a1 on 1, B on 0; rank 3 idle
cat >plan.txt <<PLAN
# trace   device  ranks   target
A.ioreel  a0      2,0     tgt-a0-%r
A.ioreel  a1      1       tgt-a1-%r
B.ioreel  *       0       tgt-b0-%r
PLAN
fleet shm 4 replay A.ioreel B.ioreel --plan plan.txt --stripe 64k --engine null \
	--allow-writes --size 16m -o "run-plan-%r.ioreel" --json >fleet-plan.json 2>err-plan ||
	{ cat err-plan; fail "replay with a plan"; }
grep -q "rank 3 .*nothing to replay" err-plan && fail "a plan's idle rank warned as by load"
check plan 3 4 # rank 3 is idle: no result trace
python3 - <<'PY' || fail "the plan's placement"
import csv, glob
def rows(f):
    return [r for r in csv.DictReader(l for l in open(f) if not l.startswith("#"))]
for f in glob.glob("run-plan-*.ioreel.csv"):
    rank = int(f.split("-")[2].split(".")[0])
    for r in rows(f):
        dev = r["dev"].split("-")[1]
        stripe = int(r["offset"]) // 65536 % 2
        want = {("a0", 0): 2, ("a0", 1): 0}.get((dev, stripe), {"a1": 1, "b0": 0}.get(dev))
        assert want == rank, "%s offset %s (stripe %d) on rank %d, planned for %d" % (dev, r["offset"], stripe, rank, want)
print("every event on the rank the plan names, stripes by 64k")
PY
echo "PASS: exactly once on 1, 2 and 4 ranks over $TRANSPORTS, modes timed/afap/dep, a plan"
