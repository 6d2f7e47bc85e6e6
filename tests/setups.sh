# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Candidate storage setups for tests and `make demo`: a raw loop device, ext4/xfs on a loop
# device, btrfs RAID profiles across four loop devices, zram. Source after tests/lib.sh:
#   . "$TESTS_DIR/lib.sh"; . "$TESTS_DIR/setups.sh"
#   setup_fs_loop xfs 512M >/dev/null; echo "$SETUP_MNT on $SETUP_DEV"
#
# Why a state directory instead of lib.sh's per-helper cleanup_push: a helper called as
# $(helper ...) runs in a subshell, so its cleanup_push is lost with the subshell and the device
# leaks. Here every resource lives in, or is listed in, one directory per process
# (${TMPDIR:-/tmp}/ioreel-setup.PID.XXXXXX), and one teardown of that directory, pushed once by
# the parent shell, undoes everything: stops PostgreSQL clusters listed there, unmounts every
# mount under it, detaches every loop device backed by a file in it, removes the zram devices
# listed in it. The same teardown removes what a crashed run left (setups_teardown_stale),
# recognising it by the PID in the name, so it never touches another live run's devices.
#
# Each setup function prints its result on stdout and also sets SETUP_* variables, so it can be
# called directly (no subshell) or inside $(...): both are cleaned up.
# Sizes: a number is MiB; K/M/G suffixes as truncate(1) reads them.

# _setups_size 256 -> 256M; 1G -> 1G
_setups_size() { case $1 in *[!0-9]*) echo "$1" ;; *) echo "${1}M" ;; esac; }

# The per-process state directory; created on first use by the shell that sourced us ($$ is
# the sourcing shell's PID even inside a subshell, so subshells share it).
SETUPS_DIR=${SETUPS_DIR:-}
_setups_dir() {
	if [ -z "$SETUPS_DIR" ] || [ ! -d "$SETUPS_DIR" ]; then
		fail "setups.sh: state directory missing (source setups.sh from the test's main shell)"
	fi
	echo "$SETUPS_DIR"
}
_setups_init() {
	[ -n "$SETUPS_DIR" ] && [ -d "$SETUPS_DIR" ] && return 0
	SETUPS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/ioreel-setup.$$.XXXXXX") ||
		fail "setups.sh: cannot create a state directory in ${TMPDIR:-/tmp}"
	# Traversable (not listable) so a service run as another user (postgres) reaches its
	# data directory on a mount point below.
	chmod 711 "$SETUPS_DIR"
	: >"$SETUPS_DIR/zram" && : >"$SETUPS_DIR/pgdata"
	cleanup_push "setups_teardown_dir '$SETUPS_DIR'"
}

# setups_pid_alive PID: the process exists and is not a zombie (a daemon reparented to a
# parent that reaps late stays a zombie for a while, and kill -0 still succeeds on it).
setups_pid_alive() {
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	st=${st##*) }
	[ "${st%% *}" != Z ]
}

# _setups_detach_under DIR...: detach every loop device whose backing file lies under one of
# the DIRs (its btrfs registration forgotten first, else a later scan finds a stale member).
_setups_detach_under() {
	local dev back d
	[ $# -gt 0 ] || return 0
	while read -r dev back; do
		for d in "$@"; do
			case $back in "$d"/*) ;; *) continue ;; esac
			command -v btrfs >/dev/null &&
				btrfs device scan --forget "$dev" >/dev/null 2>&1
			losetup -d "$dev" 2>/dev/null ||
				echo "setups: cannot detach $dev ($back)" >&2
			break
		done
	done < <(losetup -n -l -O NAME,BACK-FILE 2>/dev/null)
}

# setups_teardown_dir DIR: undo everything recorded in one state directory. Idempotent; never
# fails (each step is tried and what could not be undone is reported on stderr).
setups_teardown_dir() {
	local dir=$1 pgd pid i mnt id left
	[ -d "$dir" ] || return 0
	# 1. services that keep files open on our mounts (else umount is EBUSY)
	while read -r pgd; do
		[ -n "$pgd" ] && [ -f "$pgd/postmaster.pid" ] || continue
		pid=$(head -n1 "$pgd/postmaster.pid" 2>/dev/null)
		[[ $pid =~ ^[0-9]+$ ]] || continue
		kill -QUIT "$pid" 2>/dev/null # immediate shutdown: the cluster is scratch
		for ((i = 0; i < 100; i++)); do setups_pid_alive "$pid" || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null
	done <"$dir/pgdata" 2>/dev/null
	# 2. loop devices over files on those mounts (bench/predict.sh's B: an image on the btrfs
	# array), else the array's umount is EBUSY, a lazy one leaves it alive and its members
	# stay attached (seen when a bench was killed during a replay)
	_setups_detach_under $(awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/mounts)
	# 3. mounts under the directory, deepest first
	for mnt in $(awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
		umount "$mnt" 2>/dev/null || { sleep 0.5; umount "$mnt" 2>/dev/null; } ||
			umount -l "$mnt" 2>/dev/null ||
			echo "setups: cannot unmount $mnt" >&2
	done
	# 4. loop devices whose backing file is in the directory (the name may end in "(deleted)")
	_setups_detach_under "$dir"
	# 5. zram devices we hot-added
	while read -r id; do
		[[ $id =~ ^[0-9]+$ ]] && [ -e "/sys/block/zram$id" ] || continue
		zram_remove "$id" 2>/dev/null || echo "setups: cannot remove zram$id" >&2
	done <"$dir/zram" 2>/dev/null
	left=$(losetup -n -l -O NAME,BACK-FILE 2>/dev/null | awk -v d="$dir/" 'index($2, d) == 1')
	[ -z "$left" ] || echo "setups: still attached: $left" >&2
	rm -rf "$dir"
}

# setups_teardown_stale: remove what crashed runs left: state directories whose owner PID is
# gone (never ours, never a live run's).
setups_teardown_stale() {
	local d pid n=0
	for d in "${TMPDIR:-/tmp}"/ioreel-setup.*.*; do
		[ -d "$d" ] || continue
		pid=${d##*/ioreel-setup.}
		pid=${pid%%.*}
		[[ $pid =~ ^[0-9]+$ ]] || continue
		[ "$pid" = "$$" ] && continue
		setups_pid_alive "$pid" && continue
		echo "setups: removing leftovers of crashed run $pid: $d" >&2
		setups_teardown_dir "$d"
		n=$((n + 1))
	done
	return 0
}

# _setups_loop SIZE NAME: a loop device over a sparse file in the state dir; prints /dev/loopN.
_setups_loop() {
	local f dev
	f=$(mktemp "$(_setups_dir)/$2.XXXXXX.img") || fail "mktemp in $SETUPS_DIR"
	truncate -s "$(_setups_size "$1")" "$f" || fail "cannot size $f to $1"
	# Direct I/O keeps the backing file's page cache out of the measurements; not every
	# filesystem under TMPDIR supports it, so fall back to buffered.
	dev=$(losetup -f --show --direct-io=on "$f" 2>/dev/null) ||
		dev=$(losetup -f --show "$f") || fail "losetup failed for $f (no free loop device?)"
	echo "$dev"
}

# _setups_mkfs TYPE DEV [mkfs options]: quiet mkfs that says why it failed.
_setups_mkfs() {
	local type=$1 out
	shift
	case $type in
	ext4) out=$(mkfs.ext4 -q -F "$@" 2>&1) ;;
	xfs) out=$(mkfs.xfs -q -f "$@" 2>&1) ;;
	btrfs) out=$(mkfs.btrfs -q -f "$@" 2>&1) ;;
	*) fail "setups: unknown filesystem '$type' (ext4, xfs or btrfs)" ;;
	esac || fail "mkfs.$type $* failed: $out"
}

_setups_mount() {
	local mnt
	mnt=$(mktemp -d "$(_setups_dir)/mnt-$1.XXXXXX") || fail "mktemp -d in $SETUPS_DIR"
	chmod 755 "$mnt"
	shift
	mount "$@" "$mnt" || fail "mount $* on $mnt failed"
	chmod 755 "$mnt"
	echo "$mnt"
}

# setup_raw_loop SIZE: prints /dev/loopN (sets SETUP_DEV).
setup_raw_loop() {
	_setups_init
	SETUP_DEV=$(_setups_loop "$1" raw) || exit 1
	SETUP_MNT=
	echo "$SETUP_DEV"
}

# setup_fs_loop ext4|xfs SIZE: a filesystem on a loop device, mounted. Prints "MNT DEV"
# (sets SETUP_MNT, SETUP_DEV).
setup_fs_loop() {
	local type=$1
	case $type in ext4 | xfs | btrfs) ;; *) fail "setup_fs_loop: unknown filesystem '$type'" ;; esac
	_setups_init
	SETUP_DEV=$(_setups_loop "$2" "$type") || exit 1
	_setups_mkfs "$type" "$SETUP_DEV"
	SETUP_MNT=$(_setups_mount "$type" "$SETUP_DEV") || exit 1
	echo "$SETUP_MNT $SETUP_DEV"
}

# setup_btrfs_raid raid1|raid10|raid5|raid6 SIZE_EACH: btrfs with that data and metadata profile
# across four loop devices, mounted. Prints "MNT DEV1 DEV2 DEV3 DEV4" (sets SETUP_MNT,
# SETUP_DEV = the first device, SETUP_DEVS = all four).
# Metadata: the same profile as data. btrfs-progs warns that raid5/6 are for testing only (which
# is what this is); if a kernel or btrfs-progs refuses raid5/6 metadata, metadata falls back to
# raid1c3 (the upstream advice for raid6 data), then raid1. SETUP_MPROFILE says which it got.
setup_btrfs_raid() {
	local prof=$1 i m out
	case $prof in raid1 | raid10 | raid5 | raid6) ;;
	*) fail "setup_btrfs_raid: unknown profile '$prof' (raid1, raid10, raid5, raid6)" ;;
	esac
	_setups_init
	SETUP_DEVS=()
	for i in 1 2 3 4; do
		SETUP_DEVS+=("$(_setups_loop "$2" "btrfs-$prof-$i")") || exit 1
	done
	for m in "$prof" raid1c3 raid1; do
		out=$(mkfs.btrfs -q -f -d "$prof" -m "$m" "${SETUP_DEVS[@]}" 2>&1) && break
		m=
	done
	[ -n "$m" ] || fail "mkfs.btrfs -d $prof across ${SETUP_DEVS[*]} failed: $out"
	SETUP_MPROFILE=$m
	# The kernel must know all members before mounting by one of them.
	btrfs device scan "${SETUP_DEVS[@]}" >/dev/null 2>&1
	SETUP_DEV=${SETUP_DEVS[0]}
	SETUP_MNT=$(_setups_mount "btrfs-$prof" "$SETUP_DEV") || exit 1
	echo "$SETUP_MNT ${SETUP_DEVS[*]}"
}

# setup_zram SIZE: a fresh zram device of our own (hot-added, never zram0). Prints /dev/zramN.
setup_zram() {
	local id
	_setups_init
	id=$(zram_add "$(_setups_size "$1")") || exit $?
	echo "$id" >>"$(_setups_dir)/zram"
	SETUP_DEV=/dev/zram$id
	SETUP_MNT=
	echo "$SETUP_DEV"
}

# setups_assert_gone DIR [ZRAM_ID...]: fail if anything of state directory DIR is still there
# (a loop device backed by a file in it, a mount under it, one of the zram devices, DIR itself).
setups_assert_gone() {
	local dir=$1 id left
	shift
	left=$(losetup -n -l -O NAME,BACK-FILE 2>/dev/null | awk -v d="$dir/" 'index($2, d) == 1')
	[ -z "$left" ] || fail "loop devices left after teardown: $left"
	left=$(awk -v d="$dir/" 'index($2, d) == 1 { print $1 " on " $2 }' /proc/mounts)
	[ -z "$left" ] || fail "mounts left after teardown: $left"
	for id in "$@"; do
		[ ! -e "/sys/block/zram$id" ] || fail "zram$id left after teardown"
	done
	[ ! -e "$dir" ] || fail "state directory $dir left after teardown"
}

# setups_fill_file PATH SIZE: a regular file of SIZE with real blocks (not a hole), so that a
# replay's reads hit the device; written with O_DIRECT so it is on disk, not only in cache.
setups_fill_file() {
	local mib
	mib=$(($(numfmt --from=iec "$(_setups_size "$2")") / 1048576))
	dd if=/dev/zero of="$1" bs=1M count="$mib" oflag=direct status=none ||
		fail "cannot write $2 to $1"
}

# Sourced by the test's main shell: make the state directory now, so that subshells share it.
_setups_init
