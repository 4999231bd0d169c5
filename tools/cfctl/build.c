// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: build, a filter image made without a module.
 *
 *   cfctl build -f FILE -o IMAGE NAME [PARAMETERS]
 *
 * is `cfctl create NAME PARAMETERS`, `cfctl add -f FILE NAME` and
 * `cfctl save -f IMAGE NAME`, each run by the verb's own code, on the
 * backend fake_offline_backend: the module's netlink side and its core
 * (fake_nl.c, kmod/cuckoo.c) in this process instead of the kernel's
 * socket.  So build refuses what create and add refuse, with their
 * messages (and their exit statuses), and writes nothing then.
 *
 * The image is the one the kernel's save of that filter would be: same
 * core, same keys (fake_nl.c masks them as nfcf_flowkey_finish() does),
 * entries applied one by one in the order of the file whatever the
 * batches, and an insert that places fingerprints without chance (a
 * breadth-first search, no random walk).  Given the seed, the table is the
 * same byte for byte; only the first line, a comment, says where it was
 * made.  Without a seed, the filter gets a random one, as in the kernel.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "verbs.h"
#include "fake_nl.h"

#define BUILD_USAGE	"build -f FILE -o IMAGE NAME [PARAMETERS]"

/* netns_mem_max_mb's default (kmod/netns.c), for the warning below. */
#define NETNS_MEM_MAX_MB_DEFAULT	256

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* create, add -f, save, on the offline backend; EXIT_*. */
static int build(struct filter_spec *fs, struct parsed *p, FILE *out)
{
	const struct cfnl_backend *prev = cfnl_backend;
	struct filter_info fi;
	struct cfnl nl;
	int r;

	cfnl_backend = &fake_offline_backend;
	r = cfnl_open(&nl) ? EXIT_FAIL : EXIT_OK;
	cfnl_backend = prev;
	if (r) {
		parsed_free(p);
		return r;
	}
	r = create_apply(&nl, fs);
	if (!r)
		r = entries_apply(&nl, NF_CUCKOO_CMD_ADD_ENTRIES, fs->name, p,
				  true, stderr);
	else
		parsed_free(p);
	if (r)
		goto out;
	/*
	 * The first line of a save names the module that saved it; here
	 * there was none.  The lines after it are what the kernel's save
	 * of the same filter would be.
	 */
	fprintf(out, SAVE_MARKER ": a filter built offline by cfctl %s with the nf_cuckoo %s core (no module); load with: cfctl restore -f FILE\n",
		CFCTL_VERSION, NF_CUCKOO_VERSION);
	if (save_one(&nl, fs->name, out)) {
		r = EXIT_FAIL;
		goto out;
	}
	/* A router refuses what its ceilings do not allow: say so now
	 * rather than at the restore on every router. */
	if (!info_get(&nl, fs->name, &fi) &&
	    fi.st.bytes > (uint64_t)NETNS_MEM_MAX_MB_DEFAULT << 20)
		warnmsg("%s takes %.1f MiB: a router restores it only if its netns_mem_max_mb (default %d) and mem_max_mb allow that much",
			fs->name, (double)fi.st.bytes / (1 << 20),
			NETNS_MEM_MAX_MB_DEFAULT);
out:
	cfnl_close(&nl);
	return r;
}

int cmd_build(int argc, char **argv)
{
	const char *file = cfctl_file(), *output = cfctl_output();
	struct filter_spec fs = { 0 };
	struct parsed p = { 0 };
	struct save_out so;
	double t0 = now();
	int r;

	r = create_parse(argc, argv, &fs, BUILD_USAGE);
	if (r)
		return r;
	if (!file || !output) {
		errmsg("%s; usage: cfctl " BUILD_USAGE,
		       !file ? "missing -f FILE, the entries (-f /dev/null for none)" :
			       "missing -o IMAGE, where the image goes ('-' for standard output)");
		filter_spec_free(&fs);
		return EXIT_USAGE;
	}
	/* Before reading what may be a hundred million entries. */
	if (save_out_open(&so, output)) {
		filter_spec_free(&fs);
		return EXIT_FAIL;
	}
	r = entries_from_file(file, &p);
	if (r)
		parsed_free(&p);
	else
		r = build(&fs, &p, so.f);
	filter_spec_free(&fs);
	/* A failed build has written nothing to so.f: the temporary file
	 * goes, and standard output got nothing. */
	if (save_out_close(&so, r == EXIT_OK) && r == EXIT_OK)
		r = EXIT_FAIL;
	if (!r && opts.verbose)
		fprintf(stderr, "build: image of %s written to %s in %.3f s\n",
			fs.name, strcmp(output, "-") ? output : "standard output",
			now() - t0);
	return r;
}
