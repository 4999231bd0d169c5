#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Blocklists of prefixes (issue 21): nf_cuckoo against an ipset hash:net
# and an nftables interval set, on lists of the shapes people load: load
# time, kernel bytes per prefix, and what a packet costs at prerouting,
# timed in the kernel, at 0% and 100% matching.
#
#   bench/prefix/run.sh [--quick] [--cases "CASE..."] [--reps R]
#                       [--packets P] [--load-max S] [--timeout S]
#                       [--contenders "C..."]
#
# Full mode (`make bench-nf` runs it after bench/nf and bench/hook): the
# cases drop (Spamhaus DROP's shape, 1,000 prefixes /10-/24), firehol
# (FireHOL level1's, 4,500, /8-/32), abuse1m (1M, /24-/32) and lens1 ...
# lens24 (10,000 prefixes of 1 to 24 lengths: the cost against the number
# of lengths), 5 rounds of 262144 packets; build/bench/prefix.jsonl.
# --quick (`make check`, through bench/nf/run.sh --quick): the drop case,
# 1 round of 16384 packets, nf_cuckoo f = 12 plain and semi-sorted
# against hash:net and nft; build/bench/prefix-quick.jsonl, and TAP lines
# "ok - bench-prefix: ..." saying that each contender loaded the list and
# dropped what it should (not that targets are met).  --cases or
# --contenders: build/bench/prefix-partial.jsonl.
#
# Writes the lists with gen.py (under build/bench/prefix-lists/, kept:
# they are the same for a seed), builds nf_cuckoo.ko (for KVER, default
# scripts/kver.sh's pick), cfctl and nfcf_hookbench.ko, boots the VM once
# (6 GB) to run bench/prefix/in_vm.sh (which says what is measured) and
# hands its records to report.py, which prints the tables.  Run it under
# `nice -n 19` on a shared machine.
# Exit status: 0; 1 if a build, the VM or the report failed.

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CASES="drop firehol abuse1m lens1 lens2 lens4 lens8 lens16 lens24"
REPS=5
PACKETS=262144
LOAD_MAX=900
TIMEOUT=
QUICK=0
CONTENDERS=
PARTIAL=0
MEM=6144
while [ $# -gt 0 ]; do
	case $1 in
	--quick)
		# f = 16's probes are f = 12's with other constants: the quick
		# run checks the verdicts of the two kinds of probe
		QUICK=1 CASES=drop REPS=1 PACKETS=16384 LOAD_MAX=300
		CONTENDERS=${CONTENDERS:-cuckoo-f12 cuckoo-ss12 ipset nft}
		shift ;;
	--cases) CASES=$2; PARTIAL=1; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--packets) PACKETS=$2; shift 2 ;;
	--load-max) LOAD_MAX=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--contenders) CONTENDERS=$2; PARTIAL=1; shift 2 ;;
	-h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
KVER=${KVER:-$("$REPO/scripts/kver.sh")} || exit 1
ncases=$(wc -w <<<"$CASES")
# Each run some 2 s and 3 us a packet under TCG, six contenders (the
# baseline included); the 1M loads are bounded.
TIMEOUT=${TIMEOUT:-$((600 + 2 * LOAD_MAX + ncases * 6 * 2 * (REPS + 1) * (2 + PACKETS * 3 / 1000000)))}

OUT=$REPO/build/bench
LISTS=$OUT/prefix-lists
JSONL=$OUT/prefix.jsonl
[ "$QUICK" = 1 ] && JSONL=$OUT/prefix-quick.jsonl
[ "$PARTIAL" = 1 ] && JSONL=$OUT/prefix-partial.jsonl
mkdir -p "$LISTS"

# shellcheck source=bench/vmrun.sh
. "$REPO/bench/vmrun.sh"
fail() { echo "not ok - bench-prefix: $*"; exit 1; }
for k in warm $CASES; do
	[ -s "$LISTS/$k/meta.json" ] && [ "$LISTS/$k/meta.json" -nt "$HERE/gen.py" ] &&
		continue
	python3 "$HERE/gen.py" "$k" "$LISTS/$k" || fail "cannot write the list $k"
done
bench_module "$KVER" && bench_build "cfctl:make -s -C $REPO/tools/cfctl" \
	"bench/hook:make -s -C $REPO/bench/hook KVER=$KVER" || fail "a build failed"

echo "# bench-prefix: $KVER, cases $CASES, $REPS rounds of $PACKETS packets; timeout $TIMEOUT s"
bench_vm "$JSONL" PB-JSON "$QUICK" "$KVER" "$MEM" "$TIMEOUT" -- \
	"$HERE/in_vm.sh" --lists "$LISTS" --cases "$CASES" --reps "$REPS" \
	--packets "$PACKETS" --load-max "$LOAD_MAX" \
	${CONTENDERS:+--contenders "$CONTENDERS"}
rc=$?
[ "$rc" = 0 ] || echo "not ok - bench-prefix: the VM run failed (status $rc)"
echo "# bench-prefix: results in ${JSONL#"$REPO"/}"
report=("$JSONL")
[ "$QUICK" = 1 ] && report+=(--tap)
python3 "$HERE/report.py" "${report[@]}" || rc=1
exit $((rc != 0))
