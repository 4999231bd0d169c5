// SPDX-License-Identifier: GPL-2.0
/*
 * cg_add: a small driver to count the instructions of one cf_add() under
 * callgrind (`make -C bench callgrind-add`):
 *
 *   valgrind --tool=callgrind --toggle-collect=cf_add \
 *	--callgrind-out-file=cg.out ./cg_add semisort
 *   callgrind_annotate cg.out | grep "PROGRAM TOTALS"
 *
 * It fills a filter of capacity 262144 (b = 4) with 262144 distinct 64-bit
 * keys by cf_add(): f = 12 plain ("plain", the default) or f = 13
 * semi-sorted ("semisort").  Instructions per insert are the count
 * collected inside cf_add() (its callees included) divided by 262144.
 */
#include <stdio.h>
#include <string.h>

#include "cuckoo.h"
#include "mix64.h"

#define ITEMS	262144

int main(int argc, char **argv)
{
	struct cf_params p = { .capacity = ITEMS, .fp_bits = 12,
			       .bucket_size = 4, .seed = 0x0123456789abcdefULL };
	struct cuckoo_filter *cf;
	u64 i, k, fails = 0;

	if (argc > 1 && !strcmp(argv[1], "semisort")) {
		p.fp_bits = 13;
		p.encoding = CF_ENC_SEMISORT;
	} else if (argc > 1 && strcmp(argv[1], "plain")) {
		fprintf(stderr, "usage: cg_add [plain|semisort]\n");
		return 2;
	}
	if (cf_create(&cf, &p))
		return 1;
	for (i = 0; i < ITEMS; i++) {
		k = mix64(i);
		fails += cf_add(cf, &k, sizeof(k)) != 0;
	}
	/* The fill's outcome, to compare across builds: count and misses. */
	for (i = 0, k = 0; i < ITEMS; i++) {
		u64 key = mix64(i);

		k += cf_contains(cf, &key, sizeof(key));
	}
	printf("count %llu fails %llu found %llu\n",
	       (unsigned long long)cf_count(cf), (unsigned long long)fails,
	       (unsigned long long)k);
	cf_free(cf);
	return 0;
}
