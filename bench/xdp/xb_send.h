/* SPDX-License-Identifier: GPL-2.0 */
/* What xdpbench --send and send.bpf.c share. */
#ifndef XB_SEND_H
#define XB_SEND_H

#include <linux/types.h>

/* A flow's frame: Ethernet, IPv4 or IPv6, UDP and 18 bytes of payload. */
#define XB_FRAME_LEN4	60
#define XB_FRAME_LEN6	80

struct xb_frame {
	__u8 b[XB_FRAME_LEN6];
};

struct xb_send_cfg {
	__u32 ifindex;		/* the device the frames are redirected to */
	__u32 flows;		/* frames in xb_frames, sent in turn */
	__u32 len;		/* XB_FRAME_LEN4 or XB_FRAME_LEN6 */
};

#endif
