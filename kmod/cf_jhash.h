/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace twin of the kernel's jhash() (include/linux/jhash.h), which is
 * Bob Jenkins' lookup3 hashlittle() with the kernel's initial value.
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

#endif /* _NF_CUCKOO_CF_JHASH_H */
