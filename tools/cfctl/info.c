// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: filter descriptions: decoding, text (as `ipset list`) and JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "info.h"

static uint64_t get_u64(struct nlattr *a)
{
	return a && nla_len(a) >= 8 ? nla_get_u64(a) : 0;
}

static uint32_t get_u32(struct nlattr *a)
{
	return a && nla_len(a) >= 4 ? nla_get_u32(a) : 0;
}

static uint16_t get_u16(struct nlattr *a)
{
	return a && nla_len(a) >= 2 ? nla_get_u16(a) : 0;
}

static uint8_t get_u8(struct nlattr *a)
{
	return a && nla_len(a) >= 1 ? nla_get_u8(a) : 0;
}

int stage_parse(struct nlattr *nest, struct stage_info *si)
{
	struct nlattr *tb[NF_CUCKOO_STAGE_A_MAX + 1];

	memset(si, 0, sizeof(*si));
	if (!nest || nla_parse_nested(tb, NF_CUCKOO_STAGE_A_MAX, nest, NULL))
		return -1;
	si->capacity = get_u64(tb[NF_CUCKOO_STAGE_A_CAPACITY]);
	si->items = get_u64(tb[NF_CUCKOO_STAGE_A_ITEMS]);
	si->load_ppm = get_u32(tb[NF_CUCKOO_STAGE_A_LOAD_PPM]);
	si->fp_bits = get_u8(tb[NF_CUCKOO_STAGE_A_FP_BITS]);
	si->bytes = get_u64(tb[NF_CUCKOO_STAGE_A_BYTES]);
	si->fpr_ppb = get_u32(tb[NF_CUCKOO_STAGE_A_FPR]);
	si->victim = get_u8(tb[NF_CUCKOO_STAGE_A_VICTIM]);
	return 0;
}

void stage_json(const struct stage_info *si, struct json_object *o)
{
	json_object_object_add(o, "capacity", json_object_new_uint64(si->capacity));
	json_object_object_add(o, "items", json_object_new_uint64(si->items));
	json_object_object_add(o, "load_ppm", json_object_new_uint64(si->load_ppm));
	json_object_object_add(o, "fingerprint_bits", json_object_new_int(si->fp_bits));
	json_object_object_add(o, "bytes", json_object_new_uint64(si->bytes));
	json_object_object_add(o, "fpr", json_object_new_double((double)si->fpr_ppb / NF_CUCKOO_FPR_SCALE));
	json_object_object_add(o, "fpr_ppb", json_object_new_uint64(si->fpr_ppb));
	json_object_object_add(o, "victim", json_object_new_boolean(si->victim));
}

/*
 * The attributes a reply repeats, one per stage, oldest first: STAGE
 * (GET) and IMAGE_HEADER (SAVE).
 */
const char *bind_point_name(uint8_t point)
{
	switch (point) {
	case NF_CUCKOO_BIND_XDP:
		return "xdp";
	case NF_CUCKOO_BIND_TC_INGRESS:
		return "ingress";
	case NF_CUCKOO_BIND_TC_EGRESS:
		return "egress";
	default:
		return NULL;
	}
}

/* Decode a BIND nest: 0, or -1 if it is not one. */
static int bind_parse(struct nlattr *nest, struct bind_info *b)
{
	struct nlattr *tb[NF_CUCKOO_A_MAX + 1];

	if (nla_parse_nested(tb, NF_CUCKOO_A_MAX, nest, NULL) ||
	    !tb[NF_CUCKOO_A_IFINDEX] || !tb[NF_CUCKOO_A_BIND_POINT])
		return -1;
	b->ifindex = get_u32(tb[NF_CUCKOO_A_IFINDEX]);
	b->point = get_u8(tb[NF_CUCKOO_A_BIND_POINT]);
	b->prog_id = get_u32(tb[NF_CUCKOO_A_PROG_ID]);
	return 0;
}

/* A bind's device, by name if it has one here. */
static const char *bind_dev(const struct bind_info *b, char *buf)
{
	if (!if_indextoname(b->ifindex, buf))
		sprintf(buf, "ifindex %" PRIu32, b->ifindex);
	return buf;
}

static void info_parse_stages(struct nlmsghdr *nlh, struct filter_info *fi)
{
	struct nlattr *a;
	int rem;

	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		int l = nla_len(a);

		if (nla_type(a) == NF_CUCKOO_A_STAGE &&
		    fi->nstages < NF_CUCKOO_STAGES_MAX &&
		    !stage_parse(a, &fi->stage[fi->nstages]))
			fi->nstages++;
		if (nla_type(a) == NF_CUCKOO_A_BIND && fi->nbinds < BINDS_SHOWN &&
		    !bind_parse(a, &fi->bind[fi->nbinds]))
			fi->nbinds++;
		if (nla_type(a) == NF_CUCKOO_A_IFACE)
			iface_parse(a, &fi->ifs, NULL, 0);
		if (nla_type(a) == NF_CUCKOO_A_IMAGE_HEADER &&
		    fi->nimages < NF_CUCKOO_STAGES_MAX &&
		    l > 0 && l <= NF_CUCKOO_IMAGE_HEADER_MAXLEN) {
			memcpy(fi->image[fi->nimages], nla_data(a), (size_t)l);
			fi->image_len[fi->nimages++] = (size_t)l;
			fi->has_image = true;
		}
	}
}

int info_parse(struct nlmsghdr *nlh, struct filter_info *fi)
{
	struct nlattr *tb[NF_CUCKOO_A_MAX + 1];

	memset(fi, 0, sizeof(*fi));
	if (cfnl_parse(nlh, tb) || info_parse_attrs(tb, fi))
		return -1;
	/* What a reply repeats needs the message, not its last attributes. */
	info_parse_stages(nlh, fi);
	return 0;
}

int info_parse_attrs(struct nlattr **tb, struct filter_info *fi)
{
	struct nlattr *st[NF_CUCKOO_STATS_A_MAX + 1];

	memset(fi, 0, sizeof(*fi));
	if (!tb[NF_CUCKOO_A_NAME])
		return -1;
	nla_strlcpy(fi->name, tb[NF_CUCKOO_A_NAME], sizeof(fi->name));
	fi->id = get_u32(tb[NF_CUCKOO_A_ID]);
	fi->family = get_u8(tb[NF_CUCKOO_A_FAMILY]);
	fi->key_fields = get_u32(tb[NF_CUCKOO_A_KEY_FIELDS]);
	fi->capacity = get_u64(tb[NF_CUCKOO_A_CAPACITY]);
	fi->fp_bits = get_u8(tb[NF_CUCKOO_A_FP_BITS]);
	fi->fpr_ppb = get_u32(tb[NF_CUCKOO_A_FPR]);
	fi->bucket = get_u8(tb[NF_CUCKOO_A_BUCKET_SIZE]);
	/* A module of interface version 2 has plain buckets only. */
	fi->encoding = get_u8(tb[NF_CUCKOO_A_ENCODING]);
	fi->kicks = get_u16(tb[NF_CUCKOO_A_MAX_KICKS]);
	fi->hook = get_u8(tb[NF_CUCKOO_A_HOOK]);
	fi->priority = (int32_t)get_u32(tb[NF_CUCKOO_A_PRIORITY]);
	fi->action = get_u8(tb[NF_CUCKOO_A_ACTION]);
	fi->mark = get_u32(tb[NF_CUCKOO_A_MARK]);
	fi->mark_mask = tb[NF_CUCKOO_A_MARK_MASK] ? get_u32(tb[NF_CUCKOO_A_MARK_MASK]) :
					      NF_CUCKOO_MARK_MASK_DEFAULT;
	fi->bidir = get_u8(tb[NF_CUCKOO_A_BIDIRECTIONAL]);
	fi->invert = get_u8(tb[NF_CUCKOO_A_INVERT]);
	fi->enabled = tb[NF_CUCKOO_A_ENABLED] ? get_u8(tb[NF_CUCKOO_A_ENABLED]) : 1;
	fi->loading = get_u8(tb[NF_CUCKOO_A_LOADING]);
	if (tb[NF_CUCKOO_A_STATS] &&
	    !nla_parse_nested(st, NF_CUCKOO_STATS_A_MAX, tb[NF_CUCKOO_A_STATS], NULL)) {
		fi->has_stats = true;
		fi->st.items = get_u64(st[NF_CUCKOO_STATS_A_ITEMS]);
		fi->st.load_ppm = get_u32(st[NF_CUCKOO_STATS_A_LOAD_PPM]);
		fi->st.bytes = get_u64(st[NF_CUCKOO_STATS_A_BYTES]);
		fi->st.table_bytes = get_u64(st[NF_CUCKOO_STATS_A_TABLE_BYTES]);
		fi->st.slots = get_u64(st[NF_CUCKOO_STATS_A_SLOTS]);
		fi->st.nbuckets = get_u64(st[NF_CUCKOO_STATS_A_NBUCKETS]);
		fi->st.victim = get_u8(st[NF_CUCKOO_STATS_A_VICTIM]);
		fi->st.lookups = get_u64(st[NF_CUCKOO_STATS_A_PKT_LOOKUPS]);
		fi->st.matches = get_u64(st[NF_CUCKOO_STATS_A_PKT_MATCHES]);
		fi->st.dropped = get_u64(st[NF_CUCKOO_STATS_A_PKT_DROPPED]);
		fi->st.marked = get_u64(st[NF_CUCKOO_STATS_A_PKT_MARKED]);
		fi->st.xdp_lookups = get_u64(st[NF_CUCKOO_STATS_A_XDP_LOOKUPS]);
		fi->st.xdp_matches = get_u64(st[NF_CUCKOO_STATS_A_XDP_MATCHES]);
		fi->st.tc_lookups = get_u64(st[NF_CUCKOO_STATS_A_TC_LOOKUPS]);
		fi->st.tc_matches = get_u64(st[NF_CUCKOO_STATS_A_TC_MATCHES]);
		fi->st.rule_lookups = get_u64(st[NF_CUCKOO_STATS_A_RULE_LOOKUPS]);
		fi->st.rule_matches = get_u64(st[NF_CUCKOO_STATS_A_RULE_MATCHES]);
	}
	fi->rule_refs = get_u32(tb[NF_CUCKOO_A_RULE_REFS]);
	fi->has_grow = tb[NF_CUCKOO_A_GROW] && tb[NF_CUCKOO_A_GROW_FACTOR] &&
		       tb[NF_CUCKOO_A_STAGES_MAX];
	fi->grow = get_u8(tb[NF_CUCKOO_A_GROW]);
	fi->factor = get_u8(tb[NF_CUCKOO_A_GROW_FACTOR]);
	fi->stages_max = get_u8(tb[NF_CUCKOO_A_STAGES_MAX]);
	fi->fpr_total_ppb = get_u32(tb[NF_CUCKOO_A_FPR_TOTAL]);
	fi->table_bytes = get_u64(tb[NF_CUCKOO_A_IMAGE_TABLE_BYTES]);
	if (tb[NF_CUCKOO_A_PREFIXES]) {
		size_t l = (size_t)nla_len(tb[NF_CUCKOO_A_PREFIXES]);

		if (l > sizeof(fi->prefixes))
			l = sizeof(fi->prefixes);
		fi->nprefixes = l / sizeof(fi->prefixes[0]);
		memcpy(fi->prefixes, nla_data(tb[NF_CUCKOO_A_PREFIXES]),
		       fi->nprefixes * sizeof(fi->prefixes[0]));
	}
	return 0;
}

void report_nlerr(const struct nlerr *e, struct nl_msg *msg, const char *name)
{
	char buf[ERRLEN + 128];
	int err = -e->err;

	if (e->msg[0] || e->has_miss) {
		nlerr_format(e, msg, buf, sizeof(buf));
		errmsg("%s", buf);
		return;
	}
	switch (err) {
	case EPERM:
		errmsg("%s (need CAP_NET_ADMIN over the network namespace)",
		       strerror(err));
		return;
	case ENOENT:
		if (name) {
			errmsg("no filter named %s (%s)", name, strerror(err));
			return;
		}
		break;
	case EEXIST:
		if (name) {
			errmsg("a filter named %s already exists (%s)", name,
			       strerror(err));
			return;
		}
		break;
	case EBUSY:
		if (name) {
			errmsg("filter %s is being restored (%s)", name,
			       strerror(err));
			return;
		}
		break;
	case EDQUOT:
		errmsg("the network namespace's memory ceiling would be exceeded (%s)",
		       strerror(err));
		return;
	}
	nlerr_format(e, msg, buf, sizeof(buf));
	errmsg("%s", buf);
}

static void get_cb(struct nlmsghdr *nlh, void *arg)
{
	struct filter_info *fi = arg;

	info_parse(nlh, fi);
}

int info_fetch(struct cfnl *nl, const char *name, struct filter_info *fi,
	       struct nlerr *e)
{
	struct nl_msg *msg;
	int err;

	memset(fi, 0, sizeof(*fi));
	memset(e, 0, sizeof(*e));
	msg = cfnl_msg(nl, NF_CUCKOO_CMD_GET, NLM_F_ACK, 0);
	if (!msg || nla_put_string(msg, NF_CUCKOO_A_NAME, name)) {
		nlmsg_free(msg);
		e->err = -ENOMEM;
		return -ENOMEM;
	}
	err = cfnl_transact(nl, msg, get_cb, fi, e);
	if (!err && !fi->name[0]) {
		e->err = err = -EBADMSG;
		snprintf(e->msg, sizeof(e->msg), "no filter description in the kernel's reply");
	}
	nlmsg_free(msg);
	return err;
}

int info_get(struct cfnl *nl, const char *name, struct filter_info *fi)
{
	struct nlerr e;
	int err = info_fetch(nl, name, fi, &e);

	if (err)
		report_nlerr(&e, NULL, name);
	return err;
}

struct dump_ctx {
	struct filter_info *v;
	size_t n, cap;
	bool intr, nomem;
};

static void dump_cb(struct nlmsghdr *nlh, void *arg)
{
	struct dump_ctx *d = arg;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		d->intr = true;
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct filter_info *v = realloc(d->v, cap * sizeof(*v));

		if (!v) {
			d->nomem = true;
			return;
		}
		d->v = v;
		d->cap = cap;
	}
	if (!info_parse(nlh, &d->v[d->n]))
		d->n++;
}

int info_dump(struct cfnl *nl, struct filter_info **out, size_t *n)
{
	struct dump_ctx d;
	struct nl_msg *msg;
	struct nlerr e;
	int err, tries;

	for (tries = 0;; tries++) {
		memset(&d, 0, sizeof(d));
		msg = cfnl_msg(nl, NF_CUCKOO_CMD_GET, NLM_F_DUMP, 0);
		if (!msg) {
			errmsg("out of memory");
			return -ENOMEM;
		}
		err = cfnl_transact(nl, msg, dump_cb, &d, &e);
		if (err) {
			report_nlerr(&e, msg, NULL);
			nlmsg_free(msg);
			free(d.v);
			return err;
		}
		nlmsg_free(msg);
		if (d.nomem) {
			free(d.v);
			errmsg("out of memory");
			return -ENOMEM;
		}
		if (!d.intr || tries == 5)
			break;
		free(d.v);	/* filters changed meanwhile: again */
	}
	*out = d.v;
	*n = d.n;
	return 0;
}

void info_keyspec(const struct filter_info *fi, struct keyspec *ks)
{
	ks->fields = fi->key_fields;
	ks->families = fi->family;
	ks->bidir = fi->bidir;
}

/* The create word of a filter's encoding, with its space; "" for plain. */
static const char *encoding_word(const struct filter_info *fi)
{
	return fi->encoding == NF_CUCKOO_ENCODING_SEMISORT ? " semisort" : "";
}

static void fmt_fpr(uint32_t ppb, char *buf, size_t len)
{
	snprintf(buf, len, "%.3g", (double)ppb / NF_CUCKOO_FPR_SCALE);
}

static void fmt_action(const struct filter_info *fi, char *buf, size_t len)
{
	if (fi->action == NF_CUCKOO_ACTION_MARK) {
		if (fi->mark_mask == NF_CUCKOO_MARK_MASK_DEFAULT)
			snprintf(buf, len, "mark 0x%" PRIx32, fi->mark);
		else
			snprintf(buf, len, "mark 0x%" PRIx32 "/0x%" PRIx32,
				 fi->mark, fi->mark_mask);
	} else {
		snprintf(buf, len, "%s", action_name(fi->action));
	}
}

static void fmt_flags(const struct filter_info *fi, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s",
		 fi->bidir ? " bidirectional" : "",
		 fi->invert ? " invert" : "",
		 fi->enabled ? " enabled" : " disabled",
		 fi->loading ? " loading" : "");
}

/* "ip src/24 dst/32": a combination, with the full length where 0. */
static void fmt_prefix(const struct filter_info *fi,
		       const struct nf_cuckoo_prefix_count *pc, char *buf,
		       size_t len)
{
	unsigned int full = pc->family == NF_CUCKOO_FAMILY_IPV6 ? 128 : 32;
	size_t off;

	off = (size_t)snprintf(buf, len, "%s", family_name(pc->family));
	if ((fi->key_fields & NF_CUCKOO_KEY_SRC_ADDR) && off < len)
		off += (size_t)snprintf(buf + off, len - off, " src/%u",
					pc->src_plen ? pc->src_plen : full);
	if ((fi->key_fields & NF_CUCKOO_KEY_DST_ADDR) && off < len)
		snprintf(buf + off, len - off, " dst/%u",
			 pc->dst_plen ? pc->dst_plen : full);
}

/* Items the filter was sized for: its stages' capacities, summed. */
static uint64_t total_capacity(const struct filter_info *fi)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < fi->nstages; i++)
		sum += fi->stage[i].capacity;
	return fi->nstages ? sum : fi->capacity;
}

static void print_load(uint32_t ppm, FILE *f)
{
	fprintf(f, ppm && ppm < 100 ? "%.4f%%" : "%.2f%%", ppm / 10000.0);
}

/* The stages of a filter (after its statistics), and its whole bound. */
static void print_stages(const struct filter_info *fi, FILE *f)
{
	char fpr[32], first[32];
	size_t i;

	if (!fi->nstages)
		return;
	fmt_fpr(fi->fpr_total_ppb, fpr, sizeof(fpr));
	fmt_fpr(fi->stage[0].fpr_ppb, first, sizeof(first));
	fprintf(f, "Stages: %zu fpr %s (every lookup asks each stage; the sum of their bounds, under twice the first's %s)\n",
		fi->nstages, fpr, first);
	for (i = 0; i < fi->nstages; i++) {
		const struct stage_info *si = &fi->stage[i];

		fmt_fpr(si->fpr_ppb, fpr, sizeof(fpr));
		fprintf(f, "Stage %zu: capacity %" PRIu64 " items %" PRIu64 " load ",
			i, si->capacity, si->items);
		print_load(si->load_ppm, f);
		fprintf(f, " fingerprint %u bytes %" PRIu64 " fpr %s%s\n",
			si->fp_bits, si->bytes, fpr,
			si->victim ? " victim taken" : "");
	}
}

/* The hook's share of the packet counters: what the other paths leave. */
static uint64_t hook_lookups(const struct filter_info *fi)
{
	return fi->st.lookups - fi->st.xdp_lookups - fi->st.tc_lookups -
	       fi->st.rule_lookups;
}

static uint64_t hook_matches(const struct filter_info *fi)
{
	return fi->st.matches - fi->st.xdp_matches - fi->st.tc_matches -
	       fi->st.rule_matches;
}

void info_print_text(const struct filter_info *fi, FILE *f)
{
	char key[64], fpr[32], act[64], flags[64];

	format_key_fields(fi->key_fields, key, sizeof(key));
	fmt_fpr(fi->fpr_ppb, fpr, sizeof(fpr));
	fmt_action(fi, act, sizeof(act));
	fmt_flags(fi, flags, sizeof(flags));
	fprintf(f, "Name: %s\n", fi->name);
	if (fi->id)
		fprintf(f, "Id: %" PRIu32 "\n", fi->id);
	if (fi->rule_refs)
		fprintf(f, "Used by: %" PRIu32 " iptables rule%s\n", fi->rule_refs,
			fi->rule_refs == 1 ? "" : "s");
	for (size_t i = 0; i < fi->nbinds; i++) {
		char dev[IF_NAMESIZE + 24];

		fprintf(f, "Attached: %s %s (program %" PRIu32 ")\n",
			bind_point_name(fi->bind[i].point) ?: "?",
			bind_dev(&fi->bind[i], dev), fi->bind[i].prog_id);
	}
	fprintf(f, "Type: cuckoo family %s key %s\n", family_name(fi->family),
		key);
	fprintf(f, "Header: capacity %" PRIu64 " fingerprint %u bucket %u%s kicks %u fpr %s\n",
		fi->capacity, fi->fp_bits, fi->bucket, encoding_word(fi),
		fi->kicks, fpr);
	fprintf(f, "Hook: %s priority %" PRId32 "\n", hook_name(fi->hook),
		fi->priority);
	if (fi->ifs.n) {
		fputs("Interfaces:", f);
		iface_print(&fi->ifs, f);
		fputc('\n', f);
	}
	fprintf(f, "Action: %s\n", act);
	fprintf(f, "Flags:%s\n", flags);
	if (fi->has_grow)
		fprintf(f, "Growth: %s factor %u stages %u\n",
			fi->grow ? "on" : "off", fi->factor, fi->stages_max);
	if (fi->nprefixes) {
		char pbuf[64];
		size_t i;

		fprintf(f, "Prefixes:");
		for (i = 0; i < fi->nprefixes; i++) {
			fmt_prefix(fi, &fi->prefixes[i], pbuf, sizeof(pbuf));
			fprintf(f, "%s %s: %u", i ? "," : "", pbuf,
				fi->prefixes[i].count);
		}
		fputc('\n', f);
	}
	if (!fi->has_stats)
		return;
	fprintf(f, "Items: %" PRIu64 "\n", fi->st.items);
	fputs("Load: ", f);
	print_load(fi->st.load_ppm, f);
	/* The kernel's load is the newest stage's, the one adds go to. */
	fprintf(f, " (%s%" PRIu64 " slots in %" PRIu64 " buckets%s)\n",
		fi->nstages > 1 ? "the newest stage's; " : "", fi->st.slots,
		fi->st.nbuckets, fi->nstages > 1 ? " in all" : "");
	fprintf(f, "Size in memory: %" PRIu64 " bytes (table %" PRIu64 ")\n",
		fi->st.bytes, fi->st.table_bytes);
	if (total_capacity(fi))
		fprintf(f, "Bits per item: %.2f at capacity",
			fi->st.table_bytes * 8.0 / (double)total_capacity(fi));
	else
		fprintf(f, "Bits per item: -");
	if (fi->st.items)
		fprintf(f, " (%.2f per item stored now)",
			fi->st.table_bytes * 8.0 / (double)fi->st.items);
	fputc('\n', f);
	fprintf(f, "Victim: %s\n", fi->st.victim ? "taken (the filter is full: adds fail until something is deleted)" : "free");
	fprintf(f, "Packets: lookups %" PRIu64 " matches %" PRIu64
		   " dropped %" PRIu64 " marked %" PRIu64 "\n",
		fi->st.lookups, fi->st.matches, fi->st.dropped, fi->st.marked);
	if (fi->st.xdp_lookups || fi->st.tc_lookups || fi->st.rule_lookups)
		fprintf(f, "Packets by path: hook %" PRIu64 "/%" PRIu64
			   " xdp %" PRIu64 "/%" PRIu64 " tc %" PRIu64 "/%" PRIu64
			   " rules %" PRIu64 "/%" PRIu64 " (lookups/matches)\n",
			hook_lookups(fi), hook_matches(fi),
			fi->st.xdp_lookups, fi->st.xdp_matches,
			fi->st.tc_lookups, fi->st.tc_matches,
			fi->st.rule_lookups, fi->st.rule_matches);
	print_stages(fi, f);
}

/* One path's share of the packet counters. */
static struct json_object *path_json(uint64_t lookups, uint64_t matches)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "lookups", json_object_new_uint64(lookups));
	json_object_object_add(o, "matches", json_object_new_uint64(matches));
	return o;
}

/* Growth: its settings, and each stage with the whole bound (GET). */
static void info_json_grow(const struct filter_info *fi, struct json_object *o)
{
	struct json_object *a, *so;
	size_t i;

	if (fi->has_grow) {
		json_object_object_add(o, "grow", json_object_new_boolean(fi->grow));
		json_object_object_add(o, "grow_factor", json_object_new_int(fi->factor));
		json_object_object_add(o, "stages_max", json_object_new_int(fi->stages_max));
	}
	if (!fi->nstages)
		return;
	json_object_object_add(o, "fpr_total", json_object_new_double((double)fi->fpr_total_ppb / NF_CUCKOO_FPR_SCALE));
	json_object_object_add(o, "fpr_total_ppb", json_object_new_uint64(fi->fpr_total_ppb));
	a = json_object_new_array();
	for (i = 0; i < fi->nstages; i++) {
		so = json_object_new_object();
		json_object_object_add(so, "index", json_object_new_uint64(i));
		stage_json(&fi->stage[i], so);
		json_object_object_add(so, "load_percent", json_object_new_double(fi->stage[i].load_ppm / 10000.0));
		json_object_array_add(a, so);
	}
	json_object_object_add(o, "stages", a);
}

struct json_object *info_json(const struct filter_info *fi)
{
	struct json_object *o = json_object_new_object();
	struct json_object *key = json_object_new_array();
	uint32_t b;

	json_object_object_add(o, "name", json_object_new_string(fi->name));
	if (fi->id)
		json_object_object_add(o, "id", json_object_new_uint64(fi->id));
	if (fi->nbinds) {
		struct json_object *a = json_object_new_array();

		for (size_t i = 0; i < fi->nbinds; i++) {
			struct json_object *bo = json_object_new_object();
			char dev[IF_NAMESIZE + 24];

			json_object_object_add(bo, "dev", json_object_new_string(
				bind_dev(&fi->bind[i], dev)));
			json_object_object_add(bo, "attach", json_object_new_string(
				bind_point_name(fi->bind[i].point) ?: "?"));
			json_object_object_add(bo, "prog_id",
					       json_object_new_uint64(fi->bind[i].prog_id));
			json_object_array_add(a, bo);
		}
		json_object_object_add(o, "attached", a);
	}
	json_object_object_add(o, "rules", json_object_new_uint64(fi->rule_refs));
	json_object_object_add(o, "family",
			       json_object_new_string(family_name(fi->family)));
	for (b = 1; b <= NF_CUCKOO_KEY_PROTO; b <<= 1)
		if (fi->key_fields & b)
			json_object_array_add(key, json_object_new_string(key_field_name(b)));
	json_object_object_add(o, "key", key);
	json_object_object_add(o, "capacity", json_object_new_uint64(fi->capacity));
	json_object_object_add(o, "fingerprint_bits", json_object_new_int(fi->fp_bits));
	json_object_object_add(o, "fpr", json_object_new_double((double)fi->fpr_ppb / NF_CUCKOO_FPR_SCALE));
	json_object_object_add(o, "fpr_ppb", json_object_new_uint64(fi->fpr_ppb));
	json_object_object_add(o, "bucket_size", json_object_new_int(fi->bucket));
	json_object_object_add(o, "encoding", json_object_new_string(
		fi->encoding == NF_CUCKOO_ENCODING_SEMISORT ? "semisort" : "plain"));
	json_object_object_add(o, "max_kicks", json_object_new_int(fi->kicks));
	json_object_object_add(o, "hook", json_object_new_string(hook_name(fi->hook)));
	if (fi->ifs.n) {
		struct json_object *in = json_object_new_array();
		struct json_object *out = json_object_new_array();

		for (size_t i = 0; i < fi->ifs.n; i++)
			json_object_array_add(fi->ifs.dir[i] == NF_CUCKOO_IFACE_IN ? in : out,
					      json_object_new_string(fi->ifs.name[i]));
		json_object_object_add(o, "iif", in);
		json_object_object_add(o, "oif", out);
	}
	json_object_object_add(o, "priority", json_object_new_int(fi->priority));
	json_object_object_add(o, "action", json_object_new_string(action_name(fi->action)));
	json_object_object_add(o, "mark", json_object_new_uint64(fi->mark));
	json_object_object_add(o, "mark_mask", json_object_new_uint64(fi->mark_mask));
	json_object_object_add(o, "bidirectional", json_object_new_boolean(fi->bidir));
	json_object_object_add(o, "invert", json_object_new_boolean(fi->invert));
	json_object_object_add(o, "enabled", json_object_new_boolean(fi->enabled));
	json_object_object_add(o, "loading", json_object_new_boolean(fi->loading));
	{
		struct json_object *pa = json_object_new_array();
		size_t i;

		for (i = 0; i < fi->nprefixes; i++) {
			const struct nf_cuckoo_prefix_count *pc = &fi->prefixes[i];
			struct json_object *po = json_object_new_object();
			int full = pc->family == NF_CUCKOO_FAMILY_IPV6 ? 128 : 32;

			json_object_object_add(po, "family",
					       json_object_new_string(family_name(pc->family)));
			if (fi->key_fields & NF_CUCKOO_KEY_SRC_ADDR)
				json_object_object_add(po, "src", json_object_new_int(
					pc->src_plen ? pc->src_plen : full));
			if (fi->key_fields & NF_CUCKOO_KEY_DST_ADDR)
				json_object_object_add(po, "dst", json_object_new_int(
					pc->dst_plen ? pc->dst_plen : full));
			json_object_object_add(po, "entries",
					       json_object_new_uint64(pc->count));
			json_object_array_add(pa, po);
		}
		json_object_object_add(o, "prefixes", pa);
	}
	if (fi->has_stats) {
		struct json_object *s = json_object_new_object();
		struct json_object *p = json_object_new_object();

		json_object_object_add(s, "items", json_object_new_uint64(fi->st.items));
		json_object_object_add(s, "load_ppm", json_object_new_uint64(fi->st.load_ppm));
		json_object_object_add(s, "load_percent", json_object_new_double(fi->st.load_ppm / 10000.0));
		json_object_object_add(s, "bytes", json_object_new_uint64(fi->st.bytes));
		json_object_object_add(s, "table_bytes", json_object_new_uint64(fi->st.table_bytes));
		json_object_object_add(s, "slots", json_object_new_uint64(fi->st.slots));
		json_object_object_add(s, "buckets", json_object_new_uint64(fi->st.nbuckets));
		json_object_object_add(s, "bits_per_item", fi->st.items ?
				       json_object_new_double(fi->st.table_bytes * 8.0 / (double)fi->st.items) :
				       NULL);
		json_object_object_add(s, "bits_per_item_at_capacity", total_capacity(fi) ?
				       json_object_new_double(fi->st.table_bytes * 8.0 / (double)total_capacity(fi)) :
				       NULL);
		json_object_object_add(s, "victim", json_object_new_boolean(fi->st.victim));
		json_object_object_add(p, "lookups", json_object_new_uint64(fi->st.lookups));
		json_object_object_add(p, "matches", json_object_new_uint64(fi->st.matches));
		json_object_object_add(p, "dropped", json_object_new_uint64(fi->st.dropped));
		json_object_object_add(p, "marked", json_object_new_uint64(fi->st.marked));
		json_object_object_add(p, "hook", path_json(hook_lookups(fi),
							    hook_matches(fi)));
		json_object_object_add(p, "xdp", path_json(fi->st.xdp_lookups,
							   fi->st.xdp_matches));
		json_object_object_add(p, "tc", path_json(fi->st.tc_lookups,
							  fi->st.tc_matches));
		json_object_object_add(p, "rules", path_json(fi->st.rule_lookups,
							     fi->st.rule_matches));
		json_object_object_add(s, "packets", p);
		json_object_object_add(o, "stats", s);
	}
	info_json_grow(fi, o);
	return o;
}

void info_print_create(const struct filter_info *fi, FILE *f)
{
	fprintf(f, "create %s", fi->name);
	info_print_params(fi, f);
}

void info_print_params(const struct filter_info *fi, FILE *f)
{
	char key[64], act[64];

	format_key_fields(fi->key_fields, key, sizeof(key));
	fmt_action(fi, act, sizeof(act));
	fprintf(f, " family %s key %s capacity %" PRIu64
		   " fingerprint %u bucket %u%s kicks %u hook %s priority %" PRId32
		   " action %s%s%s%s",
		family_name(fi->family), key, fi->capacity,
		fi->fp_bits, fi->bucket, encoding_word(fi), fi->kicks, hook_name(fi->hook),
		fi->priority, act, fi->bidir ? " bidirectional" : "",
		fi->invert ? " invert" : "", fi->enabled ? "" : " disabled");
	if (fi->nprefixes) {
		fputs(" prefixes ", f);
		format_prefix_counts(fi->prefixes, fi->nprefixes, f);
	}
	if (fi->has_grow)
		fprintf(f, " %s factor %u stages %u", fi->grow ? "grow" : "nogrow",
			fi->factor, fi->stages_max);
	iface_print(&fi->ifs, f);
}
