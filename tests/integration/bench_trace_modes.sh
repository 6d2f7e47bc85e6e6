#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Issue 21, bench: --trace with the default modes on a synthesized or imported trace gives its
# timed row and skips dep with a note (W7; it failed with no table); a closed-loop trace gets
# one closed-loop row, and --mode timed or dep on it is refused (W8: IOPS 26549270, CPU%
# 72193.8); explicit --mode dep on a trace it cannot use is refused in bench's own words; no
# hint names an option bench lacks (--dep-fallback, --number-ios, replay's --size); CPU% stays
# within what the cores can give; --html never names an input, is written whole or not at all;
# a single-valued option given twice with two values is refused; stdout errors are exit 1 (W4);
# a file-level trace is refused, with what to run instead.
# timeout: 120
. "$(dirname "$0")/../lib.sh"
need_cmd python3
d=$(scratch_dir)
cd "$d" || fail "cd"
truncate -s 64M t.img
"$IOREEL" synth --rw randread --size 32m --rate-iops 2000 --runtime 1 -o S.ioreel >/dev/null ||
	fail "synth timed"
"$IOREEL" synth --rw randread --size 32m --number-ios 2000 --iodepth 4 -o C.ioreel >/dev/null ||
	fail "synth closed"
python3 - <<'PY' || fail "CSV"
with open("imp.csv", "w") as f:
    f.write("queue_ns,issue_ns,complete_ns,dev,offset,length,op\n")
    for i in range(1000):
        t = i * 500000
        f.write("%d,%d,%d,sdb,%d,4096,read\n" % (t, t + 1000, t + 90000, (i * 7919 % 8192) * 4096))
PY
"$IOREEL" convert imp.csv I.ioreel >/dev/null 2>&1 || fail "convert"
ncpu=$(nproc)

# W7: timed row kept, dep skipped with a note, for a synthesized and an imported trace
for t in S I; do
	"$IOREEL" bench --trace $t.ioreel --target t.img --no-prefill --json >$t.json 2>err ||
		fail "bench --trace $t.ioreel: $(cat err)"
	grep -q "note: no dep row for $t.ioreel: .* no completion time\|note: no dep row for $t.ioreel: no I/O has a thread id" err ||
		fail "$t: no note: $(cat err)"
	grep -q -- "--dep-fallback" err && fail "$t: a hint bench cannot take: $(cat err)"
	python3 - $t.json $t "$ncpu" <<'PY' || fail "$t rows: $(cat $t.json)"
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert [x["pattern"] for x in r] == [sys.argv[2] + ".ioreel timed"], r
assert r[0]["ios"] > 0 and 0 <= r[0]["cpu_pct"] <= 100 * int(sys.argv[3]) + 10, r
PY
done
cp S.ioreel 'q"&.ioreel'
"$IOREEL" bench --trace 'q"&.ioreel' --target t.img --no-prefill --json >q.json 2>err ||
	fail "a trace named with a quote: $(cat err)"
python3 - <<'PY' || fail "JSON: $(cat q.json)"
import json
r = json.load(open("q.json"))["results"]
assert r[0]["pattern"] == 'q"&.ioreel timed', r
PY
rm 'q"&.ioreel'
output_has "S.ioreel timed" "$IOREEL" bench --trace S.ioreel --target t.img --no-prefill ||
	fail "no table"

# W8: a closed-loop trace: one closed row by default; timed and dep refused
"$IOREEL" bench --trace C.ioreel --target t.img --no-prefill --json >c.json 2>err ||
	fail "closed-loop trace: $(cat err)"
grep -q "note: C.ioreel is closed-loop" err || fail "no note: $(cat err)"
python3 - c.json "$ncpu" <<'PY' || fail "closed rows: $(cat c.json)"
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert [x["pattern"] for x in r] == ["C.ioreel closed"], r
assert r[0]["ios"] == 2000 and 0 <= r[0]["cpu_pct"] <= 100 * int(sys.argv[2]) + 10, r
PY
for m in timed dep; do
	assert_status 2 "$IOREEL" bench --trace C.ioreel --mode $m --target t.img >/dev/null 2>err
	grep -q -- "--mode $m: C.ioreel is closed-loop" err || fail "--mode $m: $(cat err)"
done
assert_status 2 "$IOREEL" bench --trace S.ioreel --mode dep --target t.img >/dev/null 2>err
grep -q -- "cannot be replayed in dep mode: .*; give --mode timed or --mode afap" err ||
	fail "--mode dep: $(cat err)"
grep -q -- "--dep-fallback" err && fail "--mode dep names --dep-fallback: $(cat err)"

# hints name only what bench takes
assert_status 2 "$IOREEL" bench --preset 4k-randread --size 1t --target t.img >/dev/null 2>err
grep -q -- "--number-ios" err || fail "--size 1t: $(cat err)"
"$IOREEL" bench --preset 4k-randread --size 1t --number-ios 500 --runtime 1 --target t.img \
	--no-prefill --json >n.json 2>err || fail "--number-ios refused: $(cat err)"
assert_status 2 "$IOREEL" bench --trace S.ioreel --target nothere.img >/dev/null 2>err
grep -q "target nothere.img: No such file or directory; bench measures an existing" err ||
	fail "missing target: $(cat err)"
grep -q "give --size" err && fail "replay's --size hint: $(cat err)"

# --html: never an input, whole or nothing
ln -s S.ioreel L.ioreel
for h in S.ioreel ./L.ioreel t.img; do
	assert_status 2 "$IOREEL" bench --trace S.ioreel --target t.img --html "$h" >/dev/null 2>err
	grep -q -- "--html $h is the .* itself" err || fail "--html $h: $(cat err)"
done
"$IOREEL" synth --rw randread --size 32m --rate-iops 2000 --runtime 1 -o S2.ioreel >/dev/null
cmp -s S.ioreel S2.ioreel || fail "--html refused but the trace changed"
"$IOREEL" bench --trace S.ioreel --target t.img --no-prefill --html r.html >/dev/null 2>err ||
	fail "--html r.html: $(cat err)"
tail -c 20 r.html | grep -q '</html>' || fail "r.html incomplete"
[ -z "$(ls -A | grep '^\.')" ] || fail "temporary files left: $(ls -A)"
if [ -w /dev/full ]; then
	assert_status 1 "$IOREEL" bench --trace S.ioreel --target t.img --no-prefill \
		--html /dev/full >/dev/null 2>err
	[ -c /dev/full ] || fail "bench removed /dev/full"
	assert_status 1 "$IOREEL" bench --trace S.ioreel --target t.img --no-prefill >/dev/full 2>err
	grep -q "cannot write the output (standard output)" err || fail "stdout: $(cat err)"
fi

# a target that is the trace itself
assert_status 2 "$IOREEL" bench --trace S.ioreel --target ./L.ioreel --allow-writes >/dev/null 2>err
grep -q -- "--target ./L.ioreel is the --trace S.ioreel itself" err || fail "target = trace: $(cat err)"
cmp -s S.ioreel S2.ioreel || fail "the trace changed"

# repeats
assert_status 2 "$IOREEL" bench --trace S.ioreel --target t.img --runtime 1 --runtime 2 2>err
grep -qF -- "--runtime given twice (\"1\" and \"2\")" err || fail "--runtime twice: $(cat err)"
assert_status 2 "$IOREEL" bench --trace S.ioreel --target t.img --prefill --no-prefill 2>err
grep -q -- "--prefill and --no-prefill both given" err || fail "prefill twice: $(cat err)"
assert_status 2 "$IOREEL" bench --trace S.ioreel --target t.img --mode timed --mode timed 2>err
grep -q -- "--mode timed given twice" err || fail "--mode twice: $(cat err)"
# a file-level trace: refused in bench's own words (replay's named --root, which bench lacks)
printf '[j]\nioengine=filecreate\nnrfiles=2\nfilesize=4k\n' >f.fio
"$IOREEL" synth --fio-job f.fio -o F.ioreel >/dev/null || fail "synth file level"
assert_status 2 "$IOREEL" bench --trace F.ioreel --target t.img 2>err
grep -q "F.ioreel: a file-level trace.*ioreel replay F.ioreel --root DIR" err ||
	fail "bench of a file-level trace: $(cat err)"
echo ok
