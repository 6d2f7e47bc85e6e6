// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The fleet's command lines: its own options beside the shared code's, and one voice for errors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "mpi/verb.h"
#include "util/cli.h"

int fleet_take_opts(int argc, char **argv, const struct fleet_opt *table, char **rest, int *nrest,
		    void *ctx, int (*apply)(void *ctx, const char *name, const char *val))
{
	int n = 0;

	rest[n++] = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq, *val = NULL;
		const struct fleet_opt *o = NULL;
		char name[64];
		size_t len;
		int ret;

		if (!strcmp(a, "--")) {
			while (i < argc)
				rest[n++] = argv[i++];
			break;
		}
		if (strncmp(a, "--", 2)) {
			rest[n++] = argv[i];
			continue;
		}
		eq = strchr(a, '=');
		len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		for (const struct fleet_opt *t = table; t->name && len < sizeof(name); t++)
			if (strlen(t->name) == len && !strncmp(t->name, a + 2, len))
				o = t;
		if (!o) {
			rest[n++] = argv[i];
			continue;
		}
		snprintf(name, sizeof(name), "%s", o->name);
		if (o->arg) {
			val = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
			if (!val) {
				cli_error("--%s wants a value", name);
				return -EINVAL;
			}
		} else if (eq) {
			cli_error("--%s takes no value", name);
			return -EINVAL;
		}
		ret = apply(ctx, name, val);
		if (ret)
			return ret;
	}
	rest[n] = NULL;
	*nrest = n;
	return 0;
}

void capture_begin(struct capture *c)
{
	fflush(stderr);
	c->fd = memfd_create("ioreel-mpi-stderr", MFD_CLOEXEC);
	c->saved = c->fd >= 0 ? dup(STDERR_FILENO) : -1;
	if (c->saved < 0 || dup2(c->fd, STDERR_FILENO) < 0) {
		if (c->fd >= 0)
			close(c->fd);
		if (c->saved >= 0)
			close(c->saved);
		c->fd = c->saved = -1; /* no capture: messages go out as they are */
	}
}

void capture_end(struct capture *c, char *buf, size_t len)
{
	char raw[4096], prefix[64];
	ssize_t got;
	size_t n = 0, pl;

	if (buf && len)
		buf[0] = '\0';
	if (c->fd < 0)
		return;
	fflush(stderr);
	dup2(c->saved, STDERR_FILENO);
	close(c->saved);
	got = pread(c->fd, raw, sizeof(raw) - 1, 0);
	close(c->fd);
	if (got <= 0 || !buf)
		return;
	raw[got] = '\0';
	pl = (size_t)snprintf(prefix, sizeof(prefix), "ioreel %s: ", cli_verb);
	for (char *save = NULL, *l = strtok_r(raw, "\n", &save); l && n + 3 < len;
	     l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, prefix, pl))
			l += pl;
		/* the agreement names the rank and host itself */
		if (*cli_who && !strncmp(l, cli_who, strlen(cli_who)))
			l += strlen(cli_who);
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "; " : "", l);
	}
}
