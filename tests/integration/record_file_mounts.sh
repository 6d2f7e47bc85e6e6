#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# timeout: 60
# record --level file --under DIR chooses DIR's filesystems when it starts (its programs filter
# by their devices). The mounts there changing while it records is said, not silent: DIR's
# tmpfs unmounted (lazily, a file on it still open and written) and another tmpfs mounted in its
# place. The recorder warns of both (the new one not recorded unless on a device filtered from
# the start), --json says mounts_changed, the writes to the old one's open file are in the
# trace, and the recording goes on to its end (exit 0).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/record_lib.bash"
need_root
need_cmd python3

out=$(scratch_dir)
dir=$(scratch_dir)/db
mkdir -p "$dir"
mount -t tmpfs -o size=8m ioreel-test "$dir" || skip "cannot mount a tmpfs"
cleanup_push "umount -l '$dir' 2>/dev/null; umount -l '$dir' 2>/dev/null"
# a writer keeps a file open on the first tmpfs, writing until told to stop
python3 - "$dir/data" "$out/stop" <<'PY' &
import os, sys, time
fd = os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY, 0o644)
while not os.path.exists(sys.argv[2]):
    os.pwrite(fd, b"x" * 4096, 0)
    time.sleep(0.01)
os.close(fd)
PY
writer=$!
cleanup_kill "$writer"
rec_start "$out/m.ioreel" --level file --under "$dir"
sleep 0.3
umount -l "$dir" || fail "umount -l $dir"
mount -t tmpfs -o size=8m ioreel-test2 "$dir" || fail "mount a second tmpfs on $dir"
echo new >"$dir/new"
# the check is once a second: wait for its warning (up to 20 s on a loaded host)
for ((i = 0; i < 200; i++)); do
	grep -q "was mounted there or below" "$out/m.ioreel.err" && break
	sleep 0.1
done
sleep 0.5 # more writes to the lazily unmounted file
touch "$out/stop"
wait "$writer" || fail "the writer failed"
rec_stop || fail "record exited $?: $(cat "$out/m.ioreel.err")"
cat "$out/m.ioreel.err"
grep -q "$dir: the filesystem on [0-9]*:[0-9]* mounted there or below was unmounted" \
	"$out/m.ioreel.err" || fail "no warning of the unmount"
grep -q "$dir: a filesystem on [0-9]*:[0-9]* was mounted there or below after" \
	"$out/m.ioreel.err" || fail "no warning of the new mount"
assert_eq "$(json_get "$out/m.ioreel.json" mounts_changed)" True "--json mounts_changed"
writes=$(trace_csv "$out/m.ioreel" | python3 -c 'import csv, sys
print(sum(1 for r in csv.DictReader(l for l in sys.stdin if not l.startswith("#"))
          if r["op"] == "write" and r["path"].endswith("/data")))')
echo "writes to the lazily unmounted file in the trace: $writes"
# ~30 were made in the 0.3 s before the unmount, one every 10 ms; the rest after it
[ "$writes" -gt 60 ] || fail "only $writes writes to $dir/data recorded"
echo PASS
