// SPDX-License-Identifier: GPL-2.0
/*
 * Binds.  The module cannot see which BPF programs call its kfuncs for
 * which filter: a program names a filter by an id held in its own data.
 * So whoever attaches one (cfctl xdp attach, cfctl tc attach) records
 * the attachment here, and a filter with a bind cannot be destroyed
 * (-EBUSY, the device named), as ipset refuses to destroy a set a rule
 * uses.  A destroyed filter would only make the program match nothing
 * (each kfunc call looks the id up under RCU): the bind protects the
 * user's blocklist, not the kernel's memory.
 *
 * A bind is keyed by (device, point), one program a point, and names
 * the filter by id: SWAP exchanges ids with names, so the binds follow
 * the filter the program asks.  It goes with UNBIND, with its device
 * (unregistered, or moved to another namespace), and with the namespace.
 */
#include <linux/netdevice.h>
#include <linux/notifier.h>
#include <linux/slab.h>

#include "bind.h"
#include "compat.h"
#include "netns.h"

static const char *const nfcf_bind_point_names[] = {
	[NF_CUCKOO_BIND_XDP] = "XDP",
	[NF_CUCKOO_BIND_TC_INGRESS] = "tc ingress",
	[NF_CUCKOO_BIND_TC_EGRESS] = "tc egress",
};

static struct nfcf_bind *nfcf_bind_find(struct nfcf_net *nn, int ifindex,
					u8 point)
{
	struct nfcf_bind *b;

	lockdep_assert_held(&nn->lock);
	list_for_each_entry(b, &nn->binds, node)
		if (b->ifindex == ifindex && b->point == point)
			return b;
	return NULL;
}

static void nfcf_bind_unlink(struct nfcf_net *nn, struct nfcf_bind *b)
{
	list_del_rcu(&b->node);
	nn->nbinds--;
	kfree_rcu(b, rcu);
}

/**
 * nfcf_bind_add - record that a program on a device consults filter @id
 * @nn:		the namespace
 * @id:		the filter's id: a live filter's, else -ENOENT
 * @ifindex:	the device, in @nn's namespace
 * @point:	enum nf_cuckoo_bind_point
 * @prog_id:	the program's id, or 0
 * @extack:	for the reason of a failure
 *
 * Return: 0, -ENODEV, -ENOENT, -ENOSPC or
 * -ENOMEM.
 */
int nfcf_bind_add(struct nfcf_net *nn, u32 id, int ifindex, u8 point,
		  u32 prog_id, struct netlink_ext_ack *extack)
{
	struct nfcf_bind *b, *old;
	int err = 0;

	b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);
	if (!b)
		return -ENOMEM;
	b->id = id;
	b->ifindex = ifindex;
	b->point = point;
	b->prog_id = prog_id;

	mutex_lock(&nn->lock);
	rcu_read_lock();
	if (!dev_get_by_index_rcu(nn->net, ifindex)) {
		NL_SET_ERR_MSG_MOD(extack, "no device of that index in the namespace");
		err = -ENODEV;
	}
	rcu_read_unlock();
	if (!err && !xa_load(&nn->ids, id)) {
		NL_SET_ERR_MSG_MOD(extack, "no live filter has that id in the namespace");
		err = -ENOENT;
	}
	old = err ? NULL : nfcf_bind_find(nn, ifindex, point);
	if (!err && !old && nn->nbinds >= NF_CUCKOO_BINDS_MAX) {
		NL_SET_ERR_MSG_MOD(extack, "the namespace has NF_CUCKOO_BINDS_MAX binds");
		err = -ENOSPC;
	}
	if (!err) {
		if (old)
			nfcf_bind_unlink(nn, old);
		list_add_tail_rcu(&b->node, &nn->binds);
		nn->nbinds++;
	}
	mutex_unlock(&nn->lock);
	if (err)
		kfree(b);
	return err;
}

/**
 * nfcf_bind_del - forget the bind of a device's point
 * @nn:		the namespace
 * @ifindex:	the device
 * @point:	enum nf_cuckoo_bind_point
 *
 * Return: 0, or -ENOENT if there was none.
 */
int nfcf_bind_del(struct nfcf_net *nn, int ifindex, u8 point)
{
	struct nfcf_bind *b;

	mutex_lock(&nn->lock);
	b = nfcf_bind_find(nn, ifindex, point);
	if (b)
		nfcf_bind_unlink(nn, b);
	mutex_unlock(&nn->lock);
	return b ? 0 : -ENOENT;
}

/**
 * nfcf_bind_busy - is filter @id bound to a program?
 * @nn:		the namespace, its lock held
 * @id:		the filter's id
 * @extack:	names the device of the first bind, if there is one
 */
bool nfcf_bind_busy(struct nfcf_net *nn, u32 id,
		    struct netlink_ext_ack *extack)
{
	struct net_device *dev;
	struct nfcf_bind *b;

	lockdep_assert_held(&nn->lock);
	list_for_each_entry(b, &nn->binds, node) {
		if (b->id != id)
			continue;
		rcu_read_lock();
		dev = dev_get_by_index_rcu(nn->net, b->ifindex);
		NFCF_ERR_MSG_FMT(extack,
				 "the filter is in use by a program attached to a device: detach it first",
				 "the filter is in use by a program at %s on %s: detach it first",
				 nfcf_bind_point_names[b->point],
				 dev ? dev->name : "a device");
		rcu_read_unlock();
		return true;
	}
	return false;
}

/**
 * nfcf_bind_put - put filter @id's binds in a message (NF_CUCKOO_A_BIND)
 * @skb:	the message
 * @nn:		the namespace
 * @id:		the filter's id
 *
 * Return: 0 or -EMSGSIZE.
 */
int nfcf_bind_put(struct sk_buff *skb, struct nfcf_net *nn, u32 id)
{
	struct nfcf_bind *b;
	struct nlattr *nest;
	int err = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(b, &nn->binds, node) {
		if (b->id != id)
			continue;
		nest = nla_nest_start(skb, NF_CUCKOO_A_BIND);
		if (!nest ||
		    nla_put_u32(skb, NF_CUCKOO_A_IFINDEX, b->ifindex) ||
		    nla_put_u8(skb, NF_CUCKOO_A_BIND_POINT, b->point) ||
		    nla_put_u32(skb, NF_CUCKOO_A_PROG_ID, b->prog_id)) {
			err = -EMSGSIZE;
			break;
		}
		nla_nest_end(skb, nest);
	}
	rcu_read_unlock();
	return err;
}

/* Every bind of @nn, its namespace going away. */
void nfcf_binds_free(struct nfcf_net *nn)
{
	struct nfcf_bind *b, *tmp;

	mutex_lock(&nn->lock);
	list_for_each_entry_safe(b, tmp, &nn->binds, node)
		nfcf_bind_unlink(nn, b);
	mutex_unlock(&nn->lock);
}

/* A device leaving its namespace takes its binds with it. */
static int nfcf_bind_netdev_event(struct notifier_block *nb,
				  unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct nfcf_net *nn;
	struct nfcf_bind *b, *tmp;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	nn = nfcf_net(dev_net(dev));
	/* A dying namespace's binds went at its exit, before its devices. */
	if (READ_ONCE(nn->dying))
		return NOTIFY_DONE;
	mutex_lock(&nn->lock);
	list_for_each_entry_safe(b, tmp, &nn->binds, node)
		if (b->ifindex == dev->ifindex)
			nfcf_bind_unlink(nn, b);
	mutex_unlock(&nn->lock);
	return NOTIFY_DONE;
}

static struct notifier_block nfcf_bind_notifier = {
	.notifier_call = nfcf_bind_netdev_event,
};

int __init nfcf_bind_init(void)
{
	return register_netdevice_notifier(&nfcf_bind_notifier);
}

void nfcf_bind_exit(void)
{
	unregister_netdevice_notifier(&nfcf_bind_notifier);
}
