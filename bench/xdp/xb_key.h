/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packed 5-tuples bench/xdp's hash and Bloom filter maps hold
 * (peers.bpf.c), and how they are made from the parser's key; shared
 * with the loader (xdpbench.c), which fills the maps.
 */
#ifndef XB_KEY_H
#define XB_KEY_H

#include <linux/types.h>

struct xb_key4 {
	__be32 src, dst;
	__be16 sport, dport;
	__u8 proto;
} __attribute__((packed));		/* 13 bytes */

struct xb_key6 {
	__be32 src[4], dst[4];
	__be16 sport, dport;
	__u8 proto;
} __attribute__((packed));		/* 37 bytes */

static inline void xb_pack4(struct xb_key4 *p, const struct nf_cuckoo_flow_key *k)
{
	p->src = k->src[0];
	p->dst = k->dst[0];
	p->sport = k->sport;
	p->dport = k->dport;
	p->proto = k->proto;
}

static inline void xb_pack6(struct xb_key6 *p, const struct nf_cuckoo_flow_key *k)
{
	__builtin_memcpy(p->src, k->src, sizeof(p->src));
	__builtin_memcpy(p->dst, k->dst, sizeof(p->dst));
	p->sport = k->sport;
	p->dport = k->dport;
	p->proto = k->proto;
}

#endif /* XB_KEY_H */
