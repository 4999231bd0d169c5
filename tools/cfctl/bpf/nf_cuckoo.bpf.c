// SPDX-License-Identifier: GPL-2.0
/*
 * The program `cfctl xdp attach` and `cfctl tc attach` put on a device:
 * it drops the flows of one nf_cuckoo filter at XDP, before the kernel
 * spends an skb on them, or at tc ingress or egress, where a netfilter
 * hook would see them later or not at all.
 *
 * The filter is named by its id (cfctl show's "Id"), which the loader
 * writes in nfcf_filter_id (read-only data) before the load: an id
 * rather than a map of settings, because the module finds the filter
 * anew for each packet (bpf_nfcf_xdp_test(), bpf_nfcf_skb_test()), so a
 * filter swapped in under the name, grown or destroyed never leaves the
 * program anything stale.  0 passes everything.
 *
 * A packet must match here exactly when it would match at the filter's
 * hook, so the key and its valid fields are built as kmod/skbkey.c
 * builds them, truncated and malformed packets included: same checks of
 * the IPv4 header length and total length, of the IPv6 payload length,
 * same walk of the IPv6 extension headers (hop-by-hop, routing,
 * destination options, fragment, authentication), same answer for
 * non-first fragments (protocol, ports 0), protocols without ports
 * (ports 0) and L4 headers too short for the ports (all but the ports).
 * Ethernet comes first, with up to two VLAN tags (802.1Q or 802.1ad):
 * the hook sees such packets once a VLAN device has popped the tags, so
 * they are the same flows.  A frame of any other type, or of more tags,
 * is not IP to the hook either and passes.  A device whose frames do
 * not start with Ethernet (tun, WireGuard, IP tunnels) would be read
 * wrongly: the program is for Ethernet devices only.
 *
 * The hook walks any number of extension headers (each is 8 bytes or
 * more and must fit the packet, which bounds the walk), and so does this
 * program, with bpf_loop() for as many steps as the payload could hold
 * headers: a walk of fixed bound would let a listed sender through by
 * chaining one header more than the bound.
 *
 * Bytes are read with bpf_xdp_load_bytes() and bpf_skb_load_bytes() at
 * offsets computed from the headers, never through packet pointers: the
 * helpers check every read against the packet's real length (the frags
 * of a multi-buffer XDP frame or a non-linear skb included), and the
 * verifier has no packet ranges to follow through the variable-length
 * headers, so the same code loads on every kernel from 6.1 on.
 *
 * A match drops (XDP_DROP, TC_ACT_SHOT); anything else, an error of the
 * kfunc included (no such filter: -ENOENT), lets the packet go on:
 * XDP_PASS, which libxdp's dispatcher chains to the next program (see
 * the run config below), and TC_ACT_UNSPEC, which runs the next tc
 * filter as if this one were not there.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <xdp/xdp_helpers.h>

#include "../../../uapi/linux/nf_cuckoo.h"

extern int bpf_nfcf_xdp_test(struct xdp_md *ctx, __u32 id,
			     const struct nf_cuckoo_flow_key *key,
			     __u32 key__sz, __u32 fields) __ksym;
extern int bpf_nfcf_skb_test(struct __sk_buff *ctx, __u32 id,
			     const struct nf_cuckoo_flow_key *key,
			     __u32 key__sz, __u32 fields) __ksym;

/* The filter to ask, set by the loader; 0: pass everything. */
const volatile __u32 nfcf_filter_id = 0;

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
	} h;
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
	struct ipv6hdr ip6h;
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
	w.pkt.ctx = p->ctx;
	w.pkt.xdp = p->xdp;
	w.pkt.len = p->len;
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

SEC("xdp")
int nf_cuckoo_xdp(struct xdp_md *ctx)
{
	struct nf_cuckoo_flow_key k = {};
	struct nfcf_pkt p = {
		.ctx = ctx,
		.xdp = true,
		.len = bpf_xdp_get_buff_len(ctx),
	};
	__u32 id = nfcf_filter_id, fields;

	if (!id)
		return XDP_PASS;
	fields = nfcf_key(&k, &p);
	if (!fields)
		return XDP_PASS;
	if (bpf_nfcf_xdp_test(ctx, id, &k, sizeof(k), fields) == 1)
		return XDP_DROP;
	return XDP_PASS;
}

SEC("tc")
int nf_cuckoo_tc(struct __sk_buff *ctx)
{
	struct nf_cuckoo_flow_key k = {};
	struct nfcf_pkt p = {
		.ctx = ctx,
		.xdp = false,
		.len = ctx->len,
		.gso = ctx->gso_size != 0,
	};
	__u32 id = nfcf_filter_id, fields;

	if (!id)
		return TC_ACT_UNSPEC;
	fields = nfcf_key(&k, &p);
	if (!fields)
		return TC_ACT_UNSPEC;
	if (bpf_nfcf_skb_test(ctx, id, &k, sizeof(k), fields) == 1)
		return TC_ACT_SHOT;
	return TC_ACT_UNSPEC;
}

/*
 * libxdp's dispatcher runs the programs of a device by priority, going
 * on to the next after the actions listed here: after a pass, so that
 * what this one lets through still meets the others.  20 puts it before
 * the default of 50: dropping a listed flow early spares the rest.
 */
struct {
	__uint(priority, 20);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(nf_cuckoo_xdp);

char LICENSE[] SEC("license") = "GPL";
