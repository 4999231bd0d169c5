/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filter core's word hash: a key read eight bytes at a time, each
 * word folded in with one multiply, then the whole finished as
 * MurmurHash3's fmix64 finishes.  jhash (cf_jhash.h) takes three
 * rounds of eighteen operations and a final mix for a module key of 40
 * bytes; here the same key is five steps of four operations, and a
 * lookup of it takes 139 instructions where it took 222 (make -C bench
 * callgrind).  That is what lets a filter's lookup keep up with a BPF
 * hash map that hashes only a 13-byte IPv4 5-tuple (doc/design.md).
 *
 * A filter uses the hash it was made with for life (enum cf_hashfn):
 * filters made before this one existed, and their images (versions 2 and
 * 3), keep jhash, since their fingerprints were derived with it.
 *
 * Each step is a bijection of the running state (xor a word in, multiply
 * by an odd constant, fold the high bits down), so two keys that differ
 * in their last word never share a 64-bit hash, and the seed, the state's starting
 * value, keeps which keys collide unknown to whoever does not hold it, as
 * jhash's seed does.  The length is mixed into the start (never as 0, so
 * that no seed makes the empty key a fixed point), and a tail
 * shorter than a word is zero-padded, so keys of different lengths do not
 * collide by construction either.  The bucket index is taken from the
 * high half of the result and the fingerprint from the low half, which
 * fmix64's avalanche makes independent.
 *
 * Words are read in host order, as jhash reads: images do not travel
 * between hosts of different byte order (cuckoo.h).  The code is the same
 * in the module and in userspace; tests/test_cuckoo.c pins its outputs.
 */
#ifndef _NF_CUCKOO_CF_WHASH_H
#define _NF_CUCKOO_CF_WHASH_H

#define CF_WHASH_MUL	0x9e3779b97f4a7c15ULL	/* 2^64 / golden ratio */
#define CF_WHASH_FMIX1	0xff51afd7ed558ccdULL	/* fmix64's */
#define CF_WHASH_FMIX2	0xc4ceb9fe1a85ec53ULL

static __always_inline u64 cf_whash_step(u64 h, u64 w)
{
	h ^= w;
	h *= CF_WHASH_MUL;
	return h ^ (h >> 29);
}

/*
 * The last 1 to 7 bytes of a key, zero-padded to a word in host order:
 * the bytes a word load at @p would have put in the same places.
 */
static __always_inline u64 cf_whash_tail(const u8 *p, u32 n)
{
	u64 w = 0;

	memcpy(&w, p, n);
	return w;
}

/**
 * cf_whash_pair - a key's two 32-bit hashes, as cf_jhash_pair() gives them
 * @key:	the key
 * @length:	its bytes
 * @seed:	the filter's 64-bit seed
 * @second:	the other hash (the fingerprint's)
 *
 * Return: the first hash (the bucket's).
 */
static __always_inline u32 cf_whash_pair(const void *key, u32 length,
					 u64 seed, u32 *second)
{
	const u8 *k = key;
	u64 h = seed ^ ((u64)length + 1) * CF_WHASH_FMIX2;
	u32 n = length;

	cf_count_hashes(1);
	while (n >= 8) {
		h = cf_whash_step(h, cf_get_cpu64(k));
		k += 8;
		n -= 8;
	}
	if (n)
		h = cf_whash_step(h, cf_whash_tail(k, n));
	h ^= h >> 33;
	h *= CF_WHASH_FMIX1;
	h ^= h >> 33;
	h *= CF_WHASH_FMIX2;
	h ^= h >> 33;
	*second = (u32)h;
	return (u32)(h >> 32);
}

#endif /* _NF_CUCKOO_CF_WHASH_H */
