#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# timeout: 120
# ioreel record --level file sees the calls by name that move no data and fallocate's modes: a
# program that stats (stat, lstat, fstatat, statx), makes and removes directories (mkdir,
# mkdirat, rmdir, unlinkat AT_REMOVEDIR) and punches a hole (fallocate PUNCH_HOLE|KEEP_SIZE)
# under a directory: each call is in the trace once, with its path and mode, and fstat() (a
# descriptor's attributes, no lookup) is not. The trace then replays under --root.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"

dir=$(scratch_dir)/work
out=$(scratch_dir)
mkdir -p "$dir"
cat >"$out/ops.py" <<'PY'
import ctypes, os, sys, time
d = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
with open(os.path.join(d, "data"), "wb") as f:
    f.write(os.urandom(1 << 20))
open(os.path.join(d, "ready"), "w").close()
while not os.path.exists(os.path.join(d, "go")):
    time.sleep(0.01)
time.sleep(0.2)
os.stat(os.path.join(d, "data"))                      # newfstatat or statx
os.lstat(os.path.join(d, "data"))
os.mkdir(os.path.join(d, "sub"), 0o750)               # mkdir
dfd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
os.mkdir("sub2", 0o700, dir_fd=dfd)                   # mkdirat
os.stat("sub2", dir_fd=dfd)                           # fstatat on a dirfd
os.rmdir(os.path.join(d, "sub"))                      # rmdir
os.rmdir("sub2", dir_fd=dfd)                          # unlinkat(AT_REMOVEDIR)
fd = os.open(os.path.join(d, "data"), os.O_RDWR)
os.fstat(fd)                                          # fstat: not a lookup, not recorded
# fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 64 KiB, 128 KiB)
if libc.fallocate(fd, 3, ctypes.c_long(65536), ctypes.c_long(131072)):
    sys.exit("fallocate: %s" % os.strerror(ctypes.get_errno()))
os.close(fd)
time.sleep(0.5)  # the recorder reads a dirfd's path from /proc while it is open
os.close(dfd)
PY
rec_file_workload "$out/ops.py" "$dir" "$out/ops.ioreel"
python3 - "$out/ops.csv" "$dir" <<'PY' || fail "the trace lacks the calls (above)"
import collections, csv, sys
tcsv, d = sys.argv[1], sys.argv[2]
rows = [r for r in csv.DictReader(l for l in open(tcsv) if not l.startswith("#"))]
# the workload's own polling (its "go" file) and lookups that failed are not what is asked
calls = collections.Counter((r["op"], r["path"]) for r in rows
                            if r["op"] in ("stat", "mkdir", "rmdir", "fallocate") and
                            r["result"] == "0" and not r["path"].endswith("/go"))
want = {("stat", d + "/data"): 2, ("stat", d + "/sub2"): 1, ("mkdir", d + "/sub"): 1,
        ("mkdir", d + "/sub2"): 1, ("rmdir", d + "/sub"): 1, ("rmdir", d + "/sub2"): 1,
        ("fallocate", d + "/data"): 1}
print("trace:", dict(calls))
ok = dict(calls) == want
for r in rows:
    if r["op"] == "mkdir" and r["path"].endswith("/sub") and r["aux"] != str(0o750):
        ok = print("mkdir's mode", r["aux"], "not", 0o750)
    if r["op"] == "fallocate" and (r["aux"] != "3" or r["offset"] != "65536" or
                                   r["arg"] != "131072"):
        ok = print("fallocate", r["aux"], r["offset"], r["arg"], "not mode 3 at 64 KiB, 128 KiB")
sys.exit(0 if ok else 1)
PY
# replayed under a root: the directories come and go, the hole is punched again
root=$(scratch_dir)/root
mkdir -p "$root"
"$IOREEL" replay "$out/ops.ioreel" --root "$root" --allow-writes --json >"$out/run.json" \
	2>"$out/run.err" || fail "replay: $(cat "$out/run.err")"
python3 - "$out/run.json" <<'PY' || fail "replay of the recorded calls (above)"
import json, sys
ops = json.load(open(sys.argv[1]))["file"]["ops"]
got = {k: (v["replayed"], v["failed"]) for k, v in ops.items()
       if k in ("stat", "mkdir", "rmdir", "fallocate")}
print("replayed, failed:", got)
# stat: the three asked and the workload's poll of its "go" file, which existed then
sys.exit(0 if got == {"stat": (4, 0), "mkdir": (2, 0), "rmdir": (2, 0), "fallocate": (1, 0)}
         else 1)
PY
[ -e "$root/sub" ] || [ -e "$root/sub2" ] && fail "a directory the trace removed is left"
alloc=$(stat -c %b "$root/data")
[ "$alloc" -le $(((1 << 20) / 512 - 256)) ] || fail "no hole punched in $root/data ($alloc blocks)"
echo "PASS"
