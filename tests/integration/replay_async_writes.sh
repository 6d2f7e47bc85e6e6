#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# timeout: 120
# --async-writes writeback (replay/engine/engine.h, ENGINE_F_WRITEBACK): the writes a trace
# holds without a sync flag (the kernel's writeback: a flusher kworker's, a database's
# sync_file_range) are made through the page cache and written back at once, so the device
# sees them as the recording did: async (no REQ_SYNC), under its writeback throttling; the
# sync writes (O_DIRECT, a log's FUA and preflush writes) stay O_DIRECT. A trace of 200 async
# writes by a kworker and 100 sync writes each followed by a flush, replayed onto a loop device
# recorded at its request level, with writeback and with the default (direct): every write
# reaches the device once, at its offset and length, the async ones without the sync flag with
# writeback (none swept up by a flush: io_uring's flush of one byte leaves the page cache
# alone) and with it without; the report counts them; the device holds the bytes. Other
# engines are refused (their flush, fdatasync, would write back and wait for the whole device).
# Function, not timing.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
. "$(dirname "$0")/record_lib.bash"
need_root
need_cmd python3
d=$(scratch_dir)
dev=$(make_loop 64)

csv_trace "$d/t.csv" "$d/t.ioreel" <<'PY'
def io(q, op, off, flags, comm, length=16384):
    rows.append((q * 1000, "", (q + 40) * 1000, "dev0", off, length, op, flags, 0, 7, 7, comm,
                 0, 0))
for k in range(200):                     # writeback: async, 16 KiB, from 16 MiB on, spaced
    io(100 * k, "write", (16 << 20) + 32768 * k, "kthread", "kworker/u8:1")
for k in range(100):                     # a log: sync writes, each followed by a flush
    io(100 * k + 50, "write", 16384 * k, "sync", "postgres", 8192)
    io(100 * k + 90, "flush", 0, "sync", "postgres", 0)
PY

for run in direct writeback; do
	how=$run
	rec_start "$d/obs-$run.ioreel" -d "$dev"
	"$IOREEL" replay "$d/t.ioreel" --target "$dev" --allow-writes --force --engine io_uring \
		--async-writes "$how" --json >"$d/$run.json" 2>"$d/$run.err" ||
		{ rec_stop; fail "replay $run: $(cat "$d/$run.err")"; }
	rec_stop || fail "record during $run exited $?"
	trace_csv "$d/obs-$run.ioreel" >"$d/obs-$run.csv"
	python3 - "$d/obs-$run.csv" "$d/$run.json" "$how" "$run" <<'PY' || fail "$run (above)"
import csv, json, sys
obs, rep, how, run = sys.argv[1:5]
rows = [r for r in csv.DictReader(l for l in open(obs) if not l.startswith("#"))]
w = [r for r in rows if r["op"] == "write"]
wb = sorted((int(r["offset"]), int(r["length"])) for r in w if int(r["offset"]) >= 16 << 20)
log = sorted((int(r["offset"]), int(r["length"])) for r in w if int(r["offset"]) < 16 << 20)
wb_sync = sum(1 for r in w if int(r["offset"]) >= 16 << 20 and "sync" in r["flags"].split("|"))
log_sync = sum(1 for r in w if int(r["offset"]) < 16 << 20 and "sync" in r["flags"].split("|"))
flushes = sum(1 for r in rows if r["op"] == "flush")
f = json.load(open(rep))["fidelity"]
print("%s: %d async writes at the device (%d with the sync flag), %d sync (%d), %d flushes, "
      "report %d made as writeback" % (run, len(wb), wb_sync, len(log), log_sync, flushes,
                                       f["writeback_writes"]))
bad = []
if flushes != 100:
    bad.append("a flush at the device for each of the 100 replayed")
# the device may split or merge nothing here: 16 KiB and 8 KiB writes, spaced apart
if wb != [((16 << 20) + 32768 * k, 16384) for k in range(200)]:
    bad.append("the async writes at the device, once each at their offsets")
if log != [(16384 * k, 8192) for k in range(100)] or log_sync != 100:
    bad.append("the sync writes at the device, once each, with the sync flag")
if how == "writeback" and (wb_sync != 0 or f["writeback_writes"] != 200):
    bad.append("writeback: the async writes without the sync flag, counted")
if how == "direct" and (wb_sync != 200 or f["writeback_writes"] != 0):
    bad.append("direct: every write O_DIRECT (sync)")
print("ok" if not bad else "WRONG: " + "; ".join(bad))
sys.exit(1 if bad else 0)
PY
done
# the bytes went to the device through its page cache: a written range is no longer zeros
python3 - "$dev" <<'PY' || fail "the device holds no data where the async writes went"
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
import mmap
buf = mmap.mmap(-1, 16384)
os.preadv(fd, [buf], 16 << 20)
sys.exit(0 if any(buf) else 1)
PY
# a closed loop at depth 128 of writes without flags (a synthesized trace's: all made as
# writeback), two ring entries each where the ring has one per I/O in flight: none refused
"$IOREEL" synth --rw randwrite --bs 4k --size 32m --number-ios 4096 --iodepth 128 \
	-o "$d/deep.ioreel" >/dev/null 2>&1 || fail "synth deep.ioreel"
"$IOREEL" replay "$d/deep.ioreel" --target "$dev" --allow-writes --force \
	--async-writes writeback --json >"$d/deep.json" 2>"$d/deep.err" ||
	fail "replay deep.ioreel: $(cat "$d/deep.err")"
python3 - "$d/deep.json" <<'PY' || fail "depth 128 as writeback (above)"
import json, sys
f = json.load(open(sys.argv[1]))["fidelity"]
print("depth 128: %d I/Os, %d as writeback, %d errors, %d in flight at most" %
      (f["ios"], f["writeback_writes"], f["errors"], f["max_inflight"]))
sys.exit(0 if f["ios"] == 4096 and f["writeback_writes"] == 4096 and not f["errors"] else 1)
PY
assert_status 2 "$IOREEL" replay "$d/t.ioreel" --target "$dev" --allow-writes --force \
	--async-writes sometimes
for eng in psync libaio threads; do
	assert_status 2 "$IOREEL" replay "$d/t.ioreel" --target "$dev" --allow-writes --force \
		--async-writes writeback --engine $eng
done
echo PASS
