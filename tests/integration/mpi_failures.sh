#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ioreel-mpi when one rank cannot go on: a trace missing on one rank, a target it cannot make, a
# mounted target on one rank, a simulated version mismatch: rank 0 names the rank and its host
# with the reason, every rank exits non-zero, nothing is replayed (no result trace is even
# created, no target file made for it left). A rank killed
# mid-run fails the job with mpirun's message naming it, and a rank that hangs is named by
# rank 0 after --wait: never a hang. Each over shared memory and TCP loopback.
# timeout: 400
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi_common.inc"
need_root
need_cmd mkfs.ext4
d=$(scratch_dir)
cd "$d" || fail "cd $d"
mpi_trace "$d/A.ioreel" 1 a0 a1
mpi_trace "$d/B.ioreel" 1 b0
host=$(hostname)

# expect_refused NAME PATTERN...: the run named NAME (err-NAME, rc-NAME) failed, rank 0 said
# each PATTERN, and no rank created its result trace.
expect_refused() {
	local name=$1 p
	shift
	[ "$(cat "rc-$name")" != 0 ] || fail "$name: exited 0"
	for p in "$@"; do
		grep -q -- "$p" "err-$name" || { cat "err-$name"; fail "$name: no '$p' in the messages"; }
	done
	! ls run-"$name"-* >/dev/null 2>&1 || fail "$name: a result trace was created: $(ls run-"$name"-*)"
}

for t in $TRANSPORTS; do
	# 1. the trace missing on rank 1 (each rank in a directory of its own, as on two hosts)
	mkdir -p "h0-$t" "h1-$t"
	cp A.ioreel "h0-$t/"
	# shellcheck disable=SC2046
	timeout -k 5 100 mpirun $(btl_args "$t") \
		-np 1 --wdir "$d/h0-$t" "$IOREEL_MPI" replay A.ioreel --engine null --target "tgt-%r" \
		--size 16m -o "$d/run-missing$t-%r.ioreel" : \
		-np 1 --wdir "$d/h1-$t" "$IOREEL_MPI" replay A.ioreel --engine null --target "tgt-%r" \
		--size 16m -o "$d/run-missing$t-%r.ioreel" >/dev/null 2>"err-missing$t"
	echo $? >"rc-missing$t"
	expect_refused "missing$t" "rank 1 on $host: cannot read trace A.ioreel" \
		"No such file" "stopped before any I/O"
	grep -q "rank 0 on" "err-missing$t" && fail "missing$t: rank 0 blamed too"
	# 1b. rank 1's target in a directory it lacks: rank 0 made its own target file (--size)
	# before they compared notes, and removes it, as a replay removes a target it cannot use
	cp A.ioreel "h1-$t/"
	# shellcheck disable=SC2046
	timeout -k 5 100 mpirun $(btl_args "$t") \
		-np 1 --wdir "$d/h0-$t" "$IOREEL_MPI" replay A.ioreel --engine null --target "tgt-%r" \
		--size 16m -o "$d/run-nodir$t-%r.ioreel" : \
		-np 1 --wdir "$d/h1-$t" "$IOREEL_MPI" replay A.ioreel --engine null \
		--target "nodir/tgt-%r" --size 16m -o "$d/run-nodir$t-%r.ioreel" \
		>/dev/null 2>"err-nodir$t"
	echo $? >"rc-nodir$t"
	expect_refused "nodir$t" "rank 1 on $host: " "nodir/tgt-1" "stopped before any I/O"
	[ ! -e "h0-$t/tgt-0" ] || fail "nodir$t: rank 0 left the target it made (h0-$t/tgt-0)"

	# 2. a version mismatch on rank 1 (simulated: IOREEL_TEST_VERSION)
	# shellcheck disable=SC2046
	timeout -k 5 100 mpirun $(btl_args "$t") \
		-np 1 "$IOREEL_MPI" replay A.ioreel --engine null --target tgt --size 16m \
		-o "run-version$t-%r.ioreel" : \
		-np 1 env IOREEL_TEST_VERSION=9.9.9 "$IOREEL_MPI" replay A.ioreel --engine null \
		--target tgt --size 16m -o "run-version$t-%r.ioreel" >/dev/null 2>"err-version$t"
	echo $? >"rc-version$t"
	expect_refused "version$t" "rank 1 on $host runs ioreel 9.9.9" "install the same"
done

# 3. a mounted target on rank 1: rank 0's target (a file) is left as it was
loop=$(make_loop 32)
mnt=$(make_fs ext4 "$loop")
truncate -s 16m "$d/tgt-rank0"
sum=$(md5sum <"$d/tgt-rank0")
cat >plan.txt <<PLAN
A.ioreel  *  0  $d/tgt-rank0
B.ioreel  *  1  $loop
PLAN
for t in $TRANSPORTS; do
	fleet "$t" 2 replay A.ioreel B.ioreel --plan plan.txt --engine null --allow-writes \
		-o "run-mounted$t-%r.ioreel" >/dev/null 2>"err-mounted$t"
	echo $? >"rc-mounted$t"
	expect_refused "mounted$t" "rank 1 on $host: .*$loop.*mounted" "failed the target checks"
	grep -q "rank 0 on" "err-mounted$t" && fail "mounted$t: rank 0 blamed too"
	[ "$(md5sum <"$d/tgt-rank0")" = "$sum" ] || fail "mounted$t: rank 0's target was written"
done
[ -d "$mnt/lost+found" ] || fail "the mounted filesystem was touched"

# 4. a rank killed mid-run: the job fails with a message naming it, within seconds. The
# killed and the hung runs keep their ranks' parts of the set in this test's directory
# (--share-dir): a rank killed cannot remove its own, and the other is aborted by mpirun.
"$IOREEL" synth --rw randread --bs 4k --size 16m --rate-iops 200 --runtime 60 -o long.ioreel \
	>/dev/null || fail "synth long.ioreel"
for t in $TRANSPORTS; do
	start=$(date +%s)
	# shellcheck disable=SC2046
	timeout -k 5 100 mpirun $(btl_args "$t") -np 2 "$IOREEL_MPI" replay long.ioreel \
		--engine null --target "tgt-%r" --size 16m -o "run-killed$t-%r.ioreel" \
		--share-dir "$d" >/dev/null 2>"err-killed$t" &
	job=$!
	# rank 1 has begun once its result trace exists (under a temporary name until the end)
	for i in $(seq 200); do compgen -G ".run-killed$t-1.ioreel.*" >/dev/null && break; sleep 0.1; done
	sleep 1
	# rank 1's process: a descendant of this job whose environment says it is rank 1
	victim=
	for p in $(pgrep -P "$job") $(for c in $(pgrep -P "$job"); do pgrep -P "$c"; done); do
		grep -qx 'OMPI_COMM_WORLD_RANK=1' < <(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null) &&
			victim=$p
	done
	[ -n "$victim" ] || { kill "$job"; fail "killed$t: rank 1 not found among the job's processes"; }
	kill -9 "$victim"
	wait "$job"
	rc=$?
	took=$(($(date +%s) - start))
	[ "$rc" != 0 ] || fail "killed$t: the job exited 0 with a rank killed"
	[ "$rc" != 124 ] || fail "killed$t: the job hung until the timeout"
	grep -q "rank 1 .*on node $host exited on signal 9" "err-killed$t" ||
		{ cat "err-killed$t"; fail "killed$t: no message naming rank 1"; }
	[ "$took" -lt 40 ] || fail "killed$t: took ${took}s to fail (a 60 s trace)"
	echo "killed$t: the job failed in ${took}s with: $(grep -m1 'exited on signal' "err-killed$t")"
done

# 5. a rank that hangs (stopped, as if its I/O were stuck): rank 0 names it after --wait
"$IOREEL" synth --rw randread --bs 4k --size 16m --rate-iops 500 --runtime 4 -o short.ioreel \
	>/dev/null || fail "synth short.ioreel"
timeout -k 5 100 mpirun $(btl_args shm) -np 2 "$IOREEL_MPI" replay short.ioreel --engine null \
	--target "tgt-%r" --size 16m --wait 3s -o "run-hung-%r.ioreel" --share-dir "$d" \
	>/dev/null 2>err-hung &
job=$!
for i in $(seq 200); do compgen -G ".run-hung-1.ioreel.*" >/dev/null && break; sleep 0.1; done
sleep 1 # past the start (200 ms ahead): stopped in the middle of its replay
for p in $(pgrep -P "$job") $(for c in $(pgrep -P "$job"); do pgrep -P "$c"; done); do
	grep -qx 'OMPI_COMM_WORLD_RANK=1' < <(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null) &&
		kill -STOP "$p" && stopped=$p
done
[ -n "${stopped:-}" ] || { kill "$job"; fail "hung: rank 1 not found"; }
cleanup_kill "$stopped"
wait "$job"
rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "hung: exit $rc (0: passed, 124: hung)"
grep -q "rank 1 on $host sent no result 3 s after rank 0 ended" err-hung ||
	{ cat err-hung; fail "hung: rank 0 did not name rank 1"; }
echo "PASS: refused with the host named (missing trace, version, mounted target), killed and hung ranks fail the job"
