#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# timeout: 300
# The file-level recorder keeps up when the application keeps every CPU busy in system calls
# (issue 27 item 3), as the block level does (record_saturation.sh): fio psync 4 KiB random
# reads and writes on files of a fresh tmpfs, one job per CPU and one more, not pinned (each
# job a process doing nothing but pread/pwrite on a file in memory), recorded at file level
# with default options, three times. Each time nothing is dropped and the trace holds every
# read and write fio made: fio's total_ios (--output-format=json, summed over its jobs) counts
# each pread/pwrite once, so the trace's reads and writes by fio on those files must be that
# many. The files are laid out before the recorder starts, so fio writes nothing else.
# A function test: no rate or time bounds (the figures are bench/record.sh's).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"

dir=$(scratch_dir)
mnt=$dir/tmpfs
mkdir "$mnt"
mount -t tmpfs -o size=256m ioreel-test "$mnt" || fail "cannot mount a tmpfs on $mnt"
cleanup_push "umount -l '$mnt'"
jobs=$(($(nproc) + 1))
fio_job() {
	fio --name=sat --directory="$mnt" --numjobs="$jobs" --size=16m --ioengine=psync \
		--rw=randrw --bs=4k "$@"
}
fio_job --create_only=1 >/dev/null || fail "fio could not lay out its files in $mnt"

for run in 1 2 3; do
	out=$dir/s$run.ioreel
	rec_start "$out" --level file --under "$mnt"
	fio_job --runtime=3 --time_based --output-format=json --output="$dir/f$run.json" \
		>/dev/null || fail "fio on $mnt failed: $(cat "$dir/f$run.json")"
	rec_stop || fail "ioreel record exited $? ($(cat "$out.err"))"
	fio_ios=$(python3 -c 'import json, sys
print(sum(j[d]["total_ios"] for j in json.load(open(sys.argv[1]))["jobs"]
          for d in ("read", "write")))' "$dir/f$run.json") ||
		fail "cannot read total_ios from $dir/f$run.json"
	events=$(json_get "$out.json" events)
	dropped=$(json_get "$out.json" dropped)
	by_fio=$(trace_csv "$out" | python3 -c 'import csv, sys
print(sum(1 for r in csv.DictReader(sys.stdin)
          if r["op"] in ("read", "write") and r["comm"] == "fio"))') ||
		fail "cannot export $out"
	echo "run $run: $jobs jobs, fio $fio_ios reads and writes; recorded $events" \
		"($by_fio by fio), dropped $dropped; drain thread" \
		"$(json_get "$out.json" drain_priority), fullest ring $(json_get "$out.json" ring_peak)," \
		"buffer $(json_get "$out.json" buffer_peak_bytes) B"
	assert_eq "$dropped" 0 "run $run: dropped calls ($(cat "$out.json"))"
	assert_eq "$by_fio" "$fio_ios" \
		"run $run: fio's reads and writes in the trace against fio's total_ios"
	rm -f "$out"
done
echo PASS
