// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Names of file-level ops, interfaces and flags (formats/file.h). */
#include <stdio.h>
#include "formats/file.h"

static const char *const fop_names[IO_FOP__COUNT] = {
    [IO_FOP_READ] = "read",
    [IO_FOP_WRITE] = "write",
    [IO_FOP_FSYNC] = "fsync",
    [IO_FOP_FDATASYNC] = "fdatasync",
    [IO_FOP_SYNC_RANGE] = "sync_file_range",
    [IO_FOP_OPEN] = "open",
    [IO_FOP_CLOSE] = "close",
    [IO_FOP_DUP] = "dup",
    [IO_FOP_SETFL] = "setfl",
    [IO_FOP_FALLOCATE] = "fallocate",
    [IO_FOP_TRUNCATE] = "truncate",
    [IO_FOP_RENAME] = "rename",
    [IO_FOP_UNLINK] = "unlink",
    [IO_FOP_MMAP] = "mmap",
    [IO_FOP_SYNCFS] = "syncfs",
    [IO_FOP_FORK] = "fork",
    [IO_FOP_EXIT] = "exit",
    [IO_FOP_STAT] = "stat",
    [IO_FOP_MKDIR] = "mkdir",
    [IO_FOP_RMDIR] = "rmdir",
};

static const char *const iface_names[IO_FIF__COUNT] = {"syscall", "aio", "uring", "start"};

static const char *const fflag_names[] = {"fpos", "vector", "fixed", "len_guess"};

/* Open flags in the encoding the trace uses (asm-generic/fcntl.h, as on x86-64). */
static const struct {
	uint32_t bit;
	const char *name;
} oflag_names[] = {
    {01, "O_WRONLY"},		{02, "O_RDWR"},		 {0100, "O_CREAT"},
    {0200, "O_EXCL"},		{0400, "O_NOCTTY"},	 {01000, "O_TRUNC"},
    {02000, "O_APPEND"},	{04000, "O_NONBLOCK"},	 {010000, "O_DSYNC"},
    {020000, "FASYNC"},		{040000, "O_DIRECT"},	 {0100000, "O_LARGEFILE"},
    {0200000, "O_DIRECTORY"},	{0400000, "O_NOFOLLOW"}, {01000000, "O_NOATIME"},
    {02000000, "O_CLOEXEC"},	{04000000, "__O_SYNC"},	 {010000000, "O_PATH"},
    {020000000, "__O_TMPFILE"},
};

const char *io_fop_name(unsigned int op)
{
	return op < IO_FOP__COUNT ? fop_names[op] : "?";
}

const char *io_fiface_name(unsigned int iface)
{
	return iface < IO_FIF__COUNT ? iface_names[iface] : "?";
}

static void append(char *buf, size_t len, size_t *n, const char *s)
{
	int w;

	if (*n >= len)
		return;
	w = snprintf(buf + *n, len - *n, "%s%s", *n ? "|" : "", s);
	if (w > 0)
		*n += (size_t)w;
}

char *io_fflags_format(unsigned int flags, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < sizeof(fflag_names) / sizeof(fflag_names[0]); i++)
		if (flags & (1u << i))
			append(buf, len, &n, fflag_names[i]);
	return buf;
}

char *io_oflags_format(uint32_t oflags, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (!(oflags & 03))
		append(buf, len, &n, "O_RDONLY");
	for (size_t i = 0; i < sizeof(oflag_names) / sizeof(oflag_names[0]); i++)
		if (oflags & oflag_names[i].bit)
			append(buf, len, &n, oflag_names[i].name);
	return buf;
}
