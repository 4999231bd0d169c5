#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The XDP benchmark (issue 33): nf_cuckoo's XDP program (the one cfctl
# xdp attach loads) against the same parser over a BPF hash map and a
# BPF Bloom filter map, xdp-filter (xdp-tools), and nf_cuckoo's own
# prerouting hook, on the same UDP flows, IPv4 and IPv6, 0% and 100% of
# packets matching: per-packet cost in the kernel (BPF_PROG_TEST_RUN;
# the hook: bench/hook's nfcf_hookbench), kernel memory per flow, load
# time.
#
#   bench/xdp/run.sh [--quick] [--flows N] [--families "4 6"]
#                    [--repeat R] [--rounds K] [--loads L] [--samples S]
#                    [--e2e-rounds E] [--e2e-seconds S]
#                    [--e2e-families "4 6"] [--timeout S]
#
# Full mode (`make bench-xdp`): 1M flows, 5 rounds of 1M repeats a
# contender, family and mix, 3 loads, 3 end-to-end rounds of 5 s
# (e2e.sh); build/bench/xdp.jsonl and the table (report.py).  --quick:
# 20,000 flows, 1 round of 20,000 repeats, 1 load, 1 end-to-end round of
# 1 s, IPv4 only; build/bench/xdp-quick.jsonl, and TAP lines "ok - bench-xdp: ..."
# saying that every contender ran with the right verdicts on a sample of
# packets (listed ones dropped, unlisted ones passed).
#
# Builds cfctl and nf_cuckoo.bpf.o (make -C tools/cfctl), bench/xdp's
# programs (make -C bench/xdp) and bench/hook's module (a copy of its
# source built in build/bench/xdp-hookmod/, bench/hook left as it is);
# the module is the tree's, built for KVER, or BENCH_KO_DIR's (make
# check's: bench/vmrun.sh, bench_module); boots the VM once
# (selftests/vm/vm.sh, 4 GB) to run bench/xdp/in_vm.sh (which says what
# is measured).  KVER: scripts/kver.sh's unless set.  Run it under `nice -n
# 19` on a shared machine.
# Exit status: 0; 1 if a build, the VM or the report failed.

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
FLOWS=1000000
FAMILIES="4 6"
REPEAT=1000000
ROUNDS=5
LOADS=3
SAMPLES=10000
HOOKP=524288
TRAFFIC=65536
XFCALLS=50
E2E_ROUNDS=3
E2E_SECS=5
E2E_FAMILIES=
TIMEOUT=
QUICK=0
MEM=4096
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1; FLOWS=20000; REPEAT=20000; ROUNDS=1; LOADS=1
		 SAMPLES=200; HOOKP=16384; TRAFFIC=16384; XFCALLS=5
		 E2E_ROUNDS=1; E2E_SECS=1; E2E_FAMILIES=4; shift ;;
	--flows) FLOWS=$2; shift 2 ;;
	--families) FAMILIES=$2; shift 2 ;;
	--repeat) REPEAT=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--loads) LOADS=$2; shift 2 ;;
	--samples) SAMPLES=$2; shift 2 ;;
	--e2e-rounds) E2E_ROUNDS=$2; shift 2 ;;
	--e2e-seconds) E2E_SECS=$2; shift 2 ;;
	--e2e-families) E2E_FAMILIES=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	-h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
KVER=${KVER:-$("$REPO/scripts/kver.sh")} || exit 1
# QEMU's "max" CPU but for ERMS, full runs too (bench/vmrun.sh's full
# runs emulate ERMS): with it, the end-to-end sender's frame copies are
# "rep movsb", which TCG runs a byte an iteration, and the sender, not
# the receiving CPU, sets the rate (2026-11-29: 238,000 frames a second
# sent, the floor 340,000; without ERMS over 1,000,000 sent).
export NFC_VM_CPU=${NFC_VM_CPU:-max,erms=off}
nfam=$(wc -w <<<"$FAMILIES")
# Under TCG: some 60 s per million flows and family to build, load and
# save; a test run of 1M repeats some seconds.
TIMEOUT=${TIMEOUT:-$((300 + FLOWS * nfam * (LOADS * 2 + 2) * 15 / 1000000 + ROUNDS * nfam * 2 * 5 * REPEAT * 3 / 1000000 + ROUNDS * nfam * 4 * HOOKP / 100000 + E2E_ROUNDS * nfam * 3 * (E2E_SECS + 10)))}

OUT=$REPO/build/bench
JSONL=$OUT/xdp.jsonl
[ "$QUICK" = 1 ] && JSONL=$OUT/xdp-quick.jsonl
mkdir -p "$OUT"
HOOKDIR=$OUT/xdp-hookmod

# shellcheck source=bench/vmrun.sh
. "$REPO/bench/vmrun.sh"
fail() { echo "not ok - bench-xdp: $*"; exit 1; }
bench_module "$KVER" || fail "a build failed"
KO=$KO_DIR/nf_cuckoo.ko
mkdir -p "$HOOKDIR" && cp "$REPO/bench/hook/nfcf_hookbench.c" "$REPO/bench/hook/Kbuild" "$HOOKDIR/" ||
	fail "cannot copy bench/hook's module"
# Which nf_cuckoo.bpf.c is built: the committed one or a changed copy.
f=tools/cfctl/bpf/nf_cuckoo.bpf.c
state="as in HEAD ($(git -C "$REPO" rev-parse --short HEAD 2>/dev/null))"
git -C "$REPO" diff --quiet HEAD -- "$f" 2>/dev/null ||
	state="changed from HEAD ($(git -C "$REPO" rev-parse --short HEAD 2>/dev/null)), blob $(git -C "$REPO" hash-object "$f" | cut -c1-12)"
bench_build "cfctl:make -s -C $REPO/tools/cfctl" \
	"bench/xdp:make -s -C $HERE" \
	"bench/hook's module:make -s -C /lib/modules/$KVER/build M=$HOOKDIR modules" ||
	fail "a build failed"

echo "# bench-xdp: $KVER, $FLOWS flows, families $FAMILIES, $ROUNDS rounds of $REPEAT repeats, $LOADS loads; timeout $TIMEOUT s"
t0=$SECONDS
bench_vm "$JSONL" XB-JSON "$QUICK" "$KVER" "$MEM" "$TIMEOUT" -- \
	"$HERE/in_vm.sh" --ko "$KO" --hookmod "$HOOKDIR/nfcf_hookbench.ko" \
	--flows "$FLOWS" --families "$FAMILIES" --repeat "$REPEAT" \
	--rounds "$ROUNDS" --loads "$LOADS" --samples "$SAMPLES" \
	--hook-packets "$HOOKP" --traffic "$TRAFFIC" --xf-calls "$XFCALLS" \
	--e2e-rounds "$E2E_ROUNDS" --e2e-seconds "$E2E_SECS" \
	--e2e-families "${E2E_FAMILIES:-$FAMILIES}"
rc=$?
printf '{"type":"prog_src","state":"%s"}\n' "$state" >>"$JSONL"
[ "$rc" = 0 ] || echo "not ok - bench-xdp: the VM run failed (status $rc)"
echo "# bench-xdp: the VM ran $((SECONDS - t0)) s; results in ${JSONL#"$REPO"/}"
report=("$JSONL")
[ "$QUICK" = 1 ] && report+=(--tap)
python3 "$HERE/report.py" "${report[@]}" || rc=1
exit $((rc != 0))
