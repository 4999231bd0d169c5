// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the cuckoo filter core against an exact model.
 *
 * The input is a small header (mode, filter parameters, key space) and
 * then a sequence of operations.  Keys come from a space of at most 256
 * (key k starts with the byte k), so that duplicates and deletes of
 * present keys are common.  The model is a multiset of key indexes.
 *
 * Exact mode (the default) deletes only keys the model holds and aborts on
 *  - a false negative: a key the model holds that tests negative;
 *  - cf_count() != size of the model (after every operation), or a table
 *    image whose non-zero fingerprints (plus the victim) do not add up to
 *    cf_count() (on check operations and after imports);
 *  - cf_add() failing while the victim is free, or succeeding while it is
 *    taken; the victim taken while fewer than b items are in the table
 *    (it is taken only when both its buckets are full); cf_add_unique() not saying -EEXIST exactly when cf_contains()
 *    said yes; cf_delete() of a held key failing, or of anything in an
 *    empty filter succeeding;
 *  - cf_contains_batch() disagreeing with cf_contains();
 *  - an export/import round trip that changes any answer or byte.
 * Loose mode (mode bit 0, or after importing a mutated image, mode bit 1)
 * also deletes keys that were never added, which may legitimately remove
 * other keys' fingerprints: the model is then dropped, and only memory
 * safety (ASan/UBSan) and the filter's own bookkeeping (count moves by one
 * per successful add or delete, and matches the table) are checked.
 *
 * Input layout:
 *	0	mode: bit 0 loose from the start, bit 1 mutate imported images,
 *		bit 2 semi-sorted buckets (if the bucket size is 4)
 *	1-2	capacity = 1 + le16 % 2000
 *	3	fp_bits = 6 + byte % 27
 *	4	bucket size = {2, 4, 8}[byte % 3]
 *	5-6	max_kicks = 1 + le16 % 600
 *	7	number of keys = 1 + byte (1..256)
 *	8	key length = {1, 2, 4, 8, 8, 13, 16, 32}[byte % 8]
 *	9-16	seed
 *	17-	operations, one byte each plus arguments (see run_op())
 */
#include <stdio.h>

#include "cuckoo.h"

#define NKEYS_MAX	256
#define KEY_MAX		32
#define BATCH_MAX	64

struct input {
	const u8 *p;
	size_t n;
};

struct state {
	struct cuckoo_filter *cf;
	u32 nkeys, key_len, bucket_size;
	u8 encoding;
	bool loose, mutate;
	bool odd_image;			/* imported a mutated image */
	u64 total;			/* model size = filter's own tally */
	int victim_key;			/* key whose add took the victim */
	u32 copies[NKEYS_MAX];
	u8 keys[NKEYS_MAX][KEY_MAX];
};

#define FAIL(...)							\
do {									\
	fprintf(stderr, "fuzz_cuckoo: line %d: ", __LINE__);		\
	fprintf(stderr, __VA_ARGS__);					\
	fputc('\n', stderr);						\
	abort();							\
} while (0)

static u8 in_u8(struct input *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static u16 in_u16(struct input *in)
{
	u16 lo = in_u8(in);

	return lo | (u16)in_u8(in) << 8;
}

static u64 in_u64(struct input *in)
{
	u64 v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v |= (u64)in_u8(in) << (8 * i);
	return v;
}

static const u8 *key(struct state *s, u32 k)
{
	return s->keys[k];
}

static bool has(struct state *s, u32 k)
{
	return cf_contains(s->cf, key(s, k), s->key_len);
}

static bool victim_taken(struct state *s)
{
	struct cf_stats st;

	cf_get_stats(s->cf, &st);
	return st.victim;
}

/* ---- table image decoding (layout documented in cuckoo.[ch]) ---- */

static u32 img_bits(const u64 *w, u64 bit, unsigned int n)
{
	u64 idx = bit / 64, v;
	unsigned int sh = bit % 64;

	v = w[idx] >> sh;
	if (sh + n > 64)
		v |= w[idx + 1] << (64 - sh);
	return (u32)(v & ((1ULL << n) - 1));
}

static u32 img_fp(const u64 *w, u64 slot, unsigned int f)
{
	return img_bits(w, slot * f, f);
}

/*
 * Slot j of semi-sorted bucket i (cuckoo.c): a 12-bit code of the sorted
 * high nibbles, whose rank is found by counting (the core's tables are
 * not used), then the four low parts of f - 4 bits.
 */
static u32 ss_binom(u32 n, u32 k)
{
	u32 r = 1, i;

	if (k > n)
		return 0;
	for (i = 1; i <= k; i++)
		r = r * (n - k + i) / i;
	return r;
}

static u32 img_ss_fp(const u64 *w, u64 i, unsigned int j, unsigned int f)
{
	u64 bit = i * (4 * f - 4);
	u32 code = img_bits(w, bit, 12), n[4], left = code, k, c;

	/* Colexicographic unranking: the largest nibble first. */
	for (k = 4; k-- > 0;) {
		for (c = 15; ss_binom(c + k, k + 1) > left; c--)
			;
		n[k] = c;
		left -= ss_binom(c + k, k + 1);
	}
	if (code >= 3876)
		FAIL("bucket %llu: code %u", (unsigned long long)i, code);
	return n[j] << (f - 4) | img_bits(w, bit + 12 + j * (f - 4), f - 4);
}

static u32 img_slot(const u64 *w, u64 slot, unsigned int f, u8 enc)
{
	if (enc == CF_ENC_SEMISORT)
		return img_ss_fp(w, slot / 4, slot % 4, f);
	return img_fp(w, slot, f);
}

static u8 *export_table(struct state *s, struct cf_image *img, u64 chunk)
{
	u8 *buf;
	u64 off, len;
	int err;

	cf_export_header(s->cf, img);
	buf = calloc(1, img->table_bytes ? img->table_bytes : 1);
	if (!buf)
		FAIL("out of memory");
	for (off = 0; off < img->table_bytes; off += len) {
		len = img->table_bytes - off < chunk ?
		      img->table_bytes - off : chunk;
		err = cf_export_table(s->cf, off, buf + off, len);
		if (err)
			FAIL("export chunk %llu+%llu: %d",
			     (unsigned long long)off, (unsigned long long)len,
			     err);
	}
	return buf;
}

/* Cheap invariants, checked after every operation, in every mode. */
static void check_count(struct state *s)
{
	struct cf_stats st;

	cf_get_stats(s->cf, &st);
	if (st.count != s->total || cf_count(s->cf) != s->total)
		FAIL("count %llu, model %llu", (unsigned long long)st.count,
		     (unsigned long long)s->total);
	if (st.load_ppm != st.count * 1000000 / st.slots)
		FAIL("load_ppm %u", st.load_ppm);
	if (st.count > st.slots + 1)
		FAIL("count %llu > slots %llu + 1",
		     (unsigned long long)st.count,
		     (unsigned long long)st.slots);
	/*
	 * The victim is taken only when both its buckets are full, and a
	 * delete that frees a slot in them takes it back: so while it is
	 * taken, the table holds at least one bucket's worth of items.
	 */
	if (st.victim && st.count < (u64)s->bucket_size + 1 && !s->odd_image)
		FAIL("victim taken with only %llu items in the table",
		     (unsigned long long)st.count - 1);
}

/* And the table itself adds up to the count. */
static void check_books(struct state *s)
{
	struct cf_stats st;
	struct cf_image img;
	u64 i, n = 0;
	u8 *buf;

	check_count(s);
	cf_get_stats(s->cf, &st);
	buf = export_table(s, &img, 4096);
	if (img.encoding != s->encoding && !s->odd_image)
		FAIL("image of encoding %u, filter's %u", img.encoding,
		     s->encoding);
	for (i = 0; i < st.slots; i++)
		n += img_slot((u64 *)buf, i, img.fp_bits, img.encoding) != 0;
	free(buf);
	if (n + st.victim != st.count)
		FAIL("table holds %llu + victim %d, count %llu",
		     (unsigned long long)n, st.victim,
		     (unsigned long long)st.count);
}

static void check_all(struct state *s)
{
	u32 k;

	check_books(s);
	if (s->loose)
		return;
	for (k = 0; k < s->nkeys; k++)
		if (s->copies[k] && !has(s, k))
			FAIL("false negative: key %u (%u copies)", k,
			     s->copies[k]);
	if (!s->total)
		for (k = 0; k < s->nkeys; k++)
			if (has(s, k))
				FAIL("key %u positive in an empty filter", k);
}

/* ---- operations ---- */

static bool do_add(struct state *s, u32 k, bool unique)
{
	bool vb = victim_taken(s), before = has(s, k);
	int err, want;

	if (!s->loose && s->copies[k] && !before)
		FAIL("false negative before add: key %u", k);
	err = unique ? cf_add_unique(s->cf, key(s, k), s->key_len) :
		       cf_add(s->cf, key(s, k), s->key_len);
	want = unique && before ? -EEXIST : vb ? -ENOSPC : 0;
	if (err != want)
		FAIL("%s key %u (contains %d, victim %d): %d, want %d",
		     unique ? "add_unique" : "add", k, before, vb, err, want);
	if (err)
		return false;
	s->copies[k]++;
	s->total++;
	if (!has(s, k))
		FAIL("key %u negative right after its add", k);
	if (!vb && victim_taken(s))
		s->victim_key = k;
	return true;
}

static void do_delete(struct state *s, u32 k)
{
	bool vb = victim_taken(s);
	u32 j;
	int err;

	if (!s->loose) {
		for (j = 0; j < s->nkeys && !s->copies[k]; j++)
			k = (k + 1) % s->nkeys;
	}
	err = cf_delete(s->cf, key(s, k), s->key_len);
	if (!s->total) {
		if (err != -ENOENT)
			FAIL("delete from an empty filter: %d", err);
		return;
	}
	if (s->loose) {
		if (err && err != -ENOENT)
			FAIL("delete: %d", err);
	} else if (err) {
		FAIL("delete of key %u (%u copies): %d", k, s->copies[k], err);
	}
	if (err)
		return;
	s->total--;
	if (s->copies[k])
		s->copies[k]--;
	/* The victim's own key: its slot or the victim itself is freed. */
	if (vb && (int)k == s->victim_key && victim_taken(s) && !s->loose)
		FAIL("deleted the victim's key %u, victim still taken", k);
	if (!victim_taken(s))
		s->victim_key = -1;
}

static void do_batch(struct state *s, struct input *in)
{
	static u8 buf[BATCH_MAX * KEY_MAX], hits[BATCH_MAX];
	u32 n = in_u8(in) % (BATCH_MAX + 1), i, k, want = 0, got;
	u32 idx[BATCH_MAX];

	for (i = 0; i < n; i++) {
		idx[i] = in_u8(in) % s->nkeys;
		memcpy(buf + i * s->key_len, key(s, idx[i]), s->key_len);
	}
	memset(hits, 0xaa, sizeof(hits));
	got = cf_contains_batch(s->cf, buf, s->key_len, n, hits);
	for (i = 0; i < n; i++) {
		k = idx[i];
		want += has(s, k);
		if (hits[i] != has(s, k))
			FAIL("batch of %u: hits[%u] = %u for key %u, "
			     "contains %d", n, i, hits[i], k, has(s, k));
		if (!s->loose && s->copies[k] && !hits[i])
			FAIL("batch false negative: key %u", k);
	}
	if (n < BATCH_MAX && hits[n] != 0xaa)
		FAIL("batch of %u wrote past hits[n - 1]", n);
	if (got != want)
		FAIL("batch of %u: %u hits returned, %u found", n, got, want);
	if (cf_contains_batch(s->cf, buf, s->key_len, n, NULL) != want)
		FAIL("batch without hits[] disagrees");
}

static void do_clear(struct state *s)
{
	u32 k;

	cf_clear(s->cf);
	memset(s->copies, 0, sizeof(s->copies));
	s->total = 0;
	s->victim_key = -1;
	if (victim_taken(s))
		FAIL("victim survived clear");
	for (k = 0; k < s->nkeys; k++)
		if (has(s, k))
			FAIL("key %u positive after clear", k);
}

/* Loads a table image into a new filter; NULL if it is refused. */
static struct cuckoo_filter *import(const struct cf_image *img, const u8 *buf,
				    u64 chunk, bool backwards, bool strict)
{
	struct cuckoo_filter *cf = NULL;
	u64 nchunks = (img->table_bytes + chunk - 1) / chunk, c, off, len;
	int err;

	err = cf_create_from_image(&cf, img, false);
	if (err) {
		if (strict)
			FAIL("own image refused: %d", err);
		return NULL;
	}
	for (c = 0; c < nchunks; c++) {
		off = (backwards ? nchunks - 1 - c : c) * chunk;
		len = img->table_bytes - off < chunk ?
		      img->table_bytes - off : chunk;
		err = cf_import_table(cf, off, buf + off, len);
		if (err) {
			if (strict)
				FAIL("own table chunk %llu+%llu refused: %d",
				     (unsigned long long)off,
				     (unsigned long long)len, err);
			cf_free(cf);
			return NULL;
		}
	}
	err = cf_import_finish(cf);
	if (err) {
		if (strict)
			FAIL("import_finish: %d", err);
		cf_free(cf);
		return NULL;
	}
	return cf;
}

static void do_round_trip(struct state *s, struct input *in)
{
	u64 chunk = 8 * (1 + (u64)(in_u8(in) % 64));
	bool backwards = in_u8(in) & 1;
	struct cf_image img, img2;
	struct cf_stats a, b;
	struct cuckoo_filter *cf2;
	u8 *buf, *buf2;
	u32 k;

	buf = export_table(s, &img, chunk);
	cf2 = import(&img, buf, chunk, backwards, true);
	cf_get_stats(s->cf, &a);
	cf_get_stats(cf2, &b);
	if (memcmp(&a, &b, sizeof(a)))
		FAIL("stats differ after round trip: count %llu/%llu "
		     "victim %d/%d", (unsigned long long)a.count,
		     (unsigned long long)b.count, a.victim, b.victim);
	for (k = 0; k < s->nkeys; k++)
		if (cf_contains(cf2, key(s, k), s->key_len) != has(s, k))
			FAIL("round trip changed the answer for key %u", k);
	cf_free(s->cf);
	s->cf = cf2;
	buf2 = export_table(s, &img2, 8);
	if (memcmp(&img, &img2, sizeof(img)) ||
	    memcmp(buf, buf2, img.table_bytes))
		FAIL("round trip changed the image");
	free(buf);
	free(buf2);
}

/*
 * Mutated image: flip header and table bits chosen by the input, and if
 * the result is accepted, carry on with it in loose mode.  Whatever an
 * image holds must never make the filter touch memory it does not own.
 */
static void do_mutated_import(struct state *s, struct input *in)
{
	struct cf_image img;
	struct cuckoo_filter *cf2;
	u8 *buf, *big, *h = (u8 *)&img;
	u8 nh = in_u8(in) % 8, nt = in_u8(in);
	u64 len;
	u32 i;

	buf = export_table(s, &img, 4096);
	len = img.table_bytes;
	for (i = 0; i < nt; i++) {
		u64 off = in_u16(in) % len;

		buf[off] ^= in_u8(in);
	}
	for (i = 0; i < nh; i++) {
		u8 pos = in_u8(in) % sizeof(img);

		h[pos] ^= in_u8(in);
	}
	/* Geometry may have grown with the header: stay small. */
	if (img.capacity > 100000 || img.nbuckets > 100000 ||
	    img.table_bytes > 4 * 1024 * 1024) {
		free(buf);
		return;
	}
	/* The buffer is as long as the header says the table is. */
	big = calloc(1, img.table_bytes ? img.table_bytes : 1);
	if (!big)
		FAIL("out of memory");
	memcpy(big, buf, img.table_bytes < len ? img.table_bytes : len);
	free(buf);
	cf2 = import(&img, big, 8 * (1 + (u64)(in_u8(in) % 16)), false,
		     false);
	free(big);
	if (!cf2)
		return;
	cf_free(s->cf);
	s->cf = cf2;
	s->loose = true;
	s->odd_image = true;
	memset(s->copies, 0, sizeof(s->copies));
	s->total = cf_count(cf2);
	s->victim_key = -1;
	check_books(s);
	/* Look everything up, and touch the victim if there is one. */
	for (i = 0; i < s->nkeys; i++)
		(void)has(s, i);
}

static void run_op(struct state *s, struct input *in)
{
	u8 op = in_u8(in);
	u32 k = in_u8(in) % s->nkeys, i, n;

	switch (op % 16) {
	case 0: case 1: case 2: case 3: case 4:
		do_add(s, k, false);
		break;
	case 5: case 6:
		do_delete(s, k);
		break;
	case 7:
		do_add(s, k, true);
		break;
	case 8: case 9:
		if (!s->loose && s->copies[k] && !has(s, k))
			FAIL("false negative: key %u", k);
		break;
	case 10:
		do_batch(s, in);
		break;
	case 11:	/* many adds: fill up, duplicates and all */
		n = 1 + (op >> 4) * 32;
		for (i = 0; i < n; i++)
			if (!do_add(s, (k + i) % s->nkeys, false))
				break;
		break;
	case 12:	/* many deletes */
		n = 1 + (op >> 4) * 16;
		for (i = 0; i < n && s->total; i++)
			do_delete(s, (k + i) % s->nkeys);
		break;
	case 13:
		if (op >> 4 == 0)
			do_clear(s);
		else
			check_all(s);
		break;
	case 14:
		if (s->mutate && (op >> 4) & 1)
			do_mutated_import(s, in);
		else
			do_round_trip(s, in);
		break;
	case 15:
		check_all(s);
		break;
	}
	check_count(s);
}

static const u8 key_lens[8] = { 1, 2, 4, 8, 8, 13, 16, 32 };
static const u8 bucket_sizes[3] = { 2, 4, 8 };

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { data, size };
	struct state *s = calloc(1, sizeof(*s));
	struct cf_params p = { 0 };
	u8 mode;
	u32 k, j;
	int err;

	if (!s)
		FAIL("out of memory");
	mode = in_u8(&in);
	s->loose = mode & 1;
	s->mutate = mode & 2;
	p.capacity = 1 + in_u16(&in) % 2000;
	p.fp_bits = 6 + in_u8(&in) % 27;
	p.bucket_size = bucket_sizes[in_u8(&in) % 3];
	s->bucket_size = p.bucket_size;
	if (mode & 4 && p.bucket_size == 4)
		p.encoding = CF_ENC_SEMISORT;
	s->encoding = p.encoding;
	p.max_kicks = 1 + in_u16(&in) % 600;
	s->nkeys = 1 + in_u8(&in);
	s->key_len = key_lens[in_u8(&in) % 8];
	p.seed = in_u64(&in);
	s->victim_key = -1;
	for (k = 0; k < s->nkeys; k++) {
		s->keys[k][0] = (u8)k;
		for (j = 1; j < KEY_MAX; j++)
			s->keys[k][j] = (u8)(k * 131 + j * 71 + (k >> 3) * j);
	}
	err = cf_create(&s->cf, &p);
	if (err)
		FAIL("cf_create(capacity %llu, f %u, b %u, kicks %u): %d",
		     (unsigned long long)p.capacity, p.fp_bits, p.bucket_size,
		     p.max_kicks, err);
	while (in.n)
		run_op(s, &in);
	check_all(s);
	cf_free(s->cf);
	free(s);
	return 0;
}
