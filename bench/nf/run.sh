#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nf_cuckoo against an nftables set and an ipset: load rate, kernel memory
# and per-packet cost for the same flows, in one VM boot; then the
# in-kernel hook benchmark (bench/hook/run.sh, a second boot), whose
# per-packet figures are the ones the README quotes; then blocklists of
# prefixes against ipset's hash:net and an nftables interval set
# (bench/prefix/run.sh, a third boot; not with --contenders).
#
#   bench/nf/run.sh [--quick] [--flows "N..."] [--reps R] [--rounds R]
#                   [--slice MS] [--load-max S] [--timeout S]
#                   [--contenders "C..."]
#
# Full mode (`make bench-nf`): 100k and 1M flows loaded, 3 times each; the
# packet test with 1M flows held, 15 rounds of 1 s slices a contender;
# results in build/bench/nf.jsonl, the charts in doc/bench/.  --quick
# (`make check`): 5,000 flows, loaded once, 2 rounds of 0.5 s slices;
# build/bench/nf-quick.jsonl, charts in build/bench/quick/, and TAP lines
# "ok - bench-nf: ..." saying that each contender loaded and its traffic
# was counted (not that targets are met).  --contenders: only these (and
# no filter), of none cuckoo-f12 cuckoo-f16 cuckoo-ss13 nft ipset, in both
# parts; build/bench/nf-partial.jsonl and hook-partial.jsonl, charts in
# build/bench/partial/.
#
# Builds the module, cfctl and bench/nf's programs, boots the VM
# (selftests/vm/vm.sh, 6 GB) to run bench/nf/in_vm.sh (which says what is
# measured and how), keeps the JSON lines it prints and hands them to
# report.py: the table on stdout, summaries written after them, charts
# (doc/bench/ only from a full run that went through).
# Exit status: 0; 1 if a build, the VM or (--quick) a check failed.

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
QUICK=0
FLOWS="100000 1000000"
REPS=3
ROUNDS=15
SLICE=1000
LOAD_MAX=900
TIMEOUT=
CONTENDERS=
MEM=6144
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1; FLOWS=5000; REPS=1; ROUNDS=2; SLICE=500; LOAD_MAX=300; shift ;;
	--flows) FLOWS=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--slice) SLICE=$2; shift 2 ;;
	--load-max) LOAD_MAX=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--contenders) CONTENDERS=$2; shift 2 ;;
	-h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
# Boot, flow generation and packet runs take minutes; each load is bounded.
n_loads=$(($(wc -w <<<"$FLOWS") * REPS * 4))
TIMEOUT=${TIMEOUT:-$((600 + n_loads * LOAD_MAX / 3 + ROUNDS * SLICE * 12 / 1000))}

OUT=$REPO/build/bench
JSONL=$OUT/nf.jsonl
CHARTS=$REPO/doc/bench
if [ "$QUICK" = 1 ]; then
	JSONL=$OUT/nf-quick.jsonl
	CHARTS=$OUT/quick
elif [ -n "$CONTENDERS" ]; then
	JSONL=$OUT/nf-partial.jsonl
	CHARTS=$OUT/partial
fi
mkdir -p "$OUT"

fail() { echo "not ok - bench-nf: $*"; exit 1; }

# shellcheck source=bench/vmrun.sh
. "$REPO/bench/vmrun.sh"
# The VM boots the kernel the module is built for.
kver=${KVER:-$("$REPO/scripts/kver.sh" -q)} || fail "which kernel? (scripts/kver.sh)"
bench_module "$kver" && bench_build "cfctl:make -s -C $REPO/tools/cfctl" \
	"bench/nf:make -s -C $HERE" || fail "a build failed"

echo "# bench-nf: VM run: flows $FLOWS, loaded $REPS time(s); $ROUNDS rounds of $SLICE ms; timeout $TIMEOUT s"
bench_vm "$JSONL" NFB-JSON "$QUICK" "$kver" "$MEM" "$TIMEOUT" -- \
	"$HERE/in_vm.sh" --flows "$FLOWS" --reps "$REPS" --rounds "$ROUNDS" \
	--slice "$SLICE" --load-max "$LOAD_MAX" \
	${CONTENDERS:+--contenders "$CONTENDERS"}
rc=$?
if [ "$rc" != 0 ]; then
	echo "not ok - bench-nf: the VM run failed (status $rc)"
	CHARTS=$OUT/failed
fi

echo "# bench-nf: results in ${JSONL#"$REPO"/}"
args=("$JSONL" --charts "$CHARTS")
[ "$QUICK" = 1 ] && args+=(--tap)
python3 "$HERE/report.py" "${args[@]}" || rc=1

# The per-packet figures to trust come from the in-kernel hook benchmark:
# the same contenders' prerouting hooks timed alone, in a second boot.
hook=()
[ "$QUICK" = 1 ] && hook+=(--quick)
[ -n "$CONTENDERS" ] && hook+=(--flows "$FLOWS" --contenders "$CONTENDERS")
KVER=$kver "$REPO/bench/hook/run.sh" "${hook[@]}" || rc=1

# Blocklists of prefixes against hash:net and an interval set, a third
# boot (not with --contenders: its contenders are others).
if [ -z "$CONTENDERS" ]; then
	prefix=()
	[ "$QUICK" = 1 ] && prefix+=(--quick)
	KVER=$kver "$REPO/bench/prefix/run.sh" "${prefix[@]}" || rc=1
fi
exit $((rc != 0))
