// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl xdp and cfctl tc: attach the program users get (nf_cuckoo.bpf.o,
 * bpf/nf_cuckoo.bpf.c) to a device, so that a filter drops its flows at
 * XDP, before the kernel builds an skb, or at tc ingress or egress.
 *
 * XDP goes through libxdp, as xdp-tools' programs do: its dispatcher
 * lets the program share a device with other XDP programs (each run in
 * its priority's turn), and a kernel too old for the dispatcher gets the
 * program alone.  tc goes through libbpf: a clsact qdisc and a
 * direct-action filter at handle TC_HANDLE, priority TC_PRIO, where
 * detach and show find it again.  The filter a program consults is its
 * id (cfctl show's Id), set in the program's read-only data before the
 * load: show reads it back from the loaded program, so what it prints is
 * what runs, whoever attached it.
 */
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <xdp/libxdp.h>

#include "bpf/nf_cuckoo_prog.h"
#include "cfctl.h"
#include "verbs.h"
#include "xdp.h"

#define PROG_OBJ	NFCF_PROG_OBJ
#define XDP_PROG	NFCF_PROG_XDP
#define TC_PROG		NFCF_PROG_TC
#define ID_VAR		NFCF_PROG_ID_VAR
#define TC_HANDLE	0xcf
#define TC_PRIO		1

#ifndef NFCF_BPFDIR
#define NFCF_BPFDIR	"/usr/local/lib/nf-cuckoo"
#endif

/* libbpf's and libxdp's messages: kept, and printed when a step fails. */
static char bpf_log[4096];
static size_t bpf_log_len;

static int log_print(const char *fmt, va_list ap)
{
	int n;

	if (bpf_log_len >= sizeof(bpf_log) - 1)
		bpf_log_len = 0;
	n = vsnprintf(bpf_log + bpf_log_len, sizeof(bpf_log) - bpf_log_len,
		      fmt, ap);
	if (n > 0)
		bpf_log_len += (size_t)n;
	if (bpf_log_len >= sizeof(bpf_log))
		bpf_log_len = sizeof(bpf_log) - 1;
	return n;
}

static int libbpf_log(enum libbpf_print_level level, const char *fmt,
		      va_list ap)
{
	if (level == LIBBPF_DEBUG && !opts.verbose)
		return 0;
	return log_print(fmt, ap);
}

static int libxdp_log(enum libxdp_print_level level, const char *fmt,
		      va_list ap)
{
	if (level == LIBXDP_DEBUG && !opts.verbose)
		return 0;
	return log_print(fmt, ap);
}

static void log_start(void)
{
	bpf_log_len = 0;
	bpf_log[0] = '\0';
	libbpf_set_print(libbpf_log);
	libxdp_set_print(libxdp_log);
}

/* The last lines the libraries printed, after an error. */
static void log_dump(void)
{
	const char *p = bpf_log;
	int lines = 0;
	size_t i;

	for (i = bpf_log_len; i > 0 && lines < 8; i--)
		if (bpf_log[i - 1] == '\n' && i != bpf_log_len && ++lines == 8)
			p = bpf_log + i;
	if (bpf_log_len)
		fprintf(stderr, "%s%s", p,
			bpf_log[bpf_log_len - 1] == '\n' ? "" : "\n");
}

/*
 * The program's file: $CFCTL_BPF_OBJ, else beside this cfctl (a build
 * tree), else where make install and the package put it.
 */
static const char *prog_path(char *buf, size_t len)
{
	const char *env = getenv("CFCTL_BPF_OBJ");
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			n = snprintf(buf, len, "%s/" PROG_OBJ, exe);
			if (n > 0 && (size_t)n < len && !access(buf, R_OK))
				return buf;
		}
	}
	snprintf(buf, len, NFCF_BPFDIR "/" PROG_OBJ);
	return buf;
}

/*
 * Why a program cannot call the module's kfuncs here, or NULL if it can:
 * said before libbpf's own, vaguer, error.
 */
static const char *kfuncs_missing(void)
{
	if (access("/sys/module/nf_cuckoo", F_OK))
		return "the nf_cuckoo module is not loaded (modprobe nf_cuckoo)";
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return "this kernel has no BTF (CONFIG_DEBUG_INFO_BTF), which BPF programs need to call a module";
	if (access("/sys/kernel/btf/nf_cuckoo", R_OK))
		return "the nf_cuckoo module was built without BTF (pahole, from the dwarves package, was missing, or the kernel's BTF could not be found when it was built): rebuild it with pahole installed";
	return NULL;
}

/*
 * Tell the module that the program on ifindex's point consults filter id
 * (bind), or no longer does (id 0): so that the filter cannot be
 * destroyed under it.  0, or the kernel's error, printed.
 */
static int module_bind(const char *dev, int ifindex, uint8_t point, uint32_t id,
		       uint32_t prog_id, bool quiet)
{
	struct nl_msg *msg;
	struct nlerr e;
	struct cfnl nl;
	int err = -ENOMEM;

	if (cfnl_open(&nl))
		return -EIO;
	msg = cfnl_msg(&nl, id ? NF_CUCKOO_CMD_BIND : NF_CUCKOO_CMD_UNBIND,
		       NLM_F_ACK, 0);
	if (msg && !nla_put_u32(msg, NF_CUCKOO_A_IFINDEX, (uint32_t)ifindex) &&
	    !nla_put_u8(msg, NF_CUCKOO_A_BIND_POINT, point) &&
	    (!id || (!nla_put_u32(msg, NF_CUCKOO_A_ID, id) &&
		     !nla_put_u32(msg, NF_CUCKOO_A_PROG_ID, prog_id)))) {
		err = cfnl_transact(&nl, msg, NULL, NULL, &e);
		if (err && !quiet)
			report_nlerr(&e, msg, dev);
	} else {
		errmsg("out of memory");
	}
	nlmsg_free(msg);
	cfnl_close(&nl);
	return err;
}

/* The filter's id for a program, checked: 0, or EXIT_* printed. */
static int filter_for_prog(const char *name, uint32_t *id)
{
	struct filter_info fi;
	struct cfnl nl;
	int r = EXIT_OK;

	if (cfnl_open(&nl))
		return EXIT_FAIL;
	if (info_get(&nl, name, &fi)) {
		r = EXIT_FAIL;
	} else if (!fi.id) {
		errmsg("the loaded nf_cuckoo module gives filters no id (uapi version 7 or later is needed)");
		r = EXIT_FAIL;
	} else if (fi.action != NF_CUCKOO_ACTION_DROP) {
		errmsg("filter '%s' is '%s': the program only drops (create the filter with action drop)",
		       name, action_name(fi.action));
		r = EXIT_FAIL;
	}
	*id = fi.id;
	cfnl_close(&nl);
	return r;
}

/* The filter id a loaded program of ours consults, from its .rodata. */
static int prog_filter_id(int prog_fd, uint32_t *id)
{
	struct bpf_prog_info pi = { 0 };
	uint32_t len = sizeof(pi), maps[8], n, i;
	int ret = -ENOENT;

	pi.nr_map_ids = 8;
	pi.map_ids = (uint64_t)(unsigned long)maps;
	if (bpf_obj_get_info_by_fd(prog_fd, &pi, &len))
		return -errno;
	n = pi.nr_map_ids < 8 ? pi.nr_map_ids : 8;
	for (i = 0; i < n && ret; i++) {
		struct bpf_map_info mi = { 0 };
		uint32_t mlen = sizeof(mi), zero = 0;
		const struct btf_var_secinfo *vs;
		const struct btf_type *t;
		struct btf *btf;
		char *val;
		int fd, k;

		fd = bpf_map_get_fd_by_id(maps[i]);
		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &mi, &mlen) ||
		    !strstr(mi.name, ".rodata") || !mi.btf_id) {
			close(fd);
			continue;
		}
		btf = btf__load_from_kernel_by_id(mi.btf_id);
		val = calloc(1, mi.value_size);
		if (btf && val && !bpf_map_lookup_elem(fd, &zero, val)) {
			t = btf__type_by_id(btf, mi.btf_value_type_id);
			vs = t ? btf_var_secinfos(t) : NULL;
			for (k = 0; vs && k < btf_vlen(t); k++, vs++) {
				const struct btf_type *v = btf__type_by_id(btf, vs->type);

				if (!strcmp(btf__name_by_offset(btf, v->name_off), ID_VAR) &&
				    vs->offset + sizeof(*id) <= mi.value_size) {
					memcpy(id, val + vs->offset, sizeof(*id));
					ret = 0;
				}
			}
		}
		free(val);
		btf__free(btf);
		close(fd);
	}
	return ret;
}

/* The name of filter id in this namespace, "" if none. */
static void filter_name(const struct filter_info *fi, size_t n, uint32_t id,
			char *buf, size_t len)
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		if (fi[i].id == id)
			snprintf(buf, len, "%s", fi[i].name);
}

static int dev_index(const char *dev)
{
	unsigned int i = if_nametoindex(dev);

	if (!i)
		errmsg("no device '%s' in this network namespace", dev);
	return (int)i;
}

/*
 * The program reads Ethernet frames: on a device of another link type
 * (tun, WireGuard, an IP tunnel) it would read garbage.  0, or -1 said.
 */
static int dev_is_ether(const char *dev)
{
	struct ifreq ifr = { 0 };
	int fd, r = -1;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	if (fd >= 0 && !ioctl(fd, SIOCGIFHWADDR, &ifr)) {
		r = ifr.ifr_hwaddr.sa_family == ARPHRD_ETHER ? 0 : -1;
		if (r)
			errmsg("%s is not an Ethernet device (link type %u): the program reads Ethernet frames",
			       dev, ifr.ifr_hwaddr.sa_family);
	} else {
		errmsg("cannot read %s's link type: %s", dev, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	return r;
}

static const char *mode_name(enum xdp_attach_mode m)
{
	switch (m) {
	case XDP_MODE_NATIVE:
		return "native";
	case XDP_MODE_SKB:
		return "generic";
	case XDP_MODE_HW:
		return "offload";
	default:
		return "none";
	}
}

/* Our program on ifindex (its xdp_program, owned by *mp), or NULL. */
static struct xdp_program *xdp_find(int ifindex, struct xdp_multiprog **mp)
{
	struct xdp_program *p;

	*mp = xdp_multiprog__get_from_ifindex(ifindex);
	if (libxdp_get_error(*mp)) {
		*mp = NULL;
		return NULL;
	}
	if (xdp_multiprog__is_legacy(*mp)) {
		p = xdp_multiprog__main_prog(*mp);
		if (p && !strcmp(xdp_program__name(p), XDP_PROG))
			return p;
		return NULL;
	}
	for (p = xdp_multiprog__next_prog(NULL, *mp); p;
	     p = xdp_multiprog__next_prog(p, *mp))
		if (!strcmp(xdp_program__name(p), XDP_PROG))
			return p;
	return NULL;
}

static int xdp_attach(int argc, char **argv)
{
	enum xdp_attach_mode mode = XDP_MODE_UNSPEC, used;
	struct xdp_program *prog = NULL, *have;
	struct xdp_multiprog *mp;
	const char *why, *path;
	char buf[PATH_MAX];
	int ifindex, err, r = EXIT_FAIL;
	uint32_t id;

	if (argc != 2 && !(argc == 4 && !strcmp(argv[2], "mode"))) {
		errmsg("usage: cfctl xdp attach DEV FILTER [mode native|generic|auto]");
		return EXIT_USAGE;
	}
	if (argc == 4) {
		if (!strcmp(argv[3], "native")) {
			mode = XDP_MODE_NATIVE;
		} else if (!strcmp(argv[3], "generic") || !strcmp(argv[3], "skb")) {
			mode = XDP_MODE_SKB;
		} else if (strcmp(argv[3], "auto")) {
			errmsg("unknown mode '%s': native, generic or auto", argv[3]);
			return EXIT_USAGE;
		}
	}
	ifindex = dev_index(argv[0]);
	if (!ifindex || dev_is_ether(argv[0]))
		return EXIT_FAIL;
	r = filter_for_prog(argv[1], &id);
	if (r)
		return r;
	r = EXIT_FAIL;
	why = kfuncs_missing();
	if (why) {
		errmsg("XDP is unavailable: %s", why);
		return EXIT_FAIL;
	}
	log_start();
	have = xdp_find(ifindex, &mp);
	xdp_multiprog__close(mp);
	if (have) {
		errmsg("%s has nf_cuckoo's XDP program already (cfctl xdp detach %s first)",
		       argv[0], argv[0]);
		return EXIT_FAIL;
	}
	path = prog_path(buf, sizeof(buf));
	prog = xdp_program__open_file(path, "xdp", NULL);
	err = (int)libxdp_get_error(prog);
	if (err) {
		prog = NULL;
		errmsg("cannot open the XDP program %s: %s", path, strerror(-err));
		goto out;
	}
	bpf_program__set_autoload(bpf_object__find_program_by_name(
		xdp_program__bpf_obj(prog), TC_PROG), false);
	err = nfcf_prog_set_filter_id(xdp_program__bpf_obj(prog), id);
	if (err) {
		errmsg("%s is not nf_cuckoo's program (no %s in it)", path, ID_VAR);
		goto out;
	}
	err = xdp_program__attach(prog, ifindex, mode, 0);
	if (err) {
		log_dump();
		errmsg("cannot attach to %s%s%s: %s", argv[0],
		       mode == XDP_MODE_UNSPEC ? "" : " in mode ",
		       mode == XDP_MODE_UNSPEC ? "" : argv[3], strerror(-err));
		goto out;
	}
	if (module_bind(argv[0], ifindex, NF_CUCKOO_BIND_XDP, id,
			xdp_program__id(prog), false)) {
		xdp_program__detach(prog, ifindex, mode, 0);
		errmsg("the program was detached again: the module must know of it");
		goto out;
	}
	used = xdp_program__is_attached(prog, ifindex);
	if (!opts.quiet)
		printf("%s: XDP, filter %s (id %u), mode %s, program id %u\n",
		       argv[0], argv[1], id, mode_name(used),
		       xdp_program__id(prog));
	r = EXIT_OK;
out:
	xdp_program__close(prog);
	return r;
}

static int xdp_detach(int argc, char **argv)
{
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	int ifindex, err;

	if (argc != 1) {
		errmsg("usage: cfctl xdp detach DEV");
		return EXIT_USAGE;
	}
	ifindex = dev_index(argv[0]);
	if (!ifindex)
		return EXIT_FAIL;
	log_start();
	p = xdp_find(ifindex, &mp);
	if (!p) {
		xdp_multiprog__close(mp);
		/*
		 * Taken off by another tool (ip link set DEV xdp off): libxdp's
		 * pins of the dispatcher it had are left, and they hold the
		 * program (and so the module); then the bind.
		 */
		libxdp_clean_references(ifindex);
		if (!module_bind(argv[0], ifindex, NF_CUCKOO_BIND_XDP, 0, 0, true)) {
			warnmsg("%s had no nf_cuckoo XDP program any more; the module's record of it is gone now",
				argv[0]);
			return EXIT_OK;
		}
		errmsg("%s has no nf_cuckoo XDP program", argv[0]);
		return EXIT_FAIL;
	}
	if (xdp_multiprog__is_legacy(mp))
		err = xdp_multiprog__detach(mp);
	else
		err = xdp_program__detach(p, ifindex,
					  xdp_multiprog__attach_mode(mp), 0);
	xdp_multiprog__close(mp);
	if (err) {
		log_dump();
		errmsg("cannot detach from %s: %s", argv[0], strerror(-err));
		return EXIT_FAIL;
	}
	module_bind(argv[0], ifindex, NF_CUCKOO_BIND_XDP, 0, 0, true);
	return EXIT_OK;
}

/* One attachment, for show. */
struct attachment {
	char dev[IF_NAMESIZE];
	const char *where;	/* "xdp", "ingress", "egress" */
	const char *mode;	/* XDP: native, generic; tc: NULL */
	uint32_t prog_id, filter_id;
	bool has_id;
};

static void attachment_print(const struct attachment *a,
			     const struct filter_info *fi, size_t n,
			     struct json_object *arr)
{
	char name[NF_CUCKOO_NAME_MAXLEN];

	filter_name(fi, n, a->filter_id, name, sizeof(name));
	if (arr) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "dev", json_object_new_string(a->dev));
		json_object_object_add(o, "attach", json_object_new_string(a->where));
		if (a->mode)
			json_object_object_add(o, "mode", json_object_new_string(a->mode));
		json_object_object_add(o, "prog_id", json_object_new_int64(a->prog_id));
		if (a->has_id)
			json_object_object_add(o, "id", json_object_new_int64(a->filter_id));
		json_object_object_add(o, "filter", name[0] && a->has_id ?
				       json_object_new_string(name) : NULL);
		json_object_array_add(arr, o);
		return;
	}
	printf("%s: %s", a->dev, a->where);
	if (a->mode)
		printf(", mode %s", a->mode);
	if (!a->has_id)
		printf(", filter unknown");
	else if (name[0])
		printf(", filter %s (id %u)", name, a->filter_id);
	else
		printf(", filter id %u (none such in this namespace: the program matches nothing)",
		       a->filter_id);
	printf(", program id %u\n", a->prog_id);
}

static bool xdp_attachment(const struct if_nameindex *ifn,
			   struct attachment *a)
{
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	bool found = false;

	p = xdp_find((int)ifn->if_index, &mp);
	if (p) {
		memset(a, 0, sizeof(*a));
		snprintf(a->dev, sizeof(a->dev), "%s", ifn->if_name);
		a->where = "xdp";
		a->mode = mode_name(xdp_multiprog__attach_mode(mp));
		a->prog_id = xdp_program__id(p);
		a->has_id = !prog_filter_id(xdp_program__fd(p), &a->filter_id);
		found = true;
	}
	xdp_multiprog__close(mp);
	return found;
}

static bool tc_attachment(const struct if_nameindex *ifn,
			  enum bpf_tc_attach_point point, struct attachment *a)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)ifn->if_index,
			    .attach_point = point);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, o, .handle = TC_HANDLE,
			    .priority = TC_PRIO);
	struct bpf_prog_info pi = { 0 };
	uint32_t len = sizeof(pi);
	int fd;

	if (bpf_tc_query(&hook, &o))
		return false;
	fd = bpf_prog_get_fd_by_id(o.prog_id);
	if (fd < 0)
		return false;
	if (bpf_obj_get_info_by_fd(fd, &pi, &len) || strcmp(pi.name, TC_PROG)) {
		close(fd);
		return false;
	}
	memset(a, 0, sizeof(*a));
	snprintf(a->dev, sizeof(a->dev), "%s", ifn->if_name);
	a->where = point == BPF_TC_INGRESS ? "ingress" : "egress";
	a->prog_id = o.prog_id;
	a->has_id = !prog_filter_id(fd, &a->filter_id);
	close(fd);
	return true;
}

/* show for xdp (tc false) or tc: every device, or dev. */
static int attach_show(int argc, char **argv, bool tc)
{
	struct json_object *arr = opts.json ? json_object_new_array() : NULL;
	struct if_nameindex *ifs, *ifn;
	struct filter_info *fi = NULL;
	struct attachment a;
	size_t n = 0;
	struct cfnl nl;

	if (argc > 1) {
		errmsg("usage: cfctl %s show [DEV]", tc ? "tc" : "xdp");
		return EXIT_USAGE;
	}
	if (argc && !dev_index(argv[0]))
		return EXIT_FAIL;
	/* Without the module, the ids stay unnamed. */
	if (!access("/sys/module/nf_cuckoo", F_OK) && !cfnl_open(&nl)) {
		if (info_dump(&nl, &fi, &n))
			n = 0;
		cfnl_close(&nl);
	}
	log_start();
	ifs = if_nameindex();
	for (ifn = ifs; ifn && ifn->if_index; ifn++) {
		if (argc && strcmp(argv[0], ifn->if_name))
			continue;
		if (!tc && xdp_attachment(ifn, &a))
			attachment_print(&a, fi, n, arr);
		if (tc && tc_attachment(ifn, BPF_TC_INGRESS, &a))
			attachment_print(&a, fi, n, arr);
		if (tc && tc_attachment(ifn, BPF_TC_EGRESS, &a))
			attachment_print(&a, fi, n, arr);
	}
	if_freenameindex(ifs);
	free(fi);
	if (arr) {
		puts(json_object_to_json_string_ext(arr, opts.pretty ?
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
			JSON_C_TO_STRING_PLAIN));
		json_object_put(arr);
	}
	return EXIT_OK;
}

static int tc_point(const char *s, enum bpf_tc_attach_point *p)
{
	if (!strcmp(s, "ingress")) {
		*p = BPF_TC_INGRESS;
	} else if (!strcmp(s, "egress")) {
		*p = BPF_TC_EGRESS;
	} else {
		errmsg("'%s': ingress or egress", s);
		return -1;
	}
	return 0;
}

static uint8_t tc_bind_point(enum bpf_tc_attach_point p)
{
	return p == BPF_TC_INGRESS ? NF_CUCKOO_BIND_TC_INGRESS :
				     NF_CUCKOO_BIND_TC_EGRESS;
}

static int tc_attach(int argc, char **argv)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, o, .handle = TC_HANDLE,
			    .priority = TC_PRIO);
	struct bpf_object *obj = NULL;
	struct bpf_program *prog;
	const char *why, *path;
	char buf[PATH_MAX];
	int r = EXIT_FAIL, err;
	uint32_t id;

	if (argc != 3) {
		errmsg("usage: cfctl tc attach DEV ingress|egress FILTER");
		return EXIT_USAGE;
	}
	hook.attach_point = BPF_TC_INGRESS;
	if (tc_point(argv[1], &hook.attach_point))
		return EXIT_USAGE;
	hook.ifindex = dev_index(argv[0]);
	if (!hook.ifindex || dev_is_ether(argv[0]))
		return EXIT_FAIL;
	r = filter_for_prog(argv[2], &id);
	if (r)
		return r;
	r = EXIT_FAIL;
	why = kfuncs_missing();
	if (why) {
		errmsg("tc is unavailable: %s", why);
		return EXIT_FAIL;
	}
	log_start();
	path = prog_path(buf, sizeof(buf));
	obj = bpf_object__open_file(path, NULL);
	err = (int)libbpf_get_error(obj);
	if (err) {
		obj = NULL;
		errmsg("cannot open the tc program %s: %s", path, strerror(-err));
		goto out;
	}
	bpf_program__set_autoload(bpf_object__find_program_by_name(obj, XDP_PROG),
				  false);
	prog = bpf_object__find_program_by_name(obj, TC_PROG);
	if (!prog || nfcf_prog_set_filter_id(obj, id)) {
		errmsg("%s is not nf_cuckoo's program", path);
		goto out;
	}
	err = bpf_object__load(obj);
	if (err) {
		log_dump();
		errmsg("cannot load the tc program: %s", strerror(-err));
		goto out;
	}
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST) {
		errmsg("cannot add a clsact qdisc to %s: %s", argv[0], strerror(-err));
		goto out;
	}
	o.prog_fd = bpf_program__fd(prog);
	err = bpf_tc_attach(&hook, &o);
	if (err == -EEXIST) {
		errmsg("%s has a tc program at %s already (handle %#x, priority %d): cfctl tc detach %s %s first",
		       argv[0], argv[1], TC_HANDLE, TC_PRIO, argv[0], argv[1]);
		goto out;
	}
	if (err) {
		log_dump();
		errmsg("cannot attach to %s %s: %s", argv[0], argv[1], strerror(-err));
		goto out;
	}
	if (module_bind(argv[0], hook.ifindex, tc_bind_point(hook.attach_point),
			id, o.prog_id, false)) {
		DECLARE_LIBBPF_OPTS(bpf_tc_opts, d, .handle = TC_HANDLE,
				    .priority = TC_PRIO);

		bpf_tc_detach(&hook, &d);
		errmsg("the program was detached again: the module must know of it");
		goto out;
	}
	if (!opts.quiet)
		printf("%s: tc %s, filter %s (id %u), program id %u\n", argv[0],
		       argv[1], argv[2], id, o.prog_id);
	r = EXIT_OK;
out:
	bpf_object__close(obj);
	return r;
}

static int tc_detach(int argc, char **argv)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, o, .handle = TC_HANDLE,
			    .priority = TC_PRIO);
	struct if_nameindex ifn;
	struct attachment a;
	int err;

	if (argc != 2) {
		errmsg("usage: cfctl tc detach DEV ingress|egress");
		return EXIT_USAGE;
	}
	hook.attach_point = BPF_TC_INGRESS;
	if (tc_point(argv[1], &hook.attach_point))
		return EXIT_USAGE;
	hook.ifindex = dev_index(argv[0]);
	if (!hook.ifindex)
		return EXIT_FAIL;
	log_start();
	ifn.if_index = (unsigned int)hook.ifindex;
	ifn.if_name = argv[0];
	if (!tc_attachment(&ifn, hook.attach_point, &a)) {
		if (!module_bind(argv[0], hook.ifindex,
				 tc_bind_point(hook.attach_point), 0, 0, true)) {
			warnmsg("%s had no nf_cuckoo tc program at %s any more; the module's record of it is gone now",
				argv[0], argv[1]);
			return EXIT_OK;
		}
		errmsg("%s has no nf_cuckoo tc program at %s", argv[0], argv[1]);
		return EXIT_FAIL;
	}
	err = bpf_tc_detach(&hook, &o);
	if (err) {
		log_dump();
		errmsg("cannot detach from %s %s: %s", argv[0], argv[1], strerror(-err));
		return EXIT_FAIL;
	}
	module_bind(argv[0], hook.ifindex, tc_bind_point(hook.attach_point), 0,
		    0, true);
	return EXIT_OK;
}

/*
 * libxdp pins each dispatcher it makes, and the programs in it, under
 * /sys/fs/bpf/xdp; a device that goes away with its namespace leaves
 * them, and they keep the programs loaded (and so the module in use).
 * This drops the pins of dispatchers no longer attached, as xdp-loader
 * clean does.  The pins name a device by index, which another namespace
 * may use too: run it in the namespace the devices were in, or the
 * initial one after that namespace went away.
 */
static int xdp_clean(int argc, char **argv)
{
	int ifindex = 0, err;

	if (argc > 1) {
		errmsg("usage: cfctl xdp clean [DEV]");
		return EXIT_USAGE;
	}
	if (argc) {
		ifindex = dev_index(argv[0]);
		if (!ifindex)
			return EXIT_FAIL;
	}
	log_start();
	err = libxdp_clean_references(ifindex);
	if (err) {
		log_dump();
		errmsg("cannot clean libxdp's pins: %s", strerror(-err));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

static int sub(int argc, char **argv, bool tc)
{
	const char *w = tc ? "tc" : "xdp";

	if (!argc) {
		errmsg("usage: cfctl %s attach|detach|show ...; try 'cfctl help %s'",
		       w, w);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[0], "show") || !strcmp(argv[0], "list"))
		return attach_show(argc - 1, argv + 1, tc);
	if (!strcmp(argv[0], "attach"))
		return tc ? tc_attach(argc - 1, argv + 1) :
			    xdp_attach(argc - 1, argv + 1);
	if (!strcmp(argv[0], "detach"))
		return tc ? tc_detach(argc - 1, argv + 1) :
			    xdp_detach(argc - 1, argv + 1);
	if (!tc && !strcmp(argv[0], "clean"))
		return xdp_clean(argc - 1, argv + 1);
	errmsg("unknown '%s %s': attach, detach or show", w, argv[0]);
	return EXIT_USAGE;
}

int cmd_xdp(int argc, char **argv)
{
	return sub(argc, argv, false);
}

int cmd_tc(int argc, char **argv)
{
	return sub(argc, argv, true);
}
