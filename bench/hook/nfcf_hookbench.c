// SPDX-License-Identifier: GPL-2.0
/*
 * nfcf_hookbench: time a network namespace's prerouting hooks in the kernel,
 * for bench/hook/run.sh only (built and loaded by it, never installed).
 *
 * Writing "FAMILY N MATCH PACKETS" (FAMILY 4 or 6) to
 * /sys/kernel/debug/nfcf_hookbench/run, from a task in the namespace to
 * measure, builds `traffic` skbs (module parameter) of UDP flows as they
 * arrive at prerouting, runs the namespace's prerouting hooks over them
 * PACKETS times in all with nf_hook_slow(), as NF_HOOK() does, and frees
 * them; reading the file gives the result of the last run, one line:
 *
 *   family=4 flows=N match=M packets=P traffic=T hooks=H ns=NS
 *   chunks=C chunk_ps_med=MED chunk_ps_min=MIN accept=A drop=D other=O
 *   err=E
 *
 * NS is the time spent in the loops, ktime_get_ns() around each chunk of
 * `chunk` packets, summed; MED and MIN the median and the least time per
 * packet of the C full chunks, in picoseconds: a chunk during which the
 * (virtual) CPU was taken away counts in NS but moves MED little.  H is
 * how many hook functions the namespace has at prerouting for the family
 * (0: the loop alone, the baseline).
 *
 * Flows.  Flow k (0 <= k < 2^24) is UDP from 11.k/8 (IPv4) or
 * 2001:db8:1::k (IPv6), source port 1024 + k % 60000, to 10.0.0.2 or
 * 2001:db8::2, port 9000.  The loaded flows are those k < N (the runner
 * writes them into each contender); of the traffic's flows, a fraction
 * MATCH% (j % 100 < MATCH) are loaded ones spread over 0..N-1, the others
 * are N + j, which no contender holds.
 *
 * Or the traffic's source addresses are given: what is written to
 * /sys/kernel/debug/nfcf_hookbench/src (from offset 0 on: a write at offset
 * 0 starts a new table) is a table of addresses, 4 bytes each for FAMILY 4
 * and 16 for FAMILY 6, in network order, at most HB_SRC_MAX bytes; a run
 * written as "FAMILY N MATCH PACKETS src" sends one skb from each, flow j
 * from address j (its ports those of flow j), and ignores `traffic`.  N
 * and MATCH are then only the labels the result line carries: the writer
 * chose which addresses the filters hold.  bench/prefix/ uses this.
 *
 * The skbs are built as ip_rcv_core() and ipv6_rcv() leave them for the
 * hook: the Ethernet header pulled (mac header set), skb->protocol, network
 * header, transport header just after the IP header (both kernels set it
 * before the hook), pkt_type PACKET_HOST, dev and skb_iif the namespace's
 * loopback device, length the IP length.
 *
 * Verdicts.  nf_hook_slow() frees a dropped skb (kfree_skb_reason()); each
 * skb's reference count is set to 2 before the call, so a drop only takes
 * it back to 1 and the skb is used again (a drop is thus cheaper than a
 * real one by the free, the same for every contender).  The mark is reset
 * before each call.  A verdict that is neither accept nor drop (a queue or
 * a steal) ends the run: the skb may belong to someone else.
 *
 * Chunks run under rcu_read_lock() with bottom halves disabled, as the
 * receive path does, and reload the hooks; cond_resched() runs between
 * them, so a long run trips no watchdog.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/skbuff.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/netfilter.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <net/ip.h>
#include <net/net_namespace.h>

static unsigned int traffic = 65536;
module_param(traffic, uint, 0644);
MODULE_PARM_DESC(traffic, "skbs (distinct flows) a run cycles over");

static unsigned int chunk = 4096;
module_param(chunk, uint, 0644);
MODULE_PARM_DESC(chunk, "packets timed between two cond_resched()");

#define HB_PAYLOAD	18	/* a 60-byte IPv4 frame */
#define HB_DPORT	9000
#define HB_MAX_FLOWS	(1U << 24)
#define HB_SRC_MAX	(16U << 20)

static DEFINE_MUTEX(hb_lock);
static char hb_result[512] = "none\n";
static struct dentry *hb_dir;
static u8 *hb_src;		/* the source addresses written, under hb_lock */
static size_t hb_src_len;

/* The traffic's flow j for N loaded flows and MATCH%. */
static u32 hb_flow(u32 j, u32 n, u32 t, u32 match)
{
	if (j % 100 < match)
		return n >= t ? (u32)((u64)j * n / t) : j % n;
	return n + j;
}

static void hb_fill_udp(struct udphdr *uh, u32 k, unsigned int len)
{
	uh->source = htons(1024 + k % 60000);
	uh->dest = htons(HB_DPORT);
	uh->len = htons(len);
	uh->check = 0;
}

/* The skb of flow @k, from @src (4 or 16 bytes) if not NULL. */
static struct sk_buff *hb_skb(struct net_device *dev, int family, u32 k,
			      const u8 *src)
{
	unsigned int l3 = family == 4 ? sizeof(struct iphdr) :
			  sizeof(struct ipv6hdr);
	unsigned int l4 = sizeof(struct udphdr) + HB_PAYLOAD;
	struct sk_buff *skb;
	struct ethhdr *eth;

	skb = alloc_skb(NET_SKB_PAD + NET_IP_ALIGN + ETH_HLEN + l3 + l4,
			GFP_KERNEL);
	if (!skb)
		return NULL;
	skb_reserve(skb, NET_SKB_PAD + NET_IP_ALIGN);
	eth = skb_put_zero(skb, ETH_HLEN + l3 + l4);
	eth_zero_addr(eth->h_source);
	memcpy(eth->h_dest, dev->dev_addr, ETH_ALEN);
	eth->h_proto = htons(family == 4 ? ETH_P_IP : ETH_P_IPV6);
	skb_reset_mac_header(skb);
	skb_pull(skb, ETH_HLEN);
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, l3);
	skb->protocol = eth->h_proto;
	skb->pkt_type = PACKET_HOST;
	skb->dev = dev;
	skb->skb_iif = dev->ifindex;
	skb->ip_summed = CHECKSUM_NONE;

	if (family == 4) {
		struct iphdr *iph = ip_hdr(skb);

		iph->version = 4;
		iph->ihl = 5;
		iph->tot_len = htons(l3 + l4);
		iph->ttl = 64;
		iph->protocol = IPPROTO_UDP;
		if (src)
			memcpy(&iph->saddr, src, 4);
		else
			iph->saddr = htonl(0x0b000000 | k);
		iph->daddr = htonl(0x0a000002);
		ip_send_check(iph);
	} else {
		struct ipv6hdr *ip6h = ipv6_hdr(skb);

		ip6h->version = 6;
		ip6h->payload_len = htons(l4);
		ip6h->nexthdr = IPPROTO_UDP;
		ip6h->hop_limit = 64;
		if (src) {
			memcpy(&ip6h->saddr, src, 16);
		} else {
			ip6h->saddr.s6_addr32[0] = htonl(0x20010db8);
			ip6h->saddr.s6_addr32[1] = htonl(0x00010000);
			ip6h->saddr.s6_addr32[3] = htonl(k);
		}
		ip6h->daddr.s6_addr32[0] = htonl(0x20010db8);
		ip6h->daddr.s6_addr32[3] = htonl(2);
	}
	hb_fill_udp(udp_hdr(skb), k, l4);
	return skb;
}

/* Give back the skbs: each holds one reference of ours (see above). */
static void hb_free(struct sk_buff **skbs, unsigned int t, bool *lost)
{
	unsigned int j;

	for (j = 0; j < t; j++) {
		if (!skbs[j])
			continue;
		if (!lost[j])
			refcount_set(&skbs[j]->users, 1);
		kfree_skb(skbs[j]);
	}
}

struct hb_count {
	u64 ns, accept, drop, other;
	unsigned int hooks;
	u64 last_ns;		/* the last chunk's time */
	u64 *chunk_ns;		/* the full chunks' times */
	unsigned int chunks;
};

static int hb_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* One timed chunk of @n packets from skb @*j on. */
static bool hb_chunk(struct net *net, int family, struct sk_buff **skbs,
		     bool *lost, unsigned int t, unsigned int *j, u64 n,
		     struct hb_count *c)
{
	const struct nf_hook_entries *e;
	struct nf_hook_state state;
	bool ok = true;
	u64 t0, dt, i;
	int ret;

	local_bh_disable();
	rcu_read_lock();
	if (family == 4) {
		e = rcu_dereference(net->nf.hooks_ipv4[NF_INET_PRE_ROUTING]);
		nf_hook_state_init(&state, NF_INET_PRE_ROUTING, NFPROTO_IPV4,
				   net->loopback_dev, NULL, NULL, net, NULL);
	} else {
		e = rcu_dereference(net->nf.hooks_ipv6[NF_INET_PRE_ROUTING]);
		nf_hook_state_init(&state, NF_INET_PRE_ROUTING, NFPROTO_IPV6,
				   net->loopback_dev, NULL, NULL, net, NULL);
	}
	c->hooks = e ? e->num_hook_entries : 0;
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		struct sk_buff *skb = skbs[*j];

		refcount_set(&skb->users, 2);
		skb->mark = 0;
		ret = e ? nf_hook_slow(skb, &state, e, 0) : 1;
		if (ret == 1) {
			c->accept++;
		} else if (ret < 0) {
			c->drop++;
		} else {
			c->other++;
			lost[*j] = true;
			ok = false;
			break;
		}
		if (++*j == t)
			*j = 0;
	}
	dt = ktime_get_ns() - t0;
	rcu_read_unlock();
	local_bh_enable();
	c->ns += dt;
	c->last_ns = dt;
	return ok;
}

static int hb_run(int family, u32 n, u32 match, u64 packets, bool src)
{
	struct net *net = current->nsproxy->net_ns;
	struct net_device *dev = net->loopback_dev;
	struct hb_count c = {};
	struct sk_buff **skbs;
	unsigned int t = traffic, step = chunk ?: 1, j;
	unsigned int alen = family == 4 ? 4 : 16;
	bool *lost;
	int err = 0;
	u64 done, med = 0, least = 0;

	if (src)
		t = hb_src_len / alen;
	if ((family != 4 && family != 6) || !n || match > 100 || !t ||
	    (!src && n + t > HB_MAX_FLOWS) || !packets)
		return -EINVAL;
	if (packets / step >= INT_MAX / sizeof(u64))
		return -EINVAL;
	skbs = vcalloc(t, sizeof(*skbs));
	lost = vcalloc(t, sizeof(*lost));
	c.chunk_ns = vcalloc(packets / step + 1, sizeof(u64));
	if (!skbs || !lost || !c.chunk_ns) {
		err = -ENOMEM;
		goto out;
	}
	for (j = 0; j < t; j++) {
		skbs[j] = src ? hb_skb(dev, family, j, hb_src + j * alen) :
			  hb_skb(dev, family, hb_flow(j, n, t, match), NULL);
		if (!skbs[j]) {
			err = -ENOMEM;
			goto out;
		}
		if (!(j % 4096))
			cond_resched();
	}
	j = 0;
	for (done = 0; done < packets; done += step) {
		u64 n_chunk = min_t(u64, step, packets - done);

		if (!hb_chunk(net, family, skbs, lost, t, &j, n_chunk, &c)) {
			err = -EPROTO;
			break;
		}
		if (n_chunk == step)
			c.chunk_ns[c.chunks++] = c.last_ns;
		cond_resched();
		if (signal_pending(current)) {
			err = -EINTR;
			break;
		}
	}
	if (c.chunks) {
		sort(c.chunk_ns, c.chunks, sizeof(u64), hb_cmp_u64, NULL);
		med = div_u64(c.chunk_ns[c.chunks / 2] * 1000, step);
		least = div_u64(c.chunk_ns[0] * 1000, step);
	}
	scnprintf(hb_result, sizeof(hb_result),
		  "family=%d flows=%u match=%u packets=%llu traffic=%u hooks=%u ns=%llu chunks=%u chunk_ps_med=%llu chunk_ps_min=%llu accept=%llu drop=%llu other=%llu err=%d\n",
		  family, n, match, c.accept + c.drop + c.other, t, c.hooks,
		  c.ns, c.chunks, med, least, c.accept, c.drop, c.other, err);
out:
	if (skbs && lost)
		hb_free(skbs, t, lost);
	vfree(c.chunk_ns);
	vfree(lost);
	vfree(skbs);
	return err;
}

static ssize_t hb_write(struct file *file, const char __user *ubuf,
			size_t len, loff_t *ppos)
{
	unsigned long long packets;
	unsigned int n, match;
	char buf[64], word[8] = "";
	int family, err, got;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	got = sscanf(buf, "%d %u %u %llu %7s", &family, &n, &match, &packets,
		     word);
	if (got < 4 || (got == 5 && strcmp(word, "src")))
		return -EINVAL;
	mutex_lock(&hb_lock);
	err = hb_run(family, n, match, packets, got == 5);
	mutex_unlock(&hb_lock);
	return err ? err : len;
}

static ssize_t hb_read(struct file *file, char __user *ubuf, size_t len,
		       loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&hb_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, hb_result,
				      strlen(hb_result));
	mutex_unlock(&hb_lock);
	return ret;
}

/* Writes to "src" fill the address table; one at offset 0 empties it. */
static ssize_t hb_src_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	ssize_t ret;

	if (*ppos < 0 || *ppos > HB_SRC_MAX || len > HB_SRC_MAX - *ppos)
		return -EFBIG;
	mutex_lock(&hb_lock);
	if (!*ppos)
		hb_src_len = 0;
	if (!hb_src)
		hb_src = vmalloc(HB_SRC_MAX);
	if (!hb_src) {
		ret = -ENOMEM;
	} else if (*ppos != hb_src_len) {
		ret = -EINVAL;		/* a hole, or a write over the table */
	} else {
		ret = len - copy_from_user(hb_src + *ppos, ubuf, len);
		if (!ret && len)
			ret = -EFAULT;
		if (ret > 0) {
			*ppos += ret;
			hb_src_len = *ppos;
		}
	}
	mutex_unlock(&hb_lock);
	return ret;
}

static const struct file_operations hb_src_fops = {
	.owner = THIS_MODULE,
	.write = hb_src_write,
	.llseek = default_llseek,
};

static const struct file_operations hb_fops = {
	.owner = THIS_MODULE,
	.read = hb_read,
	.write = hb_write,
	.llseek = default_llseek,
};

static int __init hb_init(void)
{
	hb_dir = debugfs_create_dir("nfcf_hookbench", NULL);
	if (IS_ERR(hb_dir))
		return PTR_ERR(hb_dir);
	debugfs_create_file("run", 0600, hb_dir, NULL, &hb_fops);
	debugfs_create_file("src", 0200, hb_dir, NULL, &hb_src_fops);
	return 0;
}

static void __exit hb_exit(void)
{
	debugfs_remove_recursive(hb_dir);
	vfree(hb_src);
}

module_init(hb_init);
module_exit(hb_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("nf_cuckoo's benchmark of prerouting hooks (not installed)");
