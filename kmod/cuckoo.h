/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cuckoo filter: approximate set membership with deletion, in a few bits
 * per item (Fan, Andersen, Kaminsky, Mitzenmacher, "Cuckoo Filter:
 * Practically Better Than Bloom", CoNEXT 2014).
 *
 * Each key maps to a fingerprint fp of f bits (never 0: 0 marks an empty
 * slot) and to two buckets of b slots each.  A key may be present if fp sits
 * in one of its two buckets; it is certainly absent otherwise.  The false
 * positive rate is at most 2b / 2^f.
 *
 * Geometry.  The paper picks the second bucket as i1 XOR hash(fp), which only
 * works when the bucket count m is a power of two, so the reference
 * implementation rounds m up and can waste half the memory.  Here
 *
 *	i1 = (h1 * m) >> 32		(h1 a 32-bit hash of the key)
 *	i2 = (H(fp) - i1) mod m		(H(fp) = (hash(fp) * m) >> 32)
 *
 * which is an involution for every m: i1 = (H(fp) - i2) mod m, so a
 * fingerprint can always find its other bucket from the one it is in,
 * and neither mapping divides.  m is chosen so that the filter's capacity
 * fills CF_DESIGN_LOAD of the slots, hence bits per item is
 * f / CF_DESIGN_LOAD (12.57 for f = 12, b = 4) for any capacity.
 *
 * Keys are hashed once, seeded with the filter's 64-bit seed, eight bytes
 * a step (cf_whash.h; filters made before it, and their images, keep
 * lookup3's hashlittle2 built from the kernel's jhash rounds, cf_jhash.h).
 * That pass yields two 32-bit hashes: one picks the bucket, the other the
 * fingerprint, so large filters do not pay for a 32-bit collision floor.
 *
 * Inserting.  A new fingerprint goes to whichever of its buckets has more
 * free slots, which keeps buckets evenly filled.  Instead of the paper's
 * random walk, which evicts a fingerprint before it knows whether a free
 * slot will be found, an insert that finds both buckets full searches
 * breadth-first (as MemC3 / libcuckoo do) for the shortest chain of
 * displacements that ends in a free slot, examining at most max_kicks
 * candidate buckets (one bucket read each, as a random walk's kick is).
 * Only then does it move anything, from
 * the free end of the chain backwards.  So a failed search has changed
 * nothing: no fingerprint is ever lost.  When the search fails, the new item
 * is kept in a single victim slot (as the reference implementation keeps its
 * evicted one) and the insert succeeds; while the victim is taken every
 * further insert fails with -ENOSPC.  A delete that frees room takes the
 * victim back into the table.
 *
 * Semi-sorted buckets (CF_ENC_SEMISORT, the paper's section 5).  The order
 * of the four fingerprints of a b = 4 bucket carries no information, so
 * the bucket is stored sorted, and the four high nibbles of the sorted
 * fingerprints, one of the 3876 multisets of four nibbles, as a 12-bit
 * code: 4f - 4 bits a bucket instead of 4f, one bit per item saved at the
 * same false positive rate (12.6 bits per item at f = 13, 0.1%).  Every
 * change re-encodes the whole bucket, inside a sequence-counter section.
 *
 * Duplicates.  cf_add() stores a key as often as it is added (at most 2b
 * copies fit, beyond that -ENOSPC), so adding twice and deleting once keeps
 * it.  cf_add_unique() adds only if the key is not already (maybe) present.
 *
 * Deleting.  A filter cannot tell keys with the same fingerprint and buckets
 * apart: deleting a key that was never added may remove another key's
 * fingerprint, and that key then tests negative.  Delete only what was added.
 *
 * Long loops.  cf_clear() and cf_import_finish() walk the whole table and
 * call cf_resched() every CF_RESCHED_EVERY words or buckets: in the kernel
 * they may sleep, so call them in process context, not under a spinlock.
 * Every other function does a bounded amount of work (the writer's may
 * also yield while readers wait: see Concurrency).
 *
 * Concurrency.  One writer at a time: the caller serialises cf_add(),
 * cf_add_unique(), cf_delete(), cf_clear() and the import functions with
 * its own lock.  Any number of readers (cf_contains(), cf_contains_any(), cf_contains_batch(),
 * cf_count() and the other getters) run at the same time without a lock.
 * A reader never misses an item that was present for the whole of its
 * lookup: the writer moves fingerprints only inside a sequence-counter
 * section (kept short because the path was found beforehand), and a reader
 * that found nothing while the counter was odd or changed looks again.  A
 * hit needs no check: any fingerprint seen was really in the table.  Table
 * words are read and written whole (READ_ONCE/WRITE_ONCE), so a slot that
 * is not being changed is never seen torn.  Semi-sorted buckets are the
 * exception: every change rewrites a whole bucket, whose fingerprints
 * change places and which may straddle words, so there every write is
 * inside a section and a reader's hit, like its miss, stands only if the
 * counter was even and unchanged around the lookup.  In the kernel, the writer's
 * move section runs with bottom halves disabled so that a softirq reader on
 * the same CPU can never wait for it.  Freeing a filter that readers may
 * still see is the caller's business (RCU in the module).
 *
 * Readers are not starved by a writer that opens one section after
 * another (a batch of semi-sorted adds).  A try of the retry path starts
 * on an even counter (waiting for the one section in progress to end),
 * so it fails only if a section began during it.  A lookup that failed
 * CF_READ_TRIES_ALONE tries (the inline one included) counts itself in
 * the filter's waiters, then a full barrier, then tries again; before
 * each section the writer has a full barrier, then waits while there are
 * waiters.  So either the writer sees the count before it opens its next
 * section, or the reader's next read of the counter sees the writer's
 * last section ended: at most one section overlaps the reader's tries
 * from there on, and a lookup fails at most CF_READ_RETRIES_MAX =
 * CF_READ_TRIES_ALONE + 1 tries, and waits for at most as many sections.
 * So does each key of cf_contains_batch() that is looked up again (the
 * batch's try counted as its first), and cf_contains_any() as a whole:
 * it retries its keys together.  A lookup that needs no retry does not
 * touch the count.  The writer waits at most for a waiting reader's last
 * two tries (in the kernel the reader does not let itself be preempted
 * while it is counted), yielding with cf_resched() as it waits: the
 * writer's functions are called in process context.
 */
#ifndef _NF_CUCKOO_CUCKOO_H
#define _NF_CUCKOO_CUCKOO_H

#include "cuckoo_platform.h"

/*
 * Below 6 bits the fingerprints of a full bucket pair are so often equal
 * that a b = 2 filter cannot reach its design load.
 */
#define CF_FP_BITS_MIN		6
#define CF_FP_BITS_MAX		32
/* Semi-sorting keeps the top 4 bits of each fingerprint in the code. */
#define CF_SEMISORT_FP_BITS_MIN	5
#define CF_SEMISORT_BUCKET_SIZE	4
#define CF_FP_BITS_DEFAULT	12
#define CF_BUCKET_SIZE_DEFAULT	4
#define CF_MAX_KICKS_DEFAULT	500
#define CF_MAX_KICKS_MAX	8192
/* Bucket indexes are 32 bits wide; keep one spare for arithmetic. */
#define CF_NBUCKETS_MAX		0x80000000ULL
/* Parts per billion: the unit of a target false-positive rate. */
#define CF_PPB			1000000000U

/*
 * Occupancy, in parts per million, that a filter of each bucket size is
 * sized for: a filter created with capacity N has slots enough for N items
 * at this load.  With the default 500 kicks the first failed search came
 * at 86.2% (b = 2, 4M items), 95.9% (b = 4, 16M) and 99.0% (b = 8, 4M);
 * more kicks buy more margin (96.9% for b = 4 with 1000).
 */
#define CF_DESIGN_LOAD_PPM_B2	840000U
#define CF_DESIGN_LOAD_PPM_B4	955000U
#define CF_DESIGN_LOAD_PPM_B8	980000U
/* Slots every filter has beyond its design load: see cf_nbuckets_for(). */
#define CF_SPARE_SLOTS		16

/*
 * Failed tries a lookup makes on its own before it asks the writer to
 * hold off, counting the one that sent it to the retry path; then it
 * fails at most once more (see Concurrency).  Few, so that the bound is
 * tight; not one, so that the writer is not held up by every reader that
 * was merely unlucky once.
 */
#define CF_READ_TRIES_ALONE	2
#define CF_READ_RETRIES_MAX	(CF_READ_TRIES_ALONE + 1)

/**
 * enum cf_encoding - how a bucket's fingerprints are stored
 * @CF_ENC_PLAIN:	b slots of f bits, slot j of bucket i at bit
 *			(i * b + j) * f
 * @CF_ENC_SEMISORT:	b = 4 only, f >= CF_SEMISORT_FP_BITS_MIN: bucket i
 *			at bit i * (4f - 4), sorted (see cuckoo.c)
 * @CF_ENC_COUNT:	the number of encodings
 */
enum cf_encoding {
	CF_ENC_PLAIN = 0,
	CF_ENC_SEMISORT = 1,
	CF_ENC_COUNT
};

/**
 * enum cf_hashfn - how a filter hashes its keys, for life
 * @CF_HASH_WORDS:	cf_whash_pair(), eight bytes a step: the default
 * @CF_HASH_JHASH:	cf_jhash_pair(), lookup3's hashlittle2: the hash of
 *			filters made before the word hash, and of their
 *			images (versions 2 and 3)
 * @CF_HASH_COUNT:	the number of hash functions
 */
enum cf_hashfn {
	CF_HASH_WORDS = 0,
	CF_HASH_JHASH = 1,
	CF_HASH_COUNT
};

/**
 * struct cf_params - how to build a filter
 * @capacity:	items the filter must hold, > 0
 * @fpr_ppb:	target false-positive rate in parts per 10^9; used only when
 *		@fp_bits is 0, to choose the smallest f with 2b / 2^f <= rate
 * @fp_bits:	fingerprint bits, CF_FP_BITS_MIN..CF_FP_BITS_MAX, or 0
 * @bucket_size: slots per bucket: 2, 4 or 8; 0 means 4
 * @max_kicks:	candidate buckets an insert may examine, 1..CF_MAX_KICKS_MAX;
 *		0 means 500
 * @seed:	hash seed; the filter's answers depend on it, so keep it secret
 *		from whoever chooses the keys
 * @encoding:	enum cf_encoding; 0 (CF_ENC_PLAIN) by default
 * @hash:	enum cf_hashfn; 0 (CF_HASH_WORDS) by default.  Stages of one
 *		filter share it, as they share the seed.
 * @lent_scratch: the writer lends the insert's kick search its scratch
 *		(cf_lend_scratch()) for each spell of writes, instead of the
 *		filter keeping cf_scratch_bytes() of its own for life: the
 *		module's filters, written in batches and idle between them,
 *		so cost their table and their structure only.  Images do
 *		not carry it.
 *
 * cf_params_resolve() fills the defaults in place, so that a caller can
 * report what was chosen.
 */
struct cf_params {
	u64 capacity;
	u64 seed;
	u32 fpr_ppb;
	u16 max_kicks;
	u8 fp_bits;
	u8 bucket_size;
	u8 encoding;
	u8 hash;
	u8 lent_scratch;
};

/**
 * struct cf_stats - a snapshot for reporting
 * @count:	items stored, the victim included
 * @slots:	buckets * bucket size
 * @nbuckets:	buckets
 * @load_ppm:	count / slots, parts per million
 * @bytes:	memory the filter holds (table, struct, and the kick
 *		search's scratch unless it is lent)
 * @table_bytes: the table alone, as cf_export_table() copies it
 * @victim:	true while the victim slot holds an item (inserts then fail)
 */
struct cf_stats {
	u64 count;
	u64 slots;
	u64 nbuckets;
	u64 bytes;
	u64 table_bytes;
	u32 load_ppm;
	bool victim;
};

struct cuckoo_filter;

int cf_params_resolve(struct cf_params *p);
const char *cf_params_error(const struct cf_params *p);
u64 cf_params_bytes(const struct cf_params *p);

int cf_create(struct cuckoo_filter **out, const struct cf_params *p);
void cf_free(struct cuckoo_filter *cf);
void cf_get_params(const struct cuckoo_filter *cf, struct cf_params *p);

/*
 * A filter created with lent_scratch has no scratch of its own: before a
 * spell of writes (add, delete, readd; not clear, import or lookups) its
 * writer lends it cf_scratch_bytes(max_kicks) bytes, and takes them back
 * after (scratch NULL).  A write that needs the kick search without a
 * loan does not search: an add keeps its item in the victim slot, as when
 * the search fails.  Filters that own their scratch ignore loans.
 */
u64 cf_scratch_bytes(unsigned int max_kicks);
void cf_lend_scratch(struct cuckoo_filter *cf, void *scratch);

int cf_add(struct cuckoo_filter *cf, const void *key, u32 len);
int cf_add_unique(struct cuckoo_filter *cf, const void *key, u32 len);
int cf_delete(struct cuckoo_filter *cf, const void *key, u32 len);
int cf_readd(struct cuckoo_filter *cf, const void *key, u32 len);
void cf_clear(struct cuckoo_filter *cf);

/*
 * Keys of any length are hashed alike; those of the module's flow keys
 * (struct nf_cuckoo_flow_key, kmod/filter.h checks) are hashed by code
 * that knows the length, on the packet path.
 */
#define CF_FLOW_KEY_LEN		40

bool cf_contains(const struct cuckoo_filter *cf, const void *key, u32 len);
/*
 * Is any of n <= CF_ANY_MAX keys of len bytes, back to back at keys,
 * (maybe) present?  The keys are hashed, then the buckets of all of them
 * read, then compared, so that their cache misses overlap: the packet
 * path's lookup of one packet under several masks (prefixes).  The same
 * reader contract as cf_contains().
 */
#define CF_ANY_MAX	8
bool cf_contains_any(const struct cuckoo_filter *cf, const void *keys,
		     u32 len, u32 n);
#ifndef __KERNEL__
/* Userspace only: the module has no batched lookups. */
u32 cf_contains_batch(const struct cuckoo_filter *cf, const void *keys,
		      u32 key_len, u32 n, u8 *hits);
struct cf_key_hash;
u32 cf_contains_batch_hash(const struct cuckoo_filter *cf,
			   const struct cf_key_hash *kh, u32 n, u8 *hits);
/*
 * Userspace only, for the tests of the bound on retries (Concurrency,
 * above): this thread's failed lookup tries so far, and the most that
 * one lookup failed (per key of a batch); and a switch that makes the
 * writer ignore waiting readers, to show what the bound is worth.
 */
extern __thread unsigned long cf_lookup_retries;
extern __thread unsigned int cf_lookup_retries_max;
extern bool cf_ignore_waiters;
#endif

/*
 * Hashing once for several filters of the same seed (the stages of a
 * filter that grows, cuckoo_stages.h): a key's two hashes do not depend
 * on the geometry, only on the seed.
 */
struct cf_key_hash {
	u32 c;
	u32 second;
};

void cf_key_hash(const struct cuckoo_filter *cf, const void *key, u32 len,
		 struct cf_key_hash *kh);
bool cf_contains_hash(const struct cuckoo_filter *cf,
		      const struct cf_key_hash *kh);
bool cf_contains_any_hash(const struct cuckoo_filter *cf,
			  const struct cf_key_hash *kh, u32 n);
void cf_prefetch_hash(const struct cuckoo_filter *cf,
		      const struct cf_key_hash *kh);
int cf_add_hash(struct cuckoo_filter *cf, const struct cf_key_hash *kh);
bool cf_has_hash(const struct cuckoo_filter *cf, const struct cf_key_hash *kh);
int cf_delete_hash(struct cuckoo_filter *cf, const struct cf_key_hash *kh);

u64 cf_count(const struct cuckoo_filter *cf);
u32 cf_load_ppm(const struct cuckoo_filter *cf);
u64 cf_bytes(const struct cuckoo_filter *cf);
void cf_get_stats(const struct cuckoo_filter *cf, struct cf_stats *st);

/*
 * Raw export and import, for save and restore without the keys.
 *
 * The image is a struct cf_image header followed by table_bytes of table:
 * buckets as enum cf_encoding lays them out (plain: fingerprints packed f
 * bits at a time, slot j of bucket i at bit (i * b + j) * f), in 64-bit
 * words of the host's byte order, and the header too.  Images do not
 * travel between hosts of different byte order (neither do the hashes:
 * they read the key in host order); the magic number tells.  cf_create_from_image() checks a header and creates an
 * empty filter of that exact geometry and seed (cf_image_params() checks a
 * header and tells the parameters, so that cf_params_bytes() can say what
 * it will cost first); the table is then copied in
 * (and out) in chunks whose offset and length are multiples of 8 bytes, so
 * that a netlink message can carry one chunk at a time.  cf_import_finish()
 * recounts the items from what was loaded and takes the victim in; until
 * then the filter must not be shown to readers.
 */
#define CF_IMAGE_MAGIC		0x46435543U	/* "CUCF" little-endian */
/*
 * 4: the hash function (enum cf_hashfn), in the byte that versions 2 and
 * 3 kept reserved (0): theirs is jhash.  Only filters of the word hash
 * are written as version 4; a jhash filter's image stays version 2 or 3,
 * byte for byte what it was, so that the modules that wrote it still
 * restore it.
 * 3: the encoding of the buckets, in a byte that version 2 kept reserved
 * (0), so a version 2 image reads as version 3 of plain buckets.  Only
 * semi-sorted filters are written as version 3 (or 4): a plain jhash
 * filter's image stays version 2.
 * 2: keys hashed in one pass (cf_jhash_pair()).  Version 1 tables hold
 * fingerprints of the two-pass hash, which this code no longer computes:
 * they would answer no for their own keys, so they are refused.
 */
#define CF_IMAGE_VERSION	4
/* The oldest version read, and the one plain filters are written in. */
#define CF_IMAGE_VERSION_MIN	2

struct cf_image {
	u32 magic;
	u16 version;
	u8 fp_bits;
	u8 bucket_size;
	u32 nbuckets;
	u16 max_kicks;
	u8 encoding;
	u8 hash;
	u64 capacity;
	u64 seed;
	u64 victim;
	u64 table_bytes;
};

void cf_export_header(const struct cuckoo_filter *cf, struct cf_image *img);
int cf_export_table(const struct cuckoo_filter *cf, u64 off, void *buf,
		    u64 len);
int cf_image_params(const struct cf_image *img, struct cf_params *p);
enum cf_hashfn cf_image_hashfn(const struct cf_image *img);
bool cf_image_stage_fits(const struct cf_image *first,
			 const struct cf_image *img);
int cf_create_from_image(struct cuckoo_filter **out,
			 const struct cf_image *img, bool lent_scratch);
int cf_import_table(struct cuckoo_filter *cf, u64 off, const void *buf,
		    u64 len);
int cf_import_finish(struct cuckoo_filter *cf);

#endif /* _NF_CUCKOO_CUCKOO_H */
