#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# timeout: 300
# record --cpu measures the CPU time a thread spends between its calls (issue 23): a program
# that burns a known amount of its own CPU (50 us, 500 us, 5 ms, on its thread CPU clock)
# before each 4 KiB read is recorded at file level and at block level (O_DIRECT reads of a
# loop device). File level: the median on-CPU time the trace holds before each read, less the
# median of a run that burns nothing (the thread's own work around each read, ~4 us, timed from
# the previous call's return), is within 10 % of what was burned. Block level, where the gap
# runs from one I/O's submission to the next: within 10 % (or 15 us) of the burner's own median
# CPU per cycle, and from one burn to the next it grows by the burns' difference within 10 %. Without --cpu the trace holds no CPU data, and info says so. A function test:
# CPU time measured, not elapsed time.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"

burner=$BUILD/tests/tools/cpu_burner
[ -x "$burner" ] || fail "$burner is not built (make check builds it)"
dir=$(scratch_dir)
dev=$(make_loop 64)
dd if=/dev/urandom of="$dir/data" bs=1M count=1 status=none || fail "cannot write $dir/data"
dd if="$dir/data" of="$dev" bs=1M oflag=direct status=none || fail "cannot write $dev"

# p50 TRACE: the trace's median on-CPU time before an event, ns
p50() {
	local n p
	"$IOREEL" info --json "$1" >"$1.info" || fail "ioreel info $1 failed"
	read -r n p < <(python3 -c 'import json,sys
c = json.load(open(sys.argv[1]))["cpu"]
print(c["oncpu_events"], c["oncpu_p50_ns"])' "$1.info") || fail "no cpu in $1.info"
	[ "$n" -ge 10 ] || fail "$1: only $n events carry on-CPU time"
	echo "$p"
}

# within TRACE BURN_US BASE_NS PCT [STEAL_NS]: the trace's median on-CPU time less BASE_NS is
# BURN_US +-PCT %, plus the hypervisor's steal per call (within_used says why)
within() {
	local p
	p=$(p50 "$1")
	echo "  $(basename "$1"): median on-CPU $p ns for $2 us burned ($3 ns without;" \
		"${5:-0} ns stolen per call)"
	python3 -c 'import sys
p50, want, base, pct, steal = (int(x) for x in sys.argv[1:6])
want *= 1000
sys.exit(0 if abs(p50 - base - want) <= want * pct / 100 + steal else 1)' \
		"$p" "$2" "$3" "$4" "${5:-0}"
}

# steal_ns: the time the hypervisor has taken from this machine's CPUs (/proc/stat), ns
steal_ns() { awk -v hz="$(getconf CLK_TCK)" '/^cpu /{printf "%d\n", $9 * 1e9 / hz}' /proc/stat; }

# within_used TRACE BURN_US USED_NS PCT [STEAL_NS]: the median on-CPU time is the thread's own
# median CPU per cycle (USED_NS, the burner's clock) within PCT % or 15 us, whichever is more,
# plus the hypervisor's steal per cycle (STEAL_NS, over the run's cycles): the recorder times a
# thread's stretch on a CPU by the clock, the thread's CPU clock leaves out what the hypervisor
# took meanwhile, and a run on a host losing CPU to its neighbours read 120-205 us for 95-98
# used, three times in a row (it passes on a quiet host). On a host of
# 2026-12-04 the recorded gap came 7-13 us below the thread's clock at every burn (50, 500 and
# 5000 us: 62-63 against 69-76 us, 523 against 535, 5044 against 5049), a constant part of the
# read's path, not of the burn, and not explained yet. What was burned is checked apart from it,
# in the differences between the burns (below). Sets $p50 (ns).
within_used() {
	p50=$(p50 "$1")
	echo "  $(basename "$1"): median on-CPU $p50 ns for $2 us burned ($3 ns used per cycle;" \
		"${5:-0} ns stolen per cycle)"
	python3 -c 'import sys
p50, used, pct, steal = (int(x) for x in sys.argv[1:5])
sys.exit(0 if abs(p50 - used) <= max(used * pct / 100, 15000) + steal else 1)' \
		"$p50" "$3" "$4" "${5:-0}"
}

rec_start "$dir/f0.ioreel" --level file --comm cpu_burner --cpu
"$burner" "$dir/data" 0 1000 || fail "cpu_burner failed"
rec_stop || fail "record (file level) exited $?: $(cat "$dir/f0.ioreel.err")"
fbase=$(p50 "$dir/f0.ioreel")

# A busy host can preempt the burner inside a read and make the kernel's part of one run
# slower than the baseline's (cold caches): up to three recordings per case, each reported.
for burn in 50 500 5000; do
	n=$((200000 / burn + 20))
	for try in 1 2 3; do
		rec_start "$dir/f$burn.ioreel" --level file --comm cpu_burner --cpu
		s0=$(steal_ns)
		"$burner" "$dir/data" "$burn" "$n" || fail "cpu_burner failed"
		s1=$(steal_ns)
		rec_stop || fail "record (file level) exited $?: $(cat "$dir/f$burn.ioreel.err")"
		within "$dir/f$burn.ioreel" "$burn" "$fbase" 10 $(((s1 - s0) / n)) && break
		[ $try = 3 ] && fail "file level: on-CPU time beyond 10 % of $burn us three times"
	done
	# Block level: an I/O's on-CPU time runs from the previous submission to its own, so it
	# holds the read's path too, which costs more with reads spaced out (the loop device's
	# worker asleep, woken by an IPI: 30-45 us in this VM at 500 us apart, 8 us back to back),
	# so the truth is the burner's own thread CPU per cycle (burn and read), not the burn plus
	# a back-to-back base (which put 500 us at +10 % and failed there). Against it the
	# medians agree within 1 % at 50, 500 and 5000 us.
	for try in 1 2 3; do
		rec_start "$dir/b$burn.ioreel" -d "$dev" --comm cpu_burner --cpu
		s0=$(steal_ns)
		used=$("$burner" "$dev" "$burn" "$n" direct cycles) || fail "cpu_burner (direct) failed"
		s1=$(steal_ns)
		rec_stop || fail "record (block level) exited $?: $(cat "$dir/b$burn.ioreel.err")"
		stolen[$burn]=$(((s1 - s0) / n))
		within_used "$dir/b$burn.ioreel" "$burn" "${used#cycle_p50 }" 10 \
			"${stolen[$burn]}" && break
		[ $try = 3 ] && fail "block level: on-CPU time beyond 10 % of the thread's own three times"
	done
	blk[$burn]=$p50
done
# what was burned, at block level: from one burn to the next the recorded gap grows by the
# difference of the burns, within 10 % (a constant part of the read's path cancels out), plus
# what the hypervisor took per cycle in the two runs (within_used)
python3 -c 'import sys
b50, b500, b5000, s50, s500, s5000 = (int(x) for x in sys.argv[1:])
for lo, hi, d, s in ((b50, b500, 450e3, s50 + s500), (b500, b5000, 4500e3, s500 + s5000)):
    print("  block level: %.1f us more for %.0f us more burned" % ((hi - lo) / 1e3, d / 1e3))
    assert abs(hi - lo - d) <= d * 0.10 + s, (lo, hi, d, s)' "${blk[50]}" "${blk[500]}" \
	"${blk[5000]}" "${stolen[50]}" "${stolen[500]}" "${stolen[5000]}" ||
	fail "block level: the recorded on-CPU time does not grow with the burn"

# the CPU load entries: present, the recorded threads' CPU in them, and they end at the stop
# (rec_stop signals as the burner's last read returns), not after the recorder's detach, which
# at file level waits for a grace period per tracepoint (6.7 s here) and stretched the last
# entry over it (info's shares then came out a quarter low on a 22 s recording)
for t in f5000 b5000; do
	"$IOREEL" info --json "$dir/$t.ioreel" >"$dir/$t.ioreel.info" || fail "ioreel info $t failed"
	python3 -c 'import json,sys
j = json.load(open(sys.argv[1])); c = j["cpu"]
assert c["load_intervals"] > 1 and c["ncpus"] >= 1, c
assert c["traced_cpu_s"] > 0, c
assert c["load_span_s"] <= j["last_ns"] / 1e9 + 1.0, (c["load_span_s"], j["last_ns"])' \
		"$dir/$t.ioreel.info" || fail "CPU load of $t: $(cat "$dir/$t.ioreel.info")"
done

# convert gives each file-level call its on-CPU time (oncpu_ns, the last CSV column): the reads
# of the 5 ms case carry about 5 ms
"$IOREEL" convert "$dir/f5000.ioreel" "$dir/f5000.csv" --to csv >/dev/null ||
	fail "convert of f5000 to CSV failed"
python3 -c 'import csv,sys,statistics
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
v = [int(r["oncpu_ns"]) for r in rows if r["op"] == "read" and r["oncpu_ns"]]
assert len(v) >= 10, len(v)
m = statistics.median(v)
assert 4.5e6 < m < 5.5e6, m' "$dir/f5000.csv" || fail "the CSV's oncpu_ns is not the 5 ms burned"

# and block-level I/Os theirs, as the last CSV column: the 5 ms case's carry about 5 ms, and a
# CSV read back into a trace keeps them
"$IOREEL" convert "$dir/b5000.ioreel" "$dir/b5000.csv" --to csv >/dev/null ||
	fail "convert of b5000 to CSV failed"
python3 -c 'import csv,sys,statistics
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
v = [int(r["oncpu_ns"]) for r in rows if r["oncpu_ns"]]
assert len(v) >= 10, len(v)
m = statistics.median(v)
assert 4.5e6 < m < 5.5e6, m' "$dir/b5000.csv" || fail "the block CSV's oncpu_ns is not the 5 ms burned"
"$IOREEL" convert "$dir/b5000.csv" "$dir/b5000rt.ioreel" --from csv >/dev/null ||
	fail "the block CSV with oncpu_ns does not convert back"
"$IOREEL" info --json "$dir/b5000rt.ioreel" >"$dir/b5000rt.info" || fail "info of the round trip"
[ "$(p50 "$dir/b5000rt.ioreel")" = "$(p50 "$dir/b5000.ioreel")" ] ||
	fail "oncpu_ns lost in the CSV round trip: $(cat "$dir/b5000rt.info")"

# Each call's wait for a CPU (format 1.8): the burner, pinned beside a busy loop on one CPU,
# counts the wait inside its own reads from the scheduler (/proc/thread-self/schedstat around
# each read); the trace's per-call waits must add up to it, within 20 % and 1 ms: what falls
# between the burner's two looks and the call's entry and return (a preemption on the way back
# to user space) is the burner's only; measured 4-8 % less in the trace.
need_cmd taskset
direct=direct
"$burner" "$dir/data" 0 1 direct >/dev/null 2>&1 || direct=
taskset -c 0 sh -c 'while :; do :; done' &
hog=$!
cleanup_kill "$hog" TERM
rec_start "$dir/w.ioreel" --level file --comm cpu_burner --cpu
waited=$(taskset -c 0 "$burner" "$dir/data" 0 2000 $direct waits) || fail "cpu_burner (waits) failed"
rec_stop || fail "record (file level, waits) exited $?: $(cat "$dir/w.ioreel.err")"
kill $hog
"$IOREEL" info --json "$dir/w.ioreel" >"$dir/w.info" || fail "ioreel info w.ioreel failed"
python3 -c 'import json,sys
w = json.load(open(sys.argv[1]))["cpu"]["cpuwait"]
got = w["read"]["wait_ns"] if "read" in w else 0
want = int(sys.argv[2].split()[1])
print("  waited for a CPU inside 2000 reads: %.3f ms by the scheduler, %.3f ms in the trace" % (want / 1e6, got / 1e6))
assert abs(got - want) <= 0.2 * want + 1e6, (got, want)' "$dir/w.info" "$waited" ||
	fail "the trace's waits for a CPU are not the burner's: $(cat "$dir/w.info")"

rec_start "$dir/none.ioreel" --level file --comm cpu_burner
"$burner" "$dir/data" 50 100 || fail "cpu_burner failed"
rec_stop || fail "record (without --cpu) exited $?"
"$IOREEL" info "$dir/none.ioreel" >"$dir/none.txt" || fail "info failed"
grep -q "cpu        not recorded" "$dir/none.txt" || fail "info of a trace recorded without --cpu does not say the CPU was not recorded: $(cat "$dir/none.txt")"
echo "ok: on-CPU time within 10 % at both levels; none without --cpu"
