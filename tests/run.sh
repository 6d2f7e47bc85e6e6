#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Test runner: every unit test binary (build/tests/test_*) and every integration script
# (tests/integration/*.sh), one at a time, each under a timeout. Exit status per test:
# 0 pass, 77 skip, anything else fail. A skip must say why on a line "SKIP: why"; under CI
# (CI=true) a skip is a failure unless the test proved the kernel cannot do it
# ("SKIP(kernel): why", see skip_kernel in tests/lib.sh).
# Usage: tests/run.sh [PATTERN]   (runs only tests whose name contains PATTERN)
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$here/../build}
export BUILD IOREEL=${IOREEL:-$BUILD/ioreel}
pattern=${1:-}
logs=$BUILD/test-logs
mkdir -p "$logs"

tests=()
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] && [ "${t%.d}" = "$t" ] && tests+=("$t")
done
for t in "$here"/integration/*.sh; do
	[ -f "$t" ] && tests+=("$t")
done

# watch_hang PID SECONDS OUT: if the test under timeout PID still runs after SECONDS, writes what
# each of its processes and threads waits on (state, kernel wait channel, kernel stack) to OUT,
# so that a hang seen once in CI says where it was before timeout kills it.
watch_hang() {
	local s
	trap 'kill $s 2>/dev/null; exit 0' TERM
	sleep "$2" &
	s=$!
	wait "$s"
	kill -0 "$1" 2>/dev/null || exit 0
	{
		echo "still running after $2 s; its processes (group $1):"
		ps -e -o pgid,pid,ppid,stat,etimes,wchan:32,args 2>&1 | awk -v g="$1" 'NR == 1 || $1 == g' |
			cut -c1-200
		for p in $(ps -e -o pgid=,pid= | awk -v g="$1" '$1 == g {print $2}'); do
			for task in /proc/"$p"/task/*; do
				[ -r "$task/stack" ] || continue
				echo "-- pid $p task ${task##*/} ($(cat "$task/comm" 2>/dev/null)):" \
					"$(awk '{print $3}' "$task/stat" 2>/dev/null)" \
					"$(sed 's/^\[<0>\] //; s/+0x.*//' "$task/stack" 2>/dev/null | tr '\n' ' ' |
						cut -c1-300)"
			done
		done
	} >"$3" 2>&1
}

# A Ctrl-C or a TERM reaches the runner only: `timeout` puts each test in a process group of its
# own, and the watcher, a background job, ignores SIGINT. Pass it on (timeout hands the TERM to
# the test, whose traps clean up), stop the watcher and say where it stopped.
tpid='' wpid='' name=''
stop_run() {
	local cur=${tpid:+$name}
	trap '' INT TERM
	[ -n "$tpid" ] && kill -TERM "$tpid" 2>/dev/null && wait "$tpid" 2>/dev/null
	[ -n "$wpid" ] && kill "$wpid" 2>/dev/null && wait "$wpid" 2>/dev/null
	echo
	echo "interrupted${cur:+ during $cur (its log: $logs/$cur.log)}:" \
		"$pass passed, $fail failed, $skip skipped so far"
	exit 130
}
pass=0 fail=0 skip=0 failed=()
trap stop_run INT TERM
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	[ -n "$pattern" ] && [[ $name != *"$pattern"* ]] && continue
	# A script may ask for a longer limit with a line "# timeout: SECONDS".
	limit=$(grep -m1 -o '^# timeout: [0-9]*' "$t" 2>/dev/null | awk '{print $3}')
	limit=${limit:-120}
	start=$(date +%s.%N)
	rm -f "$logs/$name.hung"
	if [[ $t == *.sh ]]; then
		timeout -k 10 "$limit" bash "$t" >"$logs/$name.log" 2>&1 &
	else
		timeout -k 10 "$limit" "$t" >"$logs/$name.log" 2>&1 &
	fi
	tpid=$!
	watch_hang "$tpid" $((limit > 10 ? limit - 3 : limit)) "$logs/$name.hung" &
	wpid=$!
	wait "$tpid"
	rc=$?
	kill "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	tpid='' wpid=''
	secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1))
		printf 'PASS  %-40s %6ss\n' "$name" "$secs"
	elif [ $rc -eq 77 ]; then
		why=$(grep -m1 -E '^SKIP(\(kernel\))?:' "$logs/$name.log")
		if [ "${CI:-}" = true ] && [[ $why != "SKIP(kernel):"* ]]; then
			fail=$((fail + 1)); failed+=("$name")
			printf 'FAIL  %-40s skipped in CI without a kernel reason: %s\n' "$name" "${why:-no reason given}"
		else
			skip=$((skip + 1))
			printf 'SKIP  %-40s %s\n' "$name" "${why:-no reason given}"
		fi
	else
		fail=$((fail + 1)); failed+=("$name")
		[ $rc -eq 124 ] && why="timed out after ${limit}s" || why="exit $rc"
		printf 'FAIL  %-40s %s (log: %s)\n' "$name" "$why" "$logs/$name.log"
		tail -n 25 "$logs/$name.log" | sed 's/^/      | /'
		[ -s "$logs/$name.hung" ] && head -n 80 "$logs/$name.hung" | sed 's/^/      # /'
	fi
done
echo
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
