#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Where do the reads that rise on a slower stack come from? (issue 24, item 4)

Reads bench/predict_fs.sh's output (PREDICT_OUT, or REAL_FROM's real runs and a later run's
replays) and prints, per real run, the transactions (TPS x seconds), the read calls PostgreSQL
made per transaction (file level) and the reads that reached the device per transaction
(block level), by size and by who issued them; then, per file-level replay, the reads that
reached the device under it per transaction of the recording it replayed.

If the read calls per transaction are the same on every filesystem but the device reads rise,
the rise is below the application: the page cache missed more. A file-level replay that issues
the recording's calls through the page cache reproduces it only if its device reads rise too.

Usage: predict_fs_reads.py OUT [REPLAYS_OUT]   (REPLAYS_OUT: the run whose obs-fblk-*.csv to read,
       default OUT). Figures only.
"""
import collections
import csv
import glob
import json
import os
import sys


def rows(path):
    with open(path) as f:
        r = csv.reader(line for line in f if not line.startswith('#'))
        head = next(r)
        ix = {k: n for n, k in enumerate(head)}
        for row in r:
            yield ix, row


def device_reads(path):
    """(count, bytes, Counter by size, count by kernel threads) of a block CSV's reads."""
    n = nbytes = kthreads = 0
    sizes = collections.Counter()
    for ix, row in rows(path):
        if row[ix['op']] != 'read':
            continue
        n += 1
        size = int(row[ix['length']])
        nbytes += size
        sizes[size] += 1
        if row[ix['comm']].startswith(('kworker', 'btrfs', 'kswapd')):
            kthreads += 1
    return n, nbytes, sizes, kthreads


def read_calls(path):
    n = nbytes = 0
    for ix, row in rows(path):
        if row[ix['op']] not in ('read', 'pread', 'preadv', 'readv'):
            continue
        n += 1
        nbytes += max(0, int(row[ix['result']] or 0))
    return n, nbytes


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out = sys.argv[1]
    rout = sys.argv[2] if len(sys.argv) == 3 else out
    try:
        meta = json.load(open(os.path.join(out, 'predict_fs.json')))
    except (OSError, ValueError) as e:
        sys.exit('predict_fs_reads: %s: %s (give a bench/predict_fs.sh output directory)' %
                 (out, e))
    secs = float(os.environ.get('SECONDS_PER_RUN', '20'))
    print('real runs (%g s each): per transaction, read calls (file level) and reads at the '
          'device (block level)' % secs)
    runs = []  # (transactions, device reads) of every real run, for the fit below
    for fs, tps in meta['tps'].items():
        for i, t in enumerate(tps, 1):
            fcsv = os.path.join(out, 'real-%s-%d.file.csv' % (fs, i))
            bcsv = os.path.join(out, 'real-%s-%d.blk.csv' % (fs, i))
            if not (os.path.exists(fcsv) and os.path.exists(bcsv)):
                continue
            tx = t * secs
            fr, fb = read_calls(fcsv)
            br, bb, sizes, kth = device_reads(bcsv)
            runs.append((fs, i, tx, br))
            top = ', '.join('%d KiB %.2f' % (k // 1024, v / tx) for k, v in sizes.most_common(3))
            print('  %-6s run %d: %6.0f transactions; read calls %.2f (%.1f KiB); device reads '
                  '%.3f (%.1f KiB; by size: %s; by kernel threads %.3f)' %
                  (fs, i, tx, fr / tx, fb / tx / 1024, br / tx, bb / tx / 1024, top, kth / tx))
    # A run starts with a cold cache (predict_fs.sh drops it): its first reads fill it whatever
    # the run's pace. reads = warm-up + per transaction x transactions, one line through all
    # the runs, every filesystem: if it fits each run, the reads per transaction that rise on
    # a slower stack are the warm-up spread over fewer transactions, not more misses.
    fit = None
    if len(runs) >= 2:
        n = len(runs)
        mx = sum(r[2] for r in runs) / n
        my = sum(r[3] for r in runs) / n
        sxx = sum((r[2] - mx) ** 2 for r in runs)
        if sxx > 0:
            per = sum((r[2] - mx) * (r[3] - my) for r in runs) / sxx
            fit = (my - per * mx, per)
            print('one line through every real run: device reads = %.0f (warm-up) + %.3f per '
                  'transaction; each run against it:' % fit)
            for fs, i, tx, br in runs:
                print('  %-6s run %d: %6d reads, the line %6.0f (x%.3f)' %
                      (fs, i, br, fit[0] + fit[1] * tx, (fit[0] + fit[1] * tx) / br))
    src = meta.get('source_run', 1)
    srcfs = meta.get('source_fs', os.environ.get('SOURCE', 'xfs'))
    tx = meta['tps'][srcfs][src - 1] * secs
    print('file-level replays of %s run %d (%.0f transactions recorded): device reads under '
          'the replay per recorded transaction' % (srcfs, src, tx))
    for path in sorted(glob.glob(os.path.join(rout, 'obs-fblk-*.csv'))):
        br, bb, _, _ = device_reads(path)
        name = os.path.basename(path)[len('obs-fblk-'):-len('.csv')]
        line = ''
        if fit:
            line = '; %d reads, the line %.0f (x%.3f)' % (br, fit[0] + fit[1] * tx,
                                                        (fit[0] + fit[1] * tx) / max(br, 1))
        print('  %-24s %.3f (%.1f KiB)%s' % (name, br / tx, bb / tx / 1024, line))


if __name__ == '__main__':
    main()
