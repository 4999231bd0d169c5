/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flow keys: the bytes a filter hashes, built from a netlink entry
 * (flowkey.c) and from a packet (skbkey.c), with the same masking and
 * normalisation (nfcf_flowkey_finish()).
 * The layout, struct nf_cuckoo_flow_key, is part of the uapi: saved images hold
 * fingerprints of it.
 */
#ifndef _NF_CUCKOO_FLOWKEY_H
#define _NF_CUCKOO_FLOWKEY_H

#include <linux/types.h>
#include <linux/string.h>
#include <linux/build_bug.h>
#include <net/netlink.h>

#include "../uapi/linux/nf_cuckoo.h"

static_assert(sizeof(struct nf_cuckoo_flow_key) == 40);
static_assert(sizeof(struct nf_cuckoo_entry_ipv4) == 16);
static_assert(sizeof(struct nf_cuckoo_entry_ipv6) == 40);
static_assert(NF_CUCKOO_ENTRIES_PACKED_BYTES % sizeof(struct nf_cuckoo_entry_ipv4) == 0);
static_assert(NF_CUCKOO_ENTRIES_PACKED_BYTES % sizeof(struct nf_cuckoo_entry_ipv6) == 0);
static_assert(NF_CUCKOO_ENTRIES_PACKED_BYTES + NLA_HDRLEN <= U16_MAX);

/**
 * struct nfcf_key_spec - how a filter builds its keys (fixed at creation)
 * @fields:	mask of enum nf_cuckoo_key_field, never 0
 * @families:	NF_CUCKOO_FAMILY_IPV4, NF_CUCKOO_FAMILY_IPV6 or NF_CUCKOO_FAMILY_INET
 * @bidir:	a key and its reverse are the same key; @fields is then
 *		symmetric (see nfcf_key_spec_check())
 */
struct nfcf_key_spec {
	u32 fields;
	u8 families;
	bool bidir;
};

#define NFCF_KEY_ADDRS	(NF_CUCKOO_KEY_SRC_ADDR | NF_CUCKOO_KEY_DST_ADDR)
#define NFCF_KEY_PORTS	(NF_CUCKOO_KEY_SRC_PORT | NF_CUCKOO_KEY_DST_PORT)

/* Is (src, sport) greater than (dst, dport)?  Address bytes first. */
static inline bool nfcf_flowkey_reversed(const struct nf_cuckoo_flow_key *k)
{
	int c = memcmp(k->src, k->dst, sizeof(k->src));

	if (c)
		return c > 0;
	return ntohs(k->sport) > ntohs(k->dport);
}

static inline void nfcf_flowkey_swap(struct nf_cuckoo_flow_key *k)
{
	__be32 a[4];
	__be16 p;
	u8 l;

	memcpy(a, k->src, sizeof(a));
	memcpy(k->src, k->dst, sizeof(a));
	memcpy(k->dst, a, sizeof(a));
	p = k->sport;
	k->sport = k->dport;
	k->dport = p;
	l = k->src_plen;
	k->src_plen = k->dst_plen;
	k->dst_plen = l;
}

/* Bits of an address of @family (NF_CUCKOO_FAMILY_IPV4 or _IPV6). */
static inline unsigned int nfcf_addr_bits(u8 family)
{
	return family == NF_CUCKOO_FAMILY_IPV4 ? 32 : 128;
}

/* Keep the first @plen bits of address @a (IPv4 in a[0]), zero the rest. */
static inline void nfcf_addr_mask(__be32 *a, unsigned int plen)
{
	unsigned int i;

	for (i = 0; i < 4; i++, plen = plen > 32 ? plen - 32 : 0) {
		if (plen >= 32)
			continue;
		a[i] &= plen ? htonl(~0U << (32 - plen)) : 0;
	}
}

/*
 * A finished key of full addresses, masked to prefix lengths @s and @d
 * (0: the address whole): the key of a prefix entry that would hold it.
 */
static inline void nfcf_flowkey_prefix(struct nf_cuckoo_flow_key *k, u8 s,
				       u8 d)
{
	if (s)
		nfcf_addr_mask(k->src, s);
	if (d)
		nfcf_addr_mask(k->dst, d);
	k->src_plen = s;
	k->dst_plen = d;
}

/**
 * nfcf_flowkey_finish - mask a key to a filter's fields and normalise it
 * @k:	a key whose src, dst, sport, dport, family and proto are filled in
 *	(unused address words zero)
 * @ks:	the filter's key spec
 *
 * The one place that decides what a filter's key holds: entries and
 * packets both go through it, so they hash alike.  Fields outside
 * @ks->fields are zeroed (a prefix length with its address), the family
 * too when no address is keyed; a bidirectional key then gets its
 * endpoints in canonical order.  The prefix lengths of an entry were
 * checked (nfcf_entry_prefix()): none on a bidirectional filter.
 */
static inline void nfcf_flowkey_finish(struct nf_cuckoo_flow_key *k,
				       const struct nfcf_key_spec *ks)
{
	u32 f = ks->fields;

	if (!(f & NF_CUCKOO_KEY_SRC_ADDR)) {
		memset(k->src, 0, sizeof(k->src));
		k->src_plen = 0;
	}
	if (!(f & NF_CUCKOO_KEY_DST_ADDR)) {
		memset(k->dst, 0, sizeof(k->dst));
		k->dst_plen = 0;
	}
	if (!(f & NFCF_KEY_ADDRS))
		k->family = 0;
	if (!(f & NF_CUCKOO_KEY_SRC_PORT))
		k->sport = 0;
	if (!(f & NF_CUCKOO_KEY_DST_PORT))
		k->dport = 0;
	if (!(f & NF_CUCKOO_KEY_PROTO))
		k->proto = 0;
	if (ks->bidir && nfcf_flowkey_reversed(k))
		nfcf_flowkey_swap(k);
}

/* Does nfcf_flowkey_finish() leave every key as it is?  All fields, one way. */
static inline bool nfcf_key_spec_whole(const struct nfcf_key_spec *ks)
{
	return ks->fields == NF_CUCKOO_KEY_ALL && !ks->bidir;
}

int nfcf_key_spec_check(const struct nfcf_key_spec *ks,
			const struct nlattr *fields_attr,
			const struct nlattr *bidir_attr,
			struct netlink_ext_ack *extack);

int nfcf_flowkey_from_entry(struct nf_cuckoo_flow_key *k, const struct nlattr *entry,
			    const struct nfcf_key_spec *ks,
			    enum nf_cuckoo_entry_err *why,
			    struct netlink_ext_ack *extack);

u32 nfcf_attr_entries(const struct nlattr *attr);

int nfcf_flowkey_from_packed(struct nf_cuckoo_flow_key *k, const struct nlattr *attr,
			     u32 idx, const struct nfcf_key_spec *ks,
			     enum nf_cuckoo_entry_err *why,
			     struct netlink_ext_ack *extack);

struct sk_buff;

u32 nfcf_flowkey_from_skb(struct nf_cuckoo_flow_key *k, const struct sk_buff *skb,
			  u8 family);

#endif /* _NF_CUCKOO_FLOWKEY_H */
