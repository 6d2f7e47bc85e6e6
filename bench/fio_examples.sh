#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# fio's own examples (examples/*.fio of fio's source tree, FIO_EXAMPLES=/path/to/fio/examples;
# never copied into this repository) through `ioreel synth --fio-job`:
#  1. every example, as the issue tried them (--number-ios 1000), with none of the variables
#     some examples read set, then with all set: accepted, or refused with the message (the
#     option and why);
#  2. for the examples fio can run here, the job run by fio on a loop device with write_iolog
#     and by ioreel (synth, then replay on the same device), compared job by job by
#     tests/integration/fio_compare.py: op shares, block-size shares, offset range, the offset
#     histogram (zone shares), strides, depth. bench/fio_examples.py makes each example runnable
#     for both alike (the loop device as filename, a log per job, at most IOS I/Os and RUNTIME
#     seconds per job, engines this fio lacks replaced by one of the same kind);
#  3. (bench/fio_fileops.sh) fio's falloc, ftruncate and *-ioengine examples, fio against
#     synth + replay --root on one filesystem: ops/s, calls per op, the files left.
# Left out of the default list because fio 3.33 cannot run them here: poisson- and
# fixed-rate-submission (io_submit_mode=offload with a rate hung), mtd (its trim block
# histogram), example_latency_steadystate (steadystate=lat:5% does not parse), numa (one NUMA
# node), enospc-pressure (its jobs' verify fails once they share the loop device).
# Figures, not pass/fail; nothing here is a time (but time-based jobs run RUNTIME seconds, so
# how far a sequential one gets depends on the machine). Env: FIO_EXAMPLES (required), IOS
# (20000), RUNTIME (3), COMPARE (the list below), PARTS (\"1 2 3\"; PARTS=1 gives the counts
# alone, with no fio run and no rate measured).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/lib.sh"
ex=${FIO_EXAMPLES:-}
[ -d "$ex" ] || { echo "skipped: set FIO_EXAMPLES to fio's examples/ directory"; exit 0; }
parts=" ${PARTS:-1 2 3} "
need_root
need_cmd fio python3 bc
d=$(scratch_dir)
ios=${IOS:-20000}
runtime=${RUNTIME:-3}
# Some examples take values from the environment, as their comments say. fio refuses a job
# file in which an option is left empty (an unset ${VAR}), and so does synth: part 1 counts
# with none of them set (the examples as they come), then with every one set.
vars="FIO_RW=randread FIO_IODEPTH=4 FIO_BS=4k uri=nbd://localhost FIO_DIR=/tmp GPU_DEV_IDS=0
POOL=pool CONT=cont S3_KEY=key S3_ID=id SSE_KEY=key STORAGE_CLASS=STANDARD SWIFT_id=token"
unset_all=()
for v in $vars; do unset_all+=(-u "${v%%=*}"); done

# every_example ENV...: synth each example under env ENV; prints the refusals and the count
every_example() {
	local ok=0 no=0 f n msg
	for f in "$ex"/*.fio; do
		n=$(basename "$f" .fio)
		if msg=$(env "$@" "$IOREEL" synth --fio-job "$f" --number-ios 1000 \
			-o "$d/$n.ioreel" 2>&1 >/dev/null); then
			ok=$((ok + 1))
		else
			no=$((no + 1))
			printf '  refused  %-32s %s\n' "$n" "$(printf '%s' "$msg" | grep -v 'note:' |
				head -1 | sed 's/^ioreel synth: //')"
		fi
	done
	echo "  $ok of $((ok + no)) examples become traces, $no refused"
}

echo "1. every example, ioreel synth --fio-job EXAMPLE --number-ios 1000"
echo " a. none of their variables set"
every_example "${unset_all[@]}"
echo " b. their variables set: $(echo $vars)"
# shellcheck disable=SC2086
every_example $vars
# shellcheck disable=SC2086,SC2163
export $vars
compare="${COMPARE:-jesd219 rand-zones iometer-file-access-server backwards-read \
	cross-stripe-verify fio-rand-RW fio-seq-RW ssd-test tiobench-example zipf \
	disk-zone-profile uring-cmd-fdp uring-cmd-pi-ext nbd libblkio-io_uring basic-verify}"
[[ $parts == *" 2 "* ]] && echo "2. fio and ioreel on a loop device, job by job" &&
	dev=$(make_loop 16384) || compare=
for n in $compare; do
	[ -f "$ex/$n.fio" ] || { echo "  $n: not in $ex"; continue; }
	mkdir -p "$d/$n"
	python3 "$here/fio_examples.py" "$ex/$n.fio" "$d/$n/job.fio" "$dev" "$d/$n" "$ios" "$runtime"
	# in its own folder: some examples write logs of their own into the working directory
	if ! (cd "$d/$n" && fio --output-format=json --output=fio.json job.fio >/dev/null \
		2>fio.err); then
		echo "  $n: fio cannot run it here: $(grep -v '^$' "$d/$n/fio.err" | head -1)"
		continue
	fi
	if ! "$IOREEL" synth --fio-job "$d/$n/job.fio" -o "$d/$n/t.ioreel" >/dev/null 2>"$d/$n/synth.err"; then
		echo "  $n: ioreel refuses it: $(grep -v note: "$d/$n/synth.err" | head -1)"
		continue
	fi
	"$IOREEL" replay "$d/$n/t.ioreel" --target "$dev" --allow-writes --force -q \
		-o "$d/$n/run.ioreel" >/dev/null 2>&1 || { echo "  $n: replay failed"; continue; }
	"$IOREEL" convert "$d/$n/t.ioreel" "$d/$n/t.csv" >/dev/null
	"$IOREEL" convert "$d/$n/run.ioreel" "$d/$n/run.csv" >/dev/null
	"$IOREEL" info --json "$d/$n/t.ioreel" >"$d/$n/info.json"
	# zoned:50/5:30/15:20/80 (jesd219, over the device) and zoned:50/5:30/15:20/ (2 GiB)
	zones='{}'
	case $n in
	jesd219) z=$((16384 << 20)) ;;
	rand-zones) z=$((2048 << 20)) ;;
	*) z=0 ;;
	esac
	[ "$z" != 0 ] && zones="{\"$( [ "$n" = jesd219 ] && echo JESD219 || echo zones)\": \
[[0, $((z / 20))], [$((z / 20)), $((z / 5))], [$((z / 5)), $z]]}"
	echo "  $n:"
	python3 "$here/../tests/integration/fio_compare.py" --logs "$d/$n" \
		--fio-json "$d/$n/fio.json" --synth "$d/$n/t.csv" --run "$d/$n/run.csv" \
		--info "$d/$n/info.json" --zones "$zones" | sed 's/^/  /'
done

[[ $parts == *" 3 "* ]] || exit 0
echo "3. the file and directory engines' examples, run for real on a filesystem"
# fio and the replay side by side: ops/s, calls per op, the files each leaves
FIO_EXAMPLES=$ex bash "$here/fio_fileops.sh" | sed 's/^/  /'
