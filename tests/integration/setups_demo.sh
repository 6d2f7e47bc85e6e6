#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make demo` (tests/demo.sh) end to end, shortened (DEMO_SECONDS=5): it must finish, leave a
# trace, each candidate's replays (timed and dep for a recording, one for a synthesized mix),
# the comparison with their kinds, an HTML report, and no setup behind.
# timeout: 240
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../setups.sh"
. "$here/../workload_pg.sh"
need_root
for verb in record replay analyze info; do
	ioreel_has $verb || skip "waiting for ioreel record/replay/analyze (ioreel $verb not built yet)"
done
out=$(scratch_dir)
DEMO_SECONDS=5 DEMO_OUT=$out bash "$here/../demo.sh" >"$out/demo.log" 2>&1 ||
	{ tail -n 30 "$out/demo.log"; fail "tests/demo.sh failed"; }
cat "$out/demo.log"
for f in trace.ioreel report.html; do
	[ -s "$out/$f" ] || fail "demo left no $f"
done
if pg_available; then
	for f in run-ext4-timed run-ext4-dep run-btrfs-raid6-timed run-btrfs-raid6-dep; do
		[ -s "$out/$f.ioreel" ] || fail "demo left no $f.ioreel"
		grep -Eq "^(read|write|flush) +$f.ioreel +${f##*-} " "$out/demo.log" ||
			fail "the comparison has no $f row of kind ${f##*-}"
	done
else
	for f in run-ext4 run-btrfs-raid6; do
		[ -s "$out/$f.ioreel" ] || fail "demo left no $f.ioreel"
	done
fi
grep -q "HTML report: $out/report.html" "$out/demo.log" || fail "demo did not say where the report is"
for s in 1 2 3 4 5 6; do grep -q "^\[$s/6\]" "$out/demo.log" || fail "demo progress step $s/6 missing"; done
# The demo's own state directory, from its progress line, must be gone with all it held.
sdir=$(sed -n 's|.*mounted at \(.*/ioreel-setup\.[^/]*\)/mnt-xfs.*|\1|p' "$out/demo.log")
[ -n "$sdir" ] || fail "demo did not report its workload mount"
setups_assert_gone "$sdir"
echo "ok"
