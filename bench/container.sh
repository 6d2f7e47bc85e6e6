#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The .ioreel container on generated traces: bytes per event on disk, encode and decode speed
# on one core, peak RSS against trace length, and the same trace as fio v3 text and as
# zstd -3 of that text. Prints figures; never passes or fails on time.
#   (a)  4 KiB uniform random over 1 GiB, Poisson 100k IOPS, ns queue/issue/completion times
#   (b)  4 MiB sequential, Poisson 250 IOPS, the same kind of ns times
#   (bq) 4 MiB sequential, Poisson arrivals, queue times only in whole us (a fio v3 import)
# Usage: bench/container.sh [EVENTS]   (default 2000000 for (a))
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$here/../build}
n=${1:-2000000}
work=$(mktemp -d "${TMPDIR:-/tmp}/ioreel-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

[ -f "$BUILD/libioreel.a" ] || { echo "build first: make" >&2; exit 1; }
bin=$BUILD/bench/container_bench
mkdir -p "$BUILD/bench"
# Same flags as the Makefile's objects.
${CC:-cc} -O2 -g -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$here/.." -I"$BUILD" \
	-o "$bin" "$here/container_bench.c" "$BUILD/libioreel.a" \
	-lbpf -lelf -lz -luring -lzstd -laio -lblkid -lpthread -lm
# The helper is single-threaded: its figures are per core. (Not pinned: on a shared machine
# a fixed core is as likely to be the busy one.)
pin() { "$@"; }
field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p"; }
median3() { sort -g | sed -n 2p; }

echo "== pattern (a), $n events (encode x3, decode median of 5 passes x3)"
enc=() dec=()
for i in 1 2 3; do
	fio=""
	[ "$i" = 1 ] && fio=$work/a.fio
	out=$(pin "$bin" encode a "$n" "$work/a.ioreel" $fio)
	[ "$i" = 1 ] && echo "$out"
	enc+=("$(echo "$out" | field encode_Mev_s)")
	out=$(pin "$bin" decode "$work/a.ioreel")
	[ "$i" = 1 ] && echo "$out"
	dec+=("$(echo "$out" | field decode_Mev_s_median)")
done
size=$(stat -c %s "$work/a.ioreel")
echo "a: bytes/event $(awk -v s="$size" -v n="$n" 'BEGIN{printf "%.3f", s/n}')," \
	"encode M events/s median $(printf '%s\n' "${enc[@]}" | median3) (runs: ${enc[*]})," \
	"decode M events/s median $(printf '%s\n' "${dec[@]}" | median3) (runs: ${dec[*]})"
txt=$(stat -c %s "$work/a.fio")
zstd -q -3 -f "$work/a.fio" -o "$work/a.fio.zst"
z=$(stat -c %s "$work/a.fio.zst")
echo "a as fio v3 text: $(awk -v s="$txt" -v n="$n" 'BEGIN{printf "%.2f", s/n}') bytes/event;" \
	"zstd -3 of it: $(awk -v s="$z" -v n="$n" 'BEGIN{printf "%.2f", s/n}') bytes/event" \
	"(neither holds issue/completion times)"
echo "a: zstd -d of the .ioreel works: $(zstd -q -d -c "$work/a.ioreel" | wc -c) raw column bytes"

echo "== peak RSS vs trace length (pattern a)"
for m in 500000 2000000 8000000; do
	e=$(pin "$bin" encode a "$m" "$work/r.ioreel" | field maxrss_kib)
	d=$(pin "$bin" decode "$work/r.ioreel" | field maxrss_kib)
	echo "events $m: encode peak RSS ${e} KiB, decode peak RSS ${d} KiB"
done

for p in b bq; do
	m=$((n / 10))
	echo "== pattern ($p), $m events"
	pin "$bin" encode "$p" "$m" "$work/$p.ioreel" "$work/$p.fio"
	pin "$bin" decode "$work/$p.ioreel"
	txt=$(stat -c %s "$work/$p.fio")
	zstd -q -3 -f "$work/$p.fio" -o "$work/$p.fio.zst"
	z=$(stat -c %s "$work/$p.fio.zst")
	echo "$p as fio v3 text: $(awk -v s="$txt" -v n="$m" 'BEGIN{printf "%.2f", s/n}') bytes/event;" \
		"zstd -3 of it: $(awk -v s="$z" -v n="$m" 'BEGIN{printf "%.2f", s/n}') bytes/event"
done
