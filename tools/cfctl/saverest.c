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

int save_one(struct cfnl *nl, const char *name, FILE *out)
{
	struct save_ctx s;
	struct nl_msg *msg;
	struct nlerr e;
	int err, tries;

	for (tries = 0;; tries++) {
		memset(&s, 0, sizeof(s));
		msg = cfnl_msg(nl, NF_CUCKOO_CMD_SAVE, NLM_F_DUMP, 0);
		if (!msg || nla_put_string(msg, NF_CUCKOO_A_NAME, name)) {
			nlmsg_free(msg);
			errmsg("out of memory");
			return -ENOMEM;
		}
		err = cfnl_transact(nl, msg, save_cb, &s, &e);
		if (err) {
			report_nlerr(&e, msg, name);
			nlmsg_free(msg);
			free(s.table);
			return err;
		}
		nlmsg_free(msg);
		if (s.bad[0]) {
			errmsg("%s: %s", name, s.bad);
			free(s.table);
			return -EBADMSG;
		}
		if (!s.have_fi || s.got != s.table_len) {
			errmsg("%s: the save dump ended after %" PRIu64 " of %" PRIu64 " table bytes",
			       name, s.got, s.table_len);
			free(s.table);
			return -EBADMSG;
		}
		if (!s.intr)
			break;
		free(s.table);
		if (tries == 10) {
			errmsg("%s kept changing while being saved; try again", name);
			return -EAGAIN;
		}
	}
	print_save(out, &s);
	free(s.table);
	return 0;
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

/* Close the save file; on success, put it in place. */
static int close_save_file(FILE *out, const char *file, char *tmp, bool ok)
{
	int r = 0;

	if (ok && tmp && fsync(fileno(out))) {
		errmsg("cannot write %s: %s", tmp, strerror(errno));
		ok = false;
		r = -1;
	}
	if (fclose(out)) {
		errmsg("write error: %s", strerror(errno));
		ok = false;
		r = -1;
	}
	if (!tmp)
		return r;
	if (ok && rename(tmp, file)) {
		errmsg("cannot rename %s to %s: %s", tmp, file, strerror(errno));
		ok = false;
		r = -1;
	}
	if (!ok) {
		unlink(tmp);
		errmsg("%s was left as it was", file);
	}
	free(tmp);
	return r;
}

int save_out_open(struct save_out *so, const char *file)
{
	struct stat lst;

	memset(so, 0, sizeof(*so));
	so->f = stdout;
	if (!file || !strcmp(file, "-"))
		return 0;
	so->file = file;
	/* The rename replaces the file a symlink points to, not the
	 * symlink. */
	if (!lstat(file, &lst) && S_ISLNK(lst.st_mode)) {
		so->real = realpath(file, NULL);
		if (so->real)
			so->file = so->real;
	}
	so->f = open_save_file(so->file, &so->tmp);
	if (!so->f) {
		errmsg("cannot write %s: %s", so->file, strerror(errno));
		free(so->real);
		so->real = NULL;
		return -1;
	}
	return 0;
}

int save_out_close(struct save_out *so, bool ok)
{
	int r = 0;

	if (fflush(so->f) || ferror(so->f)) {
		errmsg("write error: %s", strerror(errno));
		ok = false;
		r = -1;
	}
	if (so->f != stdout && close_save_file(so->f, so->file, so->tmp, ok))
		r = -1;
	so->f = NULL;
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
	fprintf(so.f, "# nf_cuckoo filters saved by cfctl %s from %s; load with: cfctl restore -f FILE\n",
		CFCTL_VERSION, module_version(modver, sizeof(modver)));
	if (argc) {
		for (k = 0; k < argc; k++)
			if (save_one(&nl, argv[k], so.f))
				r = EXIT_FAIL;
	} else {
		for (i = 0; i < n; i++) {
			if (fi[i].loading) {
				warnmsg("skipping %s: it is being restored",
					fi[i].name);
				continue;
			}
			if (save_one(&nl, fi[i].name, so.f))
				r = EXIT_FAIL;
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
	struct keyspec ks;
	bool exists;
	uint32_t line;		/* where it was created or destroyed */
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
	char lname[NF_CUCKOO_NAME_MAXLEN];
	uint32_t lline;		/* its create line */
	uint64_t loff;		/* table bytes so far (lines) */
	uint64_t ltable;	/* table bytes its header declares, or ~0 */
	uint64_t pstart;	/* table offset of pend[0] */
	uint8_t *pend;
	size_t plen;
	uint32_t pline;		/* line of pend[0] */
	/* counts */
	uint64_t entries, lines;
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
	if (k->exists && (!opts.exist || (fs.have & HAVE_IMAGE))) {
		filter_spec_free(&fs);
		if (k->line)
			RERR(r, EXIT_USAGE, "a filter named %s already exists (created on line %" PRIu32 ")",
			     w[1], k->line);
		RERR(r, EXIT_USAGE, "a filter named %s already exists%s", w[1],
		     opts.exist ? " (-exist does not apply to restoring a table: destroy it first)" : "");
	}
	if (!k->exists) {
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
	op->ok_eexist = opts.exist && !(fs.have & HAVE_IMAGE);
	op->img_version = -1;
	if (fs.have & HAVE_IMAGE) {
		size_t i;
		uint64_t tb;

		op->img_version = image_version(fs.image[0], fs.image_len[0]);
		r->loading = true;
		snprintf(r->lname, sizeof(r->lname), "%s", fs.name);
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
	if (!r->loading || strcmp(w[1], r->lname))
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
	if (cmd == NF_CUCKOO_CMD_SET) {
		snprintf(fs.name, sizeof(fs.name), "%s", w[1]);
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
		msg = build_named(r->nl, cmd, w[1]);
	}
	if (!msg || !opq_push(&r->q, msg, cmd, w[1], line))
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
	if (opq_entry(&r->q, cmd, w[1], flags, &e, line))
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
	}
	r->lines++;
	if (r->loading && (strcmp(w[0], "load") || n < 2 ||
			   strcmp(w[1], r->lname)))
		if (end_load(r, lineno))
			return -1;
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
		errmsg("unexpected '%s'; usage: cfctl restore [-f FILE]", argv[0]);
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
	while ((got = read_line(&lr, &line, &len, rerr, sizeof(rerr))) > 0) {
		if (r_line(&r, line, lr.lineno)) {
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
		if (op && (op->cmd == NF_CUCKOO_CMD_LOAD_CHUNK ||
			   op->cmd == NF_CUCKOO_CMD_LOAD_END ||
			   op->cmd == NF_CUCKOO_CMD_LOAD_BEGIN))
			errmsg("the restore of filter %s was abandoned: the kernel discards it",
			       op->name);
		ret = EXIT_FAIL;
		goto out;
	}
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
