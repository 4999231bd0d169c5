/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Binds: what holds a namespace's filters in use.  The BPF programs
 * attached to its devices that consult them, as whoever attached them
 * recorded (NF_CUCKOO_CMD_BIND), and the iptables rules that name them.
 */
#ifndef _NF_CUCKOO_BIND_H
#define _NF_CUCKOO_BIND_H

#include <linux/netdevice.h>
#include <linux/rculist.h>
#include <net/netlink.h>

struct nfcf_net;

/**
 * struct nfcf_bind - a program on a device's point that consults filter @id
 * @node:	on nfcf_net::binds: written under the namespace's lock, read
 *		under RCU (GET)
 * @rcu:	frees it
 * @id:		the filter's id: binds follow ids, and ids follow names
 * @ifindex:	the device
 * @point:	enum nf_cuckoo_bind_point
 * @prog_id:	the program's id, as the binder said, or 0
 */
struct nfcf_bind {
	struct list_head node;
	struct rcu_head rcu;
	u32 id;
	int ifindex;
	u8 point;
	u32 prog_id;
};

int nfcf_bind_add(struct nfcf_net *nn, u32 id, int ifindex, u8 point,
		  u32 prog_id, struct netlink_ext_ack *extack);
int nfcf_bind_del(struct nfcf_net *nn, int ifindex, u8 point);
bool nfcf_bind_busy(struct nfcf_net *nn, u32 id,
		    struct netlink_ext_ack *extack);
int nfcf_bind_put(struct sk_buff *skb, struct nfcf_net *nn, u32 id);
int nfcf_bind_rule_get(struct nfcf_net *nn, const char *name, u8 family,
		       u32 *id);
void nfcf_bind_rule_put(struct nfcf_net *nn, u32 id);
void nfcf_binds_free(struct nfcf_net *nn);
int nfcf_bind_init(void);
void nfcf_bind_exit(void);

#endif /* _NF_CUCKOO_BIND_H */
