#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A rank's own warnings under mpirun (issue 27 item 2): the ranks share one stderr, so each
# message is one whole line, written at once, and names its rank and host: "ioreel mpi replay:
# rank R on HOST: warning: ...". Two ranks replaying writes as reads both warn at the same
# moment (replay's "replaying N writes as reads"): each rank's line is there once, whole, with
# its prefix, and no line holds a second message. Over shared memory and TCP loopback.
# Where cgroup v1's real-time group scheduling is there, the same fleet run in a cgroup with no
# real-time runtime (SCHED_FIFO refused even to root) still starts, each rank saying once, in
# its own prefixed line, that its start ran at nice -20.
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
		w="^ioreel mpi replay: rank $r on $host: warning: replaying [0-9]* writes as reads"
		n=$(grep -c "$w" "err-$t")
		assert_eq "$n" 1 "$t: rank $r's writes-as-reads warning, whole and prefixed"
	done
	n=$(grep -c "writes as reads" "err-$t")
	assert_eq "$n" 2 "$t: writes-as-reads warnings (one per rank)"
	grep "ioreel mpi .*ioreel mpi" "err-$t" && fail "$t: two messages on one line"
	rm -f "$d"/tgt-"$t"-* "$d"/run-"$t"-*
done

rt=/sys/fs/cgroup/cpu
if [ -w "$rt/cpu.rt_runtime_us" ]; then
	cg=$(mktemp -d "$rt/ioreel-test.XXXXXX") || fail "cannot make a cgroup under $rt"
	cleanup_push "rmdir '$cg'"
	assert_eq "$(cat "$cg/cpu.rt_runtime_us")" 0 "a new cgroup's real-time runtime"
	# shellcheck disable=SC2046
	(echo "$BASHPID" >"$cg/cgroup.procs" && exec timeout -k 5 100 mpirun $(btl_args shm) \
		-np 2 "$IOREEL_MPI" replay A.ioreel --engine null --target "$d/tgt-rt-%r" \
		--size 16m -o "$d/run-rt-%r.ioreel" -q) >out-rt 2>err-rt ||
		{ cat err-rt; fail "ioreel-mpi replay without real-time failed"; }
	cat err-rt
	for r in 0 1; do
		w="^ioreel mpi replay: rank $r on $host: warning: the start runs at nice -20: "
		n=$(grep -c "${w}real-time priority was refused" err-rt)
		assert_eq "$n" 1 "rank $r's warning that its start ran without real-time"
	done
else
	echo "no cgroup v1 real-time group scheduling here: the refused case is not run"
fi
echo PASS
