// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: replacing a filter whole, with no moment unfiltered.
 *
 *   swap A B		the kernel exchanges the two filters' names
 *   compact -f LIST NAME	NAME rebuilt from LIST into one stage
 *
 * A replacement is built beside the filter it replaces, live, under a
 * temporary name (TMP_PREFIX...), so that packets meet both while it is
 * filled; then the two swap names and the old one, now under the
 * temporary name, is destroyed.  A restore builds it by a load, which the
 * kernel discards if cfctl dies before LOAD_END; so does compact, whose
 * table is made in this process (as build makes one) and loaded.  Only a
 * cfctl killed between LOAD_END and the destroy leaves a temporary filter
 * behind: save skips those, and says so, and the next replacement in
 * the namespace (restore -replace, compact: what the CrowdSec adapter
 * and fail2ban's action run) destroys them.  A temporary name holds the
 * PID namespace of the cfctl that made it, so that only a cfctl that
 * sees that PID, and sees it gone, destroys it: a live one's, even in a
 * container sharing the network namespace, is never touched.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs.h"
#include "fake_nl.h"

bool is_tmp_name(const char *name)
{
	return !strncmp(name, TMP_PREFIX, strlen(TMP_PREFIX));
}

/* The inode of this process's PID namespace, as the 32 bits a name
 * holds; 0 if /proc cannot say. */
static unsigned long pid_ns(void)
{
	static unsigned long ino;
	char link[64];
	ssize_t len;

	if (ino)
		return ino;
	len = readlink("/proc/self/ns/pid", link, sizeof(link) - 1);
	if (len <= 0)
		return 0;
	link[len] = '\0';
	if (sscanf(link, "pid:[%lu]", &ino) != 1)
		ino = 0;
	ino &= 0xffffffffUL;
	return ino;
}

/*
 * TMP_PREFIX, then the PID namespace's inode, the PID and n in hex: at
 * most 7 + 8 + 1 + 6 + 1 + 8 = 31 characters (pid_max is at most 2^22),
 * never cut short.
 */
void tmp_name(char name[NF_CUCKOO_NAME_MAXLEN], unsigned int n)
{
	snprintf(name, NF_CUCKOO_NAME_MAXLEN, TMP_PREFIX "%lx-%lx-%x",
		 pid_ns(), (unsigned long)getpid(), n);
}

/* Whether name is a temporary filter of a cfctl of this PID namespace
 * that no longer runs. */
static bool tmp_orphaned(const char *name)
{
	unsigned long ns, pid;
	unsigned int n;
	int end = 0;

	if (!is_tmp_name(name) ||
	    sscanf(name + strlen(TMP_PREFIX), "%lx-%lx-%x%n", &ns, &pid, &n,
		   &end) != 3 || name[strlen(TMP_PREFIX) + end] != '\0')
		return false;
	if (!pid_ns() || ns != pid_ns() || !pid || pid > INT32_MAX)
		return false;
	return kill((pid_t)pid, 0) && errno == ESRCH;
}

void tmp_sweep(struct cfnl *nl)
{
	struct filter_info *fi = NULL;
	size_t n = 0, i;

	if (info_dump(nl, &fi, &n))
		return;
	for (i = 0; i < n; i++)
		if (tmp_orphaned(fi[i].name) && !destroy_quietly(nl, fi[i].name))
			warnmsg("destroyed %s, the temporary filter of a cfctl that was killed",
				fi[i].name);
	free(fi);
}

void spec_from_info(const struct filter_info *fi, struct filter_spec *fs)
{
	memset(fs, 0, sizeof(*fs));
	snprintf(fs->name, sizeof(fs->name), "%s", fi->name);
	fs->have = HAVE_FAMILY | HAVE_KEY | HAVE_CAPACITY | HAVE_FP_BITS |
		   HAVE_BUCKET | HAVE_ENCODING | HAVE_KICKS | HAVE_HOOK |
		   HAVE_PRIORITY | HAVE_ACTION | HAVE_BIDIR | HAVE_INVERT |
		   HAVE_ENABLED;
	fs->family = fi->family;
	fs->key_fields = fi->key_fields;
	fs->capacity = fi->capacity;
	fs->fp_bits = fi->fp_bits;
	fs->bucket = fi->bucket;
	fs->encoding = fi->encoding;
	fs->kicks = fi->kicks;
	fs->hook = fi->hook;
	fs->priority = fi->priority;
	fs->action = fi->action;
	fs->mark = fi->mark;
	fs->mark_mask = fi->mark_mask;
	fs->mark_given = true;
	fs->bidir = fi->bidir;
	fs->invert = fi->invert;
	fs->enabled = fi->enabled;
	if (fi->has_grow) {
		fs->have |= HAVE_GROW | HAVE_FACTOR | HAVE_STAGES;
		fs->grow = fi->grow;
		fs->factor = fi->factor;
		fs->stages = fi->stages_max;
	}
	if (fi->ifs.n) {
		fs->have |= HAVE_IFACES;
		fs->ifs = fi->ifs;
	}
}

int swap_filters(struct cfnl *nl, const char *a, const char *b)
{
	struct nl_msg *msg = build_named(nl, NF_CUCKOO_CMD_SWAP, a);
	struct nlerr e;
	int err;

	if (!msg || nla_put_string(msg, NF_CUCKOO_A_NAME2, b)) {
		nlmsg_free(msg);
		errmsg("out of memory");
		return -ENOMEM;
	}
	err = cfnl_transact(nl, msg, NULL, NULL, &e);
	if (err)
		report_nlerr(&e, msg, a);
	nlmsg_free(msg);
	return err;
}

static int destroy(struct cfnl *nl, const char *name)
{
	struct nl_msg *msg = build_named(nl, NF_CUCKOO_CMD_DEL, name);
	struct nlerr e;
	int err;

	if (!msg) {
		errmsg("out of memory");
		return -ENOMEM;
	}
	err = cfnl_transact(nl, msg, NULL, NULL, &e);
	if (err && err != -ENOENT)
		report_nlerr(&e, msg, name);
	nlmsg_free(msg);
	return err == -ENOENT ? 0 : err;
}

int replace_commit(struct cfnl *nl, const char *name, const char *tmp)
{
	if (swap_filters(nl, name, tmp)) {
		errmsg("%s was left as it was", name);
		destroy(nl, tmp);
		return EXIT_FAIL;
	}
	/* tmp is the old filter now. */
	if (destroy(nl, tmp)) {
		errmsg("%s was replaced, but its old table is left as filter %s: destroy it",
		       name, tmp);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int destroy_quietly(struct cfnl *nl, const char *name)
{
	return destroy(nl, name);
}

int cmd_swap(int argc, char **argv)
{
	struct cfnl nl;
	int err;

	if (argc != 2) {
		errmsg("want two filter names; usage: cfctl swap NAME NAME2");
		return EXIT_USAGE;
	}
	if (check_names(argc, argv))
		return EXIT_USAGE;
	if (!strcmp(argv[0], argv[1])) {
		errmsg("cannot swap %s with itself", argv[0]);
		return EXIT_USAGE;
	}
	if (cfnl_open(&nl))
		return EXIT_FAIL;
	err = swap_filters(&nl, argv[0], argv[1]);
	cfnl_close(&nl);
	return exit_for(err);
}

/*
 * One stage sized for the list: room for a quarter more than it holds
 * before it grows, and never smaller than the first stage was.
 */
static uint64_t compact_capacity(const struct filter_info *fi, size_t n)
{
	uint64_t want = (uint64_t)n + n / 4;

	return want > fi->capacity ? want : fi->capacity;
}

/* NAME's twin holding p's entries, made in this process; EXIT_*. */
static int build_twin(struct cfnl *off, const struct filter_info *fi,
		      struct parsed *p)
{
	struct filter_spec fs;
	int r;

	spec_from_info(fi, &fs);
	fs.capacity = compact_capacity(fi, p->n);
	r = create_apply(off, &fs);
	if (r) {
		parsed_free(p);
		return r;
	}
	return entries_apply(off, NF_CUCKOO_CMD_ADD_ENTRIES, fs.name, p, true,
			     stderr);
}

/* NAME's settings, asked of the kernel: EXIT_*, the error printed. */
static int get_info(const char *name, struct filter_info *fi)
{
	struct cfnl nl;
	int r;

	if (cfnl_open(&nl))
		return EXIT_FAIL;
	r = info_get(&nl, name, fi) ? EXIT_FAIL : EXIT_OK;
	if (!r && fi->loading) {
		errmsg("%s is being restored (%s)", name, strerror(EBUSY));
		r = EXIT_FAIL;
	}
	cfnl_close(&nl);
	return r;
}

/*
 * The twin's image, made in this process; NULL (the error printed) if
 * the entries do not go in.  One backend at a time: cfctl_fake's kernel
 * is the same fake as the offline backend.
 */
static struct save_img *twin_image(const struct filter_info *fi,
				   struct parsed *p)
{
	const struct cfnl_backend *prev = cfnl_backend;
	struct save_img *img = NULL;
	struct cfnl off;

	cfnl_backend = &fake_offline_backend;
	if (cfnl_open(&off)) {
		cfnl_backend = prev;
		parsed_free(p);
		return NULL;
	}
	cfnl_backend = prev;
	if (!build_twin(&off, fi, p))
		img = save_fetch(&off, fi->name);
	cfnl_close(&off);
	return img;
}

int cmd_compact(int argc, char **argv)
{
	const char *file = cfctl_file();
	char tmp[NF_CUCKOO_NAME_MAXLEN];
	struct save_img *img;
	struct filter_info fi;
	struct parsed p = { 0 };
	struct cfnl nl;
	size_t n;
	int r;

	if (argc != 1 || !file) {
		errmsg("%s; usage: cfctl " COMPACT_SYNOPSIS,
		       !file ? "missing -f LIST, every entry the filter is to hold" :
			       "want one filter name");
		return EXIT_USAGE;
	}
	if (check_names(argc, argv))
		return EXIT_USAGE;
	r = entries_from_file(file, &p);
	if (r) {
		parsed_free(&p);
		return r;
	}
	n = p.n;
	r = get_info(argv[0], &fi);
	if (r) {
		parsed_free(&p);
		return r;
	}
	img = twin_image(&fi, &p);
	if (!img) {
		errmsg("%s was left as it was", argv[0]);
		return EXIT_FAIL;
	}
	if (cfnl_open(&nl)) {
		save_img_free(img);
		return EXIT_FAIL;
	}
	tmp_sweep(&nl);
	tmp_name(tmp, 0);
	r = save_img_load(&nl, img, tmp);
	save_img_free(img);
	if (r)
		errmsg("%s was left as it was", argv[0]);
	else
		r = replace_commit(&nl, argv[0], tmp);
	if (!r && opts.verbose)
		fprintf(stderr, "compact: %s rebuilt from %zu entries into one stage (it had %zu)\n",
			argv[0], n, fi.nstages ? fi.nstages : (size_t)1);
	cfnl_close(&nl);
	return r;
}
