#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# fio job files as fio reads them: the job files in tests/data/fio-grammar (written for this
# test in fio's grammar: [global] inheritance, include, inline comments, ${VAR}, arithmetic,
# fio's units, bssplit per direction, offset modifiers, trimwrite, zoned distributions, %
# sizes, no size, bs not a multiple of 512, jobs with their own runtime, count and loops) run
# under fio on a loop device with write_iolog; ioreel synthesizes each file, replays it on the
# same device, and tests/integration/fio_compare.py compares the two job by job.
# timeout: 600
. "$(dirname "$0")/../lib.sh"
need_root
need_cmd fio python3 bc
d=$(scratch_dir)
jobs=$TESTS_DIR/data/fio-grammar
dev=$(make_loop 256)
export IOREEL_DEV=$dev IOREEL_LOGS=$d/logs
mkdir -p "$IOREEL_LOGS"
MiB=$((1 << 20))

# compare FILE [fio_compare.py options]: fio, then ioreel synth + replay, then the comparison
compare() {
	local f=$1 out; shift
	fio --output-format=json --output="$d/$f.json" "$jobs/$f.fio" >/dev/null 2>"$d/$f.fio.err" ||
		fail "fio $f.fio: $(cat "$d/$f.fio.err")"
	out=$("$IOREEL" synth --fio-job "$jobs/$f.fio" -o "$d/$f.ioreel" 2>&1 >/dev/null) ||
		fail "ioreel synth $f.fio: $out"
	[ -n "$out" ] && echo "  $out"
	"$IOREEL" replay "$d/$f.ioreel" --target "$dev" --allow-writes -o "$d/$f.run.ioreel" -q \
		>/dev/null 2>"$d/$f.replay.err" || fail "replay $f: $(cat "$d/$f.replay.err")"
	"$IOREEL" convert "$d/$f.ioreel" "$d/$f.csv" >/dev/null || fail "convert $f"
	"$IOREEL" convert "$d/$f.run.ioreel" "$d/$f.run.csv" >/dev/null || fail "convert $f run"
	"$IOREEL" info --json "$d/$f.ioreel" >"$d/$f.info.json" || fail "info $f"
	echo "$f.fio:"
	python3 "$TESTS_DIR/integration/fio_compare.py" --logs "$IOREEL_LOGS" \
		--fio-json "$d/$f.json" --synth "$d/$f.csv" --run "$d/$f.run.csv" \
		--info "$d/$f.info.json" "$@" || fail "$f.fio: ioreel differs from fio"
}

compare grammar
compare patterns --exact holes,backwards,trimwrite
# zoned:50/5:30/15:20/ over the 256 MiB device; zoned_abs:60/8m:30/16m:10/40m from 64 MiB
size=$((256 * MiB))
compare zones --zones "{\"zoned\": [[0, $((size * 5 / 100))], [$((size * 5 / 100)), $((size * 20 / 100))], [$((size * 20 / 100)), $size]],
	\"zoned-abs\": [[$((64 * MiB)), $((72 * MiB))], [$((72 * MiB)), $((88 * MiB))], [$((88 * MiB)), $((128 * MiB))]]}"
compare runtimes --exact counted-writer,looped-reader,odd-bs \
	--counts '{"counted-writer": 300, "looped-reader": 24, "odd-bs": 1024}' \
	--runtime '{"timed-reader": 2}'

# The trace says each stream's runtime, count and group (format 1.1 stream records).
python3 - "$d/runtimes.info.json" <<'PY' || fail "runtimes.fio stream records"
import json, sys
s = json.load(open(sys.argv[1]))["stream_records"]
tr, cw, lr, ob = s
assert tr["time_based"] and tr["runtime_ns"] == 2 * 10**9 and tr["group"] == 0, tr
assert not cw["time_based"] and cw["group"] == 0 and not lr["time_based"], (cw, lr)
assert ob["group"] == 1, ob
print("  stream records: timed-reader time_based 2 s, odd-bs in group 1 (stonewall)")
PY
# Think time and latency targets: each option lands in its stream's record (format 1.5),
# with fio's default units (thinktime, thinktime_spin, latency_*: us; thinktime_iotime: s)
"$IOREEL" synth --fio-job "$jobs/think.fio" -o "$d/think.ioreel" >/dev/null 2>&1 ||
	fail "synth think.fio"
"$IOREEL" info --json "$d/think.ioreel" >"$d/think.info.json" || fail "info think"
python3 - "$d/think.info.json" <<'PY' || fail "think.fio stream records"
import json, sys
th, bt, sp, tg, td = json.load(open(sys.argv[1]))["stream_records"]
assert th["think"] == {"ns": 2000000, "spin_ns": 500000, "iotime_ns": 0, "blocks": 4,
                       "blocks_type": "issue"}, th
assert bt["think"] == {"ns": 1000000, "spin_ns": 0, "iotime_ns": 50000000, "blocks": 0,
                       "blocks_type": "complete"}, bt
assert sp["think"]["spin_ns"] == 100000, sp  # spinning longer than the think: all of it
assert "latency_target" not in th and "think" not in tg, (th, tg)
assert tg["latency_target"] == {"ns": 2000000, "window_ns": 50000000, "percentile": 99.5,
                                "run": True} and tg["depth"] == 16, tg
assert td["latency_target"] == {"ns": 750000, "window_ns": 0, "percentile": 100,
                                "run": False}, td
print("  think.fio: thinktime*, latency_* in the stream records")
PY
# a bad value names the option; with a rate (a timed trace) both are refused, saying why
for bad in "thinktime_blocks_type=sometimes:complete or issue" \
	"latency_percentile=101:0 to 100" "thinktime_blocks=0:whole number" \
	"rate_iops=100:not modeled"; do
	opt=${bad%%:*} want=${bad#*:}
	printf '[j]\nbs=4k\nsize=1m\nthinktime=1ms\nlatency_target=1ms\n%s\n' "$opt" >"$d/bad.fio"
	out=$("$IOREEL" synth --fio-job "$d/bad.fio" -o "$d/bad.ioreel" 2>&1) &&
		fail "$opt accepted"
	case $out in *"$want"*) ;; *) fail "$opt: no '$want' in: $out" ;; esac
	case $out in *"${opt%%=*}"* | *thinktime*) ;; *) fail "$opt not named: $out" ;; esac
done
# a flow set is one stream: think time or a latency target in one is refused, saying why
printf '[a]\nbs=4k\nsize=1m\nflow=1\nthinktime=1ms\n[b]\nbs=4k\nsize=1m\nflow=2\n' >"$d/bad.fio"
out=$("$IOREEL" synth --fio-job "$d/bad.fio" -o "$d/bad.ioreel" 2>&1) && fail "flow + thinktime accepted"
case $out in *"think time or a latency target"*) ;; *) fail "flow + thinktime: $out" ;; esac
[ -e "$d/bad.ioreel" ] && fail "a refused job left its output"
echo "synth_fio_grammar: ok"
