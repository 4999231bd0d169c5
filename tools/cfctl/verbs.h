/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfctl: the verbs, and what they share.
 */
#ifndef CFCTL_VERBS_H
#define CFCTL_VERBS_H

#include "info.h"
#include "ops.h"
#include "sha256.h"

int cmd_create(int argc, char **argv);
int cmd_destroy(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_flush(int argc, char **argv);
int cmd_add(int argc, char **argv);
int cmd_del(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_save(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_swap(int argc, char **argv);
int cmd_compact(int argc, char **argv);
#define COMPACT_SYNOPSIS	"compact -f LIST NAME"

/* Build NF_CUCKOO_CMD_NEW (or, with an image, NF_CUCKOO_CMD_LOAD_BEGIN). */
struct nl_msg *build_create(struct cfnl *nl, const struct filter_spec *fs);
/* Build NF_CUCKOO_CMD_SET. */
struct nl_msg *build_set(struct cfnl *nl, const struct filter_spec *fs);
/* A request holding only NAME. */
struct nl_msg *build_named(struct cfnl *nl, uint8_t cmd, const char *name);

/*
 * After opq_run() failed: say which line (or entry) failed and why, and
 * what was applied.  unit: "line" or "entry"; texts (may be NULL): the
 * text of entry/line i (1-based) for the message.
 */
void report_failure(struct opq *q, int err, const char *unit,
		    char **texts, size_t ntexts);

/* -f FILE ('-': stdin); prints the error. */
FILE *open_input(const char *path);

/*
 * Entries as read, before the filter is looked up: the syntax of all of
 * them is checked without the kernel, then each against the filter's key.
 * line: the input line, or the entry's rank on the command line.
 */
struct parsed {
	struct entry *e;
	uint32_t *line;
	size_t n, cap;
	size_t skipped;		/* -skip-bad: bad lines left out */
};

void parsed_free(struct parsed *p);
/* The entries of -f FILE ('-': stdin), as add -f reads them: EXIT_OK, or
 * the status of the error printed (a bad line named). */
int entries_from_file(const char *file, struct parsed *p);
/*
 * What add, del and test do once the entries are read: look the filter
 * up on nl, check each entry against its key, send them in batches,
 * report.  file: the entries came from -f (errors name lines).  p is
 * consumed.  -v's summary of add and del goes to vout.  EXIT_*.
 */
int entries_apply(struct cfnl *nl, uint8_t cmd, const char *name,
		  struct parsed *p, bool file, FILE *vout);

/* The words of `create NAME PARAMETERS` into fs, checked as create checks
 * them (usage: for the message of a missing name).  EXIT_*, printed. */
int create_parse(int argc, char **argv, struct filter_spec *fs,
		 const char *usage);
/* Create fs's filter on nl, as create does (-exist: an existing one is
 * fine).  EXIT_*, the error printed. */
int create_apply(struct cfnl *nl, const struct filter_spec *fs);

/*
 * Where a save goes: stdout (file NULL or "-"), or, for a regular file,
 * FILE.XXXXXX beside it, renamed over FILE by save_out_close() if all
 * went well (a symlink is followed: its target is replaced).
 */
/*
 * A save's output.  What is written to f is hashed on its way to the
 * file; save_out_close() ends it with the line SAVE_END_PREFIX HEX, the
 * SHA-256 of every byte before that line, which restore checks.
 */
struct save_out {
	FILE *f;		/* write here */
	FILE *out;		/* the file itself (stdout, or tmp) */
	const char *file;	/* NULL: stdout */
	char *tmp;		/* the temporary file, NULL if written in place */
	char *real;		/* file with its symlink resolved (malloc'ed) */
	struct sha256 sha;
	/* save -f: keep the old file as FILE.1 if it held more filters
	 * than the nfilters of the new one */
	bool keep_prev;
	size_t nfilters;
};

/* A save's first line starts with this, and then it must end with its
 * SAVE_END_PREFIX line (older saves have neither). */
#define SAVE_MARKER	"# nf_cuckoo save 2"
#define SAVE_END_PREFIX	"# end sha256 "

/* 0, or -1 with the error printed. */
int save_out_open(struct save_out *so, const char *file);
/* End the save (if ok), flush and close, and if ok put the file in
 * place, else remove the temporary one.  0, or -1 with the error
 * printed. */
int save_out_close(struct save_out *so, bool ok);
/* Save filter name (create and load lines) to out.  0 or -errno, the
 * error printed. */
int save_one(struct cfnl *nl, const char *name, FILE *out);

/*
 * A filter being built to replace another is named TMP_PREFIX, cfctl's
 * PID namespace and PID, and a number: a name no user can mistake for
 * theirs (replace.c).
 */
#define TMP_PREFIX	".cfctl-"
bool is_tmp_name(const char *name);
void tmp_name(char name[NF_CUCKOO_NAME_MAXLEN], unsigned int n);
/* Destroy the temporary filters of cfctl processes of this PID namespace
 * that were killed before they could (each named on stderr). */
void tmp_sweep(struct cfnl *nl);
/* A filter's create parameters, as GET describes it (no image). */
void spec_from_info(const struct filter_info *fi, struct filter_spec *fs);
/* SWAP of filters a and b: 0 or -errno (printed). */
int swap_filters(struct cfnl *nl, const char *a, const char *b);
/* Swap tmp in for name and destroy the old one; on failure name is as
 * it was and tmp is destroyed.  EXIT_*, the error printed. */
int replace_commit(struct cfnl *nl, const char *name, const char *tmp);
/* Destroy a filter, a missing one being fine: 0 or -errno (printed). */
int destroy_quietly(struct cfnl *nl, const char *name);
/* A filter's save image, held in memory: fetched from one backend (the
 * offline one), loaded into another as filter as, its settings kept. */
struct save_img;
struct save_img *save_fetch(struct cfnl *nl, const char *name);
int save_img_load(struct cfnl *nl, const struct save_img *img, const char *as);
void save_img_free(struct save_img *img);

/* Returns how the kernel error maps to an exit status. */
static inline int exit_for(int err)
{
	return err ? EXIT_FAIL : EXIT_OK;
}

#endif /* CFCTL_VERBS_H */
