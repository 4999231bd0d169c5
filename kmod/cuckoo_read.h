/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filter core's reader, inline: what a lookup of one key does, for
 * the callers that make one per packet (cf_contains_inline(), through
 * cf_stages_contains(): XDP and tc programs, iptables rules, the hook).  A lookup is a few dozen instructions, and a
 * call and return around them cost a sizeable share of it; so, as
 * rhashtable.h does for its lookup, the layout of the filter and the
 * lookup's common path live here, and the core (cuckoo.c) builds its own
 * lookups from the same functions.  Nothing here writes: the writer's
 * side, and the reader's rare paths (a miss that overlapped a move, wide
 * and semi-sorted buckets), stay in cuckoo.c.
 *
 * Only the core and its stages (cuckoo_stages.h) include this directly.
 * Code above them still asks through their functions and reads no field
 * of struct cuckoo_filter: the struct is here for the compiler's sake.
 */
#ifndef _NF_CUCKOO_READ_H
#define _NF_CUCKOO_READ_H

#include "cuckoo.h"

/* fp << 32 | bucket index of the item in the victim slot; 0 when empty. */
#define CF_VICTIM_FP(v)		((u32)((v) >> 32))
#define CF_VICTIM_BUCKET(v)	((u32)(v))

/*
 * Lookups are specialised for the common geometries so that the compiler
 * sees constant f and b and turns a bucket scan into a couple of loads and
 * a word-parallel compare.  Buckets of four of any other f (the stages of
 * a filter that grows: f = 13, 14, ...) are compared the same way with
 * lane constants kept in the filter; everything else takes the generic
 * path, and semi-sorted buckets (any f) a path of their own.
 */
enum cf_layout {
	CF_LAYOUT_GENERIC,
	CF_LAYOUT_F8_B4,
	CF_LAYOUT_F12_B4,
	CF_LAYOUT_F16_B4,
	CF_LAYOUT_F32_B4,
	CF_LAYOUT_SEMISORT,
	CF_LAYOUT_B4,
};

struct cf_bfs_node;

struct cuckoo_filter {
	/*
	 * Three cache lines, so that a filter costs 192 bytes (a list of a
	 * thousand prefixes takes about 1.5 KB of table): this one read by
	 * every lookup and never written after creation, ...
	 */
	u64 *table;
	u64 seed;
	u32 nbuckets;
	u32 fp_mask;
	u16 bucket_bits;
	u8 fp_bits;
	u8 bucket_size;
	u8 layout;
	u8 hash;		/* enum cf_hashfn */
	/*
	 * CF_LAYOUT_B4: a bucket read in chunks of b4_chunk bits (four
	 * lanes, or two when 4f > 64), the lowest and the highest bit of
	 * each lane of a chunk.
	 */
	u8 b4_chunk;
	u64 b4_ones;
	u64 b4_hi;
	/* Buckets of at most 64 bits (0 otherwise): each slot's lowest bit. */
	u64 lane_ones;

	/* ... this one written by the writer and read by lookups, ... */
	u32 seq ____cacheline_aligned;
	/* Readers that asked the writer to hold off: cf_read_begin(). */
	struct cf_atomic waiters;
	u64 victim;

	/* ... and this one the writer's own. */
	u64 count ____cacheline_aligned;
	u64 capacity;
	u64 table_words;
	u64 table_bits;
	u16 max_kicks;
	bool lent;		/* bfs is lent by the writer, not owned */
	struct cf_bfs_node *bfs;
};

/* Lemire's multiply-shift: maps a 32-bit hash onto [0, n) without a divide. */
static __always_inline u32 cf_reduce(u32 h, u32 n)
{
	return (u32)(((u64)h * n) >> 32);
}

static __always_inline u32 cf_mix32(u32 x)
{
	x ^= x >> 16;
	x *= 0x85ebca6bU;
	x ^= x >> 13;
	x *= 0xc2b2ae35U;
	x ^= x >> 16;
	return x;
}

/* i2 = (H(fp) - i1) mod m: its own inverse for every bucket count m. */
static __always_inline u32 cf_alt(const struct cuckoo_filter *cf, u32 i, u32 fp)
{
	u32 hf = cf_reduce(cf_mix32(fp), cf->nbuckets);

	return hf >= i ? hf - i : hf + cf->nbuckets - i;
}

struct cf_hash {
	u32 i1;
	u32 i2;
	u32 fp;
};

/* Bucket, fingerprint and other bucket from a key's two hashes. */
static __always_inline void cf_hash_set(const struct cuckoo_filter *cf, u32 c,
					u32 second, struct cf_hash *h)
{
	u32 fp = second & cf->fp_mask;

	h->i1 = cf_reduce(c, cf->nbuckets);
	h->fp = fp + !fp;
	h->i2 = cf_alt(cf, h->i1, h->fp);
}

u32 cf_key_pair_jhash(const struct cuckoo_filter *cf, const void *key,
		      u32 len, u32 *second);

/*
 * A key's two hashes, with the filter's hash function and seed: c (the
 * bucket's, the return value) and *second (the fingerprint's).  jhash,
 * the hash of filters restored from old images only, is a call: inline,
 * it would double what every lookup of the packet path weighs.
 */
static __always_inline u32 cf_key_pair(const struct cuckoo_filter *cf,
				       const void *key, u32 len, u32 *second)
{
	if (likely(cf->hash == CF_HASH_WORDS))
		return cf_whash_pair(key, len, cf->seed, second);
	return cf_key_pair_jhash(cf, key, len, second);
}

static __always_inline void cf_hash_key(const struct cuckoo_filter *cf,
					const void *key, u32 len,
					struct cf_hash *h)
{
	u32 c, second;

	c = cf_key_pair(cf, key, len, &second);
	cf_hash_set(cf, c, second, h);
}

static __always_inline u64 cf_low_mask(unsigned int width)
{
	return width >= 64 ? ~0ULL : (1ULL << width) - 1;
}

/*
 * width (<= 64) bits of the table from bit pos on, in the low bits of the
 * result (higher bits are garbage).  Each word is read whole, so a slot
 * that is not being written is never seen torn.  Unless the geometry keeps
 * every read inside one word, the word holding the last bit is read too,
 * without a branch: the same word again when the bits fit in one, whose
 * bits then land above width.  Never the word after the last bit, which
 * may sit in a cache line that nobody prefetched.
 */
static __always_inline u64 cf_bits_at(const u64 *t, u64 pos,
				      unsigned int width, bool one_word)
{
	u64 w = pos >> 6;
	unsigned int sh = pos & 63;
	u64 lo = CF_READ(t[w]) >> sh;

	if (one_word)
		return lo;
	return lo | ((CF_READ(t[(pos + width - 1) >> 6]) << 1) << (63 - sh));
}

/* Does no read of a bucket (or of a 64-bit chunk of one) cross a word? */
static __always_inline bool cf_one_word(unsigned int f, unsigned int b)
{
	unsigned int width = f * b;

	return 64 % width == 0 || (width % 64 == 0 && 64 % f == 0);
}

static __always_inline u64 cf_lane_ones(unsigned int f, unsigned int n)
{
	u64 ones = 0;
	unsigned int j;

	for (j = 0; j < n; j++)
		ones |= 1ULL << (j * f);
	return ones;
}

/*
 * Does some f-bit lane of the b lanes of v equal fp?  fps is fp in every
 * lane (fp * ones).  x has a zero lane exactly where a slot equals fp, and
 * (x - ones) & ~x & high-bits is non-zero exactly when some lane is zero.
 * Bits of v above the b lanes need no masking: a subtraction borrows
 * upwards only, so they change no bit of a lane, and high-bits has none
 * of theirs.
 */
static __always_inline bool cf_word_has_fps(u64 v, u64 fps, unsigned int f,
					    unsigned int b)
{
	u64 ones = cf_lane_ones(f, b);
	u64 x = v ^ fps;

	return (x - ones) & ~x & (ones << (f - 1));
}

static __always_inline bool cf_word_has(u64 v, u32 fp, unsigned int f,
					unsigned int b)
{
	return cf_word_has_fps(v, fp * cf_lane_ones(f, b), f, b);
}

/* Buckets of at most 64 bits are read and compared as one word. */
static __always_inline bool cf_small_buckets(unsigned int f, unsigned int b)
{
	return f * b <= 64;
}

/*
 * Bucket i of a table with cf_small_buckets(), in the low f * b bits
 * (higher bits are garbage).  One load where CF_BYTE_BUCKETS allows and
 * the bucket starts on a byte (always, for the specialised layouts).  The
 * table's spare word keeps the load of the last bucket inside it.
 */
static __always_inline u64 cf_bucket_bits(const u64 *t, u32 i, unsigned int f,
					  unsigned int b)
{
#ifdef CF_BYTE_BUCKETS
	if ((f * b) % 8 == 0)
		return cf_read_bucket_le64((const u8 *)t + (u64)i * (f * b / 8));
#endif
	return cf_bits_at(t, (u64)i * b * f, f * b, cf_one_word(f, b));
}

/* Is fp in bucket i?  Up to 64 bits of the bucket are compared at once. */
static __always_inline bool cf_bucket_has(const u64 *t, u32 i, u32 fp,
					  unsigned int f, unsigned int b)
{
	unsigned int per_word = 64 / f;
	bool one_word = cf_one_word(f, b);
	u64 pos = (u64)i * b * f;
	unsigned int done, n;
	u64 v, ones, x;

	if (cf_small_buckets(f, b))
		return cf_word_has(cf_bucket_bits(t, i, f, b), fp, f, b);
	for (done = 0; done < b; done += n) {
		n = b - done < per_word ? b - done : per_word;
		ones = cf_lane_ones(f, n);
		v = cf_bits_at(t, pos + done * f, n * f, one_word) &
		    cf_low_mask(n * f);
		x = v ^ (fp * ones);
		if ((x - ones) & ~x & (ones << (f - 1)))
			return true;
	}
	return false;
}

/* Is the victim v (a CF_READ() of cf->victim) the item h? */
static __always_inline bool cf_victim_match(u64 v, const struct cf_hash *h)
{
	u32 vb = CF_VICTIM_BUCKET(v);

	return v && CF_VICTIM_FP(v) == h->fp && (vb == h->i1 || vb == h->i2);
}

static __always_inline bool cf_victim_is(const struct cuckoo_filter *cf,
					 const struct cf_hash *h)
{
	return cf_victim_match(CF_READ(cf->victim), h);
}

/*
 * Both buckets and the victim are read whatever the first holds: the
 * loads overlap, and a hit costs no mispredicted branch.
 */
static __always_inline bool cf_probe(const struct cuckoo_filter *cf,
				     const struct cf_hash *h,
				     unsigned int f, unsigned int b)
{
	const u64 *t = cf->table;
	bool in1, in2, in_victim;
	u64 fps;

	if (cf_small_buckets(f, b)) {
		/*
		 * fp in every lane by one multiply with cf->lane_ones, where
		 * the constant would take a chain of shifts and adds.
		 */
		fps = (u64)h->fp * cf->lane_ones;
		in1 = cf_word_has_fps(cf_bucket_bits(t, h->i1, f, b), fps, f, b);
		in2 = cf_word_has_fps(cf_bucket_bits(t, h->i2, f, b), fps, f, b);
	} else {
		in1 = cf_bucket_has(t, h->i1, h->fp, f, b);
		in2 = cf_bucket_has(t, h->i2, h->fp, f, b);
	}
	in_victim = cf_victim_is(cf, h);
	return in1 | in2 | in_victim;
}

bool cf_contains_again(const struct cuckoo_filter *cf, struct cf_hash h);
bool cf_lookup_wide(const struct cuckoo_filter *cf, struct cf_hash h);

/*
 * The end of a lookup begun when the sequence counter read @seq: @hit if
 * it stands, else a look again (cf_lookup()).
 */
static __always_inline bool cf_lookup_end(const struct cuckoo_filter *cf,
					  struct cf_hash h, u32 seq, bool hit)
{
	bool stands;

	cf_rmb();
	stands = !((seq & 1) | (CF_READ(cf->seq) ^ seq));
	if (likely(hit | stands))
		return hit;
	return cf_contains_again(cf, h);
}

/*
 * One lookup of a hashed key, for one geometry, all of it inline: the
 * packet path's.  The sequence counter's protocol is cf_contains_hashed()'s,
 * but its loop is split so that the answer is not a branch: the counter is
 * read again after a hit too (it sits in a line of its own that lookups
 * only read, so in cache), and the one branch asks "hit, or a miss that
 * stands", which is true whatever the answer unless a move overlapped the
 * lookup.  A branch on the answer itself would be guessed wrong for half
 * the keys of a mixed stream, and each wrong guess throws away the work of
 * the lookups the CPU had started after it.
 */
static __always_inline bool cf_lookup(const struct cuckoo_filter *cf,
				      struct cf_hash h,
				      unsigned int f, unsigned int b)
{
	u32 seq = CF_READ(cf->seq);

	cf_rmb();
	return cf_lookup_end(cf, h, seq, cf_probe(cf, &h, f, b));
}

/*
 * The packet path: the module looks up one key per packet.  Hashing comes
 * first, then one dispatch on the layout; cf_probe() issues the loads of
 * both buckets (and of the victim) before it compares either.  The hash
 * travels by value and the rare paths (wide buckets, a miss during a
 * move) are calls, so that the hot path keeps it in registers: no spill
 * and reload between the hash and the loads, and few registers to save.
 */
static __always_inline bool cf_contains_pair(const struct cuckoo_filter *cf,
					     u32 c, u32 second)
{
	struct cf_hash h;

	cf_hash_set(cf, c, second, &h);
	switch (cf->layout) {
	case CF_LAYOUT_F8_B4:
		return cf_lookup(cf, h, 8, 4);
	case CF_LAYOUT_F12_B4:
		return cf_lookup(cf, h, 12, 4);
	case CF_LAYOUT_F16_B4:
		return cf_lookup(cf, h, 16, 4);
	default:
		return cf_lookup_wide(cf, h);
	}
}

/* A key of @len bytes hashed and looked up: cf_contains() for one @len. */
static __always_inline bool cf_contains_len(const struct cuckoo_filter *cf,
					    const void *key, u32 len)
{
	u32 c, second;

	c = cf_key_pair(cf, key, len, &second);
	return cf_contains_pair(cf, c, second);
}

/**
 * cf_contains_inline - cf_contains(), inline in the caller
 * @cf:		the filter
 * @key:	the key
 * @len:	its bytes
 *
 * For the packet path's callers, which ask about one key per packet.  A
 * key of the module's length (CF_FLOW_KEY_LEN) is hashed with its length
 * known: jhash's tail's switch gone.  The same hash, with fewer branches.
 * Other lengths call cf_contains().
 */
static __always_inline bool cf_contains_inline(const struct cuckoo_filter *cf,
					       const void *key, u32 len)
{
	if (likely(len == CF_FLOW_KEY_LEN))
		return cf_contains_len(cf, key, CF_FLOW_KEY_LEN);
	return cf_contains(cf, key, len);
}

#endif /* _NF_CUCKOO_READ_H */
