#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# timeout: 60
# ioreel record --level file names a path whose page was not in memory at the call's entry (a
# tracepoint cannot fault it in; fio's first opens of system files are such): the return reads
# it again. A program passes open, rename (two paths), mkdir, rmdir and unlink paths that sit
# on file pages it has mapped and never touched: every call is in the trace with its path,
# none is missing, and the recorder says it read them at the return.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"

dir=$(scratch_dir)/work
out=$(scratch_dir)
mkdir -p "$dir"
cat >"$out/late.py" <<'PY'
import ctypes, mmap, os, sys, time
d = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
libc.open.argtypes = libc.mkdir.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
libc.rmdir.argtypes = libc.unlink.argtypes = [ctypes.c_void_p]
libc.rename.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
for n in ("new", "renamed", "dir"):
    with open(os.path.join(d, "name-" + n), "wb") as f:
        f.write(os.path.join(d, n).encode() + b"\0")
open(os.path.join(d, "ready"), "w").close()
while not os.path.exists(os.path.join(d, "go")):
    time.sleep(0.01)
time.sleep(0.2)
def unfaulted(n):
    """The path n, on a page of a fresh file mapping this process has never touched."""
    fd = os.open(os.path.join(d, "name-" + n), os.O_RDONLY)
    a = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_PRIVATE, fd, 0)
    os.close(fd)
    if a in (None, ctypes.c_void_p(-1).value):
        sys.exit("mmap failed")
    return a
def ok(r, what):
    if r < 0:
        sys.exit("%s: %s" % (what, os.strerror(ctypes.get_errno())))
    return r
fd = ok(libc.open(unfaulted("new"), os.O_CREAT | os.O_WRONLY, 0o600), "open")
os.write(fd, b"x" * 4096)
os.close(fd)
ok(libc.rename(unfaulted("new"), unfaulted("renamed")), "rename")
ok(libc.mkdir(unfaulted("dir"), 0o700, 0), "mkdir")
ok(libc.rmdir(unfaulted("dir")), "rmdir")
ok(libc.unlink(unfaulted("renamed")), "unlink")
PY
rec_file_workload "$out/late.py" "$dir" "$out/late.ioreel"
"$IOREEL" info --json "$out/late.ioreel" >"$out/info.json" || fail "info of the trace"
python3 - "$out/late.csv" "$dir" "$out/info.json" <<'PY' || fail "paths read at return (above)"
import csv, json, sys
tcsv, d, info = sys.argv[1:4]
rows = [r for r in csv.DictReader(l for l in open(tcsv) if not l.startswith("#"))]
c = json.load(open(info))["counters"]
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
got = {(r["op"], r["path"]) for r in rows if r["result"] != "-2"}
for op, p in (("open", "new"), ("write", "new"), ("rename", "new"), ("mkdir", "dir"),
              ("rmdir", "dir"), ("unlink", "new")):  # a renamed file keeps its first name
    need((op, d + "/" + p) in got, f"{op} of {d}/{p} not in the trace")
ren = [r for r in rows if r["op"] == "rename"]
need(len(ren) == 1 and ren[0]["arg"] not in ("", "0"), f"rename's target not named: {ren}")
need(c["paths_missing"] == 0, f"paths_missing {c['paths_missing']}")
# open, rename's two, mkdir, rmdir, unlink; more if a poll of "go" was the page's first use too
late = c.get("paths_read_at_return", 0)
need(late >= 6, f"paths_read_at_return {late}, not 6")
print("paths read at return:", c["paths_read_at_return"], "missing:", c["paths_missing"])
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
# info's text form says them too
"$IOREEL" info "$out/late.ioreel" >"$out/info.txt" || fail "info (text) of the trace"
grep -Eq '^  paths +([6-9]|[1-9][0-9]+) read at the call.s return, 0 missing, 0 lost' \
	"$out/info.txt" || fail "info's text does not give the paths: $(cat "$out/info.txt")"
echo "PASS"
