// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: the verbs on entries: add, del, test; and the report of a failed
 * queue, shared with restore.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "verbs.h"

FILE *open_input(const char *path)
{
	struct stat st;
	FILE *f;

	if (!strcmp(path, "-"))
		return stdin;
	f = fopen(path, "r");
	if (!f) {
		errmsg("cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	/* A directory opens, then fails to read: the same input error. */
	if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		errmsg("cannot open %s: %s", path, strerror(EISDIR));
		fclose(f);
		return NULL;
	}
	return f;
}

static const char *reason_text(uint32_t why)
{
	switch (why) {
	case NF_CUCKOO_ENTRY_E_MALFORMED:
		return "malformed entry";
	case NF_CUCKOO_ENTRY_E_FAMILY:
		return "the entry's family is not one the filter holds";
	case NF_CUCKOO_ENTRY_E_FULL:
		return "the filter is full";
	case NF_CUCKOO_ENTRY_E_NOENT:
		return "the entry is not in the filter";
	case NF_CUCKOO_ENTRY_E_PREFIXES:
		return "more combinations of prefix lengths than a filter holds";
	case NF_CUCKOO_ENTRY_E_AMBIGUOUS:
		return "the entry is in more than one stage of the filter and its own copy cannot be told: not deleted";
	case NF_CUCKOO_ENTRY_E_QUOTA:
		return "the filter is full and a new stage would exceed a memory ceiling (netns_mem_max_mb or mem_max_mb)";
	}
	return NULL;
}

/*
 * What to do about a refusal of a filter that grows: the kernel's words
 * say what happened, and its errno's text ("Name not unique on network",
 * "Disk quota exceeded") misleads.
 */
static void reason_hint(const struct op *op)
{
	if (op->r_fail_reason == NF_CUCKOO_ENTRY_E_AMBIGUOUS)
		errmsg("a filter that grew cannot delete an entry that more than one of its stages answers for (one may be another entry's): to remove it, rebuild the filter from the entries to keep: 'cfctl compact -f LIST %s'",
		       op->name);
	else if (op->r_fail_reason == NF_CUCKOO_ENTRY_E_QUOTA)
		errmsg("what %s holds is kept; raise the ceiling (/sys/module/nf_cuckoo/parameters/netns_mem_max_mb, mem_max_mb) or free memory (delete entries, destroy filters) to add more",
		       op->name);
}

static bool is_batch(uint8_t cmd)
{
	return cmd == NF_CUCKOO_CMD_ADD_ENTRIES || cmd == NF_CUCKOO_CMD_DEL_ENTRIES ||
	       cmd == NF_CUCKOO_CMD_TEST_ENTRIES;
}

static uint32_t op_first_line(const struct op *op)
{
	return op->lines && op->n ? op->lines[0] : op->line;
}

/* "12 entries added, 3 deleted, 1 filter created" for ops [from, to). */
static void applied_summary(const struct op *from, const struct op *to,
			    char *buf, size_t len)
{
	uint64_t added = 0, deleted = 0, other = 0;
	const struct op *op;
	size_t off = 0;

	for (op = from; op && op != to; op = op->next) {
		if (!op->done || op->err.err)
			continue;
		if (op->cmd == NF_CUCKOO_CMD_ADD_ENTRIES)
			added += op->r_done;
		else if (op->cmd == NF_CUCKOO_CMD_DEL_ENTRIES)
			deleted += op->r_done;
		else if (op->cmd != NF_CUCKOO_CMD_TEST_ENTRIES &&
			 op->cmd != NF_CUCKOO_CMD_LOAD_CHUNK)
			other++;
	}
	buf[0] = 0;
#define ROOM (off < len ? len - off : 0)
	off += (size_t)snprintf(buf + off, ROOM, "%" PRIu64 " entr%s added",
				added, added == 1 ? "y" : "ies");
	if (deleted)
		off += (size_t)snprintf(buf + off, ROOM, ", %" PRIu64 " deleted",
					deleted);
	if (other)
		off += (size_t)snprintf(buf + off, ROOM,
					", %" PRIu64 " other command%s", other,
					other == 1 ? "" : "s");
#undef ROOM
}

void report_failure(struct opq *q, int err, const char *unit,
		    char **texts, size_t ntexts)
{
	struct op *op = q->failed, *o;
	char why[ERRLEN + 160], what[160], sum[160];
	bool have_idx, several;
	const char *text = NULL;
	uint32_t line, first;

	if (!op) {
		/* A socket error: say what is known to have been applied. */
		if (err == -ENOBUFS)
			errmsg("replies from the kernel were lost (socket receive buffer overrun)");
		else
			errmsg("%s", strerror(-err));
		applied_summary(q->head, NULL, sum, sizeof(sum));
		errmsg("acknowledged before the error: %s", sum);
		return;
	}
	have_idx = is_batch(op->cmd) && op->has_result &&
		   op->r_fail_index < op->n;
	line = have_idx ? op->lines[op->r_fail_index] : op->line;
	if (op->err.msg[0] || op->err.has_miss) {
		nlerr_format(&op->err, op->msg, why, sizeof(why));
	} else if (have_idx && reason_text(op->r_fail_reason)) {
		snprintf(why, sizeof(why), "%s (%s)",
			 reason_text(op->r_fail_reason), strerror(-op->err.err));
	} else if (op->err.err == -ENOENT) {
		snprintf(why, sizeof(why), "no filter named %s (%s)", op->name,
			 strerror(ENOENT));
	} else if (op->err.err == -EEXIST) {
		snprintf(why, sizeof(why), "a filter named %s already exists (%s)",
			 op->name, strerror(EEXIST));
	} else if (op->err.err == -EPERM) {
		snprintf(why, sizeof(why), "%s (need CAP_NET_ADMIN over the network namespace)",
			 strerror(EPERM));
	} else {
		nlerr_format(&op->err, op->msg, why, sizeof(why));
	}
	if (texts && line >= 1 && line <= ntexts)
		text = texts[line - 1];
	if (is_batch(op->cmd) && !have_idx && op->n > 1)
		snprintf(what, sizeof(what), "%ss %" PRIu32 "-%" PRIu32, unit,
			 op->lines[0], op->lines[op->n - 1]);
	else if (text)
		snprintf(what, sizeof(what), "%s %" PRIu32 " (%.100s)", unit,
			 line, text);
	else
		snprintf(what, sizeof(what), "%s %" PRIu32, unit, line);
	errmsg("%s: %s", what, why);
	if (have_idx)
		reason_hint(op);
	if (op->err.err == -EUCLEAN && op->has_result)
		errmsg("the kernel could not undo the batch of %ss %" PRIu32 "-%" PRIu32 ": %" PRIu32 " of its entries remain applied",
		       unit, op->lines[0], op->lines[op->n - 1], op->r_done);

	several = q->head != q->tail || op->n > 1;
	if (!several)
		return;
	first = op_first_line(op);
	if (op == q->head) {
		errmsg("nothing was applied");
	} else {
		applied_summary(q->head, op, sum, sizeof(sum));
		errmsg("%ss before %" PRIu32 " were applied (%s); nothing from %s %" PRIu32 " on",
		       unit, first, sum, unit, first);
	}
	for (o = op->next; o; o = o->next) {
		if (o->done && !o->err.err) {
			applied_summary(op->next, NULL, sum, sizeof(sum));
			errmsg("but requests already sent after it were applied too: %s",
			       sum);
			break;
		}
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct ent_ctx {
	char **texts;
	size_t ntexts, cap;
};

/* Remember the text of the entry of line (or argument) idx, 1-based. */
static int keep_text(struct ent_ctx *c, uint32_t idx, const struct entry *e)
{
	char buf[160];

	while (c->ntexts < idx) {
		if (c->ntexts == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 64;
			char **t = realloc(c->texts, cap * sizeof(*t));

			if (!t)
				return -1;
			c->texts = t;
			c->cap = cap;
		}
		c->texts[c->ntexts++] = NULL;
	}
	entry_format(e, buf, sizeof(buf));
	c->texts[idx - 1] = strdup(buf);
	return c->texts[idx - 1] ? 0 : -1;
}

static int parsed_push(struct parsed *p, const struct entry *e, uint32_t line)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;
		struct entry *ne = realloc(p->e, cap * sizeof(*ne));
		uint32_t *nl;

		if (!ne)
			return -1;
		p->e = ne;
		nl = realloc(p->line, cap * sizeof(*nl));
		if (!nl)
			return -1;
		p->line = nl;
		p->cap = cap;
	}
	p->e[p->n] = *e;
	p->line[p->n++] = line;
	return 0;
}

void parsed_free(struct parsed *p)
{
	free(p->e);
	free(p->line);
}

/* Skipped lines named one by one; past that, only counted. */
#define SKIP_WARN_MAX	10

/*
 * A line of -f that cannot be an entry (of this filter): with -skip-bad,
 * warn and count it (0); without, report it (1): nothing is applied.
 */
static int bad_line(struct parsed *p, uint32_t line, const char *why)
{
	if (!opts.skip_bad) {
		errmsg("line %" PRIu32 ": %s; nothing was applied", line, why);
		return 1;
	}
	if (!opts.quiet && p->skipped < SKIP_WARN_MAX)
		warnmsg("line %" PRIu32 ": %s; skipped", line, why);
	p->skipped++;
	return 0;
}

static int read_entry_file(FILE *f, struct parsed *p)
{
	char *line, *w[ENTRY_MAX_WORDS + 1], err[ERRLEN];
	struct line_reader lr;
	struct entry e;
	size_t len;
	int n, used, r = 0, got;

	if (line_reader_init(&lr, f)) {
		errmsg("out of memory");
		return EXIT_FAIL;
	}
	while ((got = read_line(&lr, &line, &len, err, sizeof(err))) > 0) {
		/* Files saved by Windows editors may start with a BOM. */
		if (lr.lineno == 1 && !strncmp(line, "\xef\xbb\xbf", 3))
			line += 3;
		strip_comment(line);
		if (line_is_blank(line))
			continue;
		n = split_words(line, w, ENTRY_MAX_WORDS);
		if (n < 0) {
			if (bad_line(p, lr.lineno, "too many words for an entry")) {
				r = EXIT_USAGE;
				break;
			}
			continue;
		}
		if (entry_parse(w, n, false, &e, &used, err, sizeof(err))) {
			if (bad_line(p, lr.lineno, err)) {
				r = EXIT_USAGE;
				break;
			}
			continue;
		}
		if (parsed_push(p, &e, lr.lineno)) {
			errmsg("out of memory");
			r = EXIT_FAIL;
			break;
		}
	}
	/* Not text (a NUL byte, a line past LINE_MAX_BYTES): never skipped. */
	if (got == -1) {
		errmsg("line %" PRIu32 ": %s; nothing was applied", lr.lineno, err);
		r = EXIT_USAGE;
	} else if (got == -2) {
		errmsg("%s; nothing was applied", err);
		r = EXIT_FAIL;
	}
	line_reader_free(&lr);
	return r;
}

/* The entries of the command line, parsed; EXIT_* */
static int parse_cmdline(int argc, char **argv, struct parsed *p)
{
	char err[ERRLEN];
	char **w;
	int nw = 0, i, r = EXIT_OK;

	w = cmdline_words(argc, argv, &nw, err, sizeof(err));
	if (!w) {
		errmsg("%s", nw < 0 ? err : "out of memory");
		return nw < 0 ? EXIT_USAGE : EXIT_FAIL;
	}
	for (i = 0; i < nw;) {
		struct entry e;
		int used;

		if (!strcmp(w[i], ",")) {
			i++;
			continue;
		}
		if (entry_parse(w + i, nw - i, true, &e, &used, err,
				sizeof(err))) {
			errmsg("entry %zu: %s", p->n + 1, err);
			r = EXIT_USAGE;
			break;
		}
		i += used;
		if (parsed_push(p, &e, (uint32_t)(p->n + 1))) {
			errmsg("out of memory");
			r = EXIT_FAIL;
			break;
		}
	}
	free(w);
	return r;
}

/*
 * Check each entry against the filter's key and queue it; *queued: how
 * many were (with -skip-bad, the others of a file are skipped).  EXIT_*
 */
static int queue_entries(struct parsed *p, struct opq *q, uint8_t cmd,
			 const char *name, uint32_t flags,
			 const struct keyspec *ks, struct ent_ctx *c,
			 bool keep, bool file, uint64_t *queued)
{
	char err[ERRLEN], buf[160];
	size_t i;

	*queued = 0;
	for (i = 0; i < p->n; i++) {
		struct entry *e = &p->e[i];
		uint32_t line = p->line[i];

		if (entry_check(e, ks, name, err, sizeof(err))) {
			if (file) {
				if (!bad_line(p, line, err))
					continue;
			} else {
				entry_format(e, buf, sizeof(buf));
				errmsg("entry %" PRIu32 " (%s): %s", line, buf,
				       err);
			}
			return EXIT_USAGE;
		}
		if ((keep && keep_text(c, line, e)) ||
		    opq_entry(q, cmd, name, flags, e, line)) {
			errmsg("out of memory");
			return EXIT_FAIL;
		}
		++*queued;
	}
	return EXIT_OK;
}

int entries_from_file(const char *file, struct parsed *p)
{
	FILE *f = open_input(file);
	int r;

	/* A missing file is an input error, the module loaded or not. */
	if (!f)
		return EXIT_USAGE;
	r = read_entry_file(f, p);
	if (f != stdin)
		fclose(f);
	return r;
}

/*
 * What an add or del applied: with -v, a line of counts and rate; the
 * entries -keep-ambiguous kept, always (but with -q).
 */
static void report_applied(struct opq *q, uint8_t cmd, const char *name,
			   uint64_t count, double secs, FILE *vout)
{
	uint64_t done = opq_applied(q, cmd), skipped = 0;
	bool add = cmd == NF_CUCKOO_CMD_ADD_ENTRIES;
	struct op *op;

	for (op = q->head; op; op = op->next)
		skipped += op->r_skipped;
	if (!add && opts.keep_ambiguous && skipped && !opts.quiet)
		warnmsg("%" PRIu64 " entr%s kept%s: more than one stage of %s has each, and its own copy cannot be told; 'cfctl compact' from the entries to keep removes them",
			skipped, skipped == 1 ? "y" : "ies",
			opts.exist ? " or not present" : "", name);
	if (!opts.verbose)
		return;
	fprintf(vout, "%s: %" PRIu64 " entries %s", name, done,
		add ? "added" : "deleted");
	if (skipped)
		fprintf(vout, ", %" PRIu64 " skipped (%s)", skipped,
			add ? "already present" :
			!opts.keep_ambiguous ? "not present" :
			opts.exist ? "not present or ambiguous" : "ambiguous");
	fprintf(vout, " in %.3f s (%.0f entries/s, %zu requests)\n",
		secs, secs > 0 ? (double)count / secs : 0.0, q->nops);
}

int entries_apply(struct cfnl *nl, uint8_t cmd, const char *name,
		  struct parsed *p, bool file, FILE *vout)
{
	struct ent_ctx c = { 0 };
	struct filter_info fi;
	struct keyspec ks;
	struct opq q;
	uint64_t count = 0, present = 0, absent = 0, bad;
	uint32_t flags = 0;
	int r = EXIT_OK, i;
	double t0, t1;
	bool keep_texts;
	size_t k;

	if (opts.exist && cmd == NF_CUCKOO_CMD_ADD_ENTRIES)
		flags = NF_CUCKOO_BATCH_F_UNIQUE;
	if (opts.exist && cmd == NF_CUCKOO_CMD_DEL_ENTRIES)
		flags = NF_CUCKOO_BATCH_F_MISSING_OK;
	if (opts.keep_ambiguous && cmd == NF_CUCKOO_CMD_DEL_ENTRIES)
		flags |= NF_CUCKOO_BATCH_F_AMBIGUOUS_OK;
	keep_texts = !file || (cmd == NF_CUCKOO_CMD_TEST_ENTRIES && opts.verbose);

	opq_init(&q, nl);
	if (info_get(nl, name, &fi)) {
		r = EXIT_FAIL;
		goto out;
	}
	if (fi.loading) {
		errmsg("filter %s is being restored (%s)", name, strerror(EBUSY));
		r = EXIT_FAIL;
		goto out;
	}
	info_keyspec(&fi, &ks);
	r = queue_entries(p, &q, cmd, name, flags, &ks, &c, keep_texts, file,
			  &count);
	bad = p->skipped;
	parsed_free(p);
	*p = (struct parsed){ 0 };
	if (!r && bad && !opts.quiet)
		warnmsg("%" PRIu64 " line%s skipped (-skip-bad)%s", bad,
			bad == 1 ? "" : "s",
			bad > SKIP_WARN_MAX ? "; the first were named" : "");
	if (!r && bad && !count) {
		errmsg("no line could be an entry of filter %s: nothing to do",
		       name);
		r = EXIT_USAGE;
	}
	if (r || !count)
		goto out;

	t0 = now();
	i = opq_run(&q);
	t1 = now();
	if (i) {
		report_failure(&q, i, file ? "line" : "entry", c.texts,
			       c.ntexts);
		r = EXIT_FAIL;
		goto out;
	}

	if (cmd == NF_CUCKOO_CMD_TEST_ENTRIES) {
		struct op *op;
		uint32_t j;

		for (op = q.head; op; op = op->next) {
			for (j = 0; j < op->n; j++) {
				bool hit = op->bitmap &&
					   (op->bitmap[j / 8] >> (j % 8)) & 1;
				uint32_t l = op->lines[j];
				const char *t = l >= 1 && l <= c.ntexts &&
						c.texts[l - 1] ?
						c.texts[l - 1] : "?";

				if (hit)
					present++;
				else
					absent++;
				if (opts.quiet || (file && !opts.verbose))
					continue;
				if (file)
					printf("line %" PRIu32 ": ", l);
				printf(hit ? "%s is in %s (probably)\n" :
					     "%s is NOT in %s\n", t, name);
			}
		}
		if (file && !opts.quiet)
			printf("%s: %" PRIu64 " of %" PRIu64 " entries present (probably), %" PRIu64 " absent\n",
			       name, present, count, absent);
		r = absent ? EXIT_ABSENT : EXIT_OK;
	} else {
		report_applied(&q, cmd, name, count, t1 - t0, vout);
	}
out:
	opq_free(&q);
	parsed_free(p);
	*p = (struct parsed){ 0 };
	for (k = 0; k < c.ntexts; k++)
		free(c.texts[k]);
	free(c.texts);
	return r;
}

static int do_entries(uint8_t cmd, int argc, char **argv)
{
	const char *file = cfctl_file();
	struct parsed p = { 0 };
	char err[ERRLEN];
	const char *name;
	struct cfnl nl;
	int r;

	if (argc < 1) {
		errmsg("missing filter name; usage: cfctl %s [-f FILE] NAME [ENTRY...]",
		       verb_name);
		return EXIT_USAGE;
	}
	name = argv[0];
	if (check_name(name, err, sizeof(err))) {
		errmsg("%s", err);
		return EXIT_USAGE;
	}
	argc--;
	argv++;
	if (file && argc) {
		errmsg("give entries on the command line or with -f, not both");
		return EXIT_USAGE;
	}
	if (!file && opts.skip_bad) {
		errmsg("-skip-bad goes with -f FILE");
		return EXIT_USAGE;
	}
	if (!file && !cmdline_has_entry(argc, argv)) {
		errmsg("no entries given; usage: cfctl %s NAME ENTRY... (or -f FILE)",
		       verb_name);
		return EXIT_USAGE;
	}

	/* Syntax first, so that it is reported (status 2) with or without
	 * the module; -f input is read whole, as parsed entries. */
	if (file)
		r = entries_from_file(file, &p);
	else
		r = parse_cmdline(argc, argv, &p);
	if (!r && !p.n && !p.skipped && cmd == NF_CUCKOO_CMD_TEST_ENTRIES) {
		errmsg("no entries to test");
		r = EXIT_USAGE;
	}
	if (r) {
		parsed_free(&p);
		return r;
	}

	if (cfnl_open(&nl)) {
		parsed_free(&p);
		return EXIT_FAIL;
	}
	r = entries_apply(&nl, cmd, name, &p, file != NULL, stdout);
	cfnl_close(&nl);
	return r;
}

int cmd_add(int argc, char **argv)
{
	return do_entries(NF_CUCKOO_CMD_ADD_ENTRIES, argc, argv);
}

int cmd_del(int argc, char **argv)
{
	return do_entries(NF_CUCKOO_CMD_DEL_ENTRIES, argc, argv);
}

int cmd_test(int argc, char **argv)
{
	return do_entries(NF_CUCKOO_CMD_TEST_ENTRIES, argc, argv);
}
