// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdlib.h>
#include <string.h>
#include "util/argv.h"

/* Appends s at *n, as far as it fits; *n counts what the whole line needs. */
static void put(char *buf, size_t len, size_t *n, const char *s)
{
	size_t l = strlen(s);

	if (*n + 1 < len) {
		size_t room = len - 1 - *n;

		memcpy(buf + *n, s, l < room ? l : room);
	}
	*n += l;
}

size_t argv_join_buf(char *buf, size_t len, const char *prog, int argc, char *const *argv)
{
	size_t n = 0;

	put(buf, len, &n, prog);
	for (int i = 0; i < argc; i++) {
		put(buf, len, &n, " ");
		put(buf, len, &n, argv[i]);
	}
	if (len)
		buf[n < len ? n : len - 1] = '\0';
	return n;
}

char *argv_join(const char *prog, int argc, char *const *argv)
{
	size_t need = argv_join_buf(NULL, 0, prog, argc, argv);
	char *s = malloc(need + 1);

	if (s)
		argv_join_buf(s, need + 1, prog, argc, argv);
	return s;
}
