/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A command line as one string, for the trace's options and the fleet's report. */
#ifndef IOREEL_UTIL_ARGV_H
#define IOREEL_UTIL_ARGV_H

#include <stddef.h>

/*
 * Writes prog and the argc words of argv into buf, separated by single spaces ("ioreel record
 * -o x"), truncated to fit len (always terminated when len > 0). Returns the length the whole
 * line needs, without its NUL, as snprintf does.
 */
size_t argv_join_buf(char *buf, size_t len, const char *prog, int argc, char *const *argv);
/* The same line, allocated (free() it); NULL when out of memory. */
char *argv_join(const char *prog, int argc, char *const *argv);

#endif
