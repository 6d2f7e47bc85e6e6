#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ioreel study interrupted (issue 25): SIGINT in the middle of a cell (a replay running, some
# cells finished) ends the study with the candidate torn down (nothing mounted, the devices
# free, no partial cell kept). A --resume killed outright (kill -9) in a later cell leaves its
# candidate up; the next --resume tears it down first and finishes with the same 18 cells,
# none run twice: every finished cell was started once, the two interrupted ones excepted,
# which are run again from their start.
# timeout: 180
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/study_common.inc"
d=$(scratch_dir)
study_devices
study_record "$d/prod.ioreel"
study_plan "$d"
res=$d/plan.results

"$IOREEL" study "$d/plan.ini" --allow-writes -q >"$d/out1" 2>"$d/err1" &
pid=$!
cleanup_kill "$pid"
# wait for the 8th cell's replay to be running (7 done; the second candidate, btrfs raid1 on
# two devices, is built)
for ((i = 0; i < 1200; i++)); do
	n=$(grep -c '^done ' "$res/state" 2>/dev/null)
	[ "${n:-0}" -ge 7 ] && tail -n 1 "$res/log" | grep -q ' replay .*cells/btrfs-raid1/' && break
	kill -0 $pid 2>/dev/null || { cat "$d/err1"; fail "the study ended before it was interrupted"; }
	sleep 0.05
done
[ "$i" -lt 1200 ] || fail "the study did not reach its 8th cell in 60 s"
sleep 0.3
kill -INT $pid
rc=0
wait $pid || rc=$?
cat "$d/err1"
[ $rc -ne 0 ] || fail "an interrupted study exited 0"
grep -q 'interrupted: .* --resume' "$d/err1" || fail "the study did not say how to continue"
study_assert_clean "$res"
grep -q '^torn btrfs-raid1$' "$res/state" || fail "the interrupted candidate was not torn down"
[ -z "$(find "$res/cells" -name '*.part.*')" ] || fail "a partial cell was kept"
done1=$(grep -c '^done ' "$res/state")
[ "$done1" -ge 7 ] && [ "$done1" -lt 18 ] || fail "$done1 cells done before the interrupt"

# without --resume the results are not touched
assert_status 2 "$IOREEL" study "$d/plan.ini" --allow-writes -q >/dev/null 2>"$d/err2"
grep -q 'holds a study already (.* cells done): --resume' "$d/err2" || fail "no refusal to overwrite: $(cat "$d/err2")"

# a resume killed outright (kill -9) in the middle of a cell of the third candidate: its
# replay stops with it, and the next resume takes the candidate down before anything else
"$IOREEL" study "$d/plan.ini" --allow-writes --resume -q >/dev/null 2>"$d/err3" &
pid=$!
cleanup_kill "$pid"
for ((i = 0; i < 1200; i++)); do
	n=$(grep -c '^done ' "$res/state" 2>/dev/null)
	[ "${n:-0}" -ge 13 ] && tail -n 1 "$res/log" | grep -q ' replay .*cells/ext4-cmds/' && break
	kill -0 $pid 2>/dev/null || { cat "$d/err3"; fail "the resume ended before it was killed"; }
	sleep 0.05
done
[ "$i" -lt 1200 ] || fail "the resume did not reach its 14th cell in 60 s"
sleep 0.3
kill -9 $pid
wait $pid 2>/dev/null
grep -q "$done1 of 18 cells already done" "$d/err3" || fail "the resume did not say what it skipped"
done2=$(grep -c '^done ' "$res/state")
awk -v d="$d/ext4mnt" '$2 == d' /proc/mounts | grep -q . || fail "the killed study's candidate is not mounted any more: the test cannot tell a teardown"

"$IOREEL" study "$d/plan.ini" --allow-writes --resume >"$d/out4" 2>"$d/err4" ||
	{ tail -n 30 "$d/err4"; fail "ioreel study --resume after kill -9 exited $?"; }
grep -q "candidate \[ext4-cmds\] was left built by an earlier run: tearing it down" "$d/err4" ||
	fail "the resume did not tear down what the killed run left"
grep -q "$done2 of 18 cells already done" "$d/err4" || fail "the resume did not say what it skipped"
study_assert_clean "$res"
study_assert_clean "$d"
assert_eq "$(grep -c '^done ' "$res/state")" 18 "finished cells after the resume"
assert_eq "$(grep '^done ' "$res/state" | awk '{ print $2, $3, $4 }' | sort -u | wc -l)" 18 "distinct cells"
# no finished cell was started again: each cell's replay command appears once in the log,
# except the two interrupted (SIGINT, kill -9), run again from their start
dup=$(grep -o ' replay .* -o [^ ]*/cells/[^ ]*\.part\.ioreel' "$res/log" |
	sed 's/.* -o //' | sort | uniq -d)
[ "$(printf '%s\n' "$dup" | grep -c .)" -le 2 ] || fail "cells run twice: $dup"
assert_eq "$(grep -c 'replay .*cells/' "$d/err4")" $((18 - done2)) "replays run by the last resume"
for w in rand fiojob db; do grep -q "^\[$w\] " "$d/out4" || fail "no table for [$w] after the resume"; done
[ -s "$res/report.html" ] && [ -s "$res/report.json" ] || fail "no report after the resume"
echo "ok"
