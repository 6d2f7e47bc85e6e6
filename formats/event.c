// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "formats/event.h"

static const char *const op_names[IO_OP__COUNT] = {
	[IO_OP_READ] = "read",	       [IO_OP_WRITE] = "write",
	[IO_OP_FLUSH] = "flush",       [IO_OP_DISCARD] = "discard",
	[IO_OP_WRITE_ZEROES] = "write-zeroes",
};

static const char *const flag_names[] = { "sync",	   "fua",	"preflush",
					  "meta",	   "readahead", "kthread" };

const char *io_op_name(unsigned int op)
{
	return op < IO_OP__COUNT ? op_names[op] : "?";
}

int io_op_parse(const char *name)
{
	for (unsigned int i = 0; i < IO_OP__COUNT; i++)
		if (!strcmp(name, op_names[i]))
			return (int)i;
	if (!strcmp(name, "trim"))
		return IO_OP_DISCARD;
	return -EINVAL;
}

char *io_flags_format(unsigned int flags, char *buf, unsigned long len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++) {
		if (!(flags & (1u << i)))
			continue;
		int w = snprintf(buf + n, len - n, "%s%s", n ? "|" : "", flag_names[i]);
		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
	}
	return buf;
}

int io_flags_parse(const char *s, unsigned int *flags)
{
	*flags = 0;
	while (*s) {
		size_t n = strcspn(s, "|");
		unsigned int i;

		for (i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
			if (strlen(flag_names[i]) == n && !strncmp(s, flag_names[i], n))
				break;
		if (i == sizeof(flag_names) / sizeof(flag_names[0]))
			return -EINVAL;
		*flags |= 1u << i;
		s += n;
		if (*s == '|')
			s++;
	}
	return 0;
}
