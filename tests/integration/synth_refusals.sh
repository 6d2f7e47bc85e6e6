#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Issue 21, synth: what it used to accept silently is refused with a message and exit 2, and
# nothing is written (--bssplit with only 0 shares, --bsrange upside down, --log-min above
# --log-max, a --name too long for the device table, a single-valued option given twice with
# two values); --rate-iops with --runtime bounds a --size 1t job; cdm's files are named for what
# they hold and get .ioreel without a suffix in -o; stdout that cannot be written is an error.
. "$(dirname "$0")/../lib.sh"
d=$(scratch_dir)
cd "$d" || fail "cd"

refused() { # MESSAGE_PART ARGS...: exit 2, the message, no file
	local want=$1
	shift
	assert_status 2 "$IOREEL" synth "$@" -o x.ioreel 2>err >/dev/null
	grep -q -- "$want" err || fail "synth $*: no '$want' in: $(cat err)"
	[ ! -e x.ioreel ] || fail "synth $* wrote x.ioreel"
}
base=(--rw randread --size 1g --number-ios 10)
refused "a share above 0 for at least one size" "${base[@]}" --bssplit 4k/0
refused "a share above 0 for at least one size" "${base[@]}" --bssplit 4k/0:8k/0
refused "from the smaller size to the larger" "${base[@]}" --bsrange 64k-4k
refused "log-min 8192 is above --log-max 4096" --preset innodb-16k --log-min 8k --log-max 4k
long=$(printf 'n%.0s' $(seq 64))
refused "is 64 bytes long: a device name holds at most 63" "${base[@]}" --name "$long"
refused "bs given twice (\"4k\" and \"8k\")" "${base[@]}" --bs 4k --bs 8k
refused "rate_iops given twice (\"5\" and \"6\")" "${base[@]}" --rate-iops 5 --rate_iops 6
refused "preset given twice" --preset 4k-randread --preset 4k-randwrite
# the values are shown escaped (a control byte reached the terminal as it was)
refused 'bs given twice ("4k\\u0007" and "8k")' "${base[@]}" --bs $'4k\a' --bs 8k
! grep -q '[[:cntrl:]]' err || fail "a control byte echoed: $(cat -v err)"
refused "device-size given twice" "${base[@]}" --device-size 1g --device-size 2g
assert_status 2 "$IOREEL" synth "${base[@]}" -o a.ioreel --output b.ioreel 2>err >/dev/null
grep -qF "given twice (\"a.ioreel\" and \"b.ioreel\")" err || fail "two outputs: $(cat err)"
# still accepted: the same value twice, a 0 share beside one without (fio splits the rest),
# a 63-byte name
"$IOREEL" synth "${base[@]}" --bs 4k --bs=4k --bssplit 4k/0:8k --name "${long:1}" -o ok.ioreel \
	>/dev/null 2>err || fail "accepted forms refused: $(cat err)"
"$IOREEL" info ok.ioreel | grep -q "${long:1}" || fail "63-byte name not kept"

# a job file with nothing in it is not "only [global]"
: >empty.fio
printf '[global]\nbs=4k\n' >global.fio
assert_status 2 "$IOREEL" synth --fio-job empty.fio -o e.ioreel 2>err >/dev/null
grep -q "empty.fio has no section at all (empty, or only comments)" err || fail "empty: $(cat err)"
assert_status 2 "$IOREEL" synth --fio-job global.fio -o e.ioreel 2>err >/dev/null
grep -q "global.fio has no job section (only \[global\])" err || fail "global: $(cat err)"

# D3: never the job file it reads; a refused or interrupted run leaves an earlier -o as it was
printf '[j]\nrw=read\nsize=1m\n' >j.fio
ln -s j.fio jl.fio
cp j.fio j.orig
assert_status 2 "$IOREEL" synth --fio-job j.fio -o ./jl.fio 2>err >/dev/null
grep -q -- "-o ./jl.fio is the job file j.fio itself" err || fail "-o the job file: $(cat err)"
cmp -s j.fio j.orig || fail "the job file changed"
# nor a file it includes: -o replaced the included file with the trace, exit 0
printf 'size=1m\n' >inc.fio
cp inc.fio inc.orig
printf '[j]\nrw=read\ninclude inc.fio\n' >ji.fio
assert_status 2 "$IOREEL" synth --fio-job ji.fio -o inc.fio 2>err >/dev/null
grep -q -- "-o inc.fio is inc.fio, a file the job file includes" err ||
	fail "-o an included file: $(cat err)"
cmp -s inc.fio inc.orig || fail "the included file changed"
echo old >keep.ioreel
"$IOREEL" synth --rw randread --size 1g --rate-iops 1000000 --runtime 60 --time_based \
	--numjobs 4 -o keep.ioreel >/dev/null 2>err &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
if [ $rc != 0 ]; then # else it finished first (a very fast machine): nothing to check
	assert_eq "$rc" 1 "synth after SIGINT"
	grep -q "interrupted by SIGINT: keep.ioreel not written" err || fail "SIGINT: $(cat err)"
	assert_eq "$(cat keep.ioreel)" old "an interrupted synth touched keep.ioreel"
fi
[ -z "$(ls -A | grep '^\.')" ] || fail "temporary files left: $(ls -A)"

# W14: a rate and a runtime bound the job whatever --size says
"$IOREEL" synth --rw randread --size 1t --rate-iops 1000 --runtime 2 -o r.ioreel >out 2>err ||
	fail "--size 1t with --rate-iops and --runtime refused: $(cat err)"
grep -q "^r.ioreel: 2000 I/Os" out || fail "not rate x runtime I/Os: $(cat out)"

# W16: cdm names files for what they hold, adds .ioreel, refuses names that would collide
"$IOREEL" synth --preset cdm --bs 16m --size 64m -o cdm >/dev/null 2>err || fail "cdm --bs 16m: $(cat err)"
for t in seq16m-q8t1 seq16m-q1t1 rnd16m-q32t1 rnd16m-q1t1; do
	[ -f "cdm-$t.ioreel" ] || fail "no cdm-$t.ioreel: $(ls)"
done
[ "$(ls cdm-* | wc -l)" = 4 ] || fail "other files: $(ls cdm-*)"
"$IOREEL" analyze cdm-seq16m-q8t1.ioreel --json 2>/dev/null >a.json
"$IOREEL" info cdm-seq16m-q8t1.ioreel --json >i.json 2>/dev/null
python3 - <<'PY' || fail "cdm-seq16m-q8t1 does not hold 16 MiB I/Os"
import json
d = json.load(open("a.json"))
j = d["jobs"][0]["read"]
assert j["io_bytes"] == j["total_ios"] * (16 << 20), j
PY
assert_status 2 "$IOREEL" synth --preset cdm --iodepth 4 -o c2.ioreel 2>err >/dev/null
grep -q "two of cdm's tests are the same, seq1m-q4t1" err || fail "collision: $(cat err)"
[ -z "$(ls c2* 2>/dev/null)" ] || fail "a refused cdm wrote $(ls c2*)"
assert_status 2 "$IOREEL" synth --preset cdm --bssplit 4k/50:8k/50 -o c3.ioreel 2>err >/dev/null
grep -q "give one --bs" err || fail "cdm with a split: $(cat err)"

# issue 26: a backwards walk over a region of unknown size (fio's butterfly.fio) is a trace
# with one block size (format 1.7); with several it is refused naming the job, the
# file:line and the option, and accepted once the size is known
printf '[global]\nfilename=t\n[fwd]\nrw=read\n\n[back]\nrw=read:-8k\nbssplit=4k/50:8k/50\n' \
	>bk.fio
refused "job 'back' refused: bk.fio:7: rw=read:-8k: walks backwards from its region's end" \
	--fio-job bk.fio --number-ios 10
"$IOREEL" synth --fio-job bk.fio --number-ios 10 --device-size 1g -o bk.ioreel >/dev/null \
	2>err || fail "bk.fio with --device-size: $(cat err)"
# rated and unrated jobs in one file (exitwhat.fio): the rate caps a closed loop (format 1.7),
# but not a Poisson one
printf '[global]\nsize=1m\n[slow]\nrw=read\n[fast]\nrw=randrw\nrate=300,300\n' >mix.fio
"$IOREEL" synth --fio-job mix.fio -o mix.ioreel >/dev/null 2>err || fail "mix.fio: $(cat err)"
"$IOREEL" info --json mix.ioreel >mix.json || fail "info mix.ioreel"
python3 - <<'PY' || fail "mix.fio: not a closed trace with the rate on 'fast'"
import json
d = json.load(open("mix.json"))
slow, fast = d["stream_records"]
assert "rate_bps" not in slow and fast["rate_bps"] == [300, 300, 0], (slow, fast)
PY
printf 'rate_process=poisson\n' >>mix.fio
refused "job 'fast' refused: mix.fio:7: rate=300,300: rate_process=poisson beside unrated" \
	--fio-job mix.fio

# W4: stdout that cannot be written
[ -w /dev/full ] || skip "no /dev/full"
for a in "--list-presets" "--list-presets --json" "${base[*]} --json -o j.ioreel"; do
	# shellcheck disable=SC2086
	assert_status 1 "$IOREEL" synth $a >/dev/full 2>err
	grep -q "cannot write the output (standard output)" err || fail "synth $a >/dev/full: $(cat err)"
done
echo ok
