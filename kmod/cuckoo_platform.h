/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few primitives the cuckoo filter core needs from its environment.
 *
 * cuckoo.c makes no kernel calls of its own: it builds in the module and,
 * unchanged, in userspace for unit tests, sanitizers, fuzzers and
 * benchmarks.  Everything that differs between the two lives here.
 *
 * Shared memory that lockless readers see (the table words, the victim,
 * the sequence counter, the item count) is only ever touched through
 * CF_READ()/CF_WRITE(): READ_ONCE/WRITE_ONCE in the kernel, relaxed atomics
 * in userspace, so that ThreadSanitizer checks the same access pattern the
 * kernel runs.
 */
#ifndef _NF_CUCKOO_PLATFORM_H
#define _NF_CUCKOO_PLATFORM_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/compiler.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/prefetch.h>
#include <linux/bottom_half.h>
#include <linux/string.h>
#include <asm/barrier.h>
#include <asm/byteorder.h>
#include <asm/processor.h>
#include <linux/jhash.h>

#define CF_READ(x)		READ_ONCE(x)
#define CF_WRITE(x, v)		WRITE_ONCE(x, v)
/* Readers: order the sequence-counter reads around the table reads. */
#define cf_rmb()		smp_rmb()
/* The writer: order counter, slot and victim writes for those readers. */
#define cf_wmb()		smp_wmb()
#define cf_cpu_relax()		cpu_relax()
#define cf_prefetch(p)		prefetch(p)
#define cf_cpu_to_le64(x)	cpu_to_le64(x)
#define cf_le64_to_cpu(x)	le64_to_cpu(x)

/*
 * Packet-path readers run in softirq.  A writer that is in the middle of
 * moving fingerprints must not be interrupted by a reader on its own CPU,
 * or that reader would wait forever for the move to finish.
 */
#define cf_write_lock_bh()	local_bh_disable()
#define cf_write_unlock_bh()	local_bh_enable()

/*
 * Tables are charged to the caller's memory cgroup and may be large: a
 * failure is reported to the user as an error, not as a warning in the
 * kernel log.  Without
 * __GFP_RETRY_MAYFAIL a table over the cgroup's limit would get the caller
 * killed by the memcg OOM killer instead of failing with -ENOMEM.  A
 * table larger than the memory available would be tried for a long time,
 * evicting every cache of the machine, and fail all the same (or leave
 * nothing for anyone else): it is refused before it is tried.
 *
 * The size is what costs: kvzalloc() would take a table of up to 4 MB
 * from the page allocator, rounded up to a power of two (a 1.6 MB table
 * held 2 MB).  vmalloc's pages hold a table at its size.
 */
static inline void *cf_zalloc(size_t size)
{
	gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL;

	if (size >> PAGE_SHIFT >= si_mem_available())
		return NULL;
	if (size > PAGE_SIZE)
		return __vmalloc(size, gfp | __GFP_ZERO);
	return kzalloc(size, gfp);
}

static inline void cf_free_mem(void *p)
{
	kvfree(p);
}

#else /* userspace */

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#ifndef likely
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#endif
/* glibc's sys/cdefs.h defines __always_inline; elsewhere, a plain hint. */
#ifndef __always_inline
#define __always_inline		inline
#endif
#define CF_ATTR(a)		__attribute__((a))
#define ____cacheline_aligned	CF_ATTR(__aligned__(64))

#define CF_READ(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define CF_WRITE(x, v)		__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
/* Pair the writer's sequence-counter section with its readers. */
#define cf_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define cf_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define cf_prefetch(p)		__builtin_prefetch(p)
#define cf_write_lock_bh()	do { } while (0)
#define cf_write_unlock_bh()	do { } while (0)

static inline void cf_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define cf_cpu_to_le64(x)	((u64)(x))
#define cf_le64_to_cpu(x)	((u64)(x))
#else
#define cf_cpu_to_le64(x)	__builtin_bswap64(x)
#define cf_le64_to_cpu(x)	__builtin_bswap64(x)
#endif

/* struct cuckoo_filter has cache-line aligned members: honour them. */
static inline void *cf_zalloc(size_t size)
{
	size_t rounded = (size + 63) & ~(size_t)63;
	void *p;

	if (rounded < size)
		return NULL;
	p = aligned_alloc(64, rounded);
	if (p)
		memset(p, 0, rounded);
	return p;
}

static inline void cf_free_mem(void *p)
{
	free(p);
}

#include "cf_jhash.h"

#endif /* __KERNEL__ */

#endif /* _NF_CUCKOO_PLATFORM_H */
