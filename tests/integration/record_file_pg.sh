#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# timeout: 240
# ioreel record --level file on PostgreSQL (buffered I/O, fdatasync of the WAL, fsync of data
# files at a checkpoint): the postmaster followed with --pid (so every backend it forks, the
# checkpointer and the WAL writer too) during a short pgbench run and a CHECKPOINT. The trace
# holds WAL writes and their fdatasyncs, data file reads and writes, data file fsyncs, every
# file with a path under the data directory (relative opens joined to the backends' cwd, even
# for backends gone before /proc could be read), and nothing dropped.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../setups.sh"
. "$here/../workload_pg.sh"
. "$here/record_lib.bash"
need_cmd mkfs.xfs runuser
pg_available || skip "needs PostgreSQL with pgbench and the postgres user (make deps installs postgresql)"

out=$(scratch_dir)
setup_fs_loop xfs 1G >/dev/null
pg_start "$SETUP_MNT/pg"
pg_pgbench_init 5
postmaster=$(head -n1 "$PG_DATA/postmaster.pid")
psql_q() { _pg_as "$(pg_bindir)/psql" -h "$PG_SOCK" -p "$PG_PORT" -U "$PG_USER" -d "$PG_DB" -qAt -c "$1"; }

rec_start "$out/pg.ioreel" --level file --pid "$postmaster" --under "$PG_DATA"
PG_PGBENCH_OUT=$out/pgbench.out pg_pgbench_run 5 4
psql_q CHECKPOINT || fail "CHECKPOINT failed"
rec_finish "$out/pg.ioreel"
"$IOREEL" info --files "$out/pg.ioreel" | head -20

python3 - "$out/pg.ioreel.csv" "$PG_DATA" <<'PY' || fail "the trace does not hold PostgreSQL's I/O"
import collections, csv, sys
tcsv, data = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(l for l in open(tcsv) if not l.startswith("#")))
n = collections.Counter()
bad = []
for r in rows:
    p = r["path"]
    kind = "wal" if "/pg_wal/" in p else "data" if "/base/" in p else "other"
    n[(kind, r["op"])] += 1
    if r["file"] != "0" and not p.startswith(data + "/"):
        bad.append(f"file outside the data directory or without a path: {r}")
print(dict(n))
for kind, op, least in (("wal", "write", 100), ("wal", "fdatasync", 50), ("data", "read", 10),
                        ("data", "write", 10), ("data", "fsync", 3), ("data", "open", 5)):
    if n[(kind, op)] < least:
        bad.append(f"{kind} {op}: {n[(kind, op)]}, expected at least {least}")
for b in bad[:10]:
    print(b)
sys.exit(1 if bad else 0)
PY
echo "PASS"
