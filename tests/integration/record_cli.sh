#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The recorder's command line: usage errors exit 2 (a bad value with what the option takes, a
# missing value in one line), a missing device or no root exit 1 with a message that says what
# is missing, --duration and --max-size end the recording by themselves (exit 0), -q prints
# nothing, --json has events and dropped, and the drain thread's priority is raised unless
# --keep-priority says not to (and said when it cannot be). A second recording to the -o of one
# running is refused.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"
need_cmd setpriv

dir=$(scratch_dir)
dev=$(make_zram 64)

output_has "examples:" "$IOREEL" record --help || fail "--help has no examples"
assert_status 2 "$IOREEL" record -d "$dev" 2>/dev/null            # no -o
assert_status 2 "$IOREEL" record -o x --level fast 2>/dev/null
assert_status 2 "$IOREEL" record -o x --duration soon 2>/dev/null
# a single-valued option given twice with two values: refused before anything is recorded (the
# last one was taken silently); the same value twice is fine
for twice in "-o $dir/a.ioreel -o $dir/b.ioreel" "--duration 1 --duration 2" \
	"--level rq --level bio" "--ring-size 1m --ring-size 2m" "--comm a --comm b"; do
	"$IOREEL" record -d "$dev" -o "$dir/a.ioreel" $twice 2>"$dir/e0"
	assert_eq $? 2 "exit status for record $twice"
	grep -q "given twice" "$dir/e0" || fail "record $twice: unclear: $(cat "$dir/e0")"
done
"$IOREEL" record --level file -o "$dir/a.ioreel" -o "$dir/b.ioreel" 2>"$dir/e0"
assert_eq $? 2 "exit status for record --level file -o A -o B"
[ ! -e "$dir/a.ioreel" ] && [ ! -e "$dir/b.ioreel" ] || fail "a trace was recorded"
for twice in "--under /tmp --under /var" "--attach raw --attach tracepoint"; do
	"$IOREEL" record --level file -o "$dir/a.ioreel" $twice 2>"$dir/e0"
	assert_eq $? 2 "exit status for record --level file $twice"
	grep -q "given twice" "$dir/e0" || fail "record --level file $twice: $(cat "$dir/e0")"
done

# a value refused says what the option takes (the limits were in the code only); a missing one
# is one line and where the help is (the whole usage was printed)
while IFS='|' read -r args want; do
	# shellcheck disable=SC2086
	"$IOREEL" record -o "$dir/v.ioreel" $args 2>"$dir/e0"
	assert_eq $? 2 "exit status for record $args"
	grep -qF -- "$want" "$dir/e0" || fail "record $args: no '$want' in: $(cat "$dir/e0")"
	[ ! -e "$dir/v.ioreel" ] || fail "record $args: a trace was recorded"
done <<'EOF'
--inflight 63|invalid value "63" for --inflight: a count from 64 to 4194304 (see ioreel record
--inflight 4194305|for --inflight: a count from 64 to 4194304
--ring-size 3000|for --ring-size: a power of two from 4k to 1g, bytes per CPU
--ring-size 2g|for --ring-size: a power of two from 4k to 1g, bytes per CPU
--duration 0|for --duration: a duration above 0, such as 60 (seconds), 1.5s
--max-size 0|for --max-size: a size above 0, such as 512m or 2g
--level fast|for --level: bio, rq, auto or file
--attach kprobe|for --attach: tp_btf, raw_tp or auto
--level file --inflight 1|for --inflight: a count from 64 to 4194304 (see ioreel record --level
--level file --attach tp_btf|for --attach: tracepoint, raw or auto
EOF
# a value refused is shown escaped (its control bytes reached the terminal as they were) and
# cut after 80 bytes
long=$(printf 'A%.0s' {1..200})
while IFS='|' read -r status opt val want; do
	val=$(printf '%b' "$val")
	# shellcheck disable=SC2086
	"$IOREEL" record -o "$dir/v.ioreel" $opt "$val" 2>"$dir/e0"
	assert_eq $? "$status" "exit status for record $opt $want"
	grep -qF -- "$want" "$dir/e0" || fail "record $opt: no '$want' in: $(cat -v "$dir/e0")"
	! grep -q '[[:cntrl:]]' "$dir/e0" || fail "record $opt: a control byte: $(cat -v "$dir/e0")"
done <<EOF
2|--inflight|6\e[2J\x01|invalid value "6\u001b[2J\u0001" for --inflight: a count from 64
2|--max-size|$long|invalid value "${long:0:80}"... for --max-size: a size above 0
2|--comm|ab\tcdefghijklmnop|--comm "ab\u0009cdefghijklmnop": a task name has 1 to 15
2|--level file --under|/no-such\e[2J|--under "/no-such\u001b[2J": No such file or directory
1|-d|/dev/no-such\a|device "/dev/no-such\u0007": No such file or directory (give /dev/NAME
EOF
# a word that is not an option: what record takes instead, and where the help is
"$IOREEL" record -o "$dir/v.ioreel" stray 2>"$dir/e0"
assert_eq $? 2 "exit status for record with a stray word"
assert_eq "$(cat "$dir/e0")" "ioreel record: unexpected argument \"stray\": record takes options \
only (the trace goes to -o FILE.ioreel)
Try 'ioreel record --help'." "record stray"
for o in --inflight --ring-size -o; do
	"$IOREEL" record -d "$dev" --duration 1 "$o" 2>"$dir/e0"
	assert_eq $? 2 "exit status for record $o without a value"
	assert_eq "$(cat "$dir/e0")" "ioreel record: $o needs a value
Try 'ioreel record --help'." "record $o without a value"
done
"$IOREEL" record --level file -o "$dir/v.ioreel" --under 2>"$dir/e0"
assert_eq "$(cat "$dir/e0")" "ioreel record: --under needs a value
Try 'ioreel record --level file --help'." "record --level file --under without a value"
"$IOREEL" record -o "$dir/v.ioreel" --bogus 2>"$dir/e0"
assert_eq "$(cat "$dir/e0")" "ioreel record: unknown option '--bogus'
Try 'ioreel record --help'." "record --bogus"

"$IOREEL" record -d /dev/ioreel-no-such-disk -o "$dir/x.ioreel" 2>"$dir/e1"
assert_eq $? 1 "exit status for an unknown device"
grep -q "ioreel-no-such-disk.*No such file" "$dir/e1" || fail "unclear: $(cat "$dir/e1")"
"$IOREEL" record -d 4095:1048575 -o "$dir/x.ioreel" 2>"$dir/e2"
assert_eq $? 1 "exit status for an unknown MAJ:MIN"
"$IOREEL" record -d /etc/passwd -o "$dir/x.ioreel" 2>"$dir/e3"
assert_eq $? 1 "exit status for a regular file"
grep -qi "block device" "$dir/e3" || fail "unclear: $(cat "$dir/e3")"

chmod 755 "$dir"
setpriv --reuid=65534 --regid=65534 --clear-groups "$IOREEL" record -d "$dev" \
	-o "$dir/np.ioreel" 2>"$dir/e4"
assert_eq $? 1 "exit status without root"
grep -q "needs root" "$dir/e4" || fail "unclear: $(cat "$dir/e4")"
[ ! -e "$dir/np.ioreel" ] || fail "a trace was created without root"

# --duration ends it; -q prints nothing; MAJ:MIN works as a device.
fio --name=l --filename="$dev" --direct=1 --ioengine=libaio --rw=randread --bs=4k --iodepth=4 \
	--time_based --runtime=20 >/dev/null &
lp=$!
# (20 s, killed after the --max-size recording below, which needs I/O until then: with 3 s a
# slow start of the two recorders on a busy machine left it short of 64k)
cleanup_kill "$lp" TERM
start=$(date +%s%N)
"$IOREEL" record -d "$(dev_majmin "$dev")" -o "$dir/d.ioreel" --duration 1500ms -q --json \
	>"$dir/d.json" 2>"$dir/d.err" || fail "record --duration exited $?: $(cat "$dir/d.err")"
secs=$(( ($(date +%s%N) - start) / 1000000 ))
[ ! -s "$dir/d.err" ] || fail "-q printed: $(cat "$dir/d.err")"
# --duration ends it (not the signal at the end, not a hang); 30 s is 20x slack over 1.5 s
[ "$secs" -ge 1400 ] && [ "$secs" -lt 30000 ] || fail "--duration 1500ms took ${secs} ms"
ev=$(json_get "$dir/d.json" events)
[ "$ev" -gt 0 ] || fail "no events recorded under load"
assert_eq "$(json_get "$dir/d.json" dropped)" 0 "dropped"
assert_eq "$(trace_csv "$dir/d.ioreel" | tail -n +2 | wc -l)" "$ev" "events in the file"

# --max-size ends it once the trace is that big (checked once a second).
"$IOREEL" record -d "$dev" -o "$dir/m.ioreel" --max-size 64k --duration 20 -q --json \
	>"$dir/m.json" 2>"$dir/m.err" || fail "record --max-size exited $?: $(cat "$dir/m.err")"
kill $lp 2>/dev/null
wait $lp 2>/dev/null
sz=$(stat -c %s "$dir/m.ioreel")
[ "$sz" -ge 65536 ] || fail "stopped at $sz bytes, before --max-size 64k"
d=$(json_get "$dir/m.json" duration_s)
python3 -c "import sys; sys.exit(0 if float('$d') < 15 else 1)" || fail "--max-size did not stop it ($d s)"
# The drain thread's priority: real-time by default (SCHED_FIFO, or nice -20 where a cgroup
# refuses real-time); as inherited with --keep-priority, silently; said when it cannot be
# raised (no CAP_SYS_NICE).
"$IOREEL" record -d "$dev" -o "$dir/p.ioreel" --duration 300ms -q --json >"$dir/p.json" \
	2>"$dir/p.err" || fail "record exited $?: $(cat "$dir/p.err")"
case $(json_get "$dir/p.json" drain_priority) in
fifo) [ ! -s "$dir/p.err" ] || fail "a warning with real-time priority: $(cat "$dir/p.err")" ;;
nice) grep -q "nice -20: real-time priority was refused" "$dir/p.err" ||
	fail "nice -20 not said: $(cat "$dir/p.err")" ;;
*) fail "drain thread not raised as root: $(cat "$dir/p.json" "$dir/p.err")" ;;
esac
"$IOREEL" record -d "$dev" -o "$dir/p.ioreel" --duration 300ms -q --json --keep-priority \
	>"$dir/p.json" 2>"$dir/p.err" || fail "record --keep-priority exited $?: $(cat "$dir/p.err")"
assert_eq "$(json_get "$dir/p.json" drain_priority)" inherited "--keep-priority"
[ ! -s "$dir/p.err" ] || fail "--keep-priority -q printed: $(cat "$dir/p.err")"
setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice "$IOREEL" record -d "$dev" \
	-o "$dir/p.ioreel" --duration 300ms -q --json >"$dir/p.json" 2>"$dir/p.err" ||
	fail "record without CAP_SYS_NICE exited $?: $(cat "$dir/p.err")"
assert_eq "$(json_get "$dir/p.json" drain_priority)" inherited "without CAP_SYS_NICE"
grep -q "runs at normal priority.*CAP_SYS_NICE" "$dir/p.err" || fail "unclear: $(cat "$dir/p.err")"

# a second recording to the -o of one running: each cut the other's trace and both exited 0,
# leaving chunks that failed their checksums. Refused, the first's trace whole.
rec_start "$dir/c.ioreel" -d "$dev"
assert_status 1 "$IOREEL" record -d "$dev" -o "$dir/c.ioreel" --duration 300ms -q 2>"$dir/c2.err"
grep -q "cannot create $dir/c.ioreel: another ioreel (a recording) is writing it now" \
	"$dir/c2.err" || fail "a second recording to the same -o: $(cat "$dir/c2.err")"
dd if=/dev/urandom of="$dev" bs=4k count=64 oflag=direct status=none || fail "dd to $dev"
rec_stop || fail "the first recording: $(cat "$dir/c.ioreel.err")"
"$IOREEL" info "$dir/c.ioreel" >/dev/null 2>"$dir/c.info" ||
	fail "the first recording's trace: $(cat "$dir/c.info")"
echo PASS
