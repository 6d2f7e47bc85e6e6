/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A JSON document as a tree (analyze/json_in.c): what `ioreel analyze` needs to read reports. */
#ifndef IOREEL_ANALYZE_JSON_IN_H
#define IOREEL_ANALYZE_JSON_IN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum jv_type { JV_NULL, JV_BOOL, JV_NUMBER, JV_STRING, JV_ARRAY, JV_OBJECT };

struct jv {
	enum jv_type type;
	double num;   /* numbers; booleans as 0/1 */
	uint64_t u64; /* a non-negative integer, exactly */
	char *str;
	size_t n, cap; /* arrays and objects */
	struct jv **items;
	char **keys; /* objects */
};

/* NULL with err ("expected ':' at byte 123") on a malformed document. */
struct jv *jv_parse(const char *text, size_t len, char *err, size_t errlen);
void jv_free(struct jv *v);
/* A member of an object, NULL when absent (or v is not an object). */
const struct jv *jv_get(const struct jv *v, const char *key);
/* 0, 0.0 or "" when v is absent or of another type. */
uint64_t jv_u64(const struct jv *v);
double jv_num(const struct jv *v);
const char *jv_str(const struct jv *v);

#endif
