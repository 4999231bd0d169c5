/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jhash for the filter core, in two parts.
 *
 * First, for userspace only, a twin of the kernel's jhash()
 * (include/linux/jhash.h), which is Bob Jenkins' lookup3 hashlittle() with
 * the kernel's initial value, and of its __jhash_mix() and __jhash_final().
 *
 * The module hashes keys with the kernel's own jhash(); the userspace build
 * of the filter core must produce the same bucket and fingerprint for the
 * same key and seed, bit for bit, or a table exported from the kernel would
 * not answer the same in a test.  tests/vectors/jhash.txt holds outputs the
 * kernel computed in the VM; test_jhash checks this file against them.
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

static inline uint32_t cf_get_unaligned_cpu32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t jhash(const void *key, uint32_t length,
			     uint32_t initval)
{
	const uint8_t *k = key;
	uint32_t a, b, c;

	a = JHASH_INITVAL + length + initval;
	b = a;
	c = a;

	while (length > 12) {
		a += cf_get_unaligned_cpu32(k);
		b += cf_get_unaligned_cpu32(k + 4);
		c += cf_get_unaligned_cpu32(k + 8);
		__jhash_mix(a, b, c);
		length -= 12;
		k += 12;
	}
	switch (length) {
	case 12:
		c += (uint32_t)k[11] << 24;
		__attribute__((__fallthrough__));
	case 11:
		c += (uint32_t)k[10] << 16;
		__attribute__((__fallthrough__));
	case 10:
		c += (uint32_t)k[9] << 8;
		__attribute__((__fallthrough__));
	case 9:
		c += k[8];
		__attribute__((__fallthrough__));
	case 8:
		b += (uint32_t)k[7] << 24;
		__attribute__((__fallthrough__));
	case 7:
		b += (uint32_t)k[6] << 16;
		__attribute__((__fallthrough__));
	case 6:
		b += (uint32_t)k[5] << 8;
		__attribute__((__fallthrough__));
	case 5:
		b += k[4];
		__attribute__((__fallthrough__));
	case 4:
		a += (uint32_t)k[3] << 24;
		__attribute__((__fallthrough__));
	case 3:
		a += (uint32_t)k[2] << 16;
		__attribute__((__fallthrough__));
	case 2:
		a += (uint32_t)k[1] << 8;
		__attribute__((__fallthrough__));
	case 1:
		a += k[0];
		__jhash_final(a, b, c);
		break;
	case 0:
		break;
	}
	return c;
}

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

#endif /* _NF_CUCKOO_CF_JHASH_H */
