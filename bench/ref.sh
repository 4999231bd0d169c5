#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/ref.sh REF [N] [ROUNDS]
# bench/ref.sh --semisort REF [N] [ROUNDS]
# bench/ref.sh --latency REF_LATENCY [N] [ROUNDS]
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
# like.  The last line gives the median and range of the batch's ratio
# over the rounds.  Exits non-zero if a run fails.
#
# --semisort: semi-sorted buckets, the reference's "SemiSort13" row
# (CuckooFilter<uint64_t, 13, PackedTable>) against bench_core -z, whose
# semi-sorted f = 13 filter is the same; its figures there come from
# rounds that alternate with plain f = 12 (-r 1 here: one of each).
#
# --latency: single lookups, what the packet path pays.  REF_LATENCY is
# bench/ref_latency.cc built against the reference's headers:
#
#   git clone https://github.com/efficient/cuckoofilter
#   g++ -O3 -DNDEBUG -march=core-avx2 -std=c++11 -Icuckoofilter/src \
#       -o ref_latency bench/ref_latency.cc
#   bench/ref.sh --latency ./ref_latency
#
# Each round runs it and bench_core on the same CPU, one after the other,
# and prints the throughput of independent single lookups (M/s at 0%,
# 50% and 100% found) and the latency of dependent ones ("chain": each
# lookup's key depends on the answer before, ns per lookup) of both, and
# their ratios; then the median and range of the ratios over the rounds.
set -u
latency=0 row=Cuckoo12 semi=
case ${1:-} in
--latency)
	latency=1
	shift ;;
--semisort)
	row=SemiSort13 semi=1
	shift ;;
esac
ref=${1:?usage: bench/ref.sh [--latency|--semisort] REF_BINARY [N] [ROUNDS]}
case $ref in /*) ;; *) ref=$PWD/$ref ;; esac
cd "$(dirname "$0")" || exit 1
n=${2:-16000000}
rounds=${3:-3}
cpu=${REF_CPU:-1}

# summary LABEL NOTE: the median and range of each ratio of the rounds
# (the lines "R x y ..." gathered in $ratios).
summary() {
	printf '%s' "$ratios" | awk -v label="$1" -v note="$2" '
		{ for (i = 2; i <= NF; i++) v[i, NR] = $i; nf = NF }
		END {
			printf "%-29s", label " " NR " rounds:"
			for (i = 2; i <= nf; i++) {
				n = 0
				for (j = 1; j <= NR; j++) a[++n] = v[i, j]
				for (x = 1; x <= n; x++) for (y = x + 1; y <= n; y++)
					if (a[y] < a[x]) { t = a[x]; a[x] = a[y]; a[y] = t }
				med = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
				printf " %.2fx (%.2f-%.2f)", med, a[1], a[n]
			}
			printf "  %s\n", note
		}'
}

[ -x "$ref" ] || { echo "bench/ref.sh: $ref is not an executable" >&2; exit 1; }
make -s bench_core || exit 1

if [ "$latency" = 1 ]; then
	printf '%-6s %-22s %8s %8s %8s %10s\n' round "single M/s at found:" \
	       0% 50% 100% "chain ns"
	ratios=
	for r in $(seq 1 "$rounds"); do
		refs=$(taskset -c "$cpu" "$ref" "$n" 1 2>/dev/null |
		       awk '$1 == "single" { s[$2 + 0] = $3 }
			    $1 == "chain" { c = $3 }
			    END { if (c != "") print s[0], s[0.5], s[1], c }')
		[ "$(wc -w <<<"$refs")" = 4 ] ||
			{ echo "bench/ref.sh: $ref $n failed" >&2; exit 1; }
		ours=$(./bench_core -c "$cpu" -k u64 -N "$n" -f 12 -S -r 1 \
		       2>/dev/null |
		       awk -F'"mode":"|"positive":|,"mops":|,"ns":|,"hits"|,"ns_min"' '
			/"op":"lookup"/ { split($2, m, "\""); v[m[1], $3 + 0] = $4 }
			END { print v["single", 0], v["single", 0.5],
				    v["single", 1], v["chain", 0.5] }')
		[ "$(wc -w <<<"$ours")" = 4 ] ||
			{ echo "bench/ref.sh: bench_core failed" >&2; exit 1; }
		line=$(awk -v r="$r" -v ref="$refs" -v ours="$ours" 'BEGIN {
			split(ref, f); split(ours, o)
			printf "%-6s %-22s %8.1f %8.1f %8.1f %10.1f\n", r, "reference", f[1], f[2], f[3], f[4]
			printf "%-6s %-22s %8.1f %8.1f %8.1f %10.1f\n", "", "nf_cuckoo", o[1], o[2], o[3], o[4]
			printf "%-6s %-22s %7.2fx %7.2fx %7.2fx %9.2fx\n", "", "nf_cuckoo / reference",
			       o[1] / f[1], o[2] / f[2], o[3] / f[3], o[4] / f[4]
			printf "R %f %f %f %f\n", o[1] / f[1], o[2] / f[2], o[3] / f[3], o[4] / f[4]
		}')
		grep -v '^R ' <<<"$line"
		ratios+=$(grep '^R ' <<<"$line")$'\n'
	done
	summary "ratios over" "[single 0%, 50%, 100%; chain]"
	exit 0
fi

printf '%-6s %-22s %8s %8s %8s\n' round "M lookups/s at found:" 0% 50% 100%
tmp=$(mktemp) || exit 1
ratios=
for r in $(seq 1 "$rounds"); do
	# At N close to a power of two the reference sometimes throws "The
	# filter is too small" for one of its filters and aborts; the row
	# printed before that stands (stdbuf: not lost in a buffer), and a
	# run without it is tried again.
	refs=
	for _ in 1 2 3; do
		out=$(stdbuf -oL taskset -c "$cpu" "$ref" "$n" 2>/dev/null)
		# Columns: name, adds, then finds at 0, 25, 50, 75 and 100%.
		refs=$(awk -v row="$row" '$1 == row { print $3, $5, $7; exit }' \
		       <<<"$out")
		[ -n "$refs" ] && break
	done
	[ -n "$refs" ] ||
		{ echo "bench/ref.sh: $ref $n gave no $row row" >&2; exit 1; }
	if [ -n "$semi" ]; then
		ours=$(./bench_core -c "$cpu" -N "$n" -r 1 -z 2>/dev/null |
		       awk -F'"metric":"|"positive":|,"plain_f"|"semisort_mops":|,"semisort_min"' '
			/"op":"ss_compare"/ { split($2, m, "\""); v[m[1], $3 + 0] = $5 }
			END { print v["single", 0], v["single", 0.5], v["single", 1],
				    v["batch", 0], v["batch", 0.5], v["batch", 1] }')
	else
		ours=$(./bench_core -c "$cpu" -k u64 -N "$n" -f 12 -S -r 1 2>/dev/null |
		       awk -F'"mode":"|"positive":|,"mops":|,"hits"' '
			/"op":"lookup"/ { split($2, m, "\""); v[m[1], $3 + 0] = $4 }
			END { print v["single", 0], v["single", 0.5], v["single", 1],
				    v["batch", 0], v["batch", 0.5], v["batch", 1] }')
	fi
	[ "$(wc -w <<<"$ours")" = 6 ] ||
		{ echo "bench/ref.sh: bench_core failed" >&2; exit 1; }
	awk -v r="$r" -v ref="$refs" -v ours="$ours" -v row="$row" 'BEGIN {
		split(ref, f); split(ours, o)
		printf "%-6s %-22s %8.1f %8.1f %8.1f\n", r, "reference " row, f[1], f[2], f[3]
		printf "%-6s %-22s %8.1f %8.1f %8.1f\n", "", "nf_cuckoo single", o[1], o[2], o[3]
		printf "%-6s %-22s %8.1f %8.1f %8.1f\n", "", "nf_cuckoo batch 64", o[4], o[5], o[6]
		printf "%-6s %-22s %7.2fx %7.2fx %7.2fx\n", "", "batch / reference",
		       o[4] / f[1], o[5] / f[2], o[6] / f[3]
		printf "R %f %f %f\n", o[4] / f[1], o[5] / f[2], o[6] / f[3]
	}' >"$tmp"
	grep -v '^R ' "$tmp"
	ratios+=$(grep '^R ' "$tmp")$'\n'
done
rm -f "$tmp"
summary "batch / reference," "[0%, 50%, 100% found]"
