#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ioreel analyze --html in a real browser: headless Chromium loads the page (no network), the DOM
# holds every chart with data in it, and the screenshot is not blank.
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

chrome() {
	local prof
	prof=$(mktemp -d "$d/prof.XXXXXX")
	timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --no-first-run --user-data-dir="$prof" "$@" 2>>"$d/chrome.err"
}
chrome --dump-dom "file://$d/r.html" >"$d/dom.html" || fail "chromium --dump-dom failed: $(tail -3 "$d/chrome.err")"
python3 - "$d/dom.html" <<'PY' || fail "DOM check"
import re, sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.charts = {}; s.cur = None
    def handle_starttag(s, tag, a):
        a = dict(a)
        if tag == "svg":
            s.cur = a.get("data-chart"); s.charts[s.cur] = {"path": 0, "rect": 0}
        elif s.cur and tag in ("path", "rect"):
            if tag == "path" and len(a.get("d", "")) > 20: s.charts[s.cur]["path"] += 1
            if tag == "rect" and a.get("class") in ("bar", "cell") and float(a.get("height", 0)) > 0:
                s.charts[s.cur]["rect"] += 1
    def handle_endtag(s, tag):
        if tag == "svg": s.cur = None
p = P(); p.feed(open(sys.argv[1]).read())
c = p.charts
print(c)
for name, kind, least in (("iops", "path", 2), ("bw", "path", 2), ("pctcurve", "path", 2),
                          ("lathist", "rect", 3), ("heatmap", "rect", 50), ("bs", "rect", 3),
                          ("cmp-iops", "rect", 2), ("cmp-p99", "rect", 2)):
    assert name in c, "missing chart " + name
    assert c[name][kind] >= least, (name, c[name])
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
