// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: the words of filter parameters.  Pure functions, no netlink:
 * test_parse.c tests them.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* Unsigned, decimal or 0x hex, the whole string, no sign, no spaces. */
int parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || !(isdigit((unsigned char)s[0])))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	/* strtoull reads "08" as octal 0 and fails at 8: fine; "010" is 8. */
	if (s[0] == '0' && s[1] && s[1] != 'x' && s[1] != 'X')
		return -1;	/* no octal: 010 is a typo, not 8 */
	*out = v;
	return 0;
}

int parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;

	if (parse_u64(s, &v) || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int parse_s32(const char *s, int32_t *out)
{
	uint64_t v;
	bool neg = false;

	if (s && (*s == '-' || *s == '+')) {
		neg = *s == '-';
		s++;
	}
	if (parse_u64(s, &v))
		return -1;
	if (neg ? v > (uint64_t)INT32_MAX + 1 : v > INT32_MAX)
		return -1;
	*out = neg ? (int32_t)(-(int64_t)v) : (int32_t)v;
	return 0;
}

/* 1000, 10k, 1M, 2G (powers of 1000) or 64Ki, 1Mi, 1Gi (powers of 1024). */
int parse_capacity(const char *s, uint64_t *out)
{
	static const struct { const char *suf; uint64_t mul; } sufs[] = {
		{ "k", 1000ULL }, { "K", 1000ULL }, { "M", 1000000ULL },
		{ "m", 1000000ULL }, { "G", 1000000000ULL },
		{ "g", 1000000000ULL }, { "T", 1000000000000ULL },
		{ "Ki", 1ULL << 10 }, { "Mi", 1ULL << 20 }, { "Gi", 1ULL << 30 },
		{ "Ti", 1ULL << 40 },
	};
	char buf[32];
	size_t len, i;
	uint64_t v;

	if (!s)
		return -1;
	len = strlen(s);
	if (!len || len >= sizeof(buf))
		return -1;
	if (!parse_u64(s, out))
		return 0;
	for (i = 0; i < sizeof(sufs) / sizeof(sufs[0]); i++) {
		size_t sl = strlen(sufs[i].suf);

		if (len <= sl || strcmp(s + len - sl, sufs[i].suf))
			continue;
		memcpy(buf, s, len - sl);
		buf[len - sl] = 0;
		/* A suffix goes with a decimal number only. */
		if (buf[0] == '0' && buf[1])
			return -1;
		if (parse_u64(buf, &v))
			return -1;
		if (v > UINT64_MAX / sufs[i].mul)
			return -1;
		*out = v * sufs[i].mul;
		return 0;
	}
	return -1;
}

/*
 * A false-positive rate as a fraction (0.001, 1e-3) or a percentage
 * (0.1%), strictly between 0 and 1; in parts per 10^9, rounded down (a
 * bound rounded up would be looser than asked), which must be
 * 1 .. 10^9 - 1.
 */
int parse_fpr(const char *s, uint32_t *ppb)
{
	char buf[64];
	size_t len;
	double v, p;
	char *end;
	bool pct = false;

	if (!s)
		return -1;
	len = strlen(s);
	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len + 1);
	if (buf[len - 1] == '%') {
		pct = true;
		buf[--len] = 0;
	}
	if (!len || !(isdigit((unsigned char)buf[0]) || buf[0] == '.'))
		return -1;
	errno = 0;
	v = strtod(buf, &end);
	if (errno || *end || !isfinite(v))
		return -1;
	if (pct)
		v /= 100.0;
	if (!(v > 0.0 && v < 1.0))
		return -1;
	/*
	 * 0.001 is not exact in binary: its product with 10^9 may fall a
	 * hair below 1000000.  What is that close to a whole number was
	 * written as one.
	 */
	p = v * NF_CUCKOO_FPR_SCALE;
	p = fabs(p - nearbyint(p)) < 1e-6 ? nearbyint(p) : floor(p);
	if (p < 1.0 || p > NF_CUCKOO_FPR_SCALE - 1.0)
		return -1;
	*ppb = (uint32_t)p;
	return 0;
}

/* 0..65535, decimal, the whole string. */
int parse_port(const char *s, uint16_t *out)
{
	unsigned long v;
	char *end;
	const char *p;

	if (!s || !*s)
		return -1;
	for (p = s; *p; p++)
		if (!isdigit((unsigned char)*p))
			return -1;
	if (strlen(s) > 5)
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > 65535)
		return -1;
	*out = (uint16_t)v;
	return 0;
}

static const struct {
	const char *name;
	uint8_t num;
	bool ports;
} protos[] = {
	{ "tcp", 6, true },
	{ "udp", 17, true },
	{ "udplite", 136, true },
	{ "sctp", 132, true },
	{ "dccp", 33, true },
	{ "icmp", 1, false },
	{ "icmpv6", 58, false },
	{ "ipv6-icmp", 58, false },
	{ "icmp6", 58, false },
	{ "gre", 47, false },
	{ "esp", 50, false },
	{ "ah", 51, false },
	{ "igmp", 2, false },
	{ "ospf", 89, false },
};
#define NPROTOS (sizeof(protos) / sizeof(protos[0]))

/*
 * A name of the table or a number 0..255.  Not getprotobyname(): its
 * names are the IANA keywords, in which "ip" is protocol 0 and "ipv6"
 * protocol 41 (IPv6 in IPv4) while "ip6" and "ipv4" are unknown, so a
 * family written where the protocol goes made a filter entry no packet
 * of that family matches.
 */
int parse_proto(const char *s, uint8_t *out)
{
	uint64_t v;
	size_t i;

	if (!s || !*s)
		return -1;
	for (i = 0; i < NPROTOS; i++) {
		if (!strcasecmp(s, protos[i].name)) {
			*out = protos[i].num;
			return 0;
		}
	}
	if (isdigit((unsigned char)s[0])) {
		/* Decimal only: "0x11" as a protocol is a typo. */
		const char *p;

		for (p = s; *p; p++)
			if (!isdigit((unsigned char)*p))
				return -1;
		if (strlen(s) > 3 || parse_u64(s, &v) || v > 255)
			return -1;
		*out = (uint8_t)v;
		return 0;
	}
	return -1;
}

bool proto_has_ports(uint8_t proto)
{
	size_t i;

	for (i = 0; i < NPROTOS; i++)
		if (protos[i].num == proto)
			return protos[i].ports;
	return false;
}

const char *proto_name(uint8_t proto)
{
	size_t i;

	for (i = 0; i < NPROTOS; i++)
		if (protos[i].num == proto)
			return protos[i].name;
	return NULL;
}

/* As nftables: ip = IPv4, ip6 = IPv6, inet = both. */
int parse_family(const char *s, uint8_t *out)
{
	if (!strcmp(s, "ip") || !strcmp(s, "ipv4") || !strcmp(s, "4"))
		*out = NF_CUCKOO_FAMILY_IPV4;
	else if (!strcmp(s, "ip6") || !strcmp(s, "ipv6") || !strcmp(s, "6"))
		*out = NF_CUCKOO_FAMILY_IPV6;
	else if (!strcmp(s, "inet") || !strcmp(s, "any"))
		*out = NF_CUCKOO_FAMILY_INET;
	else
		return -1;
	return 0;
}

const char *family_name(uint8_t family)
{
	switch (family) {
	case NF_CUCKOO_FAMILY_IPV4: return "ip";
	case NF_CUCKOO_FAMILY_IPV6: return "ip6";
	case NF_CUCKOO_FAMILY_INET: return "inet";
	}
	return "unknown";
}

static const struct {
	const char *name;
	const char *alias;
	uint32_t bit;
	const char *desc;
} key_fields[] = {
	{ "src", "saddr", NF_CUCKOO_KEY_SRC_ADDR, "source address" },
	{ "dst", "daddr", NF_CUCKOO_KEY_DST_ADDR, "destination address" },
	{ "sport", "sp", NF_CUCKOO_KEY_SRC_PORT, "source port" },
	{ "dport", "dp", NF_CUCKOO_KEY_DST_PORT, "destination port" },
	{ "proto", "protocol", NF_CUCKOO_KEY_PROTO, "protocol" },
};
#define NKEYF (sizeof(key_fields) / sizeof(key_fields[0]))

const char *key_field_name(uint32_t bit)
{
	size_t i;

	for (i = 0; i < NKEYF; i++)
		if (key_fields[i].bit == bit)
			return key_fields[i].name;
	return "?";
}

const char *key_field_desc(uint32_t bit)
{
	size_t i;

	for (i = 0; i < NKEYF; i++)
		if (key_fields[i].bit == bit)
			return key_fields[i].desc;
	return "?";
}

/* "src,dst,sport,dport,proto", or "all" / "5tuple". */
int parse_key_fields(const char *s, uint32_t *out, char *err, size_t errlen)
{
	char buf[128], *tok, *save = NULL;
	uint32_t f = 0;
	size_t i;

	if (!strcmp(s, "all") || !strcmp(s, "5tuple") || !strcmp(s, "5-tuple")) {
		*out = NF_CUCKOO_KEY_ALL;
		return 0;
	}
	if (strlen(s) >= sizeof(buf) || !*s || s[0] == ',' ||
	    s[strlen(s) - 1] == ',' || strstr(s, ",,")) {
		seterr(err, errlen, "bad key '%s': want fields separated by commas, of src,dst,sport,dport,proto", s);
		return -1;
	}
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < NKEYF; i++)
			if (!strcmp(tok, key_fields[i].name) ||
			    !strcmp(tok, key_fields[i].alias))
				break;
		if (i == NKEYF) {
			seterr(err, errlen, "unknown key field '%s' (want src, dst, sport, dport, proto)", tok);
			return -1;
		}
		if (f & key_fields[i].bit) {
			seterr(err, errlen, "key field '%s' given twice", tok);
			return -1;
		}
		f |= key_fields[i].bit;
	}
	*out = f;
	return 0;
}

int format_key_fields(uint32_t fields, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = 0;
	for (i = 0; i < NKEYF; i++) {
		if (!(fields & key_fields[i].bit))
			continue;
		off += snprintf(buf + off, off < len ? len - off : 0, "%s%s",
				off ? "," : "", key_fields[i].name);
	}
	if (fields & ~NF_CUCKOO_KEY_ALL)
		off += snprintf(buf + off, off < len ? len - off : 0,
				"%s0x%x", off ? "," : "",
				fields & ~NF_CUCKOO_KEY_ALL);
	return (int)off;
}

static const char *const hooks[] = {
	[NF_CUCKOO_HOOK_PREROUTING] = "prerouting",
	[NF_CUCKOO_HOOK_INPUT] = "input",
	[NF_CUCKOO_HOOK_FORWARD] = "forward",
	[NF_CUCKOO_HOOK_OUTPUT] = "output",
	[NF_CUCKOO_HOOK_POSTROUTING] = "postrouting",
	[NF_CUCKOO_HOOK_NONE] = "none",
};

int parse_hook(const char *s, uint8_t *out)
{
	size_t i;

	for (i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
		if (!strcasecmp(s, hooks[i])) {
			*out = (uint8_t)i;
			return 0;
		}
	}
	return -1;
}

const char *hook_name(uint8_t hook)
{
	if (hook < sizeof(hooks) / sizeof(hooks[0]))
		return hooks[hook];
	return "unknown";
}

/* A number, or one of nftables' standard priority names. */
int parse_priority(const char *s, int32_t *out)
{
	static const struct { const char *name; int32_t val; } names[] = {
		{ "raw", -300 }, { "mangle", -150 }, { "dstnat", -100 },
		{ "filter", 0 }, { "security", 50 }, { "srcnat", 100 },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i].name)) {
			*out = names[i].val;
			return 0;
		}
	}
	return parse_s32(s, out);
}

/* VALUE or VALUE/MASK, each a u32 in decimal or 0x hex. */
int parse_mark(const char *s, uint32_t *mark, uint32_t *mask)
{
	char buf[64], *slash;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash)
		*slash = 0;
	if (parse_u32(buf, mark))
		return -1;
	if (slash) {
		if (parse_u32(slash + 1, mask))
			return -1;
	} else {
		*mask = NF_CUCKOO_MARK_MASK_DEFAULT;
	}
	return 0;
}

const char *action_name(uint8_t action)
{
	switch (action) {
	case NF_CUCKOO_ACTION_NONE: return "count";
	case NF_CUCKOO_ACTION_DROP: return "drop";
	case NF_CUCKOO_ACTION_MARK: return "mark";
	}
	return "unknown";
}

int check_name(const char *s, char *err, size_t errlen)
{
	size_t i, len = strlen(s);

	if (!len) {
		seterr(err, errlen, "empty filter name");
		return -1;
	}
	if (len > NF_CUCKOO_NAME_MAXLEN - 1) {
		seterr(err, errlen, "filter name '%.40s%s' is too long (at most %d characters)",
		       s, len > 40 ? "..." : "", NF_CUCKOO_NAME_MAXLEN - 1);
		return -1;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!isalnum(c) && c != '_' && c != '.' && c != '-') {
			seterr(err, errlen, "bad filter name '%s': only letters, digits, '_', '.' and '-' are allowed",
			       s);
			return -1;
		}
	}
	if (s[0] == '-') {
		seterr(err, errlen, "bad filter name '%s': it must not start with '-'", s);
		return -1;
	}
	return 0;
}

int parse_onoff(const char *s, bool *out)
{
	if (!strcmp(s, "on") || !strcmp(s, "yes") || !strcmp(s, "1"))
		*out = true;
	else if (!strcmp(s, "off") || !strcmp(s, "no") || !strcmp(s, "0"))
		*out = false;
	else
		return -1;
	return 0;
}

/*
 * The image header is opaque to cfctl except for this: the table size it
 * declares, so that a restore file cannot load past it.  The module's
 * struct cf_image (kmod/cuckoo.h; test_parse checks the offsets): magic
 * at 0, version at 4, table_bytes at 40 of 48 bytes, host order, in
 * versions 2 to 4 alike (3 and 4 only named reserved bytes).  A header of any
 * other kind declares nothing cfctl can read, and the kernel refuses it
 * at LOAD_BEGIN, before any table byte is sent.
 */
#define IMAGE_V2_LEN		48
#define IMAGE_V2_MAGIC		0x46435543U
#define IMAGE_V2_TABLE_BYTES	40

int image_version(const uint8_t *img, size_t len)
{
	uint32_t magic;
	uint16_t version;

	/* Every version keeps the magic and the version where 2 has them. */
	if (len < 6)
		return -1;
	memcpy(&magic, img, sizeof(magic));
	memcpy(&version, img + 4, sizeof(version));
	return magic == IMAGE_V2_MAGIC ? version : -1;
}

int image_table_bytes(const uint8_t *img, size_t len, uint64_t *out)
{
	int v = image_version(img, len);

	if (len != IMAGE_V2_LEN || v < 2 || v > 4)
		return -1;
	memcpy(out, img + IMAGE_V2_TABLE_BYTES, sizeof(*out));
	return 0;
}

void filter_spec_free(struct filter_spec *fs)
{
	size_t i;

	for (i = 0; i < fs->nimages; i++) {
		free(fs->image[i]);
		fs->image[i] = NULL;
		fs->image_len[i] = 0;
	}
	fs->nimages = 0;
}

void filter_spec_keyspec(const struct filter_spec *fs, struct keyspec *ks)
{
	ks->fields = fs->have & HAVE_KEY ? fs->key_fields : NF_CUCKOO_KEY_ALL;
	ks->families = fs->have & HAVE_FAMILY ? fs->family : NF_CUCKOO_FAMILY_INET;
	ks->bidir = fs->have & HAVE_BIDIR ? fs->bidir : false;
}

/* The value of word i, or an error if it is missing. */
#define NEED_VALUE()							\
do {									\
	if (i + 1 >= n) {						\
		seterr(err, errlen, "'%s' needs a value", w[i]);	\
		return -1;						\
	}								\
	v = w[++i];							\
} while (0)

#define ONCE(bit)							\
do {									\
	if (fs->have & (bit)) {						\
		seterr(err, errlen, "'%s' given twice", w[i]);		\
		return -1;						\
	}								\
	fs->have |= (bit);						\
} while (0)

/* Decimal digits at p, at most max: past them, or NULL. */
static const char *take_uint(const char *p, unsigned long long max,
			     unsigned long long *out)
{
	unsigned long long v = 0;
	const char *q = p;

	while (*q >= '0' && *q <= '9' && q - p < 10)
		v = v * 10 + (unsigned long long)(*q++ - '0');
	if (q == p || v > max || (*q >= '0' && *q <= '9'))
		return NULL;
	*out = v;
	return q;
}

int parse_prefix_counts(const char *s, struct nf_cuckoo_prefix_count *pc,
			size_t *n, char *err, size_t errlen)
{
	const char *p = s;

	for (*n = 0; ; p++) {
		unsigned long long sl, dl, c;
		uint8_t fam;

		if (*n == PREFIX_COUNTS_MAX) {
			seterr(err, errlen, "more than %d prefix counts",
			       PREFIX_COUNTS_MAX);
			return -1;
		}
		if (!strncmp(p, "ip6/", 4)) {
			fam = NF_CUCKOO_FAMILY_IPV6;
			p += 4;
		} else if (!strncmp(p, "ip/", 3)) {
			fam = NF_CUCKOO_FAMILY_IPV4;
			p += 3;
		} else {
			goto bad;
		}
		p = take_uint(p, 128, &sl);
		if (!p || *p++ != '/')
			goto bad;
		p = take_uint(p, 128, &dl);
		if (!p || *p++ != '=')
			goto bad;
		p = take_uint(p, UINT32_MAX, &c);
		if (!p || !c || (*p && *p != ','))
			goto bad;
		pc[(*n)++] = (struct nf_cuckoo_prefix_count){
			.family = fam, .src_plen = (uint8_t)sl,
			.dst_plen = (uint8_t)dl, .count = (uint32_t)c,
		};
		if (!*p)
			return 0;
	}
bad:
	seterr(err, errlen, "bad prefix counts '%s' (want FAMILY/SRCLEN/DSTLEN=COUNT,..., as save writes them)",
	       s);
	return -1;
}

void format_prefix_counts(const struct nf_cuckoo_prefix_count *pc, size_t n,
			  FILE *f)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(f, "%s%s/%u/%u=%u", i ? "," : "",
			pc[i].family == NF_CUCKOO_FAMILY_IPV6 ? "ip6" : "ip",
			pc[i].src_plen, pc[i].dst_plen, pc[i].count);
}

/*
 * create NAME [family F] [key FIELDS] [capacity N] [fpr E | fingerprint BITS]
 *	[bucket B] [semisort | nosemisort] [kicks K] [seed S] [hook H] [priority P]
 *	[action drop|count|mark VALUE[/MASK]] [bidirectional] [invert]
 *	[disabled] [grow | nogrow] [factor F] [stages S]
 * set NAME [action ...] [invert [on|off] | noinvert] [enable | disable]
 *	[grow | nogrow] [hook H] [priority P]
 * (create also [iif DEV]... [oif DEV]...)
 */
int parse_filter_spec(char **w, int n, struct filter_spec *fs, bool for_set,
		      bool allow_image, char *err, size_t errlen)
{
	int i;
	const char *v;
	bool b;

	for (i = 0; i < n; i++) {
		const char *k = w[i];

		if (!for_set && !strcmp(k, "family")) {
			ONCE(HAVE_FAMILY);
			NEED_VALUE();
			if (parse_family(v, &fs->family)) {
				seterr(err, errlen, "bad family '%s' (want ip, ip6 or inet)", v);
				return -1;
			}
		} else if (!for_set && !strcmp(k, "key")) {
			ONCE(HAVE_KEY);
			NEED_VALUE();
			if (parse_key_fields(v, &fs->key_fields, err, errlen))
				return -1;
		} else if (!for_set && (!strcmp(k, "capacity") ||
					!strcmp(k, "maxelem"))) {
			ONCE(HAVE_CAPACITY);
			NEED_VALUE();
			if (parse_capacity(v, &fs->capacity)) {
				seterr(err, errlen, "bad capacity '%s' (want a count such as 1000000, 1M or 1Mi)", v);
				return -1;
			}
			if (!fs->capacity) {
				seterr(err, errlen, "capacity must be at least 1");
				return -1;
			}
		} else if (!for_set && (!strcmp(k, "fingerprint") ||
					!strcmp(k, "fp") ||
					!strcmp(k, "fp_bits"))) {
			uint64_t x;

			ONCE(HAVE_FP_BITS);
			NEED_VALUE();
			if (parse_u64(v, &x) || x < NF_CUCKOO_FP_BITS_MIN ||
			    x > NF_CUCKOO_FP_BITS_MAX) {
				seterr(err, errlen, "bad fingerprint size '%s' (want %d to %d bits)",
				       v, NF_CUCKOO_FP_BITS_MIN, NF_CUCKOO_FP_BITS_MAX);
				return -1;
			}
			fs->fp_bits = (uint8_t)x;
		} else if (!for_set && !strcmp(k, "fpr")) {
			ONCE(HAVE_FPR);
			NEED_VALUE();
			if (parse_fpr(v, &fs->fpr_ppb)) {
				seterr(err, errlen, "bad false-positive rate '%s' (want a fraction such as 0.001, 1e-4 or 0.1%%, between 1e-9 and 1)",
				       v);
				return -1;
			}
		} else if (!for_set && !strcmp(k, "bucket")) {
			uint64_t x;

			ONCE(HAVE_BUCKET);
			NEED_VALUE();
			if (parse_u64(v, &x) || (x != 2 && x != 4 && x != 8)) {
				seterr(err, errlen, "bad bucket size '%s' (want 2, 4 or 8)", v);
				return -1;
			}
			fs->bucket = (uint8_t)x;
		} else if (!for_set && (!strcmp(k, "semisort") ||
					!strcmp(k, "nosemisort"))) {
			ONCE(HAVE_ENCODING);
			fs->encoding = strcmp(k, "semisort") ?
				       NF_CUCKOO_ENCODING_PLAIN :
				       NF_CUCKOO_ENCODING_SEMISORT;
		} else if (!for_set && !strcmp(k, "kicks")) {
			uint64_t x;

			ONCE(HAVE_KICKS);
			NEED_VALUE();
			if (parse_u64(v, &x) || x < 1 || x > NF_CUCKOO_MAX_KICKS_MAX) {
				seterr(err, errlen, "bad kicks '%s' (want 1 to %d)", v,
				       NF_CUCKOO_MAX_KICKS_MAX);
				return -1;
			}
			fs->kicks = (uint16_t)x;
		} else if (!for_set && !strcmp(k, "seed")) {
			ONCE(HAVE_SEED);
			NEED_VALUE();
			if (parse_u64(v, &fs->seed)) {
				seterr(err, errlen, "bad seed '%s' (want a 64-bit number)", v);
				return -1;
			}
		} else if (!for_set && (!strcmp(k, "iif") || !strcmp(k, "oif"))) {
			NEED_VALUE();
			if (iface_add(&fs->ifs, k[0] == 'i' ? NF_CUCKOO_IFACE_IN :
							      NF_CUCKOO_IFACE_OUT,
				      v, err, errlen))
				return -1;
			fs->have |= HAVE_IFACES;
		} else if (!strcmp(k, "hook")) {
			ONCE(HAVE_HOOK);
			NEED_VALUE();
			if (parse_hook(v, &fs->hook)) {
				seterr(err, errlen, "bad hook '%s' (want prerouting, input, forward, output, postrouting or none)", v);
				return -1;
			}
		} else if (!strcmp(k, "priority")) {
			ONCE(HAVE_PRIORITY);
			NEED_VALUE();
			if (parse_priority(v, &fs->priority)) {
				seterr(err, errlen, "bad priority '%s' (want a 32-bit signed number or raw, mangle, dstnat, filter, security, srcnat)", v);
				return -1;
			}
		} else if (!strcmp(k, "action")) {
			ONCE(HAVE_ACTION);
			NEED_VALUE();
			if (!strcmp(v, "drop")) {
				fs->action = NF_CUCKOO_ACTION_DROP;
			} else if (!strcmp(v, "count") || !strcmp(v, "none")) {
				fs->action = NF_CUCKOO_ACTION_NONE;
			} else if (!strcmp(v, "mark")) {
				fs->action = NF_CUCKOO_ACTION_MARK;
				NEED_VALUE();
				if (parse_mark(v, &fs->mark, &fs->mark_mask)) {
					seterr(err, errlen, "bad mark '%s' (want VALUE or VALUE/MASK, 32-bit numbers)", v);
					return -1;
				}
				fs->mark_given = true;
			} else {
				seterr(err, errlen, "bad action '%s' (want drop, count or mark VALUE[/MASK])", v);
				return -1;
			}
		} else if (!for_set && (!strcmp(k, "bidirectional") ||
					!strcmp(k, "bidir"))) {
			ONCE(HAVE_BIDIR);
			fs->bidir = true;
		} else if (!strcmp(k, "invert")) {
			ONCE(HAVE_INVERT);
			fs->invert = true;
			if (i + 1 < n && !parse_onoff(w[i + 1], &b)) {
				fs->invert = b;
				i++;
			}
		} else if (!strcmp(k, "noinvert")) {
			ONCE(HAVE_INVERT);
			fs->invert = false;
		} else if (!strcmp(k, "enable") || !strcmp(k, "enabled")) {
			ONCE(HAVE_ENABLED);
			fs->enabled = true;
			if (i + 1 < n && !parse_onoff(w[i + 1], &b)) {
				fs->enabled = b;
				i++;
			}
		} else if (!strcmp(k, "disable") || !strcmp(k, "disabled")) {
			ONCE(HAVE_ENABLED);
			fs->enabled = false;
		} else if (!for_set && allow_image && !strcmp(k, "prefixes")) {
			ONCE(HAVE_PREFIXES);
			NEED_VALUE();
			if (parse_prefix_counts(v, fs->prefixes, &fs->nprefixes,
						err, errlen))
				return -1;
		} else if (!for_set && allow_image && !strcmp(k, "image")) {
			/* One per stage, oldest first. */
			size_t len, m = fs->nimages;
			long got;

			if (m == NF_CUCKOO_STAGES_MAX) {
				seterr(err, errlen, "more than %d 'image' words: a filter has at most %d stages",
				       NF_CUCKOO_STAGES_MAX, NF_CUCKOO_STAGES_MAX);
				return -1;
			}
			fs->have |= HAVE_IMAGE;
			NEED_VALUE();
			len = strlen(v);
			fs->image[m] = malloc(len / 4 * 3 + 3);
			if (!fs->image[m]) {
				seterr(err, errlen, "out of memory");
				return -1;
			}
			fs->nimages++;
			got = b64_decode(v, len, fs->image[m]);
			if (got <= 0 || got > NF_CUCKOO_IMAGE_HEADER_MAXLEN) {
				seterr(err, errlen, "bad image header (want base64, at most %d bytes)",
				       NF_CUCKOO_IMAGE_HEADER_MAXLEN);
				return -1;
			}
			fs->image_len[m] = (size_t)got;
		} else if (!strcmp(k, "grow") || !strcmp(k, "nogrow")) {
			b = !strcmp(k, "grow");
			if ((fs->have & HAVE_GROW) && fs->grow != b) {
				seterr(err, errlen, "give grow or nogrow, not both");
				return -1;
			}
			ONCE(HAVE_GROW);
			fs->grow = b;
		} else if (!for_set && !strcmp(k, "factor")) {
			uint64_t x;

			ONCE(HAVE_FACTOR);
			NEED_VALUE();
			if (parse_u64(v, &x) || x < NF_CUCKOO_GROW_FACTOR_MIN ||
			    x > NF_CUCKOO_GROW_FACTOR_MAX) {
				seterr(err, errlen, "bad growth factor '%s' (want %d to %d: a new stage holds that many times the items of the one before)",
				       v, NF_CUCKOO_GROW_FACTOR_MIN,
				       NF_CUCKOO_GROW_FACTOR_MAX);
				return -1;
			}
			fs->factor = (uint8_t)x;
		} else if (!for_set && !strcmp(k, "stages")) {
			uint64_t x;

			ONCE(HAVE_STAGES);
			NEED_VALUE();
			if (parse_u64(v, &x) || x < 1 || x > NF_CUCKOO_STAGES_MAX) {
				seterr(err, errlen, "bad number of stages '%s' (want 1 to %d: the first table and the stages it may grow)",
				       v, NF_CUCKOO_STAGES_MAX);
				return -1;
			}
			fs->stages = (uint8_t)x;
		} else {
			static const char *const fixed[] = {
				"family", "key", "capacity", "maxelem",
				"fingerprint", "fp", "fpr", "bucket", "kicks",
				"seed", "bidirectional", "bidir", "image",
				"semisort", "nosemisort", "prefixes", "factor",
				"stages", "iif", "oif",
			};
			size_t j;

			for (j = 0; j < sizeof(fixed) / sizeof(fixed[0]); j++) {
				if (strcmp(k, fixed[j]))
					continue;
				if (for_set)
					seterr(err, errlen, "'%s' is fixed when a filter is created; set changes only action, invert, enable/disable, grow/nogrow, hook and priority", k);
				else
					seterr(err, errlen, "'%s' is only valid in a restore stream", k);
				return -1;
			}
			seterr(err, errlen, "unknown parameter '%s'", k);
			return -1;
		}
	}
	if ((fs->have & HAVE_FP_BITS) && (fs->have & HAVE_FPR)) {
		seterr(err, errlen, "give fpr or fingerprint, not both");
		return -1;
	}
	/* The module's words (nfcf_parse_params()), before asking it. */
	if ((fs->have & HAVE_ENCODING) && (fs->have & HAVE_BUCKET) &&
	    fs->encoding == NF_CUCKOO_ENCODING_SEMISORT && fs->bucket != 4) {
		seterr(err, errlen, "semi-sorted buckets need bucket size 4");
		return -1;
	}
	if ((fs->have & HAVE_PREFIXES) && !(fs->have & HAVE_IMAGE)) {
		seterr(err, errlen, "'prefixes' goes with 'image': the counts of a saved table");
		return -1;
	}
	if ((fs->have & HAVE_IMAGE) && (fs->have & (HAVE_SEED | HAVE_FPR))) {
		seterr(err, errlen, "a filter restored from an image takes its seed and geometry from the image: drop 'seed' and 'fpr'");
		return -1;
	}
	/* The module's check (nfcf_load_images()), before asking it. */
	if (fs->nimages > (fs->have & HAVE_STAGES ? fs->stages :
			   NF_CUCKOO_STAGES_DEFAULT)) {
		seterr(err, errlen, "%zu images (stages) but at most %u stages: give 'stages %zu' or more",
		       fs->nimages, fs->have & HAVE_STAGES ? fs->stages :
		       NF_CUCKOO_STAGES_DEFAULT, fs->nimages);
		return -1;
	}
	return 0;
}

int iface_add(struct iface_list *l, uint8_t dir, const char *name, char *err,
	      size_t errlen)
{
	size_t len = strlen(name), i;

	/* As the kernel's dev_valid_name(). */
	if (!len || len >= IFACE_NAMELEN || !strcmp(name, ".") ||
	    !strcmp(name, "..") || strpbrk(name, "/: \t\n")) {
		seterr(err, errlen, "bad interface name '%s' (1 to %d characters, no '/', ':' or space)",
		       name, IFACE_NAMELEN - 1);
		return -1;
	}
	for (i = 0; i < l->n; i++) {
		if (l->dir[i] == dir && !strcmp(l->name[i], name)) {
			seterr(err, errlen, "%s %s given twice",
			       dir == NF_CUCKOO_IFACE_IN ? "iif" : "oif", name);
			return -1;
		}
	}
	if (l->n == NF_CUCKOO_IFACES_MAX) {
		seterr(err, errlen, "more than %d interfaces (iif and oif)",
		       NF_CUCKOO_IFACES_MAX);
		return -1;
	}
	memcpy(l->name[l->n], name, len + 1);
	l->dir[l->n++] = dir;
	return 0;
}

void iface_print(const struct iface_list *l, FILE *f)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		fprintf(f, " %s %s", l->dir[i] == NF_CUCKOO_IFACE_IN ? "iif" : "oif",
			l->name[i]);
}
