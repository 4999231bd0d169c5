// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family: see uapi/linux/nf_cuckoo.h for the interface.
 *
 * Every command needs CAP_NET_ADMIN in the user namespace of the sender's
 * network namespace (a filter's seed must not leak) and acts on that
 * namespace.  Attributes are checked strictly by per-command policies;
 * whatever a policy cannot say is checked here, and every rejection says
 * what was wrong in the extended ack.
 */
#include <linux/ctype.h>
#include <linux/bitmap.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/notifier.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/stringify.h>
#include <linux/netlink.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "bind.h"
#include "compat.h"
#include "events.h"
#include "netlink.h"
#include "netns.h"
#include "version.h"

/* The interface's limits are the core's. */
static_assert(NF_CUCKOO_FP_BITS_MIN == CF_FP_BITS_MIN);
static_assert(NF_CUCKOO_FP_BITS_MAX == CF_FP_BITS_MAX);
static_assert(NF_CUCKOO_MAX_KICKS_MAX == CF_MAX_KICKS_MAX);
static_assert((int)NF_CUCKOO_ENCODING_PLAIN == (int)CF_ENC_PLAIN);
static_assert((int)NF_CUCKOO_ENCODING_SEMISORT == (int)CF_ENC_SEMISORT);
static_assert((int)__NF_CUCKOO_ENCODING_MAX == (int)CF_ENC_COUNT);

/* Policies: one per command, so that what a command does not take is refused. */

static struct netlink_range_validation nfcf_fpr_range = {
	.min = 1,
	.max = NF_CUCKOO_FPR_SCALE - 1,
};

/* INT_MIN and INT_MAX are netfilter's NF_IP_PRI_FIRST / _LAST. */
static struct netlink_range_validation_signed nfcf_priority_range = {
	.min = INT_MIN + 1,
	.max = INT_MAX - 1,
};

static int nfcf_validate_chunk(const struct nlattr *attr,
			       struct netlink_ext_ack *extack)
{
	if (nla_len(attr) < 8 || nla_len(attr) % 8) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "chunk length must be a non-zero multiple of 8");
		return -EINVAL;
	}
	return 0;
}

/* What a filter does with packets: given at NEW and again at LOAD_BEGIN. */
#define NFCF_PACKET_POLICY						\
	[NF_CUCKOO_A_FAMILY] = NLA_POLICY_RANGE(NLA_U8, NF_CUCKOO_FAMILY_IPV4,	\
						NF_CUCKOO_FAMILY_INET),		\
	[NF_CUCKOO_A_KEY_FIELDS] = NLA_POLICY_MASK(NLA_U32, NF_CUCKOO_KEY_ALL),	\
	[NF_CUCKOO_A_HOOK] = NLA_POLICY_MAX(NLA_U8, NF_CUCKOO_HOOK_MAX),		\
	[NF_CUCKOO_A_PRIORITY] = NLA_POLICY_FULL_RANGE_SIGNED(NLA_S32,	\
						&nfcf_priority_range),	\
	[NF_CUCKOO_A_BIDIRECTIONAL] = NLA_POLICY_MAX(NLA_U8, 1),		\
	[NF_CUCKOO_A_IFACE] = { .type = NLA_NESTED },				\
	[NF_CUCKOO_A_ACTION] = NLA_POLICY_MAX(NLA_U8, NF_CUCKOO_ACTION_MAX),	\
	[NF_CUCKOO_A_MARK] = { .type = NLA_U32 },				\
	[NF_CUCKOO_A_MARK_MASK] = { .type = NLA_U32 },			\
	[NF_CUCKOO_A_INVERT] = NLA_POLICY_MAX(NLA_U8, 1),			\
	[NF_CUCKOO_A_ENABLED] = NLA_POLICY_MAX(NLA_U8, 1)

#define NFCF_GROW_POLICY						\
	[NF_CUCKOO_A_GROW] = NLA_POLICY_MAX(NLA_U8, 1),			\
	[NF_CUCKOO_A_GROW_FACTOR] = NLA_POLICY_RANGE(NLA_U8,		\
						     NF_CUCKOO_GROW_FACTOR_MIN, \
						     NF_CUCKOO_GROW_FACTOR_MAX), \
	[NF_CUCKOO_A_STAGES_MAX] = NLA_POLICY_RANGE(NLA_U8, 1,		\
						    NF_CUCKOO_STAGES_MAX)

static const struct nla_policy nfcf_new_policy[NF_CUCKOO_A_MAX + 1] = {
	[NF_CUCKOO_A_NAME] = { .type = NLA_NUL_STRING, .len = NF_CUCKOO_NAME_MAXLEN - 1 },
	NFCF_PACKET_POLICY,
	[NF_CUCKOO_A_CAPACITY] = NLA_POLICY_MIN(NLA_U64, 1),
	[NF_CUCKOO_A_FP_BITS] = NLA_POLICY_RANGE(NLA_U8, NF_CUCKOO_FP_BITS_MIN,
						 NF_CUCKOO_FP_BITS_MAX),
	[NF_CUCKOO_A_FPR] = NLA_POLICY_FULL_RANGE(NLA_U32, &nfcf_fpr_range),
	[NF_CUCKOO_A_BUCKET_SIZE] = NLA_POLICY_RANGE(NLA_U8, 2, 8),
	[NF_CUCKOO_A_ENCODING] = NLA_POLICY_MAX(NLA_U8, NF_CUCKOO_ENCODING_MAX),
	[NF_CUCKOO_A_MAX_KICKS] = NLA_POLICY_RANGE(NLA_U16, 1, NF_CUCKOO_MAX_KICKS_MAX),
	[NF_CUCKOO_A_SEED] = { .type = NLA_U64 },
	NFCF_GROW_POLICY,
};

static const struct nla_policy nfcf_name_policy[NF_CUCKOO_A_MAX + 1] = {
	[NF_CUCKOO_A_NAME] = { .type = NLA_NUL_STRING, .len = NF_CUCKOO_NAME_MAXLEN - 1 },
};

static const struct nla_policy nfcf_swap_policy[NF_CUCKOO_A_MAX + 1] = {
	[NF_CUCKOO_A_NAME] = { .type = NLA_NUL_STRING, .len = NF_CUCKOO_NAME_MAXLEN - 1 },
	[NF_CUCKOO_A_NAME2] = { .type = NLA_NUL_STRING, .len = NF_CUCKOO_NAME_MAXLEN - 1 },
};

static const struct nla_policy nfcf_bind_policy[NF_CUCKOO_A_MAX + 1] = {
	[NF_CUCKOO_A_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[NF_CUCKOO_A_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[NF_CUCKOO_A_BIND_POINT] = NLA_POLICY_MAX(NLA_U8, NF_CUCKOO_BIND_MAX),
	[NF_CUCKOO_A_PROG_ID] = { .type = NLA_U32 },
};

static const struct nla_policy nfcf_unbind_policy[NF_CUCKOO_A_MAX + 1] = {
	[NF_CUCKOO_A_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[NF_CUCKOO_A_BIND_POINT] = NLA_POLICY_MAX(NLA_U8, NF_CUCKOO_BIND_MAX),
};

static const struct nla_policy nfcf_set_policy[NF_CUCKOO_A_MAX + 1] = {
	[NF_CUCKOO_A_NAME] = { .type = NLA_NUL_STRING, .len = NF_CUCKOO_NAME_MAXLEN - 1 },
	[NF_CUCKOO_A_ACTION] = NLA_POLICY_MAX(NLA_U8, NF_CUCKOO_ACTION_MAX),
	[NF_CUCKOO_A_MARK] = { .type = NLA_U32 },
	[NF_CUCKOO_A_MARK_MASK] = { .type = NLA_U32 },
	[NF_CUCKOO_A_INVERT] = NLA_POLICY_MAX(NLA_U8, 1),
	[NF_CUCKOO_A_ENABLED] = NLA_POLICY_MAX(NLA_U8, 1),
	[NF_CUCKOO_A_GROW] = NLA_POLICY_MAX(NLA_U8, 1),
	[NF_CUCKOO_A_HOOK] = NLA_POLICY_MAX(NLA_U8, NF_CUCKOO_HOOK_MAX),
	[NF_CUCKOO_A_PRIORITY] = NLA_POLICY_FULL_RANGE_SIGNED(NLA_S32,
							      &nfcf_priority_range),
};

static int nfcf_validate_packed(const struct nlattr *attr,
				struct netlink_ext_ack *extack)
{
	size_t size = nla_type(attr) == NF_CUCKOO_A_ENTRIES_IPV4 ?
		      sizeof(struct nf_cuckoo_entry_ipv4) :
		      sizeof(struct nf_cuckoo_entry_ipv6);

	if (!nla_len(attr) || nla_len(attr) % size) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "packed entries must be a non-empty array of whole records");
		return -EINVAL;
	}
	return 0;
}

/*
 * Entries are only checked to be nests, or arrays of whole records, here:
 * each entry is parsed by the handler, so that a bad one is reported with
 * its index.
 */
#define NFCF_ENTRIES_POLICY						\
	[NF_CUCKOO_A_NAME] = { .type = NLA_NUL_STRING, .len = NF_CUCKOO_NAME_MAXLEN - 1 }, \
	[NF_CUCKOO_A_ENTRY] = { .type = NLA_NESTED },				\
	[NF_CUCKOO_A_ENTRIES_IPV4] = NLA_POLICY_VALIDATE_FN(NLA_BINARY,	\
							    nfcf_validate_packed, \
							    NF_CUCKOO_ENTRIES_PACKED_BYTES), \
	[NF_CUCKOO_A_ENTRIES_IPV6] = NLA_POLICY_VALIDATE_FN(NLA_BINARY,	\
							    nfcf_validate_packed, \
							    NF_CUCKOO_ENTRIES_PACKED_BYTES)

static const struct nla_policy nfcf_entries_policy[NF_CUCKOO_A_MAX + 1] = {
	NFCF_ENTRIES_POLICY,
	[NF_CUCKOO_A_BATCH_FLAGS] = NLA_POLICY_MASK(NLA_U32, NF_CUCKOO_BATCH_F_ALL),
};

static const struct nla_policy nfcf_test_policy[NF_CUCKOO_A_MAX + 1] = {
	NFCF_ENTRIES_POLICY,
};

static int nfcf_validate_prefixes(const struct nlattr *attr,
				  struct netlink_ext_ack *extack)
{
	if (!nla_len(attr) ||
	    nla_len(attr) % sizeof(struct nf_cuckoo_prefix_count)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "prefixes must be a non-empty array of whole records");
		return -EINVAL;
	}
	return 0;
}

#define NFCF_PREFIXES_BYTES \
	(2 * NF_CUCKOO_PREFIXES_MAX * sizeof(struct nf_cuckoo_prefix_count))

static const struct nla_policy nfcf_load_begin_policy[NF_CUCKOO_A_MAX + 1] = {
	[NF_CUCKOO_A_NAME] = { .type = NLA_NUL_STRING, .len = NF_CUCKOO_NAME_MAXLEN - 1 },
	NFCF_PACKET_POLICY,
	[NF_CUCKOO_A_IMAGE_HEADER] = { .type = NLA_BINARY,
				 .len = NF_CUCKOO_IMAGE_HEADER_MAXLEN },
	[NF_CUCKOO_A_PREFIXES] = NLA_POLICY_VALIDATE_FN(NLA_BINARY,
							nfcf_validate_prefixes,
							NFCF_PREFIXES_BYTES),
	NFCF_GROW_POLICY,
};

static const struct nla_policy nfcf_load_chunk_policy[NF_CUCKOO_A_MAX + 1] = {
	[NF_CUCKOO_A_NAME] = { .type = NLA_NUL_STRING, .len = NF_CUCKOO_NAME_MAXLEN - 1 },
	[NF_CUCKOO_A_CHUNK_OFFSET] = { .type = NLA_U64 },
	[NF_CUCKOO_A_CHUNK_DATA] = NLA_POLICY_VALIDATE_FN(NLA_BINARY,
							  nfcf_validate_chunk,
							  NF_CUCKOO_CHUNK_MAX),
};

/* Request helpers */

/* [A-Za-z0-9_.-]: the kernel's isalnum() takes Latin-1 letters too. */
static bool nfcf_name_ok(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!isascii(s[i]) ||
		    (!isalnum(s[i]) && s[i] != '_' && s[i] != '.' && s[i] != '-'))
			return false;
	return true;
}

/* A filter name attribute of a request, checked; NULL (extack set) if bad. */
static const char *nfcf_get_name_attr(struct nlattr **attrs, int type,
				      struct netlink_ext_ack *extack)
{
	const struct nlattr *a = attrs[type];
	const char *s;
	size_t len;

	if (!a) {
		if (type == NF_CUCKOO_A_NAME)
			NL_SET_ERR_MSG_MOD(extack, "missing filter name (NF_CUCKOO_A_NAME)");
		else
			NL_SET_ERR_MSG_MOD(extack, "missing second filter name (NF_CUCKOO_A_NAME2)");
		NL_SET_ERR_ATTR_MISS(extack, NULL, type);
		return NULL;
	}
	s = nla_data(a);
	len = strnlen(s, NF_CUCKOO_NAME_MAXLEN);
	if (!len || len >= NF_CUCKOO_NAME_MAXLEN) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "filter name must be 1 to 31 characters");
		return NULL;
	}
	if (!nfcf_name_ok(s, len)) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "filter name may only hold [A-Za-z0-9_.-]");
		return NULL;
	}
	return s;
}

static const char *nfcf_get_name(struct nlattr **attrs,
				 struct netlink_ext_ack *extack)
{
	return nfcf_get_name_attr(attrs, NF_CUCKOO_A_NAME, extack);
}

static void nfcf_lookup_errmsg(int err, const struct nlattr *name,
			       struct netlink_ext_ack *extack)
{
	if (err == -EBUSY)
		NL_SET_ERR_MSG_ATTR(extack, name,
				    "filter is being loaded (restore in progress)");
	else
		NL_SET_ERR_MSG_ATTR(extack, name,
				    "no filter of that name in this network namespace");
}

/* Look the request's filter up, with a reference; ERR_PTR with extack set. */
static struct nfcf_filter *nfcf_get_filter(struct genl_info *info,
					   bool loading_ok)
{
	struct nfcf_filter *f;
	const char *name;

	name = nfcf_get_name(info->attrs, info->extack);
	if (!name)
		return ERR_PTR(-EINVAL);
	f = nfcf_net_lookup(nfcf_net(genl_info_net(info)), name, loading_ok);
	if (IS_ERR(f))
		nfcf_lookup_errmsg(PTR_ERR(f), info->attrs[NF_CUCKOO_A_NAME],
				   info->extack);
	return f;
}

static u8 nfcf_attr_u8(const struct nlattr *a, u8 dflt)
{
	return a ? nla_get_u8(a) : dflt;
}

static u32 nfcf_attr_u32(const struct nlattr *a, u32 dflt)
{
	return a ? nla_get_u32(a) : dflt;
}

/* Name, key spec and packet-path settings, for NEW and LOAD_BEGIN. */
static int nfcf_parse_cfg(struct genl_info *info, struct nfcf_filter_cfg *cfg)
{
	struct nlattr **a = info->attrs;

	cfg->name = nfcf_get_name(a, info->extack);
	if (!cfg->name)
		return -EINVAL;
	if (GENL_REQ_ATTR_CHECK(info, NF_CUCKOO_A_FAMILY)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "missing address family (NF_CUCKOO_A_FAMILY)");
		return -EINVAL;
	}
	cfg->ks.families = nla_get_u8(a[NF_CUCKOO_A_FAMILY]);
	cfg->ks.fields = nfcf_attr_u32(a[NF_CUCKOO_A_KEY_FIELDS], NF_CUCKOO_KEY_ALL);
	cfg->ks.bidir = nfcf_attr_u8(a[NF_CUCKOO_A_BIDIRECTIONAL], 0);
	cfg->hook = nfcf_attr_u8(a[NF_CUCKOO_A_HOOK], NF_CUCKOO_HOOK_PREROUTING);
	cfg->priority = a[NF_CUCKOO_A_PRIORITY] ? nla_get_s32(a[NF_CUCKOO_A_PRIORITY]) :
					    NF_CUCKOO_PRIORITY_DEFAULT;
	cfg->conf.action = nfcf_attr_u8(a[NF_CUCKOO_A_ACTION], NF_CUCKOO_ACTION_DROP);
	cfg->conf.mark = nfcf_attr_u32(a[NF_CUCKOO_A_MARK], 0);
	cfg->conf.mark_mask = nfcf_attr_u32(a[NF_CUCKOO_A_MARK_MASK],
					    NF_CUCKOO_MARK_MASK_DEFAULT);
	cfg->conf.invert = nfcf_attr_u8(a[NF_CUCKOO_A_INVERT], 0);
	cfg->conf.enabled = nfcf_attr_u8(a[NF_CUCKOO_A_ENABLED], 1);
	cfg->grow.grow = nfcf_attr_u8(a[NF_CUCKOO_A_GROW], 1);
	cfg->grow.factor = nfcf_attr_u8(a[NF_CUCKOO_A_GROW_FACTOR],
					NF_CUCKOO_GROW_FACTOR_DEFAULT);
	cfg->grow.max_stages = nfcf_attr_u8(a[NF_CUCKOO_A_STAGES_MAX],
					    NF_CUCKOO_STAGES_DEFAULT);
	return nfcf_ifaces_parse(info, &cfg->ifs) ?:
	       nfcf_ifaces_hook_ok(&cfg->ifs, cfg->hook, info->extack) ?:
	       nfcf_key_spec_check(&cfg->ks, a[NF_CUCKOO_A_KEY_FIELDS],
				   a[NF_CUCKOO_A_BIDIRECTIONAL], info->extack);
}

/* Geometry for NEW, resolved; checked against the ceiling too. */
static int nfcf_parse_params(struct genl_info *info, struct cf_params *p)
{
	struct nlattr **a = info->attrs;
	int err;

	memset(p, 0, sizeof(*p));
	if (a[NF_CUCKOO_A_FP_BITS] && a[NF_CUCKOO_A_FPR]) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[NF_CUCKOO_A_FPR],
				    "give fingerprint bits or a false-positive rate, not both");
		return -EINVAL;
	}
	p->capacity = a[NF_CUCKOO_A_CAPACITY] ? nla_get_u64(a[NF_CUCKOO_A_CAPACITY]) :
					  NF_CUCKOO_CAPACITY_DEFAULT;
	p->fpr_ppb = nfcf_attr_u32(a[NF_CUCKOO_A_FPR], 0);
	p->fp_bits = nfcf_attr_u8(a[NF_CUCKOO_A_FP_BITS],
				  p->fpr_ppb ? 0 : NF_CUCKOO_FP_BITS_DEFAULT);
	p->bucket_size = nfcf_attr_u8(a[NF_CUCKOO_A_BUCKET_SIZE],
				      NF_CUCKOO_BUCKET_SIZE_DEFAULT);
	if (!is_power_of_2(p->bucket_size)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[NF_CUCKOO_A_BUCKET_SIZE],
				    "bucket size must be 2, 4 or 8");
		return -EINVAL;
	}
	/*
	 * A rate is met at the same f by semi-sorted buckets, one bit per
	 * item cheaper, wherever they are possible (b = 4).
	 */
	if (a[NF_CUCKOO_A_ENCODING])
		p->encoding = nla_get_u8(a[NF_CUCKOO_A_ENCODING]);
	else if (p->fpr_ppb && p->bucket_size == CF_SEMISORT_BUCKET_SIZE)
		p->encoding = CF_ENC_SEMISORT;
	if (p->encoding == CF_ENC_SEMISORT &&
	    p->bucket_size != CF_SEMISORT_BUCKET_SIZE) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[NF_CUCKOO_A_ENCODING],
				    "semi-sorted buckets need bucket size 4");
		return -EINVAL;
	}
	p->max_kicks = a[NF_CUCKOO_A_MAX_KICKS] ? nla_get_u16(a[NF_CUCKOO_A_MAX_KICKS]) :
					    NF_CUCKOO_MAX_KICKS_DEFAULT;
	p->seed = a[NF_CUCKOO_A_SEED] ? nla_get_u64(a[NF_CUCKOO_A_SEED]) :
				  get_random_u64();
	p->lent_scratch = NFCF_LENT_SCRATCH;
	err = cf_params_resolve(p);
	if (err && !p->fp_bits) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[NF_CUCKOO_A_FPR],
				    "false-positive rate below what 32-bit fingerprints give with this bucket size");
		return err;
	} else if (err) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[NF_CUCKOO_A_CAPACITY],
				    "no table of this geometry can hold that capacity");
		return err;
	}
	if (cf_params_bytes(p) > nfcf_net_mem_max()) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[NF_CUCKOO_A_CAPACITY],
				    "filter would exceed the network namespace's memory ceiling (netns_mem_max_mb)");
		return -EDQUOT;
	}
	return 0;
}

/* Replies */

static int nfcf_put_stats(struct sk_buff *skb, struct nfcf_filter *f)
{
	struct nfcf_pkt_stats ps;
	struct cf_stats st;
	struct nlattr *nest;

	rcu_read_lock();
	cf_stages_stats(&f->st, &st);
	rcu_read_unlock();
	nfcf_filter_pkt_stats(f, &ps);
	nest = nla_nest_start(skb, NF_CUCKOO_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, NF_CUCKOO_STATS_A_ITEMS, st.count,
			      NF_CUCKOO_STATS_A_PAD) ||
	    nla_put_u32(skb, NF_CUCKOO_STATS_A_LOAD_PPM, st.load_ppm) ||
	    nla_put_u64_64bit(skb, NF_CUCKOO_STATS_A_BYTES, st.bytes,
			      NF_CUCKOO_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, NF_CUCKOO_STATS_A_TABLE_BYTES, st.table_bytes,
			      NF_CUCKOO_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, NF_CUCKOO_STATS_A_SLOTS, st.slots,
			      NF_CUCKOO_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, NF_CUCKOO_STATS_A_NBUCKETS, st.nbuckets,
			      NF_CUCKOO_STATS_A_PAD) ||
	    nla_put_u8(skb, NF_CUCKOO_STATS_A_VICTIM, st.victim) ||
	    nla_put_u64_64bit(skb, NF_CUCKOO_STATS_A_PKT_LOOKUPS, ps.lookups,
			      NF_CUCKOO_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, NF_CUCKOO_STATS_A_PKT_MATCHES, ps.matches,
			      NF_CUCKOO_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, NF_CUCKOO_STATS_A_PKT_DROPPED, ps.dropped,
			      NF_CUCKOO_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, NF_CUCKOO_STATS_A_PKT_MARKED, ps.marked,
			      NF_CUCKOO_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, NF_CUCKOO_STATS_A_XDP_LOOKUPS,
			      ps.path_lookups[NFCF_PATH_XDP], NF_CUCKOO_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, NF_CUCKOO_STATS_A_XDP_MATCHES,
			      ps.path_matches[NFCF_PATH_XDP], NF_CUCKOO_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, NF_CUCKOO_STATS_A_TC_LOOKUPS,
			      ps.path_lookups[NFCF_PATH_TC], NF_CUCKOO_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, NF_CUCKOO_STATS_A_TC_MATCHES,
			      ps.path_matches[NFCF_PATH_TC], NF_CUCKOO_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, NF_CUCKOO_STATS_A_RULE_LOOKUPS,
			      ps.path_lookups[NFCF_PATH_RULE], NF_CUCKOO_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, NF_CUCKOO_STATS_A_RULE_MATCHES,
			      ps.path_matches[NFCF_PATH_RULE], NF_CUCKOO_STATS_A_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int nfcf_put_conf(struct sk_buff *skb, struct nfcf_filter *f)
{
	const struct nfcf_conf *c;
	int err;

	rcu_read_lock();
	c = rcu_dereference(f->conf);
	err = nla_put_u8(skb, NF_CUCKOO_A_ACTION, c->action) ||
	      nla_put_u32(skb, NF_CUCKOO_A_MARK, c->mark) ||
	      nla_put_u32(skb, NF_CUCKOO_A_MARK_MASK, c->mark_mask) ||
	      nla_put_u8(skb, NF_CUCKOO_A_INVERT, c->invert) ||
	      nla_put_u8(skb, NF_CUCKOO_A_ENABLED, c->enabled);
	rcu_read_unlock();
	return err ? -EMSGSIZE : 0;
}

/* The combinations of prefix lengths in use, if any; @locked: f->lock held. */
static int nfcf_put_prefixes(struct sk_buff *skb, struct nfcf_filter *f,
			     bool locked)
{
	struct nf_cuckoo_prefix_count pc[2 * NF_CUCKOO_PREFIXES_MAX];
	u32 n = locked ? __nfcf_filter_prefixes(f, pc) :
			 nfcf_filter_prefixes(f, pc);

	if (!n)
		return 0;
	return nla_put(skb, NF_CUCKOO_A_PREFIXES, n * sizeof(pc[0]), pc) ?
	       -EMSGSIZE : 0;
}

/**
 * nfcf_nl_put_stage - one stage's NF_CUCKOO_A_STAGE nest
 * @skb:	the message
 * @si:		the stage's description (nfcf_stage_info())
 *
 * Return: 0 or -EMSGSIZE.
 */
int nfcf_nl_put_stage(struct sk_buff *skb, const struct nfcf_stage_info *si)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, NF_CUCKOO_A_STAGE);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, NF_CUCKOO_STAGE_A_CAPACITY, si->capacity,
			      NF_CUCKOO_STAGE_A_PAD) ||
	    nla_put_u64_64bit(skb, NF_CUCKOO_STAGE_A_ITEMS, si->items,
			      NF_CUCKOO_STAGE_A_PAD) ||
	    nla_put_u32(skb, NF_CUCKOO_STAGE_A_LOAD_PPM, si->load_ppm) ||
	    nla_put_u8(skb, NF_CUCKOO_STAGE_A_FP_BITS, si->fp_bits) ||
	    nla_put_u64_64bit(skb, NF_CUCKOO_STAGE_A_BYTES, si->bytes,
			      NF_CUCKOO_STAGE_A_PAD) ||
	    nla_put_u32(skb, NF_CUCKOO_STAGE_A_FPR, si->fpr_ppb) ||
	    nla_put_u8(skb, NF_CUCKOO_STAGE_A_VICTIM, si->victim)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * Every stage, oldest first, and the filter's bound.  Under RCU: a flush
 * frees the stages it drops after a grace period, and a stage a flush
 * took since the count was read is left out.
 */
static int nfcf_put_stages(struct sk_buff *skb, struct nfcf_filter *f)
{
	const struct cuckoo_filter *cf;
	struct nfcf_stage_info si;
	u32 i, n;
	int err = 0;

	rcu_read_lock();
	n = cf_stages_count_stages(&f->st);
	for (i = 0; i < n && !err; i++) {
		cf = cf_stages_get(&f->st, i);
		if (!cf)
			continue;
		nfcf_stage_info(cf, &si);
		err = nfcf_nl_put_stage(skb, &si);
	}
	if (!err && nla_put_u32(skb, NF_CUCKOO_A_FPR_TOTAL,
				cf_stages_fpr_ppb(&f->st)))
		err = -EMSGSIZE;
	rcu_read_unlock();
	return err;
}

static int nfcf_put_grow(struct sk_buff *skb, struct nfcf_filter *f)
{
	const struct cf_grow *g = &f->st.g;

	return nla_put_u8(skb, NF_CUCKOO_A_GROW, READ_ONCE(g->grow)) ||
	       nla_put_u8(skb, NF_CUCKOO_A_GROW_FACTOR, g->factor) ||
	       nla_put_u8(skb, NF_CUCKOO_A_STAGES_MAX, g->max_stages) ?
	       -EMSGSIZE : 0;
}

/**
 * nfcf_nl_put_filter - a filter's description, without the seed
 * @skb:	the message
 * @f:		the filter
 * @stats:	with STATS (a GET)
 * @locked:	f->lock is held (a SAVE)
 *
 * Return: 0 or -EMSGSIZE.
 */
int nfcf_nl_put_filter(struct sk_buff *skb, struct nfcf_filter *f, bool stats,
		       bool locked)
{
	char name[NF_CUCKOO_NAME_MAXLEN];
	struct cf_params p;
	u32 id;

	cf_get_params(cf_stages_first(&f->st), &p);
	nfcf_filter_name_id(f, name, &id);
	if (nla_put_string(skb, NF_CUCKOO_A_NAME, name) ||
	    nla_put_u32(skb, NF_CUCKOO_A_ID, id) ||
	    nla_put_u8(skb, NF_CUCKOO_A_FAMILY, f->ks.families) ||
	    nla_put_u32(skb, NF_CUCKOO_A_KEY_FIELDS, f->ks.fields) ||
	    nla_put_u64_64bit(skb, NF_CUCKOO_A_CAPACITY, p.capacity, NF_CUCKOO_A_PAD) ||
	    nla_put_u8(skb, NF_CUCKOO_A_FP_BITS, p.fp_bits) ||
	    nla_put_u32(skb, NF_CUCKOO_A_FPR,
			cf_fpr_bound_ppb(p.fp_bits, p.bucket_size)) ||
	    nla_put_u8(skb, NF_CUCKOO_A_BUCKET_SIZE, p.bucket_size) ||
	    nla_put_u8(skb, NF_CUCKOO_A_ENCODING, p.encoding) ||
	    nla_put_u16(skb, NF_CUCKOO_A_MAX_KICKS, p.max_kicks) ||
	    nla_put_u8(skb, NF_CUCKOO_A_HOOK, READ_ONCE(f->hook)) ||
	    nla_put_s32(skb, NF_CUCKOO_A_PRIORITY, READ_ONCE(f->priority)) ||
	    nla_put_u8(skb, NF_CUCKOO_A_BIDIRECTIONAL, f->ks.bidir) ||
	    nla_put_u8(skb, NF_CUCKOO_A_LOADING, READ_ONCE(f->loading)) ||
	    nfcf_put_conf(skb, f) || nfcf_put_prefixes(skb, f, locked) ||
	    nfcf_put_grow(skb, f) || nfcf_ifaces_put(skb, f->ifaces))
		return -EMSGSIZE;
	if (!stats)
		return 0;
	return nfcf_put_stats(skb, f) ?: nfcf_put_stages(skb, f);
}

static int nfcf_fill_get(struct sk_buff *skb, struct nfcf_net *nn,
			 struct nfcf_filter *f, u32 portid, u32 seq, int flags,
			 struct netlink_callback *cb)
{
	char name[NF_CUCKOO_NAME_MAXLEN];
	void *hdr;
	u32 id;

	hdr = genlmsg_put(skb, portid, seq, &nfcf_genl_family, flags,
			  NF_CUCKOO_CMD_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		nl_dump_check_consistent(cb, genlmsg_nlhdr(hdr));
	nfcf_filter_name_id(f, name, &id);
	if (nfcf_nl_put_filter(skb, f, true, false) ||
	    nfcf_bind_put(skb, nn, id)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* Commands */

/*
 * Charge a prepared filter (nfcf_net_reserve()), then make its table: of
 * geometry @p, or of the images @ls (a restore) if not NULL; then insert
 * it.
 * Consumes the caller's reference.
 */
static int nfcf_new_filter(struct nfcf_net *nn, struct nfcf_filter *f,
			   const struct cf_params *p,
			   const struct nfcf_load_spec *ls,
			   struct genl_info *info)
{
	int err;

	err = nfcf_net_reserve(nn, f, info->extack);
	if (err == -EEXIST)
		NL_SET_BAD_ATTR(info->extack, info->attrs[NF_CUCKOO_A_NAME]);
	if (err)
		goto put;
	err = ls ? nfcf_filter_create_loading(f, ls) : nfcf_filter_create(f, p);
	if (err) {
		if (err == -ENOMEM)
			NL_SET_ERR_MSG_MOD(info->extack,
					   "cannot allocate the filter's memory");
		else
			NL_SET_ERR_MSG_MOD(info->extack,
					   "cannot create the filter's table");
		nfcf_net_unreserve(nn, f);
		goto put;
	}
	/* The table's reference, if it takes the filter; ours for the event. */
	nfcf_filter_get(f);
	err = nfcf_net_insert(nn, f, info->extack);
	if (err)
		nfcf_filter_put(f);
	else if (!ls)
		nfcf_event_filter(nn->net, f, NF_CUCKOO_EVENT_NEW);
put:
	nfcf_filter_put(f);
	return err;
}

static int nfcf_cmd_new(struct sk_buff *skb, struct genl_info *info)
{
	struct nfcf_net *nn = nfcf_net(genl_info_net(info));
	struct nfcf_filter_cfg cfg = {};
	struct nfcf_filter *f;
	struct cf_params p;
	int err;

	err = nfcf_parse_cfg(info, &cfg);
	if (err)
		return err;
	cfg.ceiling = &nn->ceiling;
	err = nfcf_parse_params(info, &p);
	if (err)
		return err;
	f = nfcf_filter_prepare(&cfg, cf_params_bytes(&p));
	if (!f) {
		NL_SET_ERR_MSG_MOD(info->extack, "out of memory");
		return -ENOMEM;
	}
	return nfcf_new_filter(nn, f, &p, NULL, info);
}

static int nfcf_cmd_del(struct sk_buff *skb, struct genl_info *info)
{
	struct nfcf_filter *f;
	int err = 0;

	f = nfcf_get_filter(info, true);
	if (IS_ERR(f))
		return PTR_ERR(f);
	err = nfcf_net_destroy(nfcf_net(genl_info_net(info)), f, info->extack);
	if (err == -ENOENT) {
		nfcf_lookup_errmsg(-ENOENT, info->attrs[NF_CUCKOO_A_NAME],
				   info->extack);
	} else if (!err && !READ_ONCE(f->loading)) {
		/* A restore that never went live announced nothing. */
		nfcf_event_filter(genl_info_net(info), f, NF_CUCKOO_EVENT_DEL);
	}
	nfcf_filter_put(f);
	return err;
}

static int nfcf_cmd_get(struct sk_buff *skb, struct genl_info *info)
{
	struct nfcf_filter *f;
	struct sk_buff *msg;
	int err;

	f = nfcf_get_filter(info, true);
	if (IS_ERR(f))
		return PTR_ERR(f);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		NL_SET_ERR_MSG_MOD(info->extack, "out of memory");
		err = -ENOMEM;
		goto out;
	}
	err = nfcf_fill_get(msg, nfcf_net(genl_info_net(info)), f,
			    info->snd_portid, info->snd_seq, 0, NULL);
	if (err) {
		nlmsg_free(msg);
		goto out;
	}
	err = genlmsg_reply(msg, info);
out:
	nfcf_filter_put(f);
	return err;
}

/* Dump of every filter: cb->args[0] is how many were sent. */
static int nfcf_dump_get(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nfcf_net *nn = nfcf_net(sock_net(skb->sk));
	long idx = 0, start = cb->args[0];
	struct nfcf_filter *f;

	mutex_lock(&nn->lock);
	cb->seq = nn->gen;
	list_for_each_entry(f, &nn->filters, node) {
		if (idx++ < start)
			continue;
		if (nfcf_fill_get(skb, nn, f, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, NLM_F_MULTI, cb)) {
			idx--;
			break;
		}
	}
	mutex_unlock(&nn->lock);
	cb->args[0] = idx;
	return skb->len;
}

/* SET's HOOK and PRIORITY (what is not given stays); says why it failed. */
static int nfcf_set_move(struct genl_info *info, struct nfcf_filter *f)
{
	struct nlattr **a = info->attrs;
	s32 priority;
	int err;
	u8 hook;

	if (a[NF_CUCKOO_A_HOOK])
		hook = nla_get_u8(a[NF_CUCKOO_A_HOOK]);
	if (a[NF_CUCKOO_A_PRIORITY])
		priority = nla_get_s32(a[NF_CUCKOO_A_PRIORITY]);
	err = nfcf_net_move(nfcf_net(genl_info_net(info)), f,
			    a[NF_CUCKOO_A_HOOK] ? &hook : NULL,
			    a[NF_CUCKOO_A_PRIORITY] ? &priority : NULL,
			    info->extack);
	if (err == -ENOENT)
		nfcf_lookup_errmsg(err, a[NF_CUCKOO_A_NAME], info->extack);
	else if (err == -EBUSY)
		NL_SET_ERR_MSG_MOD(info->extack,
				   "the filter is being restored: its hook can change once it is live");
	else if (err == -E2BIG)
		NL_SET_ERR_MSG_MOD(info->extack,
				   "cannot register the filter's netfilter hook there: too many hooks at that place; the filter stays where it was");
	else if (err == -ENOMEM)
		NL_SET_ERR_MSG_MOD(info->extack, "out of memory: the filter stays where it was");
	return err;	/* -EINVAL: nfcf_ifaces_hook_ok() said why */
}

static int nfcf_cmd_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct nfcf_conf val = {};
	struct nfcf_filter *f;
	u32 what = 0;
	int err;

	if (a[NF_CUCKOO_A_ACTION]) {
		val.action = nla_get_u8(a[NF_CUCKOO_A_ACTION]);
		what |= NFCF_CONF_ACTION;
	}
	if (a[NF_CUCKOO_A_MARK]) {
		val.mark = nla_get_u32(a[NF_CUCKOO_A_MARK]);
		what |= NFCF_CONF_MARK;
	}
	if (a[NF_CUCKOO_A_MARK_MASK]) {
		val.mark_mask = nla_get_u32(a[NF_CUCKOO_A_MARK_MASK]);
		what |= NFCF_CONF_MARK_MASK;
	}
	if (a[NF_CUCKOO_A_INVERT]) {
		val.invert = nla_get_u8(a[NF_CUCKOO_A_INVERT]);
		what |= NFCF_CONF_INVERT;
	}
	if (a[NF_CUCKOO_A_ENABLED]) {
		val.enabled = nla_get_u8(a[NF_CUCKOO_A_ENABLED]);
		what |= NFCF_CONF_ENABLED;
	}
	f = nfcf_get_filter(info, false);
	if (IS_ERR(f))
		return PTR_ERR(f);
	if (!what && !a[NF_CUCKOO_A_GROW] && !a[NF_CUCKOO_A_HOOK] &&
	    !a[NF_CUCKOO_A_PRIORITY]) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "nothing to change: give ACTION, MARK, MARK_MASK, INVERT, ENABLED, GROW, HOOK or PRIORITY");
		err = -EINVAL;
		goto out;
	}
	err = 0;
	if (a[NF_CUCKOO_A_GROW])
		err = nfcf_filter_set_grow(f, nla_get_u8(a[NF_CUCKOO_A_GROW]));
	if (!err && what)
		err = nfcf_net_update_conf(nfcf_net(genl_info_net(info)), f,
					   &val, what);
	if (err == -ENOENT)
		nfcf_lookup_errmsg(err, a[NF_CUCKOO_A_NAME], info->extack);
	else if (err == -ENOMEM)
		NL_SET_ERR_MSG_MOD(info->extack, "out of memory");
	else if (err)
		NL_SET_ERR_MSG_MOD(info->extack,
				   "cannot register the filter's netfilter hook");
	if (!err && (a[NF_CUCKOO_A_HOOK] || a[NF_CUCKOO_A_PRIORITY]))
		err = nfcf_set_move(info, f);
	if (!err)
		nfcf_event_filter(genl_info_net(info), f, NF_CUCKOO_EVENT_SET);
out:
	nfcf_filter_put(f);
	return err;
}

static int nfcf_cmd_flush(struct sk_buff *skb, struct genl_info *info)
{
	struct nfcf_filter *f;
	int err;

	f = nfcf_get_filter(info, false);
	if (IS_ERR(f))
		return PTR_ERR(f);
	err = nfcf_filter_flush(f);
	if (err == -ENOMEM)
		NL_SET_ERR_MSG_MOD(info->extack, "out of memory: nothing flushed");
	else if (err)
		nfcf_lookup_errmsg(err, info->attrs[NF_CUCKOO_A_NAME], info->extack);
	else
		nfcf_event_filter(genl_info_net(info), f, NF_CUCKOO_EVENT_FLUSH);
	nfcf_filter_put(f);
	return err;
}

/* Batches */

struct nfcf_batch {
	struct nfcf_filter *f;
	struct nf_cuckoo_flow_key *keys;
	unsigned long *bits;
	u8 *stage_of;
	struct sk_buff *reply;
	struct nfcf_batch_result res;	/* .info: CF_STAGES_MAX, for events */
	u32 n;
	u32 flags;
	u8 cmd;
};

/* Count the entries, nested and packed, at most NF_CUCKOO_BATCH_MAX. */
static int nfcf_batch_count(struct genl_info *info, u32 *n)
{
	const struct nlattr *nla;
	u32 count = 0;
	int rem;

	nlmsg_for_each_attr(nla, info->nlhdr, GENL_HDRLEN, rem) {
		count += nfcf_attr_entries(nla);
		if (count > NF_CUCKOO_BATCH_MAX) {
			NL_SET_ERR_MSG_ATTR(info->extack, nla,
					    "more than NF_CUCKOO_BATCH_MAX entries in one message");
			return -E2BIG;
		}
	}
	if (!count) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "no entries (NF_CUCKOO_A_ENTRY or NF_CUCKOO_A_ENTRIES_IPV4/6)");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, NF_CUCKOO_A_ENTRY);
		return -EINVAL;
	}
	*n = count;
	return 0;
}

/* The attribute that holds entry idx. */
static const struct nlattr *nfcf_batch_entry(struct genl_info *info, u32 idx)
{
	const struct nlattr *nla;
	int rem;
	u32 n;

	nlmsg_for_each_attr(nla, info->nlhdr, GENL_HDRLEN, rem) {
		n = nfcf_attr_entries(nla);
		if (idx < n)
			return nla;
		idx -= n;
	}
	return NULL;
}

/* The keys of one attribute's entries, from b->keys[*i] on. */
static int nfcf_batch_parse_attr(struct nfcf_batch *b, const struct nlattr *nla,
				 u32 *i, enum nf_cuckoo_entry_err *why,
				 struct genl_info *info)
{
	u32 j, n;
	int err;

	if (nla_type(nla) == NF_CUCKOO_A_ENTRY) {
		err = nfcf_flowkey_from_entry(&b->keys[*i], nla, &b->f->ks,
					      why, info->extack);
		if (!err)
			++*i;
		return err;
	}
	n = nfcf_attr_entries(nla);
	for (j = 0; j < n; j++) {
		err = nfcf_flowkey_from_packed(&b->keys[*i], nla, j, &b->f->ks,
					       why, info->extack);
		if (err)
			return err;
		++*i;
	}
	return 0;
}

/* Parse every entry first; the first bad one fails the batch. */
static int nfcf_batch_parse(struct nfcf_batch *b, struct genl_info *info)
{
	const struct nlattr *nla;
	enum nf_cuckoo_entry_err why;
	u32 i = 0;
	int rem, err;

	nlmsg_for_each_attr(nla, info->nlhdr, GENL_HDRLEN, rem) {
		err = nfcf_batch_parse_attr(b, nla, &i, &why, info);
		if (err) {
			b->res.fail_index = i;
			b->res.why = why;
			return err;
		}
	}
	return 0;
}

static int nfcf_batch_alloc(struct nfcf_batch *b, struct genl_info *info)
{
	size_t size;

	size = nla_total_size(NF_CUCKOO_NAME_MAXLEN) + 6 * nla_total_size(sizeof(u32)) +
	       nla_total_size(BITS_TO_BYTES(b->n));
	b->reply = genlmsg_new(size, GFP_KERNEL);
	b->keys = kvmalloc_array(b->n, sizeof(*b->keys),
				 GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	b->bits = bitmap_zalloc(b->n, GFP_KERNEL_ACCOUNT);
	b->stage_of = kmalloc(b->n, GFP_KERNEL_ACCOUNT);
	b->res.info = kmalloc_array(CF_STAGES_MAX, sizeof(*b->res.info),
				    GFP_KERNEL_ACCOUNT);
	if (!b->reply || !b->keys || !b->bits || !b->stage_of ||
	    !b->res.info) {
		NL_SET_ERR_MSG_MOD(info->extack, "out of memory for the batch");
		return -ENOMEM;
	}
	return 0;
}

static void nfcf_batch_free(struct nfcf_batch *b)
{
	nlmsg_free(b->reply);
	kvfree(b->keys);
	bitmap_free(b->bits);
	kfree(b->stage_of);
	kfree(b->res.info);
	if (!IS_ERR_OR_NULL(b->f))
		nfcf_filter_put(b->f);
}

static int nfcf_put_bitmap(struct sk_buff *skb, const unsigned long *bits,
			   u32 n)
{
	struct nlattr *a;
	u8 *bytes;
	u32 i;

	a = nla_reserve(skb, NF_CUCKOO_A_TEST_BITMAP, BITS_TO_BYTES(n));
	if (!a)
		return -EMSGSIZE;
	bytes = nla_data(a);
	memset(bytes, 0, BITS_TO_BYTES(n));
	for_each_set_bit(i, bits, n)
		bytes[i / 8] |= 1 << (i % 8);
	return 0;
}

/* Send the batch's reply; it was sized in advance so cannot fail to fit. */
static void nfcf_batch_reply(struct nfcf_batch *b, struct genl_info *info)
{
	struct nfcf_batch_result *r = &b->res;
	struct sk_buff *msg = b->reply;
	bool failed = r->why != NF_CUCKOO_ENTRY_E_NONE;
	char name[NF_CUCKOO_NAME_MAXLEN];
	void *hdr;

	hdr = genlmsg_put_reply(msg, info, &nfcf_genl_family, 0, b->cmd);
	if (WARN_ON_ONCE(!hdr))
		return;
	nfcf_filter_name(b->f, name);
	if (nla_put_string(msg, NF_CUCKOO_A_NAME, name) ||
	    nla_put_u32(msg, NF_CUCKOO_A_BATCH_DONE, r->done) ||
	    nla_put_u32(msg, NF_CUCKOO_A_BATCH_SKIPPED, r->skipped) ||
	    (failed && (nla_put_u32(msg, NF_CUCKOO_A_BATCH_FAIL_INDEX, r->fail_index) ||
			nla_put_u32(msg, NF_CUCKOO_A_BATCH_FAIL_REASON, r->why))) ||
	    (b->cmd == NF_CUCKOO_CMD_TEST_ENTRIES &&
	     (nla_put_u32(msg, NF_CUCKOO_A_TEST_HITS, r->hits) ||
	      nfcf_put_bitmap(msg, b->bits, b->n)))) {
		WARN_ON_ONCE(1);
		return;
	}
	genlmsg_end(msg, hdr);
	b->reply = NULL;
	genlmsg_reply(msg, info);
}

static int nf_cuckoo_batch_flags(struct nfcf_batch *b, struct genl_info *info)
{
	const struct nlattr *a = info->attrs[NF_CUCKOO_A_BATCH_FLAGS];
	u32 allowed = b->cmd == NF_CUCKOO_CMD_ADD_ENTRIES ?
		      NF_CUCKOO_BATCH_F_UNIQUE :
		      NF_CUCKOO_BATCH_F_MISSING_OK | NF_CUCKOO_BATCH_F_AMBIGUOUS_OK;

	b->flags = nfcf_attr_u32(a, 0);
	if (b->flags & ~allowed) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "batch flag not valid for this command");
		return -EINVAL;
	}
	return 0;
}

static void nfcf_batch_errmsg(struct nfcf_batch *b, struct genl_info *info,
			      int err)
{
	const struct nlattr *e = NULL;

	if (b->res.why != NF_CUCKOO_ENTRY_E_NONE)
		e = nfcf_batch_entry(info, b->res.fail_index);
	if (err == -EUCLEAN)
		NL_SET_ERR_MSG_ATTR(info->extack, e,
				    "entry failed and the batch could not be fully undone: BATCH_DONE entries remain");
	else if (err == -ENOMEM)
		NL_SET_ERR_MSG_ATTR(info->extack, e,
				    "out of memory: batch undone");
	else if (b->res.why == NF_CUCKOO_ENTRY_E_FULL)
		NL_SET_ERR_MSG_ATTR(info->extack, e,
				    "filter is full: batch undone");
	else if (b->res.why == NF_CUCKOO_ENTRY_E_NOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, e,
				    "entry is not in the filter: batch undone");
	else if (b->res.why == NF_CUCKOO_ENTRY_E_PREFIXES)
		NL_SET_ERR_MSG_ATTR(info->extack, e,
				    "more than NF_CUCKOO_PREFIXES_MAX combinations of prefix lengths of the entry's family: batch undone");
	else if (b->res.why == NF_CUCKOO_ENTRY_E_AMBIGUOUS)
		NL_SET_ERR_MSG_ATTR(info->extack, e,
				    "entry is in more than one stage and its own copy cannot be told: not deleted (flush and add again to remove it): batch undone");
	else if (b->res.why == NF_CUCKOO_ENTRY_E_QUOTA &&
		 b->res.ceiling == NFCF_CEILING_NETNS)
		NL_SET_ERR_MSG_ATTR(info->extack, e,
				    "filter is full and a new stage would exceed the network namespace's memory ceiling (netns_mem_max_mb): batch undone");
	else if (b->res.why == NF_CUCKOO_ENTRY_E_QUOTA)
		NL_SET_ERR_MSG_ATTR(info->extack, e,
				    "filter is full and a new stage would exceed the module's memory ceiling (mem_max_mb): batch undone");
	else if (err == -ENOENT)
		nfcf_lookup_errmsg(err, info->attrs[NF_CUCKOO_A_NAME], info->extack);
}

static int nfcf_batch_apply(struct nfcf_batch *b)
{
	switch (b->cmd) {
	case NF_CUCKOO_CMD_ADD_ENTRIES:
	case NF_CUCKOO_CMD_DEL_ENTRIES:
		return nfcf_filter_batch(b->f, b->keys, b->n, b->flags,
					 b->cmd == NF_CUCKOO_CMD_DEL_ENTRIES, b->bits,
					 b->stage_of, &b->res);
	default:
		nfcf_filter_test(b->f, b->keys, b->n, b->bits, &b->res);
		return 0;
	}
}

static int nfcf_cmd_entries(struct sk_buff *skb, struct genl_info *info)
{
	struct nfcf_batch b = { .cmd = info->genlhdr->cmd };
	int err;

	err = nf_cuckoo_batch_flags(&b, info);
	if (err)
		return err;
	err = nfcf_batch_count(info, &b.n);
	if (err)
		return err;
	b.f = nfcf_get_filter(info, false);
	if (IS_ERR(b.f))
		return PTR_ERR(b.f);
	err = nfcf_batch_alloc(&b, info);
	if (err)
		goto out;
	/* A parse error has set its own extack message. */
	err = nfcf_batch_parse(&b, info);
	if (!err) {
		err = nfcf_batch_apply(&b);
		if (err)
			nfcf_batch_errmsg(&b, info, err);
		if (b.cmd != NF_CUCKOO_CMD_TEST_ENTRIES)
			nfcf_event_batch(genl_info_net(info), b.f, b.cmd, &b.res);
	}
	if (err != -ENOENT || b.res.why != NF_CUCKOO_ENTRY_E_NONE)
		nfcf_batch_reply(&b, info);
out:
	nfcf_batch_free(&b);
	return err;
}

/* Save: a dump of one filter's image */

/*
 * cb->args[0]: the filter (a reference), [1]: next table offset,
 * [2]: table bytes, [3]: header sent.
 */
static int nfcf_save_start(struct netlink_callback *cb, struct nfcf_filter **fp)
{
	struct nlattr **attrs = nfcf_dump_attrs(cb);
	struct nfcf_filter *f;
	const char *name;

	name = nfcf_get_name(attrs, cb->extack);
	if (!name)
		return -EINVAL;
	f = nfcf_net_lookup(nfcf_net(sock_net(cb->skb->sk)), name, false);
	if (IS_ERR(f)) {
		nfcf_lookup_errmsg(PTR_ERR(f), attrs[NF_CUCKOO_A_NAME], cb->extack);
		return PTR_ERR(f);
	}
	cb->args[0] = (long)f;
	*fp = f;
	return 0;
}

static int nfcf_save_header(struct sk_buff *skb, struct netlink_callback *cb,
			    struct nfcf_filter *f)
{
	u64 table_bytes = cf_stages_table_bytes(&f->st);
	struct cf_image img;
	void *hdr;
	u32 i;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &nfcf_genl_family, NLM_F_MULTI, NF_CUCKOO_CMD_SAVE);
	if (!hdr)
		return -EMSGSIZE;
	nl_dump_check_consistent(cb, genlmsg_nlhdr(hdr));
	if (nfcf_nl_put_filter(skb, f, false, true))
		goto cancel;
	for (i = 0; i < f->st.n; i++) {
		cf_export_header(cf_stages_at(&f->st, i), &img);
		if (nla_put(skb, NF_CUCKOO_A_IMAGE_HEADER, sizeof(img), &img))
			goto cancel;
	}
	if (nla_put_u64_64bit(skb, NF_CUCKOO_A_IMAGE_TABLE_BYTES, table_bytes,
			      NF_CUCKOO_A_PAD))
		goto cancel;
	genlmsg_end(skb, hdr);
	cb->args[1] = 0;
	cb->args[2] = table_bytes;
	cb->args[3] = 1;
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* Bytes of table that fit in one more message of @skb, a multiple of 8. */
static u32 nfcf_chunk_room(struct sk_buff *skb, u64 left)
{
	int room = skb_tailroom(skb) - NLMSG_HDRLEN - GENL_HDRLEN -
		   nla_total_size_64bit(sizeof(u64)) - NLA_HDRLEN - 8;

	if (room < 8)
		return 0;
	return round_down(min_t(u64, min(room, NF_CUCKOO_CHUNK_MAX), left), 8);
}

static int nfcf_save_chunk(struct sk_buff *skb, struct netlink_callback *cb,
			   struct nfcf_filter *f)
{
	u64 off = cb->args[1];
	struct nlattr *data;
	void *hdr;
	u32 len;
	int err;

	len = nfcf_chunk_room(skb, cb->args[2] - off);
	if (!len)
		return -EMSGSIZE;
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &nfcf_genl_family, NLM_F_MULTI, NF_CUCKOO_CMD_SAVE);
	if (!hdr)
		return -EMSGSIZE;
	nl_dump_check_consistent(cb, genlmsg_nlhdr(hdr));
	if (nla_put_u64_64bit(skb, NF_CUCKOO_A_CHUNK_OFFSET, off, NF_CUCKOO_A_PAD))
		goto cancel;
	data = nla_reserve(skb, NF_CUCKOO_A_CHUNK_DATA, len);
	if (!data)
		goto cancel;
	err = cf_stages_export(&f->st, off, nla_data(data), len);
	if (err) {
		genlmsg_cancel(skb, hdr);
		return err;
	}
	genlmsg_end(skb, hdr);
	cb->args[1] = off + len;
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int nfcf_dump_save(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nfcf_filter *f = (struct nfcf_filter *)cb->args[0];
	int err = 0;

	if (!f) {
		err = nfcf_save_start(cb, &f);
		if (err)
			return err;
	}
	mutex_lock(&f->lock);
	if (f->dead) {
		NL_SET_ERR_MSG_MOD(cb->extack,
				   "filter was destroyed during the save");
		err = -ENOENT;
		goto out;
	}
	cb->seq = f->gen;
	if (!cb->args[3])
		err = nfcf_save_header(skb, cb, f);
	while (!err && (u64)cb->args[1] < (u64)cb->args[2])
		err = nfcf_save_chunk(skb, cb, f);
	if (err == -EMSGSIZE && skb->len)
		err = 0;
	else if (err)
		NL_SET_ERR_MSG_MOD(cb->extack, "cannot export the table");
out:
	mutex_unlock(&f->lock);
	return err ? err : skb->len;
}

static int nfcf_dump_save_done(struct netlink_callback *cb)
{
	struct nfcf_filter *f = (struct nfcf_filter *)cb->args[0];

	if (f)
		nfcf_filter_put(f);
	return 0;
}

/* Restore */

/* One record of a restore's PREFIXES, against the filter's key. */
static bool nfcf_prefix_ok(const struct nf_cuckoo_prefix_count *pc,
			   const struct nfcf_key_spec *ks)
{
	unsigned int bits;

	if (pc->family != NF_CUCKOO_FAMILY_IPV4 &&
	    pc->family != NF_CUCKOO_FAMILY_IPV6)
		return false;
	bits = nfcf_addr_bits(pc->family);
	return (pc->family & ks->families) && !ks->bidir && !pc->pad &&
	       pc->count && (pc->src_plen || pc->dst_plen) &&
	       pc->src_plen < bits && pc->dst_plen < bits &&
	       (!pc->src_plen || (ks->fields & NF_CUCKOO_KEY_SRC_ADDR)) &&
	       (!pc->dst_plen || (ks->fields & NF_CUCKOO_KEY_DST_ADDR));
}

/* A restore's PREFIXES: each a combination, none twice, the bound kept. */
static int nfcf_check_prefixes(const struct nlattr *a,
			       const struct nfcf_key_spec *ks,
			       struct netlink_ext_ack *extack)
{
	const struct nf_cuckoo_prefix_count *pc = nla_data(a);
	u32 n = nla_len(a) / sizeof(*pc), i, j, per[2] = { 0, 0 };

	for (i = 0; i < n; i++) {
		if (!nfcf_prefix_ok(&pc[i], ks))
			goto bad;
		if (++per[NFCF_FAM_IDX(pc[i].family)] > NF_CUCKOO_PREFIXES_MAX)
			goto bad;
		for (j = 0; j < i; j++)
			if (pc[j].family == pc[i].family &&
			    pc[j].src_plen == pc[i].src_plen &&
			    pc[j].dst_plen == pc[i].dst_plen)
				goto bad;
	}
	return 0;
bad:
	NL_SET_ERR_MSG_ATTR(extack, a,
			    "prefix counts do not fit the filter: a combination of lengths its key, family or bound refuses, given twice, or counting 0");
	return -EINVAL;
}

/* One IMAGE_HEADER of a LOAD_BEGIN, checked; its geometry in @p. */
static int nfcf_load_image(const struct nlattr *ha, struct cf_image *img,
			   struct cf_params *p, struct netlink_ext_ack *extack)
{
	if (nla_len(ha) != sizeof(*img)) {
		NL_SET_ERR_MSG_ATTR(extack, ha,
				    "image header has the wrong length (saved by another version?)");
		return -EINVAL;
	}
	memcpy(img, nla_data(ha), sizeof(*img));
	if (img->magic == CF_IMAGE_MAGIC &&
	    (img->version < CF_IMAGE_VERSION_MIN || img->version > CF_IMAGE_VERSION)) {
		NL_SET_ERR_MSG_ATTR(extack, ha,
				    "image version not supported: this is nf_cuckoo " NF_CUCKOO_VERSION
				    ", which reads image versions " __stringify(CF_IMAGE_VERSION_MIN)
				    " to " __stringify(CF_IMAGE_VERSION)
				    " only; restore it with the nf_cuckoo that saved it, or add the entries again");
		return -EINVAL;
	}
	if (cf_image_params(img, p)) {
		NL_SET_ERR_MSG_ATTR(extack, ha,
				    "image header rejected: wrong magic, version, byte order or geometry");
		return -EINVAL;
	}
	return 0;
}

/*
 * The IMAGE_HEADER attributes of a LOAD_BEGIN, one per stage, oldest
 * first, into @img (room for NF_CUCKOO_STAGES_MAX); *bytes: what the
 * stages will take.
 */
static int nfcf_load_images(struct genl_info *info, u8 max_stages,
			    struct cf_image *img, u32 *n, u64 *bytes)
{
	const struct nlattr *ha;
	struct cf_params p;
	int rem, err;

	*n = 0;
	*bytes = 0;
	nlmsg_for_each_attr(ha, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(ha) != NF_CUCKOO_A_IMAGE_HEADER)
			continue;
		if (*n == max_stages) {
			NL_SET_ERR_MSG_ATTR(info->extack, ha,
					    "more image headers (stages) than STAGES_MAX");
			return -EINVAL;
		}
		err = nfcf_load_image(ha, &img[*n], &p, info->extack);
		if (err)
			return err;
		p.lent_scratch = NFCF_LENT_SCRATCH;
		if (*n && !cf_image_stage_fits(&img[0], &img[*n])) {
			NL_SET_ERR_MSG_ATTR(info->extack, ha,
					    "a stage's seed, hash, bucket size or encoding differs from the first stage's");
			return -EINVAL;
		}
		*bytes += cf_params_bytes(&p);
		(*n)++;
	}
	if (*bytes > nfcf_net_mem_max()) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NF_CUCKOO_A_IMAGE_HEADER],
				    "filter would exceed the network namespace's memory ceiling (netns_mem_max_mb)");
		return -EDQUOT;
	}
	return 0;
}

static int nfcf_cmd_load_begin(struct sk_buff *skb, struct genl_info *info)
{
	struct nfcf_net *nn = nfcf_net(genl_info_net(info));
	struct nfcf_filter_cfg cfg = {};
	struct nfcf_load_spec ls = {};
	const struct nlattr *pa;
	struct nfcf_filter *f;
	u64 bytes;
	int err;

	err = nfcf_parse_cfg(info, &cfg);
	if (err)
		return err;
	cfg.ceiling = &nn->ceiling;
	if (GENL_REQ_ATTR_CHECK(info, NF_CUCKOO_A_IMAGE_HEADER)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "missing image header (NF_CUCKOO_A_IMAGE_HEADER)");
		return -EINVAL;
	}
	ls.img = kmalloc_array(NF_CUCKOO_STAGES_MAX, sizeof(*ls.img), GFP_KERNEL);
	if (!ls.img) {
		NL_SET_ERR_MSG_MOD(info->extack, "out of memory");
		return -ENOMEM;
	}
	err = nfcf_load_images(info, cfg.grow.max_stages, ls.img, &ls.n,
			       &bytes);
	if (err)
		goto out;
	pa = info->attrs[NF_CUCKOO_A_PREFIXES];
	if (pa) {
		err = nfcf_check_prefixes(pa, &cfg.ks, info->extack);
		if (err)
			goto out;
	}
	err = -ENOMEM;
	f = nfcf_filter_prepare(&cfg, bytes);
	if (!f) {
		NL_SET_ERR_MSG_MOD(info->extack, "out of memory");
		goto out;
	}
	/* Before the filter is in the table: nobody else sees it yet. */
	if (pa && nfcf_filter_load_prefixes(f, nla_data(pa),
					    nla_len(pa) / sizeof(struct nf_cuckoo_prefix_count))) {
		NL_SET_ERR_MSG_MOD(info->extack, "out of memory");
		nfcf_filter_put(f);
		goto out;
	}
	ls.portid = info->snd_portid;
	err = nfcf_new_filter(nn, f, NULL, &ls, info);
out:
	kfree(ls.img);
	return err;
}

static void nfcf_load_errmsg(int err, bool abort, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	const struct nlattr *name = info->attrs[NF_CUCKOO_A_NAME];

	if (abort && err == -EINVAL) {
		NL_SET_ERR_MSG_MOD(extack,
				   "saved table rejected: load aborted, filter removed");
		return;
	}
	switch (err) {
	case -ENOENT:
		nfcf_lookup_errmsg(err, name, extack);
		break;
	case -EINVAL:
		NL_SET_ERR_MSG_ATTR(extack, name, "filter is not being loaded");
		break;
	case -EBUSY:
		NL_SET_ERR_MSG_ATTR(extack, name,
				    "filter is being loaded by another socket");
		break;
	case -ERANGE:
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[NF_CUCKOO_A_CHUNK_OFFSET],
				    "chunk out of order or past the table's end: load aborted, filter removed");
		break;
	case -ENODATA:
		NL_SET_ERR_MSG_ATTR(extack, name,
				    "table incomplete: load aborted, filter removed");
		break;
	default:
		NL_SET_ERR_MSG_MOD(extack,
				   "saved table rejected: load aborted, filter removed");
	}
}

static int nfcf_cmd_load_chunk(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct nfcf_filter *f;
	bool abort;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, NF_CUCKOO_A_CHUNK_OFFSET) ||
	    GENL_REQ_ATTR_CHECK(info, NF_CUCKOO_A_CHUNK_DATA)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "missing CHUNK_OFFSET or CHUNK_DATA");
		return -EINVAL;
	}
	f = nfcf_get_filter(info, true);
	if (IS_ERR(f))
		return PTR_ERR(f);
	err = nfcf_filter_load_chunk(f, info->snd_portid,
				     nla_get_u64(a[NF_CUCKOO_A_CHUNK_OFFSET]),
				     nla_data(a[NF_CUCKOO_A_CHUNK_DATA]),
				     nla_len(a[NF_CUCKOO_A_CHUNK_DATA]), &abort);
	if (err)
		nfcf_load_errmsg(err, abort, info);
	if (abort)
		nfcf_net_remove(nfcf_net(genl_info_net(info)), f);
	nfcf_filter_put(f);
	return err;
}

static int nfcf_cmd_load_end(struct sk_buff *skb, struct genl_info *info)
{
	struct nfcf_net *nn = nfcf_net(genl_info_net(info));
	struct nfcf_filter *f;
	bool abort;
	int err;

	f = nfcf_get_filter(info, true);
	if (IS_ERR(f))
		return PTR_ERR(f);
	err = nfcf_filter_load_finish(f, info->snd_portid, &abort);
	if (err) {
		nfcf_load_errmsg(err, abort, info);
	} else {
		err = nfcf_net_publish(nn, f);
		/* Not the table's fault: publishing removed the filter. */
		if (err && err != -ENOENT && err != -EINVAL)
			NL_SET_ERR_MSG_MOD(info->extack,
					   "cannot register the filter's netfilter hook: load aborted, filter removed");
		else if (err)
			nfcf_load_errmsg(err, false, info);
		else
			nfcf_event_filter(nn->net, f, NF_CUCKOO_EVENT_RESTORE);
	}
	if (abort)
		nfcf_net_remove(nn, f);
	nfcf_filter_put(f);
	return err;
}

static int nfcf_cmd_swap(struct sk_buff *skb, struct genl_info *info)
{
	static const int types[2] = { NF_CUCKOO_A_NAME, NF_CUCKOO_A_NAME2 };
	const char *names[2];
	int i, which = 0, err;

	for (i = 0; i < 2; i++) {
		names[i] = nfcf_get_name_attr(info->attrs, types[i],
					      info->extack);
		if (!names[i])
			return -EINVAL;
	}
	if (!strcmp(names[0], names[1])) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NF_CUCKOO_A_NAME2],
				    "cannot swap a filter with itself");
		return -EINVAL;
	}
	err = nfcf_net_swap(nfcf_net(genl_info_net(info)), names, &which);
	if (err) {
		nfcf_lookup_errmsg(err, info->attrs[types[which]], info->extack);
		return err;
	}
	nfcf_event_swap(genl_info_net(info), names);
	return 0;
}

/* IFINDEX and BIND_POINT, required: 0 or -EINVAL (the missing one named). */
static int nfcf_bind_attrs(struct genl_info *info, int *ifindex, u8 *point)
{
	if (GENL_REQ_ATTR_CHECK(info, NF_CUCKOO_A_IFINDEX) ||
	    GENL_REQ_ATTR_CHECK(info, NF_CUCKOO_A_BIND_POINT)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "missing device index or attach point (NF_CUCKOO_A_IFINDEX, NF_CUCKOO_A_BIND_POINT)");
		return -EINVAL;
	}
	*ifindex = nla_get_u32(info->attrs[NF_CUCKOO_A_IFINDEX]);
	*point = nla_get_u8(info->attrs[NF_CUCKOO_A_BIND_POINT]);
	return 0;
}

static int nfcf_cmd_bind(struct sk_buff *skb, struct genl_info *info)
{
	int ifindex, err;
	u32 prog_id = 0;
	u8 point;

	err = nfcf_bind_attrs(info, &ifindex, &point);
	if (err)
		return err;
	if (GENL_REQ_ATTR_CHECK(info, NF_CUCKOO_A_ID)) {
		NL_SET_ERR_MSG_MOD(info->extack, "missing filter id (NF_CUCKOO_A_ID)");
		return -EINVAL;
	}
	if (info->attrs[NF_CUCKOO_A_PROG_ID])
		prog_id = nla_get_u32(info->attrs[NF_CUCKOO_A_PROG_ID]);
	return nfcf_bind_add(nfcf_net(genl_info_net(info)),
			     nla_get_u32(info->attrs[NF_CUCKOO_A_ID]), ifindex,
			     point, prog_id, info->extack);
}

static int nfcf_cmd_unbind(struct sk_buff *skb, struct genl_info *info)
{
	int ifindex, err;
	u8 point;

	err = nfcf_bind_attrs(info, &ifindex, &point);
	if (err)
		return err;
	err = nfcf_bind_del(nfcf_net(genl_info_net(info)), ifindex, point);
	if (err)
		NL_SET_ERR_MSG_MOD(info->extack, "no filter is bound at that point of that device");
	return err;
}

static const struct genl_ops nfcf_genl_ops[] = {
	{
		.cmd = NF_CUCKOO_CMD_NEW,
		.doit = nfcf_cmd_new,
		.policy = nfcf_new_policy,
		.maxattr = NF_CUCKOO_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	}, {
		.cmd = NF_CUCKOO_CMD_DEL,
		.doit = nfcf_cmd_del,
		.policy = nfcf_name_policy,
		.maxattr = NF_CUCKOO_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	}, {
		.cmd = NF_CUCKOO_CMD_GET,
		.doit = nfcf_cmd_get,
		.dumpit = nfcf_dump_get,
		.policy = nfcf_name_policy,
		.maxattr = NF_CUCKOO_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	}, {
		.cmd = NF_CUCKOO_CMD_SET,
		.doit = nfcf_cmd_set,
		.policy = nfcf_set_policy,
		.maxattr = NF_CUCKOO_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	}, {
		.cmd = NF_CUCKOO_CMD_FLUSH,
		.doit = nfcf_cmd_flush,
		.policy = nfcf_name_policy,
		.maxattr = NF_CUCKOO_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	}, {
		.cmd = NF_CUCKOO_CMD_ADD_ENTRIES,
		.doit = nfcf_cmd_entries,
		.policy = nfcf_entries_policy,
		.maxattr = NF_CUCKOO_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	}, {
		.cmd = NF_CUCKOO_CMD_DEL_ENTRIES,
		.doit = nfcf_cmd_entries,
		.policy = nfcf_entries_policy,
		.maxattr = NF_CUCKOO_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	}, {
		.cmd = NF_CUCKOO_CMD_TEST_ENTRIES,
		.doit = nfcf_cmd_entries,
		.policy = nfcf_test_policy,
		.maxattr = NF_CUCKOO_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	}, {
		.cmd = NF_CUCKOO_CMD_SAVE,
		.dumpit = nfcf_dump_save,
		.done = nfcf_dump_save_done,
		.policy = nfcf_name_policy,
		.maxattr = NF_CUCKOO_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	}, {
		.cmd = NF_CUCKOO_CMD_LOAD_BEGIN,
		.doit = nfcf_cmd_load_begin,
		.policy = nfcf_load_begin_policy,
		.maxattr = NF_CUCKOO_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	}, {
		.cmd = NF_CUCKOO_CMD_LOAD_CHUNK,
		.doit = nfcf_cmd_load_chunk,
		.policy = nfcf_load_chunk_policy,
		.maxattr = NF_CUCKOO_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	}, {
		.cmd = NF_CUCKOO_CMD_LOAD_END,
		.doit = nfcf_cmd_load_end,
		.policy = nfcf_name_policy,
		.maxattr = NF_CUCKOO_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	}, {
		.cmd = NF_CUCKOO_CMD_SWAP,
		.doit = nfcf_cmd_swap,
		.policy = nfcf_swap_policy,
		.maxattr = NF_CUCKOO_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	}, {
		.cmd = NF_CUCKOO_CMD_BIND,
		.doit = nfcf_cmd_bind,
		.policy = nfcf_bind_policy,
		.maxattr = NF_CUCKOO_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	}, {
		.cmd = NF_CUCKOO_CMD_UNBIND,
		.doit = nfcf_cmd_unbind,
		.policy = nfcf_unbind_policy,
		.maxattr = NF_CUCKOO_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
};

struct genl_family nfcf_genl_family __ro_after_init = {
	.name = NF_CUCKOO_GENL_NAME,
	.version = NF_CUCKOO_GENL_VERSION,
	.maxattr = NF_CUCKOO_A_MAX,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = nfcf_genl_ops,
	.n_ops = ARRAY_SIZE(nfcf_genl_ops),
	.mcgrps = nfcf_mcgrps,
	.n_mcgrps = NFCF_N_MCGRPS,
	/* 0: every command is new, so all are validated strictly. */
	.resv_start_op = 0,
};

/* A netlink socket that began a load went away: drop that load. */
static int nfcf_netlink_notify(struct notifier_block *nb, unsigned long state,
			       void *ptr)
{
	struct netlink_notify *n = ptr;

	if (state != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC)
		return NOTIFY_DONE;
	nfcf_net_abort_loads(n->net, n->portid);
	return NOTIFY_DONE;
}

static struct notifier_block nfcf_netlink_notifier = {
	.notifier_call = nfcf_netlink_notify,
};

int __init nfcf_genl_init(void)
{
	int err;

	err = netlink_register_notifier(&nfcf_netlink_notifier);
	if (err)
		return err;
	err = genl_register_family(&nfcf_genl_family);
	if (err)
		netlink_unregister_notifier(&nfcf_netlink_notifier);
	return err;
}

void nfcf_genl_exit(void)
{
	genl_unregister_family(&nfcf_genl_family);
	netlink_unregister_notifier(&nfcf_netlink_notifier);
}
