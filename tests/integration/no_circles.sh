#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# No circle among the files of formats/ nor of replay/ (issue 22): a file calls only files that
# never call it back, directly or round about. In formats/ the importers call down into
# import_common.c and the dispatcher that names every importer lives beside convert; in replay/
# each variant (block/, file/, dep/, engine/) calls only down into core/, and only the
# conductor (replay/run.c) and the engine table name the variants. Read from the symbols each
# object defines and uses (nm), so the test sees calls, not includes.
. "$(dirname "$0")/../lib.sh"
need_cmd python3 nm
check() {
local folder=$1 objs
shift
objs=("$@")
[ -e "${objs[0]}" ] || fail "no objects in $BUILD/$folder (make first)"
# only objects whose source still exists: a build folder may hold a moved file's old object
local keep=() o src
for o in "${objs[@]}"; do
	src=${o#"$BUILD"/}
	[ -f "$TESTS_DIR/../${src%.o}.c" ] && keep+=("$o")
done
python3 - "${keep[@]}" <<'PY' || fail "$folder has files that call each other in a circle (above)"
import subprocess, sys, glob, os
objs = sys.argv[1:]
defs, uses = {}, {}
for o in objs:
    out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
    d, u = set(), set()
    for l in out.splitlines():
        f = l.split()
        if len(f) == 2 and f[0] == "U": u.add(f[1])
        elif len(f) == 3 and f[1] in "TDBR": d.add(f[2])
    defs[o], uses[o] = d, u
edges = {o: {p for p in objs if p != o and uses[o] & defs[p]} for o in objs}
# cycles: strongly connected components with more than one file
index, low, stack, on, comps, n = {}, {}, [], set(), [], [0]
def sc(v):
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    for w in edges[v]:
        if w not in index: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        c = []
        while True:
            w = stack.pop(); on.discard(w); c.append(w)
            if w == v: break
        if len(c) > 1: comps.append(c)
for v in objs:
    if v not in index: sc(v)
for c in comps:
    print("circle:", " ".join(sorted(os.path.basename(x) for x in c)))
sys.exit(1 if comps else 0)
PY
echo "no circle among the ${#keep[@]} files of $folder"
}
check formats/ "$BUILD"/formats/*.o
check replay/ "$BUILD"/replay/*.o "$BUILD"/replay/*/*.o
echo PASS
