/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A named filter: a cuckoo filter plus what the packet path needs to act on
 * it, with its writer lock, reference count and per-CPU counters.
 *
 * Lifetime.  A filter is created with one reference, the table's (its
 * network namespace's list, see netns.c).  Netlink handlers and dumps take
 * more while they use it.  Removing it from the table marks it dead and
 * drops the table's reference; the last put frees it after an RCU grace
 * period, so the packet path, which holds no reference but runs under
 * rcu_read_lock() and finds filters on its hooks' RCU lists, never
 * sees it freed.  Its memory stays charged to its ceilings until that
 * free (and a flushed stage's until its own), however long a dump holds
 * the last reference.
 *
 * Locking.  @lock serialises every writer of the cuckoo filter (add,
 * delete, flush, import), of @conf and of the state flags; readers of the
 * cuckoo filter follow its lockless contract (cuckoo.h).  Lock order:
 * the namespace's lock, then a filter's.
 */
#ifndef _NF_CUCKOO_FILTER_H
#define _NF_CUCKOO_FILTER_H

#include <linux/types.h>
#include <linux/bits.h>
#include <linux/bottom_half.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/rcupdate.h>
#include <linux/percpu.h>
#include <linux/u64_stats_sync.h>

#include "cuckoo_stages.h"
#include "flowkey.h"
#include "iface.h"

/* The core hashes flow keys with their length known (cf_contains()). */
static_assert(sizeof(struct nf_cuckoo_flow_key) == CF_FLOW_KEY_LEN);

/**
 * struct nfcf_conf - what the packet path reads on each match
 * @mark:	mark value for NF_CUCKOO_ACTION_MARK
 * @mark_mask:	mark bits NF_CUCKOO_ACTION_MARK changes
 * @action:	enum nf_cuckoo_action
 * @invert:	packets not in the filter match
 * @enabled:	the packet path consults the filter
 * @rcu:	to free a replaced copy
 *
 * Never changed in place: NF_CUCKOO_CMD_SET publishes a new copy with
 * rcu_assign_pointer(), so a reader sees one consistent set.
 */
struct nfcf_conf {
	u32 mark;
	u32 mark_mask;
	u8 action;
	bool invert;
	bool enabled;
	struct rcu_head rcu;
};

/*
 * What asks a filter about packets besides its own hook, counted apart:
 * XDP and tc programs (kfunc.c), iptables rules (match.c).
 */
enum nfcf_path {
	NFCF_PATH_XDP,
	NFCF_PATH_TC,
	NFCF_PATH_RULE,
	NFCF_PATHS
};

/**
 * struct nfcf_pcpu_stats - per-CPU packet counters
 *
 * lookups and matches count the filter's hook; path_lookups and
 * path_matches each other path (enum nfcf_path).  A packet is counted
 * once, where it was asked about: the sums (struct nfcf_pkt_stats) add
 * the paths to the hook's.
 */
struct nfcf_pcpu_stats {
	u64_stats_t lookups;
	u64_stats_t matches;
	u64_stats_t dropped;
	u64_stats_t marked;
	u64_stats_t path_lookups[NFCF_PATHS];
	u64_stats_t path_matches[NFCF_PATHS];
	struct u64_stats_sync syncp;
};

/* The sums: lookups and matches of every path, the hook's included. */
struct nfcf_pkt_stats {
	u64 lookups;
	u64 matches;
	u64 dropped;
	u64 marked;
	u64 path_lookups[NFCF_PATHS];
	u64 path_matches[NFCF_PATHS];
};

/* The index of a family's prefix combinations: IPv4 0, IPv6 1. */
#define NFCF_FAM_IDX(family)	((family) == NF_CUCKOO_FAMILY_IPV6)

/**
 * struct nfcf_prefixes - the combinations of prefix lengths a filter
 *	holds entries of, as the packet path reads them
 * @rcu:	to free a replaced copy
 * @n:		combinations of each family ([0] IPv4, [1] IPv6)
 * @plen:	(source, destination) lengths of each; 0 is an address whole,
 *		and (0, 0) is never one of them (always looked up)
 *
 * Never changed in place: a new copy is published (rcu_assign_pointer())
 * before the first entry of a new combination is added, and after the
 * last entry of one is deleted, so a reader never misses an entry
 * because of its prefix.
 */
struct nfcf_prefixes {
	struct rcu_head rcu;
	u8 n[2];
	u8 plen[2][NF_CUCKOO_PREFIXES_MAX][2];
};

/**
 * struct nfcf_combo - a combination of prefix lengths and how many entries
 *	of it the filter holds (the writer's, under the filter's lock)
 */
struct nfcf_combo {
	u32 count;
	u8 s;
	u8 d;
};

/* Which ceiling refused a charge (struct nfcf_ceiling). */
enum nfcf_ceiling_hit {
	NFCF_CEILING_NONE,
	NFCF_CEILING_NETNS,	/* netns_mem_max_mb */
	NFCF_CEILING_MODULE,	/* mem_max_mb */
};

/**
 * struct nfcf_ceiling - what a filter's growth is charged to: its
 *	namespace's memory ceilings (netns.c), without the filter knowing
 *	namespaces
 * @charge:	take @bytes more, or -EDQUOT with the enum nfcf_ceiling_hit
 *		in *@which; may sleep: before refusing, it waits for the
 *		frees pending a grace period (nfcf_filter_wait_frees())
 * @uncharge:	give @bytes back; from an RCU callback too (softirq)
 */
struct nfcf_ceiling {
	int (*charge)(struct nfcf_ceiling *c, u64 bytes, u8 *which);
	void (*uncharge)(struct nfcf_ceiling *c, u64 bytes);
};

/**
 * struct nfcf_hook_link - a filter's place on a hook entry's list (hook.c)
 * @node:	on the entry's RCU list, under the namespace's lock
 * @f:		the filter
 */
struct nfcf_hook_link {
	struct list_head node;
	struct nfcf_filter *f;
};

/*
 * The module's filters borrow the kick search's scratch for each batch
 * (nfcf_filter_batch()) rather than keep it: cf_params.lent_scratch.
 */
#define NFCF_LENT_SCRATCH	true

/**
 * struct nfcf_filter - a named filter
 * @node:	on the namespace's list of all filters (or, while its table
 *		is being allocated, of reserved ones), under its lock
 * @hl:		on the RCU lists that the packet path walks, of its IPv4
 *		([@hl_set][0]) and IPv6 ([@hl_set][1]) hook entries (as its
 *		family has them), once loaded and until removed (whether
 *		enabled or not).  Two sets, so that a move to another hook
 *		puts the filter in its new place before it leaves the old
 *		(nfcf_hooks_move())
 * @st:		the cuckoo filter's stages; the first set at creation and
 *		never replaced, more added as it grows (cuckoo_stages.h)
 * @conf:	packet-path settings, RCU
 * @px:		the combinations of prefix lengths in use, RCU; NULL: none
 * @stats:	per-CPU packet counters
 * @lock:	serialises writers, see above
 * @ref:	references; the last put frees after a grace period
 * @rcu:	for that free
 * @gen:	bumped (under @lock) whenever the table changes: a save dump
 *		that sees it change marks its messages NLM_F_DUMP_INTR
 * @charge:	bytes charged to the namespace's and the module's ceilings
 *		from nfcf_net_reserve() until the filter is freed; set by
 *		nfcf_filter_prepare(), before the table exists; grows with
 *		each stage, and shrinks with a flush, whose stages give theirs
 *		back when they are freed (under @lock)
 * @charged:	@charge was taken (nfcf_net_reserve()): the free gives it back
 * @ceiling:	where each new stage is charged, see struct nfcf_ceiling
 * @ceiling_hit: the ceiling that refused the last stage, enum
 *		nfcf_ceiling_hit (under @lock)
 * @load_off:	while loading: bytes of table received so far
 * @load_total:	while loading: bytes of table expected
 * @load_portid: while loading: netlink port that began the load
 * @ks:		how keys are built (fixed)
 * @ifaces:	the device names its hook is restricted to, NULL for none
 *		(fixed; their indexes are kept by iface.c)
 * @priority:	netfilter hook priority
 * @hook:	enum nf_cuckoo_hook; it and @priority change only by
 *		nfcf_hooks_move(), under the namespace's lock
 * @hl_set:	the set of @hl in use (nfcf_hooks_move()), under the
 *		namespace's lock
 * @loading:	being restored: invisible to the packet path (under the
 *		namespace's lock and @lock)
 * @dead:	removed from its namespace (under the namespace's lock and @lock)
 * @id:		the name's number in the namespace, for BPF programs (kfunc.c):
 *		unique among its filters, moved with the name by a swap, never
 *		given to another filter soon (allocated cyclically); 0 until
 *		reserved.  Under the namespace's lock
 * @name:	unique in the namespace, NUL-terminated and padded with NULs;
 *		changed only by a swap (nfcf_filter_swap_names()), under the
 *		namespace's lock: read it under that lock or copy it with
 *		nfcf_filter_name()
 * @combo:	each family's combinations and their exact counts, under
 *		@lock; a combination whose count fell to 0 is retired at the
 *		end of the batch.  Last: the packet path never reads it, and
 *		the fields it reads stay on the cache lines they were on
 * @ncombo:	combinations of each family in @combo
 */
struct nfcf_filter {
	struct list_head node;
	struct nfcf_hook_link hl[2][2];
	u8 hl_set;
	struct cf_stages st;
	struct nfcf_conf __rcu *conf;
	struct nfcf_prefixes __rcu *px;
	struct nfcf_pcpu_stats __percpu *stats;
	struct mutex lock;	/* see the kernel-doc above */
	refcount_t ref;
	struct rcu_head rcu;
	unsigned int gen;
	u64 charge;
	bool charged;
	struct nfcf_ceiling *ceiling;
	u8 ceiling_hit;
	u64 load_off;
	u64 load_total;
	u32 load_portid;
	struct nfcf_key_spec ks;
	struct nfcf_ifaces *ifaces;
	s32 priority;
	u8 hook;
	bool loading;
	bool load_aborted;	/* a failed load, about to be removed */
	bool dead;
	u32 id;
	char name[NF_CUCKOO_NAME_MAXLEN];
	/* Writers' only, after what the packet path reads. */
	struct nfcf_combo combo[2][NF_CUCKOO_PREFIXES_MAX];
	u8 ncombo[2];
};

/**
 * struct nfcf_filter_cfg - what creating a filter takes besides geometry
 */
struct nfcf_filter_cfg {
	const char *name;
	struct nfcf_ceiling *ceiling;
	struct cf_grow grow;
	struct nfcf_key_spec ks;
	struct nfcf_conf conf;
	struct nfcf_ifaces ifs;
	s32 priority;
	u8 hook;
};

/**
 * struct nfcf_stage_info - a stage as NF_CUCKOO_A_STAGE describes it
 */
struct nfcf_stage_info {
	u64 capacity;
	u64 items;
	u64 bytes;
	u32 load_ppm;
	u32 fpr_ppb;
	u8 fp_bits;
	u8 victim;
};

void nfcf_stage_info(const struct cuckoo_filter *cf, struct nfcf_stage_info *si);

/**
 * struct nfcf_batch_result - outcome of a batch
 * @done:	entries applied (or tested)
 * @skipped:	entries skipped because of the batch flags
 * @fail_index:	entry that failed, valid if @why != NF_CUCKOO_ENTRY_E_NONE
 * @why:	enum nf_cuckoo_entry_err
 * @hits:	TEST: entries present
 * @ceiling:	NF_CUCKOO_ENTRY_E_QUOTA: which, enum nfcf_ceiling_hit
 * @items_before: add, delete: items before the batch of the stage that is
 *		newest after it (0 if the batch made it)
 * @items_after: and after it (both read under the filter's lock)
 * @capacity:	that stage's capacity
 * @stages_before: stages before the batch
 * @stages_after: and after it: an add may grow the filter, and the new
 *		stages stay when the batch is undone
 * @info:	the caller's room for CF_STAGES_MAX descriptions, or NULL:
 *		add, delete: stages @info_from..@stages_after - 1 (those the
 *		batch made, and the newest) as the batch left them, taken
 *		under the filter's lock for the events that tell of them
 * @info_from:	the stage @info[0] describes
 */
struct nfcf_batch_result {
	u32 done;
	u32 skipped;
	u32 fail_index;
	u32 why;
	u32 hits;
	u8 ceiling;
	u64 items_before;
	u64 items_after;
	u64 capacity;
	u32 stages_before;
	u32 stages_after;
	struct nfcf_stage_info *info;
	u32 info_from;
};

/* Generation counters for dump consistency; 0 is never used. */
static inline void nfcf_gen_bump(unsigned int *gen)
{
	if (!++*gen)
		*gen = 1;
}

struct nfcf_filter *nfcf_filter_prepare(const struct nfcf_filter_cfg *cfg,
					u64 core_bytes);
int nfcf_filter_create(struct nfcf_filter *f, const struct cf_params *p);
/**
 * struct nfcf_load_spec - what a restore begins with
 * @img:	the image headers, one per stage, oldest first
 * @n:		how many, >= 1
 * @portid:	the netlink port that alone may send the chunks
 */
struct nfcf_load_spec {
	struct cf_image *img;
	u32 n;
	u32 portid;
};

int nfcf_filter_create_loading(struct nfcf_filter *f,
			       const struct nfcf_load_spec *ls);

static inline void nfcf_filter_get(struct nfcf_filter *f)
{
	refcount_inc(&f->ref);
}

void nfcf_filter_put(struct nfcf_filter *f);
bool nfcf_filter_wait_frees(void);

void nfcf_filter_name(const struct nfcf_filter *f,
		      char name[NF_CUCKOO_NAME_MAXLEN]);
void nfcf_filter_name_id(const struct nfcf_filter *f,
			 char name[NF_CUCKOO_NAME_MAXLEN], u32 *id);
void nfcf_filter_swap_names(struct nfcf_filter *a, struct nfcf_filter *b);

int nfcf_filter_batch(struct nfcf_filter *f, const struct nf_cuckoo_flow_key *keys,
		      u32 n, u32 flags, bool del, unsigned long *applied,
		      u8 *stage_of, struct nfcf_batch_result *res);
void nfcf_filter_test(struct nfcf_filter *f, const struct nf_cuckoo_flow_key *keys,
		      u32 n, unsigned long *hits, struct nfcf_batch_result *res);
int nfcf_filter_flush(struct nfcf_filter *f);
u32 nfcf_filter_prefixes(struct nfcf_filter *f,
			 struct nf_cuckoo_prefix_count *out);
u32 __nfcf_filter_prefixes(struct nfcf_filter *f,
			   struct nf_cuckoo_prefix_count *out);
int nfcf_filter_load_prefixes(struct nfcf_filter *f,
			      const struct nf_cuckoo_prefix_count *pc, u32 n);
bool nfcf_filter_lookup_px(const struct nfcf_filter *f,
			   const struct nfcf_prefixes *px,
			   const struct nf_cuckoo_flow_key *k);

/*
 * A packet path's dereference, in an RCU read-side critical section:
 * rcu_read_lock() (netfilter hooks, rules), or bottom halves disabled,
 * as XDP and tc programs and the kfuncs they call may run.
 */
#define nfcf_deref_pkt(p)	rcu_dereference_check(p, rcu_read_lock_bh_held())

/**
 * nfcf_filter_lookup - is a finished key of full addresses, or a prefix
 *	holding them, (probably) in the filter?  Under RCU (nfcf_deref_pkt()).
 * @f:	the filter
 * @k:	the key
 *
 * Without prefixes of the key's family, one cf_contains() of each stage.
 */
static __always_inline bool nfcf_filter_lookup(const struct nfcf_filter *f,
					       const struct nf_cuckoo_flow_key *k)
{
	const struct nfcf_prefixes *px = nfcf_deref_pkt(f->px);

	if (likely(!px) || !k->family || !px->n[NFCF_FAM_IDX(k->family)])
		return cf_stages_contains(&f->st, k, sizeof(*k));
	return nfcf_filter_lookup_px(f, px, k);
}

/* Which fields of a struct nfcf_conf nfcf_filter_update_conf() takes. */
#define NFCF_CONF_ACTION		BIT(0)
#define NFCF_CONF_MARK		BIT(1)
#define NFCF_CONF_MARK_MASK	BIT(2)
#define NFCF_CONF_INVERT		BIT(3)
#define NFCF_CONF_ENABLED	BIT(4)

int nfcf_filter_update_conf(struct nfcf_filter *f, const struct nfcf_conf *val,
			    u32 what);
int nfcf_filter_load_chunk(struct nfcf_filter *f, u32 portid, u64 off,
			   const void *data, u32 len, bool *abort);
int nfcf_filter_load_finish(struct nfcf_filter *f, u32 portid, bool *abort);
void nfcf_filter_pkt_stats(struct nfcf_filter *f, struct nfcf_pkt_stats *st);
int nfcf_filter_set_grow(struct nfcf_filter *f, bool grow);

/* Is @f enabled?  For writers; the packet path has its conf already. */
static inline bool nfcf_filter_enabled(struct nfcf_filter *f)
{
	bool enabled;

	rcu_read_lock();
	enabled = rcu_dereference(f->conf)->enabled;
	rcu_read_unlock();
	return enabled;
}

/* nfcf_filter_match() of a key finished already, or that needs no finish. */
static __always_inline bool nfcf_filter_match_finished(const struct nfcf_filter *f,
						       const struct nfcf_conf *conf,
						       const struct nf_cuckoo_flow_key *k)
{
	return nfcf_filter_lookup(f, k) != conf->invert;
}

/**
 * nfcf_filter_match - the packet path's question (under rcu_read_lock())
 * @f:		a filter from a hook entry's list
 * @conf:	rcu_dereference(f->conf), already checked to be enabled
 * @k:		the packet's key, fields filled in; finished here
 *
 * Lockless: the core's reader contract, and RCU for the prefixes.
 * Return: true if the packet matches (is in the filter, or a prefix
 * holding its addresses is, or with invert neither).  Count it with
 * nfcf_filter_count().
 */
static __always_inline bool nfcf_filter_match(const struct nfcf_filter *f,
					      const struct nfcf_conf *conf,
					      struct nf_cuckoo_flow_key *k)
{
	nfcf_flowkey_finish(k, &f->ks);
	return nfcf_filter_match_finished(f, conf, k);
}

/**
 * nfcf_filter_count - count one packet looked up in a filter
 * @f:		the filter
 * @hit:	it matched
 * @action:	what was done to it: NF_CUCKOO_ACTION_DROP, NF_CUCKOO_ACTION_MARK or
 *		NF_CUCKOO_ACTION_NONE
 *
 * Any context.  Output and postrouting hooks run in process context with
 * bottom halves enabled, where a softirq sending a packet (a TCP ACK, a
 * timer) could interrupt the update of the same CPU's counters: on 32-bit
 * that breaks the seqcount and loses counts.  So bottom halves are
 * disabled around it, as nftables' counters do.
 */
static inline void nfcf_filter_count(struct nfcf_filter *f, bool hit, u8 action)
{
	struct nfcf_pcpu_stats *st;

	local_bh_disable();
	st = this_cpu_ptr(f->stats);
	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->lookups);
	if (hit)
		u64_stats_inc(&st->matches);
	if (action == NF_CUCKOO_ACTION_DROP)
		u64_stats_inc(&st->dropped);
	else if (action == NF_CUCKOO_ACTION_MARK)
		u64_stats_inc(&st->marked);
	u64_stats_update_end(&st->syncp);
	local_bh_enable();
}

/**
 * nfcf_filter_count_path - count one packet a program or a rule asked about
 * @f:		the filter
 * @hit:	it matched
 * @path:	who asked
 *
 * XDP and tc programs run with migration disabled, iptables rules with
 * bottom halves disabled, so this CPU's counters stay this CPU's.  On
 * 64-bit each is one interrupt-safe increment and nothing else is needed:
 * this runs for every packet, where disabling bottom halves cost a call.
 * On 32-bit the seqcount needs one writer at a time, which interrupts
 * being off ensures (a hook's writer runs with bottom halves off, so it
 * never interrupts this one).
 */
static inline void nfcf_filter_count_path(struct nfcf_filter *f, bool hit,
					  enum nfcf_path path)
{
	struct nfcf_pcpu_stats *st = this_cpu_ptr(f->stats);
	unsigned long flags;

	flags = u64_stats_update_begin_irqsave(&st->syncp);
	u64_stats_inc(&st->path_lookups[path]);
	if (hit)
		u64_stats_inc(&st->path_matches[path]);
	u64_stats_update_end_irqrestore(&st->syncp, flags);
}

/* Is @f consulted by a netfilter hook of its own? */
static inline bool nfcf_filter_hooked(const struct nfcf_filter *f)
{
	return f->hook != NF_CUCKOO_HOOK_NONE;
}

#endif /* _NF_CUCKOO_FILTER_H */
