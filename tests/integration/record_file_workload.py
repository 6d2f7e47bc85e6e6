#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""A process that opens its files before the recording starts, then makes every kind of call
ioreel record --level file records, and exits (record_file_start.sh checks the trace).

usage: record_file_workload.py DIR
  1. opens DIR/a.dat (1 MiB, dense; file position left at 12345) and DIR/b.dat (8 MiB, data
     only at 0 and 4 MiB: sparse), then creates DIR/ready;
  2. waits for DIR/go, then: posix_fadvise(WILLNEED), pread, pwrite, fdatasync, read at the file position on a.dat;
     O_DIRECT turned on with fcntl(F_SETFL) after open (as InnoDB does), an aligned pwrite and
     fsync on b.dat; fallocate b.dat, ftruncate a.dat; create c.tmp, write, close, rename it
     to c.dat, unlink c.dat; close a.dat;
  3. exits (the recording follows it with --pid and ends by itself).
"""
import fcntl
import mmap
import os
import sys
import time

d = sys.argv[1]
a = os.open(f"{d}/a.dat", os.O_RDWR | os.O_CREAT, 0o644)
os.pwrite(a, b"x" * (1 << 20), 0)
os.fsync(a)
b = os.open(f"{d}/b.dat", os.O_RDWR | os.O_CREAT, 0o644)
os.ftruncate(b, 8 << 20)
os.pwrite(b, b"y" * 65536, 0)
os.pwrite(b, b"y" * 65536, 4 << 20)
os.fsync(b)
os.lseek(a, 12345, os.SEEK_SET)
open(f"{d}/ready", "w").close()

for _ in range(3000):
    if os.path.exists(f"{d}/go"):
        break
    time.sleep(0.01)
else:
    sys.exit("no go file after 30 s")

os.posix_fadvise(a, 0, 65536, os.POSIX_FADV_WILLNEED)  # counted as uncovered: a hint
os.pread(a, 4096, 8192)
os.pwrite(a, b"z" * 4096, 16384)
os.fdatasync(a)
os.read(a, 100)
flags = fcntl.fcntl(b, fcntl.F_GETFL)
fcntl.fcntl(b, fcntl.F_SETFL, flags | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)  # page-aligned, as O_DIRECT wants
buf.write(b"w" * 4096)
os.pwrite(b, buf, 1 << 20)
os.fsync(b)
os.posix_fallocate(b, 8 << 20, 1 << 20)
os.ftruncate(a, 2 << 20)
c = os.open(f"{d}/c.tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
os.write(c, b"q" * 100)
os.close(c)
os.rename(f"{d}/c.tmp", f"{d}/c.dat")
os.unlink(f"{d}/c.dat")
os.close(a)
