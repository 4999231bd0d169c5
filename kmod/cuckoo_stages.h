/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cuckoo filter that grows: one or more cuckoo filters ("stages")
 * sharing a seed, so that a key is hashed once for all of them.
 *
 * The filter's authors schedule an expansion when the table is too full
 * (";login:", August 2013); RedisBloom chains sub-filters of the same
 * fingerprint, so its false-positive rate rises with each.  Here stage
 * k + 1 holds factor times the items of stage k with a fingerprint one bit
 * longer: the stages' bounds 2b / 2^f halve, and the filter's bound, their
 * sum, stays under twice the first stage's however many stages it grows.
 *
 * Adds go to the newest stage.  Lookups ask every stage.  A delete must
 * find the one stage that holds the key's own copy: stages hash
 * differently, so a key that a stage answers yes for because of another
 * key's fingerprint is not that key there, and removing that fingerprint
 * would make the other key test absent.  The one stage that answers yes
 * holds the copy; if several do, nothing is removed (-ENOTUNIQ): see
 * cf_stages_delete().
 *
 * This layer makes no allocation and takes no lock: the caller serialises
 * writers with the lock it names in cf_stages_init(), makes each new stage
 * when cf_stages_add() asks for one (cf_create(), charged to whatever
 * ceiling it keeps), and frees the stages cf_stages_flush() hands back
 * once no reader can see them (after an RCU grace period in the module).
 * Readers need no lock but rcu_read_lock(): a stage is published (its
 * pointer with rcu_assign_pointer(), then the count with a release store)
 * only once it is ready, and a reader reads the count with an acquire
 * load, so it never sees a stage half made and never misses an entry
 * present before the stage was added.  A reader that read the count
 * before a flush may find a stage's pointer NULL (or a new stage there):
 * it skips it.  The pointers are __rcu, so a reader outside RCU or the
 * writer's lock is a sparse and lockdep error, not a review's.
 */
#ifndef _NF_CUCKOO_STAGES_H
#define _NF_CUCKOO_STAGES_H

#include "cuckoo_read.h"

#define CF_STAGES_MAX		16
#define CF_STAGES_DEFAULT	8
#define CF_GROW_FACTOR_MIN	2
#define CF_GROW_FACTOR_MAX	8
#define CF_GROW_FACTOR_DEFAULT	2
/* A stage refusing adds below this load is not full (cf_stages_add()). */
#define CF_GROW_MIN_LOAD_PPM	500000U

/**
 * struct cf_grow - how a filter grows
 * @grow:	add a stage when the newest is full
 * @factor:	a new stage's capacity over the previous one's,
 *		CF_GROW_FACTOR_MIN..CF_GROW_FACTOR_MAX
 * @max_stages:	1..CF_STAGES_MAX
 */
struct cf_grow {
	bool grow;
	u8 factor;
	u8 max_stages;
};

/**
 * struct cf_stages - a filter of one or more stages
 * @stage:	the stages, oldest first; [0] set at cf_stages_init() and
 *		never replaced, the others published as the filter grows
 *		and cleared by a flush (cf_stages_get(), cf_stages_at())
 * @n:		stages readers may use (CF_LOAD_ACQUIRE())
 * @g:		how it grows (the writer's; @g.grow is read by others with
 *		READ_ONCE)
 * @scratch:	what the writer lends the stages for the kick search
 *		(stages of lent_scratch), or NULL between writes
 * @lock:	the writer's lock, for lockdep (unused in userspace)
 */
struct cf_stages {
	struct cuckoo_filter __rcu *stage[CF_STAGES_MAX];
	u32 n;
	struct cf_grow g;
	void *scratch;
	cf_writer_lock *lock;
};

/*
 * Stage @i for a reader: under RCU (rcu_read_lock(), or bottom halves
 * off) or the writer's lock.
 * NULL for an index below a count read before a flush.
 */
static inline const struct cuckoo_filter *
cf_stages_get(const struct cf_stages *s, u32 i)
{
	return cf_rcu_dereference_check(s->stage[i], cf_writer_held(s->lock));
}

/* Stage @i < n for the writer, under its lock. */
static inline struct cuckoo_filter *cf_stages_at(const struct cf_stages *s,
						  u32 i)
{
	return cf_rcu_dereference_protected(s->stage[i],
					    cf_writer_held(s->lock));
}

/* The first stage, which lives as long as the filter: any context. */
static inline const struct cuckoo_filter *
cf_stages_first(const struct cf_stages *s)
{
	return cf_rcu_dereference_protected(s->stage[0], 1);
}

const char *cf_grow_error(const struct cf_grow *g);
void cf_stages_init(struct cf_stages *s, struct cuckoo_filter *first,
		    const struct cf_grow *g, cf_writer_lock *lock);
void cf_stages_free(struct cf_stages *s);

/* Readers: any number, lockless, as cf_contains(). */
bool cf_stages_lookup(const struct cf_stages *s, u32 n, const void *key,
		      u32 len);

/**
 * cf_stages_contains - is a key (maybe) in any stage?
 * @s:		the filter
 * @key:	the key
 * @len:	its bytes
 *
 * One stage, the common case, is cf_contains_inline(): the packet path
 * asks it for every packet.
 */
static __always_inline bool cf_stages_contains(const struct cf_stages *s,
					       const void *key, u32 len)
{
	u32 n = CF_LOAD_ACQUIRE(s->n);

	if (likely(n == 1))
		return cf_contains_inline(cf_stages_get(s, 0), key, len);
	return cf_stages_lookup(s, n, key, len);
}
bool cf_stages_contains_any(const struct cf_stages *s, const void *keys,
			    u32 len, u32 n);
#ifndef __KERNEL__
u32 cf_stages_contains_batch(const struct cf_stages *s, const void *keys,
			     u32 key_len, u32 n, u8 *hits);
#endif
u32 cf_stages_count_stages(const struct cf_stages *s);

/*
 * The writer, under the caller's lock.  A new stage is made by the
 * caller's function, which returns 0 and the stage, or an error (a
 * ceiling: -EDQUOT; -ENOMEM).
 */
typedef int (*cf_stage_alloc_t)(void *ctx, const struct cf_params *p,
				struct cuckoo_filter **out);
int cf_stages_add(struct cf_stages *s, const void *key, u32 len, bool unique,
		  cf_stage_alloc_t alloc, void *ctx, u32 *stage);
/* Stages of lent_scratch: the writer's loan for a spell of writes. */
u64 cf_stages_scratch_bytes(const struct cf_stages *s);
void cf_stages_lend_scratch(struct cf_stages *s, void *scratch);
int cf_stages_next_params(const struct cf_stages *s, struct cf_params *p);
int cf_stages_delete(struct cf_stages *s, const void *key, u32 len,
		     u32 *stage);
int cf_stages_add_at(struct cf_stages *s, u32 stage, const void *key, u32 len);
int cf_stages_delete_at(struct cf_stages *s, u32 stage, const void *key,
			u32 len);
u32 cf_stages_flush(struct cf_stages *s,
		    struct cuckoo_filter *gone[CF_STAGES_MAX - 1]);

/* Save and restore: the stages' tables back to back, oldest first. */
u64 cf_stages_table_bytes(const struct cf_stages *s);
int cf_stages_export(const struct cf_stages *s, u64 off, void *buf, u64 len);
int cf_stages_import(struct cf_stages *s, u64 off, const void *buf, u64 len);
int cf_stages_import_finish(struct cf_stages *s);
int cf_stages_add_image(struct cf_stages *s, const struct cf_image *img);

/* Reporting. */
void cf_stages_stats(const struct cf_stages *s, struct cf_stats *st);
u32 cf_fpr_bound_ppb(unsigned int fp_bits, unsigned int bucket_size);
u32 cf_stages_fpr_ppb(const struct cf_stages *s);

#endif /* _NF_CUCKOO_STAGES_H */
