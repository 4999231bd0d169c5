/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few primitives the cuckoo filter core needs from its environment.
 *
 * cuckoo.c makes no kernel calls of its own: it builds in the module and,
 * unchanged, in userspace for unit tests, sanitizers, fuzzers and
 * benchmarks.  Everything that differs between the two lives here.
 *
 * Shared memory that lockless readers see (the table words, the victim,
 * the sequence counter, the item count) is touched through
 * CF_READ()/CF_WRITE(): READ_ONCE/WRITE_ONCE in the kernel, relaxed atomics
 * in userspace, so that ThreadSanitizer checks the same access pattern the
 * kernel runs.  The one exception is cf_read_bucket_le64(), see below.
 *
 * cf_get_cpu32(), cf_get_cpu64() and cf_get_le32() read a key's bytes at
 * any alignment, in the host's order and little-endian; the hashes need
 * them.
 *
 * CF_BYTE_BUCKETS: on a little-endian host, bit p of the table (64-bit
 * words, bit 0 the lowest) is bit p % 8 of byte p / 8, so a bucket whose
 * bits start on a byte can be read with one unaligned 8-byte load,
 * cf_read_bucket_le64(), where the word-wise read needs two and a shift.
 * That load may straddle two table words and is not an atomic access.
 * It does not need to be: the writer stores whole words whose other bits
 * it leaves as they were, so the bits of a slot that is not being written
 * read the same however the load is split, and a slot that is being
 * written may be seen either way (see cuckoo.h).  ThreadSanitizer cannot
 * be told that, so its build reads word-wise.
 */
#ifndef _NF_CUCKOO_PLATFORM_H
#define _NF_CUCKOO_PLATFORM_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/compiler.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/bottom_half.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/prefetch.h>
#include <asm/barrier.h>
#include <asm/byteorder.h>
#include <asm/processor.h>
#include "compat.h"	/* <linux/unaligned.h> */
#include <linux/jhash.h>

#define CF_READ(x)		READ_ONCE(x)
#define CF_WRITE(x, v)		WRITE_ONCE(x, v)
/* Readers: order the sequence-counter reads around the table reads. */
#define cf_rmb()		smp_rmb()
/* The writer: order counter, slot and victim writes for those readers. */
#define cf_wmb()		smp_wmb()
#define cf_cpu_relax()		cpu_relax()
#define cf_cpu_to_le64(x)	cpu_to_le64(x)
#define cf_le64_to_cpu(x)	le64_to_cpu(x)
#define cf_get_cpu32(p)		__get_unaligned_cpu32(p)
#define cf_get_cpu64(p)		__get_unaligned_cpu64(p)
#define cf_get_le32(p)		get_unaligned_le32(p)
#define cf_prefetch(p)		prefetch(p)
/* A count of stages that readers follow (cuckoo_stages.c): acquire ... */
#define CF_LOAD_ACQUIRE(x)	smp_load_acquire(&(x))
/* ... what the writer published with release, the stage made before. */
#define CF_STORE_RELEASE(x, v)	smp_store_release(&(x), v)

/*
 * The stages' pointers (cuckoo_stages.h) are RCU pointers: readers follow
 * them under rcu_read_lock() or the writer's lock, which lockdep and
 * sparse check; a flush frees the stages it drops after a grace period.
 */
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#define cf_writer_lock		struct mutex
#define cf_writer_held(l)		lockdep_is_held(l)
/* A reader's section may be bottom halves off: a BPF program's. */
#define cf_rcu_dereference_check(p, c)	\
	rcu_dereference_check(p, (c) || rcu_read_lock_bh_held())
#define cf_rcu_dereference_protected(p, c) rcu_dereference_protected(p, c)
#define cf_rcu_assign_pointer(p, v)	rcu_assign_pointer(p, v)
#define CF_RCU_INIT_POINTER(p, v)	RCU_INIT_POINTER(p, v)

#ifdef __LITTLE_ENDIAN
#define CF_BYTE_BUCKETS		1
/* A racy read by design (see above): tell KCSAN so. */
#define cf_read_bucket_le64(p)	data_race(get_unaligned_le64(p))
#endif

/*
 * Packet-path readers run in softirq.  A writer that is in the middle of
 * moving fingerprints must not be interrupted by a reader on its own CPU,
 * or that reader would wait forever for the move to finish.
 */
/* Out of line; and rarely run, for the compiler's layout. */
#define cf_noinline		noinline
#define cf_cold			__cold

/*
 * A function every packet runs (a lookup, a hook, a kfunc) that must not
 * straddle two pages: under QEMU's TCG, which the benchmarks run on, an
 * instruction across a page boundary, or a jump between the pages of one
 * function, is looked up afresh each time (about 140 ns a packet, seen
 * in the XDP benchmark).  Each such function starts on a multiple of
 * CF_PKT_TEXT_ALIGN and is no longer (scripts/check.sh checks): it never
 * crosses a page.  On hardware that costs the padding, no more.  The
 * functions go in sections .text.nfcf_pkt.N, N counting them in each
 * file, so that the assembler never pads between two of them (it would
 * jump over the padding, which objtool calls unreachable): the linker
 * does, between files.
 */
#define CF_PKT_TEXT_ALIGN	2048
#define cf_pkt_text	__attribute__((__aligned__(CF_PKT_TEXT_ALIGN), \
	__section__(".text.nfcf_pkt." __stringify(__COUNTER__))))

#define cf_write_lock_bh()	local_bh_disable()
#define cf_write_unlock_bh()	local_bh_enable()

/*
 * That holds only where local_bh_disable() also disables preemption.  On
 * PREEMPT_RT it does not: a writer can be preempted in the middle of a
 * move by a reader of higher priority on its CPU (a LOCAL_OUT hook runs
 * in process context), which would then spin on the odd counter for as
 * long as the writer is kept off the CPU.  The counter is the core's own,
 * shared with the userspace build, not the kernel's lock-associated
 * seqcount that would make such a reader wait on the writer's lock; until
 * it is, a PREEMPT_RT kernel is refused at build time rather than hung.
 */
#ifdef CONFIG_PREEMPT_RT
#error "nf_cuckoo does not support PREEMPT_RT kernels: its lockless readers could spin on a preempted writer"
#endif

/*
 * Loops over a whole table (cf_clear(), cf_import_finish()) yield between
 * chunks: a table of gigabytes takes seconds to walk, and a kernel
 * without full preemption would not run anything else on that CPU
 * meanwhile.  So does a writer that waits for readers (below).  They are
 * called in process context, under a mutex only.
 */
#define cf_resched()		cond_resched()

/*
 * Readers that keep losing the race against the writer's sections ask it
 * to hold off (cuckoo.h, Concurrency): they raise a count, then read the
 * sequence counter; the writer fences, then reads the count, before each
 * section.  Both need a full barrier between their store and their load,
 * or each could miss the other's.  A reader is pinned to its CPU while it
 * is counted, so that the writer never waits for one that is preempted;
 * the writer yields (cf_resched()) while it waits.
 */
struct cf_atomic {
	atomic_t v;
};

#define cf_reader_pin()		preempt_disable()
#define cf_reader_unpin()	preempt_enable()
/* The writer: order its last section's end before its read of the count. */
#define cf_mb()			smp_mb()

static inline int cf_atomic_read(const struct cf_atomic *a)
{
	return atomic_read(&a->v);
}

static inline void cf_atomic_inc_mb(struct cf_atomic *a)
{
	atomic_inc(&a->v);
	/* A reader: order its raising the count before its next try. */
	smp_mb__after_atomic();
}

static inline void cf_atomic_dec(struct cf_atomic *a)
{
	atomic_dec(&a->v);
}

/* A caller's bug the core survives: say so once. */
#define CF_WARN_ON_ONCE(c)	WARN_ON_ONCE(c)

/* Userspace tests count the hash passes; the module does not. */
#define cf_count_hashes(n)	do { } while (0)

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
#ifndef fallthrough
#define fallthrough		__attribute__((__fallthrough__))
#endif
#define CF_ATTR(a)		__attribute__((a))
#define ____cacheline_aligned	CF_ATTR(__aligned__(64))
#define cf_noinline		CF_ATTR(__noinline__)
#define cf_cold			CF_ATTR(__cold__)
#define cf_pkt_text

#define CF_READ(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define CF_WRITE(x, v)		__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define CF_LOAD_ACQUIRE(x)	__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define CF_STORE_RELEASE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

/*
 * RCU pointers (see the kernel's side): in userspace the caller keeps
 * readers out of a freed stage, and a pointer is published with release
 * and followed with acquire, which ThreadSanitizer checks.
 */
#ifndef __rcu
#define __rcu
#endif
#define cf_writer_lock		void
#define cf_writer_held(l)		((void)(l), 1)
#define cf_rcu_dereference_check(p, c)	__atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define cf_rcu_dereference_protected(p, c) CF_READ(p)
#define cf_rcu_assign_pointer(p, v)	__atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define CF_RCU_INIT_POINTER(p, v)	CF_WRITE(p, v)
#define cf_prefetch(p)		__builtin_prefetch(p)
/* Pair the writer's sequence-counter section with its readers. */
#define cf_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define cf_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define cf_write_lock_bh()	do { } while (0)
#define cf_write_unlock_bh()	do { } while (0)

/*
 * Nothing to yield to in userspace: count the calls instead (cuckoo.c
 * holds the counter), so that tests can check that the kernel's
 * whole-table loops yield as they go.
 */
extern unsigned long cf_resched_calls;
static inline void cf_resched(void)
{
	__atomic_fetch_add(&cf_resched_calls, 1, __ATOMIC_RELAXED);
}

#define CF_WARN_ON_ONCE(c)	__builtin_expect(!!(c), 0)

/*
 * Tests built with CF_COUNT_HASHES count the hash passes (cuckoo.c holds
 * the counter), so that they can check that a lookup of several stages
 * hashes each key once for all of them; every other build, the
 * benchmarks' among them, pays nothing.
 */
#ifdef CF_COUNT_HASHES
extern unsigned long cf_hash_calls;
#define cf_count_hashes(n)	\
	__atomic_fetch_add(&cf_hash_calls, (n), __ATOMIC_RELAXED)
#else
#define cf_count_hashes(n)	do { } while (0)
#endif

static inline void cf_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* The readers' request to the writer to hold off: see the kernel's. */
struct cf_atomic {
	int n;
};

static inline int cf_atomic_read(const struct cf_atomic *a)
{
	return __atomic_load_n(&a->n, __ATOMIC_RELAXED);
}

static inline void cf_atomic_inc_mb(struct cf_atomic *a)
{
	__atomic_fetch_add(&a->n, 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static inline void cf_atomic_dec(struct cf_atomic *a)
{
	__atomic_fetch_sub(&a->n, 1, __ATOMIC_RELAXED);
}

#define cf_mb()			__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define cf_reader_pin()		do { } while (0)
#define cf_reader_unpin()	do { } while (0)

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define cf_cpu_to_le64(x)	((u64)(x))
#define cf_le64_to_cpu(x)	((u64)(x))
#define cf_le32_to_cpu(x)	((u32)(x))
#define CF_HOST_LE		1
#else
#define cf_cpu_to_le64(x)	__builtin_bswap64(x)
#define cf_le64_to_cpu(x)	__builtin_bswap64(x)
#define cf_le32_to_cpu(x)	__builtin_bswap32(x)
#endif

static inline u32 cf_get_cpu32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline u32 cf_get_le32(const void *p)
{
	return cf_le32_to_cpu(cf_get_cpu32(p));
}

static inline u64 cf_get_cpu64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

#if defined(__SANITIZE_THREAD__)
#define CF_TSAN			1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CF_TSAN			1
#endif
#endif

#if defined(CF_HOST_LE) && !defined(CF_TSAN)
#define CF_BYTE_BUCKETS		1
static inline u64 cf_read_bucket_le64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}
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

#endif /* __KERNEL__ */

#include "cf_jhash.h"
#include "cf_whash.h"

#endif /* _NF_CUCKOO_PLATFORM_H */
