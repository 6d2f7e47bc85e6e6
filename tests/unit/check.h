/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The one assertion unit tests use: report the failed condition with a message, keep going,
 * and let main return failures ? 1 : 0 (liburing's habit: one executable per behaviour). */
#ifndef IOREEL_TESTS_CHECK_H
#define IOREEL_TESTS_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                                  \
	do {                                                                              \
		if (!(cond)) {                                                            \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);   \
			fprintf(stderr, __VA_ARGS__);                                     \
			fputc('\n', stderr);                                              \
			failures++;                                                       \
		}                                                                         \
	} while (0)

#endif
