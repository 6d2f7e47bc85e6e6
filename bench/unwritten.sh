#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Issue 16's table: `ioreel bench --preset 4k-randread` on a sparse file (truncate) against the
# same size written once, both on ext4 over a loop device: before (today's behaviour,
# --no-prefill), with the warning (the default without --allow-writes: same figures, one line
# saying how much was never written), and with --prefill (the holes written first, not timed).
# Never pass/fail. Run it alone: its figures are IOPS and latencies.
# Env: SIZE (1g), RUNTIME (3), PRESET (4k-randread).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/lib.sh"
need_root
need_cmd python3 mkfs.ext4
size=${SIZE:-1g}
runtime=${RUNTIME:-3}
preset=${PRESET:-4k-randread}
d=$(scratch_dir)
mib=$(python3 -c "import sys; s=sys.argv[1].lower(); u={'k':1/1024,'m':1,'g':1024,'t':1<<20}; print(int(float(s[:-1])*u[s[-1]]) if s[-1] in u else int(s)>>20)" "$size")
mnt=$(make_fs ext4 "$(make_loop $((mib * 2 + 256)))")
sparse=$mnt/sparse.img
written=$mnt/written.img
truncate -s "$size" "$sparse"
dd if=/dev/urandom of="$written" bs=1M count="$mib" oflag=direct status=none || fail "writing $written"

# run LABEL TARGET BENCH-OPTIONS...: one row, and the warning lines bench printed
run() {
	local label=$1 target=$2
	shift 2
	"$IOREEL" bench --preset "$preset" --size "$size" --runtime "$runtime" --target "$target" \
		--json "$@" >"$d/r.json" 2>"$d/err" || { cat "$d/err"; fail "bench $label"; }
	python3 - "$d/r.json" "$label" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
share = r["unwritten_share_found"]
seen = "?" if share is None else f"{100 * share:.0f} %"
pre = f'{r["prefilled_bytes"] / 2**20:.0f} MiB' if r["prefilled_bytes"] else "-"
print(f'| {sys.argv[2]} | {r["iops"]:,.0f} | {r["lat_avg_ns"] / 1e3:,.0f} µs '
      f'| {r["lat_p99_ns"] / 1e3:,.0f} µs | {seen} | {pre} |')
PY
	grep -o 'warning: .*' "$d/err" | sed 's/^/    /' >>"$d/warnings"
}

echo "$preset, ${runtime}s, $size files on ext4 over a loop device ($(uname -r))"
echo
echo "| target | IOPS | mean lat | p99 | never written (found) | prefilled |"
echo "|---|---|---|---|---|---|"
: >"$d/warnings"
run "sparse file, before (--no-prefill)" "$sparse" --no-prefill
run "sparse file, with the warning" "$sparse"
run "sparse file, --allow-writes --prefill" "$sparse" --allow-writes --prefill
run "the same size, written once" "$written" --no-prefill
echo
echo "what bench said:"
cat "$d/warnings"
