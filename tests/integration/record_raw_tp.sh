#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The raw_tp programs (--attach raw_tp: the fallback when tp_btf cannot load or attach) record
# what the tp_btf ones do. On a loop device at request level: the bytes per op fio issued, no
# more requests than fio's I/Os, each with an issue time; at bio level (bio chains walked at
# request completion) and on zram (bio-based): exactly fio's reads, writes and discards.
# Nothing dropped, and --json and the trace's options say raw_tp. --attach auto says which set
# it used, and a bad --attach is a usage error.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"

dir=$(scratch_dir)
loop=$(make_loop 256)
zram=$(make_zram 256)
lname=$(basename "$loop")
zname=$(basename "$zram")

fio_loop() { # JOB fio-args...
	local job=$1
	shift
	fio --name="$job" --filename="$loop" --direct=1 --ioengine=libaio --size=128M \
		--write_iolog="$dir/$job.iolog" "$@" >/dev/null || fail "fio $job failed"
}

# Request level: same bytes per op as fio; merges may only lower the count.
rec_start "$dir/rq.ioreel" -d "$loop" --level rq --attach raw_tp
fio_loop rq --rw=randrw --bs=4k --iodepth=8 --io_size=16M
fio_loop rqseq --rw=write --bs=128k --iodepth=4 --io_size=16M
rec_finish "$dir/rq.ioreel" raw_tp
cat "$dir/rq.iolog" "$dir/rqseq.iolog" >"$dir/rq_all.iolog"
compare_rq "$dir/rq_all.iolog" "$dir/rq.ioreel.csv" "$lname" || fail "rq level differs from fio"
grep -q '"level":"rq"' "$dir/rq.ioreel.json" || fail "loop device not recorded at rq level"
output_has "(attach: raw_tp" "$IOREEL" info "$dir/rq.ioreel" ||
	fail "the trace's options do not say raw_tp: $("$IOREEL" info "$dir/rq.ioreel" | grep options)"

# Bio level on the loop device: exact.
rec_start "$dir/bio.ioreel" -d "$loop" --level bio --attach raw_tp
fio_loop bio --rw=randrw --bs=16k --iodepth=16 --io_size=16M
rec_finish "$dir/bio.ioreel" raw_tp
compare_iolog "$dir/bio.iolog" "$dir/bio.ioreel.csv" "$lname" || fail "loop bio level differs from fio"

# zram (bio-based, bios complete at block_bio_complete): exact, discards included.
rec_start "$dir/z.ioreel" -d "$zram" --attach raw_tp
grep -q "$zname .* at bio level" "$dir/z.ioreel.err" || fail "zram not at bio level"
fio_zram_mix "$zram" "$dir/z_all.iolog" 32M
rec_finish "$dir/z.ioreel" raw_tp
compare_iolog "$dir/z_all.iolog" "$dir/z.ioreel.csv" "$zname" || fail "zram trace differs from fio"
n=$(grep -c ',discard,' "$dir/z.ioreel.csv")
[ "$n" -eq 128 ] || fail "expected 128 discards, found $n"
python3 - "$dir/z.ioreel.csv" <<'PY' || fail "raw_tp lost the submitter (pid/comm)"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))]
sys.exit(0 if rows and all(r["comm"] and int(r["pid"]) > 0 and r["tid"] for r in rows) else 1)
PY

# auto (the default): tp_btf, or raw_tp after a one-line warning saying what failed.
"$IOREEL" record -d "$zram" -o "$dir/auto.ioreel" --duration 300ms -q --json \
	>"$dir/auto.json" 2>"$dir/auto.err" || fail "record (auto) exited $?: $(cat "$dir/auto.err")"
mode=$(json_get "$dir/auto.json" attach)
if grep -q "retrying with raw_tp" "$dir/auto.err"; then
	assert_eq "$mode" raw_tp "attach mode after a tp_btf failure"
else
	assert_eq "$mode" tp_btf "attach mode of auto"
	[ ! -s "$dir/auto.err" ] || fail "auto printed: $(cat "$dir/auto.err")"
fi

"$IOREEL" record -d "$zram" -o "$dir/bad.ioreel" --attach kprobe 2>"$dir/bad.err"
assert_eq $? 2 "exit status of --attach kprobe"
grep -q -- "--attach" "$dir/bad.err" || fail "unclear message: $(cat "$dir/bad.err")"
echo PASS
