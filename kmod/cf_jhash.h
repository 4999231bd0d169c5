/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jhash for the filter core, in two parts.
 *
 * First, for userspace only, twins of the kernel's __jhash_mix(),
 * __jhash_final() and JHASH_INITVAL (include/linux/jhash.h), and at the
 * end jhash() itself: Bob Jenkins' lookup3 hashlittle() with the kernel's
 * initial value.
 *
 * The module builds its hash from the kernel's own rounds; the userspace
 * build of the filter core must produce the same bucket and fingerprint
 * for the same key and seed, bit for bit, or a table exported from the
 * kernel would not answer the same in a test.  tests/vectors/jhash.txt
 * holds outputs of the kernel's jhash() computed in the VM; test_jhash
 * checks this file's jhash(), and so the rounds and cf_jhash_pair(),
 * against them.
 *
 * Like the kernel's, the result depends on the CPU's byte order: words are
 * read in host order.
 */
#ifndef _NF_CUCKOO_CF_JHASH_H
#define _NF_CUCKOO_CF_JHASH_H

#ifndef __KERNEL__

#include <stdint.h>
#include <string.h>

#define JHASH_INITVAL		0xdeadbeef

static inline uint32_t cf_rol32(uint32_t word, unsigned int shift)
{
	return (word << (shift & 31)) | (word >> ((-shift) & 31));
}

#define __jhash_mix(a, b, c)				\
do {							\
	a -= c;  a ^= cf_rol32(c, 4);  c += b;		\
	b -= a;  b ^= cf_rol32(a, 6);  a += c;		\
	c -= b;  c ^= cf_rol32(b, 8);  b += a;		\
	a -= c;  a ^= cf_rol32(c, 16); c += b;		\
	b -= a;  b ^= cf_rol32(a, 19); a += c;		\
	c -= b;  c ^= cf_rol32(b, 4);  b += a;		\
} while (0)

#define __jhash_final(a, b, c)				\
do {							\
	c ^= b; c -= cf_rol32(b, 14);			\
	a ^= c; a -= cf_rol32(c, 11);			\
	b ^= a; b -= cf_rol32(a, 25);			\
	c ^= b; c -= cf_rol32(b, 16);			\
	a ^= c; a -= cf_rol32(c, 4);			\
	b ^= a; b -= cf_rol32(a, 14);			\
	c ^= b; c -= cf_rol32(b, 24);			\
} while (0)

#endif /* !__KERNEL__ */

/*
 * Second, for both builds: cf_jhash_pair(), lookup3's hashlittle2().  It
 * runs jhash's rounds once and returns two 32-bit hashes, c (the result)
 * and b (in *second), where hashing twice with jhash() cost twice as
 * much.  With initval2 = 0, c is jhash(key, length, initval) bit for bit,
 * which test_jhash checks against the kernel's recorded outputs; b is
 * checked against lookup3.c's own hashlittle2() test values.  Jenkins
 * notes that c is the better mixed of the two.
 *
 * The module builds it from the kernel's own __jhash_mix(),
 * __jhash_final() and JHASH_INITVAL, userspace from the twins above.  The
 * last whole words of the tail are read with one little-endian load each
 * where jhash() adds their four bytes one at a time: k[0] | k[1] << 8 |
 * k[2] << 16 | k[3] << 24 is that load on any host, so the sum is the
 * same.
 */
static __always_inline u32 cf_jhash_pair(const void *key, u32 length,
					 u32 initval, u32 initval2,
					 u32 *second)
{
	const u8 *k = key;
	u32 a, b, c;

	cf_count_hashes(1);
	a = JHASH_INITVAL + length + initval;
	b = a;
	c = a + initval2;
	while (length > 12) {
		a += cf_get_cpu32(k);
		b += cf_get_cpu32(k + 4);
		c += cf_get_cpu32(k + 8);
		__jhash_mix(a, b, c);
		length -= 12;
		k += 12;
	}
	switch (length) {
	case 12:
		c += cf_get_le32(k + 8);
		b += cf_get_le32(k + 4);
		a += cf_get_le32(k);
		break;
	case 11:
		c += (u32)k[10] << 16;
		fallthrough;
	case 10:
		c += (u32)k[9] << 8;
		fallthrough;
	case 9:
		c += k[8];
		fallthrough;
	case 8:
		b += cf_get_le32(k + 4);
		a += cf_get_le32(k);
		break;
	case 7:
		b += (u32)k[6] << 16;
		fallthrough;
	case 6:
		b += (u32)k[5] << 8;
		fallthrough;
	case 5:
		b += k[4];
		fallthrough;
	case 4:
		a += cf_get_le32(k);
		break;
	case 3:
		a += (u32)k[2] << 16;
		fallthrough;
	case 2:
		a += (u32)k[1] << 8;
		fallthrough;
	case 1:
		a += k[0];
		break;
	case 0:
		*second = b;
		return c;
	}
	__jhash_final(a, b, c);
	*second = b;
	return c;
}

/*
 * Key k's tail word: nbytes (1 to 4) bytes from p + k * stride, added as
 * jhash() adds them.
 */
static __always_inline void cf_jhash_add_word(const u8 *p, u32 stride,
					      u32 n, u32 *word,
					      unsigned int nbytes)
{
	u32 k;

	switch (nbytes) {
	case 4:
		for (k = 0; k < n; k++)
			word[k] += cf_get_le32(p + (u64)k * stride);
		break;
	case 3:
		for (k = 0; k < n; k++)
			word[k] += p[(u64)k * stride] |
				   (u32)p[(u64)k * stride + 1] << 8 |
				   (u32)p[(u64)k * stride + 2] << 16;
		break;
	case 2:
		for (k = 0; k < n; k++)
			word[k] += p[(u64)k * stride] |
				   (u32)p[(u64)k * stride + 1] << 8;
		break;
	default:
		for (k = 0; k < n; k++)
			word[k] += p[(u64)k * stride];
	}
}

/*
 * cf_jhash_pair_many(): cf_jhash_pair() of n keys of one length, stored
 * back to back: c[k] is key k's result and b[k] its second; a is scratch.
 * The loop over the keys is the inner one, so every loop runs the same
 * rounds on n independent keys.  Where n is a constant, a compiler can
 * spread them over SIMD lanes: gcc -O2 does in userspace (SSE2, four keys
 * per instruction); the kernel's build has no SIMD and runs plain loops.
 */
static __always_inline void cf_jhash_pair_many(const u8 *keys, u32 length,
					       u32 n, u32 initval,
					       u32 initval2, u32 *a, u32 *b,
					       u32 *c)
{
	u32 *word[3] = { a, b, c };
	u32 k, j, off, rest, x, y, z;
	const u8 *p;

	cf_count_hashes(n);
	for (k = 0; k < n; k++) {
		a[k] = JHASH_INITVAL + length + initval;
		b[k] = a[k];
		c[k] = a[k] + initval2;
	}
	for (off = 0; length - off > 12; off += 12) {
		for (k = 0; k < n; k++) {
			p = keys + (u64)k * length + off;
			x = a[k] + cf_get_cpu32(p);
			y = b[k] + cf_get_cpu32(p + 4);
			z = c[k] + cf_get_cpu32(p + 8);
			__jhash_mix(x, y, z);
			a[k] = x;
			b[k] = y;
			c[k] = z;
		}
	}
	rest = length - off;
	if (!rest)
		return;
	for (j = 0; j * 4 < rest; j++)
		cf_jhash_add_word(keys + off + j * 4, length, n, word[j],
				  rest - j * 4 < 4 ? rest - j * 4 : 4);
	for (k = 0; k < n; k++) {
		x = a[k];
		y = b[k];
		z = c[k];
		__jhash_final(x, y, z);
		b[k] = y;
		c[k] = z;
	}
}

#ifndef __KERNEL__
/* The kernel's jhash(): the first of cf_jhash_pair()'s two results. */
static inline u32 jhash(const void *key, u32 length, u32 initval)
{
	u32 second;

	return cf_jhash_pair(key, length, initval, 0, &second);
}
#endif

#endif /* _NF_CUCKOO_CF_JHASH_H */
