// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Before any I/O every rank says whether it can go on, and when one cannot, rank 0 names every
 * failing host with its reason and every rank stops: fio's client mode quits silently on a
 * version mismatch (fio #620), and one host that cannot start must not leave the others
 * replaying alone or waiting forever.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "formats/trace.h"
#include "mpi/fleet.h"
#include "util/cli.h"

/* What must be equal on every rank for their results to add up and their bytes to agree. */
static void version_string(char *buf, size_t len)
{
	const char *test = getenv("IOREEL_TEST_VERSION"); /* test-only: a simulated mismatch */
	struct utsname u;
	const uint32_t one = 1;

	if (uname(&u))
		snprintf(u.machine, sizeof(u.machine), "?");
	snprintf(buf, len, "ioreel %s, MPI %d.%d, %s %s-endian, %zu-byte events",
		 test && *test ? test : IOREEL_VERSION, MPI_VERSION, MPI_SUBVERSION, u.machine,
		 *(const uint8_t *)&one ? "little" : "big", sizeof(struct io_event));
}

int fleet_gather_hosts(struct fleet *f)
{
	f->hosts = calloc((size_t)f->size, sizeof(*f->hosts));
	if (!f->hosts)
		return -ENOMEM;
	MPI_Allgather(f->host, FLEET_HOST_LEN, MPI_CHAR, f->hosts, FLEET_HOST_LEN, MPI_CHAR,
		      MPI_COMM_WORLD);
	f->one_host = true;
	for (int r = 1; r < f->size; r++)
		f->one_host &= !strcmp(f->hosts[r], f->hosts[0]);
	return 0;
}

bool fleet_check_versions(const struct fleet *f)
{
	enum { LEN = 160 };
	char mine[LEN] = "", *all = malloc((size_t)f->size * LEN);
	bool ok = true;

	if (!all) {
		fprintf(stderr, "ioreel-mpi: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, EXIT_RUNTIME);
	}
	version_string(mine, sizeof(mine));
	MPI_Allgather(mine, LEN, MPI_CHAR, all, LEN, MPI_CHAR, MPI_COMM_WORLD);
	for (int r = 1; r < f->size; r++) {
		if (!strcmp(all + (size_t)r * LEN, all))
			continue;
		if (!f->rank)
			fprintf(
			    stderr,
			    "ioreel-mpi %s: rank %d on %s runs %s, rank 0 on %s runs %s: install "
			    "the same ioreel-mpi (and Open MPI) on every host\n",
			    f->verb, r, f->hosts[r], all + (size_t)r * LEN, f->hosts[0], all);
		ok = false;
	}
	free(all);
	return ok;
}

bool fleet_agree(const struct fleet *f, const char *what, bool ok, const char *msg)
{
	int mine = ok, all = 0, failed = 0;
	char *msgs = NULL, buf[FLEET_MSG_LEN] = "";

	MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (all)
		return true;
	/* Only now, when every rank knows someone failed, do they all send their reasons. */
	if (!ok)
		snprintf(buf, sizeof(buf), "%s", msg && *msg ? msg : "failed (no message)");
	if (!f->rank)
		msgs = calloc((size_t)f->size, FLEET_MSG_LEN);
	MPI_Gather(buf, FLEET_MSG_LEN, MPI_CHAR, msgs, FLEET_MSG_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
	if (f->rank)
		return false;
	if (!msgs) {
		fprintf(stderr, "ioreel-mpi %s: %s failed on some rank (out of memory for why)\n",
			f->verb, what);
		return false;
	}
	/* One line per distinct reason, naming the ranks and hosts that gave it. */
	for (int r = 0; r < f->size; r++) {
		const char *m = msgs + (size_t)r * FLEET_MSG_LEN;
		char who[512] = "";
		size_t n = 0;

		if (!*m)
			continue;
		failed++;
		for (int k = 0; k < r; k++)
			if (!strcmp(msgs + (size_t)k * FLEET_MSG_LEN, m))
				goto seen;
		for (int k = r; k < f->size && n < sizeof(who) - 40; k++)
			if (!strcmp(msgs + (size_t)k * FLEET_MSG_LEN, m))
				n += (size_t)snprintf(who + n, sizeof(who) - n, "%srank %d on %s",
						      n ? ", " : "", k, f->hosts[k]);
		fprintf(stderr, "ioreel-mpi %s: %s: %s\n", f->verb, who, m);
	seen:;
	}
	fprintf(stderr, "ioreel-mpi %s: %d of %d ranks failed %s: stopped before any I/O\n",
		f->verb, failed, f->size, what);
	free(msgs);
	return false;
}
