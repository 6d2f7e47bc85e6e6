#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# timeout: 300
# ioreel record --level file against fio's write_iolog: fio through psync, libaio and io_uring
# (plain, registered files, SQPOLL), buffered and O_DIRECT, on three files each, with fsync and
# fdatasync: every read, write, fsync and fdatasync fio logged is in the trace with its file's
# path, offset and length (and nothing more of those by fio), through the interface the engine
# uses, with O_DIRECT in the open flags exactly when asked; nothing dropped.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"

mnt=$(make_fs xfs "$(make_loop 512)")
dir=$mnt/data
mkdir -p "$dir"
out=$(scratch_dir)

# compare_file_iolog IOLOG TRACE_CSV IFACE DIRECT: fio's reads, writes, syncs against the trace.
compare_file_iolog() {
	python3 - "$@" <<'PY'
import collections, csv, sys
iolog, tcsv, iface, direct = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
ops = {"read": "read", "write": "write", "sync": "fsync", "datasync": "fdatasync"}
want, wsync = collections.Counter(), collections.Counter()
for line in open(iolog):
    f = line.split()
    if len(f) >= 3 and f[2] in ops:
        if f[2] in ("read", "write"):
            want[(f[1], ops[f[2]], int(f[3]), int(f[4]))] += 1
        else:
            wsync[(f[1], ops[f[2]])] += 1
got, gsync, bad = collections.Counter(), collections.Counter(), []
for r in csv.DictReader(l for l in open(tcsv) if not l.startswith("#")):
    if r["op"] not in ("read", "write", "fsync", "fdatasync"):
        continue
    if r["op"] in ("read", "write"):
        got[(r["path"], r["op"], int(r["offset"]), int(r["length"]))] += 1
        if r["iface"] != iface:
            bad.append(f"{r['op']} via {r['iface']}, not {iface}")
        if ("O_DIRECT" in r["oflags"]) != direct:
            bad.append(f"{r['op']} with flags {r['oflags']} (direct={direct})")
        if int(r["result"]) != int(r["length"]):
            bad.append(f"{r['op']} of {r['length']} returned {r['result']}")
    else:
        gsync[(r["path"], r["op"])] += 1
n, m = sum(want.values()), sum(got.values())
print(f"fio: {n} reads/writes, {sum(wsync.values())} syncs; trace: {m} reads/writes, "
      f"{sum(gsync.values())} syncs, on {len({k[0] for k in want})} files")
ok = True
for name, a, b in (("reads/writes", want, got), ("syncs", wsync, gsync)):
    if a != b:
        ok = False
        print(f"{name} missing from the trace:", list((a - b).items())[:8])
        print(f"{name} not issued by fio:", list((b - a).items())[:8])
if bad:
    ok = False
    print(len(bad), "wrong:", bad[:8])
if n < 300 or len({k[0] for k in want}) != 3:
    ok = False
    print("too few I/Os or files for the test to mean anything")
sys.exit(0 if ok else 1)
PY
}

run_job() { # NAME IFACE DIRECT fio-args...
	local name=$1 iface=$2 direct=$3
	shift 3
	local common=(--name="$name" --directory="$dir" --nrfiles=3 --filesize=4m --bs=4k
		--file_service_type=random --direct="$direct" --rw=randrw --io_size=3m "$@")
	# the files exist before the recording: fio lays nothing out while recorded
	fio "${common[@]}" --create_only=1 --output=/dev/null || fail "fio $name layout failed"
	rec_start "$out/$name.ioreel" --level file --comm fio --under "$dir"
	fio "${common[@]}" --write_iolog="$out/$name.iolog" --output="$out/$name.fio" ||
		fail "fio $name failed: $(cat "$out/$name.fio")"
	rec_finish "$out/$name.ioreel"
	compare_file_iolog "$out/$name.iolog" "$out/$name.ioreel.csv" "$iface" "$direct" ||
		fail "$name: the trace differs from fio's iolog"
	rm -f "$dir"/*
}

run_job psync_buf syscall 0 --ioengine=psync --fsync=7
run_job psync_dio syscall 1 --ioengine=psync --fdatasync=5
run_job libaio_dio aio 1 --ioengine=libaio --iodepth=8 --fdatasync=9
run_job libaio_buf aio 0 --ioengine=libaio --iodepth=4 --fsync=11
run_job uring_dio uring 1 --ioengine=io_uring --iodepth=8 --fsync=6
run_job uring_buf uring 0 --ioengine=io_uring --iodepth=8 --fdatasync=8
run_job uring_fixed uring 1 --ioengine=io_uring --iodepth=8 --registerfiles=1 --fixedbufs=1 \
	--fdatasync=10
run_job uring_sqpoll uring 1 --ioengine=io_uring --iodepth=8 --sqthread_poll=1 --fsync=12

# The trace describes itself: info reads it as file level, lists the three files.
"$IOREEL" info "$out/uring_sqpoll.ioreel" --files >"$out/info.txt" || fail "info failed"
cat "$out/info.txt"
grep -q 'file level' "$out/info.txt" || fail "info does not say file level"
[ "$(grep -c "$dir/uring_sqpoll" "$out/info.txt")" -ge 3 ] || fail "info --files lacks the files"
echo "PASS"
