#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A rank's own warnings under mpirun (issue 27 item 2): the ranks share one stderr, so each
# message is one whole line, written at once, and names its rank and host: "ioreel mpi replay:
# rank R on HOST: warning: ...". Two ranks replaying writes as reads both warn at the same
# moment (replay's "replaying N writes as reads"): each rank's line is there once, whole, with
# its prefix, and no line holds a second message. Over shared memory and TCP loopback.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi_common.inc"
d=$(scratch_dir)
cd "$d" || fail "cd $d"
mpi_trace "$d/A.ioreel" 1 a0 a1
host=$(hostname)

for t in $TRANSPORTS; do
	fleet "$t" 2 replay A.ioreel --engine null --target "$d/tgt-$t-%r" --size 16m \
		--writes-as-reads -o "$d/run-$t-%r.ioreel" -q >"out-$t" 2>"err-$t" ||
		{ cat "err-$t"; fail "$t: ioreel-mpi replay failed"; }
	cat "err-$t"
	for r in 0 1; do
		n=$(grep -c "^ioreel mpi replay: rank $r on $host: warning: replaying [0-9]* writes as reads" "err-$t")
		assert_eq "$n" 1 "$t: rank $r's writes-as-reads warning, whole and prefixed"
	done
	n=$(grep -c "writes as reads" "err-$t")
	assert_eq "$n" 2 "$t: writes-as-reads warnings (one per rank)"
	grep "ioreel mpi .*ioreel mpi" "err-$t" && fail "$t: two messages on one line"
	rm -f "$d"/tgt-"$t"-* "$d"/run-"$t"-*
done
echo PASS
