// SPDX-License-Identifier: GPL-2.0
/*
 * The kfuncs' test programs (kfunc_test.c runs them with
 * BPF_PROG_TEST_RUN): an XDP and a tc program that build a packet's key
 * with the parser of the program cfctl attaches (nf_cuckoo_key.h), ask
 * filter cfg[0] and drop it on a match.  The kfunc's answer goes to
 * result[0] for the test to read.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#include "../../tools/cfctl/bpf/nf_cuckoo_key.h"

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
	struct nfcf_pkt p = nfcf_xdp_pkt(ctx);
	int ret;

	fields = nfcf_key(&k, &p);
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
	struct nfcf_pkt p = nfcf_skb_pkt(ctx);
	int ret;

	fields = nfcf_key(&k, &p);
	id = bpf_map_lookup_elem(&cfg, &zero);
	if (!fields || !id)
		return TC_ACT_OK;
	ret = bpf_nfcf_skb_test(ctx, *id, &k, sizeof(k), fields);
	record(ret);
	return ret > 0 ? TC_ACT_SHOT : TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
