/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfctl: SHA-256 (FIPS 180-4), for the checksum that ends a save.
 */
#ifndef CFCTL_SHA256_H
#define CFCTL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES	32
#define SHA256_HEX	(2 * SHA256_BYTES + 1)

struct sha256 {
	uint32_t h[8];
	uint64_t len;		/* bytes hashed */
	uint8_t buf[64];
	size_t nbuf;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
/* The digest, in lower-case hex; s is spent. */
void sha256_hex(struct sha256 *s, char hex[SHA256_HEX]);

#endif /* CFCTL_SHA256_H */
