// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the filter that grows in stages, kmod/cuckoo_stages.c, on
 * the real core.  The writer's side is driven as the module drives it:
 * add; on -ENOSPC, if cf_stages_may_grow(), create the next stage and add
 * again.
 */
#include <errno.h>
#include <stdbool.h>

#include "cuckoo_stages.h"
#include "test_util.h"

/* cf_hash_calls: tests/Makefile builds the core so. */
#ifndef CF_COUNT_HASHES
#error "build with -DCF_COUNT_HASHES: t_any_hashes_once counts hash passes"
#endif

static u64 g_seed = SEED_DEFAULT;

static const struct cf_grow GROW_16 = { true, 2, CF_STAGES_MAX };

static bool mk(struct cf_stages *s, u64 capacity, u8 f, u8 enc,
	       const struct cf_grow *g)
{
	struct cf_params p = { .capacity = capacity, .fp_bits = f,
			       .seed = g_seed, .encoding = enc };
	struct cuckoo_filter *cf;

	if (cf_create(&cf, &p))
		return false;
	cf_stages_init(s, cf, g, NULL);
	return true;
}

/* mk() of a filter whose writer lends the stages their kick search's scratch. */
static bool mk_lent(struct cf_stages *s, u64 capacity, const struct cf_grow *g)
{
	struct cf_params p = { .capacity = capacity, .fp_bits = 12,
			       .seed = g_seed, .lent_scratch = 1 };
	struct cuckoo_filter *cf;

	if (cf_create(&cf, &p))
		return false;
	cf_stages_init(s, cf, g, NULL);
	return true;
}

static int alloc_stage(void *ctx, const struct cf_params *p,
		       struct cuckoo_filter **out)
{
	unsigned int *made = ctx;

	(*made)++;
	return cf_create(out, p);
}

/* A stage over a ceiling. */
static int alloc_quota(void *ctx, const struct cf_params *p,
		       struct cuckoo_filter **out)
{
	(void)ctx;
	(void)p;
	(void)out;
	return -EDQUOT;
}

static unsigned int g_made;

static int add(struct cf_stages *s, u64 key, bool unique, u32 *stage)
{
	return cf_stages_add(s, &key, sizeof(key), unique, alloc_stage,
			     &g_made, stage);
}

static bool has(const struct cf_stages *s, u64 key)
{
	return cf_stages_contains(s, &key, sizeof(key));
}

static u64 fill(struct cf_stages *s, u64 stream, u64 from, u64 n, int *err)
{
	u32 stage;
	u64 i;

	for (i = 0; i < n; i++) {
		*err = add(s, test_key(stream, from + i), false, &stage);
		if (*err)
			break;
	}
	return i;
}

static u64 absent_hits(const struct cf_stages *s, u64 stream, u64 n)
{
	u64 i, fp = 0;

	for (i = 0; i < n; i++)
		fp += has(s, test_key(stream, ABSENT_BASE + i));
	return fp;
}

/*
 * The case: capacity 1,000 fed 1,000,000 keys.  Every key tests
 * present, and the rate over 1M absent keys stays under twice the first
 * stage's bound.
 */
static void t_grow_1000_to_1m(void)
{
	const u64 n = 1000000;
	double rate, first = 8.0 / 4096;
	struct cf_stages s = { 0 };
	u64 i, missing = 0, fp;
	struct cf_stats st;
	int err = 0;

	REQUIRE(mk(&s, 1000, 12, CF_ENC_PLAIN, &GROW_16), "no filter");
	REQUIRE(fill(&s, 1, 0, n, &err) == n, "an add failed: %d", err);
	for (i = 0; i < n; i++)
		missing += !has(&s, test_key(1, i));
	CHECK(!missing, "%llu of %llu keys test absent",
	      (unsigned long long)missing, (unsigned long long)n);
	fp = absent_hits(&s, 1, n);
	rate = fp / (double)n;
	cf_stages_stats(&s, &st);
	diag("capacity 1000 fed %llu keys: %u stages, %.2f bits per item, "
	     "fpr %.5f (first stage's bound %.5f, filter's %.5f)",
	     (unsigned long long)n, s.n, st.bytes * 8.0 / n, rate, first,
	     cf_stages_fpr_ppb(&s) / 1e9);
	CHECK(s.n == 10, "%u stages, 10 expected (1000 * (2^10 - 1) >= 1M)",
	      s.n);
	CHECK(rate < 2 * first, "fpr %.5f not under twice %.5f", rate, first);
	CHECK(cf_stages_fpr_ppb(&s) < 2 * 1953125, "bound %u ppb",
	      cf_stages_fpr_ppb(&s));
	CHECK(st.count == n, "%llu items counted", (unsigned long long)st.count);
out:
	cf_stages_free(&s);
}

/*
 * Stages that borrow their scratch, lent for the whole fill: the stages
 * made meanwhile borrow it too, and the filter holds the very tables of
 * one whose stages keep their own, with no scratch counted.
 */
static void t_lent_scratch_growth(void)
{
	const u64 n = 100000;
	struct cf_stages own = { 0 }, lent = { 0 };
	struct cf_stats so, sl;
	struct cf_params p;
	u8 *a = NULL, *b = NULL;
	void *scratch = NULL;
	u64 bytes;
	int err = 0;
	u32 i;

	REQUIRE(mk(&own, 1000, 12, CF_ENC_PLAIN, &GROW_16), "no filter");
	REQUIRE(mk_lent(&lent, 1000, &GROW_16), "no lent filter");
	CHECK(cf_stages_scratch_bytes(&own) == 0, "own: a loan of %llu",
	      (unsigned long long)cf_stages_scratch_bytes(&own));
	CHECK(cf_stages_scratch_bytes(&lent) == cf_scratch_bytes(500),
	      "lent: a loan of %llu",
	      (unsigned long long)cf_stages_scratch_bytes(&lent));
	scratch = malloc(cf_stages_scratch_bytes(&lent));
	REQUIRE(scratch, "out of memory");
	cf_stages_lend_scratch(&lent, scratch);
	REQUIRE(fill(&own, 2, 0, n, &err) == n, "own: %d", err);
	REQUIRE(fill(&lent, 2, 0, n, &err) == n, "lent: %d", err);
	cf_stages_lend_scratch(&lent, NULL);
	CHECK(lent.n == own.n && lent.n > 5, "%u stages lent, %u own", lent.n,
	      own.n);
	for (i = 0; i < lent.n; i++) {
		cf_get_params(cf_stages_at(&lent, i), &p);
		CHECK(p.lent_scratch, "stage %u keeps its own scratch", i);
	}
	cf_stages_stats(&own, &so);
	cf_stages_stats(&lent, &sl);
	CHECK(so.bytes == sl.bytes + lent.n * cf_scratch_bytes(500),
	      "own %llu bytes, lent %llu, %u stages",
	      (unsigned long long)so.bytes, (unsigned long long)sl.bytes,
	      lent.n);
	bytes = cf_stages_table_bytes(&own);
	REQUIRE(bytes == cf_stages_table_bytes(&lent), "table sizes differ");
	a = malloc(bytes);
	b = malloc(bytes);
	REQUIRE(a && b, "out of memory");
	REQUIRE(!cf_stages_export(&own, 0, a, bytes) &&
		!cf_stages_export(&lent, 0, b, bytes), "export");
	CHECK(!memcmp(a, b, bytes), "the tables differ");
out:
	free(a);
	free(b);
	free(scratch);
	cf_stages_free(&own);
	cf_stages_free(&lent);
}

/* Each stage: factor times the capacity, one fingerprint bit more. */
static void t_next_params(void)
{
	struct cf_grow g = { true, 3, 4 };
	struct cf_stages s = { 0 };
	struct cf_params p, q;
	int err = 0;

	REQUIRE(mk(&s, 1000, 31, CF_ENC_SEMISORT, &g), "no filter");
	REQUIRE(!cf_stages_next_params(&s, &p), "no next stage");
	CHECK(p.capacity == 3000 && p.fp_bits == 32, "capacity %llu f %u",
	      (unsigned long long)p.capacity, p.fp_bits);
	CHECK(p.encoding == CF_ENC_SEMISORT && p.seed == g_seed,
	      "encoding %u, seed kept: %d", p.encoding, p.seed == g_seed);
	REQUIRE(fill(&s, 2, 0, 40000, &err) == 40000, "add: %d", err);
	CHECK(s.n == 4, "%u stages (1000 + 3000 + 9000 + 27000 hold 40000)",
	      s.n);
	cf_get_params(cf_stages_at(&s, 3), &q);
	CHECK(q.fp_bits == 32, "f stays 32: %u", q.fp_bits);
	CHECK(cf_stages_next_params(&s, &p) == -ENOSPC, "a 5th of 4 stages");
out:
	cf_stages_free(&s);
}

/* Growth off: the core's behaviour, the victim and then -ENOSPC. */
static void t_nogrow(void)
{
	struct cf_grow g = { false, 2, 8 };
	struct cf_stages s = { 0 };
	u64 n;
	int err = 0;

	REQUIRE(mk(&s, 1000, 12, CF_ENC_PLAIN, &g), "no filter");
	n = fill(&s, 3, 0, 100000, &err);
	CHECK(err == -ENOSPC && s.n == 1, "err %d, %u stages", err, s.n);
	CHECK(n >= 1000 && n < 1200, "%llu fit", (unsigned long long)n);
out:
	cf_stages_free(&s);
}

/* A stage over a ceiling: the newest fills up, then the ceiling's error. */
static void t_quota(void)
{
	struct cf_stages s = { 0 };
	u32 stage;
	u64 i, k;
	int err = 0;

	REQUIRE(mk(&s, 1000, 12, CF_ENC_PLAIN, &GROW_16), "no filter");
	for (i = 0; i < 100000 && !err; i++) {
		k = test_key(12, i);
		err = cf_stages_add(&s, &k, sizeof(k), false, alloc_quota, NULL,
				    &stage);
	}
	CHECK(err == -EDQUOT && s.n == 1, "err %d, %u stages", err, s.n);
	CHECK(i > 1000 && i < 1200, "%llu added before the ceiling",
	      (unsigned long long)i - 1);
	CHECK(!has(&s, k) && has(&s, test_key(12, 0)),
	      "the refused key is in, or an old one is gone");
out:
	cf_stages_free(&s);
}

/* One key added again and again fills its buckets, not the filter. */
static void t_duplicates_do_not_grow(void)
{
	struct cf_stages s = { 0 };
	u32 stage;
	int i, err = 0;

	REQUIRE(mk(&s, 1000, 12, CF_ENC_PLAIN, &GROW_16), "no filter");
	for (i = 0; i < 100 && !err; i++)
		err = add(&s, 42, false, &stage);
	CHECK(err == -ENOSPC, "the 100th copy: %d", err);
	CHECK(s.n == 1, "%u stages from one key", s.n);
out:
	cf_stages_free(&s);
}

/*
 * Deletes after growth: each key is removed from its own stage or refused
 * as ambiguous, never from another stage, so every key not deleted still
 * tests present.  The ambiguous ones are about the other stages' rate.
 */
static void t_delete_after_growth(void)
{
	const u64 n = 200000;
	struct cf_stages s = { 0 };
	u64 i, gone = 0, ambiguous = 0, missing = 0;
	u32 stage;
	int err = 0;

	REQUIRE(mk(&s, 1000, 12, CF_ENC_PLAIN, &GROW_16), "no filter");
	REQUIRE(fill(&s, 4, 0, n, &err) == n, "add: %d", err);
	for (i = 0; i < n; i += 2) {
		u64 k = test_key(4, i);

		err = cf_stages_delete(&s, &k, sizeof(k), &stage);
		if (err == -ENOTUNIQ)
			ambiguous++;
		else if (CHECK(!err, "delete of key %llu: %d",
			       (unsigned long long)i, err))
			gone++;
	}
	for (i = 1; i < n; i += 2)
		missing += !has(&s, test_key(4, i));
	diag("%u stages: %llu deleted, %llu refused as ambiguous (%.4f%%)",
	     s.n, (unsigned long long)gone, (unsigned long long)ambiguous,
	     100.0 * ambiguous / (n / 2));
	CHECK(!missing, "%llu keys not deleted test absent",
	      (unsigned long long)missing);
	CHECK(ambiguous < n / 2 * 0.004, "%llu ambiguous of %llu",
	      (unsigned long long)ambiguous, (unsigned long long)n / 2);
	CHECK(cf_stages_fpr_ppb(&s) && gone + ambiguous == n / 2, "counts");
out:
	cf_stages_free(&s);
}

/* A key added in two stages is refused, and kept. */
static void t_delete_ambiguous_kept(void)
{
	struct cf_stages s = { 0 };
	u64 k = test_key(5, 7);
	u32 stage, st1;
	int err = 0;

	REQUIRE(mk(&s, 1000, 12, CF_ENC_PLAIN, &GROW_16), "no filter");
	REQUIRE(!add(&s, k, false, &stage) && stage == 0, "first add");
	REQUIRE(fill(&s, 6, 0, 3000, &err) == 3000 && s.n >= 2, "grow: %d",
		err);
	REQUIRE(!add(&s, k, false, &st1) && st1 == s.n - 1, "second add");
	CHECK(cf_stages_delete(&s, &k, sizeof(k), &stage) == -ENOTUNIQ,
	      "a key in two stages deleted");
	CHECK(has(&s, k), "refused, yet gone");
	/* The undo of a batch knows the stage: exact. */
	CHECK(!cf_stages_delete_at(&s, st1, &k, sizeof(k)), "delete_at");
	CHECK(!cf_stages_delete(&s, &k, sizeof(k), &stage) && stage == 0,
	      "then the one copy left, in stage %u", stage);
	CHECK(!cf_stages_add_at(&s, 0, &k, sizeof(k)) && has(&s, k),
	      "add_at");
	CHECK(cf_stages_add_at(&s, s.n, &k, sizeof(k)) == -EINVAL,
	      "add_at past the stages");
out:
	cf_stages_free(&s);
}

/* UNIQUE asks every stage. */
static void t_unique_across_stages(void)
{
	struct cf_stages s = { 0 };
	u64 k = test_key(7, 1);
	u32 stage;
	int err = 0;

	REQUIRE(mk(&s, 1000, 12, CF_ENC_PLAIN, &GROW_16), "no filter");
	REQUIRE(!add(&s, k, true, &stage), "add");
	REQUIRE(fill(&s, 8, 0, 5000, &err) == 5000 && s.n >= 3, "grow: %d",
		err);
	CHECK(add(&s, k, true, &stage) == -EEXIST, "unique add of a key of "
	      "stage 0 in a filter of %u stages", s.n);
out:
	cf_stages_free(&s);
}

/*
 * Flush: one empty stage, which grows again while the stages it took are
 * still the caller's to free (after a grace period in the module); a
 * reader that counted the stages before the flush finds their places
 * empty, or new stages there, and skips or asks them.  Freed (ASan).
 */
static void t_flush(void)
{
	struct cuckoo_filter *gone[CF_STAGES_MAX - 1];
	struct cf_stages s = { 0 };
	struct cf_stats st;
	u32 before, n = 0, i;
	int err = 0;
	u64 k = test_key(10, 0);

	REQUIRE(mk(&s, 1000, 12, CF_ENC_PLAIN, &GROW_16), "no filter");
	REQUIRE(fill(&s, 9, 0, 10000, &err) == 10000, "add: %d", err);
	before = s.n;
	n = cf_stages_flush(&s, gone);
	CHECK(before > 2 && n == before - 1 && s.n == 1,
	      "flush of %u stages handed %u back", before, n);
	for (i = 1; i < before; i++)
		CHECK(!cf_stages_get(&s, i) && gone[i - 1],
		      "stage %u: its place is empty, its table handed back", i);
	cf_stages_stats(&s, &st);
	CHECK(st.count == 0, "after flush: %llu items",
	      (unsigned long long)st.count);
	CHECK(!absent_hits(&s, 9, 1000) && !has(&s, test_key(9, 0)),
	      "an empty filter answers yes");
	/* A reader's count from before the flush. */
	REQUIRE(!add(&s, k, false, &i), "add");
	s.n = before;
	CHECK(has(&s, k) && cf_stages_contains_any(&s, &k, sizeof(k), 1) &&
	      !has(&s, test_key(9, 1)),
	      "a stale count skips the empty places");
	s.n = 1;
	REQUIRE(fill(&s, 10, 1, 10000, &err) == 10000 && s.n > 1,
		"grow again: %d", err);
	s.n = before + 1 < CF_STAGES_MAX ? before + 1 : CF_STAGES_MAX;
	CHECK(has(&s, test_key(10, 5)) && has(&s, k),
	      "a stale count asks the new stages");
	s.n = 0;
	while (cf_stages_get(&s, s.n) && s.n < CF_STAGES_MAX)
		s.n++;
out:
	while (n)
		cf_free(gone[--n]);
	cf_stages_free(&s);
}

/* Batched and prefix lookups agree with single ones across stages. */
static void t_batch_agrees(void)
{
	enum { N = 3000 };
	static u64 keys[N];
	static u8 hits[N];
	struct cf_stages s = { 0 };
	u32 i, count, expect = 0, bad = 0;
	int err = 0;

	REQUIRE(mk(&s, 1000, 12, CF_ENC_PLAIN, &GROW_16), "no filter");
	REQUIRE(fill(&s, 11, 0, 6000, &err) == 6000 && s.n >= 3, "grow: %d",
		err);
	for (i = 0; i < N; i++)
		keys[i] = test_key(11, i % 2 ? i : ABSENT_BASE + i);
	count = cf_stages_contains_batch(&s, keys, sizeof(u64), N, hits);
	for (i = 0; i < N; i++) {
		expect += has(&s, keys[i]);
		bad += hits[i] != has(&s, keys[i]);
		bad += cf_stages_contains_any(&s, &keys[i], sizeof(u64), 1) !=
		       has(&s, keys[i]);
	}
	CHECK(!bad && count == expect, "%u disagree; %u hits, %u expected",
	      bad, count, expect);
	CHECK(cf_stages_contains_batch(&s, keys, sizeof(u64), N, NULL) ==
	      expect, "without a hits array");
out:
	cf_stages_free(&s);
}

/*
 * A filter of @nst stages from f = @f (semi-sorted if @enc), every stage
 * full to its victim: stage k has 2^k * 150 capacity and f + k bits, as
 * growth makes them.  Its keys, stage by stage, in @keys; how many.
 */
static u32 mk_victims(struct cf_stages *s, u32 nst, u8 f, u8 enc, u64 stream,
		      u64 *keys, u32 max)
{
	struct cf_stats st;
	u32 n = 0, k, at;
	int err;

	if (!CHECK(mk(s, 150, f, enc, &GROW_16), "f %u enc %u: no filter", f,
		   enc))
		return 0;
	for (k = 0; k < nst; k++) {
		/* Without an allocator the newest stage takes all it can. */
		do {
			keys[n] = test_key(stream, n);
			err = cf_stages_add(s, &keys[n], 8, false, NULL, NULL,
					    &at);
		} while (!err && ++n < max);
		cf_get_stats(s->stage[k], &st);
		if (!CHECK(err == -ENOSPC && st.victim && s->n == k + 1,
			   "f %u enc %u stage %u: %d, victim %d, %u keys", f,
			   enc, k, err, st.victim, n) || k + 1 == nst)
			break;
		/* The newest is past its capacity: the next key grows it. */
		keys[n] = test_key(stream, n);
		if (!CHECK(!add(s, keys[n], false, &at) && at == k + 1,
			   "f %u enc %u: no stage %u", f, enc, k + 1))
			break;
		n++;
	}
	return n;
}

/*
 * The per-stage lookup that cf_stages_contains_any() replaced: every
 * stage's cf_contains_any(), each hashing the whole group.
 */
static bool any_per_stage(const struct cf_stages *s, const u64 *keys, u32 m)
{
	bool hit = false;
	u32 i;

	for (i = 0; i < s->n; i++)
		hit |= cf_contains_any(s->stage[i], keys, 8, m);
	return hit;
}

/*
 * cf_stages_contains_any() of every group of 1 to CF_ANY_MAX + 1 keys of
 * @q against cf_stages_contains() of its keys (of the first CF_ANY_MAX)
 * and against any_per_stage(): how many differ from either.
 */
static u32 any_stages_check(const struct cf_stages *s, const u64 *q, u32 n)
{
	u32 i, j, m, bad = 0;
	bool got, want;

	for (m = 1; m <= CF_ANY_MAX + 1; m++) {
		for (i = 0; i + m <= n; i++) {
			got = cf_stages_contains_any(s, &q[i], 8, m);
			want = false;
			for (j = 0; j < m && j < CF_ANY_MAX; j++)
				want |= has(s, q[i + j]);
			bad += got != want || got != any_per_stage(s, &q[i], m);
		}
	}
	return bad;
}

/*
 * A grouped lookup hashed once for every stage answers as every stage's
 * cf_contains_any() and as cf_stages_contains() of each key: filters of
 * 1, 2 and 4 stages, plain and semi-sorted, first widths from the
 * narrowest to one whose fourth stage is 32 bits, every stage's victim
 * taken; present keys (of every stage, victims too) and absent mixed.
 */
static void t_any_stages(void)
{
	static const u8 fs[2][10] = {
		{ 6, 8, 11, 12, 13, 15, 16, 17, 20, 29 },
		{ 6, 9, 11, 12, 13, 14, 16, 17, 20, 29 },
	};
	static const u32 nsts[] = { 1, 2, 4 };
	enum { MAX = 6000, Q = 1200 };
	static u64 keys[MAX], q[Q];
	struct cf_stages s = { 0 };
	u32 e, fi, si, n, i, miss, bad;
	u8 f, enc;

	for (e = 0; e < 2; e++) {
		enc = e ? CF_ENC_SEMISORT : CF_ENC_PLAIN;
		for (fi = 0; fi < sizeof(fs[0]); fi++) {
			f = fs[e][fi];
			for (si = 0; si < sizeof(nsts) / sizeof(nsts[0]); si++) {
				n = mk_victims(&s, nsts[si], f, enc,
					       g_seed + 31 * f + si, keys, MAX);
				REQUIRE(n && s.n == nsts[si], "no filter");
				for (i = 0, miss = 0; i < n; i++)
					miss += !has(&s, keys[i]);
				for (i = 0; i < Q; i++)
					q[i] = i % 2 ? keys[(i * 7919ULL) % n] :
						       test_key(g_seed + 7, i);
				bad = any_stages_check(&s, q, Q);
				CHECK(!miss && !bad,
				      "f %u enc %u, %u stages: %u keys missing, %u groups answered otherwise",
				      f, enc, s.n, miss, bad);
				cf_stages_free(&s);
			}
		}
	}
out:
	cf_stages_free(&s);
}

/*
 * A grouped lookup hashes each of its keys once however many stages it
 * asks, where every stage's cf_contains_any() hashed them all again; a
 * single lookup hashes its key once.  Hash passes as the CF_COUNT_HASHES
 * build counts them, around each lookup.
 */
static void t_any_hashes_once(void)
{
	unsigned long before, any, per_stage, one;
	struct cf_stages s = { 0 };
	u64 keys[CF_ANY_MAX + 2], next = 0;
	u32 k, m, want, at;

	REQUIRE(mk(&s, 1000, 12, CF_ENC_PLAIN, &GROW_16), "no filter");
	for (k = 0; k < CF_ANY_MAX + 2; k++)
		keys[k] = test_key(13, ABSENT_BASE + k);
	for (k = 1; k <= 4; k++) {
		for (; s.n < k; next++)
			REQUIRE(!add(&s, test_key(13, next), false, &at),
				"add %llu", (unsigned long long)next);
		for (m = 1; m <= CF_ANY_MAX + 2; m++) {
			want = m < CF_ANY_MAX ? m : CF_ANY_MAX;
			before = cf_hash_calls;
			cf_stages_contains_any(&s, keys, 8, m);
			any = cf_hash_calls - before;
			before = cf_hash_calls;
			any_per_stage(&s, keys, m);
			per_stage = cf_hash_calls - before;
			CHECK(any == want && per_stage == k * want,
			      "%u stages, %u keys: %lu hash passes (each stage's cf_contains_any(): %lu), want %u",
			      k, m, any, per_stage, want);
		}
		before = cf_hash_calls;
		has(&s, keys[0]);
		one = cf_hash_calls - before;
		CHECK(one == 1, "%u stages: %lu passes for one key", k, one);
	}
out:
	cf_stages_free(&s);
}

static void t_grow_error(void)
{
	struct cf_grow g = { true, 1, 8 };

	CHECK(cf_grow_error(&g), "factor 1 taken");
	g.factor = 9;
	CHECK(cf_grow_error(&g), "factor 9 taken");
	g.factor = 8;
	g.max_stages = 0;
	CHECK(cf_grow_error(&g), "0 stages taken");
	g.max_stages = 17;
	CHECK(cf_grow_error(&g), "17 stages taken");
	g.max_stages = 16;
	CHECK(!cf_grow_error(&g), "factor 8, 16 stages refused");
	CHECK(cf_fpr_bound_ppb(12, 4) == 1953125 &&
	      cf_fpr_bound_ppb(6, 8) == 250000000,
	      "bounds %u %u", cf_fpr_bound_ppb(12, 4), cf_fpr_bound_ppb(6, 8));
}

static const struct tap_case cases[] = {
	{ "stages: capacity 1000 grows to hold 1M, no false negative",
	  t_grow_1000_to_1m },
	{ "stages: next stage's geometry", t_next_params },
	{ "stages: a lent scratch reaches the stages made meanwhile",
	  t_lent_scratch_growth },
	{ "stages: nogrow refuses as one table does", t_nogrow },
	{ "stages: a stage over a ceiling is refused, the rest kept",
	  t_quota },
	{ "stages: one key's copies do not grow the filter",
	  t_duplicates_do_not_grow },
	{ "stages: deletes after growth lose no other key",
	  t_delete_after_growth },
	{ "stages: a key in two stages is refused and kept",
	  t_delete_ambiguous_kept },
	{ "stages: unique adds ask every stage", t_unique_across_stages },
	{ "stages: flush back to one stage", t_flush },
	{ "stages: batched lookups agree", t_batch_agrees },
	{ "stages: grouped lookups agree with each stage's, victims too",
	  t_any_stages },
	{ "stages: a grouped lookup hashes each key once for all stages",
	  t_any_hashes_once },
	{ "stages: growth settings checked", t_grow_error },
};

int main(int argc, char **argv)
{
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			g_seed = strtoull(argv[++i], NULL, 0);
		} else {
			fprintf(stderr, "usage: %s [--seed N]\n", argv[0]);
			return 2;
		}
	}
	printf("# test_stages %s: seed %#llx (--seed to change)\n",
	       TEST_VARIANT, (unsigned long long)g_seed);
	return tap_run(cases, sizeof(cases) / sizeof(cases[0]));
}
