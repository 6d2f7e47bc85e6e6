#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A file-level trace orders calls by their entry, so when one thread's close frees a descriptor
# number that another thread's open, entered just before, then gets, the open comes first. The
# replay gives each call its own file all the same (replay/file/file_decode.c, struct
# fdshadow): the close that entered before the open returned closes the old file, the reads
# on either side name theirs, and only a close the recording never saw is implied. Before,
# such an open closed the old file at once, the late close closed the new one, and the rest
# ran on descriptors opened unseen (the flake replay_file_order once showed: 6 closes for 5).
# The trace is crafted (tests/tools/ftrace_fdrace.c: its table of calls); timed and dep mode.
# timeout: 60
. "$(dirname "$0")/../lib.sh"
need_cmd python3
craft=$BUILD/tests/tools/ftrace_fdrace
[ -x "$craft" ] || fail "$craft is not built (make check builds it)"
d=$(scratch_dir)
"$craft" "$d/t.ioreel" || fail "ftrace_fdrace"
for mode in timed dep; do
	mkdir "$d/$mode"
	"$IOREEL" replay "$d/t.ioreel" --root "$d/$mode" --allow-writes --mode "$mode" --json \
		>"$d/$mode.json" 2>"$d/$mode.err" || fail "$mode replay: $(cat "$d/$mode.err")"
	python3 - "$d/$mode.json" "$mode" <<'PY' || fail "$mode replay: not the trace's calls"
import json, sys
f = json.load(open(sys.argv[1]))["file"]
ops = {k: (v["trace"], v["replayed"], v["failed"]) for k, v in f["ops"].items()}
print(sys.argv[2], ops, "implied", f["closes_implied"], "unseen", f["opened_unseen"],
      "mismatch", f["fd_mismatch"])
assert ops == {"open": (4, 4, 0), "read": (4, 4, 0), "close": (3, 4, 0)}, ops
assert f["closes_implied"] == 1 and f["opened_unseen"] == 0 and f["fd_mismatch"] == 0, f
PY
done
echo "ok"
