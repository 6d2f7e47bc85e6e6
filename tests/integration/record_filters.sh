#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Filters keep exactly the right I/Os: -d (another device busy at the same time), --comm
# (fio and dd on the same device), --pid (two dd processes, one recorded; the recorder stops
# when it exits) and --cgroup (a dd in a cgroup of our own, another outside it).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"
need_cmd dd mkfifo

dir=$(scratch_dir)
a=$(make_loop 64)
b=$(make_loop 64)
na=$(basename "$a")

# Device: only $a.
rec_start "$dir/dev.ioreel" -d "$a"
fio --name=b --filename="$b" --direct=1 --ioengine=libaio --rw=randread --bs=4k --iodepth=4 \
	--io_size=4M >/dev/null &
fb=$!
dd if=/dev/zero of="$a" bs=4k count=300 oflag=direct status=none || fail "dd on $a"
wait $fb || fail "fio on $b"
rec_stop || fail "record exited $?"
trace_csv "$dir/dev.ioreel" >"$dir/dev.csv" || fail "export"
assert_eq "$(tail -n +2 "$dir/dev.csv" | grep -vc ",$na,")" 0 "I/Os of $b in a trace of $a"
assert_eq "$(grep -c ",$na,.*,write,.*,dd," "$dir/dev.csv")" 300 "dd's writes on $a"

# Comm: only dd, while fio reads the same device.
rec_start "$dir/comm.ioreel" -d "$a" --comm dd
fio --name=r --filename="$a" --direct=1 --ioengine=libaio --rw=randread --bs=4k --iodepth=4 \
	--io_size=4M >/dev/null &
fb=$!
dd if=/dev/zero of="$a" bs=8k count=200 oflag=direct status=none || fail "dd on $a"
wait $fb || fail "fio on $a"
rec_stop || fail "record exited $?"
trace_csv "$dir/comm.ioreel" >"$dir/comm.csv" || fail "export"
assert_eq "$(tail -n +2 "$dir/comm.csv" | wc -l)" 200 "I/Os in the --comm dd trace"
assert_eq "$(grep -c ',write,.*,dd,' "$dir/comm.csv")" 200 "dd's writes"

# Pid: two dd, only the first one's I/O. Each waits on a fifo so its pid is known first.
mkfifo "$dir/go1" "$dir/go2"
(read -r _ <"$dir/go1" && exec dd if=/dev/zero of="$a" bs=4k count=123 oflag=direct status=none) &
p1=$!
(read -r _ <"$dir/go2" && exec dd if=/dev/zero of="$a" bs=4k count=77 seek=1000 oflag=direct status=none) &
p2=$!
rec_start "$dir/pid.ioreel" -d "$a" --pid "$p1"
echo go >"$dir/go1"
echo go >"$dir/go2"
wait $p1 $p2 || fail "dd failed"
# the recorder stops by itself when the --pid process exits (its PID may come to name another)
for ((i = 0; i < 100; i++)); do kill -0 "$REC_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$REC_PID" 2>/dev/null && { rec_stop; fail "record went on 10 s after its --pid exited"; }
wait "$REC_PID" || fail "record exited $?: $(cat "$dir/pid.ioreel.err")"
assert_eq "$(json_get "$dir/pid.ioreel.json" pid_exited)" True "pid_exited in --json"
grep -q "(the process exited)" "$dir/pid.ioreel.err" ||
	fail "the exit not said: $(cat "$dir/pid.ioreel.err")"
trace_csv "$dir/pid.ioreel" >"$dir/pid.csv" || fail "export"
assert_eq "$(tail -n +2 "$dir/pid.csv" | wc -l)" 123 "I/Os in the --pid trace"
assert_eq "$(tail -n +2 "$dir/pid.csv" | awk -F, -v p="$p1" '$10 != p' | wc -l)" 0 \
	"I/Os of other pids"

# Cgroup: a dd inside a fresh cgroup v2 directory, another outside it.
cg2=$(findmnt -t cgroup2 -n -o TARGET | head -n 1)
[ -n "$cg2" ] || skip "no cgroup v2 mount for the --cgroup filter"
cg=$cg2/ioreel-rec-test-$$
mkdir "$cg" || fail "mkdir $cg"
cleanup_push "rmdir '$cg'"
mkfifo "$dir/go3" "$dir/go4"
(echo $BASHPID >"$cg/cgroup.procs" && read -r _ <"$dir/go3" &&
	exec dd if=/dev/zero of="$a" bs=4k count=111 seek=3000 oflag=direct status=none) &
p3=$!
(read -r _ <"$dir/go4" && exec dd if=/dev/zero of="$a" bs=4k count=55 oflag=direct status=none) &
p4=$!
sleep 0.2
rec_start "$dir/cg.ioreel" -d "$a" --cgroup "$cg"
echo go >"$dir/go3"
echo go >"$dir/go4"
wait $p3 $p4 || fail "dd failed"
rec_stop || fail "record exited $?"
trace_csv "$dir/cg.ioreel" >"$dir/cg.csv" || fail "export"
assert_eq "$(tail -n +2 "$dir/cg.csv" | wc -l)" 111 "I/Os in the --cgroup trace"
assert_eq "$(tail -n +2 "$dir/cg.csv" | awk -F, -v p="$p3" '$10 != p' | wc -l)" 0 \
	"I/Os from outside the cgroup"
echo PASS
