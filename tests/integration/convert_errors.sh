#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Bad input and bad options: one line naming the file and the line/byte, exit 1 (2 for usage),
# never a crash, never a half-written output left behind. A name convert cannot place gets
# the list of suffixes it knows; the suffixes fio users write (.v3, .iolog, .log) work.
. "$(dirname "$0")/../lib.sh"
d=$(scratch_dir)
check() { # WANT_RC PATTERN ARGS...
	local want=$1 pat=$2; shift 2
	"$IOREEL" convert "$@" >"$d/out" 2>"$d/err"
	local rc=$?
	[ "$rc" = "$want" ] || fail "convert $* exited $rc, expected $want: $(cat "$d/err")"
	grep -q -- "$pat" "$d/out" "$d/err" || fail "convert $*: message '$(cat "$d/err")' lacks '$pat'"
	[ "$want" = 1 ] && { [ "$(wc -l <"$d/err")" = 1 ] || fail "convert $*: not one line: $(cat "$d/err")"; }
	return 0
}
: >"$d/empty"
printf 'fio version 3 iolog\n1 /f read 0 4096\n' | "$IOREEL" convert - "$d/ok.ioreel" >/dev/null || fail "stdin sniff"
check 1 "empty.*empty file" "$d/empty" "$d/o.ioreel"
# a fio log's version line is not a record: --salvage cannot skip it, and is not offered
printf 'hello\n' >"$d/notfio.log"
printf '\xef\xbb\xbf\r\n' >"$d/bomonly.log"
check 1 "notfio.log: line 1: not a fio iolog (expected 'fio version 2 iolog' or 'fio version 3 \
iolog')$" "$d/notfio.log" "$d/o.ioreel" --from fio
check 1 "bomonly.log: line 1: not a fio iolog (.*iolog')$" "$d/bomonly.log" "$d/o.ioreel" \
	--from fio
check 1 "empty: line 1: empty file, expected 'fio version 3 iolog'$" "$d/empty" "$d/o.ioreel" \
	--from fio
printf 'fio version 3 iolog\n0 /f add\n12 /f read 0\n' >"$d/bad.iolog"
check 1 "bad.iolog: line 3:.* (--salvage skips bad records)$" "$d/bad.iolog" "$d/o.ioreel"
[ -e "$d/o.ioreel" ] && fail "output left behind after an error"
printf 'fio version 3 iolog\n0 /f add\n' >"$d/noio.iolog"
check 1 "no I/O" "$d/noio.iolog" "$d/o.csv"
printf 'fio version 3 iolog\n1 /f read 0 4096\nbogus\n2 /f read 4096 4096\n' >"$d/s.iolog"
check 0 "1 bad records skipped" "$d/s.iolog" "$d/o.csv" --salvage
python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<IIQQIIIIIHH',0x65617407,0,1,8,4096,1|(17<<16),1,1,0,0,0)*3)" >"$d/t.blktrace"
head -c 100 "$d/t.blktrace" >"$d/trunc.blktrace"
check 1 "trunc.blktrace: byte 96: truncated" "$d/trunc.blktrace" "$d/o.ioreel"
python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<IIQQIIIIIHH',0x65617408,0,1,8,4096,1|(17<<16),1,1,0,0,0))" >"$d/v8.blktrace"
check 1 "byte 0: blktrace version 0x08" "$d/v8.blktrace" "$d/o.ioreel"
head -c 4096 /dev/urandom >"$d/noise.bin"
printf 'zzz' | cat - "$d/noise.bin" >"$d/noise"
check 1 "cannot tell the input format.*known suffixes: .ioreel (ioreel), .iolog .log .fio .v3 (fio3)" \
	"$d/noise" "$d/o.ioreel"
check 1 "byte 0: bad magic" "$d/noise" "$d/o.ioreel" --from blktrace
printf '1,X,0,1,2\n' >"$d/a.csv"
check 1 "a.csv: line 1: opcode" "$d/a.csv" "$d/o.ioreel" --from alibaba
check 1 "missing: cannot open" "$d/missing" "$d/o.ioreel"
# a hostile huge line is an error, not an allocation
{ echo "fio version 3 iolog"; head -c 100000 /dev/zero | tr '\0' 'a'; echo; } >"$d/long.iolog"
check 1 "line 2: line longer" "$d/long.iolog" "$d/o.ioreel"
# a CSV header that cannot be read says so, with the limits (a 1,000,000-column header said "no
# CSV header" under --salvage, and "--salvage skips bad records" without it, which it cannot)
seq -s, 1 1000000 >"$d/wide.csv"
limits="convert reads a header of at most 64 columns in 4096 bytes"
check 1 "wide.csv: line 1: the CSV header is longer than 4096 bytes: $limits\$" \
	"$d/wide.csv" "$d/o.ioreel"
check 1 "line 1: the CSV header is longer than 4096 bytes (skipped by --salvage, and no line \
after it is a header): $limits" "$d/wide.csv" "$d/o.ioreel" --salvage
{ cat "$d/wide.csv"; echo 1,0,4096,read; } >"$d/wide2.csv"
check 1 "line 2: column 1 '1' is not a field.* (line 1, skipped by --salvage, is longer than \
4096 bytes: $limits)" "$d/wide2.csv" "$d/o.ioreel" --salvage
seq -s, 1 65 >"$d/h65.csv"
check 1 "h65.csv: line 1: the CSV header has more than 64 fields or bad quoting: $limits" \
	"$d/h65.csv" "$d/o.ioreel"
# the limit is what --help says: a header of 4096 bytes is read, one of 4097 is not (the
# buffer once held lines of 4094); a row the same (test_import: every line ending)
pad() { printf '%s%*s\n' "$1" $(($2 - ${#1})) ''; }
{ pad queue_ns,offset,length,op 4096; echo 1,0,4096,read; } >"$d/h4096.csv"
[ "$(head -1 "$d/h4096.csv" | wc -c)" = 4097 ] || fail "h4096.csv: its header is not 4096 bytes"
check 0 "1 I/Os" "$d/h4096.csv" "$d/h.ioreel"
{ pad queue_ns,offset,length,op 4097; echo 1,0,4096,read; } >"$d/h4097.csv"
check 1 "h4097.csv: line 1: the CSV header is longer than 4096 bytes: $limits\$" \
	"$d/h4097.csv" "$d/h.csv"
{ echo queue_ns,offset,length,op; pad 1,0,4096,read 4096; pad 2,0,4096,read 4097; } >"$d/r.csv"
check 1 "r.csv: line 3: line longer than 4096 bytes" "$d/r.csv" "$d/h.csv"
# a CSV with no header at all (comments and empty lines only): --salvage cannot make one, so
# the message does not offer it as it does for a bad record
printf '# a comment\n\n' >"$d/nohead.csv"
check 1 "nohead.csv: no CSV header in its 2 lines, only comments and blank lines (exp" \
	"$d/nohead.csv" "$d/o.ioreel"
: >"$d/empty.csv"
check 1 "empty.csv: the file is empty: no CSV header (expected queue_ns,...)$" "$d/empty.csv" \
	"$d/o.ioreel"
# a line skipped before the header is still good to skip: a banner, say
{ seq -s, 1 2000; echo queue_ns,offset,length,op; echo 1,0,4096,read; } >"$d/banner.csv"
check 0 "1 I/Os, 1 device, 1 bad records skipped" "$d/banner.csv" "$d/o.ioreel" --salvage
check 2 "--device: a name of 1 to 63 characters, none a control character" \
	"$d/ok.ioreel" "$d/o.csv" --device "$(printf 'a\001')"
# an option without its value: one line and where the help is
check 2 "^ioreel convert: --from needs a value$" "$d/s.iolog" "$d/o.csv" --from
assert_eq "$(cat "$d/err")" "ioreel convert: --from needs a value
Try 'ioreel convert --help'." "--from without a value"
check 2 "^ioreel convert: unknown option '--bogus'$" "$d/s.iolog" "$d/o.csv" --bogus
# usage errors
check 2 "need IN and OUT" "$d/s.iolog"
check 2 "unknown input format" --from nope "$d/s.iolog" "$d/o.ioreel"
check 2 "cannot write that format" --to msr "$d/s.iolog" "$d/o.x"
check 2 "cannot tell the output format.*known suffixes: .ioreel (ioreel), .iolog .log .fio .v3 (fio3), .csv (csv)" \
	"$d/s.iolog" "$d/o.unknown"
check 2 "says fio2, which convert reads but cannot write" "$d/s.iolog" "$d/o.v2"
check 2 "says blktrace" "$d/s.iolog" "$d/o.blktrace"
# a single-valued option given twice with two values is refused, not the last one taken (--to
# csv --to json wrote JSON lines into o.csv); the same value twice is fine
check 2 "--to given twice (\"csv\" and \"json\"): give it once" "$d/ok.ioreel" "$d/twice.csv" \
	--to csv --to json
check 2 "--from given twice" "$d/s.iolog" "$d/twice.csv" --from fio --from csv
check 2 "--device given twice" "$d/ok.ioreel" "$d/twice.csv" --device a --device b
check 2 "--window given twice" "$d/ok.ioreel" "$d/twice.csv" --window 5 --window 6
check 2 "--columns given twice" "$d/s.iolog" "$d/twice.csv" --columns ts=ts_us --columns x=-
check 2 "--time-unit given twice" "$d/s.iolog" "$d/twice.csv" --time-unit us --time-unit ms
check 2 "--sector-size given twice" "$d/s.iolog" "$d/twice.csv" --sector-size 512 --sector-size 4096
[ -e "$d/twice.csv" ] && fail "twice.csv written despite a refused option"
check 0 "1 device" "$d/ok.ioreel" "$d/o.csv" --to csv --to csv
# the suffixes fio users write: .v3, .iolog and .log out; in, the header line decides
for ext in v3 iolog log; do
	"$IOREEL" convert "$d/ok.ioreel" "$d/fio.$ext" >/dev/null || fail "convert to .$ext"
	[ "$(head -1 "$d/fio.$ext")" = "fio version 3 iolog" ] || fail ".$ext is not a fio v3 iolog"
	"$IOREEL" convert "$d/fio.$ext" "$d/back-$ext.csv" >/dev/null || fail "convert from .$ext"
	grep -q "^1000,,,/f,0,4096,read," "$d/back-$ext.csv" || fail ".$ext round trip: $(cat "$d/back-$ext.csv")"
done
printf '1 /f read 0 4096\n' >"$d/nohead.log"
check 1 "line 1: not a fio iolog (expected 'fio version 2 iolog'" "$d/nohead.log" "$d/o.ioreel"
check 2 "stdout" "$d/s.iolog" - --to ioreel
output_has "Examples" "$IOREEL" convert --help || fail "--help"
# stdin works (spooled), and a damaged .ioreel is refused with its name
"$IOREEL" convert - "$d/o.csv" --from fio <"$d/s.iolog" --salvage >/dev/null || fail "stdin"
# a named pipe (a process substitution) is read whole, as stdin is: the format sniffed from
# its first bytes is not lost to the import (it lost its first 4 KiB before); a .ioreel through
# one or through stdin is read from its spooled copy (it was refused), named as given
awk 'BEGIN { print "fio version 3 iolog"; print "0 /f add"; print "0 /f open";
	for (i = 0; i < 3000; i++) print (i * 10) " /f read " i * 4096 " 4096" }' >"$d/big.iolog"
mkfifo "$d/pipe"
timeout 20 cat "$d/big.iolog" >"$d/pipe" &
"$IOREEL" convert "$d/pipe" "$d/piped.ioreel" --json >"$d/piped.json" || fail "convert from a named pipe"
wait
python3 -c 'import json,sys; n=json.load(open(sys.argv[1]))["events"]; sys.exit(n != 3000 and print("from a pipe:", n, "of 3000"))' \
	"$d/piped.json" || fail "a named pipe's I/Os not all imported"
"$IOREEL" convert "$d/piped.ioreel" "$d/direct.csv" >/dev/null || fail "convert piped.ioreel"
timeout 20 cat "$d/piped.ioreel" >"$d/pipe" &
check 0 "pipe (ioreel) -> .*: 3000 I/Os" "$d/pipe" "$d/frompipe.csv"
wait
cmp -s "$d/direct.csv" "$d/frompipe.csv" || fail "a .ioreel through a pipe: not the file's events"
check 0 "^- (ioreel) -> .*: 3000 I/Os" - "$d/fromstdin.csv" <"$d/piped.ioreel"
cmp -s "$d/direct.csv" "$d/fromstdin.csv" || fail "a .ioreel through stdin: not the file's events"
check 0 "^- (ioreel) -> .*: 3000 I/Os" - "$d/fromstdin.ioreel" --from ioreel <"$d/piped.ioreel"
"$IOREEL" convert "$d/fromstdin.ioreel" "$d/again.csv" >/dev/null || fail "its .ioreel copy"
cmp -s "$d/direct.csv" "$d/again.csv" || fail "stdin to .ioreel: not the file's events"
check 1 "^ioreel convert: -: not an ioreel trace" - "$d/o.csv" --from ioreel <"$d/noise"
mkdir "$d/adir"
check 1 "adir: is a directory" "$d/adir" "$d/o.csv"
check 1 "/dev/zero: is a device, not a trace" /dev/zero "$d/o.csv"
head -c 40 "$d/ok.ioreel" >"$d/cut.ioreel"
"$IOREEL" convert "$d/cut.ioreel" "$d/o.csv" 2>"$d/err"; rc=$?
[ $rc = 1 ] && grep -q "cut.ioreel" "$d/err" || fail "truncated .ioreel: rc $rc $(cat "$d/err")"
# a trace cut in its events (a recorder killed, a copy cut short) converts what it holds, and
# says what was lost, as info does (convert and analyze said nothing)
"$IOREEL" synth --rw randread --size 1g --number-ios 300000 -o "$d/long.ioreel" >/dev/null ||
	fail "synth long"
head -c $(($(stat -c %s "$d/long.ioreel") / 2)) "$d/long.ioreel" >"$d/half.ioreel"
for cmd in "convert $d/half.ioreel $d/half.csv" "analyze $d/half.ioreel"; do
	$IOREEL $cmd >/dev/null 2>"$d/err" || fail "$cmd: $(cat "$d/err")"
	grep -q "warning: .*half.ioreel: no index (writer stopped early?); dropped .*incomplete" \
		"$d/err" || fail "$cmd said nothing of the chunk it dropped: $(cat "$d/err")"
done
# --salvage of a .ioreel whose every chunk is damaged: no I/O left is an error, as of an import
# (it wrote an empty trace, exit 0)
"$IOREEL" synth --rw randread --size 64m --number-ios 1000 -o "$d/one.ioreel" >/dev/null ||
	fail "synth one chunk"
cp "$d/one.ioreel" "$d/dmg.ioreel"
printf '\377\377\377\377\377\377\377\377' |
	dd of="$d/dmg.ioreel" bs=1 seek=300 conv=notrunc status=none
check 1 "dmg.ioreel: no I/O left: every event was in the 1 damaged chunk --salvage skipped" \
	"$d/dmg.ioreel" "$d/dmg.csv" --salvage
[ -e "$d/dmg.csv" ] && fail "dmg.csv written: no I/O left"
# convert's own file-level CSV, fed back: refused for what it is, not column by column
printf '[j]\nioengine=filecreate\nnrfiles=2\nfilesize=4k\n' >"$d/f.fio"
"$IOREEL" synth --fio-job "$d/f.fio" -o "$d/F.ioreel" >/dev/null || fail "synth file level"
"$IOREEL" convert "$d/F.ioreel" "$d/F.csv" >/dev/null 2>&1 || fail "convert F.ioreel to CSV"
check 1 "a file-level CSV" "$d/F.csv" "$d/F2.ioreel"
echo ok
