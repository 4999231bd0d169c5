/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfctl: what the kernel says about a filter (NF_CUCKOO_CMD_GET, and the first
 * message of NF_CUCKOO_CMD_SAVE), and how cfctl prints it.
 */
#ifndef CFCTL_INFO_H
#define CFCTL_INFO_H

#include <json-c/json.h>

#include "nl.h"

/* One NF_CUCKOO_A_STAGE nest. */
struct stage_info {
	uint64_t capacity, items, bytes;
	uint32_t load_ppm, fpr_ppb;
	uint8_t fp_bits;
	bool victim;
};

/* Decode a STAGE nest: 0, or -1 if it is not one. */
int stage_parse(struct nlattr *nest, struct stage_info *si);
/* Its fields as members of JSON object o. */
void stage_json(const struct stage_info *si, struct json_object *o);

/* The binds of a filter that show lists. */
#define BINDS_SHOWN	16

/* "xdp", "ingress", "egress" (as cfctl xdp/tc show says), or NULL. */
const char *bind_point_name(uint8_t point);

struct filter_info {
	char name[NF_CUCKOO_NAME_MAXLEN];
	uint32_t id;		/* NF_CUCKOO_A_ID, 0 from a module before 7 */
	uint8_t family;
	uint32_t key_fields;
	uint64_t capacity;
	uint8_t fp_bits;
	uint32_t fpr_ppb;
	uint8_t bucket;
	uint8_t encoding;	/* enum nf_cuckoo_encoding */
	uint16_t kicks;
	uint8_t hook;
	int32_t priority;
	uint8_t action;
	uint32_t mark, mark_mask;
	bool bidir, invert, enabled, loading;
	bool has_stats;
	struct {
		uint64_t items, bytes, table_bytes, slots, nbuckets;
		uint32_t load_ppm;
		bool victim;
		uint64_t lookups, matches, dropped, marked;
		/* Of lookups and matches, BPF programs' (a module of 8 on) */
		uint64_t xdp_lookups, xdp_matches, tc_lookups, tc_matches;
		/* and iptables rules' (9 on) */
		uint64_t rule_lookups, rule_matches;
	} st;
	/* NF_CUCKOO_A_PREFIXES */
	struct nf_cuckoo_prefix_count prefixes[PREFIX_COUNTS_MAX];
	size_t nprefixes;
	/* Growth (a module of version 5 on) */
	bool has_grow;		/* GROW, GROW_FACTOR, STAGES_MAX given */
	bool grow;
	uint8_t factor, stages_max;
	uint32_t fpr_total_ppb;	/* FPR_TOTAL, 0 if not given */
	struct stage_info stage[NF_CUCKOO_STAGES_MAX];	/* GET: oldest first */
	size_t nstages;
	/* SAVE only: an image header per stage, oldest first */
	uint8_t image[NF_CUCKOO_STAGES_MAX][NF_CUCKOO_IMAGE_HEADER_MAXLEN];
	size_t image_len[NF_CUCKOO_STAGES_MAX];
	size_t nimages;
	uint64_t table_bytes;
	bool has_image;
	/* GET: the programs bound to it (NF_CUCKOO_A_BIND), a module of 8 on */
	struct bind_info {
		uint32_t ifindex, prog_id;
		uint8_t point;		/* enum nf_cuckoo_bind_point */
	} bind[BINDS_SHOWN];
	size_t nbinds;
	uint32_t rule_refs;	/* iptables rules that use it (9 on) */
	struct iface_list ifs;	/* NF_CUCKOO_A_IFACE (9 on) */
};

/* Decode a GET (or first SAVE) reply: 0, or -1 if the name is missing. */
int info_parse(struct nlmsghdr *nlh, struct filter_info *fi);
/* The same from its parsed attributes (an event's, say). */
int info_parse_attrs(struct nlattr **tb, struct filter_info *fi);

/* Fetch one filter by name: 0, or the kernel's error (printed). */
int info_get(struct cfnl *nl, const char *name, struct filter_info *fi);

/* The same, without printing the error. */
int info_fetch(struct cfnl *nl, const char *name, struct filter_info *fi,
	       struct nlerr *e);

/* Fetch every filter of the namespace: 0 (*out malloc'ed) or error. */
int info_dump(struct cfnl *nl, struct filter_info **out, size_t *n);

void info_print_text(const struct filter_info *fi, FILE *f);
struct json_object *info_json(const struct filter_info *fi);

/* `create ...` with every parameter, as `cfctl save` writes it. */
void info_print_create(const struct filter_info *fi, FILE *f);
/* The same parameters without "create NAME", each after a space. */
void info_print_params(const struct filter_info *fi, FILE *f);

void info_keyspec(const struct filter_info *fi, struct keyspec *ks);

/* Report a kernel error about filter `name` the way every verb does. */
void report_nlerr(const struct nlerr *e, struct nl_msg *msg, const char *name);

#endif /* CFCTL_INFO_H */
