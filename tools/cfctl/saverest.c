// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: save and restore.
 *
 * The save format is a restore stream, text, one command a line:
 *
 *   # comment
 *   create NAME family F key K capacity N fingerprint F bucket B kicks K
 *	hook H priority P action A [bidirectional] [invert] [disabled]
 *	[prefixes COUNTS] grow|nogrow factor F stages S
 *	image BASE64 [image BASE64...]	(all on one line)
 *   load NAME OFFSET BASE64	bytes of the raw table at OFFSET
 *   load NAME OFFSET zero LEN	LEN zero bytes at OFFSET
 *
 * The image header and the table are the kernel's opaque save image
 * (NF_CUCKOO_CMD_SAVE), in base64: a filter that grew has an image header
 * per stage, oldest first, and its load lines cover the stages' tables
 * back to back; a save of a module before version 5 has one header and no
 * growth words.  Load lines come in order of offset, each
 * starting where the previous one ended.  A create line with `image`
 * becomes NF_CUCKOO_CMD_LOAD_BEGIN, the load lines NF_CUCKOO_CMD_LOAD_CHUNKs, and the
 * first line after them (or the end) NF_CUCKOO_CMD_LOAD_END.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "verbs.h"

/* Table bytes per load line: a multiple of 8, and of 3 for base64. */
#define SAVE_LINE_BYTES	3072

/* ---- save ---- */

struct save_ctx {
	struct filter_info fi;
	bool have_fi;
	uint8_t *table;
	uint64_t table_len, got;
	bool intr;
	char bad[160];
};

static void save_cb(struct nlmsghdr *nlh, void *arg)
{
	struct save_ctx *s = arg;
	struct nlattr *tb[NF_CUCKOO_A_MAX + 1];

	if (s->bad[0])
		return;
	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		s->intr = true;
	if (cfnl_parse(nlh, tb)) {
		snprintf(s->bad, sizeof(s->bad), "unreadable message in the save dump");
		return;
	}
	if (!s->have_fi && tb[NF_CUCKOO_A_IMAGE_HEADER]) {
		info_parse(nlh, &s->fi);
		if (!s->fi.has_image || !tb[NF_CUCKOO_A_IMAGE_TABLE_BYTES]) {
			snprintf(s->bad, sizeof(s->bad), "the save dump lacks the image header or its table size");
			return;
		}
		s->have_fi = true;
		s->table_len = s->fi.table_bytes;
		s->table = malloc(s->table_len ? s->table_len : 1);
		if (!s->table) {
			snprintf(s->bad, sizeof(s->bad), "out of memory for a table of %" PRIu64 " bytes",
				 s->table_len);
			return;
		}
	}
	if (tb[NF_CUCKOO_A_CHUNK_DATA]) {
		uint64_t off;
		uint32_t len = (uint32_t)nla_len(tb[NF_CUCKOO_A_CHUNK_DATA]);

		if (!s->have_fi || !tb[NF_CUCKOO_A_CHUNK_OFFSET]) {
			snprintf(s->bad, sizeof(s->bad), "a table chunk without its offset or before the header");
			return;
		}
		off = nla_get_u64(tb[NF_CUCKOO_A_CHUNK_OFFSET]);
		if (off != s->got || len > s->table_len - s->got) {
			snprintf(s->bad, sizeof(s->bad), "table chunk at offset %" PRIu64 " of %u bytes, expected offset %" PRIu64 " (table %" PRIu64 " bytes)",
				 off, len, s->got, s->table_len);
			return;
		}
		memcpy(s->table + off, nla_data(tb[NF_CUCKOO_A_CHUNK_DATA]), len);
		s->got += len;
	}
}

static bool all_zero(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static void print_save(FILE *f, const struct save_ctx *s)
{
	char b64[b64_enc_len(SAVE_LINE_BYTES) + 1];
	char hdr[b64_enc_len(NF_CUCKOO_IMAGE_HEADER_MAXLEN) + 1];
	uint64_t off = 0, zstart = 0;
	bool inzero = false;
	size_t i;

	info_print_create(&s->fi, f);
	/* One image header per stage, oldest first. */
	for (i = 0; i < s->fi.nimages; i++) {
		b64_encode(s->fi.image[i], s->fi.image_len[i], hdr);
		fprintf(f, " image %s", hdr);
	}
	fputc('\n', f);
	while (off < s->table_len) {
		uint64_t n = s->table_len - off;

		if (n > SAVE_LINE_BYTES)
			n = SAVE_LINE_BYTES;
		if (all_zero(s->table + off, n)) {
			if (!inzero) {
				inzero = true;
				zstart = off;
			}
		} else {
			if (inzero) {
				fprintf(f, "load %s %" PRIu64 " zero %" PRIu64 "\n",
					s->fi.name, zstart, off - zstart);
				inzero = false;
			}
			b64_encode(s->table + off, n, b64);
			fprintf(f, "load %s %" PRIu64 " %s\n", s->fi.name, off,
				b64);
		}
		off += n;
	}
	if (inzero)
		fprintf(f, "load %s %" PRIu64 " zero %" PRIu64 "\n", s->fi.name,
			zstart, off - zstart);
}

/* The save dump of filter name, whole and consistent, into s: 0 or
 * -errno, the error printed.  s->table is the caller's to free. */
static int fetch_save(struct cfnl *nl, const char *name, struct save_ctx *s)
{
	struct nl_msg *msg;
	struct nlerr e;
	int err, tries;

	for (tries = 0;; tries++) {
		memset(s, 0, sizeof(*s));
		msg = cfnl_msg(nl, NF_CUCKOO_CMD_SAVE, NLM_F_DUMP, 0);
		if (!msg || nla_put_string(msg, NF_CUCKOO_A_NAME, name)) {
			nlmsg_free(msg);
			errmsg("out of memory");
			return -ENOMEM;
		}
		err = cfnl_transact(nl, msg, save_cb, s, &e);
		if (err) {
			report_nlerr(&e, msg, name);
			nlmsg_free(msg);
			goto fail;
		}
		nlmsg_free(msg);
		err = -EBADMSG;
		if (s->bad[0]) {
			errmsg("%s: %s", name, s->bad);
			goto fail;
		}
		if (!s->have_fi || s->got != s->table_len) {
			errmsg("%s: the save dump ended after %" PRIu64 " of %" PRIu64 " table bytes",
			       name, s->got, s->table_len);
			goto fail;
		}
		if (!s->intr)
			return 0;
		free(s->table);
		s->table = NULL;
		if (tries == 10) {
			errmsg("%s kept changing while being saved; try again", name);
			return -EAGAIN;
		}
	}
fail:
	free(s->table);
	s->table = NULL;
	return err;
}

int save_one(struct cfnl *nl, const char *name, FILE *out)
{
	struct save_ctx s;
	int err = fetch_save(nl, name, &s);

	if (err)
		return err;
	print_save(out, &s);
	free(s.table);
	return 0;
}

/*
 * The load of a fetched save under another name: LOAD_BEGIN, the chunks
 * and LOAD_END, on q.  A load that fails is discarded by the kernel.
 */
static int queue_load(struct opq *q, const struct save_ctx *s,
		      const char *as)
{
	struct filter_spec fs;
	struct nl_msg *msg;
	uint64_t off;
	size_t i, len;

	spec_from_info(&s->fi, &fs);
	snprintf(fs.name, sizeof(fs.name), "%s", as);
	fs.have |= HAVE_IMAGE;
	for (i = 0; i < s->fi.nimages; i++) {
		fs.image[i] = (uint8_t *)s->fi.image[i];
		fs.image_len[i] = s->fi.image_len[i];
	}
	fs.nimages = s->fi.nimages;
	memcpy(fs.prefixes, s->fi.prefixes, sizeof(fs.prefixes));
	fs.nprefixes = s->fi.nprefixes;
	msg = build_create(q->nl, &fs);
	if (!msg || !opq_push(q, msg, NF_CUCKOO_CMD_LOAD_BEGIN, as, 0))
		return -ENOMEM;
	for (off = 0; off < s->table_len; off += len) {
		len = s->table_len - off < NF_CUCKOO_CHUNK_MAX ?
		      (size_t)(s->table_len - off) : NF_CUCKOO_CHUNK_MAX;
		msg = cfnl_msg(q->nl, NF_CUCKOO_CMD_LOAD_CHUNK, NLM_F_ACK,
			       len + 256);
		if (!msg || nla_put_string(msg, NF_CUCKOO_A_NAME, as) ||
		    nla_put_u64(msg, NF_CUCKOO_A_CHUNK_OFFSET, off) ||
		    nla_put(msg, NF_CUCKOO_A_CHUNK_DATA, (int)len,
			    s->table + off)) {
			nlmsg_free(msg);
			return -ENOMEM;
		}
		if (!opq_push(q, msg, NF_CUCKOO_CMD_LOAD_CHUNK, as, 0))
			return -ENOMEM;
	}
	msg = build_named(q->nl, NF_CUCKOO_CMD_LOAD_END, as);
	if (!msg || !opq_push(q, msg, NF_CUCKOO_CMD_LOAD_END, as, 0))
		return -ENOMEM;
	return 0;
}

struct save_img *save_fetch(struct cfnl *nl, const char *name)
{
	struct save_ctx *s = malloc(sizeof(*s));

	if (!s) {
		errmsg("out of memory");
		return NULL;
	}
	if (fetch_save(nl, name, s)) {
		free(s);
		return NULL;
	}
	return (struct save_img *)s;
}

void save_img_free(struct save_img *img)
{
	struct save_ctx *s = (struct save_ctx *)img;

	if (s)
		free(s->table);
	free(s);
}

int save_img_load(struct cfnl *nl, const struct save_img *img, const char *as)
{
	const struct save_ctx *s = (const struct save_ctx *)img;
	struct opq q;
	int err;

	opq_init(&q, nl);
	err = queue_load(&q, s, as);
	if (err)
		errmsg("out of memory");
	else
		err = opq_run(&q);
	if (err && q.failed) {
		char why[ERRLEN + 64];

		nlerr_format(&q.failed->err, q.failed->msg, why, sizeof(why));
		errmsg("%s: loading its new table as %s failed: %s",
		       s->fi.name, as, why);
	} else if (err) {
		errmsg("%s: loading its new table as %s failed: %s",
		       s->fi.name, as, strerror(-err));
	}
	opq_free(&q);
	return exit_for(err);
}

/*
 * save -f FILE writes FILE.XXXXXX beside it and renames it over FILE once
 * everything was fetched and written: a failed save must not destroy the
 * last good one, which a restore at boot may need.  The new file gets the
 * old one's mode and owner, or, if there was none, what fopen() would have
 * given it.  What is not a regular file (/dev/null, a fifo) is written
 * in place.  *tmp is the name to rename, NULL when written in place.
 */
static FILE *open_save_file(const char *file, char **tmp)
{
	struct stat st;
	bool exists;
	mode_t mask;
	FILE *f;
	int fd, err;

	*tmp = NULL;
	exists = !stat(file, &st);
	if (exists && !S_ISREG(st.st_mode))
		return fopen(file, "w");
	if (asprintf(tmp, "%s.XXXXXX", file) < 0) {
		*tmp = NULL;
		errno = ENOMEM;
		return NULL;
	}
	fd = mkstemp(*tmp);
	if (fd < 0)
		goto fail;
	if (exists) {
		/* Root saving over a user's file leaves it theirs; a user
		 * saving over another's makes it their own (EPERM). */
		if (fchown(fd, st.st_uid, st.st_gid) && errno != EPERM)
			goto fail_fd;
		if (fchmod(fd, st.st_mode & 07777))
			goto fail_fd;
	} else {
		mask = umask(0);
		umask(mask);
		if (fchmod(fd, 0666 & ~mask))
			goto fail_fd;
	}
	f = fdopen(fd, "w");
	if (f)
		return f;
fail_fd:
	err = errno;
	close(fd);
	unlink(*tmp);
	errno = err;
fail:
	err = errno;
	free(*tmp);
	*tmp = NULL;
	errno = err;
	return NULL;
}

/* The filters a save file holds: its create lines. */
static size_t count_filters(const char *file)
{
	struct line_reader lr = { 0 };
	FILE *f = fopen(file, "r");
	char *line, err[ERRLEN];
	size_t len, n = 0;

	if (!f)
		return 0;
	if (!line_reader_init(&lr, f))
		while (read_line(&lr, &line, &len, err, sizeof(err)) > 0)
			if (!strncmp(line, "create ", 7))
				n++;
	line_reader_free(&lr);
	fclose(f);
	return n;
}

/* The rename of a file, or a link, must reach the disk with its data. */
static int sync_dir_of(const char *file)
{
	char *dir = strdup(file), *slash;
	int fd, r = 0;

	if (!dir)
		return -1;
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY);
	if (fd < 0 || fsync(fd))
		r = -1;
	if (fd >= 0)
		close(fd);
	free(dir);
	return r;
}

/*
 * A save of fewer filters than the file holds (a module unloaded, a
 * restore that failed, a filter destroyed by mistake) may be a loss: the
 * old file stays, as FILE.1, linked before the new one replaces it.
 */
static int keep_previous(const char *file, size_t nfilters)
{
	char *prev = NULL, *tmp = NULL;
	size_t had = count_filters(file);
	int r = -1;

	if (had <= nfilters)
		return 0;
	if (asprintf(&prev, "%s.1", file) < 0) {
		prev = NULL;
		goto out;
	}
	if (asprintf(&tmp, "%s.1.%ld", file, (long)getpid()) < 0) {
		tmp = NULL;
		goto out;
	}
	unlink(tmp);
	if (link(file, tmp) || rename(tmp, prev)) {
		errmsg("cannot keep %s as %s: %s", file, prev, strerror(errno));
		unlink(tmp);
		goto out;
	}
	warnmsg("%s held %zu filters, this save %zu: the previous save is kept as %s",
		file, had, nfilters, prev);
	r = 0;
out:
	if (r && !prev)
		errmsg("out of memory");
	free(tmp);
	free(prev);
	return r;
}

/* Close the save file; on success, put it in place. */
static int close_save_file(struct save_out *so, bool ok)
{
	const char *file = so->file;
	char *tmp = so->tmp;
	int r = 0;

	if (ok && tmp && fsync(fileno(so->out))) {
		errmsg("cannot write %s: %s", tmp, strerror(errno));
		ok = false;
		r = -1;
	}
	if (fclose(so->out)) {
		errmsg("write error: %s", strerror(errno));
		ok = false;
		r = -1;
	}
	if (!tmp)
		return r;
	if (ok && so->keep_prev && keep_previous(file, so->nfilters)) {
		ok = false;
		r = -1;
	}
	if (ok && rename(tmp, file)) {
		errmsg("cannot rename %s to %s: %s", tmp, file, strerror(errno));
		ok = false;
		r = -1;
	}
	if (ok && sync_dir_of(file)) {
		errmsg("cannot sync the directory of %s: %s", file,
		       strerror(errno));
		r = -1;
	}
	if (!ok) {
		unlink(tmp);
		errmsg("%s was left as it was", file);
	}
	free(tmp);
	return r;
}

static ssize_t hash_write(void *cookie, const char *buf, size_t len)
{
	struct save_out *so = cookie;
	size_t n = fwrite(buf, 1, len, so->out);

	sha256_update(&so->sha, buf, n);
	return n ? (ssize_t)n : -1;
}

int save_out_open(struct save_out *so, const char *file)
{
	static const cookie_io_functions_t hashed = { .write = hash_write };
	struct stat lst;

	memset(so, 0, sizeof(*so));
	sha256_init(&so->sha);
	so->out = stdout;
	if (file && strcmp(file, "-")) {
		so->file = file;
		/* The rename replaces the file a symlink points to, not the
		 * symlink. */
		if (!lstat(file, &lst) && S_ISLNK(lst.st_mode)) {
			so->real = realpath(file, NULL);
			if (so->real)
				so->file = so->real;
		}
		so->out = open_save_file(so->file, &so->tmp);
		if (!so->out) {
			errmsg("cannot write %s: %s", so->file, strerror(errno));
			goto fail;
		}
	}
	so->f = fopencookie(so, "w", hashed);
	if (so->f)
		return 0;
	errmsg("out of memory");
	if (so->out != stdout) {
		fclose(so->out);
		if (so->tmp)
			unlink(so->tmp);
	}
fail:
	free(so->tmp);
	free(so->real);
	so->tmp = NULL;
	so->real = NULL;
	return -1;
}

int save_out_close(struct save_out *so, bool ok)
{
	char hex[SHA256_HEX];
	int r = 0;

	if (fclose(so->f)) {
		errmsg("write error: %s", strerror(errno));
		ok = false;
		r = -1;
	}
	if (ok) {
		sha256_hex(&so->sha, hex);
		fprintf(so->out, SAVE_END_PREFIX "%s\n", hex);
	}
	if (fflush(so->out) || ferror(so->out)) {
		errmsg("write error: %s", strerror(errno));
		ok = false;
		r = -1;
	}
	if (so->out != stdout && close_save_file(so, ok))
		r = -1;
	so->f = NULL;
	so->out = NULL;
	so->tmp = NULL;
	free(so->real);
	so->real = NULL;
	return r;
}

/* The loaded module's release, for the reader of a save file. */
static const char *module_version(char *buf, size_t len)
{
	FILE *f = fopen("/sys/module/nf_cuckoo/version", "r");
	char v[32];
	bool ok = f && fgets(v, sizeof(v), f);

	if (f)
		fclose(f);
	if (!ok)
		return "an nf_cuckoo of unknown version";
	v[strcspn(v, "\n")] = '\0';
	snprintf(buf, len, "nf_cuckoo %s", v);
	return buf;
}

int cmd_save(int argc, char **argv)
{
	struct filter_info *fi = NULL;
	struct save_out so;
	char modver[64];
	struct cfnl nl;
	size_t n = 0, i;
	int r = EXIT_OK, k;

	if (check_names(argc, argv))
		return EXIT_USAGE;
	if (cfnl_open(&nl))
		return EXIT_FAIL;
	if (!argc && info_dump(&nl, &fi, &n)) {
		cfnl_close(&nl);
		return EXIT_FAIL;
	}
	if (save_out_open(&so, cfctl_file())) {
		free(fi);
		cfnl_close(&nl);
		return EXIT_FAIL;
	}
	fprintf(so.f, SAVE_MARKER ": filters saved by cfctl %s from %s; load with: cfctl restore -f FILE\n",
		CFCTL_VERSION, module_version(modver, sizeof(modver)));
	so.keep_prev = true;
	if (argc) {
		for (k = 0; k < argc; k++)
			if (save_one(&nl, argv[k], so.f))
				r = EXIT_FAIL;
			else
				so.nfilters++;
	} else {
		for (i = 0; i < n; i++) {
			if (fi[i].loading) {
				warnmsg("skipping %s: it is being restored",
					fi[i].name);
				continue;
			}
			if (is_tmp_name(fi[i].name)) {
				warnmsg("skipping %s: the temporary filter of a cfctl that was interrupted (destroy it)",
					fi[i].name);
				continue;
			}
			if (save_one(&nl, fi[i].name, so.f))
				r = EXIT_FAIL;
			else
				so.nfilters++;
		}
	}
	if (save_out_close(&so, r == EXIT_OK))
		r = EXIT_FAIL;
	free(fi);
	cfnl_close(&nl);
	return r;
}

/* ---- restore ---- */

#define RESTORE_MAX_WORDS	96	/* a create line of 16 stages: 32 for their images */

struct known {
	char name[NF_CUCKOO_NAME_MAXLEN];
	char opname[NF_CUCKOO_NAME_MAXLEN];	/* the name its requests use */
	struct keyspec ks;
	bool exists;
	bool replacing;		/* -replace: built as opname, swapped in */
	uint32_t line;		/* where it was created or destroyed */
	struct op *create;	/* the stream's NEW or LOAD_BEGIN of it */
};

struct rctx {
	struct cfnl *nl;
	bool nl_open;		/* opened at the first command line */
	struct opq q;
	struct known *k;
	size_t nk, capk;
	size_t last;		/* k[last]: the filter of the last entry line */
	/* a table being loaded */
	bool loading;
	bool skipping;		/* -exist: the load lines of a kept filter */
	char lname[NF_CUCKOO_NAME_MAXLEN];	/* its requests' name */
	char lreal[NF_CUCKOO_NAME_MAXLEN];	/* the stream's */
	uint32_t lline;		/* its create line */
	uint64_t loff;		/* table bytes so far (lines) */
	uint64_t ltable;	/* table bytes its header declares, or ~0 */
	uint64_t pstart;	/* table offset of pend[0] */
	uint8_t *pend;
	size_t plen;
	uint32_t pline;		/* line of pend[0] */
	/* a save's checksum */
	struct sha256 sha;
	bool need_end, seen_end;
	uint32_t end_line;
	unsigned int ntmp;	/* temporary names given */
	/* counts */
	uint64_t entries, lines, kept;
	char err[ERRLEN + 128];
	int status;		/* EXIT_USAGE or EXIT_FAIL with err */
};

#define RERR(r, st, ...)						\
do {									\
	snprintf((r)->err, sizeof((r)->err), __VA_ARGS__);		\
	(r)->status = (st);						\
	return -1;							\
} while (0)

static struct known *known_find(struct rctx *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nk; i++)
		if (!strcmp(r->k[i].name, name))
			return &r->k[i];
	return NULL;
}

static struct known *known_add(struct rctx *r, const char *name)
{
	struct known *k = known_find(r, name);

	if (k)
		return k;
	if (r->nk == r->capk) {
		size_t cap = r->capk ? r->capk * 2 : 16;
		struct known *v = realloc(r->k, cap * sizeof(*v));

		if (!v)
			return NULL;
		r->k = v;
		r->capk = cap;
	}
	k = &r->k[r->nk++];
	memset(k, 0, sizeof(*k));
	snprintf(k->name, sizeof(k->name), "%s", name);
	snprintf(k->opname, sizeof(k->opname), "%s", name);
	return k;
}

/*
 * What is known of filter name at this point of the stream: from an
 * earlier line, else from the kernel.  0 and *out, or -1 with r->err.
 */
static int lookup(struct rctx *r, const char *name, struct known **out)
{
	struct known *k = known_find(r, name);
	struct filter_info fi;
	struct nlerr e;
	char buf[ERRLEN + 64];
	int err;

	if (!k) {
		err = info_fetch(r->nl, name, &fi, &e);
		if (err && err != -ENOENT) {
			nlerr_format(&e, NULL, buf, sizeof(buf));
			RERR(r, EXIT_FAIL, "cannot look up filter %s: %s", name,
			     buf);
		}
		k = known_add(r, name);
		if (!k)
			RERR(r, EXIT_FAIL, "out of memory");
		k->exists = !err;
		if (!err) {
			if (fi.loading)
				RERR(r, EXIT_FAIL, "filter %s is being restored (%s)",
				     name, strerror(EBUSY));
			info_keyspec(&fi, &k->ks);
		}
	}
	*out = k;
	return 0;
}

static int need_filter(struct rctx *r, const char *name, struct known **out)
{
	if (lookup(r, name, out))
		return -1;
	if (!(*out)->exists) {
		if ((*out)->line)
			RERR(r, EXIT_USAGE, "no filter named %s (destroyed on line %" PRIu32 ")",
			     name, (*out)->line);
		RERR(r, EXIT_USAGE, "no filter named %s", name);
	}
	return 0;
}

static int emit_chunk(struct rctx *r, size_t len)
{
	struct nl_msg *msg;

	msg = cfnl_msg(r->nl, NF_CUCKOO_CMD_LOAD_CHUNK, NLM_F_ACK, len + 256);
	if (!msg || nla_put_string(msg, NF_CUCKOO_A_NAME, r->lname) ||
	    nla_put_u64(msg, NF_CUCKOO_A_CHUNK_OFFSET, r->pstart) ||
	    nla_put(msg, NF_CUCKOO_A_CHUNK_DATA, (int)len, r->pend)) {
		nlmsg_free(msg);
		RERR(r, EXIT_FAIL, "out of memory");
	}
	if (!opq_push(&r->q, msg, NF_CUCKOO_CMD_LOAD_CHUNK, r->lname, r->pline))
		RERR(r, EXIT_FAIL, "out of memory");
	r->pstart += len;
	r->plen = 0;
	return 0;
}

static int pend_bytes(struct rctx *r, const uint8_t *p, uint64_t n,
		      uint32_t line)
{
	while (n) {
		size_t room = NF_CUCKOO_CHUNK_MAX - r->plen;
		size_t take = n < room ? (size_t)n : room;

		/* Long runs of zeros go as they are, made when sent. */
		if (!p && !r->plen && n >= NF_CUCKOO_CHUNK_MAX) {
			uint64_t run = n - n % NF_CUCKOO_CHUNK_MAX;

			if (opq_zero_run(&r->q, r->lname, r->pstart, run, line))
				RERR(r, EXIT_FAIL, "out of memory");
			r->pstart += run;
			n -= run;
			continue;
		}
		if (!r->plen)
			r->pline = line;
		if (p) {
			memcpy(r->pend + r->plen, p, take);
			p += take;
		} else {
			memset(r->pend + r->plen, 0, take);
		}
		r->plen += take;
		n -= take;
		if (r->plen == NF_CUCKOO_CHUNK_MAX && emit_chunk(r, r->plen))
			return -1;
	}
	return 0;
}

static int end_load(struct rctx *r, uint32_t line)
{
	struct nl_msg *msg;

	if (!r->loading)
		return 0;
	r->loading = false;
	if (r->plen % 8)
		RERR(r, EXIT_USAGE, "the table of %s (from line %" PRIu32 ") is %" PRIu64 " bytes long, not a multiple of 8",
		     r->lname, r->lline, r->loff);
	if (r->plen && emit_chunk(r, r->plen))
		return -1;
	msg = build_named(r->nl, NF_CUCKOO_CMD_LOAD_END, r->lname);
	if (!msg || !opq_push(&r->q, msg, NF_CUCKOO_CMD_LOAD_END, r->lname, line))
		RERR(r, EXIT_FAIL, "out of memory");
	return 0;
}

/* -keep GLOB: a filter a daemon keeps (f2b-*), left alone. */
static bool keep_match(const char *name)
{
	size_t i;

	for (i = 0; i < opts.nkeep; i++)
		if (!fnmatch(opts.keep[i], name, 0))
			return true;
	return false;
}

static int r_create(struct rctx *r, char **w, int n, uint32_t line)
{
	struct filter_spec fs = { 0 };
	struct nl_msg *msg;
	struct known *k;
	struct op *op;
	char err[ERRLEN];

	if (n < 2)
		RERR(r, EXIT_USAGE, "missing filter name after 'create'");
	if (check_name(w[1], err, sizeof(err)))
		RERR(r, EXIT_USAGE, "%s", err);
	snprintf(fs.name, sizeof(fs.name), "%s", w[1]);
	if (parse_filter_spec(w + 2, n - 2, &fs, false, true, err,
			      sizeof(err))) {
		filter_spec_free(&fs);
		RERR(r, EXIT_USAGE, "%s", err);
	}
	if (lookup(r, fs.name, &k)) {
		filter_spec_free(&fs);
		return -1;
	}
	if (k->exists && k->line) {
		filter_spec_free(&fs);
		RERR(r, EXIT_USAGE, "a filter named %s already exists (created on line %" PRIu32 ")",
		     w[1], k->line);
	}
	if (k->exists && (fs.have & HAVE_IMAGE) &&
	    (opts.exist || keep_match(w[1]))) {
		/* The kernel's is newer than any save: keep it. */
		filter_spec_free(&fs);
		r->skipping = true;
		snprintf(r->lreal, sizeof(r->lreal), "%s", w[1]);
		r->kept++;
		return 0;
	}
	if (k->exists && opts.replace) {
		tmp_name(k->opname, r->ntmp++);
		k->replacing = true;
		snprintf(fs.name, sizeof(fs.name), "%s", k->opname);
	} else if (k->exists && !opts.exist) {
		filter_spec_free(&fs);
		RERR(r, EXIT_USAGE, "a filter named %s already exists", w[1]);
	}
	if (!k->exists || k->replacing) {
		filter_spec_keyspec(&fs, &k->ks);
		k->exists = true;
		k->line = line;
	}
	msg = build_create(r->nl, &fs);
	op = msg ? opq_push(&r->q, msg, fs.have & HAVE_IMAGE ?
			    NF_CUCKOO_CMD_LOAD_BEGIN : NF_CUCKOO_CMD_NEW, fs.name, line) :
		   NULL;
	if (!op) {
		filter_spec_free(&fs);
		RERR(r, EXIT_FAIL, "out of memory");
	}
	if (k->line == line)
		k->create = op;
	/* With -exist a filter made meanwhile (by fail2ban, say) is kept,
	 * and the chunks of its load are dropped (ops.c). */
	op->ok_eexist = opts.exist;
	op->img_version = -1;
	if (fs.have & HAVE_IMAGE) {
		size_t i;
		uint64_t tb;

		op->img_version = image_version(fs.image[0], fs.image_len[0]);
		r->loading = true;
		snprintf(r->lname, sizeof(r->lname), "%s", fs.name);
		snprintf(r->lreal, sizeof(r->lreal), "%s", w[1]);
		r->lline = line;
		r->loff = 0;
		/* The stages' tables come back to back. */
		r->ltable = 0;
		for (i = 0; i < fs.nimages && r->ltable != UINT64_MAX; i++)
			r->ltable = image_table_bytes(fs.image[i],
						      fs.image_len[i], &tb) ||
				    tb > UINT64_MAX - 1 - r->ltable ?
				    UINT64_MAX : r->ltable + tb;
		r->pstart = 0;
		r->plen = 0;
	}
	filter_spec_free(&fs);
	return 0;
}

static int r_load(struct rctx *r, char **w, int n, uint32_t line)
{
	uint64_t off, len;
	uint8_t *buf;
	long got;

	if (n < 4)
		RERR(r, EXIT_USAGE, "want 'load NAME OFFSET BASE64' or 'load NAME OFFSET zero LENGTH'");
	if (r->skipping && !strcmp(w[1], r->lreal))
		return 0;
	if (!r->loading || strcmp(w[1], r->lreal))
		RERR(r, EXIT_USAGE, "'load %s' without a 'create %s ... image HEADER' line before it",
		     w[1], w[1]);
	if (parse_u64(w[2], &off))
		RERR(r, EXIT_USAGE, "bad offset '%s'", w[2]);
	if (off != r->loff)
		RERR(r, EXIT_USAGE, "table offset %" PRIu64 ", expected %" PRIu64 " (load lines missing or out of order?)",
		     off, r->loff);
	if (!strcmp(w[3], "zero")) {
		if (n != 5 || parse_u64(w[4], &len) || !len)
			RERR(r, EXIT_USAGE, "want 'load NAME OFFSET zero LENGTH'");
		if (len > r->ltable - r->loff)
			RERR(r, EXIT_USAGE, "%" PRIu64 " zero bytes at offset %" PRIu64 " go past the end of the table of %s (%" PRIu64 " bytes, as its image header on line %" PRIu32 " says)",
			     len, off, r->lname, r->ltable, r->lline);
		if (pend_bytes(r, NULL, len, line))
			return -1;
		r->loff += len;
		return 0;
	}
	if (n != 4)
		RERR(r, EXIT_USAGE, "want 'load NAME OFFSET BASE64' or 'load NAME OFFSET zero LENGTH'");
	len = strlen(w[3]);
	buf = malloc(len / 4 * 3 + 3);
	if (!buf)
		RERR(r, EXIT_FAIL, "out of memory");
	got = b64_decode(w[3], len, buf);
	if (got <= 0) {
		free(buf);
		RERR(r, EXIT_USAGE, "bad base64 table data");
	}
	if ((uint64_t)got > r->ltable - r->loff) {
		free(buf);
		RERR(r, EXIT_USAGE, "%ld bytes at offset %" PRIu64 " go past the end of the table of %s (%" PRIu64 " bytes, as its image header on line %" PRIu32 " says)",
		     got, off, r->lname, r->ltable, r->lline);
	}
	if (pend_bytes(r, buf, (uint64_t)got, line)) {
		free(buf);
		return -1;
	}
	free(buf);
	r->loff += (uint64_t)got;
	return 0;
}

static int r_named(struct rctx *r, char **w, int n, uint32_t line,
		   uint8_t cmd)
{
	struct filter_spec fs = { 0 };
	struct nl_msg *msg;
	struct known *k;
	char err[ERRLEN];

	if (n < 2)
		RERR(r, EXIT_USAGE, "missing filter name after '%s'", w[0]);
	if (check_name(w[1], err, sizeof(err)))
		RERR(r, EXIT_USAGE, "%s", err);
	if (need_filter(r, w[1], &k))
		return -1;
	if (cmd == NF_CUCKOO_CMD_DEL && k->replacing)
		RERR(r, EXIT_USAGE, "-replace: filter %s is destroyed after it was created on line %" PRIu32 "; nothing to replace it with",
		     w[1], k->line);
	if (cmd == NF_CUCKOO_CMD_SET) {
		snprintf(fs.name, sizeof(fs.name), "%s", k->opname);
		if (parse_filter_spec(w + 2, n - 2, &fs, true, false, err,
				      sizeof(err)))
			RERR(r, EXIT_USAGE, "%s", err);
		if (!fs.have)
			RERR(r, EXIT_USAGE, "nothing to set");
		msg = build_set(r->nl, &fs);
	} else {
		if (n > 2)
			RERR(r, EXIT_USAGE, "unexpected '%s' after '%s %s'", w[2],
			     w[0], w[1]);
		msg = build_named(r->nl, cmd, k->opname);
	}
	if (!msg || !opq_push(&r->q, msg, cmd, k->opname, line))
		RERR(r, EXIT_FAIL, "out of memory");
	if (cmd == NF_CUCKOO_CMD_DEL) {
		k->exists = false;
		k->line = line;
	}
	return 0;
}

static int r_entry(struct rctx *r, char **w, int n, uint32_t line,
		   uint8_t cmd)
{
	struct known *k;
	struct entry e;
	char err[ERRLEN];
	uint32_t flags = 0;
	int used;

	if (n < 2)
		RERR(r, EXIT_USAGE, "missing filter name after '%s'", w[0]);
	/* A bulk list names one filter a million times: check it once. */
	if (n >= 3 && r->last < r->nk && r->k[r->last].exists &&
	    !strcmp(r->k[r->last].name, w[1])) {
		k = &r->k[r->last];
	} else {
		if (check_name(w[1], err, sizeof(err)))
			RERR(r, EXIT_USAGE, "%s", err);
		if (n < 3)
			RERR(r, EXIT_USAGE, "'%s %s' without an entry", w[0],
			     w[1]);
		if (need_filter(r, w[1], &k))
			return -1;
		r->last = (size_t)(k - r->k);
	}
	if (entry_parse(w + 2, n - 2, false, &e, &used, err, sizeof(err)) ||
	    entry_check(&e, &k->ks, w[1], err, sizeof(err)))
		RERR(r, EXIT_USAGE, "%s", err);
	if (opts.exist)
		flags = cmd == NF_CUCKOO_CMD_ADD_ENTRIES ? NF_CUCKOO_BATCH_F_UNIQUE :
						     NF_CUCKOO_BATCH_F_MISSING_OK;
	if (opq_entry(&r->q, cmd, k->opname, flags, &e, line))
		RERR(r, EXIT_FAIL, "out of memory");
	r->entries++;
	return 0;
}

static int r_line(struct rctx *r, char *line, uint32_t lineno)
{
	char *w[RESTORE_MAX_WORDS + 1];
	int n;

	if (line_is_blank(line))
		return 0;
	n = split_words(line, w, RESTORE_MAX_WORDS);
	if (n < 0)
		RERR(r, EXIT_USAGE, "too many words");
	/*
	 * Not before: input that is unreadable from its first line (a
	 * missing file, -f /dev/zero) is an input error whether or not
	 * the module is loaded.
	 */
	if (!r->nl_open) {
		if (cfnl_open(r->nl)) {
			r->err[0] = 0;	/* cfnl_open() said why */
			r->status = EXIT_FAIL;
			return -1;
		}
		r->nl_open = true;
		if (opts.replace)
			tmp_sweep(r->nl);
	}
	r->lines++;
	if (r->loading && (strcmp(w[0], "load") || n < 2 ||
			   strcmp(w[1], r->lreal)))
		if (end_load(r, lineno))
			return -1;
	if (r->skipping && (strcmp(w[0], "load") || n < 2 ||
			    strcmp(w[1], r->lreal)))
		r->skipping = false;
	if (!strcmp(w[0], "add"))	/* first: a bulk list is all adds */
		return r_entry(r, w, n, lineno, NF_CUCKOO_CMD_ADD_ENTRIES);
	if (!strcmp(w[0], "create"))
		return r_create(r, w, n, lineno);
	if (!strcmp(w[0], "load"))
		return r_load(r, w, n, lineno);
	if (!strcmp(w[0], "del") || !strcmp(w[0], "delete"))
		return r_entry(r, w, n, lineno, NF_CUCKOO_CMD_DEL_ENTRIES);
	if (!strcmp(w[0], "destroy"))
		return r_named(r, w, n, lineno, NF_CUCKOO_CMD_DEL);
	if (!strcmp(w[0], "flush"))
		return r_named(r, w, n, lineno, NF_CUCKOO_CMD_FLUSH);
	if (!strcmp(w[0], "set"))
		return r_named(r, w, n, lineno, NF_CUCKOO_CMD_SET);
	RERR(r, EXIT_USAGE, "unknown command '%.40s' (a restore stream has create, add, del, destroy, flush, set and load lines)",
	     w[0]);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * A save (its first line SAVE_MARKER) must end with its checksum line:
 * one whose bytes were damaged, or cut short, is refused whole.  0: go
 * on with the line; 1: the end line, checked; -1 with r->err.
 */
static int check_line(struct rctx *r, const char *line, size_t len,
		      uint32_t lineno)
{
	static const size_t plen = sizeof(SAVE_END_PREFIX) - 1;
	char hex[SHA256_HEX];
	struct sha256 copy;
	size_t n;

	if (lineno == 1)
		r->need_end = !strncmp(line, SAVE_MARKER, sizeof(SAVE_MARKER) - 1);
	if (r->seen_end) {
		if (line_is_blank(line) && !strchr(line, '#'))
			return 1;
		RERR(r, EXIT_USAGE, "text after the end of the save (line %" PRIu32 ")",
		     r->end_line);
	}
	if (len < plen || strncmp(line, SAVE_END_PREFIX, plen)) {
		sha256_update(&r->sha, line, len);
		sha256_update(&r->sha, "\n", 1);
		return 0;
	}
	copy = r->sha;
	sha256_hex(&copy, hex);
	n = strspn(line + plen, "0123456789abcdef");
	if (n != SHA256_HEX - 1 || !line_is_blank(line + plen + n) ||
	    strncmp(line + plen, hex, n))
		RERR(r, EXIT_USAGE, "the save is damaged: the SHA-256 of its lines before this one is %s, not what this line says",
		     hex);
	r->seen_end = true;
	r->end_line = lineno;
	return 1;
}

/* The replacements built, swapped in all together: 0, or -1 with each
 * one as it was. */
static int commit_replacements(struct rctx *r)
{
	size_t i, j;

	for (i = 0; i < r->nk; i++) {
		if (!r->k[i].replacing ||
		    !swap_filters(r->nl, r->k[i].name, r->k[i].opname))
			continue;
		/* Put back those already swapped; all stay as they were. */
		for (j = 0; j < i; j++)
			if (r->k[j].replacing)
				swap_filters(r->nl, r->k[j].name, r->k[j].opname);
		return -1;
	}
	return 0;
}

/* Destroy the filters the stream made (the old tables too, once
 * swapped out): those whose create was applied, or sent unanswered. */
static int destroy_made(struct rctx *r, bool replaced_only)
{
	size_t i;
	int n = 0;

	for (i = 0; i < r->nk; i++) {
		struct known *k = &r->k[i];

		if (replaced_only ? !k->replacing :
		    !k->create || !k->create->sent || k->create->existed ||
		    (k->create->done && k->create->err.err))
			continue;
		if (destroy_quietly(r->nl, k->opname))
			n = -1;
	}
	return n;
}

int cmd_restore(int argc, char **argv)
{
	const char *file = cfctl_file();
	struct rctx r = { 0 };
	struct line_reader lr = { 0 };
	char *line, rerr[ERRLEN];
	size_t len;
	struct cfnl nl = { 0 };
	FILE *f;
	int ret = EXIT_OK, err, got;
	double t0, t1;

	(void)argv;
	if (argc) {
		errmsg("unexpected '%s'; usage: cfctl restore [-exist | -replace] [-f FILE]",
		       argv[0]);
		return EXIT_USAGE;
	}
	f = open_input(file ? file : "-");
	if (!f)
		return EXIT_USAGE;
	r.nl = &nl;
	opq_init(&r.q, &nl);
	r.pend = malloc(NF_CUCKOO_CHUNK_MAX);
	if (!r.pend || line_reader_init(&lr, f)) {
		errmsg("out of memory");
		ret = EXIT_FAIL;
		goto out;
	}
	t0 = now();
	sha256_init(&r.sha);
	while ((got = read_line(&lr, &line, &len, rerr, sizeof(rerr))) > 0) {
		int c = check_line(&r, line, len, lr.lineno);

		if (c > 0)
			continue;
		if (c < 0 || r_line(&r, line, lr.lineno)) {
			if (r.err[0])
				errmsg("line %" PRIu32 ": %s; nothing was applied",
				       lr.lineno, r.err);
			ret = r.status;
			goto out;
		}
	}
	if (got == -1) {
		errmsg("line %" PRIu32 ": %s; nothing was applied", lr.lineno,
		       rerr);
		ret = EXIT_USAGE;
		goto out;
	}
	if (got == -2) {
		errmsg("%s; nothing was applied", rerr);
		ret = EXIT_FAIL;
		goto out;
	}
	if (r.need_end && !r.seen_end) {
		errmsg("the save ends at line %" PRIu32 " without its last line, the checksum: it was cut short; nothing was applied",
		       lr.lineno);
		ret = EXIT_USAGE;
		goto out;
	}
	if (end_load(&r, lr.lineno + 1)) {
		errmsg("%s; nothing was applied", r.err);
		ret = r.status;
		goto out;
	}
	t1 = now();
	if (opts.verbose)
		fprintf(stderr, "restore: read %" PRIu64 " commands (%" PRIu64 " entries) in %.3f s\n",
			r.lines, r.entries, t1 - t0);

	t0 = now();
	err = opq_run(&r.q);
	t1 = now();
	if (err) {
		struct op *op = r.q.failed;

		/* The kernel names the version it reads; this, the other. */
		if (op && op->cmd == NF_CUCKOO_CMD_LOAD_BEGIN &&
		    op->err.err == -EINVAL && op->img_version >= 0)
			errmsg("line %" PRIu32 ": the image of %s is of image version %d",
			       op->line, op->name, op->img_version);
		report_failure(&r.q, err, "line", NULL, 0);
		if (destroy_made(&r, false))
			errmsg("some of the filters this restore created could not be destroyed again");
		else
			errmsg("the filters this restore created were destroyed again%s",
			       opts.replace ? ", and those it was to replace left as they were" : "");
		ret = EXIT_FAIL;
		goto out;
	}
	if (commit_replacements(&r)) {
		destroy_made(&r, true);
		errmsg("nothing was replaced: every filter was left as it was");
		ret = EXIT_FAIL;
		goto out;
	}
	/* The old tables, swapped out to the temporary names. */
	if (destroy_made(&r, true)) {
		errmsg("the filters were replaced, but some old tables are left under temporary names (" TMP_PREFIX "...): destroy them");
		ret = EXIT_FAIL;
	}
	r.kept += r.q.kept_late;
	if (r.kept && !opts.quiet)
		fprintf(stderr, "restore: %" PRIu64 " filter%s kept as the kernel holds %s\n",
			r.kept, r.kept == 1 ? "" : "s", r.kept == 1 ? "it" : "them");
	if (opts.verbose) {
		uint64_t added = opq_applied(&r.q, NF_CUCKOO_CMD_ADD_ENTRIES);
		uint64_t deleted = opq_applied(&r.q, NF_CUCKOO_CMD_DEL_ENTRIES);

		fprintf(stderr, "restore: %" PRIu64 " entries added, %" PRIu64 " deleted, %zu requests in %.3f s (%.0f entries/s)\n",
			added, deleted, r.q.nops, t1 - t0,
			t1 > t0 ? (double)(added + deleted) / (t1 - t0) : 0.0);
	}
out:
	if (f != stdin)
		fclose(f);
	line_reader_free(&lr);
	free(r.pend);
	free(r.k);
	opq_free(&r.q);
	cfnl_close(&nl);
	return ret;
}
