// SPDX-License-Identifier: GPL-2.0
/*
 * The end-to-end benchmark's sender (xdpbench --send, for e2e.sh): run by
 * BPF_PROG_RUN in live-frame mode, it turns each frame into the next of
 * the flows' frames and redirects it to a veth, whose peer receives it
 * as a driver's XDP frame: before any skb exists, as from a NIC.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xb_send.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct xb_frame);
	__uint(max_entries, 1);		/* set by xdpbench */
} xb_frames SEC(".maps");

/* Set by xdpbench before the load. */
volatile const struct xb_send_cfg cfg;

/* The next flow; one CPU sends, so no atomics. */
__u32 xb_next;

SEC("xdp")
int xb_send(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u32 k = xb_next;
	struct xb_frame *fr;

	xb_next = k + 1 < cfg.flows ? k + 1 : 0;
	fr = bpf_map_lookup_elem(&xb_frames, &k);
	if (!fr)
		return XDP_ABORTED;
	/* Two constant sizes: the frames of one family are all one length. */
	if (cfg.len == XB_FRAME_LEN4) {
		if (data + XB_FRAME_LEN4 > end)
			return XDP_ABORTED;
		__builtin_memcpy(data, fr->b, XB_FRAME_LEN4);
	} else {
		if (data + XB_FRAME_LEN6 > end)
			return XDP_ABORTED;
		__builtin_memcpy(data, fr->b, XB_FRAME_LEN6);
	}
	return bpf_redirect(cfg.ifindex, 0);
}

char LICENSE[] SEC("license") = "GPL";
