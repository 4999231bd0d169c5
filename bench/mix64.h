/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Keys for the benchmarks: a bijection on 64-bit integers (splitmix64's
 * step and finaliser), so that distinct counters give distinct keys and
 * present and absent sets never overlap.
 */
#ifndef _NF_CUCKOO_BENCH_MIX64_H
#define _NF_CUCKOO_BENCH_MIX64_H

#include "cuckoo.h"

static inline u64 mix64(u64 z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#endif /* _NF_CUCKOO_BENCH_MIX64_H */
