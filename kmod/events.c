// SPDX-License-Identifier: GPL-2.0
/*
 * Events: the multicast group of the family, and the NF_CUCKOO_CMD_EVENT
 * messages sent there after each change of a filter (see events.h and the
 * uapi's "Events").
 *
 * A message is built first (GFP_KERNEL, the caller holds no lock), and only
 * if someone listens in the filter's namespace.  Then, under the
 * namespace's event lock, it takes the namespace's next event number as its
 * nlmsg_seq and is multicast (GFP_ATOMIC: netlink clones it for each
 * listener and queues the clones, or drops them for a listener whose
 * buffer is full, which then reads ENOBUFS).  Numbering and sending under
 * one lock keeps the numbers in the order listeners receive them, so a
 * gap is exactly what was lost.  An event that has no message (nobody
 * listens, or no memory) still takes its number.
 */
#include <linux/spinlock.h>
#include <net/genetlink.h>

#include "compat.h"
#include "events.h"
#include "netlink.h"
#include "netns.h"

const struct genl_multicast_group nfcf_mcgrps[NFCF_MCGRP_COUNT] = {
	[NFCF_MCGRP_EVENTS] = {
		.name = NF_CUCKOO_MCGRP_EVENTS,
		/* The filters' names and sizes are the namespace admin's. */
		.flags = NFCF_MCGRP_EVENTS_FLAGS,
	},
};

/*
 * EVENT, NAME, EVENT_COUNT or STAGE_INDEX and one STAGE nest, at most
 * (more than a SWAP event's NAME and NAME2).
 */
#define NFCF_EVENT_SIZE	(nla_total_size(sizeof(u8)) +			\
			 nla_total_size(NF_CUCKOO_NAME_MAXLEN) +	\
			 nla_total_size(sizeof(u32)) + NFCF_STAGE_SIZE)

/* Give @skb (NULL: none) the namespace's next event number and send it. */
static void nfcf_event_send(struct net *net, struct sk_buff *skb)
{
	struct nfcf_net *nn = nfcf_net(net);

	spin_lock(&nn->ev_lock);
	nn->ev_seq++;
	if (skb) {
		nlmsg_hdr(skb)->nlmsg_seq = nn->ev_seq;
		/* -ESRCH: the last listener just left. */
		genlmsg_multicast_netns(&nfcf_genl_family, net, skb, 0,
					NFCF_MCGRP_EVENTS, GFP_ATOMIC);
	}
	spin_unlock(&nn->ev_lock);
}

/* An event message holding EVENT; NULL if nobody listens or no memory. */
static struct sk_buff *nfcf_event_start(struct net *net, u8 event,
					size_t size, void **hdr)
{
	struct sk_buff *skb;

	if (!NFCF_HAVE_EVENTS ||
	    !genl_has_listeners(&nfcf_genl_family, net, NFCF_MCGRP_EVENTS))
		return NULL;
	skb = genlmsg_new(size, GFP_KERNEL);
	if (!skb)
		return NULL;
	*hdr = genlmsg_put(skb, 0, 0, &nfcf_genl_family, 0,
			   NF_CUCKOO_CMD_EVENT);
	if (!*hdr || nla_put_u8(skb, NF_CUCKOO_A_EVENT, event)) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

/* Finish @skb (if any) and send it; @err: it could not be filled. */
static void nfcf_event_end(struct net *net, struct sk_buff *skb, void *hdr,
			   int err)
{
	if (skb && WARN_ON_ONCE(err)) {
		nlmsg_free(skb);
		skb = NULL;
	} else if (skb) {
		genlmsg_end(skb, hdr);
	}
	nfcf_event_send(net, skb);
}

/*
 * An event of NAME; with EVENT_COUNT if @count, and with STAGE_INDEX
 * @stage and its STAGE nest @si if @si.
 */
static void nfcf_event_named(struct net *net, struct nfcf_filter *f, u8 event,
			     u32 count, u8 stage,
			     const struct nfcf_stage_info *si)
{
	char name[NF_CUCKOO_NAME_MAXLEN];
	struct sk_buff *skb;
	void *hdr = NULL;
	int err = 0;

	nfcf_filter_name(f, name);
	skb = nfcf_event_start(net, event, NFCF_EVENT_SIZE, &hdr);
	if (skb)
		err = nla_put_string(skb, NF_CUCKOO_A_NAME, name) ||
		      (count && nla_put_u32(skb, NF_CUCKOO_A_EVENT_COUNT, count)) ||
		      (si && (nla_put_u8(skb, NF_CUCKOO_A_STAGE_INDEX, stage) ||
			      nfcf_nl_put_stage(skb, si)));
	nfcf_event_end(net, skb, hdr, err);
}

/**
 * nfcf_event_swap - two filters exchanged their names
 * @net:	their namespace
 * @names:	the names, as the SWAP request gave them
 */
void nfcf_event_swap(struct net *net, const char *const names[2])
{
	struct sk_buff *skb;
	void *hdr = NULL;
	int err = 0;

	skb = nfcf_event_start(net, NF_CUCKOO_EVENT_SWAP, NFCF_EVENT_SIZE, &hdr);
	if (skb)
		err = nla_put_string(skb, NF_CUCKOO_A_NAME, names[0]) ||
		      nla_put_string(skb, NF_CUCKOO_A_NAME2, names[1]);
	nfcf_event_end(net, skb, hdr, err);
}

/**
 * nfcf_event_filter - a filter was created, destroyed, set, flushed or
 *	restored, or refused an add for want of room
 * @net:	its namespace
 * @f:		the filter
 * @event:	NF_CUCKOO_EVENT_NEW, _SET or _RESTORE (the message describes
 *		the filter as GET does, without STATS), _DEL, _FLUSH or
 *		_FULL (its name)
 */
void nfcf_event_filter(struct net *net, struct nfcf_filter *f, u8 event)
{
	struct sk_buff *skb;
	void *hdr = NULL;
	int err = 0;

	if (event != NF_CUCKOO_EVENT_NEW && event != NF_CUCKOO_EVENT_SET &&
	    event != NF_CUCKOO_EVENT_RESTORE) {
		nfcf_event_named(net, f, event, 0, 0, NULL);
		return;
	}
	skb = nfcf_event_start(net, event, NLMSG_GOODSIZE, &hdr);
	if (skb)
		err = nfcf_nl_put_filter(skb, f, false, false);
	nfcf_event_end(net, skb, hdr, err);
}


/**
 * nfcf_event_load_crossed - did a stage go from below NF_CUCKOO_LOAD_HIGH_PPM
 *	of its capacity to at least that?
 * @before:	its items before the add
 * @after:	its items after
 * @capacity:	the capacity it was made for
 *
 * Items and capacities are below 2^35 (a table has at most 2^31 buckets
 * of 8 slots), so the products do not overflow.
 */
bool nfcf_event_load_crossed(u64 before, u64 after, u64 capacity)
{
	u64 mark = capacity * NF_CUCKOO_LOAD_HIGH_PPM;

	return before * 1000000 < mark && after * 1000000 >= mark;
}

/**
 * nfcf_event_batch - what an ADD_ENTRIES or DEL_ENTRIES request did
 * @net:	the filter's namespace
 * @f:		the filter
 * @cmd:	NF_CUCKOO_CMD_ADD_ENTRIES or NF_CUCKOO_CMD_DEL_ENTRIES
 * @res:	the batch's result (nfcf_filter_batch())
 *
 * STAGE for each stage an add grew the filter by (they stay even if the
 * batch was undone), ADD or DEL_ENTRIES with the entries that stayed
 * applied, if any; for an add, FULL if it failed for want of room, and
 * LOAD_HIGH if it took the newest stage past the mark.  The stages are
 * described as the batch left them (res->info, taken under the filter's
 * lock): a flush or another batch since then changes nothing here.
 */
void nfcf_event_batch(struct net *net, struct nfcf_filter *f, u8 cmd,
		      const struct nfcf_batch_result *res)
{
	bool add = cmd == NF_CUCKOO_CMD_ADD_ENTRIES;
	u32 s, newest = res->stages_after - 1;

	/* The batch never took the filter's lock: nothing changed. */
	if (!res->stages_after)
		return;
	for (s = res->stages_before; add && s < res->stages_after; s++)
		nfcf_event_named(net, f, NF_CUCKOO_EVENT_STAGE, 0, s,
				 &res->info[s - res->info_from]);
	if (res->done)
		nfcf_event_named(net, f, add ? NF_CUCKOO_EVENT_ADD :
					       NF_CUCKOO_EVENT_DEL_ENTRIES,
				 res->done, 0, NULL);
	if (!add)
		return;
	if (res->why == NF_CUCKOO_ENTRY_E_FULL ||
	    res->why == NF_CUCKOO_ENTRY_E_QUOTA)
		nfcf_event_filter(net, f, NF_CUCKOO_EVENT_FULL);
	if (nfcf_event_load_crossed(res->items_before, res->items_after,
				    res->capacity))
		nfcf_event_named(net, f, NF_CUCKOO_EVENT_LOAD_HIGH, 0, newest,
				 &res->info[newest - res->info_from]);
}
