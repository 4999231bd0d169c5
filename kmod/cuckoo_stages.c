// SPDX-License-Identifier: GPL-2.0
/*
 * A cuckoo filter that grows in stages: see cuckoo_stages.h.  Plain C on
 * cuckoo.c, with no kernel calls of its own, as cuckoo.c.
 */
#include "cuckoo_stages.h"

/* Why a growth setting is refused, or NULL. */
const char *cf_grow_error(const struct cf_grow *g)
{
	if (g->factor < CF_GROW_FACTOR_MIN || g->factor > CF_GROW_FACTOR_MAX)
		return "the growth factor must be 2 to 8";
	if (g->max_stages < 1 || g->max_stages > CF_STAGES_MAX)
		return "the number of stages must be 1 to 16";
	return NULL;
}

/*
 * @first becomes stage 0; @s owns it from now on.  @lock is the one the
 * caller serialises writers with (NULL in userspace).
 */
void cf_stages_init(struct cf_stages *s, struct cuckoo_filter *first,
		    const struct cf_grow *g, cf_writer_lock *lock)
{
	*s = (struct cf_stages){ .n = 1, .g = *g, .lock = lock };
	CF_RCU_INIT_POINTER(s->stage[0], first);
}

/*
 * What a loan to every stage takes: the largest kick search of the stages
 * that borrow (a stage made during the loan borrows its newest's size).
 */
u64 cf_stages_scratch_bytes(const struct cf_stages *s)
{
	struct cf_params p;
	u64 bytes = 0;
	u32 i;

	for (i = 0; i < s->n; i++) {
		cf_get_params(cf_stages_at(s, i), &p);
		if (p.lent_scratch && cf_scratch_bytes(p.max_kicks) > bytes)
			bytes = cf_scratch_bytes(p.max_kicks);
	}
	return bytes;
}

/* Lend every stage, and those made meanwhile, @scratch; NULL takes it back. */
void cf_stages_lend_scratch(struct cf_stages *s, void *scratch)
{
	u32 i;

	s->scratch = scratch;
	for (i = 0; i < s->n; i++)
		cf_lend_scratch(cf_stages_at(s, i), scratch);
}

/* Once no reader can see the filter. */
void cf_stages_free(struct cf_stages *s)
{
	u32 i;

	for (i = 0; i < CF_STAGES_MAX; i++) {
		cf_free(cf_rcu_dereference_protected(s->stage[i], 1));
		CF_RCU_INIT_POINTER(s->stage[i], NULL);
	}
	s->n = 0;
}

u32 cf_stages_count_stages(const struct cf_stages *s)
{
	return CF_LOAD_ACQUIRE(s->n);
}

/*
 * Several stages: the key hashed once, the buckets of every stage asked
 * for before any is compared, then each stage looked up, no branch on a
 * stage's answer.  A stage a flush took since @n was read is skipped.
 */
cf_noinline bool cf_stages_lookup(const struct cf_stages *s, u32 n,
				  const void *key, u32 len)
{
	const struct cuckoo_filter *cf[CF_STAGES_MAX];
	struct cf_key_hash kh;
	bool hit = false;
	u32 i, m = 0;

	cf_key_hash(cf_stages_first(s), key, len, &kh);
	for (i = 0; i < n; i++) {
		cf[m] = cf_stages_get(s, i);
		if (likely(cf[m]))
			cf_prefetch_hash(cf[m++], &kh);
	}
	for (i = 0; i < m; i++)
		hit |= cf_contains_hash(cf[i], &kh);
	return hit;
}

/*
 * Several stages: the group's keys hashed once, then each stage asked for
 * all of them, no branch on a stage's answer.
 */
static cf_noinline bool cf_stages_lookup_any(const struct cf_stages *s,
					     u32 stages, const void *keys,
					     u32 len, u32 n)
{
	struct cf_key_hash kh[CF_ANY_MAX];
	const struct cuckoo_filter *cf;
	const u8 *p = keys;
	bool hit = false;
	u32 i, k;

	if (n > CF_ANY_MAX)
		n = CF_ANY_MAX;
	for (k = 0; k < n; k++)
		cf_key_hash(cf_stages_first(s), p + (u64)k * len, len, &kh[k]);
	for (i = 0; i < stages; i++) {
		cf = cf_stages_get(s, i);
		if (likely(cf))
			hit |= cf_contains_any_hash(cf, kh, n);
	}
	return hit;
}

/*
 * cf_contains_any() of every stage: see cuckoo.h.  One stage, the common
 * case, costs what cf_contains_any() does.
 */
bool cf_stages_contains_any(const struct cf_stages *s, const void *keys,
			    u32 len, u32 n)
{
	u32 stages = CF_LOAD_ACQUIRE(s->n);

	if (likely(stages == 1))
		return cf_contains_any(cf_stages_get(s, 0), keys, len, n);
	return cf_stages_lookup_any(s, stages, keys, len, n);
}

#ifndef __KERNEL__
/*
 * cf_contains_batch() of every stage: each group of keys hashed once,
 * then looked up in each stage.
 */
u32 cf_stages_contains_batch(const struct cf_stages *s, const void *keys,
			     u32 key_len, u32 n, u8 *hits)
{
	u32 i, j, k, m, count = 0, stages = CF_LOAD_ACQUIRE(s->n);
	const struct cuckoo_filter *cf;
	struct cf_key_hash kh[64];
	u8 any[64], one[64];

	if (stages == 1)
		return cf_contains_batch(cf_stages_get(s, 0), keys, key_len, n,
					 hits);
	for (j = 0; j < n; j += m) {
		const u8 *at = (const u8 *)keys + (u64)j * key_len;

		m = n - j < 64 ? n - j : 64;
		for (k = 0; k < m; k++)
			cf_key_hash(cf_stages_first(s), at + (u64)k * key_len,
				    key_len, &kh[k]);
		memset(any, 0, m);
		for (i = 0; i < stages; i++) {
			cf = cf_stages_get(s, i);
			if (!cf)
				continue;
			cf_contains_batch_hash(cf, kh, m, one);
			for (k = 0; k < m; k++)
				any[k] |= one[k];
		}
		for (k = 0; k < m; k++) {
			count += any[k];
			if (hits)
				hits[j + k] = any[k];
		}
	}
	return count;
}
#endif

static bool cf_stages_has(const struct cf_stages *s,
			  const struct cf_key_hash *kh)
{
	u32 i;

	for (i = 0; i < s->n; i++)
		if (cf_has_hash(cf_stages_at(s, i), kh))
			return true;
	return false;
}

/* Is the newest stage at the capacity it was made for, and may it grow? */
static bool cf_stages_at_capacity(const struct cf_stages *s)
{
	const struct cuckoo_filter *newest = cf_stages_at(s, s->n - 1);
	struct cf_params p;

	if (!s->g.grow || s->n >= s->g.max_stages)
		return false;
	cf_get_params(newest, &p);
	return cf_count(newest) >= p.capacity;
}

/*
 * Refused adds below this load of the newest stage are not a full
 * stage: one key added again and again fills its own two buckets and then
 * the victim slot.  Growing then would let a few adds of one key take
 * stage after stage.
 */
static bool cf_stages_may_grow(const struct cf_stages *s)
{
	return s->g.grow && s->n < s->g.max_stages &&
	       cf_load_ppm(cf_stages_at(s, s->n - 1)) >= CF_GROW_MIN_LOAD_PPM;
}

/* Publish a new, empty stage of the same seed; the readers see it whole. */
static void cf_stages_push(struct cf_stages *s, struct cuckoo_filter *cf)
{
	cf_lend_scratch(cf, s->scratch);
	cf_rcu_assign_pointer(s->stage[s->n], cf);
	CF_STORE_RELEASE(s->n, s->n + 1);
}

static int cf_stages_grow(struct cf_stages *s, cf_stage_alloc_t alloc,
			  void *ctx)
{
	struct cuckoo_filter *cf;
	struct cf_params p;
	int err;

	/* No stage left, or none of that size: the filter is full. */
	if (cf_stages_next_params(s, &p))
		return -ENOSPC;
	err = alloc(ctx, &p, &cf);
	if (err)
		return err;
	cf_stages_push(s, cf);
	return 0;
}

/**
 * cf_stages_add - add a key to the newest stage, growing if need be
 * @s:		the filter
 * @key:	the key
 * @len:	its bytes
 * @unique:	not if any stage (maybe) has it already: -EEXIST
 * @alloc:	makes a new stage of the given geometry (charged to whatever
 *		the caller keeps), or NULL: never grow
 * @ctx:	for @alloc
 * @stage:	the stage it went to, for an exact undo
 *
 * A newest stage at its capacity gets a successor first, so that stages
 * stay at their design load (and at their false-positive rate), and one
 * that refuses the key before then too, if it is loaded enough.  If the
 * new stage cannot be had, the key still goes to the newest stage while
 * that has room.
 * Return: 0, -EEXIST, -ENOSPC (full, no stage to grow), or @alloc's error
 * when the filter is full and could not grow (nothing was added then).
 */
int cf_stages_add(struct cf_stages *s, const void *key, u32 len, bool unique,
		  cf_stage_alloc_t alloc, void *ctx, u32 *stage)
{
	struct cf_key_hash kh;
	int err, gerr = 0;

	cf_key_hash(cf_stages_first(s), key, len, &kh);
	if (unique && cf_stages_has(s, &kh))
		return -EEXIST;
	if (alloc && cf_stages_at_capacity(s))
		gerr = cf_stages_grow(s, alloc, ctx);
	*stage = s->n - 1;
	err = cf_add_hash(cf_stages_at(s, *stage), &kh);
	if (err != -ENOSPC || !alloc)
		return err;
	if (!gerr && cf_stages_may_grow(s)) {
		gerr = cf_stages_grow(s, alloc, ctx);
		if (!gerr) {
			*stage = s->n - 1;
			return cf_add_hash(cf_stages_at(s, *stage), &kh);
		}
	}
	return gerr && gerr != -ENOSPC ? gerr : err;
}

/**
 * cf_stages_next_params - the geometry of the next stage
 * @s:	the filter
 * @p:	the newest stage's, times the factor, one fingerprint bit more
 *	(up to CF_FP_BITS_MAX); resolved
 *
 * Return: 0, -ENOSPC (no stage left) or -EINVAL (too large a table).
 */
int cf_stages_next_params(const struct cf_stages *s, struct cf_params *p)
{
	if (s->n >= s->g.max_stages || s->n >= CF_STAGES_MAX)
		return -ENOSPC;
	cf_get_params(cf_stages_at(s, s->n - 1), p);
	p->capacity *= s->g.factor;
	if (p->fp_bits < CF_FP_BITS_MAX)
		p->fp_bits++;
	p->fpr_ppb = 0;
	return cf_params_resolve(p);
}

/**
 * cf_stages_delete - remove one copy of a key from the stage that holds it
 * @s:		the filter
 * @key:	the key
 * @len:	its bytes
 * @stage:	the stage it was removed from, for an exact undo
 *
 * A key added to the filter is in the stage that was newest then.  If no
 * other stage answers yes for it, that is the one stage that does, and a
 * copy there is the key's (a cuckoo filter cannot tell apart two keys of
 * the same fingerprint and buckets, nor needs to).  If several do, one of
 * them answers for another key, or the key was added again after a stage
 * was added: no telling which, so nothing is removed.
 * Return: 0, -ENOENT (no stage has it) or -ENOTUNIQ (several do).
 */
int cf_stages_delete(struct cf_stages *s, const void *key, u32 len,
		     u32 *stage)
{
	struct cf_key_hash kh;
	u32 i, found = 0;

	if (s->n == 1) {
		*stage = 0;
		return cf_delete(cf_stages_at(s, 0), key, len);
	}
	cf_key_hash(cf_stages_first(s), key, len, &kh);
	for (i = 0; i < s->n; i++) {
		if (!cf_has_hash(cf_stages_at(s, i), &kh))
			continue;
		if (found++)
			return -ENOTUNIQ;
		*stage = i;
	}
	if (!found)
		return -ENOENT;
	return cf_delete_hash(cf_stages_at(s, *stage), &kh);
}

/* Undo: add back to the stage a delete took it from. */
int cf_stages_add_at(struct cf_stages *s, u32 stage, const void *key, u32 len)
{
	if (stage >= s->n)
		return -EINVAL;
	return cf_readd(cf_stages_at(s, stage), key, len);
}

/* Undo: delete from the stage an add put it in. */
int cf_stages_delete_at(struct cf_stages *s, u32 stage, const void *key,
			u32 len)
{
	if (stage >= s->n)
		return -EINVAL;
	return cf_delete(cf_stages_at(s, stage), key, len);
}

/**
 * cf_stages_flush - empty the filter back to its first stage
 * @s:		the filter
 * @gone:	the other stages, handed to the caller
 *
 * Readers stop seeing the other stages at once; those that already
 * counted them may still look into them (or find their places empty):
 * free @gone with cf_free() once none can (after an RCU grace period in
 * the module).  The filter may grow again meanwhile.  cf_clear() may
 * sleep: see cuckoo.h.
 * Return: how many stages are in @gone.
 */
u32 cf_stages_flush(struct cf_stages *s,
		    struct cuckoo_filter *gone[CF_STAGES_MAX - 1])
{
	u32 i, n = s->n;

	CF_STORE_RELEASE(s->n, 1);
	for (i = 1; i < n; i++) {
		gone[i - 1] = cf_stages_at(s, i);
		CF_RCU_INIT_POINTER(s->stage[i], NULL);
	}
	cf_clear(cf_stages_at(s, 0));
	return n - 1;
}

/*
 * Sums of every stage; the load and the victim are the newest stage's,
 * the one adds go to.
 */
void cf_stages_stats(const struct cf_stages *s, struct cf_stats *st)
{
	u32 i, n = CF_LOAD_ACQUIRE(s->n);
	const struct cuckoo_filter *cf;
	struct cf_stats one;

	cf_get_stats(cf_stages_get(s, 0), st);
	for (i = 1; i < n; i++) {
		cf = cf_stages_get(s, i);
		if (!cf)
			continue;
		cf_get_stats(cf, &one);
		st->count += one.count;
		st->slots += one.slots;
		st->nbuckets += one.nbuckets;
		st->bytes += one.bytes;
		st->table_bytes += one.table_bytes;
		st->load_ppm = one.load_ppm;
		st->victim = one.victim;
	}
}

/* A stage's false-positive bound 2b / 2^f, parts per 10^9, rounded up. */
u32 cf_fpr_bound_ppb(unsigned int fp_bits, unsigned int bucket_size)
{
	u64 num = 2ULL * bucket_size * CF_PPB;
	u64 ppb = (num + (1ULL << fp_bits) - 1) >> fp_bits;

	return ppb < CF_PPB ? (u32)ppb : CF_PPB;
}

/* The filter's bound: the sum of its stages', rounded up, at most 1. */
u32 cf_stages_fpr_ppb(const struct cf_stages *s)
{
	u32 i, n = CF_LOAD_ACQUIRE(s->n);
	const struct cuckoo_filter *cf;
	struct cf_params p;
	u64 sum = 0;

	for (i = 0; i < n; i++) {
		cf = cf_stages_get(s, i);
		if (!cf)
			continue;
		cf_get_params(cf, &p);
		sum += cf_fpr_bound_ppb(p.fp_bits, p.bucket_size);
	}
	return sum < CF_PPB ? (u32)sum : CF_PPB;
}

/*
 * Save and restore of every stage: the stages' tables back to back,
 * oldest first, each as cf_export_table() copies it.  A chunk may
 * straddle two stages; offsets and lengths are multiples of 8 bytes, as
 * every table's length is.
 */
u64 cf_stages_table_bytes(const struct cf_stages *s)
{
	struct cf_stats st;
	u64 sum = 0;
	u32 i;

	for (i = 0; i < s->n; i++) {
		cf_get_stats(cf_stages_at(s, i), &st);
		sum += st.table_bytes;
	}
	return sum;
}

/*
 * Call @fn on each part of [off, off + len) that falls in one stage, with
 * the offset in that stage's table.
 */
static int cf_stages_chunks(struct cf_stages *s, u64 off, u8 *buf, u64 len,
			    bool import)
{
	struct cf_stats st;
	u64 start = 0, part;
	u32 i;
	int err;

	for (i = 0; i < s->n && len; i++, start += st.table_bytes) {
		cf_get_stats(cf_stages_at(s, i), &st);
		if (off >= start + st.table_bytes)
			continue;
		part = start + st.table_bytes - off;
		if (part > len)
			part = len;
		err = import ? cf_import_table(cf_stages_at(s, i), off - start,
					       buf, part) :
			       cf_export_table(cf_stages_at(s, i), off - start,
					       buf, part);
		if (err)
			return err;
		off += part;
		buf += part;
		len -= part;
	}
	return len ? -EINVAL : 0;
}

int cf_stages_export(const struct cf_stages *s, u64 off, void *buf, u64 len)
{
	/* Exporting writes @buf only. */
	return cf_stages_chunks((struct cf_stages *)s, off, buf, len, false);
}

int cf_stages_import(struct cf_stages *s, u64 off, const void *buf, u64 len)
{
	/* Importing reads @buf only. */
	return cf_stages_chunks(s, off, (u8 *)buf, len, true);
}

/* cf_import_finish() of every stage. */
int cf_stages_import_finish(struct cf_stages *s)
{
	u32 i;
	int err;

	for (i = 0; i < s->n; i++) {
		err = cf_import_finish(cf_stages_at(s, i));
		if (err)
			return err;
	}
	return 0;
}

/**
 * cf_stages_add_image - make the next stage of a restored filter
 * @s:		a filter being restored, not seen by readers
 * @img:	the stage's image header: the first stage's seed, hash,
 *		bucket size and encoding (a lookup hashes once for all
 *		stages)
 *
 * Return: 0, -EINVAL (a header that does not fit) or -ENOSPC (more stages
 * than the filter may have), or a cf_create_from_image() error.
 */
int cf_stages_add_image(struct cf_stages *s, const struct cf_image *img)
{
	struct cuckoo_filter *cf;
	struct cf_params first, p;
	int err;

	if (s->n >= s->g.max_stages || s->n >= CF_STAGES_MAX)
		return -ENOSPC;
	cf_get_params(cf_stages_first(s), &first);
	err = cf_image_params(img, &p);
	if (err)
		return err;
	if (p.seed != first.seed || p.hash != first.hash ||
	    p.bucket_size != first.bucket_size || p.encoding != first.encoding)
		return -EINVAL;
	err = cf_create_from_image(&cf, img, first.lent_scratch);
	if (err)
		return err;
	cf_stages_push(s, cf);
	return 0;
}
