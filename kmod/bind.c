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
 *
 * Rules.  An iptables rule of the match "cuckoo" (match.c) takes a
 * reference on its filter's id when it is checked and gives it back when
 * it is destroyed; the module sees each rule, so these are counted here,
 * per id, in nfcf_net::rules.  A table's rules may be destroyed after the
 * namespace's exit has emptied that count (the order of the namespace's
 * exit methods is the order the modules loaded in), so it takes the
 * xarray's own lock, never the namespace's.
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

/* How many rules use filter @id. */
static u32 nfcf_bind_rules(struct nfcf_net *nn, u32 id)
{
	void *v = xa_load(&nn->rules, id);

	return v ? xa_to_value(v) : 0;
}

/**
 * nfcf_bind_rule_get - a rule is checked: take a reference on its filter
 * @nn:		the rule's namespace
 * @name:	the filter's name, NUL-terminated
 * @family:	the rule's, NF_CUCKOO_FAMILY_IPV4 or NF_CUCKOO_FAMILY_IPV6
 * @id:		set to the filter's id
 *
 * Return: 0; -ENOENT (no such filter), -EBUSY (being restored), -EINVAL
 * (no keys of @family), -ENOMEM; the kernel log says which, as xtables
 * matches do.
 */
int nfcf_bind_rule_get(struct nfcf_net *nn, const char *name, u8 family,
		       u32 *id)
{
	struct nfcf_filter *f;
	int err = 0;
	void *old;

	mutex_lock(&nn->lock);
	f = nfcf_net_find(nn, name);
	if (!f) {
		pr_info_ratelimited("nf_cuckoo: no filter %s in this network namespace\n",
				    name);
		err = -ENOENT;
	} else if (f->loading) {
		pr_info_ratelimited("nf_cuckoo: filter %s is being restored\n", name);
		err = -EBUSY;
	} else if (!(f->ks.families & family)) {
		pr_info_ratelimited("nf_cuckoo: filter %s holds no %s keys\n", name,
				    family == NF_CUCKOO_FAMILY_IPV6 ? "IPv6" : "IPv4");
		err = -EINVAL;
	}
	if (!err) {
		*id = f->id;
		xa_lock(&nn->rules);
		old = __xa_store(&nn->rules, f->id,
				 xa_mk_value(nfcf_bind_rules(nn, f->id) + 1),
				 GFP_KERNEL);
		xa_unlock(&nn->rules);
		err = xa_err(old);
	}
	mutex_unlock(&nn->lock);
	return err;
}

/**
 * nfcf_bind_rule_put - a rule is destroyed: give its reference back
 * @nn:		the rule's namespace
 * @id:		the id nfcf_bind_rule_get() gave
 *
 * Any context a match's destroy runs in; nothing to do after the
 * namespace's exit.
 */
void nfcf_bind_rule_put(struct nfcf_net *nn, u32 id)
{
	u32 n;

	xa_lock(&nn->rules);
	n = nfcf_bind_rules(nn, id);
	if (n > 1)
		/* The entry exists: nothing is allocated. */
		__xa_store(&nn->rules, id, xa_mk_value(n - 1), GFP_ATOMIC);
	else if (n)
		__xa_erase(&nn->rules, id);
	xa_unlock(&nn->rules);
}

/**
 * nfcf_bind_busy - is filter @id bound to a program, or used by a rule?
 * @nn:		the namespace, its lock held
 * @id:		the filter's id
 * @extack:	names the device of the first bind, or the rules
 */
bool nfcf_bind_busy(struct nfcf_net *nn, u32 id,
		    struct netlink_ext_ack *extack)
{
	struct net_device *dev;
	struct nfcf_bind *b;
	u32 rules;

	lockdep_assert_held(&nn->lock);
	rules = nfcf_bind_rules(nn, id);
	if (rules) {
		NFCF_ERR_MSG_FMT(extack,
				 "the filter is in use by iptables rules: delete them first",
				 "the filter is in use by %u iptables rule%s: delete them first",
				 rules, rules == 1 ? "" : "s");
		return true;
	}
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
 * nfcf_bind_put - put filter @id's binds in a message (NF_CUCKOO_A_BIND),
 *	and how many rules use it (NF_CUCKOO_A_RULE_REFS)
 * @skb:	the message
 * @nn:		the namespace
 * @id:		the filter's id
 *
 * Return: 0 or -EMSGSIZE.
 */
int nfcf_bind_put(struct sk_buff *skb, struct nfcf_net *nn, u32 id)
{
	u32 rules = nfcf_bind_rules(nn, id);
	struct nfcf_bind *b;
	struct nlattr *nest;
	int err = 0;

	if (rules && nla_put_u32(skb, NF_CUCKOO_A_RULE_REFS, rules))
		return -EMSGSIZE;

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
