#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# timeout: 300
# A file-level replay with the threads engine makes each recorded thread's calls on names
# (stat, unlink, mkdir, rmdir, rename, truncate by name) on that thread's own worker, beside
# the other threads' calls, as the application's threads did: not one after another on the
# scheduling thread (fio's dirstat example with ten jobs ran at half fio's calls/s that way).
# Checked by recording the replay itself (record --level file --comm ioreel): after the set-up
# (the replay's main thread lays out and vets the names), every stat and unlink under the root
# is made by one of the jobs' worker threads, 100 and 50 by each, none by the main thread's.
# 1024 streams' workers, started before the clock, do not lock their whole stacks.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"

mnt=$(make_fs xfs "$(make_loop 512)")
out=$(scratch_dir)
cat >"$out/jobs.fio" <<'EOF'
[global]
filesize=4k
numjobs=4

[stat]
ioengine=filestat
nrfiles=100

[delete]
stonewall
ioengine=filedelete
nrfiles=50
EOF
"$IOREEL" synth --fio-job "$out/jobs.fio" -o "$out/jobs.ioreel" >/dev/null 2>"$out/synth.err" ||
	fail "synth failed: $(cat "$out/synth.err")"
mkdir -p "$mnt/root"
rec_start "$out/rec.ioreel" --level file --comm ioreel --under "$mnt/root"
"$IOREEL" replay "$out/jobs.ioreel" --root "$mnt/root" --allow-writes --engine threads --json \
	-q -o "$out/run.ioreel" >"$out/run.json" 2>"$out/run.err" ||
	fail "replay failed: $(cat "$out/run.err")"
rec_finish "$out/rec.ioreel"

python3 - "$out/rec.ioreel.csv" "$out/run.json" <<'PY' || fail "calls on names not made by the jobs' threads"
import collections, csv, json, sys
rec, run = sys.argv[1:3]
ops = json.load(open(run))["file"]["ops"]
print("replayed:", {k: (v["replayed"], v["failed"]) for k, v in ops.items()})
ok = ops["stat"]["replayed"] == 400 and ops["unlink"]["replayed"] == 200
ok &= ops["stat"]["failed"] == 0 and ops["unlink"]["failed"] == 0
by = collections.defaultdict(collections.Counter)  # op -> worker tid -> calls
main = collections.Counter()
for r in csv.DictReader(l for l in open(rec) if not l.startswith("#")):
    if r["op"] in ("stat", "unlink") and r["iface"] != "start":
        if r["tid"] == r["pid"]:
            main[r["op"]] += 1  # the set-up's, before the clock
        else:
            by[r["op"]][r["tid"]] += 1
print("by worker threads:", {op: dict(c) for op, c in by.items()}, "by the main thread:",
      dict(main))
for op, each in (("stat", 100), ("unlink", 50)):
    got = sorted(by[op].values())
    if got != [each] * 4:
        print(f"{op}: worker threads made {got}, want 4 threads making {each} each")
        ok = False
sys.exit(0 if ok else 1)
PY

# 1024 streams: their workers start before the clock, but after the replay locked its memory,
# so each locks only the stack pages it uses. Started before the lock (mlockall), every
# worker's 256 KiB stack was locked whole: 380 MiB resident, 125 MiB now.
printf '[global]\nnumjobs=1024\nfilesize=4k\n[s]\nioengine=filestat\nnrfiles=1\n' >"$out/many.fio"
"$IOREEL" synth --fio-job "$out/many.fio" -o "$out/many.ioreel" >/dev/null 2>"$out/synth.err" ||
	fail "synth failed: $(cat "$out/synth.err")"
mkdir -p "$mnt/many"
/usr/bin/time -f '%M' -o "$out/rss" "$IOREEL" replay "$out/many.ioreel" --root "$mnt/many" \
	--allow-writes --engine threads --json -q >"$out/many.json" 2>"$out/many.err" ||
	fail "replay of 1024 streams failed: $(cat "$out/many.err")"
rss_kib=$(tail -1 "$out/rss")
echo "1024 streams: peak RSS $((rss_kib / 1024)) MiB"
[ "$rss_kib" -lt $((250 * 1024)) ] || fail "a replay of 1024 streams took $rss_kib KiB resident"
echo PASS
