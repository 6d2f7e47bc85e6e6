#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ioreel analyze throughput and memory: a full summary of an N-event trace (default 100 M) read
# from its compressed file, then the extra cost of --interval 1s and of --html. Runs alternate
# (A B C A B C ...) because the machine is shared; medians are printed. Prints figures only.
#   bench/analyze.sh [EVENTS] [ROUNDS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
BUILD=${BUILD:-$root/build}
IOREEL=${IOREEL:-$BUILD/ioreel}
n=${1:-100000000}
rounds=${2:-3}
out=$BUILD/bench/analyze
mkdir -p "$out"
cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$root" -o "$out/gen_trace" "$here/gen_trace.c" "$BUILD/libioreel.a" \
	-lbpf -lelf -lz -luring -lzstd -laio -lblkid -lpthread -lm || exit 1
trace=$out/bench-$n.ioreel
if [ ! -s "$trace" ]; then
	echo "generating $n events (QD 8, 70/30 read/write, 4k-128k) into $trace ..."
	"$out/gen_trace" "$trace" "$n" 8 || exit 1
fi
echo "trace: $n events, $(stat -c %s "$trace") bytes ($(awk -v b="$(stat -c %s "$trace")" -v n="$n" \
	'BEGIN{printf "%.2f", b/n}') bytes/event), $(nproc) CPUs"

# One run: prints "wall_s cpu_s maxrss_kib"
one() {
	/usr/bin/time -f '%e %U %S %M' -o "$out/time.txt" "$IOREEL" analyze "$trace" "$@" >"$out/last.out" ||
		{ echo "analyze failed" >&2; exit 1; }
	awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$out/time.txt"
}
declare -A res
for ((r = 0; r < rounds; r++)); do
	res[full]+="$(one)"$'\n'
	res[interval]+="$(one --interval 1s)"$'\n'
	res[html]+="$(one --html "$out/report.html")"$'\n'
done
median() { sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
printf '%-10s %9s %9s %14s %14s %10s\n' mode wall_s cpu_s "Mevents/s" "Mev/s/core" peakRSS_MiB
for m in full interval html; do
	w=$(printf '%s' "${res[$m]}" | awk 'NF{print $1}' | median)
	c=$(printf '%s' "${res[$m]}" | awk 'NF{print $2}' | median)
	k=$(printf '%s' "${res[$m]}" | awk 'NF{print $3}' | sort -n | tail -1)
	awk -v m="$m" -v w="$w" -v c="$c" -v k="$k" -v n="$n" 'BEGIN{
		printf "%-10s %9.2f %9.2f %14.1f %14.1f %10.1f\n", m, w, c, n/w/1e6, n/c/1e6, k/1024}'
done
echo "(medians of $rounds alternating runs; peak RSS is the largest seen; Mev/s/core = events / CPU seconds)"
