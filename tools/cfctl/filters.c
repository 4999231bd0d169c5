// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: the verbs on whole filters: create, destroy, list, show, set,
 * flush.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs.h"

struct nl_msg *build_named(struct cfnl *nl, uint8_t cmd, const char *name)
{
	struct nl_msg *msg = cfnl_msg(nl, cmd, NLM_F_ACK, 0);

	if (msg && nla_put_string(msg, NF_CUCKOO_A_NAME, name)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* What create and set both may say. */
static int put_conf(struct nl_msg *msg, const struct filter_spec *fs)
{
	if ((fs->have & HAVE_HOOK) && nla_put_u8(msg, NF_CUCKOO_A_HOOK, fs->hook))
		return -1;
	if ((fs->have & HAVE_PRIORITY) &&
	    nla_put_u32(msg, NF_CUCKOO_A_PRIORITY, (uint32_t)fs->priority))
		return -1;
	if ((fs->have & HAVE_ACTION) &&
	    nla_put_u8(msg, NF_CUCKOO_A_ACTION, fs->action))
		return -1;
	if ((fs->have & HAVE_ACTION) && fs->action == NF_CUCKOO_ACTION_MARK &&
	    (nla_put_u32(msg, NF_CUCKOO_A_MARK, fs->mark) ||
	     nla_put_u32(msg, NF_CUCKOO_A_MARK_MASK, fs->mark_mask)))
		return -1;
	if ((fs->have & HAVE_INVERT) &&
	    nla_put_u8(msg, NF_CUCKOO_A_INVERT, fs->invert))
		return -1;
	if ((fs->have & HAVE_ENABLED) &&
	    nla_put_u8(msg, NF_CUCKOO_A_ENABLED, fs->enabled))
		return -1;
	/* Only when given: a module before version 5 knows no GROW. */
	if ((fs->have & HAVE_GROW) && nla_put_u8(msg, NF_CUCKOO_A_GROW, fs->grow))
		return -1;
	return 0;
}

int iface_parse(struct nlattr *a, struct iface_list *l, char *err,
		size_t errlen)
{
	struct nlattr *tb[NF_CUCKOO_IFACE_A_MAX + 1];
	char buf[128];

	if (!err) {
		err = buf;
		errlen = sizeof(buf);
	}
	if (nla_parse_nested(tb, NF_CUCKOO_IFACE_A_MAX, a, NULL) ||
	    !tb[NF_CUCKOO_IFACE_A_NAME] || !tb[NF_CUCKOO_IFACE_A_DIR] ||
	    nla_len(tb[NF_CUCKOO_IFACE_A_NAME]) < 2 ||
	    nla_get_u8(tb[NF_CUCKOO_IFACE_A_DIR]) > NF_CUCKOO_IFACE_OUT) {
		snprintf(err, errlen, "an interface needs a name (1 to 15 characters) and a direction");
		return -1;
	}
	return iface_add(l, nla_get_u8(tb[NF_CUCKOO_IFACE_A_DIR]),
			 nla_get_string(tb[NF_CUCKOO_IFACE_A_NAME]), err, errlen);
}

/* NF_CUCKOO_A_IFACE, one per name. */
static int put_ifaces(struct nl_msg *msg, const struct iface_list *l)
{
	struct nlattr *nest;
	size_t i;

	for (i = 0; i < l->n; i++) {
		nest = nla_nest_start(msg, NF_CUCKOO_A_IFACE);
		if (!nest || nla_put_string(msg, NF_CUCKOO_IFACE_A_NAME, l->name[i]) ||
		    nla_put_u8(msg, NF_CUCKOO_IFACE_A_DIR, l->dir[i]))
			return -1;
		nla_nest_end(msg, nest);
	}
	return 0;
}

struct nl_msg *build_create(struct cfnl *nl, const struct filter_spec *fs)
{
	bool load = fs->have & HAVE_IMAGE;
	struct nl_msg *msg;

	msg = cfnl_msg(nl, load ? NF_CUCKOO_CMD_LOAD_BEGIN : NF_CUCKOO_CMD_NEW, NLM_F_ACK,
		       0);
	if (!msg)
		return NULL;
	if (nla_put_string(msg, NF_CUCKOO_A_NAME, fs->name) ||
	    nla_put_u8(msg, NF_CUCKOO_A_FAMILY,
		       fs->have & HAVE_FAMILY ? fs->family : NF_CUCKOO_FAMILY_INET))
		goto fail;
	if ((fs->have & HAVE_KEY) &&
	    nla_put_u32(msg, NF_CUCKOO_A_KEY_FIELDS, fs->key_fields))
		goto fail;
	if (put_ifaces(msg, &fs->ifs))
		goto fail;
	if ((fs->have & HAVE_FACTOR) &&
	    nla_put_u8(msg, NF_CUCKOO_A_GROW_FACTOR, fs->factor))
		goto fail;
	if ((fs->have & HAVE_STAGES) &&
	    nla_put_u8(msg, NF_CUCKOO_A_STAGES_MAX, fs->stages))
		goto fail;
	if (load) {
		size_t i;

		/* One per stage, oldest first, as SAVE gave them. */
		for (i = 0; i < fs->nimages; i++)
			if (nla_put(msg, NF_CUCKOO_A_IMAGE_HEADER,
				    (int)fs->image_len[i], fs->image[i]))
				goto fail;
		if (fs->nprefixes &&
		    nla_put(msg, NF_CUCKOO_A_PREFIXES,
			    (int)(fs->nprefixes * sizeof(fs->prefixes[0])),
			    fs->prefixes))
			goto fail;
	} else {
		if ((fs->have & HAVE_CAPACITY) &&
		    nla_put_u64(msg, NF_CUCKOO_A_CAPACITY, fs->capacity))
			goto fail;
		if ((fs->have & HAVE_FP_BITS) &&
		    nla_put_u8(msg, NF_CUCKOO_A_FP_BITS, fs->fp_bits))
			goto fail;
		if ((fs->have & HAVE_FPR) &&
		    nla_put_u32(msg, NF_CUCKOO_A_FPR, fs->fpr_ppb))
			goto fail;
		if ((fs->have & HAVE_BUCKET) &&
		    nla_put_u8(msg, NF_CUCKOO_A_BUCKET_SIZE, fs->bucket))
			goto fail;
		if ((fs->have & HAVE_ENCODING) &&
		    nla_put_u8(msg, NF_CUCKOO_A_ENCODING, fs->encoding))
			goto fail;
		if ((fs->have & HAVE_KICKS) &&
		    nla_put_u16(msg, NF_CUCKOO_A_MAX_KICKS, fs->kicks))
			goto fail;
		if ((fs->have & HAVE_SEED) &&
		    nla_put_u64(msg, NF_CUCKOO_A_SEED, fs->seed))
			goto fail;
	}
	if ((fs->have & HAVE_BIDIR) &&
	    nla_put_u8(msg, NF_CUCKOO_A_BIDIRECTIONAL, fs->bidir))
		goto fail;
	if (put_conf(msg, fs))
		goto fail;
	return msg;
fail:
	nlmsg_free(msg);
	return NULL;
}

struct nl_msg *build_set(struct cfnl *nl, const struct filter_spec *fs)
{
	struct nl_msg *msg = build_named(nl, NF_CUCKOO_CMD_SET, fs->name);

	if (msg && put_conf(msg, fs)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static int need_name(int argc, char **argv, const char *synopsis)
{
	char err[ERRLEN];

	if (argc < 1) {
		errmsg("missing filter name; usage: cfctl %s", synopsis);
		return -1;
	}
	if (check_name(argv[0], err, sizeof(err))) {
		errmsg("%s", err);
		return -1;
	}
	return 0;
}

/* One request, its error reported; returns the exit status. */
static int simple(struct cfnl *nl, struct nl_msg *msg, const char *name,
		  bool ok_eexist)
{
	struct nlerr e;
	int err;

	if (!msg) {
		errmsg("out of memory");
		return EXIT_FAIL;
	}
	err = cfnl_transact(nl, msg, NULL, NULL, &e);
	if (err == -EEXIST && ok_eexist)
		err = 0;
	if (err)
		report_nlerr(&e, msg, name);
	nlmsg_free(msg);
	return exit_for(err);
}

/* Are all argc names in argv well formed?  Says which one is not. */
int check_names(int argc, char **argv)
{
	char err[ERRLEN];
	int k;

	for (k = 0; k < argc; k++) {
		if (check_name(argv[k], err, sizeof(err))) {
			errmsg("%s", err);
			return -1;
		}
	}
	return 0;
}

int create_parse(int argc, char **argv, struct filter_spec *fs,
		 const char *usage)
{
	char err[ERRLEN];

	if (need_name(argc, argv, usage))
		return EXIT_USAGE;
	snprintf(fs->name, sizeof(fs->name), "%s", argv[0]);
	if (parse_filter_spec(argv + 1, argc - 1, fs, false, false, err,
			      sizeof(err))) {
		errmsg("%s", err);
		filter_spec_free(fs);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int create_apply(struct cfnl *nl, const struct filter_spec *fs)
{
	return simple(nl, build_create(nl, fs), fs->name, opts.exist);
}

int cmd_create(int argc, char **argv)
{
	struct filter_spec fs = { 0 };
	struct cfnl nl;
	int r;

	r = create_parse(argc, argv, &fs, "create NAME [PARAMETERS]");
	if (r)
		return r;
	if (cfnl_open(&nl))
		return EXIT_FAIL;
	r = create_apply(&nl, &fs);
	cfnl_close(&nl);
	filter_spec_free(&fs);
	return r;
}

/* Run cmd on the named filters, or on every filter of the namespace. */
static int each_filter(int argc, char **argv, uint8_t cmd, bool skip_loading)
{
	struct filter_info *fi = NULL;
	struct cfnl nl;
	size_t n = 0, i;
	int r = EXIT_OK, k;

	if (check_names(argc, argv))
		return EXIT_USAGE;
	if (cfnl_open(&nl))
		return EXIT_FAIL;
	if (argc) {
		for (k = 0; k < argc; k++)
			if (simple(&nl, build_named(&nl, cmd, argv[k]),
				   argv[k], false))
				r = EXIT_FAIL;
	} else if (info_dump(&nl, &fi, &n)) {
		r = EXIT_FAIL;
	} else {
		for (i = 0; i < n; i++) {
			if (skip_loading && fi[i].loading) {
				warnmsg("skipping %s: it is being restored",
					fi[i].name);
				continue;
			}
			if (simple(&nl, build_named(&nl, cmd, fi[i].name),
				   fi[i].name, false))
				r = EXIT_FAIL;
		}
		free(fi);
	}
	cfnl_close(&nl);
	return r;
}

int cmd_destroy(int argc, char **argv)
{
	return each_filter(argc, argv, NF_CUCKOO_CMD_DEL, false);
}

int cmd_flush(int argc, char **argv)
{
	return each_filter(argc, argv, NF_CUCKOO_CMD_FLUSH, true);
}

static void print_json(struct json_object *o)
{
	int flags = opts.pretty ? JSON_C_TO_STRING_PRETTY |
				  JSON_C_TO_STRING_SPACED :
				  JSON_C_TO_STRING_PLAIN;

	puts(json_object_to_json_string_ext(o, flags | JSON_C_TO_STRING_NOSLASHESCAPE));
}

static void print_list(const struct filter_info *fi, size_t n)
{
	size_t i;

	if (opts.json) {
		struct json_object *a = json_object_new_array();

		for (i = 0; i < n; i++)
			json_object_array_add(a, opts.names_only ?
					      json_object_new_string(fi[i].name) :
					      info_json(&fi[i]));
		print_json(a);
		json_object_put(a);
		return;
	}
	for (i = 0; i < n; i++) {
		if (opts.names_only) {
			puts(fi[i].name);
			continue;
		}
		if (i)
			putchar('\n');
		info_print_text(&fi[i], stdout);
	}
}

int cmd_list(int argc, char **argv)
{
	struct filter_info *fi = NULL;
	struct cfnl nl;
	size_t n = 0;
	int r = EXIT_OK, k;

	if (check_names(argc, argv))
		return EXIT_USAGE;
	if (cfnl_open(&nl))
		return EXIT_FAIL;
	if (!argc) {
		if (info_dump(&nl, &fi, &n))
			r = EXIT_FAIL;
	} else {
		fi = calloc((size_t)argc, sizeof(*fi));
		if (!fi) {
			errmsg("out of memory");
			r = EXIT_FAIL;
		}
		for (k = 0; fi && k < argc; k++) {
			if (info_get(&nl, argv[k], &fi[n]))
				r = EXIT_FAIL;
			else
				n++;
		}
	}
	if (fi)
		print_list(fi, n);
	free(fi);
	cfnl_close(&nl);
	return r;
}

int cmd_show(int argc, char **argv)
{
	struct filter_info fi;
	struct cfnl nl;
	int r = EXIT_OK;

	if (need_name(argc, argv, "show [-j] NAME"))
		return EXIT_USAGE;
	if (argc > 1) {
		errmsg("show takes one filter name (list takes several)");
		return EXIT_USAGE;
	}
	if (cfnl_open(&nl))
		return EXIT_FAIL;
	if (info_get(&nl, argv[0], &fi)) {
		r = EXIT_FAIL;
	} else if (opts.json) {
		struct json_object *o = info_json(&fi);

		print_json(o);
		json_object_put(o);
	} else {
		info_print_text(&fi, stdout);
	}
	cfnl_close(&nl);
	return r;
}

int cmd_set(int argc, char **argv)
{
	struct filter_spec fs = { 0 };
	char err[ERRLEN];
	struct cfnl nl;
	int r;

	if (need_name(argc, argv, "set NAME PARAMETERS"))
		return EXIT_USAGE;
	snprintf(fs.name, sizeof(fs.name), "%s", argv[0]);
	if (parse_filter_spec(argv + 1, argc - 1, &fs, true, false, err,
			      sizeof(err))) {
		errmsg("%s", err);
		return EXIT_USAGE;
	}
	if (!fs.have) {
		errmsg("nothing to set; usage: cfctl set NAME [action ...] [invert on|off] [enable|disable] [grow|nogrow] [hook HOOK] [priority PRIO]");
		return EXIT_USAGE;
	}
	if (cfnl_open(&nl))
		return EXIT_FAIL;
	r = simple(&nl, build_set(&nl, &fs), fs.name, false);
	cfnl_close(&nl);
	return r;
}
