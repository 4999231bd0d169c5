// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of cfctl's parsers (parse.c, entry.c, base64.c): no kernel,
 * no netlink.  TAP output; exit 0 if every test passed.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cfctl.h"
/* The module's image header, whose table size restore reads. */
#include "../../kmod/cuckoo.h"

/* The parsers' error paths may print through these. */
struct cfctl_opts opts;
const char *verb_name;
const char *cfctl_file(void)
{
	return NULL;
}

void errmsg(const char *fmt, ...)
{
	(void)fmt;
}

void warnmsg(const char *fmt, ...)
{
	(void)fmt;
}

static int fails;

static void __attribute__((format(printf, 3, 4)))
check(int ok, int line, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return;
	fails++;
	printf("#   FAIL line %d: ", line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}
#define CHECK(c, ...)	check(!!(c), __LINE__, __VA_ARGS__)

static void t_numbers(void)
{
	uint64_t v;
	uint32_t u;
	int32_t s;

	CHECK(!parse_u64("0", &v) && v == 0, "0");
	CHECK(!parse_u64("123", &v) && v == 123, "123");
	CHECK(!parse_u64("0x1f", &v) && v == 31, "0x1f");
	CHECK(!parse_u64("18446744073709551615", &v) && v == UINT64_MAX, "max");
	CHECK(parse_u64("18446744073709551616", &v), "overflow");
	CHECK(parse_u64("", &v), "empty");
	CHECK(parse_u64("-1", &v), "-1");
	CHECK(parse_u64("+1", &v), "+1");
	CHECK(parse_u64(" 1", &v), "leading space");
	CHECK(parse_u64("1 ", &v), "trailing space");
	CHECK(parse_u64("12a", &v), "12a");
	CHECK(parse_u64("010", &v), "octal-looking 010");
	CHECK(parse_u64("0x", &v), "0x");
	CHECK(!parse_u32("4294967295", &u) && u == UINT32_MAX, "u32 max");
	CHECK(parse_u32("4294967296", &u), "u32 overflow");
	CHECK(!parse_s32("-2147483648", &s) && s == INT32_MIN, "s32 min");
	CHECK(!parse_s32("2147483647", &s) && s == INT32_MAX, "s32 max");
	CHECK(parse_s32("2147483648", &s), "s32 overflow");
	CHECK(parse_s32("-2147483649", &s), "s32 underflow");
	CHECK(parse_s32("-", &s), "lone -");
}

static void t_capacity_fpr(void)
{
	uint64_t v;
	uint32_t p;

	CHECK(!parse_capacity("1000", &v) && v == 1000, "1000");
	CHECK(!parse_capacity("10k", &v) && v == 10000, "10k");
	CHECK(!parse_capacity("1M", &v) && v == 1000000, "1M");
	CHECK(!parse_capacity("2G", &v) && v == 2000000000ULL, "2G");
	CHECK(!parse_capacity("64Ki", &v) && v == 65536, "64Ki");
	CHECK(!parse_capacity("1Mi", &v) && v == 1048576, "1Mi");
	CHECK(!parse_capacity("0", &v) && v == 0, "0 parses (create rejects it)");
	CHECK(parse_capacity("1.5M", &v), "1.5M");
	CHECK(parse_capacity("M", &v), "M");
	CHECK(parse_capacity("1X", &v), "1X");
	CHECK(parse_capacity("-1", &v), "-1");
	CHECK(parse_capacity("99999999999999999999", &v), "overflow");
	CHECK(parse_capacity("20000000000000000k", &v), "suffix overflow");
	CHECK(parse_capacity("", &v), "empty");

	CHECK(!parse_fpr("0.001", &p) && p == 1000000, "0.001 -> %u", p);
	CHECK(!parse_fpr("1e-3", &p) && p == 1000000, "1e-3");
	CHECK(!parse_fpr("0.1%", &p) && p == 1000000, "0.1%%");
	CHECK(!parse_fpr("1e-9", &p) && p == 1, "1e-9");
	CHECK(!parse_fpr(".5", &p) && p == 500000000, ".5");
	CHECK(parse_fpr("1", &p), "1");
	CHECK(parse_fpr("100%", &p), "100%%");
	CHECK(parse_fpr("0", &p), "0");
	CHECK(parse_fpr("1e-10", &p), "1e-10 rounds to 0");
	/* Rounded down: a bound rounded up is looser than asked. */
	CHECK(parse_fpr("5e-10", &p), "5e-10 rounds down to 0: refused");
	CHECK(!parse_fpr("1.5e-9", &p) && p == 1, "1.5e-9 -> %u", p);
	CHECK(!parse_fpr("2.9e-9", &p) && p == 2, "2.9e-9 -> %u", p);
	CHECK(!parse_fpr("0.0000000019", &p) && p == 1, "0.0000000019 -> %u", p);
	CHECK(!parse_fpr("0.3", &p) && p == 300000000, "0.3 -> %u", p);
	CHECK(!parse_fpr("0.07%", &p) && p == 700000, "0.07%% -> %u", p);
	CHECK(!parse_fpr("0.000123", &p) && p == 123000, "0.000123 -> %u", p);
	CHECK(!parse_fpr("0.9999999999", &p) && p == 999999999, "0.9999999999 -> %u", p);
	CHECK(parse_fpr("-0.1", &p), "-0.1");
	CHECK(parse_fpr("nan", &p), "nan");
	CHECK(parse_fpr("inf", &p), "inf");
	CHECK(parse_fpr("0.1x", &p), "0.1x");
	CHECK(parse_fpr("%", &p), "%%");
}

static void t_words(void)
{
	uint8_t b;
	uint16_t port;
	int32_t prio;
	uint32_t mark, mask, f;
	char err[ERRLEN], buf[64];

	CHECK(!parse_port("0", &port) && port == 0, "port 0");
	CHECK(!parse_port("65535", &port) && port == 65535, "port 65535");
	CHECK(parse_port("65536", &port), "port 65536");
	CHECK(parse_port("-1", &port), "port -1");
	CHECK(parse_port("+1", &port), "port +1");
	CHECK(parse_port("0x10", &port), "port 0x10");
	CHECK(parse_port("", &port), "port empty");
	CHECK(parse_port("1 ", &port), "port trailing space");
	CHECK(parse_port("999999", &port), "port 999999");

	CHECK(!parse_proto("tcp", &b) && b == 6, "tcp");
	CHECK(!parse_proto("UDP", &b) && b == 17, "UDP");
	CHECK(!parse_proto("udplite", &b) && b == 136, "udplite");
	CHECK(!parse_proto("sctp", &b) && b == 132, "sctp");
	CHECK(!parse_proto("dccp", &b) && b == 33, "dccp");
	CHECK(!parse_proto("icmp", &b) && b == 1, "icmp");
	CHECK(!parse_proto("icmpv6", &b) && b == 58, "icmpv6");
	CHECK(!parse_proto("17", &b) && b == 17, "17");
	CHECK(!parse_proto("255", &b) && b == 255, "255");
	CHECK(parse_proto("256", &b), "256");
	CHECK(parse_proto("0x11", &b), "0x11");
	CHECK(parse_proto("nosuchproto", &b), "unknown name");
	CHECK(parse_proto("1.2.3.4", &b), "an address is no protocol");
	/* /etc/protocols' keywords: "ip" is 0, "ipv6" 41; families, to a user. */
	CHECK(parse_proto("ip", &b), "ip is a family, not protocol 0");
	CHECK(parse_proto("ipv6", &b), "ipv6 is a family, not protocol 41");
	CHECK(parse_proto("ip6", &b), "ip6");
	CHECK(parse_proto("ipv4", &b), "ipv4");
	CHECK(parse_proto("hopopt", &b), "hopopt");
	CHECK(!parse_proto("gre", &b) && b == 47, "gre");
	CHECK(!parse_proto("esp", &b) && b == 50, "esp");
	CHECK(!parse_proto("ah", &b) && b == 51, "ah");
	CHECK(!parse_proto("0", &b) && b == 0, "0");
	CHECK(proto_has_ports(6) && proto_has_ports(17) && proto_has_ports(132) &&
	      proto_has_ports(33) && proto_has_ports(136), "port protocols");
	CHECK(!proto_has_ports(1) && !proto_has_ports(58) && !proto_has_ports(47),
	      "portless protocols");

	CHECK(!parse_family("ip", &b) && b == NF_CUCKOO_FAMILY_IPV4, "ip");
	CHECK(!parse_family("ip6", &b) && b == NF_CUCKOO_FAMILY_IPV6, "ip6");
	CHECK(!parse_family("inet", &b) && b == NF_CUCKOO_FAMILY_INET, "inet");
	CHECK(parse_family("inet6", &b), "inet6 is ipset's, not ours");
	CHECK(!strcmp(family_name(NF_CUCKOO_FAMILY_INET), "inet"), "family_name");

	CHECK(!parse_hook("prerouting", &b) && b == NF_CUCKOO_HOOK_PREROUTING, "prerouting");
	CHECK(!parse_hook("postrouting", &b) && b == NF_CUCKOO_HOOK_POSTROUTING, "postrouting");
	CHECK(!parse_hook("none", &b) && b == NF_CUCKOO_HOOK_NONE, "none");
	CHECK(!strcmp(hook_name(NF_CUCKOO_HOOK_NONE), "none"), "hook_name none");
	CHECK(parse_hook("ingress", &b), "ingress");
	CHECK(!strcmp(hook_name(NF_CUCKOO_HOOK_FORWARD), "forward"), "hook_name");

	CHECK(!parse_priority("-300", &prio) && prio == -300, "-300");
	CHECK(!parse_priority("raw", &prio) && prio == -300, "raw");
	CHECK(!parse_priority("filter", &prio) && prio == 0, "filter");
	CHECK(parse_priority("2147483648", &prio), "priority overflow");

	CHECK(!parse_mark("5", &mark, &mask) && mark == 5 &&
	      mask == NF_CUCKOO_MARK_MASK_DEFAULT, "mark 5");
	CHECK(!parse_mark("0x10/0xff", &mark, &mask) && mark == 16 &&
	      mask == 255, "mark 0x10/0xff");
	CHECK(parse_mark("1/", &mark, &mask), "1/");
	CHECK(parse_mark("/1", &mark, &mask), "/1");
	CHECK(parse_mark("4294967296", &mark, &mask), "mark overflow");

	CHECK(!parse_key_fields("src,dst", &f, err, sizeof(err)) &&
	      f == (NF_CUCKOO_KEY_SRC_ADDR | NF_CUCKOO_KEY_DST_ADDR), "src,dst");
	CHECK(!parse_key_fields("all", &f, err, sizeof(err)) && f == NF_CUCKOO_KEY_ALL,
	      "all");
	CHECK(!parse_key_fields("proto,dport", &f, err, sizeof(err)) &&
	      f == (NF_CUCKOO_KEY_PROTO | NF_CUCKOO_KEY_DST_PORT), "proto,dport");
	CHECK(parse_key_fields("src,src", &f, err, sizeof(err)), "src,src");
	CHECK(parse_key_fields("src,", &f, err, sizeof(err)), "src,");
	CHECK(parse_key_fields("", &f, err, sizeof(err)), "empty key");
	CHECK(parse_key_fields("ttl", &f, err, sizeof(err)) &&
	      strstr(err, "ttl"), "unknown field named: %s", err);
	format_key_fields(NF_CUCKOO_KEY_ALL, buf, sizeof(buf));
	CHECK(!strcmp(buf, "src,dst,sport,dport,proto"), "format all: %s", buf);

	CHECK(!check_name("a", err, sizeof(err)), "name a");
	CHECK(!check_name("a.b-c_D9", err, sizeof(err)), "name a.b-c_D9");
	CHECK(!check_name("abcdefghijklmnopqrstuvwxyz01234", err, sizeof(err)),
	      "31 characters");
	CHECK(check_name("abcdefghijklmnopqrstuvwxyz012345", err, sizeof(err)),
	      "32 characters");
	CHECK(check_name("", err, sizeof(err)), "empty name");
	CHECK(check_name("a b", err, sizeof(err)), "a b");
	CHECK(check_name("a/b", err, sizeof(err)), "a/b");
	CHECK(check_name("-x", err, sizeof(err)), "-x");
	CHECK(check_name("caf\xc3\xa9", err, sizeof(err)), "non-ASCII");
}

static char **words(const char *s, int *n)
{
	static char buf[512];
	static char *w[64];

	snprintf(buf, sizeof(buf), "%s", s);
	*n = split_words(buf, w, 63);
	return w;
}

static int parse1(const char *s, struct entry *e, char *err)
{
	int n, used;
	char **w = words(s, &n);

	return entry_parse(w, n, false, e, &used, err, ERRLEN);
}

static void t_entry_parse(void)
{
	struct entry e;
	char err[ERRLEN];
	uint8_t a[16];

	CHECK(!parse1("udp 10.0.0.1:5353 10.0.0.2:53", &e, err), "udp v4: %s", err);
	inet_pton(AF_INET, "10.0.0.1", a);
	CHECK(e.given == NF_CUCKOO_KEY_ALL && e.family == NF_CUCKOO_FAMILY_IPV4 &&
	      e.proto == 17 && e.sport == 5353 && e.dport == 53 &&
	      !memcmp(e.src, a, 4) && !memcmp(e.src + 4, "\0\0\0\0\0\0\0\0\0\0\0\0", 12),
	      "udp v4 fields");
	CHECK(!parse1("tcp [2001:db8::1]:443 [2001:db8::2]:50000", &e, err),
	      "tcp v6: %s", err);
	inet_pton(AF_INET6, "2001:db8::2", a);
	CHECK(e.given == NF_CUCKOO_KEY_ALL && e.family == NF_CUCKOO_FAMILY_IPV6 &&
	      e.proto == 6 && e.sport == 443 && e.dport == 50000 &&
	      !memcmp(e.dst, a, 16), "tcp v6 fields");
	CHECK(!parse1("src 10.0.0.1", &e, err) && e.given == NF_CUCKOO_KEY_SRC_ADDR,
	      "src only");
	CHECK(!parse1("dst 10.0.0.1:80", &e, err) &&
	      e.given == (NF_CUCKOO_KEY_DST_ADDR | NF_CUCKOO_KEY_DST_PORT) && e.dport == 80,
	      "dst with port");
	CHECK(!parse1("10.0.0.1 10.0.0.2", &e, err) &&
	      e.given == (NF_CUCKOO_KEY_SRC_ADDR | NF_CUCKOO_KEY_DST_ADDR), "two addresses");
	CHECK(!parse1("2001:db8::1", &e, err) && e.family == NF_CUCKOO_FAMILY_IPV6 &&
	      e.given == NF_CUCKOO_KEY_SRC_ADDR, "bare v6");
	CHECK(!parse1("[2001:db8::1]", &e, err) && e.given == NF_CUCKOO_KEY_SRC_ADDR,
	      "bracketed v6 without port");
	CHECK(!parse1("icmp 10.0.0.1 10.0.0.2", &e, err) && e.proto == 1,
	      "icmp");
	CHECK(!parse1("sport 53 dport 54 proto udp", &e, err) &&
	      e.given == (NF_CUCKOO_KEY_SRC_PORT | NF_CUCKOO_KEY_DST_PORT | NF_CUCKOO_KEY_PROTO) &&
	      e.family == 0, "keywords only");
	CHECK(!parse1("17 10.0.0.1:1 10.0.0.2:2", &e, err) && e.proto == 17,
	      "protocol number");
	CHECK(!parse1("udp src 10.0.0.1:1 dst 10.0.0.2:2", &e, err) &&
	      e.given == NF_CUCKOO_KEY_ALL, "proto then keywords");

	CHECK(parse1("icmp 10.0.0.1:1 10.0.0.2", &e, err) &&
	      strstr(err, "no ports"), "icmp with port: %s", err);
	CHECK(parse1("udp 10.0.0.1:65536 10.0.0.2:53", &e, err) &&
	      strstr(err, "port"), "port 65536: %s", err);
	CHECK(parse1("udp 10.0.0.1:-1 10.0.0.2:53", &e, err), "port -1");
	CHECK(parse1("udp 10.0.0.1: 10.0.0.2:53", &e, err), "empty port");
	CHECK(parse1("udp 10.0.0.1:5x 10.0.0.2:53", &e, err), "port 5x");
	CHECK(parse1("udp 10.0.0.1 2001:db8::1", &e, err) &&
	      strstr(err, "IPv"), "mixed families: %s", err);
	CHECK(parse1("udp 10.0.0.256:1 10.0.0.2:2", &e, err) &&
	      strstr(err, "address"), "bad v4: %s", err);
	CHECK(parse1("udp 1.1.1.1 2.2.2.2 3.3.3.3", &e, err), "three endpoints");
	CHECK(parse1("", &e, err) && strstr(err, "empty"), "empty: %s", err);
	CHECK(parse1("foo", &e, err) && strstr(err, "foo"), "garbage: %s", err);
	CHECK(parse1("src 10.0.0.1 src 10.0.0.2", &e, err) &&
	      strstr(err, "twice"), "src twice: %s", err);
	CHECK(parse1("src", &e, err) && strstr(err, "value"), "src alone: %s", err);
	CHECK(parse1("[10.0.0.1]:5", &e, err), "v4 in brackets");
	CHECK(parse1("10.0.0.1 udp", &e, err), "protocol after an address");
	CHECK(parse1("udp 10.0.0.1:1, 10.0.0.2:2", &e, err), "comma in a line");
	CHECK(parse1("sport 70000", &e, err), "sport 70000");
	CHECK(parse1("proto 300", &e, err), "proto 300");
	CHECK(parse1("src fe80::1%eth0", &e, err), "zone id");
}

static void t_entry_multi(void)
{
	struct entry e;
	char err[ERRLEN];
	int n, used, i, count;
	char **w;

	w = words("udp 1.1.1.1:1 2.2.2.2:2 udp 3.3.3.3:3 4.4.4.4:4", &n);
	CHECK(!entry_parse(w, n, true, &e, &used, err, ERRLEN) && used == 3 &&
	      e.sport == 1, "first of two: used %d", used);
	CHECK(!entry_parse(w + used, n - used, true, &e, &used, err, ERRLEN) &&
	      used == 3 && e.sport == 3, "second of two");

	w = words("src 1.1.1.1 src 2.2.2.2 src 3.3.3.3", &n);
	for (i = 0, count = 0; i < n; count++) {
		if (entry_parse(w + i, n - i, true, &e, &used, err, ERRLEN))
			break;
		i += used;
	}
	CHECK(count == 3 && i == n, "three src entries: %d", count);

	w = words("1.1.1.1 , 2.2.2.2", &n);
	CHECK(!entry_parse(w, n, true, &e, &used, err, ERRLEN) && used == 2 &&
	      e.given == NF_CUCKOO_KEY_SRC_ADDR, "',' separates: used %d", used);
	w = words("1.1.1.1, 2.2.2.2", &n);
	CHECK(!entry_parse(w, n, true, &e, &used, err, ERRLEN) && used == 1 &&
	      e.given == NF_CUCKOO_KEY_SRC_ADDR, "trailing ',' separates");
	w = words("tcp 1.1.1.1:1 2.2.2.2:2 src 3.3.3.3", &n);
	CHECK(!entry_parse(w, n, true, &e, &used, err, ERRLEN) && used == 3,
	      "repeated field starts the next entry: used %d", used);
	w = words("udp 1.1.1.1:1 2.2.2.2:x", &n);
	CHECK(entry_parse(w, n, true, &e, &used, err, ERRLEN), "bad port in multi");
}

static void t_entry_check(void)
{
	struct keyspec all = { NF_CUCKOO_KEY_ALL, NF_CUCKOO_FAMILY_INET, false };
	struct keyspec src = { NF_CUCKOO_KEY_SRC_ADDR, NF_CUCKOO_FAMILY_INET, false };
	struct keyspec v4 = { NF_CUCKOO_KEY_ALL, NF_CUCKOO_FAMILY_IPV4, false };
	struct keyspec ports6 = { NF_CUCKOO_KEY_SRC_PORT | NF_CUCKOO_KEY_DST_PORT | NF_CUCKOO_KEY_PROTO,
				  NF_CUCKOO_FAMILY_IPV6, false };
	struct entry e;
	char err[ERRLEN];

	parse1("src 10.0.0.1", &e, err);
	CHECK(!entry_check(&e, &src, "f", err, ERRLEN), "src ok: %s", err);
	parse1("udp 10.0.0.1:1 10.0.0.2:2", &e, err);
	CHECK(entry_check(&e, &src, "f", err, ERRLEN) &&
	      strstr(err, "destination address") && strstr(err, "key src"),
	      "field outside the key: %s", err);
	parse1("src 10.0.0.1", &e, err);
	CHECK(entry_check(&e, &all, "f", err, ERRLEN) &&
	      strstr(err, "needs the destination address"), "missing dst: %s", err);
	parse1("icmp 10.0.0.1 10.0.0.2", &e, err);
	CHECK(!entry_check(&e, &all, "f", err, ERRLEN), "icmp without ports: %s", err);
	parse1("tcp 10.0.0.1 10.0.0.2", &e, err);
	CHECK(entry_check(&e, &all, "f", err, ERRLEN) &&
	      strstr(err, "source port"), "tcp without ports: %s", err);
	parse1("tcp [2001:db8::1]:1 [2001:db8::2]:2", &e, err);
	CHECK(entry_check(&e, &v4, "f", err, ERRLEN) && strstr(err, "IPv4 only"),
	      "wrong family: %s", err);
	/* IPv4-mapped: an IPv6 key no IPv4 packet matches. */
	parse1("udp [::ffff:10.0.0.1]:1 [2001:db8::2]:2", &e, err);
	CHECK(entry_check(&e, &all, "f", err, ERRLEN) &&
	      strstr(err, "::ffff:10.0.0.1 is an IPv4-mapped") &&
	      strstr(err, "write 10.0.0.1"), "mapped src, inet filter: %s", err);
	parse1("udp [2001:db8::2]:2 [::ffff:10.0.0.3]:1", &e, err);
	CHECK(entry_check(&e, &all, "f", err, ERRLEN) &&
	      strstr(err, "::ffff:10.0.0.3"), "mapped dst, inet filter: %s", err);
	parse1("src ::ffff:10.0.0.1", &e, err);
	CHECK(entry_check(&e, &v4, "f", err, ERRLEN) &&
	      strstr(err, "IPv4-mapped"), "mapped, ip filter: %s", err);
	{
		struct keyspec src6 = { NF_CUCKOO_KEY_SRC_ADDR, NF_CUCKOO_FAMILY_IPV6, false };

		parse1("src ::ffff:10.0.0.1", &e, err);
		CHECK(!entry_check(&e, &src6, "f", err, ERRLEN),
		      "mapped in an ip6 filter is that IPv6 address: %s", err);
		parse1("src ::fffe:10.0.0.1", &e, err);
		CHECK(!entry_check(&e, &src, "f", err, ERRLEN),
		      "not mapped: %s", err);
	}
	parse1("sport 1 dport 2 proto udp", &e, err);
	CHECK(!entry_check(&e, &ports6, "f", err, ERRLEN) &&
	      e.family == NF_CUCKOO_FAMILY_IPV6, "addressless takes the filter's family");
	parse1("sport 1 dport 2 proto udp", &e, err);
	CHECK(!entry_check(&e, &all, "f", err, ERRLEN) ? 0 :
	      strstr(err, "source address") != NULL, "addressless vs 5-tuple: %s", err);
}

/* A blocklist's lines: an address or a prefix, comments, bad lengths. */
static void t_list_lines(void)
{
	struct keyspec src = { NF_CUCKOO_KEY_SRC_ADDR, NF_CUCKOO_FAMILY_INET, false };
	struct keyspec dst = { NF_CUCKOO_KEY_DST_ADDR, NF_CUCKOO_FAMILY_INET, false };
	struct keyspec sd = { NF_CUCKOO_KEY_SRC_ADDR | NF_CUCKOO_KEY_DST_ADDR,
			      NF_CUCKOO_FAMILY_INET, false };
	struct entry e;
	char err[ERRLEN], line[64];
	uint8_t a[16];

	snprintf(line, sizeof(line), "1.10.16.0 ; SBL256894\r");
	strip_comment(line);
	CHECK(!strcmp(line, "1.10.16.0 "), "trailing ';' comment: '%s'", line);
	snprintf(line, sizeof(line), "2001:db8::1# x;y");
	strip_comment(line);
	CHECK(!strcmp(line, "2001:db8::1"), "trailing '#' comment: '%s'", line);
	snprintf(line, sizeof(line), "; Spamhaus DROP");
	strip_comment(line);
	CHECK(line_is_blank(line), "whole-line ';' comment");
	snprintf(line, sizeof(line), " \t\r");
	CHECK(line_is_blank(line), "blanks and CR");

	CHECK(!parse1("192.0.2.7", &e, err) && e.bare &&
	      e.given == NF_CUCKOO_KEY_SRC_ADDR, "an address alone is bare");
	CHECK(!parse1("src 192.0.2.7", &e, err) && !e.bare, "src ADDR is not bare");
	CHECK(!parse1("192.0.2.7 192.0.2.8", &e, err) && !e.bare,
	      "two addresses are not bare");
	CHECK(!parse1("192.0.2.7:80", &e, err) && !e.bare,
	      "an address with a port is not bare");
	parse1("192.0.2.7\r", &e, err);
	CHECK(!entry_check(&e, &src, "f", err, ERRLEN) &&
	      e.given == NF_CUCKOO_KEY_SRC_ADDR, "bare to a src key: %s", err);
	parse1("192.0.2.7", &e, err);
	inet_pton(AF_INET, "192.0.2.7", a);
	CHECK(!entry_check(&e, &dst, "f", err, ERRLEN) &&
	      e.given == NF_CUCKOO_KEY_DST_ADDR && !memcmp(e.dst, a, 4) &&
	      !memcmp(e.src, "\0\0\0\0", 4) && e.family == NF_CUCKOO_FAMILY_IPV4,
	      "bare to a dst key: %s", err);
	parse1("src 192.0.2.7", &e, err);
	CHECK(entry_check(&e, &dst, "f", err, ERRLEN), "src ADDR to a dst key");
	parse1("192.0.2.7", &e, err);
	CHECK(entry_check(&e, &sd, "f", err, ERRLEN) &&
	      strstr(err, "src or dst alone"), "bare to src,dst: %s", err);

	CHECK(!parse1("192.0.2.7/32", &e, err) && e.bare &&
	      !memcmp(e.src, a, 4) && !e.src_plen, "/32 is the address: %s", err);
	inet_pton(AF_INET6, "2001:db8::1", a);
	CHECK(!parse1("2001:db8::1/128", &e, err) && !memcmp(e.src, a, 16) &&
	      e.family == NF_CUCKOO_FAMILY_IPV6 && !e.src_plen,
	      "/128 is the address: %s", err);
	CHECK(!parse1("dst 2001:db8::1/128", &e, err) &&
	      e.given == NF_CUCKOO_KEY_DST_ADDR, "dst ADDR/128: %s", err);
	CHECK(!parse1("1.10.16.0/20", &e, err) && e.bare && e.src_plen == 20 &&
	      e.given == NF_CUCKOO_KEY_SRC_ADDR, "a prefix: %s", err);
	CHECK(!parse1("2001:db8::/32", &e, err) && e.src_plen == 32 &&
	      e.family == NF_CUCKOO_FAMILY_IPV6, "an IPv6 prefix: %s", err);
	CHECK(!parse1("src 2001:db8::/32 dst 198.51.100.7", &e, err) == 0 &&
	      strstr(err, "IPv"), "prefix and address of two families: %s", err);
	CHECK(!parse1("udp src 10.0.0.0/8 sport 53 dst 192.0.2.0/24 dport 1",
		      &e, err) && e.src_plen == 8 && e.dst_plen == 24 &&
	      e.sport == 53 && e.dport == 1, "prefixes with keywords: %s", err);
	CHECK(parse1("0.0.0.0/0", &e, err) && strstr(err, "/0 prefix"),
	      "/0 is refused: %s", err);
	CHECK(parse1("::/0", &e, err) && strstr(err, "/0 prefix"),
	      "::/0 is refused: %s", err);
	parse1("1.10.16.0/20", &e, err);
	CHECK(!entry_check(&e, &dst, "f", err, ERRLEN) &&
	      e.given == NF_CUCKOO_KEY_DST_ADDR && e.dst_plen == 20 &&
	      !e.src_plen, "a bare prefix to a dst key: %s", err);
	{
		struct keyspec bi = { NF_CUCKOO_KEY_SRC_ADDR | NF_CUCKOO_KEY_DST_ADDR,
				      NF_CUCKOO_FAMILY_INET, true };

		parse1("src 10.0.0.0/8 dst 192.0.2.1", &e, err);
		CHECK(entry_check(&e, &bi, "f", err, ERRLEN) &&
		      strstr(err, "bidirectional"), "prefix, bidirectional: %s",
		      err);
	}
	CHECK(parse1("10.0.0.1/8", &e, err) && strstr(err, "bits set"),
	      "host bits: %s", err);
	CHECK(!parse1("10.128.0.0/9", &e, err) && e.src_plen == 9,
	      "/9, no host bits: %s", err);
	CHECK(parse1("10.192.0.0/9", &e, err) && strstr(err, "bits set"),
	      "/9, a host bit in the partial byte: %s", err);
	CHECK(parse1("2001:db8::1/64", &e, err) && strstr(err, "bits set"),
	      "IPv6 host bits: %s", err);
	CHECK(parse1("10.0.0.0/33", &e, err) && strstr(err, "/33"),
	      "/33: %s", err);
	CHECK(parse1("2001:db8::/129", &e, err) && strstr(err, "/129"),
	      "/129: %s", err);
	CHECK(parse1("10.0.0.0/1000", &e, err) && strstr(err, "prefix length"),
	      "/1000: %s", err);
	CHECK(parse1("10.0.0.0/", &e, err) && strstr(err, "prefix length"),
	      "empty length: %s", err);
	CHECK(parse1("10.0.0.0/-8", &e, err) && strstr(err, "prefix length"),
	      "negative length: %s", err);
	CHECK(parse1("10.0.0.0/8:80", &e, err) && strstr(err, "prefix length"),
	      "prefix with a port: %s", err);
	CHECK(parse1("src 10.0.0.0/33", &e, err) && strstr(err, "/33"),
	      "src ADDR/33: %s", err);
	CHECK(parse1("10.0.0/8", &e, err), "bad address with a length");
	CHECK(parse1("/8", &e, err), "length alone");
}

static void t_entry_format(void)
{
	static const char *const in[] = {
		"udp 10.0.0.1:5353 10.0.0.2:53",
		"tcp [2001:db8::1]:443 [2001:db8::2]:50000",
		"10.0.0.1",
		"dst 10.0.0.2",
		"sport 53 dport 54 proto udp",
		"icmp 10.0.0.1 10.0.0.2",
		"200 10.0.0.1 10.0.0.2",
		"dst [2001:db8::2]:80",
		"10.0.0.0/8",
		"dst 2001:db8::/32",
		"udp src 10.0.0.0/8 sport 53 dst 192.0.2.0/24 dport 1",
		"tcp 10.0.0.0/8 192.0.2.1:80",
	};
	struct entry a, b;
	char err[ERRLEN], buf[160];
	size_t i;

	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		CHECK(!parse1(in[i], &a, err), "parse '%s': %s", in[i], err);
		entry_format(&a, buf, sizeof(buf));
		CHECK(!parse1(buf, &b, err) && !memcmp(&a, &b, sizeof(a)),
		      "'%s' -> '%s' does not read back the same", in[i], buf);
	}
	parse1("udp 10.0.0.1:5353 10.0.0.2:53", &a, err);
	entry_format(&a, buf, sizeof(buf));
	CHECK(!strcmp(buf, "udp 10.0.0.1:5353 10.0.0.2:53"), "canonical: %s", buf);
}

static void t_base64(void)
{
	static const char *const v[][2] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" },
		{ "foobar", "Zm9vYmFy" },
	};
	uint8_t in[300], out[300];
	char enc[420];
	size_t i, n;
	long got;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		b64_encode((const uint8_t *)v[i][0], strlen(v[i][0]), enc);
		CHECK(!strcmp(enc, v[i][1]), "encode '%s': %s", v[i][0], enc);
		got = b64_decode(v[i][1], strlen(v[i][1]), out);
		CHECK(got == (long)strlen(v[i][0]) &&
		      !memcmp(out, v[i][0], (size_t)got), "decode %s", v[i][1]);
	}
	CHECK(b64_decode("Zm9", 3, out) < 0, "length not a multiple of 4");
	CHECK(b64_decode("Zm=v", 4, out) < 0, "padding inside");
	CHECK(b64_decode("Z===", 4, out) < 0, "three pads");
	CHECK(b64_decode("Zh==", 4, out) < 0, "non-canonical bits");
	CHECK(b64_decode("Zm9v!A==", 8, out) < 0, "bad character");
	srand(1);
	for (n = 0; n < 300; n++) {
		for (i = 0; i < n; i++)
			in[i] = (uint8_t)rand();
		b64_encode(in, n, enc);
		CHECK(strlen(enc) == b64_enc_len(n), "length %zu", n);
		got = b64_decode(enc, strlen(enc), out);
		CHECK(got == (long)n && !memcmp(in, out, n), "round trip %zu", n);
	}
}

static int spec(const char *s, struct filter_spec *fs, bool set, bool image,
		char *err)
{
	int n;
	char **w = words(s, &n);

	memset(fs, 0, sizeof(*fs));
	return parse_filter_spec(w, n, fs, set, image, err, ERRLEN);
}

static void t_filter_spec(void)
{
	struct filter_spec fs;
	char err[ERRLEN];

	CHECK(!spec("family ip key src capacity 1M fpr 0.001 bucket 8 kicks 100 seed 7 hook input priority -10 action mark 0x10/0xff bidirectional invert disabled",
		    &fs, false, false, err), "full create: %s", err);
	CHECK(fs.family == NF_CUCKOO_FAMILY_IPV4 && fs.key_fields == NF_CUCKOO_KEY_SRC_ADDR &&
	      fs.capacity == 1000000 && fs.fpr_ppb == 1000000 && fs.bucket == 8 &&
	      fs.kicks == 100 && fs.seed == 7 && fs.hook == NF_CUCKOO_HOOK_INPUT &&
	      fs.priority == -10 && fs.action == NF_CUCKOO_ACTION_MARK &&
	      fs.mark == 16 && fs.mark_mask == 255 && fs.bidir && fs.invert &&
	      !fs.enabled && (fs.have & HAVE_ENABLED), "full create fields");
	CHECK(spec("fpr 0.01 fingerprint 8", &fs, false, false, err) &&
	      strstr(err, "not both"), "fpr and fingerprint: %s", err);
	CHECK(spec("capacity 0", &fs, false, false, err), "capacity 0");
	CHECK(spec("capacity lots", &fs, false, false, err), "capacity lots");
	CHECK(spec("fingerprint 5", &fs, false, false, err), "fingerprint 5");
	CHECK(spec("fingerprint 33", &fs, false, false, err), "fingerprint 33");
	CHECK(spec("bucket 3", &fs, false, false, err), "bucket 3");
	CHECK(!spec("fpr 0.001 semisort", &fs, false, false, err) &&
	      (fs.have & HAVE_ENCODING) &&
	      fs.encoding == NF_CUCKOO_ENCODING_SEMISORT, "semisort: %s", err);
	CHECK(!spec("fpr 0.001 nosemisort", &fs, false, false, err) &&
	      (fs.have & HAVE_ENCODING) &&
	      fs.encoding == NF_CUCKOO_ENCODING_PLAIN, "nosemisort: %s", err);
	CHECK(!spec("fpr 0.001", &fs, false, false, err) &&
	      !(fs.have & HAVE_ENCODING), "no encoding given: the module's choice");
	CHECK(!spec("semisort bucket 4 fingerprint 13", &fs, false, false, err),
	      "semisort bucket 4: %s", err);
	CHECK(spec("semisort bucket 8", &fs, false, false, err) &&
	      !strcmp(err, "semi-sorted buckets need bucket size 4"),
	      "semisort bucket 8, the module's words: %s", err);
	CHECK(spec("bucket 2 semisort", &fs, false, false, err) &&
	      !strcmp(err, "semi-sorted buckets need bucket size 4"),
	      "bucket 2 semisort: %s", err);
	CHECK(!spec("nosemisort bucket 2", &fs, false, false, err),
	      "nosemisort bucket 2: %s", err);
	CHECK(spec("semisort nosemisort", &fs, false, false, err) &&
	      strstr(err, "twice"), "semisort nosemisort: %s", err);
	CHECK(spec("semisort", &fs, true, false, err) && strstr(err, "fixed"),
	      "set semisort: %s", err);
	CHECK(spec("kicks 0", &fs, false, false, err), "kicks 0");
	CHECK(spec("kicks 8193", &fs, false, false, err), "kicks 8193");
	CHECK(spec("capacity", &fs, false, false, err) && strstr(err, "value"),
	      "capacity without value: %s", err);
	CHECK(spec("capacity 5 capacity 6", &fs, false, false, err) &&
	      strstr(err, "twice"), "twice: %s", err);
	CHECK(spec("colour blue", &fs, false, false, err) &&
	      strstr(err, "unknown parameter"), "unknown: %s", err);
	CHECK(spec("action reject", &fs, false, false, err), "action reject");
	CHECK(spec("action mark", &fs, false, false, err), "mark without value");
	CHECK(!spec("action count", &fs, false, false, err) &&
	      fs.action == NF_CUCKOO_ACTION_NONE, "count");
	CHECK(spec("capacity 5", &fs, true, false, err) && strstr(err, "fixed"),
	      "set capacity: %s", err);
	CHECK(!spec("invert off enable action drop", &fs, true, false, err) &&
	      !fs.invert && fs.enabled && (fs.have & HAVE_INVERT),
	      "set invert off enable: %s", err);
	CHECK(!spec("noinvert disable", &fs, true, false, err) && !fs.enabled &&
	      (fs.have & HAVE_ENABLED), "set noinvert disable");
	CHECK(spec("image Zm9v", &fs, false, false, err) && strstr(err, "restore"),
	      "image outside restore: %s", err);
	CHECK(!spec("family ip image Zm9vYmFy", &fs, false, true, err) &&
	      fs.nimages == 1 && fs.image_len[0] == 6 &&
	      !memcmp(fs.image[0], "foobar", 6), "image: %s", err);
	filter_spec_free(&fs);
	CHECK(spec("image !!!!", &fs, false, true, err), "bad image");
	filter_spec_free(&fs);
	CHECK(spec("image Zm9v image !!!!", &fs, false, true, err),
	      "bad second image");
	filter_spec_free(&fs);
	CHECK(spec("seed 1 image Zm9v", &fs, false, true, err), "seed with image");
	filter_spec_free(&fs);

	/* Growth (issue 20): grow by default, so nothing unless given. */
	CHECK(!spec("capacity 1000", &fs, false, false, err) &&
	      !(fs.have & (HAVE_GROW | HAVE_FACTOR | HAVE_STAGES)),
	      "no growth words: the module's defaults");
	CHECK(!spec("grow factor 4 stages 16", &fs, false, false, err) &&
	      (fs.have & HAVE_GROW) && fs.grow && fs.factor == 4 &&
	      fs.stages == 16, "grow factor 4 stages 16: %s", err);
	CHECK(!spec("nogrow", &fs, false, false, err) && (fs.have & HAVE_GROW) &&
	      !fs.grow, "nogrow: %s", err);
	CHECK(!spec("nogrow factor 2 stages 1", &fs, false, false, err),
	      "nogrow with factor and stages (set may turn growth on): %s", err);
	CHECK(spec("grow nogrow", &fs, false, false, err) &&
	      !strcmp(err, "give grow or nogrow, not both"),
	      "grow nogrow: %s", err);
	CHECK(spec("nogrow capacity 5 grow", &fs, false, false, err) &&
	      !strcmp(err, "give grow or nogrow, not both"),
	      "nogrow ... grow: %s", err);
	CHECK(spec("grow grow", &fs, false, false, err) && strstr(err, "twice"),
	      "grow twice: %s", err);
	CHECK(spec("factor 1", &fs, false, false, err) &&
	      strstr(err, "bad growth factor '1' (want 2 to 8"),
	      "factor 1: %s", err);
	CHECK(spec("factor 9", &fs, false, false, err) &&
	      strstr(err, "bad growth factor '9'"), "factor 9: %s", err);
	CHECK(spec("factor two", &fs, false, false, err), "factor two");
	CHECK(spec("factor", &fs, false, false, err) && strstr(err, "value"),
	      "factor without value: %s", err);
	CHECK(!spec("factor 8 stages 1", &fs, false, false, err),
	      "factor 8 stages 1: %s", err);
	CHECK(spec("stages 0", &fs, false, false, err) &&
	      strstr(err, "bad number of stages '0' (want 1 to 16"),
	      "stages 0: %s", err);
	CHECK(spec("stages 17", &fs, false, false, err) &&
	      strstr(err, "bad number of stages '17'"), "stages 17: %s", err);
	CHECK(spec("stages 2 stages 3", &fs, false, false, err) &&
	      strstr(err, "twice"), "stages twice: %s", err);
	CHECK(!spec("grow", &fs, true, false, err) && (fs.have & HAVE_GROW) &&
	      fs.grow, "set grow: %s", err);
	CHECK(!spec("nogrow disable", &fs, true, false, err) &&
	      (fs.have & HAVE_GROW) && !fs.grow && !fs.enabled,
	      "set nogrow disable: %s", err);
	CHECK(spec("grow nogrow", &fs, true, false, err) &&
	      strstr(err, "not both"), "set grow nogrow: %s", err);
	CHECK(spec("factor 4", &fs, true, false, err) && strstr(err, "fixed") &&
	      strstr(err, "grow/nogrow"), "set factor: %s", err);
	CHECK(spec("stages 4", &fs, true, false, err) && strstr(err, "fixed"),
	      "set stages: %s", err);

	/* A restore's create line: an image per stage, oldest first. */
	CHECK(!spec("grow factor 2 stages 8 image Zm9v image YmFy", &fs, false,
		    true, err) && fs.nimages == 2 && fs.image_len[1] == 3 &&
	      !memcmp(fs.image[1], "bar", 3), "two images: %s", err);
	filter_spec_free(&fs);
	CHECK(fs.nimages == 0 && !fs.image[0] && !fs.image[1],
	      "filter_spec_free forgets every image");
	CHECK(spec("stages 1 image Zm9v image YmFy", &fs, false, true, err) &&
	      strstr(err, "2 images (stages) but at most 1 stages"),
	      "more images than stages: %s", err);
	filter_spec_free(&fs);
	{
		char line[2048] = "";
		int i;

		for (i = 0; i < 9; i++)
			strcat(line, "image Zm9v ");
		CHECK(spec(line, &fs, false, true, err) &&
		      strstr(err, "at most 8 stages: give 'stages 9'"),
		      "9 images, stages by default: %s", err);
		filter_spec_free(&fs);
		CHECK(!spec(strcat(line, "stages 9"), &fs, false, true, err) &&
		      fs.nimages == 9, "9 images with stages 9: %s", err);
		filter_spec_free(&fs);
		line[0] = 0;
		for (i = 0; i < 17; i++)
			strcat(line, "image Zm9v ");
		CHECK(spec(line, &fs, false, true, err) &&
		      strstr(err, "more than 16 'image' words"),
		      "17 images: %s", err);
		filter_spec_free(&fs);
	}
}

/*
 * The IPv4 fast path reads what the general parser reads, and the same:
 * lines made of pieces near its edges, parsed both ways.
 */
static void t_entry_fast_path(void)
{
	static const char *const protos[] = {
		"", "udp ", "tcp ", "sctp ", "udplite ", "dccp ", "UDP ", "17 ",
		"6 ", "icmp ", "gre ", "src ", "proto ", "udp, ", "x ", "ip ",
		"tdp ", "ucp ", "ud ", "tc ", "udpp ", "tcp6 ", "Tcp ", "uDP ",
	};
	static const char *const octets[] = {
		"0", "1", "9", "10", "99", "100", "199", "255", "256", "300",
		"01", "00", "001", "1000", "", "a", "-1", " 1",
	};
	static const char *const ports[] = {
		"0", "1", "53", "65535", "65536", "99999", "00080", "000000",
		"123456", "", "x", "80,", "0x50",
	};
	static const char *const seps[] = { ".", ".", ".", ".", ":", ",", "" };
	char line[256], ep[2][64], err1[ERRLEN], err2[ERRLEN];
	unsigned int seed = 1, i, j, k, fast = 0, agree = 0;
	struct entry e1, e2;
	int n, r1, r2, u1, u2;
	char **w;

	for (i = 0; i < 200000; i++) {
		for (j = 0; j < 2; j++) {
			size_t off = 0;

			for (k = 0; k < 4; k++) {
				const char *o = rand_r(&seed) % 4 ? octets[rand_r(&seed) % 8] :
					octets[rand_r(&seed) % (sizeof(octets) / sizeof(octets[0]))];
				const char *sep = k < 3 ? (rand_r(&seed) % 16 ? "." :
					seps[rand_r(&seed) % 7]) : "";

				off += (size_t)snprintf(ep[j] + off, sizeof(ep[j]) - off,
							"%s%s", o, sep);
			}
			if (rand_r(&seed) % 8)
				snprintf(ep[j] + off, sizeof(ep[j]) - off, ":%s",
					 rand_r(&seed) % 2 ? ports[rand_r(&seed) % 4] :
					 ports[rand_r(&seed) % (sizeof(ports) / sizeof(ports[0]))]);
		}
		snprintf(line, sizeof(line), "%s%s %s",
			 protos[rand_r(&seed) % (sizeof(protos) / sizeof(protos[0]))],
			 ep[0], ep[1]);
		entry_fast_path = true;
		w = words(line, &n);
		r1 = entry_parse(w, n, false, &e1, &u1, err1, ERRLEN);
		entry_fast_path = false;
		w = words(line, &n);
		r2 = entry_parse(w, n, false, &e2, &u2, err2, ERRLEN);
		entry_fast_path = true;
		fast += !r1;
		if (r1 == r2 && (r1 || (u1 == u2 && !memcmp(&e1, &e2, sizeof(e1)))))
			agree++;
		else
			CHECK(0, "'%s': fast path %d, general %d (%s)", line, r1,
			      r2, err2);
	}
	CHECK(agree == i, "%u of %u lines read alike", agree, i);
	CHECK(fast > i / 20, "only %u of %u lines parsed", fast, i);
}

/* read_line() over the bytes of s (n of them). */
static FILE *mem(const char *s, size_t n)
{
	FILE *f = fmemopen((void *)s, n, "r");

	if (!f) {
		perror("fmemopen");
		exit(2);
	}
	return f;
}

static void t_line_reader(void)
{
	static const char text[] = "one two\r\n\n# c\n  # c\nlast";
	struct line_reader lr;
	char err[ERRLEN], *line, *big;
	size_t len;
	FILE *f;
	int r;

	f = mem(text, sizeof(text) - 1);
	CHECK(!line_reader_init(&lr, f), "init");
	r = read_line(&lr, &line, &len, err, ERRLEN);
	CHECK(r == 1 && len == 8 && !strcmp(line, "one two\r") && lr.lineno == 1,
	      "line 1: %d '%s'", r, line);
	r = read_line(&lr, &line, &len, err, ERRLEN);
	CHECK(r == 1 && len == 0 && line_is_blank(line), "line 2 empty");
	r = read_line(&lr, &line, &len, err, ERRLEN);
	CHECK(r == 1 && line_is_blank(line), "line 3 comment");
	r = read_line(&lr, &line, &len, err, ERRLEN);
	CHECK(r == 1 && line_is_blank(line), "line 4 indented comment");
	r = read_line(&lr, &line, &len, err, ERRLEN);
	CHECK(r == 1 && !strcmp(line, "last") && lr.lineno == 5,
	      "last line without a newline");
	CHECK(read_line(&lr, &line, &len, err, ERRLEN) == 0, "end");
	CHECK(read_line(&lr, &line, &len, err, ERRLEN) == 0, "end again");
	fclose(f);
	line_reader_free(&lr);
	CHECK(!line_is_blank("a # b") && !line_is_blank(" x"), "not blank");

	/* A NUL byte no longer cuts the line silently. */
	f = mem("ok\nsrc 1.2.3.4\0 src 5.6.7.8\n", 28);
	line_reader_init(&lr, f);
	read_line(&lr, &line, &len, err, ERRLEN);
	r = read_line(&lr, &line, &len, err, ERRLEN);
	CHECK(r == -1 && lr.lineno == 2 && strstr(err, "NUL byte at byte 12"),
	      "NUL: %d line %u: %s", r, lr.lineno, err);
	fclose(f);
	line_reader_free(&lr);

	/* LINE_MAX_BYTES is the most; one more is an error of that line. */
	big = malloc(LINE_MAX_BYTES + 2);
	memset(big, 'a', LINE_MAX_BYTES + 1);
	big[LINE_MAX_BYTES] = '\n';
	f = mem(big, LINE_MAX_BYTES + 1);
	line_reader_init(&lr, f);
	r = read_line(&lr, &line, &len, err, ERRLEN);
	CHECK(r == 1 && len == LINE_MAX_BYTES, "a line of the most bytes: %d", r);
	fclose(f);
	line_reader_free(&lr);
	big[LINE_MAX_BYTES] = 'a';
	big[LINE_MAX_BYTES + 1] = '\n';
	f = mem(big, LINE_MAX_BYTES + 2);
	line_reader_init(&lr, f);
	r = read_line(&lr, &line, &len, err, ERRLEN);
	CHECK(r == -1 && lr.lineno == 1 && strstr(err, "longer than 65536 bytes"),
	      "one byte more: %d: %s", r, err);
	fclose(f);
	line_reader_free(&lr);
	free(big);

	/* /dev/zero: an error at once, not a buffer growing without end. */
	f = fopen("/dev/zero", "r");
	CHECK(f, "open /dev/zero");
	if (f) {
		line_reader_init(&lr, f);
		r = read_line(&lr, &line, &len, err, ERRLEN);
		CHECK(r == -1 && strstr(err, "NUL"), "/dev/zero: %d %s", r, err);
		fclose(f);
		line_reader_free(&lr);
	}
	/* A read error is not the end of the input. */
	f = fopen(".", "r");
	CHECK(f, "open .");
	if (f) {
		line_reader_init(&lr, f);
		r = read_line(&lr, &line, &len, err, ERRLEN);
		CHECK(r == -2 && strstr(err, "read error at line 1"),
		      "a directory: %d %s", r, err);
		fclose(f);
		line_reader_free(&lr);
	}
}

static void t_cmdline(void)
{
	char a0[] = "udp 1.1.1.1:1 2.2.2.2:2", a1[] = "src", a2[] = "3.3.3.3";
	char a3[] = ",", a4[] = " , ,", many[200];
	char *argv[] = { a0, a1, a2 }, *seps[] = { a3, a4 }, *toomany[] = { many };
	char err[ERRLEN], **w;
	int nw, i;

	w = cmdline_words(3, argv, &nw, err, ERRLEN);
	CHECK(w && nw == 7 && !strcmp(w[0], ",") && !strcmp(w[1], "udp") &&
	      !strcmp(w[3], "2.2.2.2:2") && !strcmp(w[4], ",") &&
	      w[5] == a1 && w[6] == a2, "words: %d", nw);
	CHECK(!strcmp(a0, "udp 1.1.1.1:1 2.2.2.2:2"), "the argument is left alone");
	free(w);	/* all of it: the ASan build's LeakSanitizer checks */
	w = cmdline_words(2, seps, &nw, err, ERRLEN);
	free(w);
	many[0] = 0;
	for (i = 0; i < ENTRY_MAX_WORDS + 1; i++)
		strcat(many, "x ");
	w = cmdline_words(1, toomany, &nw, err, ERRLEN);
	CHECK(!w && nw == -1 && strstr(err, "too many words"), "too many: %s", err);

	CHECK(cmdline_has_entry(3, argv), "entries");
	CHECK(!cmdline_has_entry(2, seps), "',' alone is no entry");
	CHECK(!cmdline_has_entry(0, argv), "nothing");
}

static void t_image_header(void)
{
	struct cf_image img = {
		.magic = CF_IMAGE_MAGIC, .version = CF_IMAGE_VERSION,
		.table_bytes = 123456,
	};
	uint8_t raw[sizeof(img)];
	uint64_t tb = 0;

	/* cfctl's copy of the layout is the module's. */
	CHECK(sizeof(img) == 48 && offsetof(struct cf_image, table_bytes) == 40 &&
	      offsetof(struct cf_image, version) == 4 && CF_IMAGE_VERSION == 4 &&
	      CF_IMAGE_VERSION_MIN == 2 && CF_IMAGE_MAGIC == 0x46435543U,
	      "struct cf_image moved");
	memcpy(raw, &img, sizeof(img));
	CHECK(!image_table_bytes(raw, sizeof(raw), &tb) && tb == 123456,
	      "table bytes %llu", (unsigned long long)tb);
	CHECK(image_table_bytes(raw, sizeof(raw) - 1, &tb), "short header");
	raw[4] = 1;
	CHECK(image_table_bytes(raw, sizeof(raw), &tb), "version 1");
	raw[4] = 5;
	CHECK(image_table_bytes(raw, sizeof(raw), &tb), "version 5");
	raw[4] = 3;
	CHECK(!image_table_bytes(raw, sizeof(raw), &tb) && tb == 123456,
	      "version 3");
	raw[4] = 2;
	CHECK(!image_table_bytes(raw, sizeof(raw), &tb) && tb == 123456,
	      "version 2");
	raw[0] ^= 1;
	CHECK(image_table_bytes(raw, sizeof(raw), &tb), "bad magic");
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "numbers: strict decimal/hex, ranges", t_numbers },
	{ "capacity suffixes and false-positive rates", t_capacity_fpr },
	{ "ports, protocols, families, hooks, priorities, marks, keys, names", t_words },
	{ "entries: one per line", t_entry_parse },
	{ "entries: the IPv4 fast path reads as the general parser", t_entry_fast_path },
	{ "entries: several on a command line", t_entry_multi },
	{ "entries against a filter's key and family", t_entry_check },
	{ "blocklist lines: addresses, comments, prefixes refused", t_list_lines },
	{ "entries print back as they read", t_entry_format },
	{ "base64 (RFC 4648 vectors, round trips, bad input)", t_base64 },
	{ "create and set parameters, growth included", t_filter_spec },
	{ "input lines: bounded, no NUL, comments, read errors", t_line_reader },
	{ "entries on the command line: words, separators, no leak", t_cmdline },
	{ "the table size an image header declares", t_image_header },
};

int main(void)
{
	size_t i, n = sizeof(tests) / sizeof(tests[0]);
	int failed = 0;

	printf("TAP version 13\n1..%zu\n", n);
	for (i = 0; i < n; i++) {
		fails = 0;
		tests[i].fn();
		printf("%sok %zu - cfctl parse: %s\n", fails ? "not " : "", i + 1,
		       tests[i].name);
		failed += fails != 0;
	}
	return failed ? 1 : 0;
}
