/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NF_CUCKOO_NETLINK_H
#define _NF_CUCKOO_NETLINK_H

int nfcf_genl_init(void);
void nfcf_genl_exit(void);

#endif /* _NF_CUCKOO_NETLINK_H */
