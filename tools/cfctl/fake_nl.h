/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfctl tests: the fake netlink socket layer (fake_nl.c), in place of
 * nl_sock.c.  It keeps its filters in memory for the life of the process
 * (and in $CFCTL_FAKE_STATE between runs of cfctl_fake).
 */
#ifndef CFCTL_FAKE_NL_H
#define CFCTL_FAKE_NL_H

#include <stdint.h>

/* Largest filter (bytes) NEW and LOAD_BEGIN accept; -EDQUOT above. */
extern uint64_t fake_mem_max;

/* Forget every filter and pending reply (the fuzz targets, between runs). */
void fake_reset(void);

/* Filters there are, loading ones included. */
size_t fake_count(void);

/* Items of filter name, -1 if there is none. */
int64_t fake_items(const char *name);

#endif /* CFCTL_FAKE_NL_H */
