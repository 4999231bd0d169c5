// SPDX-License-Identifier: GPL-2.0
/*
 * Per network namespace table of named filters, with a memory ceiling per
 * namespace and one for all of them.
 * A namespace going away frees its filters; so does unloading the module.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <net/netns/generic.h>

#include "netns.h"
#include "bind.h"
#include "hook.h"

static unsigned int netns_mem_max_mb = 256;
module_param(netns_mem_max_mb, uint, 0644);
MODULE_PARM_DESC(netns_mem_max_mb,
		 "Memory all filters of one network namespace may use, in MiB (0: no limit; default 256)");

/*
 * Every namespace's ceiling holds for its own filters; a user may make as
 * many network namespaces as its user namespaces allow, so the module
 * bounds the sum too.
 */
static unsigned int mem_max_mb = 1024;
module_param(mem_max_mb, uint, 0644);
MODULE_PARM_DESC(mem_max_mb,
		 "Memory the filters of all network namespaces together may use, in MiB (0: no limit; default 1024)");

/*
 * Bytes charged by the filters of every namespace, from their reservation
 * until they are freed.
 */
static u64 nfcf_mem_used;
static DEFINE_SPINLOCK(nfcf_mem_lock);

static int nfcf_mem_used_get(char *buf, const struct kernel_param *kp)
{
	u64 used;

	spin_lock_bh(&nfcf_mem_lock);
	used = nfcf_mem_used;
	spin_unlock_bh(&nfcf_mem_lock);
	return sysfs_emit(buf, "%llu\n", used);
}

static const struct kernel_param_ops nfcf_mem_used_ops = {
	.get = nfcf_mem_used_get,
};

module_param_cb(mem_used_bytes, &nfcf_mem_used_ops, NULL, 0444);
MODULE_PARM_DESC(mem_used_bytes,
		 "Memory charged by the filters of all network namespaces, in bytes (read-only)");

unsigned int nfcf_net_id __read_mostly;

struct nfcf_net *nfcf_net(const struct net *net)
{
	return net_generic(net, nfcf_net_id);
}

/* The ceiling in bytes, U64_MAX if none. */
u64 nfcf_net_mem_max(void)
{
	unsigned int mb = READ_ONCE(netns_mem_max_mb);

	return mb ? (u64)mb << 20 : U64_MAX;
}

/* The module-wide ceiling in bytes, U64_MAX if none. */
static u64 nfcf_mem_max(void)
{
	unsigned int mb = READ_ONCE(mem_max_mb);

	return mb ? (u64)mb << 20 : U64_MAX;
}

/*
 * Charge @bytes to the module-wide ceiling; false if over it.  Memory is
 * given back by RCU callbacks (softirq), hence the _bh locks here and in
 * the namespaces' charges.
 */
static bool nfcf_mem_charge(u64 bytes)
{
	u64 max = nfcf_mem_max();
	bool ok;

	spin_lock_bh(&nfcf_mem_lock);
	ok = nfcf_mem_used <= max && bytes <= max - nfcf_mem_used;
	if (ok)
		nfcf_mem_used += bytes;
	spin_unlock_bh(&nfcf_mem_lock);
	return ok;
}

static void nfcf_mem_uncharge(u64 bytes)
{
	spin_lock_bh(&nfcf_mem_lock);
	if (WARN_ON_ONCE(bytes > nfcf_mem_used))
		bytes = nfcf_mem_used;
	nfcf_mem_used -= bytes;
	spin_unlock_bh(&nfcf_mem_lock);
}

static struct nfcf_filter *nfcf_net_find_in(struct list_head *list,
					    const char *name)
{
	struct nfcf_filter *f;

	list_for_each_entry(f, list, node)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

/* The filter of @name, loading or not; under @nn's lock. */
struct nfcf_filter *nfcf_net_find(struct nfcf_net *nn, const char *name)
{
	lockdep_assert_held(&nn->lock);
	return nfcf_net_find_in(&nn->filters, name);
}

/**
 * nfcf_ceiling_errmsg - say which ceiling refused a charge
 * @which:	enum nfcf_ceiling_hit
 * @extack:	the message's place
 */
static void nfcf_ceiling_errmsg(u8 which, struct netlink_ext_ack *extack)
{
	if (which == NFCF_CEILING_NETNS)
		NL_SET_ERR_MSG_MOD(extack,
				   "the network namespace's filters would exceed their memory ceiling (netns_mem_max_mb)");
	else
		NL_SET_ERR_MSG_MOD(extack,
				   "the filters of all network namespaces would exceed the module's memory ceiling (mem_max_mb)");
}

/*
 * Charge @bytes to @nn's ceiling and the module's: 0, or -EDQUOT and
 * which ceiling in *which.
 */
static int nfcf_net_charge(struct nfcf_net *nn, u64 bytes, u8 *which)
{
	u64 max = nfcf_net_mem_max();
	int err = 0;

	spin_lock_bh(&nn->mem_lock);
	if (nn->mem > max || bytes > max - nn->mem) {
		*which = NFCF_CEILING_NETNS;
		err = -EDQUOT;
	} else if (!nfcf_mem_charge(bytes)) {
		*which = NFCF_CEILING_MODULE;
		err = -EDQUOT;
	} else {
		nn->mem += bytes;
	}
	spin_unlock_bh(&nn->mem_lock);
	return err;
}

static void nfcf_net_uncharge_bytes(struct nfcf_net *nn, u64 bytes)
{
	spin_lock_bh(&nn->mem_lock);
	if (WARN_ON_ONCE(bytes > nn->mem))
		bytes = nn->mem;
	nn->mem -= bytes;
	spin_unlock_bh(&nn->mem_lock);
	nfcf_mem_uncharge(bytes);
}

/*
 * nfcf_net_charge(), but what a DEL or a FLUSH just let go is still
 * charged until it is freed: wait for those frees before refusing, so
 * that a DEL then a NEW of the same size succeeds.  May sleep.
 */
static int nfcf_net_charge_wait(struct nfcf_net *nn, u64 bytes, u8 *which)
{
	int err = nfcf_net_charge(nn, bytes, which);

	if (err == -EDQUOT && nfcf_filter_wait_frees())
		err = nfcf_net_charge(nn, bytes, which);
	return err;
}

/* A filter's new stage, charged under the filter's lock. */
static int nfcf_ceiling_charge(struct nfcf_ceiling *c, u64 bytes, u8 *which)
{
	return nfcf_net_charge_wait(container_of(c, struct nfcf_net, ceiling),
				    bytes, which);
}

static void nfcf_ceiling_uncharge(struct nfcf_ceiling *c, u64 bytes)
{
	nfcf_net_uncharge_bytes(container_of(c, struct nfcf_net, ceiling),
				bytes);
}

/*
 * Reserve an id for @f: a NULL entry, which nfcf_net_live_rcu() does not
 * see, until the filter goes on the packet path (nfcf_net_show()).
 */
static int nfcf_net_alloc_id(struct nfcf_net *nn, struct nfcf_filter *f,
			     struct netlink_ext_ack *extack)
{
	int err;

	lockdep_assert_held(&nn->lock);
	err = xa_alloc_cyclic(&nn->ids, &f->id, NULL, xa_limit_31b,
			      &nn->next_id, GFP_KERNEL);
	if (err < 0) {
		NL_SET_ERR_MSG_MOD(extack, "no filter id left in this network namespace");
		return err;
	}
	return 0;
}

/* @f goes on the packet path: BPF programs find it by its id from now. */
static void nfcf_net_show(struct nfcf_net *nn, struct nfcf_filter *f)
{
	lockdep_assert_held(&nn->lock);
	/* The entry exists (reserved), so nothing is allocated. */
	WARN_ON_ONCE(xa_err(xa_store(&nn->ids, f->id, f, GFP_KERNEL)));
	rcu_assign_pointer(*nfcf_net_live_slot(nn, f->id), f);
}

/**
 * nfcf_net_reserve - take a name and charge a filter before its table exists
 * @nn:		the namespace
 * @f:		from nfcf_filter_prepare(): f->charge says what it will cost
 * @extack:	says why it failed
 *
 * The charge is taken against the namespace's ceiling and the module's
 * under the namespace's lock, before the table is allocated: parallel
 * requests never hold more than the ceilings between them, and a refused
 * one allocates nothing.  The name is taken too, so a second request for
 * it is refused before it allocates.  On success, follow with
 * nfcf_net_insert(), or with nfcf_net_unreserve() if the table cannot be
 * made.
 * Return: 0, -EEXIST (name taken) or -EDQUOT (a ceiling).
 */
int nfcf_net_reserve(struct nfcf_net *nn, struct nfcf_filter *f,
		     struct netlink_ext_ack *extack)
{
	int err = 0;
	u8 which;

	mutex_lock(&nn->lock);
	if (nfcf_net_find(nn, f->name) ||
	    nfcf_net_find_in(&nn->reserved, f->name)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "a filter of that name exists in this network namespace");
		err = -EEXIST;
	} else {
		err = nfcf_net_charge_wait(nn, f->charge, &which);
		if (err) {
			nfcf_ceiling_errmsg(which, extack);
		} else {
			f->charged = true;
			err = nfcf_net_alloc_id(nn, f, extack);
		}
		if (!err)
			list_add_tail(&f->node, &nn->reserved);
	}
	mutex_unlock(&nn->lock);
	return err;
}

/**
 * nfcf_net_unreserve - a reserved filter will not be inserted after all
 * @nn:	the namespace
 * @f:	the filter; the caller still holds its reference, whose put
 *	frees it and gives its charge back
 */
void nfcf_net_unreserve(struct nfcf_net *nn, struct nfcf_filter *f)
{
	mutex_lock(&nn->lock);
	list_del_init(&f->node);
	xa_erase(&nn->ids, f->id);
	mutex_unlock(&nn->lock);
}

/**
 * nfcf_net_insert - add a reserved filter, its table made, to the table
 * @nn:		the namespace
 * @f:		a filter nobody else knows yet, reserved by
 *		nfcf_net_reserve(); the table takes over its reference on
 *		success, the caller keeps it on failure (its charge is
 *		given back when it is freed)
 * @extack:	says why it failed
 *
 * A filter that is not loading goes on the packet path at once, its
 * netfilter hooks registered first if it is enabled (nfcf_hooks_link()).
 * Return: 0, or a hook registration error (-ENOMEM, -E2BIG).
 */
int nfcf_net_insert(struct nfcf_net *nn, struct nfcf_filter *f,
		    struct netlink_ext_ack *extack)
{
	int err = 0;

	mutex_lock(&nn->lock);
	list_del_init(&f->node);
	/*
	 * Before the packet path sees it; kept up to date once it is on
	 * @nn->filters, which the device notifier walks under this lock.
	 */
	if (f->ifaces)
		nfcf_ifaces_resolve(nn->net, f->ifaces);
	if (!f->loading) {
		err = nfcf_hooks_link(nn, f);
		if (err) {
			NL_SET_ERR_MSG_MOD(extack,
					   "cannot register the filter's netfilter hook");
			xa_erase(&nn->ids, f->id);
			goto out;
		}
	}
	nfcf_gen_bump(&nn->gen);
	list_add_tail(&f->node, &nn->filters);
	if (!f->loading)
		nfcf_net_show(nn, f);
out:
	mutex_unlock(&nn->lock);
	return err;
}

/**
 * nfcf_net_lookup - find a filter by name and take a reference
 * @nn:		the namespace
 * @name:	the name
 * @loading_ok:	return a filter that is being loaded, too
 *
 * Return: the filter, ERR_PTR(-ENOENT) or ERR_PTR(-EBUSY) (loading).
 */
struct nfcf_filter *nfcf_net_lookup(struct nfcf_net *nn, const char *name,
				    bool loading_ok)
{
	struct nfcf_filter *f;

	mutex_lock(&nn->lock);
	f = nfcf_net_find(nn, name);
	if (!f)
		f = ERR_PTR(-ENOENT);
	else if (f->loading && !loading_ok)
		f = ERR_PTR(-EBUSY);
	else
		nfcf_filter_get(f);
	mutex_unlock(&nn->lock);
	return f;
}

/*
 * nfcf_net_live_rcu() for an id its slot of @nn->live does not hold: the
 * xarray (which takes rcu_read_lock() of its own, for lockdep's sake when
 * the caller's section is one of bottom halves disabled).  A reserved id
 * holds a zero entry, which xa_load() returns as NULL: no filter.
 */
struct nfcf_filter *nfcf_net_live_slow(struct nfcf_net *nn, u32 id)
{
	return xa_load(&nn->ids, id);
}

static void nfcf_net_unlink(struct nfcf_net *nn, struct nfcf_filter *f)
{
	struct nfcf_filter __rcu **slot;

	lockdep_assert_held(&nn->lock);
	list_del(&f->node);
	xa_erase(&nn->ids, f->id);
	slot = nfcf_net_live_slot(nn, f->id);
	if (rcu_access_pointer(*slot) == f)
		RCU_INIT_POINTER(*slot, NULL);
	if (!f->loading)
		nfcf_hooks_unlink(nn, f);
	mutex_lock(&f->lock);
	f->dead = true;
	mutex_unlock(&f->lock);
	nfcf_gen_bump(&nn->gen);
}

/**
 * nfcf_net_remove - take a filter out of its namespace
 * @nn:	the namespace
 * @f:	the filter (the caller holds a reference)
 *
 * Drops the table's reference: the filter is freed after a grace period
 * once the caller's reference is put too.
 * Return: false if it had been removed already.
 */
bool nfcf_net_remove(struct nfcf_net *nn, struct nfcf_filter *f)
{
	bool removed = false;

	mutex_lock(&nn->lock);
	if (!f->dead) {
		nfcf_net_unlink(nn, f);
		nfcf_hooks_sync(nn, NULL);
		removed = true;
	}
	mutex_unlock(&nn->lock);
	if (removed)
		nfcf_filter_put(f);
	return removed;
}

/**
 * nfcf_net_destroy - take a filter no program is bound to out of its namespace
 * @nn:		the namespace
 * @f:		the filter (the caller holds a reference)
 * @extack:	names the device of a program bound to it
 *
 * As nfcf_net_remove(), for a user's DEL: a filter a program is bound to
 * (NF_CUCKOO_CMD_BIND) stays.
 * Return: 0, -ENOENT (removed already) or -EBUSY.
 */
int nfcf_net_destroy(struct nfcf_net *nn, struct nfcf_filter *f,
		     struct netlink_ext_ack *extack)
{
	int err = 0;

	mutex_lock(&nn->lock);
	if (f->dead) {
		err = -ENOENT;
	} else if (!f->loading && nfcf_bind_busy(nn, f->id, extack)) {
		err = -EBUSY;
	} else {
		nfcf_net_unlink(nn, f);
		nfcf_hooks_sync(nn, NULL);
	}
	mutex_unlock(&nn->lock);
	if (!err)
		nfcf_filter_put(f);
	return err;
}

/**
 * nfcf_net_swap - exchange the names of two live filters
 * @nn:		the namespace
 * @names:	the two names, distinct
 * @which:	set to the index in @names of the one that is missing
 *		(-ENOENT) or being restored (-EBUSY)
 *
 * Nothing but the names changes, so the packet path sees both filters
 * throughout.
 * Return: 0, -ENOENT or -EBUSY.
 */
int nfcf_net_swap(struct nfcf_net *nn, const char *const names[2], int *which)
{
	struct nfcf_filter *f[2];
	int i, err = 0;

	mutex_lock(&nn->lock);
	for (i = 0; i < 2; i++) {
		f[i] = nfcf_net_find(nn, names[i]);
		if (!f[i] || f[i]->loading) {
			err = f[i] ? -EBUSY : -ENOENT;
			*which = i;
			goto out;
		}
	}
	nfcf_filter_swap_names(f[0], f[1]);
	nfcf_net_show(nn, f[0]);
	nfcf_net_show(nn, f[1]);
	nfcf_gen_bump(&nn->gen);
out:
	mutex_unlock(&nn->lock);
	return err;
}

/**
 * nfcf_net_move - give a filter another hook or priority (SET)
 * @nn:		its namespace
 * @f:		the filter (the caller holds a reference)
 * @hook:	enum nf_cuckoo_hook, NF_CUCKOO_HOOK_NONE included; NULL: the
 *		filter's own
 * @priority:	the priority there; NULL: the filter's own
 * @extack:	for the reason of an -EINVAL
 *
 * Its entries, settings and counters stay; see nfcf_hooks_move().
 * Return: 0; -ENOENT (removed), -EBUSY (being restored), -EINVAL (its
 * interfaces do not fit @hook), or an error of nfcf_hooks_link()
 * (-ENOMEM, -E2BIG): nothing changed then.
 */
int nfcf_net_move(struct nfcf_net *nn, struct nfcf_filter *f, const u8 *hook,
		  const s32 *priority, struct netlink_ext_ack *extack)
{
	int err = 0;
	s32 p;
	u8 h;

	mutex_lock(&nn->lock);
	h = hook ? *hook : f->hook;
	p = priority ? *priority : f->priority;
	if (f->dead)
		err = -ENOENT;
	else if (f->loading)
		err = -EBUSY;
	else if (h != f->hook || p != f->priority)
		err = nfcf_ifaces_hook_ok(f->ifaces, h, extack) ?:
		      nfcf_hooks_move(nn, f, h, p);
	if (!err)
		nfcf_gen_bump(&nn->gen);
	mutex_unlock(&nn->lock);
	return err;
}

/**
 * nfcf_net_update_conf - change a filter's packet-path settings
 * @nn:		its namespace
 * @f:		the filter (the caller holds a reference)
 * @val:	new values
 * @what:	mask of NFCF_CONF_* saying which of @val to take
 *
 * The filter layer knows nothing of netfilter: a change of ENABLED
 * registers the namespace's hooks here first (before the filter is
 * enabled) or unregisters them after (once it is disabled), under the
 * namespace's lock, which every change of ENABLED takes.
 * Return: 0, -ENOMEM, -ENOENT (removed meanwhile) or a hook registration
 * error (-E2BIG; nothing changed).
 */
int nfcf_net_update_conf(struct nfcf_net *nn, struct nfcf_filter *f,
			 const struct nfcf_conf *val, u32 what)
{
	int err = 0;

	if (!(what & NFCF_CONF_ENABLED))
		return nfcf_filter_update_conf(f, val, what);
	mutex_lock(&nn->lock);
	if (val->enabled)
		err = nfcf_hooks_sync(nn, f);
	if (!err)
		err = nfcf_filter_update_conf(f, val, what);
	/* Drop what is no longer needed (or was taken for nothing). */
	if (err || !val->enabled)
		nfcf_hooks_sync(nn, NULL);
	mutex_unlock(&nn->lock);
	return err;
}

/**
 * nfcf_net_publish - make a loaded filter live
 * @nn:	the namespace
 * @f:	a filter whose load has finished (the caller holds a reference)
 *
 * Its netfilter hooks are registered first if it is enabled; if that
 * fails, the filter is removed.  Two LOAD_ENDs of one socket can both
 * finish the load (they run in parallel) before either publishes it:
 * only the first one does.
 * Return: 0, -ENOENT if it was removed meanwhile, -EINVAL if it was
 * published meanwhile, or a hook registration error (-ENOMEM, -E2BIG).
 */
int nfcf_net_publish(struct nfcf_net *nn, struct nfcf_filter *f)
{
	bool put = false;
	int err = 0;

	mutex_lock(&nn->lock);
	if (f->dead) {
		err = -ENOENT;
		goto out;
	}
	if (!f->loading) {
		err = -EINVAL;
		goto out;
	}
	err = nfcf_hooks_link(nn, f);
	if (err) {
		/* A failed restore leaves nothing behind. */
		nfcf_net_unlink(nn, f);
		put = true;
		goto out;
	}
	mutex_lock(&f->lock);
	f->loading = false;
	mutex_unlock(&f->lock);
	nfcf_net_show(nn, f);
	nfcf_gen_bump(&nn->gen);
out:
	mutex_unlock(&nn->lock);
	if (put)
		nfcf_filter_put(f);
	return err;
}

/**
 * nfcf_net_abort_loads - a netlink socket is gone: drop the loads it began
 * @net:	its namespace
 * @portid:	its port
 */
void nfcf_net_abort_loads(struct net *net, u32 portid)
{
	struct nfcf_net *nn = nfcf_net(net);
	struct nfcf_filter *f, *tmp;
	LIST_HEAD(gone);

	mutex_lock(&nn->lock);
	list_for_each_entry_safe(f, tmp, &nn->filters, node) {
		if (!f->loading || f->load_portid != portid)
			continue;
		nfcf_net_unlink(nn, f);
		list_add(&f->node, &gone);
	}
	mutex_unlock(&nn->lock);

	list_for_each_entry_safe(f, tmp, &gone, node)
		nfcf_filter_put(f);
}

static int __net_init nfcf_net_init(struct net *net)
{
	struct nfcf_net *nn = nfcf_net(net);

	mutex_init(&nn->lock);
	spin_lock_init(&nn->mem_lock);
	nn->ceiling.charge = nfcf_ceiling_charge;
	nn->ceiling.uncharge = nfcf_ceiling_uncharge;
	INIT_LIST_HEAD(&nn->filters);
	INIT_LIST_HEAD(&nn->reserved);
	INIT_LIST_HEAD(&nn->hooks);
	INIT_LIST_HEAD(&nn->binds);
	xa_init_flags(&nn->ids, XA_FLAGS_ALLOC1);
	xa_init(&nn->rules);
	spin_lock_init(&nn->ev_lock);
	nn->net = net;
	nn->gen = 1;
	return 0;
}

/*
 * Unregister the namespace's hooks; the core waits for an RCU grace
 * period before calling the exit methods, so no packet runs them then.
 */
static void __net_exit nfcf_net_pre_exit(struct net *net)
{
	struct nfcf_net *nn = nfcf_net(net);

	mutex_lock(&nn->lock);
	WRITE_ONCE(nn->dying, true);
	nfcf_hooks_sync(nn, NULL);
	mutex_unlock(&nn->lock);
}

static void __net_exit nfcf_net_exit(struct net *net)
{
	struct nfcf_net *nn = nfcf_net(net);
	struct nfcf_filter *f, *tmp;
	LIST_HEAD(gone);

	nfcf_binds_free(nn);
	mutex_lock(&nn->lock);
	list_for_each_entry_safe(f, tmp, &nn->filters, node) {
		nfcf_net_unlink(nn, f);
		list_add(&f->node, &gone);
	}
	/* Free the hook entries, unregistered since pre_exit. */
	nfcf_hooks_sync(nn, NULL);
	mutex_unlock(&nn->lock);

	list_for_each_entry_safe(f, tmp, &gone, node)
		nfcf_filter_put(f);
	/*
	 * Rules go with their tables, whose namespace exit may come after
	 * this one: what they count no longer matters, and their release
	 * finds nothing (nfcf_bind_rule_put()).
	 */
	xa_destroy(&nn->rules);
}

/*
 * The filters' RCU callbacks give their memory back to their namespace's
 * ceiling (struct nfcf_net): wait for them before the namespaces' state
 * is freed.  No filter outlives its namespace: every reference but the
 * table's is a request's or a dump's, whose socket holds the namespace.
 */
static void __net_exit nfcf_net_exit_batch(struct list_head *net_exit_list)
{
	struct nfcf_net *nn;
	struct net *net;

	rcu_barrier();
	list_for_each_entry(net, net_exit_list, exit_list) {
		nn = nfcf_net(net);
		WARN_ON_ONCE(nn->mem);
		WARN_ON_ONCE(!list_empty(&nn->reserved));
		WARN_ON_ONCE(!list_empty(&nn->hooks));
		WARN_ON_ONCE(!xa_empty(&nn->ids));
		WARN_ON_ONCE(memchr_inv(nn->live, 0, sizeof(nn->live)));
		WARN_ON_ONCE(!list_empty(&nn->binds));
		xa_destroy(&nn->ids);
		mutex_destroy(&nn->lock);
	}
}

static struct pernet_operations nfcf_net_ops = {
	.init = nfcf_net_init,
	.pre_exit = nfcf_net_pre_exit,
	.exit = nfcf_net_exit,
	.exit_batch = nfcf_net_exit_batch,
	.id = &nfcf_net_id,
	.size = sizeof(struct nfcf_net),
};

int __init nfcf_netns_init(void)
{
	return register_pernet_subsys(&nfcf_net_ops);
}

/*
 * Every namespace's filters are removed and, after exit_batch's
 * rcu_barrier(), freed.
 */
void nfcf_netns_exit(void)
{
	unregister_pernet_subsys(&nfcf_net_ops);
	WARN_ON_ONCE(nfcf_mem_used);
}
