#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ioreel synth end to end: usage errors exit 2 with one line, the issue's fio job files import
# (unmodeled options in ONE warning line), presets generate, --seed gives identical files, and
# the traces read back (ioreel convert -> CSV) have the requested mix, depth, skew and timing.
# timeout: 120
. "$(dirname "$0")/../lib.sh"
need_cmd python3
d=$(scratch_dir)
jobs=$TESTS_DIR/data/fio-jobs

output_has 'fio-job' "$IOREEL" synth --help || fail "--help does not describe --fio-job"

# Usage errors: exit 2, one clear line on stderr.
bad() {
	local out rc
	out=$("$IOREEL" synth "$@" 2>&1 >/dev/null); rc=$?
	[ $rc = 2 ] || fail "synth $* exited $rc, expected 2 ($out)"
	[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "synth $*: more than one line: $out"
	echo "  usage error ok: $out"
}
bad --rw sideways --size 1m -o "$d/x.ioreel"
bad --rw randread --bs lots --size 1m -o "$d/x.ioreel"
bad --rw randread --random-distribution zipf:1 --size 1m -o "$d/x.ioreel"
bad --frobnicate 3 --size 1m -o "$d/x.ioreel"
bad --rw randread --size 1m
bad --rw randread -o "$d/x.ioreel"
bad --preset nope -o "$d/x.ioreel"
bad --fio-job "$jobs/innodb.fio" --section nope -o "$d/x.ioreel"
bad --preset innodb-16k --rwmixread 50 -o "$d/x.ioreel"
bad --rw randwrite --size 1m --verify nan -o "$d/x.ioreel"
bad --rw randread --size 1m --name '' -o "$d/x.ioreel"
bad --rw randread --size 1m --name $'sd\x01a' -o "$d/x.ioreel"
bad --rw randread --size 1m -o "$d/x.ioreel" --bogus
# a runtime in the wrong unit: refused at once, not generated until the disk is full
bad --rw read --size 1m --time_based --runtime 1000000h --rate-iops 1000000 -o "$d/x.ioreel"
[ -e "$d/x.ioreel" ] && fail "a failed run left $d/x.ioreel behind"
# --check (what ioreel study runs on each workload first): the same refusals, nothing written
bad --preset nope --check
bad --fio-job "$jobs/innodb.fio" --section nope --check -o "$d/x.ioreel"
bad --preset 4k-randread --size 1m --numjobs 0 --check
"$IOREEL" synth --preset 4k-randread --size 1m --check -o "$d/x.ioreel" >"$d/out" 2>&1 ||
	fail "synth --check of a good command: $(cat "$d/out")"
[ ! -s "$d/out" ] && [ ! -e "$d/x.ioreel" ] || fail "synth --check said or wrote something"

# csv FILE.ioreel -> FILE.csv (header comment dropped) via the converter
csv() { "$IOREEL" convert "$1" "${1%.ioreel}.csv" >/dev/null || fail "convert $1"; }

# --rw x and --rw=x are the same command; --seed makes identical files. (--norandommap: with
# fio's random map, mixed sizes are cut short as the map fills, as in fio; that is checked
# against fio itself in synth_fio_grammar.sh.)
"$IOREEL" synth --rw=randrw --rwmixread=70 --bssplit=4k/50:16k/30:64k/20 --size=64m \
	--numjobs=2 --iodepth=16 --fsync=8 --seed=5 --norandommap -o "$d/a.ioreel" >/dev/null || fail "synth a"
"$IOREEL" synth --rw randrw --rwmixread 70 --bssplit 4k/50:16k/30:64k/20 --size 64m \
	--numjobs 2 --iodepth 16 --fsync 8 --seed 5 --norandommap -o "$d/b.ioreel" >/dev/null || fail "synth b"
"$IOREEL" synth --rw randrw --rwmixread 70 --bssplit 4k/50:16k/30:64k/20 --size 64m \
	--numjobs 2 --iodepth 16 --fsync 8 --seed 6 --norandommap -o "$d/c.ioreel" >/dev/null || fail "synth c"
cmp -s "$d/a.ioreel" "$d/b.ioreel" && echo "  --seed: identical files" ||
	echo "  note: --rw=x and --rw x runs differ only in the recorded command line"
"$IOREEL" synth --rw randrw --rwmixread 70 --bssplit 4k/50:16k/30:64k/20 --size 64m \
	--numjobs 2 --iodepth 16 --fsync 8 --seed 5 --norandommap -o "$d/b2.ioreel" >/dev/null || fail "synth b2"
cmp -s "$d/b.ioreel" "$d/b2.ioreel" || fail "same command and seed gave different files"
cmp -s "$d/b.ioreel" "$d/c.ioreel" && fail "another seed gave the same file"
csv "$d/a.ioreel"; csv "$d/b.ioreel"
python3 - "$d/a.csv" "$d/b.csv" <<'PY' || fail "randrw70 trace statistics"
import csv, sys
def rows(p):
    f = open(p); f.readline()
    return list(csv.DictReader(f))
a, b = rows(sys.argv[1]), rows(sys.argv[2])
strip = lambda r: [(x['offset'], x['length'], x['op'], x['stream']) for x in r]
assert strip(a) == strip(b), "--rw=x and --rw x generated different events"
data = [x for x in a if x['op'] != 'flush']
reads = sum(x['op'] == 'read' for x in data) / len(data)
sizes = {s: sum(x['length'] == s for x in data) / len(data) for s in ('4096', '16384', '65536')}
print(f"  randrw70: {len(data)} data I/Os, reads {reads:.3f}, bs shares {sizes}")
assert abs(reads - 0.70) < 0.02, reads
assert abs(sizes['4096'] - .5) < .02 and abs(sizes['16384'] - .3) < .02 and abs(sizes['65536'] - .2) < .02
assert all(int(x['offset']) % 4096 == 0 for x in data), "alignment"
assert all(int(x['offset']) + int(x['length']) <= 64 << 20 for x in data), "range"
assert {x['stream'] for x in a} == {'0', '1'}
for s in '01':
    w = 0
    for x in (y for y in a if y['stream'] == s):
        if x['op'] == 'write': w += 1
        elif x['op'] == 'flush':
            assert w == 8, f"flush after {w} writes"; w = 0
assert all(x['issue_ns'] == '' and x['complete_ns'] == '' for x in a), "closed: no issue/complete"
PY

# The issue's job files import (counts overridden on the command line to keep this quick).
out=$("$IOREEL" synth --fio-job "$jobs/innodb.fio" --number-ios 20 --json -o "$d/inno.ioreel" 2>"$d/err") ||
	fail "innodb.fio: $(cat "$d/err")"
grep -q 'warning' "$d/err" && fail "innodb.fio has nothing unmodeled, yet: $(cat "$d/err")"
grep -q 'note:.*directory' "$d/err" || fail "directory not noted: $(cat "$d/err")"
python3 -c '
import json, sys
t = json.loads(sys.argv[1])["traces"][0]
assert t["mode"] == "closed" and t["streams"] == 128 and set(t["depth"]) == {1}, t
assert t["time_based"] and t["runtime_ns"] == 120 * 10**9 and t["reads"] == 128 * 20, t
print("  innodb.fio: 128 psync streams of depth 1, time_based 120 s")' "$out" || fail "innodb.fio meta"
out=$("$IOREEL" synth --fio-job "$jobs/4k_randwrite.fio" --number-ios 100 --json -o "$d/rw4k.ioreel" 2>"$d/err") ||
	fail "4k_randwrite.fio: $(cat "$d/err")"
python3 -c '
import json, sys
t = json.loads(sys.argv[1])["traces"][0]
assert t["streams"] == 8 and set(t["depth"]) == {32} and t["writes"] == 800, t
# no filename: fio gives each of the 8 clones a 20 GiB file of its own
assert t["device_size"] == 8 * (20 << 30), t' "$out" || fail "4k_randwrite.fio meta: $out"
"$IOREEL" synth --fio-job "$jobs/4m_seq_read.fio" --size 64m -o "$d/seq.ioreel" >/dev/null 2>&1 ||
	fail "4m_seq_read.fio"
"$IOREEL" synth --fio-job "$jobs/mixed-jobs.fio" -o "$d/mixed.ioreel" >/dev/null 2>"$d/err" ||
	fail "mixed-jobs.fio: $(cat "$d/err")"
grep -q warning "$d/err" && fail "mixed-jobs.fio: $(cat "$d/err")"
csv "$d/mixed.ioreel"
python3 - "$d/mixed.csv" <<'PY' || fail "mixed-jobs.fio trace"
import csv, sys, collections
f = open(sys.argv[1]); f.readline()
r = list(csv.DictReader(f))
by = collections.defaultdict(list)
for x in r:
    by[x['stream']].append(x)
assert set(by) == {'0', '1', '2'}, set(by)
g = 1 << 30
assert all(int(x['offset']) < g for x in by['0'] if x['op'] != 'flush'), "clone 0 in [0, 1g)"
assert all(g <= int(x['offset']) < 2 * g for x in by['1'] if x['op'] != 'flush'), "offset_increment"
log = by['2']
w = [x for x in log if x['op'] == 'write']
rd = [x for x in log if x['op'] == 'read']
assert len(w) == len(rd) == 8192, (len(w), len(rd))
assert [x['offset'] for x in w] == [x['offset'] for x in rd], "verify reads in write order"
assert all('fua' in x['flags'] for x in w), "sync=1 writes are FUA"
print(f"  mixed-jobs.fio: offset_increment clone at 1 GiB, verify read-back of {len(rd)} writes")
PY

# Zipf skew read back from the trace: the hottest 10 % of blocks get the theoretical share.
"$IOREEL" synth --rw randread --size 40m --io_size 10g --number-ios 300000 \
	--random-distribution zipf:1.2 \
	--seed 3 -o "$d/zipf.ioreel" >/dev/null || fail "synth zipf"
csv "$d/zipf.ioreel"
python3 - "$d/zipf.csv" <<'PY' || fail "zipf skew"
import csv, sys, collections
f = open(sys.argv[1]); f.readline()
hits = collections.Counter(int(x['offset']) // 4096 for x in csv.DictReader(f))
n, theta = 10240, 1.2
top = sum(sorted(hits.values(), reverse=True)[: n // 10]) / sum(hits.values())
h = [k ** -theta for k in range(1, n + 1)]
theory = sum(h[: n // 10]) / sum(h)
print(f"  zipf:1.2 top 10% of blocks: {top:.4f} of I/Os, theory {theory:.4f}")
assert abs(top - theory) < 0.02
PY

# A rate makes a timed trace: Poisson arrivals over the runtime.
"$IOREEL" synth --rw randread --size 64m --rate-iops 2000 --arrivals poisson --runtime 5 \
	--time_based -o "$d/timed.ioreel" >/dev/null || fail "synth timed"
csv "$d/timed.ioreel"
python3 - "$d/timed.csv" <<'PY' || fail "timed trace"
import csv, sys
f = open(sys.argv[1]); f.readline()
t = [int(x['queue_ns']) for x in csv.DictReader(f)]
assert t == sorted(t) and t[-1] < 5e9, "arrivals sorted and within the runtime"
print(f"  poisson 2000/s for 5 s: {len(t)} arrivals (expected 10000 +- 400)")
assert abs(len(t) - 10000) < 400
PY

# Every preset generates (small areas to stay quick); cdm writes one trace per test.
for p in 4k-randread 4k-randwrite 4k-randrw70 4m-seqread 4m-seqwrite innodb-16k; do
	"$IOREEL" synth --preset $p --size 64m -o "$d/$p.ioreel" >/dev/null || fail "preset $p"
done
"$IOREEL" synth --preset cdm --size 64m --rw write -o "$d/cdm.ioreel" >/dev/null || fail "preset cdm"
for t in seq1m-q8t1 seq1m-q1t1 rnd4k-q32t1 rnd4k-q1t1; do
	[ -s "$d/cdm-$t.ioreel" ] || fail "cdm did not write cdm-$t.ioreel"
done
csv "$d/cdm-rnd4k-q32t1.ioreel"
python3 - "$d/cdm-rnd4k-q32t1.csv" <<'PY' || fail "cdm 4K Q32T1 write"
import csv, sys
f = open(sys.argv[1]); f.readline()
r = list(csv.DictReader(f))
assert len(r) == 16384 and all(x['op'] == 'write' and x['length'] == '4096' for x in r)
assert len({x['offset'] for x in r}) == 16384, "random map: each block once"
PY
"$IOREEL" synth --list-presets --json | python3 -c 'import json,sys; assert len(json.load(sys.stdin)["presets"]) == 7' ||
	fail "--list-presets --json"
# --fio-job -: the job file from standard input, as `fio -` reads it
printf '[j]\nrw=randread\nsize=1m\nbs=4k\n' |
	"$IOREEL" synth --fio-job - -o "$d/stdin.ioreel" >/dev/null || fail "synth --fio-job -"
"$IOREEL" info "$d/stdin.ioreel" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); c=d["events"]; print("  --fio-job -:", c, "I/Os"); sys.exit(c != 256)' ||
	fail "--fio-job - did not make 256 reads"
# a named pipe nobody writes: the open waits for a writer, and Ctrl-C ends the wait, saying so
mkfifo "$d/pipe.fio"
"$IOREEL" synth --fio-job "$d/pipe.fio" -o "$d/never.ioreel" >/dev/null 2>"$d/err" &
pid=$!
sleep 0.5
interrupt_ends $pid "synth of a writerless pipe"
grep -q "pipe.fio: interrupted while waiting for the pipe's writer" "$d/err" || fail "pipe: $(cat "$d/err")"
[ ! -e "$d/never.ioreel" ] || fail "synth of a writerless pipe left an output"

# Job files fuzz_fiojob (tests/fuzz/fuzz_fiojob.c) found wrong, minimized. A refusal exits 2 (a
# crash would be 128 + the signal) with one line naming the file and line.
# fuzzed_ok NAME TEXT: the job file synthesizes; fuzzed_refused NAME PATTERN TEXT: it is refused
fuzzed_ok() {
	printf '%b' "$2" >"$d/$1.fio"
	"$IOREEL" synth --fio-job "$d/$1.fio" --number-ios 200 -o "$d/$1.ioreel" >/dev/null \
		2>"$d/$1.err" || fail "$1.fio: exit $?: $(cat "$d/$1.err")"
}
fuzzed_refused() {
	local rc
	printf '%b' "$3" >"$d/$1.fio"
	"$IOREEL" synth --fio-job "$d/$1.fio" --number-ios 200 -o "$d/$1.ioreel" >/dev/null \
		2>"$d/$1.err"; rc=$?
	[ $rc = 2 ] || fail "$1.fio: exit $rc, expected 2: $(cat "$d/$1.err")"
	grep -q -- "$2" "$d/$1.err" || fail "$1.fio: expected '$2' in: $(cat "$d/$1.err")"
	[ "$(wc -l <"$d/$1.err")" = 1 ] || fail "$1.fio: more than one line: $(cat "$d/$1.err")"
	[ ! -e "$d/$1.ioreel" ] || fail "$1.fio: refused, yet wrote $d/$1.ioreel"
	echo "  refused: $(cat "$d/$1.err")"
}
# bsrange's value was copied onto itself (strcpy with overlapping buffers, undefined)
fuzzed_ok bsrange '[r]\nrw=randrw\nbsrange=512-64k,4k-8k\nsize=64m\n'
csv "$d/bsrange.ioreel"
python3 - "$d/bsrange.csv" <<'PY' || fail "bsrange per direction"
import csv, sys
f = open(sys.argv[1]); f.readline()
r = list(csv.DictReader(f))
w = [int(x['length']) for x in r if x['op'] == 'write']
assert w and all(4096 <= n <= 8192 for n in w), sorted(set(w))
PY
# a direction's range of 128 characters or more (leading zeros) was skipped, leaving bs=4k
fuzzed_ok bsrange_long "[r]\\nrw=write\\nbsrange=1k-4k,$(printf '0%.0s' {1..130})1k-8k\\nsize=64m\\n"
csv "$d/bsrange_long.ioreel"
grep -q ',8192,write,' "$d/bsrange_long.csv" || fail "bsrange's long write range was skipped"
# runtime=1e10 s was read as 2^63 ns (past llround's range): refused as too long
fuzzed_refused runtime "t.*runtime.fio:5: runtime=10000000000: expected a time.*at most 292 years" \
	'[t]\nrw=read\nsize=1m\ntime_based\nruntime=10000000000\n'
# 1024 clones of 2^28 blocks: a random map each asked 32 GiB (ulimit -v: "Cannot allocate
# memory" where the OOM killer came); the maps hold 512 MiB together, the rest permute
(ulimit -v 1500000
 fuzzed_ok maps '[m]\nrw=randread\nbs=512\nsize=128g\nnumjobs=1024\n'
 # a generator per file, all made at the start: 9 GiB for nrfiles=1048576, 200 I/Os
 fuzzed_ok files '[f]\nrw=randread\nbs=4k\nfilesize=4k\nnrfiles=1048576\n'
 # 2^30 files in the file table: refused at once, where it grew until memory ran out
 fuzzed_refused files_cap "job 'f' refused: nrfiles=1048576 x numjobs=1024: 1073741824 files" \
	'[f]\nrw=randread\nbs=4k\nfilesize=4k\nnrfiles=1048576\nnumjobs=1024\n') || exit 1
# which file is next was a scan of every file, per I/O: a pass over 2^18 files took a minute
# (2^17: 16 s), where it takes half a second (timeout: 124 when it hangs)
printf '[q]\nrw=read\nbs=4k\nfilesize=4k\nnrfiles=262144\nfile_service_type=sequential\n' \
	>"$d/nextfile.fio"
timeout 20 "$IOREEL" synth --fio-job "$d/nextfile.fio" -o "$d/nextfile.ioreel" >/dev/null \
	2>"$d/err" || fail "2^18 files: exit $?: $(cat "$d/err")"
echo "synth_cli: ok"
