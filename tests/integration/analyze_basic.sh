#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ioreel analyze on generated traces: text, fio-shaped JSON read by fio's paths, --compare,
# --interval, --group-by, --percentiles, --from/--to; empty, single-event and no-completion
# traces; clat_ns of bio-level traces; closed-loop traces; usage and runtime exit codes.
. "$(dirname "$0")/../lib.sh"
need_cmd python3 cc
d=$(scratch_dir)
root=$(cd "$TESTS_DIR/.." && pwd)
cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$root" -o "$d/gen" "$root/bench/gen_trace.c" "$BUILD/libioreel.a" \
	-lbpf -lelf -lz -luring -lzstd -laio -lblkid -lpthread -lm || fail "cannot build bench/gen_trace.c"

"$d/gen" "$d/a.ioreel" 300000 8 || fail "gen a"
"$d/gen" "$d/b.ioreel" 100000 1 || fail "gen b"
"$d/gen" "$d/empty.ioreel" 0 || fail "gen empty"
"$d/gen" "$d/one.ioreel" 1 || fail "gen one"
"$d/gen" "$d/synth.ioreel" 5000 4 nocomp || fail "gen nocomp"

"$IOREEL" analyze "$d/a.ioreel" >"$d/a.txt" || fail "analyze a"
grep -q "read: IOPS=" "$d/a.txt" || fail "no fio-like read line"
grep -q "clat percentiles" "$d/a.txt" || fail "no percentiles"
grep -q "IO depths    : " "$d/a.txt" || fail "no depth line"

"$IOREEL" analyze "$d/a.ioreel" --json >"$d/a.json" || fail "analyze --json"
python3 - "$d/a.json" <<'PY' || fail "JSON check"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ioreel_schema"] == 2
j = d["jobs"][0]
# The paths a fio JSON consumer reads.
n = j["read"]["total_ios"] + j["write"]["total_ios"]
assert n == 300000, n
for ddir in ("read", "write"):
    r = j[ddir]
    for k in ("io_bytes", "io_kbytes", "bw_bytes", "bw", "iops", "runtime", "total_ios"):
        assert k in r, k
    assert r["clat_ns"]["percentile"]["99.000000"] >= r["clat_ns"]["percentile"]["50.000000"]
    assert r["lat_ns"]["mean"] > 0 and r["slat_ns"]["N"] == r["total_ios"]
    rt = r["runtime"] / 1000
    assert abs(r["iops"] - r["total_ios"] / rt) / r["iops"] < 0.01
assert abs(sum(j["latency_us"].values()) + sum(j["latency_ms"].values()) + sum(j["latency_ns"].values()) - 100) < 1e-3
assert abs(sum(j["iodepth_level"].values()) - 100) < 1e-3 and j["iodepth_level"]["8"] > 50
t = d["ioreel"]["traces"][0]
assert t["events"] == 300000 and t["devices"][0]["name"] == "gen0"
PY

# Comparison: text table and JSON ratios against the first trace.
"$IOREEL" analyze "$d/a.ioreel" "$d/b.ioreel" --compare >"$d/cmp.txt" || fail "--compare"
grep -q "IOPS x" "$d/cmp.txt" || fail "compare table header"
[ "$(grep -c '^read ' "$d/cmp.txt")" = 2 ] || fail "compare rows"
"$IOREEL" analyze "$d/a.ioreel" "$d/b.ioreel" --compare --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
rows = d["ioreel"]["compare"]["rows"]
a = [r for r in rows if r["trace"] == "a.ioreel" and r["op"] == "read"][0]
b = [r for r in rows if r["trace"] == "b.ioreel" and r["op"] == "read"][0]
assert a["iops_ratio"] == 1.0 and abs(b["iops_ratio"] - b["iops"] / a["iops"]) < 1e-6
assert len(d["jobs"]) == 2
' || fail "compare JSON"

# Interval series adds up to the whole; group-by splits into jobs; custom percentiles.
"$IOREEL" analyze "$d/a.ioreel" --interval 1s --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
iv = d["ioreel"]["traces"][0]["interval"]
assert iv["width_ns"] == 1000000000 and len(iv["series"]) > 3
total = sum(s["iops"] for s in iv["series"])  # 1 s intervals: IOPS = I/Os
assert abs(total - 300000) < 1, total
assert all(s["lat_p99_ns"] >= s["lat_p50_ns"] for s in iv["series"])
' || fail "interval JSON"
output_has "Time series (interval 0.5s" "$IOREEL" analyze "$d/a.ioreel" --interval 500ms || fail "interval text"
"$IOREEL" analyze "$d/a.ioreel" --group-by comm --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
names = sorted(j["jobname"] for j in d["jobs"])
assert names == ["gen0", "gen1", "gen2", "gen3"], names
assert sum(j["read"]["total_ios"] + j["write"]["total_ios"] for j in d["jobs"]) == 300000
' || fail "group-by comm"
"$IOREEL" analyze "$d/a.ioreel" --percentiles 50:99.9 --json | python3 -c '
import json, sys
p = json.load(sys.stdin)["jobs"][0]["read"]["clat_ns"]["percentile"]
assert sorted(p) == ["50.000000", "99.900000"], p
' || fail "--percentiles"
"$IOREEL" analyze "$d/a.ioreel" --from 1s --to 2s --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
t = d["ioreel"]["traces"][0]
assert 0 < t["analysed"] < 300000 and t["first_ns"] >= 1000000000
' || fail "--from/--to"
"$IOREEL" analyze "$d/a.ioreel" --device gen0 >/dev/null || fail "--device by name"

# Degenerate traces: sensible output, no crash, valid JSON.
for t in empty one synth; do
	"$IOREEL" analyze "$d/$t.ioreel" >"$d/$t.txt" || fail "analyze $t"
	"$IOREEL" analyze "$d/$t.ioreel" --json --interval 1s | python3 -c 'import json,sys; json.load(sys.stdin)' ||
		fail "JSON of $t"
	"$IOREEL" analyze "$d/$t.ioreel" "$d/$t.ioreel" --compare --html "$d/$t.html" >/dev/null || fail "compare/html of $t"
done
grep -q "no I/O to report" "$d/empty.txt" || fail "empty trace message"
grep -q "5000 without completion time" "$d/synth.txt" || fail "no-completion note"
grep -q "clat" "$d/synth.txt" && fail "synth trace: no latency without completions"
grep -q "read: IOPS=\|write: IOPS=" "$d/one.txt" || fail "single event summary"
grep -qi "nan\|inf" "$d/one.txt" "$d/synth.txt" "$d/empty.txt" && fail "NaN/inf in output"

# Bio level (queue and completion, no issue time): clat_ns holds every I/O, where fio's
# readers look (jq .jobs[0].read.clat_ns.percentile), equal to lat_ns; slat_ns is empty.
awk 'BEGIN { print "queue_ns,complete_ns,dev,offset,length,op"; srand(5);
	for (i = 0; i < 5000; i++) { t = i * 10000; lat = 20000 + int(rand() * 200000);
		print t "," t + lat ",zram9," int(rand() * 65536) * 4096 ",4096," (i % 10 < 7 ? "read" : "write") } }' \
	>"$d/bio.csv"
"$IOREEL" convert "$d/bio.csv" "$d/bio.ioreel" >/dev/null || fail "convert bio-level CSV"
"$IOREEL" analyze "$d/bio.ioreel" >"$d/bio.txt" || fail "analyze bio"
grep -q "clat percentiles" "$d/bio.txt" && grep -q "(clat = lat, queue to completion" "$d/bio.txt" ||
	fail "bio level text: no clat percentiles or no note on what clat is"
"$IOREEL" analyze "$d/bio.ioreel" --json | python3 -c '
import json, sys
j = json.load(sys.stdin)["jobs"][0]
for ddir in ("read", "write"):
    r = j[ddir]
    assert r["clat_ns"]["N"] == r["lat_ns"]["N"] == r["total_ios"] > 0, r
    assert r["clat_ns"]["mean"] == r["lat_ns"]["mean"] and r["slat_ns"]["N"] == 0
    assert r["clat_ns"]["percentile"]["99.000000"] >= r["clat_ns"]["percentile"]["50.000000"] >= 20000
assert j["ioreel"]["clat_meaning"].startswith("queue to completion")
assert j["read"]["total_ios"] + j["write"]["total_ios"] == 5000
' || fail "bio level JSON: clat_ns"

# Closed loop (synth without a rate): the times are an order, so no IOPS or bandwidth.
"$IOREEL" synth --rw randwrite --bs 4k --size 16m --iodepth 8 --number-ios 2000 -o "$d/closed.ioreel" \
	>/dev/null || fail "synth closed"
"$IOREEL" analyze "$d/closed.ioreel" >"$d/closed.txt" || fail "analyze closed"
grep -q "write: IOPS=n/a, BW=n/a (closed-loop trace" "$d/closed.txt" || fail "closed: rates shown"
"$IOREEL" analyze "$d/closed.ioreel" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ioreel"]["traces"][0]["times"] == "order"
w = d["jobs"][0]["write"]
assert w["total_ios"] == 2000 and w["iops"] == 0 and w["runtime"] == 0, w
' || fail "closed: JSON"
# compared, its rates are not known either: n/a, not 0 IOPS and ratios of 0.00; nor latencies
# of a trace without completions
"$IOREEL" analyze "$d/a.ioreel" "$d/closed.ioreel" "$d/synth.ioreel" --compare >"$d/cc.txt" ||
	fail "compare closed"
grep -Eq '^write +closed\.ioreel +synth +n/a +n/a +n/a +n/a +n/a +n/a +n/a +n/a$' "$d/cc.txt" ||
	fail "compare closed: $(cat "$d/cc.txt")"
grep -Eq '^write +synth\.ioreel +[^ ]+ +[0-9.k]+ +[0-9.]+ +n/a +n/a +[0-9.]+ +[0-9.]+ +n/a +n/a$' \
	"$d/cc.txt" || fail "compare without latencies: $(cat "$d/cc.txt")"

# Exit codes: usage 2, runtime 1 with a message naming the file.
assert_status 2 "$IOREEL" analyze
assert_status 2 "$IOREEL" analyze "$d/a.ioreel" --interval bogus
assert_status 2 "$IOREEL" analyze "$d/a.ioreel" --group-by color
"$IOREEL" analyze "$d/missing.ioreel" 2>"$d/err"; [ $? = 1 ] || fail "missing file exit"
grep -q missing.ioreel "$d/err" || fail "error names the file"
output_has "examples:" "$IOREEL" analyze --help || fail "--help"
echo "ok"
