// SPDX-License-Identifier: GPL-2.0
/*
 * cg_any: instructions of a packet's prefix lookup (px.h) under callgrind
 * (`make -C bench callgrind-any`):
 *
 *   valgrind --tool=callgrind --toggle-collect=cf_stages_contains_any \
 *	--toggle-collect=px_any_per_stage --callgrind-out-file=cg.out \
 *	./cg_any 3 24
 *   callgrind_annotate cg.out | grep "PROGRAM TOTALS"
 *
 *	cg_any STAGES P [LOOKUPS] [plain|semisort] [per-stage]
 *
 * A filter of 65536 prefix entries over P combinations, grown to STAGES
 * stages (f = 12 first, or f = 13 semi-sorted), looked up by LOOKUPS
 * packets (default 100000), half of them matching.  Instructions per
 * packet are the count collected inside the lookups (the keys' masking
 * is outside) divided by LOOKUPS.  "per-stage" looks up as the module did
 * before it hashed a group once for all stages: cf_contains_any() of each
 * stage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "px.h"

#define ITEMS	65536

int main(int argc, char **argv)
{
	u32 stages = argc > 2 ? atoi(argv[1]) : 0;
	u32 p = argc > 2 ? atoi(argv[2]) : 0;
	u64 lookups = argc > 3 ? strtoull(argv[3], NULL, 0) : 100000;
	bool ss = argc > 4 && !strcmp(argv[4], "semisort");
	bool per_stage = argc > 5 && !strcmp(argv[5], "per-stage");
	struct nf_cuckoo_flow_key k;
	struct cf_stages s;
	u64 i, hits = 0;

	if (stages < 1 || stages > 8 ||
	    px_fill(&s, ITEMS, p, stages, ss ? 13 : 12,
		    ss ? CF_ENC_SEMISORT : CF_ENC_PLAIN)) {
		fprintf(stderr, "usage: cg_any STAGES(1..8) P(1..%u) [LOOKUPS] [plain|semisort] [per-stage]\n",
			PX_MAX);
		return 2;
	}
	for (i = 0; i < lookups; i++) {
		px_packet(i & 1, (i >> 1) % ITEMS, &k);
		hits += px_lookup(&s, &k, p, per_stage);
	}
	printf("stages %u p %u lookups %llu hits %llu\n", s.n, p,
	       (unsigned long long)lookups, (unsigned long long)hits);
	cf_stages_free(&s);
	return 0;
}
