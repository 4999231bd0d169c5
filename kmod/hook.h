/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packet path: netfilter hooks that consult a namespace's filters.
 */
#ifndef _NF_CUCKOO_HOOK_H
#define _NF_CUCKOO_HOOK_H

#include <linux/types.h>

struct nfcf_net;
struct nfcf_filter;

int nfcf_hooks_sync(struct nfcf_net *nn, struct nfcf_filter *also);
int nfcf_hooks_link(struct nfcf_net *nn, struct nfcf_filter *f);
void nfcf_hooks_unlink(struct nfcf_net *nn, struct nfcf_filter *f);
int nfcf_hooks_move(struct nfcf_net *nn, struct nfcf_filter *f, u8 hook,
		    s32 priority);

#endif /* _NF_CUCKOO_HOOK_H */
