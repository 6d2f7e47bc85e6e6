#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# timeout: 120
# InnoDB's I/O pattern (tests/tools/innodb_like.c) recorded at file level: the data file opened
# without O_DIRECT and switched to it with fcntl(F_SETFL), 16 KiB page reads and writes in
# batches through libaio (reaped by another thread) or io_uring, fdatasync and fsync, a redo log
# appended and fdatasync'ed. Every call it made is in the trace with its file, offset and length;
# the open shows no O_DIRECT, the F_SETFL asks for it, and every page I/O after it carries it;
# pages go through the interface asked; nothing dropped.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"

tool=$BUILD/tests/tools/innodb_like
[ -x "$tool" ] || fail "$tool is not built (make check builds it)"
mnt=$(make_fs xfs "$(make_loop 512)")
out=$(scratch_dir)

for mode in aio uring; do
	d=$mnt/$mode
	mkdir -p "$d"
	rec_start "$out/$mode.ioreel" --level file --comm innodb_like --under "$d"
	"$tool" "$d" "$mode" >"$out/$mode.log" || fail "innodb_like $mode failed"
	rec_finish "$out/$mode.ioreel"
	python3 - "$out/$mode.log" "$out/$mode.ioreel.csv" "$mode" "$d" <<'PY' || fail "$mode: wrong trace"
import collections, csv, sys
log, tcsv, mode, d = sys.argv[1:5]
iface = {"aio": "aio", "uring": "uring"}[mode]
want = collections.Counter(tuple(l.split()) for l in open(log))
rows = list(csv.DictReader(l for l in open(tcsv) if not l.startswith("#")))
got = collections.Counter()
bad = []
for r in rows:
    if r["op"] in ("read", "write"):
        got[(r["path"], r["op"], r["offset"], r["length"])] += 1
    elif r["op"] in ("fsync", "fdatasync"):
        got[(r["path"], r["op"], "0", "0")] += 1
    if r["path"].endswith("ibdata1") and r["op"] in ("read", "write"):
        if r["iface"] != iface:
            bad.append(f"page {r['op']} via {r['iface']}")
        if "O_DIRECT" not in r["oflags"]:
            bad.append(f"page {r['op']} without O_DIRECT: {r['oflags']}")
        if r["result"] != "16384":
            bad.append(f"page {r['op']} returned {r['result']}")
opens = [r for r in rows if r["op"] == "open" and r["path"] == f"{d}/ibdata1"]
setfl = [r for r in rows if r["op"] == "setfl" and r["path"] == f"{d}/ibdata1"]
if len(opens) != 1 or "O_DIRECT" in opens[0]["oflags"]:
    bad.append(f"the data file's open: {opens}")
if len(setfl) != 1 or not int(setfl[0]["aux"]) & 0o40000 or "O_DIRECT" in setfl[0]["oflags"]:
    bad.append(f"fcntl(F_SETFL, O_DIRECT): {setfl}")
print(f"{mode}: asked {sum(want.values())} calls, the trace holds {sum(got.values())} of them")
if want != got:
    bad.append(f"missing: {list((want - got).items())[:6]}; extra: {list((got - want).items())[:6]}")
for b in bad[:10]:
    print(b)
sys.exit(1 if bad else 0)
PY
done
echo "PASS"
