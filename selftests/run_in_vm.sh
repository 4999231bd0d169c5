#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM that run_vm.sh (or scripts/check-debug.sh) boots (as
# root; the repository is the host's, read-only): inserts the freshly built
# module and checks the self-test its init runs, runs every selftest (`make -C selftests list`) as one flat TAP
# stream, removes the module and checks the kernel log, and, on a kernel
# with kmemleak, that nothing leaked.  Exit status 0 if every test point
# passed.
#
#   run_in_vm.sh [MODULE.ko]
#
# NFC_TESTS, if set, names the selftests to run instead of all of them.

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
KO=${1:-$REPO/nf_cuckoo.ko}
# klog_bad and KLOG_BAD: what in the kernel log fails a run.
. "$HERE/tap.sh"
COUNT=$(mktemp)

n=0
failed=0
point() {	# point ok|not_ok TEXT [DIAG...]
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - vm: $2"
	else
		echo "not ok $n - vm: $2"
		failed=$((failed + 1))
		shift 2
		local l
		for l in "$@"; do
			printf '%s\n' "$l" | sed 's/^/# /'
		done
	fi
}

echo "TAP version 13"
echo "# kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) MiB"
MARK="nf_cuckoo selftests $$ $(date +%s%N)"
echo "$MARK" >/dev/kmsg
KMEMLEAK=/sys/kernel/debug/kmemleak
# What leaked before the tests (boot) is not ours: forget it.
[ -w "$KMEMLEAK" ] && echo clear >"$KMEMLEAK"
[ -d /sys/module/nf_cuckoo ] && rmmod nf_cuckoo
# Taint flags a module built outside the tree and not signed brings: O
# (4096) and E (8192).
TAINT_EXPECTED=$((4096 | 8192))
taint0=$(cat /proc/sys/kernel/tainted)
out=$(insmod "$KO" 2>&1)
if [ $? = 0 ]; then
	point ok "insmod $KO"
else
	point not_ok "insmod $KO" "$out"
	echo "1..$n"
	exit 1
fi
line=$(dmesg | sed -n "/$MARK/,\$p" | grep -m1 'nf_cuckoo: self-test')
case $line in
*"self-test passed"*) point ok "the module's self-test passed at load: ${line#*] }" ;;
*) point not_ok "the module's self-test passed at load" "${line:-no self-test line in the kernel log}" ;;
esac

export NF_CUCKOO_KO=$KO
# NFC_TESTS (check-debug.sh --tests): a subset, to rerun what failed.
tests=${NFC_TESTS:-$(make -s --no-print-directory -C "$HERE" list)}
"$HERE/runner.sh" --flat --start $((n + 1)) --no-plan --count-file "$COUNT" $tests ||
	failed=$((failed + 1))
n=$(cat "$COUNT")

if [ -d /sys/module/nf_cuckoo ]; then
	out=$(rmmod nf_cuckoo 2>&1)
	[ $? = 0 ] && point ok "rmmod nf_cuckoo after the tests" ||
		point not_ok "rmmod nf_cuckoo after the tests" "$out"
else
	point not_ok "nf_cuckoo still loaded after the tests" "it was gone already"
fi
if [ -w "$KMEMLEAK" ]; then
	# kmemleak reports only objects older than 5 s, and an object that a
	# stale register or stack slot still points to only on a later scan.
	sleep 6
	echo scan >"$KMEMLEAK"
	sleep 1
	echo scan >"$KMEMLEAK"
	leaks=$(cat "$KMEMLEAK")
	[ -z "$leaks" ] && point ok "kmemleak: no leak after the tests" ||
		point not_ok "kmemleak: no leak after the tests" \
			"$(printf '%s\n' "$leaks" | head -60)"
fi
bad=$(klog_bad "$MARK")
[ -z "$bad" ] && point ok "no BUG/WARNING/Oops in the kernel log" ||
	point not_ok "no BUG/WARNING/Oops in the kernel log" "$bad"
taint1=$(cat /proc/sys/kernel/tainted)
new=$(((taint1 & ~taint0) & ~TAINT_EXPECTED))
[ "$new" = 0 ] && point ok "no taint but O and E (tainted $taint0 -> $taint1)" ||
	point not_ok "no taint but O and E" "tainted $taint0 -> $taint1, new flags $new"
echo "1..$n"
rm -f "$COUNT"
[ "$failed" = 0 ]
