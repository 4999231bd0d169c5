// SPDX-License-Identifier: GPL-2.0
/*
 * The packet path: netfilter hooks that consult a namespace's filters.
 *
 * Entries.  A namespace keeps one struct nfcf_hook_ent per (protocol
 * family, hook, priority) that one of its live filters (loaded, not
 * removed; enabled or not) has: a filter of family inet is on an IPv4 and
 * an IPv6 one.  The entry holds the RCU list of those filters, in the
 * order they went live, and a struct nf_hook_ops registered while one of
 * them is enabled.  Plain netfilter hooks cannot be NFPROTO_INET (only
 * nf_tables' ingress can), so each family is registered on its own.  A
 * filter goes on its entries' lists when it goes live (nfcf_hooks_link())
 * and off them when removed (nfcf_hooks_unlink()), never in between: its
 * list nodes are not reused while packets may stand on them.
 *
 * Registration.  nfcf_hooks_sync() brings the registered set in line with
 * what the filters need, under the namespace's lock, whenever that may
 * change: a filter created or restored (before it goes live), enabled
 * (before) or disabled (after), removed (after), and when the namespace
 * goes away (pre_exit, all of them; the core's synchronize_rcu() between
 * pre_exit and exit then guarantees that no packet still runs this code
 * on the namespace's state).  A hook that is registered is never
 * needed-but-missing: a failed registration fails the operation that
 * needed it.  An entry is freed an RCU grace period after it is both
 * unregistered and empty, since packets may still be running the hook
 * with it as priv.
 *
 * The hook.  Netfilter runs hooks under rcu_read_lock().  The hook walks
 * its entry's list, so only the filters of its own family, hook and
 * priority, skipping disabled ones and those whose interfaces (iface.c)
 * the packet's devices are not; builds the packet's key once, on the
 * first filter that needs it; and lets each filter mask a copy of it.  No
 * lock is taken: the filter core's readers are lockless (cuckoo.h), a
 * filter's settings are one RCU pointer, its counters per CPU.  The first
 * filter whose action is drop and that matches drops the packet; marks
 * are applied in order and the packet goes on to the next filter.  At
 * the output hook, a packet whose mark the filters changed is routed
 * again (nfcf_reroute()).
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
 * struct nfcf_hook_ent - a namespace's filters at one (family, hook, priority)
 * @node:	on nfcf_net::hooks, under the namespace's lock
 * @filters:	RCU list of the live filters (enabled or not) of this family,
 *		hook and priority, in the order they went live (struct
 *		nfcf_hook_link: nfcf_filter::hl[set][0] for IPv4, [set][1]
 *		for IPv6)
 * @ops:	what is registered; @ops.priv is this entry
 * @nn:		the namespace's state
 * @rcu:	to free it once no packet can see it
 * @family:	NF_CUCKOO_FAMILY_IPV4 or NF_CUCKOO_FAMILY_IPV6, as @ops.pf
 * @registered:	@ops is registered
 * @want:	to be registered (nfcf_hooks_sync()'s scratch)
 */
struct nfcf_hook_ent {
	struct list_head node;
	struct list_head filters;
	struct nf_hook_ops ops;
	struct nfcf_net *nn;
	struct rcu_head rcu;
	u8 family;
	bool registered;
	bool want;
};

/*
 * nfcf_filter_match() out of line: the walk below asks each filter of its
 * list in turn, and one copy of the lookup, apart, keeps the walk's own
 * code within a page (cf_pkt_text).
 */
static noinline cf_pkt_text bool nfcf_hook_match(const struct nfcf_filter *f,
						 const struct nfcf_conf *conf,
						 struct nf_cuckoo_flow_key *k)
{
	return nfcf_filter_match(f, conf, k);
}

/* Consult the filters of @e; NF_DROP or NF_ACCEPT. */
static unsigned int nfcf_hook_walk(const struct nfcf_hook_ent *e,
				   struct sk_buff *skb,
				   const struct nf_hook_state *state)
{
	struct nf_cuckoo_flow_key pkt, k;
	const struct nfcf_hook_link *l;
	bool have_key = false;
	u32 have = 0;

	list_for_each_entry_rcu(l, &e->filters, node) {
		struct nfcf_filter *f = l->f;
		const struct nfcf_conf *conf;
		u8 done = NF_CUCKOO_ACTION_NONE;
		bool hit;

		conf = rcu_dereference(f->conf);
		if (!conf->enabled)
			continue;
		if (f->ifaces &&
		    !nfcf_ifaces_match(f->ifaces, state->in, state->out))
			continue;
		if (!have_key) {
			have = nfcf_flowkey_from_skb(&pkt, skb, e->family);
			have_key = true;
		}
		/* Headers the key needs are truncated or malformed. */
		if (f->ks.fields & ~have)
			continue;

		k = pkt;
		hit = nfcf_hook_match(f, conf, &k);
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

/*
 * At LOCAL_OUT the route was chosen before the mark was set: route again,
 * as iptables' mangle table and nftables' route chains do, so that policy
 * routing on the mark (ip rule fwmark) sees it.
 */
static unsigned int nfcf_reroute(const struct nfcf_hook_ent *e,
				 struct sk_buff *skb,
				 const struct nf_hook_state *state)
{
	int err;

	if (e->family == NF_CUCKOO_FAMILY_IPV4)
		err = ip_route_me_harder(state->net, state->sk, skb, RTN_UNSPEC);
	else
		err = nf_ip6_route_me_harder(state->net, state->sk, skb);
	return err < 0 ? NF_DROP_ERR(err) : NF_ACCEPT;
}

static cf_pkt_text unsigned int nfcf_hook_fn(void *priv,
					     struct sk_buff *skb,
					     const struct nf_hook_state *state)
{
	const struct nfcf_hook_ent *e = priv;
	u32 mark = skb->mark;
	unsigned int verdict;

	verdict = nfcf_hook_walk(e, skb, state);
	if (verdict == NF_ACCEPT && skb->mark != mark &&
	    e->ops.hooknum == NF_INET_LOCAL_OUT)
		return nfcf_reroute(e, skb, state);
	return verdict;
}

static u8 nfcf_family_pf(u8 family)
{
	return family == NF_CUCKOO_FAMILY_IPV4 ? NFPROTO_IPV4 : NFPROTO_IPV6;
}

/* In the order of nfcf_filter::hl[set][]. */
static const u8 nfcf_families[] = {
	NF_CUCKOO_FAMILY_IPV4, NF_CUCKOO_FAMILY_IPV6
};

/* The entry of @family at @f's hook and priority, created if missing. */
static struct nfcf_hook_ent *nfcf_hook_ent_get(struct nfcf_net *nn,
					       const struct nfcf_filter *f,
					       u8 family)
{
	struct nfcf_hook_ent *e;

	list_for_each_entry(e, &nn->hooks, node)
		if (e->family == family && e->ops.hooknum == f->hook &&
		    e->ops.priority == f->priority)
			return e;

	e = kzalloc(sizeof(*e), GFP_KERNEL_ACCOUNT);
	if (!e)
		return NULL;
	INIT_LIST_HEAD(&e->filters);
	e->nn = nn;
	e->family = family;
	e->ops.hook = nfcf_hook_fn;
	e->ops.priv = e;
	e->ops.pf = nfcf_family_pf(family);
	e->ops.hooknum = f->hook;
	e->ops.priority = f->priority;
	list_add_tail(&e->node, &nn->hooks);
	return e;
}

/* Mark the entries @f needs as wanted, creating those missing. */
static int nfcf_hooks_want(struct nfcf_net *nn, struct nfcf_filter *f)
{
	struct nfcf_hook_ent *e;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nfcf_families); i++) {
		if (!(f->ks.families & nfcf_families[i]) || !nfcf_filter_hooked(f))
			continue;
		e = nfcf_hook_ent_get(nn, f, nfcf_families[i]);
		if (!e)
			return -ENOMEM;
		e->want = true;
	}
	return 0;
}

/* Does an enabled filter on @e's list need it registered? */
static bool nfcf_hook_needed(const struct nfcf_hook_ent *e)
{
	const struct nfcf_hook_link *l;

	list_for_each_entry(l, &e->filters, node)
		if (nfcf_filter_enabled(l->f))
			return true;
	return false;
}

/**
 * nfcf_hooks_sync - register the hooks a namespace's filters need, only them
 * @nn:		the namespace, its lock held
 * @also:	a filter to count as live and enabled although it is not
 *		(yet), or NULL
 *
 * Needed: a hook of each family, hook and priority of an enabled filter on
 * an entry's list, and of @also; none once the namespace is dying.  Every
 * registered hook that is not needed is unregistered, even on failure: so
 * after a failure, a call with @also NULL undoes what was registered for
 * @also alone, and cannot fail.  An entry neither registered nor holding a
 * filter is freed.
 *
 * Return: 0, or the first error (-ENOMEM, -E2BIG: too many hooks at that
 * point).
 */
int nfcf_hooks_sync(struct nfcf_net *nn, struct nfcf_filter *also)
{
	struct nfcf_hook_ent *e, *tmp;
	int err = 0, ret;

	lockdep_assert_held(&nn->lock);
	list_for_each_entry(e, &nn->hooks, node)
		e->want = !nn->dying && nfcf_hook_needed(e);
	if (also && !nn->dying)
		err = nfcf_hooks_want(nn, also);
	list_for_each_entry_safe(e, tmp, &nn->hooks, node) {
		if (e->want && !e->registered) {
			ret = nf_register_net_hook(nn->net, &e->ops);
			if (ret && !err)
				err = ret;
			e->registered = !ret;
		} else if (!e->want && e->registered) {
			nf_unregister_net_hook(nn->net, &e->ops);
			e->registered = false;
		}
		if (e->registered || !list_empty(&e->filters))
			continue;
		/* Packets may still run the hook with it as priv. */
		list_del(&e->node);
		kfree_rcu(e, rcu);
	}
	return err;
}

/**
 * nfcf_hooks_link - put a filter on the packet path
 * @nn:		the namespace, its lock held
 * @f:		a filter going live (loaded, not on any entry's list yet)
 *
 * @f goes last on the list of each (family, hook, priority) of its own,
 * after its hooks are registered if it is enabled: so filters at one hook
 * and priority are consulted in the order they went live.
 * Return: 0, or an error of nfcf_hooks_sync() (nothing changed then).
 */
int nfcf_hooks_link(struct nfcf_net *nn, struct nfcf_filter *f)
{
	struct nfcf_hook_ent *e[ARRAY_SIZE(nfcf_families)] = {};
	unsigned int i;
	int err = 0;

	lockdep_assert_held(&nn->lock);
	if (!nfcf_filter_hooked(f))
		return 0;
	for (i = 0; i < ARRAY_SIZE(nfcf_families) && !err; i++) {
		if (!(f->ks.families & nfcf_families[i]))
			continue;
		e[i] = nfcf_hook_ent_get(nn, f, nfcf_families[i]);
		if (!e[i])
			err = -ENOMEM;
	}
	if (!err && nfcf_filter_enabled(f))
		err = nfcf_hooks_sync(nn, f);
	if (err) {
		nfcf_hooks_sync(nn, NULL);
		return err;
	}
	for (i = 0; i < ARRAY_SIZE(nfcf_families); i++)
		if (e[i])
			list_add_tail_rcu(&f->hl[f->hl_set][i].node, &e[i]->filters);
	return 0;
}

/* Take the list nodes of @set of @f, once linked at a hook or not, off. */
static void nfcf_hooks_unlink_set(struct nfcf_filter *f, u8 set, bool hooked)
{
	unsigned int i;

	if (!hooked)
		return;
	for (i = 0; i < ARRAY_SIZE(nfcf_families); i++)
		if (f->ks.families & nfcf_families[i])
			list_del_rcu(&f->hl[set][i].node);
}

/**
 * nfcf_hooks_unlink - take a filter off the packet path
 * @nn:		the namespace, its lock held
 * @f:		a filter nfcf_hooks_link() put on it
 *
 * Packets may still see @f until a grace period has passed.  Call
 * nfcf_hooks_sync() next, to drop the hooks and entries no longer needed.
 */
void nfcf_hooks_unlink(struct nfcf_net *nn, struct nfcf_filter *f)
{
	lockdep_assert_held(&nn->lock);
	nfcf_hooks_unlink_set(f, f->hl_set, nfcf_filter_hooked(f));
}

/**
 * nfcf_hooks_move - give a live filter another hook or priority
 * @nn:		the namespace, its lock held
 * @f:		a filter nfcf_hooks_link() put on the packet path
 * @hook:	enum nf_cuckoo_hook, NF_CUCKOO_HOOK_NONE included
 * @priority:	the priority there
 *
 * The filter goes last on its new entries' lists, with the set of list
 * nodes it does not use, before it leaves the old ones: no packet finds
 * it in neither place, one may find it in both for a moment (at two
 * hooks, a packet may then be counted twice).  Then a grace period,
 * after which no packet stands on the old nodes: the next move may use
 * them.  Its entries stay.
 * Return: 0, or an error of nfcf_hooks_link() (nothing changed then).
 */
int nfcf_hooks_move(struct nfcf_net *nn, struct nfcf_filter *f, u8 hook,
		    s32 priority)
{
	bool was_hooked = nfcf_filter_hooked(f);
	s32 old_priority = f->priority;
	u8 old_hook = f->hook;
	u8 old_set = f->hl_set;
	int err;

	lockdep_assert_held(&nn->lock);
	WRITE_ONCE(f->hook, hook);
	WRITE_ONCE(f->priority, priority);
	f->hl_set = !old_set;
	err = nfcf_hooks_link(nn, f);
	if (err) {
		WRITE_ONCE(f->hook, old_hook);
		WRITE_ONCE(f->priority, old_priority);
		f->hl_set = old_set;
		return err;
	}
	nfcf_hooks_unlink_set(f, old_set, was_hooked);
	nfcf_hooks_sync(nn, NULL);
	synchronize_rcu();
	return 0;
}
