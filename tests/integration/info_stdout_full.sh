#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `info`, `convert` and every verb's --help fail (exit 1, a message naming standard output or
# '-') when their output cannot be written, `> /dev/full` (issue 21 W4): flush and close errors
# of stdout are checked (cli_close_stdout), not lost at exit.
. "$(dirname "$0")/../lib.sh"
[ -w /dev/full ] || skip "no /dev/full"
d=$(scratch_dir)
cd "$d" || fail "cd $d"
"$IOREEL" synth --rw randread --bs 4k --size 4m -o t.ioreel >/dev/null || fail "synth"
full() { # PATTERN CMD...: CMD > /dev/full exits 1 and says PATTERN on stderr
	local pat=$1 rc; shift
	"$@" >/dev/full 2>err
	rc=$?
	[ $rc = 1 ] || fail "'$* > /dev/full' exited $rc, expected 1: $(cat err)"
	grep -q -- "$pat" err || fail "'$* > /dev/full': message lacks '$pat': $(cat err)"
}
full "standard output.*No space left" "$IOREEL" info t.ioreel
full "standard output.*No space left" "$IOREEL" info --json t.ioreel
full "standard output.*No space left" "$IOREEL" info --help
full "-: cannot write.*No space left" "$IOREEL" convert t.ioreel - --to csv
full "standard output.*No space left" "$IOREEL" convert t.ioreel o.csv --json
full "standard output.*No space left" "$IOREEL" convert --help
# every verb's help, ioreel's own and --version: main() checks stdout after any verb (replay,
# record and study never did, nor ioreel --help); replay's help fails in its first write, whose
# errno stdio does not keep: any reason will do
full "standard output" "$IOREEL" --help
full "standard output" "$IOREEL" --version
for verb in record replay analyze synth bench study convert info; do
	full "ioreel $verb: cannot write the output (standard output)" "$IOREEL" $verb --help
done
full "standard output" "$IOREEL" record --level file --help
# a verb that flushes stdout itself (synth) before main closes it says so once, not twice
full "standard output.*No space left" "$IOREEL" synth --list-presets
[ "$(wc -l <err)" = 1 ] || fail "synth --list-presets > /dev/full: one message, not: $(cat err)"
# and with a writable stdout, all is well
"$IOREEL" info t.ioreel >/dev/null || fail "info to /dev/null"
"$IOREEL" convert t.ioreel - --to csv >/dev/null || fail "convert to stdout"
echo "PASS: every verb reports an unwritable stdout"
