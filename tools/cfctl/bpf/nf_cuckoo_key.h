/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packet's key as the hook builds it (kmod/skbkey.c), for BPF
 * programs: nfcf_key() reads Ethernet, up to two VLAN tags, IPv4 or IPv6
 * and the ports, and returns the fields it found.  Why it reads as it
 * does: the top of nf_cuckoo.bpf.c, the program cfctl attaches.  The
 * benchmark's peers (bench/xdp/peers.bpf.c) include it too, so that they
 * differ from that program only in their lookup.
 */
#ifndef NF_CUCKOO_KEY_H
#define NF_CUCKOO_KEY_H

#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "../../../uapi/linux/nf_cuckoo.h"

/* bpf_loop()'s most steps (the kernel's BPF_MAX_LOOPS). */
#define NFCF_MAX_LOOPS		(8 * 1024 * 1024)

#define NFCF_KEY_ADDRS		(NF_CUCKOO_KEY_SRC_ADDR | NF_CUCKOO_KEY_DST_ADDR)
#define NFCF_KEY_L3_PROTO	(NFCF_KEY_ADDRS | NF_CUCKOO_KEY_PROTO)

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
 * reads it, its linear data (packet pointers, taken where the context's
 * type is known), the packet's length, and whether the kernel says the
 * packet is a GSO one (whose IP length fields may be 0).
 */
struct nfcf_pkt {
	void *ctx;
	const __u8 *data;
	const __u8 *end;
	bool xdp;
	__u32 len;
	bool gso;
};

/*
 * An XDP frame's: linear, so its length is that of its data (no
 * bpf_xdp_get_buff_len() call per packet).
 */
static __always_inline struct nfcf_pkt nfcf_xdp_pkt(struct xdp_md *ctx)
{
	struct nfcf_pkt p = {
		.ctx = ctx,
		.data = (const __u8 *)(long)ctx->data,
		.end = (const __u8 *)(long)ctx->data_end,
		.xdp = true,
		.len = ctx->data_end - ctx->data,
	};

	return p;
}

/* A tc program's skb, linear or not. */
static __always_inline struct nfcf_pkt nfcf_skb_pkt(struct __sk_buff *ctx)
{
	struct nfcf_pkt p = {
		.ctx = ctx,
		.data = (const __u8 *)(long)ctx->data,
		.end = (const __u8 *)(long)ctx->data_end,
		.xdp = false,
		.len = ctx->len,
		.gso = ctx->gso_size != 0,
	};

	return p;
}

/*
 * The furthest offset read through packet pointers; beyond it a header
 * is read by the helper.  The verifier follows a packet pointer plus a
 * variable offset only while the offset is below 64 KB.
 */
#define NFCF_DIRECT_OFF_MAX	0x7fff

/*
 * The alignment nfcf_load() may assume of packet data, which need not be
 * aligned at all (an IP header usually sits 2 bytes off a word).  With
 * 4, clang copies a header a word at a time; the verifier accepts such
 * loads where the kernel has efficient unaligned access (x86, arm64,
 * s390, powerpc), and refuses them elsewhere.  There clang knows nothing
 * of the kernel's architecture (-target bpf): the build sets 1, byte
 * loads (tools/cfctl/Makefile).
 */
#ifndef NFCF_PKT_ALIGN
#define NFCF_PKT_ALIGN		4
#endif

/* What nfcf_load() reads into: whole words on the stack. */
#define NFCF_WORDS		__attribute__((__aligned__(4)))

/*
 * @len bytes at @off into @buf.  Where they lie in the packet's linear
 * part (all of an XDP frame: the programs are not frags-aware, so the
 * kernel hands them linear frames only), they are read through packet
 * pointers: a few loads, where a helper costs two calls.  Anything else
 * (a non-linear skb's rest, an offset past NFCF_DIRECT_OFF_MAX, a header
 * that does not fit the packet) goes to the helper, which checks it
 * against the packet's real length.
 */
static __always_inline int nfcf_load(const struct nfcf_pkt *p, __u32 off,
				     void *buf, __u32 len)
{
	const __u8 *data;

	if (off <= NFCF_DIRECT_OFF_MAX) {
		data = p->data + off;
		if (data + len <= p->end) {
			__builtin_memcpy(buf, __builtin_assume_aligned(data, NFCF_PKT_ALIGN),
					 len);
			return 0;
		}
	}
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
	__be16 ports[2] NFCF_WORDS;

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
	struct iphdr iph NFCF_WORDS;
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

/*
 * The walk of an IPv6 extension header chain, one header a bpf_loop()
 * step: where it is, and how it ended (@fields 0 while it goes on).
 */
struct nfcf_walk {
	struct nfcf_pkt pkt;
	__u32 off;
	__u32 end;
	__u32 fields;
	__u8 nexthdr;
};

/* One header of the chain: 0 to go on, 1 once the walk is over. */
static long nfcf_ext_step(__u32 i, void *data)
{
	struct nfcf_walk *w = data;
	/*
	 * The first 8 bytes of any of them: a fragment header whole, the
	 * next header and length of the others.
	 */
	struct {
		__u8 nexthdr;
		__u8 hdrlen;
		__be16 frag_off;
		__be32 ident;
	} h NFCF_WORDS;
	__u32 hlen;

	if (!nfcf_ipv6_ext(w->nexthdr))
		return 1;
	if (w->end - w->off < sizeof(h) ||
	    nfcf_load(&w->pkt, w->off, &h, sizeof(h))) {
		w->fields = NFCF_KEY_ADDRS;
		return 1;
	}
	if (w->nexthdr == NEXTHDR_FRAGMENT) {
		w->nexthdr = h.nexthdr;
		w->off += sizeof(h);
		/* A non-first one: its upper-layer header is in the first. */
		if (h.frag_off & bpf_htons(NFCF_IP6_OFFSET)) {
			w->fields = NF_CUCKOO_KEY_ALL;
			return 1;
		}
		return 0;
	}
	if (w->nexthdr == NEXTHDR_AUTH)
		hlen = ((__u32)h.hdrlen + 2) << 2;
	else
		hlen = ((__u32)h.hdrlen + 1) << 3;
	if (hlen > w->end - w->off) {
		w->fields = NFCF_KEY_ADDRS;
		return 1;
	}
	w->nexthdr = h.nexthdr;
	w->off += hlen;
	return 0;
}

static __always_inline __u32 nfcf_key6(struct nf_cuckoo_flow_key *k,
				       const struct nfcf_pkt *p, __u32 nhoff)
{
	struct ipv6hdr ip6h NFCF_WORDS;
	struct nfcf_walk w = {};
	__u32 plen, steps;

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

	k->family = NF_CUCKOO_FAMILY_IPV6;
	__builtin_memcpy(k->src, &ip6h.saddr, sizeof(k->src));
	__builtin_memcpy(k->dst, &ip6h.daddr, sizeof(k->dst));
	w.pkt = *p;
	w.off = nhoff + sizeof(ip6h);
	w.end = w.off + plen;
	w.nexthdr = ip6h.nexthdr;
	if (nfcf_ipv6_ext(w.nexthdr)) {
		/* Each header takes 8 bytes or more; one step more ends it. */
		steps = plen / 8 + 1;
		if (steps > NFCF_MAX_LOOPS)
			steps = NFCF_MAX_LOOPS;
		if (bpf_loop(steps, nfcf_ext_step, &w, 0) < 0)
			return NFCF_KEY_ADDRS;
		if (w.fields == NF_CUCKOO_KEY_ALL) {
			k->proto = w.nexthdr;
			return NF_CUCKOO_KEY_ALL;
		}
		if (w.fields)
			return w.fields;
		if (nfcf_ipv6_ext(w.nexthdr))
			return NFCF_KEY_ADDRS;
	}
	k->proto = w.nexthdr;
	return nfcf_ports(k, p, w.off, w.end);
}

/*
 * The packet's key, unmasked, as the hook builds it; the fields it holds
 * for real, 0 if the frame carries no usable IP header.
 */
static __always_inline __u32 nfcf_key(struct nf_cuckoo_flow_key *k,
				      const struct nfcf_pkt *p)
{
	struct ethhdr eth NFCF_WORDS;
	__u32 off = sizeof(eth);
	__be16 proto;
	int i;

	if (nfcf_load(p, 0, &eth, sizeof(eth)))
		return 0;
	proto = eth.h_proto;
	for (i = 0; i < 2; i++) {
		/* TCI, then the encapsulated type. */
		__be16 tag[2] NFCF_WORDS;

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

#endif /* NF_CUCKOO_KEY_H */
