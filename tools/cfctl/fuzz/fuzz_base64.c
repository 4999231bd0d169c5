// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: base64.c.  Any input decodes without overrunning the
 * output (sized as saverest.c sizes it) or fails; what decodes encodes
 * back to a string that decodes to the same bytes; any bytes encode and
 * decode back unchanged.
 */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *dec = malloc(size / 4 * 3 + 3), *dec2;
	char *enc = malloc(b64_enc_len(size) + 1);
	long got, got2;

	if (!dec || !enc)
		abort();
	/* Text in: as a load line's data. */
	got = b64_decode((const char *)data, size, dec);
	FUZZ_ASSERT(got <= (long)(size / 4 * 3 + 3), "decoded %ld of %zu", got,
		    size);
	if (got > 0) {
		char *re = malloc(b64_enc_len((size_t)got) + 1);

		dec2 = malloc((size_t)got + 3);
		if (!re || !dec2)
			abort();
		b64_encode(dec, (size_t)got, re);
		got2 = b64_decode(re, strlen(re), dec2);
		FUZZ_ASSERT(got2 == got && !memcmp(dec, dec2, (size_t)got),
			    "re-encoding changed %ld bytes", got);
		free(re);
		free(dec2);
	}
	/* Bytes in: as a table. */
	b64_encode(data, size, enc);
	FUZZ_ASSERT(strlen(enc) == b64_enc_len(size), "length %zu for %zu",
		    strlen(enc), size);
	dec2 = malloc(size + 3);
	if (!dec2)
		abort();
	got = b64_decode(enc, strlen(enc), dec2);
	FUZZ_ASSERT(size == 0 || (got == (long)size && !memcmp(dec2, data, size)),
		    "round trip of %zu bytes gave %ld", size, got);
	free(dec2);
	free(dec);
	free(enc);
	return 0;
}
