#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What replay refuses, each with a message and nothing destroyed: writing its result over the
# trace it reads or onto it as the target (./T, a symlink, a hard link; a --map target too),
# contradictory repeated options, an absurd --speed, a --size smaller than a block or not a
# whole number of blocks (and no file left behind), one I/O larger than Linux moves in one call;
# and a report that cannot be written is an error, not an exit 0. One huge I/O that Linux can
# move (1 GiB) replays with one buffer, not 1024. A file target that ends inside a block is
# replayed with a warning that its last partial block is left out.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
need_cmd python3
d=$(scratch_dir)
cd "$d" || fail "cd $d"
truncate -s 2G t.img
"$IOREEL" synth --rw randrw --bs 4k --iodepth 4 --size 64m --number-ios 50 -o T.ioreel \
	>/dev/null || fail "synth"
sum=$(md5sum <T.ioreel)
ln -s T.ioreel sym.ioreel
ln T.ioreel hard.ioreel

# refused CMD...: exit 2 (usage) and a message
refused() {
	"$@" >out 2>err && fail "'$*' was accepted"
	local rc=$?
	[ $rc = 2 ] || fail "'$*' exited $rc, expected 2: $(cat err)"
	[ -s err ] || fail "'$*' refused without a word"
	echo "refused: $* -> $(head -c 200 err)"
}
for o in T.ioreel ./T.ioreel sym.ioreel hard.ioreel "$d/T.ioreel"; do
	refused "$IOREEL" replay T.ioreel --target t.img --allow-writes -o "$o" -q
	refused "$IOREEL" replay T.ioreel --target "$o" --allow-writes -q
done
refused "$IOREEL" replay T.ioreel --target t.img --allow-writes -o t.img -q
[ "$(md5sum <T.ioreel)" = "$sum" ] || fail "the trace was changed"
# a --map target as -o: it was replaced by the result trace (a replay without writes too)
head -c 1M /dev/urandom >m.img
msum=$(md5sum <m.img)
refused "$IOREEL" replay T.ioreel --map synth=m.img -o ./m.img -q
grep -q -- "-o ./m.img is the target of --map synth" err || fail "-o a --map target: $(cat err)"
[ "$(md5sum <m.img)" = "$msum" ] || fail "the --map target was changed"
# an existing file smaller than --size, without --allow-writes: it was grown to --size and
# filled (written) by a replay that writes nothing
refused_rc() { "$@" >out 2>err && fail "'$*' was accepted"; echo "refused: $(head -c 200 err)"; }
refused_rc "$IOREEL" replay T.ioreel --target m.img --size 2m -q
grep -q "target m.img holds 1048576 bytes, less than --size 2097152, and growing it writes to it: \
give --allow-writes" err || fail "growing an existing file without --allow-writes: $(cat err)"
assert_eq "$(stat -c %s m.img)" 1048576 "the size of the file not grown"
[ "$(md5sum <m.img)" = "$msum" ] || fail "the file not grown was changed"

refused "$IOREEL" replay T.ioreel --target t.img --target other.img -q
refused "$IOREEL" replay T.ioreel --target t.img -o a.ioreel -o b.ioreel -q
refused "$IOREEL" replay T.ioreel --target t.img --engine null --engine libaio -q
refused "$IOREEL" replay T.ioreel --target t.img --engine floppy -q
refused "$IOREEL" replay T.ioreel --map synth=t.img --map synth=u.img -q
refused "$IOREEL" replay T.ioreel --target t.img --mode timed --mode afap -q
refused "$IOREEL" replay T.ioreel --root /tmp --root /var -q
# any option given twice with two values (which was meant?); an empty or absurd value
refused "$IOREEL" replay T.ioreel --target t.img --engine null --speed 2 --speed 4 -q
refused "$IOREEL" replay T.ioreel --target t.img --engine null --runtime 1s --runtime 2s -q
refused "$IOREEL" replay T.ioreel --target t.img --engine null --think-scale '' -q
refused "$IOREEL" replay T.ioreel --target t.img --engine null --spin 1000000h -q
refused "$IOREEL" replay T.ioreel --target t.img --allow-writes --prefill --no-prefill -q
refused "$IOREEL" replay T.ioreel --target t.img --speed 1e-20 -q
refused "$IOREEL" replay T.ioreel --target t.img --speed 1e9 -q
# no trace, two traces, an unknown option, a value missing: two lines, what is wrong and
# where the help is, not the whole usage
for args in "" "T.ioreel U.ioreel" "T.ioreel --bogus" "T.ioreel --speed"; do
	# shellcheck disable=SC2086 # the words are the arguments
	refused "$IOREEL" replay $args
	[ "$(wc -l <err)" = 2 ] && grep -q "^Try 'ioreel replay --help'.$" err ||
		fail "replay $args: not one line and the help's place: $(head -c 300 err)"
done
# the stray word is shown escaped, as the values given twice are: no control byte reaches the
# terminal
refused "$IOREEL" replay T.ioreel $'U\e[31m.ioreel'
grep -qF 'one TRACE at a time (got "U\u001b[31m.ioreel" too)' err ||
	fail "a stray word with an escape: $(od -c err | head -5)"
# the same value twice is no contradiction
"$IOREEL" replay T.ioreel --target t.img --target t.img --engine null --allow-writes -q \
	>/dev/null || fail "--target given twice with the same path was refused"

# --size below one block: refused, and the file it would have made is not left behind
"$IOREEL" replay T.ioreel --target new.img --size 100 --allow-writes -q >/dev/null 2>err &&
	fail "--size 100 accepted"
grep -q 'less than one block' err || fail "--size 100: $(cat err)"
[ ! -e new.img ] || fail "a failed replay left the target file it created"
# --size not a whole number of blocks: refused (exit 2) with the multiples either side; 4097
# made a file of 4608 bytes (whole sectors) and replayed onto 4096 of them
assert_status 2 "$IOREEL" replay T.ioreel --target new.img --size 1048577 --allow-writes -q \
	>/dev/null 2>err
grep -q "^ioreel replay: --size 1048577 is not a whole number of the [0-9]*-byte blocks of \
new.img (the logical block size under it): give 1048576 or 10[0-9]*$" err ||
	fail "--size 1048577: $(cat err)"
[ ! -e new.img ] || fail "--size 1048577 left the target file it created"
"$IOREEL" replay T.ioreel --target new.img --size 1m --engine null --allow-writes -q \
	>/dev/null 2>err || fail "--size 1m: $(cat err)"
assert_eq "$(stat -c %s new.img)" 1048576 "the size of the file --size 1m made"
! grep -q 'not a whole number' err || fail "--size 1m: a whole file warned: $(cat err)"
rm -f new.img
# an existing file that ends inside a block: not refused, but its last partial block was left
# out without a word; one warning says so (1048576 is a whole number of 512 B and 4 KiB)
truncate -s 1048577 odd.img
"$IOREEL" replay T.ioreel --target odd.img --engine null --allow-writes -q >/dev/null 2>err ||
	fail "a target of 1048577 bytes: $(cat err)"
assert_eq "$(grep -c "^ioreel replay: warning: target odd.img is 1048577 bytes, not a whole \
number of [0-9]*-byte blocks: the replay uses its first 1048576 bytes$" err)" 1 \
	"the warning on a target of 1048577 bytes (got: $(cat err))"
assert_eq "$(stat -c %s odd.img)" 1048577 "the size of a target that ends inside a block"
rm -f odd.img

# a report that cannot be written fails the command
if [ -w /dev/full ]; then
	"$IOREEL" replay T.ioreel --target t.img --engine null --allow-writes -q >/dev/full 2>err &&
		fail "replay exited 0 with its report lost to /dev/full"
	grep -q 'standard output' err || fail "lost report not reported: $(cat err)"
fi

# one 1 GiB read replays (one read buffer, not one per slot: it once lowered the cap to 0 or
# ran out of memory); 4 GiB - 512 is more than Linux moves in one call, said so
{
	echo "$CSV_HEADER"
	echo "0,,,d,0,1073741824,read,,0,1,1,x,0,0"
	echo "1000,,,d,0,1073741824,read,,0,1,1,x,0,0"
} >big.csv
mktrace big.csv big.ioreel
out=$("$IOREEL" replay big.ioreel --target t.img --engine null --mode afap --json -q 2>err) ||
	fail "a 1 GiB read: $(cat err)"
python3 -c 'import json,sys; f=json.load(sys.stdin)["fidelity"]; assert f["ios"]==2 and f["inflight_cap"]>=1, f' <<<"$out" ||
	fail "1 GiB reads not replayed"
{
	echo "$CSV_HEADER"
	echo "0,,,d,0,4294966784,read,,0,1,1,x,0,0"
} >huge.csv
if "$IOREEL" convert huge.csv huge.ioreel --from csv >/dev/null 2>&1; then
	"$IOREEL" replay huge.ioreel --target t.img --engine null --mode afap -q >/dev/null 2>err &&
		fail "an I/O of 4 GiB - 512 bytes was replayed"
	grep -q 'at most 2147479552 bytes' err || fail "4 GiB - 512: $(cat err)"
fi
# a file that is not a trace: named once in the message ("cannot read trace X: X: ..." before)
printf 'not a trace at all\n' >junk.ioreel
"$IOREEL" replay junk.ioreel --target t.img -q >/dev/null 2>err && fail "junk.ioreel was replayed"
[ "$(grep -o 'junk.ioreel' err | wc -l)" = 1 ] || fail "the trace named once: $(cat err)"
# a dep option in timed mode changes nothing: said, not silently dropped
"$IOREEL" replay T.ioreel --target t.img --engine null --allow-writes --mode timed \
	--dep-absorb on -q >/dev/null 2>err || fail "timed with --dep-absorb: $(cat err)"
grep -q "the --dep-\* options apply to --mode dep.*ignored in timed mode" err ||
	fail "--dep-absorb in timed mode: no warning: $(cat err)"
# and so do --iodepth outside afap and --think-scale where nothing is scaled
"$IOREEL" replay T.ioreel --target t.img --engine null --allow-writes --mode timed \
	--iodepth 8 --think-scale 2 -q >/dev/null 2>err || fail "timed with --iodepth: $(cat err)"
grep -q -- "--iodepth sets afap mode's I/Os in flight: ignored in timed mode" err ||
	fail "--iodepth in timed mode: no warning: $(cat err)"
grep -q -- "--think-scale .*ignored in timed mode with the CPU idle" err ||
	fail "--think-scale in timed mode: no warning: $(cat err)"
"$IOREEL" replay T.ioreel --target t.img --engine null --allow-writes --mode afap \
	--iodepth 8 -q >/dev/null 2>err || fail "afap with --iodepth: $(cat err)"
grep -q -- "--iodepth" err && fail "--iodepth in afap mode warned: $(cat err)"
# --max-inflight in afap, where --iodepth sets the depth: said (it was ignored unsaid)
"$IOREEL" replay T.ioreel --target t.img --engine null --allow-writes --mode afap \
	--max-inflight 1 -q >/dev/null 2>err || fail "afap with --max-inflight: $(cat err)"
grep -q -- "--max-inflight caps the other modes: ignored in afap mode" err ||
	fail "--max-inflight in afap mode: no warning: $(cat err)"
# a --target that every --map leaves out: said
"$IOREEL" replay T.ioreel --target u.img --map synth=t.img --engine null --allow-writes \
	-q >/dev/null 2>err || fail "--target beside a full --map: $(cat err)"
grep -q -- "--target u.img: every device of the trace is given by --map" err ||
	fail "--target unused: no warning: $(cat err)"
[ ! -e u.img ] || fail "the unused --target u.img was created"
echo PASS
