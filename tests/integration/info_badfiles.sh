#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `ioreel info` on bad files: a one-line error naming the file, the offset and the problem,
# exit 1, never a crash. A trace cut short (kill -9 of the writer) is read with a warning.
. "$(dirname "$0")/../lib.sh"
need_cmd python3 awk
d=$(scratch_dir)

# expect_error FILE PATTERN [info options]: exit 1, one line on stderr matching PATTERN.
expect_error() {
	local f=$1 pat=$2 rc; shift 2
	"$IOREEL" info "$@" "$f" > "$d/out" 2> "$d/err"; rc=$?
	[ "$rc" = 1 ] || fail "info $f exited $rc (want 1): $(cat "$d/err")"
	[ "$(wc -l < "$d/err")" = 1 ] || fail "info $f: want one line of error, got: $(cat "$d/err")"
	grep -q -- "$pat" "$d/err" || fail "info $f: error '$(cat "$d/err")' lacks '$pat'"
	grep -q -- "$f" "$d/err" || fail "info $f: error does not name the file"
	echo "ok: $(cat "$d/err")"
}

: > "$d/empty.ioreel"
expect_error "$d/empty.ioreel" "empty file"
echo "time,dev,op,offset,length" > "$d/text.ioreel"
expect_error "$d/text.ioreel" "not an ioreel trace (bad magic at offset 0)"
head -c 100000 /dev/urandom > "$d/random.ioreel"
expect_error "$d/random.ioreel" "bad magic at offset 0"
expect_error "$d/missing.ioreel" "No such file"
mkdir "$d/dir.ioreel"
expect_error "$d/dir.ioreel" "directory"
# A pipe or a device reads as size 0: said for what it is, not as an empty file.
mkfifo "$d/fifo.ioreel"
expect_error "$d/fifo.ioreel" "is a pipe, not a trace file"
expect_error /dev/zero "is a character device, not a trace file"
# analyze looks into a regular file for a fleet's JSON, never into the pipe (its open would
# wait for a writer)
"$IOREEL" analyze "$d/fifo.ioreel" >/dev/null 2>"$d/err"; rc=$?
[ "$rc" = 1 ] && grep -q "is a pipe, not a trace file" "$d/err" ||
	fail "analyze of a named pipe: rc $rc: $(cat "$d/err")"

# A real multi-chunk trace (4 chunks of 65536 I/Os).
awk 'BEGIN { print "fio version 3 iolog"; print "0 /dev/sdx add"; print "0 /dev/sdx open";
	srand(3); for (i = 0; i < 250000; i++)
		print (i * 10) " /dev/sdx read " int(rand() * 262144) * 4096 " 4096";
	print "9999999 /dev/sdx close" }' > "$d/gen.log"
"$IOREEL" convert "$d/gen.log" "$d/t.ioreel" >/dev/null || fail "convert failed"
size=$(stat -c %s "$d/t.ioreel")
chunks=$("$IOREEL" info --json "$d/t.ioreel" | python3 -c 'import json,sys; print(json.load(sys.stdin)["chunks"])')
[ "$chunks" -ge 3 ] || fail "want several chunks, got $chunks"

# The header alone cut short.
head -c 20 "$d/t.ioreel" > "$d/hdr.ioreel"
expect_error "$d/hdr.ioreel" "offset 4"

# Cut in the middle (writer killed): no index, the incomplete chunk dropped, exit 0.
head -c $((size / 2)) "$d/t.ioreel" > "$d/cut.ioreel"
"$IOREEL" info --json "$d/cut.ioreel" > "$d/cut.json" 2> "$d/cut.err" || fail "cut file: exit $?: $(cat "$d/cut.err")"
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["index"] is False and j["dropped"] is None, j
assert 0 < j["events"] < 250000 and j["events"] % 65536 == 0, j["events"]
assert "incomplete" in j["notice"], j["notice"]
print("cut ok:", j["events"], "events;", j["notice"])' "$d/cut.json" || fail "cut file json"
"$IOREEL" info "$d/cut.ioreel" > /dev/null 2> "$d/cut.err" || fail "cut file text"
grep -q "warning: .*incomplete" "$d/cut.err" || fail "cut file: no warning: $(cat "$d/cut.err")"

# A damaged byte in the middle of the file: an error naming the chunk's offset; --salvage
# skips exactly that chunk.
cp "$d/t.ioreel" "$d/dmg.ioreel"
printf '\x55\xaa\x55\xaa' | dd of="$d/dmg.ioreel" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
expect_error "$d/dmg.ioreel" "chunk at offset [0-9]* is damaged .*--salvage"
"$IOREEL" info --json --salvage "$d/dmg.ioreel" > "$d/dmg.json" || fail "salvage failed"
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["damaged_chunks"] == 1, j["damaged_chunks"]
assert j["events"] == 250000 - 65536, j["events"]
print("salvage ok:", j["events"], "events")' "$d/dmg.json" || fail "salvage json"

# Garbage appended after a complete trace: the footer is gone, the scan meets the garbage.
cp "$d/t.ioreel" "$d/tail.ioreel"
head -c 5000 /dev/urandom >> "$d/tail.ioreel"
"$IOREEL" info "$d/tail.ioreel" > /dev/null 2>&1
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || fail "garbage tail: exit $rc"
echo PASS
