/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the userspace tests of the filter core: a TAP 13
 * harness, a splitmix64 generator with a fixed, printed seed, keys derived
 * from an index, and a decoder of the packed table image.
 *
 * Keys: key(i) = mix64(stream + i * GAMMA).  mix64 is a bijection and GAMMA
 * is odd, so keys with distinct indexes are distinct: a test takes "present"
 * keys from one index range and "absent" keys from another, and the two can
 * never collide.
 */
#ifndef _CF_TEST_UTIL_H
#define _CF_TEST_UTIL_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuckoo.h"

#ifndef TEST_VARIANT
#define TEST_VARIANT	"O2"
#endif

#define GAMMA		0x9e3779b97f4a7c15ULL
#define SEED_DEFAULT	0x6e665f63756b6f6fULL	/* "nf_cukoo" */

/* Index ranges of the key stream: present keys below, absent keys above. */
#define ABSENT_BASE	(1ULL << 40)

static inline u64 mix64(u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct rng {
	u64 s;
};

static inline u64 rng_next(struct rng *r)
{
	r->s += GAMMA;
	return mix64(r->s);
}

/* Uniform in [0, n), n > 0. */
static inline u64 rng_below(struct rng *r, u64 n)
{
	return (u64)(((unsigned __int128)rng_next(r) * n) >> 64);
}

static inline u64 test_key(u64 stream, u64 i)
{
	return mix64(stream + i * GAMMA);
}

static inline double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * Table image decoding, as cuckoo.h documents it: slot j of bucket i is
 * the f-bit field at bit (i * b + j) * f of an array of host-order u64.
 */
static inline u32 img_get_fp(const u64 *w, u64 slot, unsigned int f)
{
	u64 bit = slot * f;
	u64 idx = bit / 64;
	unsigned int sh = bit % 64;
	u64 v = w[idx] >> sh;

	if (sh + f > 64)
		v |= w[idx + 1] << (64 - sh);
	return (u32)(v & ((1ULL << f) - 1));
}

static inline void img_set_fp(u64 *w, u64 slot, unsigned int f, u32 fp)
{
	u64 bit = slot * f;
	u64 idx = bit / 64;
	unsigned int sh = bit % 64;
	u64 mask = (1ULL << f) - 1;

	w[idx] = (w[idx] & ~(mask << sh)) | ((u64)fp << sh);
	if (sh + f > 64) {
		unsigned int lo = 64 - sh;

		w[idx + 1] = (w[idx + 1] & ~(mask >> lo)) | ((u64)fp >> lo);
	}
}

/* Non-zero fingerprints among the first nslots slots of a table image. */
static inline u64 img_count(const u64 *w, u64 nslots, unsigned int f)
{
	u64 i, n = 0;

	for (i = 0; i < nslots; i++)
		n += img_get_fp(w, i, f) != 0;
	return n;
}

/* ---- TAP harness ---- */

struct tap_case {
	const char *name;
	void (*fn)(void);
};

static int t_fails;
static char t_reason[512];

static void __attribute__((format(printf, 1, 2))) diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static bool __attribute__((format(printf, 3, 4)))
t_check(bool ok, int line, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	if (ok)
		return true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (t_fails < 10)
		printf("#   FAIL (line %d): %s\n", line, msg);
	if (!t_fails)
		snprintf(t_reason, sizeof(t_reason), "line %d: %s", line, msg);
	t_fails++;
	return false;
}

#define CHECK(c, ...)	t_check(!!(c), __LINE__, __VA_ARGS__)
/* Setup that must work for the rest of a test to mean anything. */
#define REQUIRE(c, ...)						\
do {								\
	if (!CHECK(c, __VA_ARGS__))				\
		goto out;					\
} while (0)

static int tap_run(const struct tap_case *cases, int n)
{
	int i, failed = 0;

	printf("TAP version 13\n1..%d\n", n);
	for (i = 0; i < n; i++) {
		double t0 = now_sec();

		t_fails = 0;
		t_reason[0] = 0;
		cases[i].fn();
		if (t_fails) {
			printf("not ok %d - %s: %s\n", i + 1, TEST_VARIANT,
			       cases[i].name);
			printf("# %s\n", t_reason);
			if (t_fails > 1)
				printf("# (%d failed checks in all)\n", t_fails);
			failed++;
		} else {
			printf("ok %d - %s: %s\n", i + 1, TEST_VARIANT,
			       cases[i].name);
		}
		printf("# time %.2f s\n", now_sec() - t0);
		fflush(stdout);
	}
	if (failed)
		printf("# %d of %d tests failed\n", failed, n);
	return failed ? 1 : 0;
}

#endif /* _CF_TEST_UTIL_H */
