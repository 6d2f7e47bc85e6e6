// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The open flags a recorded call is replayed with: recorded as x86-64 values, opened here. */
#include <fcntl.h>
#include "replay/file/file_int.h"

/* x86-64 open flag values (as recorded) that differ elsewhere (arm64); the others agree. */
static const struct {
	uint32_t x86;
	int host;
} oflag_map[] = {
	{ 040000, O_DIRECT },
	{ 0100000, O_LARGEFILE },
	{ 0200000, O_DIRECTORY },
	{ 0400000, O_NOFOLLOW },
};

int fflags_host(uint32_t x86)
{
	uint32_t mapped = 0;
	int host = 0;

	for (size_t i = 0; i < sizeof(oflag_map) / sizeof(oflag_map[0]); i++)
		if (x86 & oflag_map[i].x86) {
			mapped |= oflag_map[i].x86;
			host |= oflag_map[i].host;
		}
	return host | (int)(x86 & ~mapped);
}

/* The flags a recorded open is replayed with on this machine. */
int file_open_flags(const struct run *r, uint32_t x86)
{
	int fl = fflags_host(x86) & ~(O_PATH | O_DIRECTORY | O_NOCTTY);

	return r->o->buffered ? fl & ~O_DIRECT : fl;
}
