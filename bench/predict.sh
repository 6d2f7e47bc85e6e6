#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Does a replay predict the real workload on a candidate? PostgreSQL pgbench runs for real,
# recorded with `ioreel record` at the loop device under its xfs, on stacks that differ only
# below that device:
#   A  the loop device's backing file on the host's filesystem (the "production" stack)
#   B  its backing file on btrfs RAID6 across four loop devices (a slower candidate)
#   C  stack A with blk-throttle limits (cgroup io.max, or v1 blkio.throttle) on the loop
#      device, for the database and for the replayer alike: a control slowed by a known rule
# Every run starts from the same database image (xfs with pgbench's tables, made once, copied
# back before each run) with cold caches; the server runs in a memory cgroup (MEMORY) so that
# its reads keep reaching the device instead of a page cache that would soon hold the whole
# database. A's first recording is then replayed onto B's, C's and A's own device (restored
# from the same image) in timed, afap and dep modes, recorded there by `ioreel record` too,
# and each replay's figures are set against the real runs on that stack, both seen by the same
# recorder at the same device: IOPS per op, mean and p99 latency per op (block_io_start to
# completion), and the slowdown (TPS of A over TPS of the stack; the replay's duration over
# the trace's). The replay's own view (release or deadline to completion, which holds the
# time an I/O waited in the replayer, as under timed mode's in-flight cap) is printed below
# each table. The real runs' own spread (min-max over REPEATS) stands beside each figure.
# blk-throttle holds a bio back before block_io_start: the recorder does not see C's wait in
# its latencies, for the real runs and the replays alike (they still show in IOPS and the
# slowdown). Figures only: never fails on time.
# Env: SECONDS_PER_RUN (30), REPEATS (3), SCALE (pgbench scale, 20), CLIENTS (4),
#      SIZE (MiB of the xfs image, 1536), THROTTLE ("RIOPS WIOPS" for C, "600 600"),
#      MEMORY (the server's memory cgroup limit, 160M), MODES ("timed afap dep"; a mode may
#      be NAME=MODE,OPTION,... for a variant, e.g. dep-kthr=dep,--dep-barrier,kthread, or
#      dep-T=dep,--runtime,trace: as long as the recording lasted, as pgbench -T ran; its
#      slowdown is then the trace's I/Os over those it issued),
#      STACKS ("A B C"), PREDICT_OUT (build/bench/predict), REUSE (a PREDICT_OUT of an earlier
#      run: its real runs are taken instead of running them again, to try replay variants),
#      INTERLEAVE (1: the replays run between the real runs, A B A B: the real runs of round
#      1, the first mode's replays onto every stack, the real runs of round 2, the second
#      mode's, ..., the rest after the last round, so that the host's drift over the bench falls
#      on the real runs and the replays alike: MODES="dep d2=dep d3=dep" REPEATS=4 gives three
#      replays of each stack, each between two real runs),
#      WARMUP (1 with INTERLEAVE, else 0: a real run per stack first, not counted, its files
#      removed: the first run after the image is made is the slowest, A 1330 TPS against
#      1467-1598 in one run, 463 against 629-828 in another, and INTERLEAVE replays run 1).
# Takes about (3 x REPEATS + 3 x #MODES) x (SECONDS_PER_RUN + 20 s), more on slow candidates.
set -u
# the real runs are recorded with the CPU: a dep replay then takes the recording host's whole
# load by default (the replayer's default since 2026-12-03; dep-idle=dep,--cpu,idle without it)
export REC_OPTS=${REC_OPTS---cpu}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/lib.sh"
. "$here/../tests/setups.sh"
. "$here/../tests/workload_pg.sh"
. "$here/predict_common.inc"
need_root
need_cmd python3 mkfs.xfs mkfs.btrfs btrfs runuser
pg_available || skip "needs PostgreSQL with pgbench (make deps installs postgresql)"
secs=${SECONDS_PER_RUN:-30}
repeats=${REPEATS:-3}
scale=${SCALE:-20}
clients=${CLIENTS:-4}
size=${SIZE:-1536}
read -r riops wiops <<<"${THROTTLE:-600 600}"
memory=${MEMORY:-160M}
modes=${MODES:-timed afap dep}
# shellcheck disable=SC2086
check_modes $modes
stacks=${STACKS:-A B C}
out=${PREDICT_OUT:-$BUILD/bench/predict}
mkdir -p "$out" && rm -f "$out"/*.ioreel "$out"/*.json "$out"/*.csv "$out"/*.out
S=$SETUPS_DIR
log() { printf '%s %s\n' "$(date +%T)" "$*"; }

# The database image every run starts from.
log "making the image: xfs ${size} MiB, pgbench scale $scale"
golden=$S/golden.img
truncate -s "${size}M" "$golden"
dev=$(losetup -f --show --direct-io=on "$golden") || fail "losetup $golden"
_setups_mkfs xfs "$dev"
mnt=$(_setups_mount golden "$dev") || exit 1
pg_start "$mnt/pg"
pg_pgbench_init "$scale"
pg_stop
umount "$mnt" && losetup -d "$dev" || fail "cannot release the image's loop device"

# Where each stack keeps the xfs image's backing file.
declare -A file
file[A]=$S/a.img
file[C]=$S/c.img
if [[ " $stacks " == *" B "* ]]; then
	setup_btrfs_raid raid6 "$size" >/dev/null
	file[B]=$SETUP_MNT/b.img
	log "B: btrfs raid6 (metadata $SETUP_MPROFILE) over ${SETUP_DEVS[*]}"
fi

# attach STACK: the image restored into the stack's file, on a fresh loop device (DEV); for C
# also a throttled cgroup for that device (PROCS).
attach() {
	local f=${file[$1]}
	cp --sparse=always "$golden" "$f" && sync -f "$f" || fail "cannot restore the image to $f"
	DEV=$(losetup -f --show --direct-io=on "$f") || fail "losetup $f"
	PROCS=
	if [ "$1" = C ]; then
		PROCS=$(make_throttled_cgroup "$(dev_majmin "$DEV")" "$riops" "$wiops") || exit 1
	fi
}
detach() { losetup -d "$DEV" || fail "cannot detach $DEV"; }

# real STACK I: pgbench on the stack, recorded at its loop device.
real() {
	local st=$1 i=$2 m tps
	attach "$st"
	m=$(_setups_mount "run-$st" "$DEV") || exit 1
	# The server's processes inherit the cgroups of the subshell that starts it: the memory
	# limit, and on C the throttle.
	(
		echo $BASHPID >"$MEMPROCS" || exit 1
		[ -z "$PROCS" ] || echo $BASHPID >"$PROCS" || exit 1
		pg_resume "$m/pg"
	) || fail "cannot start PostgreSQL on $st"
	pg_use "$m/pg"
	rec_start "$DEV" "$out/real-$st-$i.ioreel"
	PG_PGBENCH_OUT=$out/real-$st-$i.out pg_pgbench_run "$secs" "$clients" >/dev/null
	rec_stop
	pg_stop
	umount "$m" || fail "umount $m"
	detach
	tps=$(awk '/^tps/ { print $3; exit }' "$out/real-$st-$i.out")
	log "real $st run $i: $tps TPS, $("$IOREEL" info "$out/real-$st-$i.ioreel" --json |
		python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["events"], "I/Os,", j["dropped"], "dropped")')"
}

# replay STACK MODE: A's first recording replayed on the stack's device, restored first. MODE
# is a replay mode, or NAME=MODE,OPTION,... (the results are named NAME).
replay() {
	local st=$1 mode rc=0
	mode_opts "$2"
	mode=$NAME
	opts_block
	attach "$st"
	rec_start "$DEV" "$out/obs-$st-$mode.ioreel"
	(
		[ -z "$PROCS" ] || echo $BASHPID >"$PROCS" || exit 1
		exec "$IOREEL" replay "$out/real-A-1.ioreel" --target "$DEV" --allow-writes --force \
			"${BOPTS[@]}" -o "$out/pred-$st-$mode.ioreel" -q --json
	) >"$out/pred-$st-$mode.json" 2>"$out/pred-$st-$mode.err" || rc=$?
	rec_stop
	detach
	[ $rc = 0 ] || fail "replay $mode on $st: $(tail -n 3 "$out/pred-$st-$mode.err")"
	log "replay $mode on $st: $(python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["fidelity"]
print("%.2f s, stretch %+.1f%%, max in flight %d, cap hit %d times" % (f["replay_span_ns"] / 1e9,
      100 * (f["stretch"] or 0), f["max_inflight"], f["cap_hits"]))' "$out/pred-$st-$mode.json")"
}

MEMPROCS=$(make_memory_cgroup "$(numfmt --from=iec "$memory")") || exit 1

# stack_replays MODE: A's first recording replayed in MODE onto every stack.
stack_replays() {
	local st
	for st in $stacks; do
		replay "$st" "$1"
	done
}

# Real runs, interleaved across stacks (A B C A B C ...) so that drift on this shared machine
# spreads over all of them; with INTERLEAVE, a mode's replays between the rounds too.
[ -z "${INTERLEAVE:-}" ] || [ -z "${REUSE:-}" ] ||
	fail "INTERLEAVE and REUSE: the real runs of REUSE are done, no replay can go between them"
read -ra modes_left <<<"$modes"
real_stacks=$(printf '%s\n' A $stacks | awk '!seen[$0]++' | tr '\n' ' ')
if [ -n "${REUSE:-}" ]; then
	for ((i = 1; i <= repeats; i++)); do
		for st in $real_stacks; do
			cp "$REUSE/real-$st-$i.ioreel" "$REUSE/real-$st-$i.out" "$out/" ||
				fail "REUSE=$REUSE has no real run $st $i"
		done
	done
else
	real_rounds "$repeats" "$real_stacks" real stack_replays "$out" 'real-*-0.*'
fi
for mode in "${modes_left[@]}"; do
	stack_replays "$mode"
done

# The table.
for f in "$out"/*.ioreel; do
	"$IOREEL" convert "$f" "${f%.ioreel}.csv" --to csv >/dev/null || fail "export $f"
done
python3 "$here/predict_table.py" "$out" "$repeats" "$stacks" \
	"$(for m in $modes; do printf '%s ' "${m%%=*}"; done)" | tee "$out/table.txt"
log "traces, results and the table in $out"
