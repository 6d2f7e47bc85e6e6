#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The same job run by fio and as `ioreel synth` + `ioreel replay`, on the same targets (a file on
# ext4 over a loop device, a file on xfs over a loop device, and zram), alternating fio, ioreel,
# fio, ioreel. Prints IOPS and mean completion latency of each run, the medians and the ratios
# ioreel/fio (issue 6 asks for IOPS within 5 % and mean latency within 10 %). Never pass/fail.
# Env: SECONDS_PER_RUN (5), ROUNDS (2), JOBS ("randread randwrite").
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/lib.sh"
need_root
need_cmd fio python3 mkfs.ext4 mkfs.xfs
secs=${SECONDS_PER_RUN:-5}
rounds=${ROUNDS:-2}
d=$(scratch_dir)
size=512m

ext4=$(make_fs ext4 "$(make_loop 1024)")
xfs=$(make_fs xfs "$(make_loop 1024)")
zram=$(make_zram 768)
targets=("$ext4/f.img" "$xfs/f.img" "$zram")
# fio lays its files out; ioreel replay reads the same file, so both see real blocks.
for t in "${targets[@]}"; do
	fio --name=layout --filename="$t" --size=$size --rw=write --bs=1M --direct=1 \
		--ioengine=libaio --iodepth=4 >/dev/null || fail "layout of $t"
done

# fio.json|ioreel.json OP -> "iops clat_mean_us" (the same keys: ioreel analyze --json is fio's)
figs() {
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0][sys.argv[2]]
print("%.0f %.1f" % (j["iops"], j["clat_ns"]["mean"] / 1e3))' "$1" "$2"
}

printf '%-9s %-28s %-6s %10s %14s\n' job target tool IOPS "clat mean(us)"
for job in ${JOBS:-randread randwrite}; do
	op=read
	[ "$job" = randwrite ] && op=write
	for t in "${targets[@]}"; do
		common=(--rw="$job" --bs=4k --iodepth=32 --size=$size --runtime="$secs" --time_based)
		"$IOREEL" synth "${common[@]}" -o "$d/job.ioreel" >/dev/null || fail "synth $job"
		: >"$d/fio.fig"
		: >"$d/ioreel.fig"
		for ((r = 1; r <= rounds; r++)); do
			fio --name=b --filename="$t" --direct=1 --ioengine=libaio "${common[@]}" \
				--output-format=json --output="$d/fio.json" >/dev/null || fail "fio $job on $t"
			figs "$d/fio.json" $op | tee -a "$d/fio.fig" |
				xargs printf '%-9s %-28s %-6s %10s %14s\n' "$job" "$t" fio
			"$IOREEL" replay "$d/job.ioreel" --target "$t" --allow-writes --force -q --json \
				>"$d/ioreel.json" 2>"$d/err" || fail "replay $job on $t: $(cat "$d/err")"
			figs "$d/ioreel.json" $op | tee -a "$d/ioreel.fig" |
				xargs printf '%-9s %-28s %-6s %10s %14s\n' "$job" "$t" ioreel
		done
		python3 - "$d/fio.fig" "$d/ioreel.fig" "$job" "$t" <<'PY'
import statistics, sys
f = [list(map(float, l.split())) for l in open(sys.argv[1])]
i = [list(map(float, l.split())) for l in open(sys.argv[2])]
fi, fl = statistics.median(x[0] for x in f), statistics.median(x[1] for x in f)
ii, il = statistics.median(x[0] for x in i), statistics.median(x[1] for x in i)
print(f"median {sys.argv[3]} on {sys.argv[4]}: IOPS fio {fi:.0f} ioreel {ii:.0f} (x{ii / fi:.3f}), "
      f"clat mean fio {fl:.1f} us ioreel {il:.1f} us (x{il / fl:.3f})")
PY
	done
done
