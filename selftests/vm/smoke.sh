#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Smoke test of nf_cuckoo.ko, run as root inside the VM:
#   selftests/vm/vm.sh -- selftests/vm/smoke.sh [MODULE.ko]
#
# Loads the module (whose init runs the filter core's self-test), checks
# the self-test line and /sys/module/nf_cuckoo, unloads it, and checks the
# kernel log since the load for BUG/WARNING/Oops/taint reports.  The taint
# that any out-of-tree, unsigned module brings (O, E) is expected.
#
# Prints TAP.  Exit status: 0 all passed, 1 some failed, 4 (kselftest
# skip) if the module has not been built.

set -u

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
REPO=$(cd "$HERE/../.." && pwd)
KO=${1:-${NF_CUCKOO_KO:-$REPO/nf_cuckoo.ko}}
MOD=nf_cuckoo

KSFT_SKIP=4
# Taint flags a module built outside the tree and not signed brings:
# O (TAINT_OOT_MODULE, 4096) and E (TAINT_UNSIGNED_MODULE, 8192).
TAINT_EXPECTED=$((4096 | 8192))

echo "TAP version 13"
if [ ! -f "$KO" ]; then
	echo "1..0 # SKIP $KO not built (make)"
	exit $KSFT_SKIP
fi

NTESTS=7
echo "1..$NTESTS"

n=0
failed=0
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	shift
	for l in "$@"; do
		echo "# $l"
	done
}
check() {
	local desc=$1

	shift
	if "$@"; then
		ok "$desc"
	else
		not_ok "$desc"
	fi
}

if [ -d /sys/module/$MOD ]; then
	echo "# $MOD was loaded already: unloading it first"
	rmmod $MOD || echo "# rmmod $MOD failed"
fi

# Everything the kernel logs from here on is ours to check.
MARK="$MOD smoke test $$ $(date +%s%N)"
echo "$MARK" >/dev/kmsg
since_mark() {
	dmesg | sed -n "/$MARK/,\$p" | sed 1d
}
taint0=$(cat /proc/sys/kernel/tainted)

# 1: load
out=$(insmod "$KO" 2>&1)
rc=$?
if [ $rc = 0 ]; then
	ok "insmod $(basename "$KO")"
else
	not_ok "insmod $(basename "$KO")" "exit $rc: $out"
fi

# 2: the self-test reported success
line=$(since_mark | grep -m1 "$MOD: self-test")
case $line in
*"self-test passed"*)
	ok "self-test passed"
	echo "# ${line#*] }" ;;
*)
	not_ok "self-test passed" "${line:-no self-test line in dmesg}" ;;
esac

# 3: the module is there
check "/sys/module/$MOD exists" test -d /sys/module/$MOD

# 4: unload
out=$(rmmod $MOD 2>&1)
rc=$?
if [ $rc = 0 ]; then
	ok "rmmod $MOD"
else
	not_ok "rmmod $MOD" "exit $rc: $out"
fi

# 5: it is gone
check "/sys/module/$MOD is gone" test ! -e /sys/module/$MOD

# 6: no kernel splat since the load
bad=$(since_mark | grep -E 'BUG:|WARNING:|Oops|Tainted:|[Tt]aint' |
	grep -vE 'loading out-of-tree module taints kernel|module verification failed: signature and/or required key missing - tainting kernel')
if [ -z "$bad" ]; then
	ok "no BUG/WARNING/Oops/taint in dmesg"
else
	not_ok "no BUG/WARNING/Oops/taint in dmesg"
	since_mark | sed 's/^/# /'
fi

# 7: no taint beyond what an out-of-tree unsigned module brings
taint1=$(cat /proc/sys/kernel/tainted)
new=$(((taint1 & ~taint0) & ~TAINT_EXPECTED))
if [ $new = 0 ]; then
	ok "no unexpected taint (tainted $taint0 -> $taint1)"
else
	not_ok "no unexpected taint" "tainted $taint0 -> $taint1, new flags $new"
fi

[ $n = $NTESTS ] || echo "# ran $n tests, planned $NTESTS"
if [ $failed = 0 ]; then
	echo "# PASS: $n/$n"
	exit 0
fi
echo "# FAIL: $failed of $n"
exit 1
