#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Format 1.4's header checksum as a user meets it: a flipped bit in a trace's header is an
# error naming the file and what to do (exit 1), --salvage reads it with a warning; an older
# trace reads as before with a note that its header is not checksummed, and convert rewrites
# it with one.
. "$(dirname "$0")/../lib.sh"
need_cmd python3
d=$(scratch_dir)
cd "$d" || fail "cd $d"
"$IOREEL" synth --rw randread --bs 4k --size 4m -o t.ioreel >/dev/null || fail "synth"
"$IOREEL" info t.ioreel >info.txt || fail "info"
grep -q "format 1.[4-9]" info.txt || fail "not format 1.4 or later: $(head -1 info.txt)"
grep -q "not checksummed" info.txt && fail "a 1.4 trace called unchecksummed"
"$IOREEL" info --json t.ioreel | python3 -c 'import json,sys; assert json.load(sys.stdin)["header_checksum"] is True' ||
	fail "info --json: header_checksum is not true"

# one bit of the command line in the header flipped
python3 - t.ioreel bad.ioreel <<'PY' || fail "flip"
import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.index(b"--rw")
b[i] ^= 0x20
open(sys.argv[2], "wb").write(b)
PY
"$IOREEL" info bad.ioreel >/dev/null 2>err
rc=$?
[ $rc = 1 ] || fail "info of a damaged header exited $rc: $(cat err)"
grep -q "bad.ioreel: header checksum mismatch.*--salvage" err || fail "message: $(cat err)"
"$IOREEL" analyze bad.ioreel >/dev/null 2>err && fail "analyze read a damaged header"
grep -q "checksum mismatch" err || fail "analyze: $(cat err)"
"$IOREEL" info --salvage bad.ioreel >out 2>err || fail "info --salvage: $(cat err)"
grep -q "checksum mismatch.*read anyway" err || fail "info --salvage gave no warning: $(cat err)"
grep -q "events     1024" out || fail "info --salvage: $(cat out)"

# a trace from before 1.4: readable, with a note; convert adds the checksum
old="$TESTS_DIR/data/v1.0-synth-closed.ioreel"
"$IOREEL" info "$old" >old.txt || fail "info of a 1.0 trace"
grep -q "header     not checksummed (format 1.0)" old.txt || fail "no note: $(cat old.txt)"
"$IOREEL" info --json "$old" | python3 -c 'import json,sys; assert json.load(sys.stdin)["header_checksum"] is False' ||
	fail "info --json: header_checksum of a 1.0 trace is not false"
"$IOREEL" convert "$old" new.ioreel >/dev/null || fail "convert 1.0 -> 1.4"
"$IOREEL" info new.ioreel | grep -q "not checksummed" && fail "the converted trace has no checksum"
echo "PASS: header damage refused with a way out; older traces read with a note"
