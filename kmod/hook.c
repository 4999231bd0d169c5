// SPDX-License-Identifier: GPL-2.0
/*
 * The packet path: netfilter hooks that consult a namespace's filters.
 *
 * Registration.  A namespace registers one struct nf_hook_ops per
 * (protocol family, hook, priority) that one of its enabled, live filters
 * needs: a filter of family inet needs an IPv4 and an IPv6 one.  Plain
 * netfilter hooks cannot be NFPROTO_INET (only nf_tables' ingress can), so
 * each family is registered on its own.  nfcf_hooks_sync() brings the
 * registered set in line with what the filters need, under the
 * namespace's lock, whenever that may change: a filter created or
 * restored (before it goes live), enabled (before) or disabled (after),
 * removed (after), and when the namespace goes away (pre_exit, all of
 * them; the core's synchronize_rcu() between pre_exit and exit then
 * guarantees that no packet still runs this code on the namespace's
 * state).  A hook that is registered is never needed-but-missing: a
 * failed registration fails the operation that needed it.  An entry is
 * freed an RCU grace period after it is unregistered, since packets may
 * still be running the hook with it as priv.
 *
 * The hook.  Netfilter runs hooks under rcu_read_lock().  The hook walks
 * the namespace's live list (sorted by hook, then priority) for the
 * enabled filters of its own hook, priority and family, in creation
 * order within a priority; builds the packet's key once, on the first
 * filter that needs it; and lets each filter mask a copy of it.  No lock
 * is taken: the filter core's readers are lockless (cuckoo.h), a filter's
 * settings are one RCU pointer, its counters per CPU.  The first filter
 * whose action is drop and that matches drops the packet; marks are
 * applied in order and the packet goes on to the next filter.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/rculist.h>
#include <linux/skbuff.h>
#include <linux/slab.h>

#include "netns.h"
#include "hook.h"

static_assert((int)NF_CUCKOO_HOOK_PREROUTING == (int)NF_INET_PRE_ROUTING);
static_assert((int)NF_CUCKOO_HOOK_INPUT == (int)NF_INET_LOCAL_IN);
static_assert((int)NF_CUCKOO_HOOK_FORWARD == (int)NF_INET_FORWARD);
static_assert((int)NF_CUCKOO_HOOK_OUTPUT == (int)NF_INET_LOCAL_OUT);
static_assert((int)NF_CUCKOO_HOOK_POSTROUTING == (int)NF_INET_POST_ROUTING);

/**
 * struct nfcf_hook_ent - one registered netfilter hook of a namespace
 * @node:	on nfcf_net::hooks, under the namespace's lock
 * @ops:	what is registered; @ops.priv is this entry
 * @nn:		the namespace's state
 * @rcu:	to free it once no packet can see it
 * @family:	NF_CUCKOO_FAMILY_IPV4 or NF_CUCKOO_FAMILY_IPV6, as @ops.pf
 * @want:	still needed (nfcf_hooks_sync()'s scratch)
 */
struct nfcf_hook_ent {
	struct list_head node;
	struct nf_hook_ops ops;
	struct nfcf_net *nn;
	struct rcu_head rcu;
	u8 family;
	bool want;
};

static unsigned int nfcf_hook_fn(void *priv, struct sk_buff *skb,
				 const struct nf_hook_state *state)
{
	const struct nfcf_hook_ent *e = priv;
	unsigned int hooknum = e->ops.hooknum;
	int prio = e->ops.priority;
	struct nf_cuckoo_flow_key pkt, k;
	struct nfcf_filter *f;
	bool have_key = false;
	u32 have = 0;

	list_for_each_entry_rcu(f, &e->nn->live, live) {
		const struct nfcf_conf *conf;
		u8 done = NF_CUCKOO_ACTION_NONE;
		bool hit;

		if (f->hook != hooknum || f->priority != prio) {
			if (f->hook > hooknum ||
			    (f->hook == hooknum && f->priority > prio))
				break;
			continue;
		}
		if (!(f->ks.families & e->family))
			continue;
		conf = rcu_dereference(f->conf);
		if (!conf->enabled)
			continue;
		if (!have_key) {
			have = nfcf_flowkey_from_skb(&pkt, skb, e->family);
			have_key = true;
		}
		/* Headers the key needs are truncated or malformed. */
		if (f->ks.fields & ~have)
			continue;

		k = pkt;
		hit = nfcf_filter_match(f, conf, &k);
		if (hit && conf->action == NF_CUCKOO_ACTION_MARK) {
			skb->mark = (skb->mark & ~conf->mark_mask) |
				    (conf->mark & conf->mark_mask);
			done = NF_CUCKOO_ACTION_MARK;
		} else if (hit && conf->action == NF_CUCKOO_ACTION_DROP) {
			done = NF_CUCKOO_ACTION_DROP;
		}
		nfcf_filter_count(f, hit, done);
		if (done == NF_CUCKOO_ACTION_DROP)
			return NF_DROP;
	}
	return NF_ACCEPT;
}

static u8 nfcf_family_pf(u8 family)
{
	return family == NF_CUCKOO_FAMILY_IPV4 ? NFPROTO_IPV4 : NFPROTO_IPV6;
}

/* Mark the hooks @f needs as wanted, registering those missing. */
static int nfcf_hooks_want(struct nfcf_net *nn, struct nfcf_filter *f)
{
	static const u8 families[] = { NF_CUCKOO_FAMILY_IPV4, NF_CUCKOO_FAMILY_IPV6 };
	struct nfcf_hook_ent *e;
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(families); i++) {
		u8 family = families[i];
		bool found = false;

		if (!(f->ks.families & family))
			continue;
		list_for_each_entry(e, &nn->hooks, node) {
			if (e->family == family && e->ops.hooknum == f->hook &&
			    e->ops.priority == f->priority) {
				e->want = true;
				found = true;
				break;
			}
		}
		if (found)
			continue;

		e = kzalloc(sizeof(*e), GFP_KERNEL_ACCOUNT);
		if (!e)
			return -ENOMEM;
		e->nn = nn;
		e->family = family;
		e->want = true;
		e->ops.hook = nfcf_hook_fn;
		e->ops.priv = e;
		e->ops.pf = nfcf_family_pf(family);
		e->ops.hooknum = f->hook;
		e->ops.priority = f->priority;
		err = nf_register_net_hook(nn->net, &e->ops);
		if (err) {
			kfree(e);
			return err;
		}
		list_add_tail(&e->node, &nn->hooks);
	}
	return 0;
}

/**
 * nfcf_hooks_sync - register the hooks a namespace's filters need, only them
 * @nn:		the namespace, its lock held
 * @also:	a filter to count as live and enabled although it is not
 *		(yet), or NULL
 *
 * Needed: a hook of each family, hook and priority of an enabled filter on
 * the live list, and of @also; none once the namespace is dying.  Every
 * registered hook that is not needed is unregistered, even on failure: so
 * after a failure, a call with @also NULL undoes what was registered for
 * @also alone, and cannot fail.
 *
 * Return: 0, or the first registration error (-ENOMEM, -E2BIG: too many
 * hooks at that point).
 */
int nfcf_hooks_sync(struct nfcf_net *nn, struct nfcf_filter *also)
{
	struct nfcf_hook_ent *e, *tmp;
	struct nfcf_filter *f;
	int err = 0, ret;

	lockdep_assert_held(&nn->lock);
	list_for_each_entry(e, &nn->hooks, node)
		e->want = false;
	if (!nn->dying) {
		list_for_each_entry(f, &nn->live, live) {
			if (f == also || !nfcf_filter_enabled(f))
				continue;
			ret = nfcf_hooks_want(nn, f);
			if (ret && !err)
				err = ret;
		}
		if (also) {
			ret = nfcf_hooks_want(nn, also);
			if (ret && !err)
				err = ret;
		}
	}
	list_for_each_entry_safe(e, tmp, &nn->hooks, node) {
		if (e->want)
			continue;
		nf_unregister_net_hook(nn->net, &e->ops);
		list_del(&e->node);
		kfree_rcu(e, rcu);
	}
	return err;
}
