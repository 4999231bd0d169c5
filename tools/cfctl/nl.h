/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfctl: netlink plumbing.  libnl builds the messages and resolves the
 * family; the requests and their replies go over the socket directly, so
 * that batches can be pipelined and every reply matched to its request.
 */
#ifndef CFCTL_NL_H
#define CFCTL_NL_H

#include <linux/netlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include "cfctl.h"

/* One NF_CUCKOO_A_IFACE into L (filters.c); 0, or -1 with the reason. */
int iface_parse(struct nlattr *a, struct iface_list *l, char *err,
		size_t errlen);

/* An error from the kernel, with its extended ack. */
struct nlerr {
	int err;		/* negative errno; 0: success */
	char msg[ERRLEN];	/* NLMSGERR_ATTR_MSG, "" if none */
	bool has_offs;
	uint32_t offs;		/* NLMSGERR_ATTR_OFFS */
	bool has_miss;
	uint32_t miss_type;	/* NLMSGERR_ATTR_MISS_TYPE */
};

struct cfnl_backend;

struct cfnl {
	const struct cfnl_backend *be;	/* set by cfnl_open() */
	struct nl_sock *sk;
	int fd;
	int family;		/* generic netlink family id */
	uint32_t seq;
	size_t max_msg;		/* largest request the socket takes */
	uint8_t *rbuf;
	size_t rbuf_len;
};

enum cfnl_kind {
	CFNL_DATA,		/* a reply */
	CFNL_ACK,		/* NLMSG_ERROR: the request's end, maybe an error */
	CFNL_DONE,		/* NLMSG_DONE: a dump's end, maybe an error */
};

typedef void (*cfnl_cb)(void *arg, struct nlmsghdr *nlh, enum cfnl_kind kind,
			const struct nlerr *e);

/*
 * What carries the requests: the kernel's socket (nl_sock.c), or the module
 * itself run in this process (fake_nl.c: the core, kmod/cuckoo.c, behind
 * the checks and replies of kmod/netlink.c), which `cfctl build` uses to
 * make an image without a module and the tests use in place of the kernel.
 * Everything above the backend (nl.c, ops.c, the verbs) is the same for
 * both, so a verb says and checks the same whichever answers it.
 */
struct cfnl_backend {
	/* Open (nl is zeroed first); on failure print why, return -1. */
	int (*open)(struct cfnl *nl);
	void (*close)(struct cfnl *nl);
	/* Send (seq assigned here); 0 or -errno. */
	int (*send)(struct cfnl *nl, struct nl_msg *msg, uint32_t *seq);
	/* Receive one datagram and pass its messages to cb: 0, -EAGAIN
	 * when nonblocking and nothing is there, or -errno. */
	int (*recv)(struct cfnl *nl, bool block, cfnl_cb cb, void *arg);
	/* Join a multicast group of the family, the receive buffer set to
	 * rcvbuf bytes if > 0; on failure print why, return -1.  NULL: the
	 * backend has no events. */
	int (*join)(struct cfnl *nl, const char *group, int rcvbuf);
};

extern const struct cfnl_backend cfnl_sock_backend;	/* nl_sock.c */

/* The backend cfnl_open() opens: cfnl_sock_backend unless a verb (build)
 * or a test binary chose another before opening. */
extern const struct cfnl_backend *cfnl_backend;

/* Open cfnl_backend; on failure print why, return -1. */
int cfnl_open(struct cfnl *nl);
/* Close what cfnl_open() opened; nothing if it was not (nl zeroed). */
void cfnl_close(struct cfnl *nl);

/* A request: NLM_F_REQUEST | flags; size 0 means a page. NULL: no memory. */
struct nl_msg *cfnl_msg(struct cfnl *nl, uint8_t cmd, int flags, size_t size);
/* Through the backend: see struct cfnl_backend. */
int cfnl_send(struct cfnl *nl, struct nl_msg *msg, uint32_t *seq);
int cfnl_recv(struct cfnl *nl, bool block, cfnl_cb cb, void *arg);
int cfnl_join(struct cfnl *nl, const char *group, int rcvbuf);

/* Pass the messages of one datagram of replies, buf[0..len), to cb. */
void cfnl_dispatch(uint8_t *buf, size_t len, cfnl_cb cb, void *arg);

/*
 * Send a request and wait for its end (the ack, or a dump's DONE); data
 * replies go to data_cb (may be NULL).  Returns the request's error
 * (negative errno) with details in *e, or a socket error.
 */
int cfnl_transact(struct cfnl *nl, struct nl_msg *msg,
		  void (*data_cb)(struct nlmsghdr *nlh, void *arg), void *arg,
		  struct nlerr *e);

/* "<extack> (<strerror>)", with the offending attribute named if the
 * kernel pointed at one of msg's attributes. */
void nlerr_format(const struct nlerr *e, struct nl_msg *msg, char *buf,
		  size_t len);

/* Parse a reply's attributes (NF_CUCKOO_A_*). */
int cfnl_parse(struct nlmsghdr *nlh, struct nlattr **tb);

/* The name of attribute type t of enum nf_cuckoo_attr. */
const char *nfcf_attr_name(int t);

#endif /* CFCTL_NL_H */
