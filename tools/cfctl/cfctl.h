/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfctl: control nf_cuckoo filters over generic netlink.
 *
 * Source layout:
 *   cfctl.c    main, options, help, dispatch, the verbs
 *   parse.c    words of filter parameters (names, numbers, family, key...)
 *   entry.c    entries as a person writes a flow ("udp 1.2.3.4:5 ...")
 *   base64.c   the save format's encoding
 *   nl.c       netlink plumbing: requests, acks, extended acks
 *   nl_sock.c  the netlink socket (fake_nl.c stands in for it in tests)
 *   ops.c      queued requests: batching, pipelining, error reports
 *   info.c     filter descriptions: decoding, text and JSON output
 *   saverest.c save and restore
 *   entries.c  add, del, test
 *   build.c    build: create, add and save without a module
 *   monitor.c  monitor: the events group
 *   fake_nl.c  the module in this process: the backend of build (and of
 *              the tests' cfctl_fake)
 * Tests (make check): test_parse.c, test_cli.sh; test_fake.sh runs
 * cfctl_fake, cfctl whose every verb talks to fake_nl.c instead of
 * nl_sock.c; fuzz/ holds the libFuzzer targets.
 */
#ifndef CFCTL_H
#define CFCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../uapi/linux/nf_cuckoo.h"
#include "../../kmod/version.h"

#define CFCTL_VERSION	NF_CUCKOO_VERSION

/* Exit statuses. */
#define EXIT_OK		0
#define EXIT_ABSENT	1	/* test: an entry is not in the filter */
#define EXIT_USAGE	2	/* bad command line or input syntax */
#define EXIT_FAIL	3	/* the kernel (or the system) refused */

#define ERRLEN		512

/* ---- global state (cfctl.c) ---- */

struct cfctl_opts {
	bool json;
	bool quiet;
	bool verbose;
	bool exist;		/* -exist: add/del/create tolerate "already" */
	bool keep_ambiguous;	/* del: keep entries several stages have */
	bool names_only;	/* list -n */
	bool pretty;		/* -p: pretty JSON */
	bool skip_bad;		/* add/del/test/build -f: skip bad lines */
	bool replace;		/* restore -replace */
	const char *keep[8];	/* restore -keep GLOB: filters left alone */
	size_t nkeep;
};

extern struct cfctl_opts opts;
extern const char *verb_name;	/* for error messages */

/* The -f FILE option, or NULL. */
const char *cfctl_file(void);
/* The -o IMAGE option (build), or NULL. */
const char *cfctl_output(void);

void __attribute__((format(printf, 1, 2))) errmsg(const char *fmt, ...);
void __attribute__((format(printf, 1, 2))) warnmsg(const char *fmt, ...);

/* ---- parse.c ---- */

struct keyspec {
	uint32_t fields;	/* enum nf_cuckoo_key_field */
	uint8_t families;	/* enum nf_cuckoo_family */
	bool bidir;
};

int parse_u64(const char *s, uint64_t *out);		/* decimal or 0x */
int parse_u32(const char *s, uint32_t *out);
int parse_s32(const char *s, int32_t *out);
int parse_capacity(const char *s, uint64_t *out);	/* 1000, 10k, 1M, 1Mi */
int parse_fpr(const char *s, uint32_t *ppb);		/* 0.001, 1e-3, 0.1% */
int parse_port(const char *s, uint16_t *out);
int parse_proto(const char *s, uint8_t *out);		/* PROTO_NAMES */
#define PROTO_NAMES	"tcp, udp, udplite, sctp, dccp, icmp, icmpv6, gre, esp, ah, igmp, ospf or a number 0 to 255"
bool proto_has_ports(uint8_t proto);
const char *proto_name(uint8_t proto);			/* NULL if none */
int parse_family(const char *s, uint8_t *out);
const char *family_name(uint8_t family);
int parse_key_fields(const char *s, uint32_t *out, char *err, size_t errlen);
int format_key_fields(uint32_t fields, char *buf, size_t len);
const char *key_field_name(uint32_t bit);		/* "src"... */
const char *key_field_desc(uint32_t bit);		/* "source address" */
int parse_hook(const char *s, uint8_t *out);
const char *hook_name(uint8_t hook);
int parse_priority(const char *s, int32_t *out);
int parse_mark(const char *s, uint32_t *mark, uint32_t *mask);
const char *action_name(uint8_t action);
int check_name(const char *s, char *err, size_t errlen);
int check_names(int argc, char **argv);
int parse_onoff(const char *s, bool *out);

/*
 * Everything `create` (and a restore's create line) can say, and `set`.
 * have_* bits say what was given.
 */
enum {
	HAVE_FAMILY = 1 << 0, HAVE_KEY = 1 << 1, HAVE_CAPACITY = 1 << 2,
	HAVE_FP_BITS = 1 << 3, HAVE_FPR = 1 << 4, HAVE_BUCKET = 1 << 5,
	HAVE_KICKS = 1 << 6, HAVE_SEED = 1 << 7, HAVE_HOOK = 1 << 8,
	HAVE_PRIORITY = 1 << 9, HAVE_ACTION = 1 << 10, HAVE_BIDIR = 1 << 11,
	HAVE_INVERT = 1 << 12, HAVE_ENABLED = 1 << 13, HAVE_IMAGE = 1 << 14,
	HAVE_ENCODING = 1 << 15, HAVE_PREFIXES = 1 << 16,
	HAVE_GROW = 1 << 17, HAVE_FACTOR = 1 << 18, HAVE_STAGES = 1 << 19,
	HAVE_IFACES = 1 << 20,
};

/* Device names a filter's hook is restricted to (iif, oif). */
#define IFACE_NAMELEN	16	/* IFNAMSIZ */
struct iface_list {
	char name[NF_CUCKOO_IFACES_MAX][IFACE_NAMELEN];
	uint8_t dir[NF_CUCKOO_IFACES_MAX];	/* enum nf_cuckoo_iface_dir */
	size_t n;
};

/* Add DIR NAME to L; 0, or -1 with the reason in ERR. */
int iface_add(struct iface_list *l, uint8_t dir, const char *name, char *err,
	      size_t errlen);
/* " iif NAME oif NAME ...", as create words. */
void iface_print(const struct iface_list *l, FILE *f);

/* The most records of NF_CUCKOO_A_PREFIXES. */
#define PREFIX_COUNTS_MAX	(2 * NF_CUCKOO_PREFIXES_MAX)

struct filter_spec {
	char name[NF_CUCKOO_NAME_MAXLEN];
	uint32_t have;
	uint8_t family;
	uint32_t key_fields;
	uint64_t capacity;
	uint8_t fp_bits;
	uint32_t fpr_ppb;
	uint8_t bucket;
	uint8_t encoding;	/* HAVE_ENCODING: enum nf_cuckoo_encoding */
	uint16_t kicks;
	uint64_t seed;
	uint8_t hook;
	int32_t priority;
	uint8_t action;
	uint32_t mark, mark_mask;
	bool mark_given;
	bool bidir, invert, enabled;
	bool grow;		/* HAVE_GROW: grow (true) or nogrow */
	uint8_t factor;		/* HAVE_FACTOR: growth factor */
	uint8_t stages;		/* HAVE_STAGES: most stages */
	/* HAVE_IMAGE: the saved IMAGE_HEADERs, one per stage, oldest first */
	uint8_t *image[NF_CUCKOO_STAGES_MAX];
	size_t image_len[NF_CUCKOO_STAGES_MAX];
	size_t nimages;
	/* HAVE_PREFIXES (restore): the saved counts of prefix lengths */
	struct nf_cuckoo_prefix_count prefixes[PREFIX_COUNTS_MAX];
	size_t nprefixes;
	struct iface_list ifs;	/* HAVE_IFACES: iif and oif */
};

/* Parse create words (after NAME); for_set: only what `set` may change;
 * allow_image: the restore-only `image` word (once per stage). */
int parse_filter_spec(char **w, int n, struct filter_spec *fs, bool for_set,
		      bool allow_image, char *err, size_t errlen);
void filter_spec_free(struct filter_spec *fs);
/* The table bytes an image header declares: 0, or -1 if cfctl cannot
 * tell (not a header of the version it knows). */
int image_table_bytes(const uint8_t *img, size_t len, uint64_t *out);
/* The version of an image header, -1 if it is not an nf_cuckoo image. */
int image_version(const uint8_t *img, size_t len);
void filter_spec_keyspec(const struct filter_spec *fs, struct keyspec *ks);
/* "ip/24/0=3,ip6/48/0=1": counts of prefix lengths, as save writes them. */
int parse_prefix_counts(const char *s, struct nf_cuckoo_prefix_count *pc,
			size_t *n, char *err, size_t errlen);
void format_prefix_counts(const struct nf_cuckoo_prefix_count *pc, size_t n,
			  FILE *f);

/* ---- entry.c ---- */

struct entry {
	uint8_t src[16];	/* network order */
	uint8_t dst[16];
	uint16_t sport, dport;	/* host order */
	uint8_t family;		/* NF_CUCKOO_FAMILY_IPV4/IPV6, 0 if no address */
	uint8_t proto;
	uint8_t src_plen, dst_plen;	/* a prefix's length; 0: the address */
	bool bare;		/* one address alone, as a list file's line:
				 * entry_check() gives it to the key's one
				 * address field, src or dst */
	uint32_t given;		/* enum nf_cuckoo_key_field bits the text gave */
};

#define ENTRY_MAX_WORDS	16

/*
 * Parse one entry from words w[0..n).  With multi, stop (without error) at
 * the first word that starts another entry, a "," word, or a word ending
 * in ","; without, the words must form exactly one entry.  Sets *used to
 * the words consumed (a separator included).  0 or -1 with err set.
 */
int entry_parse(char **w, int n, bool multi, struct entry *e, int *used,
		char *err, size_t errlen);
/* false: entry_parse() never takes its IPv4 fast path (for test_parse) */
extern bool entry_fast_path;
/* Split a line in place into at most max words. -1 if more. */
int split_words(char *line, char **w, int max);
/*
 * The words of entries given as arguments: an argument holding blanks is
 * an entry of its own, between "," words.  One allocation, free(w) frees
 * it.  NULL with *nw -1 and err set for an argument of too many words,
 * NULL with *nw 0 without memory.
 */
char **cmdline_words(int argc, char **argv, int *nw, char *err,
		     size_t errlen);
/* Whether the arguments hold anything but blanks and ",". */
bool cmdline_has_entry(int argc, char **argv);
/* Blanks only, or a comment: a line to skip, however many words. */
bool line_is_blank(const char *line);
/*
 * Cut a line of -f FILE at its comment: the first '#' or ';' (Spamhaus
 * writes "1.10.16.0/20 ; SBL256894"); neither can be part of an entry.
 */
void strip_comment(char *line);

/* Input lines (-f FILE, restore): at most LINE_MAX_BYTES, no NUL bytes. */
#define LINE_MAX_BYTES	65536

struct line_reader {
	FILE *f;
	char *buf;
	uint32_t lineno;	/* of the line read last (or refused) */
};

/* 0, or -1 without memory. */
int line_reader_init(struct line_reader *lr, FILE *f);
void line_reader_free(struct line_reader *lr);
/*
 * The next line, without its newline, in *line (lr's buffer, valid until
 * the next call) of *len bytes.  1: a line; 0: the end of the input;
 * -1: a line too long or with a NUL byte (input error, err set, lineno is
 * that line); -2: a read error (err set).
 */
int read_line(struct line_reader *lr, char **line, size_t *len, char *err,
	      size_t errlen);
/*
 * Check an entry against a filter's key and family, and fill in what the
 * kernel needs (the family of an entry without addresses; for a filter
 * keyed on dst alone, a bare address is the destination).  fname: the
 * filter's name, for messages.
 */
int entry_check(struct entry *e, const struct keyspec *ks, const char *fname,
		char *err, size_t errlen);
/* The entry written back as cfctl reads it. */
void entry_format(const struct entry *e, char *buf, size_t len);

/* ---- base64.c ---- */

size_t b64_enc_len(size_t n);
void b64_encode(const uint8_t *in, size_t n, char *out);	/* NUL-terminates */
/* Returns bytes decoded, or -1 on a bad character or length. */
long b64_decode(const char *in, size_t n, uint8_t *out);

#endif /* CFCTL_H */
