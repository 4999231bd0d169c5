/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfctl: the verbs, and what they share.
 */
#ifndef CFCTL_VERBS_H
#define CFCTL_VERBS_H

#include "info.h"
#include "ops.h"

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

/* Returns how the kernel error maps to an exit status. */
static inline int exit_for(int err)
{
	return err ? EXIT_FAIL : EXIT_OK;
}

#endif /* CFCTL_VERBS_H */
