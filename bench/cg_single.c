// SPDX-License-Identifier: GPL-2.0
/*
 * cg_single: a small driver to count the instructions of one cf_contains()
 * under callgrind (`make -C bench callgrind`):
 *
 *   valgrind --tool=callgrind --toggle-collect=cf_contains \
 *	--callgrind-out-file=cg.out ./cg_single 8
 *   callgrind_annotate cg.out | grep "PROGRAM TOTALS"
 *
 * It fills an f = 12, b = 4 filter with 65536 keys of LEN bytes (8: a
 * 64-bit integer; otherwise LEN bytes of counter-derived noise, e.g. 40 as
 * the module's struct nf_cuckoo_flow_key), then looks up LOOKUPS keys
 * (default 1000000), half of them present.  Instructions per lookup are
 * the count collected inside cf_contains() (its callees included) divided
 * by LOOKUPS.  A third argument "semisort" makes the filter f = 13
 * semi-sorted instead (what `fpr 0.1%` picks); "plain" keeps f = 12.  A
 * fourth, "batch", looks the keys up by cf_contains_batch() in batches
 * of 64 instead (count inside cf_contains_batch()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuckoo.h"
#include "mix64.h"

#define ITEMS	65536

static void make_key(u8 *out, u32 len, u64 set, u64 i)
{
	u64 c = (set << 40) | i, v;
	u32 o;

	for (o = 0; o < len; o += 8) {
		v = mix64(c ^ (u64)o << 48);
		memcpy(out + o, &v, len - o < 8 ? len - o : 8);
	}
}

int main(int argc, char **argv)
{
	u32 len = argc > 1 ? atoi(argv[1]) : 8;
	u64 lookups = argc > 2 ? strtoull(argv[2], NULL, 0) : 1000000;
	struct cf_params p = { .capacity = ITEMS, .fp_bits = 12,
			       .bucket_size = 4, .seed = 0x0123456789abcdefULL };
	struct cuckoo_filter *cf;
	u8 *q;
	u64 i, hits = 0;
	bool batch = argc > 4 && !strcmp(argv[4], "batch");

	if (argc > 3 && !strcmp(argv[3], "semisort")) {
		p.fp_bits = 13;
		p.encoding = CF_ENC_SEMISORT;
	}
	if (len < 1 || len > 256 || cf_create(&cf, &p)) {
		fprintf(stderr, "usage: cg_single [LEN 1..256] [LOOKUPS] [plain|semisort] [batch]\n");
		return 2;
	}
	q = malloc(2 * ITEMS * (size_t)len);
	if (!q)
		return 1;
	for (i = 0; i < ITEMS; i++) {
		make_key(q + 2 * i * len, len, 0, i);		/* present */
		make_key(q + (2 * i + 1) * len, len, 1, i);	/* absent */
		cf_add(cf, q + 2 * i * len, len);
	}
	if (batch) {
		/* 2 * ITEMS is a multiple of 64: no batch wraps. */
		for (i = 0; i + 64 <= lookups; i += 64)
			hits += cf_contains_batch(cf, q + (i % (2 * ITEMS)) * len,
						  len, 64, NULL);
	} else {
		for (i = 0; i < lookups; i++)
			hits += cf_contains(cf, q + (i % (2 * ITEMS)) * len,
					    len);
	}
	printf("len %u lookups %llu hits %llu\n", len,
	       (unsigned long long)lookups, (unsigned long long)hits);
	cf_free(cf);
	free(q);
	return 0;
}
