#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Overhead of `ioreel record --level file` on PostgreSQL (issue 14's goal: pgbench TPS while
# recorded >= 0.95 x unrecorded, 0 dropped). PostgreSQL on xfs over a loop device (fsync on,
# 16 MB shared_buffers: the WAL and data files really are written and synced), pgbench TPC-B-like
# runs alternating plain (A), recorded (B) and recorded with --cpu (N: what recording the CPU
# costs is N against B), A B N, B N A, N A B, ... (each arm goes first in turn): the recorder
# follows the postmaster and every backend it forks (--pid). Prints each run's TPS and, for recorded runs, the calls
# recorded, drops, bytes per call and the recorder's own CPU; then the median TPS of each and
# their ratio, and what one recorded run held (ioreel info); then, with kernel.bpf_stats_enabled,
# the time the BPF programs took per recorded call.
# Env: SECONDS_PER_RUN (30), ROUNDS (5), CLIENTS (4), SCALE (10), ATTACH (auto: the recorder's
# --attach). Figures only: never fails on time.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/lib.sh"
. "$here/../tests/setups.sh"
. "$here/../tests/workload_pg.sh"
need_root
need_cmd python3 mkfs.xfs runuser
pg_available || skip "needs PostgreSQL with pgbench and the postgres user (make deps)"
secs=${SECONDS_PER_RUN:-30}
rounds=${ROUNDS:-5}
clients=${CLIENTS:-4}
scale=${SCALE:-10}
attach=${ATTACH:-auto}
out=$(scratch_dir)

setup_fs_loop xfs 2G >/dev/null
pg_start "$SETUP_MNT/pg"
pg_pgbench_init "$scale"
postmaster=$(head -n1 "$PG_DATA/postmaster.pid")

tps_of() { awk '/^tps = / {print $3; exit}' "$1"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

start_rec() { # NAME [RECORD OPTION]
	rec_file_start "$out/$1.ioreel" --pid "$postmaster" --attach "$attach" ${2:-}
	rec=$REC_PID
}
stop_rec() { # NAME TICKS_AT_START: "calls dropped B/call cpu%" into NAME.fig
	local ticks
	ticks=$(($(cpu_ticks $rec) - $2))
	rec_stop
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))
print(j["events"], j["dropped"], "%.2f" % j["bytes_per_event"],
      "%.1f" % (int(sys.argv[2]) * 100 / float(sys.argv[3]) / int(sys.argv[4])))' \
		"$out/$1.ioreel.json" "$ticks" "$secs" "$(getconf CLK_TCK)" >"$out/$1.fig"
}

echo "PostgreSQL on xfs over a loop device, pgbench -c $clients scale $scale, ${secs}s per run," \
	"$rounds rounds, $(nproc) CPUs, record --attach $attach"
printf '%-4s %-9s %10s %10s %7s %8s %8s\n' run mode TPS calls drops B/call rec-cpu%
a=() b=() n=()
# one ARM ROUND: a pgbench run plain (a), recorded (b) or recorded with --cpu (n)
one() {
	local r=$2 calls drops bpc cpu
	if [ "$1" = a ]; then
		PG_PGBENCH_OUT=$out/a$r.pgbench pg_pgbench_run "$secs" "$clients" >/dev/null
		a+=("$(tps_of "$out/a$r.pgbench")")
		printf '%-4s %-9s %10s\n' "$r" plain "${a[-1]}"
		return
	fi
	# shellcheck disable=SC2046 # the --cpu arm's one option
	start_rec "$1$r" $([ "$1" = n ] && echo --cpu)
	t0=$(cpu_ticks $rec)
	PG_PGBENCH_OUT=$out/$1$r.pgbench pg_pgbench_run "$secs" "$clients" >/dev/null
	stop_rec "$1$r" "$t0"
	read -r calls drops bpc cpu <"$out/$1$r.fig"
	if [ "$1" = b ]; then
		b+=("$(tps_of "$out/b$r.pgbench")")
		printf '%-4s %-9s %10s %10s %7s %8s %8s\n' "$r" recorded "${b[-1]}" "$calls" \
			"$drops" "$bpc" "$cpu"
	else
		n+=("$(tps_of "$out/n$r.pgbench")")
		printf '%-4s %-9s %10s %10s %7s %8s %8s\n' "$r" cpu "${n[-1]}" "$calls" "$drops" \
			"$bpc" "$cpu"
	fi
}
# The server runs on across the runs (its WAL and checkpoints carry over), so the arms take
# turns at going first: A B N, B N A, N A B, ...
arms=(a b n)
for ((r = 1; r <= rounds; r++)); do
	for ((k = 0; k < 3; k++)); do
		one "${arms[(r - 1 + k) % 3]}" "$r"
	done
done
python3 - "${a[*]}" "${b[*]}" "${n[*]}" <<'PY'
import statistics, sys
a, b, n = ([float(x) for x in arg.split()] for arg in sys.argv[1:4])
ma, mb, mn = statistics.median(a), statistics.median(b), statistics.median(n)
print(f"median TPS plain {ma:.1f}, recorded {mb:.1f}: ratio {mb / ma:.3f} (goal >= 0.95)")
print(f"median TPS recorded --cpu {mn:.1f}: recording the CPU costs "
      f"{100 * (1 - mn / mb):.2f} % of the TPS (issue 23's goal: at most 1 %)")
PY
echo "what the last recorded run holds:"
"$IOREEL" info "$out/b$rounds.ioreel"

# Time in the BPF programs per recorded call, from the kernel's own accounting (one more
# recorded run, not in the ratio: bpf_stats costs some 60 ns per program run itself).
command -v bpftool >/dev/null || exit 0
old=$(cat /proc/sys/kernel/bpf_stats_enabled)
echo 1 >/proc/sys/kernel/bpf_stats_enabled
cleanup_push "echo $old > /proc/sys/kernel/bpf_stats_enabled"
start_rec stats
t0=$(cpu_ticks $rec)
PG_PGBENCH_OUT=$out/stats.pgbench pg_pgbench_run "$secs" "$clients" >/dev/null
bpftool prog show --json >"$out/progs.json"
awk '/^prog_id:/ {print $2}' /proc/$rec/fdinfo/* 2>/dev/null | sort -u >"$out/ids"
stop_rec stats "$t0"
echo "$old" >/proc/sys/kernel/bpf_stats_enabled
python3 - "$out/progs.json" "$out/ids" "$out/stats.ioreel.json" <<'PY'
import json, sys
ids = {int(x) for x in open(sys.argv[2]).read().split()}
progs = [p for p in json.load(open(sys.argv[1])) if p["id"] in ids and p.get("run_cnt")]
calls = json.load(open(sys.argv[3]))["events"]
for p in progs:
    print(f"  {p['name']:<16} {p['run_cnt']:>10} runs {p['run_time_ns'] / p['run_cnt']:7.1f} ns/run")
tot = sum(p["run_time_ns"] for p in progs)
if calls:
    print(f"BPF time per recorded call (every run counted, other processes' calls included): "
          f"{tot / calls:.0f} ns")
PY
