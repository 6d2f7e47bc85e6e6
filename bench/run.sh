#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Runs every benchmark (bench/*.sh), or those whose name contains $1. Benchmarks print figures;
# they never pass or fail on time. Output is also kept in build/bench/NAME.txt.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# two statements: export expands all its words before it sets any
export BUILD=${BUILD:-$here/../build}
export IOREEL=${IOREEL:-$BUILD/ioreel}
mkdir -p "$BUILD/bench"
for b in "$here"/*.sh; do
	name=$(basename "$b" .sh)
	[ "$name" = run ] && continue
	[ -n "${1:-}" ] && [[ $name != *"$1"* ]] && continue
	echo "== $name"
	bash "$b" 2>&1 | tee "$BUILD/bench/$name.txt"
done
