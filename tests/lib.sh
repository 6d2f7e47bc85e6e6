# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Helpers sourced by integration tests: real devices with guaranteed clean-up, and asserts.
#   . "$(dirname "$0")/../lib.sh"
# Everything a helper creates is undone on exit, pass or fail (trap EXIT runs the stack).
set -u
set -o pipefail
TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=${BUILD:-$TESTS_DIR/../build}
IOREEL=${IOREEL:-$BUILD/ioreel}

# The stack lives in a file, not a shell array, because helpers are called as dev=$(make_loop 64):
# a registration made inside that subshell must still be undone by the main shell at exit.
_CLEANUP_FILE=$(mktemp "${TMPDIR:-/tmp}/ioreel-cleanup.XXXXXX")
_CLEANUP_OWNER=$BASHPID
cleanup_push() { printf '%s\n' "$*" >>"$_CLEANUP_FILE"; }
# proc_start PID: when process PID started (clock ticks after boot), empty once it is gone
proc_start() {
	local s f
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	read -r -a f <<<"${s##*) }" # the fields after comm, which may hold spaces
	echo "${f[19]}"
}
# kill_same PID START SIGNAL: signals PID only if it is still the process that started at START
kill_same() { [ -n "$2" ] && [ "$(proc_start "$1")" = "$2" ] && kill -"$3" "$1" 2>/dev/null; }
# cleanup_kill PID [SIGNAL]: at exit, sends SIGNAL (KILL) to PID if it still runs. Not a bare
# "kill PID": pid_max is 32768 on many hosts, and by the end of a long test its number may
# belong to another process.
cleanup_kill() { cleanup_push "kill_same $1 '$(proc_start "$1")' ${2:-KILL}"; }
_run_cleanups() {
	[ "$BASHPID" = "$_CLEANUP_OWNER" ] || return 0
	local line
	if [ -f "$_CLEANUP_FILE" ]; then
		while IFS= read -r line; do
			eval "$line" >/dev/null 2>&1 || true
		done < <(tac "$_CLEANUP_FILE")
		rm -f "$_CLEANUP_FILE"
	fi
}
trap _run_cleanups EXIT
trap 'exit 130' INT TERM

# In a helper's command substitution (dev=$(make_loop 64)) exit alone would end only that
# subshell and the test would go on with an empty value (a mount point of "" put a replay's
# files under /): the test's own shell is ended too, and its clean-up runs.
fail() {
	echo "FAIL: $*" >&2
	[ "$BASHPID" = "$_CLEANUP_OWNER" ] || kill -TERM "$_CLEANUP_OWNER" 2>/dev/null
	exit 1
}
# A missing prerequisite that CI must have (CI counts this skip as a failure).
skip() { echo "SKIP: $*"; exit 77; }
# Only after a probe showed the kernel cannot do it.
skip_kernel() { echo "SKIP(kernel): $*"; exit 77; }
need_root() { [ "$(id -u)" = 0 ] || skip "needs root"; }
need_cmd() { local c; for c in "$@"; do command -v "$c" >/dev/null || skip "needs $c (make deps)"; done; }

# output_has PATTERN CMD...: CMD exits 0 and a line of its standard output matches PATTERN
# (grep's basic regex). Not "CMD | grep -q PATTERN": under pipefail, grep -q leaving at the first
# match kills a CMD still writing with SIGPIPE (141) and the check fails at random (one
# `replay --help` in ten: its 6 KiB go out in two writes).
output_has() {
	local pat=$1 out; shift
	out=$("$@") || return 1
	grep -q -- "$pat" <<<"$out"
}
assert_eq() { [ "$1" = "$2" ] || fail "${3:-values differ}: expected '$2', got '$1'"; }
# assert_status EXPECTED CMD...: run CMD, check its exit status.
assert_status() {
	local want=$1; shift
	"$@"; local rc=$?
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, expected $want"
}
# interrupt_ends PID WHAT: SIGINT to PID (a child of the test) ends it within 5 s with a
# non-zero exit; else the test fails, naming WHAT.
interrupt_ends() {
	kill -INT "$1"
	for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.05; done
	kill -0 "$1" 2>/dev/null && { kill -9 "$1"; fail "$2 still running 5 s after SIGINT"; }
	wait "$1" && fail "$2 exited 0 after SIGINT"
	return 0
}

# A scratch directory, removed at exit.
scratch_dir() {
	local d
	d=$(mktemp -d "${TMPDIR:-/tmp}/ioreel-test.XXXXXX") || fail "mktemp"
	cleanup_push "rm -rf '$d'"
	echo "$d"
}

# make_loop SIZE_MIB [SECTOR_SIZE]: a loop device over a sparse file; prints /dev/loopN.
make_loop() {
	local size=$1 f dev
	f=$(mktemp "${TMPDIR:-/tmp}/ioreel-loop.XXXXXX") || fail "mktemp"
	truncate -s "${size}M" "$f"
	dev=$(losetup -f --show --direct-io=on ${2:+--sector-size $2} "$f" 2>/dev/null) ||
		dev=$(losetup -f --show "$f") || { rm -f "$f"; fail "losetup failed for $f"; }
	cleanup_push "losetup -d '$dev'; rm -f '$f'"
	echo "$dev"
}

# zram_remove ID: reset and remove zramID. A reset fails with EBUSY while anything holds the
# device open (udev probing it after a write, a process just exiting), so wait that out.
zram_remove() {
	local i
	udevadm settle 2>/dev/null
	for i in $(seq 40); do
		echo 1 >"/sys/block/zram$1/reset" 2>/dev/null && break
		sleep 0.3
	done
	echo "$1" >/sys/class/zram-control/hot_remove
}

# zram_add SIZE ("128M", "1G"): hot-adds a zram device of its own (never zram0, which others
# may use) and sizes it; prints its number. The caller registers zram_remove for it.
zram_add() {
	local id
	[ -e /sys/class/zram-control/hot_add ] || modprobe zram 2>/dev/null
	[ -e /sys/class/zram-control/hot_add ] || skip_kernel "no zram-control in /sys/class (zram module absent)"
	id=$(cat /sys/class/zram-control/hot_add) || fail "zram hot_add failed"
	# zram0 is the one the module makes at boot, for others (swap, tmp): when something took
	# it away, hot_add hands out 0 again; leave it there, as it was at boot, and take the next
	[ "$id" != 0 ] || id=$(cat /sys/class/zram-control/hot_add) || fail "zram hot_add failed"
	echo "$1" >"/sys/block/zram$id/disksize" || { zram_remove "$id"; fail "cannot size zram$id to $1"; }
	echo "$id"
}

# make_zram SIZE_MIB: a fresh zram device, removed at exit; prints /dev/zramN.
make_zram() {
	local id
	id=$(zram_add "${1}M") || exit $?
	cleanup_push "zram_remove $id"
	echo "/dev/zram$id"
}

# make_fs TYPE DEV: mkfs and mount on a scratch dir; prints the mount point.
make_fs() {
	local type=$1 dev=$2 mnt
	mnt=$(mktemp -d "${TMPDIR:-/tmp}/ioreel-mnt.XXXXXX") || fail "mktemp -d"
	cleanup_push "rmdir '$mnt'"
	case $type in
	ext4) mkfs.ext4 -q -F "$dev" ;;
	xfs) mkfs.xfs -q -f "$dev" ;;
	btrfs) mkfs.btrfs -q -f "$dev" ;;
	*) fail "make_fs: unknown type $type" ;;
	esac >/dev/null 2>&1 || fail "mkfs.$type $dev failed"
	mount "$dev" "$mnt" || fail "mount $dev failed"
	cleanup_push "umount -l '$mnt'"
	echo "$mnt"
}

# make_throttled_cgroup MAJ:MIN READ_IOPS WRITE_IOPS: a fresh cgroup whose tasks get at most
# that many reads and writes (flushes count as writes) per second on the device, removed at
# exit; prints the file to write a pid into ("echo $$ >FILE" in a subshell, then exec). cgroup
# v2's io.max where the io controller is there, else v1's blkio.throttle (both blk-throttle).
make_throttled_cgroup() {
	local dev=$1 r=$2 w=$3 root cg
	root=$(findmnt -n -o TARGET -t cgroup2 | head -n1)
	if [ -n "$root" ] && grep -qw io "$root/cgroup.controllers" 2>/dev/null; then
		grep -qw io "$root/cgroup.subtree_control" ||
			echo +io >"$root/cgroup.subtree_control" 2>/dev/null
		cg=$root/ioreel-throttle-$$-$RANDOM
		mkdir "$cg" || fail "cannot create cgroup $cg"
		cleanup_push "rmdir '$cg'"
		echo "$dev riops=$r wiops=$w" >"$cg/io.max" || fail "cannot set io.max in $cg"
	else
		root=$(findmnt -n -o TARGET -t cgroup | grep -m1 blkio)
		[ -n "$root" ] && [ -e "$root/blkio.throttle.read_iops_device" ] ||
			skip_kernel "no blk-throttle: neither cgroup v2's io.max nor v1's blkio.throttle"
		cg=$root/ioreel-throttle-$$-$RANDOM
		mkdir "$cg" || fail "cannot create cgroup $cg"
		cleanup_push "rmdir '$cg'"
		echo "$dev $r" >"$cg/blkio.throttle.read_iops_device" &&
			echo "$dev $w" >"$cg/blkio.throttle.write_iops_device" ||
			fail "cannot set blkio.throttle limits in $cg"
	fi
	echo "$cg/cgroup.procs"
}

# make_memory_cgroup BYTES: a fresh cgroup, below our own, whose tasks (and the page cache they
# bring in) get at most BYTES of memory, removed at exit; prints the file to write a pid into.
# cgroup v2's memory.max where the memory controller is there, else v1's memory.limit_in_bytes.
make_memory_cgroup() {
	local lim=$1 root cg own
	root=$(findmnt -n -o TARGET -t cgroup2 | head -n1)
	if [ -n "$root" ] && grep -qw memory "$root/cgroup.controllers" 2>/dev/null; then
		own=$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
		cg=$root$own/ioreel-mem-$$-$RANDOM
		mkdir "$cg" || fail "cannot create cgroup $cg"
		cleanup_push "rmdir '$cg'"
		echo "$lim" >"$cg/memory.max" || fail "cannot set memory.max in $cg"
	else
		root=$(findmnt -n -o TARGET -t cgroup | grep -m1 '/memory$')
		[ -n "$root" ] || skip_kernel "no memory controller in cgroup v1 or v2"
		own=$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)
		cg=$root$own/ioreel-mem-$$-$RANDOM
		mkdir "$cg" || fail "cannot create cgroup $cg"
		cleanup_push "rmdir '$cg'"
		echo "$lim" >"$cg/memory.limit_in_bytes" || fail "cannot set a memory limit in $cg"
	fi
	echo "$cg/cgroup.procs"
}

# bpftrace_live PID OUT TRACEPOINT: waits until bpftrace (PID, its output in OUT) has its
# probe on TRACEPOINT live. bpftrace prints "Attaching" before it attaches: a replay started
# on that line lost its first 50-70 ms of I/Os to the probe here (bpftrace 0.17). Watches
# bpftool's list of attached perf-event programs; 0 once live, 1 after 10 s without.
bpftrace_live() {
	local _
	for _ in $(seq 200); do grep -q Attaching "$2" 2>/dev/null && break; sleep 0.05; done
	if ! command -v bpftool >/dev/null; then
		sleep 2 # cannot see the attachment: give it far more than it takes
		return 0
	fi
	for _ in $(seq 200); do
		bpftool perf show 2>/dev/null | grep -q "^pid $1 .* $3\$" && return 0
		sleep 0.05
	done
	return 1
}

# dev_majmin /dev/X -> "MAJ:MIN"
dev_majmin() { printf '%d:%d\n' "0x$(stat -c %t "$1")" "0x$(stat -c %T "$1")"; }

[ -x "$IOREEL" ] || fail "ioreel binary not built at $IOREEL (run make)"
