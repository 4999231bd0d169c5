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

/* The n <= 32 bits at bit of an array of host-order u64. */
static inline u32 img_get_bits(const u64 *w, u64 bit, unsigned int n)
{
	u64 idx = bit / 64;
	unsigned int sh = bit % 64;
	u64 v = w[idx] >> sh;

	if (sh + n > 64)
		v |= w[idx + 1] << (64 - sh);
	return (u32)(v & ((1ULL << n) - 1));
}

static inline void img_set_bits(u64 *w, u64 bit, unsigned int n, u32 x)
{
	u64 idx = bit / 64;
	unsigned int sh = bit % 64;
	u64 mask = (1ULL << n) - 1;

	w[idx] = (w[idx] & ~(mask << sh)) | ((u64)x << sh);
	if (sh + n > 64) {
		unsigned int lo = 64 - sh;

		w[idx + 1] = (w[idx + 1] & ~(mask >> lo)) | ((u64)x >> lo);
	}
}

/*
 * Table image decoding, as cuckoo.h documents it: slot j of bucket i is
 * the f-bit field at bit (i * b + j) * f of an array of host-order u64.
 */
static inline u32 img_get_fp(const u64 *w, u64 slot, unsigned int f)
{
	return img_get_bits(w, slot * f, f);
}

static inline void img_set_fp(u64 *w, u64 slot, unsigned int f, u32 fp)
{
	img_set_bits(w, slot * f, f, fp);
}

/*
 * Semi-sorted buckets, as cuckoo.c documents them, computed here from the
 * definition rather than with the core's tables: bucket i at bit
 * i * (4f - 4), a 12-bit code of the sorted high nibbles n0 <= .. <= n3,
 *
 *	code = n0 + C(n1 + 1, 2) + C(n2 + 2, 3) + C(n3 + 3, 4),
 *
 * then the four low parts of f - 4 bits in the same order.
 */
#define SS_CODES	3876

static inline u32 binom(u32 n, u32 k)
{
	u64 r = 1;
	u32 i;

	if (k > n)
		return 0;
	for (i = 1; i <= k; i++)
		r = r * (n - k + i) / i;
	return (u32)r;
}

static inline u32 ss_code(const u32 *nib)
{
	return nib[0] + binom(nib[1] + 1, 2) + binom(nib[2] + 2, 3) +
	       binom(nib[3] + 3, 4);
}

/* The nibbles of each code, n0 | n1 << 4 | ..., by enumeration. */
static u16 ss_nibbles_of[SS_CODES];

static inline void ss_init(void)
{
	u32 n[4];

	if (ss_nibbles_of[SS_CODES - 1])
		return;
	for (n[3] = 0; n[3] < 16; n[3]++)
		for (n[2] = 0; n[2] <= n[3]; n[2]++)
			for (n[1] = 0; n[1] <= n[2]; n[1]++)
				for (n[0] = 0; n[0] <= n[1]; n[0]++)
					ss_nibbles_of[ss_code(n)] =
						(u16)(n[0] | n[1] << 4 |
						      n[2] << 8 | n[3] << 12);
}

/* Bucket i's four fingerprints; false if its code is out of range. */
static inline bool img_ss_bucket(const u64 *w, u64 i, unsigned int f,
				 u32 *fps)
{
	u64 bit = i * (4 * f - 4);
	u32 code = img_get_bits(w, bit, 12), j;

	ss_init();
	for (j = 0; j < 4; j++)
		fps[j] = ((u32)ss_nibbles_of[code < SS_CODES ? code : 0] >>
			  (4 * j) & 15) << (f - 4) |
			 img_get_bits(w, bit + 12 + j * (f - 4), f - 4);
	return code < SS_CODES;
}

static inline int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* Bucket i holds fps (any order), encoded canonically: sorted. */
static inline void img_ss_set_bucket(u64 *w, u64 i, unsigned int f,
				     const u32 *in)
{
	u64 bit = i * (4 * f - 4);
	u32 fps[4], nib[4], j;

	memcpy(fps, in, sizeof(fps));
	qsort(fps, 4, sizeof(fps[0]), cmp_u32);
	for (j = 0; j < 4; j++)
		nib[j] = fps[j] >> (f - 4);
	img_set_bits(w, bit, 12, ss_code(nib));
	for (j = 0; j < 4; j++)
		img_set_bits(w, bit + 12 + j * (f - 4), f - 4,
			     fps[j] & ((1U << (f - 4)) - 1));
}

/*
 * Non-zero fingerprints among the first nslots slots (b = 4 in
 * semi-sorted buckets) of a table image.
 */
static inline u64 img_count_enc(const u64 *w, u64 nslots, unsigned int f,
				 unsigned int enc)
{
	u64 i, n = 0;
	u32 fps[4], j;

	if (enc == CF_ENC_SEMISORT) {
		for (i = 0; i < nslots / 4; i++) {
			img_ss_bucket(w, i, f, fps);
			for (j = 0; j < 4; j++)
				n += fps[j] != 0;
		}
		return n;
	}
	for (i = 0; i < nslots; i++)
		n += img_get_fp(w, i, f) != 0;
	return n;
}

static inline u64 img_count(const u64 *w, u64 nslots, unsigned int f)
{
	return img_count_enc(w, nslots, f, CF_ENC_PLAIN);
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
