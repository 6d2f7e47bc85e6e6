#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# convert never writes a path it reads and never removes a path it did not create (issue 21
# D1, D2): IN as OUT (the same name, ./IN, a symlink, a hard link) is refused with exit 2 and IN
# is untouched; every output is written under a temporary name and renamed into place, so a
# failed conversion leaves an existing OUT as it was and no temporary file; a device node or a
# FIFO is written in place, never removed, and a write error on it names it.
. "$(dirname "$0")/../lib.sh"
d=$(scratch_dir)
cd "$d" || fail "cd $d"
"$IOREEL" synth --rw randrw --bs 4k --size 64m -o x.ioreel >/dev/null || fail "synth"
cp x.ioreel orig.ioreel
ln -s x.ioreel link.ioreel
ln x.ioreel hard.ioreel

# D1: the same file under another name
for pair in "x.ioreel x.ioreel" "x.ioreel ./x.ioreel" "x.ioreel link.ioreel" \
	"link.ioreel hard.ioreel" "x.ioreel $d/x.ioreel"; do
	set -- $pair
	"$IOREEL" convert "$1" "$2" 2>err
	rc=$?
	[ $rc = 2 ] || fail "convert $1 $2 exited $rc, expected 2: $(cat err)"
	grep -q "same file" err || fail "convert $1 $2: message lacks 'same file': $(cat err)"
	cmp -s x.ioreel orig.ioreel || fail "convert $1 $2 changed its input"
done
"$IOREEL" convert x.ioreel hard.csv --to csv >/dev/null 2>&1 # not the same file: a .csv name
[ -L link.ioreel ] || fail "the symlink is gone"

# a symlink as OUT to another file: the file it names is replaced, the link stays
echo precious >target.csv
ln -s target.csv out-link.csv
"$IOREEL" convert x.ioreel out-link.csv >/dev/null || fail "convert to a symlink"
[ -L out-link.csv ] || fail "OUT's symlink was replaced by a file"
head -1 target.csv | grep -q "^#\|^queue_ns" || fail "the file the link names was not written"
# a link to nothing: refused, the link kept, and the message says what it is
ln -s missing-dir/none.csv dangling.csv
"$IOREEL" convert x.ioreel dangling.csv >/dev/null 2>err && fail "convert onto a dangling link"
grep -q "a symbolic link to nothing" err || fail "dangling link: $(cat err)"
[ -L dangling.csv ] || fail "the dangling link was replaced"

# a failed conversion leaves an existing OUT as it was, and no temporary file
python3 - x.ioreel bad.ioreel <<'PY' || fail "corrupting a chunk"
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[len(b) // 2] ^= 0xff  # inside a chunk's zstd frame: a damaged chunk, found on reading
open(sys.argv[2], "wb").write(b)
PY
for out in kept.csv kept.ioreel kept.jsonl kept.iolog; do
	echo precious >"$out"
	"$IOREEL" convert bad.ioreel "$out" 2>err && fail "convert of a damaged trace to $out succeeded"
	[ "$(cat "$out")" = precious ] || fail "a failed convert to an existing $out changed it"
	rm -f new.csv
	"$IOREEL" convert bad.ioreel "new.${out#kept.}" 2>err && fail "convert succeeded"
	[ -e "new.${out#kept.}" ] && fail "a failed convert left new.${out#kept.}"
done
leftover=$(find . -name '.*' -type f)
[ -z "$leftover" ] || fail "temporary files left: $leftover"

# D2: a device node (our own /dev/full) is written in place, never removed; the error names it
need_root
mknod full c 1 7 || fail "mknod"
"$IOREEL" convert x.ioreel full --to csv 2>err && fail "convert to a full device succeeded"
[ -c full ] || fail "convert removed the device node it wrote to"
grep -q "full.*No space left" err || fail "the error does not name the device: $(cat err)"
"$IOREEL" convert x.ioreel full --to ioreel 2>err && fail "convert .ioreel to a full device succeeded"
[ -c full ] || fail "convert (ioreel) removed the device node it wrote to"
# a FIFO: written in place (nothing renamed over it), read by another process
mkfifo fifo
cat fifo >from-fifo.csv &
"$IOREEL" convert x.ioreel fifo --to csv >/dev/null || fail "convert to a FIFO failed"
wait
[ -p fifo ] || fail "the FIFO was replaced"
"$IOREEL" convert x.ioreel direct.csv >/dev/null || fail "convert to a file"
cmp -s from-fifo.csv direct.csv || fail "the FIFO got other bytes than a file"
# an empty name: refused before any work (it was written whole as ./.XXXXXX, then refused)
for args in "convert x.ioreel '' --to csv" "convert x.ioreel '' --to ioreel" \
	"synth --rw read --size 1m -o ''"; do
	eval "\"\$IOREEL\" $args" >/dev/null 2>err && fail "$args: exit 0"
	grep -q "cannot create.*: No such file or directory" err || fail "$args: $(cat err)"
done
leftover=$(find . -name '.*' -type f)
[ -z "$leftover" ] || fail "temporary files left: $leftover"
echo "PASS: inputs never written, outputs replaced whole or not at all, devices and FIFOs kept"
