#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The README's "Try it here" block, run exactly as written (from the top of the repository),
# so that the commands it shows keep working. Loop devices it makes are detached even if it
# fails halfway.
# timeout: 180
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
need_root
need_cmd fio losetup
top=$(cd "$here/../.." && pwd)
d=$(scratch_dir)
block=$(awk '/<!-- readme-test:begin -->/{on=1; next} /<!-- readme-test:end -->/{on=0} on && !/^```/' "$top/README.md")
[ -n "$block" ] || fail "README.md has no readme-test block"
cleanup_push "losetup -n -l -O NAME,BACK-FILE | awk -v d='$d/' 'index(\$2, d) == 1 {print \$1}' | xargs -r -n1 losetup -d"
# The block makes its own scratch folder with mktemp -d: keep it inside ours.
(cd "$top" && TMPDIR=$d bash -euo pipefail -c "$block") >"$d/out.txt" 2>&1 || {
	cat "$d/out.txt"
	fail "the README's example block failed"
}
cat "$d/out.txt"
grep -q "dropped    0" "$d/out.txt" || fail "the README's recording reported drops (or no info output)"
grep -q "run-cand.ioreel" "$d/out.txt" || fail "no comparison row for the replay"
grep -q "fio version 3 iolog" "$d/out.txt" || fail "convert did not write a fio v3 iolog"
ls "$d"/tmp.*/report.html >/dev/null || fail "no HTML report written"
echo ok
