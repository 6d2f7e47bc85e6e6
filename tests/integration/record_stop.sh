#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# How a recording ends: SIGINT, SIGTERM and SIGHUP (the terminal of an ssh session gone) close
# the trace cleanly (all events readable, the counts agree with --json); kill -9 leaves a
# readable trace that lost at most the last flush interval (1 s); a -d device detached stops
# the recorder (exit 1, a message naming it, the trace closed); a full disk (a 1 MiB tmpfs as
# the output) stops the recorder with a clear message, exit 1, and a trace whole up to its last
# flush, its index and counters in. Trace files are mode 0600.
# timeout: 120
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"

dir=$(scratch_dir)
dev=$(make_zram 128)

load() { # SECONDS: 4k random reads and writes on the zram
	fio --name=l --filename="$dev" --direct=1 --ioengine=libaio --rw=randrw --bs=4k \
		--iodepth=8 --size=64M --time_based --runtime="$1" >/dev/null
}

for sig in INT TERM HUP; do
	rec_start "$dir/$sig.ioreel" -d "$dev"
	load 2 || fail "fio"
	rec_stop $sig || fail "SIG$sig: ioreel record exited $?"
	assert_eq "$(stat -c %a "$dir/$sig.ioreel")" 600 "trace file mode"
	n=$(trace_csv "$dir/$sig.ioreel" | tail -n +2 | wc -l)
	assert_eq "$n" "$(json_get "$dir/$sig.ioreel.json" events)" "events readable after SIG$sig"
	[ "$n" -gt 1000 ] || fail "SIG$sig: only $n events"
	assert_eq "$(json_get "$dir/$sig.ioreel.json" dropped)" 0 "dropped (SIG$sig)"
	# ioreel info reads the index and the recorder's stats from the trailer.
	"$IOREEL" info "$dir/$sig.ioreel" --json >"$dir/$sig.info" || fail "ioreel info (SIG$sig)"
	assert_eq "$(json_get "$dir/$sig.info" index)" True "index after SIG$sig"
	assert_eq "$(json_get "$dir/$sig.info" events)" "$n" "events in ioreel info (SIG$sig)"
	assert_eq "$(json_get "$dir/$sig.info" dropped)" 0 "dropped in ioreel info (SIG$sig)"
done

# kill -9 while I/O runs: what was flushed is readable, at most ~1 s is lost.
rec_start "$dir/k9.ioreel" -d "$dev"
load 4 &
lp=$!
sleep 3
kill_ns=$(date +%s%N)
kill -9 "$REC_PID"
wait "$REC_PID" 2>/dev/null
wait $lp
"$IOREEL" convert "$dir/k9.ioreel" - --to csv --salvage >"$dir/k9.csv" 2>"$dir/k9.err" ||
	fail "trace after kill -9 unreadable: $(cat "$dir/k9.err")"
python3 - "$dir/k9.csv" "$kill_ns" <<'PY' || fail "kill -9 lost more than the flush interval"
import csv, re, sys
text = open(sys.argv[1]).read().splitlines()
genesis = int(re.search(r"genesis_realtime_ns=(\d+)", text[0]).group(1))
rows = list(csv.DictReader(l for l in text if not l.startswith("#")))
last = max(int(r["queue_ns"]) for r in rows)
lost = (int(sys.argv[2]) - genesis - last) / 1e9
print(f"{len(rows)} events readable after kill -9; the last was queued {lost:.2f} s before it")
# the trace is flushed once a second; the load ran 3 s before the kill, so anything under that
# shows periodic flushing (a tighter bound flaked when the machine was busy)
sys.exit(0 if rows and lost < 2.9 else 1)
PY
"$IOREEL" info "$dir/k9.ioreel" --json >"$dir/k9.info" || fail "ioreel info after kill -9"
assert_eq "$(json_get "$dir/k9.info" index)" False "index after kill -9"

# A -d device detached mid-recording: its number may name another device next (a loop device
# attached to another file), whose I/O would be taken for the first one's. The recorder says
# so, exits 1, and the trace holds the I/O before, closed with its index.
truncate -s 64M "$dir/gone.img"
gdev=$(losetup -f --show "$dir/gone.img") || fail "losetup"
# detached below; at exit only if it is still ours (the number may be another test's by then)
cleanup_push "[ \"\$(losetup -n -O BACK-FILE '$gdev')\" = '$dir/gone.img' ] && losetup -d '$gdev'"
rec_start "$dir/gone.ioreel" -d "$gdev"
dd if=/dev/zero of="$gdev" bs=4k count=100 oflag=direct 2>/dev/null || fail "dd onto $gdev"
losetup -d "$gdev" || fail "losetup -d $gdev"
for ((i = 0; i < 100; i++)); do kill -0 "$REC_PID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$REC_PID" 2>/dev/null; then
	rec_stop
	fail "record went on 10 s after its device was detached: $(cat "$dir/gone.ioreel.err")"
fi
rc=0
wait "$REC_PID" || rc=$?
cat "$dir/gone.ioreel.err"
assert_eq "$rc" 1 "exit status when the recorded device was detached"
grep -q "$(basename "$gdev") .* was detached or changed .*the recording stopped there" \
	"$dir/gone.ioreel.err" || fail "no clear message for the detached device (above)"
assert_eq "$(json_get "$dir/gone.ioreel.json" ok)" False "ok in --json (detached)"
"$IOREEL" info "$dir/gone.ioreel" --json >"$dir/gone.info" || fail "ioreel info (detached)"
assert_eq "$(json_get "$dir/gone.info" index)" True "index after the device was detached"
assert_eq "$(json_get "$dir/gone.info" events)" 100 "events before the device was detached"

# Disk full: the output on a 1 MiB tmpfs fills within a second of 4k I/O.
mkdir "$dir/tiny"
mount -t tmpfs -o size=1m tmpfs "$dir/tiny" || fail "mount tmpfs"
cleanup_push "umount -l '$dir/tiny'"
rec_start "$dir/tiny/full.ioreel" -d "$dev"
load 6 &
lp=$!
for ((i = 0; i < 100; i++)); do kill -0 "$REC_PID" 2>/dev/null || break; sleep 0.1; done
rc=0
wait "$REC_PID" || rc=$?
pkill -P $lp 2>/dev/null; kill $lp 2>/dev/null
wait $lp 2>/dev/null
assert_eq "$rc" 1 "exit status when the disk is full"
grep -q "No space left on device" "$dir/tiny/full.ioreel.err" ||
	fail "no clear disk-full message: $(cat "$dir/tiny/full.ioreel.err")"
cat "$dir/tiny/full.ioreel.err"
# the frame that did not fit with the trailer is not written, and the counters and the index go
# in the room the writer held beyond the file's end (tests/unit/test_trace_full.c tries every
# kind of frame failing): the trace reads whole, and the events not written are counted as
# dropped (unwritten)
"$IOREEL" info "$dir/tiny/full.ioreel" --json >"$dir/full.info" 2>"$dir/full.err" ||
	fail "ioreel info of the disk-full trace: $(cat "$dir/full.err")"
python3 - "$dir/full.info" "$dir/tiny/full.ioreel.err" <<'PY' || fail "the disk-full trace (above)"
import json, re, sys
i = json.load(open(sys.argv[1]))
m = re.search(r"holds the (\d+) events written before, (\d+) were not written", open(sys.argv[2]).read())
print("disk-full trace: index %s, %d events, dropped %d, unwritten %s; the recorder said %s" %
      (i["index"], i["events"], i["dropped"], i.get("dropped_unwritten"), m and m.groups()))
assert m and i["index"] is True and i["events"] == int(m.group(1)) and i["events"] > 100, i
assert i["dropped_unwritten"] == int(m.group(2)) > 0 and i["dropped"] >= i["dropped_unwritten"], i
PY

# The same at file level: fio's calls on a tmpfs of its own, the trace on the full one
rm -f "$dir/tiny/full.ioreel"
mkdir "$dir/data"
mount -t tmpfs -o size=64m tmpfs "$dir/data" || fail "mount tmpfs"
cleanup_push "umount -l '$dir/data'"
"$IOREEL" record --level file --under "$dir/data" -o "$dir/tiny/f.ioreel" -q 2>"$dir/f.err" &
fp=$!
cleanup_kill "$fp"
sleep 1.5 # attached (a recorder that is not yet just misses calls; the trace fills anyway)
fio --name=f --directory="$dir/data" --rw=randrw --bs=4k --size=16m --time_based --runtime=30 \
	--ioengine=psync >/dev/null 2>&1 &
lp=$!
for ((i = 0; i < 250; i++)); do kill -0 "$fp" 2>/dev/null || break; sleep 0.1; done
rc=0
wait "$fp" || rc=$?
kill $lp 2>/dev/null
wait $lp 2>/dev/null
cat "$dir/f.err"
assert_eq "$rc" 1 "exit status when the disk is full (file level)"
"$IOREEL" info "$dir/tiny/f.ioreel" --json >"$dir/f.info" 2>"$dir/full.err" ||
	fail "ioreel info of the disk-full file-level trace: $(cat "$dir/full.err")"
python3 - "$dir/f.info" "$dir/f.err" <<'PY' || fail "the disk-full file-level trace (above)"
import json, re, sys
i = json.load(open(sys.argv[1]))
m = re.search(r"holds the (\d+) events written before, (\d+) were not written", open(sys.argv[2]).read())
assert m and i["index"] is True and i["events"] == int(m.group(1)) > 100, (i, m)
assert i["counters"]["dropped_unwritten"] == int(m.group(2)) > 0, i
PY
echo PASS
