#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ioreel-mpi's scratch file in --share-dir (default $TMPDIR or /tmp, everyone's) is made
# exclusively under a name nobody can guess: it was the rank and the pid, and a symbolic link
# planted at that name made a rank running as root write its part over the file the link named
# (here "victim", with links for the next 1500 pids). The file is left as it was, the links
# too, and the rank's own scratch file is gone at the end.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/mpi_common.inc"
need_root
d=$(scratch_dir)
cd "$d" || fail "cd $d"
"$IOREEL" synth --rw randread --bs 4k --size 1m --number-ios 50 -o t.ioreel >/dev/null ||
	fail "synth"
echo precious >victim
mkdir share
python3 -c '
import os
p = int(open("/proc/sys/kernel/ns_last_pid").read())
for i in range(p, p + 1500):
    os.symlink("../victim", "share/ioreel-mpi-share-r0-%d.ioreel" % i)
' || fail "cannot plant the links"
fleet shm 1 replay t.ioreel --engine null --target tgt-%r --size 16m -o run-%r.ioreel \
	--share-dir share >/dev/null 2>err || fail "ioreel-mpi replay: $(cat err)"
assert_eq "$(cat victim)" precious "the file a planted link named"
assert_eq "$(find share -type l | wc -l)" 1500 "the planted links"
assert_eq "$(find share ! -type l ! -type d | wc -l)" 0 "scratch files left in --share-dir"
echo ok
