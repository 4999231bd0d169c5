// SPDX-License-Identifier: GPL-2.0
/*
 * Run kfunc_test.bpf.o's XDP or tc program on packets with
 * BPF_PROG_TEST_RUN, filter ID in its cfg map:
 *
 *   kfunc_test OBJ xdp|tc ID PROTO SRC:SPORT DST:DPORT [PROTO SRC DST]...
 *
 * PROTO udp or tcp, addresses IPv4 or IPv6 ([addr]:port).  Prints, a line
 * a packet, the program's return value and the kfunc's answer ("retval 1
 * kfunc 1"), or why it could not (status 1; 2 for a bad command line).
 * KFUNC_TEST_HOLD=SECONDS keeps the program loaded that long after.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

/* "1.2.3.4:5" or "[::1]:5": address and port, network order. */
static int endpoint(const char *s, int *family, void *addr, __be16 *port)
{
	char buf[128];
	const char *colon = strrchr(s, ':');
	size_t n;

	if (!colon || (n = colon - s) >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*port = htons((unsigned short)atoi(colon + 1));
	if (buf[0] == '[' && n > 2 && buf[n - 1] == ']') {
		buf[n - 1] = '\0';
		*family = AF_INET6;
		return inet_pton(AF_INET6, buf + 1, addr) == 1 ? 0 : -1;
	}
	*family = AF_INET;
	return inet_pton(AF_INET, buf, addr) == 1 ? 0 : -1;
}

/* An Ethernet frame of PROTO from SRC to DST, 16 bytes of payload. */
static size_t packet(unsigned char *p, int proto, const char *src,
		     const char *dst)
{
	unsigned char sa[16], da[16];
	int fs, fd;
	__be16 sp, dp;
	struct ethhdr *eth = (void *)p;
	size_t l4len = (proto == IPPROTO_TCP ? sizeof(struct tcphdr) :
			sizeof(struct udphdr)) + 16;
	unsigned char *l4;

	if (endpoint(src, &fs, sa, &sp) || endpoint(dst, &fd, da, &dp) ||
	    fs != fd)
		return 0;
	memset(p, 0, 256);
	memcpy(eth->h_dest, "\x02\0\0\0\0\x02", ETH_ALEN);
	memcpy(eth->h_source, "\x02\0\0\0\0\x01", ETH_ALEN);
	if (fs == AF_INET) {
		struct iphdr *ip = (void *)(eth + 1);

		eth->h_proto = htons(ETH_P_IP);
		ip->version = 4;
		ip->ihl = 5;
		ip->ttl = 64;
		ip->protocol = proto;
		ip->tot_len = htons(sizeof(*ip) + l4len);
		memcpy(&ip->saddr, sa, 4);
		memcpy(&ip->daddr, da, 4);
		l4 = (void *)(ip + 1);
	} else {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		eth->h_proto = htons(ETH_P_IPV6);
		ip6->version = 6;
		ip6->hop_limit = 64;
		ip6->nexthdr = proto;
		ip6->payload_len = htons(l4len);
		memcpy(&ip6->saddr, sa, 16);
		memcpy(&ip6->daddr, da, 16);
		l4 = (void *)(ip6 + 1);
	}
	if (proto == IPPROTO_TCP) {
		struct tcphdr *t = (void *)l4;

		t->source = sp;
		t->dest = dp;
		t->doff = 5;
		t->syn = 1;
	} else {
		struct udphdr *u = (void *)l4;

		u->source = sp;
		u->dest = dp;
		u->len = htons(l4len);
	}
	return l4 + l4len - p;
}

/* Run @prog on the packet PROTO SRC DST of @arg; print its answers. */
static int run(int prog, int res, char **arg)
{
	unsigned char pkt[256], out[256];
	int proto = strcmp(arg[0], "udp") ? IPPROTO_TCP : IPPROTO_UDP;
	__u32 zero = 0;
	__s32 kret = 0;
	size_t len;
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	len = packet(pkt, proto, arg[1], arg[2]);
	if (!len) {
		fprintf(stderr, "kfunc_test: bad addresses %s %s\n", arg[1], arg[2]);
		return 2;
	}
	bpf_map_update_elem(res, &zero, &kret, BPF_ANY);
	opts.data_in = pkt;
	opts.data_size_in = len;
	opts.data_out = out;
	opts.data_size_out = sizeof(out);
	if (bpf_prog_test_run_opts(prog, &opts)) {
		fprintf(stderr, "kfunc_test: BPF_PROG_TEST_RUN: %s\n", strerror(errno));
		return 1;
	}
	bpf_map_lookup_elem(res, &zero, &kret);
	printf("retval %u kfunc %d\n", opts.retval, kret);
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	int i, err, cfg, res;
	__u32 zero = 0, id;

	if (argc < 7 || (argc - 4) % 3 ||
	    (strcmp(argv[2], "xdp") && strcmp(argv[2], "tc"))) {
		fprintf(stderr, "usage: kfunc_test OBJ xdp|tc ID udp|tcp SRC:SPORT DST:DPORT [udp|tcp SRC DST]...\n");
		return 2;
	}
	for (i = 4; i < argc; i += 3) {
		if (strcmp(argv[i], "udp") && strcmp(argv[i], "tcp")) {
			fprintf(stderr, "kfunc_test: %s: udp or tcp\n", argv[i]);
			return 2;
		}
	}
	id = strtoul(argv[3], NULL, 0);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "kfunc_test: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "kfunc_test: cannot load %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	prog = bpf_object__find_program_by_name(obj, strcmp(argv[2], "xdp") ? "tc_test" : "xdp_test");
	cfg = bpf_object__find_map_fd_by_name(obj, "cfg");
	res = bpf_object__find_map_fd_by_name(obj, "result");
	if (!prog || cfg < 0 || res < 0 || bpf_map_update_elem(cfg, &zero, &id, BPF_ANY)) {
		fprintf(stderr, "kfunc_test: %s lacks its program or maps\n", argv[1]);
		return 1;
	}
	for (i = 4; i < argc; i += 3) {
		err = run(bpf_program__fd(prog), res, argv + i);
		if (err)
			return err;
	}
	/* KFUNC_TEST_HOLD=SECONDS: keep the program loaded that long. */
	if (getenv("KFUNC_TEST_HOLD")) {
		fflush(stdout);
		sleep(atoi(getenv("KFUNC_TEST_HOLD")));
	}
	bpf_object__close(obj);
	return 0;
}
