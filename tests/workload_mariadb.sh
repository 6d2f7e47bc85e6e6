# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A second real database workload for the benches: Debian's MariaDB (InnoDB) with sysbench's
# bundled OLTP scripts, in a private server on a scratch mount. Source after tests/lib.sh and
# tests/setups.sh:
#   setup_fs_loop xfs 2G >/dev/null
#   mdb_start "$SETUP_MNT/mdb"; mdb_sysbench_prepare 4 100000; mdb_sysbench_run 10 4; mdb_stop
#
# The server is private: its own data directory DIR/data, a unix socket DIR/sock, no TCP
# (skip-networking: the port never clashes with another server), no option file read
# (--no-defaults: nothing from /etc/mysql), root authenticated by the unix socket (the bench
# runs as root). It runs as the mysql user. InnoDB as a tuned server runs it: the data files
# with O_DIRECT, a small buffer pool (MDB_BUFFER_POOL, 64M) so page reads reach the storage,
# every commit flushing the redo log (innodb_flush_log_at_trx_commit=1), doublewrite on; the
# buffer pool is neither dumped at shutdown nor loaded at start, so every run starts cold.
# Every start registers a clean-up (mdb_stop) that runs before setups.sh unmounts: even a
# bench that dies midway leaves no mariadbd behind.

MDB_USER=${MDB_USER:-mysql}
MDB_BUFFER_POOL=${MDB_BUFFER_POOL:-64M}
MDB_DB=sbtest
MDB_DIR=
MDB_SOCK=

# mdb_available: true when MariaDB's server, its client, sysbench with its OLTP scripts and the
# mysql user are installed (make deps installs mariadb-server and sysbench).
mdb_available() {
	command -v mariadbd >/dev/null && command -v mariadb-install-db >/dev/null &&
		command -v mariadb-admin >/dev/null && command -v mariadb >/dev/null &&
		command -v sysbench >/dev/null && id -u "$MDB_USER" >/dev/null 2>&1 &&
		sysbench oltp_read_write help >/dev/null 2>&1
}

# mdb_use DIR: the server in DIR (DIR/data, DIR/sock) is the one the other functions talk to.
mdb_use() { MDB_DIR=$1 MDB_SOCK=$1/sock/mysqld.sock; }

# mdb_pid: the running server's pid (from its pid file, checked to be a mariadbd), or nothing.
mdb_pid() {
	local pid
	[ -n "$MDB_DIR" ] && pid=$(cat "$MDB_DIR/mariadbd.pid" 2>/dev/null) || return 1
	[[ $pid =~ ^[0-9]+$ ]] && setups_pid_alive "$pid" &&
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = mariadbd ] || return 1
	echo "$pid"
}

# mdb_start DIR: a fresh server in DIR/data (DIR is created; put it on the mount under test),
# started and accepting connections, with an empty database sbtest.
mdb_start() {
	local dir=$1 out
	mdb_available || skip "needs MariaDB and sysbench (make deps installs mariadb-server and sysbench)"
	mkdir -p "$dir/data" "$dir/sock" "$dir/tmp" && chown -R "$MDB_USER:" "$dir" &&
		chmod 755 "$dir" || fail "cannot prepare $dir for $MDB_USER"
	out=$(mariadb-install-db --no-defaults --user="$MDB_USER" --datadir="$dir/data" \
		--auth-root-authentication-method=socket --skip-test-db 2>&1) ||
		fail "mariadb-install-db --datadir=$dir/data failed: $(tail -n 5 <<<"$out")"
	mdb_resume "$dir"
	out=$(mariadb --no-defaults -S "$MDB_SOCK" -uroot -e "CREATE DATABASE $MDB_DB" 2>&1) ||
		fail "CREATE DATABASE $MDB_DB failed: $out"
}

# mdb_resume DIR: start the server on DIR/data that mdb_start made earlier (restored from a copy
# since, say) and wait until it accepts connections. Run in a subshell to put the server in a
# cgroup; the caller then calls mdb_use DIR.
mdb_resume() {
	local i pid
	mdb_use "$1"
	[ -d "$MDB_DIR/data/mysql" ] || fail "mdb_resume: no MariaDB data directory in $MDB_DIR/data"
	rm -f "$MDB_DIR/mariadbd.pid" "$MDB_SOCK"
	chown "$MDB_USER:" "$MDB_DIR/data" || fail "cannot give $MDB_DIR/data to $MDB_USER"
	cleanup_push "mdb_use '$MDB_DIR'; mdb_stop"
	# setsid: the server is nobody's job, so the bench's own waits never wait for it
	setsid mariadbd --no-defaults --user="$MDB_USER" --datadir="$MDB_DIR/data" \
		--socket="$MDB_SOCK" --pid-file="$MDB_DIR/mariadbd.pid" \
		--log-error="$MDB_DIR/mariadbd.log" --tmpdir="$MDB_DIR/tmp" --skip-networking \
		--skip-log-bin --innodb-flush-method=O_DIRECT \
		--innodb-buffer-pool-size="$MDB_BUFFER_POOL" --innodb-flush-log-at-trx-commit=1 \
		--innodb-buffer-pool-load-at-startup=0 --innodb-buffer-pool-dump-at-shutdown=0 \
		--max-connections=64 </dev/null >/dev/null 2>&1 &
	pid=$! # setsid execs the server (a background job is no group leader): this is mariadbd
	for ((i = 0; i < 600; i++)); do
		mariadb-admin --no-defaults -S "$MDB_SOCK" -uroot ping >/dev/null 2>&1 &&
			mdb_pid >/dev/null && return 0
		setups_pid_alive "$pid" || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	fail "mariadbd on $MDB_DIR/data did not start in 60 s; log:" \
		"$(tail -n 5 "$MDB_DIR/mariadbd.log" 2>/dev/null)"
}

# mdb_drop_cache: evict the data directory's clean pages from the page cache (as pg_drop_cache:
# per file, nobody else's cache touched), so the copy a restore just wrote is not read back
# from memory by the log and the system tables, which InnoDB does not open with O_DIRECT.
mdb_drop_cache() {
	find "$MDB_DIR/data" -type f -size +0 -exec dd if={} iflag=nocache count=0 status=none \; \
		2>/dev/null
	return 0
}

_mdb_sysbench() { # sysbench oltp_read_write with the server's connection options, then ARGS
	sysbench oltp_read_write --db-driver=mysql --mysql-socket="$MDB_SOCK" \
		--mysql-user=root --mysql-db="$MDB_DB" "$@"
}

# mdb_sysbench_prepare TABLES ROWS: sysbench's tables (about 240 MiB per million rows).
mdb_sysbench_prepare() {
	local out
	out=$(_mdb_sysbench --tables="$1" --table-size="$2" --threads="$1" prepare 2>&1) ||
		fail "sysbench oltp_read_write prepare --tables=$1 --table-size=$2 failed: $(tail -n 5 <<<"$out")"
	MDB_TABLES=$1 MDB_ROWS=$2
}

# mdb_sysbench_run SECONDS THREADS [TABLES ROWS]: oltp_read_write for SECONDS; prints
# sysbench's transactions line. MDB_SYSBENCH_OUT names the file that keeps the full output.
mdb_sysbench_run() {
	local secs=$1 threads=$2 tables=${3:-${MDB_TABLES:-4}} rows=${4:-${MDB_ROWS:-250000}} out rc
	out=${MDB_SYSBENCH_OUT:-$MDB_DIR/sysbench.out}
	mdb_drop_cache
	_mdb_sysbench --tables="$tables" --table-size="$rows" --threads="$threads" --time="$secs" \
		--events=0 --report-interval=0 run >"$out" 2>&1
	rc=$?
	grep -E '^ *transactions:' "$out"
	[ $rc = 0 ] || { tail -n 5 "$out" >&2; fail "sysbench oltp_read_write run failed (exit $rc)"; }
	# A run that committed nothing is not a workload.
	grep -Eq '^ *transactions: *[1-9]' "$out" ||
		fail "sysbench committed no transaction: $(tail -n 3 "$out")"
}

# mdb_stop [slow]: shut the server down (SIGTERM: InnoDB flushes its dirty pages; with slow,
# innodb_fast_shutdown=0 first, so purge and the change buffer are done too and a copy of the
# data directory starts with nothing left over), then SIGKILL after 120 s. Idempotent.
mdb_stop() {
	local pid i
	pid=$(mdb_pid) || return 0
	[ "${1:-}" != slow ] || mariadb --no-defaults -S "$MDB_SOCK" -uroot \
		-e "SET GLOBAL innodb_fast_shutdown=0" >/dev/null 2>&1
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < 1200; i++)); do setups_pid_alive "$pid" || return 0; sleep 0.1; done
	echo "mariadbd $pid on $MDB_DIR did not stop in 120 s of SIGTERM: killed" >&2
	kill -KILL "$pid" 2>/dev/null
	for ((i = 0; i < 50; i++)); do setups_pid_alive "$pid" || break; sleep 0.1; done
	return 0
}
