// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: the module run in this process, a backend of nl.h in place of
 * the kernel's socket (nl_sock.c).  It answers requests as the nf_cuckoo
 * module does (kmod/netlink.c): the same checks, errnos, extended-ack
 * messages and offsets, batch replies, dumps ending in DONE, all-or-nothing
 * batches, SAVE images and LOAD_* with their aborts.  The filters
 * themselves are the real core, kmod/cuckoo.c and its stages,
 * kmod/cuckoo_stages.c, used as kmod/filter.c uses them (growth, deletes
 * from the one stage that holds a key, exact undo, flush to one stage),
 * built in userspace, keyed as kmod/flowkey.c keys entries.
 *
 * Two backends share it:
 *   fake_nl_backend       cfctl_fake and the fuzz targets: the tests'
 *                         kernel, with the environment below.
 *   fake_offline_backend  `cfctl build`: filters in memory for the life
 *                         of the process and nothing else; the seed, when
 *                         none is given, from getrandom() as the module's
 *                         from get_random_u64(); no memory ceiling (see
 *                         mem_max()).
 *
 * Environment (fake_nl_backend):
 *   CFCTL_FAKE_STATE=FILE  the filters live in FILE between runs (read at
 *                          open, written back at close); without it every
 *                          run starts empty.
 *   CFCTL_FAKE_FAIL_AT=N   request N (1-based) of this run fails with EIO
 *                          and the ext-ack "fake: injected failure".
 *   CFCTL_FAKE_EVENTS=FILE the events the module would multicast (uapi
 *                          "Events") are appended to FILE, numbered as
 *                          it numbers them; `cfctl_fake monitor` reads
 *                          them all from FILE, then ends.
 *   CFCTL_FAKE_EVENTS_DROP=N,M...  events of those numbers are lost on
 *                          their way, as for a listener that read too
 *                          slowly (kept in FILE as NOOP messages).
 *   CFCTL_FAKE_MEM_MAX=N   fake_mem_max, in bytes.
 * What it does not model: the packet path (statistics stay 0), several
 * sockets (every load is this socket's), ENOBUFS, per-namespace memory (one
 * ceiling, fake_mem_max, on each filter, its stages together; a stage
 * over it is refused as over netns_mem_max_mb), nested
 * NF_CUCKOO_A_ENTRY entries (cfctl sends packed ones; refused here with
 * EOPNOTSUPP), and lost replies.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "nl.h"
#include "fake_nl.h"
#include "cuckoo_stages.h"

#define NF_CUCKOO_STR_(x)	#x
#define NF_CUCKOO_STR(x)	NF_CUCKOO_STR_(x)

#define FAKE_FAMILY	0x1f
/* What an unprivileged socket gets by default: net.core.wmem_max. */
#define FAKE_SNDBUF	212992
#define FAKE_RBUF	(1 << 20)
/* A dump's messages share a datagram up to this size, as an skb would. */
#define FAKE_DGRAM	65536

struct fake_combo {
	uint32_t count;
	uint8_t s, d;
};

struct fake_cfg {
	char name[NF_CUCKOO_NAME_MAXLEN];
	uint8_t families, bidir, hook, action, invert, enabled;
	uint32_t fields, mark, mark_mask;
	int32_t priority;
	struct iface_list ifs;	/* nfcf_filter::ifaces (names only) */
	uint32_t id;		/* nfcf_filter::id */
	/* nfcf_filter::combo, ::ncombo: kept with the rest in the state */
	struct fake_combo combo[2][NF_CUCKOO_PREFIXES_MAX];
	uint8_t ncombo[2];
};

struct fake_filter {
	struct fake_filter *next;
	struct fake_cfg c;
	struct cf_stages st;	/* nfcf_filter::st, with its struct cf_grow */
	bool loading;
	uint64_t load_off, load_total;
};

struct dgram {
	struct dgram *next;
	size_t len, cap;
	bool join;		/* a dump's: more of its messages may follow */
	uint8_t data[];
};

/* The ceiling (netns_mem_max_mb): a test machine's, not a namespace's. */
uint64_t fake_mem_max = 256ULL << 20;

static struct {
	struct fake_filter *filters;	/* in creation order */
	struct dgram *head, *tail;
	unsigned long requests, fail_at;
	uint64_t seed;
	bool open;
	bool offline;		/* fake_offline_backend */
	const char *state;	/* $CFCTL_FAKE_STATE, fake_nl_backend only */
} fk;

/*
 * The ceiling NEW and LOAD_BEGIN check.  Offline there is none: the
 * ceilings are the router's (netns_mem_max_mb, mem_max_mb, which root may
 * change or lift), and its module checks them when the image is restored.
 */
static uint64_t mem_max(void)
{
	return fk.offline ? UINT64_MAX : fake_mem_max;
}

/*
 * The seed of a filter created without one.  The tests want it the same
 * from run to run; an image built offline gets a secret one, as the
 * module's filters do from get_random_u64().  0, or -1 if getrandom()
 * failed.
 */
static int new_seed(uint64_t *seed)
{
	if (!fk.offline) {
		*seed = fk.seed = fk.seed * 6364136223846793005ULL +
				  1442695040888963407ULL;
		return 0;
	}
	if (getrandom(seed, sizeof(*seed), 0) != (ssize_t)sizeof(*seed))
		return -1;
	return 0;
}

/* ---- replies ---- */

static void queue_bytes(const void *p, size_t len, bool join)
{
	struct dgram *d = fk.tail;
	size_t alen = NLMSG_ALIGN(len);

	if (!join || !d || !d->join || d->len + alen > d->cap) {
		size_t cap = join && alen < FAKE_DGRAM ? FAKE_DGRAM : alen;

		d = calloc(1, sizeof(*d) + cap);
		if (!d)
			abort();
		d->cap = cap;
		d->join = join;
		if (fk.tail)
			fk.tail->next = d;
		else
			fk.head = d;
		fk.tail = d;
	}
	memcpy(d->data + d->len, p, len);
	d->len += alen;
}

static void queue_msg(struct nl_msg *m, bool join)
{
	queue_bytes(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, join);
	nlmsg_free(m);
}

struct req {
	struct nlmsghdr *nlh;
	uint8_t cmd;
	struct nlattr *tb[NF_CUCKOO_A_MAX + 1];
	/* the error's extended ack */
	const char *msg;
	const struct nlattr *bad;
	int miss;
};

static int req_err(struct req *r, const struct nlattr *bad, int err,
		   const char *msg)
{
	r->msg = msg;
	r->bad = bad;
	return err;
}

static void put_tlvs(struct nl_msg *m, struct req *r)
{
	if (r->msg)
		nla_put_string(m, NLMSGERR_ATTR_MSG, r->msg);
	if (r->bad)
		nla_put_u32(m, NLMSGERR_ATTR_OFFS,
			    (uint32_t)((const uint8_t *)r->bad -
				       (const uint8_t *)r->nlh));
	if (r->miss)
		nla_put_u32(m, NLMSGERR_ATTR_MISS_TYPE, (uint32_t)r->miss);
}

/* The ack, capped (NETLINK_CAP_ACK), with TLVs on an error. */
static void queue_ack(struct req *r, int err)
{
	bool tlvs = err && (r->msg || r->bad || r->miss);
	struct nl_msg *m = nlmsg_alloc_size(4096);
	struct nlmsgerr *e;

	if (!m)
		abort();
	e = nlmsg_data(nlmsg_put(m, 0, r->nlh->nlmsg_seq, NLMSG_ERROR,
				 sizeof(*e), NLM_F_CAPPED |
				 (tlvs ? NLM_F_ACK_TLVS : 0)));
	e->error = err;
	e->msg = *r->nlh;
	if (tlvs)
		put_tlvs(m, r);
	queue_msg(m, false);
}

static void queue_done(struct req *r, int err)
{
	bool tlvs = err && (r->msg || r->miss);
	struct nl_msg *m = nlmsg_alloc_size(4096);
	int *p;

	if (!m)
		abort();
	p = nlmsg_data(nlmsg_put(m, 0, r->nlh->nlmsg_seq, NLMSG_DONE,
				 sizeof(int), NLM_F_MULTI |
				 (tlvs ? NLM_F_ACK_TLVS : 0)));
	*p = err;
	if (tlvs) {
		r->bad = NULL;	/* a dump's error points at nothing */
		put_tlvs(m, r);
	}
	queue_msg(m, true);
}

static struct nl_msg *reply(struct req *r, uint8_t cmd, int flags,
			    size_t size)
{
	struct nl_msg *m = nlmsg_alloc_size(size);

	if (!m || !genlmsg_put(m, 0, r->nlh->nlmsg_seq, FAKE_FAMILY, 0, flags,
			       cmd, NF_CUCKOO_GENL_VERSION))
		abort();
	return m;
}

/* ---- filters ---- */

/*
 * A new filter's id: one more than any held.  The module's ids go on
 * cyclically past a destroyed filter's; the fake, whose state is its
 * filters, may give the last one's again.
 */
static uint32_t new_id(void)
{
	const struct fake_filter *f;
	uint32_t id = 0;

	for (f = fk.filters; f; f = f->next)
		if (f->c.id > id)
			id = f->c.id;
	return id + 1;
}

static struct fake_filter *find(const char *name)
{
	struct fake_filter *f;

	for (f = fk.filters; f; f = f->next)
		if (!strcmp(f->c.name, name))
			return f;
	return NULL;
}

static void unlink_filter(struct fake_filter *f)
{
	struct fake_filter **pp;

	for (pp = &fk.filters; *pp; pp = &(*pp)->next)
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	cf_stages_free(&f->st);
	free(f);
}

static void insert(struct fake_filter *f)
{
	struct fake_filter **pp = &fk.filters;

	while (*pp)
		pp = &(*pp)->next;
	*pp = f;
}

/* ---- request checks, as the policies of kmod/netlink.c ---- */

enum { T_NONE, T_U8, T_U16, T_U32, T_U64, T_STR, T_BIN, T_NEST };

static const uint8_t attr_type[NF_CUCKOO_A_MAX + 1] = {
	[NF_CUCKOO_A_NAME] = T_STR, [NF_CUCKOO_A_FAMILY] = T_U8,
	[NF_CUCKOO_A_KEY_FIELDS] = T_U32, [NF_CUCKOO_A_CAPACITY] = T_U64,
	[NF_CUCKOO_A_FP_BITS] = T_U8, [NF_CUCKOO_A_FPR] = T_U32,
	[NF_CUCKOO_A_BUCKET_SIZE] = T_U8, [NF_CUCKOO_A_MAX_KICKS] = T_U16,
	[NF_CUCKOO_A_SEED] = T_U64, [NF_CUCKOO_A_HOOK] = T_U8,
	[NF_CUCKOO_A_PRIORITY] = T_U32, [NF_CUCKOO_A_ACTION] = T_U8,
	[NF_CUCKOO_A_MARK] = T_U32, [NF_CUCKOO_A_MARK_MASK] = T_U32,
	[NF_CUCKOO_A_BIDIRECTIONAL] = T_U8, [NF_CUCKOO_A_INVERT] = T_U8,
	[NF_CUCKOO_A_ENABLED] = T_U8, [NF_CUCKOO_A_ENTRY] = T_NEST,
	[NF_CUCKOO_A_IFACE] = T_NEST,
	[NF_CUCKOO_A_BATCH_FLAGS] = T_U32, [NF_CUCKOO_A_IMAGE_HEADER] = T_BIN,
	[NF_CUCKOO_A_CHUNK_OFFSET] = T_U64, [NF_CUCKOO_A_CHUNK_DATA] = T_BIN,
	[NF_CUCKOO_A_ENTRIES_IPV4] = T_BIN, [NF_CUCKOO_A_ENTRIES_IPV6] = T_BIN,
	[NF_CUCKOO_A_ENCODING] = T_U8, [NF_CUCKOO_A_PREFIXES] = T_BIN,
	[NF_CUCKOO_A_GROW] = T_U8, [NF_CUCKOO_A_GROW_FACTOR] = T_U8,
	[NF_CUCKOO_A_STAGES_MAX] = T_U8, [NF_CUCKOO_A_NAME2] = T_STR,
};

#define B(a)	(1ULL << NF_CUCKOO_A_##a)
#define PACKET	(B(NAME) | B(FAMILY) | B(KEY_FIELDS) | B(HOOK) | B(PRIORITY) | \
		 B(BIDIRECTIONAL) | B(ACTION) | B(MARK) | B(MARK_MASK) | \
		 B(INVERT) | B(ENABLED) | B(IFACE))
#define ENTRIES	(B(NAME) | B(ENTRY) | B(ENTRIES_IPV4) | B(ENTRIES_IPV6))
#define GROWTH	(B(GROW) | B(GROW_FACTOR) | B(STAGES_MAX))

static uint64_t allowed(uint8_t cmd)
{
	switch (cmd) {
	case NF_CUCKOO_CMD_NEW:
		return PACKET | B(CAPACITY) | B(FP_BITS) | B(FPR) |
		       B(BUCKET_SIZE) | B(ENCODING) | B(MAX_KICKS) | B(SEED) |
		       GROWTH;
	case NF_CUCKOO_CMD_DEL:
	case NF_CUCKOO_CMD_GET:
	case NF_CUCKOO_CMD_FLUSH:
	case NF_CUCKOO_CMD_SAVE:
	case NF_CUCKOO_CMD_LOAD_END:
		return B(NAME);
	case NF_CUCKOO_CMD_SET:
		return B(NAME) | B(ACTION) | B(MARK) | B(MARK_MASK) |
		       B(INVERT) | B(ENABLED) | B(GROW) | B(HOOK) | B(PRIORITY);
	case NF_CUCKOO_CMD_ADD_ENTRIES:
	case NF_CUCKOO_CMD_DEL_ENTRIES:
		return ENTRIES | B(BATCH_FLAGS);
	case NF_CUCKOO_CMD_TEST_ENTRIES:
		return ENTRIES;
	case NF_CUCKOO_CMD_LOAD_BEGIN:
		return PACKET | B(IMAGE_HEADER) | B(PREFIXES) | GROWTH;
	case NF_CUCKOO_CMD_LOAD_CHUNK:
		return B(NAME) | B(CHUNK_OFFSET) | B(CHUNK_DATA);
	case NF_CUCKOO_CMD_SWAP:
		return B(NAME) | B(NAME2);
	}
	return 0;
}

static uint64_t u(const struct nlattr *a)
{
	switch (nla_len(a)) {
	case 1:
		return nla_get_u8(a);
	case 2:
		return nla_get_u16(a);
	case 4:
		return nla_get_u32(a);
	default:
		return nla_get_u64(a);
	}
}

/* Ranges of the policies; 0 if fine. */
static int check_range(struct req *r, int t, const struct nlattr *a)
{
	uint64_t v = u(a);
	int64_t s;

	switch (t) {
	case NF_CUCKOO_A_FAMILY:
		if (v < NF_CUCKOO_FAMILY_IPV4 || v > NF_CUCKOO_FAMILY_INET)
			goto range;
		break;
	case NF_CUCKOO_A_KEY_FIELDS:
		if (v & ~(uint64_t)NF_CUCKOO_KEY_ALL)
			return req_err(r, a, -EINVAL, "reserved bit set");
		break;
	case NF_CUCKOO_A_CAPACITY:
		if (v < 1)
			goto range;
		break;
	case NF_CUCKOO_A_FP_BITS:
		if (v < NF_CUCKOO_FP_BITS_MIN || v > NF_CUCKOO_FP_BITS_MAX)
			goto range;
		break;
	case NF_CUCKOO_A_FPR:
		if (v < 1 || v >= NF_CUCKOO_FPR_SCALE)
			goto range;
		break;
	case NF_CUCKOO_A_BUCKET_SIZE:
		if (v < 2 || v > 8)
			goto range;
		break;
	case NF_CUCKOO_A_ENCODING:
		if (v > NF_CUCKOO_ENCODING_MAX)
			goto range;
		break;
	case NF_CUCKOO_A_MAX_KICKS:
		if (v < 1 || v > NF_CUCKOO_MAX_KICKS_MAX)
			goto range;
		break;
	case NF_CUCKOO_A_HOOK:
		if (v > NF_CUCKOO_HOOK_MAX)
			goto range;
		break;
	case NF_CUCKOO_A_PRIORITY:
		s = (int32_t)(uint32_t)v;
		if (s == INT_MIN || s == INT_MAX)
			goto range;
		break;
	case NF_CUCKOO_A_ACTION:
		if (v > NF_CUCKOO_ACTION_MAX)
			goto range;
		break;
	case NF_CUCKOO_A_BIDIRECTIONAL:
	case NF_CUCKOO_A_INVERT:
	case NF_CUCKOO_A_ENABLED:
	case NF_CUCKOO_A_GROW:
		if (v > 1)
			goto range;
		break;
	case NF_CUCKOO_A_GROW_FACTOR:
		if (v < NF_CUCKOO_GROW_FACTOR_MIN || v > NF_CUCKOO_GROW_FACTOR_MAX)
			goto range;
		break;
	case NF_CUCKOO_A_STAGES_MAX:
		if (v < 1 || v > NF_CUCKOO_STAGES_MAX)
			goto range;
		break;
	case NF_CUCKOO_A_BATCH_FLAGS:
		if (v & ~(uint64_t)NF_CUCKOO_BATCH_F_ALL)
			return req_err(r, a, -EINVAL, "reserved bit set");
		break;
	}
	return 0;
range:
	return req_err(r, a, -ERANGE, "integer out of range");
}

static int check_attr(struct req *r, const struct nlattr *a)
{
	int t = nla_type(a), len = nla_len(a);
	static const int size[] = { [T_U8] = 1, [T_U16] = 2, [T_U32] = 4,
				    [T_U64] = 8 };
	size_t rec;

	if (t > NF_CUCKOO_A_MAX || !(allowed(r->cmd) & (1ULL << t)))
		return req_err(r, a, -EINVAL, "Unknown attribute type");
	switch (attr_type[t]) {
	case T_U8:
	case T_U16:
	case T_U32:
	case T_U64:
		if (len != size[attr_type[t]])
			return req_err(r, a, -EINVAL,
				       "Attribute failed policy validation");
		return check_range(r, t, a);
	case T_STR:
		if (!len || ((const char *)nla_data(a))[len - 1] ||
		    len > NF_CUCKOO_NAME_MAXLEN)
			return req_err(r, a, -EINVAL,
				       "Attribute failed policy validation");
		return 0;
	case T_NEST:
		if (len && len < NLA_HDRLEN)
			return req_err(r, a, -EINVAL,
				       "Attribute failed policy validation");
		return 0;
	}
	switch (t) {
	case NF_CUCKOO_A_IMAGE_HEADER:
		if (len > NF_CUCKOO_IMAGE_HEADER_MAXLEN)
			return req_err(r, a, -EINVAL,
				       "Attribute failed policy validation");
		break;
	case NF_CUCKOO_A_CHUNK_DATA:
		if (len > NF_CUCKOO_CHUNK_MAX)
			return req_err(r, a, -EINVAL,
				       "Attribute failed policy validation");
		if (!len || len % 8)
			return req_err(r, a, -EINVAL,
				       "chunk length must be a non-zero multiple of 8");
		break;
	case NF_CUCKOO_A_ENTRIES_IPV4:
	case NF_CUCKOO_A_ENTRIES_IPV6:
		rec = t == NF_CUCKOO_A_ENTRIES_IPV4 ?
		      sizeof(struct nf_cuckoo_entry_ipv4) :
		      sizeof(struct nf_cuckoo_entry_ipv6);
		if (len > NF_CUCKOO_ENTRIES_PACKED_BYTES)
			return req_err(r, a, -EINVAL,
				       "Attribute failed policy validation");
		if (!len || len % rec)
			return req_err(r, a, -EINVAL,
				       "packed entries must be a non-empty array of whole records");
		break;
	case NF_CUCKOO_A_PREFIXES:
		rec = sizeof(struct nf_cuckoo_prefix_count);
		if ((size_t)len > 2 * NF_CUCKOO_PREFIXES_MAX * rec)
			return req_err(r, a, -EINVAL,
				       "Attribute failed policy validation");
		if (!len || len % rec)
			return req_err(r, a, -EINVAL,
				       "prefixes must be a non-empty array of whole records");
		break;
	}
	return 0;
}

static int parse_req(struct req *r)
{
	struct nlattr *a, *attrs;
	int rem, len, err;

	len = (int)r->nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	if (len < 0)
		return -EINVAL;
	attrs = (struct nlattr *)((uint8_t *)nlmsg_data(r->nlh) + GENL_HDRLEN);
	nla_for_each_attr(a, attrs, len, rem) {
		err = check_attr(r, a);
		if (err)
			return err;
		r->tb[nla_type(a)] = a;
	}
	if (rem > 0)
		return req_err(r, NULL, -EINVAL, "bytes leftover after parsing attributes");
	return 0;
}

static const char *get_name_attr(struct req *r, int type)
{
	const struct nlattr *a = r->tb[type];
	const char *s;
	size_t len, i;

	if (!a) {
		r->msg = type == NF_CUCKOO_A_NAME ?
			 "nf_cuckoo: missing filter name (NF_CUCKOO_A_NAME)" :
			 "nf_cuckoo: missing second filter name (NF_CUCKOO_A_NAME2)";
		r->miss = type;
		return NULL;
	}
	s = nla_data(a);
	len = strnlen(s, NF_CUCKOO_NAME_MAXLEN);
	if (!len || len >= NF_CUCKOO_NAME_MAXLEN) {
		req_err(r, a, 0, "filter name must be 1 to 31 characters");
		return NULL;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!(c < 128 && (c == '_' || c == '.' || c == '-' ||
				  (c >= '0' && c <= '9') ||
				  ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')))) {
			req_err(r, a, 0, "filter name may only hold [A-Za-z0-9_.-]");
			return NULL;
		}
	}
	return s;
}

static const char *get_name(struct req *r)
{
	return get_name_attr(r, NF_CUCKOO_A_NAME);
}

static int lookup_err_attr(struct req *r, int type, int err)
{
	return req_err(r, r->tb[type], err, err == -EBUSY ?
		       "filter is being loaded (restore in progress)" :
		       "no filter of that name in this network namespace");
}

static int lookup_err(struct req *r, int err)
{
	return req_err(r, r->tb[NF_CUCKOO_A_NAME], err, err == -EBUSY ?
		       "filter is being loaded (restore in progress)" :
		       "no filter of that name in this network namespace");
}

static int get_filter(struct req *r, bool loading_ok, struct fake_filter **out)
{
	const char *name = get_name(r);

	if (!name)
		return -EINVAL;
	*out = find(name);
	if (!*out)
		return lookup_err(r, -ENOENT);
	if ((*out)->loading && !loading_ok)
		return lookup_err(r, -EBUSY);
	return 0;
}

static uint32_t a32(const struct nlattr *a, uint32_t dflt)
{
	return a ? (uint32_t)u(a) : dflt;
}

static int check_ifaces_hook(struct req *r, const struct iface_list *l, uint8_t hook);

/* The request's NF_CUCKOO_A_IFACE: nfcf_ifaces_parse(), _hook_ok(). */
static int parse_ifaces(struct req *r, struct fake_cfg *c)
{
	struct nlattr *a, *attrs = (struct nlattr *)((uint8_t *)nlmsg_data(r->nlh) +
						     GENL_HDRLEN);
	int len = (int)r->nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, rem;
	char err[160], msg[200];
	uint8_t hook = (uint8_t)a32(r->tb[NF_CUCKOO_A_HOOK], NF_CUCKOO_HOOK_PREROUTING);

	nla_for_each_attr(a, attrs, len, rem) {
		if (nla_type(a) != NF_CUCKOO_A_IFACE)
			continue;
		if (iface_parse(a, &c->ifs, err, sizeof(err))) {
			snprintf(msg, sizeof(msg), "nf_cuckoo: %s", err);
			return req_err(r, a, -EINVAL, msg);
		}
	}
	return check_ifaces_hook(r, &c->ifs, hook);
}

/* nfcf_ifaces_hook_ok() */
static int check_ifaces_hook(struct req *r, const struct iface_list *l, uint8_t hook)
{
	bool in = false, out = false;
	size_t i;

	for (i = 0; i < l->n; i++) {
		in |= l->dir[i] == NF_CUCKOO_IFACE_IN;
		out |= l->dir[i] == NF_CUCKOO_IFACE_OUT;
	}
	if (in && (hook == NF_CUCKOO_HOOK_OUTPUT || hook == NF_CUCKOO_HOOK_POSTROUTING))
		return req_err(r, NULL, -EINVAL,
			       "nf_cuckoo: iif at the output or postrouting hook: packets there have no input device");
	if (out && (hook == NF_CUCKOO_HOOK_PREROUTING || hook == NF_CUCKOO_HOOK_INPUT))
		return req_err(r, NULL, -EINVAL,
			       "nf_cuckoo: oif at the prerouting or input hook: packets there have no output device yet");
	return 0;
}

static int parse_cfg(struct req *r, struct fake_cfg *c)
{
	struct nlattr **a = r->tb;
	const char *name = get_name(r);
	uint32_t addrs, ports;

	memset(c, 0, sizeof(*c));
	if (!name)
		return -EINVAL;
	snprintf(c->name, sizeof(c->name), "%s", name);
	if (!a[NF_CUCKOO_A_FAMILY]) {
		r->miss = NF_CUCKOO_A_FAMILY;
		return req_err(r, NULL, -EINVAL,
			       "nf_cuckoo: missing address family (NF_CUCKOO_A_FAMILY)");
	}
	c->families = (uint8_t)u(a[NF_CUCKOO_A_FAMILY]);
	c->fields = a32(a[NF_CUCKOO_A_KEY_FIELDS], NF_CUCKOO_KEY_ALL);
	c->bidir = (uint8_t)a32(a[NF_CUCKOO_A_BIDIRECTIONAL], 0);
	c->hook = (uint8_t)a32(a[NF_CUCKOO_A_HOOK], NF_CUCKOO_HOOK_PREROUTING);
	c->priority = (int32_t)a32(a[NF_CUCKOO_A_PRIORITY],
				   (uint32_t)NF_CUCKOO_PRIORITY_DEFAULT);
	c->action = (uint8_t)a32(a[NF_CUCKOO_A_ACTION], NF_CUCKOO_ACTION_DROP);
	c->mark = a32(a[NF_CUCKOO_A_MARK], 0);
	c->mark_mask = a32(a[NF_CUCKOO_A_MARK_MASK], NF_CUCKOO_MARK_MASK_DEFAULT);
	c->invert = (uint8_t)a32(a[NF_CUCKOO_A_INVERT], 0);
	c->enabled = (uint8_t)a32(a[NF_CUCKOO_A_ENABLED], 1);
	if (parse_ifaces(r, c))
		return -EINVAL;
	if (!c->fields)
		return req_err(r, a[NF_CUCKOO_A_KEY_FIELDS], -EINVAL,
			       "key fields must be a non-empty subset of NF_CUCKOO_KEY_ALL");
	addrs = c->fields & (NF_CUCKOO_KEY_SRC_ADDR | NF_CUCKOO_KEY_DST_ADDR);
	ports = c->fields & (NF_CUCKOO_KEY_SRC_PORT | NF_CUCKOO_KEY_DST_PORT);
	if (c->bidir &&
	    ((addrs && addrs != (NF_CUCKOO_KEY_SRC_ADDR | NF_CUCKOO_KEY_DST_ADDR)) ||
	     (ports && ports != (NF_CUCKOO_KEY_SRC_PORT | NF_CUCKOO_KEY_DST_PORT))))
		return req_err(r, a[NF_CUCKOO_A_BIDIRECTIONAL] ?
			       a[NF_CUCKOO_A_BIDIRECTIONAL] : a[NF_CUCKOO_A_KEY_FIELDS],
			       -EINVAL,
			       "bidirectional needs both addresses or neither, and both ports or neither");
	return 0;
}

/* nfcf_parse_cfg(): how the filter grows. */
static struct cf_grow parse_grow(struct req *r)
{
	struct nlattr **a = r->tb;

	return (struct cf_grow){
		.grow = a32(a[NF_CUCKOO_A_GROW], 1),
		.factor = (uint8_t)a32(a[NF_CUCKOO_A_GROW_FACTOR],
				       NF_CUCKOO_GROW_FACTOR_DEFAULT),
		.max_stages = (uint8_t)a32(a[NF_CUCKOO_A_STAGES_MAX],
					   NF_CUCKOO_STAGES_DEFAULT),
	};
}

/* ---- commands ---- */

static void fake_event(uint8_t ev, const struct fake_filter *f,
		       uint32_t count);
static void fake_event_swap(const char *name, const char *name2);

static int cmd_new(struct req *r)
{
	struct nlattr **a = r->tb;
	struct cuckoo_filter *cf;
	struct fake_filter *f;
	struct cf_params p = { 0 };
	struct cf_grow g = parse_grow(r);
	struct fake_cfg c;
	int err;

	err = parse_cfg(r, &c);
	if (err)
		return err;
	if (find(c.name))
		return req_err(r, a[NF_CUCKOO_A_NAME], -EEXIST,
			       "a filter of that name exists in this network namespace");
	if (a[NF_CUCKOO_A_FP_BITS] && a[NF_CUCKOO_A_FPR])
		return req_err(r, a[NF_CUCKOO_A_FPR], -EINVAL,
			       "give fingerprint bits or a false-positive rate, not both");
	p.capacity = a[NF_CUCKOO_A_CAPACITY] ? u(a[NF_CUCKOO_A_CAPACITY]) :
		     NF_CUCKOO_CAPACITY_DEFAULT;
	p.fpr_ppb = a32(a[NF_CUCKOO_A_FPR], 0);
	p.fp_bits = (uint8_t)a32(a[NF_CUCKOO_A_FP_BITS],
				 p.fpr_ppb ? 0 : NF_CUCKOO_FP_BITS_DEFAULT);
	p.bucket_size = (uint8_t)a32(a[NF_CUCKOO_A_BUCKET_SIZE],
				     NF_CUCKOO_BUCKET_SIZE_DEFAULT);
	if (p.bucket_size & (p.bucket_size - 1))
		return req_err(r, a[NF_CUCKOO_A_BUCKET_SIZE], -EINVAL,
			       "bucket size must be 2, 4 or 8");
	/* nfcf_parse_params(): semi-sorted for a rate wherever b = 4. */
	if (a[NF_CUCKOO_A_ENCODING])
		p.encoding = (uint8_t)a32(a[NF_CUCKOO_A_ENCODING], 0);
	else if (p.fpr_ppb && p.bucket_size == CF_SEMISORT_BUCKET_SIZE)
		p.encoding = CF_ENC_SEMISORT;
	if (p.encoding == CF_ENC_SEMISORT &&
	    p.bucket_size != CF_SEMISORT_BUCKET_SIZE)
		return req_err(r, a[NF_CUCKOO_A_ENCODING], -EINVAL,
			       "semi-sorted buckets need bucket size 4");
	p.max_kicks = (uint16_t)a32(a[NF_CUCKOO_A_MAX_KICKS],
				    NF_CUCKOO_MAX_KICKS_DEFAULT);
	if (a[NF_CUCKOO_A_SEED])
		p.seed = u(a[NF_CUCKOO_A_SEED]);
	else if (new_seed(&p.seed))
		return req_err(r, NULL, -EIO,
			       "no random seed for the filter (getrandom() failed): give one with seed S");
	p.lent_scratch = true;	/* NFCF_LENT_SCRATCH */
	err = cf_params_resolve(&p);
	if (err && !p.fp_bits)
		return req_err(r, a[NF_CUCKOO_A_FPR], err,
			       "false-positive rate below what 32-bit fingerprints give with this bucket size");
	if (err)
		return req_err(r, a[NF_CUCKOO_A_CAPACITY], err,
			       "no table of this geometry can hold that capacity");
	if (cf_params_bytes(&p) > mem_max())
		return req_err(r, a[NF_CUCKOO_A_CAPACITY], -EDQUOT,
			       "filter would exceed the network namespace's memory ceiling (netns_mem_max_mb)");
	f = calloc(1, sizeof(*f));
	if (!f || cf_create(&cf, &p)) {
		free(f);
		return req_err(r, NULL, -ENOMEM,
			       "nf_cuckoo: cannot allocate the filter's memory");
	}
	cf_stages_init(&f->st, cf, &g, NULL);
	f->c = c;
	f->c.id = new_id();
	insert(f);
	fake_event(NF_CUCKOO_EVENT_NEW, f, 0);
	return 0;
}

/* nfcf_put_prefixes() */
static void put_prefixes(struct nl_msg *m, const struct fake_filter *f)
{
	struct nf_cuckoo_prefix_count pc[2 * NF_CUCKOO_PREFIXES_MAX];
	unsigned int fi, i, n = 0;

	for (fi = 0; fi < 2; fi++)
		for (i = 0; i < f->c.ncombo[fi]; i++)
			if (f->c.combo[fi][i].count)
				pc[n++] = (struct nf_cuckoo_prefix_count){
					.family = fi ? NF_CUCKOO_FAMILY_IPV6 :
						       NF_CUCKOO_FAMILY_IPV4,
					.src_plen = f->c.combo[fi][i].s,
					.dst_plen = f->c.combo[fi][i].d,
					.count = f->c.combo[fi][i].count,
				};
	if (n)
		nla_put(m, NF_CUCKOO_A_PREFIXES, (int)(n * sizeof(pc[0])), pc);
}

/* nfcf_put_stage() */
static void put_stage(struct nl_msg *m, const struct cuckoo_filter *cf)
{
	struct nlattr *n = nla_nest_start(m, NF_CUCKOO_A_STAGE);
	struct cf_params p;
	struct cf_stats st;

	cf_get_params(cf, &p);
	cf_get_stats(cf, &st);
	nla_put_u64(m, NF_CUCKOO_STAGE_A_CAPACITY, p.capacity);
	nla_put_u64(m, NF_CUCKOO_STAGE_A_ITEMS, st.count);
	nla_put_u32(m, NF_CUCKOO_STAGE_A_LOAD_PPM, st.load_ppm);
	nla_put_u8(m, NF_CUCKOO_STAGE_A_FP_BITS, p.fp_bits);
	nla_put_u64(m, NF_CUCKOO_STAGE_A_BYTES, st.bytes);
	nla_put_u32(m, NF_CUCKOO_STAGE_A_FPR,
		    cf_fpr_bound_ppb(p.fp_bits, p.bucket_size));
	nla_put_u8(m, NF_CUCKOO_STAGE_A_VICTIM, st.victim);
	nla_nest_end(m, n);
}

/* nfcf_put_filter(): the geometry is the first stage's. */
static void put_filter(struct nl_msg *m, const struct fake_filter *f,
		       bool stats)
{
	struct cf_params p;
	struct cf_stats st;
	struct nlattr *n;
	uint32_t i;

	cf_get_params(cf_stages_first(&f->st), &p);
	nla_put_string(m, NF_CUCKOO_A_NAME, f->c.name);
	nla_put_u32(m, NF_CUCKOO_A_ID, f->c.id);
	nla_put_u8(m, NF_CUCKOO_A_FAMILY, f->c.families);
	nla_put_u32(m, NF_CUCKOO_A_KEY_FIELDS, f->c.fields);
	nla_put_u64(m, NF_CUCKOO_A_CAPACITY, p.capacity);
	nla_put_u8(m, NF_CUCKOO_A_FP_BITS, p.fp_bits);
	nla_put_u32(m, NF_CUCKOO_A_FPR,
		    cf_fpr_bound_ppb(p.fp_bits, p.bucket_size));
	nla_put_u8(m, NF_CUCKOO_A_BUCKET_SIZE, p.bucket_size);
	nla_put_u8(m, NF_CUCKOO_A_ENCODING, p.encoding);
	nla_put_u16(m, NF_CUCKOO_A_MAX_KICKS, p.max_kicks);
	nla_put_u8(m, NF_CUCKOO_A_HOOK, f->c.hook);
	nla_put_u32(m, NF_CUCKOO_A_PRIORITY, (uint32_t)f->c.priority);
	for (i = 0; i < f->c.ifs.n; i++) {
		struct nlattr *nest = nla_nest_start(m, NF_CUCKOO_A_IFACE);

		nla_put_string(m, NF_CUCKOO_IFACE_A_NAME, f->c.ifs.name[i]);
		nla_put_u8(m, NF_CUCKOO_IFACE_A_DIR, f->c.ifs.dir[i]);
		nla_nest_end(m, nest);
	}
	nla_put_u8(m, NF_CUCKOO_A_BIDIRECTIONAL, f->c.bidir);
	nla_put_u8(m, NF_CUCKOO_A_LOADING, f->loading);
	nla_put_u8(m, NF_CUCKOO_A_ACTION, f->c.action);
	nla_put_u32(m, NF_CUCKOO_A_MARK, f->c.mark);
	nla_put_u32(m, NF_CUCKOO_A_MARK_MASK, f->c.mark_mask);
	nla_put_u8(m, NF_CUCKOO_A_INVERT, f->c.invert);
	nla_put_u8(m, NF_CUCKOO_A_ENABLED, f->c.enabled);
	put_prefixes(m, f);
	nla_put_u8(m, NF_CUCKOO_A_GROW, f->st.g.grow);
	nla_put_u8(m, NF_CUCKOO_A_GROW_FACTOR, f->st.g.factor);
	nla_put_u8(m, NF_CUCKOO_A_STAGES_MAX, f->st.g.max_stages);
	if (!stats)
		return;
	cf_stages_stats(&f->st, &st);
	n = nla_nest_start(m, NF_CUCKOO_A_STATS);
	nla_put_u64(m, NF_CUCKOO_STATS_A_ITEMS, st.count);
	nla_put_u32(m, NF_CUCKOO_STATS_A_LOAD_PPM, st.load_ppm);
	nla_put_u64(m, NF_CUCKOO_STATS_A_BYTES, st.bytes);
	nla_put_u64(m, NF_CUCKOO_STATS_A_TABLE_BYTES, st.table_bytes);
	nla_put_u64(m, NF_CUCKOO_STATS_A_SLOTS, st.slots);
	nla_put_u64(m, NF_CUCKOO_STATS_A_NBUCKETS, st.nbuckets);
	nla_put_u8(m, NF_CUCKOO_STATS_A_VICTIM, st.victim);
	nla_put_u64(m, NF_CUCKOO_STATS_A_PKT_LOOKUPS, 0);
	nla_put_u64(m, NF_CUCKOO_STATS_A_PKT_MATCHES, 0);
	nla_put_u64(m, NF_CUCKOO_STATS_A_PKT_DROPPED, 0);
	nla_put_u64(m, NF_CUCKOO_STATS_A_PKT_MARKED, 0);
	nla_put_u64(m, NF_CUCKOO_STATS_A_XDP_LOOKUPS, 0);
	nla_put_u64(m, NF_CUCKOO_STATS_A_XDP_MATCHES, 0);
	nla_put_u64(m, NF_CUCKOO_STATS_A_TC_LOOKUPS, 0);
	nla_put_u64(m, NF_CUCKOO_STATS_A_TC_MATCHES, 0);
	nla_put_u64(m, NF_CUCKOO_STATS_A_RULE_LOOKUPS, 0);
	nla_put_u64(m, NF_CUCKOO_STATS_A_RULE_MATCHES, 0);
	nla_nest_end(m, n);
	for (i = 0; i < f->st.n; i++)
		put_stage(m, f->st.stage[i]);
	nla_put_u32(m, NF_CUCKOO_A_FPR_TOTAL, cf_stages_fpr_ppb(&f->st));
}

/* ---- events (kmod/events.c) ---- */

/* Is event number seq in $CFCTL_FAKE_EVENTS_DROP? */
static bool event_dropped(uint32_t seq)
{
	const char *s = getenv("CFCTL_FAKE_EVENTS_DROP");
	char *end;

	while (s && *s) {
		if (strtoul(s, &end, 10) == seq)
			return true;
		s = *end ? end + 1 : end;
	}
	return false;
}

/*
 * Append an event about f to $CFCTL_FAKE_EVENTS: described (NEW, SET,
 * RESTORE) or named, with EVENT_COUNT if count, and for LOAD_HIGH stage 0.
 * Its number is one more than the messages the file holds.
 */
/* The events file, and the number of the next event in it; NULL: none. */
static FILE *event_open(uint32_t *seq)
{
	const char *path = fk.offline ? NULL : getenv("CFCTL_FAKE_EVENTS");
	struct nlmsghdr h;
	FILE *fp;

	*seq = 1;
	if (!path)
		return NULL;
	fp = fopen(path, "a+b");
	if (!fp)
		return NULL;
	rewind(fp);
	while (fread(&h, sizeof(h), 1, fp) == 1 &&
	       h.nlmsg_len >= sizeof(h) &&
	       !fseek(fp, (long)(NLMSG_ALIGN(h.nlmsg_len) - sizeof(h)), SEEK_CUR))
		(*seq)++;
	return fp;
}

static struct nl_msg *event_msg(uint32_t seq, uint8_t ev)
{
	struct nl_msg *m = nlmsg_alloc_size(4096);

	if (!m)
		abort();
	genlmsg_put(m, 0, seq, FAKE_FAMILY, 0, 0, NF_CUCKOO_CMD_EVENT,
		    NF_CUCKOO_GENL_VERSION);
	nla_put_u8(m, NF_CUCKOO_A_EVENT, ev);
	return m;
}

static void event_close(FILE *fp, uint32_t seq, struct nl_msg *m)
{
	if (event_dropped(seq))
		nlmsg_hdr(m)->nlmsg_type = NLMSG_NOOP;
	fseek(fp, 0, SEEK_END);
	fwrite(nlmsg_hdr(m), NLMSG_ALIGN(nlmsg_hdr(m)->nlmsg_len), 1, fp);
	fclose(fp);
	nlmsg_free(m);
}

static void fake_event(uint8_t ev, const struct fake_filter *f,
		       uint32_t count)
{
	struct nl_msg *m;
	uint32_t seq;
	FILE *fp = event_open(&seq);

	if (!fp)
		return;
	m = event_msg(seq, ev);
	if (ev == NF_CUCKOO_EVENT_NEW || ev == NF_CUCKOO_EVENT_SET ||
	    ev == NF_CUCKOO_EVENT_RESTORE) {
		put_filter(m, f, false);
	} else {
		nla_put_string(m, NF_CUCKOO_A_NAME, f->c.name);
		if (ev == NF_CUCKOO_EVENT_LOAD_HIGH ||
		    ev == NF_CUCKOO_EVENT_STAGE) {
			/* count: the stage's index */
			nla_put_u8(m, NF_CUCKOO_A_STAGE_INDEX, (uint8_t)count);
			put_stage(m, f->st.stage[count]);
		} else if (count) {
			nla_put_u32(m, NF_CUCKOO_A_EVENT_COUNT, count);
		}
	}
	event_close(fp, seq, m);
}

/* nfcf_event_swap(): the names as the request gave them. */
static void fake_event_swap(const char *name, const char *name2)
{
	struct nl_msg *m;
	uint32_t seq;
	FILE *fp = event_open(&seq);

	if (!fp)
		return;
	m = event_msg(seq, NF_CUCKOO_EVENT_SWAP);
	nla_put_string(m, NF_CUCKOO_A_NAME, name);
	nla_put_string(m, NF_CUCKOO_A_NAME2, name2);
	event_close(fp, seq, m);
}

/*
 * nfcf_event_batch(): STAGE for each stage the batch made, ADD or
 * DEL_ENTRIES, FULL, LOAD_HIGH of the newest stage (@before: its items
 * before the batch, if it was newest then).
 */
static void fake_event_batch(struct req *r, const struct fake_filter *f,
			     uint32_t done, uint32_t why, uint32_t stages,
			     uint64_t before)
{
	const struct cuckoo_filter *newest = f->st.stage[f->st.n - 1];
	bool add = r->cmd == NF_CUCKOO_CMD_ADD_ENTRIES;
	struct cf_params p;
	uint64_t mark;
	uint32_t i;

	for (i = stages; add && i < f->st.n; i++)
		fake_event(NF_CUCKOO_EVENT_STAGE, f, i);
	if (stages != f->st.n)
		before = 0;
	if (done)
		fake_event(add ? NF_CUCKOO_EVENT_ADD :
				 NF_CUCKOO_EVENT_DEL_ENTRIES, f, done);
	if (!add)
		return;
	if (why == NF_CUCKOO_ENTRY_E_FULL || why == NF_CUCKOO_ENTRY_E_QUOTA)
		fake_event(NF_CUCKOO_EVENT_FULL, f, 0);
	cf_get_params(newest, &p);
	mark = p.capacity * NF_CUCKOO_LOAD_HIGH_PPM;
	if (before * 1000000 < mark && cf_count(newest) * 1000000 >= mark)
		fake_event(NF_CUCKOO_EVENT_LOAD_HIGH, f, f->st.n - 1);
}

static int cmd_get(struct req *r, bool dump)
{
	struct fake_filter *f;
	struct nl_msg *m;
	int err;

	if (dump) {
		for (f = fk.filters; f; f = f->next) {
			m = reply(r, NF_CUCKOO_CMD_GET, NLM_F_MULTI, 4096);
			put_filter(m, f, true);
			queue_msg(m, true);
		}
		return 0;
	}
	err = get_filter(r, true, &f);
	if (err)
		return err;
	m = reply(r, NF_CUCKOO_CMD_GET, 0, 4096);
	put_filter(m, f, true);
	queue_msg(m, false);
	return 0;
}

static int cmd_del(struct req *r)
{
	struct fake_filter *f;
	int err = get_filter(r, true, &f);

	if (err)
		return err;
	if (!f->loading)
		fake_event(NF_CUCKOO_EVENT_DEL, f, 0);
	unlink_filter(f);
	return 0;
}

/* nfcf_cmd_swap(): the names change, nothing else. */
static int cmd_swap(struct req *r)
{
	static const int types[2] = { NF_CUCKOO_A_NAME, NF_CUCKOO_A_NAME2 };
	struct fake_filter *f[2];
	char tmp[NF_CUCKOO_NAME_MAXLEN];
	const char *names[2];
	uint32_t id;
	int i;

	for (i = 0; i < 2; i++) {
		names[i] = get_name_attr(r, types[i]);
		if (!names[i])
			return -EINVAL;
	}
	if (!strcmp(names[0], names[1]))
		return req_err(r, r->tb[NF_CUCKOO_A_NAME2], -EINVAL,
			       "cannot swap a filter with itself");
	for (i = 0; i < 2; i++) {
		f[i] = find(names[i]);
		if (!f[i] || f[i]->loading)
			return lookup_err_attr(r, types[i],
					       f[i] ? -EBUSY : -ENOENT);
	}
	memcpy(tmp, f[0]->c.name, sizeof(tmp));
	memcpy(f[0]->c.name, f[1]->c.name, sizeof(tmp));
	memcpy(f[1]->c.name, tmp, sizeof(tmp));
	/* The id goes with the name, as in the module. */
	id = f[0]->c.id;
	f[0]->c.id = f[1]->c.id;
	f[1]->c.id = id;
	fake_event_swap(names[0], names[1]);
	return 0;
}

static int cmd_set(struct req *r)
{
	struct nlattr **a = r->tb;
	struct fake_filter *f;
	int err = get_filter(r, false, &f);

	if (err)
		return err;
	if (!a[NF_CUCKOO_A_ACTION] && !a[NF_CUCKOO_A_MARK] &&
	    !a[NF_CUCKOO_A_MARK_MASK] && !a[NF_CUCKOO_A_INVERT] &&
	    !a[NF_CUCKOO_A_ENABLED] && !a[NF_CUCKOO_A_GROW] &&
	    !a[NF_CUCKOO_A_HOOK] && !a[NF_CUCKOO_A_PRIORITY])
		return req_err(r, NULL, -EINVAL,
			       "nf_cuckoo: nothing to change: give ACTION, MARK, MARK_MASK, INVERT, ENABLED, GROW, HOOK or PRIORITY");
	f->st.g.grow = a32(a[NF_CUCKOO_A_GROW], f->st.g.grow);
	f->c.action = (uint8_t)a32(a[NF_CUCKOO_A_ACTION], f->c.action);
	f->c.mark = a32(a[NF_CUCKOO_A_MARK], f->c.mark);
	f->c.mark_mask = a32(a[NF_CUCKOO_A_MARK_MASK], f->c.mark_mask);
	f->c.invert = (uint8_t)a32(a[NF_CUCKOO_A_INVERT], f->c.invert);
	f->c.enabled = (uint8_t)a32(a[NF_CUCKOO_A_ENABLED], f->c.enabled);
	if (a[NF_CUCKOO_A_HOOK] &&
	    check_ifaces_hook(r, &f->c.ifs, (uint8_t)u(a[NF_CUCKOO_A_HOOK])))
		return -EINVAL;
	f->c.hook = (uint8_t)a32(a[NF_CUCKOO_A_HOOK], f->c.hook);
	f->c.priority = (int32_t)a32(a[NF_CUCKOO_A_PRIORITY], (uint32_t)f->c.priority);
	fake_event(NF_CUCKOO_EVENT_SET, f, 0);
	return 0;
}

static int cmd_flush(struct req *r)
{
	struct fake_filter *f;
	int err = get_filter(r, false, &f);

	struct cuckoo_filter *gone[CF_STAGES_MAX - 1];
	uint32_t n;

	if (!err) {
		/* nfcf_filter_flush(): back to the first stage. */
		n = cf_stages_flush(&f->st, gone);
		while (n)
			cf_free(gone[--n]);
		f->c.ncombo[0] = f->c.ncombo[1] = 0;
		fake_event(NF_CUCKOO_EVENT_FLUSH, f, 0);
	}
	return err;
}

/* nfcf_flowkey_finish() */
static void key_finish(struct nf_cuckoo_flow_key *k, const struct fake_cfg *c)
{
	uint32_t f = c->fields;
	int cmp;

	if (!(f & NF_CUCKOO_KEY_SRC_ADDR)) {
		memset(k->src, 0, sizeof(k->src));
		k->src_plen = 0;
	}
	if (!(f & NF_CUCKOO_KEY_DST_ADDR)) {
		memset(k->dst, 0, sizeof(k->dst));
		k->dst_plen = 0;
	}
	if (!(f & (NF_CUCKOO_KEY_SRC_ADDR | NF_CUCKOO_KEY_DST_ADDR)))
		k->family = 0;
	if (!(f & NF_CUCKOO_KEY_SRC_PORT))
		k->sport = 0;
	if (!(f & NF_CUCKOO_KEY_DST_PORT))
		k->dport = 0;
	if (!(f & NF_CUCKOO_KEY_PROTO))
		k->proto = 0;
	cmp = memcmp(k->src, k->dst, sizeof(k->src));
	if (c->bidir && (cmp > 0 || (!cmp && ntohs(k->sport) > ntohs(k->dport)))) {
		uint32_t a[4];
		uint16_t p;

		memcpy(a, k->src, sizeof(a));
		memcpy(k->src, k->dst, sizeof(a));
		memcpy(k->dst, a, sizeof(a));
		p = k->sport;
		k->sport = k->dport;
		k->dport = p;
		p = k->src_plen;
		k->src_plen = k->dst_plen;
		k->dst_plen = (uint8_t)p;
	}
}

/* nfcf_addr_mask() */
static void addr_mask(uint32_t *a, unsigned int plen)
{
	unsigned int i;

	for (i = 0; i < 4; i++, plen = plen > 32 ? plen - 32 : 0) {
		if (plen >= 32)
			continue;
		a[i] &= plen ? htonl(~0U << (32 - plen)) : 0;
	}
}

/* nfcf_entry_plen(): 0, or the errno with the ext-ack set. */
static int entry_plen(struct req *r, const struct nf_cuckoo_flow_key *k,
		      const uint32_t *addr, uint8_t *out, unsigned int plen,
		      uint32_t field, const struct fake_cfg *c,
		      const struct nlattr *at)
{
	unsigned int bits = k->family == NF_CUCKOO_FAMILY_IPV4 ? 32 : 128;
	uint32_t m[4];

	*out = 0;
	if (!plen || plen == bits)
		return 0;
	if (plen > bits)
		return req_err(r, at, -ERANGE,
			       "prefix length past the end of the address (IPv4: 32, IPv6: 128)");
	if (!(c->fields & field))
		return req_err(r, at, -EINVAL,
			       "prefix length on an address the filter's key does not hold");
	if (c->bidir)
		return req_err(r, at, -EINVAL,
			       "a bidirectional filter holds no prefixes");
	memcpy(m, addr, sizeof(m));
	addr_mask(m, plen);
	if (memcmp(m, addr, sizeof(m)))
		return req_err(r, at, -EINVAL,
			       "address has bits set past its prefix length");
	*out = (uint8_t)plen;
	return 0;
}

/* nfcf_flowkey_prefix() */
static void key_prefix(struct nf_cuckoo_flow_key *k, uint8_t s, uint8_t d)
{
	if (s)
		addr_mask(k->src, s);
	if (d)
		addr_mask(k->dst, d);
	k->src_plen = s;
	k->dst_plen = d;
}

#define FAM_IDX(family)	((family) == NF_CUCKOO_FAMILY_IPV6)

static struct fake_combo *combo_find(struct fake_cfg *c,
				     const struct nf_cuckoo_flow_key *k)
{
	unsigned int fi = FAM_IDX(k->family), i;

	for (i = 0; i < c->ncombo[fi]; i++)
		if (c->combo[fi][i].s == k->src_plen &&
		    c->combo[fi][i].d == k->dst_plen)
			return &c->combo[fi][i];
	return NULL;
}

/* nfcf_combo_get() */
static int combo_get(struct fake_cfg *c, const struct nf_cuckoo_flow_key *k,
		     struct fake_combo **out)
{
	unsigned int fi = FAM_IDX(k->family);

	*out = combo_find(c, k);
	if (*out)
		return 0;
	if (c->ncombo[fi] == NF_CUCKOO_PREFIXES_MAX)
		return -EOVERFLOW;
	*out = &c->combo[fi][c->ncombo[fi]++];
	**out = (struct fake_combo){ .s = k->src_plen, .d = k->dst_plen };
	return 0;
}

static void combo_count(struct fake_cfg *c, const struct nf_cuckoo_flow_key *k,
			int delta)
{
	struct fake_combo *x;

	if (!k->src_plen && !k->dst_plen)
		return;
	x = combo_find(c, k);
	if (!x)
		abort();
	x->count += (uint32_t)delta;
}

/* nfcf_combo_retire() */
static void combo_retire(struct fake_cfg *c)
{
	unsigned int fi, i, j;

	for (fi = 0; fi < 2; fi++) {
		for (i = j = 0; i < c->ncombo[fi]; i++)
			if (c->combo[fi][i].count)
				c->combo[fi][j++] = c->combo[fi][i];
		c->ncombo[fi] = (uint8_t)j;
	}
}

/* nfcf_filter_lookup(): a key of full addresses, and each prefix. */
static bool lookup(struct fake_filter *f, const struct nf_cuckoo_flow_key *k)
{
	struct nf_cuckoo_flow_key keys[CF_ANY_MAX];
	unsigned int fi = FAM_IDX(k->family), n, i = 0, m = 1;

	if (k->src_plen || k->dst_plen || !k->family || !f->c.ncombo[fi])
		return cf_stages_contains(&f->st, k, sizeof(*k));
	n = f->c.ncombo[fi];
	keys[0] = *k;
	for (;;) {
		for (; m < CF_ANY_MAX && i < n; m++, i++) {
			keys[m] = *k;
			key_prefix(&keys[m], f->c.combo[fi][i].s,
				   f->c.combo[fi][i].d);
		}
		if (cf_stages_contains_any(&f->st, keys, sizeof(*k), m))
			return true;
		if (i == n)
			return false;
		m = 0;
	}
}

struct batch {
	struct nf_cuckoo_flow_key *keys;
	const struct nlattr **where;	/* the attribute of each entry */
	uint8_t *bits;
	uint8_t *stage_of;		/* the stage of each entry applied */
	uint32_t n, done, skipped, hits, fail_index, why;
};

/* Entries of one packed attribute into b->keys[b->n...]. */
static int batch_packed(struct req *r, struct batch *b, const struct nlattr *a,
			const struct fake_filter *f)
{
	bool v4 = nla_type(a) == NF_CUCKOO_A_ENTRIES_IPV4;
	size_t rec = v4 ? sizeof(struct nf_cuckoo_entry_ipv4) :
		     sizeof(struct nf_cuckoo_entry_ipv6);
	uint8_t fam = v4 ? NF_CUCKOO_FAMILY_IPV4 : NF_CUCKOO_FAMILY_IPV6;
	size_t i, n = (size_t)nla_len(a) / rec;
	const uint8_t *p = nla_data(a);

	for (i = 0; i < n; i++, p += rec) {
		struct nf_cuckoo_flow_key *k = &b->keys[b->n];
		uint8_t pad, sp, dp;
		int err;

		if (!(fam & f->c.families)) {
			b->fail_index = b->n;
			b->why = NF_CUCKOO_ENTRY_E_FAMILY;
			return req_err(r, a, -EAFNOSUPPORT,
				       "entry's family is not one the filter holds");
		}
		memset(k, 0, sizeof(*k));
		if (v4) {
			struct nf_cuckoo_entry_ipv4 e;

			memcpy(&e, p, sizeof(e));
			k->src[0] = e.src;
			k->dst[0] = e.dst;
			k->sport = e.sport;
			k->dport = e.dport;
			k->proto = e.proto;
			sp = e.src_plen;
			dp = e.dst_plen;
			pad = e.pad;
		} else {
			struct nf_cuckoo_entry_ipv6 e;

			memcpy(&e, p, sizeof(e));
			memcpy(k->src, e.src, sizeof(k->src));
			memcpy(k->dst, e.dst, sizeof(k->dst));
			k->sport = e.sport;
			k->dport = e.dport;
			k->proto = e.proto;
			sp = e.src_plen;
			dp = e.dst_plen;
			pad = e.pad;
		}
		if (pad) {
			b->fail_index = b->n;
			b->why = NF_CUCKOO_ENTRY_E_MALFORMED;
			return req_err(r, a, -EINVAL,
				       "packed entry's padding is not zero");
		}
		k->family = fam;
		err = entry_plen(r, k, k->src, &k->src_plen, sp,
				 NF_CUCKOO_KEY_SRC_ADDR, &f->c, a);
		if (!err)
			err = entry_plen(r, k, k->dst, &k->dst_plen, dp,
					 NF_CUCKOO_KEY_DST_ADDR, &f->c, a);
		if (err) {
			b->fail_index = b->n;
			b->why = NF_CUCKOO_ENTRY_E_MALFORMED;
			return err;
		}
		key_finish(k, &f->c);
		b->where[b->n++] = a;
	}
	return 0;
}

/* nfcf_errno_to_why() */
static int batch_errno_why(int err)
{
	return err == -ENOSPC ? NF_CUCKOO_ENTRY_E_FULL :
	       err == -ENOENT ? NF_CUCKOO_ENTRY_E_NOENT :
	       err == -EOVERFLOW ? NF_CUCKOO_ENTRY_E_PREFIXES :
	       err == -ENOTUNIQ ? NF_CUCKOO_ENTRY_E_AMBIGUOUS :
	       err == -EDQUOT ? NF_CUCKOO_ENTRY_E_QUOTA :
	       err == -ENOMEM ? NF_CUCKOO_ENTRY_E_FULL :
				NF_CUCKOO_ENTRY_E_MALFORMED;
}

/*
 * nfcf_filter_new_stage(): a new stage, charged to the ceiling with the
 * filter's other stages before it is made.
 */
static int new_stage(void *ctx, const struct cf_params *p,
		     struct cuckoo_filter **out)
{
	struct fake_filter *f = ctx;
	uint64_t held = 0;
	uint32_t i;

	for (i = 0; i < f->st.n; i++)
		held += cf_bytes(f->st.stage[i]);
	if (held > mem_max() || cf_params_bytes(p) > mem_max() - held)
		return -EDQUOT;
	return cf_create(out, p);
}

/*
 * nfcf_batch_one(): 1 if skipped, 0 if applied, or the error; the same
 * core calls, so that a table built here is the kernel's to the bit.
 */
static int batch_one(struct fake_filter *f,
		     const struct nf_cuckoo_flow_key *k, uint32_t flags,
		     bool del, uint8_t *stage)
{
	bool prefix = k->src_plen || k->dst_plen;
	struct fake_combo *c = NULL;
	const size_t kl = sizeof(*k);
	uint32_t at = 0;
	int err;

	if (del) {
		if (prefix)
			c = combo_find(&f->c, k);
		if (prefix && (!c || !c->count))
			err = -ENOENT;
		else
			err = cf_stages_delete(&f->st, k, kl, &at);
		*stage = (uint8_t)at;
		if (err == -ENOTUNIQ && (flags & NF_CUCKOO_BATCH_F_AMBIGUOUS_OK))
			return 1;
		if (err == -ENOENT && (flags & NF_CUCKOO_BATCH_F_MISSING_OK))
			return 1;
		if (!err && c)
			c->count--;
		return err;
	}
	if (prefix) {
		err = combo_get(&f->c, k, &c);
		if (err)
			return err;
	}
	/* A prefix whose combination counts no entry is not in the table. */
	err = cf_stages_add(&f->st, k, kl,
			    (flags & NF_CUCKOO_BATCH_F_UNIQUE) && !(c && !c->count),
			    new_stage, f, &at);
	*stage = (uint8_t)at;
	if (!err && c)
		c->count++;
	return err == -EEXIST ? 1 : err;
}

/* nfcf_filter_batch(): all or nothing, with the stages' scratch lent. */
static int batch_run(struct req *r, struct batch *b, struct fake_filter *f,
		     uint32_t flags, bool del)
{
	const size_t kl = sizeof(struct nf_cuckoo_flow_key);
	uint32_t i, j;
	int err = 0;

	for (i = 0; i < b->n; i++) {
		err = batch_one(f, &b->keys[i], flags, del, &b->stage_of[i]);
		if (err > 0) {
			b->skipped++;
			err = 0;
			continue;
		}
		if (err)
			break;
		b->bits[i / 8] |= (uint8_t)(1 << (i % 8));
		b->done++;
	}
	if (!err) {
		combo_retire(&f->c);
		return 0;
	}
	b->fail_index = i;
	b->why = (uint32_t)batch_errno_why(err);
	b->skipped = 0;
	for (j = i; j-- > 0;) {
		if (!(b->bits[j / 8] & (1 << (j % 8))))
			continue;
		/* nfcf_batch_undo(): exact, in the stage of each entry */
		if (del ? cf_stages_add_at(&f->st, b->stage_of[j], &b->keys[j],
					   kl) :
			  cf_stages_delete_at(&f->st, b->stage_of[j],
					      &b->keys[j], kl)) {
			combo_retire(&f->c);
			return req_err(r, b->where[i], -EUCLEAN,
				       "entry failed and the batch could not be fully undone: BATCH_DONE entries remain");
		}
		combo_count(&f->c, &b->keys[j], del ? 1 : -1);
		b->done--;
	}
	combo_retire(&f->c);
	/* nfcf_batch_errmsg() */
	if (err == -ENOMEM)
		return req_err(r, b->where[i], err, "out of memory: batch undone");
	if (b->why == NF_CUCKOO_ENTRY_E_FULL)
		return req_err(r, b->where[i], err, "filter is full: batch undone");
	if (b->why == NF_CUCKOO_ENTRY_E_PREFIXES)
		return req_err(r, b->where[i], err,
			       "more than NF_CUCKOO_PREFIXES_MAX combinations of prefix lengths of the entry's family: batch undone");
	if (b->why == NF_CUCKOO_ENTRY_E_AMBIGUOUS)
		return req_err(r, b->where[i], err,
			       "entry is in more than one stage and its own copy cannot be told: not deleted (flush and add again to remove it): batch undone");
	if (b->why == NF_CUCKOO_ENTRY_E_QUOTA)
		return req_err(r, b->where[i], err,
			       "filter is full and a new stage would exceed the network namespace's memory ceiling (netns_mem_max_mb): batch undone");
	return req_err(r, b->where[i], err,
		       "entry is not in the filter: batch undone");
}

static int batch_apply(struct req *r, struct batch *b, struct fake_filter *f,
		       uint32_t flags, bool del)
{
	void *scratch = malloc(cf_stages_scratch_bytes(&f->st));
	int err;

	if (!scratch)
		return req_err(r, NULL, -ENOMEM, "out of memory: batch undone");
	cf_stages_lend_scratch(&f->st, scratch);
	err = batch_run(r, b, f, flags, del);
	cf_stages_lend_scratch(&f->st, NULL);
	free(scratch);
	return err;
}

static int cmd_entries(struct req *r)
{
	struct nlattr *a, *attrs = (struct nlattr *)((uint8_t *)nlmsg_data(r->nlh) +
						     GENL_HDRLEN);
	int len = (int)r->nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	const struct nlattr *fa = r->tb[NF_CUCKOO_A_BATCH_FLAGS];
	uint32_t flags = a32(fa, 0), count = 0, allowed_f;
	struct batch b = { 0 };
	struct fake_filter *f;
	struct nl_msg *m;
	int rem, err;

	allowed_f = r->cmd == NF_CUCKOO_CMD_ADD_ENTRIES ? NF_CUCKOO_BATCH_F_UNIQUE :
		    NF_CUCKOO_BATCH_F_MISSING_OK | NF_CUCKOO_BATCH_F_AMBIGUOUS_OK;
	if (flags & ~allowed_f)
		return req_err(r, fa, -EINVAL, "batch flag not valid for this command");
	nla_for_each_attr(a, attrs, len, rem) {
		if (nla_type(a) == NF_CUCKOO_A_ENTRY)
			return req_err(r, a, -EOPNOTSUPP,
				       "fake: nested entries are not modelled");
		if (nla_type(a) == NF_CUCKOO_A_ENTRIES_IPV4)
			count += (uint32_t)nla_len(a) /
				 sizeof(struct nf_cuckoo_entry_ipv4);
		else if (nla_type(a) == NF_CUCKOO_A_ENTRIES_IPV6)
			count += (uint32_t)nla_len(a) /
				 sizeof(struct nf_cuckoo_entry_ipv6);
		if (count > NF_CUCKOO_BATCH_MAX)
			return req_err(r, a, -E2BIG,
				       "more than NF_CUCKOO_BATCH_MAX entries in one message");
	}
	if (!count) {
		r->miss = NF_CUCKOO_A_ENTRY;
		return req_err(r, NULL, -EINVAL,
			       "nf_cuckoo: no entries (NF_CUCKOO_A_ENTRY or NF_CUCKOO_A_ENTRIES_IPV4/6)");
	}
	err = get_filter(r, false, &f);
	if (err)
		return err;
	b.keys = calloc(count, sizeof(*b.keys));
	b.where = calloc(count, sizeof(*b.where));
	b.bits = calloc((count + 7) / 8, 1);
	b.stage_of = calloc(count, 1);
	if (!b.keys || !b.where || !b.bits || !b.stage_of)
		abort();
	nla_for_each_attr(a, attrs, len, rem) {
		if (nla_type(a) != NF_CUCKOO_A_ENTRIES_IPV4 &&
		    nla_type(a) != NF_CUCKOO_A_ENTRIES_IPV6)
			continue;
		err = batch_packed(r, &b, a, f);
		if (err)
			break;
	}
	if (!err && r->cmd == NF_CUCKOO_CMD_TEST_ENTRIES) {
		uint32_t i;

		for (i = 0; i < b.n; i++)
			if (lookup(f, &b.keys[i])) {
				b.bits[i / 8] |= (uint8_t)(1 << (i % 8));
				b.hits++;
			}
		b.done = b.n;
	} else if (!err) {
		uint32_t stages = f->st.n;
		uint64_t before = cf_count(f->st.stage[stages - 1]);

		err = batch_apply(r, &b, f, flags,
				  r->cmd == NF_CUCKOO_CMD_DEL_ENTRIES);
		fake_event_batch(r, f, b.done, b.why, stages, before);
	}
	m = reply(r, r->cmd, 0, 4096 + count / 8);
	nla_put_string(m, NF_CUCKOO_A_NAME, f->c.name);
	nla_put_u32(m, NF_CUCKOO_A_BATCH_DONE, b.done);
	nla_put_u32(m, NF_CUCKOO_A_BATCH_SKIPPED, b.skipped);
	if (err) {
		nla_put_u32(m, NF_CUCKOO_A_BATCH_FAIL_INDEX, b.fail_index);
		nla_put_u32(m, NF_CUCKOO_A_BATCH_FAIL_REASON, b.why);
	}
	if (r->cmd == NF_CUCKOO_CMD_TEST_ENTRIES) {
		nla_put_u32(m, NF_CUCKOO_A_TEST_HITS, b.hits);
		nla_put(m, NF_CUCKOO_A_TEST_BITMAP, (int)((count + 7) / 8),
			b.bits);
	}
	queue_msg(m, false);
	free(b.keys);
	free(b.where);
	free(b.bits);
	free(b.stage_of);
	return err;
}

/* Chunk lengths vary, as cfctl must not assume one. */
static uint64_t save_chunk_len(unsigned int i)
{
	static const uint64_t lens[] = { NF_CUCKOO_CHUNK_MAX, 8, 4096, 24576 };

	return lens[i % 4];
}

static int cmd_save(struct req *r)
{
	struct fake_filter *f;
	struct cf_image img;
	struct nl_msg *m;
	struct nlattr *d;
	uint64_t off = 0, len, table_bytes;
	unsigned int i = 0;
	int err;

	err = get_filter(r, false, &f);
	if (err)
		return err;
	/* nfcf_save_header(): an image header per stage, oldest first. */
	table_bytes = cf_stages_table_bytes(&f->st);
	m = reply(r, NF_CUCKOO_CMD_SAVE, NLM_F_MULTI, 4096);
	put_filter(m, f, false);
	for (i = 0; i < f->st.n; i++) {
		cf_export_header(f->st.stage[i], &img);
		nla_put(m, NF_CUCKOO_A_IMAGE_HEADER, sizeof(img), &img);
	}
	nla_put_u64(m, NF_CUCKOO_A_IMAGE_TABLE_BYTES, table_bytes);
	queue_msg(m, true);
	for (i = 0; off < table_bytes; off += len) {
		len = save_chunk_len(i++);
		if (len > table_bytes - off)
			len = table_bytes - off;
		m = reply(r, NF_CUCKOO_CMD_SAVE, NLM_F_MULTI, len + 256);
		nla_put_u64(m, NF_CUCKOO_A_CHUNK_OFFSET, off);
		d = nla_reserve(m, NF_CUCKOO_A_CHUNK_DATA, (int)len);
		if (!d || cf_stages_export(&f->st, off, nla_data(d), len))
			abort();
		queue_msg(m, true);
	}
	return 0;
}

/* nfcf_check_prefixes() and nfcf_filter_load_prefixes() */
static int load_prefixes(struct req *r, struct fake_cfg *c,
			 const struct nlattr *a)
{
	const uint8_t *p = nla_data(a);
	size_t n = (size_t)nla_len(a) / sizeof(struct nf_cuckoo_prefix_count);
	struct nf_cuckoo_prefix_count pc;
	unsigned int fi, bits;
	size_t i;

	for (i = 0; i < n; i++) {
		memcpy(&pc, p + i * sizeof(pc), sizeof(pc));
		if (pc.family != NF_CUCKOO_FAMILY_IPV4 &&
		    pc.family != NF_CUCKOO_FAMILY_IPV6)
			goto bad;
		bits = pc.family == NF_CUCKOO_FAMILY_IPV4 ? 32 : 128;
		fi = FAM_IDX(pc.family);
		if (!(pc.family & c->families) || c->bidir || pc.pad ||
		    !pc.count || !(pc.src_plen || pc.dst_plen) ||
		    pc.src_plen >= bits || pc.dst_plen >= bits ||
		    (pc.src_plen && !(c->fields & NF_CUCKOO_KEY_SRC_ADDR)) ||
		    (pc.dst_plen && !(c->fields & NF_CUCKOO_KEY_DST_ADDR)))
			goto bad;
		{
			struct nf_cuckoo_flow_key k = {
				.family = pc.family, .src_plen = pc.src_plen,
				.dst_plen = pc.dst_plen,
			};

			if (combo_find(c, &k) ||
			    c->ncombo[fi] == NF_CUCKOO_PREFIXES_MAX)
				goto bad;
		}
		c->combo[fi][c->ncombo[fi]++] = (struct fake_combo){
			.s = pc.src_plen, .d = pc.dst_plen, .count = pc.count,
		};
	}
	return 0;
bad:
	return req_err(r, a, -EINVAL,
		       "prefix counts do not fit the filter: a combination of lengths its key, family or bound refuses, given twice, or counting 0");
}

/* nfcf_load_image(): one IMAGE_HEADER of a LOAD_BEGIN, checked. */
static int load_image(struct req *r, const struct nlattr *ha,
		      struct cf_image *img, struct cf_params *p)
{
	if (nla_len(ha) != sizeof(*img))
		return req_err(r, ha, -EINVAL,
			       "image header has the wrong length (saved by another version?)");
	memcpy(img, nla_data(ha), sizeof(*img));
	if (img->magic == CF_IMAGE_MAGIC &&
	    (img->version < CF_IMAGE_VERSION_MIN || img->version > CF_IMAGE_VERSION))
		return req_err(r, ha, -EINVAL,
			       "image version not supported: this is nf_cuckoo " NF_CUCKOO_VERSION
			       ", which reads image versions " NF_CUCKOO_STR(CF_IMAGE_VERSION_MIN)
			       " to " NF_CUCKOO_STR(CF_IMAGE_VERSION)
			       " only; restore it with the nf_cuckoo that saved it, or add the entries again");
	if (cf_image_params(img, p))
		return req_err(r, ha, -EINVAL,
			       "image header rejected: wrong magic, version, byte order or geometry");
	return 0;
}

/* nfcf_load_images(): the IMAGE_HEADERs, one per stage, oldest first. */
static int load_images(struct req *r, uint8_t max_stages,
		       struct cf_image *img, uint32_t *n)
{
	struct nlattr *ha, *attrs = (struct nlattr *)((uint8_t *)nlmsg_data(r->nlh) +
						      GENL_HDRLEN);
	int len = (int)r->nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	struct cf_params p;
	uint64_t bytes = 0;
	int rem, err;

	*n = 0;
	nla_for_each_attr(ha, attrs, len, rem) {
		if (nla_type(ha) != NF_CUCKOO_A_IMAGE_HEADER)
			continue;
		if (*n == max_stages)
			return req_err(r, ha, -EINVAL,
				       "more image headers (stages) than STAGES_MAX");
		err = load_image(r, ha, &img[*n], &p);
		if (err)
			return err;
		p.lent_scratch = true;
		if (*n && !cf_image_stage_fits(&img[0], &img[*n]))
			return req_err(r, ha, -EINVAL,
				       "a stage's seed, hash, bucket size or encoding differs from the first stage's");
		bytes += cf_params_bytes(&p);
		(*n)++;
	}
	if (bytes > mem_max())
		return req_err(r, r->tb[NF_CUCKOO_A_IMAGE_HEADER], -EDQUOT,
			       "filter would exceed the network namespace's memory ceiling (netns_mem_max_mb)");
	return 0;
}

/* The stages of images img[0..n), in f (nfcf_filter_create_loading()). */
static int load_stages(struct fake_filter *f, const struct cf_image *img,
		       uint32_t n, const struct cf_grow *g)
{
	struct cuckoo_filter *cf;
	uint32_t i;
	int err;

	err = cf_create_from_image(&cf, &img[0], true);
	if (err)
		return err;
	cf_stages_init(&f->st, cf, g, NULL);
	for (i = 1; !err && i < n; i++)
		err = cf_stages_add_image(&f->st, &img[i]);
	return err;
}

static int cmd_load_begin(struct req *r)
{
	struct cf_image img[NF_CUCKOO_STAGES_MAX];
	struct cf_grow g = parse_grow(r);
	struct fake_filter *f;
	struct fake_cfg c;
	uint32_t n;
	int err;

	err = parse_cfg(r, &c);
	if (err)
		return err;
	if (!r->tb[NF_CUCKOO_A_IMAGE_HEADER]) {
		r->miss = NF_CUCKOO_A_IMAGE_HEADER;
		return req_err(r, NULL, -EINVAL,
			       "nf_cuckoo: missing image header (NF_CUCKOO_A_IMAGE_HEADER)");
	}
	err = load_images(r, g.max_stages, img, &n);
	if (err)
		return err;
	f = calloc(1, sizeof(*f));
	if (!f)
		abort();
	if (r->tb[NF_CUCKOO_A_PREFIXES]) {
		err = load_prefixes(r, &c, r->tb[NF_CUCKOO_A_PREFIXES]);
		if (err) {
			free(f);
			return err;
		}
	}
	if (find(c.name)) {
		free(f);
		return req_err(r, r->tb[NF_CUCKOO_A_NAME], -EEXIST,
			       "a filter of that name exists in this network namespace");
	}
	err = load_stages(f, img, n, &g);
	if (err) {
		cf_stages_free(&f->st);
		free(f);
		if (err == -ENOMEM)
			return req_err(r, NULL, err,
				       "nf_cuckoo: cannot allocate the filter's memory");
		return req_err(r, r->tb[NF_CUCKOO_A_IMAGE_HEADER], err,
			       "image header rejected: wrong magic, version, byte order or geometry");
	}
	f->c = c;
	f->c.id = new_id();
	f->loading = true;
	f->load_total = cf_stages_table_bytes(&f->st);
	insert(f);
	return 0;
}

/* nfcf_load_errmsg() */
static int load_err(struct req *r, int err, bool abort_load)
{
	const struct nlattr *name = r->tb[NF_CUCKOO_A_NAME];

	if (abort_load && err == -EINVAL)
		return req_err(r, NULL, err,
			       "nf_cuckoo: saved table rejected: load aborted, filter removed");
	switch (err) {
	case -EINVAL:
		return req_err(r, name, err, "filter is not being loaded");
	case -ERANGE:
		return req_err(r, r->tb[NF_CUCKOO_A_CHUNK_OFFSET], err,
			       "chunk out of order or past the table's end: load aborted, filter removed");
	case -ENODATA:
		return req_err(r, name, err,
			       "table incomplete: load aborted, filter removed");
	}
	return req_err(r, NULL, err,
		       "nf_cuckoo: saved table rejected: load aborted, filter removed");
}

static int cmd_load_chunk(struct req *r)
{
	const struct nlattr *oa = r->tb[NF_CUCKOO_A_CHUNK_OFFSET];
	const struct nlattr *da = r->tb[NF_CUCKOO_A_CHUNK_DATA];
	struct fake_filter *f;
	uint64_t off;
	uint32_t len;
	int err;

	if (!oa || !da)
		return req_err(r, NULL, -EINVAL,
			       "nf_cuckoo: missing CHUNK_OFFSET or CHUNK_DATA");
	err = get_filter(r, true, &f);
	if (err)
		return err;
	if (!f->loading)
		return load_err(r, -EINVAL, false);
	off = u(oa);
	len = (uint32_t)nla_len(da);
	if (off != f->load_off || len % 8 || len > f->load_total - f->load_off)
		err = -ERANGE;
	else
		err = cf_stages_import(&f->st, off, nla_data(da), len);
	if (err) {
		load_err(r, err, true);
		unlink_filter(f);
		return err;
	}
	f->load_off += len;
	return 0;
}

static int cmd_load_end(struct req *r)
{
	struct fake_filter *f;
	int err;

	err = get_filter(r, true, &f);
	if (err)
		return err;
	if (!f->loading)
		return load_err(r, -EINVAL, false);
	err = f->load_off != f->load_total ? -ENODATA :
	      cf_stages_import_finish(&f->st);
	if (err) {
		load_err(r, err, true);
		unlink_filter(f);
		return err;
	}
	f->loading = false;
	fake_event(NF_CUCKOO_EVENT_RESTORE, f, 0);
	return 0;
}

static void handle(struct nlmsghdr *nlh)
{
	struct req r = { .nlh = nlh };
	bool dump = (nlh->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	int err;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN ||
	    nlh->nlmsg_type != FAKE_FAMILY) {
		queue_ack(&r, -EINVAL);
		return;
	}
	r.cmd = ((struct genlmsghdr *)nlmsg_data(nlh))->cmd;
	err = parse_req(&r);
	if (!err && fk.fail_at && ++fk.requests == fk.fail_at)
		err = req_err(&r, NULL, -EIO, "fake: injected failure");
	if (!err) {
		switch (r.cmd) {
		case NF_CUCKOO_CMD_NEW:
			err = cmd_new(&r);
			break;
		case NF_CUCKOO_CMD_DEL:
			err = cmd_del(&r);
			break;
		case NF_CUCKOO_CMD_GET:
			err = cmd_get(&r, dump);
			break;
		case NF_CUCKOO_CMD_SET:
			err = cmd_set(&r);
			break;
		case NF_CUCKOO_CMD_FLUSH:
			err = cmd_flush(&r);
			break;
		case NF_CUCKOO_CMD_ADD_ENTRIES:
		case NF_CUCKOO_CMD_DEL_ENTRIES:
		case NF_CUCKOO_CMD_TEST_ENTRIES:
			err = cmd_entries(&r);
			break;
		case NF_CUCKOO_CMD_SAVE:
			if (!dump) {
				err = -EOPNOTSUPP;
				break;
			}
			err = cmd_save(&r);
			break;
		case NF_CUCKOO_CMD_LOAD_BEGIN:
			err = cmd_load_begin(&r);
			break;
		case NF_CUCKOO_CMD_LOAD_CHUNK:
			err = cmd_load_chunk(&r);
			break;
		case NF_CUCKOO_CMD_LOAD_END:
			err = cmd_load_end(&r);
			break;
		case NF_CUCKOO_CMD_SWAP:
			err = cmd_swap(&r);
			break;
		default:
			err = -EOPNOTSUPP;
		}
	}
	/* A GET dump has no doit, a SAVE no doit: errors of a dump come in
	 * its DONE, as netlink_dump() sends them. */
	if (dump && (r.cmd == NF_CUCKOO_CMD_GET || r.cmd == NF_CUCKOO_CMD_SAVE))
		queue_done(&r, err);
	else if (err || (nlh->nlmsg_flags & NLM_F_ACK))
		queue_ack(&r, err);
}

/* ---- persistence ---- */

/*
 * A filter: its struct fake_cfg, its struct cf_grow, its number of stages
 * (u32), their image headers, then their tables back to back.
 */
#define STATE_MAGIC	"cfctl fake state 4\n"

static void state_load(const char *path)
{
	FILE *f = fopen(path, "rb");
	char magic[sizeof(STATE_MAGIC)];
	struct cf_image img[NF_CUCKOO_STAGES_MAX];
	struct fake_filter *x;
	struct cf_grow g;
	uint64_t tb;
	uint8_t *buf;
	uint32_t n;

	if (!f)
		return;
	if (fread(magic, 1, sizeof(magic), f) != sizeof(magic) ||
	    memcmp(magic, STATE_MAGIC, sizeof(magic)))
		goto bad;
	for (;;) {
		x = calloc(1, sizeof(*x));
		if (!x)
			abort();
		if (fread(&x->c, sizeof(x->c), 1, f) != 1) {
			free(x);
			break;
		}
		if (fread(&g, sizeof(g), 1, f) != 1 ||
		    fread(&n, sizeof(n), 1, f) != 1 || !n ||
		    n > NF_CUCKOO_STAGES_MAX ||
		    fread(img, sizeof(img[0]), n, f) != n ||
		    load_stages(x, img, n, &g)) {
			cf_stages_free(&x->st);
			free(x);
			goto bad;
		}
		tb = cf_stages_table_bytes(&x->st);
		buf = malloc(tb ? tb : 1);
		if (!buf || fread(buf, 1, tb, f) != tb ||
		    cf_stages_import(&x->st, 0, buf, tb) ||
		    cf_stages_import_finish(&x->st)) {
			free(buf);
			cf_stages_free(&x->st);
			free(x);
			goto bad;
		}
		free(buf);
		insert(x);
	}
	fclose(f);
	return;
bad:
	fprintf(stderr, "cfctl fake: %s is not a fake state file\n", path);
	exit(99);
}

static void state_save(const char *path)
{
	char tmp[4096];
	struct fake_filter *x;
	struct cf_image img;
	uint64_t tb;
	uint8_t *buf;
	uint32_t i;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	if (!f)
		goto bad;
	fwrite(STATE_MAGIC, 1, sizeof(STATE_MAGIC), f);
	for (x = fk.filters; x; x = x->next) {
		if (x->loading)		/* a closed socket's load goes */
			continue;
		tb = cf_stages_table_bytes(&x->st);
		buf = malloc(tb ? tb : 1);
		if (!buf || cf_stages_export(&x->st, 0, buf, tb))
			abort();
		fwrite(&x->c, sizeof(x->c), 1, f);
		fwrite(&x->st.g, sizeof(x->st.g), 1, f);
		fwrite(&x->st.n, sizeof(x->st.n), 1, f);
		for (i = 0; i < x->st.n; i++) {
			cf_export_header(x->st.stage[i], &img);
			fwrite(&img, sizeof(img), 1, f);
		}
		fwrite(buf, 1, tb, f);
		free(buf);
	}
	if (fclose(f) || rename(tmp, path))
		goto bad;
	return;
bad:
	fprintf(stderr, "cfctl fake: cannot write %s\n", path);
	exit(99);
}

/* ---- the socket layer ---- */

size_t fake_count(void)
{
	struct fake_filter *f;
	size_t n = 0;

	for (f = fk.filters; f; f = f->next)
		n++;
	return n;
}

int64_t fake_items(const char *name)
{
	struct fake_filter *f = find(name);

	struct cf_stats st;

	if (!f)
		return -1;
	cf_stages_stats(&f->st, &st);
	return (int64_t)st.count;
}

void fake_reset(void)
{
	struct dgram *d;

	while (fk.filters)
		unlink_filter(fk.filters);
	while ((d = fk.head)) {
		fk.head = d->next;
		free(d);
	}
	fk.tail = NULL;
	fk.requests = 0;
	fk.fail_at = 0;
}

static int fake_open(struct cfnl *nl, bool offline)
{
	const char *fail = offline ? NULL : getenv("CFCTL_FAKE_FAIL_AT");
	const char *mem = offline ? NULL : getenv("CFCTL_FAKE_MEM_MAX");

	memset(nl, 0, sizeof(*nl));
	nl->fd = -1;
	nl->family = FAKE_FAMILY;
	nl->max_msg = FAKE_SNDBUF - 64;
	nl->rbuf_len = FAKE_RBUF;
	nl->rbuf = malloc(nl->rbuf_len);
	if (!nl->rbuf) {
		errmsg("out of memory");
		return -1;
	}
	nl->seq = 1000;
	if (!fk.open) {
		fk.open = true;
		fk.offline = offline;
		fk.state = offline ? NULL : getenv("CFCTL_FAKE_STATE");
		if (fk.state)
			state_load(fk.state);
		fk.fail_at = fail ? strtoul(fail, NULL, 10) : 0;
		if (mem)
			fake_mem_max = strtoull(mem, NULL, 10);
	}
	return 0;
}

static int fake_open_env(struct cfnl *nl)
{
	return fake_open(nl, false);
}

static int fake_open_offline(struct cfnl *nl)
{
	return fake_open(nl, true);
}

static void fake_close(struct cfnl *nl)
{
	const char *path = fk.state;
	struct dgram *d;

	free(nl->rbuf);
	nl->rbuf = NULL;
	/* Replies nobody read go with the socket, and so do its loads. */
	while ((d = fk.head)) {
		fk.head = d->next;
		free(d);
	}
	fk.tail = NULL;
	if (fk.open && path)
		state_save(path);
	{
		struct fake_filter *x = fk.filters, *next;

		for (; x; x = next) {
			next = x->next;
			if (x->loading)
				unlink_filter(x);
		}
	}
	/* Offline, what was built goes with the process's one socket. */
	if (path || fk.offline)
		fake_reset();
	fk.open = false;
	fk.offline = false;
	fk.state = NULL;
}

static int fake_send(struct cfnl *nl, struct nl_msg *msg, uint32_t *seq)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	nlh->nlmsg_seq = ++nl->seq;
	nlh->nlmsg_pid = 0;
	*seq = nlh->nlmsg_seq;
	if (nlh->nlmsg_len > nl->max_msg + 32)
		return -EMSGSIZE;
	handle(nlh);
	return 0;
}

static int fake_recv(struct cfnl *nl, bool block, cfnl_cb cb, void *arg)
{
	struct dgram *d = fk.head;

	if (!d)
		/* The kernel would leave a blocking reader waiting forever. */
		return block ? -ENOTCONN : -EAGAIN;
	fk.head = d->next;
	if (!fk.head)
		fk.tail = NULL;
	if (d->len > nl->rbuf_len) {
		free(d);
		return -EMSGSIZE;
	}
	memcpy(nl->rbuf, d->data, d->len);
	cfnl_dispatch(nl->rbuf, d->len, cb, arg);
	free(d);
	return 0;
}

/* Every event of $CFCTL_FAKE_EVENTS, one datagram each; then the end. */
static int fake_join(struct cfnl *nl, const char *group, int rcvbuf)
{
	const char *path = getenv("CFCTL_FAKE_EVENTS");
	struct nlmsghdr *h;
	uint8_t buf[8192];
	FILE *fp;

	(void)nl;
	(void)rcvbuf;
	if (!path || strcmp(group, NF_CUCKOO_MCGRP_EVENTS)) {
		errmsg("fake: no multicast group \"%s\" (events need CFCTL_FAKE_EVENTS)",
		       group);
		return -1;
	}
	fp = fopen(path, "rb");
	if (!fp)
		return 0;
	h = (struct nlmsghdr *)buf;
	while (fread(h, sizeof(*h), 1, fp) == 1 && h->nlmsg_len >= sizeof(*h) &&
	       NLMSG_ALIGN(h->nlmsg_len) <= sizeof(buf) &&
	       fread(h + 1, NLMSG_ALIGN(h->nlmsg_len) - sizeof(*h), 1, fp) == 1)
		queue_bytes(h, h->nlmsg_len, false);
	fclose(fp);
	return 0;
}

const struct cfnl_backend fake_nl_backend = {
	.open = fake_open_env,
	.close = fake_close,
	.send = fake_send,
	.recv = fake_recv,
	.join = fake_join,
};

const struct cfnl_backend fake_offline_backend = {
	.open = fake_open_offline,
	.close = fake_close,
	.send = fake_send,
	.recv = fake_recv,
};
