#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# CSV traces as they come (issue 26): a CSV whose columns other tools named (ts_ns, offset_bytes,
# latency_ns; timestamp, lba, size, rw) imports without editing the file, convert says on
# stderr which column it took for which field, and every field of every imported event is
# checked through `convert OUT - --to csv`. An unknown column, two columns for one field, a
# time without a unit and a --columns naming no column are errors that name the column and
# the choices, and leave no output.
. "$(dirname "$0")/../lib.sh"
d=$(scratch_dir)
cd "$d" || fail "cd $d"
H='queue_ns,issue_ns,complete_ns,dev,offset,length,op,flags,error,pid,tid,comm,cpu,stream'

# events IN.ioreel: the rows convert writes back, without the comment line and without the
# last column, oncpu_ns (case 5 reads it)
events() { "$IOREEL" convert "$1" - --to csv 2>/dev/null | grep -v '^#' | sed 's/,[^,]*$//'; }

# 1. ts_ns,dev,op,offset_bytes,len_bytes,latency_ns: completion = start + latency
cat >a.csv <<'CSV'
ts_ns,dev,op,offset_bytes,len_bytes,latency_ns
1000,sda,R,4096,8192,500
2000,sdb,W,0,4096,1500
3500,sda,D,1048576,65536,10
4000,sda,F,0,0,7
5000,sdb,read,12288,512,0
6000,sdb,write,512,1024,100000
CSV
"$IOREEL" convert a.csv a.ioreel >out 2>err || fail "convert a.csv: $(cat err)"
grep -q 'a.csv: columns: ts_ns->queue_ns (ns), dev->dev, op->op, offset_bytes->offset, len_bytes->length, latency_ns->complete_ns (start + latency, ns)' err ||
	fail "convert a.csv does not say which column went where: $(cat err)"
assert_eq "$(events a.ioreel)" "$H
1000,,1500,sda,4096,8192,read,,0,0,0,,0,0
2000,,3500,sdb,0,4096,write,,0,0,0,,0,0
3500,,3510,sda,1048576,65536,discard,,0,0,0,,0,0
4000,,4007,sda,0,0,flush,,0,0,0,,0,0
5000,,5000,sdb,12288,512,read,,0,0,0,,0,0
6000,,106000,sdb,512,1024,write,,0,0,0,,0,0" "a.csv imported"

# the same in the --json summary; our own CSV has no "columns"
"$IOREEL" convert a.csv a2.ioreel --json 2>/dev/null | grep -q '"columns":"ts_ns->queue_ns (ns), dev->dev' ||
	fail "convert --json does not give the columns"

# 2. timestamp,lba,size,rw: lba in 512-byte sectors, timestamp's unit given with --time-unit
cat >b.csv <<'CSV'
timestamp,lba,size,rw
1.5,8,4096,read
2,16,512,W
2.25,0,4096,RA
3,2,1024,WFS
4,100,4096,1
5,0,4096,2
CSV
"$IOREEL" convert b.csv b.ioreel >out 2>err && fail "timestamp without a unit was read"
grep -q "column 1 'timestamp' is a time without a unit.*--time-unit" err ||
	fail "no unit: '$(cat err)'"
[ -e b.ioreel ] && fail "a refused import left b.ioreel"
"$IOREEL" convert b.csv b.ioreel --time-unit ms >out 2>err || fail "convert b.csv: $(cat err)"
grep -q 'b.csv: columns: timestamp->queue_ns (ms), lba->offset (sectors of 512 bytes), size->length, rw->op' err ||
	fail "convert b.csv does not say which column went where: $(cat err)"
assert_eq "$(events b.ioreel)" "$H
1500000,,,dev0,4096,4096,read,,0,0,0,,0,0
2000000,,,dev0,8192,512,write,,0,0,0,,0,0
2250000,,,dev0,0,4096,read,readahead,0,0,0,,0,0
3000000,,,dev0,1024,1024,write,sync|fua,0,0,0,,0,0
4000000,,,dev0,51200,4096,read,,0,0,0,,0,0
5000000,,,dev0,0,4096,write,,0,0,0,,0,0" "b.csv imported"

# 3. --columns names a column the table does not know and leaves one out; --sector-size
printf 'When_us,Addr,Bytes,Kind,Note\n10,3,4096,R,x\n20,1,8192,W,y\n' >c.csv
"$IOREEL" convert c.csv c.ioreel --columns When_us=ts_us,Addr=lba,Kind=op,Note=- \
	--sector-size 4096 >out 2>err || fail "convert c.csv --columns: $(cat err)"
grep -q 'Addr->offset (sectors of 4096 bytes)' err && grep -q 'Note skipped' err ||
	fail "convert c.csv: $(cat err)"
assert_eq "$(events c.ioreel)" "$H
10000,,,dev0,12288,4096,read,,0,0,0,,0,0
20000,,,dev0,4096,8192,write,,0,0,0,,0,0" "c.csv imported"

# a column without a name (pandas' index) is left out, and said so
printf ',ts_us,offset,len,op\n0,5,4096,4096,write\n' >p.csv
"$IOREEL" convert p.csv p.ioreel >out 2>err || fail "convert p.csv: $(cat err)"
grep -q 'columns: column 1 (no name) skipped, ts_us->queue_ns (us)' err || fail "p.csv: $(cat err)"
assert_eq "$(events p.ioreel)" "$H
5000,,,dev0,4096,4096,write,,0,0,0,,0,0" "p.csv imported"

# 4. our own CSV round-trips without a word about columns
"$IOREEL" convert a.ioreel own.csv >/dev/null || fail "export own.csv"
"$IOREEL" convert own.csv own.ioreel >out 2>err || fail "import own.csv: $(cat err)"
[ -s err ] && fail "our own CSV made convert talk: $(cat err)"
"$IOREEL" convert own.csv own2.ioreel --json | grep -q '"columns"' &&
	fail "our own CSV has columns in --json"
assert_eq "$(events own.ioreel)" "$(events a.ioreel)" "own CSV round trip"

# 5. the thread's on-CPU time before each I/O (record --cpu): oncpu_us read into oncpu_ns,
# empty where not known, and written back as our last column
cat >o.csv <<'CSV'
ts_us,op,lba,size,oncpu_us
10,R,8,4096,250
20,W,16,4096,
CSV
"$IOREEL" convert o.csv o.ioreel >out 2>err || fail "convert o.csv: $(cat err)"
grep -q 'oncpu_us->oncpu_ns (us)' err || fail "convert o.csv does not say where oncpu_us went: $(cat err)"
assert_eq "$("$IOREEL" convert o.ioreel - --to csv 2>/dev/null | grep -v '^#' | cut -d, -f1,5,7,15)" \
	"queue_ns,offset,op,oncpu_ns
10000,4096,read,250000
20000,8192,write," "oncpu_us read back as oncpu_ns"

# refused COLUMNS-LINE PATTERN [ARGS]: exit 1, one message matching PATTERN, no output
refused() {
	local hdr=$1 pat=$2 rc; shift 2
	printf '%s\n' "$hdr" >r.csv
	"$IOREEL" convert r.csv r.ioreel "$@" >/dev/null 2>err; rc=$?
	[ $rc = 1 ] || fail "header '$hdr' $*: exit $rc, expected 1: $(cat err)"
	grep -q -- "$pat" err || fail "header '$hdr' $*: '$(cat err)' lacks '$pat'"
	[ -e r.ioreel ] && fail "header '$hdr' left an output"
	echo "  refused '$hdr' $*: ok"
}
# unknown: names it, says how to name it and lists the choices
refused 'ts_ns,frob,size,rw' "column 2 'frob' is not a field convert knows; name it with --columns 'frob=FIELD' (FIELD: times: queue/ts/timestamp"
refused 'ts_ns,frob,size,rw' "lba/sector/offset_sectors"
# ambiguous: two columns for one field, or a completion given twice
refused 'ts_ns,offset,lba,size,rw' "columns 2 'offset' and 3 'lba' both give offset: leave one out with --columns 'lba=-' (or 'offset=-')"
refused 'ts_ns,time_us,lba,size,rw' "columns 1 'ts_ns' and 2 'time_us' both give queue_ns"
# two columns of one name: --columns cannot tell them apart, so the header must
refused 'ts_ns,lba,size,rw,rw' "columns 4 and 5 are both named 'rw': rename one in the header line"
refused 'ts_ns,lba,size,rw,complete_ns,lat_us' "'complete_ns' and 'lat_us' both give the completion time"
refused 'lat_us,lba,size,rw' "'lat_us' is a latency, but no column gives the start"
refused 'time,lba,size,rw' "column 1 'time' is a time without a unit (ns, us, ms or s?)"
refused 'ts_ns,lba,rw' "no column gives a length"
refused 'ts_ns,lba,size,rw' "names 'zz', which the header does not have (its columns: ts_ns lba size rw)" --columns zz=lba

# usage errors: exit 2 before any file is read
usage() {
	local rc
	"$IOREEL" convert b.csv u.ioreel "$@" >/dev/null 2>err; rc=$?
	[ $rc = 2 ] || fail "convert $*: exit $rc, expected 2: $(cat err)"
	grep -q -- "$1" err || fail "convert $*: '$(cat err)' does not name $1"
}
usage --columns lba=frob
usage --columns lba
usage --time-unit fortnights
usage --sector-size 500
usage --columns lba=offset --from msr
echo "convert_csv_columns: ok"
