#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-debug`: the whole selftest suite in a VM booted from the
# debug kernel (scripts/debug-kernel.sh: KASAN, lockdep, PROVE_RCU,
# DEBUG_ATOMIC_SLEEP, kmemleak, UBSAN), with nf_cuckoo built against it.
# Fails on any test point that fails and on any KASAN, lockdep, RCU,
# UBSAN, BUG or WARNING report in the kernel log, or any leak kmemleak
# finds after the module is gone (selftests/run_in_vm.sh checks both).
#
#   check-debug.sh [--if-cached] [--timeout SECONDS] [--tests "T..."]
#
# --if-cached  (what `make check` uses) run only if the debug kernel is
#              already built, else print one skipped TAP point saying so;
#              the first build takes about 20 minutes on 2 cores.
# --timeout    for the whole VM run (default 7200: the debug kernel under
#              emulation runs the suite some 5-10 times slower)
# --tests      only these selftests (names as in `make -C selftests list`),
#              e.g. --tests "pkt_host.sh fault_fill.sh" to rerun failures

set -u
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
IF_CACHED=0
TIMEOUT=7200
TESTS=()
while [ $# -gt 0 ]; do
	case $1 in
	--if-cached) IF_CACHED=1; shift ;;
	--timeout) TIMEOUT=${2:?}; shift 2 ;;
	--tests) TESTS=(--env "NFC_TESTS=${2:?}"); shift 2 ;;
	-h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "check-debug.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

if [ "$IF_CACHED" = 1 ]; then
	if ! KDIR=$("$REPO/scripts/debug-kernel.sh" path); then
		echo "ok - debug-kernel suite # SKIP no cached debug kernel (key $("$REPO/scripts/debug-kernel.sh" key)); \`make check-debug\` builds it (about 20 min)"
		exit 0
	fi
	echo "# debug kernel cached in $KDIR: running the suite in it"
else
	KDIR=$("$REPO/scripts/debug-kernel.sh" build) || {
		echo "not ok - debug-kernel: building the debug kernel failed"
		exit 1
	}
fi
KVER=$(cat "$KDIR/.done")

# nf_cuckoo for the debug kernel, built in a copy so that the objects of
# the Debian build in the tree stay as they are.
MOD=$REPO/build/debug-module
rm -rf "$MOD"
mkdir -p "$MOD"
cp -r "$REPO/Kbuild" "$REPO/kmod" "$REPO/uapi" "$MOD/"
find "$MOD" \( -name '*.o' -o -name '.*.cmd' -o -name '*.ko' \) -delete
out=$(make -C "$KDIR/lib/modules/$KVER/build" M="$MOD" modules 2>&1) || {
	echo "not ok - debug-kernel: nf_cuckoo does not build against $KVER"
	printf '%s\n' "$out" | tail -30 | sed 's/^/# /'
	exit 1
}
echo "ok - debug-kernel: nf_cuckoo builds against $KVER"
for what in "cfctl:make -s -C $REPO/tools/cfctl" \
	    "selftests:make -s -C $REPO/selftests"; do
	out=$(eval "${what#*:}" 2>&1) || {
		echo "not ok - debug-kernel: building ${what%%:*} failed"
		printf '%s\n' "$out" | tail -30 | sed 's/^/# /'
		exit 1
	}
done

# KASAN's shadow takes an eighth of the memory; lockdep and kmemleak
# log a lot: a bigger VM and log buffer than the plain run's.
exec "$REPO/selftests/vm/vm.sh" --kernel-dir "$KDIR" --mem 3072 \
	--timeout "$TIMEOUT" --cwd "$REPO" --append "log_buf_len=16M" \
	--env CFT_TIMEOUT=3600 ${TESTS[@]+"${TESTS[@]}"} -- \
	"$REPO/selftests/run_in_vm.sh" "$MOD/nf_cuckoo.ko"
