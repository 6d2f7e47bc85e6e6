#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Issue 21, analyze: it never writes an input (D3: --html naming a trace by its path, ./path, a
# symlink or a hard link, or stdout redirected onto one: exit 2, the input unchanged); it
# refuses --percentiles outside fio's syntax, an empty --from/--to window, a --device the trace
# lacks (with the list of those it has), a single-valued option given twice with two values,
# --merge of a closed-loop trace with a timed one (W9) or of one file twice, time options on a
# closed-loop trace, --from past the end, an --interval under 1ms; stdout that cannot be written
# and an HTML report that cannot be written are errors with the reason (W4). A trace it cannot
# read is one line naming it once, with --salvage advised once and only for a damaged chunk.
. "$(dirname "$0")/../lib.sh"
d=$(scratch_dir)
cd "$d" || fail "cd"
"$IOREEL" synth --rw randread --size 64m --rate-iops 1000 --runtime 2 -o T.ioreel >/dev/null ||
	fail "synth timed"
"$IOREEL" synth --rw randread --size 64m --number-ios 100 -o C.ioreel >/dev/null ||
	fail "synth closed"
cp T.ioreel U.ioreel
ln -s T.ioreel L.ioreel
ln T.ioreel H.ioreel
sum=$(md5sum <T.ioreel)

# D3
for o in T.ioreel ./T.ioreel "$d/T.ioreel" L.ioreel H.ioreel; do
	assert_status 2 "$IOREEL" analyze U.ioreel T.ioreel --html "$o" >/dev/null 2>err
	grep -q -- "--html $o is the input T.ioreel itself" err || fail "--html $o: $(cat err)"
	assert_eq "$(md5sum <T.ioreel)" "$sum" "--html $o changed the trace"
done
assert_status 2 "$IOREEL" analyze T.ioreel --json >>T.ioreel 2>err
grep -q "the standard output is the input T.ioreel itself" err || fail "stdout: $(cat err)"
assert_eq "$(md5sum <T.ioreel)" "$sum" "'>> T' changed the trace"
"$IOREEL" analyze T.ioreel --html r.html >/dev/null 2>err || fail "--html r.html: $(cat err)"
tail -c 20 r.html | grep -q '</html>' || fail "r.html incomplete"
[ -z "$(ls -A | grep '^\.')" ] || fail "temporary files left: $(ls -A)"

# W10 and repeats
refused() { # MESSAGE_PART ARGS...
	local want=$1
	shift
	assert_status 2 "$IOREEL" analyze "$@" >/dev/null 2>err
	grep -q -- "$want" err || fail "analyze $*: no '$want' in: $(cat err)"
}
# fio's percentile_list: (0, 100], ':' between values; strtod and strtok had taken the rest
for p in nan inf -1 50:nan 0x32 1e2 " 50" 50,99 1.2.3 -0; do
	refused "'.*' is not a plain decimal number; give up to 64 values in (0, 100\]" \
		T.ioreel --percentiles "$p"
done
for p in 101 100:0; do
	refused "is outside (0, 100\]" T.ioreel --percentiles "$p"
done
refused "0 is outside (0, 100\], as in fio" T.ioreel --percentiles 0
for p in 50::99 50: :50; do
	refused "is empty (a ':' at either end, or two together)" T.ioreel --percentiles "$p"
done
refused "50 is given twice" T.ioreel --percentiles 50:99:50
refused "more than 64 values" T.ioreel --percentiles "$(seq -s: 1 65)"
for p in 50:90:99.9 99:50 100 .5 "$(seq -s: 1 64)"; do
	"$IOREEL" analyze T.ioreel --percentiles "$p" >/dev/null || fail "--percentiles $p refused"
done
# closed loop: no times, so no window and no series (both exited 0, the series with every I/O
# in its first second); a window past the end found "0 events"; --interval 1ns made 3,815 rows
for o in "--interval 1s" "--from 1s" "--to 1s"; do
	why="C.ioreel is closed-loop (synthesized without --rate-iops: an order of I/Os, no times)"
	# shellcheck disable=SC2086
	refused "$why: $o cannot apply" C.ioreel $o
done
refused "--from 3s is past the end of T.ioreel (its last I/O at 1.999 s)" T.ioreel --from 3s
refused "--interval 999us: 1ms at least" T.ioreel --interval 999us
refused "--interval 1ns: 1ms at least" T.ioreel --interval 1ns
"$IOREEL" analyze T.ioreel --interval 1ms --from 1s >/dev/null || fail "--interval 1ms refused"
"$IOREEL" analyze T.ioreel --interval 1000000h >/dev/null 2>err || fail "--interval 1000000h"
grep -q "warning: --interval 1000000h is longer than the I/O of T.ioreel" err ||
	fail "--interval 1000000h: $(cat err)"
refused "--merge: T.ioreel and L.ioreel are the same file: its I/Os would count twice" \
	--merge T.ioreel L.ioreel
# a missing value: one line and where the help is, not the whole usage
for o in --from --percentiles --html; do
	refused "^ioreel analyze: $o needs a value$" T.ioreel "$o"
	assert_eq "$(cat err)" "ioreel analyze: $o needs a value
Try 'ioreel analyze --help'." "$o without a value"
done
refused "^ioreel analyze: unknown option '--bogus'$" T.ioreel --bogus
# no trace: one line and where the help is (it printed the whole usage)
refused "no trace given" --json
assert_eq "$(cat err)" "ioreel analyze: no trace given: name one or more .ioreel files
Try 'ioreel analyze --help'." "analyze without a trace"
refused "^ioreel analyze: --json takes no value (given '1')$" T.ioreel --json=1
refused "--to 0 must be after --from 0" T.ioreel --from 0 --to 0
refused "--to 1s must be after --from 2s" T.ioreel --from 2s --to 1s
refused "--html given twice (\"a.html\" and \"b.html\")" T.ioreel --html a.html --html b.html
refused "--device given twice" T.ioreel --device 0 --device 1
refused "--percentiles given twice" T.ioreel --percentiles 50 --percentiles 99
"$IOREEL" analyze T.ioreel --to 1s --to 1s >/dev/null || fail "the same value twice refused"
assert_status 1 "$IOREEL" analyze T.ioreel --device 99 >/dev/null 2>err
grep -q "no device '99' in its device table; it has: 0 synth" err || fail "--device 99: $(cat err)"
# W9
refused "C.ioreel is closed-loop (an order of I/Os, no times) and T.ioreel is timed" \
	--merge T.ioreel C.ioreel

# a trace it cannot read: one line naming the file once (it said 'X: X: ...'), and --salvage
# only where it helps
mkdir adir
: >empty
for bad in adir empty missing; do
	assert_status 1 "$IOREEL" analyze "$bad" >/dev/null 2>err
	[ "$(wc -l <err)" = 1 ] || fail "analyze $bad: not one line: $(cat err)"
	grep -q "^ioreel analyze: $bad: " err && ! grep -q "$bad: $bad:" err ||
		fail "analyze $bad: $(cat err)"
done
printf '[j]\nioengine=filecreate\nnrfiles=2\nfilesize=4k\n' >f.fio
"$IOREEL" synth --fio-job f.fio -o F.ioreel >/dev/null || fail "synth file level"
"$IOREEL" synth --rw randread --size 64m --rate-iops 1000 --number-ios 200000 -o B.ioreel \
	>/dev/null || fail "synth big"
cp B.ioreel D.ioreel
printf '\377\377\377\377\377\377\377\377' |
	dd of=D.ioreel bs=1 seek=$(($(stat -c %s B.ioreel) / 2)) conv=notrunc status=none
assert_status 1 "$IOREEL" analyze D.ioreel >/dev/null 2>err
assert_eq "$(grep -o -- --salvage err | wc -l)" 1 "--salvage said once: $(cat err)"
grep -q "^ioreel analyze: D.ioreel: chunk at offset [0-9]* is damaged" err || fail "D: $(cat err)"
assert_status 1 "$IOREEL" analyze --merge D.ioreel T.ioreel >/dev/null 2>err
assert_eq "$(grep -o -- --salvage err | wc -l)" 1 "--merge: --salvage said once: $(cat err)"
cp F.ioreel G.ioreel
assert_status 1 "$IOREEL" analyze --merge F.ioreel G.ioreel >/dev/null 2>err
grep -q "F.ioreel: a file-level trace" err && ! grep -q salvage err || fail "F: $(cat err)"

# W4
[ -w /dev/full ] || skip "no /dev/full"
assert_status 1 "$IOREEL" analyze T.ioreel >/dev/full 2>err
grep -q "cannot write the output (standard output): No space left on device" err ||
	fail "stdout: $(cat err)"
assert_status 1 "$IOREEL" analyze T.ioreel --html /dev/full >/dev/null 2>err
grep -q "cannot write the HTML report /dev/full: No space left on device" err ||
	fail "--html /dev/full: $(cat err)"
[ -c /dev/full ] || fail "/dev/full is gone"
echo ok
