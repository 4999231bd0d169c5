// SPDX-License-Identifier: GPL-2.0
/*
 * The end-to-end benchmark's floor (e2e.sh): drop every frame unread, so
 * that what a drop costs beyond the sender and the device shows.
 */
#include <linux/bpf.h>

#define SEC(name) __attribute__((section(name), used))

SEC("xdp")
int xb_drop(struct xdp_md *ctx)
{
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
