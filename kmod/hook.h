/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packet path: netfilter hooks that consult a namespace's filters.
 */
#ifndef _NF_CUCKOO_HOOK_H
#define _NF_CUCKOO_HOOK_H

struct nfcf_net;
struct nfcf_filter;

int nfcf_hooks_sync(struct nfcf_net *nn, struct nfcf_filter *also);
int nfcf_hooks_link(struct nfcf_net *nn, struct nfcf_filter *f);
void nfcf_hooks_unlink(struct nfcf_net *nn, struct nfcf_filter *f);

#endif /* _NF_CUCKOO_HOOK_H */
