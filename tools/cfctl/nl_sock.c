// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: the netlink socket itself (see nl.h): open, send, receive; the
 * backend that talks to the kernel.  Everything else of the netlink side
 * is in nl.c, the same for fake_nl.c, the backend that answers as the
 * module does from within the process.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <netlink/genl/ctrl.h>

#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

/* Replies are small; dumps of a table come in messages of up to ~64 KiB. */
#define RBUF_LEN	(1 << 20)
/* What we ask of the socket buffers; SO_*BUFFORCE needs CAP_NET_ADMIN in
 * the initial namespace, else the kernel caps it at [wr]mem_max. */
#define SOCKBUF		(8 << 20)

static void set_buf(int fd, int force, int plain, int size)
{
	if (setsockopt(fd, SOL_SOCKET, force, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, plain, &size, sizeof(size));
}

static int sock_open(struct cfnl *nl)
{
	int one = 1, snd = 0, err;
	socklen_t sl = sizeof(snd);

	memset(nl, 0, sizeof(*nl));
	nl->fd = -1;
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		errmsg("out of memory");
		return -1;
	}
	err = genl_connect(nl->sk);
	if (err < 0) {
		errmsg("cannot open a generic netlink socket: %s",
		       nl_geterror(err));
		goto fail;
	}
	nl->fd = nl_socket_get_fd(nl->sk);
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	/* Errors need not echo a 300 KiB batch back. */
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	set_buf(nl->fd, SO_SNDBUFFORCE, SO_SNDBUF, SOCKBUF);
	set_buf(nl->fd, SO_RCVBUFFORCE, SO_RCVBUF, SOCKBUF);
	if (getsockopt(nl->fd, SOL_SOCKET, SO_SNDBUF, &snd, &sl) < 0 ||
	    snd < 65536)
		snd = 65536;
	/* netlink_sendmsg() refuses len > sk_sndbuf - 32. */
	nl->max_msg = (size_t)snd - 64;

	nl->family = genl_ctrl_resolve(nl->sk, NF_CUCKOO_GENL_NAME);
	if (nl->family < 0) {
		/*
		 * The kernel asked modprobe for the family's alias already:
		 * the module is not installed, or failed to load.
		 */
		if (nl->family == -NLE_OBJ_NOTFOUND)
			errmsg("the nf_cuckoo module is not loaded, and the kernel could not load it (no generic netlink family \"%s\"): install it (make install, or the nf-cuckoo-dkms package), or insmod nf_cuckoo.ko; dmesg may say why",
			       NF_CUCKOO_GENL_NAME);
		else
			errmsg("cannot resolve generic netlink family \"%s\": %s",
			       NF_CUCKOO_GENL_NAME, nl_geterror(nl->family));
		goto fail;
	}
	nl->rbuf_len = RBUF_LEN;
	nl->rbuf = malloc(nl->rbuf_len);
	if (!nl->rbuf) {
		errmsg("out of memory");
		goto fail;
	}
	nl->seq = (uint32_t)time(NULL);
	return 0;
fail:
	nl_socket_free(nl->sk);
	nl->sk = NULL;
	return -1;
}

static void sock_close(struct cfnl *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
	free(nl->rbuf);
	nl->rbuf = NULL;
}

static int sock_send(struct cfnl *nl, struct nl_msg *msg, uint32_t *seq)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	ssize_t r;

	nlh->nlmsg_seq = ++nl->seq;
	nlh->nlmsg_pid = 0;
	*seq = nlh->nlmsg_seq;
	do {
		r = sendto(nl->fd, nlh, nlh->nlmsg_len, 0,
			   (struct sockaddr *)&sa, sizeof(sa));
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return 0;
}

static int sock_recv(struct cfnl *nl, bool block, cfnl_cb cb, void *arg)
{
	struct iovec iov = { nl->rbuf, nl->rbuf_len };
	struct sockaddr_nl sa;
	struct msghdr mh = {
		.msg_name = &sa, .msg_namelen = sizeof(sa),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	ssize_t r;

	do {
		r = recvmsg(nl->fd, &mh, block ? 0 : MSG_DONTWAIT);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (mh.msg_flags & MSG_TRUNC)
		return -EMSGSIZE;
	if (sa.nl_pid != 0)
		return 0;	/* not from the kernel */
	cfnl_dispatch(nl->rbuf, (size_t)r, cb, arg);
	return 0;
}

static int sock_join(struct cfnl *nl, const char *group, int rcvbuf)
{
	int grp;

	grp = genl_ctrl_resolve_grp(nl->sk, NF_CUCKOO_GENL_NAME, group);
	if (grp == -NLE_OBJ_NOTFOUND) {
		errmsg("the nf_cuckoo module has no multicast group \"%s\": it is older than interface version 5, which has events",
		       group);
		return -1;
	} else if (grp < 0) {
		errmsg("cannot resolve multicast group \"%s\": %s", group,
		       nl_geterror(grp));
		return -1;
	}
	if (rcvbuf > 0)
		set_buf(nl->fd, SO_RCVBUFFORCE, SO_RCVBUF, rcvbuf);
	if (setsockopt(nl->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp,
		       sizeof(grp)) < 0) {
		if (errno == EPERM)
			errmsg("joining the events group needs CAP_NET_ADMIN in the network namespace");
		else
			errmsg("cannot join multicast group \"%s\": %s", group,
			       strerror(errno));
		return -1;
	}
	return 0;
}

const struct cfnl_backend cfnl_sock_backend = {
	.open = sock_open,
	.close = sock_close,
	.send = sock_send,
	.recv = sock_recv,
	.join = sock_join,
};
