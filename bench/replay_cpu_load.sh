#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# How much does a file-level replay's latency depend on the CPU being free? A recorded database
# ran its SQL on the same cores as its I/O; a replay makes the same calls on idle cores. Here a
# file-level recording is replayed (dep, psync) onto a directory on FS with HOGS busy loops
# running beside it (0, 1, 2: none, one core's worth, both cores' worth), A B A B over ROUNDS,
# and each op's mean latency is printed per run, then the medians and their ratio to the idle
# runs. The fdatasync of bench/predict_fs.sh's xfs self-check replayed at x0.47 of PostgreSQL's
# own: this measures how far the missing CPU load can account for such a gap.
# Env: TRACE (a file-level recording; default: pgbench recorded here first, SECONDS_PER_RUN
#      (30), CLIENTS (4), SCALE (10)), FS (xfs), SIZE (MiB of the loop device, 3072: the trace's
#      files must fit), HOGS ("0 1 2"), ROUNDS (2). Figures only: never fails on time.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/lib.sh"
. "$here/../tests/setups.sh"
. "$here/../tests/workload_pg.sh"
need_root
need_cmd python3
fs=${FS:-xfs}
hogs=${HOGS:-0 1 2}
rounds=${ROUNDS:-2}
out=$(scratch_dir)

setup_fs_loop "$fs" "${SIZE:-3072}" >/dev/null
trace=${TRACE:-}
if [ -z "$trace" ]; then
	pg_available || skip "needs PostgreSQL with pgbench (make deps), or TRACE=a file-level recording"
	pg_start "$SETUP_MNT/pg"
	pg_pgbench_init "${SCALE:-10}"
	trace=$out/pg.ioreel
	rec_file_start "$trace" --pid "$(head -n1 "$PG_DATA/postmaster.pid")"
	PG_PGBENCH_OUT=$out/pgbench.out pg_pgbench_run "${SECONDS_PER_RUN:-30}" "${CLIENTS:-4}" >/dev/null
	rec_stop
	pg_stop
fi
"$IOREEL" info "$trace" | grep -E '^  (calls|span) ' || fail "$trace: not readable"

echo "file-level replay (dep, psync) of $trace onto $fs, busy loops beside it, $rounds rounds," \
	"$(nproc) CPUs; mean latency per op"
printf '%-5s %-5s %8s %10s %10s %12s\n' round hogs span-s read-us write-us fdatasync-us
for ((r = 1; r <= rounds; r++)); do
	for h in $hogs; do
		root=$SETUP_MNT/replay
		rm -rf "$root" && mkdir "$root" || fail "cannot make $root"
		sync
		echo 3 >/proc/sys/vm/drop_caches
		pids=()
		for ((i = 0; i < h; i++)); do
			(while :; do :; done) &
			pids+=($!)
		done
		"$IOREEL" replay "$trace" --root "$root" --allow-writes --mode dep --engine psync \
			-o "$out/r$r-h$h.ioreel" -q --json >"$out/r$r-h$h.json" 2>"$out/r$r-h$h.err"
		rc=$?
		[ ${#pids[@]} = 0 ] || kill "${pids[@]}"
		wait "${pids[@]}" 2>/dev/null
		[ $rc = 0 ] || fail "replay with $h busy loops: $(tail -n 3 "$out/r$r-h$h.err")"
		"$IOREEL" analyze "$out/r$r-h$h.ioreel" --json >"$out/a$r-h$h.json" ||
			fail "analyze of the replay with $h busy loops"
		python3 - "$out/r$r-h$h.json" "$out/a$r-h$h.json" "$r" "$h" <<'PY' | tee -a "$out/rows"
import json, sys
span = json.load(open(sys.argv[1]))["fidelity"]["replay_span_ns"] / 1e9
ops = json.load(open(sys.argv[2]))["ioreel"]["file_level"][0]["ops"]
mean = lambda op: ops[op]["lat_ns"]["mean"] / 1e3 if op in ops else float("nan")
print("%-5s %-5s %8.1f %10.1f %10.1f %12.1f" % (sys.argv[3], sys.argv[4], span, mean("read"),
      mean("write"), mean("fdatasync")))
PY
	done
done
rm -rf "$SETUP_MNT/replay"
python3 - "$out/rows" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    runs[int(f[1])].append([float(x) for x in f[2:]])
med = {h: [statistics.median(c) for c in zip(*v)] for h, v in runs.items()}
print("medians (ratio to no busy loop):")
for h in sorted(med):
    base = med.get(0)
    ratio = lambda i: " (x%.2f)" % (med[h][i] / base[i]) if base and base[i] else ""
    print("  %d busy loops: span %.1f s, read %.1f us%s, write %.1f us%s, fdatasync %.1f us%s" % (
          h, med[h][0], med[h][1], ratio(1), med[h][2], ratio(2), med[h][3], ratio(3)))
PY
