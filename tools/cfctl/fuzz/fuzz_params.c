// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: filter parameters (parse.c), as `create`, `set` and a
 * restore's create line give them.  Byte 0: bit 0 `set` rather than
 * `create`, bit 1 the restore-only `image` word allowed; the rest is the
 * words.  Checked: no memory error, no leak of the image; a key that
 * parses formats back to the same key; every word parser on every word.
 */
#include "fuzz_util.h"

#define MAX_WORDS	64

static void words(char *s)
{
	uint64_t u64;
	uint32_t u32, mask, f2;
	int32_t s32;
	uint16_t port;
	uint8_t u8;
	bool b;
	char err[ERRLEN], buf[128];

	parse_u64(s, &u64);
	parse_u32(s, &u32);
	parse_s32(s, &s32);
	parse_capacity(s, &u64);
	parse_fpr(s, &u32);
	parse_port(s, &port);
	if (!parse_proto(s, &u8)) {
		proto_has_ports(u8);
		proto_name(u8);
	}
	if (!parse_family(s, &u8))
		family_name(u8);
	if (!parse_key_fields(s, &u32, err, sizeof(err))) {
		FUZZ_ASSERT(format_key_fields(u32, buf, sizeof(buf)) >= 0,
			    "format_key_fields(%#x)", u32);
		FUZZ_ASSERT(!parse_key_fields(buf, &f2, err, sizeof(err)) &&
			    f2 == u32, "key '%s' -> %#x -> '%s'", s, u32, buf);
	}
	if (!parse_hook(s, &u8))
		hook_name(u8);
	parse_priority(s, &s32);
	parse_mark(s, &u32, &mask);
	parse_onoff(s, &b);
	check_name(s, err, sizeof(err));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct filter_spec fs;
	char *w[MAX_WORDS + 1], *s;
	char err[ERRLEN];
	int n, i;

	if (!size)
		return 0;
	s = fuzz_str(data + 1, size - 1);
	n = split_words(s, w, MAX_WORDS);
	if (n > 0) {
		memset(&fs, 0, sizeof(fs));
		parse_filter_spec(w, n, &fs, data[0] & 1, data[0] & 2, err,
				  sizeof(err));
		filter_spec_free(&fs);
		for (i = 0; i < n; i++)
			words(w[i]);
	}
	free(s);
	return 0;
}
