/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Force-included (-include) when kmod/cuckoo.c is compiled for the stress
 * build of test_concurrency: the real platform layer, except that every
 * shared-memory access also spins for a while, so that a reader's bucket
 * probes and a writer's moves overlap far more often than at full speed.
 * The spin counts are per thread (set by the test), so readers and the
 * writer can be slowed independently.  cuckoo.c itself is unchanged.
 */
#ifndef _CF_STRESS_SHIM_H
#define _CF_STRESS_SHIM_H

#include "cuckoo_platform.h"

extern __thread unsigned int cf_stress_read_spins;
extern __thread unsigned int cf_stress_write_spins;

static inline void cf_stress_spin(unsigned int n)
{
	volatile unsigned int i;

	for (i = 0; i < n; i++)
		;
}

#undef CF_READ
#undef CF_WRITE
#define CF_READ(x)							\
({									\
	cf_stress_spin(cf_stress_read_spins);				\
	__atomic_load_n(&(x), __ATOMIC_RELAXED);			\
})
#define CF_WRITE(x, v)							\
do {									\
	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED);			\
	cf_stress_spin(cf_stress_write_spins);				\
} while (0)

#endif /* _CF_STRESS_SHIM_H */
