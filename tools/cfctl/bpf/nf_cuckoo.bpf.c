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
 * Each header is copied to the stack at an offset computed from the
 * headers before it, and parsed from there (nfcf_load()).  The copy
 * reads through packet pointers, checked against the end of the linear
 * data: a few loads, where bpf_xdp_load_bytes() costs a helper call and
 * a memcpy() call per header, most of what the program cost a packet.
 * An XDP frame is linear whole (the program is not frags-aware, so the
 * kernel never hands it a multi-buffer frame); what lies outside the
 * linear data of an skb, or past the offsets the verifier follows
 * through packet pointers, is read by bpf_skb_load_bytes() or
 * bpf_xdp_load_bytes(), which check it against the packet's real length.
 * Either way a header that does not fit the packet is not read, and the
 * same code loads on every kernel from 6.1 on.
 *
 * A match drops (XDP_DROP, TC_ACT_SHOT); anything else, an error of the
 * kfunc included (no such filter: -ENOENT), lets the packet go on:
 * XDP_PASS, which libxdp's dispatcher chains to the next program (see
 * the run config below), and TC_ACT_UNSPEC, which runs the next tc
 * filter as if this one were not there.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <xdp/xdp_helpers.h>

#include "nf_cuckoo_key.h"

extern int bpf_nfcf_xdp_test(struct xdp_md *ctx, __u32 id,
			     const struct nf_cuckoo_flow_key *key,
			     __u32 key__sz, __u32 fields) __ksym;
extern int bpf_nfcf_skb_test(struct __sk_buff *ctx, __u32 id,
			     const struct nf_cuckoo_flow_key *key,
			     __u32 key__sz, __u32 fields) __ksym;

/* The filter to ask, set by the loader; 0: pass everything. */
const volatile __u32 nfcf_filter_id = 0;

SEC("xdp")
int nf_cuckoo_xdp(struct xdp_md *ctx)
{
	struct nf_cuckoo_flow_key k = {};
	struct nfcf_pkt p = nfcf_xdp_pkt(ctx);
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
	struct nfcf_pkt p = nfcf_skb_pkt(ctx);
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
