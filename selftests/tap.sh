# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 output and kselftest exit statuses (0 pass, 1 fail, 4 skip) for
# the selftests: sourced by lib.sh (control plane) and packet/pktlib.sh.
# Test points are named "$TEST: DESCRIPTION", TEST being the script's name.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

TEST=$(basename "$0" .sh)

tap_n=0
tap_planned=0
tap_failed=0
tap_skipped=0

# Print the TAP header.
plan() {
	tap_planned=$1
	echo "TAP version 13"
	echo "1..$tap_planned"
}

# Skip the whole script (before plan).
skip_all() {
	echo "TAP version 13"
	echo "1..0 # SKIP $TEST: $*"
	exit $KSFT_SKIP
}

bail() {
	echo "Bail out! $TEST: $*"
	exit $KSFT_FAIL
}

diag() {
	local l

	for l in "$@"; do
		printf '%s\n' "$l" | sed 's/^/# /'
	done
}

ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $TEST: $1"
}

# not_ok DESC [DIAG...]
not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $TEST: $1"
	shift
	[ $# -gt 0 ] && diag "$@"
	return 0
}

# Finish: a summary comment and the exit status.
finish() {
	if [ "$tap_n" != "$tap_planned" ]; then
		not_ok "ran $tap_n tests, planned $tap_planned"
	fi
	diag "$TEST: $((tap_n - tap_failed - tap_skipped)) passed, $tap_failed failed, $tap_skipped skipped, ${SECONDS}s"
	[ "$tap_failed" = 0 ] && exit $KSFT_PASS
	exit $KSFT_FAIL
}

# kmsg_mark: mark the kernel log; check_klog looks at what follows.
kmsg_mark() {
	KMARK="nfcp $TEST $$ $(date +%s%N)"
	echo "$KMARK" >/dev/kmsg
}

# check_klog: a test point: since kmsg_mark, no BUG, WARNING, Oops, lockdep
# or KASAN report, and no OOM kill.
check_klog() {
	local bad

	bad=$(dmesg | sed -n "/$KMARK/,\$p" | sed 1d | grep -E \
		'BUG:|WARNING:|Oops|general protection|KASAN|UBSAN|refcount_t:|RCU stall|soft lockup|hung task|circular locking|suspicious RCU|sleeping function|Out of memory|oom-kill|kmemleak')
	if [ -z "$bad" ]; then
		ok "no BUG, WARNING, Oops or OOM kill in the kernel log"
	else
		not_ok "no BUG, WARNING, Oops or OOM kill in the kernel log" "$bad"
	fi
}

# wait_until SECONDS CMD...: run CMD every 0.2 s until it succeeds; fails
# after SECONDS (scaled by NFC_TEST_SLOW, default 1: a debug kernel may need
# more).
wait_until() {
	local end=$((SECONDS + $1 * ${NFC_TEST_SLOW:-1}))

	shift
	until "$@"; do
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.2
	done
}
