// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reading a JSON document back (RFC 8259, the subset our reports write: objects, arrays,
 * strings with escapes, numbers, true/false/null), for `ioreel analyze FLEET.json`. A small
 * tree; every size is bounded before it is allocated, and depth is limited, so a hostile file
 * costs an error, not a crash.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/json_in.h"

#define JSON_MAX_DEPTH 64

struct parser {
	const char *p, *end;
	int depth;
	char *err;
	size_t errlen;
};

static void perr(struct parser *ps, const char *what)
{
	if (!*ps->err)
		snprintf(ps->err, ps->errlen, "%s", what);
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
		ps->p++;
}

static struct jv *node(enum jv_type t)
{
	struct jv *v = calloc(1, sizeof(*v));

	if (v)
		v->type = t;
	return v;
}

static struct jv *parse_value(struct parser *ps);

static char *parse_string(struct parser *ps)
{
	size_t cap = 16, n = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	ps->p++; /* the opening quote */
	while (ps->p < ps->end && *ps->p != '"') {
		char c = *ps->p++;

		if (c == '\\') {
			if (ps->p >= ps->end)
				break;
			c = *ps->p++;
			switch (c) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'r':
				c = '\r';
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case 'u': {
				unsigned int u = 0;

				if (ps->end - ps->p < 4 || sscanf(ps->p, "%4x", &u) != 1) {
					perr(ps, "bad \\u escape");
					free(s);
					return NULL;
				}
				ps->p += 4;
				c = u < 0x80 ? (char)u : '?'; /* our reports escape only ASCII */
				break;
			}
			default:
				break; /* \" \\ \/ stand for themselves */
			}
		}
		if (n + 2 > cap) {
			char *t = realloc(s, cap *= 2);

			if (!t) {
				free(s);
				return NULL;
			}
			s = t;
		}
		s[n++] = c;
	}
	if (ps->p >= ps->end) {
		perr(ps, "unterminated string");
		free(s);
		return NULL;
	}
	ps->p++;
	s[n] = '\0';
	return s;
}

static int add_item(struct jv *v, char *key, struct jv *item)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 8;
		struct jv **items = realloc(v->items, cap * sizeof(*items));
		char **keys = v->type == JV_OBJECT ? realloc(v->keys, cap * sizeof(*keys)) : NULL;

		if (items)
			v->items = items;
		if (keys)
			v->keys = keys;
		if (!items || (v->type == JV_OBJECT && !keys))
			return -ENOMEM;
		v->cap = cap;
	}
	if (v->type == JV_OBJECT)
		v->keys[v->n] = key;
	v->items[v->n++] = item;
	return 0;
}

static struct jv *parse_container(struct parser *ps, bool object)
{
	struct jv *v = node(object ? JV_OBJECT : JV_ARRAY);
	char close = object ? '}' : ']';

	if (!v || ++ps->depth > JSON_MAX_DEPTH) {
		perr(ps, v ? "nested too deep" : "out of memory");
		jv_free(v);
		return NULL;
	}
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		ps->depth--;
		return v;
	}
	for (;;) {
		char *key = NULL;
		struct jv *item;

		skip_ws(ps);
		if (object) {
			if (ps->p >= ps->end || *ps->p != '"') {
				perr(ps, "expected a key");
				break;
			}
			key = parse_string(ps);
			skip_ws(ps);
			if (!key || ps->p >= ps->end || *ps->p != ':') {
				perr(ps, "expected ':'");
				free(key);
				break;
			}
			ps->p++;
		}
		item = parse_value(ps);
		if (!item || add_item(v, key, item)) {
			free(key);
			jv_free(item);
			break;
		}
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			ps->depth--;
			return v;
		}
		perr(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
		break;
	}
	jv_free(v);
	return NULL;
}

static struct jv *parse_value(struct parser *ps)
{
	struct jv *v;

	skip_ws(ps);
	if (ps->p >= ps->end) {
		perr(ps, "unexpected end");
		return NULL;
	}
	switch (*ps->p) {
	case '{':
		return parse_container(ps, true);
	case '[':
		return parse_container(ps, false);
	case '"':
		v = node(JV_STRING);
		if (v && !(v->str = parse_string(ps))) {
			free(v);
			return NULL;
		}
		return v;
	case 't':
	case 'f':
	case 'n': {
		static const char *const words[] = {"true", "false", "null"};

		for (int i = 0; i < 3; i++) {
			size_t l = strlen(words[i]);

			if ((size_t)(ps->end - ps->p) >= l && !strncmp(ps->p, words[i], l)) {
				ps->p += l;
				v = node(i == 2 ? JV_NULL : JV_BOOL);
				if (v)
					v->num = i == 0;
				return v;
			}
		}
		perr(ps, "unknown word");
		return NULL;
	}
	default: {
		char buf[64], *e;
		size_t l = 0;

		while (ps->p + l < ps->end && l < sizeof(buf) - 1 &&
		       strchr("+-0123456789.eE", ps->p[l]))
			l++;
		memcpy(buf, ps->p, l);
		buf[l] = '\0';
		v = node(JV_NUMBER);
		if (!v)
			return NULL;
		v->num = strtod(buf, &e);
		/* integers exactly: counts and nanoseconds go beyond a double's 2^53 */
		v->u64 = buf[0] != '-' && !strpbrk(buf, ".eE") ? strtoull(buf, NULL, 10) : 0;
		if (!l || *e) {
			perr(ps, "bad number");
			free(v);
			return NULL;
		}
		ps->p += l;
		return v;
	}
	}
}

struct jv *jv_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct parser ps = {text, text + len, 0, err, errlen};
	struct jv *v;

	*err = '\0';
	v = parse_value(&ps);
	skip_ws(&ps);
	if (v && ps.p != ps.end) {
		perr(&ps, "text after the document");
		jv_free(v);
		v = NULL;
	}
	if (!v && *err) {
		size_t n = strlen(err);

		snprintf(err + n, errlen - n, " at byte %zu", (size_t)(ps.p - text));
	}
	return v;
}

void jv_free(struct jv *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		jv_free(v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	free(v);
}

const struct jv *jv_get(const struct jv *v, const char *key)
{
	if (!v || v->type != JV_OBJECT)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return v->items[i];
	return NULL;
}

uint64_t jv_u64(const struct jv *v)
{
	if (!v || v->type != JV_NUMBER)
		return 0;
	return v->u64 ? v->u64 : v->num > 0 ? (uint64_t)v->num : 0;
}

double jv_num(const struct jv *v)
{
	return v && v->type == JV_NUMBER ? v->num : 0;
}

const char *jv_str(const struct jv *v)
{
	return v && v->type == JV_STRING ? v->str : "";
}
