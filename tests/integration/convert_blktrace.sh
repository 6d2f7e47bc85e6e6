#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# blktrace binary import in both byte orders (files built byte by byte: blktrace cannot run here,
# no relay), Q/D/C joined into one I/O, per-CPU-like disorder sorted, and the summary numbers.
. "$(dirname "$0")/../lib.sh"
need_cmd python3
d=$(scratch_dir)
for order in '<' '>'; do
	python3 - "$d/t.bin" "$order" <<'PY'
import random, struct, sys
out, end = sys.argv[1], sys.argv[2]
rnd = random.Random(7)
DEV = (259 << 20) | 1
def rec(t, sec, nbytes, act, cat, pid=100, cpu=0, err=0, pdu=b""):
    return struct.pack(end + "IIQQIIIIIHH", 0x65617407, 0, t, sec, nbytes, act | cat << 16,
                       pid, DEV, cpu, err, len(pdu)) + pdu
recs = [rec(0, 0, 0, 0, 1 << 10, pdu=b"postgres\0")]
t = 1000
lats = []  # each I/O's completion latency as written, for the check after the import
for i in range(1000):
    t += rnd.randrange(1000, 20000)
    sec = rnd.randrange(0, 1 << 20) * 8
    cat = 2 if i % 3 == 0 else 1
    # D and C come later, interleaved with the next I/Os' Q (latency 50-150 us)
    recs.append((t, rec(t, sec, 4096, 1, cat | 16, cpu=i % 2)))
    recs.append((t + 20000, rec(t + 20000, sec, 4096, 7, cat | 64)))
    lat = rnd.randrange(50000, 150000)
    lats.append(lat)
    recs.append((t + lat, rec(0, sec, 4096, 8, cat | 128)))
head, rest = recs[0], sorted(recs[1:], key=lambda r: r[0])
with open(out, "wb") as f:
    f.write(head)
    for tt, r in rest:
        # C records carry their own time
        f.write(r[:8] + struct.pack(end + "Q", tt) + r[16:])
open(out + ".lat", "w").write(" ".join(map(str, lats)))
PY
	"$IOREEL" convert "$d/t.bin" "$d/t.ioreel" --json >"$d/rep.json" || fail "import ($order)"
	python3 - "$d/rep.json" <<'PY' || fail "summary ($order)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["from"] == "blktrace" and r["events"] == 1000 and r["devices"] == 1, r
PY
	"$IOREEL" convert "$d/t.ioreel" "$d/t.jsonl" >/dev/null || fail "export json"
	python3 - "$d/t.jsonl" "$d/t.bin.lat" <<'PY' || fail "joined events ($order)"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
lats = [int(x) for x in open(sys.argv[2]).read().split()]
assert len(ev) == 1000 == len(lats)
prev = -1
# the generator's own figures, not measured times: each C joined to its own Q
for e, lat in zip(ev, lats):
    assert e["queue_ns"] >= prev, "not sorted"
    prev = e["queue_ns"]
    assert e["issue_ns"] == e["queue_ns"] + 20000, e
    assert e["complete_ns"] - e["queue_ns"] == lat, (e, lat)
    assert e["comm"] == "postgres" and e["pid"] == 100 and e["dev"] == "259:1", e
    assert e["op"] in ("read", "write") and e["length"] == 4096
PY
done
# the shared generator's Q-only file (what btrecord reads) imports with queue times only
if [ -x /work/shared/measure/gen_poisson_blktrace.py ]; then
	python3 /work/shared/measure/gen_poisson_blktrace.py "$d/q.bin" $(((7 << 20) | 3)) 10000 5000
	"$IOREEL" convert "$d/q.bin" "$d/q.csv" >/dev/null || fail "Q-only import"
	assert_eq "$(tail -n +3 "$d/q.csv" | wc -l)" 5000 "Q-only events"
	assert_eq "$(tail -n +3 "$d/q.csv" | cut -d, -f2,3 | sort -u)" "," "no issue/complete times"
fi
echo ok
