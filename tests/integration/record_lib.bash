# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Helpers for the record_*.sh tests (sourced after tests/lib.sh; not a test itself).
need_root
need_cmd fio python3
[ -r /sys/kernel/btf/vmlinux ] || skip_kernel "no BTF in /sys/kernel/btf/vmlinux"
"$IOREEL" record --help >/dev/null 2>&1 || fail "ioreel record is not built in $IOREEL"

REC_PID=
# rec_start OUT.ioreel [record options...]: starts the recorder in the background and waits
# until its programs are attached (it says so on stderr). Its JSON goes to OUT.json, its
# stderr to OUT.err.
rec_start() {
	local out=$1 i
	shift
	rm -f "$out" "$out.json" "$out.err"
	"$IOREEL" record -o "$out" --json "$@" >"$out.json" 2>"$out.err" &
	REC_PID=$!
	cleanup_kill "$REC_PID"
	for ((i = 0; i < 200; i++)); do
		grep -q ' level$' "$out.err" 2>/dev/null && return 0
		kill -0 "$REC_PID" 2>/dev/null || { cat "$out.err" >&2; fail "ioreel record exited early"; }
		sleep 0.05
	done
	cat "$out.err" >&2
	fail "ioreel record did not attach within 10 s"
}

# rec_file_workload SCRIPT DIR OUT.ioreel [RECORD OPTIONS...]: runs python3 SCRIPT DIR, which
# makes DIR/ready once its set-up is done and waits for DIR/go; records it at file level
# (--pid, --under DIR, and the options given) from then until it exits, and exports the trace
# to OUT.csv (OUT without .ioreel).
rec_file_workload() {
	local script=$1 dir=$2 out=$3 pid i
	shift 3
	python3 "$script" "$dir" &
	pid=$!
	cleanup_kill "$pid"
	for ((i = 0; i < 200; i++)); do [ -e "$dir/ready" ] && break; sleep 0.05; done
	[ -e "$dir/ready" ] || fail "the workload $script did not start"
	rec_start "$out" --level file --pid "$pid" --under "$dir" "$@"
	touch "$dir/go"
	for ((i = 0; i < 200; i++)); do kill -0 "$REC_PID" 2>/dev/null || break; sleep 0.05; done
	wait "$REC_PID" || fail "record (workload) exited $?: $(cat "$out.err")"
	wait "$pid" || fail "the workload $script failed"
	trace_csv "$out" >"${out%.ioreel}.csv" || fail "cannot export the workload's trace $out"
}

# rec_stop [SIGNAL]: stops the recorder (SIGINT by default) and returns its exit status.
rec_stop() {
	local rc=0
	kill -"${1:-INT}" "$REC_PID"
	wait "$REC_PID" || rc=$?
	return $rc
}

# json_get FILE KEY: one top-level value of the recorder's --json output.
json_get() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2" ||
		fail "cannot read '$2' from $1: $(cat "$1")"
}

# trace_csv TRACE [convert options]: the trace's events as CSV (header line kept).
trace_csv() {
	"$IOREEL" convert "$1" - --to csv "${@:2}" | grep -v '^#'
}

# compare_iolog IOLOG TRACE_CSV DEVNAME: the trace's I/Os on DEVNAME submitted by fio are
# exactly the reads, writes and trims fio issued (same multiset of op, offset, length). I/O by
# other tasks (a kworker's writeback, a device prober) is listed but not compared.
compare_iolog() {
	python3 - "$@" <<'PY'
import collections, csv, sys
iolog, tcsv, dev = sys.argv[1:4]
ops = {"read": "read", "write": "write", "trim": "discard"}
want = collections.Counter()
for line in open(iolog):
    f = line.split()
    if len(f) == 5 and f[2] in ops:
        want[(ops[f[2]], int(f[3]), int(f[4]))] += 1
got = collections.Counter()
for r in csv.DictReader(open(tcsv)):
    if r["dev"] == dev and r["op"] in ("read", "write", "discard"):
        if r["comm"] != "fio":
            print("not by fio:", r["op"], r["offset"], r["length"], r["comm"])
            continue
        got[(r["op"], int(r["offset"]), int(r["length"]))] += 1
missing, extra = want - got, got - want
print(f"fio issued {sum(want.values())} I/Os, the trace holds {sum(got.values())} on {dev}")
if missing or extra:
    print("missing from the trace:", list(missing.items())[:10])
    print("not issued by fio:", list(extra.items())[:10])
    sys.exit(1)
PY
}

# compare_rq IOLOG TRACE_CSV DEVNAME: at request level (after merges) the trace's requests by
# fio on DEVNAME carry exactly the bytes per op fio issued, there are no more of them than
# fio's I/Os (merges only lower the count), and every one has an issue time.
compare_rq() {
	python3 - "$@" <<'PY'
import csv, sys
iolog, tcsv, dev = sys.argv[1:4]
want, n = {"read": 0, "write": 0}, 0
for f in (l.split() for l in open(iolog)):
    if len(f) == 5 and f[2] in want:
        want[f[2]] += int(f[4]); n += 1
got, m, issued = {"read": 0, "write": 0}, 0, 0
for r in csv.DictReader(open(tcsv)):
    if r["dev"] == dev and r["op"] in got and r["comm"] == "fio":
        got[r["op"]] += int(r["length"]); m += 1
        issued += r["issue_ns"] != ""
print(f"fio: {n} I/Os {want}; trace: {m} requests {got}, {issued} with an issue time")
sys.exit(0 if want == got and 0 < m <= n and issued == m else 1)
PY
}

# rec_finish OUT.ioreel [ATTACH]: stops the recorder started by rec_start, exports the trace to
# OUT.ioreel.csv, and checks nothing was dropped (and, given ATTACH, that --json names it).
rec_finish() {
	rec_stop || fail "ioreel record exited $? ($(cat "$1.err"))"
	trace_csv "$1" >"$1.csv" || fail "cannot export $1"
	cat "$1.json"
	assert_eq "$(json_get "$1.json" dropped)" 0 "dropped I/Os ($1)"
	[ -z "${2:-}" ] || assert_eq "$(json_get "$1.json" attach)" "$2" "attach mode ($1)"
}

# fio_zram_mix DEV OUT.iolog IO_SIZE: on DEV, fio's 4 KiB random read/write mix at QD32 for
# IO_SIZE, then 128 random 64 KiB trims; their write_iologs together in OUT.iolog.
fio_zram_mix() {
	fio --name=zmix --filename="$1" --direct=1 --ioengine=libaio --size=128M --rw=randrw \
		--bs=4k --iodepth=32 --io_size="$3" --write_iolog="$2.mix" >/dev/null ||
		fail "fio randrw on $1 failed"
	fio --name=ztrim --filename="$1" --direct=1 --ioengine=libaio --size=64M --rw=randtrim \
		--bs=64k --iodepth=4 --io_size=8M --write_iolog="$2.trim" >/dev/null ||
		fail "fio randtrim on $1 failed"
	cat "$2.mix" "$2.trim" >"$2"
}
