#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ioreel study --dry-run on the README's plan (issue 25): the same four disks as RAID6 under
# ext4 and xfs (md, printed even where the kernel has none), btrfs raid6, and zfs through
# setup=/teardown= commands; four presets and the recorded database in dep mode. Every command
# is printed, in order (per candidate: build, then each repeat's workloads in turn with caches
# dropped before each, then the teardown; the report last), and none is run: no results
# directory, no state, no array. The dry run checks what the run checks first, and here the
# recording the plan names is missing (the disks and md may be too): it says so, each with the
# plan's line, prints the commands all the same and exits 2, as the run would refuse the plan.
. "$(dirname "$0")/../lib.sh"
"$IOREEL" study --help >/dev/null 2>&1 || fail "ioreel study is not built in $IOREEL"
d=$(scratch_dir)
readme=$TESTS_DIR/../README.md
sed -n '/<!-- study-plan:begin -->/,/<!-- study-plan:end -->/p' "$readme" |
	sed '1,2d;$d' | sed '$d' >"$d/raid6.plan"
grep -q '^\[zfs-raidz2\]' "$d/raid6.plan" || fail "cannot find the study plan in README.md"
cd "$d" || fail "cd $d"
rc=0
"$IOREEL" study raid6.plan --dry-run >out 2>err || rc=$?
cat out err
[ $rc = 2 ] || fail "the dry run of a plan whose trace is missing exited $rc, want 2"
[ ! -e raid6.results ] || fail "the dry run made its results directory"
[ ! -e /dev/md/ioreel-ext4-raid6 ] || fail "the dry run made an md array"
line=$(grep -n '^trace=prod.ioreel$' raid6.plan | cut -d: -f1)
grep -qx "ioreel study: raid6.plan:$line: workload \[database\]: trace=: prod.ioreel: No such file or directory: give the path of an ioreel trace (ioreel record, convert or synth writes one)" err ||
	fail "the dry run does not say the recording is missing"
assert_eq "$(tail -n 1 err)" "ioreel study: raid6.plan: a real run would refuse this plan (the errors above); the commands were printed all the same" "the dry run's last word"
# every refusal names the plan's line (the disks and md depend on the host)
bad=$(sed '$d' err | grep -v '^ioreel study: raid6\.plan:[0-9]*: ')
[ -z "$bad" ] || fail "refusals without the plan's line: $bad"

disks="/dev/sdb /dev/sdc /dev/sdd /dev/sde"
R=$d/raid6.results
# the commands, replays and cache drops folded into one line per candidate and repeat
python3 - out "$disks" <<'PY' >got || fail "cannot read the dry run's output"
import re, sys
lines = [l.rstrip("\n") for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
out, i = [], 0
while i < len(lines):
    l = lines[i]
    if l.startswith("sync; echo 3 >/proc/sys/vm/drop_caches"):
        # a drop, then one replay: collect the run of them
        cells = []
        while i + 1 < len(lines) and lines[i].startswith("sync; echo 3"):
            m = re.search(r" replay (\S+) .* -o \S+/cells/([^/]+)/([^/]+)/r(\d+)\.part\.ioreel ", lines[i + 1])
            assert m, lines[i + 1]
            cells.append((m.group(2), m.group(3), m.group(4)))
            i += 2
        for c, w, r in cells:
            out.append("cell %s %s r%s" % (c, w, r))
        continue
    l = l.replace(sys.argv[2], "DISKS")
    l = re.sub(r"^\S*/ioreel ", "ioreel ", l)
    l = re.sub(r" -o \S+$", " -o X", l)
    l = re.sub(r" --html \S+", " --html X", l)
    l = re.sub(r"[^\s>]*raid6\.results/", "R/", l)
    out.append(l)
    i += 1
print("\n".join(out))
PY
{
	for w in 4k-randread 4k-randwrite 4m-seqread 4m-seqwrite; do
		echo "ioreel synth --preset $w --size 68719476736 --runtime 60000ms -o X"
	done
	cells() {
		local c=$1 r w
		for r in 1 2 3; do
			for w in 4k-randread 4k-randwrite 4m-seqread 4m-seqwrite database; do
				echo "cell $c $w r$r"
			done
		done
	}
	for fs in ext4 xfs; do
		echo "mdadm --create /dev/md/ioreel-$fs-raid6 --run --metadata=1.2 --assume-clean --level=6 --raid-devices=4 DISKS"
		if [ $fs = ext4 ]; then
			echo "mkfs.ext4 -F -q -E lazy_itable_init=0,lazy_journal_init=0,stride=16,stripe_width=32 /dev/md/ioreel-ext4-raid6"
		else
			echo "mkfs.xfs -f -q /dev/md/ioreel-xfs-raid6"
		fi
		echo "mkdir -p R/mnt/$fs-raid6"
		echo "mount -o noatime /dev/md/ioreel-$fs-raid6 R/mnt/$fs-raid6"
		cells $fs-raid6
		echo "umount R/mnt/$fs-raid6"
		echo "mdadm --stop /dev/md/ioreel-$fs-raid6"
		echo "wipefs -a -q DISKS"
	done
	echo "mkfs.btrfs -f -q -d raid6 -m raid1c3 DISKS"
	echo "btrfs device scan DISKS"
	echo "mkdir -p R/mnt/btrfs-raid6"
	echo "mount /dev/sdb R/mnt/btrfs-raid6"
	cells btrfs-raid6
	echo "umount R/mnt/btrfs-raid6"
	echo "btrfs device scan --forget DISKS"
	echo "wipefs -a -q DISKS"
	echo 'zpool create -f -O atime=off -m /mnt/study-zfs study raidz2 $IOREEL_STUDY_DEVICES'
	cells zfs-raidz2
	echo "zpool destroy study"
	echo "wipefs -a -q DISKS"
	for w in 4k-randread 4k-randwrite 4m-seqread 4m-seqwrite database; do
		echo "ioreel analyze R/html/$w/ext4-raid6.ioreel R/html/$w/xfs-raid6.ioreel R/html/$w/btrfs-raid6.ioreel R/html/$w/zfs-raidz2.ioreel --compare --html X >R/html/$w/analyze.txt"
	done
} >want
diff -u want got || fail "the dry run's commands differ from the plan's (above: - wanted, + printed)"
# the replays: on each candidate's target, the database in dep mode, the first of each
# workload on a candidate prefilling what it reads
grep -c ' replay ' out | grep -qx 60 || fail "not 60 replays (4 candidates x 5 workloads x 3)"
grep -q " replay prod.ioreel --target $R/mnt/xfs-raid6/ioreel-study.img --size 68719476736 --allow-writes --mode dep --prefill " out ||
	grep -q " replay prod.ioreel --target raid6.results/mnt/xfs-raid6/ioreel-study.img --size 68719476736 --allow-writes --mode dep --prefill " out ||
	fail "the database's first replay on xfs-raid6 is not as expected"
grep -q " replay prod.ioreel --target /mnt/study-zfs/ioreel-study.img " out || fail "no replay on zfs's target"
assert_eq "$(grep -c -- '--prefill' out)" 20 "prefilling replays (one per workload and candidate)"
grep -q "^# (its commands see IOREEL_STUDY_DEVICES='$disks')" out || fail "the dry run does not say what \$IOREEL_STUDY_DEVICES holds"
echo "ok"
