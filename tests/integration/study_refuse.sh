#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ioreel study refuses before it writes anything (issue 25): a device that is mounted, one
# listed twice in a candidate, one in another study running at once, a run without
# --allow-writes, md asked where the kernel has none, a plan with an unknown key (FILE:LINE and
# the key) or another mistake the plan fuzzer found (FILE:LINE). Each with a clear message, exit
# status 1 or 2, no results directory made and the devices as they were (no signature written);
# --dry-run of such a plan exits the same way.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd mkfs.ext4 blkid
"$IOREEL" study --help >/dev/null 2>&1 || fail "ioreel study is not built in $IOREEL"
d=$(scratch_dir)
A=$(make_loop 64)
B=$(make_loop 64)
M=$(make_loop 64)
mkfs.ext4 -q -F "$M" || fail "mkfs.ext4 $M"
mkdir "$d/m" && mount "$M" "$d/m" || fail "mount $M"
cleanup_push "umount -l '$d/m'"

# plan NAME CANDIDATE-LINES...: a plan with one preset workload and the given candidate
plan() {
	local f=$d/$1.ini
	shift
	{
		printf '[study]\nrepeats=1\nruntime=1s\nsize=16M\n\n[cand]\n'
		printf '%s\n' "$@"
		printf '\n[rand]\npreset=4k-randread\n'
	} >"$f"
	echo "$f"
}
# refused EXIT PATTERN PLAN [options]: the study exits EXIT, says PATTERN, writes nothing
refused() {
	local want=$1 pat=$2 p=$3 rc=0
	shift 3
	"$IOREEL" study "$p" "$@" >"$d/out" 2>"$d/err" || rc=$?
	cat "$d/err"
	[ $rc = "$want" ] || fail "$(basename "$p"): exit status $rc, want $want"
	grep -q -- "$pat" "$d/err" || fail "$(basename "$p"): no message matching '$pat'"
	[ ! -e "${p%.ini}.results" ] || fail "$(basename "$p"): a results directory was made"
	[ -z "$(blkid -p -o value -s TYPE "$A" "$B" 2>/dev/null)" ] ||
		fail "$(basename "$p"): a signature was written on $A or $B"
}

p=$(plan mounted "devices=$A $M" fs=btrfs raid=raid1)
refused 1 "candidate \[cand\]: refusing to write to $M: it (or a partition of it) is mounted on $d/m; a study never builds on a device in use, --force or not" "$p" --allow-writes
refused 1 "mounted on $d/m" "$p" --allow-writes --force
# a dry run prints the commands all the same, but exits as the real run would (it exited 0)
refused 1 "a real run would refuse this plan" "$p" --dry-run
grep -q "mkfs.btrfs" "$d/out" || fail "the dry run of a refused plan printed no commands"

ln -s "$A" "$d/alias"
p=$(plan twice "devices=$A $d/alias" fs=btrfs raid=raid1)
refused 2 "candidate \[cand\] lists $d/alias twice (as $A and $d/alias)" "$p" --allow-writes

# another study holds the device: the lock a running study takes
lock=/run/lock/ioreel-study.$(dev_majmin "$A")
[ -d /run/lock ] || lock=/tmp/ioreel-study.$(dev_majmin "$A")
exec {lockfd}>>"$lock" || fail "cannot open $lock"
flock -n "$lockfd" || fail "cannot take $lock"
p=$(plan locked "devices=$A" fs=xfs)
refused 1 "$A is in another study running now" "$p" --allow-writes
exec {lockfd}>&- # released: the lock goes with its last open descriptor

p=$(plan nowrite "devices=$A" fs=xfs)
refused 2 "add --allow-writes to run" "$p"

if [ -e /proc/mdstat ] && command -v mdadm >/dev/null; then
	echo "this kernel has md and mdadm is installed: the md refusal is not tested here"
else
	p=$(plan md "devices=$A $B" fs=ext4 raid=md1)
	refused 2 "candidate \[cand\] asks for md raid1: .*nothing was written" "$p" --allow-writes
	# a dry run prints the md commands all the same
	"$IOREEL" study "$p" --dry-run >"$d/out" 2>"$d/err" || fail "the dry run of an md plan failed: $(cat "$d/err")"
	grep -q "^mdadm --create /dev/md/ioreel-cand .*--level=1 --raid-devices=2 $A $B" "$d/out" ||
		fail "the dry run does not print mdadm --create"
fi

p=$(plan unknown "devices=$A" fs=xfs "mkfs_optz=-b size=4096")
refused 2 "$p:9: unknown key 'mkfs_optz' in candidate \[cand\]" "$p" --allow-writes
p=$(plan wrongkind "devices=$A" fs=xfs "preset=4k-randread")
refused 2 "$p:9: 'preset' is a workload key, and \[cand\] is a candidate" "$p" --allow-writes
# found by tests/fuzz/fuzz_plan.c: each refused at its own line, before the study starts
p=$(plan quotes "devices=$A '$B" fs=xfs)
refused 2 "$p:7: devices= of \[cand\]: unbalanced quotes" "$p" --allow-writes
p=$(plan words "devices=$A" fs=xfs "mkfs_opts=$(printf -- '-f %.0s' {1..101})")
refused 2 "$p:9: mkfs_opts=: more than 100 words" "$p" --allow-writes
p=$(plan nul "devices=$A" fs=xfs)
printf 'replay_opts=\0\n' >>"$p"
refused 2 "$p:12: a NUL byte: a plan is a text file" "$p" --allow-writes
# trace= empty named the plan's folder, which passed the study's check that it reads
p=$(plan emptytrace "devices=$A" fs=xfs)
printf '[db]\ntrace=\n' >>"$p"
refused 2 "$p:13: trace= is empty" "$p" --allow-writes
# a plan whose results beside it would not fit in a path: refused (they went to a folder cut
# short) unless --results names one
long=$d
for _ in $(seq 11); do long=$long/$(printf 'x%.0s' {1..200}); done
mkdir -p "$long" && cp "$(plan long "devices=$A" fs=xfs)" "$long/p.ini"
refused 2 "$long/p.ini: its path is too long for the results beside it: give --results DIR" \
	"$long/p.ini" --allow-writes
"$IOREEL" study "$long/p.ini" --results "$d/long.results" --dry-run >"$d/out" 2>"$d/err" ||
	fail "the long plan with --results: $(cat "$d/err")"
# two result directories: refused (the last one was taken silently); the same one twice is fine
p=$(plan twice "devices=$A" fs=xfs)
refused 2 "results given twice ($d/r1 and $d/r2): give it once" "$p" --results "$d/r1" \
	--results "$d/r2" --dry-run
[ ! -e "$d/r1" ] && [ ! -e "$d/r2" ] || fail "--results given twice: a results directory was made"
"$IOREEL" study "$p" --results "$d/r1" -o "$d/r1" --dry-run >"$d/out" 2>"$d/err" ||
	fail "the same --results twice: $(cat "$d/err")"
# a plan that is a named pipe nobody writes: refused at once, not waited on
mkfifo "$d/fifo.ini"
rc=0
timeout 20 "$IOREEL" study "$d/fifo.ini" --dry-run >"$d/out" 2>"$d/err" || rc=$?
cat "$d/err"
[ $rc = 2 ] || fail "a named pipe as the plan: exit status $rc, want 2 (124: it waited)"
grep -q "cannot read the plan $d/fifo.ini: not a regular file" "$d/err" || fail "fifo plan: $(cat "$d/err")"

# a workload its synth refuses stops the study before its first cell; once the plan is mended,
# the same command starts the study again in its results directory (it had to be deleted by
# hand: "holds a study already", and with --resume "another version of the plan")
p=$(plan badsynth "devices=$A" fs=ext4)
printf 'options=--no-such-option\n' >>"$p"
rc=0
"$IOREEL" study "$p" --allow-writes -q >"$d/out" 2>"$d/err" || rc=$?
cat "$d/err"
[ $rc != 0 ] || fail "a workload its synth refuses: the study exited 0"
grep -q "workload \[rand\]: ioreel synth failed" "$d/err" || fail "no message naming the workload"
sed -i '/^options=--no-such-option$/d' "$p"
"$IOREEL" study "$p" --allow-writes >"$d/out" 2>"$d/err" ||
	{ tail -n 20 "$d/err"; fail "the mended plan in the same results directory failed"; }
grep -q "holds no finished cell and no candidate left built: starting the study there again" \
	"$d/err" || fail "the restart was not said: $(head -n 5 "$d/err")"
assert_eq "$(grep -c '^done ' "${p%.ini}.results/state")" 1 "cells done after the restart"
[ -z "$(awk -v a="$A" '$1 == a' /proc/mounts)" ] || fail "$A left mounted by the study"
# a results directory whose "state" is somebody else's file: refused, the file left as it was
mkdir "$d/foreign" && printf 'not ours\n' >"$d/foreign/state"
rc=0
"$IOREEL" study "$p" --results "$d/foreign" --allow-writes -q >"$d/out" 2>"$d/err" || rc=$?
[ $rc = 2 ] || fail "a foreign state file: exit status $rc, want 2"
grep -q "$d/foreign/state is not the state file of an ioreel study" "$d/err" ||
	fail "a foreign state file: $(cat "$d/err")"
assert_eq "$(cat "$d/foreign/state")" "not ours" "the foreign state file"
echo "ok"
