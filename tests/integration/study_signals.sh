#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ioreel study while something goes wrong, on a setup=/teardown= candidate (a tmpfs, no
# devices): a Ctrl-C during a setup= command lets it finish (a teardown= undoes a whole setup:
# one cut short left "umount: not mounted", the candidate "built" for every --resume), then the
# candidate comes down and --resume finishes; a --resume started while the study runs is refused
# (no device lock covers such a candidate: it tore the running one's candidate down); a cell
# whose replay fails leaves no partial file; a study whose stderr's reader is gone (`study 2>&1 |
# sed`, the pipeline stopped with it) still tears its candidate down.
# timeout: 120
. "$(dirname "$0")/../lib.sh"
need_root
d=$(scratch_dir)
cleanup_push "awk -v d='$d/' 'index(\$2, d) == 1 { print \$2 }' /proc/mounts | xargs -r umount -l"
# plan NAME REPEATS FIRST-SETUP [WORKLOAD-LINE]: a tmpfs candidate, one preset workload
plan() {
	cat >"$d/$1.ini" <<PLAN
[study]
repeats=$2
runtime=1s
size=16M
[tmp]
setup=$3
setup=mkdir -p $d/$1.mnt && mount -t tmpfs -o size=64M ioreel-test $d/$1.mnt
teardown=umount $d/$1.mnt
target=$d/$1.mnt
[rand]
preset=4k-randread
${4:-}
PLAN
}
# wait_log RES PATTERN PID: until RES/log has a line matching PATTERN (60 s at most)
wait_log() {
	local i
	for ((i = 0; i < 1200; i++)); do
		grep -q -- "$2" "$1/log" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || fail "the study ended before the log said '$2'"
		sleep 0.05
	done
	fail "the study's log did not say '$2' in 60 s"
}
no_mounts() {
	local left
	left=$(awk -v d="$d/" 'index($2, d) == 1' /proc/mounts)
	[ -z "$left" ] || fail "$1: left mounted: $left"
}

# 1. Ctrl-C during the first setup command (a 3 s sleep): it finishes, so does the setup, and
# the candidate comes down by its teardown
plan setup 1 "sleep 3"
"$IOREEL" study "$d/setup.ini" --allow-writes -q >/dev/null 2>"$d/err1" &
pid=$!
cleanup_kill "$pid"
wait_log "$d/setup.results" "+ sleep 3" "$pid"
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
cat "$d/err1"
[ "$rc" != 0 ] || fail "a study interrupted during its setup exited 0"
grep -q "letting this setup command finish" "$d/err1" ||
	fail "the study did not say it lets the setup finish"
grep -q "interrupted: .* --resume" "$d/err1" || fail "the study did not say how to continue"
grep -q "could not be torn down" "$d/err1" && fail "the candidate did not come down"
grep -q '^torn tmp$' "$d/setup.results/state" ||
	fail "the state does not say the candidate came down"
no_mounts "after a Ctrl-C in the setup"
"$IOREEL" study "$d/setup.ini" --allow-writes --resume -q >/dev/null 2>"$d/err1b" ||
	fail "--resume after a Ctrl-C in the setup exited $?: $(cat "$d/err1b")"
assert_eq "$(grep -c '^done ' "$d/setup.results/state")" 1 "cells done after the resume"
no_mounts "after the resume"

# 2. a --resume while the study runs: refused at once, the running study untouched
plan busy 3 true
"$IOREEL" study "$d/busy.ini" --allow-writes -q >/dev/null 2>"$d/err2" &
pid=$!
cleanup_kill "$pid"
wait_log "$d/busy.results" " replay " "$pid"
rc=0
"$IOREEL" study "$d/busy.ini" --allow-writes --resume -q >/dev/null 2>"$d/err2b" || rc=$?
cat "$d/err2b"
assert_eq "$rc" 1 "exit status of a --resume of a running study"
grep -q "busy.results is in use by another ioreel study running now" "$d/err2b" ||
	fail "no refusal naming the results directory"
grep -q "tearing it down\|+ umount" "$d/err2b" &&
	fail "the second study tore the first's candidate down"
wait "$pid" || fail "the running study failed beside a --resume: $(cat "$d/err2")"
assert_eq "$(grep -c '^done ' "$d/busy.results/state")" 3 "cells of the running study"
no_mounts "after two studies at once"

# 3. a replay that fails: the study says so, and no partial cell is left (options replay's parser
# takes, refused once the replay prepares: an unknown engine is refused before the study starts)
plan fails 1 true "replay_opts=--engine psync --async-writes writeback"
rc=0
"$IOREEL" study "$d/fails.ini" --allow-writes -q >/dev/null 2>"$d/err3" || rc=$?
cat "$d/err3"
assert_eq "$rc" 1 "exit status of a study whose replay failed"
grep -q "\[tmp\] rand repeat 1: ioreel replay failed" "$d/err3" ||
	fail "the failed cell is not named"
[ -z "$(find "$d/fails.results/cells" -name '*.part.*')" ] ||
	fail "a failed cell left $(find "$d/fails.results/cells" -name '*.part.*')"
no_mounts "after a failed cell"

# 4. stderr a pipe whose reader ends, then a Ctrl-C: SIGPIPE at the "interrupted" line ended the
# study before its teardown (a demo stopped by a TERM to its process group, sed in the pipeline
# dying first, left btrfs RAID6 mounted over four loop devices)
plan piped 3 true
mkfifo "$d/fifo"
cat "$d/fifo" >"$d/err4" &
rpid=$!
"$IOREEL" study "$d/piped.ini" --allow-writes -q >/dev/null 2>"$d/fifo" &
pid=$!
cleanup_kill "$pid"
wait_log "$d/piped.results" " replay " "$pid"
kill "$rpid"
wait "$rpid" 2>/dev/null
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
assert_eq "$rc" 1 "exit status of a study interrupted with its stderr gone (141: SIGPIPE)"
grep -q '^torn tmp$' "$d/piped.results/state" ||
	fail "the candidate was not torn down: $(tail -n 3 "$d/piped.results/log")"
no_mounts "after a Ctrl-C with stderr gone"
echo "ok"
