/* SPDX-License-Identifier: GPL-2.0 */
/* What iptables rules ask of filters (rule.c), for xt_cuckoo (match.c). */
#ifndef _NF_CUCKOO_RULE_H
#define _NF_CUCKOO_RULE_H

#include <linux/types.h>

struct net;
struct sk_buff;

int nfcf_rule_get(struct net *net, const char *name, u8 family, u32 *id);
void nfcf_rule_put(struct net *net, u32 id);
int nfcf_rule_test(const struct net *net, u32 id, const struct sk_buff *skb,
		   u8 family, bool reverse);

#endif /* _NF_CUCKOO_RULE_H */
