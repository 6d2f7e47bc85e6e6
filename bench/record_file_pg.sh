#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Overhead of `ioreel record --level file` on PostgreSQL (issue 14's goal: pgbench TPS while
# recorded >= 0.95 x unrecorded, 0 dropped). PostgreSQL on xfs over a loop device (fsync on,
# 16 MB shared_buffers: the WAL and data files really are written and synced), pgbench TPC-B-like
# runs alternating plain (A), recorded (B) and recorded with --cpu (N: what recording the CPU
# costs is N against B), A B N, B N A, N A B, ... (each arm goes first in turn): the recorder
# follows the postmaster and every backend it forks (--pid). Prints each run's TPS and the
# host's busy CPU per transaction and, for recorded runs, the calls recorded, drops, bytes per
# call and the recorder's own CPU; then the medians of each arm and their ratios, and what one
# recorded run held (ioreel info); then, with kernel.bpf_stats_enabled, the time the BPF
# programs took per recorded call and per transaction, without and with --cpu.
# Env: SECONDS_PER_RUN (30), ROUNDS (5), STATS_ROUNDS (1: pairs of bpf_stats runs), CLIENTS (4),
# SCALE (10), ATTACH (auto: the recorder's --attach). Figures only: never fails on time.
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
txn_of() { awk '/^number of transactions actually processed:/ {print $6; exit}' "$1"; }
# the host's busy CPU time so far, in ticks (user, nice, system, irq, softirq: not idle, iowait
# or the hypervisor's steal), every process's, the recorder's and the BPF programs' included
host_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8; exit}' /proc/stat; }
# CPU_US NAME TICKS_AT_START: the host's busy CPU per transaction of run NAME, in us
cpu_us() {
	python3 -c 'import sys; t, n, hz = (float(x) for x in sys.argv[1:4]); print("%.0f" % (t / hz * 1e6 / n))' \
		"$(($(host_ticks) - $2))" "$(txn_of "$out/$1.pgbench")" "$(getconf CLK_TCK)"
}
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
printf '%-4s %-9s %10s %9s %10s %7s %8s %8s\n' run mode TPS us-cpu/tx calls drops B/call \
	rec-cpu%
a=() b=() n=() ua=() ub=() un=()
# one ARM ROUND: a pgbench run plain (a), recorded (b) or recorded with --cpu (n)
one() {
	local r=$2 calls drops bpc cpu h0 us
	if [ "$1" = a ]; then
		h0=$(host_ticks)
		PG_PGBENCH_OUT=$out/a$r.pgbench pg_pgbench_run "$secs" "$clients" >/dev/null
		a+=("$(tps_of "$out/a$r.pgbench")")
		ua+=("$(cpu_us "a$r" "$h0")")
		printf '%-4s %-9s %10s %9s\n' "$r" plain "${a[-1]}" "${ua[-1]}"
		return
	fi
	# shellcheck disable=SC2046 # the --cpu arm's one option
	start_rec "$1$r" $([ "$1" = n ] && echo --cpu)
	t0=$(cpu_ticks $rec)
	h0=$(host_ticks)
	PG_PGBENCH_OUT=$out/$1$r.pgbench pg_pgbench_run "$secs" "$clients" >/dev/null
	us=$(cpu_us "$1$r" "$h0")
	stop_rec "$1$r" "$t0"
	read -r calls drops bpc cpu <"$out/$1$r.fig"
	if [ "$1" = b ]; then
		b+=("$(tps_of "$out/b$r.pgbench")")
		ub+=("$us")
		printf '%-4s %-9s %10s %9s %10s %7s %8s %8s\n' "$r" recorded "${b[-1]}" "$us" \
			"$calls" "$drops" "$bpc" "$cpu"
	else
		n+=("$(tps_of "$out/n$r.pgbench")")
		un+=("$us")
		printf '%-4s %-9s %10s %9s %10s %7s %8s %8s\n' "$r" cpu "${n[-1]}" "$us" "$calls" \
			"$drops" "$bpc" "$cpu"
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
python3 - "${a[*]}" "${b[*]}" "${n[*]}" "${ua[*]}" "${ub[*]}" "${un[*]}" <<'PY'
import statistics, sys
a, b, n, ua, ub, un = ([float(x) for x in arg.split()] for arg in sys.argv[1:7])
ma, mb, mn = statistics.median(a), statistics.median(b), statistics.median(n)
print(f"median TPS plain {ma:.1f}, recorded {mb:.1f}: ratio {mb / ma:.3f} (goal >= 0.95)")
print(f"median TPS recorded --cpu {mn:.1f}: recording the CPU costs "
      f"{100 * (1 - mn / mb):.2f} % of the TPS (issue 23's goal: at most 1 %)")
# The host's CPU per transaction moves far less than the TPS between runs on a shared host
# (a slow run is mostly a run that waited more), so it shows a cost of 1 % where TPS cannot.
pa, pb, pn = statistics.median(ua), statistics.median(ub), statistics.median(un)
print(f"median host CPU per transaction: plain {pa:.0f} us, recorded {pb:.0f} us "
      f"({100 * (pb / pa - 1):+.2f} %), recorded --cpu {pn:.0f} us "
      f"({100 * (pn / pb - 1):+.2f} % over recorded)")
PY
echo "what the last recorded run holds:"
"$IOREEL" info "$out/b$rounds.ioreel"

# Time in the BPF programs per recorded call, from the kernel's own accounting: one more
# recorded run without and one with --cpu, not in the ratios (bpf_stats costs some 60 ns per
# program run itself). What --cpu adds per call, times the calls per transaction, against the
# host's CPU per transaction, is its cost measured where the TPS is too noisy to show it.
command -v bpftool >/dev/null || exit 0
old=$(cat /proc/sys/kernel/bpf_stats_enabled)
echo 1 >/proc/sys/kernel/bpf_stats_enabled
cleanup_push "echo $old > /proc/sys/kernel/bpf_stats_enabled"
stats_run() { # NAME [RECORD OPTION]: prints "us-of-BPF-time us-of-host-CPU", per transaction
	local h0 us
	start_rec "$1" ${2:-}
	t0=$(cpu_ticks $rec)
	h0=$(host_ticks)
	PG_PGBENCH_OUT=$out/$1.pgbench pg_pgbench_run "$secs" "$clients" >/dev/null
	us=$(cpu_us "$1" "$h0")
	bpftool prog show --json >"$out/$1.progs.json"
	awk '/^prog_id:/ {print $2}' /proc/$rec/fdinfo/* 2>/dev/null | sort -u >"$out/$1.ids"
	stop_rec "$1" "$t0"
	python3 - "$out/$1.progs.json" "$out/$1.ids" "$out/$1.ioreel.json" "$1" \
		"$(txn_of "$out/$1.pgbench")" "$us" <<'PY'
import json, sys
ids = {int(x) for x in open(sys.argv[2]).read().split()}
progs = [p for p in json.load(open(sys.argv[1])) if p["id"] in ids and p.get("run_cnt")]
calls, txn, us = json.load(open(sys.argv[3]))["events"], int(sys.argv[5]), float(sys.argv[6])
print(f"{sys.argv[4]}:", file=sys.stderr)
for p in progs:
    print(f"  {p['name']:<16} {p['run_cnt']:>10} runs {p['run_time_ns'] / p['run_cnt']:7.1f} ns/run",
          file=sys.stderr)
tot = sum(p["run_time_ns"] for p in progs)
print(f"  BPF time per recorded call (every run counted, other processes' calls included): "
      f"{tot / max(calls, 1):.0f} ns; per transaction {tot / max(txn, 1) / 1000:.1f} us of BPF "
      f"time, {calls / max(txn, 1):.1f} calls, {us:.0f} us of host CPU", file=sys.stderr)
print(f"{tot / max(txn, 1) / 1000:.2f} {us:.1f}")
PY
}
# STATS_ROUNDS pairs, alternating which goes first; medians
for ((r = 1; r <= ${STATS_ROUNDS:-1}; r++)); do
	if ((r % 2)); then
		stats_run "stats$r" >>"$out/stats.per_tx"
		stats_run "stats_cpu$r" --cpu >>"$out/stats_cpu.per_tx"
	else
		stats_run "stats_cpu$r" --cpu >>"$out/stats_cpu.per_tx"
		stats_run "stats$r" >>"$out/stats.per_tx"
	fi
done
echo "$old" >/proc/sys/kernel/bpf_stats_enabled
python3 - "$out/stats.per_tx" "$out/stats_cpu.per_tx" <<'PY'
import statistics, sys
def med(path, col):
    return statistics.median(float(l.split()[col]) for l in open(path))
bb, bn, un = med(sys.argv[1], 0), med(sys.argv[2], 0), med(sys.argv[2], 1)
print(f"BPF time per transaction (medians) {bb:.1f} us recorded, {bn:.1f} us with --cpu: --cpu "
      f"adds {bn - bb:.1f} us, {100 * (bn - bb) / un:.2f} % of the host's CPU per transaction "
      f"({un:.0f} us)")
PY
