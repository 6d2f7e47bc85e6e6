# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""How far a bench's real runs stray from each other, and each replay against the real runs
made just before and after it (INTERLEAVE): for predict_table.py and predict_fs_table.py.
On this shared host the real runs of one bench have drifted 1.7x (1,120 to 1,903 TPS), and a
replay made beside slow runs then reads as slow against the median of all of them; a real run
itself met the self-check's goals against its fellows 24 times in 67 (bench/PREDICTION.md, "How far
the real runs are from each other")."""
import os, statistics

SELF_CHECK = {"IOPS": 0.10, "mean": 0.15}  # issue 23's goals for a replay onto its own stack


def ratios(f, ref, keys):
    """f's figures over ref's, for those of keys both have."""
    return {k: f[k] / ref[k] for k in keys if k in f and ref.get(k)}


def met(r, goals):
    return all(abs(v - 1) <= goals[k.split()[-1]] for k, v in r.items())


def label(k):
    return k.replace(" IOPS", " IOPS/s").replace(" mean", " mean lat")


def report(real, real_files, preds, pred_files, keys, goals=None, indent="  "):
    """real: the real runs' figures in run order, real_files the file each wrote as it ended
    (the order the runs were made in is their files' times); preds and pred_files the same
    per replay name; keys the figures compared ("read IOPS", "read mean", ...). With goals
    ({"IOPS": x, "mean": y}), counts the real runs within them of the others' median and
    marks the replays within them of the runs either side. Prints; returns both for JSON."""
    got = {"real_vs_others": [], "beside": {}}
    if len(real) >= 3:
        rl = got["real_vs_others"]
        for i, f in enumerate(real):
            others = real[:i] + real[i + 1:]
            rl.append(ratios(f, {k: statistics.median(g[k] for g in others if k in g)
                                 for k in keys if any(k in g for g in others)}, keys))
        print("%sthe real runs, each against the others' median: %s" % (indent, ", ".join(
            "%s x%.2f-%.2f" % (label(k), min(r[k] for r in rl if k in r),
                               max(r[k] for r in rl if k in r))
            for k in keys if any(k in r for r in rl))))
        if goals:
            print("%s  %d of %d runs within IOPS +-%.0f %% and mean +-%.0f %% on every op (the "
                  "self-check's goals)" % (indent, sum(met(r, goals) for r in rl), len(rl),
                                           goals["IOPS"] * 100, goals["mean"] * 100))
    when = {i: os.path.getmtime(p) for i, p in enumerate(real_files) if os.path.exists(p)}
    for m, p in preds.items():
        if m not in pred_files or not os.path.exists(pred_files[m]):
            continue
        t = os.path.getmtime(pred_files[m])
        before = [i for i in when if when[i] < t]
        after = [i for i in when if when[i] > t]
        if not before or not after:
            continue
        a, b = real[max(before, key=when.get)], real[min(after, key=when.get)]
        r = ratios(p, {k: (a[k] * b[k]) ** 0.5 for k in keys if k in a and k in b}, keys)
        got["beside"][m] = r
        print("%s  %s against the real runs either side: %s%s" % (
            indent, m, ", ".join("%s x%.2f" % (label(k), v) for k, v in r.items()),
            " (within)" if goals and met(r, goals) else ""))
    return got
