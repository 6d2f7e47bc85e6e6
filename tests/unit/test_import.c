// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Importers on hand-built inputs: blktrace records written byte by byte in both byte orders
 * (blktrace cannot run on this kernel: no relay), fio v2/v3, MSR, Alibaba, our CSV, and the
 * bad-input errors (line / byte offset named, no crash).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/convert.h"

#include "tests/unit/check.h"

static struct io_event got[256];
static size_t ngot;
static struct trace_meta meta;
static char err[1280];

static int collect(void *arg, const struct io_event *ev, size_t n)
{
	(void)arg;
	for (size_t i = 0; i < n && ngot < 256; i++)
		got[ngot++] = ev[i];
	return 0;
}

/* Runs one importer on a buffer; returns its result, events in got[]. */
static int run(enum conv_fmt fmt, const void *buf, size_t len, bool salvage)
{
	struct import_window w;
	struct import_ctx c;
	FILE *f = fmemopen((void *)buf, len, "r");
	int r;

	memset(&meta, 0, sizeof(meta));
	memset(&c, 0, sizeof(c));
	ngot = 0;
	c.meta = &meta;
	c.win = &w;
	c.salvage = salvage;
	if (!f || import_window_init(&w, 64, import_is_absolute(fmt), collect, NULL))
		return -ENOMEM;
	r = import_run(fmt, f, &c);
	if (!r)
		r = import_window_drain(&w);
	if (!r && c.has_realtime)
		meta.genesis_realtime_ns = w.first_abs_ns - c.realtime_offset_ns;
	snprintf(err, sizeof(err), "%s", c.err);
	import_window_free(&w);
	fclose(f);
	return r;
}

/* ---- blktrace records ---- */
static unsigned char bt[8192];
static size_t btlen;
static bool bt_be;

static void put(uint64_t v, int bytes, bool be)
{
	for (int i = 0; i < bytes; i++)
		bt[btlen++] = (unsigned char)(v >> (8 * (be ? bytes - 1 - i : i)));
}

enum { QUEUE = 1, BACKMERGE = 2, ISSUE = 7, COMPLETE = 8, SPLIT = 13, REMAP = 15 };
enum { R = 1, W = 2, FLUSH = 4, SYNC = 8, FUA = 1 << 15, NOTIFY = 1 << 10, DISCARD = 1 << 13 };
#define DEV_A ((8u << 20) | 16) /* 8:16 */
#define DEV_B ((253u << 20) | 0)

static void rec(uint64_t t, uint64_t sector, uint32_t bytes, uint32_t act, uint32_t cat,
		uint32_t pid, uint32_t dev, uint16_t error, const void *pdu, uint16_t pdu_len)
{
	static uint32_t seq;
	put(0x65617407, 4, bt_be);
	put(++seq, 4, bt_be);
	put(t, 8, bt_be);
	put(sector, 8, bt_be);
	put(bytes, 4, bt_be);
	put(act | cat << 16, 4, bt_be);
	put(pid, 4, bt_be);
	put(dev, 4, bt_be);
	put(1, 4, bt_be); /* cpu */
	put(error, 2, bt_be);
	put(pdu_len, 2, bt_be);
	if (pdu_len)
		memcpy(bt + btlen, pdu, pdu_len);
	btlen += pdu_len;
}

static void build_blktrace(bool be)
{
	unsigned char pdu[16];

	btlen = 0;
	bt_be = be;
	rec(50, 0, 0, 0, NOTIFY, 42, DEV_A, 0, "dd\0", 3); /* PROCESS: pid 42 is "dd" */
	/* 1: read 8 KiB at sector 100, Q D C */
	rec(1000, 100, 8192, QUEUE, R | SYNC, 42, DEV_A, 0, NULL, 0);
	/* 2+3: two writes, the second back-merged into the first's request */
	rec(2000, 200, 4096, QUEUE, W, 42, DEV_A, 0, NULL, 0);
	rec(2100, 208, 4096, QUEUE, W, 42, DEV_A, 0, NULL, 0);
	rec(2100, 208, 4096, BACKMERGE, W, 42, DEV_A, 0, NULL, 0);
	rec(2500, 100, 8192, ISSUE, R | SYNC, 42, DEV_A, 0, NULL, 0);
	rec(3000, 200, 8192, ISSUE, W, 42, DEV_A, 0, NULL, 0);
	rec(4000, 100, 8192, COMPLETE, R | SYNC, 42, DEV_A, 0, NULL, 0);
	rec(5000, 200, 8192, COMPLETE, W, 42, DEV_A, (uint16_t)-5, NULL, 0); /* -EIO */
	/* 4: a bio on dm (DEV_B) remapped to DEV_A sector 1000, then split at 1004 */
	rec(6000, 10, 4096, QUEUE, W | FUA, 7, DEV_B, 0, NULL, 0);
	memset(pdu, 0, sizeof(pdu));
	pdu[0] = DEV_B >> 24, pdu[1] = (DEV_B >> 16) & 0xff, pdu[2] = (DEV_B >> 8) & 0xff;
	pdu[3] = DEV_B & 0xff;
	pdu[15] = 10; /* sector_from, big-endian */
	rec(6100, 1000, 4096, REMAP, W | FUA, 7, DEV_A, 0, pdu, 16);
	rec(6150, 1000, 4096, QUEUE, W | FUA, 7, DEV_A, 0, NULL, 0); /* same bio, lower dev */
	memset(pdu, 0, 8);
	pdu[7] = 1004 & 0xff, pdu[6] = 1004 >> 8;
	rec(6200, 1000, 4096, SPLIT, W | FUA, 7, DEV_A, 0, pdu, 8);
	rec(6300, 1000, 2048, ISSUE, W | FUA, 7, DEV_A, 0, NULL, 0);
	rec(6400, 1004, 2048, ISSUE, W | FUA, 7, DEV_A, 0, NULL, 0);
	rec(6500, 1004, 2048, COMPLETE, W | FUA, 7, DEV_A, 0, NULL, 0);
	rec(6900, 1000, 2048, COMPLETE, W | FUA, 7, DEV_A, 0, NULL, 0);
	/* 5: an empty flush; 6: a discard issued without a Q (never completed) */
	rec(7000, 0, 0, QUEUE, W | FLUSH, 42, DEV_A, 0, NULL, 0);
	rec(7100, 0, 0, ISSUE, W | FLUSH, 42, DEV_A, 0, NULL, 0);
	rec(7200, 0, 0, COMPLETE, W | FLUSH, 42, DEV_A, 0, NULL, 0);
	rec(8000, 5000, 1 << 20, ISSUE, W | DISCARD, 9, DEV_A, 0, NULL, 0);
}

static void test_blktrace(bool be)
{
	int r;

	build_blktrace(be);
	r = run(CONV_BLKTRACE, bt, btlen, false);
	CHECK(r == 0, "%s endian: %d %s", be ? "big" : "little", r, err);
	CHECK(ngot == 6, "%zu events", ngot);
	if (ngot != 6)
		return;
	CHECK(got[0].queue_ns == 1000 && got[0].issue_ns == 2500 && got[0].complete_ns == 4000,
	      "read times %lu %lu %lu", (unsigned long)got[0].queue_ns,
	      (unsigned long)got[0].issue_ns, (unsigned long)got[0].complete_ns);
	CHECK(got[0].op == IO_OP_READ && got[0].flags == IO_F_SYNC && got[0].offset == 51200 &&
		      got[0].length == 8192, "read fields");
	CHECK(!strcmp(got[0].comm, "dd") && got[0].pid == 42 && got[0].cpu == 1, "comm '%s'",
	      got[0].comm);
	/* the merged bio gets its request's D and C */
	CHECK(got[1].op == IO_OP_WRITE && got[1].issue_ns == 3000 && got[1].complete_ns == 5000 &&
		      got[1].error == -5, "write 1");
	CHECK(got[2].queue_ns == 2100 && got[2].issue_ns == 3000 && got[2].complete_ns == 5000 &&
		      got[2].offset == 208 * 512, "merged write");
	/* remapped + split: submitter's device and sector, first D, last C */
	CHECK(got[3].queue_ns == 6000 && got[3].issue_ns == 6300 && got[3].complete_ns == 6900,
	      "split times %lu %lu %lu", (unsigned long)got[3].queue_ns,
	      (unsigned long)got[3].issue_ns, (unsigned long)got[3].complete_ns);
	CHECK(got[3].offset == 10 * 512 && got[3].length == 4096 && got[3].flags == IO_F_FUA &&
		      !strcmp(meta.devices[got[3].dev].name, "253:0"), "remapped write on %s",
	      meta.devices[got[3].dev].name);
	CHECK(got[4].op == IO_OP_FLUSH && got[4].length == 0 && got[4].complete_ns == 7200, "flush");
	CHECK(got[5].op == IO_OP_DISCARD && got[5].queue_ns == IO_TS_NONE &&
		      got[5].issue_ns == 8000 && got[5].complete_ns == IO_TS_NONE, "D-only discard");
	CHECK(meta.ndevices == 2 && !strcmp(meta.devices[0].name, "8:16") &&
		      meta.devices[0].major == 8 && meta.devices[0].minor == 16, "devices");

	/* truncated: the error names the byte offset of the cut record */
	r = run(CONV_BLKTRACE, bt, btlen - 20, false);
	CHECK(r == -EINVAL && strstr(err, "byte ") && strstr(err, "truncated"), "trunc: %s", err);
	bt[51 + 1] ^= 0x55; /* corrupt the second record's magic (after 48 + 3 bytes) */
	bt[51 + 2] ^= 0x55;
	r = run(CONV_BLKTRACE, bt, btlen, false);
	CHECK(r == -EINVAL && strstr(err, "byte 51") && strstr(err, "magic"), "magic: %s", err);
}

static void test_fio(void)
{
	static const char v2[] = "fio version 2 iolog\n"
				 "/dev/sdb add\n/dev/sdb open\n"
				 "/dev/sdb read 0 4096\n"
				 "/dev/sdb wait 1500 0\n"
				 "/dev/sdb write 8192 4096\n"
				 "/dev/sdb wait 500 0\n"
				 "/dev/sdb sync 0 0\n/dev/sdb trim 0 65536\n/dev/sdb close\n";
	static const char v3[] = "fio version 3 iolog\n0 /f add\n1 /f open\n"
				 "5 /f read 4096 512\n7 /f datasync 0 0\n9 /f close\n";
	int r;

	r = run(CONV_FIO, v2, sizeof(v2) - 1, false);
	CHECK(r == 0 && ngot == 4, "v2: %d %zu %s", r, ngot, err);
	if (ngot == 4) {
		CHECK(got[0].queue_ns == 0 && got[1].queue_ns == 1500000 &&
			      got[2].queue_ns == 2000000, "v2 waits are cumulative us");
		CHECK(got[2].op == IO_OP_FLUSH && got[2].flags == IO_F_META, "sync");
		CHECK(got[3].op == IO_OP_DISCARD && got[3].length == 65536, "trim");
	}
	r = run(CONV_FIO, v3, sizeof(v3) - 1, false);
	CHECK(r == 0 && ngot == 2 && got[0].queue_ns == 5000 && got[1].op == IO_OP_FLUSH &&
		      got[1].flags == 0, "v3: %d %s", r, err);
	CHECK(strstr(meta.options, "0:add@0 0:open@1 0:close@9"), "file events '%s'", meta.options);

	static const char bad1[] = "fio version 3 iolog\n0 /f add\n5 /f read x 512\n";
	r = run(CONV_FIO, bad1, sizeof(bad1) - 1, false);
	CHECK(r == -EINVAL && !strncmp(err, "line 3:", 7), "bad number: %s", err);
	r = run(CONV_FIO, bad1, sizeof(bad1) - 1, true);
	CHECK(r == 0 && ngot == 0, "salvage skips");
	static const char bad2[] = "fio version 3 iolog\n0 /f wait 5 0\n";
	r = run(CONV_FIO, bad2, sizeof(bad2) - 1, false);
	CHECK(r == -EINVAL && strstr(err, "line 2:") && strstr(err, "wait"), "v3 wait: %s", err);
	r = run(CONV_FIO, "hello\n", 6, false);
	CHECK(r == -EINVAL && strstr(err, "line 1:"), "not fio: %s", err);
}

static void test_csv_formats(void)
{
	/* MSR: 2007-02-22 (filetime), unsorted by a little, ResponseTime in 100 ns */
	static const char msr[] = "128166372003061629,usr,0,Read,1000,4096,300\n"
				  "128166372002061629,usr,1,Write,0,512,10\n";
	static const char ali[] = "device_id,opcode,offset,length,timestamp\n"
				  "7,W,4096,8192,1577808000000100\n7,R,0,4096,1577808000000000\n";
	int r;

	r = run(CONV_MSR, msr, sizeof(msr) - 1, false);
	CHECK(r == 0 && ngot == 2, "msr %d %s", r, err);
	if (ngot == 2) {
		CHECK(got[0].queue_ns == 0 && got[0].op == IO_OP_WRITE && got[0].complete_ns == 1000,
		      "msr sorted and rebased");
		CHECK(got[1].queue_ns == 100000000 && got[1].complete_ns == 100030000, "msr times");
		CHECK(meta.genesis_realtime_ns ==
			      (128166372002061629ull - 116444736000000000ull) * 100, "msr epoch");
		CHECK(!strcmp(meta.devices[0].name, "usr_0"), "msr dev %s", meta.devices[0].name);
	}
	r = run(CONV_ALIBABA, ali, sizeof(ali) - 1, false);
	CHECK(r == 0 && ngot == 2 && got[0].op == IO_OP_READ && got[1].queue_ns == 100000 &&
		      meta.genesis_realtime_ns == 1577808000000000000ull, "alibaba %d %s", r, err);
	static const char alibad[] = "7,X,0,1,2\n";
	r = run(CONV_ALIBABA, alibad, sizeof(alibad) - 1, false);
	CHECK(r == -EINVAL && strstr(err, "line 1:") && strstr(err, "opcode"), "ali bad: %s", err);

	/* our CSV: quoted comm with a comma, empty times absent */
	static const char csv[] = "# ioreel csv: genesis_realtime_ns=77 source=x\n"
				  "queue_ns,issue_ns,complete_ns,dev,offset,length,op,flags,error,"
				  "pid,tid,comm,cpu,stream\n"
				  "10,,30,sda,512,4096,write,sync|fua,-5,1,2,\"a,\"\"b\",3,4\n";
	r = run(CONV_CSV, csv, sizeof(csv) - 1, false);
	CHECK(r == 0 && ngot == 1, "csv %d %s", r, err);
	if (ngot == 1) {
		CHECK(got[0].issue_ns == IO_TS_NONE && got[0].complete_ns == 30 &&
			      got[0].flags == (IO_F_SYNC | IO_F_FUA) && got[0].error == -5 &&
			      !strcmp(got[0].comm, "a,\"b") && got[0].cpu == 3 && got[0].stream == 4,
		      "csv fields");
		CHECK(meta.genesis_realtime_ns == 77, "csv genesis");
	}
}

/* A CSV whose first row is len bytes, then `end` and a short row ("": the file ends there). */
static void line_of(size_t len, const char *end, const char *said)
{
	static char buf[3 * IMPORT_LINE_BUF];
	size_t rows = *end ? 2 : 1, over = len > IMPORT_LINE_MAX;
	/* the time padded with zeros to len bytes */
	int n = snprintf(buf, sizeof(buf), "queue_ns,offset,length,op\n%0*d,0,512,read",
			 (int)(len - strlen(",0,512,read")), 1);
	int r;

	if (*end)
		n += snprintf(buf + n, sizeof(buf) - n, "%s2,512,512,write\n", end);
	r = run(CONV_CSV, buf, (size_t)n, false);
	CHECK(over ? r == -EINVAL && strstr(err, "line 2: line longer than 4096 bytes")
		   : r == 0 && ngot == rows && got[0].queue_ns == 1,
	      "a row of %zu bytes, then %s: %d, %zu I/Os, %s", len, said, r, ngot, err);
	r = run(CONV_CSV, buf, (size_t)n, true);
	CHECK(r == 0 && ngot == rows - over, "--salvage, a row of %zu bytes, then %s: %d, %zu I/Os",
	      len, said, r, ngot);
}

/*
 * A line of IMPORT_LINE_MAX bytes, as convert --help says, without its "\n" or "\r\n", or at
 * the end of the file without one, is read; one byte more is refused, and under --salvage
 * skipped as a whole (the next line is read). The buffer once held only IMPORT_LINE_MAX - 2.
 */
static void test_line_limit(void)
{
	for (size_t len = IMPORT_LINE_MAX; len <= IMPORT_LINE_MAX + 1; len++) {
		line_of(len, "\n", "\\n");
		line_of(len, "\r\n", "\\r\\n");
		line_of(len, "", "the end");
	}
}

/* A CSV whose header, after a UTF-8 byte-order mark, is len bytes, then one row. */
static void header_after_bom(size_t len)
{
	static char buf[2 * IMPORT_LINE_BUF];
	static const char names[] = "queue_ns,offset,length,op";
	/* the last name padded with blanks to len bytes */
	int n = snprintf(buf, sizeof(buf), "\xef\xbb\xbf%s%*s\n1,0,512,read\n", names,
			 (int)(len - strlen(names)), "");
	int r = run(CONV_CSV, buf, (size_t)n, false);

	CHECK(len <= IMPORT_LINE_MAX ? r == 0 && ngot == 1
				     : r == -EINVAL && strstr(err, "line 1: the CSV header is "
								   "longer than 4096 bytes"),
	      "a header of %zu bytes after a byte-order mark: %d, %zu I/Os, %s", len, r, ngot, err);
}

/*
 * A UTF-8 byte-order mark before line 1 is not part of it: a header of IMPORT_LINE_MAX bytes
 * after one is read and one byte more refused, as without it (the mark counted towards the
 * limit: 4093 bytes after it were the most). The first bytes of a mark alone are the line's,
 * and a file of a mark only has no line. A fio log and an MSR file with one read as without.
 */
static void test_bom(void)
{
	static const char fio[] = "\xef\xbb\xbf"
				  "fio version 3 iolog\n0 /f add\n5 /f read 0 512\n";
	static const char msr[] = "\xef\xbb\xbf"
				  "128166372003061629,usr,0,Read,1000,4096,300\n";
	static const char part[] = "\xef\xbb"
				   "queue_ns,offset,length,op\n1,0,512,read\n";
	int r;

	header_after_bom(IMPORT_LINE_MAX);
	header_after_bom(IMPORT_LINE_MAX + 1);
	r = run(CONV_FIO, fio, sizeof(fio) - 1, false);
	CHECK(r == 0 && ngot == 1, "a fio log after a byte-order mark: %d, %s", r, err);
	r = run(CONV_MSR, msr, sizeof(msr) - 1, false);
	CHECK(r == 0 && ngot == 1, "an MSR file after a byte-order mark: %d, %s", r, err);
	r = run(CONV_CSV, part, sizeof(part) - 1, false);
	CHECK(r == -EINVAL && strstr(err, "line 1: column 1 '\xef\xbbqueue_ns'"),
	      "two bytes of a mark: %d, %s", r, err);
	r = run(CONV_CSV, "\xef\xbb\xbf", 3, false);
	CHECK(r == -EINVAL && strstr(err, "the file is empty"), "a mark only: %d, %s", r, err);
	r = run(CONV_CSV, "\xef", 1, false);
	CHECK(r == -EINVAL && strstr(err, "line 1: column 1 '\xef'"), "a mark's first byte: %d, %s",
	      r, err);
}

/*
 * A NUL byte inside a short line (a UTF-16 file, binary data) is said as such, and --salvage
 * skips that line alone, in each importer: the line reader took the line for one over the
 * limit ("longer than 4096 bytes") and read on to the next newline, losing the good line after
 * it uncounted. So is one on the last line, without its newline.
 */
static void test_nul(void)
{
	static const char fio[] = "fio version 3 iolog\n0 /f add\n5 /f re\0ad 0 512\n"
				  "6 /f read 512 512\n7 /f read 1024 512\n";
	static const char csv[] = "queue_ns,offset,length,op\n1,0,512,read\n2,5\0" "12,512,read\n"
				  "3,1024,512,read\n4,1536,512,read";
	static const char msr[] = "128166372003061629,usr,0,Read,1000,4096,300\n"
				  "128166372003061630,usr,0,Re\0ad,1000,4096,300\n"
				  "128166372003061631,usr,0,Read,5096,4096,300\n"
				  "128166372003061632,usr,0,Read,9192,4096,300\n";
	static const char ali[] = "1,R,0,4096,1577808000000000\n"
				  "1,R,4\0" "096,4096,1577808000000001\n"
				  "1,R,8192,4096,1577808000000002\n1,R,0,4096,1577808000000003\n";
	static const struct {
		enum conv_fmt fmt;
		const char *name, *buf;
		size_t len, good;
		int line;
	} cases[] = {
		{ CONV_FIO, "fio", fio, sizeof(fio) - 1, 2, 3 },
		{ CONV_CSV, "csv", csv, sizeof(csv) - 1, 3, 3 },
		{ CONV_MSR, "msr", msr, sizeof(msr) - 1, 3, 2 },
		{ CONV_ALIBABA, "alibaba", ali, sizeof(ali) - 1, 3, 2 },
	};
	char want[64];
	int r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(want, sizeof(want), "line %d: a NUL byte in the line", cases[i].line);
		r = run(cases[i].fmt, cases[i].buf, cases[i].len, false);
		CHECK(r == -EINVAL && strstr(err, want), "%s, a NUL byte in line %d: %d, %s",
		      cases[i].name, cases[i].line, r, err);
		r = run(cases[i].fmt, cases[i].buf, cases[i].len, true);
		CHECK(r == 0 && ngot == cases[i].good,
		      "%s --salvage, a NUL byte: %d, %zu I/Os of %zu", cases[i].name, r, ngot,
		      cases[i].good);
	}
	r = run(CONV_CSV, "queue_ns,offset,length,op\n1,0,512,read\n2,0,512,read\0", 52, false);
	CHECK(r == -EINVAL && strstr(err, "line 3: a NUL byte in the line"),
	      "a NUL byte on the last line, no newline: %d, %s", r, err);
	r = run(CONV_CSV, "queue_ns\0,offset,length,op\n1,0,512,read\n", 40, false);
	CHECK(r == -EINVAL && strstr(err, "line 1: the CSV header holds a NUL byte: convert reads "
					  "text"),
	      "a NUL byte in the header: %d, %s", r, err);
}

static void test_sniff(void)
{
	unsigned char be[4] = { 0x65, 0x61, 0x74, 0x07 }, le[4] = { 0x07, 0x74, 0x61, 0x65 };

	CHECK(conv_fmt_sniff(be, 4) == CONV_BLKTRACE && conv_fmt_sniff(le, 4) == CONV_BLKTRACE,
	      "blktrace magic");
	CHECK(conv_fmt_sniff((const unsigned char *)"fio version 3 iolog\n", 20) == CONV_FIO3,
	      "fio3");
	CHECK(conv_fmt_sniff((const unsigned char *)"128166372003061629,usr,0,Read,0,1,2\n", 36) ==
		      CONV_MSR, "msr");
	CHECK(conv_fmt_sniff((const unsigned char *)"1,R,0,4096,5\n", 13) == CONV_ALIBABA,
	      "alibaba");
}

/* CSV traces as they come: names, units, op spellings, decimal times (csv_columns.c). */
static void test_csv_columns(void)
{
	static const struct {
		const char *name;
		enum csv_field f;
		enum csv_unit u;
	} names[] = {
		{ "ts_ns", CSVF_QUEUE, CSVU_NS },	  { "Timestamp", CSVF_QUEUE, CSVU_TIME },
		{ "start_time_us", CSVF_QUEUE, CSVU_US }, { "latency_ns", CSVF_LATENCY, CSVU_NS },
		{ "lat-ms", CSVF_LATENCY, CSVU_MS },	  { "lba", CSVF_OFFSET, CSVU_SECTORS },
		{ "offset_bytes", CSVF_OFFSET, CSVU_BYTES }, { "Size", CSVF_LENGTH, CSVU_BYTES },
		{ "rw", CSVF_OP, CSVU_NONE },		  { "device", CSVF_DEV, CSVU_NONE },
	};
	static const struct {
		const char *s;
		int op;
		unsigned int flags;
	} ops[] = {
		{ "R", IO_OP_READ, 0 },	      { "write", IO_OP_WRITE, 0 },  { "1", IO_OP_READ, 0 },
		{ "2", IO_OP_WRITE, 0 },      { "D", IO_OP_DISCARD, 0 },    { "F", IO_OP_FLUSH, 0 },
		{ "trim", IO_OP_DISCARD, 0 }, { "WS", IO_OP_WRITE, IO_F_SYNC },
		{ "FWFS", IO_OP_WRITE, IO_F_PREFLUSH | IO_F_FUA | IO_F_SYNC },
		{ "RA", IO_OP_READ, IO_F_READAHEAD },
	};
	enum csv_field f;
	enum csv_unit u;
	unsigned int fl;
	uint64_t ns;
	int op;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		CHECK(!csv_name_lookup(names[i].name, &f, &u) && f == names[i].f &&
			      u == names[i].u, "column name %s", names[i].name);
	CHECK(csv_name_lookup("ts_fortnights", &f, &u) == -ENOENT, "unknown unit suffix");
	CHECK(csv_name_lookup("frob", &f, &u) == -ENOENT, "unknown name");
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		CHECK(!csv_op_parse(ops[i].s, &op, &fl) && op == ops[i].op && fl == ops[i].flags,
		      "op %s", ops[i].s);
	CHECK(csv_op_parse("0", &op, &fl) && csv_op_parse("X", &op, &fl) &&
		      csv_op_parse("WQ", &op, &fl), "ops refused");
	CHECK(!csv_time_parse("1.5", 1000000000, &ns) && ns == 1500000000, "1.5 s");
	CHECK(!csv_time_parse("7", 1000, &ns) && ns == 7000, "7 us");
	CHECK(!csv_time_parse("", 1, &ns) && ns == IO_TS_NONE, "empty time");
	CHECK(csv_time_parse("1.", 1, &ns) && csv_time_parse("-1", 1, &ns) &&
		      csv_time_parse("99999999999999999999", 1000, &ns), "bad times refused");
}

int main(void)
{
	test_csv_columns();
	test_blktrace(false);
	test_blktrace(true);
	test_fio();
	test_csv_formats();
	test_line_limit();
	test_bom();
	test_nul();
	test_sniff();
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
