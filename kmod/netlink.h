/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NF_CUCKOO_NETLINK_H
#define _NF_CUCKOO_NETLINK_H

int nfc_genl_init(void);
void nfc_genl_exit(void);

#endif /* _NF_CUCKOO_NETLINK_H */
