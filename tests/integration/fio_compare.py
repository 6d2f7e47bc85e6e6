#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Compares what fio issued (its write_iolog, one log per job) with what ioreel synthesized
from the same job file and then replayed on the same device, job by job: op shares, block-size
shares, offset range, offset histogram (the shares of a zoned distribution), sequential
strides and holes, per-stream depth, and counts where a job's count is fixed.

Used by tests/integration/synth_fio_grammar.sh (and bench/fio_grammar.sh for bigger samples):
    fio_compare.py --logs DIR --fio-json F.json --synth S.csv --run R.csv --info I.json
Prints one line of figures per job; exits 1 when a job is outside the tolerances (op and
block-size shares within 1 point, histogram/zone shares within 2, the same offset range)."""
import argparse
import collections
import csv
import json
import math
import os
import sys

OPS = ('read', 'write', 'discard')
FIO_OPS = {'read': 'read', 'write': 'write', 'trim': 'discard'}


def fio_log(path):
    """fio's write_iolog (v2 or v3): [(op, offset, length)] in issue order."""
    out = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 4 and w[-3] in FIO_OPS:
                out.append((FIO_OPS[w[-3]], int(w[-2]), int(w[-1])))
    return out


def trace_csv(path):
    """ioreel convert's CSV: {stream: [(op, offset, length, issue_ns, complete_ns, comm)]}."""
    streams = collections.defaultdict(list)
    with open(path) as f:
        f.readline()  # the "# ioreel csv" comment
        for r in csv.DictReader(f):
            if r['op'] not in OPS:
                continue
            t = int(r['issue_ns']) if r['issue_ns'] else int(r['queue_ns'])
            c = int(r['complete_ns']) if r['complete_ns'] else t
            streams[int(r['stream'])].append((r['op'], int(r['offset']), int(r['length']), t, c,
                                              r['comm']))
    for s in streams.values():
        s.sort(key=lambda e: e[3])
    return streams


def shares(ios, key):
    n = len(ios)
    c = collections.Counter(key(i) for i in ios)
    return {k: v / n for k, v in c.items()} if n else {}


def max_diff(a, b):
    return max([abs(a.get(k, 0) - b.get(k, 0)) for k in set(a) | set(b)] or [0])


def hist(ios, lo, hi, bins=20):
    span = max(hi - lo, 1)
    c = collections.Counter(min(bins - 1, max(0, (o - lo) * bins // span)) for _, o, _ in ios)
    return {k: v / len(ios) for k, v in c.items()}


def strides(ios):
    """Per direction, the step from one I/O's offset to the next one's."""
    last, steps = {}, collections.Counter()
    for op, off, _ in ios:
        if op in last:
            steps[off - last[op]] += 1
        last[op] = off
    n = sum(steps.values())
    return {k: v / n for k, v in steps.most_common(4)} if n else {}


def depth_bucket(d):
    return 1 << int(math.log2(d)) if d < 64 else 64


def fio_depth(job):
    """fio's iodepth_level: the bucket most submissions saw."""
    lv = job.get('iodepth_level', {})
    best = max(lv.items(), key=lambda kv: kv[1], default=('1', 0))[0]
    return 64 if best.startswith('>=') else int(best)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--logs', required=True)
    ap.add_argument('--fio-json', required=True)
    ap.add_argument('--synth', required=True)
    ap.add_argument('--run', required=True)
    ap.add_argument('--info', required=True)
    ap.add_argument('--zones', default='{}', help='JSON {job: [[lo, hi], ...]} bytes')
    ap.add_argument('--exact', default='', help='comma list of jobs whose offsets must match')
    ap.add_argument('--counts', default='{}', help='JSON {job: I/Os}')
    ap.add_argument('--runtime', default='{}', help='JSON {job: seconds}')
    ap.add_argument('--json-out')
    a = ap.parse_args()
    fj = {j['jobname']: j for j in json.load(open(a.fio_json))['jobs']}
    info = json.load(open(a.info))
    synth, run = trace_csv(a.synth), trace_csv(a.run)
    zones, counts, runtimes = json.loads(a.zones), json.loads(a.counts), json.loads(a.runtime)
    exact = [x for x in a.exact.split(',') if x]
    bad, report = [], {}
    for s, evs in sorted(synth.items()):
        job = evs[0][5]  # the trace's comm: the job name, cut to 15 characters
        logs = [x[:-4] for x in os.listdir(a.logs) if x.endswith('.log') and x[:-4][:15] == job]
        name = logs[0] if len(logs) == 1 else None
        if not name:
            bad.append(f'{job}: no single fio log for it in {a.logs}')
            continue
        log = os.path.join(a.logs, f'{name}.log')
        f = fio_log(log)
        y = [(op, off, ln) for op, off, ln, _, _, _ in evs]
        r = [(op, off, ln) for op, off, ln, _, _, _ in run.get(s, [])]
        # offsets as they land on the device: the replay's (relative regions resolved there)
        lo, hi = min(o for _, o, _ in f), max(o + ln for _, o, ln in f)
        rlo = min((o for _, o, _ in r), default=-1)
        rhi = max((o + ln for _, o, ln in r), default=-1)
        m = {
            'fio_ios': len(f), 'synth_ios': len(y), 'run_ios': len(r),
            'ops': max_diff(shares(f, lambda e: e[0]), shares(y, lambda e: e[0])),
            'bs': max_diff(shares(f, lambda e: (e[0], e[2])), shares(y, lambda e: (e[0], e[2]))),
            'fio_range': [lo, hi], 'run_range': [rlo, rhi],
            'hist': max_diff(hist(f, lo, hi), hist(r, lo, hi)) if r else 1.0,
            'strides': max_diff(strides(f), strides(y)),
            'depth': [info['streams'][s], fio_depth(fj[name]) if name in fj else None],
        }
        region = hi - lo
        tol = max(region // 100, 2 * max(ln for _, _, ln in f))
        if m['ops'] > 0.01:
            bad.append(f'{name}: op shares differ by {m["ops"]:.4f}')
        if m['bs'] > 0.01:
            bad.append(f'{name}: block-size shares differ by {m["bs"]:.4f}')
        if abs(rlo - lo) > tol or abs(rhi - hi) > tol:
            bad.append(f'{name}: offsets {rlo}..{rhi} on the device, fio {lo}..{hi}')
        if m['hist'] > 0.02:
            bad.append(f'{name}: offset histogram differs by {m["hist"]:.4f}')
        if m['strides'] > 0.01:
            bad.append(f'{name}: strides differ by {m["strides"]:.4f} '
                       f'(fio {strides(f)}, ioreel {strides(y)})')
        if m['depth'][1] is not None and depth_bucket(m['depth'][0]) != m['depth'][1]:
            bad.append(f'{name}: depth {m["depth"][0]}, fio ran at {m["depth"][1]}')
        if name in zones:
            zf = [sum(a <= o < b for _, o, _ in f) / len(f) for a, b in zones[name]]
            zr = [sum(a <= o < b for _, o, _ in r) / len(r) for a, b in zones[name]]
            m['zones_fio'], m['zones_run'] = zf, zr
            if max(abs(x - z) for x, z in zip(zf, zr)) > 0.02:
                bad.append(f'{name}: zone shares fio {zf} ioreel {zr}')
        # deterministic patterns (absolute regions): the very offsets and sizes fio issued
        if name in exact and f[:256] != y[:256]:
            bad.append(f'{name}: I/Os differ from fio\'s: {f[:6]} vs {y[:6]}')
        if name in counts:
            m['counts'] = [len(f), len(y), len(r)]
            if not len(f) == len(y) == len(r) == counts[name]:
                bad.append(f'{name}: I/O counts fio {len(f)} synth {len(y)} run {len(r)}, '
                           f'expected {counts[name]}')
        if name in runtimes:
            ev = run.get(s, [])
            span = (max(e[4] for e in ev) - min(e[3] for e in ev)) / 1e9 if ev else 0
            m['run_span_s'] = span
            if not runtimes[name] * 0.95 <= span <= runtimes[name] * 10:
                bad.append(f'{name}: replayed for {span:.2f} s, runtime {runtimes[name]} s')
        report[name] = m
        print(f'  {name:15} ios fio/synth/run {len(f)}/{len(y)}/{len(r)}  ops {m["ops"]:.4f}  '
              f'bs {m["bs"]:.4f}  hist {m["hist"]:.4f}  strides {m["strides"]:.4f}  '
              f'range fio {lo}..{hi} run {rlo}..{rhi}  depth {m["depth"][0]}/{m["depth"][1]}'
              + (f'  zones fio {[round(x, 4) for x in m["zones_fio"]]} '
                 f'run {[round(x, 4) for x in m["zones_run"]]}' if 'zones_fio' in m else ''))
    if a.json_out:
        json.dump(report, open(a.json_out, 'w'), indent=1)
    for b in bad:
        print('MISMATCH ' + b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
