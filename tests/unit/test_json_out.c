// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* util/json: the one JSON string writer. Valid UTF-8 passes through, everything else is escaped
 * so that the output is always valid JSON; the bounded form never cuts an escape or a character. */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/check.h"
#include "util/json.h"

static char *to_file(const char *s, size_t max)
{
	static char out[256];
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (max)
		json_strn(f, s, max);
	else
		json_str(f, s);
	fclose(f);
	snprintf(out, sizeof(out), "%s", buf);
	free(buf);
	return out;
}

static void same(const char *in, const char *want)
{
	char b[256];

	CHECK(!strcmp(to_file(in, 0), want), "json_str(%s) = %s, want %s", in, to_file(in, 0), want);
	json_str_buf(b, sizeof(b), in);
	CHECK(!strcmp(b, want), "json_str_buf(%s) = %s, want %s", in, b, want);
}

int main(void)
{
	char b[16];
	size_t n;

	same("plain", "\"plain\"");
	same("a\"b\\c", "\"a\\\"b\\\\c\"");
	same("tab\tnl\n\x7f", "\"tab\\u0009nl\\u000a\\u007f\"");
	/* valid UTF-8 of 2, 3 and 4 bytes passes through unchanged */
	same("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe\"");
	/* invalid: lone continuation, 0xff, truncated sequence at the end */
	same("a\x80z\xff", "\"a\\u0080z\\u00ff\"");
	same("end\xc3", "\"end\\u00c3\"");
	/* a lead byte followed by ASCII: the lead byte alone is escaped, the rest kept */
	same("\xe2x", "\"\\u00e2x\"");
	/* overlong, surrogate, above U+10FFFF: every byte escaped */
	same("\xc0\xaf", "\"\\u00c0\\u00af\"");
	same("\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"");
	same("\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\"");
	/* json_strn stops at max: a character cut by it is escaped, not half-written */
	CHECK(!strcmp(to_file("ab\xc3\xa9", 3), "\"ab\\u00c3\""), "strn = %s",
	      to_file("ab\xc3\xa9", 3));
	CHECK(!strcmp(to_file("abc", 2), "\"ab\""), "strn = %s", to_file("abc", 2));
	/* the bounded form cuts at a unit boundary and stays quoted and terminated */
	n = json_str_buf(b, 7, "ab\xc3\xa9z");
	CHECK(!strcmp(b, "\"ab\xc3\xa9\"") && n == 6, "buf = %s (%zu)", b, n);
	n = json_str_buf(b, 6, "ab\xc3\xa9z");
	CHECK(!strcmp(b, "\"ab\"") && n == 4, "buf = %s (%zu)", b, n);
	n = json_str_buf(b, 8, "a\x01");
	CHECK(!strcmp(b, "\"a\"") && n == 3, "buf = %s (%zu)", b, n);
	n = json_str_buf(b, 10, "a\x01");
	CHECK(!strcmp(b, "\"a\\u0001\"") && n == 9, "buf = %s (%zu)", b, n);
	n = json_str_buf(b, 3, "abc");
	CHECK(!strcmp(b, "\"\"") && n == 2, "buf = %s (%zu)", b, n);
	return failures ? 1 : 0;
}
