// SPDX-License-Identifier: GPL-2.0
/*
 * The cuckoo filter core.  See cuckoo.h for the design and the contract;
 * this file builds both in the kernel and in userspace.
 */
#include "cuckoo_read.h"
#include "cf_semisort.h"


#ifndef __KERNEL__
unsigned long cf_resched_calls;
__thread unsigned long cf_lookup_retries;
__thread unsigned int cf_lookup_retries_max;

bool cf_ignore_waiters;

/* For the tests: the tries a lookup retried (see cuckoo.h). */
static void cf_note_retries(u32 failed)
{
	cf_lookup_retries += failed;
	if (failed > cf_lookup_retries_max)
		cf_lookup_retries_max = failed;
}

static bool cf_waiters_ignored(void)
{
	return CF_READ(cf_ignore_waiters);
}
#else
static inline void cf_note_retries(u32 failed)
{
}

static inline bool cf_waiters_ignored(void)
{
	return false;
}
#endif
#ifdef CF_COUNT_HASHES
unsigned long cf_hash_calls;
#endif

/*
 * Iterations (table words or buckets) of a whole-table loop between two
 * cf_resched(): about 100 us of work, however large the table.
 */
#define CF_RESCHED_EVERY	16384

#define CF_BFS_ROOT		0xffffU
/* The longest displacement chain a breadth-first search can return. */
#define CF_PATH_MAX		64
/*
 * Keys cf_contains_batch() (userspace only) hashes before it reads their
 * buckets, and whose bucket words it reads before it compares any: see
 * cf_batch_group().
 *
 * Where the compiler may use SIMD registers, a jhash filter's group is
 * hashed with the keys in the inner loops, cf_jhash_pair_many(), which it
 * spreads over SIMD lanes; without SIMD those loops only add loads and
 * stores, and keys are hashed one by one, as the word hash's always are
 * (its 64-bit multiplies have no SSE2 form).  Once hashing is cheap, the wait for a group's
 * last reads weighs more, and larger groups pay; each key costs the group
 * 29 bytes of stack.
 */
#if defined(__SSE2__) || defined(__ARM_NEON)
#define CF_BATCH_SIMD		1
#define CF_BATCH_GROUP		64
#else
#define CF_BATCH_SIMD		0
#define CF_BATCH_GROUP		32
#endif


struct cf_bfs_node {
	u32 bucket;
	u16 parent;
	u8 slot;
};


static u32 cf_design_load_ppm(unsigned int b)
{
	switch (b) {
	case 2:
		return CF_DESIGN_LOAD_PPM_B2;
	case 8:
		return CF_DESIGN_LOAD_PPM_B8;
	default:
		return CF_DESIGN_LOAD_PPM_B4;
	}
}

static bool cf_bucket_size_ok(unsigned int b)
{
	return b == 2 || b == 4 || b == 8;
}

/*
 * Buckets so that capacity items fill the design load, plus
 * CF_SPARE_SLOTS; 0 if too many.  The design loads hold for large
 * tables; in a table of a few dozen buckets chance alone leaves no room
 * for the last items in about 1 fill of 100 (b = 4) at the design load,
 * and in none of 1000 with 16 slots more.  For a million items the spare
 * costs 0.006% of the table.
 */
static u64 cf_nbuckets_for(u64 capacity, unsigned int b)
{
	u64 per_bucket = (u64)b * cf_design_load_ppm(b);
	u64 n;

	if (capacity > CF_NBUCKETS_MAX * b)
		return 0;
	n = (capacity * 1000000 + per_bucket - 1) / per_bucket;
	n += CF_SPARE_SLOTS / b;
	if (n > CF_NBUCKETS_MAX)
		return 0;
	return n;
}

/* Bits a bucket takes: b slots of f bits, or a semi-sorted 4f - 4. */
static unsigned int cf_bucket_bits_of(unsigned int enc, unsigned int b,
				      unsigned int f)
{
	return enc == CF_ENC_SEMISORT ? 4 * f - 4 : b * f;
}

/* Words of table, with one spare so a straddling read never runs off. */
static u64 cf_table_words(u64 nbuckets, unsigned int bucket_bits)
{
	return (nbuckets * bucket_bits + 63) / 64 + 1;
}

static int cf_fp_bits_for_rate(u32 fpr_ppb, unsigned int b)
{
	unsigned int f;

	if (!fpr_ppb || fpr_ppb > CF_PPB)
		return -EINVAL;
	for (f = CF_FP_BITS_MIN; f <= CF_FP_BITS_MAX; f++)
		if ((u64)2 * b * CF_PPB <= (u64)fpr_ppb << f)
			return f;
	return -EINVAL;
}

/* Why an encoding does not suit b and f; NULL if it does. */
static const char *cf_encoding_error(unsigned int enc, unsigned int b,
				     unsigned int f)
{
	if (enc >= CF_ENC_COUNT)
		return "unknown bucket encoding";
	if (enc != CF_ENC_SEMISORT)
		return NULL;
	if (b != CF_SEMISORT_BUCKET_SIZE)
		return "semi-sorted buckets need bucket size 4";
	if (f < CF_SEMISORT_FP_BITS_MIN)
		return "semi-sorted buckets need fingerprints of 5 bits or more";
	return NULL;
}

/* Bucket size, fingerprint bits and capacity make a filter that fits. */
static bool cf_geometry_ok(const struct cf_params *p)
{
	return cf_bucket_size_ok(p->bucket_size) &&
	       p->fp_bits >= CF_FP_BITS_MIN && p->fp_bits <= CF_FP_BITS_MAX &&
	       !cf_encoding_error(p->encoding, p->bucket_size, p->fp_bits) &&
	       p->capacity && cf_nbuckets_for(p->capacity, p->bucket_size);
}

/*
 * cf_params_resolve()'s rules, in order: the defaults filled in, then the
 * first rule p breaks, or NULL.
 */
static const char *cf_params_check(struct cf_params *p)
{
	int f;

	if (!p->bucket_size)
		p->bucket_size = CF_BUCKET_SIZE_DEFAULT;
	if (!p->max_kicks)
		p->max_kicks = CF_MAX_KICKS_DEFAULT;
	if (!cf_bucket_size_ok(p->bucket_size))
		return "bucket size must be 2, 4 or 8";
	if (p->max_kicks > CF_MAX_KICKS_MAX)
		return "too many kicks";
	if (p->hash >= CF_HASH_COUNT)
		return "unknown hash function";
	if (!p->fp_bits) {
		if (!p->fpr_ppb) {
			p->fp_bits = CF_FP_BITS_DEFAULT;
		} else {
			f = cf_fp_bits_for_rate(p->fpr_ppb, p->bucket_size);
			if (f < 0)
				return "false-positive rate out of reach";
			p->fp_bits = (u8)f;
		}
	}
	if (p->fp_bits < CF_FP_BITS_MIN || p->fp_bits > CF_FP_BITS_MAX)
		return "fingerprint bits out of range";
	if (cf_encoding_error(p->encoding, p->bucket_size, p->fp_bits))
		return cf_encoding_error(p->encoding, p->bucket_size,
					 p->fp_bits);
	if (!cf_geometry_ok(p))
		return "no table of this geometry can hold that capacity";
	return NULL;
}

int cf_params_resolve(struct cf_params *p)
{
	return cf_params_check(p) ? -EINVAL : 0;
}

/**
 * cf_params_error - why cf_params_resolve() refuses p
 * Returns a constant string naming the first rule p breaks, or NULL if
 * cf_params_resolve() accepts it.  p is not changed.
 */
const char *cf_params_error(const struct cf_params *p)
{
	struct cf_params q = *p;

	return cf_params_check(&q);
}

/* The kick search's queue: its roots, max_kicks candidates, one spare. */
u64 cf_scratch_bytes(unsigned int max_kicks)
{
	return ((u64)max_kicks + 3) * sizeof(struct cf_bfs_node);
}

static u64 cf_own_scratch_bytes(bool lent, unsigned int max_kicks)
{
	return lent ? 0 : cf_scratch_bytes(max_kicks);
}

/*
 * Memory a filter of these parameters will take, once cf_params_resolve()
 * has accepted them; 0 for parameters it has not.
 */
u64 cf_params_bytes(const struct cf_params *p)
{
	u64 m;

	if (!cf_geometry_ok(p))
		return 0;
	m = cf_nbuckets_for(p->capacity, p->bucket_size);
	return cf_table_words(m, cf_bucket_bits_of(p->encoding, p->bucket_size,
						   p->fp_bits)) * sizeof(u64) +
	       cf_own_scratch_bytes(p->lent_scratch, p->max_kicks) +
	       sizeof(struct cuckoo_filter);
}


/*
 * ---- Semi-sorted buckets (CF_ENC_SEMISORT) ----
 *
 * The four fingerprints of a bucket, sorted, with n_j the top 4 bits of
 * the j-th smallest and l_j its low d = f - 4 bits, take 4f - 4 bits:
 *
 *	bits 0..11		the code of the nibbles (n0, n1, n2, n3)
 *	bits 12 + j * d ...	l_j, d bits, for j = 0..3
 *
 * and bucket i starts at bit i * (4f - 4), straddling words as it falls.
 * Sorted nibbles n0 <= n1 <= n2 <= n3 are one of C(19, 4) = 3876
 * multisets, numbered by the colexicographic rank of the set
 * n0 < n1 + 1 < n2 + 2 < n3 + 3 of four numbers below 19:
 *
 *	code = n0 + C(n1 + 1, 2) + C(n2 + 2, 3) + C(n3 + 3, 4)
 *
 * Encoding adds three entries of cf_ss_rank (below: 3 x 16 u16, 96 bytes)
 * to n0, where a search in the decode table would take twelve dependent
 * steps.  Decoding reads cf_ss_decode (cf_semisort.h, generated by
 * scripts/gen-semisort.sh: 4096 u16, 8 KiB; the 3876 codes, padded to
 * every 12-bit value so that a reader's torn code cannot index past it;
 * userspace has a copy, cf_ss_decode9, for cf_ss13_pair_has()).
 * The tables are static const, in the module's .rodata: nothing to build
 * at init, nothing to order.  An empty slot is fingerprint 0, so an empty
 * bucket is code 0 and zero low parts: a zeroed table is empty.  A bucket
 * is canonical: sorted by whole fingerprint, so that one multiset has one
 * encoding and images compare byte for byte (cf_import_finish() refuses
 * any other).
 */
#define CF_SS_CODE_BITS		12
#define CF_SS_CODES		3876

/* C(x + 1, 2), C(x + 2, 3) and C(x + 3, 4) for nibbles n1, n2 and n3. */
static const u16 cf_ss_rank[3][16] = {
	{ 0, 1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 66, 78, 91, 105, 120 },
	{ 0, 1, 4, 10, 20, 35, 56, 84, 120, 165, 220, 286, 364, 455, 560,
	  680 },
	{ 0, 1, 5, 15, 35, 70, 126, 210, 330, 495, 715, 1001, 1365, 1820,
	  2380, 3060 },
};

/* len bits from bit at of a bucket held as v0 (bits 0..63), v1 (64..). */
static __always_inline u32 cf_ss_field(u64 v0, u64 v1, unsigned int at,
				       unsigned int len)
{
	u64 x;

	if (at >= 64)
		x = v1 >> (at - 64);
	else
		x = (v0 >> at) | ((v1 << 1) << (63 - at));
	return (u32)x & (u32)cf_low_mask(len);
}

/*
 * Bucket i's bits, the first 64 in *v0 and the rest (f > 17) in *v1, with
 * garbage above the bucket: one or two cf_bits_at(), each word read whole;
 * or, for f <= 15 where CF_BYTE_BUCKETS allows, one load from the byte the
 * bucket starts in (cuckoo_platform.h says why that may straddle words;
 * the table's spare word keeps it inside).
 */
static __always_inline void cf_ss_load(const u64 *t, u32 i, unsigned int f,
				       u64 *v0, u64 *v1)
{
	unsigned int w = 4 * f - 4;
	u64 pos = (u64)i * w;

#ifdef CF_BYTE_BUCKETS
	if (w % 8 == 0 && w + 7 <= 64) {
		/* f = 9, 11, 13 and 15: every bucket starts on a byte. */
		*v0 = cf_read_bucket_le64((const u8 *)t + (u64)i * (w / 8));
		*v1 = 0;
		return;
	}
	if (w + 7 <= 64) {
		*v0 = cf_read_bucket_le64((const u8 *)t + (pos >> 3)) >>
		      (pos & 7);
		*v1 = 0;
		return;
	}
#endif
	*v0 = cf_bits_at(t, pos, w < 64 ? w : 64, false);
	*v1 = w > 64 ? cf_bits_at(t, pos + 64, w - 64, false) : 0;
}

/*
 * Flags at bits 0, d, 2d and 3d (d >= 4) gathered into bits 0..3: each
 * term of the multiplier moves one flag to bit 3d + j, and the others to
 * bits that neither collide nor carry into those four.
 */
static __always_inline u32 cf_ss_gather(u64 flags, unsigned int d)
{
	u64 m = (1ULL << 3 * d) | (1ULL << (2 * d + 1)) |
		(1ULL << (d + 2)) | (1ULL << 3);

	return (u32)((flags * m) >> 3 * d) & 15;
}

/*
 * The lanes (bit j: lane j) where the pair (hi, lo) is in nib (four 4-bit
 * nibbles) and in the same lane of lows (four d-bit low parts, garbage
 * above), 4 <= d <= 13.
 * Word-parallel: a lane of x is zero exactly where ~(((x & low) + low) | x)
 * has the lane's top bit (no sum carries into the next lane), for the
 * nibbles and for the low parts; the two sets of flags, gathered into
 * four bits each, must meet.
 */
static __always_inline u32 cf_ss_lanes_match(u64 lows, u32 nib, u32 hi,
					      u32 lo, unsigned int d)
{
	u64 ones = cf_lane_ones(d, 4), low = ones * (cf_low_mask(d) >> 1);
	u64 x = lows ^ (lo * ones), zl;
	u32 y = nib ^ (hi * 0x1111U), zn;

	zl = ~(((x & low) + low) | x) & (ones << (d - 1));
	zn = ~(((y & 0x7777U) + 0x7777U) | y) & 0x8888U;
	return cf_ss_gather(zl >> (d - 1), d) & cf_ss_gather(zn >> 3, 4);
}

/* Semi-sorted buckets of at most 64 bits: f <= 17. */
static __always_inline bool cf_ss_one_word(unsigned int f)
{
	return 4 * f - 4 <= 64;
}

/* The bits of semi-sorted bucket i of at most 64 bits, garbage above. */
static __always_inline u64 cf_ss_word(const u64 *t, u32 i, unsigned int f)
{
	u64 v0, v1;

	cf_ss_load(t, i, f, &v0, &v1);
	return v0;
}

/* Is fp in the semi-sorted bucket of at most 64 bits held in v0? */
static __always_inline bool cf_ss_word_has(u64 v0, u32 fp, unsigned int f)
{
	unsigned int d = f - 4, j;
	u32 hi = fp >> d, lo = fp & (u32)cf_low_mask(d), nib, hit = 0;

	nib = cf_ss_decode[v0 & ((1U << CF_SS_CODE_BITS) - 1)];
	/* Lanes of at least a nibble. */
	if (f >= 8)
		return cf_ss_lanes_match(v0 >> CF_SS_CODE_BITS, nib, hi, lo, d);
	for (j = 0; j < 4; j++)
		hit |= (((nib >> (4 * j)) & 15) == hi) &
		       (cf_ss_field(v0, 0, CF_SS_CODE_BITS + j * d, d) == lo);
	return hit;
}

/* Is fp in semi-sorted bucket i?  Each slot's nibble and low part. */
static __always_inline bool cf_ss_has(const u64 *t, u32 i, u32 fp,
				      unsigned int f)
{
	unsigned int d = f - 4, j;
	u32 hi = fp >> d, lo = fp & (u32)cf_low_mask(d), nib, hit = 0;
	u64 v0, v1;

	if (cf_ss_one_word(f))
		return cf_ss_word_has(cf_ss_word(t, i, f), fp, f);
	cf_ss_load(t, i, f, &v0, &v1);
	nib = cf_ss_decode[v0 & ((1U << CF_SS_CODE_BITS) - 1)];
	for (j = 0; j < 4; j++)
		hit |= (((nib >> (4 * j)) & 15) == hi) &
		       (cf_ss_field(v0, v1, CF_SS_CODE_BITS + j * d, d) == lo);
	return hit;
}

/*
 * The four fingerprints of a bucket from its bits, in ascending order.
 * Up to f = 17 the bucket is all in v0, and the fields are plain shifts.
 */
static __always_inline void cf_ss_unpack(u64 v0, u64 v1, unsigned int f,
					 u32 *fps)
{
	unsigned int d = f - 4, j;
	u32 nib = cf_ss_decode[v0 & ((1U << CF_SS_CODE_BITS) - 1)];
	u32 mask = (u32)cf_low_mask(d);
	u64 lows = v0 >> CF_SS_CODE_BITS;

	if (4 * f - 4 <= 64) {
		for (j = 0; j < 4; j++, lows >>= d, nib >>= 4)
			fps[j] = (nib & 15) << d | ((u32)lows & mask);
		return;
	}
	for (j = 0; j < 4; j++)
		fps[j] = ((nib >> (4 * j)) & 15) << d |
			 cf_ss_field(v0, v1, CF_SS_CODE_BITS + j * d, d);
}

static void cf_sort2(u32 *a, u32 *b)
{
	u32 t = *a;

	if (t > *b) {
		*a = *b;
		*b = t;
	}
}

/*
 * Sorts fps (four f-bit fingerprints) and encodes them: the bucket's
 * first 64 bits in *v0, the rest in *v1, zero above the bucket.
 */
static __always_inline void cf_ss_pack(u32 *fps, unsigned int f, u64 *v0,
				       u64 *v1)
{
	unsigned int d = f - 4, j, at;
	u64 lo;

	cf_sort2(&fps[0], &fps[1]);
	cf_sort2(&fps[2], &fps[3]);
	cf_sort2(&fps[0], &fps[2]);
	cf_sort2(&fps[1], &fps[3]);
	cf_sort2(&fps[1], &fps[2]);
	*v0 = (fps[0] >> d) + cf_ss_rank[0][fps[1] >> d] +
	      cf_ss_rank[1][fps[2] >> d] + cf_ss_rank[2][fps[3] >> d];
	*v1 = 0;
	if (4 * f - 4 <= 64) {
		for (j = 0; j < 4; j++)
			*v0 |= (u64)(fps[j] & cf_low_mask(d)) <<
			       (CF_SS_CODE_BITS + j * d);
		return;
	}
	for (j = 0; j < 4; j++) {
		lo = fps[j] & cf_low_mask(d);
		at = CF_SS_CODE_BITS + j * d;
		if (at >= 64) {
			*v1 |= lo << (at - 64);
			continue;
		}
		*v0 |= lo << at;
		if (at + d > 64)
			*v1 |= lo >> (64 - at);
	}
}


/* cf_probe() of a semi-sorted table. */
static __always_inline bool cf_ss_probe(const struct cuckoo_filter *cf,
					const struct cf_hash *h)
{
	bool in1 = cf_ss_has(cf->table, h->i1, h->fp, cf->fp_bits);
	bool in2 = cf_ss_has(cf->table, h->i2, h->fp, cf->fp_bits);
	bool in_victim = cf_victim_is(cf, h);

	return in1 | in2 | in_victim;
}

/* Is fp (in every lane of fps) in bucket i of a CF_LAYOUT_B4 table? */
static __always_inline bool cf_b4_has(const struct cuckoo_filter *cf, u32 i,
				      u64 fps)
{
	unsigned int cw = cf->b4_chunk;
	u64 pos = (u64)i * 4 * cf->fp_bits, x;
	bool in, in2;

	x = cf_bits_at(cf->table, pos, cw, false) ^ fps;
	in = (x - cf->b4_ones) & ~x & cf->b4_hi;
	if (cw == 4 * cf->fp_bits)
		return in;
	x = cf_bits_at(cf->table, pos + cw, cw, false) ^ fps;
	in2 = (x - cf->b4_ones) & ~x & cf->b4_hi;
	return in | in2;
}

/* cf_probe() of a CF_LAYOUT_B4 table. */
static __always_inline bool cf_b4_probe(const struct cuckoo_filter *cf,
					const struct cf_hash *h)
{
	u64 fps = (u64)h->fp * cf->b4_ones;
	bool in1 = cf_b4_has(cf, h->i1, fps);
	bool in2 = cf_b4_has(cf, h->i2, fps);
	bool in_victim = cf_victim_is(cf, h);

	return in1 | in2 | in_victim;
}

static bool cf_semisorted(const struct cuckoo_filter *cf)
{
	return cf->layout == CF_LAYOUT_SEMISORT;
}

static bool cf_probe_any(const struct cuckoo_filter *cf,
			 const struct cf_hash *h)
{
	switch (cf->layout) {
	case CF_LAYOUT_SEMISORT:
		return cf_ss_probe(cf, h);
	case CF_LAYOUT_F8_B4:
		return cf_probe(cf, h, 8, 4);
	case CF_LAYOUT_F12_B4:
		return cf_probe(cf, h, 12, 4);
	case CF_LAYOUT_F16_B4:
		return cf_probe(cf, h, 16, 4);
	case CF_LAYOUT_F32_B4:
		return cf_probe(cf, h, 32, 4);
	case CF_LAYOUT_B4:
		return cf_b4_probe(cf, h);
	default:
		return cf_probe(cf, h, cf->fp_bits, cf->bucket_size);
	}
}

/* A reader's retry path: tries failed so far, and whether it waits. */
struct cf_retry {
	u32 failed;
	bool waiting;
};

/*
 * A reader that failed CF_READ_TRIES_ALONE tries asks the writer to open
 * no new section until it is done.  The count is the only field a reader
 * writes, hence the cast.  Its full barrier orders our raising it before
 * our next read of the counter; cf_wait_readers() orders the writer's
 * last section's end before its read of the count.  So either the writer
 * sees us, or we see that section ended, and at most the one section the
 * writer opened without seeing us overlaps our tries from here on.
 *
 * A try starts once the counter is even: a try begun inside a section
 * could only fail, and a failed try should mean a section begun during
 * it, so that the bound counts the writer's sections, not our spins.
 */
static u32 cf_read_begin(const struct cuckoo_filter *cf, struct cf_retry *r)
{
	u32 seq;

	if (r->failed >= CF_READ_TRIES_ALONE && !r->waiting) {
		cf_reader_pin();
		cf_atomic_inc_mb((struct cf_atomic *)&cf->waiters);
		r->waiting = true;
	}
	while ((seq = CF_READ(cf->seq)) & 1)
		cf_cpu_relax();
	cf_rmb();
	return seq;
}

/* Did the try that began at seq stand?  If not, it failed. */
static bool cf_read_stands(const struct cuckoo_filter *cf, u32 seq,
			   struct cf_retry *r)
{
	cf_rmb();
	if (CF_READ(cf->seq) == seq)
		return true;
	r->failed++;
	return false;
}

static void cf_read_end(const struct cuckoo_filter *cf, struct cf_retry *r)
{
	cf_note_retries(r->failed);
	if (!r->waiting)
		return;
	cf_atomic_dec((struct cf_atomic *)&cf->waiters);
	cf_reader_unpin();
}

/*
 * The reader's side of the sequence counter.  A hit in plain buckets is
 * final.  A miss counts only if no fingerprint moved while we looked: the
 * writer makes the counter odd for the duration of every move.  In
 * semi-sorted buckets every change is such a section, and a bucket read
 * across one may decode to fingerprints it never held, so there a hit
 * needs the same check.  failed: tries the caller already made.
 */
static bool cf_contains_hashed(const struct cuckoo_filter *cf,
			       const struct cf_hash *h, u32 failed)
{
	struct cf_retry r = { .failed = failed };
	bool final_hit = !cf_semisorted(cf), hit;
	u32 seq;

	for (;;) {
		seq = cf_read_begin(cf, &r);
		hit = cf_probe_any(cf, h);
		if ((hit && final_hit) || cf_read_stands(cf, seq, &r))
			break;
	}
	cf_read_end(cf, &r);
	return hit;
}

/* A miss that overlapped a move: look again, out of the packet path. */
cf_noinline cf_cold bool cf_contains_again(const struct cuckoo_filter *cf,
					  struct cf_hash h)
{
	return cf_contains_hashed(cf, &h, 1);
}


/*
 * cf_lookup() in semi-sorted buckets, where a hit, like a miss, stands
 * only if no bucket was rewritten while we looked (cf_contains_hashed()).
 */
static __always_inline bool cf_ss_lookup(const struct cuckoo_filter *cf,
					 struct cf_hash h, unsigned int f)
{
	u32 seq = CF_READ(cf->seq);
	bool in1, in2, in_victim;

	cf_rmb();
	in1 = cf_ss_has(cf->table, h.i1, h.fp, f);
	in2 = cf_ss_has(cf->table, h.i2, h.fp, f);
	in_victim = cf_victim_is(cf, &h);
	cf_rmb();
	if (likely(!((seq & 1) | (CF_READ(cf->seq) ^ seq))))
		return in1 | in2 | in_victim;
	return cf_contains_again(cf, h);
}

/*
 * Semi-sorted buckets, with f a constant for the common widths: the
 * fields of a bucket are then at constant places.  One function each, so
 * that none pays for the registers of the others, and the dispatch
 * (cf_lookup_wide()) is only jumps.
 */
static cf_noinline bool cf_ss_lookup_8(const struct cuckoo_filter *cf,
				       struct cf_hash h)
{
	return cf_ss_lookup(cf, h, 8);
}

static cf_noinline bool cf_ss_lookup_12(const struct cuckoo_filter *cf,
					struct cf_hash h)
{
	return cf_ss_lookup(cf, h, 12);
}

static cf_noinline bool cf_ss_lookup_13(const struct cuckoo_filter *cf,
					struct cf_hash h)
{
	return cf_ss_lookup(cf, h, 13);
}

static cf_noinline bool cf_ss_lookup_16(const struct cuckoo_filter *cf,
					struct cf_hash h)
{
	return cf_ss_lookup(cf, h, 16);
}

static cf_noinline bool cf_ss_lookup_any(const struct cuckoo_filter *cf,
					 struct cf_hash h)
{
	return cf_ss_lookup(cf, h, cf->fp_bits);
}

/*
 * cf_lookup() of a CF_LAYOUT_B4 table: its lane constants are the
 * filter's, not the compiler's.
 */
static __always_inline bool cf_b4_lookup(const struct cuckoo_filter *cf,
					struct cf_hash h)
{
	u32 seq = CF_READ(cf->seq);

	cf_rmb();
	return cf_lookup_end(cf, h, seq, cf_b4_probe(cf, &h));
}

static cf_noinline bool cf_b4_lookup_out(const struct cuckoo_filter *cf,
					 struct cf_hash h)
{
	return cf_b4_lookup(cf, h);
}

/* f = 32, b = 4 of other f, and the generic layout. */
static cf_noinline bool cf_lookup_wide_plain(const struct cuckoo_filter *cf,
					     struct cf_hash h)
{
	if (cf->layout == CF_LAYOUT_F32_B4)
		return cf_lookup(cf, h, 32, 4);
	if (cf->layout == CF_LAYOUT_B4)
		return cf_b4_lookup_out(cf, h);
	return cf_lookup(cf, h, cf->fp_bits, cf->bucket_size);
}

/*
 * Geometries whose buckets are not one word (f = 32, and the generic
 * layout), out of line: their bucket loops need registers that the
 * one-word layouts would otherwise save and restore on every lookup.
 * Semi-sorted buckets too.
 */
cf_noinline bool cf_lookup_wide(const struct cuckoo_filter *cf,
				struct cf_hash h)
{
	if (cf->layout != CF_LAYOUT_SEMISORT)
		return cf_lookup_wide_plain(cf, h);
	switch (cf->fp_bits) {
	case 8:
		return cf_ss_lookup_8(cf, h);
	case 12:
		return cf_ss_lookup_12(cf, h);
	case 13:
		return cf_ss_lookup_13(cf, h);
	case 16:
		return cf_ss_lookup_16(cf, h);
	default:
		return cf_ss_lookup_any(cf, h);
	}
}

/* cf_key_pair() of a jhash filter. */
u32 cf_key_pair_jhash(const struct cuckoo_filter *cf, const void *key,
		      u32 len, u32 *second)
{
	/* Both halves of the seed are jhash's two initvals. */
	return cf_jhash_pair(key, len, (u32)cf->seed, (u32)(cf->seed >> 32),
			     second);
}

cf_pkt_text bool cf_contains(const struct cuckoo_filter *cf, const void *key,
			     u32 len)
{
	if (likely(len == CF_FLOW_KEY_LEN))
		return cf_contains_len(cf, key, CF_FLOW_KEY_LEN);
	return cf_contains_len(cf, key, len);
}

/**
 * cf_key_hash - a key's two hashes under @cf's seed
 * @cf:		any filter of that seed
 * @key:	the key
 * @len:	its bytes
 * @kh:		the hashes, for the cf_*_hash() functions of every filter
 *		of the same seed, whatever its geometry
 */
void cf_key_hash(const struct cuckoo_filter *cf, const void *key, u32 len,
		 struct cf_key_hash *kh)
{
	kh->c = cf_key_pair(cf, key, len, &kh->second);
}

/*
 * cf_contains() of a key hashed by cf_key_hash(): the lookup of each stage
 * of a filter that grew, whose later stages (f = 13, 14, ...) are
 * CF_LAYOUT_B4, inline here where cf_contains() keeps them out of the way
 * of the common layouts.
 */
bool cf_contains_hash(const struct cuckoo_filter *cf,
		      const struct cf_key_hash *kh)
{
	struct cf_hash h;

	cf_hash_set(cf, kh->c, kh->second, &h);
	switch (cf->layout) {
	case CF_LAYOUT_F12_B4:
		return cf_lookup(cf, h, 12, 4);
	case CF_LAYOUT_B4:
		return cf_b4_lookup(cf, h);
	case CF_LAYOUT_F16_B4:
		return cf_lookup(cf, h, 16, 4);
	default:
		return cf_contains_pair(cf, kh->c, kh->second);
	}
}

/*
 * Start the loads of a hashed key's buckets, so that those of several
 * filters are in flight together before any is compared.
 */
void cf_prefetch_hash(const struct cuckoo_filter *cf,
		      const struct cf_key_hash *kh)
{
	struct cf_hash h;

	cf_hash_set(cf, kh->c, kh->second, &h);
	cf_prefetch(&cf->table[(u64)h.i1 * cf->bucket_bits / 64]);
	cf_prefetch(&cf->table[(u64)h.i2 * cf->bucket_bits / 64]);
}

/*
 * The probes of cf_contains_any(): every bucket word is loaded before any
 * is compared, so that the loads of all the keys are in flight together.
 * ss: semi-sorted buckets of one word (f <= 17), b = 4.
 */
static __always_inline bool cf_probe_many(const struct cuckoo_filter *cf,
					  const struct cf_hash *h, u32 n,
					  unsigned int f, unsigned int b,
					  bool ss)
{
	const u64 *t = cf->table;
	u64 w1[CF_ANY_MAX], w2[CF_ANY_MAX], victim;
	bool hit = false, in1, in2;
	u32 k;

	for (k = 0; k < n; k++) {
		w1[k] = ss ? cf_ss_word(t, h[k].i1, f) :
			     cf_bucket_bits(t, h[k].i1, f, b);
		w2[k] = ss ? cf_ss_word(t, h[k].i2, f) :
			     cf_bucket_bits(t, h[k].i2, f, b);
	}
	victim = CF_READ(cf->victim);
	for (k = 0; k < n; k++) {
		if (ss) {
			in1 = cf_ss_word_has(w1[k], h[k].fp, f);
			in2 = cf_ss_word_has(w2[k], h[k].fp, f);
		} else {
			u64 fps = (u64)h[k].fp * cf->lane_ones;

			in1 = cf_word_has_fps(w1[k], fps, f, b);
			in2 = cf_word_has_fps(w2[k], fps, f, b);
		}
		hit |= in1 | in2 | cf_victim_match(victim, &h[k]);
	}
	return hit;
}

/*
 * Inline in both grouped lookups: left to itself, gcc stops inlining it
 * once it has two callers, and a call per group is what a one-stage
 * filter's lookup would pay for sharing it.
 */
static __always_inline bool cf_probe_many_any(const struct cuckoo_filter *cf,
					      const struct cf_hash *h, u32 n)
{
	bool hit = false;
	u32 k;

	switch (cf->layout) {
	case CF_LAYOUT_F8_B4:
		return cf_probe_many(cf, h, n, 8, 4, false);
	case CF_LAYOUT_F12_B4:
		return cf_probe_many(cf, h, n, 12, 4, false);
	case CF_LAYOUT_F16_B4:
		return cf_probe_many(cf, h, n, 16, 4, false);
	case CF_LAYOUT_SEMISORT:
		/* The widths fpr picks, then any of one word. */
		if (cf->fp_bits == 12)
			return cf_probe_many(cf, h, n, 12, 4, true);
		if (cf->fp_bits == 13)
			return cf_probe_many(cf, h, n, 13, 4, true);
		if (cf_ss_one_word(cf->fp_bits))
			return cf_probe_many(cf, h, n, cf->fp_bits, 4, true);
		fallthrough;
	default:
		/* Buckets wider than a word: one by one. */
		for (k = 0; k < n; k++)
			hit |= cf_probe_any(cf, &h[k]);
		return hit;
	}
}

/*
 * cf_contains_any()'s probes overlapped a section: all of them again,
 * under one retry, so that the bound of one lookup holds for the group.
 */
static cf_noinline cf_cold bool cf_contains_any_again(const struct cuckoo_filter *cf,
						     const struct cf_hash *h,
						     u32 n)
{
	struct cf_retry r = { .failed = 1 };
	bool final_hit = !cf_semisorted(cf), hit;
	u32 seq;

	for (;;) {
		seq = cf_read_begin(cf, &r);
		hit = cf_probe_many_any(cf, h, n);
		if ((hit && final_hit) || cf_read_stands(cf, seq, &r))
			break;
	}
	cf_read_end(cf, &r);
	return hit;
}

/*
 * The lookup of cf_contains_any() and cf_contains_any_hash() once their
 * n <= CF_ANY_MAX keys are hashed.  One sequence snapshot covers the
 * probes; a miss (or in semi-sorted buckets any answer) during a move is
 * asked again, the group as one.  Inline in both, so that
 * cf_contains_any(), the lookup of a filter of one stage, costs what it
 * did before it was shared.
 */
static __always_inline bool cf_contains_any_hashed(const struct cuckoo_filter *cf,
						   const struct cf_hash *h, u32 n)
{
	bool hit;
	u32 seq;

	seq = CF_READ(cf->seq);
	cf_rmb();
	hit = cf_probe_many_any(cf, h, n);
	if (hit && !cf_semisorted(cf))
		return true;
	cf_rmb();
	if (likely(!((seq & 1) | (CF_READ(cf->seq) ^ seq))))
		return hit;
	return cf_contains_any_again(cf, h, n);
}

/**
 * cf_contains_any - is any of n keys (maybe) present?  See cuckoo.h.
 * @cf:		the filter
 * @keys:	n keys of @len bytes each, back to back
 * @len:	bytes of a key
 * @n:		1..CF_ANY_MAX keys (more are not looked at)
 */
bool cf_contains_any(const struct cuckoo_filter *cf, const void *keys,
		     u32 len, u32 n)
{
	struct cf_hash h[CF_ANY_MAX];
	const u8 *p = keys;
	u32 k;

	if (n > CF_ANY_MAX)
		n = CF_ANY_MAX;
	for (k = 0; k < n; k++)
		cf_hash_key(cf, p + (u64)k * len, len, &h[k]);
	return cf_contains_any_hashed(cf, h, n);
}

/**
 * cf_contains_any_hash - cf_contains_any() of keys hashed by cf_key_hash()
 * @cf:		the filter
 * @kh:		the hashes of n keys
 * @n:		1..CF_ANY_MAX keys (more are not looked at)
 *
 * The lookup of each stage of a filter that grew: its stages share a
 * seed, so a packet's keys are hashed once for all of them, and each
 * stage only derives its own buckets and fingerprints from the hashes.
 */
bool cf_contains_any_hash(const struct cuckoo_filter *cf,
			  const struct cf_key_hash *kh, u32 n)
{
	struct cf_hash h[CF_ANY_MAX];
	u32 k;

	if (n > CF_ANY_MAX)
		n = CF_ANY_MAX;
	for (k = 0; k < n; k++)
		cf_hash_set(cf, kh[k].c, kh[k].second, &h[k]);
	return cf_contains_any_hashed(cf, h, n);
}

/*
 * Batched lookups serve userspace (benchmarks, tests); the module asks one
 * key per packet and has no use for them, so it is built without.
 */
#ifndef __KERNEL__

/*
 * Is fp in either of the semi-sorted f = 13 buckets held in v1 and v2
 * (cf_ss_word())?  cf_ss_word_has() matches nibbles and low parts as two
 * sets of lanes and gathers each set's flags to meet; here cf_ss_decode9
 * spreads the nibbles to the 9-bit lanes of the low parts, so that lane j
 * of (lows ^ lo) | (nibbles ^ hi) is zero exactly where slot j is fp, and
 * the test for a zero lane is a plain bucket's.  Same answers, same reads;
 * the compare loop of a group went from 75 instructions a key to 41 (gcc
 * 12, -O2, x86-64).  The table (16 KiB) is userspace's alone, as batches
 * are.
 */
static __always_inline bool cf_ss13_pair_has(u64 v1, u64 v2, u32 fp)
{
	u64 ones = cf_lane_ones(9, 4), lo = (fp & 511) * ones;
	u64 hi = (fp >> 9) * ones, x1, x2;
	bool in1, in2;

	x1 = ((v1 >> CF_SS_CODE_BITS) ^ lo) |
	     (cf_ss_decode9[v1 & ((1U << CF_SS_CODE_BITS) - 1)] ^ hi);
	x2 = ((v2 >> CF_SS_CODE_BITS) ^ lo) |
	     (cf_ss_decode9[v2 & ((1U << CF_SS_CODE_BITS) - 1)] ^ hi);
	in1 = cf_word_has_fps(x1, 0, 9, 4);
	in2 = cf_word_has_fps(x2, 0, 9, 4);
	return in1 | in2;
}

/*
 * One group of cf_batch(), m <= CF_BATCH_GROUP keys: hash every key, then
 * read every bucket, then compare.  A lookup is a few dozen instructions
 * around two cache misses; done one after another, the CPU's reorder
 * window holds the misses of only a key or two at a time.  Split into
 * passes, the reads of a whole group are in flight together, and the
 * hashing pass, with the keys in its inner loops (cf_jhash_pair_many()),
 * runs several keys per instruction where the compiler can.  (Prefetching
 * ahead, the usual cure, did worse: on the machines measured a prefetch
 * waited for its page walk like a load.)  The victim is the one read
 * before the batch began; see cf_batch().  ss: semi-sorted buckets, b = 4.
 */
static __always_inline u32 cf_batch_group(const struct cuckoo_filter *cf,
					  const u8 *keys, u32 key_len, u32 m,
					  u64 victim, u8 *hits,
					  unsigned int f, unsigned int b,
					  bool ss)
{
	u32 i1[CF_BATCH_GROUP], i2[CF_BATCH_GROUP], fp[CF_BATCH_GROUP];
	u64 w1[CF_BATCH_GROUP], w2[CF_BATCH_GROUP];
	u8 hit[CF_BATCH_GROUP];
	const u64 *t = cf->table;
	struct cf_hash h;
	u32 k, found = 0;
	bool in1, in2;

	/*
	 * c lands in i1, the second hash in fp.  Only a constant m lets the
	 * compiler vectorise cf_jhash_pair_many() (a jhash filter's).
	 */
	if (CF_BATCH_SIMD && __builtin_constant_p(m) &&
	    cf->hash == CF_HASH_JHASH)
		cf_jhash_pair_many(keys, key_len, m, (u32)cf->seed,
				   (u32)(cf->seed >> 32), i2, fp, i1);
	else
		for (k = 0; k < m; k++)
			i1[k] = cf_key_pair(cf, keys + (u64)k * key_len,
					    key_len, &fp[k]);
	for (k = 0; k < m; k++) {
		cf_hash_set(cf, i1[k], fp[k], &h);
		i1[k] = h.i1;
		i2[k] = h.i2;
		fp[k] = h.fp;
	}
	if (ss && cf_ss_one_word(f)) {
		/* As below: every read in flight before any is decoded. */
		for (k = 0; k < m; k++) {
			w1[k] = cf_ss_word(t, i1[k], f);
			w2[k] = cf_ss_word(t, i2[k], f);
		}
		for (k = 0; k < m; k++) {
			if (f == 13) {
				hit[k] = cf_ss13_pair_has(w1[k], w2[k], fp[k]);
				continue;
			}
			in1 = cf_ss_word_has(w1[k], fp[k], f);
			in2 = cf_ss_word_has(w2[k], fp[k], f);
			hit[k] = in1 | in2;
		}
	} else if (ss) {
		for (k = 0; k < m; k++) {
			in1 = cf_ss_has(t, i1[k], fp[k], f);
			in2 = cf_ss_has(t, i2[k], fp[k], f);
			hit[k] = in1 | in2;
		}
	} else if (cf_small_buckets(f, b)) {
		for (k = 0; k < m; k++) {
			w1[k] = cf_bucket_bits(t, i1[k], f, b);
			w2[k] = cf_bucket_bits(t, i2[k], f, b);
		}
		for (k = 0; k < m; k++) {
			in1 = cf_word_has(w1[k], fp[k], f, b);
			in2 = cf_word_has(w2[k], fp[k], f, b);
			hit[k] = in1 | in2;
		}
	} else {
		for (k = 0; k < m; k++) {
			in1 = cf_bucket_has(t, i1[k], fp[k], f, b);
			in2 = cf_bucket_has(t, i2[k], fp[k], f, b);
			hit[k] = in1 | in2;
		}
	}
	if (victim) {
		for (k = 0; k < m; k++) {
			h = (struct cf_hash){ i1[k], i2[k], fp[k] };
			hit[k] |= cf_victim_match(victim, &h);
		}
	}
	for (k = 0; k < m; k++) {
		if (hits)
			hits[k] = hit[k];
		found += hit[k];
	}
	return found;
}

/* Groups of size keys from key *k on, while that many are left. */
static __always_inline u32 cf_batch_groups(const struct cuckoo_filter *cf,
					   const u8 *keys, u32 key_len, u32 n,
					   u32 *k, u32 size, u64 victim,
					   u8 *hits, unsigned int f,
					   unsigned int b, bool ss)
{
	u32 found = 0;

	for (; n - *k >= size; *k += size)
		found += cf_batch_group(cf, keys + (u64)*k * key_len, key_len,
					size, victim, hits ? hits + *k : NULL,
					f, b, ss);
	return found;
}

/*
 * One sequence snapshot covers the whole batch; if a move happened
 * meanwhile, the caller looks the misses up again one by one.  So does
 * one read of the victim: an item in the victim slot for the whole batch
 * is in it at that read, and the victim only goes back into the table
 * inside a move.
 *
 * Only groups of a constant size can be vectorised, so with SIMD the keys
 * go in groups of 64, then 32, then 16, and only the last few in a group
 * of a size known at run time.  Without, one constant size does.
 */
static __always_inline u32 cf_batch(const struct cuckoo_filter *cf,
				    const u8 *keys, u32 key_len, u32 n,
				    u8 *hits, unsigned int f, unsigned int b,
				    bool ss)
{
	u32 k = 0, found, seq;
	u64 victim;

	seq = CF_READ(cf->seq);
	cf_rmb();
	victim = CF_READ(cf->victim);
	found = cf_batch_groups(cf, keys, key_len, n, &k, CF_BATCH_GROUP,
				victim, hits, f, b, ss);
	if (CF_BATCH_SIMD) {
		found += cf_batch_groups(cf, keys, key_len, n, &k,
					 CF_BATCH_GROUP / 2, victim, hits, f, b,
					 ss);
		found += cf_batch_groups(cf, keys, key_len, n, &k,
					 CF_BATCH_GROUP / 4, victim, hits, f, b,
					 ss);
	}
	if (k < n)
		found += cf_batch_group(cf, keys + (u64)k * key_len, key_len,
					n - k, victim, hits ? hits + k : NULL,
					f, b, ss);
	cf_rmb();
	if (likely(!(seq & 1) && CF_READ(cf->seq) == seq))
		return found;
	return (u32)-1;
}

static u32 cf_batch_any(const struct cuckoo_filter *cf, const u8 *keys,
			u32 key_len, u32 n, u8 *hits)
{
	switch (cf->layout) {
	case CF_LAYOUT_F8_B4:
		return cf_batch(cf, keys, key_len, n, hits, 8, 4, false);
	case CF_LAYOUT_F12_B4:
		return cf_batch(cf, keys, key_len, n, hits, 12, 4, false);
	case CF_LAYOUT_F16_B4:
		return cf_batch(cf, keys, key_len, n, hits, 16, 4, false);
	case CF_LAYOUT_F32_B4:
		return cf_batch(cf, keys, key_len, n, hits, 32, 4, false);
	case CF_LAYOUT_SEMISORT:
		/* f = 13 is what fpr 0.1% picks: its fields at constant places. */
		if (cf->fp_bits == 13)
			return cf_batch(cf, keys, key_len, n, hits, 13, 4, true);
		return cf_batch(cf, keys, key_len, n, hits, cf->fp_bits, 4,
				true);
	default:
		return cf_batch(cf, keys, key_len, n, hits, cf->fp_bits,
				cf->bucket_size, false);
	}
}

/*
 * cf_contains_batch() of n keys hashed by cf_key_hash(): the batches of a
 * filter that grew, whose keys are hashed once for all its stages.  The
 * probes of all the keys in a row, with no branch on an answer, so that
 * their reads overlap.
 */
u32 cf_contains_batch_hash(const struct cuckoo_filter *cf,
			   const struct cf_key_hash *kh, u32 n, u8 *hits)
{
	struct cf_hash h;
	u32 k, found = 0, seq;
	bool stands;

	seq = CF_READ(cf->seq);
	cf_rmb();
	for (k = 0; k < n; k++) {
		cf_hash_set(cf, kh[k].c, kh[k].second, &h);
		hits[k] = cf->layout == CF_LAYOUT_B4 ? cf_b4_probe(cf, &h) :
						       cf_probe_any(cf, &h);
	}
	cf_rmb();
	/* The counter never comes back: one look at it tells for all. */
	stands = !(seq & 1) && CF_READ(cf->seq) == seq;
	for (k = 0; k < n; k++) {
		if (stands && !cf_semisorted(cf))
			break;
		cf_hash_set(cf, kh[k].c, kh[k].second, &h);
		hits[k] = cf_contains_hashed(cf, &h, !stands);
	}
	for (k = 0; k < n; k++)
		found += hits[k];
	return found;
}

/**
 * cf_contains_batch - look up n keys of key_len bytes each, stored back to
 * back at keys; hits[k] (if hits is not NULL) is set to 1 where key k may
 * be present, 0 where it is absent.  Returns the number of hits.
 */
u32 cf_contains_batch(const struct cuckoo_filter *cf, const void *keys,
		      u32 key_len, u32 n, u8 *hits)
{
	const u8 *p = keys;
	struct cf_hash h;
	bool final_hits;
	u32 found, k;

	found = cf_batch_any(cf, p, key_len, n, hits);
	if (likely(found != (u32)-1))
		return found;
	/*
	 * A move overlapped the batch: recount, looking up misses again (and
	 * hits too in semi-sorted buckets, where a torn read may hit).
	 */
	final_hits = hits && !cf_semisorted(cf);
	for (found = 0, k = 0; k < n; k++) {
		cf_hash_key(cf, p + (u64)k * key_len, key_len, &h);
		if (final_hits && hits[k]) {
			found++;
			continue;
		}
		if (cf_contains_hashed(cf, &h, 1)) {
			found++;
			if (hits)
				hits[k] = 1;
		} else if (hits) {
			hits[k] = 0;
		}
	}
	return found;
}

#endif /* !__KERNEL__ */

/* ---- The writer's side: slot by slot, serialised by the caller. ---- */

/*
 * Stores v (width <= 64 bits, nothing above) at bit pos, rewriting only
 * the words it lies in, each with one store.
 */
static __always_inline void cf_bits_put(u64 *t, u64 pos, unsigned int width,
					u64 v)
{
	u64 w = pos >> 6, old, mask = cf_low_mask(width);
	unsigned int sh = pos & 63, lo_bits = 64 - sh;

	old = CF_READ(t[w]);
	CF_WRITE(t[w], (old & ~(mask << sh)) | (v << sh));
	if (sh + width <= 64)
		return;
	old = CF_READ(t[w + 1]);
	CF_WRITE(t[w + 1], (old & ~(mask >> lo_bits)) | (v >> lo_bits));
}

static void cf_bits_store(u64 *t, u64 pos, unsigned int width, u64 v)
{
	cf_bits_put(t, pos, width, v);
}

/*
 * Semi-sorted buckets of one word with f <= 15, rewritten without
 * unpacking them into an array: the four fingerprints of bucket bits v
 * (garbage above) in the 16-bit lanes of a word, ascending from lane 0.
 */
static __always_inline bool cf_ss_lanes16_ok(unsigned int f)
{
	return f <= 15;
}

static __always_inline u64 cf_ss_lanes16(u64 v, unsigned int f)
{
	unsigned int d = f - 4;
	u64 m = cf_low_mask(d), nib = cf_ss_decode[v & 0xfff], lows, n, l;

	lows = v >> CF_SS_CODE_BITS;
	n = (nib & 0xf) | (nib & 0xf0) << 12 | (nib & 0xf00) << 24 |
	    (nib & 0xf000) << 36;
	l = (lows & m) | (lows & m << d) << (16 - d) |
	    (lows & m << 2 * d) << (32 - 2 * d) |
	    (lows & m << 3 * d) << (48 - 3 * d);
	return n << d | l;
}

/*
 * Lane s of sorted lanes x replaced by fp (< 2^15), the lanes sorted
 * again: lane s taken out (the lanes above move down, the top one becomes
 * 0x7fff, above any fingerprint), then fp put in before the first lane
 * not below it, found in every lane at once: (lane | 0x8000) - fp borrows
 * from no other lane and keeps its top bit exactly when lane >= fp.
 */
static __always_inline u64 cf_ss_lanes16_put(u64 x, unsigned int s, u32 fp)
{
	u64 hi = 0x8000800080008000ULL, keep = (1ULL << 16 * s) - 1, ge;
	unsigned int p;

	x = (x & keep) | ((x >> 16) & ~keep) | 0x7fffULL << 48;
	ge = ((x | hi) - fp * 0x0001000100010001ULL) & hi;
	p = __builtin_ctzll(ge) / 16;
	keep = (1ULL << 16 * p) - 1;
	return (x & keep) | (u64)fp << 16 * p | (x & ~keep) << 16;
}

/* cf_ss_pack() of sorted lanes x: the bucket's bits, zero above it. */
static __always_inline u64 cf_ss_pack16(u64 x, unsigned int f)
{
	unsigned int d = f - 4;
	u64 m = cf_low_mask(d), code, lows;

	code = (x >> d & 15) + cf_ss_rank[0][x >> (16 + d) & 15] +
	       cf_ss_rank[1][x >> (32 + d) & 15] +
	       cf_ss_rank[2][x >> (48 + d) & 15];
	lows = (x & m) | (x >> (16 - d) & m << d) |
	       (x >> (32 - 2 * d) & m << 2 * d) |
	       (x >> (48 - 3 * d) & m << 3 * d);
	return code | lows << CF_SS_CODE_BITS;
}

/* Semi-sorted bucket i's fingerprints, ascending (zeros, the free, first). */
static void cf_ss_read(const struct cuckoo_filter *cf, u32 i, u32 *fps)
{
	u64 v0, v1;

	cf_ss_load(cf->table, i, cf->fp_bits, &v0, &v1);
	cf_ss_unpack(v0, v1, cf->fp_bits, fps);
}

/*
 * Slot s of semi-sorted bucket i set to fp, the bucket sorted and written
 * whole, in up to three words: inside a sequence-counter section, which
 * is the caller's (readers may see any mix of old and new words).  f is a
 * constant where the caller can make it one.  Buckets of one word with
 * f <= 15 are re-sorted in 16-bit lanes, the others through an array.
 */
static __always_inline void cf_ss_set(u64 *t, u32 i, unsigned int s, u32 fp,
				      unsigned int f)
{
	unsigned int w = 4 * f - 4;
	u64 pos = (u64)i * w, v0, v1;
	u32 fps[4];

	if (cf_ss_one_word(f) && cf_ss_lanes16_ok(f)) {
		v0 = cf_ss_lanes16(cf_ss_word(t, i, f), f);
		cf_bits_put(t, pos, w, cf_ss_pack16(cf_ss_lanes16_put(v0, s, fp),
						   f));
		return;
	}
	cf_ss_load(t, i, f, &v0, &v1);
	cf_ss_unpack(v0, v1, f, fps);
	fps[s] = fp;
	cf_ss_pack(fps, f, &v0, &v1);
	cf_bits_store(t, pos, w < 64 ? w : 64, v0);
	if (w > 64)
		cf_bits_store(t, pos + 64, w - 64, v1);
}

/*
 * Slot s of bucket i.  In a semi-sorted bucket, slots are places in the
 * sorted order: they hold other fingerprints once the bucket changes.
 */
static u32 cf_slot_get(const struct cuckoo_filter *cf, u32 i, unsigned int s)
{
	u64 pos = ((u64)i * cf->bucket_size + s) * cf->fp_bits;
	u32 fps[4];

	if (cf_semisorted(cf)) {
		cf_ss_read(cf, i, fps);
		return fps[s];
	}
	return (u32)cf_bits_at(cf->table, pos, cf->fp_bits, false) &
	       cf->fp_mask;
}

/*
 * cf_slot_set() of a semi-sorted table, out of line: neither the plain
 * slot's store nor the f = 13 bucket's then saves registers that only
 * the general one needs.
 */
static cf_noinline void cf_ss_set_13(u64 *t, u32 i, unsigned int s, u32 fp)
{
	cf_ss_set(t, i, s, fp, 13);
}

static cf_noinline void cf_ss_set_any(u64 *t, u32 i, unsigned int s, u32 fp,
				      unsigned int f)
{
	cf_ss_set(t, i, s, fp, f);
}

/* Inside a sequence-counter section if the table is semi-sorted. */
static __always_inline void cf_slot_set(struct cuckoo_filter *cf, u32 i,
					unsigned int s, u32 fp)
{
	u64 pos = ((u64)i * cf->bucket_size + s) * cf->fp_bits;

	if (cf_semisorted(cf)) {
		if (cf->fp_bits == 13)
			cf_ss_set_13(cf->table, i, s, fp);
		else
			cf_ss_set_any(cf->table, i, s, fp, cf->fp_bits);
		return;
	}
	cf_bits_store(cf->table, pos, cf->fp_bits, fp);
}

/* The writer's read of a bucket of at most 64 bits (cf->lane_ones set). */
static __always_inline u64 cf_bucket_word(const struct cuckoo_filter *cf,
					  u32 i)
{
	unsigned int f = cf->fp_bits, b = cf->bucket_size;

	return cf_bits_at(cf->table, (u64)i * b * f, f * b, false);
}

/* The b fingerprints of bucket i, read at once where the bucket fits. */
static void cf_bucket_fps(const struct cuckoo_filter *cf, u32 i, u32 *fps)
{
	unsigned int f = cf->fp_bits, b = cf->bucket_size, s;
	u64 v;

	if (cf_semisorted(cf)) {
		cf_ss_read(cf, i, fps);
		return;
	}
	if (!cf->lane_ones) {
		for (s = 0; s < b; s++)
			fps[s] = cf_slot_get(cf, i, s);
		return;
	}
	v = cf_bucket_word(cf, i);
	for (s = 0; s < b; s++)
		fps[s] = (u32)(v >> (s * f)) & cf->fp_mask;
}

/*
 * How many slots of bucket i hold fp (0: how many are free), and the
 * first of them in *first (-1: none).  A bucket of at most 64 bits is
 * read once and compared in every lane at once: with x = bucket ^ fp in
 * each lane, a lane of x is zero exactly when ((x & low) + low) | x lacks
 * its high bit, and no sum carries into the next lane (cf_word_has() is
 * cheaper but may mark lanes above a match).  Shifted down to the lowest
 * bit of each lane and multiplied by lane_ones, those bits add up in the
 * top lane, which holds 8 and more.
 */
/*
 * cf_slots_holding() of a semi-sorted bucket of one word, 8 <= f <= 17:
 * every lane at once, as cf_ss_has() looks; slot s is lane s.
 */
static __always_inline unsigned int cf_ss_slots_holding(const u64 *t, u32 i,
							u32 fp, int *first,
							unsigned int f)
{
	unsigned int d = f - 4;
	u64 v = cf_ss_word(t, i, f);
	u32 m = cf_ss_lanes_match(v >> CF_SS_CODE_BITS,
				  cf_ss_decode[v & ((1U << CF_SS_CODE_BITS) - 1)],
				  fp >> d, fp & (u32)cf_low_mask(d), d);

	*first = m ? __builtin_ctz(m) : -1;
	/* The bits set in each 4-bit m, without a popcount instruction. */
	return (0x4332322132212110ULL >> (4 * m)) & 15;
}

static unsigned int cf_slots_holding(const struct cuckoo_filter *cf, u32 i,
				     u32 fp, int *first)
{
	unsigned int f = cf->fp_bits, b = cf->bucket_size, s, n = 0;
	u64 ones = cf->lane_ones, low, x, zero;
	u32 fps[8];

	if (cf_semisorted(cf) && f >= 8 && cf_ss_one_word(f)) {
		if (f == 13)
			return cf_ss_slots_holding(cf->table, i, fp, first, 13);
		return cf_ss_slots_holding(cf->table, i, fp, first, f);
	}
	if (!ones) {
		*first = -1;
		cf_bucket_fps(cf, i, fps);
		for (s = 0; s < b; s++) {
			if (fps[s] != fp)
				continue;
			if (!n++)
				*first = s;
		}
		return n;
	}
	low = ones * (cf->fp_mask >> 1);
	x = cf_bucket_word(cf, i) ^ (fp * ones);
	zero = ~(((x & low) + low) | x) & (ones << (f - 1));
	*first = zero ? (int)(__builtin_ctzll(zero) / f) : -1;
	return (u32)(((zero >> (f - 1)) * ones) >> ((b - 1) * f)) & cf->fp_mask;
}

static int cf_slot_find(const struct cuckoo_filter *cf, u32 i, u32 fp)
{
	int first;

	cf_slots_holding(cf, i, fp, &first);
	return first;
}

static void cf_count_add(struct cuckoo_filter *cf, int delta)
{
	CF_WRITE(cf->count, cf->count + delta);
}

/*
 * Spins of a writer waiting for readers between two cf_resched(): a
 * reader is counted for a try or two, well under a microsecond, unless
 * it was interrupted.
 */
#define CF_WAIT_SPINS		256

/*
 * Open no section while readers wait (cf_read_begin()), so that they
 * cannot be starved by a writer that opens one after another.  The fence
 * orders the end of our last section before the read of the count; see
 * there.  Waiting with bottom halves enabled lets a softirq reader on
 * this CPU finish: it fails no try while we wait.
 */
static void cf_wait_readers(struct cuckoo_filter *cf)
{
	unsigned int spins = 0;

	cf_mb();
	while (cf_atomic_read(&cf->waiters) && !cf_waiters_ignored()) {
		if (++spins % CF_WAIT_SPINS)
			cf_cpu_relax();
		else
			cf_resched();
	}
}

static void cf_write_begin(struct cuckoo_filter *cf)
{
	cf_wait_readers(cf);
	cf_write_lock_bh();
	CF_WRITE(cf->seq, cf->seq + 1);
	cf_wmb();
}

static void cf_write_end(struct cuckoo_filter *cf)
{
	cf_wmb();
	CF_WRITE(cf->seq, cf->seq + 1);
	cf_write_unlock_bh();
}

/*
 * A search path must not use a slot twice, or moving backwards along it
 * would read a slot it had already overwritten.  Nor, in semi-sorted
 * buckets (any_slot), a bucket twice: a write re-sorts the bucket, and its
 * other slots (places in the sorted order) then hold other fingerprints.
 * Shortest paths never do either; this check makes sure rather than trust
 * that.
 */
static bool cf_path_sane(const struct cf_bfs_node *q, u32 node,
			 bool any_slot)
{
	u32 a, b, len = 0, path[CF_PATH_MAX + 1];

	for (;; node = q[node].parent) {
		if (len == CF_PATH_MAX + 1)
			return false;
		path[len++] = node;
		if (q[node].parent == CF_BFS_ROOT)
			break;
	}
	/* The path leaves slot q[path[a]].slot of bucket q[path[a + 1]]. */
	for (a = 0; a + 1 < len; a++) {
		for (b = a + 1; b < len; b++) {
			if (any_slot && q[path[a]].bucket == q[path[b]].bucket)
				return false;
			if (b + 1 < len &&
			    q[path[a + 1]].bucket == q[path[b + 1]].bucket &&
			    q[path[a]].slot == q[path[b]].slot)
				return false;
		}
	}
	return true;
}

/*
 * One slot changed outside a move.  A plain slot is one store, which
 * readers see before or after.  A semi-sorted bucket is rewritten whole,
 * its other fingerprints moved to other bits, so readers must be told.
 */
static void cf_slot_put(struct cuckoo_filter *cf, u32 i, unsigned int s,
			u32 fp)
{
	if (!cf_semisorted(cf)) {
		cf_slot_set(cf, i, s, fp);
		return;
	}
	cf_write_begin(cf);
	cf_slot_set(cf, i, s, fp);
	cf_write_end(cf);
}

/*
 * Move along the path that ends at node, whose bucket has slot free, from
 * the free end backwards: each fingerprint is copied into its other bucket
 * before its old slot is reused, so it is always in one of its buckets.
 * Finally fp takes the slot freed in a root bucket.  If from_victim, fp is
 * the victim's, and the victim slot is emptied inside the same section.
 */
static void cf_commit_path(struct cuckoo_filter *cf, u32 node,
			   unsigned int slot, u32 fp, bool from_victim)
{
	const struct cf_bfs_node *q = cf->bfs;
	u32 bucket = q[node].bucket, parent;

	cf_write_begin(cf);
	for (; q[node].parent != CF_BFS_ROOT; node = parent) {
		parent = q[node].parent;
		cf_slot_set(cf, bucket, slot,
			    cf_slot_get(cf, q[parent].bucket, q[node].slot));
		cf_wmb();
		bucket = q[parent].bucket;
		slot = q[node].slot;
	}
	cf_slot_set(cf, bucket, slot, fp);
	if (from_victim) {
		cf_wmb();
		CF_WRITE(cf->victim, 0);
	}
	cf_write_end(cf);
}

/*
 * Breadth-first search for the shortest chain of displacements from one of
 * fp's buckets to a free slot, examining at most max_kicks candidates.
 * Returns the node whose bucket has a free slot (in *slot), or -1.
 */
static int cf_search(struct cuckoo_filter *cf, const struct cf_hash *h,
		     int *slot)
{
	struct cf_bfs_node *q = cf->bfs;
	u32 head, tail = 0, roots, budget, bucket, alt, back, fps[8];
	unsigned int s;

	q[tail++] = (struct cf_bfs_node){ h->i1, CF_BFS_ROOT, 0 };
	if (h->i2 != h->i1)
		q[tail++] = (struct cf_bfs_node){ h->i2, CF_BFS_ROOT, 0 };
	roots = tail;
	budget = roots + cf->max_kicks;
	for (head = 0; head < tail; head++) {
		bucket = q[head].bucket;
		back = q[head].parent == CF_BFS_ROOT ? bucket :
		       q[q[head].parent].bucket;
		cf_bucket_fps(cf, bucket, fps);
		for (s = 0; s < cf->bucket_size; s++) {
			alt = cf_alt(cf, bucket, fps[s]);
			/* Going back where we came from gains nothing. */
			if (alt == bucket || alt == back)
				continue;
			if (tail == budget)
				return -1;
			q[tail] = (struct cf_bfs_node){ alt, (u16)head, (u8)s };
			*slot = cf_slot_find(cf, alt, 0);
			if (*slot >= 0)
				return tail;
			tail++;
		}
	}
	return -1;
}

/*
 * Every insert asks this of both its buckets: for semi-sorted f = 13
 * (what fpr 0.1% picks) the one-word count is inlined, fp 0 folded in.
 */
static __always_inline unsigned int
cf_free_slots(const struct cuckoo_filter *cf, u32 i, int *first)
{
	if (cf_semisorted(cf) && cf->fp_bits == 13)
		return cf_ss_slots_holding(cf->table, i, 0, first, 13);
	return cf_slots_holding(cf, i, 0, first);
}

/*
 * Which root takes a new fingerprint: the bucket with more free slots, so
 * that buckets fill evenly and long displacement chains come later.
 * Returns 0 for i1, 1 for i2; *slot is -1 if both are full.
 */
static int cf_emptier(const struct cuckoo_filter *cf, const struct cf_hash *h,
		      int *slot)
{
	int s1, s2 = -1;
	unsigned int n1 = cf_free_slots(cf, h->i1, &s1);
	unsigned int n2 = h->i2 == h->i1 ? 0 : cf_free_slots(cf, h->i2, &s2);

	if (n2 > n1) {
		*slot = s2;
		return 1;
	}
	*slot = s1;
	return 0;
}

/* Put fp in one of its buckets, displacing others if need be. */
static bool cf_place(struct cuckoo_filter *cf, const struct cf_hash *h,
		     bool from_victim)
{
	int node, slot;

	node = cf_emptier(cf, h, &slot);
	if (slot >= 0 && !from_victim) {
		/* A new fingerprint: readers of plain slots need no warning. */
		cf_slot_put(cf, node ? h->i2 : h->i1, slot, h->fp);
		return true;
	}
	/* Without the writer's loan, no search: as if it had failed. */
	if (CF_WARN_ON_ONCE(!cf->bfs))
		return false;
	if (slot < 0)
		node = cf_search(cf, h, &slot);
	else
		cf->bfs[node] = (struct cf_bfs_node){
			node ? h->i2 : h->i1, CF_BFS_ROOT, 0 };
	if (node < 0 || !cf_path_sane(cf->bfs, node, cf_semisorted(cf)))
		return false;
	cf_commit_path(cf, node, slot, h->fp, from_victim);
	return true;
}

static int cf_add_hashed(struct cuckoo_filter *cf, const struct cf_hash *h)
{
	if (CF_READ(cf->victim))
		return -ENOSPC;
	if (!cf_place(cf, h, false))
		/* Keep it rather than fail: the next insert will. */
		CF_WRITE(cf->victim, (u64)h->fp << 32 | h->i1);
	cf_count_add(cf, 1);
	return 0;
}

/**
 * cf_add - add a key (another copy if it is already there)
 * Returns 0, or -ENOSPC when the filter is full; nothing is lost then.
 */
int cf_add(struct cuckoo_filter *cf, const void *key, u32 len)
{
	struct cf_hash h;

	cf_hash_key(cf, key, len, &h);
	return cf_add_hashed(cf, &h);
}

/**
 * cf_readd - add back a key that was just deleted (an undo)
 * Its delete freed a slot in one of its buckets, which cf_add() would not
 * look at while the victim is taken (a delete rehomes the victim only if
 * a search from the victim's buckets reaches free room).  Returns 0, or
 * -ENOSPC if something took that room since.
 */
int cf_readd(struct cuckoo_filter *cf, const void *key, u32 len)
{
	struct cf_hash h;

	cf_hash_key(cf, key, len, &h);
	if (cf_place(cf, &h, false)) {
		cf_count_add(cf, 1);
		return 0;
	}
	return cf_add_hashed(cf, &h);
}

/* cf_add() of a key hashed by cf_key_hash(). */
int cf_add_hash(struct cuckoo_filter *cf, const struct cf_key_hash *kh)
{
	struct cf_hash h;

	cf_hash_set(cf, kh->c, kh->second, &h);
	return cf_add_hashed(cf, &h);
}

/*
 * Is the hashed key (maybe) present?  The writer's question, under its
 * lock, where nothing moves: no sequence counter.
 */
bool cf_has_hash(const struct cuckoo_filter *cf, const struct cf_key_hash *kh)
{
	struct cf_hash h;

	cf_hash_set(cf, kh->c, kh->second, &h);
	return cf_probe_any(cf, &h);
}

/**
 * cf_add_unique - add a key unless it may already be present
 * Returns 0, -EEXIST if the filter already answers yes for it (which a
 * false positive can cause too), or -ENOSPC.
 */
int cf_add_unique(struct cuckoo_filter *cf, const void *key, u32 len)
{
	struct cf_hash h;

	cf_hash_key(cf, key, len, &h);
	if (cf_probe_any(cf, &h))
		return -EEXIST;
	return cf_add_hashed(cf, &h);
}

/* After a delete: if the victim now fits, take it back into the table. */
static void cf_rehome_victim(struct cuckoo_filter *cf)
{
	u64 v = cf->victim;
	struct cf_hash h;

	if (!v)
		return;
	h.fp = CF_VICTIM_FP(v);
	h.i1 = CF_VICTIM_BUCKET(v);
	h.i2 = cf_alt(cf, h.i1, h.fp);
	cf_place(cf, &h, true);
}

static bool cf_slot_remove(struct cuckoo_filter *cf, u32 i, u32 fp)
{
	int s = cf_slot_find(cf, i, fp);

	if (s < 0)
		return false;
	cf_slot_put(cf, i, s, 0);
	return true;
}

static int cf_delete_hashed(struct cuckoo_filter *cf, const struct cf_hash *h)
{
	if (cf_victim_is(cf, h)) {
		CF_WRITE(cf->victim, 0);
	} else if (!cf_slot_remove(cf, h->i1, h->fp) &&
		   !cf_slot_remove(cf, h->i2, h->fp)) {
		return -ENOENT;
	}
	cf_count_add(cf, -1);
	cf_rehome_victim(cf);
	return 0;
}

/**
 * cf_delete - remove one copy of a key
 * Returns 0, or -ENOENT if no copy (nor any fingerprint like it) is there.
 * Deleting a key that was never added may remove another key: see cuckoo.h.
 */
int cf_delete(struct cuckoo_filter *cf, const void *key, u32 len)
{
	struct cf_hash h;

	cf_hash_key(cf, key, len, &h);
	return cf_delete_hashed(cf, &h);
}

/* cf_delete() of a key hashed by cf_key_hash(). */
int cf_delete_hash(struct cuckoo_filter *cf, const struct cf_key_hash *kh)
{
	struct cf_hash h;

	cf_hash_set(cf, kh->c, kh->second, &h);
	return cf_delete_hashed(cf, &h);
}

/*
 * Words of a semi-sorted table that cf_clear() zeroes in one sequence
 * section: readers never see a bucket half zeroed (which might decode to
 * fingerprints it never held), and wait at most this many stores.
 */
#define CF_CLEAR_SECTION	64

void cf_clear(struct cuckoo_filter *cf)
{
	bool ss = cf_semisorted(cf);
	u64 w, end, step = ss ? CF_CLEAR_SECTION : CF_RESCHED_EVERY;

	for (w = 0; w < cf->table_words;) {
		end = cf->table_words - w < step ? cf->table_words : w + step;
		if (ss)
			cf_write_begin(cf);
		for (; w < end; w++)
			CF_WRITE(cf->table[w], 0);
		if (ss)
			cf_write_end(cf);
		if (!(w % CF_RESCHED_EVERY))
			cf_resched();
	}
	CF_WRITE(cf->victim, 0);
	CF_WRITE(cf->count, 0);
}

static u8 cf_layout_of(unsigned int f, unsigned int b)
{
	if (b != 4)
		return CF_LAYOUT_GENERIC;
	switch (f) {
	case 8:
		return CF_LAYOUT_F8_B4;
	case 12:
		return CF_LAYOUT_F12_B4;
	case 16:
		return CF_LAYOUT_F16_B4;
	case 32:
		return CF_LAYOUT_F32_B4;
	default:
		return CF_LAYOUT_B4;
	}
}

int cf_create(struct cuckoo_filter **out, const struct cf_params *in)
{
	struct cf_params p = *in;
	struct cuckoo_filter *cf;
	int err;

	err = cf_params_resolve(&p);
	if (err)
		return err;
	cf = cf_zalloc(sizeof(*cf));
	if (!cf)
		return -ENOMEM;
	cf->nbuckets = (u32)cf_nbuckets_for(p.capacity, p.bucket_size);
	cf->bucket_bits = cf_bucket_bits_of(p.encoding, p.bucket_size,
					    p.fp_bits);
	cf->table_bits = (u64)cf->nbuckets * cf->bucket_bits;
	cf->table_words = cf_table_words(cf->nbuckets, cf->bucket_bits);
	cf->fp_bits = p.fp_bits;
	cf->fp_mask = (u32)cf_low_mask(p.fp_bits);
	cf->bucket_size = p.bucket_size;
	cf->layout = p.encoding == CF_ENC_SEMISORT ? CF_LAYOUT_SEMISORT :
		     cf_layout_of(p.fp_bits, p.bucket_size);
	if (cf->layout == CF_LAYOUT_B4) {
		unsigned int lanes = p.fp_bits <= 16 ? 4 : 2;

		cf->b4_chunk = lanes * p.fp_bits;
		cf->b4_ones = cf_lane_ones(p.fp_bits, lanes);
		cf->b4_hi = cf->b4_ones << (p.fp_bits - 1);
	}
	/* Lanes of one word: plain buckets only. */
	if (p.encoding == CF_ENC_PLAIN && p.fp_bits * p.bucket_size <= 64)
		cf->lane_ones = cf_lane_ones(p.fp_bits, p.bucket_size);
	cf->capacity = p.capacity;
	cf->max_kicks = p.max_kicks;
	cf->lent = p.lent_scratch;
	cf->seed = p.seed;
	cf->hash = p.hash;
	err = -ENOMEM;
	cf->table = cf_zalloc(cf->table_words * sizeof(u64));
	if (!cf->table)
		goto err_free;
	if (!cf->lent) {
		cf->bfs = cf_zalloc(cf_scratch_bytes(p.max_kicks));
		if (!cf->bfs)
			goto err_free;
	}
	*out = cf;
	return 0;

err_free:
	cf_free(cf);
	return err;
}

void cf_free(struct cuckoo_filter *cf)
{
	if (!cf)
		return;
	if (!cf->lent)
		cf_free_mem(cf->bfs);
	cf_free_mem(cf->table);
	cf_free_mem(cf);
}

void cf_get_params(const struct cuckoo_filter *cf, struct cf_params *p)
{
	*p = (struct cf_params){
		.capacity = cf->capacity,
		.seed = cf->seed,
		.max_kicks = cf->max_kicks,
		.fp_bits = cf->fp_bits,
		.bucket_size = cf->bucket_size,
		.encoding = cf_semisorted(cf) ? CF_ENC_SEMISORT : CF_ENC_PLAIN,
		.hash = cf->hash,
		.lent_scratch = cf->lent,
	};
}

void cf_lend_scratch(struct cuckoo_filter *cf, void *scratch)
{
	if (cf->lent)
		cf->bfs = scratch;
}

u64 cf_count(const struct cuckoo_filter *cf)
{
	return CF_READ(cf->count);
}

static u64 cf_slots(const struct cuckoo_filter *cf)
{
	return (u64)cf->nbuckets * cf->bucket_size;
}

u32 cf_load_ppm(const struct cuckoo_filter *cf)
{
	return (u32)(cf_count(cf) * 1000000 / cf_slots(cf));
}

u64 cf_bytes(const struct cuckoo_filter *cf)
{
	return cf->table_words * sizeof(u64) +
	       cf_own_scratch_bytes(cf->lent, cf->max_kicks) + sizeof(*cf);
}

void cf_get_stats(const struct cuckoo_filter *cf, struct cf_stats *st)
{
	*st = (struct cf_stats){
		.count = cf_count(cf),
		.slots = cf_slots(cf),
		.nbuckets = cf->nbuckets,
		.bytes = cf_bytes(cf),
		.table_bytes = cf->table_words * sizeof(u64),
		.load_ppm = cf_load_ppm(cf),
		.victim = CF_READ(cf->victim) != 0,
	};
}

/* ---- Raw export and import. ---- */

/*
 * The oldest version that can say what @cf is, so that a jhash filter's
 * image stays readable by the modules that wrote it (cuckoo.h).
 */
static u16 cf_image_version_of(const struct cuckoo_filter *cf)
{
	if (cf->hash != CF_HASH_JHASH)
		return CF_IMAGE_VERSION;
	return cf_semisorted(cf) ? 3 : CF_IMAGE_VERSION_MIN;
}

void cf_export_header(const struct cuckoo_filter *cf, struct cf_image *img)
{
	*img = (struct cf_image){
		.magic = CF_IMAGE_MAGIC,
		.version = cf_image_version_of(cf),
		.fp_bits = cf->fp_bits,
		.bucket_size = cf->bucket_size,
		.nbuckets = cf->nbuckets,
		.max_kicks = cf->max_kicks,
		.encoding = cf_semisorted(cf) ? CF_ENC_SEMISORT : CF_ENC_PLAIN,
		/* Versions before 4 keep the byte 0: jhash. */
		.hash = cf->hash == CF_HASH_JHASH ? 0 : cf->hash,
		.capacity = cf->capacity,
		.seed = cf->seed,
		.victim = CF_READ(cf->victim),
		.table_bytes = cf->table_words * sizeof(u64),
	};
}

static int cf_chunk_ok(const struct cuckoo_filter *cf, u64 off, u64 len)
{
	u64 size = cf->table_words * sizeof(u64);

	if ((off | len) & 7 || off > size || len > size - off)
		return -EINVAL;
	return 0;
}

int cf_export_table(const struct cuckoo_filter *cf, u64 off, void *buf,
		    u64 len)
{
	u64 w, v, *dst = buf;
	int err = cf_chunk_ok(cf, off, len);

	if (err)
		return err;
	for (w = 0; w < len / 8; w++) {
		v = CF_READ(cf->table[off / 8 + w]);
		memcpy(dst + w, &v, sizeof(v));
	}
	return 0;
}

static bool cf_image_ok(const struct cf_image *img)
{
	u32 fp_mask, vb, bucket_bits;
	u64 vfp;

	if (img->magic != CF_IMAGE_MAGIC ||
	    img->version < CF_IMAGE_VERSION_MIN ||
	    img->version > CF_IMAGE_VERSION ||
	    img->fp_bits < CF_FP_BITS_MIN || img->fp_bits > CF_FP_BITS_MAX ||
	    !cf_bucket_size_ok(img->bucket_size) || !img->max_kicks ||
	    img->max_kicks > CF_MAX_KICKS_MAX)
		return false;
	/* Before version 4 the hash's byte was reserved (0): jhash. */
	if (img->version < 4 ? img->hash != 0 : img->hash >= CF_HASH_COUNT)
		return false;
	/* Version 2 kept the encoding's byte reserved: plain buckets. */
	if ((img->version < 3 && img->encoding) ||
	    cf_encoding_error(img->encoding, img->bucket_size, img->fp_bits))
		return false;
	/* The geometry must be the one this code makes for that capacity. */
	if (!img->capacity ||
	    cf_nbuckets_for(img->capacity, img->bucket_size) != img->nbuckets)
		return false;
	bucket_bits = cf_bucket_bits_of(img->encoding, img->bucket_size,
					img->fp_bits);
	if (img->table_bytes != sizeof(u64) * cf_table_words(img->nbuckets,
							     bucket_bits))
		return false;
	if (!img->victim)
		return true;
	fp_mask = (u32)cf_low_mask(img->fp_bits);
	vfp = CF_VICTIM_FP(img->victim);
	vb = CF_VICTIM_BUCKET(img->victim);
	return vfp && !(vfp & ~(u64)fp_mask) && vb < img->nbuckets;
}

/* The hash function of a header cf_image_params() accepts. */
enum cf_hashfn cf_image_hashfn(const struct cf_image *img)
{
	return img->version < 4 ? CF_HASH_JHASH : img->hash;
}

/*
 * May @img be a later stage of the filter whose first stage's header is
 * @first?  Stages share the seed, the hash, the bucket size and the
 * encoding: a lookup hashes a key once for all of them.
 */
bool cf_image_stage_fits(const struct cf_image *first,
			 const struct cf_image *img)
{
	return img->seed == first->seed &&
	       cf_image_hashfn(img) == cf_image_hashfn(first) &&
	       img->bucket_size == first->bucket_size &&
	       img->encoding == first->encoding;
}

int cf_image_params(const struct cf_image *img, struct cf_params *p)
{
	if (!cf_image_ok(img))
		return -EINVAL;
	*p = (struct cf_params){
		.capacity = img->capacity,
		.seed = img->seed,
		.max_kicks = img->max_kicks,
		.fp_bits = img->fp_bits,
		.bucket_size = img->bucket_size,
		.encoding = img->encoding,
		.hash = cf_image_hashfn(img),
	};
	return 0;
}

int cf_create_from_image(struct cuckoo_filter **out,
			 const struct cf_image *img, bool lent_scratch)
{
	struct cf_params p;
	int err;

	err = cf_image_params(img, &p);
	if (err)
		return err;
	p.lent_scratch = lent_scratch;
	err = cf_create(out, &p);
	if (err)
		return err;
	(*out)->victim = img->victim;
	return 0;
}

int cf_import_table(struct cuckoo_filter *cf, u64 off, const void *buf,
		    u64 len)
{
	const u64 *src = buf;
	u64 w, v, first, bit;
	int err = cf_chunk_ok(cf, off, len);

	if (err)
		return err;
	first = off / 8;
	for (w = 0; w < len / 8; w++) {
		memcpy(&v, src + w, sizeof(v));
		/* Nothing may live past the last slot. */
		bit = (first + w) * 64;
		if (bit >= cf->table_bits ? v != 0 :
		    bit + 64 > cf->table_bits &&
		    (v & ~cf_low_mask((unsigned int)(cf->table_bits - bit))))
			return -EINVAL;
		CF_WRITE(cf->table[first + w], v);
	}
	return 0;
}

/*
 * Semi-sorted bucket i's fingerprints in fps; is the bucket as
 * cf_ss_set() writes it?  Any other bits would decode (lookups stay in
 * bounds), but to a bucket that no filter holds.  Every bit of a bucket
 * is in its code or a low part, and a code below 3876 decodes to sorted
 * nibbles: the bucket is canonical exactly when such a code's
 * fingerprints come out sorted.
 */
static bool cf_ss_canonical(const struct cuckoo_filter *cf, u32 i, u32 *fps)
{
	u64 v0, v1;

	cf_ss_load(cf->table, i, cf->fp_bits, &v0, &v1);
	cf_ss_unpack(v0, v1, cf->fp_bits, fps);
	return (v0 & ((1U << CF_SS_CODE_BITS) - 1)) < CF_SS_CODES &&
	       fps[0] <= fps[1] && fps[1] <= fps[2] && fps[2] <= fps[3];
}

/*
 * Count what was loaded; the image's count is not trusted.  -EINVAL for a
 * semi-sorted bucket that is not canonical.
 */
int cf_import_finish(struct cuckoo_filter *cf)
{
	bool ss = cf_semisorted(cf);
	unsigned int s;
	u64 count = 0;
	u32 i, fps[8];

	for (i = 0; i < cf->nbuckets; i++) {
		if (!ss)
			cf_bucket_fps(cf, i, fps);
		else if (!cf_ss_canonical(cf, i, fps))
			return -EINVAL;
		for (s = 0; s < cf->bucket_size; s++)
			count += fps[s] != 0;
		if (!((i + 1) % CF_RESCHED_EVERY))
			cf_resched();
	}
	CF_WRITE(cf->count, count + (cf->victim != 0));
	return 0;
}
