#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ioreel study refuses before it writes anything (issue 25): a device that is mounted, one
# listed twice in a candidate, one in another study running at once, a run without
# --allow-writes, md asked where the kernel has none, a plan with an unknown key (FILE:LINE and
# the key) or another mistake the plan fuzzer found (FILE:LINE). Each with a clear message, exit
# status 1 or 2, no results directory made and the devices as they were (no signature written);
# --dry-run of such a plan exits the same way. So are the mistakes a CLI sweep found a dry run
# let through (exit 0): a preset that does not exist, a trace that is missing, not a trace or
# unreadable, a fio job without its section, options synth or replay refuse, a device that is
# missing, a directory or a regular file, --results empty, not a directory or on a pseudo
# filesystem (/proc, /sys), runtime=1ns, a tool not installed; the run and the dry run say the
# same words, the dry run its commands too. A lock file that is a symbolic link, a directory, a
# FIFO, a hard link or another user's is refused, not followed or passed over.
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
# wplan NAME WORKLOAD-LINES...: a plan with a raw candidate on $A and the given workload [w], whose
# first line is line 10
wplan() {
	local f=$d/$1.ini
	shift
	{
		printf '[study]\nrepeats=1\nruntime=1s\nsize=16M\n\n[cand]\ndevices=%s\nfs=raw\n[w]\n' "$A"
		printf '%s\n' "$@"
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

# refused_alike EXIT PATTERN PLAN [options]: the run (--allow-writes) and the dry run refuse the
# plan alike, with the same messages; the dry run prints its commands all the same and ends
# saying that a run would refuse it
refused_alike() {
	local want=$1 pat=$2 p=$3
	shift 3
	refused "$want" "$pat" "$p" --allow-writes "$@"
	sed '$d' "$d/err" >"$d/err.run"
	refused "$want" "$pat" "$p" --dry-run "$@"
	sed '$d' "$d/err" | diff -u "$d/err.run" - ||
		fail "$(basename "$p"): the dry run's messages differ from the run's (above)"
	tail -n 1 "$d/err" | grep -q "a real run would refuse this plan" ||
		fail "$(basename "$p"): the dry run does not end saying a run would refuse the plan"
	grep -q ' replay ' "$d/out" || fail "$(basename "$p"): the dry run printed no commands"
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
# the dry run says so too (it took nothing: the lock file is as the holder left it)
echo "holder $$" >"$lock"
refused 1 "$A is in another study running now.*a run now would refuse it" "$p" --dry-run
assert_eq "$(cat "$lock")" "holder $$" "the lock file after a dry run"
exec {lockfd}>&- # released: the lock goes with its last open descriptor
# free again: the dry run passes the lock, and still takes nothing
"$IOREEL" study "$p" --dry-run >"$d/out" 2>"$d/err" ||
	fail "dry run after the release: $(cat "$d/err")"
assert_eq "$(cat "$lock")" "holder $$" "the lock file after a dry run"
# a holder that lets go at once (another study's dry run checking the lock takes it a moment) is
# waited for (up to 1 s; held 0.1 s here): a study starting then refused, saying one ran
flock "$lock" sleep 0.1 &
for ((i = 0; i < 200; i++)); do
	flock -n "$lock" true || break
	sleep 0.005
done
"$IOREEL" study "$p" --dry-run >"$d/out" 2>"$d/err" ||
	fail "dry run while a dry run's check held the lock a moment: $(cat "$d/err")"
wait

# something else at the lock's name (/run/lock is world-writable): a symbolic link was followed,
# the file it named made or truncated and the study's pid written there (a hard link's too); a
# directory or a FIFO was passed over for /tmp's lock. The run and the dry run refuse it, and
# another user's file, making nothing.
held=$(cat "$lock")
cleanup_push "rm -rf '$lock'; printf '%s\n' '$held' >'$lock'"
for what in "a symbolic link" "a directory" "not a regular file" "a file of 2 names (hard links)" \
	"a file of user 65534"; do
	rm -f "$lock"
	case $what in
	a\ sym*) ln -s "$d/victim" "$lock" ;;
	a\ dir*) mkdir "$lock" ;;
	not*) mkfifo "$lock" ;;
	*links\)) echo kept >"$d/linked" && ln "$d/linked" "$lock" ;;
	*) echo kept >"$lock" && chown 65534 "$lock" ;;
	esac
	refused 1 "the lock file of $A, $lock, is $what: .*remove it.*nothing was written" "$p" \
		--allow-writes
	refused 1 "the lock file of $A, $lock, is $what: .*a run now would refuse it" "$p" --dry-run
	[ ! -e "$d/victim" ] || fail "a study made the file the symbolic link $lock names"
	[ ! -e "$d/linked" ] || assert_eq "$(cat "$d/linked")" kept "the file hard-linked at $lock"
	rm -rf "$lock" "$d/linked"
done
printf '%s\n' "$held" >"$lock"

p=$(plan nowrite "devices=$A" fs=xfs)
refused 2 "add --allow-writes to run" "$p"

if [ -e /proc/mdstat ] && command -v mdadm >/dev/null; then
	echo "this kernel has md and mdadm is installed: the md refusal is not tested here"
else
	p=$(plan md "devices=$A $B" fs=ext4 raid=md1)
	# the dry run refuses it too (it exited 0), and prints the md commands all the same
	refused_alike 2 "$p:6: candidate \[cand\] asks for md raid1: \(this kernel has no md\|mdadm is not installed\)" "$p"
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
refused 2 "results given twice (\"$d/r1\" and \"$d/r2\"): give it once" "$p" --results "$d/r1" \
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

# --dry-run makes every check the run makes before it builds anything: each of these exited 0
"$IOREEL" synth --preset 4k-randread --size 16M --runtime 1s -o "$d/t.ioreel" >/dev/null ||
	fail "cannot synthesize a trace"
p=$(wplan good preset=4k-randread "[t]" trace=t.ioreel)
"$IOREEL" study "$p" --dry-run >"$d/out" 2>"$d/err" || fail "a good plan's dry run: $(cat "$d/err")"
[ -s "$d/err" ] && fail "a good plan's dry run complained: $(cat "$d/err")"
[ ! -e "${p%.ini}.results" ] || fail "the dry run made its results directory"
p=$(wplan preset preset=nonexistent)
refused_alike 2 "$p:10: workload \[w\]: preset=nonexistent is not a preset: give one of 4k-randread, 4k-randwrite, 4k-randrw70, 4m-seqread, 4m-seqwrite, innodb-16k (ioreel synth --list-presets says what each runs)" "$p"
# cdm writes one trace per test, and its cells replayed a file never written
p=$(wplan cdm preset=cdm)
refused_alike 2 "$p:10: workload \[w\]: preset=cdm makes 4 traces (one per test), and a workload replays one" "$p"
p=$(wplan notrace trace=/nonexistent)
refused_alike 2 "$p:10: workload \[w\]: trace=: /nonexistent: No such file or directory: give the path of an ioreel trace (ioreel record, convert or synth writes one)" "$p"
p=$(wplan nottrace trace=nottrace.ini)
refused_alike 2 "$p:10: workload \[w\]: trace=: $d/nottrace.ini: not an ioreel trace" "$p"
p=$(wplan dirtrace "trace=$d")
refused_alike 2 "$p:10: workload \[w\]: trace=: $d: is a directory, not a trace" "$p"
# a device over a file the study reads (a loop device over the trace, or over the plan) passed
# every check, no signature and not mounted: mkfs wrote over the trace, and the study then
# replayed what was left. Refused, --force or not, the file as it was.
cp "$d/t.ioreel" "$d/held.ioreel" && truncate -s 64M "$d/held.ioreel" ||
	fail "cannot copy the trace"
over=$(losetup -f --show "$d/held.ioreel") || fail "losetup over the trace"
cleanup_push "losetup -d '$over'"
sum=$(md5sum <"$d/held.ioreel")
p=$d/held.ini
printf '[study]\nrepeats=1\nruntime=1s\nsize=16M\n\n[cand]\ndevices=%s\nfs=ext4\n[w]\ntrace=%s\n' \
	"$over" held.ioreel >"$p"
refused_alike 2 "$p:7: candidate \[cand\]: $over holds the trace of workload \[w\], \
$d/held.ioreel (it is a loop device over the file): building the candidate would destroy it, \
--force or not" "$p" --force
assert_eq "$(md5sum <"$d/held.ioreel")" "$sum" "the trace under the candidate's device"
# the plan: written again in place once the device is over it (sed -i would make a new file),
# to its whole size (libblkid fails to read a loop device beyond its file's end)
p=$d/heldplan.ini
truncate -s 4096 "$p"
over=$(losetup -f --show "$p") || fail "losetup over the plan"
cleanup_push "losetup -d '$over'"
printf '[study]\nrepeats=1\nruntime=1s\nsize=16M\n\n[cand]\ndevices=%s\nfs=raw\n' "$over" >"$p"
printf '[w]\npreset=4k-randread\n' >>"$p"
{ head -c $((4095 - $(stat -c %s "$p"))) /dev/zero | tr '\0' '#' && echo; } >>"$p"
refused 2 "candidate \[cand\]: $over holds the plan, $p (it is a loop device over the file)" \
	"$p" --allow-writes
# unreadable: root reads any file, so the study runs as nobody (it refuses the device too then)
if setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$IOREEL" --help >/dev/null 2>&1; then
	cp "$d/t.ioreel" "$d/unread.ioreel" && chmod 000 "$d/unread.ioreel" && chmod 755 "$d"
	p=$(wplan unread trace=unread.ioreel)
	rc=0
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$IOREEL" study "$p" \
		--dry-run >"$d/out" 2>"$d/err" || rc=$?
	cat "$d/err"
	[ $rc = 2 ] || fail "an unreadable trace: exit status $rc, want 2"
	grep -q "$p:10: workload \[w\]: trace=: $d/unread.ioreel: Permission denied" "$d/err" ||
		fail "an unreadable trace is not said"
else
	echo "nobody cannot run $IOREEL here: the unreadable trace is not tested"
fi
printf '[global]\nrw=randread\nbs=4k\nsize=16M\n[a]\n' >"$d/job.fio"
p=$(wplan nosection fio=job.fio section=nope)
refused_alike 2 "$p:9: workload \[w\]: ioreel synth refuses its command (said above)" "$p"
grep -qx "ioreel synth: $d/job.fio has no section \[nope\]" "$d/err" || fail "synth's own words are not said"
p=$(wplan badopt preset=4k-randread options=--no-such-option=1)
refused_alike 2 "^ioreel synth: unknown option --no-such-option" "$p"
p=$(wplan engine preset=4k-randread "replay_opts=--engine bogus")
refused_alike 2 "$p:11: workload \[w\]: replay_opts=--engine bogus: ioreel replay refuses them (said above); mend it" "$p"
grep -qx "ioreel replay: unknown engine 'bogus' (io_uring, libaio, psync, threads, null)" "$d/err" ||
	fail "replay's own words are not said"
# runtime=1ns was printed as --runtime 0ms, which synth refuses; a plan error now
p=$(wplan ns preset=4k-randread)
sed -i 's/^runtime=1s$/runtime=1ns/' "$p"
refused 2 "$p:3: runtime=1ns: give a duration from 1ms to 292 years (30, 500ms, 2m)" "$p" --allow-writes
refused 2 "$p:3: runtime=1ns: give a duration from 1ms to 292 years" "$p" --dry-run
# devices= that a candidate cannot be built on: missing, a directory, a regular file (fs=raw)
truncate -s 16M "$d/file.img"
for dev in "$d/none" "$d" "$d/file.img"; do
	p=$(plan dev "devices=$dev" fs=raw)
	what=": No such file or directory"
	[ -d "$dev" ] && what=" is a directory, not a block device"
	[ -f "$dev" ] && what=" is a regular file, not a block device"
	refused_alike 2 "$p:7: candidate \[cand\]: devices=: $dev$what: give the disks or partitions to build it on" "$p"
done
# --results that names no directory: empty, or a file
p=$(wplan res preset=4k-randread)
refused 2 "^ioreel study: --results '': give the directory the study's results go to" "$p" --results '' --allow-writes
refused 2 "^ioreel study: --results '': give the directory" "$p" --results '' --dry-run
refused_alike 2 "^ioreel study: --results /dev/null: /dev/null exists and is not a directory: give a directory" "$p" --results /dev/null
refused_alike 2 "^ioreel study: --results $d/file.img/r: $d/file.img exists and is not a directory" "$p" --results "$d/file.img/r"
# a directory holding other files (no study's state): the study replaced a report.html and a
# plan.ini of the user's there
mkdir "$d/mine" && echo mine >"$d/mine/report.html" || fail "mkdir $d/mine"
refused_alike 2 "^ioreel study: --results $d/mine: $d/mine holds files that are not an ioreel \
study's (report.html), and a study writes report.html" "$p" --results "$d/mine"
assert_eq "$(ls "$d/mine")" report.html "the files in a refused results directory"
assert_eq "$(cat "$d/mine/report.html")" mine "the user's report.html"
# a directory on a pseudo filesystem: root may write there (access() passed /proc and
# /sys/kernel), but it holds no files
for r in /proc/ioreel-results /sys/kernel/ioreel-results; do
	top=${r%/*}
	refused_alike 2 "^ioreel study: --results $r: $top is on $(stat -f -c %T "$top"), a pseudo \
filesystem of the kernel, not storage: give a directory on a disk or tmpfs" "$p" --results "$r"
	[ ! -e "$r" ] || fail "--results $r: made"
done
sed -i '2i results=/dev/null' "$p"
refused_alike 2 "$p:2: results=/dev/null: /dev/null exists and is not a directory" "$p"
# a tool that builds or tears down the candidate, not installed (mkfs.xfs left out of PATH)
mkdir "$d/bin" && for t in mount umount wipefs; do ln -s "$(command -v $t)" "$d/bin/"; done
p=$(plan nomkfs "devices=$A" fs=xfs)
for o in --allow-writes --dry-run; do
	rc=0
	PATH=$d/bin "$IOREEL" study "$p" $o >"$d/out" 2>"$d/err" || rc=$?
	cat "$d/err"
	[ $rc = 2 ] || fail "mkfs.xfs not installed, $o: exit status $rc, want 2"
	grep -q "$p:6: candidate \[cand\] needs mkfs.xfs, which is not in PATH: install xfsprogs" \
		"$d/err" || fail "mkfs.xfs not installed, $o: not said"
done

# a candidate that fails to build stops the study before its first cell; once the plan is
# mended, the same command starts the study again in its results directory (it had to be
# deleted by hand: "holds a study already", and with --resume "another version of the plan")
p=$(plan restart setup=false teardown=true "target=$d")
rc=0
"$IOREEL" study "$p" --allow-writes -q >"$d/out" 2>"$d/err" || rc=$?
cat "$d/err"
[ $rc != 0 ] || fail "a candidate that fails to build: the study exited 0"
grep -q "candidate \[cand\]: setup command failed" "$d/err" || fail "no message naming the candidate"
plan restart "devices=$A" fs=ext4 >/dev/null
"$IOREEL" study "$p" --allow-writes >"$d/out" 2>"$d/err" ||
	{ tail -n 20 "$d/err"; fail "the mended plan in the same results directory failed"; }
grep -q "holds no finished cell and no candidate left built: starting the study there again" \
	"$d/err" || fail "the restart was not said: $(head -n 5 "$d/err")"
assert_eq "$(grep -c '^done ' "${p%.ini}.results/state")" 1 "cells done after the restart"
[ -z "$(awk -v a="$A" '$1 == a' /proc/mounts)" ] || fail "$A left mounted by the study"
# a dry run reads the state as the run does: refused without --resume, nothing left to run with it
rc=0
"$IOREEL" study "$p" --dry-run >"$d/out" 2>"$d/err" || rc=$?
[ $rc = 2 ] || fail "a dry run where a study is: exit status $rc, want 2"
grep -q "${p%.ini}.results holds a study already (1 cells done): --resume to continue it" "$d/err" ||
	fail "a dry run where a study is: $(cat "$d/err")"
"$IOREEL" study "$p" --dry-run --resume >"$d/out" 2>"$d/err" || fail "dry run --resume: $(cat "$d/err")"
grep -qE ' (replay|synth|mkfs\.ext4) ' "$d/out" && fail "a dry run --resume of a finished study prints cells to run"
# a results directory whose "state" is somebody else's file: refused, the file left as it was
mkdir "$d/foreign" && printf 'not ours\n' >"$d/foreign/state"
rc=0
"$IOREEL" study "$p" --results "$d/foreign" --allow-writes -q >"$d/out" 2>"$d/err" || rc=$?
[ $rc = 2 ] || fail "a foreign state file: exit status $rc, want 2"
grep -q "$d/foreign/state is not the state file of an ioreel study" "$d/err" ||
	fail "a foreign state file: $(cat "$d/err")"
assert_eq "$(cat "$d/foreign/state")" "not ours" "the foreign state file"
echo "ok"
