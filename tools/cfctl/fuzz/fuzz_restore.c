// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: `cfctl restore` and bulk `add/del/test -f` (saverest.c,
 * entries.c, ops.c, nl.c, info.c) against fake_nl.c, which answers as the
 * module does.
 *
 * Input: byte 0 bit 0 is -exist, bits 1-2 the verb (0 restore, 1 add,
 * 2 del, 3 test); the rest is the stream, or the -f file.  A restore
 * starts with no filter; add, del and test with filter f (family inet, key
 * of the 5-tuple) holding two entries.  Checked, besides memory errors and
 * leaks:
 *  - input refused (status 2) changes nothing: a restore leaves no
 *    filter, add and del leave f's items as they were;
 *  - after a stream that restored (status 0), `save` succeeds, and
 *    restoring that save into an empty fake and saving again gives the
 *    same text (save and restore round-trip);
 *  - test never gets a refusal from the fake (status 3): whatever cfctl
 *    accepted as entries of f, it must send as the module takes them.
 */
#include <unistd.h>

#include "fuzz_util.h"
#include "verbs.h"
#include "fake_nl.h"

static char dir[] = "/tmp/cfctl_fuzz_restore.XXXXXX";
static char in[64], s1[64], s2[64];

static void put(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(p, 1, n, f) != n || fclose(f))
		abort();
}

static char *get(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;

	if (!f)
		abort();
	*n = 0;
	for (;;) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 4096;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		size_t got = fread(buf + *n, 1, cap - *n, f);

		if (!got)
			break;
		*n += got;
	}
	fclose(f);
	return buf;
}

static int run(int (*verb)(int, char **), const char *name, const char *file)
{
	verb_name = name;
	fuzz_file = file;
	return verb(0, NULL);
}

static const char setup[] = "create f family inet capacity 1000\n"
	"add f udp 10.0.0.1:1 10.0.0.2:2\n"
	"add f tcp [2001:db8::1]:443 [2001:db8::2]:5000\n";

/* add, del or test -f FILE on filter f, FILE holding data. */
static void bulk(int verb, const uint8_t *data, size_t size)
{
	static int (*const fn[])(int, char **) = { NULL, cmd_add, cmd_del,
						   cmd_test };
	static const char *const names[] = { NULL, "add", "del", "test" };
	char f[] = "f", *argv[] = { f, NULL };
	bool exist = opts.exist;
	int64_t before;
	int r;

	opts.exist = false;
	put(s1, (const uint8_t *)setup, sizeof(setup) - 1);
	r = run(cmd_restore, "restore", s1);
	FUZZ_ASSERT(r == EXIT_OK && fake_items("f") == 2, "setup: %d", r);
	opts.exist = exist;
	opts.quiet = true;	/* test's answers */
	put(in, data, size);
	before = fake_items("f");
	verb_name = names[verb];
	fuzz_file = in;
	r = fn[verb](1, argv);
	FUZZ_ASSERT(r >= EXIT_OK && r <= EXIT_FAIL, "status %d", r);
	if (r == EXIT_USAGE)
		FUZZ_ASSERT(fake_items("f") == before,
			    "refused input changed f: %lld items, were %lld",
			    (long long)fake_items("f"), (long long)before);
	if (verb == 3)
		FUZZ_ASSERT(r != EXIT_FAIL, "test: the fake refused a request");
}

static void cleanup(void)
{
	unlink(in);
	unlink(s1);
	unlink(s2);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *a, *b;
	size_t na, nb;
	int r;

	if (!in[0]) {
		if (!mkdtemp(dir))
			abort();
		snprintf(in, sizeof(in), "%s/in", dir);
		snprintf(s1, sizeof(s1), "%s/s1", dir);
		snprintf(s2, sizeof(s2), "%s/s2", dir);
		atexit(cleanup);
		/* Small filters: the fuzzer is after cfctl, not memory. */
		fake_mem_max = 1 << 20;
		cfnl_backend = &fake_nl_backend;
	}
	if (!size)
		return 0;
	fake_reset();
	memset(&opts, 0, sizeof(opts));
	opts.exist = data[0] & 1;
	if ((data[0] >> 1) & 3) {
		bulk((data[0] >> 1) & 3, data + 1, size - 1);
		fake_reset();
		return 0;
	}
	put(in, data + 1, size - 1);

	r = run(cmd_restore, "restore", in);
	FUZZ_ASSERT(r == EXIT_OK || r == EXIT_USAGE || r == EXIT_FAIL,
		    "status %d", r);
	if (r == EXIT_USAGE)
		FUZZ_ASSERT(!fake_count(), "refused input left %zu filters",
			    fake_count());
	if (r == EXIT_OK) {
		opts.exist = false;
		r = run(cmd_save, "save", s1);
		FUZZ_ASSERT(r == EXIT_OK, "save after restore: %d", r);
		fake_reset();
		r = run(cmd_restore, "restore", s1);
		FUZZ_ASSERT(r == EXIT_OK, "restore of a save: %d", r);
		r = run(cmd_save, "save", s2);
		FUZZ_ASSERT(r == EXIT_OK, "save of a restored save: %d", r);
		a = get(s1, &na);
		b = get(s2, &nb);
		FUZZ_ASSERT(na == nb && !memcmp(a, b, na),
			    "save, restore, save: %zu then %zu bytes differ",
			    na, nb);
		free(a);
		free(b);
	}
	fake_reset();
	return 0;
}
