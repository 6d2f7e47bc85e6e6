#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Issue 21: SIGINT or SIGTERM during a long analyze (32 million I/Os) ends it within a second
# (10 s allowed here), with exit 1 and "interrupted", and leaves no report under the final name:
# an earlier report there is left as it was, and no temporary file stays behind. Sent at
# several moments; a run that finished first must have written a complete report.
# timeout: 240
. "$(dirname "$0")/../lib.sh"
d=$(scratch_dir)
cd "$d" || fail "cd"
"$IOREEL" synth --rw randread --size 1g --rate-iops 1000000 --runtime 4 --time_based \
	--numjobs 8 -o big.ioreel >/dev/null || fail "synth"
interrupted=0
for sig in INT TERM; do
	for delay in 0.2 0.5 1; do
		echo "old report" >r.html
		"$IOREEL" analyze big.ioreel --html r.html >out 2>err &
		pid=$!
		sleep "$delay"
		kill -"$sig" "$pid" 2>/dev/null
		t0=$(date +%s%N)
		wait "$pid"
		rc=$?
		ms=$((($(date +%s%N) - t0) / 1000000))
		[ "$ms" -lt 10000 ] || fail "SIG$sig after ${delay}s: ended ${ms} ms later"
		extra=$(ls -A | grep -v -x -e big.ioreel -e r.html -e out -e err)
		[ -z "$extra" ] || fail "SIG$sig after ${delay}s: left $extra"
		if [ "$rc" = 0 ]; then # it finished before the signal
			tail -c 20 r.html | grep -q '</html>' || fail "finished but r.html incomplete"
			continue
		fi
		assert_eq "$rc" 1 "SIG$sig after ${delay}s: exit status"
		grep -q "interrupted by SIG$sig: no report written to r.html" err ||
			fail "SIG$sig after ${delay}s: $(cat err)"
		assert_eq "$(cat r.html)" "old report" "SIG$sig after ${delay}s: r.html"
		interrupted=$((interrupted + 1))
	done
done
[ "$interrupted" -ge 1 ] || skip "every analyze finished before its signal: a faster machine"
echo "ok ($interrupted interrupted)"
