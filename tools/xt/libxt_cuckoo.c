// SPDX-License-Identifier: GPL-2.0
/*
 * iptables' and ip6tables' side of the match "cuckoo" (kmod/match.c):
 *
 *   iptables -A FORWARD -i wan0 -m cuckoo --filter bl -j DROP
 *
 * Loaded by iptables (legacy and nft) from its extension directory.
 * When a rule is parsed it asks the module, over nf_cuckoo's generic
 * netlink family, whether the filter exists and holds keys of the rule's
 * family, so a mistake is refused with its reason here, as -m set asks
 * ipset; the kernel checks again when the rule is added.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <xtables.h>

#include "../../uapi/linux/nf_cuckoo.h"

enum {
	O_FILTER,
	O_REVERSE,
};

static const struct xt_option_entry cuckoo_opts[] = {
	{
		.name = "filter", .id = O_FILTER, .type = XTTYPE_STRING,
		.flags = XTOPT_MAND | XTOPT_INVERT | XTOPT_PUT,
		.min = 1, .max = NF_CUCKOO_NAME_MAXLEN - 1,
		XTOPT_POINTER(struct xt_cuckoo_mtinfo, name),
	},
	{ .name = "reverse", .id = O_REVERSE, .type = XTTYPE_NONE },
	XTOPT_TABLEEND,
};

static void cuckoo_help(void)
{
	printf(
"cuckoo match options:\n"
"[!] --filter NAME    match packets whose flow is (probably) in the\n"
"                     nf_cuckoo filter NAME (cfctl create NAME ...), with !\n"
"                     those not in it; the key is the filter's own\n"
"                     (cfctl show NAME: key, prefixes, bidirectional)\n"
" --reverse           look the packet up with source and destination\n"
"                     (addresses and ports) exchanged: a source-keyed\n"
"                     blocklist then matches replies and outbound packets\n"
"A filter of \"hook none\" serves rules only; one a rule uses cannot be\n"
"destroyed.  A cuckoo filter answers \"probably\": about 2b/2^f of other\n"
"flows match too (0.2%% for the default fingerprint 12).  See cfctl(8).\n");
}

static bool cuckoo_name_ok(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '.' ||
		      *s == '-'))
			return false;
	return true;
}

static void cuckoo_parse(struct xt_option_call *cb)
{
	struct xt_cuckoo_mtinfo *info = cb->data;

	xtables_option_parse(cb);
	switch (cb->entry->id) {
	case O_FILTER:
		if (!cuckoo_name_ok(info->name))
			xtables_error(PARAMETER_PROBLEM,
				      "cuckoo: \"%s\" is not a filter name (letters, digits, _ . -)",
				      cb->arg);
		if (cb->invert)
			info->flags |= XT_CUCKOO_INVERT;
		break;
	case O_REVERSE:
		info->flags |= XT_CUCKOO_REVERSE;
		break;
	}
}

/* ---- asking the module about the filter ---- */

struct cuckoo_req {
	struct nlmsghdr nh;
	struct genlmsghdr gh;
	char attrs[64];
};

static void cuckoo_put_str(struct cuckoo_req *r, unsigned short type,
			   const char *s)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));
	size_t len = strlen(s) + 1;

	a->nla_type = type;
	a->nla_len = (unsigned short)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, s, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/*
 * Send @r and read its answer into @buf.  Return: the answer's length,
 * or -errno (the kernel's error, or the socket's).
 */
static int cuckoo_talk(int fd, struct cuckoo_req *r, char *buf, size_t size)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	ssize_t n;

	/* No NLM_F_ACK: an answer, or an error, is all that comes back. */
	r->nh.nlmsg_flags = NLM_F_REQUEST;
	if (send(fd, r, r->nh.nlmsg_len, 0) < 0)
		return -errno;
	n = recv(fd, buf, size, 0);
	if (n < 0)
		return -errno;
	if (!NLMSG_OK(nh, (size_t)n))
		return -EPROTO;
	if (nh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(nh);

		return e->error ? e->error : -EPROTO;
	}
	return (int)n;
}

/* The attribute @type of the genetlink message in @buf, or NULL. */
static const struct nlattr *cuckoo_attr(const char *buf, int len,
					unsigned short type)
{
	const struct nlmsghdr *nh = (const struct nlmsghdr *)buf;
	const char *p = buf + NLMSG_HDRLEN + GENL_HDRLEN;
	const char *end = buf + (nh->nlmsg_len < (unsigned int)len ? nh->nlmsg_len : (unsigned int)len);

	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const struct nlattr *)p;

		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		p += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

/*
 * The filter @name's family (enum nf_cuckoo_family) and whether it is
 * being restored.  Return: 0, -ENOENT (no such filter), or another -errno
 * when the module could not be asked (then the kernel's check decides).
 */
static int cuckoo_query(const char *name, unsigned int *family, bool *loading)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct cuckoo_req r;
	const struct nlattr *a;
	static char buf[65536];
	int fd, n, id;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		n = -errno;
		goto out;
	}
	memset(&r, 0, sizeof(r));
	r.nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r.nh.nlmsg_type = GENL_ID_CTRL;
	r.gh.cmd = CTRL_CMD_GETFAMILY;
	r.gh.version = 1;
	cuckoo_put_str(&r, CTRL_ATTR_FAMILY_NAME, NF_CUCKOO_GENL_NAME);
	n = cuckoo_talk(fd, &r, buf, sizeof(buf));
	if (n < 0)
		goto out;	/* -ENOENT: the module would say no filter */
	a = cuckoo_attr(buf, n, CTRL_ATTR_FAMILY_ID);
	if (!a) {
		n = -EPROTO;
		goto out;
	}
	id = *(const unsigned short *)((const char *)a + NLA_HDRLEN);

	memset(&r, 0, sizeof(r));
	r.nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r.nh.nlmsg_type = (unsigned short)id;
	r.gh.cmd = NF_CUCKOO_CMD_GET;
	r.gh.version = NF_CUCKOO_GENL_VERSION;
	cuckoo_put_str(&r, NF_CUCKOO_A_NAME, name);
	n = cuckoo_talk(fd, &r, buf, sizeof(buf));
	if (n < 0)
		goto out;
	a = cuckoo_attr(buf, n, NF_CUCKOO_A_FAMILY);
	*family = a ? *((const unsigned char *)a + NLA_HDRLEN) : NF_CUCKOO_FAMILY_INET;
	a = cuckoo_attr(buf, n, NF_CUCKOO_A_LOADING);
	*loading = a && *((const unsigned char *)a + NLA_HDRLEN);
	n = 0;
out:
	close(fd);
	return n;
}

/* @want: the rule's family, NF_CUCKOO_FAMILY_IPV4 or _IPV6. */
static void cuckoo_check(const struct xt_cuckoo_mtinfo *info, unsigned int want)
{
	unsigned int family = NF_CUCKOO_FAMILY_INET;
	bool loading = false;
	int err;

	err = cuckoo_query(info->name, &family, &loading);
	if (err == -ENOENT)
		xtables_error(PARAMETER_PROBLEM,
			      "cuckoo: no filter \"%s\" in this network namespace (cfctl list shows them)",
			      info->name);
	if (err)
		return;
	if (loading)
		xtables_error(PARAMETER_PROBLEM,
			      "cuckoo: filter \"%s\" is being restored: try again once cfctl restore is done",
			      info->name);
	if (!(family & want))
		xtables_error(PARAMETER_PROBLEM,
			      "cuckoo: filter \"%s\" holds no %s keys (its family is %s)",
			      info->name, want == NF_CUCKOO_FAMILY_IPV6 ? "IPv6" : "IPv4",
			      family == NF_CUCKOO_FAMILY_IPV6 ? "ip6" : "ip");
}

static void cuckoo_check4(struct xt_fcheck_call *cb)
{
	cuckoo_check(cb->data, NF_CUCKOO_FAMILY_IPV4);
}

static void cuckoo_check6(struct xt_fcheck_call *cb)
{
	cuckoo_check(cb->data, NF_CUCKOO_FAMILY_IPV6);
}

static void cuckoo_print(const void *ip, const struct xt_entry_match *match,
			 int numeric)
{
	const struct xt_cuckoo_mtinfo *info = (const void *)match->data;

	printf(" cuckoo %sfilter %s%s", info->flags & XT_CUCKOO_INVERT ? "! " : "",
	       info->name, info->flags & XT_CUCKOO_REVERSE ? " reverse" : "");
}

static void cuckoo_save(const void *ip, const struct xt_entry_match *match)
{
	const struct xt_cuckoo_mtinfo *info = (const void *)match->data;

	printf("%s --filter %s%s", info->flags & XT_CUCKOO_INVERT ? " !" : "",
	       info->name, info->flags & XT_CUCKOO_REVERSE ? " --reverse" : "");
}

/* One a family, each checking the filter against its own (below). */
static struct xtables_match cuckoo_matches[2];

/* iptables runs it when it loads the library. */
static void __attribute__((constructor)) cuckoo_init(void)
{
	static const uint8_t nfproto[2] = { NFPROTO_IPV4, NFPROTO_IPV6 };
	static void (*const fcheck[2])(struct xt_fcheck_call *) = {
		cuckoo_check4, cuckoo_check6,
	};
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct xtables_match *m = &cuckoo_matches[i];

		m->name = XT_CUCKOO_NAME;
		m->revision = 0;
		m->family = nfproto[i];
		m->version = XTABLES_VERSION;
		m->size = XT_ALIGN(sizeof(struct xt_cuckoo_mtinfo));
		m->userspacesize = offsetof(struct xt_cuckoo_mtinfo, id);
		m->help = cuckoo_help;
		m->print = cuckoo_print;
		m->save = cuckoo_save;
		m->x6_parse = cuckoo_parse;
		m->x6_fcheck = fcheck[i];
		m->x6_options = cuckoo_opts;
	}
	xtables_register_matches(cuckoo_matches, 2);
}
