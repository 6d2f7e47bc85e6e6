# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A real database workload for tests and `make demo`: Debian's PostgreSQL with pgbench, in a
# private cluster on a scratch mount. Source after tests/lib.sh and tests/setups.sh:
#   setup_fs_loop xfs 1G >/dev/null
#   pg_start "$SETUP_MNT/pg"; pg_pgbench_init 5; pg_pgbench_run 10 4; pg_stop
#
# The cluster is private: its own data directory, a unix socket in its own directory (no TCP:
# listen_addresses is empty, so the port only names the socket and never clashes with another
# server), trust authentication for the local user postgres. It runs as the postgres user
# (PostgreSQL refuses to run as root). fsync stays on and shared_buffers is small (16MB), so the
# WAL flushes and the data file reads and writes reach the device the way a real server's do.
# pg_start registers the data directory with setups.sh, whose teardown stops the server before
# unmounting: even a test that dies midway leaves no postgres behind.

PG_PORT=${PG_PORT:-54329}
PG_USER=${PG_USER:-postgres}
PG_DB=${PG_DB:-postgres}
PG_DATA=
PG_SOCK=
PG_LOG=

# pg_bindir: the newest installed PostgreSQL's server binaries (Debian keeps them out of PATH in
# /usr/lib/postgresql/VERSION/bin; /usr/bin/pgbench is only a wrapper picking a cluster).
pg_bindir() {
	local d
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		[ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/pgbench" ] && { echo "$d"; return 0; }
	done
	d=$(pg_config --bindir 2>/dev/null) && [ -x "$d/initdb" ] && [ -x "$d/pgbench" ] &&
		{ echo "$d"; return 0; }
	return 1
}

# pg_available: true when PostgreSQL's server, pgbench and the postgres user are installed.
pg_available() { pg_bindir >/dev/null && id -u "$PG_USER" >/dev/null 2>&1; }

# Run a command as the postgres user, with a working directory it can read.
_pg_as() { (cd / && runuser -u "$PG_USER" -- "$@"); }

# pg_start DIR: initdb in DIR/data (DIR is created; put it on the mount under test), start the
# server and wait until it accepts connections.
pg_start() {
	local dir=$1 bin out
	bin=$(pg_bindir) || skip "needs PostgreSQL and pgbench (make deps installs postgresql)"
	id -u "$PG_USER" >/dev/null 2>&1 || skip "needs the $PG_USER user (the postgresql package makes it)"
	mkdir -p "$dir" || fail "cannot create $dir"
	PG_DATA=$dir/data PG_SOCK=$dir/sock PG_LOG=$dir/postgres.log
	mkdir -p "$PG_SOCK" && chown "$PG_USER:" "$dir" "$PG_SOCK" && chmod 755 "$dir" ||
		fail "cannot prepare $dir for $PG_USER"
	# Registered before anything starts, so the teardown stops it whatever happens next.
	echo "$PG_DATA" >>"$(_setups_dir)/pgdata"
	cleanup_push "pg_stop"
	# initdb's own fsyncs only slow the set-up down; the workload that matters runs later.
	out=$(_pg_as "$bin/initdb" -D "$PG_DATA" -U "$PG_USER" -A trust -E UTF8 --no-sync 2>&1) ||
		fail "initdb -D $PG_DATA failed: $out"
	_pg_up
}

# pg_use DIR: the cluster in DIR/data is the one the other functions talk to (PG_DATA, the
# client's environment); for a server started in a subshell (pg_resume in a cgroup).
pg_use() {
	PG_DATA=$1/data PG_SOCK=$1/sock PG_LOG=$1/postgres.log
	export PGHOST=$PG_SOCK PGPORT=$PG_PORT PGUSER=$PG_USER PGDATABASE=$PG_DB
}

# pg_resume DIR: start the cluster that pg_start made in DIR/data earlier (on a filesystem
# restored from an image since, say), and wait until it accepts connections.
pg_resume() {
	pg_bindir >/dev/null || skip "needs PostgreSQL and pgbench (make deps installs postgresql)"
	pg_use "$1"
	[ -f "$PG_DATA/PG_VERSION" ] || fail "pg_resume: no cluster in $PG_DATA"
	rm -f "$PG_DATA/postmaster.pid" # left by an image taken from a running server
	echo "$PG_DATA" >>"$(_setups_dir)/pgdata"
	cleanup_push "pg_stop"
	_pg_up
}

_pg_up() {
	local out
	out=$(_pg_as "$(pg_bindir)/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" -w -t 60 -o "-c port=$PG_PORT \
-c listen_addresses='' -c unix_socket_directories='$PG_SOCK' -c fsync=on \
-c synchronous_commit=on -c full_page_writes=on -c shared_buffers=16MB" start 2>&1) ||
		fail "pg_ctl start on $PG_DATA failed: $out; log: $(tail -n 5 "$PG_LOG" 2>/dev/null)"
	export PGHOST=$PG_SOCK PGPORT=$PG_PORT PGUSER=$PG_USER PGDATABASE=$PG_DB
}

# pg_running: the server of the last pg_start is up.
pg_running() {
	[ -n "$PG_DATA" ] && [ -f "$PG_DATA/postmaster.pid" ] &&
		setups_pid_alive "$(head -n1 "$PG_DATA/postmaster.pid")"
}

# pg_pgbench_init SCALE: pgbench's tables at that scale (about 15 MiB per unit), then a
# checkpoint so that the initial load is on disk before any recording starts.
pg_pgbench_init() {
	local out
	out=$(_pg_as "$(pg_bindir)/pgbench" -h "$PG_SOCK" -p "$PG_PORT" -U "$PG_USER" -i -q \
		-s "$1" "$PG_DB" 2>&1) || fail "pgbench -i -s $1 failed: $out"
	out=$(_pg_as "$(pg_bindir)/psql" -h "$PG_SOCK" -p "$PG_PORT" -U "$PG_USER" -d "$PG_DB" \
		-qAt -c CHECKPOINT 2>&1) || fail "CHECKPOINT failed: $out"
}

# pg_drop_cache: evict the cluster's clean file pages from the page cache (POSIX_FADV_DONTNEED
# through dd's nocache), so that the next run's reads reach the device instead of memory;
# per file, so nobody else's cache is touched (unlike drop_caches).
pg_drop_cache() {
	find "$PG_DATA" -type f -size +0 -exec dd if={} iflag=nocache count=0 status=none \; \
		2>/dev/null
	return 0
}

# pg_pgbench_run SECONDS CLIENTS: a TPC-B-like run; prints pgbench's summary (tps, latency).
# PG_PGBENCH_OUT names the file that keeps the full output.
pg_pgbench_run() {
	local secs=$1 clients=$2 jobs out rc
	jobs=$((clients < 2 ? clients : 2))
	out=${PG_PGBENCH_OUT:-$(dirname "$PG_DATA")/pgbench.out}
	pg_drop_cache
	_pg_as "$(pg_bindir)/pgbench" -h "$PG_SOCK" -p "$PG_PORT" -U "$PG_USER" -n -T "$secs" \
		-c "$clients" -j "$jobs" "$PG_DB" >"$out" 2>&1
	rc=$?
	grep -E '^(number of transactions actually processed|latency average|tps)' "$out"
	[ $rc = 0 ] || { tail -n 5 "$out" >&2; fail "pgbench -T $secs -c $clients failed (exit $rc)"; }
	# A run that committed nothing is not a workload.
	grep -q '^number of transactions actually processed: [1-9]' "$out" ||
		fail "pgbench committed no transaction: $(tail -n 3 "$out")"
}

# pg_stop: stop the server (fast, then immediate, then kill). Idempotent.
pg_stop() {
	local bin pid i
	[ -n "$PG_DATA" ] && [ -f "$PG_DATA/postmaster.pid" ] || return 0
	bin=$(pg_bindir) || return 0
	_pg_as "$bin/pg_ctl" -D "$PG_DATA" -m fast -w -t 30 stop >/dev/null 2>&1 ||
		_pg_as "$bin/pg_ctl" -D "$PG_DATA" -m immediate -w -t 10 stop >/dev/null 2>&1
	if [ -f "$PG_DATA/postmaster.pid" ]; then
		pid=$(head -n1 "$PG_DATA/postmaster.pid")
		kill -KILL "$pid" 2>/dev/null
		for ((i = 0; i < 50; i++)); do setups_pid_alive "$pid" || break; sleep 0.1; done
	fi
	return 0
}

# ---- recording a workload with ioreel record (shared by the end-to-end test and the demo) ----

REC_PID=
REC_OUT=

# ioreel_has VERB: the binary has that verb (a verb not built in is not listed, and its --help
# is a usage error).
ioreel_has() { "$IOREEL" "$1" --help >/dev/null 2>&1; }

# rec_start DEV OUT: `ioreel record -d DEV -o OUT` in the background; returns once the recorder
# is attached (its trace file exists) plus a second for the probes to settle. Its JSON stats go
# to OUT.json and its stderr to OUT.log.
rec_start() {
	local dev=$1 i
	REC_OUT=$2
	rm -f "$REC_OUT"
	# Job control on for this one command: a non-interactive shell starts background commands
	# with SIGINT ignored, and the recorder must get our SIGINT as a user's Ctrl-C.
	set -m
	# shellcheck disable=SC2086 # REC_OPTS: extra record options, word-split (--cpu)
	"$IOREEL" record -d "$dev" -o "$REC_OUT" -q --json ${REC_OPTS:-} >"$REC_OUT.json" \
		2>"$REC_OUT.log" &
	REC_PID=$!
	set +m
	cleanup_push "kill_same $REC_PID '$(proc_start "$REC_PID")' INT && sleep 1; kill_same $REC_PID '$(proc_start "$REC_PID")' KILL"
	for ((i = 0; i < 100; i++)); do
		[ -s "$REC_OUT" ] && break
		kill -0 "$REC_PID" 2>/dev/null ||
			fail "ioreel record -d $dev exited early: $(tail -n 5 "$REC_OUT.log")"
		sleep 0.1
	done
	[ -s "$REC_OUT" ] || fail "ioreel record -d $dev wrote no trace header in 10 s: $(tail -n 5 "$REC_OUT.log")"
	sleep 1
}

# rec_file_start OUT [record options...]: `ioreel record --level file -o OUT` (with --pid of a
# postmaster, say) in the background, like rec_start; returns once its programs are attached
# (it says so on stderr, OUT.log). Its JSON stats go to OUT.json. Stop it with rec_stop.
rec_file_start() {
	local i
	REC_OUT=$1
	shift
	rm -f "$REC_OUT"
	set -m # as in rec_start: the recorder must get our SIGINT
	"$IOREEL" record --level file -o "$REC_OUT" --json "$@" >"$REC_OUT.json" 2>"$REC_OUT.log" &
	REC_PID=$!
	set +m
	cleanup_push "kill_same $REC_PID '$(proc_start "$REC_PID")' INT && sleep 1; kill_same $REC_PID '$(proc_start "$REC_PID")' KILL"
	for ((i = 0; i < 200; i++)); do
		grep -q ' level$' "$REC_OUT.log" 2>/dev/null && return 0
		kill -0 "$REC_PID" 2>/dev/null ||
			fail "ioreel record --level file exited early: $(tail -n 5 "$REC_OUT.log")"
		sleep 0.05
	done
	fail "ioreel record --level file did not attach in 10 s: $(tail -n 5 "$REC_OUT.log")"
}

# rec_stop: SIGINT the recorder (as a user's Ctrl-C) and wait for a clean exit.
rec_stop() {
	local i rc
	[ -n "$REC_PID" ] || return 0
	kill -INT "$REC_PID" 2>/dev/null
	for ((i = 0; i < 300; i++)); do kill -0 "$REC_PID" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$REC_PID" 2>/dev/null && fail "ioreel record did not stop within 30 s of SIGINT"
	wait "$REC_PID"
	rc=$?
	REC_PID=
	[ $rc = 0 ] || fail "ioreel record exited $rc after SIGINT: $(tail -n 5 "$REC_OUT.log")"
}
