#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The table of bench/predict.sh, from the traces it keeps (CSV exports) in OUT:
   predict_table.py OUT REPEATS "STACKS" "MODES"
Real runs: real-STACK-I.csv and .out (pgbench); replays: pred-STACK-MODE.csv (the replay's own
result) and obs-STACK-MODE.csv (the same replay as the recorder saw it at the device)."""
import csv, glob, json, os, re, statistics, sys
import bench_drift
out, repeats, stacks, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
OPS = ("read", "write", "flush")

def figures(path):
    """Per op: IOPS over the run's span, mean and p99 of completion - queue, in us."""
    rows = [r for r in csv.DictReader(l for l in open(path) if not l.startswith("#"))]
    q = [int(r["queue_ns"]) for r in rows if r["queue_ns"]]
    c = [int(r["complete_ns"]) for r in rows if r["complete_ns"]]
    span = (max(c) - min(q)) / 1e9
    f = {"span": span, "n": len(rows)}
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
    # rates over the replay's own span: the recording at the device also holds the replay's
    # set-up (its probe of the target, seconds of prescan before the clock starts)
    for m, p in preds.items():
        for op in OPS:
            if op + " IOPS" in own[m]:
                p[op + " IOPS"] = own[m][op + " IOPS"]
    slow_real = [statistics.median(tpss["A"]) / t for t in tpss[st]]
    print("\nstack %s: TPS %s (A: %s)" % (st, " ".join("%.0f" % t for t in tpss[st]),
                                         " ".join("%.0f" % t for t in tpss["A"])))
    print("%-16s %-28s" % ("figure", "real") + "".join("%-20s" % m for m in preds))
    # a replay cut at --runtime (as long as the recording lasted, like pgbench -T): the trace's
    # I/Os over those it issued in that time (the real slowdown is a ratio of transactions:
    # of work done in the same time); otherwise its span over the trace's
    def slowdown(m):
        f = json.load(open(f"{out}/pred-{st}-{m}.json"))["fidelity"]
        if f.get("runtime_hit") and own[m]["n"]:
            return trace["n"] / own[m]["n"]
        return own[m]["span"] / trace["span"]
    rows = [("slowdown", statistics.median(slow_real), min(slow_real), max(slow_real),
             {m: slowdown(m) for m in own})]
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
    drift = bench_drift.report(
        rs, [f"{out}/real-{st}-{i}.ioreel" for i in range(1, len(rs) + 1)], preds,
        {m: f"{out}/obs-{st}-{m}.ioreel" for m in preds},
        [op + " " + w for op in OPS for w in ("IOPS", "mean")],
        bench_drift.SELF_CHECK if st == "A" else None, indent="")
    print("the replayer's own view (release or deadline to completion):")
    for op in OPS:
        print("%-45s" % ("  %s mean lat" % op) + "".join(
            "%-20s" % ("%.4g" % o[op + " mean"] if op + " mean" in o else "-")
            for o in own.values()))
    summary["stacks"][st] = st_sum
    summary.setdefault("drift", {})[st] = drift
json.dump(summary, open(f"{out}/predict.json", "w"), indent=1)
