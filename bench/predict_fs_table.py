#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The table of bench/predict_fs.sh and bench/predict_innodb.sh, from the traces they keep (CSV
exports) in OUT:
   predict_fs_table.py OUT REPEATS "TARGETS" "MODES" [SRC [WORKLOAD [SOURCE_FS]]]
   (SRC: the source run replayed, 1; WORKLOAD: the name the heading gives the workload,
   pgbench; SOURCE_FS: the filesystem it was recorded on, xfs)
Real runs: real-FS-I.file.csv and real-FS-I.blk.csv (file and block level) and real-FS-I.out
(pgbench's or sysbench's output, for the TPS); file replays: pred-file-FS-MODE.csv (the
replay's result trace); block replays: pred-blk-FS-MODE.csv (the replay's result) and
obs-blk-FS-MODE.csv (the recorder at the device).
Per op: IOPS (calls over the run's span) and mean latency; each prediction as its value and its
ratio to the real runs' median, with the goal (IOPS within 25 %, mean latency within 30 %), or
"few" where the real runs made fewer than FEW such calls, and per prediction how many of its
figures are within the goals (of those judged: "few" ones are not). The target SOURCE_FS is
the self-check: the recording replayed onto its own filesystem."""
import csv, json, os, re, statistics, sys
import bench_drift

out, repeats = sys.argv[1], int(sys.argv[2])
targets, modes = sys.argv[3].split(), sys.argv[4].split()
src = int(sys.argv[5]) if len(sys.argv) > 5 else 1
workload = sys.argv[6] if len(sys.argv) > 6 else "pgbench"
srcfs = sys.argv[7] if len(sys.argv) > 7 else "xfs"
FOPS = ("read", "write", "fsync", "fdatasync")
BOPS = ("read", "write", "flush")


def rows(path):
    return list(csv.DictReader(l for l in open(path) if not l.startswith("#")))


def figures(path, ops, own=False):
    """Per op: IOPS over the span (first call to last completion) and mean latency in us.
    Recorded calls: complete - queue (system call entry to exit; block: queue to completion).
    A file replay's result (own=False): complete - issue, the call's own time once handed to
    the engine, as the recorder times a system call; own=True: complete - queue, the replayer's
    view (release or deadline to completion, the wait in the replayer included)."""
    rs = rows(path)
    q = [int(r["queue_ns"]) for r in rs if r["queue_ns"] and int(r["queue_ns"]) > 0]
    c = [int(r["complete_ns"]) for r in rs if r["complete_ns"]]
    if not q or not c:
        return {"span": 0}
    span = (max(c) - min(q)) / 1e9
    f = {"span": span}
    for op in ops:
        lat = []
        for r in rs:
            if r["op"] != op or not r["complete_ns"] or not r["queue_ns"]:
                continue
            if r.get("result", "0").startswith("-"):
                continue
            start = r.get("issue_ns") if not own and r.get("issue_ns") else r["queue_ns"]
            lat.append(int(r["complete_ns"]) - int(start))
        if lat and span > 0:
            f[op + " IOPS"] = len(lat) / span
            f[op + " mean"] = statistics.fmean(lat) / 1e3
            f[op + " calls"] = len(lat)
    return f


def tps(fs, i):
    """pgbench's "tps = X" or sysbench's "transactions: N (X per sec.)"."""
    text = open(f"{out}/real-{fs}-{i}.out").read()
    m = (re.search(r"^tps = ([\d.]+)", text, re.M) or
         re.search(r"^\s*transactions:\s+\d+\s+\(([\d.]+) per sec", text, re.M))
    return float(m.group(1)) if m else 0.0


FEW = 100  # calls in a run: fewer (a checkpoint's fsyncs) are too few to judge a rate by


def verdict(k, ratio, calls):
    if calls < FEW:
        return "few"
    lim = 0.25 if k.endswith("IOPS") else 0.30
    return "ok" if abs(ratio - 1) <= lim else "off"


def table(title, real, preds, ops):
    print(title)
    print("%-22s %-26s" % ("figure", "real median [min-max]") +
          "".join("%-24s" % m for m in preds))
    res = {}
    score = {m: [0, 0] for m in preds}  # within the goals, judged
    for k in [op + " " + w for op in ops for w in ("IOPS", "mean")]:
        vals = [r[k] for r in real if k in r]
        if not vals:
            continue
        med = statistics.median(vals)
        calls = statistics.median(r.get(k.split()[0] + " calls", 0) for r in real)
        line = "%-22s %-26s" % (k.replace("IOPS", "IOPS/s").replace("mean", "mean lat us"),
                                "%.4g [%.4g-%.4g]" % (med, min(vals), max(vals)))
        res[k] = {"real_median": med, "real_min": min(vals), "real_max": max(vals),
                  "real_calls": calls, "pred": {}}
        for m, p in preds.items():
            v = p.get(k)
            if v is None or not med:
                line += "%-24s" % "-"
                continue
            vd = verdict(k, v / med, calls)
            line += "%-24s" % ("%.4g (x%.2f %s)" % (v, v / med, vd))
            res[k]["pred"][m] = {"value": v, "ratio": v / med}
            if vd != "few":
                score[m][0] += vd == "ok"
                score[m][1] += 1
        print(line)
    print("%-49s" % "within the goals" + "".join("%-24s" % ("%d of %d" % tuple(score[m]))
                                                 for m in preds))
    res["within_goals"] = {m: {"ok": o, "judged": n} for m, (o, n) in score.items()}
    return res


summary = {"repeats": repeats, "source_run": src, "source_fs": srcfs, "tps": {}, "targets": {}}
src_file = figures(f"{out}/real-{srcfs}-{src}.file.csv", FOPS)
print("%s recorded on %s (run %d, %.1f s) and replayed onto each target; real: median "
      "[min-max] of %d runs there; replays: the figure (x ratio to the real median, ok within "
      "25 %% for IOPS and 30 %% for mean latency; few: under %d calls in a real run)." % (
          workload, srcfs, src, src_file["span"], repeats, FEW))
for fs in [srcfs] + [t for t in targets if t != srcfs]:
    summary["tps"][fs] = [tps(fs, i) for i in range(1, repeats + 1)
                          if os.path.exists(f"{out}/real-{fs}-{i}.out")]
for fs in targets:
    print("\n== target %s: TPS %s (%s: %s)" % (
        fs, " ".join("%.0f" % t for t in summary["tps"][fs]), srcfs,
        " ".join("%.0f" % t for t in summary["tps"][srcfs])))
    real_f = [figures(f"{out}/real-{fs}-{i}.file.csv", FOPS) for i in range(1, repeats + 1)]
    pf = {"file-" + m: figures(f"{out}/pred-file-{fs}-{m}.csv", FOPS) for m in modes
          if os.path.exists(f"{out}/pred-file-{fs}-{m}.csv")}
    own = {"file-" + m: figures(f"{out}/pred-file-{fs}-{m}.csv", FOPS, own=True) for m in modes
           if os.path.exists(f"{out}/pred-file-{fs}-{m}.csv")}
    t_file = table("file level: the %s run's calls replayed with --root on %s" % (srcfs, fs), real_f,
                   pf, FOPS)
    print("  the replayer's own view (release or deadline to completion), mean lat us:")
    for op in FOPS:
        print("%-49s" % ("    " + op) + "".join(
            "%-24s" % ("%.4g" % o[op + " mean"] if op + " mean" in o else "-")
            for o in own.values()))
    real_b = [figures(f"{out}/real-{fs}-{i}.blk.csv", BOPS) for i in range(1, repeats + 1)]
    pb = {}
    for m in modes:
        if not os.path.exists(f"{out}/obs-blk-{fs}-{m}.csv"):
            continue
        p = figures(f"{out}/obs-blk-{fs}-{m}.csv", BOPS)
        # rates over the replay's own span: the recording at the device holds its set-up too
        mine = figures(f"{out}/pred-blk-{fs}-{m}.csv", BOPS)
        for op in BOPS:
            if op + " IOPS" in mine:
                p[op + " IOPS"] = mine[op + " IOPS"]
        pb["block-" + m] = p
    t_blk = table("block level: the %s run's device I/O replayed on %s's loop device "
                  "(against the real runs at that device)" % (srcfs, fs), real_b, pb, BOPS)
    drift = {}
    # per level: the real runs, their recordings, the replays (named level-MODE) and theirs
    for level, real, ends, preds, seen, ops in (
            ("file", real_f, "file", pf, "pred-file", FOPS),
            ("block", real_b, "blk", pb, "obs-blk", BOPS)):
        print("%s level:" % level)
        keys = [op + " " + w for op in ops for w in ("IOPS", "mean")
                if statistics.median(r.get(op + " calls", 0) for r in real) >= FEW]
        drift[level] = bench_drift.report(
            real, [f"{out}/real-{fs}-{i}.{ends}.ioreel" for i in range(1, len(real) + 1)],
            preds, {m: f"{out}/{seen}-{fs}-{m[len(level) + 1:]}.ioreel" for m in preds}, keys,
            bench_drift.SELF_CHECK if fs == srcfs else None)
    summary["targets"][fs] = {"file": t_file, "block": t_blk, "drift": drift}
json.dump(summary, open(f"{out}/predict_fs.json", "w"), indent=1)
