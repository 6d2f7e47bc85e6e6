#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Issue 21 W6: analyze --compare --html escapes every string that came from a file or a name.
# Trace files named '<img src=x onerror=alert(1)>.ioreel' and 'a "b" & <c>'.ioreel, a device
# and a comm with markup in them: the page has no element the names would have made, and every
# name reads back as text (in the table, the headings, the SVG <title> and <text> of the bars).
. "$(dirname "$0")/../lib.sh"
need_cmd python3
d=$(scratch_dir)
evil='<img src=x onerror=alert(1)>'
quote='a "b" & <c> '"'"'d'"'"
python3 - "$d/t.csv" <<'PY' || fail "cannot write the CSV"
import sys
with open(sys.argv[1], "w") as f:
    f.write("queue_ns,issue_ns,complete_ns,dev,offset,length,op,comm\n")
    for i in range(2000):
        t = i * 100000
        f.write('%d,%d,%d,"<u>dev&",%d,4096,%s,"<script>x</script>"\n'
                % (t, t + 1000, t + 50000 + i % 7 * 1000, i * 4096, "read" if i % 3 else "write"))
PY
"$IOREEL" convert "$d/t.csv" "$d/$evil.ioreel" >/dev/null 2>"$d/err" || fail "convert: $(cat "$d/err")"
cp "$d/$evil.ioreel" "$d/$quote.ioreel"
"$IOREEL" analyze "$d/$evil.ioreel" "$d/$quote.ioreel" --compare --group-by comm \
	--html "$d/r.html" >/dev/null 2>"$d/err" || fail "analyze --html: $(cat "$d/err")"
python3 - "$d/r.html" "$evil" "$quote" <<'PY' || fail "HTML not escaped"
import sys
from html.parser import HTMLParser
page, names = open(sys.argv[1]).read(), sys.argv[2:]
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text, self.attrs = [], [], []
    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [v or "" for _, v in attrs]
    def handle_data(self, data):
        self.text.append(data)
p = P()
p.feed(page)
bad = {"img", "script", "u", "c"} & set(p.tags)
assert not bad, "elements from names: %s" % bad
assert not any("onerror" in a for a in p.attrs), "an attribute from a name"
text = "".join(p.text)
for n in names:
    base = n + ".ioreel"
    assert text.count(base) >= 4, "%r shown %d times as text" % (base, text.count(base))
assert page.count("<title>") >= 3
PY
echo ok
