/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NF_CUCKOO_NETLINK_H
#define _NF_CUCKOO_NETLINK_H

#include <net/genetlink.h>

#include "filter.h"

extern struct genl_family nfcf_genl_family;

/* The room one NF_CUCKOO_A_STAGE nest takes (nfcf_nl_put_stage()). */
#define NFCF_STAGE_SIZE	(nla_total_size(0) +				\
			 3 * nla_total_size_64bit(sizeof(u64)) +	\
			 2 * nla_total_size(sizeof(u32)) +		\
			 2 * nla_total_size(sizeof(u8)))

int nfcf_nl_put_filter(struct sk_buff *skb, struct nfcf_filter *f, bool stats,
		       bool locked);
int nfcf_nl_put_stage(struct sk_buff *skb, const struct nfcf_stage_info *si);

int nfcf_genl_init(void);
void nfcf_genl_exit(void);

#endif /* _NF_CUCKOO_NETLINK_H */
