/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfctl: the module run in this process (fake_nl.c), a backend of nl.h in
 * place of the kernel's socket.  It keeps its filters in memory for the
 * life of the process (and, for the tests, in $CFCTL_FAKE_STATE between
 * runs of cfctl_fake).
 */
#ifndef CFCTL_FAKE_NL_H
#define CFCTL_FAKE_NL_H

#include <stddef.h>
#include <stdint.h>

struct cfnl_backend;

/* The tests' kernel: cfctl_fake, the fuzz targets ($CFCTL_FAKE_STATE,
 * $CFCTL_FAKE_FAIL_AT, fake_mem_max). */
extern const struct cfnl_backend fake_nl_backend;
/* `cfctl build`: the module and nothing else (no environment, a random
 * seed when none is given, no memory ceiling). */
extern const struct cfnl_backend fake_offline_backend;

/* Largest filter (bytes) NEW and LOAD_BEGIN accept; -EDQUOT above. */
extern uint64_t fake_mem_max;

/* Forget every filter and pending reply (the fuzz targets, between runs). */
void fake_reset(void);

/* Filters there are, loading ones included. */
size_t fake_count(void);

/* Items of filter name, -1 if there is none. */
int64_t fake_items(const char *name);

#endif /* CFCTL_FAKE_NL_H */
