/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Events: the family's multicast group NF_CUCKOO_MCGRP_EVENTS, and what is
 * sent there after each change of a filter (uapi: "Events").
 *
 * Each nfcf_event_*() is called after the change it tells of is done, in
 * process context, without a lock held but the caller's reference on the
 * filter.  It never fails and never waits for a listener: with nobody in
 * the group it only counts the event; a message it cannot allocate, or a
 * listener whose buffer is full, loses the event, and the gap in the
 * namespace's counter (nlmsg_seq) tells the listener so.
 */
#ifndef _NF_CUCKOO_EVENTS_H
#define _NF_CUCKOO_EVENTS_H

#include <net/genetlink.h>
#include <net/net_namespace.h>

#include "compat.h"
#include "filter.h"

/* The family's multicast groups (struct genl_family .mcgrps). */
enum nfcf_mcgrp {
	NFCF_MCGRP_EVENTS,

	NFCF_MCGRP_COUNT
};

extern const struct genl_multicast_group nfcf_mcgrps[NFCF_MCGRP_COUNT];
/* How many of them the family has: none where events cannot be private. */
#define NFCF_N_MCGRPS	(NFCF_HAVE_EVENTS ? NFCF_MCGRP_COUNT : 0)

void nfcf_event_filter(struct net *net, struct nfcf_filter *f, u8 event);
void nfcf_event_batch(struct net *net, struct nfcf_filter *f, u8 cmd,
		      const struct nfcf_batch_result *res);
void nfcf_event_swap(struct net *net, const char *const names[2]);
bool nfcf_event_load_crossed(u64 before, u64 after, u64 capacity);

#endif /* _NF_CUCKOO_EVENTS_H */
