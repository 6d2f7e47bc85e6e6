#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The drain thread's priority at both levels (record/README.md, record/FILE.md): real-time
# (SCHED_FIFO) by default; where real-time is refused (here: a cgroup v1 cpu group with no
# real-time runtime, which refuses it even to root) nice -20, said in a warning; with
# --keep-priority as started, without a warning. --json says which ("drain_priority").
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"

rt=/sys/fs/cgroup/cpu
[ -w "$rt/cpu.rt_runtime_us" ] ||
	skip_kernel "no cgroup v1 real-time group scheduling ($rt/cpu.rt_runtime_us) to refuse it"
dir=$(scratch_dir)
dev=$(make_loop 64)
mkdir "$dir/files"
cg=$(mktemp -d "$rt/ioreel-test.XXXXXX") || fail "cannot make a cgroup under $rt"
cleanup_push "rmdir '$cg'"

# record_in CGROUP|- NAME [options]: a 0.5 s recording, in CGROUP's cpu group or not.
record_in() {
	local cg=$1 name=$2
	shift 2
	(
		[ "$cg" = - ] || echo "$BASHPID" >"$cg/cgroup.procs" || exit 99
		exec "$IOREEL" record -o "$dir/$name.ioreel" --duration 0.5 --json "$@"
	) >"$dir/$name.json" 2>"$dir/$name.err" || fail "$name: record exited $?: $(cat "$dir/$name.err")"
}

for level in block file; do
	if [ $level = block ]; then args=(-d "$dev"); else args=(--level file --under "$dir/files"); fi
	record_in - "$level-rt" "${args[@]}"
	assert_eq "$(json_get "$dir/$level-rt.json" drain_priority)" fifo "$level: by default"
	record_in "$cg" "$level-refused" "${args[@]}"
	assert_eq "$(json_get "$dir/$level-refused.json" drain_priority)" nice "$level: refused"
	grep -q "warning: the drain thread runs at nice -20: real-time priority was refused" \
		"$dir/$level-refused.err" || fail "$level: no warning: $(cat "$dir/$level-refused.err")"
	record_in "$cg" "$level-kept" "${args[@]}" --keep-priority
	assert_eq "$(json_get "$dir/$level-kept.json" drain_priority)" inherited "$level: kept"
	grep -q "drain thread" "$dir/$level-kept.err" &&
		fail "$level: --keep-priority warned: $(cat "$dir/$level-kept.err")"
done
echo PASS
