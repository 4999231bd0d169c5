/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packet path: netfilter hooks that consult a namespace's filters.
 */
#ifndef _NF_CUCKOO_HOOK_H
#define _NF_CUCKOO_HOOK_H

struct nfc_net;
struct nfc_filter;

int nfc_hooks_sync(struct nfc_net *nn, struct nfc_filter *also);

#endif /* _NF_CUCKOO_HOOK_H */
