#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ${VAR} in fio job files as fio treats it: each small job file below goes to `fio --parse-only`
# and to `ioreel synth --fio-job` with the variable set, set empty and unset; both must accept
# it or both refuse it. A set variable's value is what the trace holds; a refusal names the
# file:line, the option and the variable to set.
# timeout: 120
. "$(dirname "$0")/../lib.sh"
need_cmd fio
d=$(scratch_dir)
n=0

# agree VALUE-OF-FOO|-unset LINE: fio and ioreel accept or refuse the same job file
agree() {
	local foo=$1 line=$2 f=$d/j$n.fio envs fr ir out
	n=$((n + 1))
	printf '[j]\nfilename=%s/data\nsize=1m\n%s\n' "$d" "$line" >"$f"
	if [ "$foo" = -unset ]; then envs=(env -u FOO); else envs=(env "FOO=$foo"); fi
	"${envs[@]}" fio --parse-only "$f" >"$d/fio.out" 2>&1; fr=$?
	out=$("${envs[@]}" "$IOREEL" synth --fio-job "$f" --number-ios 8 -o "$d/j.ioreel" 2>&1)
	ir=$?
	rm -f "$d/j.ioreel"
	[ $fr = 0 ] && [ $ir != 0 ] && fail "FOO=$foo '$line': fio accepts it, ioreel refuses: $out"
	[ $fr != 0 ] && [ $ir = 0 ] && fail "FOO=$foo '$line': fio refuses it ($(head -1 "$d/fio.out")), ioreel accepts it"
	[ $ir = 0 ] || [ $ir = 2 ] || fail "FOO=$foo '$line': ioreel exited $ir (want 0 or 2): $out"
	echo "  FOO=$foo '$line': both $([ $fr = 0 ] && echo accept || echo refuse)"
	last=$out
}

for foo in -unset "" randwrite; do
	agree "$foo" 'rw=${FOO}'
	agree "$foo" 'rw=rand${FOO}read'
	agree "$foo" 'description=${FOO}'
	agree "$foo" 'write_bw_log=${FOO}'
	agree "$foo" 'bs=${}4k'
	agree "$foo" 'bs=$FOO'
	agree "$foo" 'bs=${FOO'
done
for foo in -unset 1; do
	agree "$foo" 'bs=${FOO}'
	agree "$foo" 'bs=${FOO}4k'
	agree "$foo" 'description='
done

# a refusal names the job, the place, the option as written and the variable to set
agree -unset 'iodepth=${FOO}'
case $last in
*"job 'j' refused: "*"j$((n - 1)).fio:4: iodepth=\${FOO} is empty"*"FOO=VALUE"*) ;;
*) fail "refusal of an unset \${FOO} does not say where and what to set: $last" ;;
esac

# a set variable is the value: FOO=randwrite gives writes only, FOO=16k 16 KiB I/Os
printf '[j]\nfilename=%s/data\nsize=1m\nrw=${FOO}\nbs=${BS}\n' "$d" >"$d/set.fio"
FOO=randwrite BS=16k "$IOREEL" synth --fio-job "$d/set.fio" --number-ios 20 -o "$d/set.ioreel" \
	>/dev/null 2>&1 || fail "synth with FOO and BS set"
"$IOREEL" convert "$d/set.ioreel" "$d/set.csv" >/dev/null || fail "convert set.ioreel"
got=$(awk -F, '/^#/ { next } !h { h = 1; for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ k[$c["op"] " " $c["length"]]++ } END { for (x in k) print x, k[x] }' "$d/set.csv")
assert_eq "$got" "write 16384 20" "ops and sizes of FOO=randwrite BS=16k"
echo "synth_fio_vars: ok"
