/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BPF kfuncs for XDP and tc programs (kfunc.c).
 */
#ifndef _NF_CUCKOO_KFUNC_H
#define _NF_CUCKOO_KFUNC_H

#include <linux/bpf.h>

#include "../uapi/linux/nf_cuckoo.h"

/* Called by BPF programs only (kfunc.c): declared for the compiler. */
int bpf_nfcf_xdp_test(struct xdp_md *ctx, u32 id,
		      const struct nf_cuckoo_flow_key *key, u32 key__sz,
		      u32 fields);
int bpf_nfcf_skb_test(struct __sk_buff *ctx, u32 id,
		      const struct nf_cuckoo_flow_key *key, u32 key__sz,
		      u32 fields);

void nfcf_kfunc_init(void);

#endif /* _NF_CUCKOO_KFUNC_H */
