#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# fio's file and directory engines against their file-level traces, run for real on a
# filesystem (issue 26, synth/FIO.md "File operations and several files"). For each job, alone
# (its [global] kept, stonewall dropped):
#  1. fio runs it twice in A/JOB on the filesystem (the files a job reads or stats laid out
#     before each, by fio --create_only=1): alone, for fio's operations per second (its clat
#     samples, one per call, over the job's runtime) and its mean time per call (the clat
#     mean); then recorded by `ioreel record --level file --comm fio --under A/JOB`, for the
#     calls per op and the names fio leaves and their sizes. The recorder's probes cost each of
#     fio's calls about 1 us (fio 3.33's ftruncate on xfs: 189k/s recorded, 247k/s not), a
#     quarter of a cheap call: the rate is never taken from the recorded run;
#  2. `ioreel synth --fio-job` of the same job, `ioreel replay --root B/JOB` on the same
#     filesystem (closed mode, ENGINE): the replay's calls per second (the job's calls over
#     the replay's span), its mean time per call (its most frequent call but close, from
#     the call's start to its end in the result trace, as fio's clat times a sync call: not
#     from its release, which holds the wait for a busy thread or CPU), the calls
#     per op of its result trace, the names it leaves;
#  3. per job: ops/s of both and their ratio (the issue asks within 10 %), the time per call of
#     both, calls per op side by side (fio's own bookkeeping calls, such as its stat of each
#     file while it sets the job up, show as differences), and whether the two directories hold
#     the same names with the same sizes. fio's rate can be its own loop's rather than the
#     filesystem's: filecreate with openfiles below nrfiles under file_service_type=roundrobin
#     goes once round every file per file it creates (synth/FIO.md, "Rates against fio"), so
#     there compare the time per call.
# Figures, not pass/fail: run it on a quiet machine (it measures rates). Jobs: JOBS (a job
# file; default tests/data/fio-grammar/fileops.fio, whose dircreate/dirstat/dirdelete jobs need
# fio 3.34; bench/fileops_threads.fio: several jobs' calls on names at once, time-based) and, with FIO_EXAMPLES=/path/to/fio/examples, fio's falloc, ftruncate and
# *-ioengine examples. Env: FS (xfs; ext4), SIZE_MB (2048), ENGINE (none: the replay's
# default, threads for these jobs' closed loops of plain calls), RUNTIME (cap on
# a time-based job, seconds: 10), ROUNDS (1: with more, fio alone and the replay run that many
# times each, interleaved, and the rates are given per round and as medians: fio's own rate
# moves by up to x2 between runs of a cheap call).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/lib.sh"
need_root
need_cmd fio python3
fs=${FS:-xfs}
engine=${ENGINE:-}
runtime=${RUNTIME:-10}
rounds=${ROUNDS:-1}
d=$(scratch_dir)
mnt=$(make_fs "$fs" "$(make_loop "${SIZE_MB:-2048}")")
files=("${JOBS:-$here/../tests/data/fio-grammar/fileops.fio}")
if [ -n "${FIO_EXAMPLES:-}" ]; then
	for n in falloc ftruncate filecreate-ioengine filestat-ioengine filedelete-ioengine \
		dircreate-ioengine dirstat-ioengine dirdelete-ioengine; do
		[ -f "$FIO_EXAMPLES/$n.fio" ] && files+=("$FIO_EXAMPLES/$n.fio")
	done
fi

# split FILE OUTDIR: one job file per job section, [global] kept, directory= and stonewall
# dropped (each runs alone, in its own directory), a time-based runtime capped at RUNTIME
split() {
	python3 - "$1" "$2" "$runtime" <<'PY'
import re, sys
src, out, cap = sys.argv[1], sys.argv[2], int(sys.argv[3])
parts = re.split(r"(?m)^(?=\[)", open(src).read())
glob = "".join(p for p in parts if re.match(r"\[global", p))
for p in parts:
    m = re.match(r"\[([^\]]+)\]", p)
    if not m or m.group(1).startswith("global"):
        continue
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", m.group(1))
    body = "\n".join(l for l in (glob + p).splitlines()
                     if not re.match(r"\s*(directory|stonewall|wait_for_previous)\b", l))
    body = re.sub(r"(?m)^(\s*runtime\s*=\s*)(\d+)\s*s?\s*$",
                  lambda k: k.group(1) + str(min(int(k.group(2)), cap)), body)
    open(f"{out}/{name}.fio", "w").write(body + "\n")
PY
}

# lay_out DIR JOB: DIR as the job finds it (what it creates absent, what it reads laid out)
lay_out() {
	rm -rf "$1" && mkdir -p "$1"
	case $(grep -m1 -o 'ioengine=[a-z]*' "$2") in
	ioengine=filecreate | ioengine=dircreate) ;;
	*) (cd "$1" && fio --create_only=1 --output=/dev/null "$2" 2>/dev/null) ;;
	esac
}

# fio_alone JOB DIR OUT.json: fio runs JOB in DIR, its JSON report in OUT.json
fio_alone() { (cd "$2" && fio --output-format=json --output="$3" "$1" >/dev/null 2>"$d/$n.fio.err"); }
# replay_into TRACE ROOT OUT: the replay of TRACE under ROOT; its JSON in OUT.json, its result
# trace OUT.ioreel. No cache is dropped before it, as none is before fio: each runs right after
# its own lay-out (fio's, the replay's before its clock). A drop before the replay alone made
# its mkdirs on xfs 30-40 us a call against 10-12 us without (dircreate, 30 names).
replay_into() {
	"$IOREEL" replay "$1" --root "$2" --allow-writes ${engine:+--engine "$engine"} --json -q \
		-o "$3.ioreel" >"$3.json" 2>"$d/$n.run.err"
}

for f in "${files[@]}"; do
	mkdir -p "$d/jobs"
	rm -f "$d/jobs"/*.fio
	split "$f" "$d/jobs"
	echo "$(basename "$f"):"
	for j in "$d/jobs"/*.fio; do
		n=$(basename "$j" .fio)
		a=$mnt/A/$n b=$mnt/B/$n
		rm -rf "$a" "$b"
		mkdir -p "$a" "$b"
		if ! "$IOREEL" synth --fio-job "$j" -o "$d/$n.ioreel" >/dev/null 2>"$d/$n.synth.err"; then
			echo "  $n: ioreel refuses it: $(grep -v note: "$d/$n.synth.err" | head -1)"
			continue
		fi
		if ! "$IOREEL" info "$d/$n.ioreel" 2>/dev/null | grep -q 'file level'; then
			echo "  $n: a data job (its trace is block-level): bench/fio_examples.sh compares those"
			continue
		fi
		lay_out "$a" "$j"
		if ! fio_alone "$j" "$a" "$d/$n.fio.json"; then
			echo "  $n: fio cannot run it here: $(grep -v '^$' "$d/$n.fio.err" | head -1)"
			continue
		fi
		lay_out "$a" "$j"
		"$IOREEL" record --level file --comm fio --under "$a" -o "$d/$n.rec.ioreel" \
			--json >"$d/$n.rec.json" 2>"$d/$n.rec.err" &
		rec=$!
		cleanup_kill "$rec"
		for ((i = 0; i < 200; i++)); do
			grep -q ' level$' "$d/$n.rec.err" 2>/dev/null && break
			sleep 0.05
		done
		if ! (cd "$a" && fio --output=/dev/null "$j" >/dev/null 2>"$d/$n.fio.err"); then
			kill -INT "$rec"
			wait "$rec"
			echo "  $n: fio recorded failed: $(grep -v '^$' "$d/$n.fio.err" | head -1)"
			continue
		fi
		kill -INT "$rec"
		wait "$rec" || { echo "  $n: the recording failed: $(cat "$d/$n.rec.err")"; continue; }
		replay_into "$d/$n.ioreel" "$b" "$d/$n.run" ||
			{ echo "  $n: replay failed: $(cat "$d/$n.run.err")"; continue; }
		# more rounds: fio alone, then the replay, in turn (the first round's are above)
		for ((r = 2; r <= rounds; r++)); do
			lay_out "$a" "$j"
			fio_alone "$j" "$a" "$d/$n.fio$r.json" || break
			rm -rf "$b" && mkdir -p "$b"
			replay_into "$d/$n.ioreel" "$b" "$d/$n.run$r" || break
		done
		"$IOREEL" convert "$d/$n.rec.ioreel" "$d/$n.rec.csv" >/dev/null 2>&1
		"$IOREEL" convert "$d/$n.run.ioreel" "$d/$n.run.csv" >/dev/null 2>&1
		python3 - "$n" "$d/$n.fio.json" "$d/$n.run.json" "$d/$n.rec.csv" "$d/$n.run.csv" \
			"$a" "$b" <<'PY'
import collections, csv, json, os, statistics, sys
n, fj, rj, rec, run, a, b = sys.argv[1:8]
def fio_rate(path):
    jobs = json.load(open(path))["jobs"]
    clat = [j[k]["clat_ns"] for j in jobs for k in ("read", "write", "trim")]
    calls = sum(c.get("N", 0) for c in clat)
    fmean = sum(c.get("N", 0) * c.get("mean", 0) for c in clat) / calls if calls else 0
    # the jobs ran side by side: the longest one's time, per direction (with group_reporting
    # fio sums job_runtime over the group's jobs, which halved a two-job group's rate); a
    # job_runtime of 0 is a job under a millisecond, which has no rate (the directions'
    # runtimes say 1 ms there)
    jr = max(j["job_runtime"] for j in jobs)
    dr = max((j[k].get("runtime", 0) for j in jobs for k in ("read", "write", "trim")), default=0)
    secs = (dr or jr) / 1e3 if jr else 0
    return calls, (calls / secs if secs else 0), fmean
def replay_rate(path):
    r = json.load(open(path))
    ops = r["file"]["ops"]
    done = sum(v["replayed"] for k, v in ops.items() if k not in ("close",))
    main = max((k for k in ops if k != "close"), key=lambda k: ops[k]["replayed"], default=None)
    imean = ops[main]["lat_ns"]["mean"] if main else 0
    span = r["fidelity"]["replay_span_ns"] / 1e9
    return done, (done / span if span else 0), imean, main
calls, fr, fmean = fio_rate(fj)
done, ir, imean, main = replay_rate(rj)
# fio's job_runtime is in whole ms: a job shorter than that has no rate to compare
print(f"  {n}: fio {calls} calls, " + (f"{fr:,.0f}/s" if fr else "under 1 ms") +
      f"; ioreel {done} calls, {ir:,.0f}/s" + (f"; ratio {ir / fr:.3f}" if fr else ""))
def nth(path, k):  # round k's file beside round 1's: x.fio.json -> x.fio2.json
    base, ext = path.rsplit(".json", 1)[0], ".json"
    return f"{base}{k}{ext}"
more = [(fio_rate(nth(fj, k))[1], replay_rate(nth(rj, k))[1]) for k in range(2, 100)
        if os.path.exists(nth(fj, k)) and os.path.exists(nth(rj, k))]
# a round where fio's job took under 1 ms has no rate of fio's: left out, not taken as 0
more = [(x, y) for x, y in more if x]
if more and fr:
    rates = [(fr, ir)] + more
    mf, mi = statistics.median(x for x, _ in rates), statistics.median(y for _, y in rates)
    print(f"    {len(rates)} rounds, calls/s fio / ioreel: " +
          ", ".join(f"{x:,.0f} / {y:,.0f}" for x, y in rates) +
          f"; medians {mf:,.0f} / {mi:,.0f}, ratio {mi / mf:.3f}")
def call_mean(p, op):  # the call itself: its start (issue_ns) to its end, as fio's clat
    t = [int(r["complete_ns"]) - int(r["issue_ns"])
         for r in csv.DictReader(l for l in open(p) if not l.startswith("#"))
         if r["op"] == op and r["iface"] != "start" and r["issue_ns"]]
    return sum(t) / len(t) if t else imean
imean = call_mean(run, main) if main else 0
print(f"    time per call: fio {fmean / 1e3:.1f} us (clat), ioreel {imean / 1e3:.1f} us ({main})")
def per_op(p):
    c = collections.Counter()
    for row in csv.DictReader(l for l in open(p) if not l.startswith("#")):
        if row["iface"] != "start":
            c[row["op"]] += 1
    return c
pa, pb = per_op(rec), per_op(run)
print("    calls per op (fio recorded / replayed): " +
      ", ".join(f"{op} {pa[op]}/{pb[op]}" for op in sorted(set(pa) | set(pb))))
def tree(root):
    out = {}
    for dp, ds, fs in os.walk(root):
        for x in ds + fs:
            p = os.path.join(dp, x)
            st = os.lstat(p)
            out[os.path.relpath(p, root)] = "dir" if os.path.isdir(p) else st.st_size
    out.pop(".ioreel-replay", None)
    return out
ta, tb = tree(a), tree(b)
same = ta == tb
print(f"    files: fio {len(ta)}, ioreel {len(tb)}, " + ("same names and sizes" if same else
      "differ: " + str(sorted(set(ta.items()) ^ set(tb.items()))[:6])))
PY
	done
done
