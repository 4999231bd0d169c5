#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-kernel hook benchmark (issue 18): nf_cuckoo, an nftables set and
# an ipset with iptables, each timed at prerouting alone, in the kernel,
# with nf_hook_slow() over prebuilt skbs (bench/hook/nfcf_hookbench.c).
#
#   bench/hook/run.sh [--quick] [--flows "N..."] [--families "4 6"]
#                     [--reps R] [--packets P] [--splits S] [--traffic T]
#                     [--timeout S] [--ab COMMIT] [--contenders "C..."]
#
# Full mode (`make bench-hook`, and after bench/nf's run in `make
# bench-nf`): 100k and 1M flows, IPv4 and IPv6, 10 rounds of 524288
# packets a contender, in 2 splits (in_vm.sh says why); build/bench/hook.jsonl.
# --quick (`make check`, through bench/nf/run.sh --quick): 5,000 flows,
# 1 round of 16384 packets, one split;
# build/bench/hook-quick.jsonl, and TAP lines "ok - bench-hook: ..."
# saying that every contender ran with the right verdicts (not that
# targets are met).  --ab COMMIT: nf_cuckoo alone, IPv4, against the
# module built from COMMIT's kmod/, the two swapped in turn in the same
# boot (in_vm.sh --ab); build/bench/hook-ab.jsonl.  --contenders: only
# these (and no hook), e.g. "cuckoo-f12 cuckoo-ss13 nft";
# build/bench/hook-partial.jsonl.
#
# Builds nf_cuckoo.ko (for KVER, default scripts/kver.sh's pick), cfctl and
# the benchmark's module (never installed), boots the VM once
# (selftests/vm/vm.sh, 6 GB) to run bench/hook/in_vm.sh (which says what
# is measured), keeps the JSON lines it prints and hands them to report.py,
# which prints the table.  Run it under `nice -n 19` on a shared machine.
# Exit status: 0; 1 if a build, the VM or the report failed.

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
FLOWS="100000 1000000"
FAMILIES="4 6"
REPS=10
PACKETS=524288
SPLITS=2
TRAFFIC=65536
TIMEOUT=
QUICK=0
AB=
CONTENDERS=
MEM=6144
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1; FLOWS=5000; REPS=1; PACKETS=16384; TRAFFIC=16384; SPLITS=1; shift ;;
	--flows) FLOWS=$2; shift 2 ;;
	--families) FAMILIES=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--packets) PACKETS=$2; shift 2 ;;
	--splits) SPLITS=$2; shift 2 ;;
	--traffic) TRAFFIC=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--ab) AB=$2; shift 2 ;;
	--contenders) CONTENDERS=$2; shift 2 ;;
	-h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
KVER=${KVER:-$("$REPO/scripts/kver.sh")} || exit 1
# Loads: some 100 s per million flows and tool and family under TCG.
nflows=$(($(tr ' ' '+' <<<"$FLOWS")))
nfam=$(wc -w <<<"$FAMILIES")
TIMEOUT=${TIMEOUT:-$((900 + nflows * nfam * 3 / 5000 + REPS * nfam * 8 * PACKETS / 100000))}

OUT=$REPO/build/bench
JSONL=$OUT/hook.jsonl
[ "$QUICK" = 1 ] && JSONL=$OUT/hook-quick.jsonl
[ -n "$AB" ] && JSONL=$OUT/hook-ab.jsonl
[ -n "$CONTENDERS" ] && JSONL=$OUT/hook-partial.jsonl
mkdir -p "$OUT"

# shellcheck source=bench/vmrun.sh
. "$REPO/bench/vmrun.sh"
fail() { echo "not ok - bench-hook: $*"; exit 1; }
bench_module "$KVER" && bench_build "cfctl:make -s -C $REPO/tools/cfctl" \
	"libxt_cuckoo:make -s -C $REPO/tools/xt" \
	"bench/hook:make -s -C $HERE KVER=$KVER" || fail "a build failed"

ab=()
if [ -n "$AB" ]; then
	# The module of another commit, built from that commit's files alone.
	abdir=$OUT/ab-$AB
	rm -rf "$abdir" && mkdir -p "$abdir" &&
		git -C "$REPO" archive "$AB" Kbuild Makefile kmod uapi scripts |
		tar -x -C "$abdir" || fail "cannot extract $AB"
	bench_build "module at $AB:make -s -C $abdir module KVER=$KVER" ||
		fail "a build failed"
	ab=(--ab "$abdir/nf_cuckoo.ko" --ab-name "$AB")
	FAMILIES=4 SPLITS=1
fi

echo "# bench-hook: $KVER, flows $FLOWS, families $FAMILIES, $REPS rounds of $PACKETS packets in $SPLITS split(s)${AB:+, against the module of $AB}; timeout $TIMEOUT s"
bench_vm "$JSONL" HB-JSON "$QUICK" "$KVER" "$MEM" "$TIMEOUT" -- \
	"$HERE/in_vm.sh" --flows "$FLOWS" --families "$FAMILIES" --reps "$REPS" \
	--packets "$PACKETS" --splits "$SPLITS" --traffic "$TRAFFIC" "${ab[@]}" \
	${CONTENDERS:+--contenders "$CONTENDERS"}
rc=$?
[ "$rc" = 0 ] || echo "not ok - bench-hook: the VM run failed (status $rc)"
echo "# bench-hook: results in ${JSONL#"$REPO"/}"
report=("$JSONL")
[ "$QUICK" = 1 ] && report+=(--tap)
python3 "$HERE/report.py" "${report[@]}" || rc=1
exit $((rc != 0))
