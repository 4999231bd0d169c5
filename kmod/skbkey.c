// SPDX-License-Identifier: GPL-2.0
/*
 * Building flow keys from packets, for the netfilter hook.
 *
 * The key is filled in exactly as nfcf_flowkey_from_entry() fills it from
 * an entry (addresses in network order, IPv4 in word 0, ports in network
 * order, the L4 protocol, the family), unmasked: each filter then masks
 * and normalises a copy with nfcf_flowkey_finish(), so a packet hashes like
 * the entry added for its flow.
 *
 * Every byte is read with skb_header_pointer(), within both the skb and
 * the length the IP header claims, so nothing is ever read past the end
 * of a packet however it is truncated.  What could be read is reported
 * as a mask of the key fields that are valid:
 *  - an unusable IP header (wrong version, IHL below 5, total length
 *    shorter than the header or longer than the packet): nothing;
 *  - an IPv6 extension header chain that runs past the end of the packet:
 *    the addresses only (the protocol is not known);
 *  - an L4 header too short to hold the ports, for a protocol with ports:
 *    everything but the ports;
 *  - otherwise everything.  Protocols without ports (ICMP, ICMPv6, ESP,
 *    ...), a non-first fragment and an IPv6 packet whose chain ends in
 *    "no next header" have ports 0, as their entries have.
 * A filter whose key needs a field the packet lacks leaves it alone.
 *
 * IPv6 extension headers (hop-by-hop, routing, destination options,
 * fragment, authentication: those the kernel itself skips, see
 * ipv6_ext_hdr()) are skipped however many there are: each is at least
 * 8 bytes long and must lie inside the packet, which bounds the walk.
 * The protocol of a non-first fragment is the one its fragment header
 * names, as for nftables' "meta l4proto".
 */
#include <linux/skbuff.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/in.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "cuckoo_platform.h"
#include "flowkey.h"

#define NFCF_KEY_L3	NFCF_KEY_ADDRS
#define NFCF_KEY_L3_PROTO	(NFCF_KEY_ADDRS | NF_CUCKOO_KEY_PROTO)

/* Protocols whose header starts with a 16-bit source and destination port. */
static bool nfcf_proto_has_ports(u8 proto)
{
	switch (proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP:
	case IPPROTO_DCCP:
		return true;
	default:
		return false;
	}
}

/*
 * The ports of the L4 header at @off, if the packet (ending at @end) holds
 * them.  Return: the valid fields (all of them, or all but the ports).
 * Inline in both families' walks: a call and a return a packet less.
 */
static __always_inline u32 nfcf_skb_ports(struct nf_cuckoo_flow_key *k,
					  const struct sk_buff *skb,
					  unsigned int off, unsigned int end)
{
	__be16 _ports[2];
	const __be16 *ports;

	if (!nfcf_proto_has_ports(k->proto))
		return NF_CUCKOO_KEY_ALL;
	if (end < off || end - off < sizeof(_ports))
		return NFCF_KEY_L3_PROTO;
	ports = skb_header_pointer(skb, off, sizeof(_ports), _ports);
	if (!ports)
		return NFCF_KEY_L3_PROTO;
	k->sport = ports[0];
	k->dport = ports[1];
	return NF_CUCKOO_KEY_ALL;
}

static u32 nfcf_skb_key4(struct nf_cuckoo_flow_key *k, const struct sk_buff *skb,
			 unsigned int nhoff)
{
	unsigned int hlen, tot, end;
	struct iphdr _iph;
	const struct iphdr *iph;

	/* Once read, nhoff + sizeof(*iph) <= skb->len. */
	iph = skb_header_pointer(skb, nhoff, sizeof(_iph), &_iph);
	if (!iph || iph->version != 4 || iph->ihl < 5)
		return 0;
	hlen = iph->ihl * 4;
	tot = ntohs(iph->tot_len);
	/* A GSO packet may be too long for tot_len; it is whole anyway. */
	if (!tot && skb_is_gso(skb))
		tot = skb->len - nhoff;
	if (tot < hlen || tot > skb->len - nhoff)
		return 0;
	end = nhoff + tot;

	k->family = NF_CUCKOO_FAMILY_IPV4;
	k->src[0] = iph->saddr;
	k->dst[0] = iph->daddr;
	k->proto = iph->protocol;
	if (iph->frag_off & htons(IP_OFFSET))
		return NF_CUCKOO_KEY_ALL;
	return nfcf_skb_ports(k, skb, nhoff + hlen, end);
}

static u32 nfcf_skb_key6(struct nf_cuckoo_flow_key *k, const struct sk_buff *skb,
			 unsigned int nhoff)
{
	unsigned int off, end, plen, hlen;
	struct ipv6hdr _ip6h;
	const struct ipv6hdr *ip6h;
	u8 nexthdr;

	/* Once read, nhoff + sizeof(*ip6h) <= skb->len. */
	ip6h = skb_header_pointer(skb, nhoff, sizeof(_ip6h), &_ip6h);
	if (!ip6h || ip6h->version != 6)
		return 0;
	plen = ntohs(ip6h->payload_len);
	/*
	 * 0: a jumbogram (hop-by-hop options follow) or a big GSO packet,
	 * the skb's length it is; else an empty payload, as a receiver
	 * sees it (a raw socket can send one at the output hook).
	 */
	if (!plen && (skb_is_gso(skb) || ip6h->nexthdr == NEXTHDR_HOP))
		plen = skb->len - nhoff - sizeof(*ip6h);
	if (plen > skb->len - nhoff - sizeof(*ip6h))
		return 0;
	off = nhoff + sizeof(*ip6h);
	end = off + plen;

	k->family = NF_CUCKOO_FAMILY_IPV6;
	memcpy(k->src, &ip6h->saddr, sizeof(k->src));
	memcpy(k->dst, &ip6h->daddr, sizeof(k->dst));
	nexthdr = ip6h->nexthdr;

	/* Each header is 8 bytes or more and must fit: the walk ends. */
	while (ipv6_ext_hdr(nexthdr) && nexthdr != NEXTHDR_NONE) {
		struct frag_hdr _fh;
		const struct frag_hdr *fh;

		if (end - off < 8)
			return NFCF_KEY_L3;
		if (nexthdr == NEXTHDR_FRAGMENT) {
			fh = skb_header_pointer(skb, off, sizeof(_fh), &_fh);
			if (!fh)
				return NFCF_KEY_L3;
			nexthdr = fh->nexthdr;
			off += sizeof(*fh);
			if (fh->frag_off & htons(IP6_OFFSET)) {
				/* Its upper-layer header is in the first. */
				k->proto = nexthdr;
				return NF_CUCKOO_KEY_ALL;
			}
		} else {
			struct ipv6_opt_hdr _oh;
			const struct ipv6_opt_hdr *oh;

			oh = skb_header_pointer(skb, off, sizeof(_oh), &_oh);
			if (!oh)
				return NFCF_KEY_L3;
			if (nexthdr == NEXTHDR_AUTH)
				hlen = ipv6_authlen(oh);
			else
				hlen = ipv6_optlen(oh);
			if (hlen > end - off)
				return NFCF_KEY_L3;
			nexthdr = oh->nexthdr;
			off += hlen;
		}
	}
	k->proto = nexthdr;
	return nfcf_skb_ports(k, skb, off, end);
}

/**
 * nfcf_flowkey_from_skb - build a packet's key, unmasked
 * @k:		the key (zeroed here); finish it per filter with
 *		nfcf_flowkey_finish()
 * @skb:	the packet, its network header set
 * @family:	NF_CUCKOO_FAMILY_IPV4 or NF_CUCKOO_FAMILY_IPV6: what the hook sees
 *
 * Softirq or process context; reads the packet only through
 * skb_header_pointer().
 *
 * Return: the mask of enum nf_cuckoo_key_field that @k holds for real (see the
 * top of this file); 0 if the IP header itself is unusable.
 */
cf_pkt_text u32 nfcf_flowkey_from_skb(struct nf_cuckoo_flow_key *k,
				      const struct sk_buff *skb, u8 family)
{
	int nhoff = skb_network_offset(skb);

	memset(k, 0, sizeof(*k));
	if (nhoff < 0)
		return 0;
	if (family == NF_CUCKOO_FAMILY_IPV4)
		return nfcf_skb_key4(k, skb, nhoff);
	if (family == NF_CUCKOO_FAMILY_IPV6)
		return nfcf_skb_key6(k, skb, nhoff);
	return 0;
}
