#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/ref.sh REF [N] [ROUNDS]
#
# nf_cuckoo's core against the paper authors' reference implementation, at
# the same moment on the same core.  Speeds on a shared VM drift by up to
# two times within minutes, so figures taken at different times compare
# badly; this runs the two alternately and prints the ratio of each round.
#
# REF is the reference's own benchmark, built by you (it is not part of
# this project and not in its repository):
#
#   git clone https://github.com/efficient/cuckoofilter
#   make -C cuckoofilter/benchmarks bulk-insert-and-query.exe
#   bench/ref.sh cuckoofilter/benchmarks/bulk-insert-and-query.exe
#
# It fills each of its filters with N 64-bit keys (default 16000000) and
# prints lookups/s at 0% to 100% found; its "Cuckoo12" row is f = 12, b = 4,
# one key at a time.  Ours is bench_core on the same N keys, f = 12, b = 4:
# single lookups, and batches of 64.  ROUNDS (default 3) pairs of runs,
# pinned to CPU 1 (REF_CPU to change).  CFLAGS_EXTRA builds bench_core
# with more flags: the reference's own Makefile builds with -O3
# -march=core-avx2, so CFLAGS_EXTRA=-march=x86-64-v3 compares like with
# like.  Exits non-zero if a run fails.
set -u
cd "$(dirname "$0")" || exit 1

ref=${1:?usage: bench/ref.sh REF_BINARY [N] [ROUNDS]}
n=${2:-16000000}
rounds=${3:-3}
cpu=${REF_CPU:-1}

[ -x "$ref" ] || { echo "bench/ref.sh: $ref is not an executable" >&2; exit 1; }
make -s bench_core || exit 1

printf '%-6s %-22s %8s %8s %8s\n' round "M lookups/s at found:" 0% 50% 100%
for r in $(seq 1 "$rounds"); do
	# At N close to a power of two the reference sometimes throws "The
	# filter is too small" for one of its filters and aborts; the row
	# printed before that stands (stdbuf: not lost in a buffer), and a
	# run without it is tried again.
	refs=
	for _ in 1 2 3; do
		out=$(stdbuf -oL taskset -c "$cpu" "$ref" "$n" 2>/dev/null)
		# Columns: name, adds, then finds at 0, 25, 50, 75 and 100%.
		refs=$(awk '$1 == "Cuckoo12" { print $3, $5, $7; exit }' \
		       <<<"$out")
		[ -n "$refs" ] && break
	done
	[ -n "$refs" ] ||
		{ echo "bench/ref.sh: $ref $n gave no Cuckoo12 row" >&2; exit 1; }
	ours=$(./bench_core -c "$cpu" -k u64 -N "$n" -f 12 -S -r 1 2>/dev/null |
	       awk -F'"mode":"|"positive":|,"mops":|,"hits"' '
		/"op":"lookup"/ { split($2, m, "\""); v[m[1], $3 + 0] = $4 }
		END { print v["single", 0], v["single", 0.5], v["single", 1],
			    v["batch", 0], v["batch", 0.5], v["batch", 1] }')
	[ "$(wc -w <<<"$ours")" = 6 ] ||
		{ echo "bench/ref.sh: bench_core failed" >&2; exit 1; }
	awk -v r="$r" -v ref="$refs" -v ours="$ours" 'BEGIN {
		split(ref, f); split(ours, o)
		printf "%-6s %-22s %8.1f %8.1f %8.1f\n", r, "reference", f[1], f[2], f[3]
		printf "%-6s %-22s %8.1f %8.1f %8.1f\n", "", "nf_cuckoo single", o[1], o[2], o[3]
		printf "%-6s %-22s %8.1f %8.1f %8.1f\n", "", "nf_cuckoo batch 64", o[4], o[5], o[6]
		printf "%-6s %-22s %7.2fx %7.2fx %7.2fx\n", "", "batch / reference",
		       o[4] / f[1], o[5] / f[2], o[6] / f[3]
	}'
done
