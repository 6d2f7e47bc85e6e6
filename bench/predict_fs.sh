#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Does a file-level replay predict a database on another filesystem? (issue 14's prediction
# goal: IOPS per op within +-25 %, mean latency per op within +-30 %, fsync included, beside
# what a block-level replay of the same run predicts.)
#
# PostgreSQL's pgbench runs for real on xfs, ext4 and btrfs, each on its own loop device of the
# same size, every run from the same freshly initialised cluster (restored before each run)
# with cold caches, the server in a memory cgroup (MEMORY) so its reads keep reaching the
# filesystem. Every real run is recorded at file level (--pid of the postmaster: the backends,
# checkpointer and WAL writer it forks) and at block level at its loop device. The median xfs
# (SOURCE) run's file-level recording is then replayed with --root onto ext4 and btrfs (in a directory
# on each, modes MODES; in dep mode the replayer's default engine, threads: each recorded
# thread's calls made by a thread of its own with their recorded waits for a CPU, as the
# server's were, beside the recording host's whole load; in other modes engine psync: PostgreSQL's calls are plain system calls, so a
# psync worker's call is timed as the server's was), and its block-level recording onto the ext4 and
# btrfs loop devices themselves once their filesystems are done with (raw: a block replay
# carries xfs's block pattern, whatever the target's filesystem would have done).
#
# The table (bench/predict_fs_table.py) sets each replay against the real runs on that
# filesystem: per op (read, write, fsync, fdatasync at file level; read, write, flush at block
# level) IOPS (calls over the run's span) and mean latency (file level: system call entry to
# exit as recorded, and the replay's calls timed the same way, by the thread making them;
# block level: queue to completion as the recorder saw the real runs and the replays at
# the device), as the ratio predicted / real median, with the real runs' own spread. Figures
# only: never fails on time. Then bench/predict_fs_reads.py: per real run the read calls and
# device reads per transaction, one line (warm-up + per transaction) through every run, and
# each file replay's device reads against it (OUT/reads.txt).
# Env: SECONDS_PER_RUN (30), REPEATS (3), SCALE (pgbench scale, 20), CLIENTS (4),
#      SIZE (MiB of each loop device, 3072: the database and the replay's copy of it),
#      MEMORY (the server's memory cgroup limit, 160M; a file replay's cgroup starts at
#      MEMORY + REPLAY_EXTRA, 512M, and once the replayer has locked its memory becomes that
#      plus the page cache the server had: same_cache), MODES ("dep timed"; a mode may be
#      NAME=MODE,OPTION,..., e.g. dep-1s=dep,--dep-think-max,1s; the file replays in dep
#      mode use the replayer's default (engine threads, --cpu-wait recorded, --cpu host, --cpu-fill on at file level since 2026-12-04), in other modes
#      psync, unless the variant names one: dep-p=dep,--engine,psync is the dep default before
#      2026-12-03; the block replays keep io_uring, and in dep mode take the whole host's load
#      too, the replayer's default there since 2026-12-03: --cpu,idle for one without it), TARGETS ("xfs ext4 btrfs":
#      xfs, the recording's own filesystem, is the self-check: what the replayer itself adds;
#      only xfs and the targets run for real, so TARGETS=xfs is the self-check alone),
#      SOURCE (xfs: the filesystem whose median run is replayed, and the self-check's; btrfs
#      replays a slower stack's recording onto the faster ones),
#      PREDICT_OUT (build/bench/predict_fs), REAL_FROM (an earlier run's PREDICT_OUT: its
#      real runs and recordings are taken instead of running the real ones again, so that
#      replay variants can be set against the same real runs; its SECONDS_PER_RUN, REPEATS
#      and TARGETS must be this run's),
#      INTERLEAVE (1: the file replays run between the real runs, A B A B: real runs 1, the
#      first mode's replays onto every target, real runs 2, the second mode's, ..., the rest
#      after the last real runs; the recording of run 1 is replayed, since the median is not
#      known yet. The host's drift over the bench then falls on the real runs and the replays
#      alike: MODES="dep d2=dep d3=dep" REPEATS=4 gives three self-checks, each between two
#      real runs. The block replays still come last, onto the unmounted devices),
#      WARMUP (1 with INTERLEAVE, else 0: a real run per filesystem first, not counted, its
#      files removed: the first run after a cluster is made is often the slowest, as in
#      bench/predict.sh, and INTERLEAVE replays run 1).
# Takes about (3 x REPEATS + 6 x #MODES) x (SECONDS_PER_RUN + 20 s).
set -u
# the real runs are recorded with the CPU (for variants with replay --cpu replay or calls)
export REC_OPTS=${REC_OPTS---cpu}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/lib.sh"
. "$here/../tests/setups.sh"
. "$here/../tests/workload_pg.sh"
. "$here/predict_common.inc"
need_root
need_cmd python3 mkfs.xfs mkfs.ext4 mkfs.btrfs runuser
pg_available || skip "needs PostgreSQL with pgbench (make deps installs postgresql)"
secs=${SECONDS_PER_RUN:-30}
repeats=${REPEATS:-3}
scale=${SCALE:-20}
clients=${CLIENTS:-4}
size=${SIZE:-3072}
memory=${MEMORY:-160M}
replay_extra=${REPLAY_EXTRA:-512M}
modes=${MODES:-dep timed}
# shellcheck disable=SC2086
check_modes $modes
out=${PREDICT_OUT:-$BUILD/bench/predict_fs}
# the filesystems run for real: xfs (the recording's) and each target
srcfs=${SOURCE:-xfs}
case $srcfs in xfs | ext4 | btrfs) ;; *) fail "SOURCE=$srcfs: give xfs, ext4 or btrfs (the filesystem whose recording is replayed)" ;; esac
fss=$(printf '%s\n' "$srcfs" ${TARGETS:-xfs ext4 btrfs} | awk '!seen[$0]++' | tr '\n' ' ')
targets=${TARGETS:-xfs ext4 btrfs}
real_from=${REAL_FROM:-}
interleave=${INTERLEAVE:-}
[ -z "$interleave" ] || [ -z "$real_from" ] ||
	fail "INTERLEAVE and REAL_FROM: the real runs of REAL_FROM are done," \
		"no replay can go between them"
[ -z "$real_from" ] || [ -e "$real_from/real-$srcfs-1.file.ioreel" ] ||
	fail "REAL_FROM=$real_from holds no real runs on $srcfs (real-$srcfs-1.file.ioreel): give an earlier run's PREDICT_OUT"
[ "$(cd "$real_from" 2>/dev/null && pwd)" != "$(mkdir -p "$out" && cd "$out" && pwd)" ] ||
	fail "REAL_FROM is PREDICT_OUT ($out): give the replays an output of their own"
mkdir -p "$out" && rm -f "$out"/*.ioreel "$out"/*.json "$out"/*.csv "$out"/*.out "$out"/*.err
log() { printf '%s %s\n' "$(date +%T)" "$*"; }
_setups_init

# One loop device and filesystem per candidate, each with the same freshly made cluster, kept
# aside (pg.golden) to restore before every run. Copied with --reflink=never: cp's default
# (--reflink=auto, coreutils 9) clones the files on xfs and btrfs, so the real runs wrote into
# shared extents and every fdatasync forced xfs's log for the copy-on-write (measured: 10,125
# log writes with FUA for 13,166 WAL fdatasyncs, fdatasync mean 1.25 ms against 0.63 ms on
# a real copy), which a database's own files never do and no replay reproduces.
declare -A dev mnt
for fs in $fss; do
	dev[$fs]=$(_setups_loop "$size" "$fs") || exit 1
	_setups_mkfs "$fs" "${dev[$fs]}"
	mnt[$fs]=$(_setups_mount "$fs" "${dev[$fs]}") || exit 1
	[ -z "$real_from" ] || continue # only the replays run here
	log "$fs on ${dev[$fs]} (${size} MiB): pgbench scale $scale"
	pg_start "${mnt[$fs]}/pg"
	pg_pgbench_init "$scale"
	pg_stop
	cp -a --reflink=never "${mnt[$fs]}/pg/data" "${mnt[$fs]}/pg/golden" || fail "cannot keep $fs's cluster"
done
MEMPROCS=$(make_memory_cgroup "$(numfmt --from=iec "$memory")") || exit 1
# The replayer locks its own memory (buffers, rings: some 225 MiB for a dep replay), which the
# server does not have, and the server holds processes and shared memory the replayer does
# not: same_cache gives the replay the page cache the server had, measured (with 160M + 256M
# the replay had some 190 MiB of cache where the server had about 130, and its reads were
# 0.5-0.7 times as slow as the database's).
REPLAYPROCS=$(make_memory_cgroup "$(($(numfmt --from=iec "$memory") + \
	$(numfmt --from=iec "$replay_extra")))") || exit 1

# real FS I: pgbench on FS from the restored cluster, recorded at file and at block level.
real() {
	local fs=$1 i=$2 m=${mnt[$1]} pm
	rm -rf "$m/pg/data" && cp -a --reflink=never "$m/pg/golden" "$m/pg/data" || fail "cannot restore $fs"
	sync -f "$m/pg/data"
	(
		echo $BASHPID >"$MEMPROCS" || exit 1
		pg_resume "$m/pg"
	) || fail "cannot start PostgreSQL on $fs"
	pg_use "$m/pg"
	pm=$(head -n1 "$PG_DATA/postmaster.pid")
	frec_start "$pm" "$out/real-$fs-$i.file.ioreel"
	rec_start "${dev[$fs]}" "$out/real-$fs-$i.blk.ioreel"
	PG_PGBENCH_OUT=$out/real-$fs-$i.out pg_pgbench_run "$secs" "$clients" >/dev/null
	noncache "$(dirname "$MEMPROCS")" >"$out/noncache-$fs-$i"
	rec_stop
	frec_stop
	pg_stop
	log "real $fs run $i: $(awk '/^tps/ { print $3; exit }' "$out/real-$fs-$i.out") TPS," \
		"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))
print(j["events"], "calls,", j["dropped"], "dropped")' "$out/real-$fs-$i.file.ioreel.json")," \
		"$(($(cat "$out/noncache-$fs-$i") >> 20)) MiB not page cache"
}

# noncache CGROUP_DIR: bytes the cgroup holds that are not page cache (processes, shared
# memory): v2 memory.current - (file - shmem), v1 usage - (cache - shmem); 0 when unreadable.
noncache() {
	local cur=$1/memory.current
	[ -r "$cur" ] || cur=$1/memory.usage_in_bytes
	[ -r "$1/memory.stat" ] && [ -r "$cur" ] || { echo 0; return; }
	awk -v cur="$(cat "$cur")" '$1 == "file" || $1 == "cache" { f = $2 } $1 == "shmem" { s = $2 }
		END { print cur - (f - s) }' "$1/memory.stat"
}

# memlimit CGROUP_DIR BYTES: sets the cgroup's memory limit (v2 memory.max, v1
# memory.limit_in_bytes).
memlimit() {
	if [ -e "$1/memory.max" ]; then echo "$2" >"$1/memory.max"; else echo "$2" >"$1/memory.limit_in_bytes"; fi
}

# same_cache PID: once the replayer PID has locked its memory (VmLck steady), its cgroup's
# limit becomes what it holds itself plus the page cache the server had (MEMORY minus the
# median of what the server held besides page cache), so the replay's reads find as much in
# the cache as the database's did.
same_cache() {
	local pid=$1 cg last=-1 now n=0 server lim
	cg=$(dirname "$REPLAYPROCS")
	while kill -0 "$pid" 2>/dev/null && ((n < 3)); do
		now=$(awk '/^VmLck/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
		if [ -n "$now" ] && [ "$now" -gt 0 ] && [ "$now" = "$last" ]; then
			n=$((n + 1))
		else
			n=0
		fi
		last=${now:--1}
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null || return 0
	server=$(cat "$out"/noncache-* | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	lim=$(($(noncache "$cg") + $(numfmt --from=iec "$memory") - server))
	memlimit "$cg" "$lim" || return 0
	echo "replayer $(($(noncache "$cg") >> 20)) MiB + page cache $((($(numfmt --from=iec "$memory") - server) >> 20)) MiB"
}

# freplay FS MODE: the median source run's file-level recording replayed under a directory on FS.
freplay() {
	local fs=$1 root=${mnt[$1]}/replay rc=0 mode eng=(--engine psync)
	mode_opts "$2"
	mode=$NAME
	# dep: the replayer's own default (threads and the recorded waits for a CPU)
	! has_engine && [ "${OPTS[1]}" != dep ] || eng=()
	rm -rf "$root" && mkdir "$root" || fail "cannot make $root"
	memlimit "$(dirname "$REPLAYPROCS")" \
		$(($(numfmt --from=iec "$memory") + $(numfmt --from=iec "$replay_extra"))) ||
		fail "cannot set the replay's memory limit"
	(
		echo $BASHPID >"$REPLAYPROCS" || exit 1
		exec "$IOREEL" replay "$out/real-$srcfs-$src.file.ioreel" --root "$root" --allow-writes \
			"${OPTS[@]}" "${eng[@]}" -o "$out/pred-file-$fs-$mode.ioreel" -q --json
	) >"$out/pred-file-$fs-$mode.json" 2>"$out/pred-file-$fs-$mode.err" &
	local pid=$! cache
	cleanup_kill "$pid" # a bench stopped here stops its replay before unmounting under it
	cache=$(same_cache "$pid")
	# the device under the file replay, recorded as the real runs' was (what reaches it:
	# reads the page cache missed, writeback, flushes), for devrates below
	rec_start "${dev[$fs]}" "$out/obs-fblk-$fs-$mode.ioreel"
	wait "$pid" || rc=$?
	rec_stop
	rm -rf "$root"
	[ $rc = 0 ] || fail "file replay $mode on $fs: $(tail -n 3 "$out/pred-file-$fs-$mode.err")"
	log "  at $fs's device, reads/writes/flushes: $(devrates "$out/obs-fblk-$fs-$mode.ioreel") under the replay;" \
		"real runs: $(for f in "$out"/real-"$fs"-*.blk.ioreel; do devrates "$f"; done | tr '\n' ' ')"
	log "file replay $mode on $fs (${cache:-static memory limit}):" \
		"$(freplay_summary "$out/pred-file-$fs-$mode.json")"
}

# file_replays MODE: the source recording replayed in MODE onto every target's filesystem.
file_replays() {
	local fs
	for fs in $targets; do
		freplay "$fs" "$1"
	done
}

# Real runs interleaved (xfs ext4 btrfs xfs ...) so that drift on the machine spreads evenly;
# with INTERLEAVE, a mode's file replays between them too.
read -ra modes_left <<<"$modes"
if [ -n "$real_from" ]; then
	cp "$real_from"/real-* "$real_from"/noncache-* "$out"/ || fail "cannot copy the real runs from $real_from"
	log "the real runs: $real_from's"
else
	[ -z "$interleave" ] || src=1
	real_rounds "$repeats" "$fss" real file_replays "$out" 'real-*-0.*' 'noncache-*-0'
fi
# The recording replayed is the median xfs run's (by TPS), not the first: a first run can be
# an outlier (1046 TPS where the next two made 1524 and 1527).
[ -n "$interleave" ] || src=$(for ((i = 1; i <= repeats; i++)); do
	printf '%s %d\n' "$(awk '/^tps/ { print $3; exit }' "$out/real-$srcfs-$i.out")" "$i"
done | sort -g | awk '{ a[NR] = $2 } END { print a[int((NR + 1) / 2)] }')
((${#modes_left[@]} == 0)) || log "replaying the recording of $srcfs run $src" \
	"$([ -n "$interleave" ] && echo "(INTERLEAVE: run 1)" || echo "(the median TPS)")"
for mode in "${modes_left[@]}"; do
	file_replays "$mode"
done
for fs in $targets; do
	umount "${mnt[$fs]}" || fail "cannot unmount $fs for the block replays"
	for mode in $modes; do
		breplay "$fs" "$mode"
	done
done

export_csv "$out"
python3 "$here/predict_fs_table.py" "$out" "$repeats" "$targets" \
	"$(for m in $modes; do printf '%s ' "${m%%=*}"; done)" "$src" pgbench "$srcfs" |
	tee "$out/table.txt"
# where the reads per transaction come from: read calls against device reads, the cold cache's
# warm-up, and the replays' device reads (bench/predict_fs_reads.py; issue 24, item 4)
SECONDS_PER_RUN=$secs SOURCE=$srcfs python3 "$here/predict_fs_reads.py" "$out" |
	tee "$out/reads.txt"
log "traces, results and the table in $out"
