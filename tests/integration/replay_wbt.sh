#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# --dep-wbt (replay/dep/dep_wbt.c): the kernel's writeback throttling for the recorded writes it
# throttles, by counts, on the null engine with a set latency. The trace: a reader reads every
# 2 ms for 1.2 s (each read waits for the one before); a kworker queues two bursts of 64
# writes (no REQ_SYNC: writeback), 10 us apart, which the recording completed 1 ms later, so
# up to 64 were in flight at once.
#  - with --null-latency 5ms every read takes 5 ms, over the 2 ms aimed at: the throttle starts
#    at the kernel's default depth (16: background limit 4) and only scales down while the
#    writes run, so no more than 4 writeback writes are ever in flight (the result trace says
#    so, and the report), every write is still issued, and windows over the latency are
#    counted;
#  - without the model the writes go as deep as recorded (more than 8 at once);
#  - onto a fast target (no latency) nothing exceeds and everything is issued;
#  - --dep-wbt on onto a file (no queue to read) warns and replays without it; on a loop
#    device it takes the device's own wbt_lat_usec and nr_requests;
#  - a bad value is a usage error naming the choices.
# Function, not timing: the depth bound holds whatever the host's pace (the limits never rise
# above their start while every read takes 5 ms).
# timeout: 180
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
need_cmd python3
d=$(scratch_dir)
truncate -s 64M "$d/t.img"

csv_trace "$d/w.csv" "$d/w.ioreel" <<'PY'
def io(q, c, op, off, ln, tid, comm, flags=""):
    rows.append((q * 1000, "", c * 1000, "dev0", off, ln, op, flags, 0, 0 if flags else 42,
                 tid, comm, 0, 0))
for i in range(600):                       # the reader: 2 ms apart, 100 us each
    q = 1000 + i * 2000
    io(q, q + 100, "read", 4096 * (1000 + i), 4096, 10, "db")
for burst in (50000, 600000):              # the kworker: 64 writes 10 us apart, 1 ms each
    for i in range(64):
        q = burst + i * 10
        io(q, q + 1000, "write", 4096 * (burst // 1000 + i), 4096, 20, "kworker/u8:1",
           "kthread")
PY

# rp NAME TARGET ARGS...: a dep replay onto the null engine, JSON and result trace kept
rp() {
	local name=$1 target=$2
	shift 2
	"$IOREEL" replay "$d/w.ioreel" --target "$target" --allow-writes --force --mode dep \
		--engine null --json -o "$d/$name.out.ioreel" "$@" >"$d/$name.json" \
		2>"$d/$name.err" || fail "replay $name failed: $(cat "$d/$name.err")"
}
# most NAME: the most writes in flight at once in NAME's result trace
most() {
	result_csv "$d/$1.out.ioreel" | python3 -c '
import csv, sys
ev = []
for r in csv.DictReader(l for l in sys.stdin if not l.startswith("#")):
    if r["op"] == "write":
        ev += [(int(r["issue_ns"]), 1), (int(r["complete_ns"]), -1)]
n = m = 0
for t, x in sorted(ev, key=lambda e: (e[0], e[1])):
    n += x
    m = max(m, n)
print(m)'
}
wbt() { json_get "$d/$1.json" "d['fidelity']['dep']['wbt']['$2']"; }
total() { json_get "$d/$1.json" "d['jobs'][0]['$2']['total_ios']"; }

echo "== throttled: reads over the latency aimed at"
rp slow "$d/t.img" --null-latency 5ms --dep-wbt 2ms
assert_eq "$(wbt slow on)" True "the model's report"
assert_eq "$(wbt slow throttled)" 128 "writeback writes seen by the throttle"
assert_eq "$(total slow write)" 128 "writes issued"
assert_eq "$(total slow read)" 600 "reads issued"
m=$(most slow)
echo "most writes in flight: $m; report: $(wbt slow max_inflight), held $(wbt slow held)," \
	"windows $(wbt slow windows), over $(wbt slow exceeded), background" \
	"$(wbt slow background_min)-$(wbt slow background_max)"
[ "$m" -le 4 ] && [ "$(wbt slow max_inflight)" -le 4 ] ||
	fail "more than the background limit (4) in flight: $m"
# a write that waits holds its thread's later ones behind it (they follow its submission, as
# a kworker blocked in the throttle): one wait per batch that went, 128 / 4 at most
[ "$(wbt slow held)" -ge 16 ] || fail "too few waits for the throttle: $(wbt slow held)"
[ "$(wbt slow exceeded)" -ge 1 ] && [ "$(wbt slow background_min)" -lt 4 ] ||
	fail "no window over the latency, or the limit never scaled down: $(cat "$d/slow.json")"
"$IOREEL" replay "$d/w.ioreel" --target "$d/t.img" --allow-writes --mode dep --engine null \
	--null-latency 5ms --dep-wbt 2ms -q >"$d/slow.txt" 2>&1 || fail "$(cat "$d/slow.txt")"
grep -q "writeback throttle (--dep-wbt" "$d/slow.txt" || fail "text report: $(cat "$d/slow.txt")"

echo "== the model off (the default): as deep as recorded"
rp off "$d/t.img" --null-latency 5ms
assert_eq "$(wbt off on)" False "the model's report, off"
m=$(most off)
echo "most writes in flight: $m"
[ "$m" -gt 8 ] || fail "without the model the writes should go as deep as recorded: $m"

echo "== a fast target: nothing over the latency, everything issued"
rp fast "$d/t.img" --dep-wbt 2ms
assert_eq "$(wbt fast exceeded)" 0 "windows over the latency on a fast target"
assert_eq "$(total fast write)" 128 "writes issued"

echo "== on, onto a file: warned, replayed without it"
rp file "$d/t.img" --dep-wbt on
assert_eq "$(wbt file on)" False "the model onto a file"
grep -q "no target throttles writeback" "$d/file.err" || fail "no warning: $(cat "$d/file.err")"

if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null; then
	echo "== on, onto a loop device: its own queue's settings"
	dev=$(make_loop 64)
	q=/sys/block/${dev#/dev/}/queue
	rp loop "$dev" --dep-wbt on
	assert_eq "$(wbt loop lat_ns)" "$(($(cat "$q/wbt_lat_usec") * 1000))" "wbt_lat_usec"
	assert_eq "$(wbt loop queue_depth)" "$(cat "$q/nr_requests")" "nr_requests"
else
	echo "(not root: the loop device's own settings are not checked here)"
fi

echo "== a bad value"
rc=0
"$IOREEL" replay "$d/w.ioreel" --target "$d/t.img" --mode dep --dep-wbt maybe \
	>/dev/null 2>"$d/bad.err" || rc=$?
assert_eq "$rc" 2 "exit status of --dep-wbt maybe"
grep -q "give on" "$d/bad.err" || fail "unclear message: $(cat "$d/bad.err")"
echo "PASS"
