// SPDX-License-Identifier: GPL-2.0
/*
 * The kfuncs' test programs (kfunc_test.c runs them with
 * BPF_PROG_TEST_RUN): an XDP and a tc program that read a UDP or TCP
 * packet over IPv4 or IPv6 behind Ethernet, build its key as the hook
 * does, ask filter cfg[0] and drop it on a match.  The kfunc's answer
 * goes to result[0] for the test to read.  A plain parser: no VLAN, no
 * extension headers, no fragments.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "../../uapi/linux/nf_cuckoo.h"

extern int bpf_nfcf_xdp_test(struct xdp_md *ctx, __u32 id,
			     const struct nf_cuckoo_flow_key *key,
			     __u32 key__sz, __u32 fields) __ksym;
extern int bpf_nfcf_skb_test(struct __sk_buff *ctx, __u32 id,
			     const struct nf_cuckoo_flow_key *key,
			     __u32 key__sz, __u32 fields) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __s32);
} result SEC(".maps");

/* The key of the packet in [data, end); its fields, 0 if not IP. */
static __always_inline __u32 parse(void *data, void *end,
				   struct nf_cuckoo_flow_key *k)
{
	struct ethhdr *eth = data;
	__u32 fields = NF_CUCKOO_KEY_SRC_ADDR | NF_CUCKOO_KEY_DST_ADDR |
		       NF_CUCKOO_KEY_PROTO;
	struct udphdr *l4;
	void *l4p;

	if ((void *)(eth + 1) > end)
		return 0;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);

		if ((void *)(ip + 1) > end || ip->ihl != 5)
			return 0;
		k->family = NF_CUCKOO_FAMILY_IPV4;
		k->src[0] = ip->saddr;
		k->dst[0] = ip->daddr;
		k->proto = ip->protocol;
		l4p = ip + 1;
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		if ((void *)(ip6 + 1) > end)
			return 0;
		k->family = NF_CUCKOO_FAMILY_IPV6;
		__builtin_memcpy(k->src, &ip6->saddr, 16);
		__builtin_memcpy(k->dst, &ip6->daddr, 16);
		k->proto = ip6->nexthdr;
		l4p = ip6 + 1;
	} else {
		return 0;
	}
	if (k->proto != IPPROTO_UDP && k->proto != IPPROTO_TCP)
		return fields;
	/* The ports of TCP and UDP are where UDP's are. */
	l4 = l4p;
	if ((void *)(l4 + 1) > end)
		return fields;
	k->sport = l4->source;
	k->dport = l4->dest;
	return fields | NF_CUCKOO_KEY_SRC_PORT | NF_CUCKOO_KEY_DST_PORT;
}

static __always_inline void record(int ret)
{
	__u32 zero = 0;
	__s32 *r = bpf_map_lookup_elem(&result, &zero);

	if (r)
		*r = ret;
}

SEC("xdp")
int xdp_test(struct xdp_md *ctx)
{
	struct nf_cuckoo_flow_key k = {};
	__u32 zero = 0, *id, fields;
	int ret;

	fields = parse((void *)(long)ctx->data, (void *)(long)ctx->data_end, &k);
	id = bpf_map_lookup_elem(&cfg, &zero);
	if (!fields || !id)
		return XDP_PASS;
	ret = bpf_nfcf_xdp_test(ctx, *id, &k, sizeof(k), fields);
	record(ret);
	return ret > 0 ? XDP_DROP : XDP_PASS;
}

SEC("tc")
int tc_test(struct __sk_buff *ctx)
{
	struct nf_cuckoo_flow_key k = {};
	__u32 zero = 0, *id, fields;
	int ret;

	fields = parse((void *)(long)ctx->data, (void *)(long)ctx->data_end, &k);
	id = bpf_map_lookup_elem(&cfg, &zero);
	if (!fields || !id)
		return TC_ACT_OK;
	ret = bpf_nfcf_skb_test(ctx, *id, &k, sizeof(k), fields);
	record(ret);
	return ret > 0 ? TC_ACT_SHOT : TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
