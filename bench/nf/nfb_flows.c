// SPDX-License-Identifier: GPL-2.0
/*
 * nfb_flows: the flows of the nftables/ipset comparison (bench/nf), the
 * same ones for every contender, as each tool's bulk-load input.
 *
 *   nfb_flows -n N -t T -a SRC -b DST -p DPORT -P SPORT0 [-s SEED] -o DIR
 *
 * N distinct IPv4 UDP 5-tuples.  The last T are the flows the matching
 * traffic of the packet test uses: SRC:SPORT0+2k -> DST:DPORT, k < T (the
 * non-matching traffic uses the odd ports in between, which no file
 * holds).  The others are random: addresses outside 0/8, 10/8, 127/8 and
 * 224/3, ports 1-65535, distinct even on (source, source port,
 * destination), the key of the ipset (hash:ip,port,ip holds one port).
 * The same SEED gives the same flows.
 *
 * Writes DIR/cf.txt (`cfctl restore` lines: add nfb udp S:SP D:DP),
 * DIR/nft.txt (`nft -f`: add element ip nfb flows { S . 17 . SP . D . DP,
 * ... }, 1000 a line) and DIR/ipset.txt (`ipset restore`: add nfb
 * S,17:SP,D).  The protocol is a number for nft and ipset: ipset restore
 * looks a name up with getprotobyname() on every line, which reads
 * /etc/protocols each time (6 ms a line over the VM's 9p root).
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#define NFT_PER_LINE 1000

static uint64_t rng_state;

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t rand_addr(void)
{
	for (;;) {
		uint32_t a = (uint32_t)splitmix64(&rng_state);
		uint8_t top = a >> 24;

		if (top != 0 && top != 10 && top != 127 && top < 224)
			return a;
	}
}

struct flow {
	uint32_t src, dst;	/* host order */
	uint16_t sport, dport;
};

/* Open addressing on a hash of (src, sport, dst): refuses duplicates. */
static uint64_t *seen;
static size_t seen_mask;

static int seen_add(const struct flow *f)
{
	uint64_t s = ((uint64_t)f->src << 32 | f->dst) ^ ((uint64_t)f->sport << 17);
	uint64_t h = splitmix64(&s) | 1;	/* 0 marks an empty slot */
	size_t i = h & seen_mask;

	while (seen[i]) {
		if (seen[i] == h)
			return 0;
		i = (i + 1) & seen_mask;
	}
	seen[i] = h;
	return 1;
}

static FILE *open_out(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	return f;
}

static void close_out(FILE *f)
{
	if (ferror(f) || fclose(f)) {
		perror("nfb_flows: write");
		exit(1);
	}
}

static const char *ip(uint32_t a, char *buf)
{
	uint32_t n = htonl(a);

	return inet_ntop(AF_INET, &n, buf, INET_ADDRSTRLEN);
}

static void usage(void)
{
	fprintf(stderr, "usage: nfb_flows -n N -t T -a SRC -b DST -p DPORT -P SPORT0 [-s SEED] -o DIR\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long n = 0, t = 0, sport0 = 0, dport = 0, i;
	uint64_t seed = 1;
	struct in_addr src = { 0 }, dst = { 0 };
	const char *dir = NULL;
	FILE *cf, *nft, *ips;
	size_t size;
	int c;

	while ((c = getopt(argc, argv, "n:t:a:b:p:P:s:o:")) != -1) {
		switch (c) {
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 't': t = strtoul(optarg, NULL, 0); break;
		case 'a': if (inet_pton(AF_INET, optarg, &src) != 1) usage(); break;
		case 'b': if (inet_pton(AF_INET, optarg, &dst) != 1) usage(); break;
		case 'p': dport = strtoul(optarg, NULL, 0); break;
		case 'P': sport0 = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'o': dir = optarg; break;
		default: usage();
		}
	}
	if (!dir || !n || t > n || !src.s_addr || !dst.s_addr || !dport ||
	    dport > 65535 || !sport0 || sport0 + 2 * t > 65535)
		usage();

	for (size = 1024; size < 2 * n; size *= 2)
		;
	seen = calloc(size, sizeof(*seen));
	if (!seen) {
		perror("calloc");
		return 1;
	}
	seen_mask = size - 1;
	rng_state = seed;

	cf = open_out(dir, "cf.txt");
	nft = open_out(dir, "nft.txt");
	ips = open_out(dir, "ipset.txt");
	for (i = 0; i < n; i++) {
		char s[INET_ADDRSTRLEN], d[INET_ADDRSTRLEN];
		struct flow f;

		if (i >= n - t) {
			f.src = ntohl(src.s_addr);
			f.dst = ntohl(dst.s_addr);
			f.sport = sport0 + 2 * (i - (n - t));
			f.dport = dport;
		} else {
			do {
				f.src = rand_addr();
				f.dst = rand_addr();
				f.sport = 1 + splitmix64(&rng_state) % 65535;
				f.dport = 1 + splitmix64(&rng_state) % 65535;
			} while (!seen_add(&f));
		}
		ip(f.src, s);
		ip(f.dst, d);
		fprintf(cf, "add nfb udp %s:%u %s:%u\n", s, f.sport, d, f.dport);
		fprintf(ips, "add nfb %s,%u:%u,%s\n", s, IPPROTO_UDP, f.sport, d);
		fprintf(nft, "%s%s . %u . %u . %s . %u%s",
			i % NFT_PER_LINE ? "" : "add element ip nfb flows { ",
			s, IPPROTO_UDP, f.sport, d, f.dport,
			i % NFT_PER_LINE == NFT_PER_LINE - 1 || i == n - 1 ?
			" }\n" : ", ");
	}
	close_out(cf);
	close_out(nft);
	close_out(ips);
	free(seen);
	return 0;
}
