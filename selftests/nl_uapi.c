// SPDX-License-Identifier: GPL-2.0
/*
 * The nf_cuckoo generic netlink interface, as uapi/linux/nf_cuckoo.h
 * documents it, tested over raw netlink (no cfctl, no libnl): strict
 * attribute validation, what cfctl never sends (bad names, out-of-range
 * values), batches (bounds, all or nothing, reasons, bitmaps, flags),
 * and save/restore (chunks, the loading state, a socket that goes away).
 *
 * Uses the kernel's kselftest harness (kselftest_harness.h, extracted from
 * Debian's linux-source at build time).  Each test runs in a child process
 * in a network namespace of its own.  Needs root and nf_cuckoo loaded.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "../uapi/linux/nf_cuckoo.h"
#include "kselftest_harness.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* ---- a tiny netlink client ---- */

struct nls {
	int fd;
	uint16_t fam;
	uint32_t seq;
};

struct req {
	uint8_t *buf;
	size_t len, cap;
	size_t nest;
};

struct reply {
	int err;
	char ext[256];
	uint32_t ext_offs;	/* NLMSGERR_ATTR_OFFS, 0 if none */
	int ndata;
	bool intr;
	/* batch replies */
	bool has_fail;
	uint32_t done, skipped, fail_index, fail_reason, hits;
	uint8_t bitmap[NF_CUCKOO_BATCH_MAX / 8 + 8];
	int bitmap_len;
	/* GET */
	bool has_stats, has_seed, has_loading, has_encoding;
	uint64_t items;
	uint8_t loading, encoding, fp_bits;
	/* SAVE */
	uint8_t image[NF_CUCKOO_IMAGE_HEADER_MAXLEN];
	int image_len;
	uint64_t table_bytes, got;
	uint8_t *table;
	bool chunk_bad;
};

#define RBUF	(1 << 20)
static uint8_t rbuf[RBUF];

static void req_init(struct req *r, uint16_t type, uint16_t flags, uint8_t cmd)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;

	r->cap = 1 << 20;
	r->buf = calloc(1, r->cap);
	r->len = NLMSG_HDRLEN + GENL_HDRLEN;
	nlh = (struct nlmsghdr *)r->buf;
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	g = (struct genlmsghdr *)(r->buf + NLMSG_HDRLEN);
	g->cmd = cmd;
	g->version = type == GENL_ID_CTRL ? 1 : NF_CUCKOO_GENL_VERSION;
}

static void put(struct req *r, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)(r->buf + r->len);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy(r->buf + r->len + NLA_HDRLEN, data, len);
	r->len += NLA_ALIGN(a->nla_len);
}

static void put_u8(struct req *r, uint16_t t, uint8_t v) { put(r, t, &v, 1); }
static void put_u16(struct req *r, uint16_t t, uint16_t v) { put(r, t, &v, 2); }
static void put_u32(struct req *r, uint16_t t, uint32_t v) { put(r, t, &v, 4); }
static void put_u64(struct req *r, uint16_t t, uint64_t v) { put(r, t, &v, 8); }
static void put_str(struct req *r, uint16_t t, const char *s)
{
	put(r, t, s, strlen(s) + 1);
}

static void nest_start(struct req *r, uint16_t type)
{
	struct nlattr *a = (struct nlattr *)(r->buf + r->len);

	r->nest = r->len;
	a->nla_type = type | NLA_F_NESTED;
	r->len += NLA_HDRLEN;
}

static void nest_end(struct req *r)
{
	struct nlattr *a = (struct nlattr *)(r->buf + r->nest);

	a->nla_len = r->len - r->nest;
}

/* An IPv4 5-tuple entry; dst_missing leaves the destination out. */
static void put_entry4(struct req *r, uint32_t src, uint32_t dst,
		       uint16_t sport, uint16_t dport, uint8_t proto,
		       bool dst_missing)
{
	src = htonl(src);
	dst = htonl(dst);
	nest_start(r, NF_CUCKOO_A_ENTRY);
	put_u8(r, NF_CUCKOO_ENTRY_A_FAMILY, NF_CUCKOO_FAMILY_IPV4);
	put(r, NF_CUCKOO_ENTRY_A_SRC, &src, 4);
	if (!dst_missing)
		put(r, NF_CUCKOO_ENTRY_A_DST, &dst, 4);
	put_u16(r, NF_CUCKOO_ENTRY_A_SPORT, htons(sport));
	put_u16(r, NF_CUCKOO_ENTRY_A_DPORT, htons(dport));
	put_u8(r, NF_CUCKOO_ENTRY_A_PROTO, proto);
	nest_end(r);
}

/* 2001:db8::i, the addresses of IPv6 entry i. */
static void addr6(uint8_t *a, uint32_t i)
{
	static const uint8_t prefix[16] = { 0x20, 0x01, 0x0d, 0xb8 };

	memcpy(a, prefix, 16);
	a[14] = (uint8_t)(i >> 8);
	a[15] = (uint8_t)i;
}

static void put_entry6(struct req *r, uint16_t i)
{
	uint8_t a[16];

	addr6(a, i);
	nest_start(r, NF_CUCKOO_A_ENTRY);
	put_u8(r, NF_CUCKOO_ENTRY_A_FAMILY, NF_CUCKOO_FAMILY_IPV6);
	put(r, NF_CUCKOO_ENTRY_A_SRC, a, 16);
	put(r, NF_CUCKOO_ENTRY_A_DST, a, 16);
	put_u16(r, NF_CUCKOO_ENTRY_A_SPORT, htons(1));
	put_u16(r, NF_CUCKOO_ENTRY_A_DPORT, htons(2));
	put_u8(r, NF_CUCKOO_ENTRY_A_PROTO, 17);
	nest_end(r);
}

/*
 * Entries i in [from, to) of nfcf_batch()'s pattern, packed into one
 * NF_CUCKOO_A_ENTRIES_IPV4; entry bad_pad (NO_BAD: none) gets a non-zero padding
 * byte.
 */
#define NO_BAD	UINT32_MAX

static void put_packed4(struct req *r, uint32_t from, uint32_t to,
			uint32_t bad_pad)
{
	struct nf_cuckoo_entry_ipv4 e[NF_CUCKOO_ENTRIES_PACKED_BYTES / sizeof(struct nf_cuckoo_entry_ipv4)];
	uint32_t i;

	memset(e, 0, sizeof(e));
	for (i = from; i < to; i++) {
		e[i - from].src = htonl(0x0a000000 + i);
		e[i - from].dst = htonl(0xc0000201);
		e[i - from].sport = htons(1000 + (i & 0xfff));
		e[i - from].dport = htons(53);
		e[i - from].proto = 17;
		e[i - from].pad = i == bad_pad;
	}
	put(r, NF_CUCKOO_A_ENTRIES_IPV4, e, (uint16_t)((to - from) * sizeof(e[0])));
}

/* put_entry6()'s entries i in [from, to), packed into NF_CUCKOO_A_ENTRIES_IPV6. */
static void put_packed6(struct req *r, uint32_t from, uint32_t to)
{
	struct nf_cuckoo_entry_ipv6 e[NF_CUCKOO_ENTRIES_PACKED_BYTES / sizeof(struct nf_cuckoo_entry_ipv6)];
	uint32_t i;

	memset(e, 0, sizeof(e));
	for (i = from; i < to; i++) {
		addr6((uint8_t *)e[i - from].src, i);
		addr6((uint8_t *)e[i - from].dst, i);
		e[i - from].sport = htons(1);
		e[i - from].dport = htons(2);
		e[i - from].proto = 17;
	}
	put(r, NF_CUCKOO_A_ENTRIES_IPV6, e, (uint16_t)((to - from) * sizeof(e[0])));
}

#define for_each_attr(a, p, len)					\
	for (a = (struct nlattr *)(p);					\
	     (uint8_t *)a + NLA_HDRLEN <= (uint8_t *)(p) + (len) &&	\
	     a->nla_len >= NLA_HDRLEN &&				\
	     (uint8_t *)a + a->nla_len <= (uint8_t *)(p) + (len);	\
	     a = (struct nlattr *)((uint8_t *)a + NLA_ALIGN(a->nla_len)))

#define ADATA(a)	((uint8_t *)(a) + NLA_HDRLEN)
#define ALEN(a)		((int)(a)->nla_len - NLA_HDRLEN)

static uint32_t a_u32(struct nlattr *a) { uint32_t v; memcpy(&v, ADATA(a), 4); return v; }
static uint64_t a_u64(struct nlattr *a) { uint64_t v; memcpy(&v, ADATA(a), 8); return v; }

static void parse_ext(const uint8_t *p, int len, struct reply *rp)
{
	struct nlattr *a;

	for_each_attr(a, p, len) {
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
			snprintf(rp->ext, sizeof(rp->ext), "%.*s", ALEN(a),
				 (char *)ADATA(a));
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_OFFS)
			rp->ext_offs = a_u32(a);
	}
}

static void parse_data(struct nlmsghdr *nlh, struct reply *rp)
{
	uint8_t *p = (uint8_t *)NLMSG_DATA(nlh) + GENL_HDRLEN;
	int len = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	struct nlattr *a, *s;
	uint64_t off = 0;

	rp->ndata++;
	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		rp->intr = true;
	for_each_attr(a, p, len) {
		switch (a->nla_type & NLA_TYPE_MASK) {
		case NF_CUCKOO_A_BATCH_DONE: rp->done = a_u32(a); break;
		case NF_CUCKOO_A_BATCH_SKIPPED: rp->skipped = a_u32(a); break;
		case NF_CUCKOO_A_BATCH_FAIL_INDEX: rp->fail_index = a_u32(a); rp->has_fail = true; break;
		case NF_CUCKOO_A_BATCH_FAIL_REASON: rp->fail_reason = a_u32(a); break;
		case NF_CUCKOO_A_TEST_HITS: rp->hits = a_u32(a); break;
		case NF_CUCKOO_A_TEST_BITMAP:
			rp->bitmap_len = ALEN(a);
			if (rp->bitmap_len <= (int)sizeof(rp->bitmap))
				memcpy(rp->bitmap, ADATA(a), rp->bitmap_len);
			break;
		case NF_CUCKOO_A_SEED: rp->has_seed = true; break;
		case NF_CUCKOO_A_LOADING: rp->loading = *ADATA(a); rp->has_loading = true; break;
		case NF_CUCKOO_A_ENCODING: rp->encoding = *ADATA(a); rp->has_encoding = true; break;
		case NF_CUCKOO_A_FP_BITS: rp->fp_bits = *ADATA(a); break;
		case NF_CUCKOO_A_STATS:
			rp->has_stats = true;
			for_each_attr(s, ADATA(a), ALEN(a))
				if ((s->nla_type & NLA_TYPE_MASK) == NF_CUCKOO_STATS_A_ITEMS)
					rp->items = a_u64(s);
			break;
		case NF_CUCKOO_A_IMAGE_HEADER:
			rp->image_len = ALEN(a);
			memcpy(rp->image, ADATA(a), rp->image_len);
			break;
		case NF_CUCKOO_A_IMAGE_TABLE_BYTES:
			rp->table_bytes = a_u64(a);
			rp->table = calloc(1, rp->table_bytes + 8);
			break;
		case NF_CUCKOO_A_CHUNK_OFFSET: off = a_u64(a); break;
		case NF_CUCKOO_A_CHUNK_DATA:
			if (!rp->table || off != rp->got || ALEN(a) % 8 ||
			    ALEN(a) > NF_CUCKOO_CHUNK_MAX ||
			    rp->got + ALEN(a) > rp->table_bytes) {
				rp->chunk_bad = true;
				break;
			}
			memcpy(rp->table + off, ADATA(a), ALEN(a));
			rp->got += ALEN(a);
			break;
		}
	}
}

/* Send r and read until its ack (or a dump's end).  Returns rp->err. */
static int transact(struct nls *s, struct req *r, struct reply *rp)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)r->buf;
	bool end = false;
	uint32_t seq;

	memset(rp, 0, sizeof(*rp));
	nlh->nlmsg_len = r->len;
	nlh->nlmsg_seq = seq = ++s->seq;
	if (send(s->fd, r->buf, r->len, 0) < 0) {
		rp->err = -errno;
		free(r->buf);
		return rp->err;
	}
	free(r->buf);
	r->buf = NULL;
	while (!end) {
		ssize_t n = recv(s->fd, rbuf, RBUF, 0);
		int len = (int)n;

		if (n < 0) {
			rp->err = -errno;
			return rp->err;
		}
		for (nlh = (struct nlmsghdr *)rbuf; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nlh);
				int off = NLMSG_HDRLEN + (nlh->nlmsg_flags & NLM_F_CAPPED ?
					sizeof(*e) : sizeof(int) + e->msg.nlmsg_len);

				rp->err = e->error;
				if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
					parse_ext((uint8_t *)nlh + NLMSG_ALIGN(off),
						  nlh->nlmsg_len - NLMSG_ALIGN(off), rp);
				end = true;
			} else if (nlh->nlmsg_type == NLMSG_DONE) {
				int err;

				memcpy(&err, NLMSG_DATA(nlh), sizeof(err));
				rp->err = err < 0 ? err : 0;
				if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
					parse_ext((uint8_t *)NLMSG_DATA(nlh) + 4,
						  nlh->nlmsg_len - NLMSG_HDRLEN - 4, rp);
				end = true;
			} else {
				parse_data(nlh, rp);
			}
		}
	}
	return rp->err;
}

static int nls_open(struct nls *s)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1, size = 8 << 20;
	struct nlmsghdr *nlh;
	struct nlattr *a;
	struct req r;
	ssize_t n;

	memset(s, 0, sizeof(*s));
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -errno;
	setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(s->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(s->fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size));
	setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));

	req_init(&r, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY);
	put_str(&r, CTRL_ATTR_FAMILY_NAME, NF_CUCKOO_GENL_NAME);
	nlh = (struct nlmsghdr *)r.buf;
	nlh->nlmsg_len = r.len;
	nlh->nlmsg_seq = ++s->seq;
	n = send(s->fd, r.buf, r.len, 0);
	free(r.buf);
	if (n < 0)
		return -errno;
	n = recv(s->fd, rbuf, RBUF, 0);
	if (n < 0)
		return -errno;
	nlh = (struct nlmsghdr *)rbuf;
	if (nlh->nlmsg_type == NLMSG_ERROR)
		return ((struct nlmsgerr *)NLMSG_DATA(nlh))->error;
	for_each_attr(a, (uint8_t *)NLMSG_DATA(nlh) + GENL_HDRLEN,
		      nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN)
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			memcpy(&s->fam, ADATA(a), 2);
	return s->fam ? 0 : -ENOENT;
}

/* ---- helpers on filters ---- */

static int nfcf_new(struct nls *s, const char *name, uint8_t family,
		    uint32_t key, struct reply *rp)
{
	struct req r;

	req_init(&r, s->fam, NLM_F_ACK, NF_CUCKOO_CMD_NEW);
	put_str(&r, NF_CUCKOO_A_NAME, name);
	put_u8(&r, NF_CUCKOO_A_FAMILY, family);
	put_u32(&r, NF_CUCKOO_A_KEY_FIELDS, key);
	put_u64(&r, NF_CUCKOO_A_CAPACITY, 10000);
	put_u8(&r, NF_CUCKOO_A_FP_BITS, 32);
	return transact(s, &r, rp);
}

static uint64_t nfcf_items(struct nls *s, const char *name)
{
	struct reply rp;
	struct req r;

	req_init(&r, s->fam, NLM_F_ACK, NF_CUCKOO_CMD_GET);
	put_str(&r, NF_CUCKOO_A_NAME, name);
	if (transact(s, &r, &rp))
		return (uint64_t)-1;
	return rp.items;
}

/* ADD/DEL/TEST of entries i in [from, to) of a fixed pattern. */
static int nfcf_batch(struct nls *s, uint8_t cmd, const char *name,
		      uint32_t from, uint32_t to, uint32_t flags,
		      struct reply *rp)
{
	struct req r;
	uint32_t i;

	req_init(&r, s->fam, NLM_F_ACK, cmd);
	put_str(&r, NF_CUCKOO_A_NAME, name);
	if (flags)
		put_u32(&r, NF_CUCKOO_A_BATCH_FLAGS, flags);
	for (i = from; i < to; i++)
		put_entry4(&r, 0x0a000000 + i, 0xc0000201, 1000 + (i & 0xfff),
			   53, 17, false);
	return transact(s, &r, rp);
}

static bool bit(const struct reply *rp, uint32_t i)
{
	return rp->bitmap[i / 8] >> (i % 8) & 1;
}

/* ---- the tests ---- */

FIXTURE(nfc) {
	struct nls s;
	struct reply rp;
};

/* main() checked that this can work: a failure here is a failure. */
FIXTURE_SETUP(nfc)
{
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	ASSERT_EQ(0, nls_open(&self->s));
}

FIXTURE_TEARDOWN(nfc)
{
	close(self->s.fd);
}

TEST_F(nfc, new_refuses_unknown_attribute)
{
	struct req r;

	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_NEW);
	put_str(&r, NF_CUCKOO_A_NAME, "x");
	put_u8(&r, NF_CUCKOO_A_FAMILY, NF_CUCKOO_FAMILY_INET);
	put_u64(&r, NF_CUCKOO_A_IMAGE_TABLE_BYTES, 8);	/* a reply attribute */
	EXPECT_EQ(-EINVAL, transact(&self->s, &r, &self->rp));
	EXPECT_NE(0, self->rp.ext[0]);
	TH_LOG("extack: %s", self->rp.ext);
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_NEW);
	put_str(&r, NF_CUCKOO_A_NAME, "x");
	put_u8(&r, NF_CUCKOO_A_FAMILY, NF_CUCKOO_FAMILY_INET);
	put_u8(&r, NF_CUCKOO_A_MAX + 1, 1);			/* beyond the max */
	EXPECT_EQ(-EINVAL, transact(&self->s, &r, &self->rp));
	EXPECT_EQ((uint64_t)-1, nfcf_items(&self->s, "x"));
}

TEST_F(nfc, new_needs_family)
{
	struct req r;

	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_NEW);
	put_str(&r, NF_CUCKOO_A_NAME, "x");
	EXPECT_EQ(-EINVAL, transact(&self->s, &r, &self->rp));
	EXPECT_NE(0, self->rp.ext[0]);
	TH_LOG("extack: %s", self->rp.ext);
}

TEST_F(nfc, new_refuses_bad_names)
{
	static const char *const bad[] = {
		"", "a b", "a/b", "caf\xc3\xa9", "abcdefghijklmnopqrstuvwxyz012345",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = nfcf_new(&self->s, bad[i], NF_CUCKOO_FAMILY_INET, NF_CUCKOO_KEY_ALL,
				   &self->rp);

		EXPECT_TRUE(err == -EINVAL || err == -ERANGE) {
			TH_LOG("name '%s': %d", bad[i], err);
		}
		EXPECT_NE(0, self->rp.ext[0]);
	}
	EXPECT_EQ(0, nfcf_new(&self->s, "abcdefghijklmnopqrstuvwxyz01234",
			      NF_CUCKOO_FAMILY_INET, NF_CUCKOO_KEY_ALL, &self->rp));
	EXPECT_EQ(-EEXIST, nfcf_new(&self->s, "abcdefghijklmnopqrstuvwxyz01234",
				    NF_CUCKOO_FAMILY_INET, NF_CUCKOO_KEY_ALL, &self->rp));
}

TEST_F(nfc, new_checks_geometry)
{
	static const struct { int attr; uint64_t v; int size; } bad[] = {
		{ NF_CUCKOO_A_FP_BITS, NF_CUCKOO_FP_BITS_MIN - 1, 1 },
		{ NF_CUCKOO_A_FP_BITS, NF_CUCKOO_FP_BITS_MAX + 1, 1 },
		{ NF_CUCKOO_A_BUCKET_SIZE, 3, 1 },
		{ NF_CUCKOO_A_BUCKET_SIZE, 16, 1 },
		{ NF_CUCKOO_A_CAPACITY, 0, 8 },
		{ NF_CUCKOO_A_CAPACITY, 1ULL << 62, 8 },
		{ NF_CUCKOO_A_MAX_KICKS, 0, 2 },
		{ NF_CUCKOO_A_MAX_KICKS, NF_CUCKOO_MAX_KICKS_MAX + 1, 2 },
		{ NF_CUCKOO_A_FPR, 0, 4 },
		{ NF_CUCKOO_A_FPR, NF_CUCKOO_FPR_SCALE, 4 },
		{ NF_CUCKOO_A_FAMILY, 4, 1 },
		{ NF_CUCKOO_A_KEY_FIELDS, 0, 4 },
		{ NF_CUCKOO_A_KEY_FIELDS, 0x20, 4 },
		{ NF_CUCKOO_A_HOOK, NF_CUCKOO_HOOK_MAX + 1, 1 },
		{ NF_CUCKOO_A_ACTION, NF_CUCKOO_ACTION_MAX + 1, 1 },
		{ NF_CUCKOO_A_ENCODING, NF_CUCKOO_ENCODING_MAX + 1, 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct req r;
		int err;

		req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_NEW);
		put_str(&r, NF_CUCKOO_A_NAME, "g");
		if (bad[i].attr != NF_CUCKOO_A_FAMILY)
			put_u8(&r, NF_CUCKOO_A_FAMILY, NF_CUCKOO_FAMILY_INET);
		put(&r, bad[i].attr, &bad[i].v, bad[i].size);
		err = transact(&self->s, &r, &self->rp);
		EXPECT_TRUE(err == -EINVAL || err == -ERANGE || err == -EDQUOT) {
			TH_LOG("attribute %d = %llu: %d (%s)", bad[i].attr,
			       (unsigned long long)bad[i].v, err, self->rp.ext);
		}
		EXPECT_NE(0, self->rp.ext[0]);
	}
	EXPECT_EQ((uint64_t)-1, nfcf_items(&self->s, "g"));
}

TEST_F(nfc, new_fp_bits_and_fpr_exclude)
{
	struct req r;

	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_NEW);
	put_str(&r, NF_CUCKOO_A_NAME, "x");
	put_u8(&r, NF_CUCKOO_A_FAMILY, NF_CUCKOO_FAMILY_INET);
	put_u8(&r, NF_CUCKOO_A_FP_BITS, 12);
	put_u32(&r, NF_CUCKOO_A_FPR, 1000000);
	EXPECT_EQ(-EINVAL, transact(&self->s, &r, &self->rp));
}

/* Semi-sorted buckets are of size 4 only: the ack names ENCODING. */
TEST_F(nfc, new_semisort_needs_bucket_4)
{
	static const uint8_t sizes[] = { 2, 8 };
	size_t i;

	for (i = 0; i < sizeof(sizes); i++) {
		uint32_t at;
		struct req r;

		req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_NEW);
		put_str(&r, NF_CUCKOO_A_NAME, "s");
		put_u8(&r, NF_CUCKOO_A_FAMILY, NF_CUCKOO_FAMILY_INET);
		put_u8(&r, NF_CUCKOO_A_BUCKET_SIZE, sizes[i]);
		at = r.len;
		put_u8(&r, NF_CUCKOO_A_ENCODING, NF_CUCKOO_ENCODING_SEMISORT);
		EXPECT_EQ(-EINVAL, transact(&self->s, &r, &self->rp));
		EXPECT_TRUE(strstr(self->rp.ext, "bucket size 4") != NULL) {
			TH_LOG("bucket %u: '%s'", sizes[i], self->rp.ext);
		}
		EXPECT_EQ(at, self->rp.ext_offs);
	}
	EXPECT_EQ((uint64_t)-1, nfcf_items(&self->s, "s"));
}

/* GET's FP_BITS and ENCODING of a filter made with those attributes. */
static int new_get(struct nls *s, const char *name, uint32_t fpr, int bucket,
		   int encoding, struct reply *rp)
{
	struct req r;
	int err;

	req_init(&r, s->fam, NLM_F_ACK, NF_CUCKOO_CMD_NEW);
	put_str(&r, NF_CUCKOO_A_NAME, name);
	put_u8(&r, NF_CUCKOO_A_FAMILY, NF_CUCKOO_FAMILY_INET);
	if (fpr)
		put_u32(&r, NF_CUCKOO_A_FPR, fpr);
	if (bucket >= 0)
		put_u8(&r, NF_CUCKOO_A_BUCKET_SIZE, bucket);
	if (encoding >= 0)
		put_u8(&r, NF_CUCKOO_A_ENCODING, encoding);
	err = transact(s, &r, rp);
	if (err)
		return err;
	req_init(&r, s->fam, NLM_F_ACK, NF_CUCKOO_CMD_GET);
	put_str(&r, NF_CUCKOO_A_NAME, name);
	return transact(s, &r, rp);
}

/* A rate is met at b = 4 by semi-sorted buckets unless told otherwise. */
TEST_F(nfc, new_fpr_chooses_the_encoding)
{
	static const struct {
		uint32_t fpr;
		int bucket, encoding;
		uint8_t want_fp, want_enc;
	} c[] = {
		{ 1000000, -1, -1, 13, NF_CUCKOO_ENCODING_SEMISORT },
		{ 1000000, 4, -1, 13, NF_CUCKOO_ENCODING_SEMISORT },
		{ 1000000, -1, NF_CUCKOO_ENCODING_PLAIN, 13, NF_CUCKOO_ENCODING_PLAIN },
		{ 1000000, 2, -1, 12, NF_CUCKOO_ENCODING_PLAIN },
		{ 1000000, 8, -1, 14, NF_CUCKOO_ENCODING_PLAIN },
		{ 0, -1, -1, NF_CUCKOO_FP_BITS_DEFAULT, NF_CUCKOO_ENCODING_PLAIN },
		{ 0, -1, NF_CUCKOO_ENCODING_SEMISORT, NF_CUCKOO_FP_BITS_DEFAULT,
		  NF_CUCKOO_ENCODING_SEMISORT },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char name[8];

		snprintf(name, sizeof(name), "e%zu", i);
		ASSERT_EQ(0, new_get(&self->s, name, c[i].fpr, c[i].bucket,
				     c[i].encoding, &self->rp)) {
			TH_LOG("case %zu: %s", i, self->rp.ext);
		}
		EXPECT_TRUE(self->rp.has_encoding);
		EXPECT_EQ(c[i].want_fp, self->rp.fp_bits) {
			TH_LOG("case %zu", i);
		}
		EXPECT_EQ(c[i].want_enc, self->rp.encoding) {
			TH_LOG("case %zu", i);
		}
	}
}

TEST_F(nfc, set_refuses_fixed_parameters)
{
	struct req r;

	ASSERT_EQ(0, nfcf_new(&self->s, "x", NF_CUCKOO_FAMILY_INET, NF_CUCKOO_KEY_ALL, &self->rp));
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_SET);
	put_str(&r, NF_CUCKOO_A_NAME, "x");
	put_u64(&r, NF_CUCKOO_A_CAPACITY, 5);
	EXPECT_EQ(-EINVAL, transact(&self->s, &r, &self->rp));
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_SET);
	put_str(&r, NF_CUCKOO_A_NAME, "x");
	put_u8(&r, NF_CUCKOO_A_INVERT, 1);
	EXPECT_EQ(0, transact(&self->s, &r, &self->rp));
}

TEST_F(nfc, get_never_reports_the_seed)
{
	struct req r;

	ASSERT_EQ(0, nfcf_new(&self->s, "x", NF_CUCKOO_FAMILY_INET, NF_CUCKOO_KEY_ALL, &self->rp));
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_GET);
	put_str(&r, NF_CUCKOO_A_NAME, "x");
	ASSERT_EQ(0, transact(&self->s, &r, &self->rp));
	EXPECT_EQ(1, self->rp.ndata);
	EXPECT_TRUE(self->rp.has_stats);
	EXPECT_FALSE(self->rp.has_seed);
	req_init(&r, self->s.fam, NLM_F_DUMP, NF_CUCKOO_CMD_GET);
	ASSERT_EQ(0, transact(&self->s, &r, &self->rp));
	EXPECT_EQ(1, self->rp.ndata);
	EXPECT_FALSE(self->rp.has_seed);
}

TEST_F(nfc, batch_bound)
{
	ASSERT_EQ(0, nfcf_new(&self->s, "x", NF_CUCKOO_FAMILY_INET, NF_CUCKOO_KEY_ALL, &self->rp));
	EXPECT_EQ(-E2BIG, nfcf_batch(&self->s, NF_CUCKOO_CMD_ADD_ENTRIES, "x", 0,
				     NF_CUCKOO_BATCH_MAX + 1, 0, &self->rp));
	EXPECT_EQ(0, nfcf_items(&self->s, "x"));
	EXPECT_EQ(0, nfcf_batch(&self->s, NF_CUCKOO_CMD_ADD_ENTRIES, "x", 0,
				NF_CUCKOO_BATCH_MAX, 0, &self->rp));
	EXPECT_EQ(NF_CUCKOO_BATCH_MAX, self->rp.done);
	EXPECT_EQ(NF_CUCKOO_BATCH_MAX, nfcf_items(&self->s, "x"));
}

TEST_F(nfc, batch_of_ipv6_entries_at_the_bound)
{
	struct req r;
	uint32_t i;

	ASSERT_EQ(0, nfcf_new(&self->s, "x", NF_CUCKOO_FAMILY_IPV6, NF_CUCKOO_KEY_ALL, &self->rp));
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_ADD_ENTRIES);
	put_str(&r, NF_CUCKOO_A_NAME, "x");
	for (i = 0; i < NF_CUCKOO_BATCH_MAX; i++)
		put_entry6(&r, (uint16_t)i);
	TH_LOG("%zu bytes", r.len);
	EXPECT_EQ(0, transact(&self->s, &r, &self->rp));
	EXPECT_EQ(NF_CUCKOO_BATCH_MAX, self->rp.done);
}

TEST_F(nfc, batch_malformed_entry_applies_nothing)
{
	struct req r;

	ASSERT_EQ(0, nfcf_new(&self->s, "x", NF_CUCKOO_FAMILY_INET, NF_CUCKOO_KEY_ALL, &self->rp));
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_ADD_ENTRIES);
	put_str(&r, NF_CUCKOO_A_NAME, "x");
	put_entry4(&r, 1, 2, 3, 4, 17, false);
	put_entry4(&r, 5, 6, 7, 8, 17, false);
	put_entry4(&r, 9, 10, 11, 12, 17, true);	/* no destination */
	EXPECT_EQ(-EINVAL, transact(&self->s, &r, &self->rp));
	EXPECT_TRUE(self->rp.has_fail);
	EXPECT_EQ(2, self->rp.fail_index);
	EXPECT_EQ(NF_CUCKOO_ENTRY_E_MALFORMED, self->rp.fail_reason);
	EXPECT_EQ(0, self->rp.done);
	EXPECT_NE(0, self->rp.ext[0]);
	EXPECT_EQ(0, nfcf_items(&self->s, "x"));
}

/* An IPv4 entry of two prefixes (a length of 0: no attribute). */
static void put_prefix4(struct req *r, uint32_t src, uint8_t splen,
			uint32_t dst, uint8_t dplen)
{
	src = htonl(src);
	dst = htonl(dst);
	nest_start(r, NF_CUCKOO_A_ENTRY);
	put_u8(r, NF_CUCKOO_ENTRY_A_FAMILY, NF_CUCKOO_FAMILY_IPV4);
	put(r, NF_CUCKOO_ENTRY_A_SRC, &src, 4);
	put(r, NF_CUCKOO_ENTRY_A_DST, &dst, 4);
	if (splen)
		put_u8(r, NF_CUCKOO_ENTRY_A_SRC_PLEN, splen);
	if (dplen)
		put_u8(r, NF_CUCKOO_ENTRY_A_DST_PLEN, dplen);
	nest_end(r);
}

static int prefix_batch(struct nls *s, uint8_t cmd, uint32_t src,
			uint8_t splen, uint32_t dst, uint8_t dplen,
			struct reply *rp)
{
	struct req r;

	req_init(&r, s->fam, NLM_F_ACK, cmd);
	put_str(&r, NF_CUCKOO_A_NAME, "p");
	put_prefix4(&r, src, splen, dst, dplen);
	return transact(s, &r, rp);
}

TEST_F(nfc, nested_prefixes)
{
	const uint32_t net10 = 0x0a000000, b = 0xc0000201;
	struct req r;
	uint8_t d;

	ASSERT_EQ(0, nfcf_new(&self->s, "p", NF_CUCKOO_FAMILY_INET,
			      NF_CUCKOO_KEY_SRC_ADDR | NF_CUCKOO_KEY_DST_ADDR,
			      &self->rp));
	EXPECT_EQ(0, prefix_batch(&self->s, NF_CUCKOO_CMD_ADD_ENTRIES, net10, 8,
				  b, 0, &self->rp));
	/* An address in 10/8, to b: in; outside: not; /32 is the address. */
	EXPECT_EQ(0, prefix_batch(&self->s, NF_CUCKOO_CMD_TEST_ENTRIES,
				  0x0a010203, 0, b, 32, &self->rp));
	EXPECT_EQ(1, self->rp.hits);
	EXPECT_EQ(0, prefix_batch(&self->s, NF_CUCKOO_CMD_TEST_ENTRIES,
				  0x0b000001, 0, b, 0, &self->rp));
	EXPECT_EQ(0, self->rp.hits);
	/* A prefix tests as itself: 10/8 in, 10/9 not. */
	EXPECT_EQ(0, prefix_batch(&self->s, NF_CUCKOO_CMD_TEST_ENTRIES,
				  net10, 8, b, 0, &self->rp));
	EXPECT_EQ(1, self->rp.hits);
	EXPECT_EQ(0, prefix_batch(&self->s, NF_CUCKOO_CMD_TEST_ENTRIES,
				  net10, 9, b, 0, &self->rp));
	EXPECT_EQ(0, self->rp.hits);

	/* Bad lengths and addresses: refused, the attribute named. */
	EXPECT_EQ(-ERANGE, prefix_batch(&self->s, NF_CUCKOO_CMD_ADD_ENTRIES,
					net10, 33, b, 0, &self->rp));
	EXPECT_NE(NULL, strstr(self->rp.ext, "past the end"));
	EXPECT_NE(0, self->rp.ext_offs);
	EXPECT_EQ(-ERANGE, prefix_batch(&self->s, NF_CUCKOO_CMD_ADD_ENTRIES,
					net10, 200, b, 0, &self->rp));
	EXPECT_EQ(-EINVAL, prefix_batch(&self->s, NF_CUCKOO_CMD_ADD_ENTRIES,
					0x0a000001, 8, b, 0, &self->rp));
	EXPECT_NE(NULL, strstr(self->rp.ext, "bits set"));
	EXPECT_EQ(NF_CUCKOO_ENTRY_E_MALFORMED, self->rp.fail_reason);
	/* A delete of a length not in use: refused, the table not asked. */
	EXPECT_EQ(-ENOENT, prefix_batch(&self->s, NF_CUCKOO_CMD_DEL_ENTRIES,
					net10, 12, b, 0, &self->rp));
	EXPECT_EQ(NF_CUCKOO_ENTRY_E_NOENT, self->rp.fail_reason);
	EXPECT_EQ(1, nfcf_items(&self->s, "p"));

	/* 31 more combinations (10/8 with b/1..b/31 is 32 with 10/8, b). */
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_ADD_ENTRIES);
	put_str(&r, NF_CUCKOO_A_NAME, "p");
	for (d = 1; d <= 31; d++)
		put_prefix4(&r, net10, 8, 0, d);
	EXPECT_EQ(0, transact(&self->s, &r, &self->rp));
	EXPECT_EQ(31, self->rp.done);
	/* The 33rd fails its batch, which is undone. */
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_ADD_ENTRIES);
	put_str(&r, NF_CUCKOO_A_NAME, "p");
	put_prefix4(&r, net10, 8, 0, 1);
	put_prefix4(&r, net10, 16, b, 0);
	EXPECT_EQ(-EOVERFLOW, transact(&self->s, &r, &self->rp));
	EXPECT_EQ(1, self->rp.fail_index);
	EXPECT_EQ(NF_CUCKOO_ENTRY_E_PREFIXES, self->rp.fail_reason);
	EXPECT_EQ(0, self->rp.done);
	EXPECT_EQ(32, nfcf_items(&self->s, "p"));
	/* Full addresses are no combination. */
	EXPECT_EQ(0, prefix_batch(&self->s, NF_CUCKOO_CMD_ADD_ENTRIES,
				  0x0a000001, 0, b, 0, &self->rp));
	/* Delete 10/8 -> b: its combination is retired, a 32nd fits again. */
	EXPECT_EQ(0, prefix_batch(&self->s, NF_CUCKOO_CMD_DEL_ENTRIES, net10, 8,
				  b, 0, &self->rp));
	EXPECT_EQ(0, prefix_batch(&self->s, NF_CUCKOO_CMD_ADD_ENTRIES, net10,
				  16, b, 0, &self->rp));
	EXPECT_EQ(33, nfcf_items(&self->s, "p"));
}

TEST_F(nfc, batch_wrong_family)
{
	struct req r;

	ASSERT_EQ(0, nfcf_new(&self->s, "x", NF_CUCKOO_FAMILY_IPV4, NF_CUCKOO_KEY_ALL, &self->rp));
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_ADD_ENTRIES);
	put_str(&r, NF_CUCKOO_A_NAME, "x");
	put_entry4(&r, 1, 2, 3, 4, 17, false);
	put_entry6(&r, 1);
	EXPECT_EQ(-EAFNOSUPPORT, transact(&self->s, &r, &self->rp));
	EXPECT_EQ(1, self->rp.fail_index);
	EXPECT_EQ(NF_CUCKOO_ENTRY_E_FAMILY, self->rp.fail_reason);
	EXPECT_EQ(0, nfcf_items(&self->s, "x"));
}

TEST_F(nfc, batch_delete_is_undone)
{
	ASSERT_EQ(0, nfcf_new(&self->s, "x", NF_CUCKOO_FAMILY_INET, NF_CUCKOO_KEY_ALL, &self->rp));
	ASSERT_EQ(0, nfcf_batch(&self->s, NF_CUCKOO_CMD_ADD_ENTRIES, "x", 0, 10, 0, &self->rp));
	/* 5..14: 10..14 were never added */
	EXPECT_EQ(-ENOENT, nfcf_batch(&self->s, NF_CUCKOO_CMD_DEL_ENTRIES, "x", 5, 15, 0,
				      &self->rp));
	EXPECT_EQ(5, self->rp.fail_index);
	EXPECT_EQ(NF_CUCKOO_ENTRY_E_NOENT, self->rp.fail_reason);
	EXPECT_EQ(0, self->rp.done);
	EXPECT_EQ(10, nfcf_items(&self->s, "x"));
	EXPECT_EQ(0, nfcf_batch(&self->s, NF_CUCKOO_CMD_TEST_ENTRIES, "x", 0, 10, 0, &self->rp));
	EXPECT_EQ(10, self->rp.hits);
}

TEST_F(nfc, batch_flags)
{
	ASSERT_EQ(0, nfcf_new(&self->s, "x", NF_CUCKOO_FAMILY_INET, NF_CUCKOO_KEY_ALL, &self->rp));
	ASSERT_EQ(0, nfcf_batch(&self->s, NF_CUCKOO_CMD_ADD_ENTRIES, "x", 0, 10, 0, &self->rp));
	EXPECT_EQ(0, nfcf_batch(&self->s, NF_CUCKOO_CMD_ADD_ENTRIES, "x", 5, 15,
				NF_CUCKOO_BATCH_F_UNIQUE, &self->rp));
	EXPECT_EQ(5, self->rp.done);
	EXPECT_EQ(5, self->rp.skipped);
	EXPECT_EQ(15, nfcf_items(&self->s, "x"));
	EXPECT_EQ(0, nfcf_batch(&self->s, NF_CUCKOO_CMD_DEL_ENTRIES, "x", 10, 20,
				NF_CUCKOO_BATCH_F_MISSING_OK, &self->rp));
	EXPECT_EQ(5, self->rp.done);
	EXPECT_EQ(5, self->rp.skipped);
	EXPECT_EQ(10, nfcf_items(&self->s, "x"));
	/* A flag of the other command. */
	EXPECT_EQ(-EINVAL, nfcf_batch(&self->s, NF_CUCKOO_CMD_ADD_ENTRIES, "x", 0, 1,
				      NF_CUCKOO_BATCH_F_MISSING_OK, &self->rp));
	EXPECT_EQ(10, nfcf_items(&self->s, "x"));
}

TEST_F(nfc, test_bitmap)
{
	uint32_t i;

	ASSERT_EQ(0, nfcf_new(&self->s, "x", NF_CUCKOO_FAMILY_INET, NF_CUCKOO_KEY_ALL, &self->rp));
	ASSERT_EQ(0, nfcf_batch(&self->s, NF_CUCKOO_CMD_ADD_ENTRIES, "x", 0, 100, 0, &self->rp));
	/* 50..149: the first 50 are in, with 32-bit fingerprints no other */
	ASSERT_EQ(0, nfcf_batch(&self->s, NF_CUCKOO_CMD_TEST_ENTRIES, "x", 50, 150, 0,
				&self->rp));
	EXPECT_EQ(100, self->rp.done);
	EXPECT_EQ(50, self->rp.hits);
	EXPECT_EQ(13, self->rp.bitmap_len);
	for (i = 0; i < 100; i++)
		EXPECT_EQ(i < 50, bit(&self->rp, i));
}

/* Packed records hash as the nests of the same entries do. */
TEST_F(nfc, packed_entries_are_the_nested_ones)
{
	const uint32_t n = NF_CUCKOO_ENTRIES_PACKED_BYTES / sizeof(struct nf_cuckoo_entry_ipv4);
	struct req r;

	ASSERT_EQ(0, nfcf_new(&self->s, "x", NF_CUCKOO_FAMILY_INET, NF_CUCKOO_KEY_ALL, &self->rp));
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_ADD_ENTRIES);
	put_str(&r, NF_CUCKOO_A_NAME, "x");
	put_packed4(&r, 0, n, NO_BAD);
	put_packed4(&r, n, NF_CUCKOO_BATCH_MAX, NO_BAD);
	ASSERT_EQ(0, transact(&self->s, &r, &self->rp));
	EXPECT_EQ(NF_CUCKOO_BATCH_MAX, self->rp.done);
	EXPECT_EQ(NF_CUCKOO_BATCH_MAX, nfcf_items(&self->s, "x"));
	EXPECT_EQ(0, nfcf_batch(&self->s, NF_CUCKOO_CMD_TEST_ENTRIES, "x", 0,
				NF_CUCKOO_BATCH_MAX, 0, &self->rp));
	EXPECT_EQ(NF_CUCKOO_BATCH_MAX, self->rp.hits);
	EXPECT_EQ(0, nfcf_batch(&self->s, NF_CUCKOO_CMD_DEL_ENTRIES, "x", 0,
				NF_CUCKOO_BATCH_MAX, 0, &self->rp));
	EXPECT_EQ(0, nfcf_items(&self->s, "x"));

	/* IPv6: nested in, packed out. */
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_ADD_ENTRIES);
	put_str(&r, NF_CUCKOO_A_NAME, "x");
	put_entry6(&r, 7);
	put_entry6(&r, 300);
	ASSERT_EQ(0, transact(&self->s, &r, &self->rp));
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_TEST_ENTRIES);
	put_str(&r, NF_CUCKOO_A_NAME, "x");
	put_packed6(&r, 0, 1638);
	ASSERT_EQ(0, transact(&self->s, &r, &self->rp));
	EXPECT_EQ(1638, self->rp.done);
	EXPECT_EQ(2, self->rp.hits);
	EXPECT_TRUE(bit(&self->rp, 7));
	EXPECT_TRUE(bit(&self->rp, 300));
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_DEL_ENTRIES);
	put_str(&r, NF_CUCKOO_A_NAME, "x");
	put_packed6(&r, 300, 301);
	put_packed6(&r, 7, 8);
	ASSERT_EQ(0, transact(&self->s, &r, &self->rp));
	EXPECT_EQ(0, nfcf_items(&self->s, "x"));
}

/* An index counts nests and records alike, in message order. */
TEST_F(nfc, packed_entry_index_and_padding)
{
	struct req r;

	ASSERT_EQ(0, nfcf_new(&self->s, "x", NF_CUCKOO_FAMILY_INET, NF_CUCKOO_KEY_ALL, &self->rp));
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_ADD_ENTRIES);
	put_str(&r, NF_CUCKOO_A_NAME, "x");
	put_entry4(&r, 1, 2, 3, 4, 17, false);
	put_packed4(&r, 10, 14, 12);		/* entries 1..4; 3 is bad */
	put_entry4(&r, 5, 6, 7, 8, 17, false);
	EXPECT_EQ(-EINVAL, transact(&self->s, &r, &self->rp));
	EXPECT_TRUE(self->rp.has_fail);
	EXPECT_EQ(3, self->rp.fail_index);
	EXPECT_EQ(NF_CUCKOO_ENTRY_E_MALFORMED, self->rp.fail_reason);
	EXPECT_EQ(0, self->rp.done);
	EXPECT_NE(NULL, strstr(self->rp.ext, "padding"));
	TH_LOG("extack: %s", self->rp.ext);
	EXPECT_EQ(0, nfcf_items(&self->s, "x"));

	/* Absent at entry 4 of 6: the packed ones before it are undone too. */
	ASSERT_EQ(0, nfcf_new(&self->s, "t", NF_CUCKOO_FAMILY_IPV4, NF_CUCKOO_KEY_ALL, &self->rp));
	ASSERT_EQ(0, nfcf_batch(&self->s, NF_CUCKOO_CMD_ADD_ENTRIES, "t", 100, 104, 0,
				&self->rp));
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_DEL_ENTRIES);
	put_str(&r, NF_CUCKOO_A_NAME, "t");
	put_packed4(&r, 100, 103, NO_BAD);
	put_entry4(&r, 0x0a000000 + 103, 0xc0000201, 1000 + 103, 53, 17, false);
	put_packed4(&r, 200, 202, NO_BAD);	/* entries 4, 5: never added */
	EXPECT_EQ(-ENOENT, transact(&self->s, &r, &self->rp));
	EXPECT_EQ(4, self->rp.fail_index);
	EXPECT_EQ(NF_CUCKOO_ENTRY_E_NOENT, self->rp.fail_reason);
	EXPECT_EQ(4, nfcf_items(&self->s, "t"));
}

TEST_F(nfc, packed_entries_checked)
{
	uint8_t rec[2 * sizeof(struct nf_cuckoo_entry_ipv6)] = { 0 };
	/* Not whole records, or none. */
	static const struct { int type; uint16_t len; } bad[] = {
		{ NF_CUCKOO_A_ENTRIES_IPV4, 15 }, { NF_CUCKOO_A_ENTRIES_IPV4, 17 },
		{ NF_CUCKOO_A_ENTRIES_IPV4, 0 }, { NF_CUCKOO_A_ENTRIES_IPV6, 16 },
		{ NF_CUCKOO_A_ENTRIES_IPV6, 41 }, { NF_CUCKOO_A_ENTRIES_IPV6, 0 },
	};
	struct req r;
	size_t i;

	ASSERT_EQ(0, nfcf_new(&self->s, "x", NF_CUCKOO_FAMILY_IPV4, NF_CUCKOO_KEY_ALL, &self->rp));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_ADD_ENTRIES);
		put_str(&r, NF_CUCKOO_A_NAME, "x");
		put(&r, bad[i].type, rec, bad[i].len);
		EXPECT_EQ(-EINVAL, transact(&self->s, &r, &self->rp)) {
			TH_LOG("type %d, %u bytes", bad[i].type, bad[i].len);
		}
		EXPECT_NE(0, self->rp.ext[0]);
	}
	/* A family the filter does not hold. */
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_ADD_ENTRIES);
	put_str(&r, NF_CUCKOO_A_NAME, "x");
	put_packed4(&r, 0, 2, NO_BAD);
	put_packed6(&r, 0, 1);
	EXPECT_EQ(-EAFNOSUPPORT, transact(&self->s, &r, &self->rp));
	EXPECT_EQ(2, self->rp.fail_index);
	EXPECT_EQ(NF_CUCKOO_ENTRY_E_FAMILY, self->rp.fail_reason);
	/* The bound counts records. */
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_ADD_ENTRIES);
	put_str(&r, NF_CUCKOO_A_NAME, "x");
	put_packed4(&r, 0, 4095, NO_BAD);
	put_packed4(&r, 4095, 4097, NO_BAD);
	EXPECT_EQ(-E2BIG, transact(&self->s, &r, &self->rp));
	/* Not in a request that takes no entries. */
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_FLUSH);
	put_str(&r, NF_CUCKOO_A_NAME, "x");
	put_packed4(&r, 0, 1, NO_BAD);
	EXPECT_EQ(-EINVAL, transact(&self->s, &r, &self->rp));
	EXPECT_EQ(0, nfcf_items(&self->s, "x"));
}

/* SAVE "x" into rp (table malloc'ed). */
static int save(struct nls *s, const char *name, struct reply *rp)
{
	struct req r;

	req_init(&r, s->fam, NLM_F_DUMP, NF_CUCKOO_CMD_SAVE);
	put_str(&r, NF_CUCKOO_A_NAME, name);
	return transact(s, &r, rp);
}

static int load_begin(struct nls *s, const char *name, const struct reply *saved,
		      struct reply *rp)
{
	struct req r;

	req_init(&r, s->fam, NLM_F_ACK, NF_CUCKOO_CMD_LOAD_BEGIN);
	put_str(&r, NF_CUCKOO_A_NAME, name);
	put_u8(&r, NF_CUCKOO_A_FAMILY, NF_CUCKOO_FAMILY_INET);
	put(&r, NF_CUCKOO_A_IMAGE_HEADER, saved->image, saved->image_len);
	return transact(s, &r, rp);
}

static int load_chunk(struct nls *s, const char *name, const uint8_t *table,
		      uint64_t off, uint32_t len, struct reply *rp)
{
	struct req r;

	req_init(&r, s->fam, NLM_F_ACK, NF_CUCKOO_CMD_LOAD_CHUNK);
	put_str(&r, NF_CUCKOO_A_NAME, name);
	put_u64(&r, NF_CUCKOO_A_CHUNK_OFFSET, off);
	put(&r, NF_CUCKOO_A_CHUNK_DATA, table + off, len);
	return transact(s, &r, rp);
}

TEST_F(nfc, save_and_load_round_trip)
{
	struct reply saved, rp;
	uint64_t off;
	struct req r;

	ASSERT_EQ(0, nfcf_new(&self->s, "x", NF_CUCKOO_FAMILY_INET, NF_CUCKOO_KEY_ALL, &rp));
	ASSERT_EQ(0, nfcf_batch(&self->s, NF_CUCKOO_CMD_ADD_ENTRIES, "x", 0, 3000, 0, &rp));
	ASSERT_EQ(0, save(&self->s, "x", &saved));
	EXPECT_FALSE(saved.intr);
	EXPECT_FALSE(saved.chunk_bad);
	ASSERT_GT(saved.image_len, 0);
	ASSERT_GT(saved.table_bytes, NF_CUCKOO_CHUNK_MAX);	/* several chunks */
	EXPECT_EQ(saved.table_bytes, saved.got);
	TH_LOG("image header %d bytes, table %llu bytes in %d messages",
	       saved.image_len, (unsigned long long)saved.table_bytes, saved.ndata);

	ASSERT_EQ(0, load_begin(&self->s, "y", &saved, &rp));
	for (off = 0; off < saved.table_bytes; off += 4096) {
		uint32_t len = saved.table_bytes - off < 4096 ?
			       saved.table_bytes - off : 4096;

		ASSERT_EQ(0, load_chunk(&self->s, "y", saved.table, off, len, &rp));
	}
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_LOAD_END);
	put_str(&r, NF_CUCKOO_A_NAME, "y");
	ASSERT_EQ(0, transact(&self->s, &r, &rp));
	EXPECT_EQ(3000, nfcf_items(&self->s, "y"));
	EXPECT_EQ(0, nfcf_batch(&self->s, NF_CUCKOO_CMD_TEST_ENTRIES, "y", 0, 3000, 0, &rp));
	EXPECT_EQ(3000, rp.hits);
	free(saved.table);
}

/* A semi-sorted filter: an image of version 4, loaded semi-sorted. */
TEST_F(nfc, save_and_load_semisort)
{
	struct reply saved, rp;
	uint16_t version;
	uint64_t off;
	struct req r;

	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_NEW);
	put_str(&r, NF_CUCKOO_A_NAME, "x");
	put_u8(&r, NF_CUCKOO_A_FAMILY, NF_CUCKOO_FAMILY_INET);
	put_u64(&r, NF_CUCKOO_A_CAPACITY, 10000);
	put_u8(&r, NF_CUCKOO_A_FP_BITS, 16);
	put_u8(&r, NF_CUCKOO_A_ENCODING, NF_CUCKOO_ENCODING_SEMISORT);
	ASSERT_EQ(0, transact(&self->s, &r, &rp));
	ASSERT_EQ(0, nfcf_batch(&self->s, NF_CUCKOO_CMD_ADD_ENTRIES, "x", 0, 3000, 0, &rp));
	ASSERT_EQ(0, save(&self->s, "x", &saved));
	EXPECT_EQ(NF_CUCKOO_ENCODING_SEMISORT, saved.encoding);
	ASSERT_GE(saved.image_len, 6);
	memcpy(&version, saved.image + 4, sizeof(version));
	EXPECT_EQ(4, version);
	ASSERT_EQ(saved.table_bytes, saved.got);

	ASSERT_EQ(0, load_begin(&self->s, "y", &saved, &rp));
	for (off = 0; off < saved.table_bytes; off += 4096) {
		uint32_t len = saved.table_bytes - off < 4096 ?
			       saved.table_bytes - off : 4096;

		ASSERT_EQ(0, load_chunk(&self->s, "y", saved.table, off, len, &rp));
	}
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_LOAD_END);
	put_str(&r, NF_CUCKOO_A_NAME, "y");
	ASSERT_EQ(0, transact(&self->s, &r, &rp));
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_GET);
	put_str(&r, NF_CUCKOO_A_NAME, "y");
	ASSERT_EQ(0, transact(&self->s, &r, &rp));
	EXPECT_EQ(NF_CUCKOO_ENCODING_SEMISORT, rp.encoding);
	EXPECT_EQ(3000, rp.items);
	EXPECT_EQ(0, nfcf_batch(&self->s, NF_CUCKOO_CMD_TEST_ENTRIES, "y", 0, 3000, 0, &rp));
	EXPECT_EQ(3000, rp.hits);
	free(saved.table);
}

TEST_F(nfc, loading_filter_is_busy_and_goes_with_its_socket)
{
	struct reply saved, rp;
	struct nls other;
	struct req r;

	ASSERT_EQ(0, nfcf_new(&self->s, "x", NF_CUCKOO_FAMILY_INET, NF_CUCKOO_KEY_ALL, &rp));
	ASSERT_EQ(0, save(&self->s, "x", &saved));
	ASSERT_EQ(0, nls_open(&other));
	ASSERT_EQ(0, load_begin(&other, "y", &saved, &rp));

	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_GET);
	put_str(&r, NF_CUCKOO_A_NAME, "y");
	ASSERT_EQ(0, transact(&self->s, &r, &rp));
	EXPECT_TRUE(rp.has_loading);
	EXPECT_EQ(1, rp.loading);
	EXPECT_EQ(-EBUSY, nfcf_batch(&self->s, NF_CUCKOO_CMD_ADD_ENTRIES, "y", 0, 1, 0, &rp));
	EXPECT_EQ(-EBUSY, nfcf_batch(&self->s, NF_CUCKOO_CMD_TEST_ENTRIES, "y", 0, 1, 0, &rp));
	EXPECT_EQ(-EBUSY, load_chunk(&self->s, "y", saved.table, 0, 8, &rp));
	EXPECT_EQ(-EEXIST, nfcf_new(&self->s, "y", NF_CUCKOO_FAMILY_INET, NF_CUCKOO_KEY_ALL, &rp));

	close(other.fd);
	usleep(100000);
	EXPECT_EQ((uint64_t)-1, nfcf_items(&self->s, "y"));
	free(saved.table);
}

TEST_F(nfc, load_out_of_order_or_short_leaves_nothing)
{
	struct reply saved, rp;
	struct req r;

	ASSERT_EQ(0, nfcf_new(&self->s, "x", NF_CUCKOO_FAMILY_INET, NF_CUCKOO_KEY_ALL, &rp));
	ASSERT_EQ(0, save(&self->s, "x", &saved));
	ASSERT_GT(saved.table_bytes, 16);

	ASSERT_EQ(0, load_begin(&self->s, "y", &saved, &rp));
	EXPECT_NE(0, load_chunk(&self->s, "y", saved.table, 8, 8, &rp));
	TH_LOG("out of order: %s", rp.ext);
	EXPECT_EQ((uint64_t)-1, nfcf_items(&self->s, "y"));

	ASSERT_EQ(0, load_begin(&self->s, "y", &saved, &rp));
	ASSERT_EQ(0, load_chunk(&self->s, "y", saved.table, 0, 8, &rp));
	req_init(&r, self->s.fam, NLM_F_ACK, NF_CUCKOO_CMD_LOAD_END);
	put_str(&r, NF_CUCKOO_A_NAME, "y");
	EXPECT_NE(0, transact(&self->s, &r, &rp));
	TH_LOG("short: %s", rp.ext);
	EXPECT_EQ((uint64_t)-1, nfcf_items(&self->s, "y"));
	free(saved.table);
}

TEST_F(nfc, save_of_missing_filter)
{
	struct reply rp;

	EXPECT_EQ(-ENOENT, save(&self->s, "nosuch", &rp));
	EXPECT_NE(0, rp.ext[0]);
}

/*
 * The harness of 6.1 runs a test's body even when its setup skipped, so
 * skip the whole program here when the tests cannot run.
 */
int main(int argc, char **argv)
{
	struct nls s;
	int err;

	if (geteuid()) {
		ksft_print_header();
		ksft_exit_skip("must run as root\n");
	}
	err = nls_open(&s);
	if (err) {
		ksft_print_header();
		ksft_exit_skip("nf_cuckoo is not loaded (generic netlink family %s: %s)\n",
			       NF_CUCKOO_GENL_NAME, strerror(-err));
	}
	close(s.fd);
	return test_harness_run(argc, argv);
}
