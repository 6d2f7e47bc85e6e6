#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make demo`: the main job on a built-in default, as root, no arguments. Runs a database
# workload on xfs over a loop device while recording it (a short pgbench run; a synthesized
# InnoDB-like mix when PostgreSQL is absent), then has `ioreel study` build two candidate setups
# on scratch loop devices (ext4 on one, btrfs raid6 across four), replay the recording on each
# in two modes, timed (can the candidate absorb the recorded load?) and dep (how would this
# database run there?), and tear them down; prints the fio-like summaries, the study's table
# and the comparison, writes the HTML reports, and cleans up.
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
rm -f "$outdir"/*.ioreel "$outdir"/*.json "$outdir"/report.html "$outdir"/candidates.plan
rm -rf "$outdir/study" # the study's results from an earlier demo
start=$(date +%s)

step 1 "creating loop devices (xfs for the workload; five blank disks for the candidates, which ioreel study builds; scratch, removed at the end)"
setups_teardown_stale
setup_fs_loop xfs 512 >/dev/null
src_dev=$SETUP_DEV src_mnt=$SETUP_MNT
size=$(blockdev --getsize64 "$src_dev")
echo "    workload: xfs on $src_dev, mounted at $src_mnt"
ext4_dev=$(setup_raw_loop 1024)
raid_devs=()
for i in 1 2 3 4; do raid_devs+=("$(setup_raw_loop 768)"); done
echo "    candidate disks: $ext4_dev (ext4), ${raid_devs[*]} (btrfs raid6)"

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

step 4 "ioreel study: building each candidate, replaying the trace on it timed and dep, tearing it down"
runs=()
plan=$outdir/candidates.plan
if need_verb study && need_verb replay && [ -s "$trace" ]; then
	# A recording replays in both modes; a synthesized job has no dependencies to keep.
	modes="timed dep"
	output_has 'source *record' "$IOREEL" info "$trace" 2>/dev/null || modes=auto
	echo "    timed: each I/O at its recorded time, the offered load (can the candidate absorb it?)"
	echo "    dep:   each I/O once those it waited for completed there (how would the database run?)"
	{
		printf '# make demo: the candidates, built and torn down by ioreel study\n'
		printf '[study]\nrepeats=1\nsize=%s\nresults=study\n\n' "$size"
		printf '[ext4]\ndevices=%s\nfs=ext4\n\n' "$ext4_dev"
		printf '[btrfs-raid6]\ndevices=%s\nfs=btrfs\nraid=raid6\nmetadata=raid1c3\n\n' "${raid_devs[*]}"
		for mode in $modes; do
			printf '[%s]\ntrace=%s\n' "$mode" "$(basename "$trace")"
			[ $mode = auto ] || printf 'mode=%s\n' "$mode"
		done
	} >"$plan"
	sed 's/^/    | /' "$plan"
	echo "    ioreel study $(basename "$plan") --allow-writes"
	"$IOREEL" study "$plan" --allow-writes 2>&1 >"$outdir/study.txt" |
		sed 's/^/    /' || fail "ioreel study $plan failed"
	sed 's/^/    /' "$outdir/study.txt"
	for name in ext4 btrfs-raid6; do
		for mode in $modes; do
			run=$outdir/run-$name-$mode.ioreel
			[ $mode = auto ] && run=$outdir/run-$name.ioreel
			ln -f "$outdir/study/cells/$name/$mode/r1.ioreel" "$run" ||
				fail "ioreel study left no result for $name ($mode)"
			python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["fidelity"]
print("      %s %s: %.1f s for a %.1f s trace, at most %d I/Os in flight%s" % (sys.argv[2], f["mode"],
      f["replay_span_ns"] / 1e9, f["trace_span_ns"] / 1e9, f["max_inflight"],
      ", the in-flight cap held I/O back %d times" % f["cap_hits"] if f["cap_hits"] else ""))' \
				"$outdir/study/cells/$name/$mode/r1.json" "$name"
			runs+=("$run")
		done
	done
elif ioreel_has study; then
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
echo "The study's report (candidates, environment, commands as run): $outdir/study/report.html"
