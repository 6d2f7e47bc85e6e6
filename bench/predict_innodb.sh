#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Does the replay predict a second database on another filesystem? (issue 24: the prediction
# checked on MariaDB/InnoDB beside bench/predict_fs.sh's PostgreSQL.)
#
# MariaDB runs sysbench's oltp_read_write for real on xfs and on each target (default ext4),
# each on its own loop device of the same size, every run from the same freshly prepared
# tables (restored before each run). InnoDB as tests/workload_mariadb.sh runs it: data files
# with O_DIRECT, a small buffer pool (BUFFER_POOL) well under the tables so page reads reach
# the filesystem, the redo log flushed at every commit, the buffer pool neither dumped nor
# loaded. Every real run is recorded at file level (--pid of mariadbd: all its threads, their
# io_uring or libaio page I/O, the log writes and the flushes) and at block level at its loop
# device. The median xfs run's file-level recording is then replayed with --root under a
# directory on xfs (the self-check: what the replayer itself adds) and on each target, modes
# MODES, and its block-level recording onto each loop device once its filesystem is done with
# (raw: xfs's block pattern, whatever the target's filesystem would have done).
#
# The table (bench/predict_fs_table.py, the same as predict_fs.sh's; its JSON in
# OUT/predict_fs.json) sets each replay against the real runs on that filesystem: per op
# (read, write, fsync, fdatasync at file level; read, write, flush at block level) IOPS and
# mean latency as the ratio predicted / real median, with the real runs' spread and how many
# figures are within the goals (IOPS +-25 %, mean +-30 %). Figures only: never fails on time.
# Env: SECONDS_PER_RUN (30), REPEATS (3), THREADS (sysbench threads, 4), TABLES (4),
#      TABLE_SIZE (rows per table, 250000: some 240 MiB in all, several times BUFFER_POOL),
#      BUFFER_POOL (innodb_buffer_pool_size, 64M), SIZE (MiB of each loop device, 2048: the
#      tables, their kept copy and a replay's copy), MODES ("dep dep-el=dep,--dep-group-commit,
#      on,--dep-absorb,on,--dep-split,on": a mode may be NAME=MODE,OPTION,...; the file replays
#      use the replayer's default engine unless the variant names one), TARGETS ("ext4"; xfs,
#      the recording's own filesystem, is always run and replayed onto: the self-check),
#      PREDICT_OUT (build/bench/predict_innodb).
# Needs root, mariadb-server and sysbench (make bench-deps); skips with a message without them.
# Takes about (2 x REPEATS + 2 x 2 x #MODES) x (SECONDS_PER_RUN + 20 s), plus a minute or
# two per filesystem to prepare the tables.
set -u
# the real runs are recorded with the CPU (for variants with replay --cpu replay or calls)
export REC_OPTS=${REC_OPTS---cpu}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/lib.sh"
. "$here/../tests/setups.sh"
. "$here/../tests/workload_pg.sh" # rec_start, rec_stop: the block-level recorder
. "$here/../tests/workload_mariadb.sh"
. "$here/predict_common.inc"
need_root
need_cmd python3 mkfs.xfs mkfs.ext4
mdb_available || skip "needs MariaDB and sysbench with its oltp scripts" \
	"(make bench-deps installs mariadb-server and sysbench)"
secs=${SECONDS_PER_RUN:-30}
repeats=${REPEATS:-3}
threads=${THREADS:-4}
tables=${TABLES:-4}
rows=${TABLE_SIZE:-250000}
size=${SIZE:-2048}
export MDB_BUFFER_POOL=${BUFFER_POOL:-64M}
modes=${MODES:-dep dep-el=dep,--dep-group-commit,on,--dep-absorb,on,--dep-split,on}
# shellcheck disable=SC2086
check_modes $modes
out=${PREDICT_OUT:-$BUILD/bench/predict_innodb}
# the filesystems run for real and replayed onto: xfs (the recording's) and each target
fss=$(printf '%s\n' xfs ${TARGETS:-ext4} | awk '!seen[$0]++' | tr '\n' ' ')
for fs in $fss; do
	case $fs in
	xfs | ext4) ;;
	btrfs) need_cmd mkfs.btrfs ;;
	*) echo "TARGETS: unknown filesystem '$fs' (ext4, xfs or btrfs)" >&2; exit 2 ;;
	esac
done
mkdir -p "$out" && rm -f "$out"/*.ioreel "$out"/*.json "$out"/*.csv "$out"/*.out "$out"/*.err \
	"$out"/*.log
log() { printf '%s %s\n' "$(date +%T)" "$*"; }
_setups_init

# One loop device and filesystem per stack, each with the same freshly prepared tables, kept
# aside (mdb/golden) after a slow shutdown to restore before every run. Copied with
# --reflink=never: cp's default clones the files on xfs and btrfs, and every write of the
# real runs would then be copy-on-write into shared extents (predict_fs.sh measured it: xfs
# forcing its log at every fdatasync), which a database's own files never are.
declare -A dev mnt
for fs in $fss; do
	dev[$fs]=$(_setups_loop "$size" "$fs") || exit 1
	_setups_mkfs "$fs" "${dev[$fs]}"
	mnt[$fs]=$(_setups_mount "$fs" "${dev[$fs]}") || exit 1
	log "$fs on ${dev[$fs]} (${size} MiB): sysbench $tables tables of $rows rows"
	mdb_start "${mnt[$fs]}/mdb"
	mdb_sysbench_prepare "$tables" "$rows"
	mdb_stop slow
	cp -a --reflink=never "${mnt[$fs]}/mdb/data" "${mnt[$fs]}/mdb/golden" ||
		fail "cannot keep $fs's data directory"
	log "$fs: data directory $(du -sm "${mnt[$fs]}/mdb/golden" | cut -f1) MiB," \
		"buffer pool $MDB_BUFFER_POOL"
done

# tps FILE: sysbench's transactions per second in its output FILE (0 when absent).
tps() { awk '/^ *transactions:/ { gsub(/\(/, "", $3); print $3; f = 1; exit }
	END { if (!f) print 0 }' "$1"; }

# real FS I: oltp_read_write on FS from the restored tables, recorded at file and block level.
real() {
	local fs=$1 i=$2 m=${mnt[$1]} pid
	rm -rf "$m/mdb/data" && cp -a --reflink=never "$m/mdb/golden" "$m/mdb/data" ||
		fail "cannot restore $fs"
	sync -f "$m/mdb/data"
	mdb_resume "$m/mdb"
	pid=$(mdb_pid) || fail "no mariadbd on $fs"
	frec_start "$pid" "$out/real-$fs-$i.file.ioreel"
	rec_start "${dev[$fs]}" "$out/real-$fs-$i.blk.ioreel"
	MDB_SYSBENCH_OUT=$out/real-$fs-$i.out mdb_sysbench_run "$secs" "$threads" "$tables" \
		"$rows" >/dev/null
	rec_stop
	frec_stop
	mdb_stop
	log "real $fs run $i: $(tps "$out/real-$fs-$i.out") TPS," \
		"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))
print(j["events"], "calls,", j["dropped"], "dropped")' "$out/real-$fs-$i.file.ioreel.json")"
}

# freplay FS MODE: the median xfs run's file-level recording replayed under a directory on FS.
# The replayer's default engine: InnoDB's page I/O was asynchronous (io_uring or libaio), its
# flushes and log writes plain calls, and the replay issues each through the engine asked.
freplay() {
	local fs=$1 root=${mnt[$1]}/replay rc=0 mode
	mode_opts "$2"
	mode=$NAME
	rm -rf "$root" && mkdir "$root" || fail "cannot make $root"
	"$IOREEL" replay "$out/real-xfs-$src.file.ioreel" --root "$root" --allow-writes \
		"${OPTS[@]}" -o "$out/pred-file-$fs-$mode.ioreel" -q --json \
		>"$out/pred-file-$fs-$mode.json" 2>"$out/pred-file-$fs-$mode.err" || rc=$?
	rm -rf "$root"
	[ $rc = 0 ] || fail "file replay $mode on $fs: $(tail -n 3 "$out/pred-file-$fs-$mode.err")"
	log "file replay $mode on $fs: $(freplay_summary "$out/pred-file-$fs-$mode.json")"
}

# Real runs interleaved (xfs ext4 xfs ...) so that drift on the machine spreads evenly.
for ((i = 1; i <= repeats; i++)); do
	for fs in $fss; do
		real "$fs" "$i"
	done
done
# The recording replayed is the median xfs run's (by TPS), not the first.
src=$(for ((i = 1; i <= repeats; i++)); do
	printf '%s %d\n' "$(tps "$out/real-xfs-$i.out")" "$i"
done | sort -g | awk '{ a[NR] = $2 } END { print a[int((NR + 1) / 2)] }')
log "replaying the recording of xfs run $src (the median TPS)"
for fs in $fss; do
	for mode in $modes; do
		freplay "$fs" "$mode"
	done
done
for fs in $fss; do
	umount "${mnt[$fs]}" || fail "cannot unmount $fs for the block replays"
	for mode in $modes; do
		breplay "$fs" "$mode"
	done
done

export_csv "$out"
python3 "$here/predict_fs_table.py" "$out" "$repeats" "$fss" \
	"$(for m in $modes; do printf '%s ' "${m%%=*}"; done)" "$src" \
	"sysbench oltp_read_write on MariaDB/InnoDB" | tee "$out/table.txt"
log "traces, results and the table in $out"
