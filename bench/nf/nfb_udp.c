// SPDX-License-Identifier: GPL-2.0
/*
 * nfb_udp: the packet test of the nftables/ipset comparison (bench/nf).
 *
 *   nfb_udp -m DSTMAC -a SRC -b DST -p DPORT -P SPORT0 -n FLOWS -M MATCH
 *           [-s SLICE_MS] [-r ROUNDS] [-w WARM_MS] [-i IF] [-T TRACEFS]
 *           NAME=NETNS_A,NETNS_B ...
 *
 * For each contender NAME, an AF_PACKET socket in network namespace
 * NETNS_A (a path, /run/netns/...) sending out of IF (va), and a UDP
 * socket bound to DPORT in NETNS_B; one process holds them all, so the
 * contenders take turns in short slices and a change in the host's load
 * falls on all of them alike.
 *
 * ROUNDS rounds (10), after one of warm-up (WARM_MS each, 300): in each,
 * every contender in turn (the order rotates from round to round) gets a
 * slice of SLICE_MS (500) of sending as fast as it goes from CPU 0: 60-byte
 * frames, IPv4 UDP, 18 bytes of payload, no UDP checksum, sendmmsg() 64 at
 * a time, cycling through the FLOWS flows SRC:SPORT0+2k -> DST:DPORT.  A
 * thread on CPU 1 receives on every UDP socket (epoll, recvmmsg) and
 * counts.  After a slice the receiver is waited for (all sent packets in,
 * or its socket empty and 200 ms without one), then /proc/stat is read:
 * the busy and softirq ticks of the whole VM from just before the slice to
 * then.  Over a veth pair the receiving namespace's whole stack, netfilter
 * hooks included, runs in the softirq of the sending CPU.
 *
 * With -T, tracing (TRACEFS/tracing_on) is on during each slice, and the
 * durations the function_graph tracer recorded for ip_rcv() (the caller
 * sets the tracer and the filter) give the median time per packet of b's
 * IPv4 receive path: the prerouting hook with the filter in it, routing,
 * the input hook and the delivery to the socket.  A median of thousands
 * of calls of a few microseconds is left alone by the host's scheduler,
 * which stretches a few calls, where /proc/stat's ticks are not.
 *
 * Prints a line "NFB-JSON {...}" per contender and round (round 0 is the
 * warm-up): sent, received, seconds of sending, ticks, ip_rcv() median.
 * MATCH is only copied into them.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#define BATCH		64
#define FRAME_LEN	60	/* 14 + 20 + 8 + 18: the minimum frame */
#define MAX_C		16

struct contender {
	const char *name;
	int tx, rx;
	struct sockaddr_ll sll;
	uint8_t smac[ETH_ALEN];
	uint8_t *frames;
	unsigned long long received;	/* by the receiver thread */
};

static struct contender cs[MAX_C];
static int ncs;
static volatile int stop;
static const char *tracefs;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: nfb_udp -m DSTMAC -a SRC -b DST -p DPORT -P SPORT0 -n FLOWS -M MATCH\n"
		"               [-s SLICE_MS] [-r ROUNDS] [-w WARM_MS] [-i IF] [-T TRACEFS]\n"
		"               NAME=NETNS_A,NETNS_B ...\n");
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);	/* best effort */
}

static void enter(const char *netns)
{
	int fd = open(netns, O_RDONLY);

	if (fd < 0 || setns(fd, CLONE_NEWNET))
		die(netns);
	close(fd);
}

/* "BUSY SOFTIRQ" ticks of all CPUs, from /proc/stat's first line. */
static void cpustat(unsigned long long *busy, unsigned long long *sirq)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	if (!f || fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
			 &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
		die("/proc/stat");
	fclose(f);
	*busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];	/* not idle, iowait */
	*sirq = v[6];
}

static void tr_write(const char *file, const char *val)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tracefs, file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		die(path);
	close(fd);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The median of the durations of ip_rcv() in the trace, in ns, and how
 * many there were; lines look like " 0) + 12.345 us   |  ip_rcv();".
 */
static double tr_median(unsigned long *n)
{
	static double *d;
	static size_t cap;
	char path[4096], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", tracefs);
	f = fopen(path, "r");
	if (!f)
		die(path);
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ')'), *end;
		double us;

		if (!p || !strstr(p, "ip_rcv();"))
			continue;
		p += strspn(p + 1, " +!#*@$") + 1;
		us = strtod(p, &end);
		if (end == p || strncmp(end, " us", 3))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 65536;
			d = realloc(d, cap * sizeof(*d));
			if (!d)
				die("realloc");
		}
		d[(*n)++] = us * 1000;
	}
	fclose(f);
	if (!*n)
		return 0;
	qsort(d, *n, sizeof(*d), cmp_double);
	return *n % 2 ? d[*n / 2] : (d[*n / 2 - 1] + d[*n / 2]) / 2;
}

static uint16_t ip_csum(const void *p, size_t len)
{
	const uint16_t *w = p;
	uint32_t sum = 0;

	for (; len > 1; len -= 2)
		sum += *w++;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

static void build_frame(uint8_t *fr, const uint8_t *smac, const uint8_t *dmac,
			struct in_addr src, struct in_addr dst,
			unsigned int sport, unsigned int dport)
{
	struct ethhdr *eth = (struct ethhdr *)fr;
	struct iphdr *iph = (struct iphdr *)(fr + sizeof(*eth));
	struct udphdr *udp = (struct udphdr *)(iph + 1);
	size_t l4 = FRAME_LEN - sizeof(*eth) - sizeof(*iph);

	memset(fr, 0, FRAME_LEN);
	memcpy(eth->h_dest, dmac, ETH_ALEN);
	memcpy(eth->h_source, smac, ETH_ALEN);
	eth->h_proto = htons(ETH_P_IP);
	iph->version = 4;
	iph->ihl = 5;
	iph->tot_len = htons(FRAME_LEN - sizeof(*eth));
	iph->frag_off = htons(IP_DF);
	iph->ttl = 64;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = src.s_addr;
	iph->daddr = dst.s_addr;
	iph->check = ip_csum(iph, sizeof(*iph));
	udp->source = htons(sport);
	udp->dest = htons(dport);
	udp->len = htons(l4);
	memcpy(udp + 1, "nf_cuckoo bench nf", l4 - sizeof(*udp));
}

/* The contender's two sockets, each made in its own namespace. */
static void open_contender(struct contender *c, const char *nsa, const char *nsb,
			   const char *ifname, unsigned int dport)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(dport) };
	int rcvbuf = 64 << 20, bypass = 1;
	struct ifreq ifr;

	enter(nsa);
	c->tx = socket(AF_PACKET, SOCK_RAW, 0);	/* protocol 0: sends only */
	if (c->tx < 0)
		die("socket(AF_PACKET)");
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(c->tx, SIOCGIFHWADDR, &ifr))
		die(ifname);
	memcpy(c->smac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	c->sll.sll_family = AF_PACKET;
	c->sll.sll_protocol = htons(ETH_P_IP);
	c->sll.sll_ifindex = if_nametoindex(ifname);
	if (!c->sll.sll_ifindex)
		die(ifname);
	setsockopt(c->tx, SOL_PACKET, PACKET_QDISC_BYPASS, &bypass, sizeof(bypass));

	enter(nsb);
	c->rx = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (c->rx < 0)
		die("socket");
	if (setsockopt(c->rx, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(c->rx, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(c->rx, (struct sockaddr *)&sin, sizeof(sin)))
		die("bind");
}

static void *receiver(void *arg)
{
	static char bufs[BATCH][256];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct epoll_event ev[MAX_C];
	int ep = *(int *)arg, i, n;

	pin(1);
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = sizeof(bufs[i]);
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	while (!stop) {
		n = epoll_wait(ep, ev, MAX_C, 20);
		for (i = 0; i < n; i++) {
			struct contender *c = ev[i].data.ptr;
			int r;

			while ((r = recvmmsg(c->rx, msgs, BATCH, MSG_DONTWAIT, NULL)) > 0)
				__atomic_add_fetch(&c->received, r, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

/* One slice of sending for contender c; its figures as a JSON line. */
static void slice(struct contender *c, unsigned long nflows, double secs,
		  int match, int round)
{
	unsigned long long sent = 0, rx0, rx, b0, q0, b1, q1;
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	double t0, t1, last, rcv_ns = 0;
	unsigned long next = 0, rcv_n = 0;
	int i, queued;

	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < BATCH; i++) {
		iov[i].iov_len = FRAME_LEN;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_name = &c->sll;
		msgs[i].msg_hdr.msg_namelen = sizeof(c->sll);
	}
	if (tracefs) {
		tr_write("trace", "");
		tr_write("tracing_on", "1");
	}
	rx0 = __atomic_load_n(&c->received, __ATOMIC_RELAXED);
	cpustat(&b0, &q0);
	t0 = now();
	do {
		int r;

		for (i = 0; i < BATCH; i++) {
			iov[i].iov_base = c->frames + next * FRAME_LEN;
			next = next + 1 == nflows ? 0 : next + 1;
		}
		r = sendmmsg(c->tx, msgs, BATCH, 0);
		if (r < 0 && errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
			die("sendmmsg");
		if (r > 0)
			sent += r;
		t1 = now();
	} while (t1 - t0 < secs);

	/*
	 * Until the receiver has them all, or its socket is empty and it has
	 * had none for 200 ms (a drop filter drops its false positives).
	 */
	rx = __atomic_load_n(&c->received, __ATOMIC_RELAXED);
	for (last = now(); rx - rx0 < sent;) {
		unsigned long long r;

		usleep(2000);
		r = __atomic_load_n(&c->received, __ATOMIC_RELAXED);
		if (r != rx) {
			rx = r;
			last = now();
		} else if (now() - last > 0.2 &&
			   !ioctl(c->rx, FIONREAD, &queued) && !queued) {
			break;
		}
	}
	cpustat(&b1, &q1);
	if (tracefs) {
		tr_write("tracing_on", "0");
		rcv_ns = tr_median(&rcv_n);
	}
	printf("NFB-JSON {\"type\":\"pkt\",\"contender\":\"%s\",\"match\":%d,\"rep\":%d,"
	       "\"secs\":%.6f,\"sent\":%llu,\"received\":%llu,\"busy_ticks\":%llu,"
	       "\"softirq_ticks\":%llu,\"hz\":%ld,\"traffic_flows\":%lu,"
	       "\"rcv_ns\":%.0f,\"rcv_samples\":%lu}\n",
	       c->name, match, round, t1 - t0, sent, rx - rx0, b1 - b0, q1 - q0,
	       sysconf(_SC_CLK_TCK), nflows, rcv_ns, rcv_n);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *ifname = "va";
	uint8_t dmac[ETH_ALEN];
	struct in_addr src = { 0 }, dst = { 0 };
	unsigned long dport = 0, sport0 = 0, nflows = 0, slice_ms = 500, warm_ms = 300;
	int c, i, r, rounds = 10, match = -1, have_mac = 0, ep;
	pthread_t thr;

	while ((c = getopt(argc, argv, "m:a:b:p:P:n:M:s:r:w:i:T:")) != -1) {
		switch (c) {
		case 'm':
			have_mac = sscanf(optarg, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx",
					  &dmac[0], &dmac[1], &dmac[2], &dmac[3],
					  &dmac[4], &dmac[5]) == 6;
			break;
		case 'a': if (inet_pton(AF_INET, optarg, &src) != 1) usage(); break;
		case 'b': if (inet_pton(AF_INET, optarg, &dst) != 1) usage(); break;
		case 'p': dport = strtoul(optarg, NULL, 0); break;
		case 'P': sport0 = strtoul(optarg, NULL, 0); break;
		case 'n': nflows = strtoul(optarg, NULL, 0); break;
		case 'M': match = atoi(optarg); break;
		case 's': slice_ms = strtoul(optarg, NULL, 0); break;
		case 'r': rounds = atoi(optarg); break;
		case 'w': warm_ms = strtoul(optarg, NULL, 0); break;
		case 'i': ifname = optarg; break;
		case 'T': tracefs = optarg; break;
		default: usage();
		}
	}
	if (!have_mac || !src.s_addr || !dst.s_addr || !dport || dport > 65535 ||
	    !sport0 || !nflows || sport0 + 2 * nflows > 65537 || match < 0 ||
	    !slice_ms || rounds < 1 || optind == argc || argc - optind > MAX_C)
		usage();

	ep = epoll_create1(0);
	if (ep < 0)
		die("epoll_create1");
	for (; optind < argc; optind++) {
		struct contender *ct = &cs[ncs++];
		char *eq = strchr(argv[optind], '='), *comma;
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = ct };
		unsigned long k;

		comma = eq ? strchr(eq, ',') : NULL;
		if (!comma)
			usage();
		*eq = *comma = 0;
		ct->name = argv[optind];
		open_contender(ct, eq + 1, comma + 1, ifname, dport);
		if (epoll_ctl(ep, EPOLL_CTL_ADD, ct->rx, &ev))
			die("epoll_ctl");
		ct->frames = malloc(nflows * FRAME_LEN);
		if (!ct->frames)
			die("malloc");
		for (k = 0; k < nflows; k++)
			build_frame(ct->frames + k * FRAME_LEN, ct->smac, dmac,
				    src, dst, sport0 + 2 * k, dport);
	}
	if (pthread_create(&thr, NULL, receiver, &ep))
		die("pthread_create");
	pin(0);
	for (r = 0; r <= rounds; r++)
		for (i = 0; i < ncs; i++)
			slice(&cs[(i + r) % ncs], nflows,
			      (r ? slice_ms : warm_ms) / 1000.0, match, r);
	stop = 1;
	pthread_join(thr, NULL);
	return 0;
}
