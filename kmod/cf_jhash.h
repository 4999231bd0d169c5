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

#ifndef __KERNEL__
/* The kernel's jhash(): the first of cf_jhash_pair()'s two results. */
static inline u32 jhash(const void *key, u32 length, u32 initval)
{
	u32 second;

	return cf_jhash_pair(key, length, initval, 0, &second);
}
#endif

#endif /* _NF_CUCKOO_CF_JHASH_H */
