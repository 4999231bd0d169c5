// SPDX-License-Identifier: GPL-2.0
/*
 * Run the program users get (tools/cfctl/bpf/nf_cuckoo.bpf.c: its XDP
 * and its tc program) on packets with BPF_PROG_TEST_RUN, asking filter
 * ID, as `cfctl xdp attach` and `cfctl tc attach` would set it:
 *
 *   prog_test [-v] [-o OBJ] ID [FILE]
 *
 * OBJ defaults to tools/cfctl/nf_cuckoo.bpf.o (from the top of the
 * tree).  ID goes in the program's nfcf_filter_id (.rodata) before the
 * load, as cfctl writes it; 0 is the program's "no filter".  FILE
 * (default: stdin) holds a packet a line, "LABEL HEX", whole Ethernet
 * frames, "-" for an empty one; blank lines and '#' comments are
 * skipped.  For each packet a line "LABEL XDP TC": each program's
 * verdict by name (XDP_DROP, XDP_PASS, TC_ACT_SHOT, TC_ACT_UNSPEC, else
 * the number), or the error of BPF_PROG_TEST_RUN itself (EINVAL for a
 * frame shorter than Ethernet's header, which it refuses).
 * -v prints the verifier's statistics of each program (instructions
 * processed, states) on stderr.
 * Exit status 1 if the object cannot be loaded (libbpf says why, the
 * verifier's log included, on stderr), 2 for a bad command line or input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "../../tools/cfctl/bpf/nf_cuckoo_prog.h"

#define DEFAULT_OBJ	"tools/cfctl/" NFCF_PROG_OBJ
#define PKT_MAX		4096

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* HEX into pkt; its length, or -1. */
static long unhex(const char *s, unsigned char *pkt)
{
	size_t n = 0;

	if (!strcmp(s, "-"))
		return 0;
	while (s[0] && s[1]) {
		int hi = hexval(s[0]), lo = hexval(s[1]);

		if (hi < 0 || lo < 0 || n >= PKT_MAX)
			return -1;
		pkt[n++] = (unsigned char)(hi << 4 | lo);
		s += 2;
	}
	return s[0] ? -1 : (long)n;
}

static const char *xdp_name(__u32 r)
{
	switch (r) {
	case XDP_ABORTED:
		return "XDP_ABORTED";
	case XDP_DROP:
		return "XDP_DROP";
	case XDP_PASS:
		return "XDP_PASS";
	case XDP_TX:
		return "XDP_TX";
	case XDP_REDIRECT:
		return "XDP_REDIRECT";
	default:
		return NULL;
	}
}

static const char *tc_name(__u32 r)
{
	switch ((int)r) {
	case TC_ACT_UNSPEC:
		return "TC_ACT_UNSPEC";
	case TC_ACT_OK:
		return "TC_ACT_OK";
	case TC_ACT_SHOT:
		return "TC_ACT_SHOT";
	default:
		return NULL;
	}
}

/* Run prog on the packet; print its verdict (a word, no newline). */
static void run(int prog, const unsigned char *pkt, size_t len,
		const char *(*name)(__u32))
{
	static unsigned char out[PKT_MAX + 512];
	const char *s;
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = pkt,
		.data_size_in = (__u32)len,
		.data_out = out,
		.data_size_out = sizeof(out),
		.repeat = 1,
	);

	if (bpf_prog_test_run_opts(prog, &opts)) {
		int e = errno;

		s = e == EINVAL ? "EINVAL" : e == ENOSPC ? "ENOSPC" :
		    e == EPERM ? "EPERM" : NULL;
		if (s)
			printf(" %s", s);
		else
			printf(" errno%d", e);
		return;
	}
	s = name(opts.retval);
	if (s)
		printf(" %s", s);
	else
		printf(" %d", (int)opts.retval);
}

static void usage(void)
{
	fprintf(stderr, "usage: prog_test [-v] [-o OBJ] ID [FILE]\n");
}

int main(int argc, char **argv)
{
	static unsigned char pkt[PKT_MAX];
	static char vlog[2][65536];
	const char *path = DEFAULT_OBJ;
	struct bpf_program *xdp, *tc;
	struct bpf_object *obj;
	char *line = NULL, *end;
	size_t cap = 0;
	unsigned long id;
	FILE *in = stdin;
	int c, err, lineno = 0, verbose = 0;

	while ((c = getopt(argc, argv, "vo:")) != -1) {
		if (c == 'v') {
			verbose = 1;
		} else if (c == 'o') {
			path = optarg;
		} else {
			usage();
			return 2;
		}
	}
	if (optind >= argc || argc - optind > 2) {
		usage();
		return 2;
	}
	errno = 0;
	id = strtoul(argv[optind], &end, 0);
	if (errno || *end || !*argv[optind] || id > 0xffffffffUL) {
		fprintf(stderr, "prog_test: bad filter id '%s'\n", argv[optind]);
		return 2;
	}
	if (argc - optind == 2 && strcmp(argv[optind + 1], "-")) {
		in = fopen(argv[optind + 1], "r");
		if (!in) {
			fprintf(stderr, "prog_test: %s: %s\n", argv[optind + 1], strerror(errno));
			return 2;
		}
	}

	obj = bpf_object__open_file(path, NULL);
	if (!obj) {
		fprintf(stderr, "prog_test: cannot open %s: %s\n", path, strerror(errno));
		return 1;
	}
	err = nfcf_prog_set_filter_id(obj, (__u32)id);
	if (err) {
		fprintf(stderr, "prog_test: %s: cannot set %s: %s\n", path, NFCF_PROG_ID_VAR, strerror(-err));
		return 1;
	}
	xdp = bpf_object__find_program_by_name(obj, NFCF_PROG_XDP);
	tc = bpf_object__find_program_by_name(obj, NFCF_PROG_TC);
	if (!xdp || !tc) {
		fprintf(stderr, "prog_test: %s lacks nf_cuckoo_xdp or nf_cuckoo_tc\n", path);
		return 1;
	}
	if (verbose) {
		/* 4: the statistics alone (BPF_LOG_STATS). */
		bpf_program__set_log_level(xdp, 4);
		bpf_program__set_log_buf(xdp, vlog[0], sizeof(vlog[0]));
		bpf_program__set_log_level(tc, 4);
		bpf_program__set_log_buf(tc, vlog[1], sizeof(vlog[1]));
	}
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "prog_test: cannot load %s: %s\n", path, strerror(-err));
		return 1;
	}
	if (verbose)
		fprintf(stderr, "nf_cuckoo_xdp: %snf_cuckoo_tc: %s", vlog[0], vlog[1]);

	while (getline(&line, &cap, in) > 0) {
		char *label, *hex, *save;
		long len;

		lineno++;
		label = strtok_r(line, " \t\r\n", &save);
		if (!label || label[0] == '#')
			continue;
		hex = strtok_r(NULL, " \t\r\n", &save);
		len = hex ? unhex(hex, pkt) : -1;
		if (len < 0 || strtok_r(NULL, " \t\r\n", &save)) {
			fprintf(stderr, "prog_test: line %d: not LABEL HEX\n", lineno);
			return 2;
		}
		printf("%s", label);
		run(bpf_program__fd(xdp), pkt, (size_t)len, xdp_name);
		run(bpf_program__fd(tc), pkt, (size_t)len, tc_name);
		printf("\n");
	}
	free(line);
	if (in != stdin)
		fclose(in);
	bpf_object__close(obj);
	return 0;
}
