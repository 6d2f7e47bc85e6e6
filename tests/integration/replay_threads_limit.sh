#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# timeout: 120
# The threads engine past the process's thread limit (ulimit -u, as a user it applies to): a
# recorded thread whose worker cannot be started ends the replay with the error, exit 1, at
# once. The calls it could not hand over were dropped and stayed in flight, and the drain waited
# for them forever, SIGTERM and all ("the target does not answer"). With --max-inflight 1 no
# worker is needed, and the replay runs. A closed trace's workers, started before the clock,
# are refused there, with no result trace written.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
need_root
need_cmd python3 setpriv
id nobody >/dev/null 2>&1 || skip "needs the user nobody"
d=$(scratch_dir)
chmod 755 "$d"
truncate -s 1M "$d/t.img"
# 300 recorded threads, one read each: far past the 40 processes nobody may have
csv_trace "$d/threads.csv" "$d/threads.ioreel" <<'PY'
rows = [(1000 + i, "", "", "d", (i % 200) * 4096, 4096, "read", "", 0, 1, i + 1, "x", 0, 0)
        for i in range(300)]
PY
chmod 644 "$d/threads.ioreel" "$d/t.img"
# want EXIT MODE-OPTIONS...: the replay as nobody under ulimit -u 40 ends (not killed) with EXIT
want() {
	local want=$1 rc=0
	shift
	timeout -s KILL 60 setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups bash -c \
		"ulimit -u 40; exec '$IOREEL' replay '$d/threads.ioreel' --engine threads -q $*" \
		>"$d/out" 2>"$d/err" || rc=$?
	cat "$d/err"
	[ "$rc" != 137 ] || fail "replay $* past the thread limit still running after 60 s"
	assert_eq "$rc" "$want" "exit status of replay $* past the thread limit"
}
want 1 --mode afap --target "'$d/t.img'"
grep -q "engine threads: .*Resource temporarily unavailable" "$d/err" ||
	fail "the thread limit not said (above)"
# one call at a time: the scheduling thread makes them all, no worker is started
want 0 --mode timed --max-inflight 1 --target "'$d/t.img'"
# a closed trace's 64 stream workers start before the clock: refused there, nothing replayed,
# and no result trace (an empty one was written once they started after mlockall)
printf '[global]\nnumjobs=64\nfilesize=4k\n[s]\nioengine=filestat\nnrfiles=2\n' >"$d/s.fio"
"$IOREEL" synth --fio-job "$d/s.fio" -o "$d/threads.ioreel" >/dev/null 2>"$d/err" ||
	fail "synth: $(cat "$d/err")"
chmod 644 "$d/threads.ioreel"
mkdir "$d/root"
chown nobody "$d" "$d/root"
want 1 --root "'$d/root'" --allow-writes -o "'$d/run.ioreel'"
grep -q "engine threads: cannot start its threads: Resource temporarily unavailable" "$d/err" ||
	fail "the closed replay's refusal not said (above)"
[ ! -e "$d/run.ioreel" ] || fail "a result trace was written for a replay that never ran"
echo PASS
