#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The fleet's one clock on this host (ioreel-mpi, issue 15): how well an injected offset is
# recovered, the start skew across ranks with ioreel-mpi's start (announced ahead, sleep then
# spin) against an MPI_Barrier (IOR's start), measured on the host's one CLOCK_MONOTONIC; and
# each rank's lateness in a timed replay (Poisson 4 KiB reads on a zram of its own per rank).
# Over shared memory and TCP loopback. Figures only, never pass/fail; run on a quiet machine,
# where each rank has a core of its own (NP <= cores); the load and, in a VM, the time the
# hypervisor stole during the starts are printed beside them.
# Env: NP (ranks, default 2), STARTS (default 1000), RATE (IOPS per rank, default 10000),
# SECONDS_PER_RUN (default 5), TRANSPORTS (default "shm tcp").
want=${TRANSPORTS:-}
. "$(dirname "$0")/../tests/lib.sh"
. "$(dirname "$0")/../tests/integration/mpi_common.inc"
np=${NP:-2} starts=${STARTS:-1000} rate=${RATE:-10000} secs=${SECONDS_PER_RUN:-5}
TRANSPORTS=${want:-$TRANSPORTS}
d=$(scratch_dir)
cd "$d" || exit 1
echo "host: $(nproc) cores, $np ranks; Open MPI $(mpirun --version | head -1 | awk '{print $4}')"

# steal: CPU time the hypervisor took from this machine (VM) since boot, in ms (/proc/stat)
steal_ms() { awk -v hz="$(getconf CLK_TCK)" '/^cpu /{print int($9 * 1000 / hz)}' /proc/stat; }

for t in $TRANSPORTS; do
	echo "== $t: offsets and start skew ($starts starts, 20ms ahead; $np ranks)"
	IOREEL_TEST_CLOCK_SKEW_NS=1234567 fleet "$t" "$np" clock --starts 10 --gap 1s --json \
		>off.json 2>/dev/null || echo "clock with an injected offset failed"
	# The host's load and the hypervisor's steal during the starts: a start is late by any
	# interrupt or stolen time that catches a rank at it, whatever its priority (mpi/README.md).
	s0=$(steal_ms) l0=$(cut -d' ' -f1 /proc/loadavg) t0=$(date +%s)
	fleet "$t" "$np" clock --starts "$starts" --gap 1s --json >clk.json 2>/dev/null ||
		echo "clock failed"
	echo "  during the starts: load average $l0 to $(cut -d' ' -f1 /proc/loadavg);" \
		"steal $(($(steal_ms) - s0)) ms over $(($(date +%s) - t0)) s ($(nproc) CPUs)"
	fleet "$t" "$np" clock --starts "$starts" --gap 0 --barrier --json >bar.json 2>/dev/null ||
		echo "clock --barrier failed"
	python3 - <<'PY'
import json
o, c, b = (json.load(open(f)) for f in ("off.json", "clk.json", "bar.json"))
errs = [abs(r["error_ns"]) for r in o["per_rank"]]
print("  injected offset 1234567 ns x rank: worst error %d ns, uncertainties %s ns"
      % (max(errs), [r["uncertainty_ns"] for r in o["per_rank"]]))
print("  drift over 1 s (one host: should be ~0): %s ppm" % [round(r["drift_ppm"], 3) for r in c["per_rank"]])
for name, x in (("ioreel-mpi start", c), ("MPI_Barrier     ", b)):
    s = x["skew_ns"]
    print("  %s skew: p50 %7.2f us  p99 %8.2f us  max %9.2f us" % (name, s["p50"] / 1e3, s["p99"] / 1e3, s["max"] / 1e3))
for r in c["per_rank"]:
    l = r["start_late_ns"]
    print("  rank %d woke after its start: p50 %.2f us  p99 %.2f us  max %.2f us"
          % (r["rank"], l["p50"] / 1e3, l["p99"] / 1e3, l["max"] / 1e3))
PY
done

# Timed replay lateness: every rank replays the same Poisson schedule on a zram of its own.
"$IOREEL" synth --rw randread --bs 4k --size 512m --rate-iops "$rate" --arrivals poisson \
	--runtime "$secs" -o p.ioreel >/dev/null || exit 1
for r in $(seq 0 $((np - 1))); do
	z=$(make_zram 600)
	dd if=/dev/urandom of="$z" bs=1M count=512 oflag=direct status=none # written: not zero pages
	ln -s "$z" "z$r"
done
for t in $TRANSPORTS; do
	echo "== $t: timed replay, $rate IOPS of 4 KiB random reads per rank, ${secs}s, $np ranks"
	fleet "$t" "$np" replay p.ioreel --each --target "$d/z%r" --json >rep.json 2>rep.err ||
		{ tail -5 rep.err; continue; }
	python3 - <<'PY'
import json
d = json.load(open("rep.json"))
for c in d["client_stats"]:
    f, l = c["ioreel_fleet"], c["ioreel_fleet"]["lateness_ns"]["percentile"]
    print("  rank %d: %d I/Os, late p50 %.1f us  p99 %.1f us  p99.9 %.1f us; start %+.2f us; stretch %s; bound %.1f us"
          % (c["rank"], c["read"]["total_ios"], l["50.000000"] / 1e3, l["99.000000"] / 1e3,
             l["99.900000"] / 1e3, f["start"]["late_ns"] / 1e3, f["fidelity"]["stretch"],
             f["global_error_bound_ns"] / 1e3))
fl = d["fleet"]
l = fl["lateness_ns"]["percentile"]
print("  fleet: late p50 %.1f us  p99 %.1f us  p99.9 %.1f us; start skew %.2f us (measured %.2f us); global bound %.1f us (rank %d)"
      % (l["50.000000"] / 1e3, l["99.000000"] / 1e3, l["99.900000"] / 1e3, fl["start"]["skew_ns"] / 1e3,
         fl["start"].get("measured_skew_ns", 0) / 1e3, fl["global_error_bound_ns"] / 1e3, fl["worst_rank"]))
PY
done
