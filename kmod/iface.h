/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interfaces: the devices, by name, a hooked filter is restricted to
 * (NF_CUCKOO_A_IFACE: cfctl's iif and oif).
 */
#ifndef _NF_CUCKOO_IFACE_H
#define _NF_CUCKOO_IFACE_H

#include <linux/if.h>
#include <linux/netdevice.h>
#include <net/netlink.h>

#include "../uapi/linux/nf_cuckoo.h"

/**
 * struct nfcf_iface - one device name of a filter
 * @name:	the name, NUL-padded
 * @dir:	enum nf_cuckoo_iface_dir
 * @ifindex:	the index of the device of that name in the filter's
 *		namespace, 0 while there is none: kept by nfcf_ifaces_resolve()
 *		(WRITE_ONCE), read by the packet path (READ_ONCE)
 */
struct nfcf_iface {
	char name[IFNAMSIZ];
	u8 dir;
	int ifindex;
};

/**
 * struct nfcf_ifaces - a filter's device names, fixed at creation
 * @n:		entries in @e
 * @n_in:	of them, NF_CUCKOO_IFACE_IN
 * @n_out:	of them, NF_CUCKOO_IFACE_OUT
 * @e:		the names
 */
struct nfcf_ifaces {
	u8 n;
	u8 n_in;
	u8 n_out;
	struct nfcf_iface e[NF_CUCKOO_IFACES_MAX];
};

struct nfcf_net;

int nfcf_ifaces_parse(struct genl_info *info, struct nfcf_ifaces *ifs);
int nfcf_ifaces_hook_ok(const struct nfcf_ifaces *ifs, u8 hook,
			struct netlink_ext_ack *extack);
void nfcf_ifaces_resolve(struct net *net, struct nfcf_ifaces *ifs);
int nfcf_ifaces_put(struct sk_buff *skb, const struct nfcf_ifaces *ifs);
int nfcf_iface_init(void);
void nfcf_iface_exit(void);

/**
 * nfcf_ifaces_match - may the filter's hook consult this packet?
 * @ifs:	the filter's names (n > 0)
 * @in:		the device it arrived on, or NULL
 * @out:	the device it leaves by, or NULL
 *
 * An integer compare per name, no string: the names were resolved to
 * indexes when the filter was made and on every change of the
 * namespace's devices.
 */
static inline bool nfcf_ifaces_match(const struct nfcf_ifaces *ifs,
				     const struct net_device *in,
				     const struct net_device *out)
{
	bool in_ok = !ifs->n_in, out_ok = !ifs->n_out;
	unsigned int i;

	for (i = 0; i < ifs->n; i++) {
		int idx = READ_ONCE(ifs->e[i].ifindex);

		if (!idx)
			continue;
		if (ifs->e[i].dir == NF_CUCKOO_IFACE_IN)
			in_ok |= in && in->ifindex == idx;
		else
			out_ok |= out && out->ifindex == idx;
	}
	return in_ok && out_ok;
}

#endif /* _NF_CUCKOO_IFACE_H */
