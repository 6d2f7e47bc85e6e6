#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# tests/workload_pg.sh: a private PostgreSQL cluster on xfs over a loop device: initdb,
# pgbench -i -s 5, a 10 s pgbench run whose I/O reaches the loop device, then a teardown that
# leaves no server, mount or loop device behind.
# timeout: 120
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../setups.sh"
. "$here/../workload_pg.sh"
need_root
need_cmd mkfs.xfs runuser
pg_available || skip "needs PostgreSQL with pgbench and the postgres user (make deps installs postgresql)"

dir=$SETUPS_DIR
setup_fs_loop xfs 512 >/dev/null
dev=$SETUP_DEV
pg_start "$SETUP_MNT/pg"
pg_running || fail "postgres is not running after pg_start"
pid=$(head -n1 "$PG_DATA/postmaster.pid")
pg_pgbench_init 5

# The I/O of the run must reach the device under test: count it in the kernel's own counters.
name=${dev#/dev/}
before=$(awk '{ print $1 + $5 }' "/sys/block/$name/stat")
wbefore=$(awk '{ print $5 }' "/sys/block/$name/stat")
pg_pgbench_run 10 4 || fail "pgbench run"
after=$(awk '{ print $1 + $5 }' "/sys/block/$name/stat")
wafter=$(awk '{ print $5 }' "/sys/block/$name/stat")
ios=$((after - before))
echo "device $dev saw $ios I/Os ($((wafter - wbefore)) writes) during the 10 s pgbench run"
[ $((wafter - wbefore)) -ge 100 ] || fail "pgbench's commits did not reach $dev (fsync off?)"

pg_stop
setups_pid_alive "$pid" && fail "postmaster $pid still alive after pg_stop"
pg_stop || fail "second pg_stop failed"

# Teardown with a running server: start again and let the teardown stop it.
pg_start "$SETUP_MNT/pg2"
pid=$(head -n1 "$PG_DATA/postmaster.pid")
setups_teardown_dir "$dir"
setups_pid_alive "$pid" && fail "postmaster $pid survived the teardown"
setups_assert_gone "$dir"
echo "ok"
