#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Does a replay predict the real workload on a candidate? PostgreSQL pgbench runs for real,
# recorded with `ioreel record` at the loop device under its xfs, on stacks that differ only
# below that device:
#   A  the loop device's backing file on the host's filesystem (the "production" stack)
#   B  its backing file on btrfs RAID6 across four loop devices (a slower candidate)
#   C  stack A with blk-throttle limits (cgroup io.max, or v1 blkio.throttle) on the loop
#      device, for the database and for the replayer alike: a control slowed by a known rule
# Every run starts from the same database image (xfs with pgbench's tables, made once, copied
# back before each run) with cold caches; the server runs in a memory cgroup (MEMORY) so that
# its reads keep reaching the device instead of a page cache that would soon hold the whole
# database. A's first recording is then replayed onto B's, C's and A's own device (restored
# from the same image) in timed, afap and dep modes, recorded there by `ioreel record` too,
# and each replay's figures are set against the real runs on that stack, both seen by the same
# recorder at the same device: IOPS per op, mean and p99 latency per op (block_io_start to
# completion), and the slowdown (TPS of A over TPS of the stack; the replay's duration over
# the trace's). The replay's own view (release or deadline to completion, which holds the
# time an I/O waited in the replayer, as under timed mode's in-flight cap) is printed below
# each table. The real runs' own spread (min-max over REPEATS) stands beside each figure.
# blk-throttle holds a bio back before block_io_start: the recorder does not see C's wait in
# its latencies, for the real runs and the replays alike (they still show in IOPS and the
# slowdown). Figures only: never fails on time.
# Env: SECONDS_PER_RUN (30), REPEATS (3), SCALE (pgbench scale, 20), CLIENTS (4),
#      SIZE (MiB of the xfs image, 1536), THROTTLE ("RIOPS WIOPS" for C, "600 600"),
#      MEMORY (the server's memory cgroup limit, 160M), MODES ("timed afap dep"; a mode may
#      be NAME=MODE,OPTION,... for a variant, e.g. dep-kthr=dep,--dep-barrier,kthread),
#      STACKS ("A B C"), PREDICT_OUT (build/bench/predict).
# Takes about (3 x REPEATS + 3 x #MODES) x (SECONDS_PER_RUN + 20 s), more on slow candidates.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/lib.sh"
. "$here/../tests/setups.sh"
. "$here/../tests/workload_pg.sh"
need_root
need_cmd python3 mkfs.xfs mkfs.btrfs btrfs runuser
pg_available || skip "needs PostgreSQL with pgbench (make deps installs postgresql)"
secs=${SECONDS_PER_RUN:-30}
repeats=${REPEATS:-3}
scale=${SCALE:-20}
clients=${CLIENTS:-4}
size=${SIZE:-1536}
read -r riops wiops <<<"${THROTTLE:-600 600}"
memory=${MEMORY:-160M}
modes=${MODES:-timed afap dep}
stacks=${STACKS:-A B C}
out=${PREDICT_OUT:-$BUILD/bench/predict}
mkdir -p "$out" && rm -f "$out"/*.ioreel "$out"/*.json "$out"/*.csv "$out"/*.out
S=$SETUPS_DIR
log() { printf '%s %s\n' "$(date +%T)" "$*"; }

# The database image every run starts from.
log "making the image: xfs ${size} MiB, pgbench scale $scale"
golden=$S/golden.img
truncate -s "${size}M" "$golden"
dev=$(losetup -f --show --direct-io=on "$golden") || fail "losetup $golden"
_setups_mkfs xfs "$dev"
mnt=$(_setups_mount golden "$dev") || exit 1
pg_start "$mnt/pg"
pg_pgbench_init "$scale"
pg_stop
umount "$mnt" && losetup -d "$dev" || fail "cannot release the image's loop device"

# Where each stack keeps the xfs image's backing file.
declare -A file
file[A]=$S/a.img
file[C]=$S/c.img
if [[ " $stacks " == *" B "* ]]; then
	setup_btrfs_raid raid6 "$size" >/dev/null
	file[B]=$SETUP_MNT/b.img
	log "B: btrfs raid6 (metadata $SETUP_MPROFILE) over ${SETUP_DEVS[*]}"
fi

# attach STACK: the image restored into the stack's file, on a fresh loop device (DEV); for C
# also a throttled cgroup for that device (PROCS).
attach() {
	local f=${file[$1]}
	cp --sparse=always "$golden" "$f" && sync -f "$f" || fail "cannot restore the image to $f"
	DEV=$(losetup -f --show --direct-io=on "$f") || fail "losetup $f"
	PROCS=
	if [ "$1" = C ]; then
		PROCS=$(make_throttled_cgroup "$(dev_majmin "$DEV")" "$riops" "$wiops") || exit 1
	fi
}
detach() { losetup -d "$DEV" || fail "cannot detach $DEV"; }

# real STACK I: pgbench on the stack, recorded at its loop device.
real() {
	local st=$1 i=$2 m tps
	attach "$st"
	m=$(_setups_mount "run-$st" "$DEV") || exit 1
	# The server's processes inherit the cgroups of the subshell that starts it: the memory
	# limit, and on C the throttle.
	(
		echo $BASHPID >"$MEMPROCS" || exit 1
		[ -z "$PROCS" ] || echo $BASHPID >"$PROCS" || exit 1
		pg_resume "$m/pg"
	) || fail "cannot start PostgreSQL on $st"
	pg_use "$m/pg"
	rec_start "$DEV" "$out/real-$st-$i.ioreel"
	PG_PGBENCH_OUT=$out/real-$st-$i.out pg_pgbench_run "$secs" "$clients" >/dev/null
	rec_stop
	pg_stop
	umount "$m" || fail "umount $m"
	detach
	tps=$(awk '/^tps/ { print $3; exit }' "$out/real-$st-$i.out")
	log "real $st run $i: $tps TPS, $("$IOREEL" info "$out/real-$st-$i.ioreel" --json |
		python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["events"], "I/Os,", j["dropped"], "dropped")')"
}

# replay STACK MODE: A's first recording replayed on the stack's device, restored first. MODE
# is a replay mode, or NAME=MODE,OPTION,... (the results are named NAME).
replay() {
	local st=$1 mode=$2 rc=0 opts=()
	if [[ $mode == *=* ]]; then
		IFS=, read -r -a opts <<<"${mode#*=}"
		mode=${mode%%=*}
		opts=(--mode "${opts[@]}")
	else
		opts=(--mode "$mode")
	fi
	attach "$st"
	rec_start "$DEV" "$out/obs-$st-$mode.ioreel"
	(
		[ -z "$PROCS" ] || echo $BASHPID >"$PROCS" || exit 1
		exec "$IOREEL" replay "$out/real-A-1.ioreel" --target "$DEV" --allow-writes --force \
			"${opts[@]}" -o "$out/pred-$st-$mode.ioreel" -q --json
	) >"$out/pred-$st-$mode.json" 2>"$out/pred-$st-$mode.err" || rc=$?
	rec_stop
	detach
	[ $rc = 0 ] || fail "replay $mode on $st: $(tail -n 3 "$out/pred-$st-$mode.err")"
	log "replay $mode on $st: $(python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["fidelity"]
print("%.2f s, stretch %+.1f%%, max in flight %d, cap hit %d times" % (f["replay_span_ns"] / 1e9,
      100 * (f["stretch"] or 0), f["max_inflight"], f["cap_hits"]))' "$out/pred-$st-$mode.json")"
}

MEMPROCS=$(make_memory_cgroup "$(numfmt --from=iec "$memory")") || exit 1

# Real runs, interleaved across stacks (A B C A B C ...) so that drift on this shared machine
# spreads over all of them.
real_stacks=$(printf '%s\n' A $stacks | awk '!seen[$0]++' | tr '\n' ' ')
for ((i = 1; i <= repeats; i++)); do
	for st in $real_stacks; do
		real "$st" "$i"
	done
done
for st in $stacks; do
	for mode in $modes; do
		replay "$st" "$mode"
	done
done

# The table.
for f in "$out"/*.ioreel; do
	"$IOREEL" convert "$f" "${f%.ioreel}.csv" --to csv >/dev/null || fail "export $f"
done
python3 - "$out" "$repeats" "$stacks" "$(for m in $modes; do printf '%s ' "${m%%=*}"; done)" <<'PY' | tee "$out/table.txt"
import csv, glob, json, os, re, statistics, sys
out, repeats, stacks, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
OPS = ("read", "write", "flush")

def figures(path):
    """Per op: IOPS over the run's span, mean and p99 of completion - queue, in us."""
    rows = [r for r in csv.DictReader(l for l in open(path) if not l.startswith("#"))]
    q = [int(r["queue_ns"]) for r in rows if r["queue_ns"]]
    c = [int(r["complete_ns"]) for r in rows if r["complete_ns"]]
    span = (max(c) - min(q)) / 1e9
    f = {"span": span}
    for op in OPS:
        lat = sorted(int(r["complete_ns"]) - int(r["queue_ns"]) for r in rows
                     if r["op"] == op and r["complete_ns"] and r["queue_ns"])
        if not lat:
            continue
        f[op + " IOPS"] = len(lat) / span
        f[op + " mean"] = statistics.fmean(lat) / 1e3
        f[op + " p99"] = lat[min(len(lat) - 1, int(len(lat) * 0.99))] / 1e3
    return f

def tps(st, i):
    m = re.search(r"^tps = ([\d.]+)", open(f"{out}/real-{st}-{i}.out").read(), re.M)
    return float(m.group(1))

real = {st: [figures(f"{out}/real-{st}-{i}.csv") for i in range(1, repeats + 1)]
        for st in set(stacks) | {"A"} if os.path.exists(f"{out}/real-{st}-1.csv")}
tpss = {st: [tps(st, i) for i in range(1, repeats + 1)] for st in real}
trace = figures(f"{out}/real-A-1.csv")
summary = {"repeats": repeats, "tps": tpss, "stacks": {}}
print("Replays of A's first recording (%.1f s) against the real runs on each stack; real: median"
      " [min-max] of %d runs; replays: the figure and its ratio to the real median." %
      (trace["span"], repeats))
for st in stacks:
    if st not in real:
        continue
    rs = real[st]
    # the replays as the recorder saw them at the device, as it saw the real runs
    preds = {m: figures(f"{out}/obs-{st}-{m}.csv") for m in modes
             if os.path.exists(f"{out}/obs-{st}-{m}.csv")}
    # and as the replayer saw them: release (dep) or deadline (timed) to completion
    own = {m: figures(f"{out}/pred-{st}-{m}.csv") for m in preds}
    slow_real = [statistics.median(tpss["A"]) / t for t in tpss[st]]
    print("\nstack %s: TPS %s (A: %s)" % (st, " ".join("%.0f" % t for t in tpss[st]),
                                         " ".join("%.0f" % t for t in tpss["A"])))
    print("%-16s %-28s" % ("figure", "real") + "".join("%-20s" % m for m in preds))
    rows = [("slowdown", statistics.median(slow_real), min(slow_real), max(slow_real),
             {m: p["span"] / trace["span"] for m, p in own.items()})]
    for k in [op + " " + w for op in OPS for w in ("IOPS", "mean", "p99")]:
        vals = [r[k] for r in rs if k in r]
        if vals:
            rows.append((k, statistics.median(vals), min(vals), max(vals),
                         {m: p.get(k) for m, p in preds.items()}))
    st_sum = {}
    for k, med, lo, hi, pm in rows:
        unit = "x" if k == "slowdown" else (" IOPS" if k.endswith("IOPS") else " us")
        line = "%-16s %-28s" % (k.replace(" IOPS", " IOPS/s").replace("mean", "mean lat")
                                 .replace("p99", "p99 lat"),
                                "%.4g [%.4g-%.4g]" % (med, lo, hi))
        for m, v in pm.items():
            line += "%-20s" % ("-" if v is None else "%.4g (x%.2f)" % (v, v / med if med else 0))
        print(line)
        st_sum[k] = {"real_median": med, "real_min": lo, "real_max": hi,
                     "pred": pm, "ratio": {m: (v / med if v is not None and med else None)
                                           for m, v in pm.items()}}
    print("the replayer's own view (release or deadline to completion):")
    for op in OPS:
        print("%-45s" % ("  %s mean lat" % op) + "".join(
            "%-20s" % ("%.4g" % o[op + " mean"] if op + " mean" in o else "-")
            for o in own.values()))
    summary["stacks"][st] = st_sum
json.dump(summary, open(f"{out}/predict.json", "w"), indent=1)
PY
log "traces, results and the table in $out"
