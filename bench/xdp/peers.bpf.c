// SPDX-License-Identifier: GPL-2.0
/*
 * bench/xdp's peers of nf_cuckoo's XDP program, for BPF_PROG_TEST_RUN
 * only (bench/xdp/run.sh, loaded by xdpbench.c): the same parser over
 * other lookups.
 *
 * The parser (nfcf_key() and what it calls) is the shipped program's
 * own, tools/cfctl/bpf/nf_cuckoo_key.h, so the peers differ from it
 * only in what follows the key:
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
#include "../../tools/cfctl/bpf/nf_cuckoo_key.h"
#include "xb_key.h"

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
	struct nfcf_pkt p = nfcf_xdp_pkt(ctx);

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
	struct nfcf_pkt p = nfcf_xdp_pkt(ctx);
	__u32 fields = nfcf_key(&k, &p);

	if (!fields)
		return XDP_PASS;
	if (bpf_nfcf_xdp_test(ctx, k.family == NF_CUCKOO_FAMILY_IPV4 ?
			      xb_id4 : xb_id6, &k, sizeof(k), fields) == 1)
		return XDP_DROP;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
