// SPDX-License-Identifier: GPL-2.0
/*
 * bench/xdp's loader (run by bench/xdp/in_vm.sh, as root in the VM):
 * loads nf_cuckoo's XDP program (tools/cfctl/nf_cuckoo.bpf.o) for two
 * filters cfctl has made and filled, the peers of peers.bpf.o over a
 * hash and a Bloom filter map it makes and fills itself, and optionally
 * xdp-filter's program (by id: libxdp's dispatcher as xdp-filter load
 * attached it), then times each with BPF_PROG_TEST_RUN.
 *
 *   xdpbench --flows N --id4 ID --id6 ID [--obj OBJ] [--peers PEERS.o]
 *            [--families "4 6"] [--repeat R] [--rounds K] [--loads L]
 *            [--samples S] [--xf-prog ID --xf-map4 PIN --xf-map6 PIN]
 *   xdpbench --send DEV --dst-mac MAC --flows N --families F [--obj SEND.o]
 *            [--hold DEV2]
 *
 * Flows are bench/hook's (nfcf_hookbench.c): flow k (k < 2^24) is UDP
 * from 11.0.0.0 + k or 2001:db8:1::k (the last 32 bits), source port
 * 1024 + k % 60000, to 10.0.0.2 or 2001:db8::2 port 9000; the loaded
 * flows are k < N, the unlisted ones N + j.  A packet is a 60-byte
 * (IPv4) or 80-byte (IPv6) Ethernet frame of one flow.
 *
 * Output, one JSON line "XB-JSON {...}" per record:
 *   load     a map made and filled (contender hash or bloom, or xdp-filter
 *            for its maps filled beside what xdp-filter ip wrote): the
 *            seconds of creation and fill, the memory the memory cgroup
 *            of this process gained ("cg_bytes": the kernel's accounting
 *            of the map's allocations; -1 if not in a cgroup with
 *            memory.current), fdinfo's "memlock" (on 6.1 an estimate of
 *            key + value per entry, not the real size), and for a Bloom
 *            filter its hash count and bits.
 *   verdict  per contender and family: S listed packets (spread over the
 *            flows held) and S unlisted, run once each; how many were
 *            dropped.  For nf_cuckoo and Bloom, unlisted drops are false
 *            positives.
 *   run      one BPF_PROG_TEST_RUN of R repeats of one packet: the
 *            kernel's average time per run (ns) and the verdict.  K
 *            rounds; in each, for each family and mix (0: an unlisted
 *            packet, 100: a listed one, a different flow every round),
 *            every contender, in an order rotating from round to round.
 * Contenders: parse (the parser alone, the baseline), cuckoo (the
 * shipped program), cuckoo-peer (peers.bpf.o's copy of its parser and
 * the kfunc), hash, bloom, xdpfilter.  Progress on stderr as "# ...".
 *
 * --send: e2e.sh's sender.  The frames of flows 0..N-1 of family F (to
 * MAC), sent in turn to veth DEV as XDP frames (send.bpf.o run by
 * BPF_PROG_RUN in live-frame mode, on this CPU) until SIGTERM or SIGINT;
 * after every batch, "XB-SENT n": the frames sent so far.  --hold: the
 * sender's program is attached to DEV2 (generic mode) while it sends, so
 * that the kernel's XDP dispatcher holds it throughout: each BPF_PROG_RUN
 * adds its program to the dispatcher and takes it out again, which
 * otherwise rewrites the dispatcher's code twice a batch, under a CPU
 * that may be running it to receive the frames (e2e.sh says why that
 * matters under QEMU).  It is detached a moment after the last batch.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "../../uapi/linux/nf_cuckoo.h"
#include "xb_key.h"
#include "xb_send.h"
#include "../../tools/cfctl/bpf/nf_cuckoo_prog.h"

/* The false-positive bound of nf_cuckoo f = 12, b = 4: 2b / 2^f. */
#define XB_FPR_TARGET	(2.0 * 4 / 4096)

enum { C_PARSE, C_CUCKOO, C_CPEER, C_HASH, C_BLOOM, C_XF, C_MAX };
static const char *const cname[C_MAX] = {
	"parse", "cuckoo", "cuckoo-peer", "hash", "bloom", "xdpfilter",
};

static unsigned int nflows = 20000, repeat = 1000000, rounds = 5;
static unsigned int loads = 1, samples = 1000;
static int prog[C_MAX][2];	/* [contender][family 4: 0, 6: 1], fd or -1 */
static unsigned int held[C_MAX];	/* flows a contender holds */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "xdpbench: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

/* This process's memory cgroup's memory.current, or -1. */
static long long cg_current(void)
{
	char line[512], path[700];
	long long v = -1;
	FILE *f = fopen("/proc/self/cgroup", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.current",
			 line + 3);
		break;
	}
	fclose(f);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* fdinfo's memlock of map fd. */
static long long memlock(int fd)
{
	char path[64], line[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* ---- flows and packets ---- */

static void flow_key(unsigned int fam, unsigned int k, void *out)
{
	__u16 sport = htons(1024 + k % 60000), dport = htons(9000);

	if (fam == 4) {
		struct xb_key4 *p = out;

		p->src = htonl(0x0b000000u + k);
		p->dst = htonl(0x0a000002u);
		p->sport = sport;
		p->dport = dport;
		p->proto = 17;
	} else {
		struct xb_key6 *p = out;

		memset(p, 0, sizeof(*p));
		p->src[0] = htonl(0x20010db8);
		p->src[1] = htonl(0x00010000);
		p->src[3] = htonl(k);
		p->dst[0] = htonl(0x20010db8);
		p->dst[3] = htonl(2);
		p->sport = sport;
		p->dport = dport;
		p->proto = 17;
	}
}

/* The Internet checksum of b, added to the 32-bit partial sum s. */
static __u16 csum_add(__u32 s, const void *b, size_t len)
{
	const __u8 *p = b;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (__u32)p[i] << 8 | p[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return htons((__u16)~s);
}

static __u16 csum(const void *b, size_t len)
{
	return csum_add(0, b, len);
}

/* The destination of every frame (--dst-mac): xer's, for e2e.sh. */
static __u8 dst_mac[6] = { 2, 0, 0, 0, 0, 1 };

/* Flow k's frame into pkt; its length. */
static size_t flow_pkt(unsigned int fam, unsigned int k, __u8 *pkt)
{
	static const __u8 src_mac[6] = { 2, 0, 0, 0, 0, 2 };
	__u8 *l3 = pkt + 14, *l4;
	size_t l3len = fam == 4 ? 20 : 40, udplen = 8 + 18;

	memset(pkt, 0, 14 + l3len + udplen);
	memcpy(pkt, dst_mac, 6);
	memcpy(pkt + 6, src_mac, 6);
	pkt[12] = fam == 4 ? 0x08 : 0x86;
	pkt[13] = fam == 4 ? 0x00 : 0xdd;
	if (fam == 4) {
		struct xb_key4 key;
		__u16 c;

		flow_key(4, k, &key);
		l3[0] = 0x45;
		l3[2] = (__u8)((20 + udplen) >> 8);
		l3[3] = (__u8)(20 + udplen);
		l3[8] = 64;
		l3[9] = 17;
		memcpy(l3 + 12, &key.src, 4);
		memcpy(l3 + 16, &key.dst, 4);
		c = csum(l3, 20);
		memcpy(l3 + 10, &c, 2);
		l4 = l3 + 20;
		memcpy(l4, &key.sport, 2);
		memcpy(l4 + 2, &key.dport, 2);
	} else {
		struct xb_key6 key;

		flow_key(6, k, &key);
		l3[0] = 0x60;
		l3[4] = (__u8)(udplen >> 8);
		l3[5] = (__u8)udplen;
		l3[6] = 17;
		l3[7] = 64;
		memcpy(l3 + 8, key.src, 16);
		memcpy(l3 + 24, key.dst, 16);
		l4 = l3 + 40;
		memcpy(l4, &key.sport, 2);
		memcpy(l4 + 2, &key.dport, 2);
	}
	l4[4] = (__u8)(udplen >> 8);
	l4[5] = (__u8)udplen;
	if (fam == 6) {
		/*
		 * IPv6 forbids a zero UDP checksum: the pseudo-header's sum
		 * (addresses, length, next header) then the datagram's.
		 */
		__u32 ph = (__u32)udplen + 17;
		__u16 c;
		size_t i;

		for (i = 0; i < 32; i += 2)
			ph += (__u32)l3[8 + i] << 8 | l3[8 + i + 1];
		c = csum_add(ph, l4, udplen);
		memcpy(l4 + 6, &c, 2);
	}
	return 14 + l3len + udplen;
}

/* Run fd on flow k's packet rep times: the verdict, *ns the average. */
static int run(int fd, unsigned int fam, unsigned int k, unsigned int rep,
	       __u32 *ns)
{
	__u8 pkt[128], out[256];
	size_t len = flow_pkt(fam, k, pkt);
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = pkt,
		.data_size_in = (__u32)len,
		.data_out = out,
		.data_size_out = sizeof(out),
		.repeat = rep,
	);

	if (bpf_prog_test_run_opts(fd, &opts))
		return -errno;
	if (ns)
		*ns = opts.duration;
	return (int)opts.retval;
}

/* ---- the peers' maps ---- */

/* The kernel's bits for a Bloom filter of n entries, k hashes (6.1). */
static double bloom_bits(unsigned int n, unsigned int k)
{
	unsigned long long b = (unsigned long long)n * k / 5 * 7, p = 64;

	if (b > (1ULL << 31))
		return 4294967296.0;
	while (p < b)
		p <<= 1;
	return (double)p;
}

/* The fewest hashes whose expected false-positive rate meets the target. */
static unsigned int bloom_hashes(unsigned int n)
{
	unsigned int k;

	for (k = 1; k < 15; k++) {
		double m = bloom_bits(n, k);

		if (pow(1 - exp(-(double)k * n / m), k) <= XB_FPR_TARGET)
			return k;
	}
	return 15;
}

static void *keys_of(unsigned int fam, unsigned int n)
{
	size_t sz = fam == 4 ? sizeof(struct xb_key4) : sizeof(struct xb_key6);
	__u8 *keys = malloc(sz * n);
	unsigned int k;

	if (!keys)
		die("malloc", ENOMEM);
	for (k = 0; k < n; k++)
		flow_key(fam, k, keys + sz * k);
	return keys;
}

/* Make and fill the map of contender c (hash or bloom) for fam: its fd. */
static int make_map(int c, unsigned int fam, int rep)
{
	unsigned int ksz = fam == 4 ? sizeof(struct xb_key4) : sizeof(struct xb_key6);
	unsigned int hashes = 0, k;
	__u8 *keys = keys_of(fam, nflows), *vals = calloc(nflows, 1);
	long long cg0, cg1;
	double t0, t1;
	int fd, err;

	if (!vals)
		die("malloc", ENOMEM);
	cg0 = cg_current();
	t0 = now();
	if (c == C_HASH) {
		fd = bpf_map_create(BPF_MAP_TYPE_HASH, fam == 4 ? "xb_hash4" : "xb_hash6",
				    ksz, 1, nflows, NULL);
		if (fd < 0)
			die("create the hash map", errno);
		__u32 count = nflows;
		LIBBPF_OPTS(bpf_map_batch_opts, bo);
		err = bpf_map_update_batch(fd, keys, vals, &count, &bo);
		if (err || count != nflows)
			die("bpf_map_update_batch", err ? errno : EIO);
	} else {
		LIBBPF_OPTS(bpf_map_create_opts, mo);
		hashes = bloom_hashes(nflows);
		mo.map_extra = hashes;
		fd = bpf_map_create(BPF_MAP_TYPE_BLOOM_FILTER,
				    fam == 4 ? "xb_bloom4" : "xb_bloom6",
				    0, ksz, nflows, &mo);
		if (fd < 0)
			die("create the Bloom filter map", errno);
		for (k = 0; k < nflows; k++)
			if (bpf_map_update_elem(fd, NULL, keys + (size_t)ksz * k, BPF_ANY))
				die("fill the Bloom filter", errno);
	}
	t1 = now();
	cg1 = cg_current();
	printf("XB-JSON {\"type\":\"load\",\"contender\":\"%s\",\"family\":%u,"
	       "\"flows\":%u,\"rep\":%d,\"s\":%.4f,\"cg_bytes\":%lld,"
	       "\"memlock\":%lld,\"hashes\":%u,\"bits\":%.0f}\n",
	       cname[c], fam, nflows, rep, t1 - t0,
	       cg0 >= 0 && cg1 >= 0 ? cg1 - cg0 : -1, memlock(fd), hashes,
	       c == C_BLOOM ? bloom_bits(nflows, hashes) : 0.0);
	fflush(stdout);
	free(keys);
	free(vals);
	return fd;
}

static void load_peers(const char *path, const unsigned int *fams, int nfam,
		       const unsigned int *id)
{
	static const char *const names[2][2] = {
		{ "xb_hash4", "xb_hash6" }, { "xb_bloom4", "xb_bloom6" },
	};
	struct bpf_object *obj;
	int i, c, r, fd;

	obj = bpf_object__open_file(path, NULL);
	if (!obj)
		die(path, errno);
	for (c = C_HASH; c <= C_BLOOM; c++) {
		for (i = 0; i < 2; i++) {
			unsigned int fam = i ? 6 : 4;
			int want = 0, j;
			struct bpf_map *m = bpf_object__find_map_by_name(obj, names[c - C_HASH][i]);

			for (j = 0; j < nfam; j++)
				want |= fams[j] == fam;
			if (!want) {
				/* an unused family: a map of one entry */
				continue;
			}
			fd = -1;
			for (r = 1; r <= (int)loads; r++) {
				if (fd >= 0)
					close(fd);
				fd = make_map(c, fam, r);
			}
			if (bpf_map__reuse_fd(m, fd))
				die("reuse_fd", errno);
			close(fd);
		}
		held[c] = nflows;
	}
	if (id[0] || id[1]) {
		if (nfcf_prog_set_u32(obj, "xb_id4", id[0]) || nfcf_prog_set_u32(obj, "xb_id6", id[1]))
			die("set xb_id4, xb_id6", ENOENT);
	} else {
		bpf_program__set_autoload(bpf_object__find_program_by_name(obj, "xb_cuckoo"), false);
	}
	if (bpf_object__load(obj))
		die("load peers.bpf.o", errno);
	if (id[0] || id[1]) {
		int fd = bpf_program__fd(bpf_object__find_program_by_name(obj, "xb_cuckoo"));

		prog[C_CPEER][0] = id[0] ? fd : -1;
		prog[C_CPEER][1] = id[1] ? fd : -1;
		held[C_CPEER] = nflows;
	}
	prog[C_PARSE][0] = prog[C_PARSE][1] =
		bpf_program__fd(bpf_object__find_program_by_name(obj, "xb_parse_only"));
	prog[C_HASH][0] = prog[C_HASH][1] =
		bpf_program__fd(bpf_object__find_program_by_name(obj, "xb_hash"));
	prog[C_BLOOM][0] = prog[C_BLOOM][1] =
		bpf_program__fd(bpf_object__find_program_by_name(obj, "xb_bloom"));
	held[C_PARSE] = nflows;
}

/* nf_cuckoo_xdp asking filter id: its fd. */
static int load_cuckoo(const char *path, unsigned int id)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_program *p, *tc;
	int err;

	if (!obj)
		die(path, errno);
	err = nfcf_prog_set_filter_id(obj, id);
	if (err)
		die("set nfcf_filter_id", err);
	p = bpf_object__find_program_by_name(obj, NFCF_PROG_XDP);
	tc = bpf_object__find_program_by_name(obj, NFCF_PROG_TC);
	if (!p)
		die("no nf_cuckoo_xdp", ENOENT);
	if (tc)
		bpf_program__set_autoload(tc, false);
	if (bpf_object__load(obj))
		die("load nf_cuckoo.bpf.o", errno);
	return bpf_program__fd(p);
}

/*
 * xdp-filter's maps: flows 1.. held beside flow 0, which `xdp-filter ip`
 * wrote; its value (a per-CPU u64 of flags and counters) copied.  The
 * number of source addresses held.
 */
static unsigned int fill_xf(const char *pin, unsigned int fam)
{
	struct bpf_map_info info = {};
	__u32 ilen = sizeof(info);
	int fd = bpf_obj_get(pin), ncpu = libbpf_num_possible_cpus();
	unsigned int k, n;
	__u8 key[16], *val;
	long long cg0, cg1;
	double t0, t1;

	if (fd < 0)
		die(pin, errno);
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen))
		die("map info", errno);
	if (info.key_size != (fam == 4 ? 4u : 16u))
		die("xdp-filter's map: unexpected key size", EINVAL);
	val = calloc((size_t)ncpu, (info.value_size + 7) & ~7u);
	if (!val)
		die("malloc", ENOMEM);
	memset(key, 0, sizeof(key));
	if (fam == 4) {
		__u32 a = htonl(0x0b000000u);
		memcpy(key, &a, 4);
	} else {
		struct xb_key6 k6;
		flow_key(6, 0, &k6);
		memcpy(key, k6.src, 16);
	}
	if (bpf_map_lookup_elem(fd, key, val))
		die("xdp-filter's entry for flow 0", errno);
	n = nflows < info.max_entries ? nflows : info.max_entries;
	cg0 = cg_current();
	t0 = now();
	for (k = 1; k < n; k++) {
		if (fam == 4) {
			__u32 a = htonl(0x0b000000u + k);
			memcpy(key, &a, 4);
		} else {
			__u32 a = htonl(k);
			memcpy(key + 12, &a, 4);
		}
		if (bpf_map_update_elem(fd, key, val, BPF_ANY)) {
			fprintf(stderr, "# xdp-filter's map %s full at %u: %s\n",
				pin, k, strerror(errno));
			n = k;
			break;
		}
	}
	t1 = now();
	cg1 = cg_current();
	printf("XB-JSON {\"type\":\"load\",\"contender\":\"xdpfilter\",\"family\":%u,"
	       "\"flows\":%u,\"held\":%u,\"max_entries\":%u,\"map_type\":%u,"
	       "\"value_size\":%u,\"rep\":1,\"s\":%.4f,\"cg_bytes\":%lld,"
	       "\"memlock\":%lld}\n", fam, nflows, n, info.max_entries,
	       info.type, info.value_size, t1 - t0,
	       cg0 >= 0 && cg1 >= 0 ? cg1 - cg0 : -1, memlock(fd));
	fflush(stdout);
	free(val);
	close(fd);
	return n;
}

static void verdicts(int c, unsigned int fam)
{
	int fd = prog[c][fam == 6], r;
	unsigned int j, ld = 0, ud = 0, err = 0;
	unsigned int h = held[c];

	for (j = 0; j < samples; j++) {
		unsigned int k = (unsigned int)((unsigned long long)j * h / samples);

		r = run(fd, fam, k, 1, NULL);
		if (r < 0)
			err++;
		ld += r == XDP_DROP;
		r = run(fd, fam, nflows + j, 1, NULL);
		if (r < 0)
			err++;
		ud += r == XDP_DROP;
	}
	printf("XB-JSON {\"type\":\"verdict\",\"contender\":\"%s\",\"family\":%u,"
	       "\"flows\":%u,\"held\":%u,\"samples\":%u,\"listed_dropped\":%u,"
	       "\"unlisted_dropped\":%u,\"errors\":%u}\n", cname[c], fam, nflows,
	       h, samples, ld, ud, err);
	fflush(stdout);
}

/* ---- e2e.sh's sender (--send) ---- */

static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
	stopping = 1;
}

static int send_frames(const char *path, const char *dev, const char *hold,
		       unsigned int fam)
{
	struct xb_send_cfg cfg = {
		.ifindex = if_nametoindex(dev),
		.flows = nflows,
		.len = fam == 4 ? XB_FRAME_LEN4 : XB_FRAME_LEN6,
	};
	struct sigaction sa = { .sa_handler = on_stop };
	struct bpf_map *frames, *m, *rodata = NULL;
	unsigned long long sent = 0;
	struct bpf_object *obj;
	struct xb_frame fr;
	__u8 pkt[XB_FRAME_LEN6];
	unsigned int k;
	int fd, err, hold_if = 0;

	if (!cfg.ifindex)
		die(dev, errno);
	obj = bpf_object__open_file(path, NULL);
	if (!obj)
		die(path, errno);
	frames = bpf_object__find_map_by_name(obj, "xb_frames");
	bpf_object__for_each_map(m, obj)
		if (strstr(bpf_map__name(m), ".rodata"))
			rodata = m;
	if (!frames || !rodata)
		die("send.bpf.o's maps", ENOENT);
	if (bpf_map__set_max_entries(frames, nflows) ||
	    bpf_map__set_initial_value(rodata, &cfg, sizeof(cfg)))
		die("send.bpf.o's maps", EINVAL);
	err = bpf_object__load(obj);
	if (err)
		die("send.bpf.o", -err);
	for (k = 0; k < nflows; k++) {
		memset(&fr, 0, sizeof(fr));
		flow_pkt(fam, k, fr.b);
		if (bpf_map_update_elem(bpf_map__fd(frames), &k, &fr, 0))
			die("a frame", errno);
	}
	fd = bpf_program__fd(bpf_object__find_program_by_name(obj, "xb_send"));
	if (hold) {
		hold_if = if_nametoindex(hold);
		if (!hold_if)
			die(hold, errno);
		err = bpf_xdp_attach(hold_if, fd, XDP_FLAGS_SKB_MODE, NULL);
		if (err)
			die("attaching the sender to --hold's device", -err);
	}
	flow_pkt(fam, 0, pkt);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (!stopping) {
		LIBBPF_OPTS(bpf_test_run_opts, opts,
			.data_in = pkt,
			.data_size_in = cfg.len,
			.flags = BPF_F_TEST_XDP_LIVE_FRAMES,
			.repeat = 1 << 14,
		);

		if (bpf_prog_test_run_opts(fd, &opts)) {
			if (errno == EINTR)
				break;
			die("BPF_PROG_RUN of the sender", errno);
		}
		sent += opts.repeat;
		printf("XB-SENT %llu\n", sent);
		fflush(stdout);
	}
	if (hold_if) {
		/* The receiver done with the last frames first. */
		usleep(300000);
		bpf_xdp_detach(hold_if, XDP_FLAGS_SKB_MODE, NULL);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "flows", 1, 0, 'n' }, { "id4", 1, 0, '4' }, { "id6", 1, 0, '6' },
		{ "obj", 1, 0, 'o' }, { "peers", 1, 0, 'p' },
		{ "families", 1, 0, 'f' }, { "repeat", 1, 0, 'R' },
		{ "rounds", 1, 0, 'K' }, { "loads", 1, 0, 'L' },
		{ "samples", 1, 0, 'S' }, { "xf-prog", 1, 0, 'x' },
		{ "xf-map4", 1, 0, 'a' }, { "xf-map6", 1, 0, 'b' },
		{ "send", 1, 0, 's' }, { "dst-mac", 1, 0, 'm' },
		{ "hold", 1, 0, 'H' },
		{ 0, 0, 0, 0 },
	};
	const char *obj = "tools/cfctl/" NFCF_PROG_OBJ, *peers = "bench/xdp/peers.bpf.o";
	const char *xfmap[2] = { NULL, NULL }, *send = NULL, *hold = NULL;
	bool obj_set = false;
	unsigned int id[2] = { 0, 0 }, fams[2] = { 4, 6 }, xfprog = 0;
	int nfam = 2, c, i, r, m, order[C_MAX], nc = 0;
	char *s;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n': nflows = (unsigned int)strtoul(optarg, NULL, 0); break;
		case '4': id[0] = (unsigned int)strtoul(optarg, NULL, 0); break;
		case '6': id[1] = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'o': obj = optarg; obj_set = true; break;
		case 'p': peers = optarg; break;
		case 'f':
			nfam = 0;
			for (s = strtok(optarg, " ,"); s && nfam < 2; s = strtok(NULL, " ,"))
				fams[nfam++] = (unsigned int)atoi(s);
			break;
		case 'R': repeat = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'K': rounds = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'L': loads = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'S': samples = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'x': xfprog = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'a': xfmap[0] = optarg; break;
		case 'b': xfmap[1] = optarg; break;
		case 's': send = optarg; break;
		case 'H': hold = optarg; break;
		case 'm':
			if (sscanf(optarg, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &dst_mac[0],
				   &dst_mac[1], &dst_mac[2], &dst_mac[3], &dst_mac[4],
				   &dst_mac[5]) != 6)
				die("--dst-mac", EINVAL);
			break;
		default:
			fprintf(stderr, "usage: see the top of bench/xdp/xdpbench.c\n");
			return 2;
		}
	}
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	if (send)
		return send_frames(obj_set ? obj : "bench/xdp/send.bpf.o", send, hold,
				   fams[0]);
	for (c = 0; c < C_MAX; c++)
		prog[c][0] = prog[c][1] = -1;

	load_peers(peers, fams, nfam, id);
	prog[C_CUCKOO][0] = id[0] ? load_cuckoo(obj, id[0]) : -1;
	prog[C_CUCKOO][1] = id[1] ? load_cuckoo(obj, id[1]) : -1;
	held[C_CUCKOO] = nflows;
	if (xfprog) {
		int fd = bpf_prog_get_fd_by_id(xfprog);

		if (fd < 0)
			die("xdp-filter's program by id", errno);
		prog[C_XF][0] = prog[C_XF][1] = fd;
		held[C_XF] = nflows;
		for (i = 0; i < nfam; i++) {
			const char *pin = xfmap[fams[i] == 6];
			unsigned int n = pin ? fill_xf(pin, fams[i]) : 0;

			if (n < held[C_XF])
				held[C_XF] = n;
		}
	}
	for (c = 0; c < C_MAX; c++)
		if (prog[c][0] >= 0 || prog[c][1] >= 0)
			order[nc++] = c;

	fprintf(stderr, "# verdicts, %u samples a contender and family\n", samples);
	for (i = 0; i < nfam; i++)
		for (c = 0; c < nc; c++)
			if (prog[order[c]][fams[i] == 6] >= 0)
				verdicts(order[c], fams[i]);

	for (r = 1; r <= (int)rounds; r++) {
		for (i = 0; i < nfam; i++) {
			for (m = 0; m <= 100; m += 100) {
				for (c = 0; c < nc; c++) {
					int k = order[c], fd = prog[k][fams[i] == 6], ret;
					unsigned int flow, h = held[k] ? held[k] : 1;
					__u32 ns = 0;

					if (fd < 0)
						continue;
					/* a different flow every round */
					flow = m ? (unsigned int)(((unsigned long long)r * 2654435761u) % h)
						 : nflows + (unsigned int)r * 7919u % 1000000u;
					ret = run(fd, fams[i], flow, repeat, &ns);
					printf("XB-JSON {\"type\":\"run\",\"contender\":\"%s\","
					       "\"family\":%u,\"flows\":%u,\"held\":%u,\"match\":%d,"
					       "\"rep\":%d,\"repeat\":%u,\"ns\":%u,\"retval\":%d}\n",
					       cname[k], fams[i], nflows, held[k], m, r, repeat,
					       ns, ret);
					fflush(stdout);
				}
			}
		}
		/* rotate the order */
		c = order[0];
		memmove(order, order + 1, sizeof(order[0]) * (nc - 1));
		order[nc - 1] = c;
		fprintf(stderr, "# round %d done\n", r);
	}
	return 0;
}
