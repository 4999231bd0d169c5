#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-kernel hook benchmark (issue 18): nf_cuckoo, an nftables set and
# an ipset with iptables, each timed at prerouting alone, in the kernel,
# with nf_hook_slow() over prebuilt skbs (bench/hook/nfcf_hookbench.c).
#
#   bench/hook/run.sh [--quick] [--flows "N..."] [--families "4 6"]
#                     [--reps R] [--packets P] [--traffic T] [--timeout S]
#
# Full mode (`make bench-hook`): 100k and 1M flows, IPv4 and IPv6, 10
# rounds of 524288 packets a run; build/bench/hook.jsonl.  --quick: 100k
# flows, 3 rounds of 131072 packets; build/bench/hook-quick.jsonl.
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
TRAFFIC=65536
TIMEOUT=
QUICK=0
MEM=6144
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1; FLOWS=100000; REPS=3; PACKETS=131072; shift ;;
	--flows) FLOWS=$2; shift 2 ;;
	--families) FAMILIES=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--packets) PACKETS=$2; shift 2 ;;
	--traffic) TRAFFIC=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
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
mkdir -p "$OUT"

for what in "module:make -s -C $REPO module KVER=$KVER" \
	    "cfctl:make -s -C $REPO/tools/cfctl" \
	    "bench/hook:make -s -C $HERE KVER=$KVER"; do
	out=$(eval "${what#*:}" 2>&1) || {
		echo "run.sh: building ${what%%:*} failed:" >&2
		printf '%s\n' "$out" | tail -20 >&2
		exit 1
	}
done

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
printf '{"type":"host","date":"%s","host_cpus":%s,"loadavg":"%s","accel":"tcg","mem_mb":%s,"quick":%s,"commit":"%s"}\n' \
	"$(date -u +%FT%TZ)" "$(nproc)" "$(loadavg)" "$MEM" \
	"$([ "$QUICK" = 1 ] && echo true || echo false)" \
	"$(git -C "$REPO" describe --always --dirty 2>/dev/null)" >"$JSONL.tmp"

echo "# bench-hook: $KVER, flows $FLOWS, families $FAMILIES, $REPS rounds of $PACKETS packets; timeout $TIMEOUT s"
"$REPO/selftests/vm/vm.sh" --timeout "$TIMEOUT" --mem "$MEM" --kver "$KVER" \
	--cwd "$REPO" -- \
	"$HERE/in_vm.sh" --flows "$FLOWS" --families "$FAMILIES" --reps "$REPS" \
	--packets "$PACKETS" --traffic "$TRAFFIC" 2>&1 |
	while IFS= read -r line; do
		case $line in
		"HB-JSON "*) printf '%s\n' "${line#HB-JSON }" >>"$JSONL.tmp" ;;
		*) printf '# %s\n' "${line#\# }" ;;
		esac
	done
rc=${PIPESTATUS[0]}
printf '{"type":"host_end","date":"%s","loadavg":"%s"}\n' "$(date -u +%FT%TZ)" \
	"$(loadavg)" >>"$JSONL.tmp"
mv "$JSONL.tmp" "$JSONL"
[ "$rc" = 0 ] || echo "run.sh: the VM run failed (status $rc)" >&2
echo "# bench-hook: results in ${JSONL#"$REPO"/}"
python3 "$HERE/report.py" "$JSONL" || rc=1
exit $((rc != 0))
