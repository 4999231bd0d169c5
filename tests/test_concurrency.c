// SPDX-License-Identifier: GPL-2.0
/*
 * One writer, many lockless readers (kmod/cuckoo.c built in userspace).
 *
 * The filter is filled to ~93% of its slots with a stable set.  Then one
 * writer (holding a lock, as the module's writers do) churns keys in and
 * out at high load: it adds churn keys until the filter is full (the
 * victim is taken or an add fails with -ENOSPC), so that the last inserts
 * need long displacement chains, then deletes them again down to a low
 * mark (each delete also tries to take the victim back), and so on.
 * Meanwhile reader threads look up stable keys with cf_contains() and
 * cf_contains_batch(), and each in a group of absent keys with
 * cf_contains_any() and cf_contains_any_hash(): every stable key is
 * present for the whole of every lookup, so a single negative is a
 * failure.
 *
 * Two scenarios run one after the other: a large filter (1M items, churn
 * of 256k keys) and a small one (10k items), in which each move touches a
 * much larger share of the keys the readers look up, so that a reader that
 * fails to retry (or a writer that moves outside its sequence section)
 * shows up within seconds.  Both run with plain buckets, then with
 * semi-sorted ones, where every add and delete rewrites a whole bucket
 * (at 93% load, nearly always one holding stable keys that readers look
 * up) and reorders its fingerprints.
 *
 * Then the bound on a reader's retries (cuckoo.h, Concurrency): a writer
 * adds and deletes back to back, with no lock and no pause, in a filter
 * kept at the edge of full, while the readers look up stable and absent
 * keys, one by one, four at a time and in batches; the core counts each
 * lookup's failed tries (userspace only), and none may exceed
 * CF_READ_RETRIES_MAX.  A histogram of them is printed; run with
 * --ignore-waiters 1 to see what they are when the writer does not wait
 * for readers (the stress build shows it best).
 *
 * A last scenario grows a filter of stages (cuckoo_stages.c) from capacity
 * 1000 to 8 stages while the readers look up the keys of its first stage,
 * single and batched: a stage published before it is whole, or a count
 * seen before its stage, shows as a miss or a crash.
 *
 * Built with -fsanitize=thread it also checks that every access the
 * readers race with is atomic; built at -O2 it runs many more operations;
 * built with -DCF_STRESS and cuckoo.c force-including stress_shim.h, every
 * table read of a reader and every table write of the writer spins for a
 * while, which widens the race windows by orders of magnitude.
 *
 *	test_concurrency [--seconds S] [--ops N] [--capacity C]
 *			 [--small-capacity C] [--readers R] [--seed N]
 *			 [--ignore-waiters 0|1]
 *			 [--read-spins N --write-spins N]	(stress build)
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include "cuckoo_stages.h"
#include "test_util.h"

#define BATCH		64
#define CHURN_SET	(256 * 1024)
#define MAX_READERS	16

static u64 g_seed = SEED_DEFAULT;
static double g_seconds = 5;
static u64 g_ops = 100000000;
static u64 g_capacity;
/*
 * Two scenarios: a large filter (a churn of 200k+ keys through a million),
 * and a small one, in which every move touches a far larger share of the
 * keys the readers look up, so that a broken retry shows within seconds.
 */
static u64 g_large = 1 << 20, g_small = 10000;
static unsigned int g_readers = 3;
static u8 g_enc = CF_ENC_PLAIN;

static struct cuckoo_filter *g_cf;
static u64 *g_stable;
static u64 g_nstable;
static u64 g_churn_stream;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool g_stop;

struct writer_stats {
	u64 ops, adds, deletes, enospc, victims, cycles, lo, hi;
	u64 peak_count;
	double secs;
};

struct reader_stats {
	u64 lookups, batches, negatives, batch_negatives, count_low;
	u64 any_negatives;
	u64 first_bad;
	unsigned int id;
};

static struct writer_stats g_ws;
static struct reader_stats g_rs[MAX_READERS];

/*
 * The stress build (-DCF_STRESS, cuckoo.c compiled with -include
 * stress_shim.h) slows every table access by these many spins per thread.
 */
#ifdef CF_STRESS
__thread unsigned int cf_stress_read_spins;
__thread unsigned int cf_stress_write_spins;
static unsigned int g_read_spins = 2000, g_write_spins = 200;
#endif

static u64 churn_key(u64 idx)
{
	return test_key(g_churn_stream, idx % CHURN_SET);
}

static bool victim_taken(void)
{
	struct cf_stats st;

	cf_get_stats(g_cf, &st);
	return st.victim;
}

/*
 * Churn keys idx in [lo, hi) are in the filter.  Grow until full, then
 * shrink to the low mark, and again.
 */
static void *writer(void *arg)
{
	struct writer_stats *ws = &g_ws;
	struct cf_stats st;
	u64 low_mark, k;
	bool grow = true;
	double t0 = now_sec();
	int err;

	(void)arg;
#ifdef CF_STRESS
	cf_stress_write_spins = g_write_spins;
#endif
	cf_get_stats(g_cf, &st);
	low_mark = g_nstable + st.slots / 100;
	/* At least one full fill/drain cycle, however slow the machine. */
	while (ws->ops < g_ops && (now_sec() - t0 < g_seconds ||
				   (!ws->cycles &&
				    now_sec() - t0 < 10 * g_seconds + 60))) {
		pthread_mutex_lock(&g_lock);
		if (grow && ws->hi - ws->lo < CHURN_SET) {
			k = churn_key(ws->hi);
			err = cf_add(g_cf, &k, sizeof(k));
			if (!err) {
				ws->hi++;
				ws->adds++;
				if (victim_taken()) {
					ws->victims++;
					grow = false;
				}
			} else {
				ws->enospc += err == -ENOSPC;
				if (err != -ENOSPC)
					ws->ops = ~0ULL - 1;	/* give up */
				grow = false;
			}
		} else {
			k = churn_key(ws->lo);
			err = cf_delete(g_cf, &k, sizeof(k));
			if (err)
				ws->ops = ~0ULL - 1;	/* reported below */
			ws->lo++;
			ws->deletes++;
			if (g_nstable + ws->hi - ws->lo <= low_mark) {
				grow = true;
				ws->cycles++;
			}
		}
		if (cf_count(g_cf) > ws->peak_count)
			ws->peak_count = cf_count(g_cf);
		pthread_mutex_unlock(&g_lock);
		ws->ops++;
	}
	ws->secs = now_sec() - t0;
	atomic_store(&g_stop, true);
	return NULL;
}

/*
 * A stable key among CF_ANY_MAX - 1 absent ones (churn keys past the
 * churn set, never added), by cf_contains_any() and by
 * cf_contains_any_hash() of their hashes: a group that misses is a
 * grouped lookup that overlapped a move and did not look again.
 */
static u64 reader_any(struct rng *r, u64 stable)
{
	struct cf_key_hash kh[CF_ANY_MAX];
	u64 keys[CF_ANY_MAX];
	u32 i, at = (u32)rng_below(r, CF_ANY_MAX);

	for (i = 0; i < CF_ANY_MAX; i++) {
		keys[i] = i == at ? stable :
			  test_key(g_churn_stream,
				   CHURN_SET + rng_below(r, 1u << 30));
		cf_key_hash(g_cf, &keys[i], 8, &kh[i]);
	}
	return !cf_contains_any(g_cf, keys, 8, CF_ANY_MAX) +
	       !cf_contains_any_hash(g_cf, kh, CF_ANY_MAX);
}

static void *reader(void *arg)
{
	struct reader_stats *rs = arg;
	struct rng r = { g_seed ^ (0x5eadULL + rs->id) };
	u8 hits[BATCH];
	u64 i, start, n = g_nstable - BATCH;
	u32 got;

	rs->first_bad = ~0ULL;
#ifdef CF_STRESS
	cf_stress_read_spins = g_read_spins;
#endif
	while (!atomic_load_explicit(&g_stop, memory_order_relaxed)) {
		start = rng_below(&r, n);
		for (i = 0; i < BATCH; i++) {
			if (!cf_contains(g_cf, &g_stable[start + i], 8)) {
				rs->negatives++;
				if (rs->first_bad == ~0ULL)
					rs->first_bad = start + i;
			}
		}
		rs->lookups += BATCH;
		start = rng_below(&r, n);
		got = cf_contains_batch(g_cf, &g_stable[start], 8, BATCH, hits);
		for (i = 0; i < BATCH; i++)
			rs->batch_negatives += !hits[i];
		rs->batch_negatives += got < BATCH;
		rs->batches++;
		rs->any_negatives += reader_any(&r, g_stable[rng_below(&r, n)]);
		/* The getters too: count never drops below the stable set. */
		if (!(rs->batches & 255) && cf_count(g_cf) < g_nstable)
			rs->count_low++;
	}
	return NULL;
}

static bool t_fill_stable(void)
{
	struct cuckoo_filter *cf = NULL;
	struct cf_params p = {
		.capacity = g_capacity,
		.fp_bits = 12,
		.bucket_size = 4,
		.seed = mix64(g_seed),
		.encoding = g_enc,
	};
	struct cf_stats st;
	u64 i, stream = mix64(g_seed ^ 0x57ab1e);
	int err;

	err = cf_create(&cf, &p);
	if (!CHECK(!err, "cf_create: %d", err))
		return false;
	g_cf = cf;
	cf_get_stats(cf, &st);
	g_nstable = st.slots * 93 / 100;
	if (!CHECK(g_nstable > BATCH, "capacity too small"))
		return false;
	g_stable = malloc(g_nstable * sizeof(*g_stable));
	if (!CHECK(g_stable, "out of memory"))
		return false;
	for (i = 0; i < g_nstable; i++) {
		g_stable[i] = test_key(stream, i);
		err = cf_add(cf, &g_stable[i], 8);
		if (!CHECK(!err, "stable add %llu: %d", (unsigned long long)i,
			   err))
			return false;
	}
	/* Churn keys come from another stream: they never equal a stable key. */
	g_churn_stream = mix64(g_seed ^ 0xc4c4);
	cf_get_stats(cf, &st);
	diag("stable set: %llu keys in %llu slots (load %.4f), victim %d",
	     (unsigned long long)g_nstable, (unsigned long long)st.slots,
	     st.load_ppm / 1e6, st.victim);
	return CHECK(!st.victim, "victim taken by the stable set");
}

static void t_churn(void)
{
	pthread_t w, rd[MAX_READERS];
	struct writer_stats *ws = &g_ws;
	u64 lookups = 0, neg = 0, bneg = 0, low = 0, batches = 0, aneg = 0;
	struct cf_stats st;
	unsigned int i;

	if (!t_fill_stable())
		return;
	for (i = 0; i < g_readers; i++) {
		g_rs[i].id = i;
		CHECK(!pthread_create(&rd[i], NULL, reader, &g_rs[i]),
		      "pthread_create");
	}
	CHECK(!pthread_create(&w, NULL, writer, NULL), "pthread_create");
	pthread_join(w, NULL);
	for (i = 0; i < g_readers; i++)
		pthread_join(rd[i], NULL);
	for (i = 0; i < g_readers; i++) {
		lookups += g_rs[i].lookups;
		batches += g_rs[i].batches;
		neg += g_rs[i].negatives;
		bneg += g_rs[i].batch_negatives;
		aneg += g_rs[i].any_negatives;
		low += g_rs[i].count_low;
		if (g_rs[i].negatives)
			diag("reader %u: first negative for stable key %llu",
			     i, (unsigned long long)g_rs[i].first_bad);
	}
	cf_get_stats(g_cf, &st);
	diag("writer: %llu ops in %.1f s: %llu adds, %llu deletes, %llu "
	     "victims, %llu -ENOSPC, %llu fill/drain cycles, peak load %.4f",
	     (unsigned long long)ws->ops, ws->secs,
	     (unsigned long long)ws->adds, (unsigned long long)ws->deletes,
	     (unsigned long long)ws->victims, (unsigned long long)ws->enospc,
	     (unsigned long long)ws->cycles,
	     (double)ws->peak_count / st.slots);
	diag("readers: %u threads, %llu single lookups, %llu batches of %u "
	     "and pairs of groups: %llu negatives, %llu batch negatives, "
	     "%llu group negatives", g_readers, (unsigned long long)lookups,
	     (unsigned long long)batches, BATCH, (unsigned long long)neg,
	     (unsigned long long)bneg, (unsigned long long)aneg);
	CHECK(ws->ops < ~0ULL - 1, "writer: an add or delete failed");
	CHECK(neg == 0, "%llu stable keys missed by cf_contains",
	      (unsigned long long)neg);
	CHECK(bneg == 0, "%llu stable keys missed by cf_contains_batch",
	      (unsigned long long)bneg);
	CHECK(aneg == 0, "%llu groups of a stable key missed by "
	      "cf_contains_any(_hash)", (unsigned long long)aneg);
	CHECK(low == 0, "cf_count below the stable set %llu times",
	      (unsigned long long)low);
	CHECK(ws->victims > 0 && ws->cycles > 0, "the writer never filled "
	      "the filter (%llu victims, %llu cycles): not at high load",
	      (unsigned long long)ws->victims,
	      (unsigned long long)ws->cycles);
	CHECK(lookups > 0 && batches > 0, "readers did not run");
}

/* Single-threaded again: everything that should be there is. */
static void t_final(void)
{
	struct writer_stats *ws = &g_ws;
	u64 i, k, miss = 0, want;

	if (!CHECK(g_cf && g_stable, "no filter"))
		return;
	for (i = 0; i < g_nstable; i++)
		miss += !cf_contains(g_cf, &g_stable[i], 8);
	for (i = ws->lo; i < ws->hi; i++) {
		k = churn_key(i);
		miss += !cf_contains(g_cf, &k, 8);
	}
	want = g_nstable + ws->hi - ws->lo;
	CHECK(!miss, "%llu keys missing after the churn",
	      (unsigned long long)miss);
	CHECK(cf_count(g_cf) == want, "count %llu, want %llu",
	      (unsigned long long)cf_count(g_cf), (unsigned long long)want);
	/* Drain the churn set: back to exactly the stable set. */
	for (i = ws->lo; i < ws->hi; i++) {
		k = churn_key(i);
		if (!CHECK(!cf_delete(g_cf, &k, 8), "final delete failed"))
			break;
	}
	CHECK(cf_count(g_cf) == g_nstable, "count %llu after drain",
	      (unsigned long long)cf_count(g_cf));
	CHECK(!victim_taken(), "victim still taken at 93%% load");
	for (i = 0, miss = 0; i < g_nstable; i++)
		miss += !cf_contains(g_cf, &g_stable[i], 8);
	CHECK(!miss, "%llu stable keys missing after drain",
	      (unsigned long long)miss);
}

static void scenario(u64 capacity, u8 enc)
{
	cf_free(g_cf);
	g_cf = NULL;
	free(g_stable);
	g_stable = NULL;
	memset(&g_ws, 0, sizeof(g_ws));
	memset(g_rs, 0, sizeof(g_rs));
	atomic_store(&g_stop, false);
	g_capacity = capacity;
	g_enc = enc;
	diag("capacity %llu, %s buckets", (unsigned long long)capacity,
	     enc == CF_ENC_SEMISORT ? "semi-sorted" : "plain");
}

static void t_churn_large(void)
{
	scenario(g_large, CF_ENC_PLAIN);
	t_churn();
}

static void t_churn_small(void)
{
	scenario(g_small, CF_ENC_PLAIN);
	t_churn();
}

/*
 * A thousand items in 266 buckets: the readers' batches of 64 keys cover
 * a good share of the buckets the writer rewrites.
 */
static void t_churn_tiny(void)
{
	scenario(1000, CF_ENC_PLAIN);
	t_churn();
}

static void t_churn_tiny_ss(void)
{
	scenario(1000, CF_ENC_SEMISORT);
	t_churn();
}

static void t_churn_large_ss(void)
{
	scenario(g_large, CF_ENC_SEMISORT);
	t_churn();
}

static void t_churn_small_ss(void)
{
	scenario(g_small, CF_ENC_SEMISORT);
	t_churn();
}

/* ---- The bound on a reader's retries ---- */

/*
 * Histogram classes of a lookup's failed tries: 0, 1, 2, 3, then powers
 * of two (4-7, 8-15, ...), the last open.
 */
#define RETRY_CLASSES	12

struct bound_stats {
	u64 hist[RETRY_CLASSES];
	u64 lookups, anys, batches, misses;
	unsigned long worst, worst_any, worst_batch;
};

static struct bound_stats g_bs[MAX_READERS];
static atomic_ullong g_bound_ops;

static unsigned int retry_class(unsigned long n)
{
	unsigned int c = 4;

	if (n < 4)
		return n;
	while (c < RETRY_CLASSES - 1 && n >= 1UL << (c - 1))
		c++;
	return c;
}

/*
 * Back to back, no lock, no pause: add churn keys until the filter is
 * full, delete the oldest again, and so on.  In plain buckets only the
 * adds that kick open a section: drain a few only, so that most adds
 * kick.  In semi-sorted ones every add and delete does, and the adds
 * that kick are slow: drain half a percent of the slots, so that few do.
 */
static unsigned int bound_drain(void)
{
	struct cf_stats st;

	cf_get_stats(g_cf, &st);
	return g_enc == CF_ENC_SEMISORT ? st.slots / 200 : 16;
}

static void *bound_writer(void *arg)
{
	u64 lo = 0, hi = 0, k, n = 0;
	double t0 = now_sec();
	unsigned int drain = 0, full = bound_drain();
	int err;

	(void)arg;
#ifdef CF_STRESS
	cf_stress_write_spins = g_write_spins;
#endif
	while (now_sec() - t0 < g_seconds / 2) {
		if (!drain && hi - lo < CHURN_SET) {
			k = churn_key(hi);
			err = cf_add(g_cf, &k, sizeof(k));
			if (!err)
				hi++;
			if (err || victim_taken())
				drain = full;
		} else {
			k = churn_key(lo++);
			if (!CHECK(!cf_delete(g_cf, &k, sizeof(k)),
				   "churn delete failed"))
				break;
			if (drain)
				drain--;
		}
		n++;
	}
	atomic_store(&g_bound_ops, n);
	atomic_store(&g_stop, true);
	return NULL;
}

/* Keys never added: misses, which a plain filter's readers retry. */
#define ABSENT		4096
static u64 g_absent[ABSENT];

/* One lookup of the key at k (4 for cf_contains_any()): its retries. */
static unsigned long bound_one(struct bound_stats *bs, const u64 *k,
			       bool any, bool stable)
{
	unsigned long before = cf_lookup_retries;
	bool in;

	in = any ? cf_contains_any(g_cf, k, 8, 4) : cf_contains(g_cf, k, 8);
	bs->misses += stable && !in;
	return cf_lookup_retries - before;
}

/* BATCH keys from k: the most retries of one of them. */
static unsigned long bound_batch(struct bound_stats *bs, const u64 *k,
				 bool stable)
{
	u8 hits[BATCH];
	u32 got;

	cf_lookup_retries_max = 0;
	got = cf_contains_batch(g_cf, k, 8, BATCH, hits);
	if (stable)
		bs->misses += BATCH - got;
	return cf_lookup_retries_max;
}

#define MAX(a, b)	((a) > (b) ? (a) : (b))

/*
 * Stable keys, present throughout, and absent ones, whose misses a plain
 * filter's readers retry as semi-sorted ones retry every answer: one by
 * one, four at a time (cf_contains_any()) and BATCH at a time, each
 * lookup's failed tries counted by the core (cf_lookup_retries, per key
 * of a batch cf_lookup_retries_max).
 */
static void *bound_reader(void *arg)
{
	struct bound_stats *bs = arg;
	struct rng r = { g_seed ^ (0xb0dULL + (bs - g_bs)) };
	u64 i, n = g_nstable - BATCH;
	unsigned long d;
	const u64 *k;

#ifdef CF_STRESS
	cf_stress_read_spins = g_read_spins;
#endif
	while (!atomic_load_explicit(&g_stop, memory_order_relaxed)) {
		for (i = 0; i < BATCH; i++) {
			k = i & 1 ? &g_absent[rng_below(&r, ABSENT)] :
				    &g_stable[rng_below(&r, n)];
			d = bound_one(bs, k, false, !(i & 1));
			bs->hist[retry_class(d)]++;
			bs->worst = MAX(bs->worst, d);
		}
		bs->lookups += BATCH;
		d = bound_one(bs, &g_stable[rng_below(&r, n)], true, true);
		bs->worst_any = MAX(bs->worst_any, d);
		d = bound_one(bs, &g_absent[rng_below(&r, ABSENT - 4)], true,
			      false);
		bs->worst_any = MAX(bs->worst_any, d);
		bs->anys += 2;
		d = bound_batch(bs, &g_stable[rng_below(&r, n)], true);
		bs->worst_batch = MAX(bs->worst_batch, d);
		d = bound_batch(bs, &g_absent[rng_below(&r, ABSENT - BATCH)],
				false);
		bs->worst_batch = MAX(bs->worst_batch, d);
		bs->batches += 2;
	}
	return NULL;
}

static void bound_report(const struct bound_stats *t, u64 ops)
{
	char line[400];
	int at = 0;
	unsigned int c;

	for (c = 0; c < RETRY_CLASSES; c++) {
		if (c < 4)
			at += snprintf(line + at, sizeof(line) - at, " %u:", c);
		else if (c < RETRY_CLASSES - 1)
			at += snprintf(line + at, sizeof(line) - at, " %u-%u:",
				       1U << (c - 2), (2U << (c - 2)) - 1);
		else
			at += snprintf(line + at, sizeof(line) - at, " %u+:",
				       1U << (c - 2));
		at += snprintf(line + at, sizeof(line) - at, "%llu",
			       (unsigned long long)t->hist[c]);
	}
	diag("writer: %llu back-to-back adds and deletes in %.1f s%s",
	     (unsigned long long)ops, g_seconds / 2,
	     cf_ignore_waiters ? ", ignoring waiting readers" : "");
	diag("retries of %llu single lookups:%s",
	     (unsigned long long)t->lookups, line);
	diag("worst retries: %lu single, %lu of %llu cf_contains_any(), %lu "
	     "a key of %llu batches; bound %d", t->worst, t->worst_any,
	     (unsigned long long)t->anys, t->worst_batch,
	     (unsigned long long)t->batches, CF_READ_RETRIES_MAX);
}

static void t_bound(u8 enc)
{
	pthread_t w, rd[MAX_READERS];
	struct bound_stats t = { 0 };
	unsigned int i, c;

	scenario(g_small, enc);
	memset(g_bs, 0, sizeof(g_bs));
	if (!t_fill_stable())
		return;
	for (i = 0; i < ABSENT; i++)
		g_absent[i] = test_key(mix64(g_seed ^ 0xab5e), i);
	for (i = 0; i < g_readers; i++)
		CHECK(!pthread_create(&rd[i], NULL, bound_reader, &g_bs[i]),
		      "pthread_create");
	CHECK(!pthread_create(&w, NULL, bound_writer, NULL), "pthread_create");
	pthread_join(w, NULL);
	for (i = 0; i < g_readers; i++) {
		pthread_join(rd[i], NULL);
		for (c = 0; c < RETRY_CLASSES; c++)
			t.hist[c] += g_bs[i].hist[c];
		t.lookups += g_bs[i].lookups;
		t.anys += g_bs[i].anys;
		t.batches += g_bs[i].batches;
		t.misses += g_bs[i].misses;
		if (g_bs[i].worst > t.worst)
			t.worst = g_bs[i].worst;
		if (g_bs[i].worst_any > t.worst_any)
			t.worst_any = g_bs[i].worst_any;
		if (g_bs[i].worst_batch > t.worst_batch)
			t.worst_batch = g_bs[i].worst_batch;
	}
	bound_report(&t, atomic_load(&g_bound_ops));
	CHECK(!t.misses, "%llu lookups of stable keys missed",
	      (unsigned long long)t.misses);
	CHECK(t.worst <= CF_READ_RETRIES_MAX &&
	      t.worst_any <= CF_READ_RETRIES_MAX &&
	      t.worst_batch <= CF_READ_RETRIES_MAX,
	      "a lookup failed more than %d tries", CF_READ_RETRIES_MAX);
	CHECK(t.lookups && t.anys && t.batches, "readers did not run");
}

static void t_bound_plain(void)
{
	t_bound(CF_ENC_PLAIN);
}

static void t_bound_ss(void)
{
	t_bound(CF_ENC_SEMISORT);
}

/* ---- A filter that grows while readers look ---- */

#define GROW_STABLE	1000
#define GROW_KEYS	(200 * 1000)

static struct cf_stages g_st;
static u64 g_grow_stable[GROW_STABLE];
static atomic_uint g_grow_misses, g_grow_lookups;

static int grow_alloc(void *ctx, const struct cf_params *p,
		      struct cuckoo_filter **out)
{
	(void)ctx;
	return cf_create(out, p);
}

/* Stable keys, single and batched: a miss is a failure. */
static void *grow_reader(void *arg)
{
	struct rng r = { g_seed ^ (0x6e0ULL + (uintptr_t)arg) };
	u8 hits[BATCH];
	u32 i, start, miss = 0, n = 0;

	while (!atomic_load_explicit(&g_stop, memory_order_relaxed)) {
		start = (u32)rng_below(&r, GROW_STABLE - BATCH);
		for (i = 0; i < BATCH; i++)
			miss += !cf_stages_contains(&g_st, &g_grow_stable[start + i],
						    8);
		cf_stages_contains_batch(&g_st, &g_grow_stable[start], 8, BATCH,
					 hits);
		for (i = 0; i < BATCH; i++)
			miss += !hits[i];
		n += 2 * BATCH;
	}
	atomic_fetch_add(&g_grow_misses, miss);
	atomic_fetch_add(&g_grow_lookups, n);
	return NULL;
}

/*
 * Capacity 1000 holding the stable keys grows to 8 stages under the
 * readers (each stage published while they look), then the writer churns
 * in the newest stage until the time is up.
 */
static void t_grow(void)
{
	static const struct cf_grow g = { true, 2, CF_STAGES_MAX };
	struct cf_params p = { .capacity = 1000, .fp_bits = 12,
			       .seed = g_seed };
	pthread_t th[MAX_READERS];
	struct cuckoo_filter *cf;
	double t0 = now_sec();
	u64 i, k, ops = 0;
	u32 at, grown;
	unsigned int t;

	atomic_store(&g_stop, false);
	REQUIRE(!cf_create(&cf, &p), "no filter");
	cf_stages_init(&g_st, cf, &g, NULL);
	for (i = 0; i < GROW_STABLE; i++) {
		g_grow_stable[i] = test_key(g_seed + 77, i);
		REQUIRE(!cf_stages_add(&g_st, &g_grow_stable[i], 8, false,
				       grow_alloc, NULL, &at), "stable add");
	}
	for (t = 0; t < g_readers; t++)
		pthread_create(&th[t], NULL, grow_reader, (void *)(uintptr_t)t);
	for (i = 0; i < GROW_KEYS; i++) {
		k = test_key(g_seed + 78, i);
		if (!CHECK(!cf_stages_add(&g_st, &k, 8, false, grow_alloc, NULL,
					  &at), "growing add %llu",
			   (unsigned long long)i))
			break;
	}
	grown = g_st.n;
	while (now_sec() - t0 < g_seconds && ops < g_ops) {
		k = test_key(g_seed + 78, GROW_KEYS - 1 - ops % 1000);
		cf_stages_delete(&g_st, &k, 8, &at);
		cf_stages_add(&g_st, &k, 8, false, grow_alloc, NULL, &at);
		ops++;
	}
	atomic_store(&g_stop, true);
	for (t = 0; t < g_readers; t++)
		pthread_join(th[t], NULL);
	diag("grew to %u stages under %u readers, %u lookups, then %llu "
	     "churn ops", grown, g_readers, atomic_load(&g_grow_lookups),
	     (unsigned long long)ops);
	CHECK(grown >= 8, "only %u stages", grown);
	CHECK(!atomic_load(&g_grow_misses), "%u stable keys missed",
	      atomic_load(&g_grow_misses));
out:
	cf_stages_free(&g_st);
}

static const struct tap_case cases[] = {
	{ "concurrency: large filter: readers never miss a stable key while "
	  "one writer churns at high load", t_churn_large },
	{ "concurrency: large filter: state exact after the churn", t_final },
	{ "concurrency: small filter: readers never miss a stable key while "
	  "one writer churns at high load", t_churn_small },
	{ "concurrency: small filter: state exact after the churn", t_final },
	{ "concurrency: tiny filter: readers never miss a stable key while "
	  "one writer churns at high load", t_churn_tiny },
	{ "concurrency: tiny filter: state exact after the churn", t_final },
	{ "concurrency: semisort: large filter: readers never miss a stable "
	  "key while one writer churns at high load", t_churn_large_ss },
	{ "concurrency: semisort: large filter: state exact after the churn",
	  t_final },
	{ "concurrency: semisort: small filter: readers never miss a stable "
	  "key while one writer churns at high load", t_churn_small_ss },
	{ "concurrency: semisort: small filter: state exact after the churn",
	  t_final },
	{ "concurrency: semisort: tiny filter: readers never miss a stable "
	  "key while one writer churns at high load", t_churn_tiny_ss },
	{ "concurrency: semisort: tiny filter: state exact after the churn",
	  t_final },
	{ "concurrency: bound: plain: no lookup fails more than "
	  "CF_READ_RETRIES_MAX tries under a writer that never pauses",
	  t_bound_plain },
	{ "concurrency: bound: semisort: no lookup fails more than "
	  "CF_READ_RETRIES_MAX tries under a writer that never pauses",
	  t_bound_ss },
	{ "concurrency: a filter grows to 8 stages: readers never miss a "
	  "stable key", t_grow },
};

int main(int argc, char **argv)
{
	int i, rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			goto usage;
		if (!strcmp(argv[i], "--seconds"))
			g_seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--ops"))
			g_ops = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--capacity"))
			g_large = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--small-capacity"))
			g_small = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--readers"))
			g_readers = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seed"))
			g_seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--ignore-waiters"))
			cf_ignore_waiters = atoi(argv[++i]);
#ifdef CF_STRESS
		else if (!strcmp(argv[i], "--read-spins"))
			g_read_spins = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--write-spins"))
			g_write_spins = atoi(argv[++i]);
#endif
		else
			goto usage;
	}
	if (!g_readers || g_readers > MAX_READERS || g_large < 10000 ||
	    g_small < 10000)
		goto usage;
	printf("# test_concurrency %s: seed %#llx, capacities %llu, %llu and "
	       "1000, plain then semi-sorted, %u readers, up to %llu writer "
	       "ops or %.1f s each\n",
	       TEST_VARIANT, (unsigned long long)g_seed,
	       (unsigned long long)g_large, (unsigned long long)g_small,
	       g_readers, (unsigned long long)g_ops, g_seconds);
#ifdef CF_STRESS
	printf("# stress build: %u spins before every table read in readers, "
	       "%u after every table write\n", g_read_spins, g_write_spins);
#endif
	rc = tap_run(cases, sizeof(cases) / sizeof(cases[0]));
	cf_free(g_cf);
	free(g_stable);
	return rc;
usage:
	fprintf(stderr, "usage: %s [--seconds S] [--ops N] [--capacity C] "
		"[--small-capacity C] [--readers R (1..%d)] [--seed N] "
		"[--ignore-waiters 0|1] "
		"[--read-spins N --write-spins N]\n", argv[0], MAX_READERS);
	return 2;
}
