#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nf_cuckoo against an nftables set and an ipset: load rate, kernel memory
# and per-packet cost for the same flows, all in one VM boot.
#
#   bench/nf/run.sh [--quick] [--flows "N..."] [--reps R] [--rounds R]
#                   [--slice MS] [--load-max S] [--timeout S]
#
# Full mode (`make bench-nf`): 100k and 1M flows loaded, 3 times each; the
# packet test with 1M flows held, 15 rounds of 1 s slices a contender;
# results in build/bench/nf.jsonl, the charts in doc/bench/.  --quick
# (`make check`): 100k flows, loaded once, 2 rounds of 0.5 s slices;
# build/bench/nf-quick.jsonl, charts in build/bench/quick/, and TAP lines
# "ok - bench-nf: ..." saying that each contender loaded and its traffic
# was counted (not that targets are met).
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
MEM=6144
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1; FLOWS=100000; REPS=1; ROUNDS=2; SLICE=500; LOAD_MAX=300; shift ;;
	--flows) FLOWS=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--slice) SLICE=$2; shift 2 ;;
	--load-max) LOAD_MAX=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
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
fi
mkdir -p "$OUT"

fail() { echo "not ok - bench-nf: $*"; exit 1; }

for what in "module:make -s -C $REPO module" "cfctl:make -s -C $REPO/tools/cfctl" \
	    "bench/nf:make -s -C $HERE"; do
	out=$(eval "${what#*:}" 2>&1) ||
		fail "building ${what%%:*} failed$(printf '\n%s' "$out" | tail -20 | sed 's/^/# /')"
done

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
{
	printf '{"type":"host","date":"%s","host_cpu":"%s","host_cpus":%s,"loadavg":"%s",' \
		"$(date -u +%FT%TZ)" "$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)" \
		"$(nproc)" "$(loadavg)"
	printf '"qemu":"%s","accel":"tcg","smp":2,"mem_mb":%s,"quick":%s,"commit":"%s"}\n' \
		"$(qemu-system-x86_64 --version | sed -n '1s/.*version \([^ ]*\).*/\1/p')" \
		"$MEM" "$([ "$QUICK" = 1 ] && echo true || echo false)" \
		"$(git -C "$REPO" describe --always --dirty 2>/dev/null)"
} >"$JSONL.tmp"

echo "# bench-nf: VM run: flows $FLOWS, loaded $REPS time(s); $ROUNDS rounds of $SLICE ms; timeout $TIMEOUT s"
# The VM boots the kernel the module was built for.
kver=$(modinfo -F vermagic "$REPO/nf_cuckoo.ko" | cut -d' ' -f1)
"$REPO/selftests/vm/vm.sh" --timeout "$TIMEOUT" --mem "$MEM" --kver "$kver" \
	--cwd "$REPO" -- \
	"$HERE/in_vm.sh" --flows "$FLOWS" --reps "$REPS" --rounds "$ROUNDS" \
	--slice "$SLICE" --load-max "$LOAD_MAX" 2>&1 |
	while IFS= read -r line; do
		case $line in
		"NFB-JSON "*) printf '%s\n' "${line#NFB-JSON }" >>"$JSONL.tmp" ;;
		*) printf '# %s\n' "${line#\# }" ;;
		esac
	done
rc=${PIPESTATUS[0]}
printf '{"type":"host_end","date":"%s","loadavg":"%s"}\n' "$(date -u +%FT%TZ)" \
	"$(loadavg)" >>"$JSONL.tmp"
mv "$JSONL.tmp" "$JSONL"
if [ "$rc" != 0 ]; then
	echo "not ok - bench-nf: the VM run failed (status $rc)"
	CHARTS=$OUT/failed
fi

echo "# bench-nf: results in ${JSONL#"$REPO"/}"
args=("$JSONL" --charts "$CHARTS")
[ "$QUICK" = 1 ] && args+=(--tap)
python3 "$HERE/report.py" "${args[@]}" || rc=1
exit $((rc != 0))
