/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per network namespace state: the table of named filters.
 */
#ifndef _NF_CUCKOO_NETNS_H
#define _NF_CUCKOO_NETNS_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/netlink.h>

#include "filter.h"

#define NFCF_LIVE_SLOTS	32

/**
 * struct nfcf_net - a network namespace's filters
 * @lock:	protects @filters, @reserved, @hooks and their lists (writers),
 *		@gen, and each filter's membership, @loading and @dead flags
 * @filters:	every filter, loading ones included, in creation order
 * @reserved:	filters charged and named whose table is being allocated
 *		(nfcf_net_reserve()): not in @filters yet, invisible to all
 * @hooks:	one entry per (family, hook, priority) of a live filter
 *		(loaded, not removed; enabled or not): the RCU list of those
 *		filters that the entry's netfilter hook walks, registered
 *		while one of them is enabled (struct nfcf_hook_ent, hook.c)
 * @ids:	each filter's id (nfcf_filter::id): reserved (a NULL entry)
 *		from nfcf_net_reserve(), the filter once the packet path
 *		sees it, erased when it is removed.  Written under @lock,
 *		read under RCU by BPF programs (nfcf_net_live_rcu())
 * @live:	a direct-mapped cache of @ids for the packet path: slot
 *		id % NFCF_LIVE_SLOTS holds the last filter shown with such an
 *		id, until it is removed.  An xarray walk is several calls a
 *		packet; a slot is one load and a compare.  Written under
 *		@lock with @ids, read under RCU
 * @next_id:	where the cyclic allocation of @ids goes on from
 * @binds:	the programs that consult filters, as their binders said
 *		(struct nfcf_bind, bind.c): written under @lock, read under
 *		RCU
 * @nbinds:	how many, under @lock
 * @rules:	how many iptables rules use each filter id (bind.c): a value
 *		entry per id in use, changed under its own xa_lock, since a
 *		rule may go after the namespace's exit (nothing is left then)
 * @net:	the namespace itself
 * @mem:	bytes charged by the namespace's filters from their
 *		reservation until they (or the stages a flush dropped) are
 *		freed, under @mem_lock (a filter's new stage is charged
 *		under the filter's lock, which nests inside @lock; memory is
 *		given back from RCU callbacks)
 * @mem_lock:	protects @mem
 * @ceiling:	@mem and the module's ceiling, as the filters' growth sees
 *		them (struct nfcf_ceiling)
 * @gen:	bumped on every change of @filters, for dump consistency
 * @dying:	the namespace is going away: no hook may be registered
 * @ev_lock:	numbers the namespace's events and sends them in that order
 *		(events.c)
 * @ev_seq:	the number of the last event, under @ev_lock
 */
struct nfcf_net {
	struct mutex lock;	/* see the kernel-doc above */
	struct list_head filters;
	struct list_head reserved;
	struct list_head hooks;
	struct xarray ids;
	struct nfcf_filter __rcu *live[NFCF_LIVE_SLOTS];
	u32 next_id;
	struct list_head binds;
	unsigned int nbinds;
	struct xarray rules;
	struct net *net;
	u64 mem;
	spinlock_t mem_lock;	/* see the kernel-doc above */
	struct nfcf_ceiling ceiling;
	unsigned int gen;
	bool dying;
	spinlock_t ev_lock;	/* see the kernel-doc above */
	u32 ev_seq;
};

struct nfcf_net *nfcf_net(const struct net *net);
u64 nfcf_net_mem_max(void);

int nfcf_net_reserve(struct nfcf_net *nn, struct nfcf_filter *f,
		     struct netlink_ext_ack *extack);
void nfcf_net_unreserve(struct nfcf_net *nn, struct nfcf_filter *f);
int nfcf_net_insert(struct nfcf_net *nn, struct nfcf_filter *f,
		    struct netlink_ext_ack *extack);
struct nfcf_filter *nfcf_net_lookup(struct nfcf_net *nn, const char *name,
				    bool loading_ok);
struct nfcf_filter *nfcf_net_find(struct nfcf_net *nn, const char *name);
bool nfcf_net_remove(struct nfcf_net *nn, struct nfcf_filter *f);
int nfcf_net_destroy(struct nfcf_net *nn, struct nfcf_filter *f,
		     struct netlink_ext_ack *extack);
struct nfcf_filter *nfcf_net_live_slow(struct nfcf_net *nn, u32 id);

/* The slot of @nn->live that caches id @id. */
static inline struct nfcf_filter __rcu **nfcf_net_live_slot(struct nfcf_net *nn,
							    u32 id)
{
	return &nn->live[id % NFCF_LIVE_SLOTS];
}

extern unsigned int nfcf_net_id;

/*
 * nfcf_net() on the packet path, in a read-side critical section already:
 * net_generic() would take rcu_read_lock() again, a call each way on
 * kernels with preemptible RCU.
 */
static inline struct nfcf_net *nfcf_net_rcu(const struct net *net)
{
	return nfcf_deref_pkt(net->gen)->ptr[nfcf_net_id];
}

/**
 * nfcf_net_live_rcu - the filter of an id, for a BPF program or a rule
 * @net:	the packet's namespace
 * @id:		the filter's id (nfcf_filter::id)
 *
 * In an RCU read-side critical section (nfcf_deref_pkt()): the filter is
 * freed only a grace period after it left @ids and @live.  It may be
 * disabled; it is never one being loaded.  A filter and its id change
 * together under the namespace's lock (a swap exchanges two filters'
 * ids): one read meanwhile may find either filter, as at the xarray.
 * Return: the filter, or NULL.
 */
static inline struct nfcf_filter *nfcf_net_live_rcu(const struct net *net,
						    u32 id)
{
	struct nfcf_net *nn = nfcf_net_rcu(net);
	struct nfcf_filter *f;

	f = nfcf_deref_pkt(*nfcf_net_live_slot(nn, id));
	if (likely(f && READ_ONCE(f->id) == id))
		return f;
	return nfcf_net_live_slow(nn, id);
}

int nfcf_net_swap(struct nfcf_net *nn, const char *const names[2], int *which);
int nfcf_net_publish(struct nfcf_net *nn, struct nfcf_filter *f);
int nfcf_net_update_conf(struct nfcf_net *nn, struct nfcf_filter *f,
			 const struct nfcf_conf *val, u32 what);
int nfcf_net_move(struct nfcf_net *nn, struct nfcf_filter *f, const u8 *hook,
		  const s32 *priority, struct netlink_ext_ack *extack);
void nfcf_net_abort_loads(struct net *net, u32 portid);

int nfcf_netns_init(void);
void nfcf_netns_exit(void);

#endif /* _NF_CUCKOO_NETNS_H */
