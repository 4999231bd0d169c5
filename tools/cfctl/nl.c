// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: netlink plumbing (see nl.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nl.h"

const struct cfnl_backend *cfnl_backend = &cfnl_sock_backend;

int cfnl_open(struct cfnl *nl)
{
	const struct cfnl_backend *be = cfnl_backend;

	if (be->open(nl))
		return -1;
	nl->be = be;
	return 0;
}

void cfnl_close(struct cfnl *nl)
{
	if (nl->be)
		nl->be->close(nl);
	nl->be = NULL;
}

int cfnl_send(struct cfnl *nl, struct nl_msg *msg, uint32_t *seq)
{
	return nl->be->send(nl, msg, seq);
}

int cfnl_recv(struct cfnl *nl, bool block, cfnl_cb cb, void *arg)
{
	return nl->be->recv(nl, block, cb, arg);
}

int cfnl_join(struct cfnl *nl, const char *group, int rcvbuf)
{
	if (!nl->be->join) {
		errmsg("this backend sends no events");
		return -1;
	}
	return nl->be->join(nl, group, rcvbuf);
}

struct nl_msg *cfnl_msg(struct cfnl *nl, uint8_t cmd, int flags, size_t size)
{
	struct nl_msg *msg;

	msg = size ? nlmsg_alloc_size(size) : nlmsg_alloc();
	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
			 NLM_F_REQUEST | flags, cmd, NF_CUCKOO_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static void parse_tlvs(const uint8_t *p, int len, struct nlerr *e)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];

	if (len <= 0)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)p, len, NULL))
		return;
	if (tb[NLMSGERR_ATTR_MSG]) {
		int l = nla_len(tb[NLMSGERR_ATTR_MSG]);

		if (l > (int)sizeof(e->msg) - 1)
			l = (int)sizeof(e->msg) - 1;
		memcpy(e->msg, nla_data(tb[NLMSGERR_ATTR_MSG]), (size_t)l);
		e->msg[l] = 0;
		/* Drop a trailing newline, if any. */
		while (l > 0 && (e->msg[l - 1] == '\n' || e->msg[l - 1] == 0))
			e->msg[--l] = 0;
	}
	if (tb[NLMSGERR_ATTR_OFFS] && nla_len(tb[NLMSGERR_ATTR_OFFS]) >= 4) {
		e->has_offs = true;
		e->offs = nla_get_u32(tb[NLMSGERR_ATTR_OFFS]);
	}
	if (tb[NLMSGERR_ATTR_MISS_TYPE] &&
	    nla_len(tb[NLMSGERR_ATTR_MISS_TYPE]) >= 4) {
		e->has_miss = true;
		e->miss_type = nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
	}
}

static void parse_error(struct nlmsghdr *nlh, struct nlerr *e)
{
	const struct nlmsgerr *me = NLMSG_DATA(nlh);
	int plen = (int)nlh->nlmsg_len - NLMSG_HDRLEN;
	int off;

	memset(e, 0, sizeof(*e));
	if (plen < (int)sizeof(int)) {
		e->err = -EBADMSG;
		return;
	}
	e->err = me->error;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || plen < (int)sizeof(*me))
		return;
	if (nlh->nlmsg_flags & NLM_F_CAPPED)
		off = (int)NLMSG_ALIGN(sizeof(*me));
	else
		off = (int)NLMSG_ALIGN(sizeof(int) + me->msg.nlmsg_len);
	parse_tlvs((const uint8_t *)NLMSG_DATA(nlh) + off, plen - off, e);
}

static void parse_done(struct nlmsghdr *nlh, struct nlerr *e)
{
	int plen = (int)nlh->nlmsg_len - NLMSG_HDRLEN;

	memset(e, 0, sizeof(*e));
	if (plen >= (int)sizeof(int))
		memcpy(&e->err, NLMSG_DATA(nlh), sizeof(int));
	if (e->err > 0)
		e->err = 0;
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) && plen > (int)sizeof(int))
		parse_tlvs((const uint8_t *)NLMSG_DATA(nlh) + NLMSG_ALIGN(sizeof(int)),
			   plen - (int)NLMSG_ALIGN(sizeof(int)), e);
}

void cfnl_dispatch(uint8_t *buf, size_t len, cfnl_cb cb, void *arg)
{
	struct nlmsghdr *nlh;
	struct nlerr e;
	size_t rem = len;

	for (nlh = (struct nlmsghdr *)buf;
	     rem >= sizeof(*nlh) && nlh->nlmsg_len >= sizeof(*nlh) &&
	     nlh->nlmsg_len <= rem;
	     rem -= NLMSG_ALIGN(nlh->nlmsg_len) < rem ?
		    NLMSG_ALIGN(nlh->nlmsg_len) : rem,
	     nlh = (struct nlmsghdr *)((uint8_t *)nlh +
				       NLMSG_ALIGN(nlh->nlmsg_len))) {
		switch (nlh->nlmsg_type) {
		case NLMSG_NOOP:
		case NLMSG_OVERRUN:
			break;
		case NLMSG_ERROR:
			parse_error(nlh, &e);
			cb(arg, nlh, CFNL_ACK, &e);
			break;
		case NLMSG_DONE:
			parse_done(nlh, &e);
			cb(arg, nlh, CFNL_DONE, &e);
			break;
		default:
			cb(arg, nlh, CFNL_DATA, NULL);
			break;
		}
	}
}

struct transact {
	uint32_t seq;
	bool done;
	struct nlerr *e;
	void (*data_cb)(struct nlmsghdr *nlh, void *arg);
	void *arg;
};

static void transact_cb(void *arg, struct nlmsghdr *nlh, enum cfnl_kind kind,
			const struct nlerr *e)
{
	struct transact *t = arg;

	if (nlh->nlmsg_seq != t->seq || t->done)
		return;
	if (kind == CFNL_DATA) {
		if (t->data_cb)
			t->data_cb(nlh, t->arg);
		return;
	}
	*t->e = *e;
	t->done = true;
}

int cfnl_transact(struct cfnl *nl, struct nl_msg *msg,
		  void (*data_cb)(struct nlmsghdr *nlh, void *arg), void *arg,
		  struct nlerr *e)
{
	struct transact t = { .e = e, .data_cb = data_cb, .arg = arg };
	int err;

	memset(e, 0, sizeof(*e));
	err = cfnl_send(nl, msg, &t.seq);
	if (err) {
		e->err = err;
		return err;
	}
	while (!t.done) {
		err = cfnl_recv(nl, true, transact_cb, &t);
		if (err) {
			memset(e, 0, sizeof(*e));
			e->err = err;
			if (err == -ENOBUFS)
				snprintf(e->msg, sizeof(e->msg),
					 "replies from the kernel were lost (socket receive buffer overrun)");
			return err;
		}
	}
	return e->err;
}

static const char *const attr_names[] = {
	[NF_CUCKOO_A_PAD] = "pad",
	[NF_CUCKOO_A_NAME] = "name",
	[NF_CUCKOO_A_FAMILY] = "family",
	[NF_CUCKOO_A_KEY_FIELDS] = "key",
	[NF_CUCKOO_A_CAPACITY] = "capacity",
	[NF_CUCKOO_A_FP_BITS] = "fingerprint",
	[NF_CUCKOO_A_FPR] = "fpr",
	[NF_CUCKOO_A_BUCKET_SIZE] = "bucket",
	[NF_CUCKOO_A_ENCODING] = "semisort",
	[NF_CUCKOO_A_MAX_KICKS] = "kicks",
	[NF_CUCKOO_A_SEED] = "seed",
	[NF_CUCKOO_A_HOOK] = "hook",
	[NF_CUCKOO_A_PRIORITY] = "priority",
	[NF_CUCKOO_A_ACTION] = "action",
	[NF_CUCKOO_A_MARK] = "mark",
	[NF_CUCKOO_A_MARK_MASK] = "mark mask",
	[NF_CUCKOO_A_BIDIRECTIONAL] = "bidirectional",
	[NF_CUCKOO_A_INVERT] = "invert",
	[NF_CUCKOO_A_ENABLED] = "enabled",
	[NF_CUCKOO_A_STATS] = "stats",
	[NF_CUCKOO_A_ENTRY] = "entry",
	[NF_CUCKOO_A_BATCH_FLAGS] = "batch flags",
	[NF_CUCKOO_A_BATCH_DONE] = "batch done",
	[NF_CUCKOO_A_BATCH_SKIPPED] = "batch skipped",
	[NF_CUCKOO_A_BATCH_FAIL_INDEX] = "batch fail index",
	[NF_CUCKOO_A_BATCH_FAIL_REASON] = "batch fail reason",
	[NF_CUCKOO_A_TEST_HITS] = "test hits",
	[NF_CUCKOO_A_TEST_BITMAP] = "test bitmap",
	[NF_CUCKOO_A_IMAGE_HEADER] = "image header",
	[NF_CUCKOO_A_IMAGE_TABLE_BYTES] = "image table bytes",
	[NF_CUCKOO_A_CHUNK_OFFSET] = "chunk offset",
	[NF_CUCKOO_A_CHUNK_DATA] = "chunk data",
	[NF_CUCKOO_A_LOADING] = "loading",
	[NF_CUCKOO_A_GROW] = "grow",
	[NF_CUCKOO_A_GROW_FACTOR] = "factor",
	[NF_CUCKOO_A_STAGES_MAX] = "stages",
	[NF_CUCKOO_A_NAME2] = "second filter name",
	[NF_CUCKOO_A_ID] = "id",
	[NF_CUCKOO_A_IFINDEX] = "device index",
	[NF_CUCKOO_A_BIND_POINT] = "attach point",
	[NF_CUCKOO_A_PROG_ID] = "program id",
};

const char *nfcf_attr_name(int t)
{
	if (t > 0 && t < (int)(sizeof(attr_names) / sizeof(attr_names[0])) &&
	    attr_names[t])
		return attr_names[t];
	return NULL;
}

/* The top-level attribute of msg that holds byte offs, if any. */
static int attr_at(struct nl_msg *msg, uint32_t offs)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	uint32_t start = NLMSG_HDRLEN + GENL_HDRLEN;
	struct nlattr *a;
	int rem;

	if (offs < start || offs >= nlh->nlmsg_len)
		return -1;
	nla_for_each_attr(a, (struct nlattr *)((uint8_t *)nlh + start),
			  (int)(nlh->nlmsg_len - start), rem) {
		uint32_t ao = (uint32_t)((uint8_t *)a - (uint8_t *)nlh);

		if (offs >= ao && offs < ao + NLA_ALIGN(a->nla_len))
			return nla_type(a);
	}
	return -1;
}

void nlerr_format(const struct nlerr *e, struct nl_msg *msg, char *buf,
		  size_t len)
{
	const char *what = NULL;
	char extra[96] = "";
	int t;

	if (e->has_offs && msg) {
		t = attr_at(msg, e->offs);
		what = nfcf_attr_name(t);
		/* The name and entries are clear from the message. */
		if (what && t != NF_CUCKOO_A_ENTRY && t != NF_CUCKOO_A_NAME)
			snprintf(extra, sizeof(extra), " [attribute: %s]", what);
	}
	if (e->has_miss) {
		what = nfcf_attr_name((int)e->miss_type);
		if (what)
			snprintf(extra, sizeof(extra), " [missing attribute: %s]",
				 what);
	}
	if (e->msg[0])
		snprintf(buf, len, "%s%s (%s)", e->msg, extra, strerror(-e->err));
	else
		snprintf(buf, len, "%s%s", strerror(-e->err), extra);
}

int cfnl_parse(struct nlmsghdr *nlh, struct nlattr **tb)
{
	return genlmsg_parse(nlh, 0, tb, NF_CUCKOO_A_MAX, NULL);
}
