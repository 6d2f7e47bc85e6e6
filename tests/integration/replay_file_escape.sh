#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# replay --root never touches anything outside its directory (issue 14). Traces crafted with
# paths no recorder would write (tests/tools/ftrace_craft) are refused before any write, with a
# message naming the path and why: a ".." component, a relative path, an absolute path outside
# --strip, and a symlink under the root (on the way to a file, or at the file's own name) that
# points outside. Without --strip an absolute path elsewhere is rebased under the root, never
# opened where it was. A file-level replay writes only with --allow-writes (usage error, exit
# 2, saying what to add), a file-level trace needs --root and a block-level one refuses it, and
# a trace at one of its own files' names under the root is refused (--force or not).
. "$(dirname "$0")/../lib.sh"
need_root
craft=$BUILD/tests/tools/ftrace_craft
[ -x "$craft" ] || fail "$craft is not built (make check builds it)"
d=$(scratch_dir)
out=$d/outside
mkdir -p "$out" "$d/root"
echo "not yours" >"$out/victim"
fingerprint() { find "$out" -printf '%p %s %T@\n' | sort | md5sum; }
before=$(fingerprint)
unchanged() { # WHAT: nothing outside the root changed
	assert_eq "$(fingerprint)" "$before" "$1: something outside --root changed"
	assert_eq "$(cat "$out/victim")" "not yours" "$1: the file outside was written"
}
empty_root() { # WHAT: the refusal came before any write under the root either
	[ -z "$(ls -A "$d/root")" ] || fail "$1: written under --root although refused: $(ls -A "$d/root")"
}
refused() { # WHAT EXPECTED-MESSAGE TRACE [replay options]: exit 1 and the message
	local what=$1 msg=$2 rc=0
	shift 2
	"$IOREEL" replay "$@" -q >"$d/stdout" 2>"$d/err" || rc=$?
	assert_eq "$rc" 1 "$what: exit status ($(cat "$d/err"))"
	grep -q -- "$msg" "$d/err" || fail "$what: message: $(cat "$d/err")"
	grep -q "refused" "$d/err" || fail "$what: does not say it refused: $(cat "$d/err")"
	unchanged "$what"
	echo "ok: $what: $(cat "$d/err")"
}

# 1. a ".." component, a relative path, an absolute path outside --strip: refused up front
"$craft" "$d/dotdot.ioreel" /data/a.dat "/data/../${out#/}/victim" || fail "ftrace_craft"
refused "'..' in a path" '".." component' "$d/dotdot.ioreel" --root "$d/root" --allow-writes
empty_root "'..'"
"$craft" "$d/rel.ioreel" /data/a.dat data/b.dat || fail "ftrace_craft"
refused "relative path" "is not absolute" "$d/rel.ioreel" --root "$d/root" --allow-writes
empty_root "relative path"
"$craft" "$d/abs.ioreel" /data/a.dat "$out/victim" || fail "ftrace_craft"
refused "absolute path outside --strip" "lies outside the recorded directory" "$d/abs.ioreel" \
	--root "$d/root" --strip /data --allow-writes
empty_root "absolute path outside --strip"

# 2. without --strip the same trace is rebased: both files under the root, none outside
"$IOREEL" replay "$d/abs.ioreel" --root "$d/root" --allow-writes --json >"$d/abs.json" \
	2>"$d/err" || fail "rebased replay: $(cat "$d/err")"
unchanged "rebased replay"
[ -f "$d/root/data/a.dat" ] && [ -f "$d/root/${out#/}/victim" ] ||
	fail "rebased files not under the root: $(find "$d/root")"
assert_eq "$(stat -c %s "$d/root/${out#/}/victim")" 65536 "rebased file's size"
python3 - "$d/abs.json" <<'PY' || fail "rebased replay's report"
import json, sys
f = json.load(open(sys.argv[1]))["file"]
assert f["strip"] == "/" and f["recreated"]["files"] == 2, f
for op in ("write", "fsync", "close"):
    assert f["ops"][op]["trace"] == f["ops"][op]["replayed"] == 2, (op, f["ops"][op])
    assert f["ops"][op]["failed"] == 0, (op, f["ops"][op])
PY

# 3. symlinks under the root (it is marked as a replay's own now, so it may be reused):
# one on the way to a file, one at the file's name; neither is followed
# (with --strip /data, /data/x is ROOT/x)
ln -s "$out" "$d/root/link"
"$craft" "$d/link.ioreel" /data/a.dat /data/link/victim || fail "ftrace_craft"
refused "symlink directory under --root" "is a symlink" "$d/link.ioreel" --root "$d/root" \
	--strip /data --allow-writes
[ ! -e "$d/root/a.dat" ] || fail "written under --root before the symlink was refused"
rm "$d/root/link"
ln -s "$out/victim" "$d/root/a.dat"
"$craft" "$d/name.ioreel" /data/a.dat || fail "ftrace_craft"
refused "symlink at a file's name" "is a symlink" "$d/name.ioreel" --root "$d/root" \
	--strip /data --allow-writes
[ -L "$d/root/a.dat" ] || fail "the symlink at a file's name was removed or replaced"

# 4. a root holding files a replay did not put there is refused without --force
mkdir "$d/foreign"
echo mine >"$d/foreign/keep"
refused "foreign root" "did not put there" "$d/name.ioreel" --root "$d/foreign" --allow-writes
assert_eq "$(ls -A "$d/foreign")" "keep" "foreign root changed"

# 5. usage errors (exit 2) before anything is written: no --allow-writes (saying to add it),
# a file-level trace without --root, a block-level trace with --root, -o a directory
mkdir "$d/fresh"
assert_status 2 "$IOREEL" replay "$d/name.ioreel" --root "$d/fresh" 2>"$d/err"
grep -q -- "give --allow-writes" "$d/err" || fail "no --allow-writes: $(cat "$d/err")"
[ -z "$(ls -A "$d/fresh")" ] || fail "written without --allow-writes: $(ls -A "$d/fresh")"
assert_status 2 "$IOREEL" replay "$d/name.ioreel" --target "$d/img" --size 1m --allow-writes \
	2>"$d/err"
grep -q -- "file-level trace.*--root DIR" "$d/err" ||
	fail "file trace without --root: $(cat "$d/err")"
[ ! -e "$d/img" ] || fail "a file-level trace without --root created its --target"
"$IOREEL" synth --rw randread --bs 4k --size 1m --number-ios 16 -o "$d/block.ioreel" >/dev/null ||
	fail "synth"
assert_status 2 "$IOREEL" replay "$d/block.ioreel" --root "$d/fresh" --allow-writes 2>"$d/err"
grep -q -- "--root is for file-level traces" "$d/err" ||
	fail "block trace with --root: $(cat "$d/err")"
[ -z "$(ls -A "$d/fresh")" ] || fail "a block-level trace wrote under --root"
assert_status 2 "$IOREEL" replay "$d/name.ioreel" --root "$d/fresh" --target "$d/img" 2>/dev/null
# -o a directory (the root itself): found by the writer only once the files were laid out
assert_status 2 "$IOREEL" replay "$d/name.ioreel" --root "$d/fresh" --allow-writes -o "$d/fresh" \
	2>"$d/err" >/dev/null
grep -q -- "-o $d/fresh is a directory" "$d/err" || fail "-o a directory: $(cat "$d/err")"
[ -z "$(ls -A "$d/fresh")" ] || fail "-o a directory: written under --root: $(ls -A "$d/fresh")"
output_has "--root DIR" "$IOREEL" replay --help || fail "replay --help does not describe --root"
# 6. the trace itself at one of its files' names under the root: refused even with --force,
# the trace left as it was
"$IOREEL" synth --rw write --bs 4k --nrfiles 2 --filesize 64k --size 128k -o "$d/two.ioreel" \
	>/dev/null || fail "synth of a two-file trace"
mkdir "$d/own"
cp "$d/two.ioreel" "$d/own/synth.0.0"
sum=$(md5sum <"$d/own/synth.0.0")
assert_status 1 "$IOREEL" replay "$d/own/synth.0.0" --root "$d/own" --allow-writes --force \
	2>"$d/err" >/dev/null
grep -q "is the trace being replayed under --root" "$d/err" ||
	fail "the trace under its own --root: $(cat "$d/err")"
[ "$(md5sum <"$d/own/synth.0.0")" = "$sum" ] || fail "the trace under --root was written"
[ ! -e "$d/own/synth.0.1" ] || fail "a file was recreated although the replay was refused"
unchanged "the end"
echo PASS
