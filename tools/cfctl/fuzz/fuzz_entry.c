// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: entries as a person writes them (entry.c).
 *
 * Input: byte 0 picks the filter's key (fields, families, bidirectional)
 * for entry_check(); the rest is a command line of entries, split into
 * words, parsed as `cfctl add NAME ENTRY...` parses them.  Checked: no
 * memory error; the IPv4 fast path and the general parser agree; an
 * entry that passes entry_check() and is written back by entry_format()
 * parses again to the same entry.
 */
#include "fuzz_util.h"

#define MAX_WORDS	64

static bool same(const struct entry *a, const struct entry *b)
{
	return !memcmp(a->src, b->src, 16) && !memcmp(a->dst, b->dst, 16) &&
	       a->sport == b->sport && a->dport == b->dport &&
	       a->family == b->family && a->proto == b->proto &&
	       a->given == b->given;
}

static void one(char **w, int n, const struct keyspec *ks)
{
	struct entry e, e2;
	char err[ERRLEN], buf[256], *w2[ENTRY_MAX_WORDS + 1];
	int used, used2, r, r2, n2;

	/* The fast path (a cheap IPv4 shortcut) must change nothing. */
	entry_fast_path = false;
	r2 = entry_parse(w, n, false, &e2, &used2, err, sizeof(err));
	entry_fast_path = true;
	r = entry_parse(w, n, false, &e, &used, err, sizeof(err));
	FUZZ_ASSERT(r == r2 && (r || same(&e, &e2)),
		    "fast path %d, general %d", r, r2);
	if (r || entry_check(&e, ks, "f", err, sizeof(err)))
		return;
	entry_format(&e, buf, sizeof(buf));
	n2 = split_words(buf, w2, ENTRY_MAX_WORDS);
	FUZZ_ASSERT(n2 > 0, "entry_format() wrote %d words", n2);
	r = entry_parse(w2, n2, false, &e2, &used2, err, sizeof(err));
	FUZZ_ASSERT(!r, "entry_format() wrote what does not parse: %s", err);
	r = entry_check(&e2, ks, "f", err, sizeof(err));
	FUZZ_ASSERT(!r, "entry_format() wrote what does not check: %s", err);
	FUZZ_ASSERT(same(&e, &e2), "the entry changed through entry_format()");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t fams[] = { NF_CUCKOO_FAMILY_IPV4,
		NF_CUCKOO_FAMILY_IPV6, NF_CUCKOO_FAMILY_INET, NF_CUCKOO_FAMILY_INET };
	struct keyspec ks;
	char *w[MAX_WORDS + 1], *s;
	struct entry e;
	char err[ERRLEN];
	int n, i, used;

	if (!size)
		return 0;
	ks.fields = (data[0] & 0x1f) ? (data[0] & 0x1f) : NF_CUCKOO_KEY_ALL;
	ks.families = fams[(data[0] >> 5) & 3];
	ks.bidir = (data[0] >> 7) &&
		   (ks.fields & 3) != 1 && (ks.fields & 3) != 2 &&
		   (ks.fields & 12) != 4 && (ks.fields & 12) != 8;
	s = fuzz_str(data + 1, size - 1);
	n = split_words(s, w, MAX_WORDS);
	/* As the command line: entries follow each other. */
	for (i = 0; n > 0 && i < n;) {
		if (!strcmp(w[i], ",")) {
			i++;
			continue;
		}
		if (entry_parse(w + i, n - i, true, &e, &used, err,
				sizeof(err)))
			break;
		FUZZ_ASSERT(used > 0 && used <= n - i, "used %d of %d", used,
			    n - i);
		one(w + i, used - (!strcmp(w[i + used - 1], ",") ? 1 : 0), &ks);
		i += used;
	}
	free(s);
	return 0;
}
