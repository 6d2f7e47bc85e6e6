// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The JSON reader behind `ioreel analyze FLEET.json`: a document of every kind of value reads
 * back (integers beyond 2^53 exactly, escapes, nesting); malformed, truncated and too deeply
 * nested input is refused with where it went wrong, never read past its end.
 */
#include <stdlib.h>
#include <string.h>
#include "analyze/json_in.h"

#include "tests/unit/check.h"

static void test_values(void)
{
	const char *doc = " {\"a\": [1, -2.5, 1e3, true, false, null], \"big\": 1152921504606846977,"
			  " \"s\": \"q\\\"\\\\\\n\\u0041\", \"o\": {\"x\": {}}, \"e\": []} ";
	char err[128];
	struct jv *v = jv_parse(doc, strlen(doc), err, sizeof(err));
	const struct jv *a;

	CHECK(v, "parse: %s", err);
	if (!v)
		return;
	a = jv_get(v, "a");
	CHECK(a && a->type == JV_ARRAY && a->n == 6, "array");
	CHECK(a && jv_u64(a->items[0]) == 1 && jv_num(a->items[1]) == -2.5 &&
		      jv_num(a->items[2]) == 1000, "numbers");
	CHECK(a && a->items[3]->type == JV_BOOL && a->items[3]->num == 1 &&
		      a->items[5]->type == JV_NULL, "words");
	CHECK(jv_u64(jv_get(v, "big")) == 1152921504606846977ULL, "2^60 + 1 exactly");
	CHECK(!strcmp(jv_str(jv_get(v, "s")), "q\"\\\nA"), "escapes: '%s'", jv_str(jv_get(v, "s")));
	CHECK(jv_get(jv_get(v, "o"), "x") && jv_get(v, "e")->n == 0, "nesting, empty containers");
	CHECK(!jv_get(v, "missing") && jv_u64(NULL) == 0 && !strcmp(jv_str(NULL), ""), "absent");
	jv_free(v);
}

static void test_refused(void)
{
	static const char *const bad[] = { "", "{", "{\"a\" 1}", "{\"a\": 1,}", "[1 2]", "\"abc",
					   "{\"a\": tru}", "{\"a\": 1} x", "{\"a\": \"\\u00\"}",
					   "-", "{1: 2}" };
	char deep[300], err[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct jv *v = jv_parse(bad[i], strlen(bad[i]), err, sizeof(err));

		CHECK(!v && strstr(err, "at byte"), "accepted '%s' (%s)", bad[i], err);
		jv_free(v);
	}
	memset(deep, '[', sizeof(deep));
	CHECK(!jv_parse(deep, sizeof(deep), err, sizeof(err)) && strstr(err, "deep"),
	      "300 levels accepted (%s)", err);
	/* a buffer without a terminating NUL is never read past its length */
	{
		char *p = malloc(7);

		memcpy(p, "{\"a\":1", 6);
		p[6] = '}';
		struct jv *v = jv_parse(p, 6, err, sizeof(err));

		CHECK(!v, "read past the end");
		jv_free(v);
		free(p);
	}
}

int main(void)
{
	test_values();
	test_refused();
	return failures ? 1 : 0;
}
