// SPDX-License-Identifier: GPL-2.0
/*
 * bench/xdp's peers of nf_cuckoo's XDP program, for BPF_PROG_TEST_RUN
 * only (bench/xdp/run.sh, loaded by xdpbench.c): the same parser over
 * other lookups.
 *
 * The parser (nfcf_key() and what it calls, "copied" below) is a
 * verbatim copy of tools/cfctl/bpf/nf_cuckoo.bpf.c's as of commit
 * 85a9ce5 (copied, not shared: that file is not to be reworked for a
 * benchmark).  Since f9526ab the shipped program walks IPv6 extension
 * headers with bpf_loop() where this copy stops after 16; the two build
 * the same key for every packet without extension headers, which is
 * all the benchmark sends.  The peers thus differ from the shipped
 * program only in what follows the key:
 *
 *   xb_parse_only  the parser alone, then XDP_PASS (the baseline)
 *   xb_hash        a BPF_MAP_TYPE_HASH of the exact 5-tuples
 *   xb_bloom       a BPF_MAP_TYPE_BLOOM_FILTER of the same
 *   xb_cuckoo      nf_cuckoo's kfunc, as nf_cuckoo_xdp asks it (the
 *                  filter ids xb_id4, xb_id6 set by the loader): the
 *                  shipped program's lookup behind this copy of the
 *                  parser, so that a change to the shipped parser does
 *                  not move the comparison with the maps
 *
 * The maps' key is a packed 5-tuple (xb_key.h), 13 bytes for IPv4 and
 * 37 for IPv6, one map a family: what a 5-tuple blocklist written for
 * BPF would key its hash on, and smaller than struct
 * nf_cuckoo_flow_key's 40 bytes (a hash element rounds its key up to 8
 * bytes: 16 and 40), so the peers get their best case in memory and in
 * hashing.  A packet must carry the whole 5-tuple (fields ==
 * NF_CUCKOO_KEY_ALL) to match, as for a filter keyed on the 5-tuple.
 * The loader creates and sizes the maps and hands them in (reuse_fd).
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "../../uapi/linux/nf_cuckoo.h"
#include "xb_key.h"

/* ---- copied from tools/cfctl/bpf/nf_cuckoo.bpf.c (85a9ce5) ---- */
#define NFCF_KEY_ADDRS		(NF_CUCKOO_KEY_SRC_ADDR | NF_CUCKOO_KEY_DST_ADDR)
#define NFCF_KEY_L3_PROTO	(NFCF_KEY_ADDRS | NF_CUCKOO_KEY_PROTO)

/* IPv6 extension headers walked at most (see the top of this file). */
#define NFCF_IPV6_EXT_MAX	16


/* Not in the UAPI headers: the kernel's include/net/ip.h and ipv6.h. */
#define NFCF_IP_OFFSET		0x1fff
#define NFCF_IP6_OFFSET		0xfff8
#define NFCF_ETH_P_8021AD	0x88a8

#define NEXTHDR_HOP		0
#define NEXTHDR_ROUTING		43
#define NEXTHDR_FRAGMENT	44
#define NEXTHDR_AUTH		51
#define NEXTHDR_NONE		59
#define NEXTHDR_DEST		60

/*
 * Where the parser reads: the program's context, which of the two helpers
 * reads it, the packet's length, and whether the kernel says the packet
 * is a GSO one (whose IP length fields may be 0).
 */
struct nfcf_pkt {
	void *ctx;
	bool xdp;
	__u32 len;
	bool gso;
};

static __always_inline int nfcf_load(const struct nfcf_pkt *p, __u32 off,
				     void *buf, __u32 len)
{
	if (p->xdp)
		return bpf_xdp_load_bytes(p->ctx, off, buf, len);
	return bpf_skb_load_bytes(p->ctx, off, buf, len);
}

static __always_inline bool nfcf_proto_has_ports(__u8 proto)
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

/* What the kernel's ipv6_ext_hdr() skips, but "no next header". */
static __always_inline bool nfcf_ipv6_ext(__u8 nexthdr)
{
	return nexthdr == NEXTHDR_HOP || nexthdr == NEXTHDR_ROUTING ||
	       nexthdr == NEXTHDR_FRAGMENT || nexthdr == NEXTHDR_AUTH ||
	       nexthdr == NEXTHDR_DEST;
}

/* The ports of the L4 header at @off, if they lie before @end. */
static __always_inline __u32 nfcf_ports(struct nf_cuckoo_flow_key *k,
					const struct nfcf_pkt *p,
					__u32 off, __u32 end)
{
	__be16 ports[2];

	if (!nfcf_proto_has_ports(k->proto))
		return NF_CUCKOO_KEY_ALL;
	if (end < off || end - off < sizeof(ports))
		return NFCF_KEY_L3_PROTO;
	if (nfcf_load(p, off, ports, sizeof(ports)))
		return NFCF_KEY_L3_PROTO;
	k->sport = ports[0];
	k->dport = ports[1];
	return NF_CUCKOO_KEY_ALL;
}

static __always_inline __u32 nfcf_key4(struct nf_cuckoo_flow_key *k,
				       const struct nfcf_pkt *p, __u32 nhoff)
{
	struct iphdr iph;
	__u32 hlen, tot;

	/* Once read, nhoff + sizeof(iph) <= p->len. */
	if (nfcf_load(p, nhoff, &iph, sizeof(iph)))
		return 0;
	if (iph.version != 4 || iph.ihl < 5)
		return 0;
	hlen = iph.ihl * 4;
	tot = bpf_ntohs(iph.tot_len);
	if (!tot && p->gso)
		tot = p->len - nhoff;
	if (tot < hlen || tot > p->len - nhoff)
		return 0;

	k->family = NF_CUCKOO_FAMILY_IPV4;
	k->src[0] = iph.saddr;
	k->dst[0] = iph.daddr;
	k->proto = iph.protocol;
	if (iph.frag_off & bpf_htons(NFCF_IP_OFFSET))
		return NF_CUCKOO_KEY_ALL;
	return nfcf_ports(k, p, nhoff + hlen, nhoff + tot);
}

static __always_inline __u32 nfcf_key6(struct nf_cuckoo_flow_key *k,
				       const struct nfcf_pkt *p, __u32 nhoff)
{
	struct ipv6hdr ip6h;
	__u32 off, end, plen, hlen, i;
	__u8 nexthdr;

	/* Once read, nhoff + sizeof(ip6h) <= p->len. */
	if (nfcf_load(p, nhoff, &ip6h, sizeof(ip6h)))
		return 0;
	if (ip6h.version != 6)
		return 0;
	plen = bpf_ntohs(ip6h.payload_len);
	/* 0: a jumbogram or a big GSO packet, as the hook reads it. */
	if (!plen && (p->gso || ip6h.nexthdr == NEXTHDR_HOP))
		plen = p->len - nhoff - sizeof(ip6h);
	if (plen > p->len - nhoff - sizeof(ip6h))
		return 0;
	off = nhoff + sizeof(ip6h);
	end = off + plen;

	k->family = NF_CUCKOO_FAMILY_IPV6;
	__builtin_memcpy(k->src, &ip6h.saddr, sizeof(k->src));
	__builtin_memcpy(k->dst, &ip6h.daddr, sizeof(k->dst));
	nexthdr = ip6h.nexthdr;

	for (i = 0; i < NFCF_IPV6_EXT_MAX; i++) {
		/*
		 * The first 8 bytes of any of them: a fragment header
		 * whole, the next header and length of the others.
		 */
		struct {
			__u8 nexthdr;
			__u8 hdrlen;
			__be16 frag_off;
			__be32 ident;
		} h;

		if (!nfcf_ipv6_ext(nexthdr))
			break;
		if (end - off < sizeof(h))
			return NFCF_KEY_ADDRS;
		if (nfcf_load(p, off, &h, sizeof(h)))
			return NFCF_KEY_ADDRS;
		if (nexthdr == NEXTHDR_FRAGMENT) {
			nexthdr = h.nexthdr;
			off += sizeof(h);
			if (h.frag_off & bpf_htons(NFCF_IP6_OFFSET)) {
				/* Its upper-layer header is in the first. */
				k->proto = nexthdr;
				return NF_CUCKOO_KEY_ALL;
			}
			continue;
		}
		if (nexthdr == NEXTHDR_AUTH)
			hlen = ((__u32)h.hdrlen + 2) << 2;
		else
			hlen = ((__u32)h.hdrlen + 1) << 3;
		if (hlen > end - off)
			return NFCF_KEY_ADDRS;
		nexthdr = h.nexthdr;
		off += hlen;
	}
	/* Past the bound: as a chain past the end of the packet. */
	if (nfcf_ipv6_ext(nexthdr))
		return NFCF_KEY_ADDRS;
	k->proto = nexthdr;
	return nfcf_ports(k, p, off, end);
}

/*
 * The packet's key, unmasked, as the hook builds it; the fields it holds
 * for real, 0 if the frame carries no usable IP header.
 */
static __always_inline __u32 nfcf_key(struct nf_cuckoo_flow_key *k,
				      const struct nfcf_pkt *p)
{
	struct ethhdr eth;
	__u32 off = sizeof(eth);
	__be16 proto;
	int i;

	if (nfcf_load(p, 0, &eth, sizeof(eth)))
		return 0;
	proto = eth.h_proto;
	for (i = 0; i < 2; i++) {
		/* TCI, then the encapsulated type. */
		__be16 tag[2];

		if (proto != bpf_htons(ETH_P_8021Q) &&
		    proto != bpf_htons(NFCF_ETH_P_8021AD))
			break;
		if (nfcf_load(p, off, tag, sizeof(tag)))
			return 0;
		proto = tag[1];
		off += sizeof(tag);
	}
	if (proto == bpf_htons(ETH_P_IP))
		return nfcf_key4(k, p, off);
	if (proto == bpf_htons(ETH_P_IPV6))
		return nfcf_key6(k, p, off);
	return 0;
}
/* ---- end of the copy ---- */

extern int bpf_nfcf_xdp_test(struct xdp_md *ctx, __u32 id,
			     const struct nf_cuckoo_flow_key *key,
			     __u32 key__sz, __u32 fields) __ksym;

/* xb_cuckoo's filters, by family, set by the loader. */
const volatile __u32 xb_id4 = 0;
const volatile __u32 xb_id6 = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct xb_key4);
	__type(value, __u8);
} xb_hash4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct xb_key6);
	__type(value, __u8);
} xb_hash6 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 1);
	__uint(value_size, sizeof(struct xb_key4));
} xb_bloom4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 1);
	__uint(value_size, sizeof(struct xb_key6));
} xb_bloom6 SEC(".maps");

/* The packet's key: true if it holds the whole 5-tuple. */
static __always_inline bool xb_parse(struct xdp_md *ctx,
				     struct nf_cuckoo_flow_key *k)
{
	struct nfcf_pkt p = {
		.ctx = ctx,
		.xdp = true,
		.len = bpf_xdp_get_buff_len(ctx),
	};

	return nfcf_key(k, &p) == NF_CUCKOO_KEY_ALL;
}

SEC("xdp")
int xb_parse_only(struct xdp_md *ctx)
{
	struct nf_cuckoo_flow_key k = {};

	/* Never true: keeps the key's stores from being optimised away. */
	if (xb_parse(ctx, &k) && k.family == 0xff)
		return XDP_ABORTED;
	return XDP_PASS;
}

SEC("xdp")
int xb_hash(struct xdp_md *ctx)
{
	struct nf_cuckoo_flow_key k = {};

	if (!xb_parse(ctx, &k))
		return XDP_PASS;
	if (k.family == NF_CUCKOO_FAMILY_IPV4) {
		struct xb_key4 k4;

		xb_pack4(&k4, &k);
		if (bpf_map_lookup_elem(&xb_hash4, &k4))
			return XDP_DROP;
	} else {
		struct xb_key6 k6;

		xb_pack6(&k6, &k);
		if (bpf_map_lookup_elem(&xb_hash6, &k6))
			return XDP_DROP;
	}
	return XDP_PASS;
}

SEC("xdp")
int xb_bloom(struct xdp_md *ctx)
{
	struct nf_cuckoo_flow_key k = {};

	if (!xb_parse(ctx, &k))
		return XDP_PASS;
	if (k.family == NF_CUCKOO_FAMILY_IPV4) {
		struct xb_key4 k4;

		xb_pack4(&k4, &k);
		if (!bpf_map_peek_elem(&xb_bloom4, &k4))
			return XDP_DROP;
	} else {
		struct xb_key6 k6;

		xb_pack6(&k6, &k);
		if (!bpf_map_peek_elem(&xb_bloom6, &k6))
			return XDP_DROP;
	}
	return XDP_PASS;
}

SEC("xdp")
int xb_cuckoo(struct xdp_md *ctx)
{
	struct nf_cuckoo_flow_key k = {};
	struct nfcf_pkt p = {
		.ctx = ctx,
		.xdp = true,
		.len = bpf_xdp_get_buff_len(ctx),
	};
	__u32 fields = nfcf_key(&k, &p);

	if (!fields)
		return XDP_PASS;
	if (bpf_nfcf_xdp_test(ctx, k.family == NF_CUCKOO_FAMILY_IPV4 ?
			      xb_id4 : xb_id6, &k, sizeof(k), fields) == 1)
		return XDP_DROP;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
