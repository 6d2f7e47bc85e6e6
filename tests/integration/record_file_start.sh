#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# timeout: 240
# ioreel record --level file --pid on a process that opened its files before the recording
# started (record_file_workload.py): its descriptors are in the trace as opens at start with
# their paths, positions, sizes and holes; the calls after name those files; O_DIRECT turned on
# with fcntl shows from that call on; fallocate, ftruncate, create, rename and unlink are there;
# and when the process exits the recording ends by itself, cleanly (exit 0, index, nothing
# dropped). The same with each fallback this kernel does not need, forced by
# IOREEL_RECORD_FAULT: files at start from /proc instead of iter/task_file, system calls through
# raw sys_enter/sys_exit instead of the per-syscall tracepoints; and io_uring without its
# tracepoints is counted as uncovered, never silently missed.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"

mnt=$(make_fs ext4 "$(make_loop 128)")
out=$(scratch_dir)
work=$(dirname "$0")/record_file_workload.py

check_trace() { # TRACE.csv INFO.json DIR PID
	python3 - "$@" <<'PY'
import csv, json, sys
tcsv, info, d, pid = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
rows = list(csv.DictReader(l for l in open(tcsv) if not l.startswith("#")))
meta = json.load(open(info))
files = {f["id"]: f for f in meta["file_table"]}
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
def path(r):
    return r["path"]
def find(op, p=None, **kw):
    return [r for r in rows if r["op"] == op and (p is None or path(r) == f"{d}/{p}")
            and all(r[k] == str(v) for k, v in kw.items())]

start = find("open", iface="start")
need({path(r) for r in start} >= {f"{d}/a.dat", f"{d}/b.dat"}, f"opens at start: {start}")
for r in start:
    need(r["pid"] == pid and r["queue_ns"] == "0", f"open at start: {r}")
a = [r for r in start if path(r) == f"{d}/a.dat"]
need(a and a[0]["arg"] == "12345", f"a.dat's position at start: {a}")
byname = {f["path"]: f for f in files.values()}
fa, fb = byname.get(f"{d}/a.dat"), byname.get(f"{d}/b.dat")
need(fa and fa["size"] == 1 << 20 and fa["allocated"] >= 1 << 20, f"a.dat at first sight: {fa}")
need(fb and fb["size"] == 8 << 20 and fb["allocated"] < 8 << 20 and
     fb["data_segments"] == [[0, 65536], [4 << 20, 65536]], f"b.dat, sparse: {fb}")
need(fa and fa["fs"] == "ext4", f"filesystem type: {fa}")
need(find("read", "a.dat", offset=8192, length=4096, result=4096), "pread a.dat")
need(find("write", "a.dat", offset=16384, length=4096, result=4096), "pwrite a.dat")
need(find("fdatasync", "a.dat", result=0), "fdatasync a.dat")
rd = find("read", "a.dat", offset=12345, length=100, result=100)
need(rd and rd[0]["flags"] == "fpos", f"read at the file position: {rd}")
setfl = find("setfl", "b.dat")
need(setfl and int(setfl[0]["aux"]) & 0o40000, f"fcntl(F_SETFL, O_DIRECT): {setfl}")
w = find("write", "b.dat", offset=1 << 20, length=4096, result=4096)
need(w and "O_DIRECT" in w[0]["oflags"], f"O_DIRECT write after fcntl: {w}")
need(all("O_DIRECT" not in r["oflags"] for r in start), "O_DIRECT before the fcntl")
need(find("fsync", "b.dat", result=0), "fsync b.dat")
need(find("fallocate", "b.dat", offset=8 << 20, arg=1 << 20), "fallocate b.dat")
need(find("truncate", "a.dat", offset=2 << 20, result=0), "ftruncate a.dat")
o = find("open", "c.tmp")
need(o and int(o[0]["result"]) >= 0 and "O_CREAT" in o[0]["oflags"], f"open c.tmp: {o}")
need(find("write", "c.tmp", length=100, result=100), "write c.tmp")
ren = find("rename", "c.tmp", result=0)
need(ren and files[int(ren[0]["arg"])]["path"] == f"{d}/c.dat", f"rename c.tmp c.dat: {ren}")
un = find("unlink", result=0)
need(un and o and un[0]["file"] == o[0]["file"], f"unlink of the renamed file: {un}")
need(find("exit", pid=pid), "the process's exit")
need(all(r["pid"] == pid for r in rows), "calls by other processes")
need(all(r["path"].startswith(d) or r["file"] == "0" for r in rows), "files outside --under")
print(f"{len(rows)} calls, {len(files)} files;", "ok" if not bad else "WRONG:")
for b in bad:
    print("  ", b)
sys.exit(1 if bad else 0)
PY
}

run() { # NAME [FAULTS]
	local name=$1 d=$mnt/$1 pid rc=0 i
	mkdir -p "$d"
	python3 "$work" "$d" &
	pid=$!
	cleanup_kill "$pid"
	for ((i = 0; i < 200; i++)); do [ -e "$d/ready" ] && break; sleep 0.05; done
	[ -e "$d/ready" ] || fail "$name: the workload did not start"
	IOREEL_RECORD_FAULT=${2:-} rec_start "$out/$name.ioreel" --level file --pid "$pid" \
		--under "$d"
	touch "$d/go"
	# the recorder stops by itself when the process exits
	for ((i = 0; i < 200; i++)); do kill -0 "$REC_PID" 2>/dev/null || break; sleep 0.05; done
	kill -0 "$REC_PID" 2>/dev/null && fail "$name: still recording after the process exited"
	wait "$REC_PID" || rc=$?
	wait "$pid" || fail "$name: the workload failed"
	cat "$out/$name.ioreel.err" "$out/$name.ioreel.json"
	assert_eq "$rc" 0 "$name: record's exit status"
	assert_eq "$(json_get "$out/$name.ioreel.json" pid_exited)" True "$name: pid_exited"
	assert_eq "$(json_get "$out/$name.ioreel.json" dropped)" 0 "$name: dropped"
	grep -q 'the process exited' "$out/$name.ioreel.err" || fail "$name: no word of the exit"
	trace_csv "$out/$name.ioreel" >"$out/$name.csv" || fail "$name: cannot export"
	"$IOREEL" info --json --files "$out/$name.ioreel" >"$out/$name.info" || fail "$name: info"
	grep -q '"index": true' "$out/$name.info" || fail "$name: the trace has no index"
	check_trace "$out/$name.csv" "$out/$name.info" "$d" "$pid" || fail "$name: wrong trace"
	assert_eq "$(json_get "$out/$name.ioreel.json" uncovered_fadvise_readahead)" 1 \
		"$name: posix_fadvise counted as uncovered"
}

run iter
grep -q '"start_files":"iter"' "$out/iter.ioreel.json" || fail "iter/task_file did not load"
grep -q '"syscalls":"tracepoint"' "$out/iter.ioreel.json" || fail "per-syscall tracepoints not used"
run proc iter
grep -q '"start_files":"proc"' "$out/proc.ioreel.json" || fail "the iter fault was not applied"
run raw sys_tp
grep -q '"syscalls":"raw"' "$out/raw.ioreel.json" || fail "the sys_tp fault was not applied"

# Without the io_uring tracepoints its submissions are counted, not silently missed.
need_cmd fio
IOREEL_RECORD_FAULT=uring rec_start "$out/nouring.ioreel" --level file --comm fio --under "$mnt"
fio --name=u --directory="$mnt" --size=1m --bs=4k --rw=randread --ioengine=io_uring --iodepth=4 \
	--output=/dev/null || fail "fio io_uring failed"
rec_finish "$out/nouring.ioreel"
grep -q '"io_uring":false' "$out/nouring.ioreel.json" || fail "the uring fault was not applied"
n=$(json_get "$out/nouring.ioreel.json" uncovered_uring_untraced)
[ "$n" -ge 256 ] || fail "io_uring submissions counted as uncovered: $n, expected >= 256"
output_has 'uncovered  uring_untraced' "$IOREEL" info "$out/nouring.ioreel" ||
	fail "info does not show what was not covered"
# The verb's own help and usage errors, with --level file first.
output_has '--under DIR' "$IOREEL" record --level file --help || fail "record --level file --help"
assert_status 2 "$IOREEL" record --level file --pid 1
# a PID no process has: refused at once (it recorded nothing and said nothing), both levels
for lv in file rq; do
	"$IOREEL" record --level $lv --pid 2147483646 -o "$out/nopid.ioreel" --duration 1 2>"$out/err"
	[ $? = 2 ] && grep -q -- "--pid 2147483646: no such process" "$out/err" ||
		fail "record --level $lv --pid of no process: $(cat "$out/err")"
	[ ! -e "$out/nopid.ioreel" ] || fail "a refused --pid left a trace"
done
output_has 'level file --help' "$IOREEL" record --help || fail "record --help does not mention --level file"

# Block-level readers refuse a file-level trace, saying what it is; convert, info and analyze
# read it (analyze: replay_file_root.sh).
t=$out/iter.ioreel
for verb in "replay $t --target $out/x.img --size 1m" "convert $t $out/x.iolog"; do
	# shellcheck disable=SC2086
	"$IOREEL" $verb >"$out/refused.txt" 2>&1 && fail "ioreel $verb accepted a file-level trace"
	grep -q 'file-level trace' "$out/refused.txt" || fail "ioreel $verb: $(cat "$out/refused.txt")"
done
"$IOREEL" convert "$t" "$out/calls.json" --to json || fail "convert to json lines"
python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$out/calls.json" ||
	fail "convert wrote bad JSON lines"
"$IOREEL" convert "$t" "$out/copy.ioreel" || fail "convert to .ioreel"
cmp <("$IOREEL" convert "$t" - --to csv 2>/dev/null) \
	<("$IOREEL" convert "$out/copy.ioreel" - --to csv 2>/dev/null) || fail "the copy differs"
echo "PASS"
