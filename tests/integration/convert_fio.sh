#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# fio v3 -> .ioreel -> fio v3 gives back the same lines (on a log fio itself wrote), and fio
# replays what we export against a loop device, issuing exactly the trace's I/O count.
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd fio python3 losetup
d=$(scratch_dir)

# 1. round trip of a log written by fio's write_iolog (add/open/close timestamps included)
truncate -s 16M "$d/f.img"
fio --name=w --filename="$d/f.img" --rw=randrw --bs=4k --size=4M --number_ios=200 \
	--write_iolog="$d/w.iolog" --ioengine=psync >/dev/null || fail "fio write_iolog run"
[ "$(head -1 "$d/w.iolog")" = "fio version 3 iolog" ] || skip "this fio writes no v3 iolog"
"$IOREEL" convert "$d/w.iolog" "$d/w.ioreel" || fail "import fio v3"
"$IOREEL" convert "$d/w.ioreel" "$d/back.iolog" || fail "export fio v3"
diff -u "$d/w.iolog" "$d/back.iolog" || fail "fio v3 round trip differs"
# the golden log in tests/data round-trips too (also through CSV, I/O lines only)
"$IOREEL" convert "$TESTS_DIR/data/fio3_small.iolog" "$d/g.ioreel" >/dev/null || fail "golden"
"$IOREEL" convert "$d/g.ioreel" - --to fio3 2>/dev/null | diff -u "$TESTS_DIR/data/fio3_small.iolog" - ||
	fail "golden round trip"
"$IOREEL" convert "$d/g.ioreel" "$d/g.csv" >/dev/null && "$IOREEL" convert "$d/g.csv" - --to fio3 2>/dev/null |
	grep -E ' (read|write) ' | diff -u <(grep -E ' (read|write) ' "$TESTS_DIR/data/fio3_small.iolog") - ||
	fail "CSV round trip of the I/O lines"

# 2. fio replays our export on a loop device: reads, writes, fsync, fdatasync, 2 ms apart.
# (no trims: fio < 3.34 rejects trim in text iologs with "bad ddir: 2", fio #769)
dev=$(make_loop 64)
{
	echo "queue_ns,dev,offset,length,op,flags"
	for i in $(seq 0 299); do
		case $((i % 10)) in
		9) echo "$((i * 2000000)),src,0,0,flush,meta" ;;
		4) echo "$((i * 2000000)),src,0,0,flush," ;;
		[0-2]) echo "$((i * 2000000)),src,$(((i * 7919 % 16000) * 4096)),4096,write," ;;
		*) echo "$((i * 2000000)),src,$(((i * 104729 % 16000) * 4096)),$((4096 * (1 + i % 4))),read," ;;
		esac
	done
} >"$d/t.csv"
"$IOREEL" convert "$d/t.csv" "$d/t.ioreel" >/dev/null || fail "import CSV"
"$IOREEL" convert "$d/t.ioreel" "$d/t.iolog" --device "$dev" --json >"$d/rep.json" || fail "export"
want=$(python3 -c "import json; print(json.load(open('$d/rep.json'))['events'])")
assert_eq "$want" 300 "events exported"
grep -q " $dev sync 0 0" "$d/t.iolog" && grep -q " $dev datasync 0 0" "$d/t.iolog" || fail "flush lines"
for engine in psync libaio; do
	fio --name=r --read_iolog="$d/t.iolog" --ioengine=$engine --direct=1 \
		--output-format=json --output="$d/fio-$engine.json" >/dev/null 2>"$d/fio.err" ||
		fail "fio --read_iolog ($engine): $(head -3 "$d/fio.err")"
	got=$(python3 - "$d/fio-$engine.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
# fio counts fsync + fdatasync as sync latency samples
print(j["read"]["total_ios"] + j["write"]["total_ios"] + j["trim"]["total_ios"] + j["sync"]["lat_ns"]["N"])
PY
)
	assert_eq "$got" "$want" "I/Os fio issued ($engine)"
done
echo "ok: round trip identical, fio issued $want of $want I/Os"
