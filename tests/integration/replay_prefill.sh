#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Reads of never-written space (issue 16): a sparse file target gets a warning with the share
# of what the trace reads that was never written; --prefill needs --allow-writes, writes those
# regions (only the holes of a file, only the regions read) with incompressible data before
# the clock starts and out of the results; a loop device over a sparse file is seen through
# its backing file; bench prefills a reset zram for a read preset and says so.
# timeout: 180
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/replay_common.inc"
need_root
need_cmd python3 mkfs.ext4
d=$(scratch_dir)
mnt=$(make_fs ext4 "$(make_loop 160)")
MiB=$((1 << 20))

# one pass of 4 KiB random reads over the first 32 MiB (8192 I/Os, every block once)
"$IOREEL" synth --rw randread --bs 4k --size 32m -o "$d/rr.ioreel" >/dev/null || fail "synth"
f=$mnt/target.img
truncate -s 64M "$f"
dd if=/dev/urandom of="$f" bs=1M count=8 conv=notrunc oflag=direct status=none
head_sum=$(head -c 8M "$f" | md5sum)
# seek_hole FILE FROM: where the next hole starts; seek_data FILE FROM: the next data, or -1
seek() { python3 -c 'import os,sys
fd = os.open(sys.argv[1], os.O_RDONLY)
try: print(os.lseek(fd, int(sys.argv[3]), getattr(os, sys.argv[2])))
except OSError: print(-1)' "$1" "$2" "$3"; }

# 1. the warning, with the share of the read region (32 MiB, of which 8 MiB were written)
"$IOREEL" replay "$d/rr.ioreel" --target "$f" --json >"$d/w.json" 2>"$d/err" || fail "replay: $(cat "$d/err")"
grep -q "target $f: 75.0% of the 32.0 MiB this trace reads there was never written (SEEK_HOLE)" \
	"$d/err" || fail "no warning with the share: $(cat "$d/err")"
[ "$(grep -c "never written" "$d/err")" = 1 ] || fail "not one line per target: $(cat "$d/err")"
json_get "$d/w.json" 'd["fidelity"]["targets"]' >"$d/t.txt"
python3 - "$d/w.json" "$f" <<'PY' || fail "JSON: $(cat "$d/t.txt")"
import json, sys
t = json.load(open(sys.argv[1]))["fidelity"]["targets"]
assert len(t) == 1 and t[0]["path"] == sys.argv[2], t
t = t[0]
assert t["read_region_bytes"] == 32 << 20 and t["unwritten_method"] == "SEEK_HOLE", t
assert t["unwritten_share_found"] == 0.75 and t["unwritten_share"] == 0.75, t
assert t["prefilled_bytes"] == 0, t
PY
output_has "never written: 75.0% of the 32.0 MiB read on $f" "$IOREEL" replay "$d/rr.ioreel" --target "$f" -q 2>/dev/null ||
	fail "the summary does not say it"
assert_eq "$(seek "$f" SEEK_HOLE 0)" $((8 * MiB)) "replay without --prefill wrote"
# --no-prefill: measured as it is, no warning
"$IOREEL" replay "$d/rr.ioreel" --target "$f" -q --no-prefill >/dev/null 2>"$d/err" || fail "--no-prefill"
grep -q "never written" "$d/err" && fail "--no-prefill still warned: $(cat "$d/err")"

# 2. --prefill without --allow-writes is refused before anything, in replay and in bench
assert_status 2 "$IOREEL" replay "$d/rr.ioreel" --target "$f" --prefill -q 2>"$d/err" >/dev/null
grep -q -- "--prefill writes the regions the trace reads: give --allow-writes" "$d/err" ||
	fail "no clear refusal: $(cat "$d/err")"
assert_status 2 "$IOREEL" bench --preset 4k-randread --target "$f" --prefill 2>"$d/err" >/dev/null
grep -q -- "give --allow-writes" "$d/err" || fail "bench: no clear refusal: $(cat "$d/err")"
assert_eq "$(seek "$f" SEEK_HOLE 0)" $((8 * MiB)) "refused --prefill wrote"

# 3. --prefill: the holes of the read region written, nothing else, then the replay as usual
"$IOREEL" replay "$d/rr.ioreel" --target "$f" --allow-writes --prefill --json -o "$d/r.ioreel" \
	>"$d/p.json" 2>"$d/err" || fail "--prefill: $(cat "$d/err")"
grep -q "prefilling $f: 75.0% of the 32.0 MiB" "$d/err" || fail "prefill not said: $(cat "$d/err")"
python3 - "$d/p.json" <<'PY' || fail "JSON after --prefill: $(json_get "$d/p.json" 'd["fidelity"]')"
import json, sys
d = json.load(open(sys.argv[1]))
t = d["fidelity"]["targets"][0]
assert t["prefilled_bytes"] == 24 << 20, t  # the holes only
assert t["unwritten_share_found"] == 0.75 and t["unwritten_share"] == 0.0, t
assert t["prefill_ns"] > 0, t
assert d["fidelity"]["ios"] == 8192, d["fidelity"]  # the prefill is not in the results
PY
assert_eq "$(seek "$f" SEEK_HOLE 0)" $((32 * MiB)) "read region not fully written (first hole)"
assert_eq "$(seek "$f" SEEK_DATA $((32 * MiB)))" -1 "prefill wrote outside the read region"
assert_eq "$(head -c 8M "$f" | md5sum)" "$head_sum" "prefill rewrote data that was there"
assert_eq "$(result_csv "$d/r.ioreel" | grep -c ',read,')" 8192 "reads in the result"
assert_eq "$(result_csv "$d/r.ioreel" | grep -c ',write,')" 0 "prefill writes in the result"
python3 - "$f" <<'PY' || fail "prefill data compresses"
import sys, zlib
with open(sys.argv[1], "rb") as f:
    f.seek(20 << 20)
    b = f.read(4 << 20)
assert len(zlib.compress(b, 6)) > 0.99 * len(b), "compressible prefill data"
blocks = {b[i:i + 4096] for i in range(0, len(b), 4096)}
assert len(blocks) == len(b) // 4096, "repeated 4 KiB blocks (deduplicable)"
PY
"$IOREEL" replay "$d/rr.ioreel" --target "$f" -q >/dev/null 2>"$d/err" || fail "replay after prefill"
grep -q "never written" "$d/err" && fail "warned after the prefill: $(cat "$d/err")"

# 4. a file target made by --size is laid out: nothing to warn about
"$IOREEL" replay "$d/rr.ioreel" --target "$mnt/new.img" --size 40M --allow-writes --json \
	>"$d/n.json" 2>"$d/err" || fail "--size: $(cat "$d/err")"
grep -q "never written" "$d/err" && fail "a --size file is sparse: $(cat "$d/err")"
assert_eq "$(json_get "$d/n.json" 'd["fidelity"]["targets"][0]["unwritten_share"]')" 0.0 "--size share"

# 5. a loop device over a sparse file: its backing file's holes
loop=$(make_loop 64)
"$IOREEL" replay "$d/rr.ioreel" --target "$loop" -q >/dev/null 2>"$d/err" || fail "loop: $(cat "$d/err")"
grep -q "target $loop: 100.0% of the 32.0 MiB .*(SEEK_HOLE on the loop device's backing file)" \
	"$d/err" || fail "loop device: no warning: $(cat "$d/err")"

# a device it cannot ask (a loop device over a zram): no warning, --prefill writes all it reads
z2=$(make_zram 64)
lz=$(losetup -f --show "$z2") || fail "losetup over $z2"
cleanup_push "losetup -d '$lz'"
"$IOREEL" replay "$d/rr.ioreel" --target "$lz" -q --json >"$d/u.json" 2>"$d/err" || fail "loop over zram"
grep -q "never written" "$d/err" && fail "warned without knowing: $(cat "$d/err")"
assert_eq "$(json_get "$d/u.json" 'd["fidelity"]["targets"][0]["unwritten_share"]')" None "unknown share"
"$IOREEL" replay "$d/rr.ioreel" --target "$lz" -q --allow-writes --prefill --json >"$d/u.json" \
	2>"$d/err" || fail "--prefill of a loop over zram: $(cat "$d/err")"
grep -q "whether it was written before cannot be told here" "$d/err" || fail "not said: $(cat "$d/err")"
assert_eq "$(json_get "$d/u.json" 'd["fidelity"]["targets"][0]["prefilled_bytes"]')" $((32 * MiB)) \
	"prefill of a device that cannot tell"
[ "$(awk '{print $1}' "/sys/block/$(basename "$z2")/mm_stat")" -ge $((32 * MiB)) ] ||
	fail "the prefill did not reach $z2"

# 6. bench on a reset zram: warns without --allow-writes (and writes nothing), prefills with it
z=$(make_zram 64)
zstored() { awk '{print $1}' "/sys/block/$(basename "$z")/mm_stat"; }
"$IOREEL" bench --preset 4k-randread --size 32m --runtime 1 --target "$z" >"$d/b0.txt" 2>"$d/err" ||
	fail "bench: $(cat "$d/err")"
grep -q "target $z: 100.0% of the 32.0 MiB .*(zram mm_stat).*give --allow-writes to prefill" "$d/err" ||
	fail "bench did not warn: $(cat "$d/err")"
grep -q "100% never written" "$d/b0.txt" || fail "row not marked: $(cat "$d/b0.txt")"
assert_eq "$(zstored)" 0 "bench wrote without --allow-writes"
"$IOREEL" bench --preset 4k-randread --size 32m --runtime 1 --target "$z" --allow-writes --json \
	>"$d/b.json" 2>"$d/err" || fail "bench --allow-writes: $(cat "$d/err")"
grep -q "prefilling $z: 100.0% of the 32.0 MiB" "$d/err" || fail "bench did not say: $(cat "$d/err")"
python3 - "$d/b.json" <<'PY' || fail "bench JSON: $(cat "$d/b.json")"
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["prefilled_bytes"] == 32 << 20, r
assert r["unwritten_share_found"] == 1.0 and r["unwritten_share"] == 0.0, r
assert r["ios"] > 0 and r["errors"] == 0, r
PY
[ "$(zstored)" -ge $((32 * MiB)) ] || fail "zram holds $(zstored) bytes after the prefill"
"$IOREEL" bench --preset 4k-randread --size 32m --runtime 1 --target "$z" --allow-writes --json \
	>"$d/b2.json" 2>/dev/null || fail "second bench"
assert_eq "$(json_get "$d/b2.json" 'd["results"][0]["prefilled_bytes"]')" 0 "prefilled twice"
echo "replay_prefill: ok"
