// SPDX-License-Identifier: GPL-2.0
/*
 * genflows: distinct UDP flows, one entry a line, for the tests that load a
 * million (cfctl_grow.sh, cfctl_restore_1m.sh).  Under emulation awk took
 * 16-38 s to print what this prints in one or two.
 *
 *   genflows [-p PREFIX] FROM TO DST
 *
 * Flow i (FROM <= i < TO): "PREFIXudp 10.a.b.c:PORT DST:53", where a.b.c are
 * the low 24 bits of i and PORT is 1024 + i / 2^24.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr, "usage: genflows [-p PREFIX] FROM TO DST\n");
	return 2;
}

static int number(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || end == s || *end || *v > 0xffffffffUL ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *prefix = "";
	unsigned long from, to, i;
	int c;

	while ((c = getopt(argc, argv, "p:")) != -1) {
		if (c != 'p')
			return usage();
		prefix = optarg;
	}
	if (argc - optind != 3 || number(argv[optind], &from) ||
	    number(argv[optind + 1], &to) || from > to)
		return usage();
	for (i = from; i < to; i++)
		printf("%sudp 10.%lu.%lu.%lu:%lu %s:53\n", prefix,
		       (i >> 16) & 255, (i >> 8) & 255, i & 255,
		       1024 + (i >> 24), argv[optind + 2]);
	if (fflush(stdout) || ferror(stdout)) {
		perror("genflows");
		return 1;
	}
	return 0;
}
