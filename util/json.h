/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one JSON string writer every verb uses, so every JSON output is valid JSON (RFC 8259) and
 * holds valid UTF-8 whatever bytes a trace, a file name or a path brings.
 *
 * The rule: a string is written between double quotes, with
 *  - '"' and '\\' as \" and \\;
 *  - control characters (bytes 0x00-0x1f and 0x7f) as \u00XX;
 *  - well-formed UTF-8 sequences (RFC 3629: no overlong forms, no surrogates, nothing above
 *    U+10FFFF) passed through unchanged;
 *  - every other byte (a stray continuation byte, a truncated or overlong sequence, 0xc0,
 *    0xc1, 0xf5-0xff) as \u00XX of the byte value, that is read as Latin-1.
 * So a valid UTF-8 name comes out as itself in every verb, and an invalid byte B becomes
 * U+00B: readable, never invalid JSON. (Two different byte strings may then decode to the same
 * text, e.g. a lone 0xe9 and UTF-8 "é"; names that are not UTF-8 cannot round-trip anyway.)
 */
#ifndef IOREEL_UTIL_JSON_H
#define IOREEL_UTIL_JSON_H

#include <stddef.h>
#include <stdio.h>

/* s (NUL-terminated) as a JSON string literal, quotes included. */
void json_str(FILE *f, const char *s);
/* The same for at most max bytes of s (a fixed-size field that may lack its NUL). */
void json_strn(FILE *f, const char *s, size_t max);
/*
 * The same into out (len bytes, len >= 3), always quoted and NUL-terminated. A string that does
 * not fit is cut at a character or escape boundary (never inside one), so the result stays
 * valid JSON. Returns the length written (without the NUL).
 */
size_t json_str_buf(char *out, size_t len, const char *s);

#endif
