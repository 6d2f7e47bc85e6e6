#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The fleet's clock on 2 and 4 ranks over shared memory and TCP loopback: an offset injected
# per rank (the test-only IOREEL_TEST_CLOCK_SKEW_NS: rank r's clock runs r x that ahead) is
# recovered within its reported uncertainty plus 1 us, for a positive and a negative one; and a
# replay whose ranks' clocks are 50 ms apart still starts them together (the start converted
# into each rank's clock), as measured on this host's one CLOCK_MONOTONIC; and a rank that
# gets the start's announcement too late makes the fleet announce it again, not start late.
# timeout: 300
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi_common.inc"
need_root
d=$(scratch_dir)
cd "$d" || fail "cd $d"

for t in $TRANSPORTS; do
	for np in 2 4; do
		for skew in 1234567 -777777; do
			IOREEL_TEST_CLOCK_SKEW_NS=$skew fleet "$t" "$np" \
				clock --starts 5 --gap 0 --json >"clock-$t$np.json" 2>"err-$t$np" ||
				{ cat "err-$t$np"; fail "clock on $np ranks over $t"; }
			python3 - "clock-$t$np.json" "$skew" "$t" <<'PY' || fail "$t, $np ranks, skew $skew: see above"
import json, sys
d = json.load(open(sys.argv[1]))
skew, t = int(sys.argv[2]), sys.argv[3]
assert d["one_host"], "not one host?"
worst = 0
for r in d["per_rank"]:
    want = r["rank"] * skew
    assert r["injected_ns"] == want, r
    err = r["offset_ns"] - want
    bound = r["uncertainty_ns"] + 1000
    assert abs(err) <= bound, "rank %d: offset %d, injected %d: error %d > %d" % (r["rank"], r["offset_ns"], want, err, bound)
    worst = max(worst, abs(err))
print("%s, %d ranks, %+d ns per rank injected: worst error %d ns (uncertainties %s ns)" %
      (t, d["ranks"], skew, worst, [r["uncertainty_ns"] for r in d["per_rank"]]))
PY
		done
	done
done

# A replay with the ranks' clocks 50 ms apart: the ranks still start together.
"$IOREEL" synth --rw randread --bs 4k --size 8m --rate-iops 1000 --runtime 1 -o s.ioreel \
	>/dev/null || fail "synth"
for t in $TRANSPORTS; do
	IOREEL_TEST_CLOCK_SKEW_NS=50000000 fleet "$t" 2 replay s.ioreel \
		--engine null --target "tgt-%r" --size 8m --json >"skewed-$t.json" 2>"err-$t" ||
		{ cat "err-$t"; fail "replay with skewed clocks over $t"; }
	python3 - "skewed-$t.json" "$t" <<'PY' || fail "skewed clocks over $t: see above"
import json, sys
d = json.load(open(sys.argv[1]))["fleet"]
m = d["start"]["measured_skew_ns"]
offs = [c["ioreel_fleet"]["clock"]["offset_ns"] for c in json.load(open(sys.argv[1]))["client_stats"]]
assert abs(offs[1] - 50000000) < 100000, offs
# 50 ms apart if the start were not converted: the function is the conversion, so the bound
# is half that (a vCPU held off 9.5 ms by the hypervisor was seen); the 5 us goal is bench/'s
assert m < 25000000, "ranks started %d ns apart with clocks 50 ms apart" % m
print("%s: clocks 50 ms apart (estimated %s), ranks started %d ns apart" % (sys.argv[2], offs, m))
PY
done

# A rank that gets the start late (the test-only IOREEL_TEST_LATE_ANNOUNCE_NS: the last rank
# sleeps 30 ms once the first announcement is in, past the 20 ms slack): the start is
# announced again with twice the slack, so every rank meets it and the run stays valid.
for t in $TRANSPORTS; do
	IOREEL_TEST_LATE_ANNOUNCE_NS=30000000 fleet "$t" 2 replay s.ioreel --slack 20ms \
		--engine null --target "tgt-%r" --size 8m --json >"late-$t.json" 2>"err-$t" ||
		{ cat "err-$t"; fail "replay with a rank late to the announcement over $t"; }
	python3 - "late-$t.json" "$t" <<'PY' || fail "a late announcement over $t: see above"
import json, sys
d = json.load(open(sys.argv[1]))["fleet"]
s = d["start"]
# the function: every rank met the re-announced start and the run is valid; how close they
# started is the skew goal's, measured in bench/mpi_clock.sh, not asserted here
assert s["all_met"] and not d["invalid"], "start missed after a late announcement: %s" % s
print("%s: a rank 30 ms late to a 20 ms announcement: start met, ranks %d ns apart"
      % (sys.argv[2], s["measured_skew_ns"]))
PY
done
echo "PASS: injected offsets recovered, skewed clocks start together, a late rank re-announced"
