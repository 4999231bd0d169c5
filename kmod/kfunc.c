// SPDX-License-Identifier: GPL-2.0
/*
 * BPF kfuncs: XDP and tc (SCHED_CLS) programs test a flow key against a
 * filter of their packet's network namespace, as the filter's netfilter
 * hook does, before the kernel builds an skb (XDP) or on egress (tc).
 *
 * A program names the filter by its id (cfctl show's "Id"), which stays
 * with the name when `cfctl restore -replace` or `compact` swaps a new
 * filter in.  Nothing is held between packets: each call finds the filter
 * under RCU, so destroying, flushing or growing it, deleting the
 * namespace or replacing the filter never leaves a program a pointer to
 * freed memory, and no release can be forgotten (doc/design.md).  A
 * program using these kfuncs holds a reference on the module, so the
 * module cannot be unloaded under it.
 *
 * The key is the one the hook builds from a packet (struct
 * nf_cuckoo_flow_key, uapi/linux/nf_cuckoo.h), unmasked: the addresses,
 * ports, protocol and family of the packet, and in @fields the enum
 * nf_cuckoo_key_field bits of the fields the program found in the
 * packet.  A filter whose key needs a field the packet lacks (a
 * non-first fragment's ports) does not match, as at the hook; the
 * filter's fields, prefixes and bidirectional rule are applied here.
 */
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/xdp.h>

#include "compat.h"
#include "filter.h"
#include "kfunc.h"
#include "netns.h"

/*
 * A key the filter does not take whole: a copy, finished (the fields it
 * does not key zeroed, a bidirectional key's ends put in order) and
 * looked up.  Out of line, so that the kfuncs' own frames hold no copy
 * (gcc inlines it on 6.12 unless told).
 */
static noinline cf_pkt_text bool nfcf_kfunc_match_copy(const struct nfcf_filter *f,
						       const struct nfcf_conf *conf,
						       const struct nf_cuckoo_flow_key *key)
{
	struct nf_cuckoo_flow_key k = *key;

	return nfcf_filter_match(f, conf, &k);
}

/*
 * Test @key against filter @id of @net; count the lookup, as @path's.
 * XDP and tc programs run in an RCU read-side critical section
 * (rcu_read_lock(), or bottom halves off), as the maps they look up rely
 * on: the filter is found and read under it, and freed only a grace
 * period after it left its namespace's ids (nfcf_net_live_rcu()).
 * Return: 1 if it matches, 0 if not (or the filter is disabled, or lacks
 * a field it needs), -ENOENT (no such filter), -EINVAL (a bad key).
 */
static __always_inline int nfcf_kfunc_test(const struct net *net, u32 id,
					   const struct nf_cuckoo_flow_key *key,
					   u32 key_sz, u32 fields,
					   enum nfcf_path path)
{
	const struct nfcf_conf *conf;
	struct nfcf_filter *f;
	bool hit;

	if (key_sz != sizeof(*key) || fields & ~NF_CUCKOO_KEY_ALL ||
	    (key->family != NF_CUCKOO_FAMILY_IPV4 &&
	     key->family != NF_CUCKOO_FAMILY_IPV6))
		return -EINVAL;
	f = nfcf_net_live_rcu(net, id);
	if (!f)
		return -ENOENT;
	conf = nfcf_deref_pkt(f->conf);
	if (!conf->enabled || f->ks.fields & ~fields ||
	    !(f->ks.families & key->family))
		return 0;
	/*
	 * A filter of every field, one way, takes the program's key as it
	 * is (finishing it would change nothing): no copy on its stack.
	 */
	if (nfcf_key_spec_whole(&f->ks))
		hit = nfcf_filter_match_finished(f, conf, key);
	else
		hit = nfcf_kfunc_match_copy(f, conf, key);
	nfcf_filter_count_path(f, hit, path);
	return hit;
}

/**
 * bpf_nfcf_xdp_test - does a packet's key match an nf_cuckoo filter?
 * @ctx:	the XDP program's context: the filter is looked up in the
 *		namespace of the device the packet arrived on
 * @id:		the filter's id
 * @key:	the packet's key, unmasked (see the top of this file)
 * @key__sz:	sizeof(struct nf_cuckoo_flow_key)
 * @fields:	the enum nf_cuckoo_key_field bits @key holds for real
 *
 * Return: 1 (match: in the filter, or for an invert filter not in it),
 * 0 (no match), -ENOENT (no filter @id in the namespace), -EINVAL.
 */
__bpf_kfunc cf_pkt_text int bpf_nfcf_xdp_test(struct xdp_md *ctx, u32 id,
					      const struct nf_cuckoo_flow_key *key,
					      u32 key__sz, u32 fields)
{
	struct xdp_buff *xdp = (struct xdp_buff *)ctx;

	return nfcf_kfunc_test(dev_net(xdp->rxq->dev), id, key, key__sz,
			       fields, NFCF_PATH_XDP);
}

/**
 * bpf_nfcf_skb_test - bpf_nfcf_xdp_test() for a tc program
 * @ctx:	the program's context: the filter is looked up in the
 *		namespace of the packet's device
 * @id:		as for bpf_nfcf_xdp_test()
 * @key:	as for bpf_nfcf_xdp_test()
 * @key__sz:	as for bpf_nfcf_xdp_test()
 * @fields:	as for bpf_nfcf_xdp_test()
 *
 * Return: as bpf_nfcf_xdp_test().
 */
__bpf_kfunc cf_pkt_text int bpf_nfcf_skb_test(struct __sk_buff *ctx, u32 id,
					      const struct nf_cuckoo_flow_key *key,
					      u32 key__sz, u32 fields)
{
	struct sk_buff *skb = (struct sk_buff *)ctx;

	if (!skb->dev)
		return -ENOENT;
	return nfcf_kfunc_test(dev_net(skb->dev), id, key, key__sz, fields,
			       NFCF_PATH_TC);
}

BTF_KFUNCS_START(nfcf_kfunc_ids)
BTF_ID_FLAGS(func, bpf_nfcf_xdp_test)
BTF_ID_FLAGS(func, bpf_nfcf_skb_test)
BTF_KFUNCS_END(nfcf_kfunc_ids)

static const struct btf_kfunc_id_set nfcf_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &nfcf_kfunc_ids,
};

/*
 * Register the kfuncs for XDP and tc programs.  Without the module's BTF
 * (a kernel built without it, or a header tree that could not make it:
 * btf/module-btf.sh) they cannot be: the module loads all the same, its
 * hooks work, and the kernel log says why BPF programs cannot use it.
 */
void nfcf_kfunc_init(void)
{
	int err;

	err = register_btf_kfunc_id_set(BPF_PROG_TYPE_XDP, &nfcf_kfunc_set);
	if (!err)
		err = register_btf_kfunc_id_set(BPF_PROG_TYPE_SCHED_CLS,
						&nfcf_kfunc_set);
	if (err)
		pr_info("no BPF kfuncs (error %d): the module has no BTF of its own; XDP and tc programs cannot use its filters\n",
			err);
}
