// SPDX-License-Identifier: GPL-2.0
/*
 * Interfaces.  A filter with a hook of its own may be restricted to
 * packets arriving on (iif) or leaving by (oif) devices of given names,
 * as nftables' iifname and oifname are: by name, so a device deleted and
 * made again, or renamed to the name, is matched from then on.  The
 * names are resolved to indexes when the filter goes on its namespace's
 * list, and again, under the namespace's lock, on every registration,
 * unregistration and rename of a device of the namespace; the packet
 * path compares indexes (nfcf_ifaces_match()), never strings.
 *
 * Why no event is missed: a filter is resolved after it is on the list,
 * under the lock the notifier takes; a device is findable by name before
 * its NETDEV_REGISTER and no more at its NETDEV_UNREGISTER.  So a device
 * that appears while a filter is made is found by one or the other.
 */
#include <linux/netdevice.h>
#include <linux/notifier.h>

#include "compat.h"
#include "iface.h"
#include "netns.h"

static const struct nla_policy nfcf_iface_policy[NF_CUCKOO_IFACE_A_MAX + 1] = {
	[NF_CUCKOO_IFACE_A_NAME] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[NF_CUCKOO_IFACE_A_DIR] = NLA_POLICY_MAX(NLA_U8, NF_CUCKOO_IFACE_OUT),
};

/* One NF_CUCKOO_A_IFACE into @e. */
static int nfcf_iface_parse(const struct nlattr *attr, struct nfcf_iface *e,
			    struct netlink_ext_ack *extack)
{
	struct nlattr *tb[NF_CUCKOO_IFACE_A_MAX + 1];
	int err;

	err = nla_parse_nested(tb, NF_CUCKOO_IFACE_A_MAX, attr, nfcf_iface_policy,
			       extack);
	if (err)
		return err;
	if (!tb[NF_CUCKOO_IFACE_A_NAME] || !tb[NF_CUCKOO_IFACE_A_DIR] ||
	    !nla_len(tb[NF_CUCKOO_IFACE_A_NAME]) ||
	    !*(char *)nla_data(tb[NF_CUCKOO_IFACE_A_NAME])) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "an interface needs a name (1 to 15 characters) and a direction");
		return -EINVAL;
	}
	nla_strscpy(e->name, tb[NF_CUCKOO_IFACE_A_NAME], sizeof(e->name));
	if (!dev_valid_name(e->name)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "not a valid device name");
		return -EINVAL;
	}
	e->dir = nla_get_u8(tb[NF_CUCKOO_IFACE_A_DIR]);
	e->ifindex = 0;
	return 0;
}

/**
 * nfcf_ifaces_parse - a request's NF_CUCKOO_A_IFACE attributes
 * @info:	NEW or LOAD_BEGIN
 * @ifs:	filled in; n 0 if there are none
 *
 * Return: 0, or -EINVAL (with the reason) for a bad one, one too many
 * or a name given twice in one direction.
 */
int nfcf_ifaces_parse(struct genl_info *info, struct nfcf_ifaces *ifs)
{
	const struct nlattr *nla;
	unsigned int i;
	int rem, err;

	memset(ifs, 0, sizeof(*ifs));
	nlmsg_for_each_attr(nla, info->nlhdr, GENL_HDRLEN, rem) {
		struct nfcf_iface *e = &ifs->e[ifs->n];

		if (nla_type(nla) != NF_CUCKOO_A_IFACE)
			continue;
		if (ifs->n == NF_CUCKOO_IFACES_MAX) {
			NL_SET_ERR_MSG_ATTR(info->extack, nla,
					    "more than NF_CUCKOO_IFACES_MAX interfaces");
			return -EINVAL;
		}
		err = nfcf_iface_parse(nla, e, info->extack);
		if (err)
			return err;
		for (i = 0; i < ifs->n; i++) {
			if (ifs->e[i].dir == e->dir && !strcmp(ifs->e[i].name, e->name)) {
				NL_SET_ERR_MSG_ATTR(info->extack, nla,
						    "an interface given twice");
				return -EINVAL;
			}
		}
		if (e->dir == NF_CUCKOO_IFACE_IN)
			ifs->n_in++;
		else
			ifs->n_out++;
		ifs->n++;
	}
	return 0;
}

/**
 * nfcf_ifaces_hook_ok - do a filter's names fit a hook?
 * @ifs:	the names, or NULL
 * @hook:	enum nf_cuckoo_hook
 * @extack:	for the reason
 *
 * Return: 0, or -EINVAL: an input device where packets have none
 * (OUTPUT, POSTROUTING), an output one where they have none yet
 * (PREROUTING, INPUT).
 */
int nfcf_ifaces_hook_ok(const struct nfcf_ifaces *ifs, u8 hook,
			struct netlink_ext_ack *extack)
{
	if (!ifs)
		return 0;
	if (ifs->n_in && (hook == NF_CUCKOO_HOOK_OUTPUT ||
			  hook == NF_CUCKOO_HOOK_POSTROUTING)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "iif at the output or postrouting hook: packets there have no input device");
		return -EINVAL;
	}
	if (ifs->n_out && (hook == NF_CUCKOO_HOOK_PREROUTING ||
			   hook == NF_CUCKOO_HOOK_INPUT)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "oif at the prerouting or input hook: packets there have no output device yet");
		return -EINVAL;
	}
	return 0;
}

/**
 * nfcf_ifaces_resolve - the indexes of a filter's names, now
 * @net:	the filter's namespace
 * @ifs:	its names
 *
 * Under the namespace's lock (nfcf_net::lock), which orders it against
 * the notifier below.
 */
void nfcf_ifaces_resolve(struct net *net, struct nfcf_ifaces *ifs)
{
	struct net_device *dev;
	unsigned int i;

	rcu_read_lock();
	for (i = 0; i < ifs->n; i++) {
		dev = dev_get_by_name_rcu(net, ifs->e[i].name);
		WRITE_ONCE(ifs->e[i].ifindex, dev ? dev->ifindex : 0);
	}
	rcu_read_unlock();
}

/**
 * nfcf_ifaces_put - a filter's names into a message (NF_CUCKOO_A_IFACE)
 * @skb:	the message
 * @ifs:	the names, or NULL
 *
 * Return: 0 or -EMSGSIZE.
 */
int nfcf_ifaces_put(struct sk_buff *skb, const struct nfcf_ifaces *ifs)
{
	struct nlattr *nest;
	unsigned int i;

	for (i = 0; ifs && i < ifs->n; i++) {
		nest = nla_nest_start(skb, NF_CUCKOO_A_IFACE);
		if (!nest ||
		    nla_put_string(skb, NF_CUCKOO_IFACE_A_NAME, ifs->e[i].name) ||
		    nla_put_u8(skb, NF_CUCKOO_IFACE_A_DIR, ifs->e[i].dir))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

/* A device of a namespace came, went or took another name. */
static int nfcf_iface_netdev_event(struct notifier_block *nb,
				   unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct nfcf_filter *f;
	struct nfcf_net *nn;

	if (event != NETDEV_REGISTER && event != NETDEV_UNREGISTER &&
	    event != NETDEV_CHANGENAME)
		return NOTIFY_DONE;
	nn = nfcf_net(dev_net(dev));
	/*
	 * Not set up yet (a new namespace's loopback registers before this
	 * module's state exists), or dying (its filters went at its exit,
	 * before its devices).
	 */
	if (!READ_ONCE(nn->net) || READ_ONCE(nn->dying))
		return NOTIFY_DONE;
	mutex_lock(&nn->lock);
	list_for_each_entry(f, &nn->filters, node)
		if (f->ifaces)
			nfcf_ifaces_resolve(nn->net, f->ifaces);
	mutex_unlock(&nn->lock);
	return NOTIFY_DONE;
}

static struct notifier_block nfcf_iface_notifier = {
	.notifier_call = nfcf_iface_netdev_event,
};

int __init nfcf_iface_init(void)
{
	return register_netdevice_notifier(&nfcf_iface_notifier);
}

void nfcf_iface_exit(void)
{
	unregister_netdevice_notifier(&nfcf_iface_notifier);
}
