/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfctl: a queue of requests, sent pipelined, each matched to its reply.
 *
 * Verbs that send many requests (add, del, test, restore) first build the
 * whole queue, so that bad input is found before anything is applied, and
 * then run it.  Entries are packed into batches (NF_CUCKOO_A_ENTRY repeated, up
 * to NF_CUCKOO_BATCH_MAX and what the socket takes); each op remembers the input
 * line (or argument) of each of its entries for error messages.
 *
 * The queue stops at the first failure.  Generic netlink handles a request
 * while it is being sent, so its ack is already there when the next is
 * due: the runner looks without waiting before each send and never sends
 * after a failure it could have seen.  Batches are all or nothing, so
 * what was applied is exactly the ops before the failing one.
 */
#ifndef CFCTL_OPS_H
#define CFCTL_OPS_H

#include "nl.h"

struct op {
	struct op *next;
	struct nl_msg *msg;	/* NULL for a zero run until it is sent */
	uint8_t cmd;
	char name[NF_CUCKOO_NAME_MAXLEN];
	uint32_t line;		/* input line (or argument) of the op */
	uint32_t *lines;	/* batches: line of each entry */
	uint32_t n;		/* batches: entries */
	uint64_t zoff, zlen;	/* LOAD_CHUNK of zeros, made when sent */
	bool ok_eexist;		/* create -exist */
	bool existed;		/* ... and the filter was there: not ours */
	int img_version;	/* LOAD_BEGIN: the image's version, or -1 */
	/* outcome */
	bool sent, done;
	uint32_t seq;
	struct nlerr err;
	bool has_result;
	uint32_t r_done, r_skipped, r_fail_index, r_fail_reason, r_hits;
	uint8_t *bitmap;	/* TEST_ENTRIES: a bit per entry */
};

struct opq {
	struct op *head, *tail;
	size_t nops;
	/* the batch being filled */
	struct op *cur;
	struct nlattr *packed;	/* its last attribute, if packed entries */
	uint32_t cur_flags;
	size_t lines_cap;
	struct cfnl *nl;
	/* run state */
	struct op *ack_next;
	unsigned int inflight;
	struct op *failed;
	int sock_err;
	/* restore -exist: the filter whose LOAD_BEGIN found it there */
	char kept_load[NF_CUCKOO_NAME_MAXLEN];
	unsigned int kept_late;
};

void opq_init(struct opq *q, struct cfnl *nl);
void opq_free(struct opq *q);

/* Append a ready request (it is the queue's now). */
struct op *opq_push(struct opq *q, struct nl_msg *msg, uint8_t cmd,
		    const char *name, uint32_t line);

/* Add one entry to the batch for (cmd, name, flags), starting a new
 * batch when needed.  0 or -ENOMEM. */
int opq_entry(struct opq *q, uint8_t cmd, const char *name, uint32_t flags,
	      const struct entry *e, uint32_t line);
/* Close the batch being filled (called by opq_push and opq_run too). */
int opq_close_batch(struct opq *q);

/* LOAD_CHUNKs of zeros for [off, off + len): one op, split and made
 * when sent. */
int opq_zero_run(struct opq *q, const char *name, uint64_t off, uint64_t len,
		 uint32_t line);

/* Send everything; 0 if all went well, else the failing op's error (or
 * a socket error).  q->failed is the first op that failed. */
int opq_run(struct opq *q);

/* The line of entry i of op, or the op's line. */
uint32_t op_line(const struct op *op, uint32_t i);

/* Entries applied by ops that succeeded, per command. */
uint64_t opq_applied(const struct opq *q, uint8_t cmd);

#endif /* CFCTL_OPS_H */
