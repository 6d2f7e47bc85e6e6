#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The whole job, for real (issue 7): PostgreSQL + pgbench on xfs over a loop device, 20 s of it
# recorded with `ioreel record` on that device, replayed onto (1) a raw loop device, (2) a file on
# btrfs raid6 over four loop devices, (3) a file on ext4 over a loop device, and all analyzed with
# --compare. Asserts: the recording dropped nothing and holds the reads the kernel completed on
# the device meanwhile; every replay issued as many I/Os and bytes per op as the trace holds;
# the null-engine replay kept the trace's schedule (its span, not its lateness: lateness is a
# benchmark figure, bench/replay_fidelity.sh, and flakes as a test on a shared 2-core machine);
# the comparison has rows for every trace.
# Everything is torn down, pass or fail.
# timeout: 900
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../setups.sh"
. "$here/../workload_pg.sh"
need_root
need_cmd python3 mkfs.xfs mkfs.ext4 mkfs.btrfs btrfs runuser
for verb in record replay analyze info; do
	ioreel_has $verb || skip "waiting for ioreel record/replay/analyze (ioreel $verb not built yet)"
done
pg_available || skip "needs PostgreSQL with pgbench and the postgres user (make deps installs postgresql)"

secs=${E2E_SECONDS:-20}
out=$(scratch_dir)

# A checker for the JSON documents, reading the keys the verbs document.
cat >"$out/check.py" <<'PY'
import json, sys

def load(p):
    try:
        with open(p) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("%s: not a JSON document: %s" % (p, e))

def get(p, path):
    d = load(p)
    for k in path.split("."):
        if not isinstance(d, dict) or k not in d:
            sys.exit("%s: no '%s'" % (p, path))
        d = d[k]
    return d

def ops(p):
    """ioreel info --json: {op: (I/Os, bytes)} for the ops present."""
    n, b = get(p, "ops"), get(p, "op_bytes")
    return {op: (int(n[op]), int(b[op])) for op in n if n[op]}

cmd, p = sys.argv[1], sys.argv[2]
if cmd == "get":
    print(get(p, sys.argv[3]))
elif cmd == "op-count":
    print(ops(p).get(sys.argv[3], (0, 0))[0])
elif cmd == "same-ops":
    # trace info, result info, replay --json: the same I/Os per op, and the same bytes unless
    # replay rounded lengths up to the target's block size (then it says how many: realigned).
    a, b = ops(p), ops(sys.argv[3])
    realigned = int(get(sys.argv[4], "fidelity.realigned"))
    bad = []
    for op in sorted(set(a) | set(b)):
        (na, ba), (nb, bb) = a.get(op, (0, 0)), b.get(op, (0, 0))
        if na != nb or bb < ba or (bb != ba and not realigned):
            bad.append("%s: trace %d I/Os %d bytes, replay %d I/Os %d bytes (%d realigned)" %
                       (op, na, ba, nb, bb, realigned))
    if bad:
        sys.exit("; ".join(bad))
    print(" ".join("%s=%d" % (op, a[op][0]) for op in sorted(a)),
          "(%d realigned to the target's block size)" % realigned if realigned else "")
elif cmd == "rows":
    # Every trace given to --compare has rows in the comparison (by its file name).
    have = {r["trace"].rsplit("/", 1)[-1] for r in get(p, "ioreel.compare.rows")}
    missing = [n for n in sys.argv[3:] if n not in have]
    if missing:
        sys.exit("comparison JSON has no row for %s" % ", ".join(missing))
PY
# In $(...) a failure only ends the subshell: callers add "|| exit 1".
check() { python3 "$out/check.py" "$@" || fail "check $*"; }

echo "== workload: PostgreSQL on xfs over a loop device"
setup_fs_loop xfs 512 >/dev/null
src=$SETUP_DEV
size=$(blockdev --getsize64 "$src")
pg_start "$SETUP_MNT/pg"
pg_pgbench_init 5

echo "== recording $secs s of pgbench on $src"
# Reads completed, from the kernel's own disk statistics. Writes are not compared: the kernel
# accounts a request that the flush machinery sequences (a write with preflush/FUA on a device
# without FUA, as a loop device is) once at its data completion and again at the end of the
# sequence, so /sys/block/X/stat counts those writes twice; flushes are not counted there.
stat_of() { awk '{ print $1 }' "/sys/block/${1#/dev/}/stat"; }
rec_start "$src" "$out/trace.ioreel"
k0=$(stat_of "$src")
pg_pgbench_run "$secs" 4
k1=$(stat_of "$src")
rec_stop
pg_stop
"$IOREEL" info "$out/trace.ioreel" --json >"$out/trace.info.json" || fail "ioreel info on the trace"
dropped=$(check get "$out/trace.info.json" dropped) || exit 1
events=$(check get "$out/trace.info.json" events) || exit 1
reads=$(check op-count "$out/trace.info.json" read) || exit 1
echo "recorded $events events ($reads reads), $dropped dropped; the kernel completed $((k1 - k0)) reads on $src meanwhile"
# on a drop, say which cause (ring buffer, in-flight table, stale, nested...: record/LEVELS.md)
[ "$dropped" = 0 ] || "$IOREEL" info "$out/trace.ioreel" | grep -E '^  dropped' >&2
assert_eq "$dropped" 0 "dropped events in the recording"
# The recording spans the counting window, less the reads already in flight when it started.
[ "$reads" -ge $((k1 - k0 - 64)) ] ||
	fail "the trace holds $reads reads but $src completed $((k1 - k0)) while recording"

# The candidates. Targets are as large as the recorded device so no offset wraps.
declare -A target
setup_raw_loop "$((size >> 20))" >/dev/null
target[raw]=$SETUP_DEV
setup_btrfs_raid raid6 768 >/dev/null
target[btrfs-raid6]=$SETUP_MNT/target.img
setup_fs_loop ext4 1024 >/dev/null
target[ext4]=$SETUP_MNT/target.img

# The replayer's own timing on this real trace, without a target in the way (null engine), and
# without the recorded CPU load, which is there to make the replay compete (--cpu idle).
echo "== replay with the null engine (scheduler fidelity)"
"$IOREEL" replay "$out/trace.ioreel" --target "${target[raw]}" --engine null --allow-writes \
	--cpu idle --json >"$out/run-null.json" 2>"$out/run-null.log" || fail "null replay: $(tail -n 3 "$out/run-null.log")"
p99=$(check get "$out/run-null.json" fidelity.lateness_ns.p99) || exit 1
stretch=$(check get "$out/run-null.json" fidelity.stretch) || exit 1
echo "null engine: lateness p99 $p99 ns, stretch $stretch (figures only: bench/ holds the goals)"
# Function, not timing: a timed replay takes the trace's span, not a fraction of it (afap) nor
# a multiple. 20 % is two orders of magnitude above what a healthy run shows (0.00 %).
python3 -c "import sys; sys.exit(abs(float('$stretch')) > 0.2)" || fail "null replay: stretch $stretch: the schedule was not kept"

runs=()
for name in raw btrfs-raid6 ext4; do
	t=${target[$name]}
	echo "== replay on $name ($t)"
	szopt=()
	[ -b "$t" ] || szopt=(--size "$size")
	"$IOREEL" replay "$out/trace.ioreel" --target "$t" "${szopt[@]}" --allow-writes \
		-o "$out/run-$name.ioreel" --json >"$out/run-$name.json" 2>"$out/run-$name.log" ||
		fail "ioreel replay on $name ($t) failed: $(tail -n 5 "$out/run-$name.log")"
	"$IOREEL" info "$out/run-$name.ioreel" --json >"$out/run-$name.info.json" ||
		fail "ioreel info on run-$name.ioreel"
	issued=$(check same-ops "$out/trace.info.json" "$out/run-$name.info.json" "$out/run-$name.json") ||
		exit 1
	echo "issued: $issued"
	p99=$(check get "$out/run-$name.json" fidelity.lateness_ns.p99) || exit 1
	caps=$(check get "$out/run-$name.json" fidelity.cap_hits) || exit 1
	echo "lateness p99 on $name: $p99 ns, in-flight cap hit $caps times (figures only)"
	runs+=("$out/run-$name.ioreel")
done

echo "== comparison"
"$IOREEL" analyze "$out/trace.ioreel" "${runs[@]}" --compare | tee "$out/compare.txt" ||
	fail "ioreel analyze --compare (text)"
for name in raw btrfs-raid6 ext4; do
	grep -q "run-$name" "$out/compare.txt" || fail "comparison table has no row for run-$name"
done
"$IOREEL" analyze "$out/trace.ioreel" "${runs[@]}" --compare --json >"$out/compare.json" ||
	fail "ioreel analyze --compare --json"
check rows "$out/compare.json" trace.ioreel run-raw.ioreel run-btrfs-raid6.ioreel run-ext4.ioreel
echo "ok"
