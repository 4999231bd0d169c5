/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prefix lookups for the benchmarks (bench_core -p, cg_any): a filter of
 * prefix entries, grown to a number of stages, looked up as the module's
 * packet path looks up a packet of a filter with P prefix combinations
 * (kmod/filter.c, nfcf_filter_lookup_px()): the key as it is, then masked
 * to each combination, in groups of CF_ANY_MAX.
 *
 * Entries and packets are IPv4 5-tuples of the module's key layout; the
 * combinations are source prefixes /32, /31, ... down to /(33 - P).
 * Entry i holds packet i of set 0 masked to combination i % P, so that
 * packet matches at its combination; packets of set 1 match nothing (but
 * for false positives).
 */
#ifndef _NF_CUCKOO_BENCH_PX_H
#define _NF_CUCKOO_BENCH_PX_H

#include <arpa/inet.h>
#include <linux/nf_cuckoo.h>

#include "cuckoo_stages.h"
#include "mix64.h"

#define PX_MAX		32

/* Packet i of @set: addresses, ports and protocol from a counter. */
static inline void px_packet(u64 set, u64 i, struct nf_cuckoo_flow_key *k)
{
	u64 a = mix64(set << 40 | i), b = mix64(a);

	memset(k, 0, sizeof(*k));
	k->family = 2;	/* AF_INET */
	k->proto = 6;
	k->src[0] = (u32)a;
	k->dst[0] = (u32)(a >> 32);
	k->sport = (u16)b;
	k->dport = (u16)(b >> 16);
}

/* nfcf_flowkey_prefix() of an IPv4 key, source prefix only. */
static inline void px_mask(struct nf_cuckoo_flow_key *k, u8 plen)
{
	k->src[0] &= plen ? htonl(~0U << (32 - plen)) : 0;
	k->src_plen = plen;
}

static inline u8 px_len(u32 c)
{
	return (u8)(32 - c);
}

/*
 * The lookup of the module before issue 30: cf_contains_any() of every
 * stage, each hashing the whole group again.  Out of line and global, as
 * cf_stages_contains_any() is, so that the compiler does not specialise
 * it for the key length (one program includes this header once).
 */
__attribute__((__noinline__)) bool
px_any_per_stage(const struct cf_stages *s, const void *keys, u32 len, u32 n)
{
	u32 i, stages = CF_LOAD_ACQUIRE(s->n);
	bool hit = false;

	for (i = 0; i < stages; i++)
		hit |= cf_contains_any(s->stage[i], keys, len, n);
	return hit;
}

/*
 * nfcf_filter_lookup_px() of a packet, P combinations; @per_stage: by
 * px_any_per_stage() instead of cf_stages_contains_any().
 */
static inline bool px_lookup(const struct cf_stages *s,
			     const struct nf_cuckoo_flow_key *k, u32 p,
			     bool per_stage)
{
	struct nf_cuckoo_flow_key keys[CF_ANY_MAX];
	u32 i = 0, m = 1;
	bool hit;

	keys[0] = *k;
	for (;;) {
		for (; m < CF_ANY_MAX && i < p; m++, i++) {
			keys[m] = *k;
			px_mask(&keys[m], px_len(i));
		}
		hit = per_stage ? px_any_per_stage(s, keys, sizeof(*k), m) :
				  cf_stages_contains_any(s, keys, sizeof(*k), m);
		if (hit)
			return true;
		if (i == p)
			return false;
		m = 0;
	}
}

static int px_alloc(void *ctx, const struct cf_params *p,
		    struct cuckoo_filter **out)
{
	(void)ctx;
	return cf_create(out, p);
}

/*
 * @n entries over @p combinations in a filter of f = @f (semi-sorted if
 * @enc) grown to @stages: a first stage of n / (2^stages - 1), doubling.
 * Return: 0, or -1 if it did not come out at that many stages.
 */
static inline int px_fill(struct cf_stages *s, u64 n, u32 p, u32 stages,
			  u8 f, u8 enc)
{
	struct cf_grow g = { true, 2, stages };
	struct cf_params cp = {
		.capacity = (n + (1u << stages) - 2) / ((1u << stages) - 1),
		.fp_bits = f, .encoding = enc, .seed = 0x0123456789abcdefULL,
	};
	struct nf_cuckoo_flow_key k;
	struct cuckoo_filter *cf;
	u64 i;
	u32 at;

	if (!p || p > PX_MAX || cf_create(&cf, &cp))
		return -1;
	cf_stages_init(s, cf, &g, NULL);
	for (i = 0; i < n; i++) {
		px_packet(0, i, &k);
		px_mask(&k, px_len(i % p));
		if (cf_stages_add(s, &k, sizeof(k), false, px_alloc, NULL, &at))
			return -1;
	}
	return s->n == stages ? 0 : -1;
}

#endif /* _NF_CUCKOO_BENCH_PX_H */
