// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: the request queue (see ops.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"

/* Requests sent but not yet answered, at most. */
#define WINDOW		32
/* The most one entry takes in a message: an IPv6 record that starts an
 * attribute of its own. */
#define ENTRY_MAX_BYTES	(NLA_HDRLEN + sizeof(struct nf_cuckoo_entry_ipv6))

void opq_init(struct opq *q, struct cfnl *nl)
{
	memset(q, 0, sizeof(*q));
	q->nl = nl;
}

static void op_free(struct op *op)
{
	nlmsg_free(op->msg);
	free(op->lines);
	free(op->bitmap);
	free(op);
}

void opq_free(struct opq *q)
{
	struct op *op, *next;

	for (op = q->head; op; op = next) {
		next = op->next;
		op_free(op);
	}
	q->head = q->tail = q->cur = NULL;
}

static struct op *op_new(struct opq *q, uint8_t cmd, const char *name,
			 uint32_t line)
{
	struct op *op = calloc(1, sizeof(*op));

	if (!op)
		return NULL;
	op->cmd = cmd;
	snprintf(op->name, sizeof(op->name), "%s", name);
	op->line = line;
	if (q->tail)
		q->tail->next = op;
	else
		q->head = op;
	q->tail = op;
	q->nops++;
	return op;
}

int opq_close_batch(struct opq *q)
{
	q->cur = NULL;
	q->packed = NULL;
	return 0;
}

struct op *opq_push(struct opq *q, struct nl_msg *msg, uint8_t cmd,
		    const char *name, uint32_t line)
{
	struct op *op;

	opq_close_batch(q);
	op = op_new(q, cmd, name, line);
	if (!op) {
		nlmsg_free(msg);
		return NULL;
	}
	op->msg = msg;
	return op;
}

static size_t batch_msg_size(struct opq *q)
{
	size_t want = (size_t)NF_CUCKOO_BATCH_MAX * ENTRY_MAX_BYTES + 256;

	return want < q->nl->max_msg ? want : q->nl->max_msg;
}

/*
 * An entry goes as a record of NF_CUCKOO_A_ENTRIES_IPV4/IPV6, appended to the
 * message's last attribute while that is a packed one of its family with
 * room left: a third of the bytes of an NF_CUCKOO_A_ENTRY nest, and nothing for
 * the kernel to parse.  Fields the text left out are 0, which the kernel
 * ignores unless its key needs them; entry_check() has made sure that the
 * text gave every field the key needs, and set the family.
 */
static int put_entry(struct opq *q, struct nl_msg *msg, const struct entry *e)
{
	size_t size = e->family == NF_CUCKOO_FAMILY_IPV6 ?
		      sizeof(struct nf_cuckoo_entry_ipv6) :
		      sizeof(struct nf_cuckoo_entry_ipv4);
	uint16_t type = e->family == NF_CUCKOO_FAMILY_IPV6 ? NF_CUCKOO_A_ENTRIES_IPV6 :
						       NF_CUCKOO_A_ENTRIES_IPV4;
	uint8_t *p;

	if (q->packed && (q->packed->nla_type != type ||
			  q->packed->nla_len - NLA_HDRLEN + size >
			  NF_CUCKOO_ENTRIES_PACKED_BYTES))
		q->packed = NULL;
	if (!q->packed) {
		q->packed = nlmsg_reserve(msg, NLA_HDRLEN, NLA_ALIGNTO);
		if (!q->packed)
			return -1;
		q->packed->nla_type = type;
		q->packed->nla_len = NLA_HDRLEN;
	}
	p = nlmsg_reserve(msg, size, NLA_ALIGNTO);
	if (!p)
		return -1;
	q->packed->nla_len += (uint16_t)size;
	if (e->family == NF_CUCKOO_FAMILY_IPV6) {
		struct nf_cuckoo_entry_ipv6 r = {
			.sport = htons(e->sport), .dport = htons(e->dport),
			.proto = e->proto, .src_plen = e->src_plen,
			.dst_plen = e->dst_plen,
		};

		memcpy(r.src, e->src, 16);
		memcpy(r.dst, e->dst, 16);
		memcpy(p, &r, size);
	} else {
		struct nf_cuckoo_entry_ipv4 r = {
			.sport = htons(e->sport), .dport = htons(e->dport),
			.proto = e->proto, .src_plen = e->src_plen,
			.dst_plen = e->dst_plen,
		};

		memcpy(&r.src, e->src, 4);
		memcpy(&r.dst, e->dst, 4);
		memcpy(p, &r, size);
	}
	return 0;
}

int opq_entry(struct opq *q, uint8_t cmd, const char *name, uint32_t flags,
	      const struct entry *e, uint32_t line)
{
	struct op *op = q->cur;

	if (op && (op->cmd != cmd || strcmp(op->name, name) ||
		   q->cur_flags != flags || op->n >= NF_CUCKOO_BATCH_MAX ||
		   nlmsg_hdr(op->msg)->nlmsg_len + ENTRY_MAX_BYTES >
		   batch_msg_size(q)))
		op = NULL;
	if (!op) {
		struct nl_msg *msg = cfnl_msg(q->nl, cmd, NLM_F_ACK,
					      batch_msg_size(q));

		if (!msg || nla_put_string(msg, NF_CUCKOO_A_NAME, name) ||
		    (flags && nla_put_u32(msg, NF_CUCKOO_A_BATCH_FLAGS, flags))) {
			nlmsg_free(msg);
			return -ENOMEM;
		}
		op = opq_push(q, msg, cmd, name, line);
		if (!op)
			return -ENOMEM;
		q->cur = op;
		q->packed = NULL;
		q->cur_flags = flags;
		q->lines_cap = 0;
	}
	if (op->n == q->lines_cap) {
		size_t cap = q->lines_cap ? q->lines_cap * 2 : 64;
		uint32_t *l;

		if (cap > NF_CUCKOO_BATCH_MAX)
			cap = NF_CUCKOO_BATCH_MAX;
		l = realloc(op->lines, cap * sizeof(*l));
		if (!l)
			return -ENOMEM;
		op->lines = l;
		q->lines_cap = cap;
	}
	if (put_entry(q, op->msg, e))
		return -ENOMEM;
	op->lines[op->n++] = line;
	return 0;
}

int opq_zero_run(struct opq *q, const char *name, uint64_t off, uint64_t len,
		 uint32_t line)
{
	struct op *op = opq_push(q, NULL, NF_CUCKOO_CMD_LOAD_CHUNK, name, line);

	if (!op)
		return -ENOMEM;
	op->zoff = off;
	op->zlen = len;
	return 0;
}

/*
 * A zero run is one op until it is sent, whatever its length: one op per
 * chunk made up front took memory in proportion to a length that a
 * corrupt restore file can make anything.  Its first chunk goes now, the
 * rest becomes the next op, split again when its turn comes.
 */
static int zero_split(struct opq *q, struct op *op)
{
	struct op *rest;

	if (op->zlen <= NF_CUCKOO_CHUNK_MAX)
		return 0;
	rest = calloc(1, sizeof(*rest));
	if (!rest)
		return -ENOMEM;
	rest->cmd = op->cmd;
	memcpy(rest->name, op->name, sizeof(rest->name));
	rest->line = op->line;
	rest->zoff = op->zoff + NF_CUCKOO_CHUNK_MAX;
	rest->zlen = op->zlen - NF_CUCKOO_CHUNK_MAX;
	op->zlen = NF_CUCKOO_CHUNK_MAX;
	rest->next = op->next;
	op->next = rest;
	if (q->tail == op)
		q->tail = rest;
	q->nops++;
	return 0;
}

uint32_t op_line(const struct op *op, uint32_t i)
{
	if (op->lines && i < op->n)
		return op->lines[i];
	return op->line;
}

static bool is_batch(uint8_t cmd)
{
	return cmd == NF_CUCKOO_CMD_ADD_ENTRIES || cmd == NF_CUCKOO_CMD_DEL_ENTRIES ||
	       cmd == NF_CUCKOO_CMD_TEST_ENTRIES;
}

static void batch_result(struct op *op, struct nlmsghdr *nlh)
{
	struct nlattr *tb[NF_CUCKOO_A_MAX + 1];

	if (cfnl_parse(nlh, tb))
		return;
	op->has_result = true;
	if (tb[NF_CUCKOO_A_BATCH_DONE])
		op->r_done = nla_get_u32(tb[NF_CUCKOO_A_BATCH_DONE]);
	if (tb[NF_CUCKOO_A_BATCH_SKIPPED])
		op->r_skipped = nla_get_u32(tb[NF_CUCKOO_A_BATCH_SKIPPED]);
	if (tb[NF_CUCKOO_A_BATCH_FAIL_INDEX])
		op->r_fail_index = nla_get_u32(tb[NF_CUCKOO_A_BATCH_FAIL_INDEX]);
	else
		op->r_fail_index = UINT32_MAX;
	if (tb[NF_CUCKOO_A_BATCH_FAIL_REASON])
		op->r_fail_reason = nla_get_u32(tb[NF_CUCKOO_A_BATCH_FAIL_REASON]);
	if (tb[NF_CUCKOO_A_TEST_HITS])
		op->r_hits = nla_get_u32(tb[NF_CUCKOO_A_TEST_HITS]);
	if (tb[NF_CUCKOO_A_TEST_BITMAP]) {
		int len = nla_len(tb[NF_CUCKOO_A_TEST_BITMAP]);
		size_t want = (op->n + 7) / 8;

		free(op->bitmap);
		op->bitmap = calloc(1, want ? want : 1);
		if (op->bitmap)
			memcpy(op->bitmap, nla_data(tb[NF_CUCKOO_A_TEST_BITMAP]),
			       (size_t)len < want ? (size_t)len : want);
	}
}

static void run_cb(void *arg, struct nlmsghdr *nlh, enum cfnl_kind kind,
		   const struct nlerr *e)
{
	struct opq *q = arg;
	struct op *op;

	/* Replies come in the order of the requests; skip strays. */
	for (op = q->ack_next; op && op->sent; op = op->next)
		if (op->seq == nlh->nlmsg_seq && !op->done)
			break;
	if (!op || !op->sent)
		return;
	if (kind == CFNL_DATA) {
		if (is_batch(op->cmd))
			batch_result(op, nlh);
		return;
	}
	op->done = true;
	op->err = *e;
	if (op->err.err == -EEXIST && op->ok_eexist) {
		op->err.err = 0;
		op->existed = true;
		/* restore -exist: a filter of that name appeared since the
		 * stream was checked (a daemon made it): it is kept, and the
		 * chunks of its load, which it refuses, are not failures. */
		if (op->cmd == NF_CUCKOO_CMD_LOAD_BEGIN) {
			snprintf(q->kept_load, sizeof(q->kept_load), "%s",
				 op->name);
			q->kept_late++;
		}
	} else if ((op->cmd == NF_CUCKOO_CMD_LOAD_CHUNK ||
		    op->cmd == NF_CUCKOO_CMD_LOAD_END) &&
		   q->kept_load[0] && !strcmp(op->name, q->kept_load) &&
		   (op->err.err == -EINVAL || op->err.err == -EBUSY)) {
		op->err.err = 0;
	}
	if (op->err.err && !q->failed)
		q->failed = op;
	if (q->inflight)
		q->inflight--;
	while (q->ack_next && q->ack_next->done) {
		/* Free what is no longer needed: the message, unless an
		 * error needs it to name an attribute. */
		if (!q->ack_next->err.err) {
			nlmsg_free(q->ack_next->msg);
			q->ack_next->msg = NULL;
		}
		q->ack_next = q->ack_next->next;
	}
}

static int recv_some(struct opq *q, bool block)
{
	int err = cfnl_recv(q->nl, block, run_cb, q);

	if (err == -EAGAIN)
		return 0;
	if (err) {
		q->sock_err = err;
		return err;
	}
	return 1;
}

static struct nl_msg *zero_chunk(struct opq *q, struct op *op)
{
	static uint8_t zeros[NF_CUCKOO_CHUNK_MAX];
	struct nl_msg *msg = cfnl_msg(q->nl, NF_CUCKOO_CMD_LOAD_CHUNK, NLM_F_ACK,
				      NF_CUCKOO_CHUNK_MAX + 512);

	if (!msg || nla_put_string(msg, NF_CUCKOO_A_NAME, op->name) ||
	    nla_put_u64(msg, NF_CUCKOO_A_CHUNK_OFFSET, op->zoff) ||
	    nla_put(msg, NF_CUCKOO_A_CHUNK_DATA, (int)op->zlen, zeros)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int opq_run(struct opq *q)
{
	struct op *op;
	int err;

	opq_close_batch(q);
	q->ack_next = q->head;
	q->inflight = 0;
	q->failed = NULL;
	q->sock_err = 0;
	for (op = q->head; op; op = op->next) {
		/* Whatever has been answered already, without waiting. */
		while ((err = recv_some(q, false)) > 0)
			;
		if (err)
			break;
		if (q->failed)
			break;
		while (q->inflight >= WINDOW && !q->sock_err)
			recv_some(q, true);
		if (q->sock_err || q->failed)
			break;
		if (!op->msg && op->zlen) {
			if (zero_split(q, op)) {
				q->sock_err = -ENOMEM;
				break;
			}
			op->msg = zero_chunk(q, op);
			if (!op->msg) {
				q->sock_err = -ENOMEM;
				break;
			}
		}
		err = cfnl_send(q->nl, op->msg, &op->seq);
		if (err) {
			op->sent = true;
			op->done = true;
			op->err.err = err;
			if (err == -EMSGSIZE)
				snprintf(op->err.msg, sizeof(op->err.msg),
					 "request of %u bytes is too large for the socket",
					 nlmsg_hdr(op->msg)->nlmsg_len);
			q->failed = op;
			if (q->ack_next == op)
				q->ack_next = op->next;
			break;
		}
		op->sent = true;
		q->inflight++;
	}
	while (q->inflight && !q->sock_err)
		recv_some(q, true);
	if (q->sock_err)
		return q->sock_err;
	return q->failed ? q->failed->err.err : 0;
}

uint64_t opq_applied(const struct opq *q, uint8_t cmd)
{
	const struct op *op;
	uint64_t n = 0;

	for (op = q->head; op; op = op->next)
		if (op->cmd == cmd && op->done && !op->err.err)
			n += op->r_done;
	return n;
}
