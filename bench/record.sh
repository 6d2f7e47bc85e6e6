#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Recorder overhead and drops, in two cases (CASES).
# one-core: fio 4 KiB random reads, libaio, iodepth 32 (one fio thread: one core busy) on a
# filled zram device of our own, without (A) and with (B) `ioreel record`, alternating A F B.
# F is the floor: the recorder with IOREEL_RECORD_ATTACH_ONLY=1, its programs attached but
# returning at once, which is what the kernel charges every I/O for calling two BPF programs
# before they do anything. Prints IOPS of each run, medians, the IOPS ratios F/A and B/A, CPU
# (fio's, and the recorder's own user+sys), events, drops and trace bytes per event; a fourth
# run per round records with --cpu, for what recording the CPU (bpf/oncpu.bpf.h) costs; one
# more recorded run with kernel BPF stats on, for the time spent in the BPF programs per I/O
# (that run is not in the ratio: the stats themselves cost time, ~60 ns per program run here).
# every-core (issue 12): fio 4 KiB random reads, io_uring, iodepth 32, not pinned (its io_uring
# workers keep every core busy), on a fresh 1 GiB zram for each run, alternating plain,
# recorded with default options, recorded with --keep-priority (the drain thread at the
# priority ioreel started with) and recorded with --cpu: IOPS, drops, the fullest ring, the
# drain thread's priority.
# Env: SECONDS_PER_RUN (10), ROUNDS (2), JOBS (fio numjobs, 1), CASES ("one-core every-core").
# Run it alone on a quiet machine. Figures only: never fails on time or on drops.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/lib.sh"
need_root
need_cmd fio python3 bpftool
secs=${SECONDS_PER_RUN:-10}
rounds=${ROUNDS:-2}
jobs=${JOBS:-1}
cases=${CASES:-one-core every-core}
dir=$(scratch_dir)
engine=libaio

# fio under a wrapper that reads its rusage once it has exited: the CPU and context switches of
# every fio thread, io_uring's io-wq workers included (fio's own usr/sys figures cover its
# submitting thread only), into OUT.json.ru as "cpu_seconds switches".
run_fio() { # OUT.json
	python3 -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL).returncode
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%f %d\n" % (r.ru_utime + r.ru_stime, r.ru_nvcsw + r.ru_nivcsw))
sys.exit(rc)' "$1.ru" fio --name=bench --filename="$dev" --direct=1 --ioengine="$engine" \
		--rw=randread --bs=4k --iodepth=32 --numjobs="$jobs" --group_reporting --time_based \
		--runtime="$secs" --output-format=json --output="$1" || fail "fio"
}
# JSON -> "iops usr% sys% fio-ns/IO switches/IO" (the last two from run_fio's rusage: all threads)
fio_fig() {
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]
cpu, csw = (float(x) for x in open(sys.argv[1] + ".ru").read().split())
n = max(j["read"]["total_ios"], 1)
print("%.0f %.1f %.1f %.0f %.3f" % (j["read"]["iops"], j["usr_cpu"], j["sys_cpu"], cpu * 1e9 / n,
      csw / n))' "$1"
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

start_rec() { # NAME [ENV=VALUE] [RECORD OPTION]
	env ${2:-} "$IOREEL" record -d "$dev" -o "$dir/$1.ioreel" -q --json ${3:-} >"$dir/$1.json" \
		2>"$dir/$1.err" &
	rec=$!
	cleanup_kill "$rec"
	sleep 1 # load and attach
}
# NAME: "events dropped bytes/event cpu% ring_peak drain_priority ns/IO" into NAME.fig, where cpu%
# and ns/IO are the recorder's own user+sys (10 ms ticks), per second of fio and per event
stop_rec() {
	local ticks rc=0
	ticks=$(cpu_ticks $rec)
	kill -INT $rec
	wait $rec || rc=$?
	[ $rc = 0 ] || fail "ioreel record exited $rc: $(cat "$dir/$1.err")"
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); a=[int(x) for x in sys.argv[2:]]
print(j["events"], j["dropped"], "%.2f" % j["bytes_per_event"], "%.1f" % (a[0] * 100 / a[2] / a[1]),
      j["ring_peak"], j["drain_priority"],
      "%.0f" % (a[0] * 1e9 / a[2] / j["events"]) if j["events"] else "-")' \
		"$dir/$1.json" "$ticks" "$secs" "$(getconf CLK_TCK)" >"$dir/$1.fig"
}

one_core() {
	dev=$(make_zram 1024)
	# Fill it so reads hit compressed pages, not zram's zero-page shortcut.
	fio --name=fill --filename="$dev" --direct=1 --ioengine=libaio --rw=write --bs=1M --iodepth=4 \
		--buffer_compress_percentage=50 --refill_buffers >/dev/null || fail "fill"
	echo "one core: zram $dev, fio libaio randread 4k iodepth 32 numjobs $jobs, ${secs}s per run," \
		"$(nproc) CPUs"
	printf '%-4s %-10s %10s %6s %6s %10s %7s %8s %8s\n' run mode IOPS usr% sys% events drops \
		B/event rec-cpu%
	a=() b=() f=() n=()
	for ((r = 1; r <= rounds; r++)); do
		run_fio "$dir/a$r.fio"
		read -r iops usr sys fns csw < <(fio_fig "$dir/a$r.fio")
		a+=("$iops")
		printf '%-4s %-10s %10s %6s %6s\n' "$r" plain "$iops" "$usr" "$sys"
		start_rec "f$r" IOREEL_RECORD_ATTACH_ONLY=1
		run_fio "$dir/f$r.fio"
		stop_rec "f$r"
		read -r iops usr sys fns csw < <(fio_fig "$dir/f$r.fio")
		f+=("$iops")
		printf '%-4s %-10s %10s %6s %6s\n' "$r" hooks-only "$iops" "$usr" "$sys"
		start_rec "b$r"
		run_fio "$dir/b$r.fio"
		stop_rec "b$r"
		read -r ev dr bpe cpu _ <"$dir/b$r.fig"
		read -r iops usr sys fns csw < <(fio_fig "$dir/b$r.fio")
		b+=("$iops")
		printf '%-4s %-10s %10s %6s %6s %10s %7s %8s %8s\n' "$r" recorded "$iops" "$usr" "$sys" \
			"$ev" "$dr" "$bpe" "$cpu"
		start_rec "n$r" "" --cpu
		run_fio "$dir/n$r.fio"
		stop_rec "n$r"
		read -r ev dr bpe cpu _ <"$dir/n$r.fig"
		read -r iops usr sys fns csw < <(fio_fig "$dir/n$r.fio")
		n+=("$iops")
		printf '%-4s %-10s %10s %6s %6s %10s %7s %8s %8s\n' "$r" "cpu" "$iops" "$usr" "$sys" \
			"$ev" "$dr" "$bpe" "$cpu"
	done
	python3 - "${a[*]}" "${b[*]}" "${f[*]}" "${n[*]}" <<-'PY'
	import statistics, sys
	a, b, f, n = ([float(x) for x in arg.split()] for arg in sys.argv[1:5])
	ma, mb, mf = statistics.median(a), statistics.median(b), statistics.median(f)
	mn = statistics.median(n)
	print(f"median IOPS recorded {mb:.0f}, recorded --cpu {mn:.0f}: recording the CPU "
	      f"costs {100 * (1 - mn / mb):.2f} % of the IOPS")
	print(f"median IOPS plain {ma:.0f}, hooks only {mf:.0f} (ratio {mf / ma:.3f}), "
	      f"recorded {mb:.0f}: ratio {mb / ma:.3f}")
	print(f"per I/O: {1e9 / ma:.0f} ns of fio's core plain; "
	      f"the hooks add {1e9 / mf - 1e9 / ma:.0f} ns, "
	      f"the recording {1e9 / mb - 1e9 / mf:.0f} ns more")
	PY

	# BPF time per I/O, from the kernel's own accounting (kernel.bpf_stats_enabled).
	old=$(cat /proc/sys/kernel/bpf_stats_enabled)
	echo 1 >/proc/sys/kernel/bpf_stats_enabled
	cleanup_push "echo $old > /proc/sys/kernel/bpf_stats_enabled"
	start_rec stats
	run_fio "$dir/stats.fio"
	bpftool prog show --json >"$dir/progs.json"
	# Our programs: the prog ids behind the recorder's file descriptors.
	cat /proc/$rec/fdinfo/* 2>/dev/null | awk '/^prog_id:/ {print $2}' | sort -u >"$dir/ids"
	stop_rec stats
	echo "$old" >/proc/sys/kernel/bpf_stats_enabled
	python3 - "$dir/progs.json" "$dir/ids" <<-'PY'
	import json, sys
	ids = {int(x) for x in open(sys.argv[2]).read().split()}
	progs = [p for p in json.load(open(sys.argv[1])) if p["id"] in ids and p.get("run_cnt")]
	tot = sum(p["run_time_ns"] for p in progs)
	for p in progs:
	    print(f"  {p['name']:<16} {p['run_cnt']:>10} runs "
	          f"{p['run_time_ns'] / p['run_cnt']:7.1f} ns/run")
	q = [p for p in progs if p["name"] == "bio_queue"]
	if q:
	    print(f"BPF time per I/O (queue + complete, with bpf_stats' own cost): "
	          f"{tot / q[0]['run_cnt']:.0f} ns")
	PY
}

# issue 12's case: every core busy with fio and its io_uring workers, reads of a fresh zram.
every_core() {
	local r iops usr sys fns csw ev dr bpe cpu peak prio rns
	local -a a=() b=() k=() n=() h=() w=() af=() bf=() ac=() bc=() br=()
	engine=io_uring
	echo "every core: fio io_uring randread 4k iodepth 32 numjobs $jobs, not pinned, a fresh" \
		"1 GiB zram per run, ${secs}s per run, $(nproc) CPUs"
	# fio-ns/IO and sw/IO: the CPU time and context switches of all of fio's threads per I/O;
	# rec-ns/IO: the recorder's own CPU per event. On a shared machine these hold where the
	# IOPS do not: what an I/O costs, not how many I/Os the CPUs left over could do. A high
	# sw/IO (0.15-0.35, against ~0.04 with one worker on the other CPU) goes with fio's submitter
	# and its io-wq worker sharing a CPU, each wake-up of the submitter preempting the worker:
	# IOPS then fall by up to half, recorded or not (record/README.md, "Every core busy").
	# Arms besides plain: recorded (the ratio), keep-priority, cpu (--cpu), hooks-only (the
	# programs attached and returning at once: the tracepoints' cost, and the recorder's threads
	# idle) and writer-idle (recorded, the main thread put at SCHED_IDLE after the start, so it
	# never holds a CPU a fio thread wants nor makes it look busy to the scheduler's wake-up
	# placement; a measurement, not an option).
	printf '%-4s %-15s %10s %6s %6s %8s %6s %10s %7s %6s %9s %8s %8s\n' run mode IOPS usr% sys% \
		fio-ns/IO sw/IO events drops ring drain rec-cpu% rec-ns/IO
	for ((r = 1; r <= rounds; r++)); do
		dev=$(make_zram 1024)
		run_fio "$dir/ua$r.fio"
		read -r iops usr sys fns csw < <(fio_fig "$dir/ua$r.fio")
		a+=("$iops") af+=("$fns") ac+=("$csw")
		printf '%-4s %-15s %10s %6s %6s %8s %6s\n' "$r" plain "$iops" "$usr" "$sys" "$fns" "$csw"
		for mode in recorded keep-priority cpu hooks-only writer-idle; do
			dev=$(make_zram 1024)
			case $mode in
			recorded) start_rec "u$mode$r" ;;
			keep-priority) start_rec "u$mode$r" "" --keep-priority ;;
			cpu) start_rec "u$mode$r" "" --cpu ;;
			hooks-only) start_rec "u$mode$r" IOREEL_RECORD_ATTACH_ONLY=1 ;;
			writer-idle)
				start_rec "u$mode$r"
				chrt --idle -p 0 "$rec" || fail "chrt --idle -p 0 $rec"
				;;
			esac
			run_fio "$dir/u$mode$r.fio"
			stop_rec "u$mode$r"
			read -r ev dr bpe cpu peak prio rns <"$dir/u$mode$r.fig"
			read -r iops usr sys fns csw < <(fio_fig "$dir/u$mode$r.fio")
			case $mode in
			recorded) b+=("$iops") bf+=("$fns") bc+=("$csw") br+=("$rns") ;;
			keep-priority) k+=("$iops") ;;
			cpu) n+=("$iops") ;;
			hooks-only) h+=("$iops") ;;
			writer-idle) w+=("$iops") ;;
			esac
			printf '%-4s %-15s %10s %6s %6s %8s %6s %10s %7s %6s %9s %8s %8s\n' "$r" "$mode" \
				"$iops" "$usr" "$sys" "$fns" "$csw" "$ev" "$dr" "$peak" "$prio" "$cpu" "$rns"
		done
	done
	python3 - "${a[*]}" "${b[*]}" "${k[*]}" "${n[*]}" "${af[*]}" "${bf[*]}" "${ac[*]}" "${bc[*]}" \
		"${br[*]}" "$(nproc)" "${h[*]}" "${w[*]}" <<-'PY'
	import statistics, sys
	a, b, k, n, af, bf, ac, bc, br = ([float(x) for x in arg.split()] for arg in sys.argv[1:10])
	h, w = ([float(x) for x in arg.split()] for arg in sys.argv[11:13])
	ma, mb, mk = statistics.median(a), statistics.median(b), statistics.median(k)
	mn = statistics.median(n)
	print(f"median IOPS plain {ma:.0f}, recorded {mb:.0f}: ratio {mb / ma:.3f}; "
	      f"--keep-priority {mk:.0f}: ratio {mk / ma:.3f}; --cpu {mn:.0f}: ratio {mn / ma:.3f}")
	m, c = statistics.median, int(sys.argv[10]) * 1e9
	print(f"median per I/O, plain -> recorded: fio's threads {m(af):.0f} -> {m(bf):.0f} ns of CPU, "
	      f"{m(ac):.3f} -> {m(bc):.3f} context switches; the recorder {m(br):.0f} ns; "
	      f"CPU left idle or to others: {c / ma - m(af):.0f} -> {c / mb - m(bf) - m(br):.0f} ns "
	      f"(of {c / ma:.0f} -> {c / mb:.0f} ns of all CPUs per I/O)")
	print(f"median IOPS hooks only {m(h):.0f}: ratio {m(h) / ma:.3f}; "
	      f"writer at SCHED_IDLE {m(w):.0f}: ratio {m(w) / ma:.3f}")
	PY
}

for c in $cases; do
	case $c in
	one-core) one_core ;;
	every-core) every_core ;;
	*) fail "CASES: unknown case '$c' (one-core, every-core)" ;;
	esac
done
