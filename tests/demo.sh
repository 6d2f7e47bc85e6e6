#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make demo`: the main job on a built-in default, as root, no arguments. Builds scratch setups
# on loop devices, runs a database workload while recording it (a short pgbench run on xfs; a
# synthesized InnoDB-like mix when PostgreSQL is absent), replays it on two candidate setups
# (a file on ext4 and a file on btrfs raid6 over four loop devices) in two modes, timed (can
# the candidate absorb the recorded load?) and dep (how would this database run there?),
# prints the fio-like summaries and the comparison table, writes an HTML report, and cleans up.
# Environment: DEMO_SECONDS (workload length, default 15), DEMO_OUT (default $BUILD/demo).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/setups.sh"
. "$here/workload_pg.sh"

secs=${DEMO_SECONDS:-15}
outdir=${DEMO_OUT:-$BUILD/demo}
steps=6
step() { printf '\n[%d/%d] %s ...\n' "$1" "$steps" "$2"; }
missing=()
# need_verb VERB: true if built; otherwise says so once and remembers it.
need_verb() {
	ioreel_has "$1" && return 0
	echo "    ioreel $1 not built yet: skipping this step"
	[[ " ${missing[*]} " == *" $1 "* ]] || missing+=("$1")
	return 1
}

[ "$(id -u)" = 0 ] || { echo "make demo: needs root (loop devices, mounts, eBPF); run: sudo make demo" >&2; exit 1; }
mkdir -p "$outdir" || fail "cannot create $outdir"
rm -f "$outdir"/*.ioreel "$outdir"/*.json "$outdir"/report.html
start=$(date +%s)

step 1 "creating setups (xfs, ext4 and btrfs raid6 over loop devices; scratch, removed at the end)"
setups_teardown_stale
setup_fs_loop xfs 512 >/dev/null
src_dev=$SETUP_DEV src_mnt=$SETUP_MNT
size=$(blockdev --getsize64 "$src_dev")
echo "    workload: xfs on $src_dev, mounted at $src_mnt"
setup_fs_loop ext4 1024 >/dev/null
ext4_file=$SETUP_MNT/target.img
echo "    candidate 1: file on ext4 on $SETUP_DEV"
setup_btrfs_raid raid6 768 >/dev/null
raid6_file=$SETUP_MNT/target.img
echo "    candidate 2: file on btrfs raid6 (metadata $SETUP_MPROFILE) over ${SETUP_DEVS[*]}"

trace=$outdir/trace.ioreel
if pg_available; then
	step 2 "starting PostgreSQL on the xfs mount and loading pgbench tables (scale 5)"
	pg_start "$src_mnt/pg"
	pg_pgbench_init 5
	step 3 "recording $secs s of pgbench (4 clients) with: ioreel record -d $src_dev -o $trace"
	if need_verb record; then
		rec_start "$src_dev" "$trace"
		pg_pgbench_run "$secs" 4 | sed 's/^/    pgbench: /' || fail "pgbench run failed"
		rec_stop
		"$IOREEL" info "$trace" 2>/dev/null | sed 's/^/    /'
	else
		pg_pgbench_run "$secs" 4 | sed 's/^/    pgbench (not recorded): /' || fail "pgbench run failed"
	fi
	pg_stop
else
	step 2 "PostgreSQL is not installed: using a synthesized InnoDB-like mix instead"
	step 3 "synthesizing: ioreel synth --preset innodb-16k --size $((size / 2)) --runtime $secs -o $trace"
	if need_verb synth; then
		"$IOREEL" synth --preset innodb-16k --size "$((size / 2))" --runtime "$secs" -o "$trace" ||
			fail "ioreel synth --preset innodb-16k failed"
	fi
fi

step 4 "replaying the trace on the two candidates, timed and dep (writes allowed: scratch files)"
runs=()
if need_verb replay && [ -s "$trace" ]; then
	# A recording replays in both modes; a synthesized job has no dependencies to keep.
	modes="timed dep"
	output_has 'source *record' "$IOREEL" info "$trace" 2>/dev/null || modes=auto
	echo "    timed: each I/O at its recorded time, the offered load (can the candidate absorb it?)"
	echo "    dep:   each I/O once those it waited for completed there (how would the database run?)"
	for name in ext4 btrfs-raid6; do
		t=$ext4_file
		[ $name = btrfs-raid6 ] && t=$raid6_file
		for mode in $modes; do
			run=$outdir/run-$name-$mode.ioreel
			[ $mode = auto ] && run=$outdir/run-$name.ioreel
			echo "    ioreel replay $(basename "$trace") --target $t --size $size --allow-writes --mode $mode -o $run"
			"$IOREEL" replay "$trace" --target "$t" --size "$size" --allow-writes --mode "$mode" \
				-o "$run" -q --json >"${run%.ioreel}.json" ||
				fail "ioreel replay on $name ($t, $mode) failed"
			python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["fidelity"]
print("      %s: %.1f s for a %.1f s trace, at most %d I/Os in flight%s" % (f["mode"],
      f["replay_span_ns"] / 1e9, f["trace_span_ns"] / 1e9, f["max_inflight"],
      ", the in-flight cap held I/O back %d times" % f["cap_hits"] if f["cap_hits"] else ""))' \
				"${run%.ioreel}.json"
			runs+=("$run")
		done
	done
elif ioreel_has replay; then
	echo "    no trace to replay (see step 3)"
fi

step 5 "analyzing: fio-like summaries, the comparison table and an HTML report"
report=$outdir/report.html
if need_verb analyze && [ ${#runs[@]} -gt 0 ]; then
	for f in "$trace" "${runs[@]}"; do
		echo "---- $(basename "$f")"
		"$IOREEL" analyze "$f" || fail "ioreel analyze $f failed"
	done
	echo "---- comparison (ratios against the recorded trace; kind: how each was replayed)"
	echo "     A slower candidate shows the difference: timed keeps the recorded load and piles"
	echo "     I/O up behind it; dep is what the database would have seen there."
	"$IOREEL" analyze "$trace" "${runs[@]}" --compare --html "$report" ||
		fail "ioreel analyze --compare --html failed"
	[ -s "$report" ] || fail "ioreel analyze --html wrote no report at $report"
elif ioreel_has analyze; then
	echo "    nothing replayed, nothing to compare (see step 4)"
fi

step 6 "cleaning up (PostgreSQL, mounts, loop devices)"
pg_stop
setups_teardown_dir "$SETUPS_DIR"
echo "    done in $(($(date +%s) - start)) s"

if [ ${#missing[@]} -gt 0 ]; then
	echo
	echo "make demo: incomplete: ioreel ${missing[*]} not built yet (this tree has: $("$IOREEL" --help 2>/dev/null |
		awk '/^verbs:/ { v = 1; next } v && NF == 0 { exit } v { printf "%s ", $1 }'))" >&2
	exit 1
fi
echo
echo "Traces: $outdir/*.ioreel"
echo "HTML report: $report (open it in a browser)"
