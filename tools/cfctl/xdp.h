/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfctl xdp and cfctl tc (xdp.c): the program users get, attached to a
 * device at XDP or at tc.
 */
#ifndef CFCTL_XDP_H
#define CFCTL_XDP_H

int cmd_xdp(int argc, char **argv);
int cmd_tc(int argc, char **argv);

#endif
