/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfctl fuzz targets: what cfctl.c (not linked) provides to the rest of
 * cfctl, quietly, and helpers.  Each target includes this once.
 */
#ifndef CFCTL_FUZZ_UTIL_H
#define CFCTL_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct cfctl_opts opts;
const char *verb_name = "fuzz";
static const char *fuzz_file;

const char *cfctl_file(void)
{
	return fuzz_file;
}

const char *cfctl_output(void)
{
	return NULL;
}

void errmsg(const char *fmt, ...)
{
	(void)fmt;
}

void warnmsg(const char *fmt, ...)
{
	(void)fmt;
}

/* A property failed: say which, and crash for libFuzzer to keep it. */
#define FUZZ_ASSERT(c, ...)						\
do {									\
	if (!(c)) {							\
		fprintf(stderr, "fuzz_cfctl: %s:%d: %s: ", __FILE__,	\
			__LINE__, #c);					\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		abort();						\
	}								\
} while (0)

/* data as a NUL-terminated string (malloc'ed; embedded NULs cut it). */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

#endif /* CFCTL_FUZZ_UTIL_H */
