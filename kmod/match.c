// SPDX-License-Identifier: GPL-2.0
/*
 * xt_cuckoo: the iptables and ip6tables match "cuckoo", a module of its
 * own above nf_cuckoo (which does the asking: rule.c), so that nf_cuckoo
 * never loads x_tables for hosts that do not use it.
 *
 *   iptables -A FORWARD -i wan0 -m cuckoo --filter bl -j DROP
 *
 * uapi/linux/nf_cuckoo.h ("iptables rules") says what a rule does.
 * x_tables holds this module while a rule of the match exists, and this
 * module holds nf_cuckoo.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/netfilter/x_tables.h>
#include <linux/skbuff.h>

#include "../uapi/linux/nf_cuckoo.h"

#include "rule.h"
#include "version.h"

static u8 xt_cuckoo_family(u8 nfproto)
{
	return nfproto == NFPROTO_IPV6 ? NF_CUCKOO_FAMILY_IPV6 :
					 NF_CUCKOO_FAMILY_IPV4;
}

/* Netfilter runs iptables' hooks under RCU. */
static bool xt_cuckoo_mt(const struct sk_buff *skb, struct xt_action_param *par)
{
	const struct xt_cuckoo_mtinfo *info = par->matchinfo;
	int ret;

	ret = nfcf_rule_test(xt_net(par), info->id, skb,
			     xt_cuckoo_family(xt_family(par)),
			     info->flags & XT_CUCKOO_REVERSE);
	if (ret < 0)
		return false;
	return ret != !!(info->flags & XT_CUCKOO_INVERT);
}

static int xt_cuckoo_mt_check(const struct xt_mtchk_param *par)
{
	struct xt_cuckoo_mtinfo *info = par->matchinfo;

	/* Registered for every family, as most matches are: IP ones only. */
	if (par->family != NFPROTO_IPV4 && par->family != NFPROTO_IPV6) {
		pr_info_ratelimited("only iptables and ip6tables rules can ask a filter\n");
		return -EINVAL;
	}
	if (info->flags & ~XT_CUCKOO_FLAGS) {
		pr_info_ratelimited("unknown flags %#x in a rule\n", info->flags);
		return -EINVAL;
	}
	if (!memchr(info->name, '\0', sizeof(info->name))) {
		pr_info_ratelimited("a rule's filter name is not terminated\n");
		return -EINVAL;
	}
	return nfcf_rule_get(par->net, info->name,
			     xt_cuckoo_family(par->family), &info->id);
}

static void xt_cuckoo_mt_destroy(const struct xt_mtdtor_param *par)
{
	const struct xt_cuckoo_mtinfo *info = par->matchinfo;

	nfcf_rule_put(par->net, info->id);
}

static struct xt_match xt_cuckoo_mt_reg __read_mostly = {
	.name		= XT_CUCKOO_NAME,
	.revision	= 0,
	.family		= NFPROTO_UNSPEC,
	.match		= xt_cuckoo_mt,
	.checkentry	= xt_cuckoo_mt_check,
	.destroy	= xt_cuckoo_mt_destroy,
	.matchsize	= sizeof(struct xt_cuckoo_mtinfo),
	.usersize	= offsetof(struct xt_cuckoo_mtinfo, id),
	.me		= THIS_MODULE,
};

static int __init xt_cuckoo_init(void)
{
	return xt_register_match(&xt_cuckoo_mt_reg);
}

static void __exit xt_cuckoo_exit(void)
{
	xt_unregister_match(&xt_cuckoo_mt_reg);
}

module_init(xt_cuckoo_init);
module_exit(xt_cuckoo_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("nf_cuckoo developers");
MODULE_DESCRIPTION("Xtables: match packets in an nf_cuckoo filter");
MODULE_VERSION(NF_CUCKOO_VERSION);
/* iptables asks for "ipt_cuckoo" or "ip6t_cuckoo" before "xt_cuckoo". */
MODULE_ALIAS("ipt_" XT_CUCKOO_NAME);
MODULE_ALIAS("ip6t_" XT_CUCKOO_NAME);
