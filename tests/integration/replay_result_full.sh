#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A replay's result trace (-o) is written under a temporary name and renamed into place when the
# replay ends. On a full disk (a 128 KiB tmpfs) the replay says what failed, exits 1, leaves no
# temporary file, and an earlier result of that name stays as it was; a replay stopped by
# --runtime still keeps the trace of what ran. Block and file level. A lay-out under --root
# larger than the free room is refused before it writes (saying both); a --prefill and a --size
# fill that fill their disk name ENOSPC as the cause. Calls that fail
# on the target make the replay exit 1, the first named.
# timeout: 120
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
need_root

d=$(scratch_dir)
mkdir "$d/tiny"
mount -t tmpfs -o size=128k tmpfs "$d/tiny" || fail "mount tmpfs"
cleanup_push "umount -l '$d/tiny'"

# block level: 256k reads of 4 KiB make a result of well over 128 KiB
"$IOREEL" synth --rw randread --size 1g --number-ios 262144 -o "$d/big.ioreel" >/dev/null ||
	fail "synth big"
"$IOREEL" synth --rw randread --size 1m --number-ios 16 -o "$d/tiny/res.ioreel" >/dev/null ||
	fail "synth the earlier result"
before=$(md5sum <"$d/tiny/res.ioreel")
truncate -s 1G "$d/target"
rc=0
"$IOREEL" replay "$d/big.ioreel" --target "$d/target" --mode afap -o "$d/tiny/res.ioreel" \
	--json >/dev/null 2>"$d/err" || rc=$?
cat "$d/err"
assert_eq "$rc" 1 "exit status of a replay whose result trace filled the disk"
grep -q "writing the result trace $d/tiny/res.ioreel: .*No space left on device; $d/tiny/res.ioreel not written" \
	"$d/err" || fail "no clear message (above)"
assert_eq "$(md5sum <"$d/tiny/res.ioreel")" "$before" "the earlier result"
assert_eq "$(ls -A "$d/tiny")" "res.ioreel" "what the full disk holds"
# the text report does not name the trace it could not write
"$IOREEL" replay "$d/big.ioreel" --target "$d/target" --mode afap -o "$d/tiny/res.ioreel" \
	>"$d/out" 2>/dev/null && fail "the second full-disk replay succeeded"
grep -q "^trace replay (result trace not written)" "$d/out" || fail "report header: $(head -1 "$d/out")"
grep -q "res.ioreel" "$d/out" && fail "the report names the unwritten result: $(grep res.ioreel "$d/out")"

# file level: the same under --root
mkdir "$d/root"
printf '[w]\nioengine=psync\nrw=randwrite\nbs=4k\nnrfiles=2\nfilesize=64m\nnumber_ios=200000\n' \
	>"$d/f.fio"
"$IOREEL" synth --fio-job "$d/f.fio" -o "$d/f.ioreel" >/dev/null 2>&1 || fail "synth f.fio"
rc=0
"$IOREEL" replay "$d/f.ioreel" --root "$d/root" --allow-writes -o "$d/tiny/res.ioreel" \
	--json >/dev/null 2>"$d/err" || rc=$?
cat "$d/err"
assert_eq "$rc" 1 "exit status of a file-level replay whose result trace filled the disk"
grep -q "result trace $d/tiny/res.ioreel.*No space left on device; $d/tiny/res.ioreel not written" "$d/err" ||
	fail "no clear message at file level (above)"
assert_eq "$(md5sum <"$d/tiny/res.ioreel")" "$before" "the earlier result (file level)"
assert_eq "$(ls -A "$d/tiny")" "res.ioreel" "what the full disk holds (file level)"

# a --root or a --prefill target on a filesystem too small for what is laid out there: the
# cause named (ENOSPC), not a stale errno (a short write sets none: "No such file or directory",
# "No such device or address" were printed). An odd size, so that a write comes back short.
mkdir "$d/odd"
mount -t tmpfs -o size=1100k tmpfs "$d/odd" || fail "mount tmpfs"
cleanup_push "umount -l '$d/odd'"
mkdir "$d/odd/root"
rc=0
"$IOREEL" replay "$d/f.ioreel" --root "$d/odd/root" --allow-writes -q >/dev/null 2>"$d/err" || rc=$?
cat "$d/err"
assert_eq "$rc" 1 "exit status of a lay-out larger than the disk"
grep -q "lay out under $d/odd/root take 128.0 MiB and its filesystem has 1.[0-9] MiB free: no data" \
	"$d/err" || fail "lay-out: no refusal naming the room (above)"
[ -z "$(find "$d/odd/root" -type f ! -name .ioreel-replay)" ] ||
	fail "a refused lay-out wrote files: $(find "$d/odd/root" -type f)"
rm -rf "$d/odd/root"
"$IOREEL" synth --rw randread --bs 1m --size 4m --number-ios 4 -o "$d/r4.ioreel" >/dev/null ||
	fail "synth r4"
truncate -s 4m "$d/odd/p.img"
rc=0
"$IOREEL" replay "$d/r4.ioreel" --target "$d/odd/p.img" --buffered --allow-writes --prefill -q \
	>/dev/null 2>"$d/err" || rc=$?
cat "$d/err"
assert_eq "$rc" 1 "exit status of a prefill that filled the disk"
grep -q "prefilling $d/odd/p.img failed at offset [0-9]*: No space left on device" "$d/err" ||
	fail "prefill: no ENOSPC"
rm -f "$d/odd/p.img"
rc=0
"$IOREEL" replay "$d/r4.ioreel" --target "$d/odd/t.img" --size 4m --buffered --allow-writes -q \
	>/dev/null 2>"$d/err" || rc=$?
cat "$d/err"
assert_eq "$rc" 1 "exit status of a --size fill that filled the disk"
grep -q "cannot fill target file $d/odd/t.img .*: No space left on device" "$d/err" ||
	fail "--size: no ENOSPC"
[ ! -e "$d/odd/t.img" ] || fail "the target file replay made and could not fill was left"

# calls that fail on the target (a root out of inodes: the creates past the limit get ENOSPC):
# counted, the first named by call and file, and exit 1, so that `replay && publish` stops
mkdir "$d/few"
mount -t tmpfs -o size=1m,nr_inodes=16 tmpfs "$d/few" || fail "mount tmpfs"
cleanup_push "umount -l '$d/few'"
printf '[c]\nioengine=filecreate\nnrfiles=40\nfilesize=4k\n' >"$d/c.fio"
"$IOREEL" synth --fio-job "$d/c.fio" -o "$d/c.ioreel" >/dev/null 2>&1 || fail "synth c.fio"
mkdir "$d/few/root"
rc=0
"$IOREEL" replay "$d/c.ioreel" --root "$d/few/root" --allow-writes --json >"$d/c.json" \
	2>"$d/err" || rc=$?
cat "$d/err"
assert_eq "$rc" 1 "exit status of a replay whose calls failed"
grep -q "[0-9]* of [0-9]* calls failed on the target (first: open of $d/few/root/c\.0\.[0-9]*: No space left on device)" \
	"$d/err" || fail "the first failed call not named (above)"
[ "$(json_get "$d/c.json" "d['fidelity']['errors']")" -gt 0 ] || fail "errors not counted"
assert_eq "$(json_get "$d/c.json" "d['fidelity']['interrupted']")" False "interrupted in --json"

# stopped by --runtime: the trace of what ran, under its name, readable with its index
"$IOREEL" replay "$d/big.ioreel" --target "$d/target" --mode afap --runtime 0.02 \
	-o "$d/part.ioreel" --json >/dev/null 2>"$d/err" || fail "replay --runtime: $(cat "$d/err")"
"$IOREEL" info "$d/part.ioreel" --json >"$d/part.json" || fail "info of the stopped replay's result"
python3 - "$d/part.json" <<'PY' || fail "the stopped replay's result (above)"
import json, sys
i = json.load(open(sys.argv[1]))
print("stopped by --runtime:", i["events"], "I/Os, index", i["index"])
sys.exit(0 if 0 < i["events"] < 262144 and i["index"] else 1)
PY
[ -z "$(find "$d" -maxdepth 1 -name '.*ioreel*')" ] || fail "a temporary file was left: $(ls -A "$d")"
echo PASS
