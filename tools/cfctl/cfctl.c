// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: control nf_cuckoo filters.  main, options, help and dispatch.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "verbs.h"
#include "xdp.h"
#ifdef CFCTL_FAKE
#include "fake_nl.h"
#endif

struct cfctl_opts opts;
const char *verb_name;

#ifdef CFCTL_FAKE
/* The fake has no kernel to attach a program to. */
int cmd_xdp(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	errmsg("cfctl_fake has no devices: xdp and tc need the kernel");
	return EXIT_FAIL;
}

int cmd_tc(int argc, char **argv)
{
	return cmd_xdp(argc, argv);
}
#endif

void errmsg(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	if (verb_name)
		fprintf(stderr, "cfctl: %s: ", verb_name);
	else
		fputs("cfctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void warnmsg(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	if (verb_name)
		fprintf(stderr, "cfctl: %s: warning: ", verb_name);
	else
		fputs("cfctl: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

struct verb {
	const char *name;
	const char *alias;
	int (*fn)(int argc, char **argv);
	const char *synopsis;
	const char *help;
};

#define ENTRY_HELP \
"ENTRY is a flow as a person writes it; the filter's key decides which\n" \
"fields it must give (and may give):\n" \
"  [PROTO] SRC[:PORT] [DST[:PORT]]   udp 10.0.0.1:5353 10.0.0.2:53\n" \
"                                    tcp [2001:db8::1]:443 [2001:db8::2]:50000\n" \
"  src ADDR[:PORT], dst ADDR[:PORT], sport N, dport N, proto P\n" \
"                                    src 10.0.0.1     (a source-only key)\n" \
"  ADDR                              an address alone: the filter's address\n" \
"                                    when its key is src or dst alone\n" \
"An ADDR may be a prefix, ADDR/LEN (src 203.0.113.0/24): an address then\n" \
"matches every prefix in the filter that holds it.\n" \
"PROTO is tcp, udp, udplite, sctp, dccp, icmp, icmpv6, gre, esp, ah, igmp,\n" \
"ospf or a number 0 to 255.  Several entries on one command line follow\n" \
"each other (a protocol word or a repeated field starts the next one);\n" \
"separate them with ',' or quote each to be explicit.\n"

static const struct verb verbs[] = {
	{ "create", "new", cmd_create,
	  "create NAME [family ip|ip6|inet] [key FIELDS] [capacity N]\n"
	  "         [fpr E | fingerprint BITS] [bucket 2|4|8] [semisort | nosemisort]\n"
	  "         [kicks K] [seed S] [hook H] [priority P]\n"
	  "         [action drop|count|mark VALUE[/MASK]] [bidirectional] [invert]\n"
	  "         [disabled] [grow | nogrow] [factor F] [stages S]",
	  "Create a filter.  Defaults: family inet (IPv4 and IPv6), key\n"
	  "src,dst,sport,dport,proto, capacity 65536, fingerprint 12 bits,\n"
	  "bucket 4, kicks 500, a random seed, hook prerouting, priority raw (-300),\n"
	  "action drop, grow factor 2 stages 8.\n"
	  "  FIELDS    comma-separated: src, dst, sport, dport, proto (or all)\n"
	  "  N         items it must hold: 1000000, 1M, 64Ki ...\n"
	  "  E         target false-positive rate: 0.001, 1e-4, 0.01% ...; the\n"
	  "            fewest bits per item that meet it: with bucket 4, semi-sorted\n"
	  "            buckets (0.1%: fingerprint 13, about 12.6 bits per item)\n"
	  "  BITS      fingerprint bits, 6 to 32 (fpr and fingerprint exclude\n"
	  "            each other)\n"
	  "  semisort  semi-sorted buckets: one bit per item less for the same\n"
	  "            fingerprint and rate, bucket 4 only; nosemisort: plain\n"
	  "            buckets even with fpr (the default without fpr)\n"
	  "  H         prerouting, input, forward, output, postrouting, or none:\n"
	  "            no hook of its own, for XDP and tc programs (see xdp)\n"
	  "  P         a number, or raw, mangle, dstnat, filter, security, srcnat\n"
	  "  action    drop the packet, count it only, or set its mark\n"
	  "  bidirectional  an entry matches both directions of its flow\n"
	  "                 (needs both addresses or none, both ports or none)\n"
	  "  invert    packets NOT in the filter match (an allow list)\n"
	  "  disabled  create it disabled (see set)\n"
	  "  grow      when the filter is full, add a stage: a table of F times the\n"
	  "            capacity of the last, its fingerprint a bit longer, so that\n"
	  "            the bound of the whole (show: Stages) stays under twice the\n"
	  "            first stage's however much it grows.  A lookup asks every\n"
	  "            stage, so each stage costs packets a little time.  nogrow: a\n"
	  "            full filter refuses adds (\"the filter is full\")\n"
	  "  F         growth factor, 2 to 8\n"
	  "  S         most stages, 1 to 16 (capacity 1000 takes 255,000 items in\n"
	  "            8 stages of factor 2; 16 stages take 65 million)\n"
	  "A new stage is charged to the namespace's memory ceiling; one over it is\n"
	  "refused and the add fails, nothing held lost.\n"
	  "With -exist, an existing filter of that name is not an error.\n" },
	{ "destroy", NULL, cmd_destroy,
	  "destroy [NAME...]",
	  "Destroy the named filters, or every filter of the network namespace\n"
	  "when no name is given.  A restore in progress is aborted.\n" },
	{ "list", "ls", cmd_list,
	  "list [-n] [-j] [NAME...]",
	  "Show filters (all of the namespace, or those named): parameters and\n"
	  "statistics.  -n: names only.  -j: one JSON document (an array).\n" },
	{ "show", NULL, cmd_show,
	  "show [-j] NAME",
	  "Show one filter, as list does.  -j: one JSON object.\n" },
	{ "set", NULL, cmd_set,
	  "set NAME [action drop|count|mark VALUE[/MASK]] [invert [on|off] | noinvert]\n"
	  "         [enable | disable] [grow | nogrow] [hook HOOK] [priority PRIO]",
	  "Change what a filter does, keeping its entries.  grow or nogrow turns\n"
	  "growth on or off (the stages it has stay).  hook and priority move it\n"
	  "(hook none: rules and programs only), consulted at its new place before\n"
	  "it leaves the old.  Geometry, family, key, bidirectional, factor and\n"
	  "stages are fixed at creation.\n" },
	{ "flush", NULL, cmd_flush,
	  "flush [NAME...]",
	  "Remove every entry of the named filters, or of every filter.\n" },
	{ "add", NULL, cmd_add,
	  "add [-f FILE] NAME [ENTRY...]",
	  "Add entries.  An entry added twice is stored twice and takes two\n"
	  "deletes; with -exist an entry already (probably) present is skipped.\n"
	  "-f FILE reads one entry per line ('-' for stdin; '#' and ';'\n"
	  "comments, whole-line or trailing), or a blocklist: one address\n"
	  "or prefix a line, for a filter keyed on src or dst alone.  A bad\n"
	  "line is named and nothing is applied; with -skip-bad it is skipped\n"
	  "and counted.\n"
	  "Entries go to the kernel in batches; a batch is applied whole or not\n"
	  "at all, and on an error cfctl says which entry failed and what was\n"
	  "applied.\n\n" ENTRY_HELP },
	{ "del", "delete", cmd_del,
	  "del [-f FILE] NAME [ENTRY...]",
	  "Delete entries.  Deleting an entry that is not in the filter is an\n"
	  "error (with -exist it is skipped).  Delete only what was added: a\n"
	  "cuckoo filter cannot tell apart keys with the same fingerprint and\n"
	  "buckets, so deleting a key never added may remove another one.\n"
	  "A filter that grew refuses to delete an entry that more than one of\n"
	  "its stages answers for (\"ambiguous\"; about its false-positive rate of\n"
	  "the deletes, or an entry added again after it grew): one of them may\n"
	  "be another entry's.  To remove such an entry, rebuild the filter from\n"
	  "the entries to keep (see compact).  With -keep-ambiguous such entries are\n"
	  "kept and counted, and the rest deleted, instead of failing the batch.\n\n"
	  ENTRY_HELP },
	{ "test", NULL, cmd_test,
	  "test [-f FILE] NAME [ENTRY...]",
	  "Test entries for membership.  Exit status 0 if every entry is\n"
	  "(probably) in the filter, 1 if one is certainly not.  A filter has\n"
	  "false positives: \"present\" means \"probably present\".\n"
	  "Prints one line per entry (-q: nothing; with -f: a summary, -v: every\n"
	  "entry).\n\n" ENTRY_HELP },
	{ "save", NULL, cmd_save,
	  "save [-f FILE] [NAME...]",
	  "Print filters (all, or those named) as a stream for restore: a\n"
	  "create line with every parameter and the saved image header (one per\n"
	  "stage of a filter that grew), then the raw table as 'load NAME OFFSET\n"
	  "BASE64' and 'load NAME OFFSET zero LENGTH' lines.  The keys themselves\n"
	  "are not needed to restore.\n" },
	{ "restore", NULL, cmd_restore,
	  "restore [-exist | -replace] [-keep GLOB]... [-f FILE]",
	  "Read a stream of commands (stdin by default): create, destroy, flush,\n"
	  "set, add NAME ENTRY, del NAME ENTRY, and the load lines of save; one\n"
	  "per line, '#' comments and blank lines allowed.  The whole stream is\n"
	  "checked first: a bad line is reported with its number and nothing is\n"
	  "applied; so is a save whose checksum (its last line) does not match\n"
	  "or that was cut short.  Then it is sent in large batches; if the\n"
	  "kernel refuses a line, cfctl stops there, destroys the filters the\n"
	  "stream created, and says what else was applied.\n"
	  "  -exist    a filter the stream restores from a save that exists\n"
	  "            already is kept as it is, and its lines skipped\n"
	  "  -replace  a filter the stream creates that exists already is built\n"
	  "            beside it under a temporary name and swapped in when the\n"
	  "            whole stream went in (see swap); filters the stream does not\n"
	  "            name are left alone\n"
	  "  -keep GLOB  a filter the stream restores from a save that exists and\n"
	  "            whose name matches GLOB (f2b-*) is kept as it is, as with\n"
	  "            -exist (repeatable, at most 8): the filters a daemon keeps\n"
	  "            up to date are better left to it\n" },
	{ "swap", NULL, cmd_swap,
	  "swap NAME NAME2",
	  "Exchange the names of two filters, at once: each keeps its entries,\n"
	  "settings, counters and hook.  With both live beside each other, this\n"
	  "replaces a filter with no moment unfiltered: build the new one under\n"
	  "another name, swap, destroy the old one (compact and restore -replace\n"
	  "do that).\n" },
	{ "compact", NULL, cmd_compact,
	  COMPACT_SYNOPSIS,
	  "Rebuild filter NAME from LIST, every entry it is to hold (as add -f\n"
	  "reads them), into one stage sized for them (a quarter more than LIST,\n"
	  "at least its first stage's capacity), with the same settings and a new\n"
	  "seed.  The new table is made in this process, loaded beside NAME and\n"
	  "swapped in, and the old one destroyed: packets meet one or the other\n"
	  "throughout.  On any error NAME is left as it was.  This is what a\n"
	  "filter that grew needs to delete every entry exactly again (see del):\n"
	  "whoever keeps the exact list (fail2ban, the CrowdSec adapter, a list\n"
	  "file) can run it.\n" },
	{ "build", NULL, cmd_build,
	  "build -f FILE -o IMAGE NAME [PARAMETERS]",
	  "Build a filter's image without the module: what 'cfctl save' would\n"
	  "print after 'cfctl create NAME PARAMETERS' and 'cfctl add -f FILE NAME',\n"
	  "made in this process with the module's own core.  Load it with\n"
	  "'cfctl restore -f IMAGE' on any host whose nf_cuckoo reads its image\n"
	  "version (and of the same byte order).  PARAMETERS are create's; FILE\n"
	  "holds entries as add -f reads them ('-' for stdin); IMAGE is written\n"
	  "under a temporary name and renamed once complete ('-' for stdout).\n"
	  "Input create or add would refuse is refused, with their messages, and\n"
	  "nothing is written.  With the same seed S and the same entries in the\n"
	  "same order, the image is byte for byte the kernel's save of the filter\n"
	  "but for its first line, a comment.  -exist: skip entries already\n"
	  "(probably) present, as add -exist does.\n" },
	{ "monitor", NULL, cmd_monitor,
	  "monitor [-j] [rcvbuf BYTES]",
	  "Print the events of the network namespace's filters as they happen,\n"
	  "one line each (-j: one JSON object a line), until interrupted:\n"
	  "  new filter NAME PARAMETERS     created (set, restore: the same)\n"
	  "  del filter NAME                destroyed\n"
	  "  swap NAME NAME2                the two exchanged their names\n"
	  "  flush NAME                     emptied\n"
	  "  add NAME N entries             an add request added N entries\n"
	  "  del NAME N entries             a del request removed N entries\n"
	  "  full NAME                      an add was refused: the filter is full\n"
	  "  load-high NAME stage S ...     an add filled stage S to 90% of its\n"
	  "                                 capacity\n"
	  "  stage NAME S ...               the filter grew stage S\n"
	  "  lost N events                  events this listener missed (it read\n"
	  "                                 too slowly); printed where they were\n"
	  "Never the entries themselves.  Needs CAP_NET_ADMIN.  rcvbuf: the\n"
	  "socket's receive buffer (default 8 MiB, or net.core.rmem_max).\n" },
	{ "xdp", NULL, cmd_xdp,
	  "xdp attach DEV FILTER [mode native|generic|auto] | detach DEV | show [DEV] | clean [DEV]",
	  "Drop FILTER's flows at XDP on device DEV, before the kernel builds a\n"
	  "socket buffer for them: attach loads nf_cuckoo's program\n"
	  "(nf_cuckoo.bpf.o) for FILTER, whose action must be drop, through\n"
	  "libxdp's dispatcher, so that it shares DEV with other XDP programs.\n"
	  "mode auto (the default) takes native where DEV's driver has it, else\n"
	  "generic; attach says which it got.  The program reads Ethernet, up to\n"
	  "two VLAN tags, IPv4 and IPv6 (extension headers, fragments) and TCP,\n"
	  "UDP, UDP-Lite, SCTP and DCCP ports, builds the key as the filter's\n"
	  "hook does and drops the packet if it matches; it counts in the\n"
	  "filter's lookups and matches.  detach removes it from DEV; show lists\n"
	  "the devices that have it, with their filter, mode and program id (-j:\n"
	  "JSON).  The filter is named by its id: a filter swapped in under the\n"
	  "name (restore -replace, compact) is the one consulted; a destroyed\n"
	  "one matches nothing.  Needs the module's BTF (see README).  clean\n"
	  "drops libxdp's pins of programs whose device went away (as\n"
	  "xdp-loader clean does): a namespace deleted with the program\n"
	  "attached leaves them, and they keep it loaded.\n" },
	{ "tc", NULL, cmd_tc,
	  "tc attach DEV ingress|egress FILTER | detach DEV ingress|egress | show [DEV]",
	  "As xdp, at tc (a clsact qdisc, created if missing, and a BPF filter at\n"
	  "handle 0xcf, priority 1): for traffic leaving DEV (egress) and for\n"
	  "devices without XDP.  A packet that does not match goes on to the\n"
	  "next tc filter.\n" },
	{ "help", NULL, NULL, "help [COMMAND]", "Show help." },
};
#define NVERBS (sizeof(verbs) / sizeof(verbs[0]))

static void usage(FILE *f)
{
	size_t i;

	fputs("Usage: cfctl [OPTIONS] COMMAND [ARGUMENTS]\n\nCommands:\n", f);
	for (i = 0; i < NVERBS; i++) {
		const char *s = verbs[i].synopsis;
		const char *nl = strchr(s, '\n');

		if (nl)
			fprintf(f, "  %.*s ...\n", (int)(nl - s), s);
		else
			fprintf(f, "  %s\n", s);
	}
	fputs("\nOptions:\n"
	      "  -j, --json      JSON output (list, show)\n"
	      "  -p, --pretty    indented JSON\n"
	      "  -q, --quiet     print nothing but errors\n"
	      "  -v, --verbose   say what was done, with counts and rates\n"
	      "  -exist          create: an existing filter is fine; add: skip\n"
	      "                  entries already present; del: skip missing ones\n"
	      "  -keep-ambiguous del: an entry that more than one stage of a\n"
	      "                  grown filter has is kept and counted instead of\n"
	      "                  failing its batch\n"
	      "  -f FILE         add/del/test/build/compact: entries; restore: the stream;\n"
	      "                  save: the output ('-' is stdin or stdout)\n"
	      "  -o IMAGE        build: the output ('-' is stdout)\n"
	      "  -replace        restore: build each filter that exists already\n"
	      "                  beside it and swap it in\n"
	      "  -keep GLOB      restore: keep the existing filters named so\n"
	      "  -skip-bad       add/del/test/build -f: skip the lines that cannot\n"
	      "                  be entries of the filter, warn and count them\n"
	      "  -h, --help      this text; 'cfctl help COMMAND' for a command\n"
	      "  -V, --version   print the version\n"
	      "\nExit status: 0 success, 1 test: an entry is absent, 2 usage or\n"
	      "input error (nothing was done), 3 the kernel refused (the error\n"
	      "says what and what was applied).  See cfctl(8).\n", f);
}

static const struct verb *find_verb(const char *s)
{
	size_t i;

	for (i = 0; i < NVERBS; i++)
		if (!strcmp(s, verbs[i].name) ||
		    (verbs[i].alias && !strcmp(s, verbs[i].alias)))
			return &verbs[i];
	return NULL;
}

static int help(const char *what)
{
	const struct verb *v;

	if (!what) {
		usage(stdout);
		return EXIT_OK;
	}
	v = find_verb(what);
	if (!v) {
		errmsg("unknown command '%s'; try 'cfctl help'", what);
		return EXIT_USAGE;
	}
	printf("Usage: cfctl %s\n\n%s", v->synopsis, v->help);
	return EXIT_OK;
}

/*
 * Options: before the command, and right after it.  Returns 1 if arg was
 * an option (and *i advanced past its value), 0 if not, -1 on error.
 */
static const char *opt_file, *opt_output;

static int take_opt(int argc, char **argv, int *i)
{
	const char *a = argv[*i];

	if (!strcmp(a, "-j") || !strcmp(a, "--json") || !strcmp(a, "-json")) {
		opts.json = true;
	} else if (!strcmp(a, "-p") || !strcmp(a, "--pretty")) {
		opts.pretty = true;
	} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
		opts.quiet = true;
	} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
		opts.verbose = true;
	} else if (!strcmp(a, "-exist") || !strcmp(a, "--exist") ||
		   !strcmp(a, "-!")) {
		opts.exist = true;
	} else if (!strcmp(a, "-keep-ambiguous") ||
		   !strcmp(a, "--keep-ambiguous")) {
		opts.keep_ambiguous = true;
	} else if (!strcmp(a, "-replace") || !strcmp(a, "--replace")) {
		opts.replace = true;
	} else if (!strcmp(a, "-keep") || !strcmp(a, "--keep")) {
		if (*i + 1 >= argc) {
			errmsg("option %s needs a filter name or pattern", a);
			return -1;
		}
		if (opts.nkeep == sizeof(opts.keep) / sizeof(opts.keep[0])) {
			errmsg("at most %zu -keep patterns",
			       sizeof(opts.keep) / sizeof(opts.keep[0]));
			return -1;
		}
		opts.keep[opts.nkeep++] = argv[++*i];
	} else if (!strcmp(a, "-skip-bad") || !strcmp(a, "--skip-bad")) {
		opts.skip_bad = true;
	} else if (!strcmp(a, "-n") || !strcmp(a, "--names") ||
		   !strcmp(a, "-name")) {
		opts.names_only = true;
	} else if (!strcmp(a, "-f") || !strcmp(a, "--file") ||
		   !strcmp(a, "-file")) {
		if (*i + 1 >= argc) {
			errmsg("option %s needs a file name", a);
			return -1;
		}
		opt_file = argv[++*i];
	} else if (!strncmp(a, "--file=", 7)) {
		opt_file = a + 7;
	} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
		if (*i + 1 >= argc) {
			errmsg("option %s needs a file name", a);
			return -1;
		}
		opt_output = argv[++*i];
	} else if (!strncmp(a, "--output=", 9)) {
		opt_output = a + 9;
	} else {
		return 0;
	}
	return 1;
}

const char *cfctl_file(void)
{
	return opt_file;
}

const char *cfctl_output(void)
{
	return opt_output;
}

int main(int argc, char **argv)
{
	const struct verb *v;
	int i = 1, r, first;
	char **args;
	int nargs;

#ifdef CFCTL_FAKE
	/* cfctl_fake: the tests' kernel answers every verb (but build,
	 * which always runs offline). */
	cfnl_backend = &fake_nl_backend;
#endif
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return help(NULL);
		if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("cfctl %s (nf_cuckoo uapi version %d)\n",
			       CFCTL_VERSION, NF_CUCKOO_GENL_VERSION);
			return EXIT_OK;
		}
		r = take_opt(argc, argv, &i);
		if (r < 0)
			return EXIT_USAGE;
		if (!r) {
			errmsg("unknown option '%s'; try 'cfctl -h'", a);
			return EXIT_USAGE;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	v = find_verb(argv[i]);
	if (!v) {
		errmsg("unknown command '%s'; try 'cfctl help'", argv[i]);
		return EXIT_USAGE;
	}
	verb_name = v->name;
	i++;
	if (!v->fn) {
		verb_name = NULL;
		if (i + 1 < argc) {
			errmsg("help takes at most one command");
			return EXIT_USAGE;
		}
		return help(i < argc ? argv[i] : NULL);
	}
	/* Options right after the command. */
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			verb_name = NULL;
			return help(v->name);
		}
		r = take_opt(argc, argv, &i);
		if (r < 0)
			return EXIT_USAGE;
		if (!r)
			break;
	}
	if ((opts.replace || opts.nkeep) && v->fn != cmd_restore) {
		errmsg("%s is restore's", opts.replace ? "-replace" : "-keep");
		return EXIT_USAGE;
	}
	if (opts.replace && opts.exist) {
		errmsg("-replace and -exist exclude each other: replace the filters that exist, or keep them");
		return EXIT_USAGE;
	}
	if (opt_output && v->fn != cmd_build) {
		errmsg("-o is build's (save writes to -f FILE)");
		return EXIT_USAGE;
	}
	if (opts.skip_bad && (v->fn != cmd_add && v->fn != cmd_del &&
			      v->fn != cmd_test && v->fn != cmd_build)) {
		errmsg("-skip-bad is for add, del, test and build with -f FILE");
		return EXIT_USAGE;
	}
	first = i;
	nargs = argc - first;
	args = argv + first;
	/* list, show, save, compact: options may also follow the names. */
	if (v->fn == cmd_list || v->fn == cmd_show || v->fn == cmd_save ||
	    v->fn == cmd_compact) {
		int j, k = 0;

		for (j = 0; j < nargs; j++) {
			int jj = j + first;

			if (args[j][0] == '-' && args[j][1]) {
				r = take_opt(argc, argv, &jj);
				if (r < 0)
					return EXIT_USAGE;
				if (r) {
					j = jj - first;
					continue;
				}
			}
			args[k++] = args[j];
		}
		nargs = k;
	}
	return v->fn(nargs, args);
}
