#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ioreel analyze --html in a real browser: headless Chromium loads the page (no network), the DOM
# holds every chart with data in it, and the screenshot is not blank. Latency axes: linear when
# the values are within a decade; log when a candidate is 60x slower, so the fast traces' p99
# bars and percentile curves still stand clear of the floor; one percentile chart per op.
# timeout: 120
. "$(dirname "$0")/../lib.sh"
need_cmd python3 cc chromium
d=$(scratch_dir)
root=$(cd "$TESTS_DIR/.." && pwd)
cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$root" -o "$d/gen" "$root/bench/gen_trace.c" "$BUILD/libioreel.a" \
	-lbpf -lelf -lz -luring -lzstd -laio -lblkid -lpthread -lm || fail "cannot build bench/gen_trace.c"
"$d/gen" "$d/qd8.ioreel" 200000 8 || fail "gen"
"$d/gen" "$d/qd1.ioreel" 50000 1 || fail "gen"
"$IOREEL" analyze "$d/qd8.ioreel" "$d/qd1.ioreel" --compare --interval 1s --html "$d/r.html" >/dev/null ||
	fail "analyze --html"
grep -qiE '<script|<link|src="http|href="http' "$d/r.html" && fail "page is not self-contained"
# A recording and two candidates, the second 60x slower; reads, writes and flushes.
python3 - "$d" <<'PY' || fail "cannot write the CSV traces"
import random, sys
for name, scale in (("prod", 1), ("cand-fast", 1.5), ("cand-slow", 60)):
    random.seed(name)
    with open("%s/%s.csv" % (sys.argv[1], name), "w") as f:
        f.write("queue_ns,issue_ns,complete_ns,dev,offset,length,op\n")
        for i in range(6000):
            t, k = i * 30000, i % 20
            op, base = ("flush", 700000) if k == 19 else ("write", 100000) if k < 6 else ("read", 40000)
            lat = int(base * scale * random.lognormvariate(0, 0.6))
            ln = 0 if op == "flush" else 16384
            f.write("%d,%d,%d,vdb,%d,%d,%s\n" % (t, t + 2000, t + 2000 + lat,
                                                 random.randrange(1 << 16) * 16384 if ln else 0, ln, op))
PY
for t in prod cand-fast cand-slow; do
	"$IOREEL" convert "$d/$t.csv" "$d/$t.ioreel" >/dev/null || fail "convert $t"
done
"$IOREEL" analyze "$d/prod.ioreel" "$d/cand-fast.ioreel" "$d/cand-slow.ioreel" --compare --html "$d/s.html" \
	>/dev/null || fail "analyze --html of three traces"

chrome() {
	local prof
	prof=$(mktemp -d "$d/prof.XXXXXX")
	timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --no-first-run --user-data-dir="$prof" "$@" 2>>"$d/chrome.err"
}
chrome --dump-dom "file://$d/r.html" >"$d/dom.html" || fail "chromium --dump-dom failed: $(tail -3 "$d/chrome.err")"
chrome --dump-dom "file://$d/s.html" >"$d/dom-s.html" || fail "chromium --dump-dom failed: $(tail -3 "$d/chrome.err")"
python3 - "$d/dom.html" "$d/dom-s.html" <<'PY' || fail "DOM check"
import sys
from html.parser import HTMLParser
PH = 240 - 28 - 34  # the plot's height (analyze/html.c)
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.charts = {}; s.cur = None
    def handle_starttag(s, tag, a):
        a = dict(a)
        if tag == "svg":
            s.cur = a.get("data-chart")
            s.charts[s.cur] = {"path": 0, "rect": 0, "scale": None, "bars": [], "curves": {}}
        elif not s.cur:
            return
        c = s.charts[s.cur]
        if tag == "g" and "data-scale" in a:
            c["scale"] = a["data-scale"]
        if tag == "path" and len(a.get("d", "")) > 20:
            c["path"] += 1
            ys = [float(p.split(",")[1]) for p in a["d"].replace("M", " ").replace("L", " ").split()]
            c["curves"][a.get("stroke")] = ys
        if tag == "rect" and a.get("class") in ("bar", "cell") and float(a.get("height", 0)) > 0:
            c["rect"] += 1
            if a.get("class") == "bar":
                c["bars"].append(float(a["height"]))
    def handle_endtag(s, tag):
        if tag == "svg": s.cur = None
def charts(path):
    p = P(); p.feed(open(path).read()); return p.charts
c = charts(sys.argv[1])
print({k: (v["path"], v["rect"], v["scale"]) for k, v in c.items()})
for name, kind, least in (("iops", "path", 2), ("bw", "path", 2), ("pct-read", "path", 2),
                          ("pct-write", "path", 2), ("lathist", "rect", 3), ("heatmap", "rect", 50),
                          ("bs", "rect", 3), ("cmp-iops", "rect", 2), ("cmp-p99", "rect", 4)):
    assert name in c, "missing chart " + name
    assert c[name][kind] >= least, (name, c[name])
# both traces have the same latency distribution: p99 bars within a decade, a linear axis
assert c["cmp-p99"]["scale"] == "linear", c["cmp-p99"]["scale"]
assert "pct-flush" not in c, "a percentile chart for an op the traces do not have"

c = charts(sys.argv[2])
print({k: (v["path"], v["rect"], v["scale"]) for k, v in c.items()})
# p99 of 3 ops x 3 traces on a log axis: the fast traces' bars are not flattened by the slow one
p99 = c["cmp-p99"]
assert p99["scale"] == "log" and len(p99["bars"]) == 9, p99
fast = [h for i, h in enumerate(p99["bars"]) if i % 3 != 2]  # bars go op by op, trace by trace
assert min(p99["bars"]) > 0.08 * PH and max(fast) - min(fast) > 0.15 * PH, ("flattened", p99["bars"])
for op in ("read", "write", "flush"):
    ch = c["pct-" + op]
    assert ch["scale"] == "log" and ch["path"] == 3, (op, ch["scale"], ch["path"])
    for colour, ys in ch["curves"].items():
        # every curve rises visibly (a flat line on the floor is what a linear axis gave)
        assert max(ys) - min(ys) > 0.2 * PH and min(ys) < PH - 1, (op, colour, min(ys), max(ys))
PY

chrome --screenshot="$d/shot.png" --window-size=1200,900 "file://$d/r.html" >/dev/null ||
	fail "chromium --screenshot failed: $(tail -3 "$d/chrome.err")"
python3 - "$d/shot.png" <<'PY' || fail "screenshot is blank"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, t = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if t == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    if t == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
# Count distinct byte values per scanline (filter bytes aside): a blank page has ~1 colour.
stride = len(raw) // h
colours = set()
for y in range(0, h, 7):
    line = raw[y * stride + 1:(y + 1) * stride]
    colours.update(line[::3])
print("width", w, "height", h, "distinct sampled bytes", len(colours))
assert len(colours) > 20
PY
echo "ok"
