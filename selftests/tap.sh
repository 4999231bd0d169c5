# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 output and kselftest exit statuses (0 pass, 1 fail, 4 skip) for
# the selftests: sourced by lib.sh (control plane) and packet/pktlib.sh.
# Test points are named "$TEST: DESCRIPTION", TEST being the script's name.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

TEST=${NFC_TEST_NAME:-$(basename "$0" .sh)}

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

# NFC_TAP_TIMES=1: a diagnostic line before each point with the seconds
# since the last (or since the script began), to see where a test's time
# goes.
tap_t=${EPOCHREALTIME/./}
tap_time() {
	local t=${EPOCHREALTIME/./}

	[ "${NFC_TAP_TIMES:-0}" = 1 ] &&
		printf '# +%d.%01d s\n' $(((t - tap_t) / 1000000)) $(((t - tap_t) / 100000 % 10))
	tap_t=$t
}

ok() {
	tap_time
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $TEST: $1"
}

# not_ok DESC [DIAG...]
not_ok() {
	tap_time
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

# check_eq DESC GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "got '$2', want '$3'"
	fi
}

# check_ge DESC GOT MIN
check_ge() {
	if [[ $2 =~ ^[0-9]+$ ]] && [ "$2" -ge "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "got '$2', want at least $3"
	fi
}

# check_all DESC COND...: one result for several "GOT OP WANT" triples
# given as separate words: check_all desc "$a" = 3 "$b" -ge 1
check_all() {
	local desc=$1 bad=()

	shift
	while [ $# -ge 3 ]; do
		if ! [[ $1 =~ ^-?[0-9]+$ ]] && [ "$2" != = ]; then
			bad+=("'$1' is not a number (want $2 $3)")
		elif [ "$2" = = ]; then
			[ "$1" = "$3" ] || bad+=("got '$1', want '$3'")
		elif ! [ "$1" "$2" "$3" ]; then
			bad+=("got '$1', want $2 $3")
		fi
		shift 3
	done
	if [ ${#bad[@]} = 0 ]; then
		ok "$desc"
	else
		not_ok "$desc" "${bad[@]}"
	fi
}

# kmsg_mark: mark the kernel log; check_klog looks at what follows.
kmsg_mark() {
	KMARK="nfcp $TEST $$ $(date +%s%N)"
	echo "$KMARK" >/dev/kmsg
}

# What in the kernel log fails any test: an oops, a warning, a report of
# KASAN, UBSAN, kmemleak, lockdep or RCU, a corrupted list, an OOM kill.
KLOG_BAD='BUG:|WARNING:|Oops|general protection|refcount_t:|KASAN|UBSAN|kmemleak|hung task|soft lockup|RCU stall|lockdep|circular locking|suspicious RCU|sleeping function|list_add|list_del|corruption|Out of memory|oom-kill'

# klog_bad MARK: the lines of KLOG_BAD logged after the line MARK, or why
# the log cannot tell (a log that wrapped past MARK must not pass).
klog_bad() {
	local log

	if ! log=$(dmesg); then
		echo "cannot read the kernel log (dmesg failed)"
		return
	fi
	if ! grep -qF "$1" <<<"$log"; then
		echo "the kernel log no longer holds the mark '$1': it wrapped, nothing can be checked"
		return
	fi
	sed -n "/$1/,\$p" <<<"$log" | sed 1d | grep -E "$KLOG_BAD" |
		grep -vE 'loading out-of-tree module taints kernel|module verification failed'
}

# check_klog: a test point: since kmsg_mark, nothing of KLOG_BAD.
check_klog() {
	local bad

	bad=$(klog_bad "$KMARK")
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
