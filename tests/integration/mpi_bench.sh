#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ioreel-mpi bench: one synthesized job on every rank, like IOR. Each rank replays its own copy
# (its seed moved by its rank: different random offsets; --same-seed: the same), the fleet's
# I/Os are the ranks' sum, --segments puts rank r's offsets r x the job's extent further on one
# shared target, and a job synth refuses is refused by every rank, with its reason, once.
# timeout: 200
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi_common.inc"
need_root
d=$(scratch_dir)
cd "$d" || fail "cd $d"
job=(--rw randread --bs 4k --size 8m --number-ios 400 --iodepth 4)

# offsets NAME: the sorted offsets of rank NAME's result trace, one line
offsets() { "$IOREEL" convert "$1" - --to csv 2>/dev/null | grep -v '^#' | cut -d, -f5 | sort -n | tr '\n' ' '; }

for t in $TRANSPORTS; do
	fleet "$t" 2 bench "${job[@]}" -- --engine null --target "tgt-%r" --size 8m \
		-o "run-$t-%r.ioreel" --json >"bench-$t.json" 2>"err-$t" ||
		{ cat "err-$t"; fail "bench over $t"; }
	python3 - "bench-$t.json" <<'PY' || fail "bench over $t: see above"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["fleet"]["verb"] == "bench" and d["fleet"]["status"] == "ok", d["fleet"]
assert d["fleet"]["ios"] == 800, d["fleet"]["ios"]
assert [c["read"]["total_ios"] for c in d["client_stats"]] == [400, 400]
assert d["jobs"][0]["read"]["total_ios"] == 800
print("bench: 2 ranks x 400 reads, summed in jobs[0]")
PY
	[ "$(offsets "run-$t-0.ioreel")" != "$(offsets "run-$t-1.ioreel")" ] ||
		fail "$t: both ranks read the same offsets (seeds not moved by rank)"
done

fleet shm 2 bench "${job[@]}" --same-seed -- --engine null --target "tgt-%r" --size 8m \
	-o "run-same-%r.ioreel" >/dev/null 2>err-same || { cat err-same; fail "--same-seed"; }
[ "$(offsets run-same-0.ioreel)" = "$(offsets run-same-1.ioreel)" ] ||
	fail "--same-seed: the ranks read different offsets"

# --segments: one shared target, rank 1 in the second 8 MiB
truncate -s 16m shared.img
fleet shm 2 bench "${job[@]}" -- --engine null --target shared.img --segments \
	-o "run-seg-%r.ioreel" >/dev/null 2>err-seg || { cat err-seg; fail "--segments"; }
for r in 0 1; do "$IOREEL" convert "run-seg-$r.ioreel" "run-seg-$r.csv" --to csv >/dev/null || fail convert; done
python3 - <<'PY' || fail "--segments: see above"
import csv
for r in (0, 1):
    rows = [x for x in csv.DictReader(l for l in open("run-seg-%d.csv" % r) if not l.startswith("#"))]
    offs = [int(x["offset"]) for x in rows]
    lo, hi = r * 8 << 20, (r + 1) * 8 << 20
    assert len(offs) == 400 and all(lo <= o < hi for o in offs), "rank %d: offsets outside [%d, %d)" % (r, lo, hi)
print("--segments: each rank's 400 reads in its own 8 MiB of the shared target")
PY
# a bad job: refused, said once for both ranks
assert_status 1 fleet shm 2 bench --rw sideways -- --target "tgt-%r" >/dev/null 2>err-bad
grep -q "rank 0 on .*, rank 1 on .*: .*sideways" err-bad || { cat err-bad; fail "bad job message"; }
echo "PASS: bench sums its ranks, seeds per rank, segments"
