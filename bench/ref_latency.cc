// SPDX-License-Identifier: GPL-2.0
/*
 * ref_latency: the paper authors' reference cuckoo filter
 * (efficient/cuckoofilter, a header library) measured the way bench_core
 * measures nf_cuckoo's single lookups, for bench/ref.sh --latency.  It is
 * built by you against the reference's headers; the reference is not part
 * of this project:
 *
 *   git clone https://github.com/efficient/cuckoofilter
 *   g++ -O3 -DNDEBUG -march=core-avx2 -std=c++11 -Icuckoofilter/src \
 *       -o ref_latency bench/ref_latency.cc
 *
 * (-O3 -march=core-avx2 are the flags of the reference's own Makefile.)
 *
 *   ref_latency [N] [REPS]
 *
 * fills a CuckooFilter<uint64_t, 12> (f = 12, b = 4) with N random 64-bit
 * keys (default 16000000) and prints, each the median of REPS (default 3)
 * timed repetitions, one result a line:
 *
 *   single <positive> <M lookups/s>   independent lookups, one at a time
 *                                     (as its bulk-insert-and-query does),
 *                                     at 0, 0.5 and 1 of the queries present
 *   chain 0.5 <ns per lookup>         dependent lookups: which key comes
 *                                     next depends on the previous answer
 *
 * The chain is bench_core's (mode "chain"): a pool of 2P keys, half of them
 * present, shuffled; lookup i asks key 2 (i mod P) + (answer of lookup
 * i - 1).  So no lookup can start before the one before it has answered,
 * as between two packets, while the keys stream from the pool in order (the
 * hardware prefetcher keeps them in L1, as a packet's key is) and every
 * lookup reads buckets of its own.  An answer computed by a branch would
 * let the CPU guess it and start the next lookup early, so on x86 an
 * lfence after each lookup holds the next one back until this one is
 * done, whatever the code: the figure is the whole of one lookup, with
 * nothing overlapped.
 */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "cuckoofilter.h"

using cuckoofilter::CuckooFilter;

typedef CuckooFilter<uint64_t, 12> Filter;

static uint64_t mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rng_state = 0x243f6a8885a308d3ULL;

static uint64_t rng_below(uint64_t n)
{
	rng_state += 0x9e3779b97f4a7c15ULL;
	return (uint64_t)(((unsigned __int128)mix64(rng_state) * n) >> 64);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	size_t n = v.size();

	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Key i of set 0 (inserted) or set 1 (never inserted): distinct. */
static uint64_t key(uint64_t set, uint64_t i)
{
	return mix64(set << 40 | i);
}

/* n queries, pos * n of them present (of the added), shuffled. */
static std::vector<uint64_t> queries(size_t n, size_t added, double pos)
{
	std::vector<uint64_t> q(n);
	size_t npos = (size_t)(pos * n + 0.5), i;

	for (i = 0; i < n; i++)
		q[i] = i < npos ? key(0, rng_below(added)) : key(1, i);
	for (i = n - 1; i > 0; i--)
		std::swap(q[i], q[rng_below(i + 1)]);
	return q;
}

/* No later instruction starts before every earlier one has completed. */
static inline void serialise(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("lfence" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

static volatile uint64_t sink;

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 16000000;
	int reps = argc > 2 ? atoi(argv[2]) : 3, r;
	const size_t pool = 1 << 20, min_ops = 8 << 20;
	const size_t chain_ops = 4 << 20;
	static const double mixes[3] = { 0.0, 0.5, 1.0 };
	size_t added = 0, i;

	if (n < 1024 || reps < 1) {
		fprintf(stderr, "usage: ref_latency [N >= 1024] [REPS >= 1]\n");
		return 2;
	}
	Filter filter(n);

	while (added < n && filter.Add(key(0, added)) == cuckoofilter::Ok)
		added++;
	printf("n %zu added %zu bytes %zu\n", n, added, filter.SizeInBytes());
	if (added < n)
		fprintf(stderr, "ref_latency: the filter took %zu of %zu keys\n",
			added, n);

	for (int m = 0; m < 3; m++) {
		std::vector<uint64_t> q = queries(pool, added, mixes[m]);
		std::vector<double> t;

		for (r = 0; r < reps; r++) {
			uint64_t hits = 0;
			double t0 = now();

			for (size_t p = 0; p < min_ops / pool; p++)
				for (i = 0; i < pool; i++)
					hits += filter.Contain(q[i]) ==
						cuckoofilter::Ok;
			t.push_back(min_ops / pool * pool / (now() - t0) / 1e6);
			sink += hits;
		}
		printf("single %.1f %.2f\n", mixes[m], median(t));
	}

	{
		std::vector<uint64_t> q = queries(2 * pool, added, 0.5);
		std::vector<double> t;

		for (r = 0; r < reps; r++) {
			uint64_t ans = 0, hits = 0;
			double t0 = now();

			for (i = 0; i < chain_ops; i++) {
				ans = filter.Contain(q[2 * (i & (pool - 1)) +
						       ans]) == cuckoofilter::Ok;
				serialise();
				hits += ans;
			}
			t.push_back((now() - t0) * 1e9 / chain_ops);
			sink += hits;
		}
		printf("chain 0.5 %.2f\n", median(t));
	}
	return 0;
}
