#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Ctrl-C, SIGTERM and SIGHUP end a replay whatever it waits for: a timed replay whose next I/O is an
# hour away (it used to sleep to the deadline and look at the signal only after it), one whose
# times lie past 2^63 ns, a dep replay of the same gap; at several moments. Each ends at once
# with its result trace complete and readable (the first I/O in it), says it was interrupted
# (stderr, --json) and exits 1: a partial run is not a result. So does one still filling its new
# --size target, which it removes, and a file-level one laying out its files. Under nohup a
# SIGHUP is ignored, as nohup asks.
# timeout: 300
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
need_cmd python3
d=$(scratch_dir)
truncate -s 64M "$d/t.img"

{
	echo "$CSV_HEADER"
	echo "0,,,d,0,4096,read,,0,1,1,x,0,0"
	echo "3600000000000,,,d,4096,4096,read,,0,1,1,x,0,0"
} >"$d/gap.csv"
mktrace "$d/gap.csv" "$d/gap.ioreel"
{
	echo "$CSV_HEADER"
	echo "0,,,d,0,4096,read,,0,1,1,x,0,0"
	echo "9300000000000000000,,,d,4096,4096,read,,0,1,1,x,0,0"
} >"$d/far.csv"
mktrace "$d/far.csv" "$d/far.ioreel"

# stop TRACE SIGNAL DELAY_S MODE: replay, signal it after DELAY_S, check it ends and its result
stop() {
	local trace=$1 sig=$2 delay=$3 mode=$4 out=$d/res-$2-$3-$4.ioreel pid t0 t1 rc
	"$IOREEL" replay "$trace" --target "$d/t.img" --mode "$mode" -o "$out" -q --json \
		>"$d/out" 2>"$d/err" &
	pid=$!
	sleep "$delay"
	t0=$(date +%s%N)
	kill -"$sig" $pid
	# it must end now, not in an hour: wait up to 10 s (ten times the promise)
	for _ in $(seq 100); do
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 $pid 2>/dev/null; then
		kill -KILL $pid
		fail "replay --mode $mode of $(basename "$trace") still running 10 s after SIG$sig"
	fi
	wait $pid && rc=0 || rc=$?
	t1=$(date +%s%N)
	echo "SIG$sig after ${delay}s ($mode, $(basename "$trace")): ended in" \
		"$(((t1 - t0) / 1000000)) ms, exit $rc"
	[ "$rc" -lt 128 ] || fail "replay died of SIG$sig (exit $rc) instead of finishing its output"
	# a partial run is not a result: exit 1, said on stderr and in --json
	assert_eq "$rc" 1 "exit status of a replay interrupted by SIG$sig"
	grep -q interrupted "$d/err" || fail "an interrupted replay did not say so: $(cat "$d/err")"
	assert_eq "$(json_get "$d/out" "d['fidelity']['interrupted']")" True "interrupted in --json"
	"$IOREEL" info "$out" >"$d/info" 2>&1 || fail "result trace after SIG$sig unreadable: $(cat "$d/info")"
	grep -Eq '^  events +1:' "$d/info" || fail "result after SIG$sig does not hold the first I/O: $(cat "$d/info")"
}

for sig in INT TERM HUP; do
	for delay in 0.5 2; do
		stop "$d/gap.ioreel" $sig $delay timed
	done
	stop "$d/far.ioreel" $sig 1 timed
done
# under nohup (SIGHUP ignored) a hang-up is not a stop: the handler replaced nohup's SIG_IGN and
# the replay ended "interrupted", exit 1
"$IOREEL" synth --rw randread --bs 4k --size 1m --runtime 2s --time-based -o "$d/two.ioreel" \
	>/dev/null || fail "synth"
nohup "$IOREEL" replay "$d/two.ioreel" --target "$d/t.img" -q >/dev/null 2>"$d/err" &
pid=$!
cleanup_kill "$pid"
sleep 0.5
kill -HUP "$pid"
wait "$pid" || fail "a replay under nohup after SIGHUP exited $?: $(cat "$d/err")"
grep -q interrupted "$d/err" && fail "a replay under nohup was interrupted by SIGHUP"
# Ctrl-C while --size fills a new file target (4 GiB: seconds of writing) ends it at once, exit 1
# with a message, and the file it made is removed; an earlier result under -o stays as it was
if [ "$(df --output=avail -k "$d" | tail -1)" -gt $((5 << 20)) ]; then
	cp "$d/gap.ioreel" "$d/earlier.ioreel"
	"$IOREEL" replay "$d/gap.ioreel" --target "$d/new.img" --size 4g --allow-writes -q \
		-o "$d/earlier.ioreel" >/dev/null 2>"$d/err" &
	pid=$!
	for _ in $(seq 500); do [ -e "$d/new.img" ] && break; sleep 0.01; done
	kill -INT $pid
	for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	kill -0 $pid 2>/dev/null && { kill -KILL $pid; fail "--size fill still running 10 s after SIGINT"; }
	rc=0
	wait $pid || rc=$?
	cat "$d/err"
	assert_eq "$rc" 1 "exit status of a replay interrupted in its --size fill"
	grep -q "interrupted while filling target file $d/new.img .*the file was removed" "$d/err" ||
		fail "the interrupted fill not said (above)"
	[ ! -e "$d/new.img" ] || fail "the half-filled target $d/new.img was left"
	cmp -s "$d/gap.ioreel" "$d/earlier.ioreel" || fail "the earlier result was changed"
else
	echo "NOTE: under 5 GiB free in $d: the --size fill interruption not checked"
fi

# Ctrl-C while a file-level replay lays out its files (16,000 of 4 KiB, each synced: seconds)
# ends it within a second, exit 1, saying so (it said "laying out F: Interrupted system call"),
# with no result trace
printf '[global]\nnumjobs=16\nfilesize=4k\n[s]\nioengine=filestat\nnrfiles=1000\n' >"$d/st.fio"
"$IOREEL" synth --fio-job "$d/st.fio" -o "$d/st.ioreel" >/dev/null 2>"$d/err" ||
	fail "synth: $(cat "$d/err")"
mkdir "$d/root"
"$IOREEL" replay "$d/st.ioreel" --root "$d/root" --allow-writes --engine threads -q \
	-o "$d/st-run.ioreel" >/dev/null 2>"$d/err" &
pid=$!
for _ in $(seq 500); do [ -e "$d/root/s.0.0" ] && break; sleep 0.01; done
t0=$(date +%s%N)
kill -INT $pid
for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.05; done
kill -0 $pid 2>/dev/null && { kill -KILL $pid; fail "lay-out still running 5 s after SIGINT"; }
rc=0
wait $pid || rc=$?
t1=$(date +%s%N)
cat "$d/err"
echo "SIGINT in the lay-out: ended in $(((t1 - t0) / 1000000)) ms, exit $rc"
assert_eq "$rc" 1 "exit status of a replay interrupted in its lay-out"
[ $(((t1 - t0) / 1000000)) -lt 1000 ] || fail "the lay-out took over 1 s to stop"
grep -q "interrupted while laying out the files under $d/root.*nothing was replayed" "$d/err" ||
	fail "the interrupted lay-out not said (above)"
[ ! -e "$d/st-run.ioreel" ] || fail "a result trace was written for a replay that never ran"

# --speed far below 1 stretches the gap further still; an absurd one is refused
"$IOREEL" replay "$d/gap.ioreel" --target "$d/t.img" --mode timed --speed 1e-20 -q \
	>/dev/null 2>"$d/err" && fail "--speed 1e-20 accepted"
grep -q -- '--speed' "$d/err" || fail "--speed 1e-20 refused without naming it"
echo PASS
