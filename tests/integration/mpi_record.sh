#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ioreel-mpi record: two ranks record the same loop device while fio runs on it (two hosts
# recording their own disks, squeezed onto one machine). Both traces carry one genesis, rank
# 0's wall clock exactly, and the same I/O at the same trace time: the median of fio's I/Os
# seen in both traces is stamped the same to within 100 us (542 ns measured: 180 times that;
# two recorders each counting from its own start would disagree by their start gap on every
# I/O). Not a bound on every one: each recorder's program stamps the I/O in its own turn, and a
# virtual CPU held up by the hypervisor between the two put one I/O of 3,880 2.8 ms apart, on a
# host losing 4 % of its time to steal. Then the two traces
# replay together as a set, and analyze --merge reads them as one.
# timeout: 200
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"
. "$(dirname "$0")/mpi_common.inc"
d=$(scratch_dir)
cd "$d" || fail "cd $d"
dev=$(make_loop 128)

for t in $TRANSPORTS; do
	fleet "$t" 2 record -d "$dev" --duration 4 -o "rec-$t-%r.ioreel" --json >"rec-$t.json" \
		2>"err-$t" &
	job=$!
	for i in $(seq 100); do grep -q ' level$' "err-$t" 2>/dev/null && break; sleep 0.1; done
	grep -q ' level$' "err-$t" || { kill "$job"; cat "err-$t"; fail "$t: recorders not attached"; }
	# Only rank 0 says it is attached; rank 1's programs track from the same genesis, however
	# late its thread wakes for it, so fio may start now.
	fio --name=r --filename="$dev" --direct=1 --ioengine=libaio --rw=randrw --bs=4k \
		--iodepth=4 --size=64M --runtime=1 --time_based --output=/dev/null ||
		fail "fio failed"
	wait "$job" || { cat "err-$t"; fail "$t: ioreel-mpi record exited $?"; }
	for r in 0 1; do
		"$IOREEL" info "rec-$t-$r.ioreel" --json >"info-$t-$r.json" || fail "info rec-$t-$r"
		trace_csv "rec-$t-$r.ioreel" >"rec-$t-$r.csv" || fail "csv rec-$t-$r"
	done
	python3 - "$t" <<'PY' || fail "$t: see above"
import collections, csv, json, sys
t = sys.argv[1]
rec = json.load(open("rec-%s.json" % t))
assert rec["ranks"] == 2 and all(h["ok"] for h in rec["hosts"]), rec
g = [json.load(open("info-%s-%d.json" % (t, r)))["genesis_realtime_ns"] for r in (0, 1)]
assert g[0] == g[1] and g[0] == rec["hosts"][0]["genesis_realtime_ns"], "genesis differs: %s" % g
def times(r):
    seen = collections.defaultdict(list)
    for x in csv.DictReader(l for l in open("rec-%s-%d.csv" % (t, r)) if not l.startswith("#")):
        if x["comm"].startswith("fio"):
            seen[(x["op"], x["offset"], x["length"])].append(int(x["queue_ns"]))
    return {k: v[0] for k, v in seen.items() if len(v) == 1}
a, b = times(0), times(1)
common = set(a) & set(b)
assert len(common) > 100, "only %d of fio's I/Os seen once in both traces" % len(common)
diffs = sorted(abs(a[k] - b[k]) for k in common)
p50 = diffs[len(diffs) // 2]
print("%s: one genesis %d; %d I/Os in both traces, time difference p50 %d ns, p99 %d ns, max %d ns"
      % (t, g[0], len(common), p50, diffs[len(diffs) * 99 // 100], diffs[-1]))
assert p50 <= 100000, "the two traces stamp the same I/Os %d ns apart (median): not one clock" % p50
PY
done

# the two traces as a set: replayed together, and merged by analyze
fleet shm 2 replay rec-shm-0.ioreel rec-shm-1.ioreel --engine null --allow-writes \
	--target "tgt-%r" --size 128m -o "run-%r.ioreel" --json >set.json 2>err-set ||
	{ cat err-set; fail "replay of the set"; }
n0=$(python3 -c 'import json; print(sum(json.load(open("info-shm-%d.json" % r))["events"] for r in (0, 1)))')
python3 - "$n0" <<'PY' || fail "the set's replay: see above"
import json, sys
d = json.load(open("set.json"))
assert d["fleet"]["ios"] == int(sys.argv[1]), (d["fleet"]["ios"], sys.argv[1])
assert all(t["shift_ns"] == 0 for t in d["fleet"]["traces"]), "one genesis: no shift"
print("the two hosts' traces replayed as one set: %d I/Os, no shift between them" % d["fleet"]["ios"])
PY
"$IOREEL" analyze --merge rec-shm-0.ioreel rec-shm-1.ioreel >/dev/null || fail "analyze --merge"
echo "PASS: one genesis, the same I/O at the same time in both traces"
