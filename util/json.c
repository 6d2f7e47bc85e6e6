// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* JSON string literals: the rule is in util/json.h. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "util/json.h"

/*
 * Length of the well-formed UTF-8 sequence starting at s (at most n bytes), 0 if s[0] does not
 * start one. Table 3-7 of the Unicode standard: the second byte's range depends on the first.
 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0; /* overlong */
	else if (c == 0xed)
		hi = 0x9f; /* surrogates */
	else if (c == 0xf0)
		lo = 0x90; /* overlong */
	else if (c == 0xf4)
		hi = 0x8f; /* above U+10FFFF */
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/*
 * The next unit of s[0..n): either bytes to copy as they are (*raw, returns their count) or one
 * escape written into esc (returns its length, *raw = false).
 */
static size_t next_unit(const unsigned char *s, size_t n, char esc[8], bool *raw)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c = s[0];
	size_t len;

	*raw = false;
	if (c == '"' || c == '\\') {
		esc[0] = '\\';
		esc[1] = (char)c;
		return 2;
	}
	if (c >= 0x20 && c != 0x7f && (len = utf8_len(s, n))) {
		*raw = true;
		return len;
	}
	memcpy(esc, "\\u00", 4);
	esc[4] = hex[c >> 4];
	esc[5] = hex[c & 15];
	return 6;
}

void json_strn(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strnlen(s, max);
	char esc[8];
	bool raw;

	fputc('"', f);
	while (n) {
		size_t k = next_unit(p, n, esc, &raw);

		if (raw) {
			fwrite(p, 1, k, f);
			p += k;
			n -= k;
		} else {
			fwrite(esc, 1, k, f);
			p++;
			n--;
		}
	}
	fputc('"', f);
}

void json_str(FILE *f, const char *s)
{
	json_strn(f, s, SIZE_MAX);
}

size_t json_str_buf(char *out, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), w = 0;
	char esc[8];
	bool raw;

	if (len < 3) {
		if (len)
			out[0] = '\0';
		return 0;
	}
	out[w++] = '"';
	while (n) {
		size_t k = next_unit(p, n, esc, &raw);

		if (w + k + 2 > len) /* room for the closing quote and the NUL */
			break;
		memcpy(out + w, raw ? (const char *)p : esc, k);
		w += k;
		p += raw ? k : 1;
		n -= raw ? k : 1;
	}
	out[w++] = '"';
	out[w] = '\0';
	return w;
}
