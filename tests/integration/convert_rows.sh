#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Rows convert must refuse, or read, rather than get wrong (issue 21 W2, W10 and "unclear"):
# offset + length past 2^64 is refused with file:line in every importer; a CSV row whose times
# go backwards (complete < issue, issue < queue) is refused, not left out of latency; a CSV
# with a UTF-8 byte-order mark is read; fio v2 `wait -5` is called a wait, not an offset; and
# info says "size unknown" (JSON null) for an imported device, not 0 bytes.
. "$(dirname "$0")/../lib.sh"
need_cmd python3
d=$(scratch_dir)
cd "$d" || fail "cd $d"
refused() { # PATTERN IN [ARGS...]: convert exits 1 with one line matching PATTERN, no output
	local pat=$1 in=$2 rc; shift 2
	"$IOREEL" convert "$in" out.ioreel "$@" >/dev/null 2>err
	rc=$?
	[ $rc = 1 ] || fail "convert $in exited $rc, expected 1: $(cat err)"
	grep -q -- "$pat" err || fail "convert $in: '$(cat err)' lacks '$pat'"
	[ -e out.ioreel ] && fail "convert $in left an output"
	return 0
}
h='queue_ns,issue_ns,complete_ns,dev,offset,length,op'
printf '%s\n0,1,2,d,0,4096,read\n5,6,7,d,18446744073709550000,4096,read\n' "$h" >wrap.csv
refused "wrap.csv: line 3: offset 18446744073709550000 + length 4096 passes" wrap.csv
printf '%s\n0,1,2,d,18446744073709543424,4096,read\n' "$h" >edge.csv  # ends below 2^64: fine
"$IOREEL" convert edge.csv edge.ioreel >/dev/null || fail "an I/O ending below 2^64 was refused"
printf 'fio version 3 iolog\n0 /f add\n1 /f read 18446744073709550000 4096\n' >wrap.iolog
refused "wrap.iolog: line 3: offset .* passes" wrap.iolog
printf '128166372003061629,web,0,Read,18446744073709550000,4096,100\n' >wrap-msr.csv
refused "wrap-msr.csv: line 1: Offset .* passes" wrap-msr.csv --from msr
printf '1,R,18446744073709550000,4096,1577808000000000\n' >wrap-ali.csv
refused "wrap-ali.csv: line 1: offset .* passes" wrap-ali.csv --from alibaba
python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<IIQQIIIIIHH',0x65617407,0,1,8,4096,1|(17<<16),1,1,0,0,0) + struct.pack('<IIQQIIIIIHH',0x65617407,0,2,(1<<55)-1,4096,1|(17<<16),1,1,0,0,0))" >wrap.blktrace
refused "wrap.blktrace: byte 48: sector .* out of range" wrap.blktrace # (already refused)

# W10: times that go backwards
printf '%s\n0,1,2,d,0,4096,read\n10,20,15,d,0,4096,read\n' "$h" >back1.csv
refused "back1.csv: line 3: times go backwards" back1.csv
printf '%s\n0,1,2,d,0,4096,read\n10,5,15,d,0,4096,read\n' "$h" >back2.csv
refused "back2.csv: line 3: times go backwards" back2.csv
printf 'queue_ns,complete_ns,dev,offset,length,op\n10,5,d,0,4096,read\n' >back3.csv
refused "back3.csv: line 2: times go backwards" back3.csv
"$IOREEL" convert back1.csv salv.ioreel --salvage >out || fail "--salvage"
grep -q "1 bad records skipped" out || fail "--salvage did not count the row: $(cat out)"

# a UTF-8 byte-order mark before the header (spreadsheet exports)
printf '\xef\xbb\xbfqueue_ns,dev,offset,length,op\n0,d,0,4096,read\n100,d,4096,4096,write\n' >bom.data
"$IOREEL" convert bom.data bom.ioreel >out 2>err || fail "a CSV with a BOM was refused: $(cat err)"
grep -q "2 I/Os" out || fail "BOM CSV: $(cat out)"
printf '\xef\xbb\xbfqueue_ns,dev,offset,length,op\n0,d,0,4096,read\n' >bom.csv
"$IOREEL" convert bom.csv bom2.ioreel >/dev/null 2>err || fail "BOM .csv: $(cat err)"

# fio v2: a negative wait is a bad wait, not a bad offset
printf 'fio version 2 iolog\n/f add\n/f open\n/f read 0 4096\n/f wait -5\n' >neg.log
refused "neg.log: line 5: 'wait -5': a wait is" neg.log
grep -q offset err && fail "a wait was called an offset: $(cat err)"

# info: an imported device's size is unknown, not 0 bytes
"$IOREEL" info edge.ioreel >info.txt || fail "info"
grep -q "size unknown" info.txt || fail "info text: $(grep device info.txt)"
"$IOREEL" info --json edge.ioreel >info.json || fail "info --json"
python3 -c 'import json; d = json.load(open("info.json"))["devices"][0]; assert d["size_bytes"] is None, d' ||
	fail "info --json: size of an imported device is not null"
echo "PASS: overflowing and backwards rows refused, BOM read, wait and size said right"
