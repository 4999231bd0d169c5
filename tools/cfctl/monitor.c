// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: monitor: the events of the namespace's filters as they come (the
 * family's multicast group, uapi "Events"), one line each, or one JSON
 * object a line with -j, as `ip monitor` and `nft monitor` print theirs.
 *
 * Lost events: a listener whose buffer overflowed reads ENOBUFS once, and
 * every event carries its number in the namespace (nlmsg_seq), so the gap
 * before the next event read is how many were lost.  That is printed as a
 * line of its own on stdout, in its place among the events ("lost N
 * events", {"event":"lost","lost":N}); when no event had been read before,
 * the number is unknown ("lost events", "lost": null).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "verbs.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct monitor {
	int family;
	bool have_seq;		/* an event was read: last_seq is its number */
	uint32_t last_seq;
	bool overrun;		/* ENOBUFS since the last event read */
};

static const char *const event_names[] = {
	[NF_CUCKOO_EVENT_NEW] = "new",
	[NF_CUCKOO_EVENT_DEL] = "del",
	[NF_CUCKOO_EVENT_SET] = "set",
	[NF_CUCKOO_EVENT_FLUSH] = "flush",
	[NF_CUCKOO_EVENT_RESTORE] = "restore",
	[NF_CUCKOO_EVENT_STAGE] = "stage",
	[NF_CUCKOO_EVENT_FULL] = "full",
	[NF_CUCKOO_EVENT_LOAD_HIGH] = "load-high",
	[NF_CUCKOO_EVENT_ADD] = "add",
	[NF_CUCKOO_EVENT_DEL_ENTRIES] = "del-entries",
	[NF_CUCKOO_EVENT_SWAP] = "swap",
};

static const char *event_name(uint8_t ev)
{
	return ev < sizeof(event_names) / sizeof(event_names[0]) ?
	       event_names[ev] : NULL;
}

static void print_json_line(struct json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* lost: events missed; -1: some, how many unknown. */
static void print_lost(int64_t lost)
{
	if (opts.json) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "event", json_object_new_string("lost"));
		json_object_object_add(o, "lost", lost < 0 ? NULL :
				       json_object_new_int64(lost));
		print_json_line(o);
	} else if (lost < 0) {
		puts("lost events (how many is unknown)");
	} else {
		printf("lost %" PRId64 " event%s\n", lost, lost == 1 ? "" : "s");
	}
}

/* Before event number seq: what was lost since the last one read. */
static void check_seq(struct monitor *m, uint32_t seq)
{
	uint32_t gap = seq - m->last_seq - 1;

	if (m->have_seq && gap)
		print_lost(gap);
	else if (!m->have_seq && m->overrun)
		print_lost(-1);
	m->have_seq = true;
	m->last_seq = seq;
	m->overrun = false;
}

static void print_text(uint8_t ev, struct nlattr **tb, const char *name,
		       const char *name2)
{
	const char *evn = event_name(ev);
	struct filter_info fi;
	struct stage_info si;
	uint32_t n;

	switch (ev) {
	case NF_CUCKOO_EVENT_NEW:
	case NF_CUCKOO_EVENT_SET:
	case NF_CUCKOO_EVENT_RESTORE:
		printf("%s filter %s", evn, name);
		if (!info_parse_attrs(tb, &fi))
			info_print_params(&fi, stdout);
		break;
	case NF_CUCKOO_EVENT_DEL:
		printf("del filter %s", name);
		break;
	case NF_CUCKOO_EVENT_SWAP:
		printf("swap %s %s", name, name2);
		break;
	case NF_CUCKOO_EVENT_ADD:
	case NF_CUCKOO_EVENT_DEL_ENTRIES:
		n = tb[NF_CUCKOO_A_EVENT_COUNT] ?
		    nla_get_u32(tb[NF_CUCKOO_A_EVENT_COUNT]) : 0;
		printf("%s %s %" PRIu32 " entr%s",
		       ev == NF_CUCKOO_EVENT_ADD ? "add" : "del", name, n,
		       n == 1 ? "y" : "ies");
		break;
	case NF_CUCKOO_EVENT_STAGE:
	case NF_CUCKOO_EVENT_LOAD_HIGH:
		printf("%s %s %s%u", evn, name,
		       ev == NF_CUCKOO_EVENT_STAGE ? "" : "stage ",
		       tb[NF_CUCKOO_A_STAGE_INDEX] ?
		       nla_get_u8(tb[NF_CUCKOO_A_STAGE_INDEX]) : 0);
		if (stage_parse(tb[NF_CUCKOO_A_STAGE], &si))
			break;
		if (ev == NF_CUCKOO_EVENT_LOAD_HIGH) {
			printf(" items %" PRIu64 " of capacity %" PRIu64 " (%.1f%%)",
			       si.items, si.capacity, si.capacity ?
			       100.0 * (double)si.items / (double)si.capacity : 0);
			break;
		}
		printf(" capacity %" PRIu64 " items %" PRIu64 " load %.1f%% fingerprint %u bytes %" PRIu64 " fpr %.3g%s",
		       si.capacity, si.items, si.load_ppm / 10000.0, si.fp_bits,
		       si.bytes, (double)si.fpr_ppb / NF_CUCKOO_FPR_SCALE,
		       si.victim ? " victim" : "");
		break;
	default:
		if (evn)
			printf("%s %s", evn, name);
		else
			printf("event %u %s", ev, name);
	}
	putchar('\n');
}

static void print_json(uint8_t ev, struct nlattr **tb, const char *name,
		       const char *name2, uint32_t seq)
{
	struct json_object *o = json_object_new_object();
	const char *evn = event_name(ev);
	struct filter_info fi;
	struct stage_info si;

	json_object_object_add(o, "seq", json_object_new_uint64(seq));
	json_object_object_add(o, "event", evn ? json_object_new_string(evn) :
				     json_object_new_int(ev));
	json_object_object_add(o, "name", json_object_new_string(name));
	if (tb[NF_CUCKOO_A_NAME2])
		json_object_object_add(o, "name2",
				       json_object_new_string(name2));
	if (tb[NF_CUCKOO_A_EVENT_COUNT])
		json_object_object_add(o, "entries", json_object_new_uint64(
			nla_get_u32(tb[NF_CUCKOO_A_EVENT_COUNT])));
	if (tb[NF_CUCKOO_A_STAGE_INDEX])
		json_object_object_add(o, "stage", json_object_new_int(
			nla_get_u8(tb[NF_CUCKOO_A_STAGE_INDEX])));
	if (!stage_parse(tb[NF_CUCKOO_A_STAGE], &si))
		stage_json(&si, o);
	if ((ev == NF_CUCKOO_EVENT_NEW || ev == NF_CUCKOO_EVENT_SET ||
	     ev == NF_CUCKOO_EVENT_RESTORE) && !info_parse_attrs(tb, &fi))
		json_object_object_add(o, "filter", info_json(&fi));
	print_json_line(o);
}

static void event_cb(void *arg, struct nlmsghdr *nlh, enum cfnl_kind kind,
		     const struct nlerr *e)
{
	struct monitor *m = arg;
	struct nlattr *tb[NF_CUCKOO_A_MAX + 1];
	struct genlmsghdr *g = nlmsg_data(nlh);
	char name[NF_CUCKOO_NAME_MAXLEN] = "";
	char name2[NF_CUCKOO_NAME_MAXLEN] = "";
	uint8_t ev;

	(void)e;
	if (kind != CFNL_DATA || nlh->nlmsg_type != m->family ||
	    nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) ||
	    g->cmd != NF_CUCKOO_CMD_EVENT || cfnl_parse(nlh, tb) ||
	    !tb[NF_CUCKOO_A_EVENT])
		return;
	ev = nla_get_u8(tb[NF_CUCKOO_A_EVENT]);
	if (tb[NF_CUCKOO_A_NAME])
		nla_strlcpy(name, tb[NF_CUCKOO_A_NAME], sizeof(name));
	if (tb[NF_CUCKOO_A_NAME2])
		nla_strlcpy(name2, tb[NF_CUCKOO_A_NAME2], sizeof(name2));
	check_seq(m, nlh->nlmsg_seq);
	if (opts.json)
		print_json(ev, tb, name, name2, nlh->nlmsg_seq);
	else
		print_text(ev, tb, name, name2);
	fflush(stdout);
}

#define MONITOR_USAGE	"usage: cfctl monitor [-j] [rcvbuf BYTES]"

int cmd_monitor(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct monitor m = { 0 };
	uint32_t rcvbuf = 0;
	struct cfnl nl;
	int r, rc = EXIT_OK;

	if (argc == 2 && !strcmp(argv[0], "rcvbuf")) {
		if (parse_u32(argv[1], &rcvbuf) || !rcvbuf || rcvbuf > INT32_MAX) {
			errmsg("rcvbuf: '%s' is not a size in bytes (1 to 2^31 - 1)",
			       argv[1]);
			return EXIT_USAGE;
		}
	} else if (argc) {
		errmsg(MONITOR_USAGE);
		return EXIT_USAGE;
	}
	if (cfnl_open(&nl))
		return EXIT_FAIL;
	m.family = nl.family;
	if (cfnl_join(&nl, NF_CUCKOO_MCGRP_EVENTS, (int)rcvbuf)) {
		cfnl_close(&nl);
		return EXIT_FAIL;
	}
	/* No SA_RESTART: a signal ends the wait in poll(). */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!stop) {
		struct pollfd p = { .fd = nl.fd, .events = POLLIN };

		if (nl.fd >= 0 && poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			errmsg("poll: %s", strerror(errno));
			rc = EXIT_FAIL;
			break;
		}
		r = cfnl_recv(&nl, nl.fd < 0, event_cb, &m);
		if (r == -EAGAIN || r == -EINTR)
			continue;
		if (r == -ENOBUFS) {
			/* The next event's number tells how many. */
			m.overrun = true;
			continue;
		}
		if (r == -ENOTCONN)	/* fake_nl.c: no more events */
			break;
		if (r < 0) {
			errmsg("cannot receive events: %s", strerror(-r));
			rc = EXIT_FAIL;
			break;
		}
	}
	if (m.overrun)
		print_lost(-1);
	fflush(stdout);
	cfnl_close(&nl);
	return rc;
}
