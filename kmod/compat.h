/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel API differences between the kernels nf_cuckoo builds for
 * (6.1 and later), each with the release that made it, so that the rest
 * of the module is written once against one API.  Each is told by what
 * the headers have, never by the version number: distributions backport
 * APIs without changing it.  What the preprocessor cannot see (a field
 * of a struct) is probed by Kbuild, which compiles a few lines against
 * the headers and defines NFCF_HAVE_... when they build.
 */
#ifndef _NF_CUCKOO_COMPAT_H
#define _NF_CUCKOO_COMPAT_H

#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <net/genetlink.h>

/*
 * 6.12: <asm/unaligned.h> moved to <linux/unaligned.h> (Kbuild's probe
 * NFCF_HAVE_LINUX_UNALIGNED_H).
 */
#ifdef NFCF_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * 6.6: a dump's parsed attributes are in the struct genl_info that
 * struct genl_dumpit_info holds, no longer in a field of their own
 * (Kbuild's probe NFCF_HAVE_DUMPIT_INFO_INFO).
 */
static inline struct nlattr **nfcf_dump_attrs(struct netlink_callback *cb)
{
#ifdef NFCF_HAVE_DUMPIT_INFO_INFO
	return genl_dumpit_info(cb)->info.attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/*
 * 6.7 (and stable backports, Debian's 6.1.0-56 among them): a multicast
 * group can require CAP_NET_ADMIN of the sockets that join it.  Events
 * tell filters' names and sizes, which are the namespace admin's: where
 * the kernel cannot restrict the group, the module has none (and says so
 * when it loads) rather than one any socket may join.  A probe of the
 * headers, not of the version: distributions backport it.
 */
#ifdef GENL_MCAST_CAP_NET_ADMIN
#define NFCF_HAVE_EVENTS		1
#define NFCF_MCGRP_EVENTS_FLAGS		GENL_MCAST_CAP_NET_ADMIN
#else
#define NFCF_HAVE_EVENTS		0
#define NFCF_MCGRP_EVENTS_FLAGS		0
#endif

/*
 * 6.9: a set of kfuncs is declared with BTF_KFUNCS_START, which flags it
 * as such (6.10 refuses to register one without the flag); before, with
 * BTF_SET8_START.
 */
#ifndef BTF_KFUNCS_START
#define BTF_KFUNCS_START(name)		BTF_SET8_START(name)
#define BTF_KFUNCS_END(name)		BTF_SET8_END(name)
#endif

/*
 * 6.5: __bpf_kfunc marks a kfunc, and keeps it whole in the object (and
 * so in BTF) whatever LTO or the inliner would do.  Before, a global
 * function nothing calls is emitted whole all the same.
 */
#ifndef __bpf_kfunc
#define __bpf_kfunc
#endif

/*
 * 6.2: an extended ack message can be formatted (NL_SET_ERR_MSG_FMT_MOD,
 * into a buffer of the extack).  Before, only a fixed text can be given:
 * FIXED says as much without the variable part.
 */
#ifdef NL_SET_ERR_MSG_FMT_MOD
#define NFCF_ERR_MSG_FMT(extack, fixed, fmt, ...)	\
	NL_SET_ERR_MSG_FMT_MOD(extack, fmt, ##__VA_ARGS__)
#else
/* The arguments stay used, and checked against the format. */
static inline __printf(1, 2) void nfcf_msg_args(const char *fmt, ...)
{
}

#define NFCF_ERR_MSG_FMT(extack, fixed, fmt, ...)	\
	do {						\
		NL_SET_ERR_MSG_MOD(extack, fixed);	\
		nfcf_msg_args(fmt, ##__VA_ARGS__);	\
	} while (0)
#endif

#endif /* _NF_CUCKOO_COMPAT_H */
