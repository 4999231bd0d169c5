// SPDX-License-Identifier: GPL-2.0
/*
 * What iptables rules ask of a filter, for the match "cuckoo" (module
 * xt_cuckoo, match.c), which is kept apart so that loading nf_cuckoo does
 * not load x_tables: a rule takes a reference on its filter when it is
 * checked (bind.c counts it), asks about each packet by the filter's id,
 * and gives the reference back when it is destroyed.
 *
 * Per packet, as the kfuncs do (kfunc.c): the filter is found by id under
 * RCU, so a SWAP (restore -replace, compact) that gives the name's id to
 * a new filter takes the rule along, and a rule never holds a pointer a
 * destroy could free.
 */
#include <linux/export.h>
#include <linux/skbuff.h>

#include "bind.h"
#include "filter.h"
#include "netns.h"
#include "rule.h"

/**
 * nfcf_rule_get - a rule is checked: its filter, and a reference on it
 * @net:	the rule's namespace
 * @name:	the filter's name, NUL-terminated
 * @family:	NF_CUCKOO_FAMILY_IPV4 or NF_CUCKOO_FAMILY_IPV6
 * @id:		set to the filter's id, for nfcf_rule_test()
 *
 * Return: as nfcf_bind_rule_get().
 */
int nfcf_rule_get(struct net *net, const char *name, u8 family, u32 *id)
{
	return nfcf_bind_rule_get(nfcf_net(net), name, family, id);
}
EXPORT_SYMBOL_GPL(nfcf_rule_get);

/**
 * nfcf_rule_put - a rule is destroyed: give its reference back
 * @net:	the rule's namespace
 * @id:		what nfcf_rule_get() gave
 */
void nfcf_rule_put(struct net *net, u32 id)
{
	nfcf_bind_rule_put(nfcf_net(net), id);
}
EXPORT_SYMBOL_GPL(nfcf_rule_put);

/**
 * nfcf_rule_test - is a rule's packet in its filter?  Under RCU.
 * @net:	the rule's namespace
 * @id:		the filter's id
 * @skb:	the packet
 * @family:	NF_CUCKOO_FAMILY_IPV4 or NF_CUCKOO_FAMILY_IPV6
 * @reverse:	look it up with source and destination exchanged
 *
 * Counted in the filter's counters, as a rule's (NFCF_PATH_RULE).
 * Return: 1 if the filter (probably) holds the packet's key, 0 if not,
 * -ENOENT if the filter is gone, disabled, or needs a field the packet's
 * headers lack: then the rule matches neither way.
 */
cf_pkt_text int nfcf_rule_test(const struct net *net, u32 id,
			       const struct sk_buff *skb, u8 family,
			       bool reverse)
{
	const struct nfcf_conf *conf;
	struct nf_cuckoo_flow_key k;
	struct nfcf_filter *f;
	bool hit;
	u32 have;

	f = nfcf_net_live_rcu(net, id);
	if (unlikely(!f))
		return -ENOENT;
	conf = rcu_dereference(f->conf);
	if (!conf->enabled)
		return -ENOENT;
	have = nfcf_flowkey_from_skb(&k, skb, family);
	if (f->ks.fields & ~have)
		return -ENOENT;
	if (reverse)
		nfcf_flowkey_swap(&k);
	nfcf_flowkey_finish(&k, &f->ks);
	hit = nfcf_filter_lookup(f, &k);
	nfcf_filter_count_path(f, hit, NFCF_PATH_RULE);
	return hit;
}
EXPORT_SYMBOL_GPL(nfcf_rule_test);
