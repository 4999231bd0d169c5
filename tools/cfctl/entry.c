// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: entries, written as a person writes a flow.
 *
 *   [PROTO] SRC[:PORT] [DST[:PORT]] [KEYWORD VALUE]...
 *   KEYWORD VALUE...	src ADDR[:PORT], dst ADDR[:PORT], sport N, dport N,
 *			proto P
 *
 * IPv6 addresses with a port go in brackets: [2001:db8::1]:443.  The
 * filter's key decides which fields an entry must give and may give.  An
 * address may be a prefix, ADDR/LEN (/32 and /128 being the address).  A
 * line of a blocklist is one address or prefix alone; for a filter keyed
 * on src or dst alone it is that field.
 * Pure functions: test_parse.c tests them.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cfctl.h"

static void seterr(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int split_words(char *line, char **w, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		while (is_blank(*p))
			p++;
		if (!*p)
			return n;
		if (n == max)
			return -1;
		w[n++] = p;
		/* Most bytes of a word are above ' ': one test for them. */
		while ((unsigned char)*p > ' ' || (*p && !is_blank(*p)))
			p++;
		if (*p)
			*p++ = 0;
	}
}

bool cmdline_has_entry(int argc, char **argv)
{
	const char *p;
	int i;

	for (i = 0; i < argc; i++)
		for (p = argv[i]; *p; p++)
			if (!is_blank(*p) && *p != ',')
				return true;
	return false;
}

/*
 * The words and the copies of the arguments they point into are one
 * allocation, so that the caller's free(w) frees both.
 */
char **cmdline_words(int argc, char **argv, int *nw, char *err,
		     size_t errlen)
{
	size_t nptr = (size_t)argc * (ENTRY_MAX_WORDS + 2) + 1, bytes = 0;
	char **w, *copy;
	int i, k, n = 0;

	*nw = 0;
	for (i = 0; i < argc; i++)
		if (strpbrk(argv[i], " \t"))
			bytes += strlen(argv[i]) + 1;
	w = malloc(nptr * sizeof(*w) + bytes);
	if (!w)
		return NULL;
	copy = (char *)(w + nptr);
	for (i = 0; i < argc; i++) {
		if (!strpbrk(argv[i], " \t")) {
			w[n++] = argv[i];
			continue;
		}
		strcpy(copy, argv[i]);
		w[n++] = ",";
		k = split_words(copy, w + n, ENTRY_MAX_WORDS);
		if (k < 0) {
			seterr(err, errlen, "too many words in entry '%s'",
			       argv[i]);
			free(w);
			*nw = -1;
			return NULL;
		}
		copy += strlen(argv[i]) + 1;
		n += k;
		w[n++] = ",";
	}
	*nw = n;
	return w;
}

void strip_comment(char *line)
{
	char *c = strpbrk(line, "#;");

	if (c)
		*c = 0;
}

bool line_is_blank(const char *line)
{
	while (is_blank(*line))
		line++;
	return !*line || *line == '#';
}

int line_reader_init(struct line_reader *lr, FILE *f)
{
	lr->f = f;
	lr->lineno = 0;
	lr->buf = malloc(LINE_MAX_BYTES + 1);
	return lr->buf ? 0 : -1;
}

void line_reader_free(struct line_reader *lr)
{
	free(lr->buf);
	lr->buf = NULL;
}

/*
 * Not getline(): it grows its buffer for as long as no newline comes
 * (-f /dev/zero takes all memory), and on glibc a failed allocation
 * returns -1 with neither ferror() nor feof() set, which reads as the end
 * of the input.  A fixed buffer makes a huge line an error of that line.
 */
int read_line(struct line_reader *lr, char **line, size_t *len, char *err,
	      size_t errlen)
{
	size_t n = 0;
	int c;

	for (;;) {
		c = getc_unlocked(lr->f);
		if (c == '\n' || c == EOF)
			break;
		if (!c) {
			lr->lineno++;
			seterr(err, errlen, "a NUL byte at byte %zu: not a text line",
			       n + 1);
			return -1;
		}
		if (n == LINE_MAX_BYTES) {
			lr->lineno++;
			seterr(err, errlen, "the line is longer than %d bytes",
			       LINE_MAX_BYTES);
			return -1;
		}
		lr->buf[n++] = (char)c;
	}
	if (c == EOF && ferror(lr->f)) {
		seterr(err, errlen, "read error at line %u: %s",
		       lr->lineno + 1, strerror(errno ? errno : EIO));
		return -2;
	}
	if (c == EOF && !n)
		return 0;
	lr->buf[n] = 0;
	lr->lineno++;
	*line = lr->buf;
	*len = n;
	return 1;
}

/* An address alone: IPv4 dotted quad, or IPv6 (bare or in brackets). */
static int parse_addr(const char *s, uint8_t *addr, uint8_t *family)
{
	char buf[INET6_ADDRSTRLEN + 2];
	size_t len = strlen(s);

	if (len >= 2 && s[0] == '[' && s[len - 1] == ']') {
		if (len - 2 >= sizeof(buf))
			return -1;
		memcpy(buf, s + 1, len - 2);
		buf[len - 2] = 0;
		if (inet_pton(AF_INET6, buf, addr) != 1)
			return -1;
		*family = NF_CUCKOO_FAMILY_IPV6;
		return 0;
	}
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, s, addr) == 1) {
		*family = NF_CUCKOO_FAMILY_IPV4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, addr) == 1) {
		*family = NF_CUCKOO_FAMILY_IPV6;
		return 0;
	}
	return -1;
}

/* Are the bits of addr past the first plen (of 8 * bytes) all zero? */
static bool host_bits_clear(const uint8_t *addr, unsigned int plen,
			    unsigned int bytes)
{
	unsigned int i = plen / 8;

	if (plen % 8 && (addr[i++] & (0xffu >> (plen % 8))))
		return false;
	for (; i < bytes; i++)
		if (addr[i])
			return false;
	return true;
}

/*
 * ADDR/LEN, the slash at slash: *plen is LEN, 0 for the full length (/32,
 * /128: the address).  Returns 0, -1 if ADDR is not an address, -2 with
 * err set for a bad length, /0, or bits set past the length.
 */
static int parse_prefix(const char *s, const char *slash, uint8_t *addr,
			uint8_t *family, uint8_t *plen_out, char *err,
			size_t errlen)
{
	char buf[INET6_ADDRSTRLEN + 2];
	const char *l = slash + 1, *p;
	unsigned int plen = 0, max;
	size_t alen = (size_t)(slash - s);

	if (!alen || alen >= sizeof(buf))
		return -1;
	memcpy(buf, s, alen);
	buf[alen] = 0;
	if (parse_addr(buf, addr, family))
		return -1;
	max = *family == NF_CUCKOO_FAMILY_IPV4 ? 32 : 128;
	for (p = l; *p >= '0' && *p <= '9' && p - l < 4; p++)
		plen = plen * 10 + (unsigned int)(*p - '0');
	if (p == l || *p) {
		seterr(err, errlen, "bad prefix length in '%s' (want ADDR/LEN, LEN 0 to %u for %s; no port with a prefix)",
		       s, max, max == 32 ? "IPv4" : "IPv6");
		return -2;
	}
	if (plen > max) {
		seterr(err, errlen, "prefix length /%u in '%s' is past the end of an %s address (/0 to /%u)",
		       plen, s, max == 32 ? "IPv4" : "IPv6", max);
		return -2;
	}
	if (plen == max)
		return 0;
	if (!plen) {
		seterr(err, errlen, "'%s': a /0 prefix holds every address; leave the address out of the filter's key instead",
		       s);
		return -2;
	}
	if (!host_bits_clear(addr, plen, max / 8)) {
		seterr(err, errlen, "'%s' has address bits set past its prefix length /%u (refused, not rounded down: check the line)",
		       s, plen);
		return -2;
	}
	*plen_out = (uint8_t)plen;
	return 0;
}

/*
 * ADDR, ADDR:PORT or ADDR/LEN.  Returns 1 with a port, 0 without, -1 if
 * the word is not an endpoint at all, -2 if it looks like one with a bad
 * port or prefix (err set).
 */
static int parse_endpoint(const char *s, uint8_t *addr, uint8_t *family,
			  uint8_t *plen, uint16_t *port, char *err,
			  size_t errlen)
{
	char buf[INET6_ADDRSTRLEN + 16];
	const char *colon = NULL, *p;
	size_t len = strlen(s);
	int ncolon = 0;
	bool dot = false;

	if (len >= sizeof(buf))
		return -1;
	*plen = 0;
	p = strchr(s, '/');
	if (p)
		return parse_prefix(s, p, addr, family, plen, err, errlen);
	/* The common case first: IPv4, with or without a port. */
	for (p = s; *p; p++) {
		if (*p == ':') {
			ncolon++;
			colon = p;
		} else if (*p == '.') {
			dot = true;
		}
	}
	if (s[0] != '[' && !ncolon && !dot)
		return -1;	/* a word, not an address */
	if (s[0] != '[' && dot && ncolon <= 1) {
		size_t alen = colon ? (size_t)(colon - s) : len;

		memcpy(buf, s, alen);
		buf[alen] = 0;
		memset(addr, 0, 16);
		if (inet_pton(AF_INET, buf, addr) != 1)
			return -1;
		*family = NF_CUCKOO_FAMILY_IPV4;
		if (!colon)
			return 0;
		if (parse_port(colon + 1, port)) {
			seterr(err, errlen, "bad port '%s' in '%s' (want 0 to 65535)",
			       colon + 1, s);
			return -2;
		}
		return 1;
	}
	if (!parse_addr(s, addr, family))
		return 0;
	if (s[0] == '[') {
		const char *rb = strchr(s, ']');

		if (!rb || rb[1] != ':')
			return -1;
		colon = rb + 1;
	} else {
		/* IPv4 with a port: exactly one colon. */
		colon = strchr(s, ':');
		if (!colon || strchr(colon + 1, ':'))
			return -1;
	}
	memcpy(buf, s, (size_t)(colon - s));
	buf[colon - s] = 0;
	if (parse_addr(buf, addr, family))
		return -1;
	if (parse_port(colon + 1, port)) {
		seterr(err, errlen, "bad port '%s' in '%s' (want 0 to 65535)",
		       colon + 1, s);
		return -2;
	}
	return 1;
}

static int keyword_bit(const char *s)
{
	if (!strcmp(s, "src") || !strcmp(s, "saddr"))
		return NF_CUCKOO_KEY_SRC_ADDR;
	if (!strcmp(s, "dst") || !strcmp(s, "daddr"))
		return NF_CUCKOO_KEY_DST_ADDR;
	if (!strcmp(s, "sport"))
		return NF_CUCKOO_KEY_SRC_PORT;
	if (!strcmp(s, "dport"))
		return NF_CUCKOO_KEY_DST_PORT;
	if (!strcmp(s, "proto") || !strcmp(s, "protocol"))
		return NF_CUCKOO_KEY_PROTO;
	return 0;
}

static int set_addr(struct entry *e, bool dst, const uint8_t *addr,
		    uint8_t family, uint8_t plen, const char *word, char *err,
		    size_t errlen)
{
	if (e->family && e->family != family) {
		seterr(err, errlen, "'%s' is %s but the entry's other address is %s",
		       word, family == NF_CUCKOO_FAMILY_IPV4 ? "IPv4" : "IPv6",
		       e->family == NF_CUCKOO_FAMILY_IPV4 ? "IPv4" : "IPv6");
		return -1;
	}
	e->family = family;
	memcpy(dst ? e->dst : e->src, addr, 16);
	if (dst)
		e->dst_plen = plen;
	else
		e->src_plen = plen;
	e->given |= dst ? NF_CUCKOO_KEY_DST_ADDR : NF_CUCKOO_KEY_SRC_ADDR;
	return 0;
}

static void set_port(struct entry *e, bool dst, uint16_t port)
{
	if (dst)
		e->dport = port;
	else
		e->sport = port;
	e->given |= dst ? NF_CUCKOO_KEY_DST_PORT : NF_CUCKOO_KEY_SRC_PORT;
}

/* Strip one trailing comma; tell whether there was one. */
static bool strip_comma(char *word, char *buf, size_t buflen)
{
	size_t len = strlen(word);

	if (len && word[len - 1] == ',' && len < buflen) {
		memcpy(buf, word, len - 1);
		buf[len - 1] = 0;
		return true;
	}
	return false;
}

/*
 * "A.B.C.D:PORT" as inet_pton() and parse_port() read it (no leading zero
 * in an octet, up to five digits of port), without a library call.
 */
static bool ipv4_endpoint_fast(const char *s, uint8_t *addr, uint16_t *port)
{
	unsigned int i, v, digits;

	for (i = 0; i < 5; i++) {
		v = 0;
		for (digits = 0; *s >= '0' && *s <= '9'; digits++) {
			if (digits == (i < 4 ? 3 : 5) || (i < 4 && digits && !v))
				return false;
			v = v * 10 + (unsigned int)(*s++ - '0');
		}
		if (!digits || v > (i < 4 ? 255 : 65535))
			return false;
		if (i == 4)
			break;
		addr[i] = (uint8_t)v;
		if (*s++ != (i < 3 ? '.' : ':'))
			return false;
	}
	*port = (uint16_t)v;
	return !*s;
}

bool entry_fast_path = true;

/* "udp" and "tcp" as parse_proto() reads them, without its table walk. */
static bool proto_fast(const char *s, uint8_t *proto)
{
	if (s[0] == 'u' && s[1] == 'd' && s[2] == 'p' && !s[3])
		*proto = IPPROTO_UDP;
	else if (s[0] == 't' && s[1] == 'c' && s[2] == 'p' && !s[3])
		*proto = IPPROTO_TCP;
	else
		return !parse_proto(s, proto);
	return true;
}

/*
 * The form bulk loads are made of, "[PROTO] A.B.C.D:PORT A.B.C.D:PORT":
 * a restore of a million such lines spent most of its time in the general
 * parser's string calls.  What this takes, entry_parse() reads the same;
 * anything else (false) goes to it.
 */
static bool entry_parse_fast(char **w, int n, struct entry *e)
{
	uint8_t proto = 0;

	if (!entry_fast_path || n < 2 || n > 3)
		return false;
	if (n == 3 && (w[0][0] < 'a' || w[0][0] > 'z' ||
		       !proto_fast(w[0], &proto) || !proto_has_ports(proto)))
		return false;
	memset(e, 0, sizeof(*e));
	if (!ipv4_endpoint_fast(w[n - 2], e->src, &e->sport) ||
	    !ipv4_endpoint_fast(w[n - 1], e->dst, &e->dport))
		return false;
	e->family = NF_CUCKOO_FAMILY_IPV4;
	e->proto = proto;
	e->given = NF_CUCKOO_KEY_SRC_ADDR | NF_CUCKOO_KEY_DST_ADDR | NF_CUCKOO_KEY_SRC_PORT |
		   NF_CUCKOO_KEY_DST_PORT | (n == 3 ? NF_CUCKOO_KEY_PROTO : 0);
	return true;
}

int entry_parse(char **w, int n, bool multi, struct entry *e, int *used,
		char *err, size_t errlen)
{
	char cbuf[128];
	int i = 0, npos = 0;
	bool kw_seen = false;

	if (!multi && entry_parse_fast(w, n, e)) {
		*used = n;
		return 0;
	}
	memset(e, 0, sizeof(*e));
	*used = 0;
	while (i < n) {
		char *word = w[i];
		bool last = false;
		uint8_t addr[16], fam, proto, plen;
		uint16_t port;
		int bit, r;

		if (!strcmp(word, ",")) {
			if (!multi) {
				seterr(err, errlen, "unexpected ','");
				return -1;
			}
			if (!e->given) {
				seterr(err, errlen, "empty entry before ','");
				return -1;
			}
			i++;
			break;
		}
		if (strip_comma(word, cbuf, sizeof(cbuf))) {
			if (!multi) {
				seterr(err, errlen, "unexpected ',' in '%s'", word);
				return -1;
			}
			word = cbuf;
			last = true;
		}

		bit = keyword_bit(word);
		if (bit) {
			const char *v;

			if (e->given & bit) {
				if (multi && !last)
					break;	/* starts the next entry */
				seterr(err, errlen, "the %s is given twice",
				       key_field_desc(bit));
				return -1;
			}
			if (last || i + 1 >= n) {
				seterr(err, errlen, "'%s' needs a value", word);
				return -1;
			}
			i++;
			v = w[i];
			if (strip_comma(w[i], cbuf, sizeof(cbuf))) {
				if (!multi) {
					seterr(err, errlen, "unexpected ',' in '%s'", w[i]);
					return -1;
				}
				v = cbuf;
				last = true;
			}
			kw_seen = true;
			switch (bit) {
			case NF_CUCKOO_KEY_SRC_ADDR:
			case NF_CUCKOO_KEY_DST_ADDR:
				r = parse_endpoint(v, addr, &fam, &plen, &port,
						   err, errlen);
				if (r == -2)
					return -1;
				if (r < 0) {
					seterr(err, errlen, "bad address '%s' after '%s' (want an IPv4 or IPv6 address, optionally with :PORT; IPv6 with a port as [ADDR]:PORT)",
					       v, word);
					return -1;
				}
				if (set_addr(e, bit == NF_CUCKOO_KEY_DST_ADDR, addr,
					     fam, plen, v, err, errlen))
					return -1;
				if (r == 1) {
					uint32_t pb = bit == NF_CUCKOO_KEY_DST_ADDR ?
						NF_CUCKOO_KEY_DST_PORT :
						NF_CUCKOO_KEY_SRC_PORT;

					if (e->given & pb) {
						seterr(err, errlen, "the %s is given twice",
						       key_field_desc(pb));
						return -1;
					}
					set_port(e, bit == NF_CUCKOO_KEY_DST_ADDR,
						 port);
				}
				break;
			case NF_CUCKOO_KEY_SRC_PORT:
			case NF_CUCKOO_KEY_DST_PORT:
				if (parse_port(v, &port)) {
					seterr(err, errlen, "bad port '%s' (want 0 to 65535)", v);
					return -1;
				}
				set_port(e, bit == NF_CUCKOO_KEY_DST_PORT, port);
				break;
			case NF_CUCKOO_KEY_PROTO:
				if (parse_proto(v, &proto)) {
					seterr(err, errlen, "unknown protocol '%s' (want %s)",
					       v, PROTO_NAMES);
					return -1;
				}
				e->proto = proto;
				e->given |= NF_CUCKOO_KEY_PROTO;
				break;
			}
			i++;
			if (last)
				break;
			continue;
		}

		r = parse_endpoint(word, addr, &fam, &plen, &port, err, errlen);
		if (r == -2)
			return -1;
		if (r >= 0) {
			if (kw_seen || npos == 2) {
				if (multi)
					break;
				seterr(err, errlen, kw_seen ?
				       "unexpected address '%s' after a keyword (write 'src ADDR' or 'dst ADDR')" :
				       "unexpected '%s': an entry has at most two endpoints, source then destination",
				       word);
				return -1;
			}
			if (set_addr(e, npos == 1, addr, fam, plen, word, err,
				     errlen))
				return -1;
			if (r == 1)
				set_port(e, npos == 1, port);
			npos++;
			i++;
			if (last)
				break;
			continue;
		}

		if (!parse_proto(word, &proto)) {
			if (e->given) {
				if (multi)
					break;
				seterr(err, errlen, "unexpected '%s': the protocol comes first, or write 'proto %s'",
				       word, word);
				return -1;
			}
			e->proto = proto;
			e->given |= NF_CUCKOO_KEY_PROTO;
			i++;
			if (last)
				break;
			continue;
		}

		if (strchr(word, ':') || strchr(word, '.') || strchr(word, '['))
			seterr(err, errlen, "bad address '%s' (want an IPv4 or IPv6 address, optionally with :PORT; IPv6 with a port as [ADDR]:PORT)",
			       word);
		else
			seterr(err, errlen, "unrecognized word '%s' (an entry is [PROTO] SRC[:PORT] [DST[:PORT]], or src/dst/sport/dport/proto VALUE; PROTO is %s)",
			       word, PROTO_NAMES);
		return -1;
	}
	if (!e->given) {
		seterr(err, errlen, "empty entry");
		return -1;
	}
	e->bare = !kw_seen && npos == 1 && e->given == NF_CUCKOO_KEY_SRC_ADDR;
	if ((e->given & (NF_CUCKOO_KEY_SRC_PORT | NF_CUCKOO_KEY_DST_PORT)) &&
	    (e->given & NF_CUCKOO_KEY_PROTO) && !proto_has_ports(e->proto)) {
		const char *pn = proto_name(e->proto);

		if (pn)
			seterr(err, errlen, "%s has no ports", pn);
		else
			seterr(err, errlen, "protocol %u has no ports cfctl knows of (ports go with tcp, udp, udplite, sctp, dccp)",
			       e->proto);
		return -1;
	}
	*used = i;
	return 0;
}

static bool v4mapped(const uint8_t *a, bool given)
{
	static const uint8_t prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
	};

	return given && !memcmp(a, prefix, sizeof(prefix));
}

int entry_check(struct entry *e, const struct keyspec *ks, const char *fname,
		char *err, size_t errlen)
{
	static const uint32_t order[] = {
		NF_CUCKOO_KEY_SRC_ADDR, NF_CUCKOO_KEY_DST_ADDR, NF_CUCKOO_KEY_SRC_PORT,
		NF_CUCKOO_KEY_DST_PORT, NF_CUCKOO_KEY_PROTO,
	};
	uint32_t extra = e->given & ~ks->fields;
	uint32_t missing = ks->fields & ~e->given;
	char keys[64];
	size_t i;

	/* A list file's address, for a filter that keys on dst alone. */
	if (e->bare && ks->fields == NF_CUCKOO_KEY_DST_ADDR) {
		memcpy(e->dst, e->src, sizeof(e->dst));
		memset(e->src, 0, sizeof(e->src));
		e->dst_plen = e->src_plen;
		e->src_plen = 0;
		e->given = NF_CUCKOO_KEY_DST_ADDR;
		e->bare = false;
		extra = 0;
		missing = 0;
	}
	/*
	 * An IPv4 packet's key holds its IPv4 addresses: an entry of
	 * ::ffff:a.b.c.d would be an IPv6 key that none of them matches.
	 */
	if (e->family == NF_CUCKOO_FAMILY_IPV6 &&
	    (ks->families & NF_CUCKOO_FAMILY_IPV4) &&
	    (v4mapped(e->src, e->given & NF_CUCKOO_KEY_SRC_ADDR) ||
	     v4mapped(e->dst, e->given & NF_CUCKOO_KEY_DST_ADDR))) {
		const uint8_t *a = v4mapped(e->src, e->given &
					    NF_CUCKOO_KEY_SRC_ADDR) ? e->src : e->dst;

		seterr(err, errlen, "::ffff:%u.%u.%u.%u is an IPv4-mapped IPv6 address, which no IPv4 packet matches: write %u.%u.%u.%u",
		       a[12], a[13], a[14], a[15], a[12], a[13], a[14], a[15]);
		return -1;
	}
	if ((e->src_plen || e->dst_plen) && ks->bidir) {
		seterr(err, errlen, "filter %s is bidirectional: it holds no prefixes",
		       fname);
		return -1;
	}
	/* Protocols without ports have port 0 in their packets' keys. */
	if ((e->given & NF_CUCKOO_KEY_PROTO) && !proto_has_ports(e->proto))
		missing &= ~(NF_CUCKOO_KEY_SRC_PORT | NF_CUCKOO_KEY_DST_PORT);
	if (!extra && !missing && (!e->family || (e->family & ks->families)))
		goto done;	/* the common case, fast */
	format_key_fields(ks->fields, keys, sizeof(keys));
	if (e->family && !(e->family & ks->families)) {
		seterr(err, errlen, "filter %s holds %s only, and this entry is %s",
		       fname, ks->families == NF_CUCKOO_FAMILY_IPV4 ? "IPv4" : "IPv6",
		       e->family == NF_CUCKOO_FAMILY_IPV4 ? "IPv4" : "IPv6");
		return -1;
	}
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (extra & order[i]) {
			seterr(err, errlen, "the entry gives a %s, which is not in filter %s's key (key %s)%s",
			       key_field_desc(order[i]), fname, keys,
			       e->bare ? "; an address alone is an entry of a filter keyed on src or dst alone" : "");
			return -1;
		}
	}
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (missing & order[i]) {
			seterr(err, errlen, "filter %s's key (%s) needs the %s, which the entry does not give%s",
			       fname, keys, key_field_desc(order[i]),
			       e->bare ? " (an address alone is an entry of a filter keyed on src or dst alone)" : "");
			return -1;
		}
	}
done:
	if (!e->family)
		e->family = ks->families & NF_CUCKOO_FAMILY_IPV4 ? NF_CUCKOO_FAMILY_IPV4 :
							     NF_CUCKOO_FAMILY_IPV6;
	return 0;
}

static size_t fmt_endpoint(char *buf, size_t len, const struct entry *e,
			   bool dst)
{
	char a[INET6_ADDRSTRLEN];
	const uint8_t *addr = dst ? e->dst : e->src;
	uint32_t abit = dst ? NF_CUCKOO_KEY_DST_ADDR : NF_CUCKOO_KEY_SRC_ADDR;
	uint32_t pbit = dst ? NF_CUCKOO_KEY_DST_PORT : NF_CUCKOO_KEY_SRC_PORT;
	bool v6 = e->family == NF_CUCKOO_FAMILY_IPV6;

	uint8_t plen = dst ? e->dst_plen : e->src_plen;

	inet_ntop(v6 ? AF_INET6 : AF_INET, addr, a, sizeof(a));
	if (!(e->given & abit))
		return 0;
	if (plen)
		return (size_t)snprintf(buf, len, "%s/%u", a, plen);
	if (e->given & pbit)
		return (size_t)snprintf(buf, len, v6 ? "[%s]:%u" : "%s:%u", a,
					dst ? e->dport : e->sport);
	return (size_t)snprintf(buf, len, "%s", a);
}

/* An entry of a prefix, in keywords: a prefix takes no :PORT. */
static void entry_format_keywords(const struct entry *e, char *buf,
				  size_t len)
{
	static const uint32_t order[] = {
		NF_CUCKOO_KEY_SRC_ADDR, NF_CUCKOO_KEY_SRC_PORT,
		NF_CUCKOO_KEY_DST_ADDR, NF_CUCKOO_KEY_DST_PORT,
		NF_CUCKOO_KEY_PROTO,
	};
	char a[INET6_ADDRSTRLEN];
	size_t off = 0, i;
	const char *pn;
	bool v6 = e->family == NF_CUCKOO_FAMILY_IPV6;

#define ROOM	(off < len ? len - off : 0)
#define SEP	(off ? " " : "")
	buf[0] = 0;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		uint32_t bit = order[i];
		bool dst = bit == NF_CUCKOO_KEY_DST_ADDR;
		uint8_t plen = dst ? e->dst_plen : e->src_plen;

		if (!(e->given & bit))
			continue;
		switch (bit) {
		case NF_CUCKOO_KEY_SRC_ADDR:
		case NF_CUCKOO_KEY_DST_ADDR:
			inet_ntop(v6 ? AF_INET6 : AF_INET, dst ? e->dst : e->src,
				  a, sizeof(a));
			off += (size_t)snprintf(buf + off, ROOM, plen ?
						"%s%s %s/%u" : "%s%s %s", SEP,
						dst ? "dst" : "src", a, plen);
			break;
		case NF_CUCKOO_KEY_SRC_PORT:
		case NF_CUCKOO_KEY_DST_PORT:
			off += (size_t)snprintf(buf + off, ROOM, "%s%s %u", SEP,
						bit == NF_CUCKOO_KEY_SRC_PORT ?
						"sport" : "dport",
						bit == NF_CUCKOO_KEY_SRC_PORT ?
						e->sport : e->dport);
			break;
		default:
			pn = proto_name(e->proto);
			off += pn ? (size_t)snprintf(buf + off, ROOM, "%sproto %s",
						     SEP, pn) :
				    (size_t)snprintf(buf + off, ROOM, "%sproto %u",
						     SEP, e->proto);
		}
	}
#undef ROOM
#undef SEP
}

void entry_format(const struct entry *e, char *buf, size_t len)
{
	size_t off = 0;
	const char *pn;
	bool pos = (e->given & NF_CUCKOO_KEY_SRC_ADDR) != 0;

	/* An address alone, a prefix included, is written alone. */
	if ((e->src_plen || e->dst_plen) && !e->bare) {
		entry_format_keywords(e, buf, len);
		return;
	}

#define ROOM	(off < len ? len - off : 0)
#define SEP	(off ? " " : "")
	buf[0] = 0;
	if (e->given & NF_CUCKOO_KEY_PROTO) {
		pn = proto_name(e->proto);
		if (pos)
			off += pn ? (size_t)snprintf(buf + off, ROOM, "%s", pn) :
				    (size_t)snprintf(buf + off, ROOM, "%u", e->proto);
	}
	if (pos) {
		off += (size_t)snprintf(buf + off, ROOM, "%s", SEP);
		off += fmt_endpoint(buf + off, ROOM, e, false);
		if (e->given & NF_CUCKOO_KEY_DST_ADDR) {
			off += (size_t)snprintf(buf + off, ROOM, " ");
			off += fmt_endpoint(buf + off, ROOM, e, true);
		}
	} else if (e->given & NF_CUCKOO_KEY_DST_ADDR) {
		off += (size_t)snprintf(buf + off, ROOM, "dst ");
		off += fmt_endpoint(buf + off, ROOM, e, true);
	}
	if ((e->given & NF_CUCKOO_KEY_SRC_PORT) && !(e->given & NF_CUCKOO_KEY_SRC_ADDR))
		off += (size_t)snprintf(buf + off, ROOM, "%ssport %u", SEP,
					e->sport);
	if ((e->given & NF_CUCKOO_KEY_DST_PORT) && !(e->given & NF_CUCKOO_KEY_DST_ADDR))
		off += (size_t)snprintf(buf + off, ROOM, "%sdport %u", SEP,
					e->dport);
	if ((e->given & NF_CUCKOO_KEY_PROTO) && !pos) {
		pn = proto_name(e->proto);
		off += pn ? (size_t)snprintf(buf + off, ROOM, "%sproto %s", SEP, pn) :
			    (size_t)snprintf(buf + off, ROOM, "%sproto %u", SEP,
					     e->proto);
	}
#undef ROOM
#undef SEP
}
